//! Two models' verdicts over a set of tests (mcompare7's job): each AArch64 or RISC-V test is
//! checked under both models by the axiomatic engine, each x86 test (`X86`, `X86_64`) through
//! the axiomatic program check (its lowered program, as `sc.cat` and `x86tso.cat` check it), on
//! `jobs` threads, and the rows come back in the order of the files. `litmus diff` prints them; the language server publishes the
//! changed ones when a model is saved: one function, so the two lists are the same.

use std::sync::atomic::{AtomicUsize, Ordering};

use litmus_engine::cat::Model;
use serde::Serialize;

/// herd's verdict of one test under one model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// herd's `Ok`: the `exists` state is reachable, the `~exists` state is not, the `forall`
    /// holds.
    Ok,
    /// herd's `No`.
    No,
    /// The test cannot be checked under this model (the message says why).
    Error(String),
}

impl Verdict {
    /// `Ok`, `No` or `error`.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Ok => "Ok",
            Verdict::No => "No",
            Verdict::Error(_) => "error",
        }
    }
}

/// One file of the comparison.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Row {
    Checked {
        path: String,
        /// The test's name (its first line's second word).
        name: String,
        before: Verdict,
        after: Verdict,
    },
    /// A native test (checked operationally only), or it does not parse or cannot be read.
    Skipped { path: String, why: String },
}

impl Row {
    /// Whether the two verdicts differ.
    pub fn changed(&self) -> bool {
        matches!(self, Row::Checked { before, after, .. } if before != after)
    }
}

/// Why a file is skipped when it is not a test the comparison checks.
pub const NOT_CHECKED: &str = "not an AArch64, RISC-V or x86 test";

fn x86_verdict(
    test: &litmus_engine::ast::Test,
    program: &Result<litmus_engine::ir::Program, String>,
    m: &Model,
    stop: &(dyn Fn() -> bool + Sync),
) -> Verdict {
    let program = match program {
        Ok(p) => p,
        Err(e) => return Verdict::Error(format!("cannot lower the test: {e}")),
    };
    match litmus_engine::axiomatic::check_program(test, program, m, stop) {
        Ok(r) => match r.condition {
            Some(c) if c.holds => Verdict::Ok,
            Some(_) => Verdict::No,
            None => Verdict::Error("the test has no final condition".into()),
        },
        Err(e) => Verdict::Error(e.to_string()),
    }
}

fn verdict(
    test: &litmus_engine::ast::Test,
    code: &litmus_engine::asm::Code,
    m: &Model,
    stop: &(dyn Fn() -> bool + Sync),
) -> Verdict {
    match litmus_engine::axiomatic::check(test, code, m, stop) {
        Ok(r) if r.ok => Verdict::Ok,
        Ok(_) => Verdict::No,
        Err(e) => Verdict::Error(e.to_string()),
    }
}

/// One file: `text` is its contents or why it could not be read.
pub fn row(
    path: &str,
    text: &Result<String, String>,
    before: &Model,
    after: &Model,
    stop: &(dyn Fn() -> bool + Sync),
) -> Row {
    let skipped = |why: String| Row::Skipped {
        path: path.to_string(),
        why,
    };
    let text = match text {
        Ok(t) => t,
        Err(e) => return skipped(format!("cannot read: {e}")),
    };
    let p = litmus_engine::syntax::parse(text);
    if let Some(test) = &p.test {
        use litmus_engine::ast::Dialect;
        match (test.dialect, &p.asm) {
            (Dialect::AArch64 | Dialect::RiscV, Some(_)) => {}
            (Dialect::X86 | Dialect::X86_64, _) => {
                let bound = litmus_engine::CheckOptions::default().loop_bound;
                let program = litmus_engine::ir::Program::lower(test, bound);
                return Row::Checked {
                    path: path.to_string(),
                    name: test.name.text.clone(),
                    before: x86_verdict(test, &program, before, stop),
                    after: x86_verdict(test, &program, after, stop),
                };
            }
            _ => return skipped(NOT_CHECKED.into()),
        }
    }
    let (Some(test), Some(code)) = (&p.test, &p.asm) else {
        let why =
            p.diagnostics
                .iter()
                .find(|d| d.is_error())
                .map_or("does not parse".to_string(), |d| {
                    let pos = litmus_engine::LineIndex::new(text).line_col(d.span.start);
                    format!("{}:{}: {}", pos.line, pos.col, d.message)
                });
        return skipped(why);
    };
    Row::Checked {
        path: path.to_string(),
        name: test.name.text.clone(),
        before: verdict(test, code, before, stop),
        after: verdict(test, code, after, stop),
    }
}

/// Every file under both models, on `jobs` threads; rows in the order of `files`.
pub fn compare(
    files: &[(String, Result<String, String>)],
    before: &Model,
    after: &Model,
    jobs: usize,
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<Row> {
    let next = AtomicUsize::new(0);
    let jobs = jobs.clamp(1, files.len().max(1));
    let mut rows: Vec<(usize, Row)> = std::thread::scope(|sc| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                sc.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some((path, text)) = files.get(i) else {
                            return mine;
                        };
                        mine.push((i, row(path, text, before, after, stop)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    rows.sort_by_key(|r| r.0);
    rows.into_iter().map(|r| r.1).collect()
}

/// The process's cores (the default for `jobs`).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
