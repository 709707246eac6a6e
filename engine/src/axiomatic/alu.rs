//! The values the arithmetic, atomic and conditional instructions compute (AArch64 and
//! RISC-V semantics on 64-bit values), and the AArch64 condition flags.

use crate::asm::{AluOp, AmoOp, Cond};

pub fn amo(op: AmoOp, old: i64, v: i64) -> i64 {
    match op {
        AmoOp::Swap => v,
        AmoOp::Add => old.wrapping_add(v),
        AmoOp::And => old & v,
        AmoOp::Or => old | v,
        AmoOp::Xor => old ^ v,
        AmoOp::Clear => old & !v,
        AmoOp::Max => old.max(v),
        AmoOp::Min => old.min(v),
        AmoOp::MaxU => (old as u64).max(v as u64) as i64,
        AmoOp::MinU => (old as u64).min(v as u64) as i64,
    }
}

/// `op` on `a`, `b`, `c` (and the destination's old value, for `MOVK`) at `bits` (32 or
/// 64): shifts and bitfield moves act on the low `bits` bits (the caller masks the result).
pub fn alu(op: AluOp, bits: u32, dst: i64, a: i64, b: i64, c: i64) -> i64 {
    let w = |x: i64| if bits == 32 { x as u32 as i64 } else { x };
    let sw = |x: i64| if bits == 32 { x as i32 as i64 } else { x };
    let amount = |x: i64| (x & (bits as i64 - 1)) as u32;
    match op {
        AluOp::Mov => a,
        AluOp::MovK => {
            let s = (b & 63) as u32;
            (dst & !(0xffff << s)) | ((a & 0xffff) << s)
        }
        AluOp::Not => !a,
        AluOp::Neg => a.wrapping_neg(),
        AluOp::Abs => sw(a).wrapping_abs(),
        AluOp::AndNot => a & !b,
        AluOp::OrNot => a | !b,
        AluOp::XorNot => a ^ !b,
        AluOp::MulAdd { negate } => {
            let m = a.wrapping_mul(b);
            if negate {
                m.wrapping_neg()
            } else {
                m.wrapping_add(c)
            }
        }
        AluOp::Add => a.wrapping_add(b),
        AluOp::Sub => a.wrapping_sub(b),
        AluOp::And => a & b,
        AluOp::Or => a | b,
        AluOp::Xor => a ^ b,
        AluOp::Mul => a.wrapping_mul(b),
        AluOp::Lsl => a.wrapping_shl(amount(b)),
        AluOp::Lsr => ((w(a) as u64).wrapping_shr(amount(b))) as i64,
        AluOp::Asr => sw(a).wrapping_shr(amount(b)),
        AluOp::SignExtend32 => a as i32 as i64,
        AluOp::Bitfield { signed } => {
            // UBFM/SBFM Rd, Rn, #immr, #imms at `bits`: a field of Rn moved to bit 0 (imms >=
            // immr) or from bit 0 to bit bits-immr; SBFM sign-extends it.
            let (immr, imms) = (amount(b), amount(c));
            let a = w(a) as u64;
            let ones = |len: u32| {
                if len >= 64 {
                    u64::MAX
                } else {
                    (1u64 << len) - 1
                }
            };
            let (f, len, at) = if imms >= immr {
                (a >> immr & ones(imms - immr + 1), imms - immr + 1, 0)
            } else {
                (a & ones(imms + 1), imms + 1, bits - immr)
            };
            let f = if signed && len < 64 && f >> (len - 1) & 1 == 1 {
                f | !ones(len)
            } else {
                f
            };
            (f << at) as i64
        }
    }
}

/// N, Z, C, V (bits 3..0) after `op` computed `v` from `a` and `b`.
pub fn nzcv(op: AluOp, width: u8, a: i64, b: i64, v: i64) -> u8 {
    let bits = width as u32;
    let sign = |x: i64| (x >> (bits - 1)) & 1 == 1;
    let m = |x: i64| {
        if bits == 64 {
            x as u64
        } else {
            (x as u64) & ((1u64 << bits) - 1)
        }
    };
    let n = sign(v) as u8;
    let z = (m(v) == 0) as u8;
    let (c, ov) = match op {
        AluOp::Sub => (
            (m(a) >= m(b)) as u8,
            (sign(a) != sign(b) && sign(v) != sign(a)) as u8,
        ),
        AluOp::Add => (
            (m(a)
                .checked_add(m(b))
                .is_none_or(|s| bits < 64 && s >> bits != 0)) as u8,
            (sign(a) == sign(b) && sign(v) != sign(a)) as u8,
        ),
        _ => (0, 0),
    };
    n << 3 | z << 2 | c << 1 | ov
}

pub fn holds(c: Cond, f: u8) -> bool {
    let (n, z, cf, v) = (
        f >> 3 & 1 == 1,
        f >> 2 & 1 == 1,
        f >> 1 & 1 == 1,
        f & 1 == 1,
    );
    match c {
        Cond::Eq => z,
        Cond::Ne => !z,
        Cond::Cs => cf,
        Cond::Cc => !cf,
        Cond::Mi => n,
        Cond::Pl => !n,
        Cond::Vs => v,
        Cond::Vc => !v,
        Cond::Hi => cf && !z,
        Cond::Ls => !cf || z,
        Cond::Ge => n == v,
        Cond::Lt => n != v,
        Cond::Gt => !z && n == v,
        Cond::Le => z || n != v,
        Cond::Al => true,
    }
}
