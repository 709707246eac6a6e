//! Statements of the native dialect's thread bodies: assignments, loads and stores, atomics,
//! control flow, and the rules on what each may name.

use super::Native;
use crate::ast::{Dialect, Expr, LocRef, RmwOp, Stmt, StmtKind};
use crate::syntax::expr::{ExprLowerer, Mode, Scope, Sym, MAX_DEPTH};
use crate::syntax::{children_by_field, field, span};
use std::collections::BTreeSet;
use tree_sitter::Node;
impl Native<'_, '_> {
    fn expr(&mut self, node: Node, regs: &mut BTreeSet<String>, depth: usize) -> Expr {
        let scope = Scope {
            shared: &self.shared,
            by_name: &self.by_name,
        };
        let mut lw = ExprLowerer {
            src: self.src,
            scope: &scope,
            diags: self.diags,
            dialect: Dialect::Native,
            mode: Mode::Thread(regs),
        };
        lw.lower(node, depth)
    }

    pub(super) fn block(
        &mut self,
        node: Node,
        regs: &mut BTreeSet<String>,
        depth: usize,
    ) -> Vec<Stmt> {
        if depth > MAX_DEPTH {
            self.error(
                span(node),
                format!("statements nested too deeply (more than {MAX_DEPTH} levels)"),
            );
            return Vec::new();
        }
        let mut out = Vec::new();
        for s in children_by_field(node, "statement") {
            if self.src.should_stop() {
                break;
            }
            out.extend(self.stmt(s, regs, depth + 1));
        }
        out
    }

    fn condition_of(
        &mut self,
        node: Node,
        regs: &mut BTreeSet<String>,
        depth: usize,
    ) -> Option<Expr> {
        let c = field(node, "condition")?;
        self.require_parens(node, c);
        Some(self.expr(c, regs, depth))
    }

    /// `if (c)`, `assert(c)`, `lock(m)`: the grammar accepts the operand without parentheses
    /// so that this can say so precisely.
    fn require_parens(&mut self, stmt: Node, operand: Node) {
        if operand.kind() == "parenthesized_expression" {
            return;
        }
        let keyword = stmt.child(0).map(|k| self.src.text(k)).unwrap_or("if");
        let operand_text = self.src.text(operand);
        let example = match keyword {
            "if" | "while" => format!("`{keyword} ({operand_text}) {{ ... }}`"),
            _ => format!("`{keyword}({operand_text});`"),
        };
        self.error(
            span(operand),
            format!("`{keyword}` needs parentheses: {example}"),
        );
    }

    fn stmt(&mut self, node: Node, regs: &mut BTreeSet<String>, depth: usize) -> Option<Stmt> {
        let sp = span(node);
        if depth > MAX_DEPTH {
            // `else if` chains nest here without a block in between.
            self.error(
                sp,
                format!("statements nested too deeply (more than {MAX_DEPTH} levels)"),
            );
            return None;
        }
        let kind = match node.kind() {
            "assignment_statement" => return self.assignment(node, regs, depth),
            "atomic_statement" => {
                let atomic = field(node, "atomic")?;
                let (op, loc, args) = self.atomic(atomic, regs, depth)?;
                StmtKind::Rmw {
                    dest: None,
                    op,
                    loc,
                    args,
                }
            }
            "fence_statement" => StmtKind::Fence,
            "lock_statement" | "unlock_statement" => {
                let m = field(node, "mutex")?;
                self.require_parens(node, m);
                let m = if m.kind() == "parenthesized_expression" {
                    field(m, "expression")?
                } else {
                    m
                };
                let text = self.src.text(m);
                let found = match (m.kind(), self.by_name.get(text)) {
                    ("identifier", Some(Sym::Mutex(i))) => Some(*i),
                    _ => None,
                };
                let Some(mutex) = found else {
                    let verb = if node.kind() == "lock_statement" {
                        "lock"
                    } else {
                        "unlock"
                    };
                    let msg = if m.kind() == "identifier" && !self.by_name.contains_key(text) {
                        format!("unknown mutex `{text}`; declare it with `mutex {text};`")
                    } else {
                        format!("`{verb}` needs a mutex, and `{text}` is not one")
                    };
                    self.error(span(m), msg);
                    return None;
                };
                let name = self.src.name(m);
                if node.kind() == "lock_statement" {
                    StmtKind::Lock { mutex, name }
                } else {
                    StmtKind::Unlock { mutex, name }
                }
            }
            "assert_statement" => StmtKind::Assert(self.condition_of(node, regs, depth)?),
            "assume_statement" => StmtKind::Assume(self.condition_of(node, regs, depth)?),
            "await_statement" => StmtKind::Await(self.condition_of(node, regs, depth)?),
            "if_statement" => {
                let cond = self.condition_of(node, regs, depth)?;
                let then_body = field(node, "consequence")
                    .map(|b| self.block(b, regs, depth))
                    .unwrap_or_default();
                let else_body = match field(node, "alternative").and_then(|a| field(a, "body")) {
                    Some(b) if b.kind() == "block" => self.block(b, regs, depth),
                    Some(b) => self.stmt(b, regs, depth + 1).into_iter().collect(),
                    None => Vec::new(),
                };
                StmtKind::If {
                    cond,
                    then_body,
                    else_body,
                }
            }
            "while_statement" => {
                let cond = self.condition_of(node, regs, depth)?;
                let body = field(node, "body")
                    .map(|b| self.block(b, regs, depth))
                    .unwrap_or_default();
                StmtKind::While { cond, body }
            }
            _ => return None,
        };
        Some(Stmt { kind, span: sp })
    }

