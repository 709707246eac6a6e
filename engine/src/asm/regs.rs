//! Register names of both architectures: a property of the architecture, shared by the front
//! end (`crate::syntax::asm`) and the editor.

use super::{Arch, Reg, Width};

/// The register `written` names in `arch` (any case; `W3` and `X3` are one register, RISC-V
/// ABI names are their `xN`), if it is one.
pub fn register(arch: Arch, written: &str) -> Option<Reg> {
    match arch {
        Arch::AArch64 => aarch64(written).map(|(r, _)| r),
        Arch::RiscV => riscv(written),
        Arch::Ppc => ppc(written),
        Arch::Arm => arm(written),
    }
}

/// `(register, width)` of `W3`, `x3`, `WZR`, `SP` (any case).
pub fn aarch64(written: &str) -> Option<(Reg, Width)> {
    let up = written.to_ascii_uppercase();
    match up.as_str() {
        "XZR" => return Some((Reg::Zero, 64)),
        "WZR" => return Some((Reg::Zero, 32)),
        "SP" => return Some((Reg::Sp, 64)),
        "WSP" => return Some((Reg::Sp, 32)),
        _ => {}
    }
    let (width, digits) = match up.split_at_checked(1)? {
        ("X", d) => (64, d),
        ("W", d) => (32, d),
        _ => return None,
    };
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u8 = digits.parse().ok()?;
    (n <= 30).then_some((Reg::R(n), width))
}

/// The register `x7`, `a0`, `zero`, `sp` names (any case).
pub fn riscv(written: &str) -> Option<Reg> {
    let w = written.to_ascii_lowercase();
    let n: u8 = match w.as_str() {
        "zero" => 0,
        "ra" => 1,
        "sp" => 2,
        "gp" => 3,
        "tp" => 4,
        "fp" => 8,
        _ => {
            let (kind, digits) = w.split_at_checked(1)?;
            if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit())
            {
                return None;
            }
            let i: u8 = digits.parse().ok()?;
            match (kind, i) {
                ("x", 0..=31) => i,
                ("t", 0..=2) => 5 + i,
                ("t", 3..=6) => 25 + i,
                ("s", 0..=1) => 8 + i,
                ("s", 2..=11) => 16 + i,
                ("a", 0..=7) => 10 + i,
                _ => return None,
            }
        }
    };
    Some(if n == 0 { Reg::Zero } else { Reg::R(n) })
}

/// POWER's `r0`..`r31` (any case; herd's tests write `r3`).
pub fn ppc(written: &str) -> Option<Reg> {
    let digits = written.strip_prefix(['r', 'R'])?;
    numbered(digits, 31).map(Reg::R)
}

/// ARMv7's `R0`..`R14` (any case), `SP` (`R13`) and `LR` (`R14`).
pub fn arm(written: &str) -> Option<Reg> {
    match written.to_ascii_uppercase().as_str() {
        "SP" => Some(Reg::R(13)),
        "LR" => Some(Reg::R(14)),
        up => numbered(up.strip_prefix('R')?, 14).map(Reg::R),
    }
}

fn numbered(digits: &str, max: u8) -> Option<u8> {
    if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: u8 = digits.parse().ok()?;
    (n <= max).then_some(n)
}
