//! Every JSON shape litmus prints or sends, as serde-derived adapter types: the one place engine
//! values become JSON, for the CLI and the language server alike. The field order of each type
//! is the key order of what it prints (`serde_json`'s `preserve_order` is on), so a shape is
//! read off its type.
//!
//! - [`report`]: `litmus check --json`, the version-2 document of `docs/reference.md#json`
//!   (reports, schedules and their steps, robustness, `--unbounded`), written one file at a time;
//! - [`axiom`]: an axiomatic model's result in that document (AArch64 and RISC-V tests, the axiomatic engine's
//!   report, `docs/arm-riscv.md`);
//! - [`axview`]: the language server's `litmus/axiomatic` reply (the execution behind an
//!   axiomatic answer), and [`axprogram`] the same for an x86 test's program check;
//! - [`fences`]: `litmus fences --json` (the fences found per file);
//! - [`trace`]: the language server's `litmus/trace` reply and `litmus.showSchedule` schedule
//!   (`docs/design/lsp.md#protocol-contract-from-the-integrator`), with every step's text
//!   rendered by `crate::steps`.
//!
//! CLI positions are 1-based lines and columns in characters ([`LineIndex`]); the server's are
//! LSP ranges, converted by the server before they get here.

pub mod axiom;
pub mod axprogram;
pub mod axsite;
pub mod axview;
pub mod fences;
pub mod report;
pub mod trace;

use litmus_engine::ast::Test;
use litmus_engine::{LineIndex, Span};
use serde::Serialize;

/// `line`, `col`, `end_line`, `end_col` of a span (1-based).
#[derive(Serialize)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
    pub end_line: u32,
    pub end_col: u32,
}

impl Pos {
    pub fn new(index: &LineIndex, span: Span) -> Pos {
        let (start, end) = index.span(span);
        Pos {
            line: start.line,
            col: start.col,
            end_line: end.line,
            end_col: end.col,
        }
    }
}

/// The name of thread `i` (`P0`), robust to an index the test does not have.
pub fn thread_name(test: &Test, i: usize) -> String {
    test.threads
        .get(i)
        .map(|t| t.name.text.clone())
        .unwrap_or_else(|| format!("T{i}"))
}

/// Milliseconds to three decimals (a non-finite time prints as 0).
fn round3(ms: f64) -> f64 {
    if ms.is_finite() {
        (ms * 1000.0).round() / 1000.0
    } else {
        0.0
    }
}
