//! Lowering of each class of x86 instruction once `instructions.rs` has read its operands:
//! moves and exchanges, read-modify-writes of memory, register arithmetic, comparisons and
//! jumps. Each takes the operands as written (Intel order) and returns the item, or reports
//! a diagnostic and returns `None`.

use super::control::Item;
use super::operands::{bin, int, reg_expr, regs_of, Flags, Operand};
use super::X86;
use crate::ast::{BinOp, Dialect, Expr, ExprKind, Name, RmwOp, Stmt, StmtKind, UnOp};
use crate::span::Span;
use std::collections::BTreeSet;

/// One instruction being lowered: what every class reads besides its operands.
pub(super) struct Cell<'a> {
    /// Upper case, without its size suffix (`MOV`).
    pub mnemonic: &'a str,
    /// The cell's text, for messages.
    pub form: &'a str,
    pub span: Span,
    pub locked: bool,
}

/// What an instruction writes besides its item: registers it names and the flags.
pub(super) struct Effects<'a> {
    pub regs: &'a mut BTreeSet<String>,
    pub flags: &'a mut Flags,
}

impl Effects<'_> {
    /// A write to `r`: the flags stop describing what they compared if it reads `r`.
    fn write(&mut self, r: &Name) {
        if let Flags::Cmp { regs, .. } = &*self.flags {
            if regs.contains(&r.text) {
                *self.flags = Flags::Unknown("a register the comparison read was written after it");
            }
        }
        self.regs.insert(r.text.clone());
    }

    /// Flags after arithmetic on `r`: its result compared with 0.
    fn result_of(&mut self, r: &Name, sp: Span) {
        *self.flags = Flags::Cmp {
            a: reg_expr(r),
            b: int(0, sp),
            regs: vec![r.text.clone()],
        };
    }
}

impl Operand {
    /// The value of a register or an immediate; `None` for memory and labels.
    pub(super) fn reg_or_imm(&self) -> Option<Expr> {
        match self {
            Operand::Reg(r, _) => Some(reg_expr(r)),
            Operand::Imm(v, s) => Some(int(*v, *s)),
            Operand::Mem(_) | Operand::Label(_) => None,
        }
    }

    /// The value of any operand but a label (a load for memory).
    pub(super) fn value(&self) -> Option<Expr> {
        match self {
            Operand::Mem(loc) => Some(Expr {
                kind: ExprKind::Load(loc.clone()),
                span: loc.span,
            }),
            other => other.reg_or_imm(),
        }
    }
}

/// The binary operator of a two-operand arithmetic mnemonic.
pub(super) fn arith(m: &str) -> Option<BinOp> {
    Some(match m {
        "ADD" => BinOp::Add,
        "SUB" => BinOp::Sub,
        "AND" => BinOp::BitAnd,
        "OR" => BinOp::BitOr,
        "XOR" => BinOp::BitXor,
        "SHL" | "SAL" => BinOp::Shl,
        "SHR" => BinOp::Shr,
        _ => return None,
    })
}

fn stmt(kind: StmtKind, span: Span) -> Option<Item> {
    Some(Item::Stmt(Stmt { kind, span }))
}

impl X86<'_, '_> {
    /// `MOV`: a store, a load or a register move.
    pub(super) fn mov(&mut self, c: &Cell, ops: &[Operand], fx: &mut Effects) -> Option<Item> {
        let kind = match ops {
            [Operand::Mem(loc), src] => src.reg_or_imm().map(|value| StmtKind::Store {
                loc: loc.clone(),
                value,
            }),
            [Operand::Reg(r, _), src] => src.value().map(|value| {
                fx.write(r);
                StmtKind::Assign {
                    reg: r.clone(),
                    value,
                }
            }),
            _ => None,
        };
        if kind.is_none() {
            self.error(c.span, format!("unsupported MOV operands in `{}`; supported: a store `MOV [x],$1` / `MOV [x],EAX`, a load `MOV EAX,[x]`, a register move `MOV EAX,$1` / `MOV EAX,EBX` (AT&T order in X86_64)", c.form));
        }
        stmt(kind?, c.span)
    }

