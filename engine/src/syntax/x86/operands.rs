//! Operands of x86 instructions, the flags a comparison leaves, and the expression builders
//! the instructions share.

use super::locations::register_width;
use super::X86;
use crate::ast::{BinOp, Dialect, Expr, ExprKind, LocRef, Name, UnOp};
use crate::diag::Diagnostic;
use crate::span::Span;
use crate::syntax::expr::parse_int;
use crate::syntax::{field, span};
use std::collections::BTreeSet;
use tree_sitter::Node;

/// One operand of an instruction.
#[derive(Clone)]
pub(super) enum Operand {
    Mem(LocRef),
    Reg(Name, Option<u32>),
    Imm(i64, Span),
    Label(Name),
}

/// What the flags hold, for a conditional jump: the comparison `a ? b` of the last `CMP` (or
/// `result ? 0` after arithmetic), with the registers it reads so that a later write to one
/// of them makes the flags unusable here.
#[derive(Clone)]
pub(super) enum Flags {
    None,
    Cmp {
        a: Expr,
        b: Expr,
        regs: Vec<String>,
    },
    /// Set by an instruction whose flags litmus does not model (`CMPXCHG`, `XADD`, ...).
    Unknown(&'static str),
}
pub(super) fn int(v: i64, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Int(v),
        span,
    }
}

pub(super) fn bin(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        span,
    }
}

/// The value of 64-bit register `r` after writing `v` to its low `bits` bits (x86-64: a 32-bit
/// write zero-extends, an 8- or 16-bit one keeps the upper bits).
pub(super) fn part_write(r: &Name, v: Expr, bits: u32, span: Span) -> Expr {
    let mask = (1i64 << bits) - 1;
    let low = bin(BinOp::BitAnd, v, int(mask, span), span);
    if bits >= 32 {
        return low;
    }
    let high = bin(BinOp::BitAnd, reg_expr(r), int(!mask, span), span);
    bin(BinOp::BitOr, high, low, span)
}

pub(super) fn not(e: Expr) -> Expr {
    let span = e.span;
    Expr {
        kind: ExprKind::Unary(UnOp::Not, Box::new(e)),
        span,
    }
}

pub(super) fn reg_expr(n: &Name) -> Expr {
    Expr {
        kind: ExprKind::Reg(n.clone()),
        span: n.span,
    }
}

/// The registers an expression reads.
pub(super) fn regs_of(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Reg(n) => out.push(n.text.clone()),
        ExprKind::Unary(_, a) => regs_of(a, out),
        ExprKind::Binary(_, a, b) => {
            regs_of(a, out);
            regs_of(b, out);
        }
        _ => {}
    }
}
impl X86<'_, '_> {
    pub(super) fn immediate(&mut self, node: Node) -> Option<i64> {
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

    pub(super) fn operand(&mut self, node: Node, regs: &mut BTreeSet<String>) -> Option<Operand> {
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
            "att_memory" => {
                let base = field(node, "base");
                let plain = field(node, "offset").is_none()
                    && field(node, "index").is_none()
                    && field(node, "segment").is_none();
                match base {
                    Some(id) if plain && id.kind() == "identifier" => {
                        let var = self.mention(id);
                        Some(Operand::Mem(LocRef {
                            var,
                            index: None,
                            span: span(node),
                        }))
                    }
                    _ => {
                        self.error(
                            span(node),
                            format!(
                                "unsupported memory operand `{}`: only a location, `(x)`, is supported (no register-based or indexed addresses)",
                                self.src.text(node)
                            ),
                        );
                        None
                    }
                }
            }
            "att_register" => {
                let id = field(node, "name")?;
                let written = self.src.text(id);
                let name = self.reg_name(id);
                regs.insert(name.text.clone());
                Some(Operand::Reg(name, register_width(written)))
            }
            "identifier" if self.dialect == Dialect::X86_64 => {
                Some(Operand::Label(self.src.name(node)))
            }
            "identifier" => {
                let written = self.src.text(node);
                let name = self.reg_name(node);
                regs.insert(name.text.clone());
                Some(Operand::Reg(name, register_width(written)))
            }
            _ => self.immediate(node).map(|v| Operand::Imm(v, span(node))),
        }
    }
}
