//! POWER (herd's `PPC`) instructions of the supported subset (`docs/arm-riscv.md#power`) to
//! [`Op`].
//!
//! - `r0` as the base of an indexed access (`lwzx rD,r0,rB`, `lwarx`, `stwcx.`) and as the
//!   source of `addi` reads as 0, as the ISA says and herd does.
//! - A compare (`cmpw`, `cmpwi`, the `.` forms) sets CR0 as a signed comparison; `beq`,
//!   `bne`, `blt`, `bge`, `bgt`, `ble` branch on it. `stwcx.` sets CR0's EQ bit when it
//!   succeeds (the engine does it; the status register here is the zero register).

use super::operands::{arity, Error, Kind, Opnd};
use crate::asm::regs::ppc as register;
use crate::asm::{
    Address, AluOp, Barrier, BranchCond, Cond, Op, Operand, Ordering, PowerFence, Reg, Target,
    Width, Writeback,
};

fn reg(o: &Opnd) -> Result<Reg, Error> {
    o.name().and_then(register).ok_or_else(|| {
        o.err(format!(
            "expected a register (`r0`..`r31`), found `{}`",
            o.text
        ))
    })
}

/// `r0` in a base position reads as 0.
fn base(o: &Opnd) -> Result<Reg, Error> {
    Ok(match reg(o)? {
        Reg::R(0) => Reg::Zero,
        r => r,
    })
}

/// `d(rA)`: a displacement and a base register.
fn displaced(o: &Opnd) -> Result<Address, Error> {
    match &o.kind {
        Kind::RvMem { offset, base: b } => Ok(Address {
            base: base(b)?,
            offset: Operand::Imm(offset.ok_or_else(|| o.err("offset out of range"))?),
            writeback: Writeback::None,
        }),
        _ => Err(o.err(format!(
            "expected a memory operand `0(rN)`, found `{}`",
            o.text
        ))),
    }
}

/// The address operands of a D-form access: `d(rA)`, or herd's `d,rA` (`stw r6,0,r4`).
fn d_form(ops: &[Opnd], m: &str, first: &str) -> Result<Address, Error> {
    match ops {
        [_, a] => displaced(a),
        [_, d, a] if matches!(d.kind, Kind::Imm(_)) => Ok(Address {
            base: base(a)?,
            offset: Operand::Imm(d.imm()?),
            writeback: Writeback::None,
        }),
        _ => Err(Error::Cell(format!(
            "expected 2 operands: `{m} {first},0(rA)`"
        ))),
    }
}

/// `rA,rB` of an indexed access: `(rA|0) + rB`.
fn indexed(a: &Opnd, b: &Opnd) -> Result<Address, Error> {
    Ok(Address {
        base: base(a)?,
        offset: Operand::Reg(reg(b)?),
        writeback: Writeback::None,
    })
}

fn label(o: &Opnd) -> Result<Target, Error> {
    Ok(Target::Label(o.label()?))
}

/// `cmpw rA,rB` or `cmpw cr0,rA,rB`: only CR0 is modelled.
fn compare_operands(ops: &[Opnd], m: &str) -> Result<(Opnd, Opnd), Error> {
    match ops {
        [a, b] => Ok((a.clone(), b.clone())),
        [cr, a, b] if cr.name().is_some_and(|n| n.eq_ignore_ascii_case("cr0")) => {
            Ok((a.clone(), b.clone()))
        }
        [cr, _, _] => Err(cr.err(format!(
            "only condition register field `cr0` is supported, found `{}`",
            cr.text
        ))),
        _ => Err(Error::Cell(format!("expected 2 operands: `{m} rA,rB`"))),
    }
}

