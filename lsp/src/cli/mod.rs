//! `litmus check` (`docs/reference.md#check`): read and parse every file, render diagnostics, check each clean
//! test under each selected model of its dialect (`crate::dialect`: native and x86 tests
//! operationally, AArch64 and RISC-V axiomatically, any mix in one run), and print herd7-style
//! text or the version-2 JSON document.
//!
//! Code map:
//! - `args.rs`: the command line (clap derive);
//! - `mod.rs` (this file): the run's set-up (`--shard K/N`), loading one file, checking one
//!   model of it, a file's text, and the exit status;
//! - `stream.rs`: the run streamed on the process's job core (`crate::jobs`): up to `-j N`
//!   workers load and check, the main thread's one loop prints files in argument order and
//!   drops them;
//! - `diagnostics.rs`: compiler-style diagnostics (codespan-reporting);
//! - `text.rs`: herd's block, schedules, witness, warnings, stats, `--quiet` summaries;
//! - `cond.rs`: the condition's observed variables, projected states, condition printing;
//! - JSON: the crate's `json` module (`json::report`, `json::fences`), shared with the server;
//! - `cdialect.rs`: a run of herd's C tests only, checked by the axiomatic engine under the
//!   model of `crate::ctest` (`--conf`, `--cat`/`--bell`/`--macros`, or `linux-kernel.cfg` found
//!   above the test), herd's block and the answer against the test's `Result:` header (in any
//!   other run a C file is checked by `dialect::C`, one task of the run, with the same text);
//! - `axiom.rs`: an axiomatic model of a file (AArch64, RISC-V, POWER, ARMv7), checked by the
//!   axiomatic engine against a cat model as one task of the run;
//! - `diff.rs`: `litmus diff`, two cat models' verdicts compared (`crate::catmodel`);
//! - `model.rs`: `litmus model`, the built-in cat models listed, printed, written out;
//! - `merge.rs`: `litmus merge`, the shards' JSON documents combined into the unsharded one;
//! - `progress.rs`: Ctrl-C and the progress line.
//!
//! Invariants: stdout carries only results (text blocks or exactly one JSON document);
//! diagnostics, warnings about the run and progress go to stderr. A file that is unreadable or
//! has an error diagnostic is not checked, every other file is, and the exit status is 2.
//! Otherwise it is 1 if any model of any file has a violation, else 3 if any exploration was
//! incomplete, else 0.

pub mod args;
mod axiom;
mod cdialect;
mod cond;
mod diagnostics;
pub mod diff;
pub mod fences;
pub mod merge;
pub mod model;
mod progress;
mod sdg;
mod stream;
mod text;
mod unbounded;

use std::io::{IsTerminal, Read, Write};
use std::path::Path;

use litmus_engine::ast::Test;

use crate::dialect;
use crate::json::report as json;
use litmus_engine::{Diagnostic, LineIndex, ModelReport};

use args::{CheckArgs, ColorWhen};
use progress::ProgressLine;

/// Exit statuses (`docs/reference.md#exit-status`).
pub mod exit {
    pub const OK: i32 = 0;
    pub const VIOLATION: i32 = 1;
    pub const BAD_INPUT: i32 = 2;
    pub const INCOMPLETE: i32 = 3;
    /// stdout was closed before everything was written (128 + SIGPIPE, as a shell shows a
    /// tool killed by the signal).
    pub const CLOSED_PIPE: i32 = 141;
}

/// Everything known about one input file.
pub struct FileRun {
    /// The path as given on the command line (`<stdin>` for `-`).
    pub path: String,
    /// Why the file could not be read.
    pub read_error: Option<String>,
    /// The file's text (None when unreadable): the JSON steps' sentences quote it.
    pub text: Option<String>,
    /// Index of the file's text (None when unreadable).
    pub index: Option<LineIndex>,
    /// The test, when the file has no error diagnostic.
    pub test: Option<Test>,
    pub diagnostics: Vec<Diagnostic>,
    /// herd's `locations [...]` as state keys (x86 dialects).
    pub locations: Vec<String>,
    /// How long reading and parsing took: it counts against the first model's `--timeout`.
    pub parse_time: std::time::Duration,
    /// Why parsing stopped before the end (`--timeout`, Ctrl-C, `--max-memory`): the file is
    /// then not checked, a warning says so, and the run is incomplete.
    pub parse_stopped: Option<litmus_engine::StopReason>,
    /// The code of an AArch64 or RISC-V test (the axiomatic dialects).
    pub asm: Option<litmus_engine::asm::Code>,
    /// The source of a C test (checked under the model of `crate::ctest`).
    pub c: Option<litmus_engine::c::Source>,
    /// The models the file is checked under, in order (`Run::plan`).
    pub plan: Vec<Check>,
}