    /// A location operand: `x` or `a[e]` naming a shared location.
    fn location(
        &mut self,
        node: Node,
        regs: &mut BTreeSet<String>,
        depth: usize,
        what: &str,
    ) -> Option<LocRef> {
        let sp = span(node);
        let (name_node, index) = match node.kind() {
            "identifier" => (node, None),
            "subscript_expression" => (field(node, "array")?, Some(field(node, "index")?)),
            _ => {
                self.error(
                    sp,
                    format!("{what} must be a shared location (`x` or `a[i]`)"),
                );
                return None;
            }
        };
        let name = self.src.text(name_node);
        match (self.by_name.get(name).copied(), index) {
            (Some(Sym::Shared(var)), index) => {
                let decl = &self.shared[var];
                match (decl.is_array(), index) {
                    (true, None) => {
                        self.error(sp, format!("array `{name}` needs an index: `{name}[i]`"));
                        None
                    }
                    (false, Some(_)) => {
                        self.error(
                            span(name_node),
                            format!("`{name}` is not an array and cannot be indexed"),
                        );
                        None
                    }
                    (_, index) => {
                        let index = index.map(|i| Box::new(self.expr(i, regs, depth + 1)));
                        Some(LocRef {
                            var,
                            index,
                            span: sp,
                        })
                    }
                }
            }
            (Some(Sym::Mutex(_)), _) => {
                self.error(
                    span(name_node),
                    format!("mutex `{name}` cannot be {what}; use `lock`/`unlock`"),
                );
                None
            }
            (None, Some(_)) => {
                self.error(
                    span(name_node),
                    format!("`{name}` is a register and cannot be indexed; declare an array with `shared {name}[N];`"),
                );
                None
            }
            (None, None) => None, // a register: the caller decides
        }
    }

    fn assignment(
        &mut self,
        node: Node,
        regs: &mut BTreeSet<String>,
        depth: usize,
    ) -> Option<Stmt> {
        let sp = span(node);
        let left = field(node, "left")?;
        let right = field(node, "right")?;
        let lname = self.src.text(if left.kind() == "identifier" {
            left
        } else {
            field(left, "array")?
        });
        let is_register = left.kind() == "identifier" && !self.by_name.contains_key(lname);
        if is_register {
            if !regs.contains(lname) {
                regs.insert(lname.to_string());
            }
            let reg = self.src.name(left);
            if right.kind() == "atomic_expression" {
                let (op, loc, args) = self.atomic(right, regs, depth)?;
                return Some(Stmt {
                    kind: StmtKind::Rmw {
                        dest: Some(reg),
                        op,
                        loc,
                        args,
                    },
                    span: sp,
                });
            }
            let value = self.expr(right, regs, depth + 1);
            return Some(Stmt {
                kind: StmtKind::Assign { reg, value },
                span: sp,
            });
        }
        if let (Some(Sym::Mutex(_)), "identifier") = (self.by_name.get(lname), left.kind()) {
            self.error(
                span(left),
                format!(
                    "cannot assign to mutex `{lname}`; use `lock({lname});` and `unlock({lname});`"
                ),
            );
            self.expr(right, regs, depth + 1);
            return None;
        }
        let loc = self.location(left, regs, depth, "assigned to");
        if right.kind() == "atomic_expression" {
            self.error(
                span(right),
                format!("the result of an atomic goes to a register: `r = ...; {lname} = r;`"),
            );
            return None;
        }
        let value = self.expr(right, regs, depth + 1);
        Some(Stmt {
            kind: StmtKind::Store { loc: loc?, value },
            span: sp,
        })
    }

    fn atomic(
        &mut self,
        node: Node,
        regs: &mut BTreeSet<String>,
        depth: usize,
    ) -> Option<(RmwOp, LocRef, Vec<Expr>)> {
        let op_node = field(node, "operation")?;
        let op_text = self.src.text(op_node);
        let (op, arity, shape) = match op_text {
            "cas" => (RmwOp::Cas, 2, "cas(x, expected, new)"),
            "fetch_add" => (RmwOp::FetchAdd, 1, "fetch_add(x, v)"),
            _ => (RmwOp::Xchg, 1, "xchg(x, v)"),
        };
        let loc_node = field(node, "location")?;
        let loc = if loc_node.kind() == "identifier"
            && !self.by_name.contains_key(self.src.text(loc_node))
        {
            let t = self.src.text(loc_node);
            self.error(
                span(loc_node),
                format!("`{t}` is not a shared location; declare it with `shared {t};`"),
            );
            None
        } else {
            self.location(loc_node, regs, depth, &format!("the target of `{op_text}`"))
        };
        let arg_nodes = children_by_field(node, "argument");
        let args: Vec<Expr> = arg_nodes
            .iter()
            .map(|a| self.expr(*a, regs, depth + 1))
            .collect();
        if args.len() != arity {
            self.error(
                span(node),
                format!("`{op_text}` takes {} arguments: `{shape}`", arity + 1),
            );
            return None;
        }
        Some((op, loc?, args))
    }
}
