//! `litmus check --json`: the version-2 document of `docs/reference.md#json`, as serde-derived
//! adapter types. The field order of each type below is the key order of the document. Every
//! file has its entry (a broken one with its `diagnostics`), its results keyed by model: the
//! operational reports here, the axiomatic ones in [`super::axiom`].
//!
//! Positions are 1-based lines and columns in characters ([`LineIndex`]). Keys beyond the
//! spec's (`end_line`/`end_col` on steps and violations, `related` on diagnostics,
//! `warnings` per model, `stats.engine`, `unbounded` with `--unbounded`, `label` on the steps
//! of a schedule, and with `--shard` the document's `shard` and each file's `index`) are
//! additions the spec allows; none changes a specified key's meaning.

use litmus_engine::ast::Test;
use litmus_engine::report::{Action, ModelReport, Step, ViolationKind};
use litmus_engine::{Diagnostic, LineIndex, Severity};
use serde::Serialize;

use super::{round3, thread_name, Pos};

/// What `litmus check` read of one file, as the document reports it beside the results.
pub struct Input<'a> {
    pub path: &'a str,
    /// Why the file could not be read (then nothing else is known of it).
    pub read_error: Option<&'a str>,
    /// The file's text (for the steps' `label`s, which quote the source).
    pub text: Option<&'a str>,
    pub index: Option<&'a LineIndex>,
    pub test: Option<&'a Test>,
    pub diagnostics: &'a [Diagnostic],
}

/// Which part of a catalogue a run checked (`--shard K/N`): the files at positions K-1,
/// K-1+N, ... of the argument list (0-based), of `files` in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
    pub files: usize,
}

#[derive(Serialize)]
struct File<'a> {
    /// Position in the whole argument list (sharded runs only, for `litmus merge`).
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<usize>,
    path: &'a str,
    name: Option<&'a str>,
    diagnostics: Vec<Diag<'a>>,
    results: Results<'a>,
}

/// A file's results by model key, in the order they were made (SC, TSO, PSO; an axiomatic
/// model's key, `aarch64`, `riscv`, for the dialects it checks).
struct Results<'a>(Vec<(&'static str, ModelResult<'a>)>);

impl Serialize for Results<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

/// One model's result: the operational engines' report or the axiomatic engine's.
#[derive(Serialize)]
#[serde(untagged)]
enum ModelResult<'a> {
    Operational(Box<Report<'a>>),
    Axiomatic(Box<super::axiom::AxResult>),
}

#[derive(Serialize)]
struct Diag<'a> {
    severity: Severity,
    message: std::borrow::Cow<'a, str>,
    #[serde(flatten)]
    pos: Pos,
    /// Absent for an unreadable file's diagnostic, as before.
    #[serde(skip_serializing_if = "Option::is_none")]
    related: Option<Vec<Related<'a>>>,
}

#[derive(Serialize)]
struct Related<'a> {
    message: &'a str,
    #[serde(flatten)]
    pos: Pos,
}

#[derive(Serialize)]
struct Report<'a> {
    complete: bool,
    /// `--first`: why exploration stopped (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<&'static str>,
    states: Vec<StateOut<'a>>,
    condition: Option<Condition>,
    violations: Vec<ViolationOut<'a>>,
    witness: Vec<StepOut<'a>>,
    warnings: Vec<WarningOut<'a>>,
    stats: StatsOut,
    /// `--robust`, TSO and PSO only.
    #[serde(skip_serializing_if = "Option::is_none")]
    robust: Option<Robust<'a>>,
    /// `--unbounded` only (an addition to version 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    unbounded: Option<UnboundedOut<'a>>,
}

/// `"unbounded": {"verdict", "reason", "loop_bound", "states", "robust", "rounds"}`
/// (`docs/reference.md#unbounded`).
#[derive(Serialize)]
struct UnboundedOut<'a> {
    verdict: &'static str,
    reason: Option<&'a str>,
    loop_bound: u32,
    states: u64,
    robust: Option<UnboundedRobust>,
    /// Refinement rounds of lazy TSO reachability.
    rounds: u32,
}