/// One model a file is checked under: an operational model, or the axiomatic model of its
/// dialect (`crate::dialect`).
#[derive(Clone, Copy)]
pub enum Check {
    Op(litmus_engine::Model),
    Ax(&'static dialect::AxModel),
}

impl FileRun {
    /// What the JSON document says of the file besides its results.
    fn json_input(&self) -> json::Input<'_> {
        json::Input {
            path: &self.path,
            read_error: self.read_error.as_deref(),
            text: self.text.as_deref(),
            index: self.index.as_ref(),
            test: self.test.as_ref(),
            diagnostics: &self.diagnostics,
        }
    }

    fn has_errors(&self) -> bool {
        self.read_error.is_some() || self.diagnostics.iter().any(|d| d.is_error())
    }
}

fn read_input(path: &Path) -> Result<String, String> {
    let bytes = if path == Path::new("-") {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf).map(|_| buf)
    } else {
        std::fs::read(path)
    }
    .map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Reads and parses one file (on the worker that will check it). Parsing stops early at the
/// first model's deadline (`--timeout` counts from the start of the file's work) or on Ctrl-C.
/// A stopped parse's many small allocations stay in the worker's malloc arena, so the main
/// thread, which only prints, never sorts through them (they cost 0.05-0.3 s on a huge file
/// when parsing ran on the main thread).
fn load(path: &Path, ctl: &litmus_engine::Control, opts: &litmus_engine::CheckOptions) -> FileRun {
    let start = std::time::Instant::now();
    let ctl = ctl.for_check(opts);
    let mut f = load_file(path, &ctl);
    f.parse_time = start.elapsed();
    f
}

fn load_file(path: &Path, ctl: &litmus_engine::Control) -> FileRun {
    let shown = if path == Path::new("-") {
        "<stdin>".to_owned()
    } else {
        path.display().to_string()
    };
    match read_input(path) {
        Err(e) => FileRun {
            path: shown,
            read_error: Some(e),
            text: None,
            index: None,
            test: None,
            diagnostics: vec![],
            locations: vec![],
            parse_time: Default::default(),
            parse_stopped: None,
            asm: None,
            c: None,
            plan: vec![],
        },
        Ok(text) => {
            // Before parsing: after a stopped parse, a large allocation here would wait for
            // the allocator to sort through the parse's freed memory.
            let index = LineIndex::new(&text);
            let Some(parsed) =
                litmus_engine::syntax::parse_with(&text, None, &|| ctl.should_stop())
            else {
                let reason = ctl.stop_reason();
                let why = match reason {
                    Some(litmus_engine::StopReason::Cancelled) => "cancelled".to_owned(),
                    Some(litmus_engine::StopReason::Memory { budget, origin }) => format!(
                        "the memory budget of {} ({origin}) was reached; raise it with --max-memory",
                        litmus_engine::human_bytes(budget)
                    ),
                    _ => "timeout".to_owned(),
                };
                return FileRun {
                    path: shown,
                    read_error: None,
                    text: None,
                    index: Some(index),
                    test: None,
                    diagnostics: vec![Diagnostic::warning(
                        litmus_engine::Span::new(0, 0),
                        format!("parsing stopped early ({why}): the file was not checked"),
                    )],
                    locations: vec![],
                    parse_time: Default::default(),
                    parse_stopped: Some(reason.unwrap_or(litmus_engine::StopReason::Timeout)),
                    asm: None,
                    c: None,
                    plan: vec![],
                };
            };
            FileRun {
                path: shown,
                read_error: None,
                index: Some(index),
                locations: litmus_engine::syntax::herd_locations(&text, &parsed.tree),
                text: Some(text),
                test: parsed.test,
                diagnostics: parsed.diagnostics,
                parse_time: Default::default(),
                parse_stopped: None,
                asm: parsed.asm,
                c: parsed.c,
                plan: vec![],
            }
        }
    }
}