pub(super) fn lower(mnemonic: &str, ops: &[Opnd]) -> Result<Op, Error> {
    let m = mnemonic.to_ascii_lowercase();
    let unsupported = || {
        Error::Mnemonic(format!(
            "`{mnemonic}` is outside the supported POWER subset (docs/arm-riscv.md lists it)"
        ))
    };
    let width_of = |c: u8| -> Width {
        match c {
            b'b' => 8,
            b'h' => 16,
            b'w' => 32,
            _ => 64,
        }
    };
    let plain = Ordering::default();
    match m.as_str() {
        // Loads: `lwz rD,d(rA)`, `lwzx rD,rA,rB`, `ld`, `ldx`, `lbz`, `lhz`.
        "lbz" | "lhz" | "lwz" | "ld" | "lbzx" | "lhzx" | "lwzx" | "ldx" => {
            let x = m.ends_with('x');
            let addr = if x {
                arity(ops, 3, &format!("{m} rD,rA,rB"))?;
                indexed(&ops[1], &ops[2])?
            } else {
                d_form(ops, &m, "rD")?
            };
            Ok(Op::Load {
                dst: reg(&ops[0])?,
                addr,
                width: width_of(m.as_bytes()[1]),
                signed: false,
                reg_width: 64,
                ord: plain,
                exclusive: false,
            })
        }
        "stb" | "sth" | "stw" | "std" | "stbx" | "sthx" | "stwx" | "stdx" => {
            let x = m.ends_with('x');
            let addr = if x {
                arity(ops, 3, &format!("{m} rS,rA,rB"))?;
                indexed(&ops[1], &ops[2])?
            } else {
                d_form(ops, &m, "rS")?
            };
            Ok(Op::Store {
                src: reg(&ops[0])?,
                addr,
                width: width_of(m.as_bytes()[2]),
                ord: plain,
                status: None,
            })
        }
        "lwarx" | "ldarx" => {
            arity(ops, 3, &format!("{m} rD,rA,rB"))?;
            Ok(Op::Load {
                dst: reg(&ops[0])?,
                addr: indexed(&ops[1], &ops[2])?,
                width: if m == "lwarx" { 32 } else { 64 },
                signed: false,
                reg_width: 64,
                ord: plain,
                exclusive: true,
            })
        }
        "stwcx." | "stdcx." => {
            arity(ops, 3, &format!("{m} rS,rA,rB"))?;
            Ok(Op::Store {
                src: reg(&ops[0])?,
                addr: indexed(&ops[1], &ops[2])?,
                width: if m == "stwcx." { 32 } else { 64 },
                ord: plain,
                status: Some(Reg::Zero),
            })
        }
        "sync" | "hwsync" | "lwsync" | "eieio" | "isync" => {
            arity(ops, 0, &m)?;
            Ok(Op::Barrier(Barrier::Power(match m.as_str() {
                "lwsync" => PowerFence::Lwsync,
                "eieio" => PowerFence::Eieio,
                "isync" => PowerFence::Isync,
                _ => PowerFence::Sync,
            })))
        }
        "cmpw" | "cmpd" | "cmpwi" | "cmpdi" => {
            let (a, b) = compare_operands(ops, &m)?;
            let second = if m.ends_with('i') {
                Operand::Imm(b.imm()?)
            } else {
                Operand::Reg(reg(&b)?)
            };
            Ok(Op::Alu {
                op: AluOp::Sub,
                dst: Reg::Zero,
                args: vec![Operand::Reg(reg(&a)?), second],
                width: if m.starts_with("cmpw") { 32 } else { 64 },
                flags: true,
            })
        }
        "nop" => {
            arity(ops, 0, "nop")?;
            Ok(Op::Nop)
        }
        "b" => {
            arity(ops, 1, "b label")?;
            Ok(Op::Branch {
                cond: BranchCond::Always,
                target: label(&ops[0])?,
                link: false,
            })
        }
        "beq" | "bne" | "blt" | "bge" | "bgt" | "ble" => {
            let target = match ops {
                [l] => label(l)?,
                [cr, l] if cr.name().is_some_and(|n| n.eq_ignore_ascii_case("cr0")) => label(l)?,
                _ => return Err(Error::Cell(format!("expected 1 operand: `{m} label`"))),
            };
            let cond = Cond::parse(&m[1..]).ok_or_else(unsupported)?;
            Ok(Op::Branch {
                cond: BranchCond::Flags(cond),
                target,
                link: false,
            })
        }
        "li" | "lis" => {
            arity(ops, 2, &format!("{m} rD,imm"))?;
            let v = ops[1].imm()?;
            Ok(alu(
                AluOp::Mov,
                reg(&ops[0])?,
                vec![Operand::Imm(if m == "lis" {
                    v.wrapping_shl(16)
                } else {
                    v
                })],
                false,
            ))
        }
        "mr" => {
            arity(ops, 2, "mr rD,rS")?;
            Ok(alu(
                AluOp::Mov,
                reg(&ops[0])?,
                vec![Operand::Reg(reg(&ops[1])?)],
                false,
            ))
        }
        "addi" | "ori" | "xori" | "andi." | "mulli" => {
            arity(ops, 3, &format!("{m} rD,rA,imm"))?;
            let op = match m.as_str() {
                "addi" => AluOp::Add,
                "ori" => AluOp::Or,
                "xori" => AluOp::Xor,
                "andi." => AluOp::And,
                _ => AluOp::Mul,
            };
            // `addi rD,r0,imm` is `li`; the other forms read r0 itself.
            let a = if m == "addi" {
                base(&ops[1])?
            } else {
                reg(&ops[1])?
            };
            Ok(alu(
                op,
                reg(&ops[0])?,
                vec![Operand::Reg(a), Operand::Imm(ops[2].imm()?)],
                m == "andi.",
            ))
        }
        _ => {
            // `xor rD,rA,rB` and the other register forms; a final `.` sets CR0.
            let (stem, dot) = match m.strip_suffix('.') {
                Some(s) => (s, true),
                None => (m.as_str(), false),
            };
            let op = match stem {
                "add" => AluOp::Add,
                "sub" => AluOp::Sub,
                "and" => AluOp::And,
                "or" => AluOp::Or,
                "xor" => AluOp::Xor,
                "mullw" | "mulld" => AluOp::Mul,
                // `subf rD,rA,rB` is rB - rA.
                "subf" => AluOp::Sub,
                _ => return Err(unsupported()),
            };
            arity(ops, 3, &format!("{m} rD,rA,rB"))?;
            let (a, b) = (reg(&ops[1])?, reg(&ops[2])?);
            let (a, b) = if stem == "subf" { (b, a) } else { (a, b) };
            Ok(alu(
                op,
                reg(&ops[0])?,
                vec![Operand::Reg(a), Operand::Reg(b)],
                dot,
            ))
        }
    }
}

/// A 64-bit operation; `flags` when it sets CR0 by comparing its result with 0.
fn alu(op: AluOp, dst: Reg, args: Vec<Operand>, flags: bool) -> Op {
    Op::Alu {
        op,
        dst,
        args,
        width: 64,
        flags,
    }
}
