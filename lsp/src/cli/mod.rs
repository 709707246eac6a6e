//! `litmus check` (`docs/reference.md#check`): read and parse every file, render diagnostics, check each clean
//! test under each selected model, and print herd7-style text or the version-1 JSON document.
//!
//! Code map:
//! - `args.rs`: the command line (clap derive);
//! - `mod.rs` (this file): the run itself, `-j N` files at a time (output in argument order),
//!   `--shard K/N`, model by model, and the exit status;
//! - `diagnostics.rs`: compiler-style diagnostics (codespan-reporting);
//! - `text.rs`: herd's block, schedules, witness, warnings, stats, `--quiet` summaries;
//! - `cond.rs`: the condition's observed variables, projected states, condition printing;
//! - `json.rs`: the only place engine values become JSON (serde adapter types);
//! - `merge.rs`: `litmus merge`, the shards' JSON documents combined into the unsharded one;
//! - `progress.rs`: Ctrl-C and the progress line.
//!
//! Invariants: stdout carries only results (text blocks or exactly one JSON document);
//! diagnostics, warnings about the run and progress go to stderr. A file that is unreadable or
//! has an error diagnostic is not checked, every other file is, and the exit status is 2.
//! Otherwise it is 1 if any model of any file has a violation, else 3 if any exploration was
//! incomplete, else 0.

pub mod args;
mod cond;
mod diagnostics;
pub mod fences;
mod json;
pub mod merge;
mod progress;
mod text;

use std::io::{IsTerminal, Read, Write};
use std::path::Path;

use litmus_engine::ast::Test;
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
    /// Index of the file's text (None when unreadable).
    pub index: Option<LineIndex>,
    /// The test, when the file has no error diagnostic.
    pub test: Option<Test>,
    pub diagnostics: Vec<Diagnostic>,
    /// herd's `locations [...]` as state keys (x86 dialects).
    pub locations: Vec<String>,
    /// One report per model checked, in the order SC, TSO, PSO.
    pub reports: Vec<ModelReport>,
    /// How long reading and parsing took: it counts against the first model's `--timeout`.
    pub parse_time: std::time::Duration,
    /// With `--robust`: the robustness verdict per relaxed model checked.
    pub robust: Vec<(litmus_engine::Model, litmus_engine::robust::Robustness)>,
    /// Why parsing stopped before the end (`--timeout`, Ctrl-C, `--max-memory`): the file is
    /// then not checked, a warning says so, and the run is incomplete.
    pub parse_stopped: Option<litmus_engine::StopReason>,
}

