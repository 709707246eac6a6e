//! herd's `AArch64` and `RISCV` dialects in the editor: which words of the code table are
//! mnemonics and registers (semantic tokens), and the one-line description of the mnemonic
//! under the cursor (hover). The test's code is not in the AST's thread bodies
//! (`docs/arm-riscv.md`), so this reads the text between the thread row and the condition.

use litmus_engine::asm::{self, Arch};
use litmus_engine::ast::Test;
use litmus_engine::Span;

fn arch(test: &Test) -> Option<Arch> {
    Arch::of_dialect(test.dialect)
}

/// Whether `off` is in the code table: after the thread row, before the condition.
fn in_code(test: &Test, off: u32) -> bool {
    let after_row = test.threads.last().is_some_and(|t| off >= t.span.end);
    let before_cond = test.condition.as_ref().is_none_or(|c| off < c.span.start);
    after_row && before_cond
}

/// The dotted word (`amoswap.w.aq.rl`, `B.EQ`) around byte `off`, and whether it starts an
/// instruction (after `|`, a label's `:` or the start of a line).
fn word_at(text: &str, off: usize) -> Option<(Span, bool)> {
    let b = text.as_bytes();
    let w = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'.';
    let mut s = off.min(b.len());
    while s > 0 && w(b[s - 1]) {
        s -= 1;
    }
    let mut e = off.min(b.len());
    while e < b.len() && w(b[e]) {
        e += 1;
    }
    if s == e {
        return None;
    }
    let before = text[..s].trim_end_matches([' ', '\t']);
    let starts = before.is_empty() || before.ends_with(['|', ':', '\n', ';']);
    Some((Span::new(s, e), starts))
}

/// The mnemonic under `off` and its description, for the hover.
pub fn hover(test: &Test, text: &str, off: u32) -> Option<(String, Span)> {
    let arch = arch(test)?;
    if !in_code(test, off) {
        return None;
    }
    let (span, starts) = word_at(text, off as usize)?;
    let word = text.get(span.range())?;
    let line = asm::describe(arch, word).filter(|_| starts)?;
    Some((format!("**{word}**: {line}"), span))
}