fn use_color(when: ColorWhen, is_tty: bool) -> bool {
    match when {
        ColorWhen::Always => true,
        ColorWhen::Never => false,
        ColorWhen::Auto => is_tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
    }
}

/// Writes to stdout. A closed pipe (`litmus check ... | head`) ends the process quietly with
/// [`exit::CLOSED_PIPE`], as a Unix tool killed by `SIGPIPE` would; any other failure (no
/// space, an I/O error) loses results, so it ends the process with [`exit::BAD_INPUT`] and a
/// message on stderr (the same status if even that cannot be written).
fn out(s: &str) {
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_all(s.as_bytes()).and_then(|_| o.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(exit::CLOSED_PIPE);
        }
        err(&format!("litmus: cannot write the results: {e}"));
        std::process::exit(exit::BAD_INPUT);
    }
}

/// Writes a line to stderr; a failure is ignored (there is nowhere left to say it).
fn err(s: &str) {
    let mut e = std::io::stderr().lock();
    let _ = writeln!(e, "{s}").and_then(|_| e.flush());
}

/// Runs `litmus check`; returns the exit status.
pub fn check(args: CheckArgs) -> i32 {
    if let Some(status) = cdialect::run(&args) {
        return status;
    }
    let cat = match &args.cat {
        None => None,
        Some(path) => match axiom::load_cat(path) {
            Ok(m) => Some((m, path.display().to_string())),
            Err(e) => {
                err(&format!("litmus: {}: {e}", path.display()));
                return exit::BAD_INPUT;
            }
        },
    };
    let color_out = use_color(args.color, std::io::stdout().is_terminal());
    let color_err = use_color(args.color, std::io::stderr().is_terminal());
    let style = text::Style { color: color_out };
    let models = args.models();
    let opts = args.check_options();
    // Ctrl-C is wired from here on: parsing a huge file stops on it too.
    let budget = crate::memory::budget(args.max_memory, "set by --max-memory");
    // `-j`: the process's worker budget. Each of the run's workers holds a slot while it has
    // work; the slots left over (fewer checks than `-j`, or the run's tail) are free for the
    // `auto` portfolio's parallel members, which every check borrows through its control.
    let budget_jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    let ctl = progress::interruptible()
        .with_memory_budget(budget)
        .with_workers(litmus_engine::Workers::new(budget_jobs));

    // `--shard K/N`: the files at positions K, K+N, K+2N, ... (1-based) of the argument list.
    let positions: Vec<usize> = match args.shard {
        Some((k, n)) => (k..=args.files.len()).step_by(n).collect(),
        None => (1..=args.files.len()).collect(),
    };
    if let Some(format) = args.dump_sdg {
        return sdg::dump(&args, &positions, &ctl, &opts, format, color_err);
    }

    let progress_on = !args.json && std::io::stderr().is_terminal();
    let json_run = args.json;
    let shard = args.shard.map(|(k, n)| json::Shard {
        index: k,
        count: n,
        files: args.files.len(),
    });
    let run = Run {
        cmodels: crate::ctest::Models::new(&cdialect::named(&args)),
        args,
        models,
        cat,
        opts,
        style,
        ctl: ctl.clone(),
        progress_on,
        many: positions.len() > 1,
        color_err,
    };
    let sum = stream::run(std::sync::Arc::new(run), &positions, shard);

    if sum.disagree > 0 && !json_run {
        out(&cdialect::disagree_note(sum.disagree, sum.judged));
    }
    if sum.bad > 0 && !json_run {
        bad_files_note(sum.bad, positions.len());
    }
    let cancelled = ctl.is_cancelled();
    if cancelled {
        err("litmus: interrupted; the results are incomplete");
    }
    if sum.bad > 0 {
        exit::BAD_INPUT
    } else if sum.violation {
        exit::VIOLATION
    } else if cancelled || sum.incomplete {
        exit::INCOMPLETE
    } else {
        exit::OK
    }
}