#[derive(Serialize)]
struct UnboundedRobust {
    holds: bool,
    complete: bool,
    states: u64,
}

/// A final state: its keys in the engine's order.
struct StateOut<'a>(&'a [(String, i64)]);

impl Serialize for StateOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

#[derive(Serialize)]
struct Condition {
    kind: &'static str,
    holds: bool,
    positive: u64,
    negative: u64,
    /// `false` when a stopped check has not decided the condition (then `holds` is over the
    /// states found only); absent when decided (an addition to version 1).
    #[serde(skip_serializing_if = "is_true")]
    decided: bool,
}

fn is_true(b: &bool) -> bool {
    *b
}

#[derive(Serialize)]
struct ViolationOut<'a> {
    kind: ViolationKind,
    message: &'a str,
    #[serde(flatten)]
    pos: Pos,
    schedule: Vec<StepOut<'a>>,
}

#[derive(Serialize)]
struct WarningOut<'a> {
    message: &'a str,
    #[serde(flatten)]
    pos: Option<Pos>,
}

#[derive(Serialize)]
struct StatsOut {
    executions: u64,
    blocked: u64,
    states: u64,
    /// Of `states`, how many the report does not list (the memory budget was reached while
    /// listing them); absent when 0.
    #[serde(skip_serializing_if = "is_zero")]
    omitted: u64,
    constraints: u64,
    solver_ms: f64,
    time_ms: f64,
    queries: u64,
    explored: u64,
    /// The engine that answered (with `auto`, the one the portfolio chose).
    engine: Option<&'static str>,
    /// A stopped portfolio's report is the union of its members' findings: those members, in
    /// the portfolio's order; absent otherwise (an addition to version 1).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    members: Vec<&'static str>,
}

#[derive(Serialize)]
struct StepOut<'a> {
    thread: String,
    #[serde(flatten)]
    pos: Pos,
    action: Action,
    loc: Option<&'a str>,
    value: Option<i64>,
    buffered: bool,
    /// The step as a sentence, the language server's words for it (`steps::labels`):
    /// on the steps of a schedule (`schedule`, `witness`, `robust.witness`), not on `delayed`'s.
    #[serde(skip_serializing_if = "Option::is_none")]
    label: Option<String>,
}

/// `"robust": {"holds", "witness", "complete", "delayed", "states", "time_ms"}` (`--robust`,
/// TSO and PSO only; SC is robust by definition and has no key). `witness` is the attack's
/// schedule (empty when robust); `delayed` names the delayed store, the later accesses it was
/// delayed past and the other thread's access closing the cycle.
#[derive(Serialize)]
struct Robust<'a> {
    holds: bool,
    witness: Vec<StepOut<'a>>,
    complete: bool,
    delayed: Option<Delayed<'a>>,
    states: u64,
    time_ms: f64,
    /// `false` when a stopped search found no attack (robustness not decided; `holds` is
    /// then no answer); absent when decided (an attack found, or a complete search).
    #[serde(skip_serializing_if = "is_true")]
    decided: bool,
}

#[derive(Serialize)]
struct Delayed<'a> {
    thread: String,
    store: StepOut<'a>,
    past: Vec<StepOut<'a>>,
    conflict: StepOut<'a>,
}

/// The document's version (`docs/reference.md#json`): 2 since every dialect's results share
/// its shape.
pub const VERSION: u32 = 2;

/// The document's opening, up to and including `"files": [` (or the whole document when it
/// has no files): with [`entry`] and [`close`], byte for byte what serde_json pretty-prints for
/// the whole document, written one file at a time.
pub fn open(shard: Option<Shard>, no_files: bool) -> String {
    let mut s = format!("{{\n  \"version\": {VERSION},\n");
    if let Some(shard) = shard {
        let v = serde_json::to_string_pretty(&shard).expect("the shard serialises");
        s += "  \"shard\": ";
        s += &indented(&v, "  ");
        s += ",\n";
    }
    s += if no_files {
        "  \"files\": []\n}\n"
    } else {
        "  \"files\": ["
    };
    s
}

