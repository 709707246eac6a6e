//! `litmus check --json` on herd's AArch64 and RISC-V tests (`docs/arm-riscv.md`): `{"version":
//! 1, "axiomatic": true, "files": [...]}`, one entry per test with the axiomatic engine's
//! report and its witness or forbidding execution.

use litmus_engine::ast::Test;
use litmus_engine::axiomatic::{self, Kind, Report};
use serde::Serialize;

/// The whole document.
#[derive(Serialize)]
pub struct Document {
    version: u32,
    axiomatic: bool,
    files: Vec<File>,
}

impl Document {
    pub fn new(files: Vec<File>) -> Document {
        Document {
            version: 1,
            axiomatic: true,
            files,
        }
    }
}

/// One test's report under one cat model.
#[derive(Serialize)]
pub struct File {
    path: String,
    test: String,
    model: String,
    condition: Condition,
    vars: Vec<String>,
    states: Vec<Vec<i64>>,
    candidates: u64,
    witness: Option<Execution>,
    forbidden: Option<Execution>,
    flags: Vec<String>,
}

#[derive(Serialize)]
struct Condition {
    /// The condition's source text.
    text: String,
    kind: &'static str,
    holds: bool,
    positive: u64,
    negative: u64,
}

/// A candidate execution: its events, `rf` pairs, `co` per location, final state, and the
/// check it fails.
#[derive(Serialize)]
struct Execution {
    events: Vec<Event>,
    rf: Vec<(usize, usize)>,
    co: Vec<Vec<usize>>,
    state: Vec<StateEntry>,
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
struct StateEntry {
    key: String,
    value: i64,
}

#[derive(Serialize)]
struct Failed {
    check: String,
    kind: &'static str,
    events: Vec<usize>,
}

impl File {
    /// `loc` names an address (`x`, `a[1]`) as the test does.
    pub fn new(
        path: &str,
        model: &str,
        test: &Test,
        text: &str,
        r: &Report,
        loc: &dyn Fn(i64) -> String,
    ) -> File {
        let exe = |x: &axiomatic::Execution| Execution {
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
            state: x
                .state
                .iter()
                .map(|(k, v)| StateEntry {
                    key: k.clone(),
                    value: *v,
                })
                .collect(),
            failed: x.failure.as_ref().map(|f| Failed {
                check: f.name.clone(),
                kind: f.kind.as_str(),
                events: f.events.clone(),
            }),
        };
        let cond = test.condition.as_ref().map_or("", |c| {
            text.get(c.span.start as usize..c.span.end as usize)
                .unwrap_or("")
        });
        File {
            path: path.into(),
            test: test.name.text.clone(),
            model: model.into(),
            condition: Condition {
                text: cond.into(),
                kind: r.quantifier.as_str(),
                holds: r.ok,
                positive: r.positive,
                negative: r.negative,
            },
            vars: r.vars.clone(),
            states: r.states.clone(),
            candidates: r.candidates,
            witness: r.witness.as_ref().map(exe),
            forbidden: r.forbidden.as_ref().map(exe),
            flags: r.flags.clone(),
        }
    }
}
