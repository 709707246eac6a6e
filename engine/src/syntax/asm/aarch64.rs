//! AArch64 instructions of the supported subset (`docs/arm-riscv.md#aarch64`) to [`Op`].

use super::operands::{arity, Error, Kind, Opnd};
use crate::asm::regs::aarch64 as register;
use crate::asm::{
    Address, AluOp, AmoOp, Barrier, BranchCond, Cond, DmbKind, Op, Operand, Ordering, Otherwise,
    Reg, Shift, Target, Width, Writeback,
};

fn reg(o: &Opnd) -> Result<(Reg, Width), Error> {
    o.name().and_then(register).ok_or_else(|| {
        o.err(format!(
            "expected a register (`W0`..`W30`, `X0`..`X30`, `WZR`, `XZR`, `SP`), found `{}`",
            o.text
        ))
    })
}

fn shift(o: &Opnd) -> Result<(Shift, u8), Error> {
    let (op, amount) = match &o.kind {
        Kind::Shift { op, amount } => (op.to_ascii_uppercase(), *amount),
        Kind::Name(n) => (n.to_ascii_uppercase(), Some(0)),
        _ => return Err(o.err(format!("expected a shift or extension, found `{}`", o.text))),
    };
    let s = match op.as_str() {
        "LSL" => Shift::Lsl,
        "LSR" => Shift::Lsr,
        "ASR" => Shift::Asr,
        "SXTW" => Shift::Sxtw,
        "UXTW" => Shift::Uxtw,
        _ => {
            return Err(o.err(format!(
                "unsupported shift or extension `{}`; supported: LSL, LSR, ASR, SXTW, UXTW",
                o.text
            )))
        }
    };
    match amount {
        Some(a @ 0..=63) => Ok((s, a as u8)),
        _ => Err(o.err("the shift amount is 0 to 63")),
    }
}

/// A register or `#imm` second operand, with an optional shift after it.
fn operand(o: &Opnd, shifted: Option<&Opnd>) -> Result<Operand, Error> {
    let base = match o.kind {
        Kind::Imm(_) => Operand::Imm(o.imm()?),
        _ => Operand::Reg(reg(o)?.0),
    };
    match (base, shifted) {
        (b, None) => Ok(b),
        (Operand::Reg(r), Some(s)) => {
            let (shift, amount) = shift(s)?;
            Ok(Operand::Shifted {
                reg: r,
                shift,
                amount,
            })
        }
        (Operand::Imm(v), Some(s)) => match shift(s)? {
            (Shift::Lsl, a) => Ok(Operand::Imm(v.wrapping_shl(a as u32))),
            _ => Err(s.err("an immediate can only be shifted by LSL")),
        },
        (b, Some(_)) => Ok(b),
    }
}

fn address(o: &Opnd, post: Option<&Opnd>) -> Result<Address, Error> {
    let Kind::ArmMem {
        base,
        offset,
        extend,
        writeback,
    } = &o.kind
    else {
        return Err(o.err(format!(
            "expected a memory operand `[Xn]`, found `{}`",
            o.text
        )));
    };
    let (b, _) = reg(base)?;
    let offset = match (offset, extend) {
        (None, _) => Operand::Imm(0),
        (Some(off), ext) => operand(off, ext.as_deref())?,
    };
    let writeback = match (post, writeback) {
        (Some(p), false) => Writeback::Post(p.imm()?),
        (Some(p), true) => return Err(p.err("pre- and post-index together")),
        (None, true) => Writeback::Pre,
        (None, false) => Writeback::None,
    };
    Ok(Address {
        base: b,
        offset,
        writeback,
    })
}

/// The access width a mnemonic's size letter gives (`B` 8, `H` 16), else the register's.
fn sized(suffix: &str, reg_width: Width) -> Width {
    match suffix {
        "B" | "SB" => 8,
        "H" | "SH" => 16,
        "SW" => 32,
        _ => reg_width,
    }
}

