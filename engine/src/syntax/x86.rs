//! Lowering of the herd7 x86 dialect (spec §4) to the same AST as the native dialect.
//!
//! - Each column of the code table is a thread named `P<i>` (its span: the header cell).
//! - Registers are upper-cased (`eax` and `EAX` are one register, reported `P0:EAX`).
//! - Every location mentioned anywhere (init block, instructions, `locations`, condition) is a
//!   `SharedDecl` in order of first mention, initialised to 0 unless the init block says
//!   otherwise; `0:EAX=2` / `P0:EAX=2` become the thread's `reg_init`.
//! - Instructions: `MOV [x],$1` / `MOV [x],EAX` (store), `MOV EAX,[x]` (load), `MOV EAX,$1` /
//!   `MOV EAX,EBX` (register move), `MFENCE`, `XCHG [x],EAX` / `XCHG EAX,[x]` (an atomic
//!   exchange: `EAX = xchg(x, EAX)`), in any case. A statement's span is its cell.
//! - Metadata lines, `<< >>` blocks, `locations [...]` and the `with` trailer are ignored;
//!   `final P;` means `exists P`.

use super::expr::{parse_int, Scope, Sym, ThreadInfo};
use super::native::{lower_condition, lower_header};
use super::{children_by_field, field, span, Src};
use crate::ast::{
    Dialect, Expr, ExprKind, LocRef, Name, RmwOp, SharedDecl, Stmt, StmtKind, Test, Thread,
};
use crate::diag::Diagnostic;
use std::collections::{BTreeSet, HashMap};
use tree_sitter::Node;

const SUPPORTED: &str = "supported: MOV, MFENCE, XCHG";

pub(super) fn lower(text: &str, node: Node, diags: &mut Vec<Diagnostic>) -> Option<Test> {
    let src = Src { text };
    let mut l = X86 {
        src: &src,
        diags,
        shared: Vec::new(),
        by_name: HashMap::new(),
    };

    let (name, description) = lower_header(&src, node);

    // Threads from the header row.
    let mut threads: Vec<Thread> = Vec::new();
    if let Some(row) = field(node, "threads") {
        for (i, cell) in children_by_field(row, "thread").into_iter().enumerate() {
            let written = src.text(cell);
            let expected = format!("P{i}");
            if !written.eq_ignore_ascii_case(&expected) {
                l.diags.push(Diagnostic::error(
                    span(cell),
                    format!("thread columns are named P0, P1, ... in order: expected `{expected}`, found `{written}`"),
                ));
            }
            threads.push(Thread {
                name: Name {
                    text: expected,
                    span: span(cell),
                },
                reg_init: Vec::new(),
                body: Vec::new(),
                span: span(cell),
            });
        }
    }
    if threads.is_empty() && field(node, "threads").is_some() {
        l.diags.push(Diagnostic::error(
            span(node),
            "the code table needs at least one thread column `P0 ;`",
        ));
    }

    // Init block: locations first (they come first in mention order), registers.
    let mut reg_inits: Vec<(usize, Name, i64)> = Vec::new();
    if let Some(init) = field(node, "init") {
        for entry in children_by_field(init, "entry") {
            let (Some(loc), Some(value)) = (field(entry, "location"), field(entry, "value")) else {
                continue;
            };
            let v = match value.kind() {
                "immediate" => l.immediate(value),
                _ => {
                    l.diags.push(Diagnostic::error(
                        span(value),
                        format!(
                            "unsupported initial value `{}`: only integers",
                            src.text(value)
                        ),
                    ));
                    None
                }
            };
            match loc.kind() {
                "thread_register" => {
                    let (Some(t), Some(r)) = (field(loc, "thread"), field(loc, "register")) else {
                        continue;
                    };
                    let Some(ti) = thread_index(src.text(t), threads.len()) else {
                        l.diags.push(Diagnostic::error(
                            span(t),
                            format!("unknown thread `{}`", src.text(t)),
                        ));
                        continue;
                    };
                    if let Some(v) = v {
                        reg_inits.push((ti, reg_name(&src, r), v));
                    }
                }
                _ => {
                    let id = if loc.kind() == "memory_operand" {
                        field(loc, "location")
                    } else {
                        Some(loc)
                    };
                    let Some(id) = id else { continue };
                    let var = l.mention(id);
                    if let Some(v) = v {
                        l.shared[var].init = vec![v];
                    }
                }
            }
        }
    }

    // Code rows.
    let mut regs: Vec<BTreeSet<String>> = vec![BTreeSet::new(); threads.len()];
    for row in children_by_field(node, "row") {
        let mut column = 0usize;
        let mut cursor = row.walk();
        for child in row.children(&mut cursor) {
            if child.kind() == "|" {
                column += 1;
                continue;
            }
            if child.kind() != "x86_instruction" {
                continue;
            }
            if column >= threads.len() {
                l.diags.push(Diagnostic::error(
                    span(child),
                    format!(
                        "this cell is in column {} but the table has {} thread columns",
                        column + 1,
                        threads.len()
                    ),
                ));
                continue;
            }
            if let Some(stmt) = l.instruction(child, &mut regs[column]) {
                threads[column].body.push(stmt);
            }
        }
    }
    // `reg_init` holds the non-zero values (ast::Thread's contract); a register initialised
    // to 0 still counts as used by its thread.
    for (ti, name, v) in reg_inits {
        regs[ti].insert(name.text.clone());
        let t = &mut threads[ti];
        t.reg_init.retain(|(n, _)| n.text != name.text);
        if v != 0 {
            t.reg_init.push((name, v));
        }
    }

    // Locations named only in `locations [..]` or the condition are still locations (herd
    // shows them in the final states); in text order.
    for clause in children_by_field(node, "locations") {
        l.mention_in_condition(clause);
    }
    let cond = field(node, "condition");
    if let Some(c) = cond.and_then(|c| field(c, "expression")) {
        l.mention_in_condition(c);
    }
    let infos: Vec<ThreadInfo> = threads
        .iter()
        .zip(regs)
        .map(|(t, regs)| ThreadInfo {
            name: t.name.text.clone(),
            regs,
        })
        .collect();
    let condition = cond.and_then(|c| {
        let scope = Scope {
            shared: &l.shared,
            by_name: &l.by_name,
        };
        lower_condition(&src, &scope, l.diags, Dialect::X86, c, &infos)
    });

    Some(Test {
        dialect: Dialect::X86,
        name,
        description,
        shared: l.shared,
        mutexes: Vec::new(),
        threads,
        condition,
        span: span(node),
    })
}

