//! RISC-V instructions of the supported subset (`docs/arm-riscv.md#risc-v`) to [`Op`].

use super::operands::{arity, Error, Kind, Opnd};
use crate::asm::regs::riscv as register;
use crate::asm::{
    Accesses, Address, AluOp, AmoOp, Barrier, BranchCond, CompareOp, Op, Operand, Ordering, Reg,
    Target, Width, Writeback,
};

fn reg(o: &Opnd) -> Result<Reg, Error> {
    o.name().and_then(register).ok_or_else(|| {
        o.err(format!(
            "expected a register (`x0`..`x31` or an ABI name such as `a0`), found `{}`",
            o.text
        ))
    })
}

fn address(o: &Opnd) -> Result<Address, Error> {
    match &o.kind {
        Kind::RvMem { offset, base } => Ok(Address {
            base: reg(base)?,
            offset: Operand::Imm(offset.ok_or_else(|| o.err("offset out of range"))?),
            writeback: Writeback::None,
        }),
        _ => Err(o.err(format!(
            "expected a memory operand `0(xN)`, found `{}`",
            o.text
        ))),
    }
}

/// `.aq`, `.rl`, `.aq.rl` after a mnemonic's base (and width).
fn ordering(parts: &[&str]) -> Option<Ordering> {
    let mut o = Ordering::default();
    for p in parts {
        match *p {
            "aq" if !o.acquire => o.acquire = true,
            "rl" if !o.release => o.release = true,
            _ => return None,
        }
    }
    Some(o)
}

fn fence_set(o: &Opnd) -> Result<Accesses, Error> {
    let text = o.name().unwrap_or("").to_ascii_lowercase();
    let mut a = Accesses::default();
    for c in text.chars() {
        let slot = match c {
            'r' => &mut a.r,
            'w' => &mut a.w,
            'i' => &mut a.i,
            'o' => &mut a.o,
            _ => {
                return Err(o.err(format!(
                    "expected a fence set (`r`, `w`, `rw`, `iorw`), found `{}`",
                    o.text
                )))
            }
        };
        *slot = true;
    }
    if text.is_empty() {
        return Err(o.err(format!(
            "expected a fence set (`r`, `w`, `rw`, `iorw`), found `{}`",
            o.text
        )));
    }
    Ok(a)
}

