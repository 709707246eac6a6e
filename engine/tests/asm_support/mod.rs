//! What the instruction lowering tests share: a one-thread test's instructions, its errors,
//! registers and a plain address.
#![allow(dead_code)]

use litmus_engine::asm::*;
use litmus_engine::syntax;

/// The instructions of thread P0 of a one-thread test with the given code lines.
pub fn ops(arch: &str, lines: &[&str]) -> Vec<Op> {
    let src = test_text(arch, lines);
    let p = syntax::parse(&src);
    assert!(p.test.is_some(), "{src}\n{:?}", p.diagnostics);
    let code = p.asm.expect("code");
    code.threads[0]
        .instrs
        .iter()
        .map(|i| i.op.clone())
        .collect()
}

pub fn test_text(arch: &str, lines: &[&str]) -> String {
    let init = if arch == "AArch64" {
        "0:X1=x; 0:X3=y;"
    } else {
        "0:x6=x; 0:x7=y;"
    };
    let mut s = format!("{arch} T\n{{ {init} }}\n P0 ;\n");
    for l in lines {
        s += &format!(" {l} ;\n");
    }
    s += "exists (x=0)\n";
    s
}

/// The error messages of a test, with the text each points at.
pub fn errors(arch: &str, lines: &[&str]) -> Vec<(String, String)> {
    let src = test_text(arch, lines);
    let p = syntax::parse(&src);
    assert!(p.test.is_none() && p.asm.is_none());
    p.diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| (src[d.span.range()].to_string(), d.message.clone()))
        .collect()
}

pub const X1: Reg = Reg::R(1);
pub const X2: Reg = Reg::R(2);
pub const X3: Reg = Reg::R(3);

pub fn plain(base: Reg) -> Address {
    Address {
        base,
        offset: Operand::Imm(0),
        writeback: Writeback::None,
    }
}
