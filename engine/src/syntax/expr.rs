//! Expressions of both dialects: in a native thread, and in either dialect's final condition.
//!
//! Resolution (`docs/reference.md#native`): an identifier declared `shared` is a location (one load event per
//! occurrence), one declared `mutex` may not be used as a value, anything else in a thread is
//! a register of that thread. In a final condition an identifier is a location, `P0:r0` a
//! thread's register, and literals are literals.
//!
//! Errors are reported where they occur and lowering goes on with a placeholder `0`, so one
//! pass finds all of them (the test is dropped anyway once an error exists).

use super::{field, span, Src};
use crate::ast::{BinOp, Dialect, Expr, ExprKind, LocRef, SharedDecl, UnOp};
use crate::diag::Diagnostic;
use crate::span::Span;
use std::collections::{BTreeSet, HashMap};
use tree_sitter::Node;

/// Statement nesting deeper than this is reported instead of followed (no stack overflow on
/// any input).
pub(crate) const MAX_DEPTH: usize = 100;
/// Expression nesting deeper than this is reported instead of followed. Higher than
/// [`MAX_DEPTH`]: a left-associated chain `1 - 1 - ... - 1` nests one level per term, and
/// every later phase (lowering, evaluation) recurses once per level, on threads with 2 MiB
/// stacks (the language server's). Chains of an associative operator (`1 + 1 + ... + 1`) are
/// balanced instead ([`ExprLowerer::chain`]), so they have no such limit.
pub(crate) const MAX_EXPR_DEPTH: usize = 400;
/// A chain of one associative operator with more operands than this is lowered as a balanced
/// tree ([`ExprLowerer::chain`]); shorter ones as written, left-associated.
const BALANCED_CHAIN: usize = 32;

/// What a global name refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sym {
    Shared(usize),
    Mutex(usize),
}

/// Global names: shared locations and mutexes.
pub(crate) struct Scope<'a> {
    pub shared: &'a [SharedDecl],
    pub by_name: &'a HashMap<String, Sym>,
}

/// A thread as the final condition sees it.
pub(crate) struct ThreadInfo {
    pub name: String,
    /// Registers the thread mentions (assigned or read); upper case for x86.
    pub regs: BTreeSet<String>,
}

pub(crate) enum Mode<'a> {
    /// Inside a native thread; records the registers it mentions.
    Thread(&'a mut BTreeSet<String>),
    /// The final condition.
    Condition(&'a [ThreadInfo]),
}

pub(crate) struct ExprLowerer<'s, 'a> {
    pub src: &'s Src<'s>,
    pub scope: &'s Scope<'s>,
    pub diags: &'s mut Vec<Diagnostic>,
    pub dialect: Dialect,
    pub mode: Mode<'a>,
}

pub(crate) fn placeholder(span: Span) -> Expr {
    Expr {
        kind: ExprKind::Int(0),
        span,
    }
}

/// Evaluates a constant expression (literals and operators), `None` if it is not constant
/// or divides by zero.
pub(crate) fn const_eval(e: &Expr) -> Option<i64> {
    Some(match &e.kind {
        ExprKind::Int(v) => *v,
        ExprKind::Unary(UnOp::Neg, a) => const_eval(a)?.wrapping_neg(),
        ExprKind::Unary(UnOp::Not, a) => (const_eval(a)? == 0) as i64,
        ExprKind::Binary(op, a, b) => {
            let (a, b) = (const_eval(a)?, const_eval(b)?);
            match op {
                BinOp::Mul => a.wrapping_mul(b),
                BinOp::Div => a.checked_div(b).or(if b == -1 {
                    Some(a.wrapping_neg())
                } else {
                    None
                })?,
                BinOp::Rem => a.checked_rem(b).or(if b == -1 { Some(0) } else { None })?,
                BinOp::Add => a.wrapping_add(b),
                BinOp::Sub => a.wrapping_sub(b),
                BinOp::Lt => (a < b) as i64,
                BinOp::Le => (a <= b) as i64,
                BinOp::Gt => (a > b) as i64,
                BinOp::Ge => (a >= b) as i64,
                BinOp::Eq => (a == b) as i64,
                BinOp::Ne => (a != b) as i64,
                BinOp::And => (a != 0 && b != 0) as i64,
                BinOp::Or => (a != 0 || b != 0) as i64,
                BinOp::Implies => (a == 0 || b != 0) as i64,
                op => crate::ir::binop(*op, a, b).ok()?,
            }
        }
        _ => return None,
    })
}

/// Parses a decimal (or `0x` hexadecimal) literal, negated if `negative`; `None` when out of the i64 range.
pub(crate) fn parse_int(digits: &str, negative: bool) -> Option<i64> {
    if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        // herd writes 64-bit patterns in hex: `0xffffffffffffffff` is -1.
        let v = u64::from_str_radix(hex, 16).ok()? as i64;
        return Some(if negative { v.wrapping_neg() } else { v });
    }
    if negative {
        format!("-{digits}").parse().ok()
    } else {
        digits.parse().ok()
    }
}