/// The document's end after its last [`entry`].
pub fn close() -> &'static str {
    "\n  ]\n}\n"
}

/// File `i` (0-based in the document) of the `files` array, with the separator before it
/// (`index`: its position in the whole argument list, sharded runs only).
pub fn entry(
    i: usize,
    f: &Input,
    reports: &[ModelReport],
    robust: &[(litmus_engine::Model, litmus_engine::robust::Robustness)],
    unbounded: &[(litmus_engine::Model, litmus_engine::unbounded::Unbounded)],
    axiomatic: &[super::axiom::AxInput],
    index: Option<usize>,
) -> String {
    let v = serde_json::to_string_pretty(&file(f, reports, robust, unbounded, axiomatic, index))
        .expect("a file's entry serialises (string keys, finite numbers)");
    let mut s = String::with_capacity(v.len() + v.len() / 8 + 8);
    s += if i == 0 { "\n    " } else { ",\n    " };
    s += &indented(&v, "    ");
    s
}

/// `v` with every line but the first indented by `pad` (a JSON string has no raw newline, so
/// every newline of pretty-printed JSON is between tokens).
pub fn indented(v: &str, pad: &str) -> String {
    let mut s = String::with_capacity(v.len() + v.len() / 8);
    for (i, line) in v.split('\n').enumerate() {
        if i > 0 {
            s.push('\n');
            s += pad;
        }
        s += line;
    }
    s
}

fn file<'a>(
    f: &Input<'a>,
    reports: &'a [ModelReport],
    robust: &'a [(litmus_engine::Model, litmus_engine::robust::Robustness)],
    unbounded: &'a [(litmus_engine::Model, litmus_engine::unbounded::Unbounded)],
    axiomatic: &[super::axiom::AxInput],
    index: Option<usize>,
) -> File<'a> {
    let diagnostics: Vec<Diag> = match (f.read_error, f.index) {
        (Some(err), _) => vec![Diag {
            severity: Severity::Error,
            message: format!("cannot read {}: {err}", f.path).into(),
            pos: Pos {
                line: 1,
                col: 1,
                end_line: 1,
                end_col: 1,
            },
            related: None,
        }],
        (None, Some(index)) => f.diagnostics.iter().map(|d| diagnostic(index, d)).collect(),
        (None, None) => vec![],
    };
    let mut results = Vec::new();
    if let (Some(test), Some(index)) = (f.test, f.index) {
        let src = Src {
            test,
            text: f.text.unwrap_or(""),
            index,
        };
        for r in reports {
            let rb = robust.iter().find(|(m, _)| *m == r.model).map(|(_, rb)| rb);
            let mut out = model_report(&src, r, rb);
            out.unbounded =
                unbounded
                    .iter()
                    .find(|(m, _)| *m == r.model)
                    .map(|(_, u)| UnboundedOut {
                        verdict: u.verdict.key(),
                        reason: u.reason.as_deref(),
                        loop_bound: u.loop_bound,
                        states: u.states,
                        robust: u.robust.as_ref().map(|r| UnboundedRobust {
                            holds: r.holds,
                            complete: r.complete,
                            states: r.states,
                        }),
                        rounds: u.rounds,
                    });
            results.push((r.model.key(), ModelResult::Operational(Box::new(out))));
        }
        for a in axiomatic {
            let out = super::axiom::result(a, test, index);
            results.push((a.key, ModelResult::Axiomatic(Box::new(out))));
        }
    }
    File {
        index,
        path: f.path,
        name: f.test.map(|t| t.name.text.as_str()),
        diagnostics,
        results: Results(results),
    }
}

