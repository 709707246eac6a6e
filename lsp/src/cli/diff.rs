//! `litmus diff --cat A.cat --cat B.cat FILES...` (`docs/models.md#litmus-diff`): every
//! AArch64, RISC-V and x86 test checked under both models (`catmodel::diff`), the tests whose
//! verdicts differ printed as a table (or `--json`). Exit status: 0 when none differ, 1 when
//! some do, 2 when a model cannot be read or does not parse (its error with file:line:col) or
//! a test cannot be read, parsed or checked.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use crate::catmodel::diff::{self, Row, Verdict};
use crate::catmodel::load;

use super::{err, exit, out};

pub const EXAMPLES: &str = "\
Examples:
  litmus model aarch64 --write mine/ && $EDITOR mine/aarch64.cat
  litmus diff --cat mine/aarch64.cat.orig --cat mine/aarch64.cat tests/*.litmus
      the tests whose verdict the edit changed: test, before -> after, file
  litmus diff --json --cat a.cat --cat b.cat -I lib/ tests/*.litmus

Exit status: 0 no verdict differs, 1 some differ, 2 a model does not parse (file:line:col) or a
test cannot be read, parsed or checked (the others are still compared).";

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The two models, before then after (give `--cat` twice).
    #[arg(long = "cat", value_name = "FILE", required = true, num_args = 1)]
    pub cat: Vec<PathBuf>,
    /// A further folder for the models' `include`s (after the model's own folder; repeatable).
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// Print one JSON document.
    #[arg(long)]
    pub json: bool,
    /// Check N tests at a time (default: one per core).
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub jobs: Option<u32>,
    /// The tests: AArch64, RISC-V and x86 files (native tests are listed as skipped).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

#[derive(Serialize)]
struct Doc<'a> {
    version: u32,
    before: String,
    after: String,
    checked: usize,
    changed: Vec<Changed<'a>>,
    skipped: Vec<Skipped<'a>>,
    errors: Vec<Errored<'a>>,
}

#[derive(Serialize)]
struct Changed<'a> {
    file: &'a str,
    test: &'a str,
    before: &'static str,
    after: &'static str,
}

#[derive(Serialize)]
struct Skipped<'a> {
    file: &'a str,
    reason: &'a str,
}

#[derive(Serialize)]
struct Errored<'a> {
    file: &'a str,
    test: &'a str,
    model: &'static str,
    message: &'a str,
}

pub fn run(args: DiffArgs) -> i32 {
    if args.cat.len() != 2 {
        err(&format!(
            "litmus: diff takes exactly two models (--cat BEFORE --cat AFTER), got {}",
            args.cat.len()
        ));
        return exit::BAD_INPUT;
    }
    let mut models = Vec::new();
    for p in &args.cat {
        match load::load(p, &args.include) {
            Ok(m) => models.push(m),
            Err(e) => {
                err(&format!("litmus: cat model: {e}"));
                return exit::BAD_INPUT;
            }
        }
    }
    let files: Vec<(String, Result<String, String>)> = args
        .files
        .iter()
        .map(|f| {
            (
                f.display().to_string(),
                std::fs::read_to_string(f).map_err(|e| e.to_string()),
            )
        })
        .collect();
    let jobs = args.jobs.map_or_else(diff::cores, |j| j as usize);
    let rows = diff::compare(&files, &models[0], &models[1], jobs, &|| false);
    let mut doc = Doc {
        version: 1,
        before: args.cat[0].display().to_string(),
        after: args.cat[1].display().to_string(),
        checked: 0,
        changed: Vec::new(),
        skipped: Vec::new(),
        errors: Vec::new(),
    };
    for r in &rows {
        match r {
            Row::Checked {
                path,
                name,
                before,
                after,
            } => {
                doc.checked += 1;
                for (v, which) in [(before, "before"), (after, "after")] {
                    if let Verdict::Error(m) = v {
                        doc.errors.push(Errored {
                            file: path,
                            test: name,
                            model: which,
                            message: m,
                        });
                    }
                }
                if r.changed() {
                    doc.changed.push(Changed {
                        file: path,
                        test: name,
                        before: before.word(),
                        after: after.word(),
                    });
                }
            }
            Row::Skipped { path, why } => doc.skipped.push(Skipped {
                file: path,
                reason: why,
            }),
        }
    }
    // Unreadable or unparsable tests are errors; other dialects are only skipped.
    let bad = doc.errors.len()
        + doc
            .skipped
            .iter()
            .filter(|s| s.reason != diff::NOT_CHECKED)
            .count();
    if args.json {
        out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        ));
    } else {
        out(&table(&doc));
        for s in &doc.skipped {
            err(&format!("litmus: {}: skipped: {}", s.file, s.reason));
        }
        for e in &doc.errors {
            err(&format!(
                "litmus: {}: cannot check under the {} model: {}",
                e.file, e.model, e.message
            ));
        }
        err(&format!(
            "{} of {} tests differ ({} -> {})",
            doc.changed.len(),
            doc.checked,
            doc.before,
            doc.after
        ));
    }
    if bad > 0 {
        exit::BAD_INPUT
    } else if doc.changed.is_empty() {
        exit::OK
    } else {
        exit::VIOLATION
    }
}

/// The changed tests, one a line: test, before -> after, file (nothing when none changed).
fn table(doc: &Doc) -> String {
    if doc.changed.is_empty() {
        return String::new();
    }
    let w = doc
        .changed
        .iter()
        .map(|c| c.test.chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let mut s = format!("{:<w$}  {:<15}  file\n", "test", "before -> after");
    for c in &doc.changed {
        let verdicts = format!("{} -> {}", c.before, c.after);
        let _ = writeln!(s, "{:<w$}  {:<15}  {}", c.test, verdicts, c.file);
    }
    s
}
