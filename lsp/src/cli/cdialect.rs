//! `litmus check` on herd's C tests (the Linux kernel's and C11, `docs/reference.md#c`): when
//! every file of the run is one, each is checked by the axiomatic engine under the model the
//! options name or the one found above the test ([`crate::ctest`]), printed as herd prints
//! it, followed by one line comparing the answer with the test's `Result:` header as the
//! kernel's `judgelitmus.sh` does. Exit status: 2 when a file does not parse or cannot be
//! checked (no model found among them), else 1 when some answer disagrees with its header,
//! else 0. A run that mixes them with other tests (or `--json`) checks them through
//! `crate::dialect::C` as one task of the run each, with the same text (`axiom.rs`).

use std::fmt::Write as _;

use litmus_engine::axiomatic::{check_c_jobs, CRun};

use super::args::CheckArgs;
use super::{err, exit, out};
use crate::ctest::{self, block, judge};

fn is_c(text: &str) -> bool {
    first_word(text) == "C"
}

/// The model options of `args`.
pub fn named(args: &CheckArgs) -> ctest::Named {
    ctest::Named {
        conf: args.conf.clone(),
        cat: args.cat.clone(),
        bell: args.bell.clone(),
        macros: args.macros.clone(),
        variant: args.variant.clone(),
    }
}

/// Checks the files when every one is a C test; `None` otherwise.
pub fn run(args: &CheckArgs) -> Option<i32> {
    // `--json`: the usual document, each model saying it cannot check these.
    if args.json {
        return None;
    }
    let texts = read_if_every(&args.files, is_c)?;
    // the model the options name, or per test the one found above it (read once per file)
    let models = ctest::Models::new(&named(args));
    if let Some(Err(e)) = models.named().map(|m| &**m) {
        err(&format!("litmus: {e}"));
        return Some(exit::BAD_INPUT);
    }
    // the files are checked one after another, each on every core (or `-j N` threads)
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let mut status = exit::OK;
    let (mut disagree, mut judged) = (0, 0);
    for (f, text) in args.files.iter().zip(&texts) {
        let path = f.display().to_string();
        let p = litmus_engine::syntax::parse(text);
        let index = litmus_engine::LineIndex::new(text);
        let (Some(test), Some(src)) = (&p.test, &p.c) else {
            for d in p.diagnostics.iter().filter(|d| d.is_error()) {
                let pos = index.line_col(d.span.start);
                err(&format!(
                    "{path}:{}:{}: error: {}",
                    pos.line, pos.col, d.message
                ));
            }
            status = exit::BAD_INPUT;
            continue;
        };
        let found = models.for_test(f, src.uses_c11());
        let m = match &*found {
            Ok(m) => m,
            Err(e) => {
                err(&format!("litmus: {e}"));
                status = exit::BAD_INPUT;
                continue;
            }
        };
        let prog = match litmus_engine::c::lower(src, &m.defs) {
            Ok(prog) => prog,
            Err(diags) => {
                for d in diags {
                    let pos = index.line_col(d.span.start);
                    err(&format!(
                        "{path}:{}:{}: error: {}",
                        pos.line, pos.col, d.message
                    ));
                }
                status = exit::BAD_INPUT;
                continue;
            }
        };
        let r = match check_c_jobs(
            test,
            src,
            &prog,
            &m.model,
            &m.variants,
            CRun {
                explore: args.speedcheck.explore(),
                jobs,
            },
            &|| false,
        ) {
            Ok(r) => r,
            Err(e) => {
                let at = e.span.map(|s| {
                    let pos = index.line_col(s.start);
                    format!("{}:{}: ", pos.line, pos.col)
                });
                err(&format!(
                    "litmus: {path}:{}cannot check: {e}",
                    at.unwrap_or_default()
                ));
                status = exit::BAD_INPUT;
                continue;
            }
        };
        let mut s = String::new();
        if args.files.len() > 1 {
            let _ = writeln!(s, "# {path}");
        }
        let _ = writeln!(s, "{path}: model {}", m.name);
        s += &block(test, text, &r);
        match src.expected.as_ref().map(|e| judge(e, &r)) {
            None => {
                let _ = writeln!(s, "{path}: no `Result:` header to compare with");
            }
            Some(Ok(line)) => {
                judged += 1;
                let _ = writeln!(s, "{path}: {line}");
            }
            Some(Err(line)) => {
                judged += 1;
                disagree += 1;
                let _ = writeln!(s, "{path}: {line}");
            }
        }
        s.push('\n');
        out(&s);
    }
    if disagree > 0 {
        out(&disagree_note(disagree, judged));
        if status == exit::OK {
            status = exit::VIOLATION;
        }
    }
    Some(status)
}

/// The closing line of a run where C tests disagree with their `Result:` header.
pub fn disagree_note(disagree: usize, judged: usize) -> String {
    let tests = if judged == 1 { "test" } else { "tests" };
    let verb = if disagree == 1 {
        "disagrees with its"
    } else {
        "disagree with their"
    };
    format!("litmus: {disagree} of {judged} C {tests} {verb} `Result:` header\n")
}

/// The texts of `files` when every one is a readable file (not standard input) that `is` says
/// is of its dialect; `None` otherwise (the run takes the usual path, which reports what it
/// cannot read).
fn read_if_every(files: &[std::path::PathBuf], is: fn(&str) -> bool) -> Option<Vec<String>> {
    let mut texts = Vec::new();
    for f in files {
        if f == std::path::Path::new("-") {
            return None;
        }
        let text = std::fs::read_to_string(f).ok()?;
        if !is(&text) {
            return None;
        }
        texts.push(text);
    }
    Some(texts)
}

/// The first word of a test's text: its dialect (`C`, `AArch64`, `RISCV`, `X86`, `litmus`).
fn first_word(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or("")
}