impl FileRun {
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

/// Reads and parses one file. Parsing stops early at the first model's deadline (`--timeout`
/// counts from the start of the file's work) or on Ctrl-C.
fn load(path: &Path, ctl: &litmus_engine::Control, opts: &litmus_engine::CheckOptions) -> FileRun {
    let start = std::time::Instant::now();
    let ctl = ctl.for_check(opts);
    // On a thread of its own: the parse's many small allocations then come from another
    // malloc arena, so that freeing a stopped parse in the background (the engine does) does
    // not make the main thread's next large allocations sort through them (0.05-0.3 s on a
    // huge file).
    let mut f = std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("litmus-parse".into())
            .spawn_scoped(s, || load_file(path, &ctl))
            .ok()
            .and_then(|h| h.join().ok())
    })
    .unwrap_or_else(|| load_file(path, &ctl));
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
            index: None,
            test: None,
            diagnostics: vec![],
            locations: vec![],
            reports: vec![],
            parse_time: Default::default(),
            robust: vec![],
            parse_stopped: None,
        },
        Ok(text) => {
            // Before parsing: after a stopped parse, a large allocation here would wait for
            // the allocator to sort through the parse's freed memory.
            let index = LineIndex::new(&text);
            let Some(parsed) = litmus_engine::syntax::parse_with(&text, None, &|| ctl.should_stop())
            else {
                let reason = ctl.stop_reason();
                let why = match reason {
                    Some(litmus_engine::StopReason::Cancelled) => "cancelled".to_owned(),
                    Some(litmus_engine::StopReason::Memory { budget }) => format!(
                        "the memory budget of {} MiB was reached; raise it with --max-memory",
                        budget >> 20
                    ),
                    _ => "timeout".to_owned(),
                };
                return FileRun {
                    path: shown,
                    read_error: None,
                    index: Some(index),
                    test: None,
                    diagnostics: vec![Diagnostic::warning(
                        litmus_engine::Span::new(0, 0),
                        format!("parsing stopped early ({why}): the file was not checked"),
                    )],
                    locations: vec![],
                    reports: vec![],
                    parse_time: Default::default(),
                    robust: vec![],
                    parse_stopped: Some(reason.unwrap_or(litmus_engine::StopReason::Timeout)),
                };
            };
            FileRun {
                path: shown,
                read_error: None,
                index: Some(index),
                locations: litmus_engine::syntax::herd_locations(&text, &parsed.tree),
                test: parsed.test,
                diagnostics: parsed.diagnostics,
                reports: vec![],
                parse_time: Default::default(),
                robust: vec![],
                parse_stopped: None,
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
    let color_out = use_color(args.color, std::io::stdout().is_terminal());
    let color_err = use_color(args.color, std::io::stderr().is_terminal());
    let style = text::Style { color: color_out };
    let models = args.models();
    let opts = args.check_options();
    // Ctrl-C is wired from here on: parsing a huge file stops on it too.
    let ctl = progress::interruptible().with_memory_budget(crate::memory::budget(args.max_memory));

    // `--shard K/N`: the files at positions K, K+N, K+2N, ... (1-based) of the argument list.
    let positions: Vec<usize> = match args.shard {
        Some((k, n)) => (k..=args.files.len()).step_by(n).collect(),
        None => (1..=args.files.len()).collect(),
    };
    let mut files: Vec<FileRun> = positions
        .iter()
        .map(|&i| load(&args.files[i - 1], &ctl, &opts))
        .collect();

    // Diagnostics (errors and warnings) on stderr; the JSON document carries them too.
    if !args.json {
        let mut err = std::io::stderr().lock();
        for f in &files {
            if let Some(e) = &f.read_error {
                let _ = writeln!(err, "error: cannot read {}: {e}", f.path);
            } else if let (Some(index), false) = (&f.index, f.diagnostics.is_empty()) {
                let _ = write!(
                    err,
                    "{}",
                    diagnostics::render(&f.path, index, &f.diagnostics, color_err)
                );
            }
        }
    }
    // A file with an error is not checked; every other file still is (a catalogue with one
    // broken test is still checked), and the run exits 2.
    let bad = files.iter().filter(|f| f.has_errors()).count();
    if bad > 0 && !args.json {
        let what = if bad == 1 {
            "1 file has errors and is not checked".to_owned()
        } else {
            format!("{bad} files have errors and are not checked")
        };
        let rest = if bad == files.len() { "nothing was checked" } else { "the other files are checked" };
        err(&format!("litmus: {what}; {rest}"));
    }

    if let Some(format) = args.dump_sdg {
        for (fi, f) in files.iter().enumerate() {
            let (Some(test), Some(index)) = (&f.test, &f.index) else {
                continue;
            };
            let program = match litmus_engine::ir::Program::lower(test, opts.loop_bound) {
                Ok(p) => p,
                Err(e) => {
                    err(&format!("litmus: {}: cannot lower: {e}", f.path));
                    return exit::BAD_INPUT;
                }
            };
            let sdg = litmus_engine::sdg::Sdg::new(&program);
            if fi > 0 {
                out("\n");
            }
            out(&match format {
                args::SdgFormat::Text => {
                    format!("# {}\n{}", f.path, sdg.dump_text(&program, index))
                }
                args::SdgFormat::Dot => sdg.dump_dot(&program),
            });
        }
        return if bad > 0 { exit::BAD_INPUT } else { exit::OK };
    }

    let progress_on = !args.json && std::io::stderr().is_terminal();
    let run = Run {
        args: &args,
        models: &models,
        opts: &opts,
        style,
        ctl: &ctl,
        progress_on,
        many: files.len() > 1,
    };
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |j| j as usize,
    );
    // Every (file, model) pair is a task, `jobs` at a time, so one heavy file's models run in
    // parallel too. A file's text is printed as soon as its models and every earlier file are
    // done, in model order, so the output is that of `-j 1`. The memory budget is the
    // process's, shared by every job.
    let tasks: Vec<(usize, usize)> = files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.test.is_some() && f.index.is_some())
        .flat_map(|(fi, _)| (0..models.len()).map(move |mi| (fi, mi)))
        .collect();
    let jobs = jobs.clamp(1, tasks.len().max(1));
    let mut outs: Vec<Vec<Option<ModelOut>>> = files
        .iter()
        .map(|f| {
            let n = if f.test.is_some() && f.index.is_some() { models.len() } else { 0 };
            (0..n).map(|_| None).collect()
        })
        .collect();
    {
        let queue = std::sync::Mutex::new(tasks.into_iter());
        let (tx, rx) = std::sync::mpsc::channel::<(usize, usize, ModelOut)>();
        let files = &files;
        std::thread::scope(|s| {
            for _ in 0..jobs {
                let (tx, queue, run) = (tx.clone(), &queue, &run);
                s.spawn(move || loop {
                    let next = queue.lock().map(|mut q| q.next()).unwrap_or(None);
                    let Some((fi, mi)) = next else { break };
                    let Some(o) = run.model(&files[fi], mi) else { continue };
                    if tx.send((fi, mi, o)).is_err() {
                        break;
                    }
                });
            }
            drop(tx);
            let mut next = 0;
            let print = |outs: &[Vec<Option<ModelOut>>], upto: &mut usize, all: bool| {
                while *upto < outs.len() && (all || outs[*upto].iter().all(Option::is_some)) {
                    let text = run.file_text(*upto, &files[*upto], &outs[*upto]);
                    if !text.is_empty() {
                        out(&text);
                    }
                    *upto += 1;
                }
            };
            print(&outs, &mut next, false);
            for (fi, mi, o) in rx {
                outs[fi][mi] = Some(o);
                print(&outs, &mut next, false);
            }
            // Cancelled: what was done of the rest, in order.
            print(&outs, &mut next, true);
        });
    }
    for (f, o) in files.iter_mut().zip(outs) {
        for (model, o) in models.iter().zip(o) {
            let Some(o) = o else { continue };
            if let Some(r) = o.robust {
                f.robust.push((*model, r));
            }
            f.reports.push(o.report);
        }
    }
    let cancelled = ctl.is_cancelled();
    if cancelled {
        err("litmus: interrupted; the results are incomplete");
    }
    if args.json {
        let shard = args.shard.map(|(k, n)| {
            (
                json::Shard {
                    index: k,
                    count: n,
                    files: args.files.len(),
                },
                &positions[..],
            )
        });
        out(&format!("{:#}\n", json::document(&files, shard)));
    }
    if bad > 0 {
        return exit::BAD_INPUT;
    }
    exit_status(&files, cancelled)
}

