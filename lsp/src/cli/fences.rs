//! `litmus fences`: the fewest fences that make TSO (PSO) give SC's verdicts, or make the
//! program robust ([`litmus_engine::fences`]). Prints a unified diff per file (stdout),
//! rewrites the files with `--write`, or prints one JSON document with `--json`; notes about
//! each file go to stderr.
//!
//! Exit status: 0 no file needs a fence, 1 fences were proposed (or written), 2 bad input or
//! options (nothing is searched), 3 some search was incomplete (timeout, Ctrl-C).

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use litmus_engine::fences::{synthesize, Goal, Synthesis};
use litmus_engine::{CheckOptions, LineIndex, Model};

use crate::json::fences as json;

use super::{args, diagnostics, exit, load, out, progress};

pub const EXAMPLES: &str = "\
Examples:
  litmus fences examples/dekker.litmus
      the fences Dekker needs under TSO, as a unified diff
  litmus fences --model pso --goal robust --write tests/litmus/mp.litmus
      make MP robust under PSO, rewriting the file
  litmus fences --json examples/sb.litmus
      the fence positions as JSON

Candidates are the places right after a statement containing a store from which the thread
can still reach an access the model may reorder with it (a load under TSO; a load or store
under PSO), inside if and while bodies too. The answer has the fewest fences; among equally
small answers, the first in candidate order (thread, then position). Every answer is proven
by checking the fenced program.

Exit status:
  0  no fence is needed
  1  fences were proposed (or written with --write)
  2  unreadable input, a syntax or name error, or bad options
  3  a search was incomplete (timeout, Ctrl-C)";

#[derive(Debug, Args)]
pub struct FencesArgs {
    /// Litmus files (`-` reads standard input; not with --write).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// The memory model to fence for.
    #[arg(long, value_enum, default_value_t = RelaxedModel::Tso)]
    pub model: RelaxedModel,

    /// `verdicts`: every assertion and the condition get their SC verdict; `robust`: every
    /// execution becomes equivalent to an SC one.
    #[arg(long, value_enum, default_value_t = GoalArg::Verdicts)]
    pub goal: GoalArg,

    /// Rewrite each file with its fences instead of printing a diff.
    #[arg(long, conflicts_with = "json")]
    pub write: bool,

    /// One JSON document with the fence positions.
    #[arg(long)]
    pub json: bool,

    /// The explorer that checks each candidate set (the default, `auto`, as for `check`: MCR
    /// has known gaps, so it is not the default here either).
    #[arg(long, value_enum, value_name = "ENGINE", default_value_t = args::Engine(litmus_engine::EngineChoice::Auto))]
    pub engine: args::Engine,

    /// How often a `while` loop may run its body in one execution.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub loop_bound: u32,