/// `A`, `L`, `AL` suffixes of `SWP`, `CAS`, `LDADD` (and sizes `B`/`H` after them).
fn atomic_suffix(rest: &str) -> Option<(Ordering, Option<Width>)> {
    let (ord, size) = match rest {
        "" | "B" | "H" => ("", rest),
        _ if rest.starts_with("AL") => ("AL", &rest[2..]),
        _ if rest.starts_with('A') => ("A", &rest[1..]),
        _ if rest.starts_with('L') => ("L", &rest[1..]),
        _ => return None,
    };
    let width = match size {
        "" => None,
        "B" => Some(8),
        "H" => Some(16),
        _ => return None,
    };
    let ordering = Ordering {
        acquire: ord.contains('A'),
        release: ord.contains('L'),
        acquire_pc: false,
    };
    Some((ordering, width))
}

pub(super) fn lower(mnemonic: &str, ops: &[Opnd]) -> Result<Op, Error> {
    let m = mnemonic.to_ascii_uppercase();
    if let Some(c) = m.strip_prefix("B.") {
        let cond = Cond::parse(c)
            .ok_or_else(|| Error::Mnemonic(format!("unknown condition `{c}` in `{mnemonic}`")))?;
        arity(ops, 1, "B.cond label")?;
        return Ok(Op::Branch {
            cond: BranchCond::Flags(cond),
            target: Target::Label(ops[0].label()?),
            link: false,
        });
    }
    let plain = Ordering::default();
    match m.as_str() {
        "LDR" | "LDUR" | "LDRB" | "LDRH" | "LDRSB" | "LDRSH" | "LDRSW" | "LDAR" | "LDARB"
        | "LDARH" | "LDAPR" | "LDXR" | "LDAXR" => {
            if !(2..=3).contains(&ops.len()) {
                return Err(Error::Cell(format!("expected `{m} Rt,[Xn]`")));
            }
            let (dst, w) = reg(&ops[0])?;
            let addr = address(&ops[1], ops.get(2))?;
            let suffix = m
                .trim_start_matches("LDAR")
                .trim_start_matches("LDR")
                .trim_start_matches("LDUR");
            let ord = Ordering {
                acquire: m.starts_with("LDAR") || m == "LDAXR",
                acquire_pc: m == "LDAPR",
                release: false,
            };
            Ok(Op::Load {
                dst,
                addr,
                width: sized(suffix, w),
                signed: m.starts_with("LDRS"),
                reg_width: w,
                ord,
                exclusive: m == "LDXR" || m == "LDAXR",
            })
        }
        "STR" | "STUR" | "STRB" | "STRH" | "STLR" | "STLRB" | "STLRH" => {
            if !(2..=3).contains(&ops.len()) {
                return Err(Error::Cell(format!("expected `{m} Rt,[Xn]`")));
            }
            let (src, w) = reg(&ops[0])?;
            let addr = address(&ops[1], ops.get(2))?;
            let suffix = m
                .trim_start_matches("STLR")
                .trim_start_matches("STR")
                .trim_start_matches("STUR");
            Ok(Op::Store {
                src,
                addr,
                width: sized(suffix, w),
                ord: Ordering {
                    release: m.starts_with("STLR"),
                    ..plain
                },
                status: None,
            })
        }
        "STXR" | "STLXR" => {
            arity(ops, 3, "STXR Ws,Rt,[Xn]")?;
            let (status, _) = reg(&ops[0])?;
            let (src, w) = reg(&ops[1])?;
            Ok(Op::Store {
                src,
                addr: address(&ops[2], None)?,
                width: w,
                ord: Ordering {
                    release: m == "STLXR",
                    ..plain
                },
                status: Some(status),
            })
        }
        "LDP" | "STP" => {
            if !(3..=4).contains(&ops.len()) {
                return Err(Error::Cell(format!("expected `{m} Rt1,Rt2,[Xn]`")));
            }
            let (a, w) = reg(&ops[0])?;
            let (b, _) = reg(&ops[1])?;
            Ok(Op::Pair {
                load: m == "LDP",
                regs: [a, b],
                addr: address(&ops[2], ops.get(3))?,
                width: w,
            })
        }
        "DMB" | "DSB" => {
            arity(ops, 1, "DMB SY")?;
            let opt = ops[0].name().unwrap_or("").to_ascii_uppercase();
            let kind = match opt.as_str() {
                "SY" | "ISH" | "OSH" | "NSH" => DmbKind::Full,
                "LD" | "ISHLD" | "OSHLD" | "NSHLD" => DmbKind::Ld,
                "ST" | "ISHST" | "OSHST" | "NSHST" => DmbKind::St,
                _ => return Err(ops[0].err(format!("unsupported barrier option `{}`; supported: SY, LD, ST and their ISH/OSH/NSH forms", ops[0].text))),
            };
            Ok(Op::Barrier(Barrier::Dmb {
                dsb: m == "DSB",
                kind,
            }))
        }
        "ISB" => {
            if ops.len() > 1
                || ops
                    .first()
                    .is_some_and(|o| !o.text.eq_ignore_ascii_case("SY"))
            {
                return Err(Error::Cell("expected `ISB`".to_string()));
            }
            Ok(Op::Barrier(Barrier::Isb))
        }
        "NOP" => {
            arity(ops, 0, "NOP")?;
            Ok(Op::Nop)
        }
        "MOV" | "MOVZ" | "MVN" | "NEG" | "ABS" | "SXTW" => {
            if !(2..=3).contains(&ops.len()) {
                return Err(Error::Cell(format!(
                    "expected `{m} Rd,Rn` or `{m} Rd,#imm`"
                )));
            }
            let (dst, w) = reg(&ops[0])?;
            Ok(Op::Alu {
                op: match m.as_str() {
                    "MVN" => AluOp::Not,
                    "NEG" => AluOp::Neg,
                    "ABS" => AluOp::Abs,
                    "SXTW" => AluOp::SignExtend32,
                    _ => AluOp::Mov,
                },
                dst,
                args: vec![operand(&ops[1], ops.get(2))?],
                width: w,
                flags: false,
            })
        }
        "MOVK" => {
            if !(2..=3).contains(&ops.len()) {
                return Err(Error::Cell("expected `MOVK Rd,#imm{,LSL #s}`".to_string()));
            }
            let (dst, w) = reg(&ops[0])?;
            let amount = match ops.get(2) {
                Some(s) => match shift(s)? {
                    (Shift::Lsl, a) => a,
                    _ => return Err(s.err("MOVK shifts by LSL")),
                },
                None => 0,
            };
            Ok(Op::Alu {
                op: AluOp::MovK,
                dst,
                args: vec![Operand::Imm(ops[1].imm()?), Operand::Imm(amount as i64)],
                width: w,
                flags: false,
            })
        }
        "MADD" | "MNEG" => {
            let n = if m == "MADD" { 4 } else { 3 };
            arity(
                ops,
                n,
                &format!("{m} Rd,Rn,Rm{}", if n == 4 { ",Ra" } else { "" }),
            )?;
            let (dst, w) = reg(&ops[0])?;
            let addend = match ops.get(3) {
                Some(o) => Operand::Reg(reg(o)?.0),
                None => Operand::Imm(0),
            };
            Ok(Op::Alu {
                op: AluOp::MulAdd {
                    negate: m == "MNEG",
                },
                dst,
                args: vec![
                    Operand::Reg(reg(&ops[1])?.0),
                    Operand::Reg(reg(&ops[2])?.0),
                    addend,
                ],
                width: w,
                flags: false,
            })
        }
        "ADD" | "ADDS" | "SUB" | "SUBS" | "AND" | "ANDS" | "ORR" | "EOR" | "MUL" | "LSL"
        | "LSR" | "ASR" | "BIC" | "BICS" | "ORN" | "EON" => {
            if !(3..=4).contains(&ops.len()) {
                return Err(Error::Cell(format!(
                    "expected `{m} Rd,Rn,Rm` or `{m} Rd,Rn,#imm`"
                )));
            }
            let (dst, w) = reg(&ops[0])?;
            let op = match m.trim_end_matches('S') {
                "ADD" => AluOp::Add,
                "SUB" => AluOp::Sub,
                "AND" => AluOp::And,
                "ORR" => AluOp::Or,
                "EOR" => AluOp::Xor,
                "MUL" => AluOp::Mul,
                "BIC" => AluOp::AndNot,
                "ORN" => AluOp::OrNot,
                "EON" => AluOp::XorNot,
                "LSL" => AluOp::Lsl,
                "LSR" => AluOp::Lsr,
                _ => AluOp::Asr,
            };
            let flags = matches!(m.as_str(), "ADDS" | "SUBS" | "ANDS" | "BICS");
            Ok(Op::Alu {
                op,
                dst,
                args: vec![Operand::Reg(reg(&ops[1])?.0), operand(&ops[2], ops.get(3))?],
                width: w,
                flags,
            })
        }
        "CMP" | "CMN" | "TST" => {
            if !(2..=3).contains(&ops.len()) {
                return Err(Error::Cell(format!(
                    "expected `{m} Rn,Rm` or `{m} Rn,#imm`"
                )));
            }
            let (a, w) = reg(&ops[0])?;
            Ok(Op::Alu {
                op: match m.as_str() {
                    "CMP" => AluOp::Sub,
                    "CMN" => AluOp::Add,
                    _ => AluOp::And,
                },
                dst: Reg::Zero,
                args: vec![Operand::Reg(a), operand(&ops[1], ops.get(2))?],
                width: w,
                flags: true,
            })
        }
        "SBFM" | "UBFM" => {
            arity(ops, 4, "UBFM Rd,Rn,#immr,#imms")?;
            let (dst, w) = reg(&ops[0])?;
            Ok(Op::Alu {
                op: AluOp::Bitfield {
                    signed: m == "SBFM",
                },
                dst,
                args: vec![
                    Operand::Reg(reg(&ops[1])?.0),
                    Operand::Imm(ops[2].imm()?),
                    Operand::Imm(ops[3].imm()?),
                ],
                width: w,
                flags: false,
            })
        }
        "CSEL" | "CSINC" | "CSINV" | "CSNEG" => {
            arity(ops, 4, "CSEL Rd,Rn,Rm,cond")?;
            Ok(Op::Select {
                dst: reg(&ops[0])?.0,
                width: reg(&ops[0])?.1,
                a: Operand::Reg(reg(&ops[1])?.0),
                b: Operand::Reg(reg(&ops[2])?.0),
                cond: cond(&ops[3])?,
                otherwise: match m.as_str() {
                    "CSINC" => Otherwise::Increment,
                    "CSINV" => Otherwise::Invert,
                    "CSNEG" => Otherwise::Negate,
                    _ => Otherwise::Value,
                },
            })
        }
        "CSET" | "CSETM" => {
            arity(ops, 2, "CSET Rd,cond")?;
            Ok(Op::Select {
                dst: reg(&ops[0])?.0,
                width: reg(&ops[0])?.1,
                a: Operand::Imm(if m == "CSET" { 1 } else { -1 }),
                b: Operand::Imm(0),
                cond: cond(&ops[1])?,
                otherwise: Otherwise::Value,
            })
        }
        "ADR" => {
            arity(ops, 2, "ADR Xd,label")?;
            Ok(Op::AddressOf {
                dst: reg(&ops[0])?.0,
                label: ops[1].label()?,
            })
        }
        "B" | "BL" => {
            arity(ops, 1, "B label")?;
            Ok(Op::Branch {
                cond: BranchCond::Always,
                target: Target::Label(ops[0].label()?),
                link: m == "BL",
            })
        }
        "BR" | "BLR" | "RET" => {
            let r = match (m.as_str(), ops) {
                ("RET", []) => Reg::R(30),
                (_, [o]) => reg(o)?.0,
                _ => return Err(Error::Cell(format!("expected `{m} Xn`"))),
            };
            Ok(Op::Branch {
                cond: BranchCond::Always,
                target: Target::Register(r),
                link: m == "BLR",
            })
        }
        "CBZ" | "CBNZ" => {
            arity(ops, 2, "CBZ Rt,label")?;
            Ok(Op::Branch {
                cond: BranchCond::Zero {
                    reg: reg(&ops[0])?.0,
                    zero: m == "CBZ",
                },
                target: Target::Label(ops[1].label()?),
                link: false,
            })
        }
        "TBZ" | "TBNZ" => {
            arity(ops, 3, "TBZ Rt,#bit,label")?;
            let bit = ops[1].imm()?;
            if !(0..64).contains(&bit) {
                return Err(ops[1].err("the bit number is 0 to 63"));
            }
            Ok(Op::Branch {
                cond: BranchCond::Bit {
                    reg: reg(&ops[0])?.0,
                    bit: bit as u8,
                    zero: m == "TBZ",
                },
                target: Target::Label(ops[2].label()?),
                link: false,
            })
        }
        _ => rmw(&m, mnemonic, ops),
    }
}

