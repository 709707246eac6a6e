//! Structured control flow from labels and jumps: a forward conditional jump over a block is
//! an `if` (with an `else`), a backward one a bounded loop; other shapes are reported.

use super::operands::{int, not};
use super::X86;
use crate::ast::{Expr, Name, Stmt, StmtKind};
use crate::span::Span;

/// One instruction lowered, before jumps are structured.
pub(super) enum Item {
    Stmt(Stmt),
    Label(Name),
    /// `cond == None`: `JMP`.
    Jump {
        cond: Option<Expr>,
        target: Name,
        span: Span,
    },
}
/// The label `RET` jumps to: the end of the thread (not a name a test can write).
pub(super) const END: &str = "<end>";
impl X86<'_, '_> {
    /// Turns a thread's instructions, labels and jumps into structured statements.
    pub(super) fn structure(&mut self, items: &[Item]) -> Vec<Stmt> {
        let mut out = Vec::new();
        self.region(items, &mut out, 0);
        out
    }

    fn label_at(items: &[Item], name: &str) -> Option<usize> {
        items
            .iter()
            .position(|i| matches!(i, Item::Label(l) if l.text == name))
    }

    /// Structures `items` (a region: jumps may only target labels inside it) into `out`.
    fn region(&mut self, items: &[Item], out: &mut Vec<Stmt>, depth: usize) {
        if depth > 64 {
            if let Some(sp) = items.iter().find_map(|i| match i {
                Item::Jump { span, .. } => Some(*span),
                _ => None,
            }) {
                self.error(sp, "jumps nested too deeply");
            }
            return;
        }
        let mut i = 0;
        while i < items.len() {
            match &items[i] {
                Item::Stmt(s) => {
                    out.push(s.clone());
                    i += 1;
                }
                Item::Label(l) => {
                    // A loop: the last backward jump to this label closes it.
                    let back = (i + 1..items.len()).rev().find(|&j| {
                        matches!(&items[j], Item::Jump { target, .. } if target.text == l.text)
                    });
                    let Some(j) = back else {
                        i += 1;
                        continue;
                    };
                    let Item::Jump { cond, span, .. } = &items[j] else {
                        unreachable!()
                    };
                    let mut body = Vec::new();
                    self.region(&items[i + 1..j], &mut body, depth + 1);
                    let cond = cond.clone().unwrap_or_else(|| int(1, *span));
                    // do { body } while (cond)
                    out.extend(body.iter().cloned());
                    out.push(Stmt {
                        kind: StmtKind::While { cond, body },
                        span: *span,
                    });
                    i = j + 1;
                }
                Item::Jump { cond, target, span } => {
                    let Some(k) = Self::label_at(&items[i + 1..], &target.text).map(|k| k + i + 1)
                    else {
                        let msg = if target.text == END {
                            "`RET` inside a block that a jump skips or repeats is not supported (only at the thread's top level)".to_string()
                        } else if Self::label_at(items, &target.text).is_some() {
                            format!("unsupported jump to `{}`: a backward jump must close a loop that starts at its label, and jumps may not leave a loop or an `if` block", target.text)
                        } else {
                            format!(
                                "unknown label `{}` (or a jump out of its enclosing loop or block)",
                                target.text
                            )
                        };
                        self.error(*span, msg);
                        return;
                    };
                    match cond {
                        None => {
                            // `JMP` forward: what it skips is dead code.
                            i = k;
                        }
                        Some(c) => {
                            // if (!c) { then } [else { .. }] when `then` ends in `JMP` forward.
                            let mut then = Vec::new();
                            let mut else_body = Vec::new();
                            let mut next = k;
                            let ends_in_jmp = match items.get(k - 1) {
                                Some(Item::Jump {
                                    cond: None,
                                    target: t2,
                                    ..
                                }) if k - 1 > i => {
                                    Self::label_at(&items[k + 1..], &t2.text).map(|m| m + k + 1)
                                }
                                _ => None,
                            };
                            match ends_in_jmp {
                                Some(m) => {
                                    self.region(&items[i + 1..k - 1], &mut then, depth + 1);
                                    self.region(&items[k + 1..m], &mut else_body, depth + 1);
                                    next = m;
                                }
                                None => self.region(&items[i + 1..k], &mut then, depth + 1),
                            }
                            out.push(Stmt {
                                kind: StmtKind::If {
                                    cond: not(c.clone()),
                                    then_body: then,
                                    else_body,
                                },
                                span: *span,
                            });
                            i = next;
                        }
                    }
                }
            }
        }
    }
}
