//! An axiomatic model of one file in `litmus check` (`docs/arm-riscv.md#checking`): herd's
//! AArch64 and RISC-V tests (and the dialects `crate::dialect` adds) are checked by the
//! axiomatic engine against their dialect's cat model (or `--cat FILE`), on the run's workers
//! like any model of any file, under `--timeout`, Ctrl-C and the memory budget (the engine
//! polls the check's control between candidates; a stopped check is incomplete, without a
//! verdict). Text: herd's block (states, `Ok`/`No`, witnesses, `Observation`), then a witness
//! execution or the check and cycle that forbid the condition's state; `-q`: one line. A
//! `~exists` or `forall` that does not hold is a violation (exit 1); a test the engine refuses
//! is an error of the file (exit 2, its message a diagnostic in the JSON document).

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

use litmus_engine::ast::Quantifier;
use litmus_engine::axiomatic::{AxError, Event, Execution, Kind, Report};
use litmus_engine::cat::Model;
use litmus_engine::StopReason;

use crate::dialect::{self, Answer, AxModel};
use crate::json::axiom::{AxInput, AxOutcome};
use crate::json::axview::edge;

use super::progress::ProgressLine;
use super::{FileRun, ModelOut, Out, Run};

/// What an axiomatic model of a file answered.
pub struct AxOut {
    pub model: &'static AxModel,
    /// The cat model's name (the project's, or the `--cat` file).
    pub name: String,
    pub result: Result<Answer, Refused>,
    pub time_ms: f64,
}

/// Why there is no answer.
pub enum Refused {
    /// The engine cannot check the test (outside its subset, no condition, ...): an error of
    /// the file.
    Error(AxError),
    /// Stopped before the end (`--timeout`, Ctrl-C, the memory budget): no verdict.
    Stopped(StopReason),
}

impl AxOut {
    /// A `~exists` or `forall` that does not hold; for a C test, an answer that disagrees with
    /// its `Result:` header (as `judgelitmus.sh` judges it).
    pub fn violation(&self) -> bool {
        match &self.result {
            Ok(a) => match &a.c {
                Some(c) => c.disagrees(),
                None => crate::json::axiom::violated(&a.report).is_some(),
            },
            Err(_) => false,
        }
    }

    /// A C test's answer judged against its `Result:` header: `Some(agrees)`.
    pub fn judged(&self) -> Option<bool> {
        let c = self.result.as_ref().ok()?.c.as_ref()?;
        c.judged.as_ref().map(|j| j.agrees)
    }

    pub fn incomplete(&self) -> bool {
        matches!(self.result, Err(Refused::Stopped(_)))
    }

    /// The engine's refusal, as an error diagnostic of the file.
    pub fn error(&self) -> Option<litmus_engine::Diagnostic> {
        match &self.result {
            Err(Refused::Error(e)) => Some(litmus_engine::Diagnostic::error(
                e.span.unwrap_or(litmus_engine::Span::new(0, 0)),
                format!("cannot check under {}: {}", self.name, e.message),
            )),
            _ => None,
        }
    }

    /// Its entry's input in the JSON document (`None` for a refusal, which is a diagnostic).
    pub fn json(&self) -> Option<AxInput<'_>> {
        let outcome = match &self.result {
            Ok(a) => AxOutcome::Done {
                report: &a.report,
                locs: &a.locs,
                c: a.c.as_ref(),
            },
            Err(Refused::Stopped(r)) => AxOutcome::Stopped(stop_key(*r)),
            Err(Refused::Error(_)) => return None,
        };
        Some(AxInput {
            key: self.model.key,
            model: &self.name,
            outcome,
            time_ms: self.time_ms,
        })
    }
}

fn stop_key(r: StopReason) -> &'static str {
    match r {
        StopReason::Cancelled => "cancelled",
        StopReason::Timeout => "timeout",
        StopReason::Memory { .. } => "memory",
    }
}