/// What every file of a run shares.
struct Run<'a> {
    args: &'a CheckArgs,
    models: &'a [litmus_engine::Model],
    opts: &'a litmus_engine::CheckOptions,
    style: text::Style,
    ctl: &'a litmus_engine::Control,
    progress_on: bool,
    many: bool,
}

/// One model's results and its text (empty with `--json`).
struct ModelOut {
    report: ModelReport,
    robust: Option<litmus_engine::robust::Robustness>,
    text: String,
}

impl Run<'_> {
    fn ctx<'f>(&'f self, f: &'f FileRun) -> Option<text::Ctx<'f>> {
        Some(text::Ctx {
            path: &f.path,
            test: f.test.as_ref()?,
            index: f.index.as_ref()?,
            opts: self.opts,
            style: self.style,
            locations: &f.locations,
            graph: self.args.graph,
        })
    }

    /// Checks model `mi` of file `f` (None if the run was cancelled first).
    fn model(&self, f: &FileRun, mi: usize) -> Option<ModelOut> {
        let (args, opts) = (self.args, self.opts);
        let ctx = self.ctx(f)?;
        let model = self.models[mi];
        if self.ctl.is_cancelled() {
            return None;
        }
        let label = format!("{} {}", f.path, model.label());
        let (c, line) = ProgressLine::start(self.ctl, label, self.progress_on);
        // `--timeout` counts from the start of the file's work, parsing included. The
        // robustness search (`--robust`) is a search of its own with its own `--timeout`, in
        // every model alike.
        let check_ctl = if mi == 0 {
            c.clone()
                .with_timeout(opts.timeout.map(|t| t.saturating_sub(f.parse_time)))
        } else {
            c.clone()
        };
        let report = litmus_engine::check(ctx.test, model, opts, &check_ctl);
        let robust = (args.robust && model != litmus_engine::Model::Sc)
            .then(|| litmus_engine::robustness(ctx.test, model, opts, &c));
        line.finish();
        let mut text = String::new();
        if !args.json {
            if args.quiet {
                // `-q --robust`: the verdict joins the model's one line.
                let rb = robust.as_ref().map(|r| text::robust_summary(&ctx, r));
                let l = text::summary_line(&ctx, &report);
                text = match rb {
                    Some(r) => format!("{l}, {r}\n"),
                    None => format!("{l}\n"),
                };
            } else {
                text += &text::model_block(&ctx, &report);
                if let Some(r) = &robust {
                    text += &text::robust_block(&ctx, model, r);
                }
                text.push('\n');
            }
        }
        Some(ModelOut {
            report,
            robust,
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

fn exit_status(files: &[FileRun], cancelled: bool) -> i32 {
    let cancelled = cancelled || files.iter().any(|f| f.parse_stopped.is_some());
    let reports = files.iter().flat_map(|f| &f.reports);
    let robust = files.iter().flat_map(|f| &f.robust).map(|(_, r)| r);
    if reports.clone().any(|r| !r.violations.is_empty()) || robust.clone().any(|r| !r.holds) {
        exit::VIOLATION
    } else if cancelled || reports.clone().any(|r| !r.complete) || robust.clone().any(|r| !r.complete) {
        exit::INCOMPLETE
    } else {
        exit::OK
    }
}