    /// `XCHG` of a register and a location: atomic.
    pub(super) fn xchg(&mut self, c: &Cell, ops: &[Operand], fx: &mut Effects) -> Option<Item> {
        let (loc, r) = match ops {
            [Operand::Mem(loc), Operand::Reg(r, _)] | [Operand::Reg(r, _), Operand::Mem(loc)] => {
                (loc, r)
            }
            _ => {
                self.error(c.span, format!("unsupported XCHG operands in `{}`; supported: a register and a location, `XCHG [x],EAX`", c.form));
                return None;
            }
        };
        *fx.flags = Flags::Unknown("XCHG");
        stmt(
            StmtKind::Rmw {
                dest: Some(r.clone()),
                op: RmwOp::Xchg,
                loc: loc.clone(),
                args: vec![reg_expr(r)],
            },
            c.span,
        )
    }

    /// `ADD`, `SUB`, `AND`, `OR`, `XOR`, `INC`, `DEC`, `XADD`, `CMPXCHG` with a memory
    /// destination `ops[0]`: atomic with `LOCK`; without, a load then a store (not atomic:
    /// another thread's store may come between), as `x = x + 1` in the native dialect.
    pub(super) fn memory_rmw(
        &mut self,
        c: &Cell,
        ops: &[Operand],
        fx: &mut Effects,
    ) -> Option<Item> {
        let (m, sp) = (c.mnemonic, c.span);
        let [Operand::Mem(loc), rest @ ..] = ops else {
            self.error(
                sp,
                format!("unsupported operands for `{m}` in `{}`", c.form),
            );
            return None;
        };
        let src = match rest {
            [src] => src.reg_or_imm(),
            _ => None,
        };
        if !c.locked {
            let op = match (m, rest) {
                ("INC", []) => Some((BinOp::Add, int(1, sp))),
                ("DEC", []) => Some((BinOp::Sub, int(1, sp))),
                _ => arith(m).zip(src),
            };
            let Some((op, v)) = op else {
                self.error(sp, format!("`{m}` on memory needs `LOCK` here (`LOCK {m}`): without it, litmus supports ADD, SUB, INC, DEC, AND, OR, XOR"));
                return None;
            };
            *fx.flags = Flags::Unknown("a read-modify-write of memory");
            let old = Expr {
                kind: ExprKind::Load(loc.clone()),
                span: loc.span,
            };
            let value = bin(op, old, v, sp);
            return stmt(
                StmtKind::Store {
                    loc: loc.clone(),
                    value,
                },
                sp,
            );
        }
        *fx.flags = Flags::Unknown("a locked read-modify-write");
        let kind = match (m, rest, src) {
            ("INC", [], _) => Some((None, RmwOp::FetchAdd, vec![int(1, sp)])),
            ("DEC", [], _) => Some((None, RmwOp::FetchAdd, vec![int(-1, sp)])),
            ("ADD", _, Some(v)) => Some((None, RmwOp::FetchAdd, vec![v])),
            ("SUB", _, Some(v)) => {
                let s = v.span;
                let neg = Expr {
                    kind: ExprKind::Unary(UnOp::Neg, Box::new(v)),
                    span: s,
                };
                Some((None, RmwOp::FetchAdd, vec![neg]))
            }
            ("AND", _, Some(v)) => Some((None, RmwOp::FetchAnd, vec![v])),
            ("OR", _, Some(v)) => Some((None, RmwOp::FetchOr, vec![v])),
            ("XOR", _, Some(v)) => Some((None, RmwOp::FetchXor, vec![v])),
            ("XADD", [Operand::Reg(r, _)], _) => {
                Some((Some(r.clone()), RmwOp::FetchAdd, vec![reg_expr(r)]))
            }
            ("CMPXCHG", [Operand::Reg(r, w)], _) => {
                // The accumulator: compared with memory, and receives its old value (equal
                // to the accumulator when the exchange happens).
                let acc = self.accumulator(*w, r.span);
                let args = vec![reg_expr(&acc), reg_expr(r)];
                Some((Some(acc), RmwOp::Cas, args))
            }
            _ => None,
        };
        let Some((dest, op, args)) = kind else {
            self.error(
                sp,
                format!("unsupported `LOCK {m}` operands in `{}`", c.form),
            );
            return None;
        };
        if let Some(d) = &dest {
            fx.regs.insert(d.text.clone());
        }
        stmt(
            StmtKind::Rmw {
                dest,
                op,
                loc: loc.clone(),
                args,
            },
            sp,
        )
    }

