//! Lowering of one x86 instruction (its cell) to statements, or to a label or a jump for
//! `control.rs` to structure.

use super::control::{Item, END};
use super::operands::{bin, int, part_write, reg_expr, regs_of, Flags, Operand};
use super::X86;
use crate::ast::{BinOp, Dialect, Expr, ExprKind, Name, RmwOp, Stmt, StmtKind, UnOp};
use crate::span::Span;
use crate::syntax::{children_by_field, field, span};
use std::collections::BTreeSet;
use tree_sitter::Node;

const SUPPORTED: &str =
    "supported: MOV, MFENCE, XCHG, LOCK ADD/SUB/INC/DEC/AND/OR/XOR/XADD/CMPXCHG, \
ADD, SUB, INC, DEC, NEG, AND, OR, XOR, SHL, SHR, CMP, TEST, JE/JNE/JL/JLE/JG/JGE/JMP, RET, NOP, ENDBR64";
/// Mnemonics litmus knows, without a size suffix.
const MNEMONICS: &[&str] = &[
    "MOV", "MFENCE", "XCHG", "ADD", "SUB", "INC", "DEC", "NEG", "AND", "OR", "XOR", "SHL", "SAL",
    "SHR", "XADD", "CMPXCHG", "CMP", "TEST", "JE", "JZ", "JNE", "JNZ", "JL", "JLE", "JG", "JGE",
    "JMP", "NOP", "ENDBR64", "PAUSE", "LFENCE", "RET",
];
/// `MOVQ` → (`MOV`, 64); `SHL` stays `SHL`; unknown mnemonics are returned whole.
fn split_size(m: &str) -> (String, Option<u32>) {
    if MNEMONICS.contains(&m) {
        return (m.to_string(), None);
    }
    let size = match m.chars().last() {
        Some('B') => 8,
        Some('W') => 16,
        Some('L') => 32,
        Some('Q') => 64,
        _ => return (m.to_string(), None),
    };
    let stem = &m[..m.len() - 1];
    if MNEMONICS.contains(&stem) {
        // `NOPL`/`NOPW` take a memory operand only to fill space: no access, no size.
        let size = (stem != "NOP").then_some(size);
        (stem.to_string(), size)
    } else {
        (m.to_string(), None)
    }
}
impl X86<'_, '_> {
    /// Lowers one cell into `out` (nothing for a `NOP`, a label and/or one statement).
    pub(super) fn instruction(
        &mut self,
        node: Node,
        regs: &mut BTreeSet<String>,
        flags: &mut Flags,
        out: &mut Vec<Item>,
    ) {
        let sp = span(node);
        if let Some(label) = field(node, "label").and_then(|l| field(l, "name")) {
            out.push(Item::Label(self.src.name(label)));
        }
        let Some(mnemonic_node) = field(node, "mnemonic") else {
            return;
        };
        let written = self.src.text(mnemonic_node).to_ascii_uppercase();
        let (mnemonic, suffix) = split_size(&written);
        let locked = field(node, "prefix").is_some();
        // No-ops: their operands (`NOPL %cs:0(%rax,%rax,1)`) only fill space.
        if !locked && matches!(mnemonic.as_str(), "NOP" | "ENDBR64" | "PAUSE" | "LFENCE") {
            return;
        }
        let operand_nodes = children_by_field(node, "operand");
        let mut ops = Vec::new();
        // Labels are only operands of jumps; elsewhere an identifier is a register (X86).
        let is_jump = mnemonic.starts_with('J');
        let mut scratch = BTreeSet::new();
        for o in &operand_nodes {
            let op = if is_jump && o.kind() == "identifier" {
                Some(Operand::Label(self.src.name(*o)))
            } else {
                self.operand(*o, if is_jump { &mut scratch } else { regs })
            };
            match op {
                Some(op) => ops.push(op),
                None => return,
            }
        }
        if self.dialect == Dialect::X86_64 {
            // AT&T: source first, destination last.
            ops.reverse();
        }
        // The access size: the suffix, else a register operand's width.
        let size = suffix.or_else(|| {
            ops.iter().find_map(|o| match o {
                Operand::Reg(_, w) => *w,
                _ => None,
            })
        });
        for o in &ops {
            if let Operand::Mem(loc) = o {
                self.sized(loc.var, size, loc.span);
            }
        }
        let value = |o: &Operand| -> Option<Expr> {
            match o {
                Operand::Mem(loc) => Some(Expr {
                    kind: ExprKind::Load(loc.clone()),
                    span: loc.span,
                }),
                Operand::Reg(r, _) => Some(reg_expr(r)),
                Operand::Imm(v, s) => Some(int(*v, *s)),
                Operand::Label(_) => None,
            }
        };
        let form = self.src.text(node).to_string();
        let stmt = |kind| Some(Item::Stmt(Stmt { kind, span: sp }));
        // A register write: the flags stop describing what they compared if it reads `r`.
        let written_reg = |flags: &mut Flags, r: &Name| {
            if let Flags::Cmp { regs, .. } = flags {
                if regs.contains(&r.text) {
                    *flags = Flags::Unknown("a register the comparison read was written after it");
                }
            }
        };
        let arith = |m: &str| -> Option<BinOp> {
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
        };

        let item: Option<Item> = match (mnemonic.as_str(), ops.as_slice()) {
            ("NOP" | "ENDBR64" | "PAUSE" | "LFENCE", _) => None,
            // The end of the thread (herd's compiled tests end each thread with `ret`).
            ("RET", []) => Some(Item::Jump {
                cond: None,
                target: Name {
                    text: END.to_string(),
                    span: sp,
                },
                span: sp,
            }),
            ("MFENCE", []) => stmt(StmtKind::Fence),
            ("MFENCE", _) => {
                self.error(sp, "MFENCE takes no operands");
                return;
            }
            _ if locked
                && !matches!(
                    mnemonic.as_str(),
                    "ADD"
                        | "SUB"
                        | "INC"
                        | "DEC"
                        | "AND"
                        | "OR"
                        | "XOR"
                        | "XADD"
                        | "CMPXCHG"
                        | "XCHG"
                ) =>
            {
                self.error(sp, format!("`LOCK` cannot prefix `{mnemonic}` (only read-modify-writes of memory: ADD, SUB, INC, DEC, AND, OR, XOR, XADD, CMPXCHG, XCHG)"));
                return;
            }
            ("MOV", [Operand::Mem(loc), src @ (Operand::Imm(..) | Operand::Reg(..))]) => {
                stmt(StmtKind::Store {
                    loc: loc.clone(),
                    value: value(src).unwrap(),
                })
            }
            (
                "MOV",
                [Operand::Reg(r, _), src @ (Operand::Mem(_) | Operand::Imm(..) | Operand::Reg(..))],
            ) => {
                written_reg(flags, r);
                regs.insert(r.text.clone());
                stmt(StmtKind::Assign {
                    reg: r.clone(),
                    value: value(src).unwrap(),
                })
            }
            ("MOV", _) => {
                self.error(sp, format!("unsupported MOV operands in `{form}`; supported: a store `MOV [x],$1` / `MOV [x],EAX`, a load `MOV EAX,[x]`, a register move `MOV EAX,$1` / `MOV EAX,EBX` (AT&T order in X86_64)"));
                return;
            }
            ("XCHG", [Operand::Mem(loc), Operand::Reg(r, _)])
            | ("XCHG", [Operand::Reg(r, _), Operand::Mem(loc)]) => {
                *flags = Flags::Unknown("XCHG");
                stmt(StmtKind::Rmw {
                    dest: Some(r.clone()),
                    op: RmwOp::Xchg,
                    loc: loc.clone(),
                    args: vec![reg_expr(r)],
                })
            }
            ("XCHG", _) => {
                self.error(sp, format!("unsupported XCHG operands in `{form}`; supported: a register and a location, `XCHG [x],EAX`"));
                return;
            }
            // Read-modify-writes of memory: atomic with LOCK, not supported without.
            (
                m @ ("ADD" | "SUB" | "AND" | "OR" | "XOR" | "INC" | "DEC" | "XADD" | "CMPXCHG"),
                [Operand::Mem(loc), rest @ ..],
            ) => {
                if !locked {
                    // Without LOCK: a load, then a store of the result (not atomic: another
                    // thread's store may come between), as `x = x + 1` in the native dialect.
                    let op = match (m, rest) {
                        ("INC", []) => Some((BinOp::Add, int(1, sp))),
                        ("DEC", []) => Some((BinOp::Sub, int(1, sp))),
                        (_, [src @ (Operand::Imm(..) | Operand::Reg(..))]) => {
                            arith(m).map(|op| (op, value(src).unwrap()))
                        }
                        _ => None,
                    };
                    let Some((op, v)) = op else {
                        self.error(sp, format!("`{m}` on memory needs `LOCK` here (`LOCK {m}`): without it, litmus supports ADD, SUB, INC, DEC, AND, OR, XOR"));
                        return;
                    };
                    *flags = Flags::Unknown("a read-modify-write of memory");
                    let old = Expr {
                        kind: ExprKind::Load(loc.clone()),
                        span: loc.span,
                    };
                    let item = stmt(StmtKind::Store {
                        loc: loc.clone(),
                        value: bin(op, old, v, sp),
                    });
                    out.extend(item);
                    return;
                }
                let loc = loc.clone();
                *flags = Flags::Unknown("a locked read-modify-write");
                let one = |v: i64| int(v, sp);
                let kind = match (m, rest) {
                    ("INC", []) => Some((None, RmwOp::FetchAdd, vec![one(1)])),
                    ("DEC", []) => Some((None, RmwOp::FetchAdd, vec![one(-1)])),
                    ("ADD", [src @ (Operand::Imm(..) | Operand::Reg(..))]) => {
                        Some((None, RmwOp::FetchAdd, vec![value(src).unwrap()]))
                    }
                    ("SUB", [src @ (Operand::Imm(..) | Operand::Reg(..))]) => {
                        let v = value(src).unwrap();
                        let s = v.span;
                        Some((
                            None,
                            RmwOp::FetchAdd,
                            vec![Expr {
                                kind: ExprKind::Unary(UnOp::Neg, Box::new(v)),
                                span: s,
                            }],
                        ))
                    }
                    ("AND", [src @ (Operand::Imm(..) | Operand::Reg(..))]) => {
                        Some((None, RmwOp::FetchAnd, vec![value(src).unwrap()]))
                    }
                    ("OR", [src @ (Operand::Imm(..) | Operand::Reg(..))]) => {
                        Some((None, RmwOp::FetchOr, vec![value(src).unwrap()]))
                    }
                    ("XOR", [src @ (Operand::Imm(..) | Operand::Reg(..))]) => {
                        Some((None, RmwOp::FetchXor, vec![value(src).unwrap()]))
                    }
                    ("XADD", [Operand::Reg(r, _)]) => {
                        Some((Some(r.clone()), RmwOp::FetchAdd, vec![reg_expr(r)]))
                    }
                    ("CMPXCHG", [Operand::Reg(r, w)]) => {
                        // The accumulator: compared with memory, and receives its old value
                        // (equal to the accumulator when the exchange happens).
                        let acc = self.accumulator(*w, r.span);
                        regs.insert(acc.text.clone());
                        Some((
                            Some(acc.clone()),
                            RmwOp::Cas,
                            vec![reg_expr(&acc), reg_expr(r)],
                        ))
                    }
                    _ => None,
                };
                let Some((dest, op, args)) = kind else {
                    self.error(sp, format!("unsupported `LOCK {m}` operands in `{form}`"));
                    return;
                };
                if let Some(d) = &dest {
                    regs.insert(d.text.clone());
                }
                stmt(StmtKind::Rmw {
                    dest,
                    op,
                    loc,
                    args,
                })
            }
            (m @ ("XADD" | "CMPXCHG"), _) => {
                self.error(
                    sp,
                    format!(
                        "unsupported `{m}` operands in `{form}`; supported: `LOCK {m} [x],EAX`"
                    ),
                );
                return;
            }
            // Register arithmetic.
            (
                m,
                [Operand::Reg(r, _), src @ (Operand::Imm(..) | Operand::Reg(..) | Operand::Mem(_))],
            ) if arith(m).is_some() => {
                let op = arith(m).unwrap();
                written_reg(flags, r);
                regs.insert(r.text.clone());
                let v = bin(op, reg_expr(r), value(src).unwrap(), sp);
                *flags = Flags::Cmp {
                    a: reg_expr(r),
                    b: int(0, sp),
                    regs: vec![r.text.clone()],
                };
                stmt(StmtKind::Assign {
                    reg: r.clone(),
                    value: v,
                })
            }
            (m @ ("INC" | "DEC" | "NEG"), [Operand::Reg(r, _)]) => {
                written_reg(flags, r);
                regs.insert(r.text.clone());
                let v = match m {
                    "INC" => bin(BinOp::Add, reg_expr(r), int(1, sp), sp),
                    "DEC" => bin(BinOp::Sub, reg_expr(r), int(1, sp), sp),
                    _ => Expr {
                        kind: ExprKind::Unary(UnOp::Neg, Box::new(reg_expr(r))),
                        span: sp,
                    },
                };
                *flags = Flags::Cmp {
                    a: reg_expr(r),
                    b: int(0, sp),
                    regs: vec![r.text.clone()],
                };
                stmt(StmtKind::Assign {
                    reg: r.clone(),
                    value: v,
                })
            }
            (
                "CMP" | "TEST",
                [a @ (Operand::Reg(..) | Operand::Imm(..)), b @ (Operand::Reg(..) | Operand::Imm(..))],
            ) => {
                let (a, b) = (value(a).unwrap(), value(b).unwrap());
                let mut rs = Vec::new();
                regs_of(&a, &mut rs);
                regs_of(&b, &mut rs);
                *flags = if mnemonic == "CMP" {
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
            (m @ ("CMP" | "TEST"), _) => {
                self.error(sp, format!("unsupported `{m}` operands in `{form}`: only registers and immediates are compared (load into a register first)"));
                return;
            }
            (m, [Operand::Label(target)]) if m.starts_with('J') && MNEMONICS.contains(&m) => {
                let cond = if m == "JMP" {
                    None
                } else {
                    let (a, b) = match flags.clone() {
                        Flags::Cmp { a, b, .. } => (a, b),
                        Flags::None => {
                            self.error(sp, format!("`{m}` needs a preceding `CMP`, `TEST` or arithmetic instruction in its thread"));
                            return;
                        }
                        Flags::Unknown(why) => {
                            self.error(sp, format!("`{m}` reads flags that litmus does not model here ({why}); compare with `CMP` right before the jump"));
                            return;
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
            (m, _) if m.starts_with('J') && MNEMONICS.contains(&m) => {
                self.error(sp, format!("`{m}` takes one label operand: `{m} L0`"));
                return;
            }
            (m, _) if MNEMONICS.contains(&m) => {
                self.error(sp, format!("unsupported operands for `{m}` in `{form}`"));
                return;
            }
            (other, _) => {
                self.error(
                    sp,
                    format!("unsupported x86 instruction `{other}`; {SUPPORTED}"),
                );
                return;
            }
        };
        let Some(item) = item else { return };
        // X86_64: a write to part of a 64-bit register. A 32-bit write zero-extends; an 8- or
        // 16-bit write keeps the other bits.
        if self.dialect == Dialect::X86_64 {
            let width_of = |r: &Name| {
                ops.iter()
                    .find_map(|o| match o {
                        Operand::Reg(n, w) if n.text == r.text => Some(*w),
                        _ => None,
                    })
                    .flatten()
                    .or(size)
            };
            match &item {
                Item::Stmt(Stmt {
                    kind: StmtKind::Assign { reg, value },
                    span,
                }) if matches!(width_of(reg), Some(w) if w < 64) => {
                    let w = width_of(reg).unwrap_or(64);
                    let value = part_write(reg, value.clone(), w, *span);
                    out.push(Item::Stmt(Stmt {
                        kind: StmtKind::Assign {
                            reg: reg.clone(),
                            value,
                        },
                        span: *span,
                    }));
                    return;
                }
                Item::Stmt(Stmt {
                    kind: StmtKind::Rmw { dest: Some(d), .. },
                    span,
                }) if matches!(width_of(d), Some(w) if w < 64) => {
                    let w = width_of(d).unwrap_or(64);
                    if w < 32 {
                        self.error(*span, format!("{w}-bit registers as the destination of `{mnemonic}` are not supported (use a 32- or 64-bit register)"));
                        return;
                    }
                    let (d, span) = (d.clone(), *span);
                    out.push(item);
                    let value = bin(BinOp::BitAnd, reg_expr(&d), int(0xffff_ffff, span), span);
                    out.push(Item::Stmt(Stmt {
                        kind: StmtKind::Assign { reg: d, value },
                        span,
                    }));
                    return;
                }
                _ => {}
            }
        }
        out.push(item);
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