fn diagnostic<'a>(index: &LineIndex, d: &'a Diagnostic) -> Diag<'a> {
    Diag {
        severity: d.severity,
        message: d.message.as_str().into(),
        pos: Pos::new(index, d.span),
        related: Some(
            d.related
                .iter()
                .map(|r| Related {
                    message: &r.message,
                    pos: Pos::new(index, r.span),
                })
                .collect(),
        ),
    }
}

/// What a report's positions and step sentences are made from.
struct Src<'a> {
    test: &'a Test,
    text: &'a str,
    index: &'a LineIndex,
}

fn model_report<'a>(
    src: &Src,
    r: &'a ModelReport,
    robust: Option<&'a litmus_engine::robust::Robustness>,
) -> Report<'a> {
    let s = &r.stats;
    let index = src.index;
    Report {
        complete: r.complete,
        stopped: r.stopped.map(|s| s.key()),
        states: r.states.iter().map(|s| StateOut(&s.0)).collect(),
        condition: r.condition.as_ref().map(|c| Condition {
            kind: c.kind.as_str(),
            holds: c.holds,
            positive: c.positive,
            negative: c.negative,
            decided: c.decided,
        }),
        violations: r
            .violations
            .iter()
            .map(|v| ViolationOut {
                kind: v.kind,
                message: &v.message,
                pos: Pos::new(index, v.span),
                schedule: schedule(src, &v.schedule),
            })
            .collect(),
        witness: r
            .witness
            .as_ref()
            .map_or_else(Vec::new, |w| schedule(src, w)),
        warnings: r
            .warnings
            .iter()
            .map(|w| WarningOut {
                message: &w.message,
                pos: w.span.map(|s| Pos::new(index, s)),
            })
            .collect(),
        stats: StatsOut {
            executions: s.executions,
            blocked: s.blocked,
            states: s.states,
            omitted: s.omitted,
            constraints: s.constraints,
            solver_ms: round3(s.solver_ms),
            time_ms: round3(s.time_ms),
            queries: s.queries,
            explored: s.explored,
            engine: s.engine.map(|e| e.key()),
            members: s.members.iter().map(|e| e.key()).collect(),
        },
        robust: robust.map(|rb| robust_out(src, rb)),
        unbounded: None,
    }
}

/// A schedule's steps, each with its sentence.
fn schedule<'a>(src: &Src, steps: &'a [Step]) -> Vec<StepOut<'a>> {
    let labels = crate::steps::labels(src.test, src.text, steps);
    steps
        .iter()
        .zip(labels)
        .map(|(s, l)| StepOut {
            label: Some(l),
            ..step(src, s)
        })
        .collect()
}

/// A step on its own (no sentence: `delayed`'s steps are not a schedule).
fn step<'a>(src: &Src, s: &'a Step) -> StepOut<'a> {
    StepOut {
        thread: thread_name(src.test, s.thread),
        pos: Pos::new(src.index, s.span),
        action: s.action,
        loc: s.loc.as_deref(),
        value: s.value,
        buffered: s.buffered,
        label: None,
    }
}

fn robust_out<'a>(src: &Src, r: &'a litmus_engine::robust::Robustness) -> Robust<'a> {
    let (witness, delayed) = match &r.attack {
        Some(a) => (
            schedule(src, &a.schedule),
            Some(Delayed {
                thread: thread_name(src.test, a.thread),
                store: step(src, &a.store),
                past: a.past.iter().map(|s| step(src, s)).collect(),
                conflict: step(src, &a.conflict),
            }),
        ),
        None => (vec![], None),
    };
    Robust {
        holds: r.holds,
        witness,
        complete: r.complete,
        delayed,
        states: r.states,
        time_ms: round3(r.time_ms),
        decided: r.complete || !r.holds,
    }
}

/// Whether a count is 0 (a field left out of the JSON then).
fn is_zero(n: &u64) -> bool {
    *n == 0
}