    /// Per check of a candidate set, in seconds; a check that times out makes the answer
    /// incomplete (exit 3).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RelaxedModel {
    Tso,
    Pso,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GoalArg {
    Verdicts,
    Robust,
}

/// Runs `litmus fences`; returns the exit status.
pub fn run(a: FencesArgs) -> i32 {
    let model = match a.model {
        RelaxedModel::Tso => Model::Tso,
        RelaxedModel::Pso => Model::Pso,
    };
    let goal = match a.goal {
        GoalArg::Verdicts => Goal::Verdicts,
        GoalArg::Robust => Goal::Robust,
    };
    let timeout = match a.timeout {
        None => None,
        Some(s) if s.is_finite() && (0.0..=args::MAX_TIMEOUT_SECS).contains(&s) => {
            Some(Duration::from_secs_f64(s))
        }
        Some(s) => {
            eprintln!("litmus: `{s}` is not a number of seconds from 0 to a year");
            return exit::BAD_INPUT;
        }
    };
    let opts = CheckOptions {
        engine: a.engine.kind(),
        loop_bound: a.loop_bound,
        timeout,
        ..CheckOptions::default()
    };
    if a.write && a.files.iter().any(|p| p.as_os_str() == "-") {
        eprintln!("litmus: --write cannot rewrite standard input");
        return exit::BAD_INPUT;
    }
    // The process's default memory budget, as `litmus check` without `--max-memory`.
    let ctl = progress::interruptible().with_memory_budget(crate::memory::budget(None, ""));
    let files: Vec<_> = a
        .files
        .iter()
        .map(|p| (p.clone(), load(p, &ctl, &opts)))
        .collect();
    let mut bad = false;
    for (_, f) in &files {
        if let Some(e) = &f.read_error {
            eprintln!("error: cannot read {}: {e}", f.path);
            bad = true;
        } else if let (Some(index), false) = (&f.index, f.diagnostics.is_empty()) {
            eprint!(
                "{}",
                diagnostics::render(&f.path, index, &f.diagnostics, false)
            );
            bad |= f.has_errors();
        }
    }
    if bad {
        eprintln!("litmus: input has errors; nothing was searched");
        return exit::BAD_INPUT;
    }
    let mut results = Vec::new();
    let mut status = exit::OK;
    for (path, f) in &files {
        let (Some(test), Some(index)) = (&f.test, &f.index) else {
            continue;
        };
        let text = index.text().to_owned();
        let s = match synthesize(&text, test, model, goal, &opts, &ctl) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("litmus: {}: {e}", f.path);
                return exit::BAD_INPUT;
            }
        };
        if !s.complete {
            status = exit::INCOMPLETE;
        } else if !s.fences.is_empty() && status == exit::OK {
            status = exit::VIOLATION;
        }
        let notes = notes(&f.path, index, &s);
        if !a.json {
            eprint!("{notes}");
        }
        if a.json {
            results.push(json::File::new(&f.path, index, &s));
        } else if a.write {
            if s.complete && !s.fences.is_empty() {
                if let Err(e) = std::fs::write(path, &s.text) {
                    eprintln!("litmus: cannot write {}: {e}", f.path);
                    return exit::BAD_INPUT;
                }
            }
        } else if s.complete && !s.fences.is_empty() {
            out(&diff(&f.path, &text, &s.text));
        }
    }
    if ctl.is_cancelled() || files.iter().any(|(_, f)| f.parse_stopped.is_some()) {
        status = exit::INCOMPLETE;
    }
    if a.json {
        let doc = serde_json::to_string_pretty(&json::Document::new(results))
            .expect("the fences document serialises (string keys)");
        out(&format!("{doc}\n"));
    }
    status
}

/// A unified diff of `old` to `new`, `a/` and `b/` headers as git prints them.
pub fn diff(path: &str, old: &str, new: &str) -> String {
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{path}"), &format!("b/{path}"))
        .to_string()
}

fn what(s: &Synthesis) -> String {
    match s.goal {
        Goal::Verdicts => format!("{} give SC's verdicts", s.model.label()),
        Goal::Robust => format!("the program robust under {}", s.model.label()),
    }
}

/// Lines for stderr: the answer, and the violations no fence can fix.
fn notes(path: &str, index: &LineIndex, s: &Synthesis) -> String {
    let mut o = String::new();
    let pos = |span: litmus_engine::Span| {
        let lc = index.line_col(span.start);
        format!("{path}:{}:{}", lc.line, lc.col)
    };
    if !s.complete {
        o += &format!("{path}: incomplete: a check stopped early; no answer is proven\n");
    } else if s.fences.is_empty() {
        let goal = match s.goal {
            Goal::Verdicts => format!("{} already gives SC's verdicts", s.model.label()),
            Goal::Robust => format!("the program is already robust under {}", s.model.label()),
        };
        o += &format!("{path}: no fence needed: {goal}\n");
    } else {
        let n = s.fences.len();
        o += &format!(
            "{path}: {n} fence{} make{} {} ({} candidate places, {} sets checked)\n",
            if n == 1 { "" } else { "s" },
            if n == 1 { "s" } else { "" },
            what(s),
            s.candidates,
            s.checks
        );
        for v in &s.fixed {
            o += &format!("  fixes: {} {}\n", pos(v.span), v.message);
        }
    }
    for v in &s.sc_violations {
        o += &format!(
            "  note: {} {} happens under SC too: fences cannot fix it\n",
            pos(v.span),
            v.message
        );
    }
    o
}