fn cond(o: &Opnd) -> Result<Cond, Error> {
    o.name().and_then(Cond::parse).ok_or_else(|| {
        o.err(format!(
            "expected a condition (`EQ`, `NE`, `LT`, ...), found `{}`",
            o.text
        ))
    })
}

/// `SWP`, `LD<op>`, `ST<op>`, `CAS`, `CASP` with their `A`/`L`/`AL` and `B`/`H` suffixes.
fn rmw(m: &str, written: &str, ops: &[Opnd]) -> Result<Op, Error> {
    let unsupported = || {
        Error::Mnemonic(format!(
            "`{written}` is outside the supported AArch64 subset (docs/arm-riscv.md lists it)"
        ))
    };
    if let Some(rest) = m.strip_prefix("CASP") {
        let (ord, _) = atomic_suffix(rest).ok_or_else(unsupported)?;
        arity(ops, 5, "CASP Ws,Ws+1,Wt,Wt+1,[Xn]")?;
        let (expected, w) = reg(&ops[0])?;
        reg(&ops[1])?;
        let (new, _) = reg(&ops[2])?;
        reg(&ops[3])?;
        return Ok(Op::Cas {
            expected,
            new,
            addr: address(&ops[4], None)?,
            width: w,
            ord,
            pair: true,
        });
    }
    if let Some(rest) = m.strip_prefix("CAS") {
        let (ord, size) = atomic_suffix(rest).ok_or_else(unsupported)?;
        arity(ops, 3, "CAS Ws,Wt,[Xn]")?;
        let (expected, w) = reg(&ops[0])?;
        let (new, _) = reg(&ops[1])?;
        return Ok(Op::Cas {
            expected,
            new,
            addr: address(&ops[2], None)?,
            width: size.unwrap_or(w),
            ord,
            pair: false,
        });
    }
    const OPS: [(&str, AmoOp); 5] = [
        ("ADD", AmoOp::Add),
        ("CLR", AmoOp::Clear),
        ("SET", AmoOp::Or),
        ("EOR", AmoOp::Xor),
        ("SMAX", AmoOp::Max),
    ];
    let (op, rest, store_only) = if let Some(rest) = m.strip_prefix("SWP") {
        (AmoOp::Swap, rest, false)
    } else {
        let (prefix, body) = if let Some(b) = m.strip_prefix("LD") {
            (false, b)
        } else if let Some(b) = m.strip_prefix("ST") {
            (true, b)
        } else {
            return Err(unsupported());
        };
        let (op, rest) = OPS
            .iter()
            .find_map(|(name, op)| body.strip_prefix(name).map(|r| (*op, r)))
            .ok_or_else(unsupported)?;
        (op, rest, prefix)
    };
    let (ord, size) = atomic_suffix(rest).ok_or_else(unsupported)?;
    if store_only {
        // `STADD Ws,[Xn]`: `LDADD Ws,XZR,[Xn]`; no acquire form.
        if ord.acquire {
            return Err(unsupported());
        }
        arity(ops, 2, "STADD Ws,[Xn]")?;
        let (src, w) = reg(&ops[0])?;
        return Ok(Op::Amo {
            op,
            dst: None,
            src,
            addr: address(&ops[1], None)?,
            width: size.unwrap_or(w),
            ord,
        });
    }
    arity(ops, 3, "SWP Ws,Wt,[Xn]")?;
    let (src, w) = reg(&ops[0])?;
    let (dst, _) = reg(&ops[1])?;
    Ok(Op::Amo {
        op,
        dst: (dst != Reg::Zero).then_some(dst),
        src,
        addr: address(&ops[2], None)?,
        width: size.unwrap_or(w),
        ord,
    })
}