/// `0` or `P0` (any case) → 0, if within `n` threads.
fn thread_index(text: &str, n: usize) -> Option<usize> {
    let digits = text.strip_prefix(['P', 'p']).unwrap_or(text);
    digits.parse::<usize>().ok().filter(|&i| i < n)
}

fn reg_name(src: &Src, node: Node) -> Name {
    let mut name = src.name(node);
    name.text = name.text.to_ascii_uppercase();
    name
}

struct X86<'s, 'd> {
    src: &'s Src<'s>,
    diags: &'d mut Vec<Diagnostic>,
    shared: Vec<SharedDecl>,
    by_name: HashMap<String, Sym>,
}

/// One operand of an instruction.
enum Operand {
    Mem(LocRef),
    Reg(Name),
    Imm(i64),
}

impl X86<'_, '_> {
    /// The location named by identifier `id`, declared on first mention.
    fn mention(&mut self, id: Node) -> usize {
        let text = self.src.text(id);
        if let Some(Sym::Shared(i)) = self.by_name.get(text) {
            return *i;
        }
        let i = self.shared.len();
        self.by_name.insert(text.to_string(), Sym::Shared(i));
        self.shared.push(SharedDecl {
            name: self.src.name(id),
            size: None,
            init: vec![0],
            span: span(id),
        });
        i
    }