    /// Arithmetic into a register: `ADD EAX,$1` (any source but a label), `INC`, `DEC`,
    /// `NEG`; the flags then compare the result with 0.
    pub(super) fn register_arith(
        &mut self,
        c: &Cell,
        ops: &[Operand],
        fx: &mut Effects,
    ) -> Option<Item> {
        let sp = c.span;
        let (r, value) = match (c.mnemonic, ops) {
            (m, [Operand::Reg(r, _), src]) => {
                let op = arith(m);
                let v = op
                    .zip(src.value())
                    .map(|(op, v)| bin(op, reg_expr(r), v, sp));
                (r, v)
            }
            ("INC", [Operand::Reg(r, _)]) => {
                (r, Some(bin(BinOp::Add, reg_expr(r), int(1, sp), sp)))
            }
            ("DEC", [Operand::Reg(r, _)]) => {
                (r, Some(bin(BinOp::Sub, reg_expr(r), int(1, sp), sp)))
            }
            ("NEG", [Operand::Reg(r, _)]) => {
                let neg = Expr {
                    kind: ExprKind::Unary(UnOp::Neg, Box::new(reg_expr(r))),
                    span: sp,
                };
                (r, Some(neg))
            }
            _ => return self.unsupported_operands(c),
        };
        let Some(value) = value else {
            return self.unsupported_operands(c);
        };
        fx.write(r);
        fx.result_of(r, sp);
        stmt(
            StmtKind::Assign {
                reg: r.clone(),
                value,
            },
            sp,
        )
    }

    /// `CMP` and `TEST` of registers and immediates: they only set the flags.
    pub(super) fn compare(&mut self, c: &Cell, ops: &[Operand], fx: &mut Effects) -> Option<Item> {
        let sp = c.span;
        let pair = match ops {
            [a, b] => a.reg_or_imm().zip(b.reg_or_imm()),
            _ => None,
        };
        let Some((a, b)) = pair else {
            self.error(sp, format!("unsupported `{}` operands in `{}`: only registers and immediates are compared (load into a register first)", c.mnemonic, c.form));
            return None;
        };
        let mut rs = Vec::new();
        regs_of(&a, &mut rs);
        regs_of(&b, &mut rs);
        *fx.flags = if c.mnemonic == "CMP" {
            Flags::Cmp { a, b, regs: rs }
        } else {
            Flags::Cmp {
                a: bin(BinOp::BitAnd, a, b, sp),
                b: int(0, sp),
                regs: rs,
            }
        };
        None
    }

    /// `JMP` and the conditional jumps to a label, reading the flags.
    pub(super) fn jump(&mut self, c: &Cell, ops: &[Operand], flags: &Flags) -> Option<Item> {
        let (m, sp) = (c.mnemonic, c.span);
        let [Operand::Label(target)] = ops else {
            self.error(sp, format!("`{m}` takes one label operand: `{m} L0`"));
            return None;
        };
        let cond = if m == "JMP" {
            None
        } else {
            let (a, b) = match flags.clone() {
                Flags::Cmp { a, b, .. } => (a, b),
                Flags::None => {
                    self.error(sp, format!("`{m}` needs a preceding `CMP`, `TEST` or arithmetic instruction in its thread"));
                    return None;
                }
                Flags::Unknown(why) => {
                    self.error(sp, format!("`{m}` reads flags that litmus does not model here ({why}); compare with `CMP` right before the jump"));
                    return None;
                }
            };
            let op = match m {
                "JE" | "JZ" => BinOp::Eq,
                "JNE" | "JNZ" => BinOp::Ne,
                "JL" => BinOp::Lt,
                "JLE" => BinOp::Le,
                "JG" => BinOp::Gt,
                _ => BinOp::Ge,
            };
            Some(bin(op, a, b, sp))
        };
        Some(Item::Jump {
            cond,
            target: target.clone(),
            span: sp,
        })
    }

    /// A known mnemonic with operands it does not take.
    pub(super) fn unsupported_operands(&mut self, c: &Cell) -> Option<Item> {
        self.error(
            c.span,
            format!("unsupported operands for `{}` in `{}`", c.mnemonic, c.form),
        );
        None
    }

    /// `EAX` (X86) or `rax` (X86_64), the register `CMPXCHG` compares with.
    fn accumulator(&self, width: Option<u32>, span: Span) -> Name {
        let text = match (self.dialect, width) {
            (Dialect::X86_64, _) => "rax".to_string(),
            (_, Some(64)) => "RAX".to_string(),
            (_, Some(16)) => "AX".to_string(),
            (_, Some(8)) => "AL".to_string(),
            _ => "EAX".to_string(),
        };
        Name { text, span }
    }
}