/// The diagnostics of `f` as stderr shows them (text runs; the JSON document carries them).
fn diagnostics_text(f: &FileRun, diags: &[Diagnostic], color: bool) -> String {
    if let Some(e) = &f.read_error {
        format!("error: cannot read {}: {e}\n", f.path)
    } else if let (Some(index), false) = (&f.index, diags.is_empty()) {
        diagnostics::render(&f.path, index, diags, color)
    } else {
        String::new()
    }
}

/// A file with an error is not checked; every other file still is (a catalogue with one
/// broken test is still checked), and the run exits 2.
fn bad_files_note(bad: usize, files: usize) {
    let what = if bad == 1 {
        "1 file has errors and is not checked".to_owned()
    } else {
        format!("{bad} files have errors and are not checked")
    };
    let rest = if bad == files {
        "nothing was checked"
    } else {
        "the other files are checked"
    };
    err(&format!("litmus: {what}; {rest}"));
}

/// What every file of a run shares.
struct Run {
    args: CheckArgs,
    /// The operational models `--model` selects (all three without it).
    models: Vec<litmus_engine::Model>,
    /// `--cat FILE`: the user's model for the axiomatic dialects, and its name.
    cat: Option<(litmus_engine::cat::Model, String)>,
    /// The models of herd's C tests: the one the options name, or each found above its test.
    cmodels: crate::ctest::Models,
    opts: litmus_engine::CheckOptions,
    style: text::Style,
    ctl: litmus_engine::Control,
    progress_on: bool,
    many: bool,
    /// Diagnostics on stderr in colour.
    color_err: bool,
}

/// One model's results and its text (empty with `--json`).
struct ModelOut {
    out: Out,
    text: String,
}

/// What a model of a file answered.
enum Out {
    /// An operational model's report, with `--robust` and `--unbounded`'s answers.
    Op {
        report: ModelReport,
        robust: Option<litmus_engine::robust::Robustness>,
        unbounded: Option<litmus_engine::unbounded::Unbounded>,
    },
    /// An axiomatic model's answer (`axiom.rs`).
    Ax(axiom::AxOut),
}

impl ModelOut {
    fn violation(&self) -> bool {
        match &self.out {
            Out::Op { report, robust, .. } => {
                !report.violations.is_empty() || robust.as_ref().is_some_and(|r| !r.holds)
            }
            Out::Ax(a) => a.violation(),
        }
    }

    fn incomplete(&self) -> bool {
        match &self.out {
            Out::Op { report, robust, .. } => {
                !report.complete || robust.as_ref().is_some_and(|r| !r.complete)
            }
            Out::Ax(a) => a.incomplete(),
        }
    }
}

impl Run {
    fn ctx<'f>(&'f self, f: &'f FileRun) -> Option<text::Ctx<'f>> {
        Some(text::Ctx {
            path: &f.path,
            test: f.test.as_ref()?,
            index: f.index.as_ref()?,
            opts: &self.opts,
            style: self.style,
            locations: &f.locations,
            graph: self.args.graph,
        })
    }

    /// The models file `f` is checked under (its dialect's that `--model` selects), or why
    /// it is refused: `--model` names none of its dialect's, or `--cat` is given for an
    /// operational dialect. A refusal is an error diagnostic of the file (not checked, exit 2).
    fn plan(&self, f: &mut FileRun) {
        let Some(test) = &f.test else { return };
        let dialect_name = dialect::name(test.dialect);
        let refuse = match dialect::models(test.dialect) {
            dialect::Models::Operational => {
                f.plan = self.models.iter().map(|m| Check::Op(*m)).collect();
                if self.cat.is_some() {
                    Some(format!(
                        "--cat applies to herd's AArch64, RISC-V, POWER, ARMv7 and C tests; {dialect_name} tests are \
                         checked operationally under sc, tso and pso (docs/arm-riscv.md)"
                    ))
                } else if f.plan.is_empty() {
                    Some(format!(
                        "--model {} names no model of {dialect_name} tests (sc, tso, pso)",
                        self.args.model.join(",")
                    ))
                } else {
                    None
                }
            }
            dialect::Models::Axiomatic(m) => {
                if self.args.wants(m.key) {
                    f.plan = vec![Check::Ax(m)];
                    let ignored = self.args.operational_only();
                    if !ignored.is_empty() {
                        f.diagnostics.push(Diagnostic::warning(
                            litmus_engine::Span::new(0, 0),
                            format!(
                                "{} no effect on {dialect_name} tests: they are checked \
                                 axiomatically under {} (these options are for the \
                                 operational models of native and x86 tests)",
                                ignored.join(" and ")
                                    + if ignored.len() > 1 { " have" } else { " has" },
                                m.name
                            ),
                        ));
                    }
                    None
                } else {
                    Some(format!(
                        "--model {} names no model of {dialect_name} tests ({})",
                        self.args.model.join(","),
                        m.key
                    ))
                }
            }
        };
        if let Some(why) = refuse {
            f.plan.clear();
            f.diagnostics.push(Diagnostic::error(
                litmus_engine::Span::new(0, 0),
                format!("not checked: {why}"),
            ));
        }
    }

