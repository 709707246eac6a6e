//! `litmus check` on herd's AArch64 and RISC-V tests (`docs/arm-riscv.md`): when every file of
//! the run is one, each is checked by the axiomatic engine against the project's cat model for
//! its architecture (or `--cat FILE`), and printed as herd prints it (states, `Ok`/`No`,
//! witnesses, `Observation`), followed by a witness execution or the check and cycle that
//! forbid the condition's state; `--json` prints one JSON document. Exit status as for the
//! other tests: 2 for a file that does not parse or cannot be checked, 1 when a `~exists` or
//! `forall` does not hold, else 0. A run that mixes them with other tests checks the others
//! and says that checking these is not available in such a run.

use std::fmt::Write as _;
use std::path::Path;

use litmus_engine::asm::{Arch, Code};
use litmus_engine::ast::{Quantifier, Test};
use litmus_engine::axiomatic::{self, Event, Execution, Kind, Report};
use litmus_engine::cat::Model;

use crate::json::axiom as json;
use crate::json::axview::{block, edge};

use super::args::CheckArgs;
use super::{err, exit, out};

fn is_asm(text: &str) -> bool {
    Arch::from_herd_name(super::first_word(text)).is_some()
}

/// Runs the check when every file is an AArch64 or RISC-V test; `None` otherwise.
pub fn run(args: &CheckArgs) -> Option<i32> {
    let texts = super::read_if_every(&args.files, is_asm)?;
    let user = match &args.cat {
        None => None,
        Some(path) => match load_cat(path) {
            Ok(m) => Some((m, path.display().to_string())),
            Err(e) => {
                err(&format!("litmus: {}: {e}", path.display()));
                return Some(exit::BAD_INPUT);
            }
        },
    };
    let mut status = exit::OK;
    let mut docs = Vec::new();
    let model_for = |arch: Arch| match &user {
        Some((m, name)) => (m.clone(), name.clone()),
        None => (
            axiomatic::builtin_model(arch),
            axiomatic::builtin_model_name(arch).to_string(),
        ),
    };
    // Parse and check every file on `-j` workers (default: one per core); print in
    // argument order.
    let jobs = args
        .jobs
        .map_or_else(
            || std::thread::available_parallelism().map_or(1, |n| n.get()),
            |j| j as usize,
        )
        .clamp(1, texts.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut results: Vec<_> = std::thread::scope(|sc| {
        let workers: Vec<_> = (0..jobs)
            .map(|_| {
                sc.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(text) = texts.get(i) else {
                            return mine;
                        };
                        let p = litmus_engine::syntax::parse(text);
                        let checked = match (&p.test, &p.asm) {
                            (Some(test), Some(code))
                                if !p.diagnostics.iter().any(|d| d.is_error()) =>
                            {
                                let (model, _) = model_for(code.arch);
                                Some(axiomatic::check(test, code, &model, &|| false))
                            }
                            _ => None,
                        };
                        mine.push((i, p, checked));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    results.sort_by_key(|r| r.0);
    for ((f, text), (_, p, checked)) in args.files.iter().zip(&texts).zip(results) {
        let path = f.display().to_string();
        let (Some(test), Some(code), false) =
            (&p.test, &p.asm, p.diagnostics.iter().any(|d| d.is_error()))
        else {
            let index = litmus_engine::LineIndex::new(text);
            for d in p.diagnostics.iter().filter(|d| d.is_error()) {
                let pos = index.line_col(d.span.start);
                // `LineIndex` counts lines and columns from 1.
                err(&format!(
                    "{path}:{}:{}: error: {}",
                    pos.line, pos.col, d.message
                ));
            }
            status = exit::BAD_INPUT;
            continue;
        };
        let model_name = model_for(code.arch).1;
        let Some(checked) = checked else { continue };
        match checked {
            Err(e) => {
                let at = e.span.map(|s| {
                    let pos = litmus_engine::LineIndex::new(text).line_col(s.start);
                    format!("{}:{}: ", pos.line, pos.col)
                });
                err(&format!(
                    "litmus: {path}:{}cannot check: {e}",
                    at.unwrap_or_default()
                ));
                status = exit::BAD_INPUT;
            }
            Ok(r) => {
                let violated = !r.ok && r.quantifier != Quantifier::Exists;
                if violated && status == exit::OK {
                    status = exit::VIOLATION;
                }
                let names = Names { test, code };
                if args.json {
                    docs.push(json::File::new(&path, &model_name, test, text, &r, &|a| {
                        names.loc(a)
                    }));
                } else {
                    let mut s = String::new();
                    if args.files.len() > 1 {
                        let _ = writeln!(s, "# {path}");
                    }
                    let _ = writeln!(s, "{path}: model {model_name}");
                    s += &block(test, code, text, &r);
                    s += &explain(&r, &names);
                    s.push('\n');
                    out(&s);
                }
            }
        }
    }
    if args.json {
        let doc = json::Document::new(docs);
        out(&format!(
            "{}\n",
            serde_json::to_string_pretty(&doc).unwrap_or_default()
        ));
    }
    Some(status)
}

fn load_cat(path: &Path) -> Result<Model, String> {
    let src = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let resolve = move |f: &str| std::fs::read_to_string(dir.join(f)).ok();
    Model::parse(&src, &resolve).map_err(|e| format!("cat model: {e}"))
}

struct Names<'a> {
    test: &'a Test,
    code: &'a Code,
}

impl Names<'_> {
    fn loc(&self, addr: i64) -> String {
        axiomatic::location_name(self.test, self.code, addr)
    }
    fn event(&self, i: usize, e: &Event) -> String {
        let who = e.thread.map_or("init".to_string(), |t| format!("P{t}"));
        let tags = if e.tags.is_empty() || e.tags == ["IW"] {
            String::new()
        } else {
            format!(" [{}]", e.tags.join(","))
        };
        match e.kind {
            Kind::R => format!("e{i} {who}: R {}={}{tags}", self.loc(e.addr), e.value),
            Kind::W => format!("e{i} {who}: W {}={}{tags}", self.loc(e.addr), e.value),
            Kind::F => format!("e{i} {who}: F{tags}"),
        }
    }
}

fn explain(r: &Report, n: &Names) -> String {
    let mut s = String::new();
    let events = |x: &Execution, s: &mut String| {
        for (i, e) in x.events.iter().enumerate() {
            let _ = writeln!(s, "  {}", n.event(i, e));
        }
        let rf: Vec<String> = x.rf.iter().map(|(w, r)| format!("e{w}->e{r}")).collect();
        let _ = writeln!(s, "  rf: {}", rf.join(" "));
        let co: Vec<String> =
            x.co.iter()
                .filter(|o| o.len() > 1)
                .map(|o| {
                    o.iter()
                        .map(|e| format!("e{e}"))
                        .collect::<Vec<_>>()
                        .join("->")
                })
                .collect();
        let _ = writeln!(s, "  co: {}", co.join(" "));
    };
    if let Some(w) = &r.witness {
        let what = match r.quantifier {
            Quantifier::Exists => "Witness (an allowed execution reaching the condition's state)",
            Quantifier::NotExists => {
                "Violation (an allowed execution reaching the forbidden state)"
            }
            Quantifier::Forall => "Violation (an allowed execution where the condition fails)",
        };
        let _ = writeln!(s, "{what}:");
        events(w, &mut s);
    } else if let Some(x) = &r.forbidden {
        if let Some(f) = &x.failure {
            let _ = writeln!(
                s,
                "Forbidden: the executions reaching the condition's state fail `{}` ({}); one of them:",
                f.name,
                f.kind.as_str()
            );
            events(x, &mut s);
            if !f.events.is_empty() {
                let mut cyc = Vec::new();
                for (k, a) in f.events.iter().enumerate() {
                    let b = f.events[(k + 1) % f.events.len()];
                    cyc.push(format!("e{a} -{}->", edge(x, *a, b)));
                }
                if f.kind == litmus_engine::cat::CheckKind::Acyclic {
                    cyc.push(format!("e{}", f.events[0]));
                }
                let _ = writeln!(s, "  cycle: {}", cyc.join(" "));
            }
        }
    }
    s
}
