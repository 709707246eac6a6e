//! The result of an axiomatic model (`aarch64`, `riscv`) in the `litmus check --json` document
//! (version 2, `docs/reference.md#json`): under its model's key in a file's `results`, beside
//! `sc`/`tso`/`pso`, with the operational results' keys where they mean the same (`complete`,
//! `states`, `condition`, `violations`, `witness`, `warnings`, `stats`) and its own beside them
//! (`model`, `execution`, `flags`).

use std::collections::BTreeMap;

use litmus_engine::ast::{Quantifier, Test};
use litmus_engine::axiomatic::{self, Kind, Report};
use litmus_engine::LineIndex;
use serde::Serialize;

use super::{round3, Pos};

/// What an axiomatic check answered, for its entry.
pub enum AxOutcome<'a> {
    /// The report, with the names of the addresses its executions touch.
    Done {
        report: &'a Report,
        locs: &'a BTreeMap<i64, String>,
    },
    /// Stopped before every candidate was examined (`timeout`, `cancelled`, `memory`): no
    /// verdict.
    Stopped(&'static str),
}

/// One axiomatic model's result for a file.
pub struct AxInput<'a> {
    /// Its `results` key (`aarch64`).
    pub key: &'static str,
    /// Its cat model's name (`aarch64.cat (litmus)`, or the `--cat` file).
    pub model: &'a str,
    pub outcome: AxOutcome<'a>,
    pub time_ms: f64,
}

/// The entry under the model's key.
#[derive(Serialize)]
pub struct AxResult {
    complete: bool,
    model: String,
    states: Vec<BTreeMap<String, i64>>,
    condition: Option<Condition>,
    violations: Vec<Violation>,
    /// Operational schedules only: always empty here (the execution is in `execution`).
    witness: [(); 0],
    warnings: Vec<Warning>,
    stats: Stats,
    /// The allowed execution that reaches the condition's state (the witness of an `exists`,
    /// the counterexample of a `~exists`, for `forall` one where it fails), or else one that
    /// would and the check that forbids it; `null` when there is neither.
    execution: Option<Execution>,
    flags: Vec<String>,
}

#[derive(Serialize)]
struct Condition {
    kind: &'static str,
    holds: bool,
    positive: u64,
    negative: u64,
}

#[derive(Serialize)]
struct Violation {
    kind: &'static str,
    message: String,
    #[serde(flatten)]
    pos: Pos,
    schedule: [(); 0],
}

#[derive(Serialize)]
struct Warning {
    message: String,
}

#[derive(Serialize)]
struct Stats {
    engine: &'static str,
    candidates: u64,
    time_ms: f64,
}

/// A candidate execution: its events, `rf` pairs, `co` per location, final state, and the
/// check it fails (`null` when the model allows it).
#[derive(Serialize)]
struct Execution {
    allowed: bool,
    events: Vec<Event>,
    rf: Vec<(usize, usize)>,
    co: Vec<Vec<usize>>,
    state: BTreeMap<String, i64>,
    failed: Option<Failed>,
}

#[derive(Serialize)]
struct Event {
    id: usize,
    thread: Option<usize>,
    kind: Kind,
    loc: String,
    value: i64,
    tags: Vec<&'static str>,
}

#[derive(Serialize)]
struct Failed {
    check: String,
    kind: &'static str,
    events: Vec<usize>,
}

/// The entry of `a` for a file whose test is `test` (positions from `index`).
pub fn result(a: &AxInput, test: &Test, index: &LineIndex) -> AxResult {
    let time_ms = round3(a.time_ms);
    let (report, locs) = match a.outcome {
        AxOutcome::Stopped(why) => {
            return AxResult {
                complete: false,
                model: a.model.into(),
                states: vec![],
                condition: None,
                violations: vec![],
                witness: [],
                warnings: vec![Warning {
                    message: format!(
                        "stopped ({why}) before every candidate execution was examined: no verdict"
                    ),
                }],
                stats: Stats {
                    engine: "axiomatic",
                    candidates: 0,
                    time_ms,
                },
                execution: None,
                flags: vec![],
            }
        }
        AxOutcome::Done { report, locs } => (report, locs),
    };
    let loc = |addr: i64| {
        locs.get(&addr)
            .cloned()
            .unwrap_or_else(|| format!("{addr:#x}"))
    };
    let exe = |x: &axiomatic::Execution| Execution {
        allowed: x.failure.is_none(),
        events: x
            .events
            .iter()
            .enumerate()
            .map(|(i, e)| Event {
                id: i,
                thread: e.thread,
                kind: e.kind,
                loc: loc(e.addr),
                value: e.value,
                tags: e.tags.clone(),
            })
            .collect(),
        rf: x.rf.clone(),
        co: x.co.clone(),
        state: x.state.iter().cloned().collect(),
        failed: x.failure.as_ref().map(|f| Failed {
            check: f.name.clone(),
            kind: f.kind.as_str(),
            events: f.events.clone(),
        }),
    };
    let violations = match (violated(report), &test.condition) {
        (Some(message), Some(c)) => vec![Violation {
            kind: "condition",
            message: format!("{message} under {}", a.model),
            pos: Pos::new(index, c.span),
            schedule: [],
        }],
        _ => vec![],
    };
    AxResult {
        complete: true,
        model: a.model.into(),
        states: report
            .states
            .iter()
            .map(|s| report.vars.iter().cloned().zip(s.iter().copied()).collect())
            .collect(),
        condition: Some(Condition {
            kind: report.quantifier.as_str(),
            holds: report.ok,
            positive: report.positive,
            negative: report.negative,
        }),
        violations,
        witness: [],
        warnings: vec![],
        stats: Stats {
            engine: "axiomatic",
            candidates: report.candidates,
            time_ms,
        },
        execution: report
            .witness
            .as_ref()
            .or(report.forbidden.as_ref())
            .map(exe),
        flags: report.flags.clone(),
    }
}

/// What is violated, when a `~exists` or `forall` does not hold (an `exists` is a question:
/// its answer is no violation either way).
pub fn violated(r: &Report) -> Option<&'static str> {
    match (r.ok, r.quantifier) {
        (true, _) | (false, Quantifier::Exists) => None,
        (false, Quantifier::NotExists) => {
            Some("~exists condition does not hold: an allowed execution reaches its state")
        }
        (false, Quantifier::Forall) => {
            Some("forall condition does not hold: an allowed execution falsifies it")
        }
    }
}