    /// Checks model `mi` of file `f` (None if the run was cancelled first).
    fn model(&self, f: &FileRun, mi: usize) -> Option<ModelOut> {
        let model = match f.plan.get(mi)? {
            Check::Op(m) => *m,
            Check::Ax(m) => return axiom::check(self, f, m, mi == 0),
        };
        let (args, opts) = (&self.args, &self.opts);
        let ctx = self.ctx(f)?;
        if self.ctl.is_cancelled() {
            return None;
        }
        let label = format!("{} {}", f.path, model.label());
        let (c, line) = ProgressLine::start(&self.ctl, label, self.progress_on);
        // `--timeout` counts from the start of the file's work, parsing included. The
        // robustness search (`--robust`) is a search of its own with its own `--timeout`, in
        // every model alike.
        let check_ctl = if mi == 0 {
            c.clone()
                .with_timeout(opts.timeout.map(|t| t.saturating_sub(f.parse_time)))
        } else {
            c.clone()
        };
        // `--unbounded`: one call in place of the bounded check.
        let (report, unbounded) = if args.unbounded {
            let u = litmus_engine::unbounded::check(ctx.test, model, opts, &check_ctl);
            (u.report, Some(u.unbounded))
        } else {
            (
                litmus_engine::check(ctx.test, model, opts, &check_ctl),
                None,
            )
        };
        let robust = (args.robust && model != litmus_engine::Model::Sc)
            .then(|| litmus_engine::robustness(ctx.test, model, opts, &c));
        line.finish();
        // Schedules found for every iteration replay with the loop bound they need.
        let replay_opts = litmus_engine::CheckOptions {
            loop_bound: unbounded
                .as_ref()
                .map_or(opts.loop_bound, |u| u.loop_bound.max(opts.loop_bound)),
            ..opts.clone()
        };
        let ctx = text::Ctx {
            opts: &replay_opts,
            ..ctx
        };
        let mut text = String::new();
        if !args.json {
            if args.quiet {
                // `-q --robust`: the verdict joins the model's one line.
                let rb = robust.as_ref().map(|r| text::robust_summary(&ctx, r));
                let mut l = text::summary_line(&ctx, &report);
                if let Some(u) = &unbounded {
                    l = format!("{l}, {}", unbounded::summary(&ctx, u));
                }
                text = match rb {
                    Some(r) => format!("{l}, {r}\n"),
                    None => format!("{l}\n"),
                };
            } else {
                text += &text::model_block(&ctx, &report);
                if let Some(u) = &unbounded {
                    text += &unbounded::block(&ctx, u);
                }
                if let Some(r) = &robust {
                    text += &text::robust_block(&ctx, model, r);
                }
                text.push('\n');
            }
        }
        Some(ModelOut {
            out: Out::Op {
                report,
                robust,
                unbounded,
            },
            text,
        })
    }

    /// The text of file `fi`: its `# path` header (several files) and its models' blocks in
    /// order (those done, when the run was cancelled).
    fn file_text(&self, fi: usize, f: &FileRun, outs: &[Option<ModelOut>]) -> String {
        let mut text = String::new();
        if self.ctx(f).is_none() || self.args.json || outs.iter().all(Option::is_none) {
            return text;
        }
        if self.many && !self.args.quiet {
            if fi > 0 {
                text.push('\n');
            }
            text += &format!("{}\n", self.style.bold(&format!("# {}", f.path)));
        }
        for o in outs.iter().flatten() {
            text += &o.text;
        }
        text
    }
}
