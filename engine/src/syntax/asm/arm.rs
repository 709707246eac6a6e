//! ARMv7 (herd's `ARM`) instructions of the supported subset (`docs/arm-riscv.md#armv7`) to
//! [`Op`].
//!
//! herd's ARMv7 has one flag, Z: `CMP a,b` sets it when `a = b`, the `S` forms (`ADDS`,
//! `EORS`) when the result is 0, `TEQ a,b` when `a ^ b = 0`; `BEQ`/`BNE` branch on it. The
//! engine's flags are AArch64's NZCV, whose Z is the same bit. Registers are 32 bits.

use super::operands::{arity, Error, Kind, Opnd};
use crate::asm::regs::arm as register;
use crate::asm::{
    Address, AluOp, Barrier, BranchCond, Cond, DmbKind, Op, Operand, Ordering, Reg, Target,
    Writeback,
};

fn reg(o: &Opnd) -> Result<Reg, Error> {
    o.name().and_then(register).ok_or_else(|| {
        o.err(format!(
            "expected a register (`R0`..`R14`), found `{}`",
            o.text
        ))
    })
}

/// A register or an immediate (`#1`).
fn operand(o: &Opnd) -> Result<Operand, Error> {
    match o.kind {
        Kind::Imm(_) => Ok(Operand::Imm(o.imm()?)),
        _ => Ok(Operand::Reg(reg(o)?)),
    }
}

/// `[Rn]`, `[Rn,Rm]`, `[Rn,#k]`, or herd's bare `Rn`.
fn address(o: &Opnd) -> Result<Address, Error> {
    match &o.kind {
        Kind::Name(_) => Ok(Address {
            base: reg(o)?,
            offset: Operand::Imm(0),
            writeback: Writeback::None,
        }),
        Kind::ArmMem {
            base,
            offset,
            extend: None,
            writeback: false,
        } => Ok(Address {
            base: reg(base)?,
            offset: match offset {
                None => Operand::Imm(0),
                Some(k) => operand(k)?,
            },
            writeback: Writeback::None,
        }),
        _ => Err(o.err(format!(
            "expected a memory operand `[Rn]`, `[Rn,Rm]` or `[Rn,#k]`, found `{}`",
            o.text
        ))),
    }
}

fn label(o: &Opnd) -> Result<Target, Error> {
    Ok(Target::Label(o.label()?))
}

pub(super) fn lower(mnemonic: &str, ops: &[Opnd]) -> Result<Op, Error> {
    let m = mnemonic.to_ascii_uppercase();
    let unsupported = || {
        Error::Mnemonic(format!(
            "`{mnemonic}` is outside the supported ARMv7 subset (docs/arm-riscv.md lists it)"
        ))
    };
    let plain = Ordering::default();
    match m.as_str() {
        "LDR" | "LDREX" => {
            arity(ops, 2, &format!("{m} Rt,[Rn]"))?;
            Ok(Op::Load {
                dst: reg(&ops[0])?,
                addr: address(&ops[1])?,
                width: 32,
                signed: true,
                reg_width: 32,
                ord: plain,
                exclusive: m == "LDREX",
            })
        }
        "STR" => {
            arity(ops, 2, "STR Rt,[Rn]")?;
            Ok(Op::Store {
                src: reg(&ops[0])?,
                addr: address(&ops[1])?,
                width: 32,
                ord: plain,
                status: None,
            })
        }
        "STREX" => {
            arity(ops, 3, "STREX Rd,Rt,[Rn]")?;
            Ok(Op::Store {
                status: Some(reg(&ops[0])?),
                src: reg(&ops[1])?,
                addr: address(&ops[2])?,
                width: 32,
                ord: plain,
            })
        }
        "DMB" | "DSB" => {
            let kind = match ops {
                [] => DmbKind::Full,
                [o] => match o.name().map(str::to_ascii_uppercase).as_deref() {
                    Some("SY" | "ISH" | "NSH" | "OSH") => DmbKind::Full,
                    Some("ST" | "ISHST" | "NSHST" | "OSHST") => DmbKind::St,
                    _ => {
                        return Err(o.err(format!(
                            "expected a barrier option (`SY`, `ST`, `ISH`, `ISHST`, `NSH`, \
                             `NSHST`, `OSH`, `OSHST`), found `{}`",
                            o.text
                        )))
                    }
                },
                _ => return Err(Error::Cell(format!("expected `{m}` or `{m} option`"))),
            };
            Ok(Op::Barrier(Barrier::Dmb {
                dsb: m == "DSB",
                kind,
            }))
        }
        "ISB" => {
            arity(ops, 0, "ISB")?;
            Ok(Op::Barrier(Barrier::Isb))
        }
        "NOP" => {
            arity(ops, 0, "NOP")?;
            Ok(Op::Nop)
        }
        "CMP" | "TEQ" => {
            arity(ops, 2, &format!("{m} Rn,Rm"))?;
            Ok(Op::Alu {
                op: if m == "CMP" { AluOp::Sub } else { AluOp::Xor },
                dst: Reg::Zero,
                args: vec![Operand::Reg(reg(&ops[0])?), operand(&ops[1])?],
                width: 32,
                flags: true,
            })
        }
        "B" => {
            arity(ops, 1, "B label")?;
            Ok(Op::Branch {
                cond: BranchCond::Always,
                target: label(&ops[0])?,
                link: false,
            })
        }
        "BEQ" | "BNE" => {
            arity(ops, 1, &format!("{m} label"))?;
            Ok(Op::Branch {
                cond: BranchCond::Flags(if m == "BEQ" { Cond::Eq } else { Cond::Ne }),
                target: label(&ops[0])?,
                link: false,
            })
        }
        "MOV" | "MOVW" => {
            arity(ops, 2, &format!("{m} Rd,Rm"))?;
            Ok(Op::Alu {
                op: AluOp::Mov,
                dst: reg(&ops[0])?,
                args: vec![operand(&ops[1])?],
                width: 32,
                flags: false,
            })
        }
        _ => {
            // `EOR Rd,Rn,Rm`, `ADD Rd,Rn,#k`, ...; a final `S` sets Z (`EORS`).
            let (op, flags) = match m.as_str() {
                "ADD" => (AluOp::Add, false),
                "ADDS" => (AluOp::Add, true),
                "SUB" => (AluOp::Sub, false),
                "SUBS" => (AluOp::Sub, true),
                "AND" => (AluOp::And, false),
                "ANDS" => (AluOp::And, true),
                "ORR" => (AluOp::Or, false),
                "ORRS" => (AluOp::Or, true),
                "EOR" | "XOR" => (AluOp::Xor, false),
                "EORS" => (AluOp::Xor, true),
                _ => return Err(unsupported()),
            };
            arity(ops, 3, &format!("{m} Rd,Rn,Rm"))?;
            Ok(Op::Alu {
                op,
                dst: reg(&ops[0])?,
                args: vec![Operand::Reg(reg(&ops[1])?), operand(&ops[2])?],
                width: 32,
                flags,
            })
        }
    }
}
