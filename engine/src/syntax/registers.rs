//! Register names of every herd dialect as final states spell them: a leaf the expression
//! lowerer (conditions) and the dialects' lowerings (init blocks, instructions) both use, so
//! that neither reaches into the other.

use crate::asm::Arch;
use crate::ast::Dialect;

/// A register's name as it appears in final states (and as a condition or init block names
/// it): upper case in `X86` (`EAX`); in `X86_64` the lower-case 64-bit register a name is part
/// of (`%eax`, `%ax`, `%al` → `rax`); in AArch64 and RISC-V the architecture's key (`W3` →
/// `X3`, `a0` → `x10`, a name that is no register as written).
pub(crate) fn register_key(dialect: Dialect, written: &str) -> String {
    if let Some(arch) = arch_of_dialect(dialect) {
        return match crate::asm::register(arch, written) {
            Some(r) => r.key(arch),
            None => written.to_string(),
        };
    }
    // C: registers are the thread's variables, as written (`r0`).
    if dialect == Dialect::C {
        return written.to_string();
    }
    let w = written.trim_start_matches('%');
    if dialect != Dialect::X86_64 {
        return w.to_ascii_uppercase();
    }
    let lower = w.to_ascii_lowercase();
    reg64(&lower).map(|(n, _)| n).unwrap_or(lower)
}

/// `(64-bit name, width in bits)` of an x86-64 register name (lower case).
pub(super) fn reg64(r: &str) -> Option<(String, u32)> {
    const LEGACY: [(&str, &str, &str, &str, &str); 8] = [
        ("rax", "eax", "ax", "al", "ah"),
        ("rbx", "ebx", "bx", "bl", "bh"),
        ("rcx", "ecx", "cx", "cl", "ch"),
        ("rdx", "edx", "dx", "dl", "dh"),
        ("rsi", "esi", "si", "sil", ""),
        ("rdi", "edi", "di", "dil", ""),
        ("rbp", "ebp", "bp", "bpl", ""),
        ("rsp", "esp", "sp", "spl", ""),
    ];
    for (q, l, w, b, h) in LEGACY {
        let width = if r == q {
            64
        } else if r == l {
            32
        } else if r == w {
            16
        } else if r == b || (!h.is_empty() && r == h) {
            8
        } else {
            continue;
        };
        return Some((q.to_string(), width));
    }
    // r8 .. r15 and their r8d / r8w / r8b parts.
    let rest = r.strip_prefix('r')?;
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    let n: u32 = digits.parse().ok()?;
    if !(8..=15).contains(&n) {
        return None;
    }
    let width = match &rest[digits.len()..] {
        "" => 64,
        "d" => 32,
        "w" => 16,
        "b" => 8,
        _ => return None,
    };
    Some((format!("r{n}"), width))
}

/// The architecture of an assembly dialect; `None` for native and x86.
pub(crate) fn arch_of_dialect(d: Dialect) -> Option<Arch> {
    Arch::of_dialect(d)
}