    /// Declares every location a condition or `locations` clause names (identifiers outside
    /// `P0:EAX`).
    fn mention_in_condition(&mut self, node: Node) {
        // An explicit stack: conditions can be nested arbitrarily deep.
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "thread_register" => {}
                "identifier" => {
                    self.mention(n);
                }
                _ => {
                    let mut cursor = n.walk();
                    let children: Vec<Node> = n.named_children(&mut cursor).collect();
                    stack.extend(children.into_iter().rev());
                }
            }
        }
    }

    fn immediate(&mut self, node: Node) -> Option<i64> {
        let value = field(node, "value")?;
        let negative = (0..node.child_count())
            .filter_map(|i| node.child(i))
            .any(|c| c.kind() == "-");
        let v = parse_int(self.src.text(value), negative);
        if v.is_none() {
            self.diags.push(Diagnostic::error(
                span(node),
                "integer literal out of range (values are 64-bit signed)",
            ));
        }
        v
    }

    fn operand(&mut self, node: Node, regs: &mut BTreeSet<String>) -> Option<Operand> {
        match node.kind() {
            "memory_operand" => {
                let id = field(node, "location")?;
                let var = self.mention(id);
                Some(Operand::Mem(LocRef {
                    var,
                    index: None,
                    span: span(node),
                }))
            }
            "identifier" => {
                let name = reg_name(self.src, node);
                regs.insert(name.text.clone());
                Some(Operand::Reg(name))
            }
            _ => self.immediate(node).map(Operand::Imm),
        }
    }

    fn instruction(&mut self, node: Node, regs: &mut BTreeSet<String>) -> Option<Stmt> {
        let sp = span(node);
        let mnemonic = self.src.text(field(node, "mnemonic")?).to_ascii_uppercase();
        let operand_nodes = children_by_field(node, "operand");
        let mut ops = Vec::new();
        for o in &operand_nodes {
            ops.push(self.operand(*o, regs)?);
        }
        let reg_expr = |n: &Name| Expr {
            kind: ExprKind::Reg(n.clone()),
            span: n.span,
        };
        let kind = match (mnemonic.as_str(), ops.as_slice()) {
            ("MFENCE", []) => StmtKind::Fence,
            ("MOV", [Operand::Mem(loc), Operand::Imm(v)]) => StmtKind::Store {
                loc: loc.clone(),
                value: Expr {
                    kind: ExprKind::Int(*v),
                    span: span(operand_nodes[1]),
                },
            },
            ("MOV", [Operand::Mem(loc), Operand::Reg(r)]) => StmtKind::Store {
                loc: loc.clone(),
                value: reg_expr(r),
            },
            ("MOV", [Operand::Reg(r), Operand::Mem(loc)]) => StmtKind::Assign {
                reg: r.clone(),
                value: Expr {
                    kind: ExprKind::Load(loc.clone()),
                    span: loc.span,
                },
            },
            ("MOV", [Operand::Reg(r), Operand::Imm(v)]) => StmtKind::Assign {
                reg: r.clone(),
                value: Expr {
                    kind: ExprKind::Int(*v),
                    span: span(operand_nodes[1]),
                },
            },
            ("MOV", [Operand::Reg(r), Operand::Reg(s)]) => StmtKind::Assign {
                reg: r.clone(),
                value: reg_expr(s),
            },
            ("XCHG", [Operand::Mem(loc), Operand::Reg(r)])
            | ("XCHG", [Operand::Reg(r), Operand::Mem(loc)]) => StmtKind::Rmw {
                dest: Some(r.clone()),
                op: RmwOp::Xchg,
                loc: loc.clone(),
                args: vec![reg_expr(r)],
            },
            ("MOV", _) => {
                self.diags.push(Diagnostic::error(
                    sp,
                    "unsupported MOV operands; supported: `MOV [x],$1`, `MOV [x],EAX`, `MOV EAX,[x]`, `MOV EAX,$1`",
                ));
                return None;
            }
            ("XCHG", _) => {
                self.diags.push(Diagnostic::error(
                    sp,
                    "unsupported XCHG operands; supported: `XCHG [x],EAX`, `XCHG EAX,[x]`",
                ));
                return None;
            }
            ("MFENCE", _) => {
                self.diags
                    .push(Diagnostic::error(sp, "MFENCE takes no operands"));
                return None;
            }
            (other, _) => {
                self.diags.push(Diagnostic::error(
                    sp,
                    format!("unsupported x86 instruction `{other}`; {SUPPORTED}"),
                ));
                return None;
            }
        };
        Some(Stmt { kind, span: sp })
    }
}