/// Checks file `f` under `m` (`first`: its first model, whose `--timeout` counts parsing).
pub fn check(run: &Run, f: &FileRun, m: &'static AxModel, first: bool) -> Option<ModelOut> {
    let (test, text) = (f.test.as_ref()?, f.text.as_deref()?);
    if run.ctl.is_cancelled() {
        return None;
    }
    // a C test's model: the one the options name, or the one found above the test
    let cmodel =
        f.c.as_ref()
            .map(|src| run.cmodels.for_test(Path::new(&f.path), src.uses_c11()));
    let name = match (&cmodel, &run.cat) {
        (Some(c), _) => c
            .as_ref()
            .as_ref()
            .map_or(m.name.to_string(), |c| c.name.clone()),
        (None, Some((_, path))) => path.clone(),
        (None, None) => m.name.to_string(),
    };
    let label = format!("{} {}", f.path, m.key);
    let (c, line) = ProgressLine::start(&run.ctl, label, run.progress_on);
    let timeout = run.opts.timeout.map(|t| {
        if first {
            t.saturating_sub(f.parse_time)
        } else {
            t
        }
    });
    let ctl = c.child().with_timeout(timeout);
    let start = Instant::now();
    // a C test's check also takes the worker slots the run leaves free (its tail, or `-j`
    // above the number of files)
    let extra = match f.c {
        Some(_) => dialect::borrow_free(run.ctl.workers().as_ref()),
        None => Vec::new(),
    };
    let loaded = dialect::Loaded {
        test,
        text,
        asm: f.asm.as_ref(),
        c: f.c.as_ref(),
        cmodel: cmodel.as_deref(),
        jobs: 1 + extra.len(),
    };
    let answer = (m.check)(&loaded, run.cat.as_ref().map(|c| &c.0), &|| {
        ctl.should_stop()
    });
    line.finish();
    let result = match (answer, ctl.stop_reason()) {
        (Ok(a), _) => Ok(a),
        (Err(_), Some(r)) => Err(Refused::Stopped(r)),
        (Err(e), None) => Err(Refused::Error(e)),
    };
    let out = AxOut {
        model: m,
        name,
        result,
        time_ms: start.elapsed().as_secs_f64() * 1000.0,
    };
    let text = if run.args.json {
        String::new()
    } else {
        render(run, f, &out)
    };
    Some(ModelOut {
        out: Out::Ax(out),
        text,
    })
}

/// The text of an axiomatic model of `f`: herd's block and the execution that explains it,
/// or with `-q` one line.
fn render(run: &Run, f: &FileRun, o: &AxOut) -> String {
    let name = f.test.as_ref().map_or("", |t| t.name.text.as_str());
    let st = run.style;
    if run.args.quiet {
        let parts = match &o.result {
            Err(Refused::Error(_)) => return String::new(),
            Err(Refused::Stopped(r)) => {
                st.yellow(&format!("no verdict, incomplete ({})", stop_key(*r)))
            }
            Ok(a) => {
                let r = &a.report;
                let herd = if r.ok { "Ok" } else { "No" };
                let v = match &a.c {
                    Some(c) => match &c.judged {
                        None => "no `Result:` header".to_string(),
                        Some(j) if j.agrees => "agrees with its `Result:` header".to_string(),
                        Some(_) => st.red("DISAGREES with its `Result:` header"),
                    },
                    None if crate::json::axiom::violated(r).is_some() => st.red("1 violation"),
                    None => "no violation".to_string(),
                };
                format!(
                    "{herd}, {} {} ({} of {} executions), {v}",
                    r.quantifier.as_str(),
                    if r.ok { "holds" } else { "does not hold" },
                    r.positive,
                    r.positive + r.negative
                )
            }
        };
        return format!("{} {name} {}: {parts}\n", f.path, o.model.key);
    }
    let mut s = format!("{}: model {}\n", f.path, o.name);
    match &o.result {
        Err(Refused::Error(_)) => return String::new(),
        Err(Refused::Stopped(r)) => {
            let _ = writeln!(
                s,
                "Test {name}: stopped ({}) before every candidate execution was examined: no verdict",
                stop_key(*r)
            );
        }
        Ok(a) => {
            s += &a.block;
            match &a.c {
                Some(c) => s += &c.judgement_line(&f.path),
                None => s += &explain(&a.report, a),
            }
        }
    }
    s.push('\n');
    s
}

pub fn load_cat(path: &Path) -> Result<Model, String> {
    let src = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let resolve = move |f: &str| std::fs::read_to_string(dir.join(f)).ok();
    Model::parse(&src, &resolve).map_err(|e| format!("cat model: {e}"))
}

fn event(i: usize, e: &Event, a: &Answer) -> String {
    let who = e.thread.map_or("init".to_string(), |t| format!("P{t}"));
    let tags = if e.tags.is_empty() || e.tags == ["IW"] {
        String::new()
    } else {
        format!(" [{}]", e.tags.join(","))
    };
    match e.kind {
        Kind::R => format!("e{i} {who}: R {}={}{tags}", a.loc(e.addr), e.value),
        Kind::W => format!("e{i} {who}: W {}={}{tags}", a.loc(e.addr), e.value),
        Kind::F => format!("e{i} {who}: F{tags}"),
    }
}

fn explain(r: &Report, n: &Answer) -> String {
    let mut s = String::new();
    let events = |x: &Execution, s: &mut String| {
        for (i, e) in x.events.iter().enumerate() {
            let _ = writeln!(s, "  {}", event(i, e, n));
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
