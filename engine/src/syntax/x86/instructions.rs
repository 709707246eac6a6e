//! Lowering of one x86 instruction (its cell) to statements, or to a label or a jump for
//! `control.rs` to structure: this file reads the mnemonic and operands, picks the class
//! (`classes.rs` lowers each) and narrows partial register writes in X86_64.

use super::classes::{arith, Cell, Effects};
use super::control::{Item, END};
use super::operands::{bin, int, part_write, reg_expr, Flags, Operand};
use super::X86;
use crate::ast::{BinOp, Dialect, Name, Stmt, StmtKind};
use crate::syntax::{children_by_field, field, span};
use std::collections::BTreeSet;
use tree_sitter::Node;

const SUPPORTED: &str =
    "supported: MOV, MFENCE, XCHG, LOCK ADD/SUB/INC/DEC/AND/OR/XOR/XADD/CMPXCHG, \
ADD, SUB, INC, DEC, NEG, AND, OR, XOR, SHL, SHR, CMP, TEST, JE/JNE/JL/JLE/JG/JGE/JMP, RET, NOP, ENDBR64";
/// The mnemonics `LOCK` may prefix: read-modify-writes of memory.
const RMW: &[&str] = &[
    "ADD", "SUB", "INC", "DEC", "AND", "OR", "XOR", "XADD", "CMPXCHG", "XCHG",
];
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
        let form = self.src.text(node).to_string();
        let c = Cell {
            mnemonic: &mnemonic,
            form: &form,
            span: sp,
            locked,
        };
        let mut fx = Effects { regs, flags };
        let rmw_of_memory = RMW.contains(&mnemonic.as_str())
            && !matches!(mnemonic.as_str(), "XCHG")
            && matches!(ops.first(), Some(Operand::Mem(_)));
        let item: Option<Item> = match mnemonic.as_str() {
            "NOP" | "ENDBR64" | "PAUSE" | "LFENCE" => None,
            // The end of the thread (herd's compiled tests end each thread with `ret`).
            "RET" if ops.is_empty() => Some(Item::Jump {
                cond: None,
                target: Name {
                    text: END.to_string(),
                    span: sp,
                },
                span: sp,
            }),
            "MFENCE" if ops.is_empty() => Some(Item::Stmt(Stmt {
                kind: StmtKind::Fence,
                span: sp,
            })),
            "MFENCE" => {
                self.error(sp, "MFENCE takes no operands");
                None
            }
            m if locked && !RMW.contains(&m) => {
                self.error(sp, format!("`LOCK` cannot prefix `{m}` (only read-modify-writes of memory: ADD, SUB, INC, DEC, AND, OR, XOR, XADD, CMPXCHG, XCHG)"));
                None
            }
            "MOV" => self.mov(&c, &ops, &mut fx),
            "XCHG" => self.xchg(&c, &ops, &mut fx),
            _ if rmw_of_memory => self.memory_rmw(&c, &ops, &mut fx),
            m @ ("XADD" | "CMPXCHG") => {
                self.error(
                    sp,
                    format!(
                        "unsupported `{m}` operands in `{form}`; supported: `LOCK {m} [x],EAX`"
                    ),
                );
                None
            }
            m if arith(m).is_some() || matches!(m, "INC" | "DEC" | "NEG") => {
                self.register_arith(&c, &ops, &mut fx)
            }
            "CMP" | "TEST" => self.compare(&c, &ops, &mut fx),
            m if m.starts_with('J') && MNEMONICS.contains(&m) => self.jump(&c, &ops, fx.flags),
            m if MNEMONICS.contains(&m) => self.unsupported_operands(&c),
            other => {
                self.error(
                    sp,
                    format!("unsupported x86 instruction `{other}`; {SUPPORTED}"),
                );
                None
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
}