impl ExprLowerer<'_, '_> {
    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, msg));
    }

    fn in_condition(&self) -> bool {
        matches!(self.mode, Mode::Condition(_))
    }

    pub fn lower(&mut self, node: Node, depth: usize) -> Expr {
        let sp = span(node);
        if depth > MAX_EXPR_DEPTH {
            self.error(
                sp,
                format!("expression nested too deeply (more than {MAX_EXPR_DEPTH} levels)"),
            );
            return placeholder(sp);
        }
        let kind = match node.kind() {
            "integer" => match parse_int(self.src.text(node), false) {
                Some(v) => ExprKind::Int(v),
                None => {
                    self.error(
                        sp,
                        "integer literal out of range (values are 64-bit signed)",
                    );
                    ExprKind::Int(0)
                }
            },
            "true" => ExprKind::Int(1),
            "false" => ExprKind::Int(0),
            "identifier" => return self.identifier(node),
            "subscript_expression" => return self.subscript(node, depth),
            "thread_register" => return self.thread_register(node),
            "memory_operand" => return self.memory_operand(node),
            "parenthesized_expression" => {
                return match field(node, "expression") {
                    Some(inner) => {
                        let mut e = self.lower(inner, depth + 1);
                        e.span = sp;
                        e
                    }
                    None => placeholder(sp),
                }
            }
            "atomic_expression" => {
                let op = node.child(0).map(|c| self.src.text(c)).unwrap_or("xchg");
                self.error(
                    sp,
                    format!(
                        "`{op}` must be a whole statement or the whole right-hand side of a \
                         register assignment (`r = {op}(...);`)"
                    ),
                );
                ExprKind::Int(0)
            }
            "unary_expression" => return self.unary(node, depth),
            "binary_expression" => return self.binary(node, depth),
            "assignment_expression" => return self.assignment(node, depth),
            // ERROR / MISSING: already reported by the syntax pass.
            _ => ExprKind::Int(0),
        };
        Expr { kind, span: sp }
    }

    fn identifier(&mut self, node: Node) -> Expr {
        let sp = span(node);
        let text = self.src.text(node);
        match self.scope.by_name.get(text).copied() {
            Some(Sym::Shared(var)) => {
                if self.scope.shared[var].is_array() {
                    // An error, unless the AArch64/RISC-V front end finds that the name
                    // stands for the array's address (`0:X2=x`) and drops it: the load's
                    // span then marks the address.
                    self.error(sp, format!("array `{text}` needs an index: `{text}[i]`"));
                }
                Expr {
                    kind: ExprKind::Load(LocRef {
                        var,
                        index: None,
                        span: sp,
                    }),
                    span: sp,
                }
            }
            Some(Sym::Mutex(_)) => {
                self.error(
                    sp,
                    format!("mutex `{text}` cannot be used as a value; use `lock({text});` and `unlock({text});`"),
                );
                placeholder(sp)
            }
            None => match &mut self.mode {
                Mode::Thread(regs) => {
                    if !regs.contains(text) {
                        regs.insert(text.to_string());
                    }
                    Expr {
                        kind: ExprKind::Reg(self.src.name(node)),
                        span: sp,
                    }
                }
                Mode::Condition(_) => {
                    self.error(
                        sp,
                        format!(
                            "unknown location `{text}` in the final condition; a thread's register is written `P0:{text}`"
                        ),
                    );
                    placeholder(sp)
                }
            },
        }
    }

    fn subscript(&mut self, node: Node, depth: usize) -> Expr {
        let sp = span(node);
        let (Some(array), Some(index)) = (field(node, "array"), field(node, "index")) else {
            return placeholder(sp);
        };
        let name = self.src.text(array);
        let index_expr = self.lower(index, depth + 1);
        match self.scope.by_name.get(name).copied() {
            Some(Sym::Shared(var)) => {
                let decl = &self.scope.shared[var];
                let Some(size) = decl.size else {
                    self.error(
                        span(array),
                        format!("`{name}` is not an array and cannot be indexed"),
                    );
                    return placeholder(sp);
                };
                let index_expr = if self.in_condition() {
                    match const_eval(&index_expr) {
                        Some(i) if (0..size as i64).contains(&i) => Expr {
                            kind: ExprKind::Int(i),
                            span: index_expr.span,
                        },
                        Some(i) => {
                            self.error(
                                index_expr.span,
                                format!("index {i} is out of bounds for `{name}` (size {size})"),
                            );
                            return placeholder(sp);
                        }
                        None => {
                            self.error(
                                index_expr.span,
                                "an index in the final condition must be a constant",
                            );
                            return placeholder(sp);
                        }
                    }
                } else {
                    index_expr
                };
                let loc = LocRef {
                    var,
                    index: Some(Box::new(index_expr)),
                    span: sp,
                };
                Expr {
                    kind: ExprKind::Load(loc),
                    span: sp,
                }
            }
            Some(Sym::Mutex(_)) => {
                self.error(
                    span(array),
                    format!("mutex `{name}` cannot be indexed or used as a value"),
                );
                placeholder(sp)
            }
            None => {
                let msg = if self.in_condition() {
                    format!("unknown array `{name}`; declare it with `shared {name}[N];`")
                } else {
                    format!("`{name}` is a register and cannot be indexed; declare an array with `shared {name}[N];`")
                };
                self.error(span(array), msg);
                placeholder(sp)
            }
        }
    }

    fn thread_register(&mut self, node: Node) -> Expr {
        let sp = span(node);
        let (Some(thread), Some(reg)) = (field(node, "thread"), field(node, "register")) else {
            return placeholder(sp);
        };
        let Mode::Condition(threads) = &self.mode else {
            let written = self.src.text(node);
            self.error(sp, format!("`{written}` names a register in the final state; it can only appear in the final condition"));
            return placeholder(sp);
        };
        let threads: &[ThreadInfo] = threads;
        let written = self.src.text(thread);
        let found = if thread.kind() == "integer" {
            written.parse::<usize>().ok().filter(|&i| i < threads.len())
        } else {
            threads.iter().position(|t| {
                if self.dialect.is_herd() {
                    t.name.eq_ignore_ascii_case(written)
                } else {
                    t.name == written
                }
            })
        };
        let Some(index) = found else {
            let names: Vec<&str> = threads.iter().map(|t| t.name.as_str()).collect();
            let msg = if names.is_empty() {
                format!("unknown thread `{written}`: the test has no threads")
            } else {
                format!(
                    "unknown thread `{written}`; the threads are {}",
                    names.join(", ")
                )
            };
            self.error(span(thread), msg);
            return placeholder(sp);
        };
        let mut name = self.src.name(reg);
        if self.dialect.is_herd() {
            name.text = super::registers::register_key(self.dialect, &name.text);
        }
        if !threads[index].regs.contains(&name.text) {
            self.diags.push(Diagnostic::warning(
                span(reg),
                format!(
                    "thread `{}` never uses register `{}`; its final value is always 0",
                    threads[index].name, name.text
                ),
            ));
        }
        Expr {
            kind: ExprKind::ThreadReg {
                thread: index,
                reg: name,
            },
            span: sp,
        }
    }

    fn memory_operand(&mut self, node: Node) -> Expr {
        let sp = span(node);
        let Some(loc) = field(node, "location") else {
            return placeholder(sp);
        };
        let name = self.src.text(loc);
        if self.dialect == Dialect::Native {
            self.error(sp, format!("`[{name}]` is x86 syntax; write `{name}`"));
            return placeholder(sp);
        }
        self.identifier(loc)
    }

    fn unary(&mut self, node: Node, depth: usize) -> Expr {
        let sp = span(node);
        let (Some(op), Some(operand)) = (field(node, "operator"), field(node, "operand")) else {
            return placeholder(sp);
        };
        let op_text = self.src.text(op);
        // `-9223372036854775808` is in range although its digits alone are not.
        if op_text == "-" && operand.kind() == "integer" {
            return match parse_int(self.src.text(operand), true) {
                Some(v) => Expr {
                    kind: ExprKind::Int(v),
                    span: sp,
                },
                None => {
                    self.error(
                        sp,
                        "integer literal out of range (values are 64-bit signed)",
                    );
                    placeholder(sp)
                }
            };
        }
        let un = match op_text {
            "-" => UnOp::Neg,
            "!" => UnOp::Not,
            _ => {
                if self.dialect == Dialect::Native {
                    self.error(span(op), format!("`{op_text}` is x86 syntax; use `!`"));
                } else if !self.in_condition() {
                    self.error(
                        span(op),
                        format!("`{op_text}` is only allowed in the final condition"),
                    );
                }
                UnOp::Not
            }
        };
        let e = self.lower(operand, depth + 1);
        Expr {
            kind: ExprKind::Unary(un, Box::new(e)),
            span: sp,
        }
    }

    fn binary(&mut self, node: Node, depth: usize) -> Expr {
        let sp = span(node);
        let (Some(l), Some(op), Some(r)) = (
            field(node, "left"),
            field(node, "operator"),
            field(node, "right"),
        ) else {
            return placeholder(sp);
        };
        let op_text = self.src.text(op);
        if ["+", "*", "&&", "||", "/\\", "\\/"].contains(&op_text) {
            if let Some(e) = self.chain(node, op_text, depth) {
                return e;
            }
        }
        let bin = self.operator(op);
        let left = self.lower(l, depth + 1);
        let right = self.lower(r, depth + 1);
        Expr {
            kind: ExprKind::Binary(bin, Box::new(left), Box::new(right)),
            span: sp,
        }
    }

    /// The operator of a binary expression (reporting x86 syntax in the native dialect).
    fn operator(&mut self, op: Node) -> BinOp {
        match self.src.text(op) {
            "*" => BinOp::Mul,
            "/" => BinOp::Div,
            "%" => BinOp::Rem,
            "+" => BinOp::Add,
            "-" => BinOp::Sub,
            "<" => BinOp::Lt,
            "<=" => BinOp::Le,
            ">" => BinOp::Gt,
            ">=" => BinOp::Ge,
            "==" => BinOp::Eq,
            "!=" => BinOp::Ne,
            "&&" => BinOp::And,
            "||" => BinOp::Or,
            x86 => {
                let (bin, native) = match x86 {
                    "/\\" => (BinOp::And, "&&"),
                    "\\/" => (BinOp::Or, "||"),
                    "<>" => (BinOp::Ne, "!="),
                    _ => (BinOp::Implies, "!a || b"),
                };
                if self.dialect == Dialect::Native {
                    self.error(span(op), format!("`{x86}` is x86 syntax; use `{native}`"));
                }
                bin
            }
        }
    }

    /// A left-associated chain `a + b + ... + z` of one associative operator (`+`, `*`, `&&`,
    /// `||`) with more than [`BALANCED_CHAIN`] operands, lowered as a balanced tree: the same
    /// operands in the same order (so the same loads, evaluated left to right, and the same
    /// value: wrapping `+` and `*` are associative, and so are `&&` and `||`, short-circuit
    /// included), nested `log2(n)` levels deep instead of `n`. So a sum of any length is
    /// accepted; [`MAX_EXPR_DEPTH`] still bounds other nesting. `None`: a shorter chain, lowered
    /// as written.
    fn chain(&mut self, node: Node, op_text: &str, depth: usize) -> Option<Expr> {
        // Walk the left spine without recursion: tree-sitter nests one level per operand. A
        // short chain is walked again from each of its nodes as the recursion reaches them (at
        // most BALANCED_CHAIN^2 / 2 steps); lowering it by that recursion keeps its nesting
        // errors exactly where they were.
        let mut operands = Vec::new();
        let mut ops = Vec::new();
        let mut cur = node;
        loop {
            let step = (cur.kind() == "binary_expression").then(|| {
                (
                    field(cur, "left"),
                    field(cur, "operator"),
                    field(cur, "right"),
                )
            });
            match step {
                Some((Some(l), Some(op), Some(r))) if self.src.text(op) == op_text => {
                    operands.push(r);
                    ops.push(op);
                    cur = l;
                }
                _ => break,
            }
        }
        operands.push(cur);
        if operands.len() <= BALANCED_CHAIN {
            return None;
        }
        operands.reverse();
        ops.reverse();
        let mut bin = BinOp::Add;
        for op in ops {
            bin = self.operator(op);
        }
        let levels = (usize::BITS - (operands.len() - 1).leading_zeros()) as usize;
        let mut level: Vec<Expr> = operands
            .iter()
            .map(|&n| self.lower(n, depth + levels))
            .collect();
        while level.len() > 1 {
            let mut next = Vec::with_capacity(level.len().div_ceil(2));
            let mut it = level.into_iter();
            while let Some(a) = it.next() {
                next.push(match it.next() {
                    Some(b) => Expr {
                        span: a.span.cover(b.span),
                        kind: ExprKind::Binary(bin, Box::new(a), Box::new(b)),
                    },
                    None => a,
                });
            }
            level = next;
        }
        level.pop()
    }

    fn assignment(&mut self, node: Node, depth: usize) -> Expr {
        let sp = span(node);
        let (Some(l), Some(r)) = (field(node, "left"), field(node, "right")) else {
            return placeholder(sp);
        };
        if self.dialect == Dialect::Native {
            let eq = (0..node.child_count())
                .filter_map(|i| node.child(i))
                .find(|c| c.kind() == "=")
                .map(span)
                .unwrap_or(sp);
            self.error(eq, "assignment in final condition; did you mean `==`?");
        }
        let left = self.lower(l, depth + 1);
        let right = self.lower(r, depth + 1);
        Expr {
            kind: ExprKind::Binary(BinOp::Eq, Box::new(left), Box::new(right)),
            span: sp,
        }
    }
}