pub(super) fn lower(mnemonic: &str, ops: &[Opnd]) -> Result<Op, Error> {
    let m = mnemonic.to_ascii_lowercase();
    let parts: Vec<&str> = m.split('.').collect();
    let unsupported = || {
        Error::Mnemonic(format!(
            "`{mnemonic}` is outside the supported RISC-V subset (docs/arm-riscv.md lists it)"
        ))
    };
    let base = parts[0];
    // Loads and stores: `lw`, `lw.aq`, `sw.rl`, `ld`, `lbu`, ...
    let load: Option<(Width, bool)> = match base {
        "lb" => Some((8, true)),
        "lbu" => Some((8, false)),
        "lh" => Some((16, true)),
        "lhu" => Some((16, false)),
        "lw" => Some((32, true)),
        "lwu" => Some((32, false)),
        "ld" => Some((64, true)),
        _ => None,
    };
    if let Some((width, signed)) = load {
        let ord = ordering(&parts[1..]).ok_or_else(unsupported)?;
        arity(ops, 2, "lw rd,0(rs)")?;
        return Ok(Op::Load {
            dst: reg(&ops[0])?,
            addr: address(&ops[1])?,
            width,
            signed,
            reg_width: 64,
            ord,
            exclusive: false,
        });
    }
    let store: Option<Width> = match base {
        "sb" => Some(8),
        "sh" => Some(16),
        "sw" => Some(32),
        "sd" => Some(64),
        _ => None,
    };
    if let Some(width) = store {
        let ord = ordering(&parts[1..]).ok_or_else(unsupported)?;
        arity(ops, 2, "sw rs,0(rd)")?;
        return Ok(Op::Store {
            src: reg(&ops[0])?,
            addr: address(&ops[1])?,
            width,
            ord,
            status: None,
        });
    }
    // `lr.w`, `sc.d.aq.rl`, `amoswap.w.aq`: width, then ordering.
    let amo = match base {
        "amoswap" => Some(AmoOp::Swap),
        "amoadd" => Some(AmoOp::Add),
        "amoand" => Some(AmoOp::And),
        "amoor" => Some(AmoOp::Or),
        "amoxor" => Some(AmoOp::Xor),
        "amomax" => Some(AmoOp::Max),
        "amomin" => Some(AmoOp::Min),
        "amomaxu" => Some(AmoOp::MaxU),
        "amominu" => Some(AmoOp::MinU),
        _ => None,
    };
    if amo.is_some() || base == "lr" || base == "sc" {
        let width = match parts.get(1) {
            Some(&"w") => 32,
            Some(&"d") => 64,
            _ => return Err(unsupported()),
        };
        let ord = ordering(&parts[2..]).ok_or_else(unsupported)?;
        return Ok(match (base, amo) {
            ("lr", _) => {
                arity(ops, 2, "lr.w rd,0(rs)")?;
                Op::Load {
                    dst: reg(&ops[0])?,
                    addr: address(&ops[1])?,
                    width,
                    signed: true,
                    reg_width: 64,
                    ord,
                    exclusive: true,
                }
            }
            ("sc", _) => {
                arity(ops, 3, "sc.w rd,rs2,0(rs1)")?;
                Op::Store {
                    status: Some(reg(&ops[0])?),
                    src: reg(&ops[1])?,
                    addr: address(&ops[2])?,
                    width,
                    ord,
                }
            }
            (_, Some(op)) => {
                arity(ops, 3, "amoswap.w rd,rs2,(rs1)")?;
                let dst = reg(&ops[0])?;
                Op::Amo {
                    op,
                    dst: (dst != Reg::Zero).then_some(dst),
                    src: reg(&ops[1])?,
                    addr: address(&ops[2])?,
                    width,
                    ord,
                }
            }
            _ => return Err(unsupported()),
        });
    }
    match m.as_str() {
        "fence" => {
            let (pred, succ) = match ops {
                [] => {
                    let all = Accesses {
                        r: true,
                        w: true,
                        i: true,
                        o: true,
                    };
                    (all, all)
                }
                [p, s] => (fence_set(p)?, fence_set(s)?),
                _ => {
                    return Err(Error::Cell(
                        "expected `fence pred,succ` (`fence rw,rw`)".to_string(),
                    ))
                }
            };
            Ok(Op::Barrier(Barrier::Fence { pred, succ }))
        }
        "fence.tso" | "fence.i" => {
            arity(ops, 0, &m)?;
            Ok(Op::Barrier(if m == "fence.i" {
                Barrier::FenceI
            } else {
                Barrier::FenceTso
            }))
        }
        "nop" => {
            arity(ops, 0, "nop")?;
            Ok(Op::Nop)
        }
        "add" | "addw" | "sub" | "subw" | "and" | "or" | "xor" | "sll" | "srl" | "sra" | "mul"
        | "addi" | "addiw" | "andi" | "ori" | "xori" | "slli" | "srli" | "srai" => {
            arity(ops, 3, &format!("{m} rd,rs1,rs2"))?;
            let imm = matches!(
                m.as_str(),
                "addi" | "addiw" | "andi" | "ori" | "xori" | "slli" | "srli" | "srai"
            );
            let second = if imm {
                Operand::Imm(ops[2].imm()?)
            } else {
                Operand::Reg(reg(&ops[2])?)
            };
            let op = match m.trim_end_matches('w').trim_end_matches('i') {
                "add" => AluOp::Add,
                "sub" => AluOp::Sub,
                "and" => AluOp::And,
                "or" => AluOp::Or,
                "xor" => AluOp::Xor,
                "sll" => AluOp::Lsl,
                "srl" => AluOp::Lsr,
                "sra" => AluOp::Asr,
                _ => AluOp::Mul,
            };
            Ok(Op::Alu {
                op,
                dst: reg(&ops[0])?,
                args: vec![Operand::Reg(reg(&ops[1])?), second],
                width: if m.ends_with('w') { 32 } else { 64 },
                flags: false,
            })
        }
        "li" | "lui" => {
            arity(ops, 2, &format!("{m} rd,imm"))?;
            let v = ops[1].imm()?;
            Ok(Op::Alu {
                op: AluOp::Mov,
                dst: reg(&ops[0])?,
                args: vec![Operand::Imm(if m == "lui" {
                    v.wrapping_shl(12)
                } else {
                    v
                })],
                width: 64,
                flags: false,
            })
        }
        "mv" | "sext.w" => {
            arity(ops, 2, &format!("{m} rd,rs"))?;
            Ok(Op::Alu {
                op: if m == "mv" {
                    AluOp::Mov
                } else {
                    AluOp::SignExtend32
                },
                dst: reg(&ops[0])?,
                args: vec![Operand::Reg(reg(&ops[1])?)],
                width: 64,
                flags: false,
            })
        }
        "beq" | "bne" | "blt" | "bge" | "bltu" | "bgeu" => {
            arity(ops, 3, &format!("{m} rs1,rs2,label"))?;
            let op = match m.as_str() {
                "beq" => CompareOp::Eq,
                "bne" => CompareOp::Ne,
                "blt" => CompareOp::Lt,
                "bge" => CompareOp::Ge,
                "bltu" => CompareOp::LtU,
                _ => CompareOp::GeU,
            };
            Ok(Op::Branch {
                cond: BranchCond::Compare {
                    op,
                    a: reg(&ops[0])?,
                    b: reg(&ops[1])?,
                },
                target: Target::Label(ops[2].label()?),
                link: false,
            })
        }
        "beqz" | "bnez" => {
            arity(ops, 2, &format!("{m} rs,label"))?;
            Ok(Op::Branch {
                cond: BranchCond::Compare {
                    op: if m == "beqz" {
                        CompareOp::Eq
                    } else {
                        CompareOp::Ne
                    },
                    a: reg(&ops[0])?,
                    b: Reg::Zero,
                },
                target: Target::Label(ops[1].label()?),
                link: false,
            })
        }
        "j" => {
            arity(ops, 1, "j label")?;
            Ok(Op::Branch {
                cond: BranchCond::Always,
                target: Target::Label(ops[0].label()?),
                link: false,
            })
        }
        _ => Err(unsupported()),
    }
}
