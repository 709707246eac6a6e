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
use crate::ctest::CAnswer;

/// What an axiomatic check answered, for its entry.
pub enum AxOutcome<'a> {
    /// The report, with the names of the addresses its executions touch.
    Done {
        report: &'a Report,
        locs: &'a BTreeMap<i64, String>,
        /// A C test's states as herd writes them and its judgement.
        c: Option<&'a CAnswer>,
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
    states: Vec<BTreeMap<String, Value>>,
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
    /// A C test: herd's observation and the answer judged against its `Result:` header.
    #[serde(skip_serializing_if = "Option::is_none")]
    judgement: Option<Judgement>,
}

/// A value of a final state: a number, or (a C test) a location's name for a pointer, or
/// herd's symbol for a value no write is known to write.
#[derive(Serialize)]
#[serde(untagged)]
enum Value {
    Int(i64),
    Name(String),
}

/// A C test's answer against its `Result:` header (`docs/reference.md#json`).
#[derive(Serialize)]
struct Judgement {
    /// `Never`, `Sometimes` or `Always`, as herd's `Observation` line.
    observation: &'static str,
    /// The header as written (`Result: Never DATARACE`); `null` when the test has none.
    header: Option<String>,
    /// Whether the answer agrees with the header (`null` without one).
    agrees: Option<bool>,
    /// The sentence `litmus check` prints.
    message: Option<String>,
    /// Only the executions relevant to the condition were examined (herd's `-speedcheck`):
    /// the verdict is exact, the counts, states and flags are theirs alone.
    speedcheck: bool,
}

/// herd's state line `0:r0=1; [x]=y;` as a map, numbers as numbers.
fn herd_state(line: &str) -> BTreeMap<String, Value> {
    line.split(';')
        .filter_map(|kv| kv.trim().split_once('='))
        .map(|(k, v)| {
            let v = v.trim();
            let v = v
                .parse()
                .map_or_else(|_| Value::Name(v.to_string()), Value::Int);
            (k.trim().to_string(), v)
        })
        .collect()
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
    let (report, locs, c) = match a.outcome {
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
                judgement: None,
            }
        }
        AxOutcome::Done { report, locs, c } => (report, locs, c),
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
    let violations = match (c, violated(report), &test.condition) {
        // a C test: its answer disagrees with its `Result:` header
        (Some(c), _, _) => c
            .judged
            .iter()
            .filter(|j| !j.agrees)
            .map(|j| Violation {
                kind: "result-header",
                message: format!("the answer {} under {}", j.line, a.model),
                pos: Pos::new(index, j.expected.span),
                schedule: [],
            })
            .collect(),
        (None, Some(message), Some(cond)) => vec![Violation {
            kind: "condition",
            message: format!("{message} under {}", a.model),
            pos: Pos::new(index, cond.span),
            schedule: [],
        }],
        _ => vec![],
    };
    let states = match c {
        Some(c) => c.states.iter().map(|l| herd_state(l)).collect(),
        None => report
            .states
            .iter()
            .map(|s| {
                let values = s.iter().map(|v| Value::Int(*v));
                report.vars.iter().cloned().zip(values).collect()
            })
            .collect(),
    };
    let judgement = c.map(|c| Judgement {
        observation: c.observation,
        header: c.judged.as_ref().map(|j| header(&j.expected)),
        agrees: c.judged.as_ref().map(|j| j.agrees),
        message: c.judged.as_ref().map(|j| j.line.clone()),
        speedcheck: c.partial,
    });
    AxResult {
        complete: true,
        model: a.model.into(),
        states,
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
        judgement,
    }
}

/// The `Result:` header as the test writes it.
fn header(e: &litmus_engine::c::Expected) -> String {
    use litmus_engine::c::source::Outcome;
    let o = match &e.outcome {
        Outcome::Never => "Never",
        Outcome::Sometimes => "Sometimes",
        Outcome::Always => "Always",
        Outcome::Maybe => "Maybe",
        Outcome::Deadlock => "DEADLOCK",
        Outcome::Other(s) => s,
    };
    format!("Result: {o}{}", if e.datarace { " DATARACE" } else { "" })
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
