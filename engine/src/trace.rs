//! The trace view of a reported schedule: what the machine holds after every step.
//!
//! [`trace`] replays a schedule (a violation's or a witness's) through the interpreter
//! ([`crate::replay::replay_observed`]) and records, after every step, each thread's store
//! buffer (the stores still waiting, oldest first; under PSO grouped by location in declaration
//! order, each group oldest first), memory, and each thread's named registers. The last row's
//! snapshot is the state the schedule ends in; [`Trace::end`] says what that is (a final state,
//! the violation, a blocked execution). Alongside, [`Trace::graph`] is the execution as a graph
//! of events ([`crate::graph`]).
//!
//! No I/O, deterministic: the same test, model, options and schedule give the same trace. A
//! schedule that does not replay is an error (with the step), never a panic.

use crate::ast::Test;
use crate::graph::{self, Graph};
use crate::ir::Program;
use crate::options::CheckOptions;
use crate::replay::{replay_observed, ReplayEnd};
use crate::report::{FinalState, Model, Step, ViolationKind};
use crate::semantics::{to_step, BlockReason, Event, State};
use crate::span::Span;
use serde::Serialize;

/// A store waiting in a buffer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Pending {
    pub loc: String,
    pub value: i64,
    /// The store instruction.
    pub span: Span,
}

/// What the machine holds at one point of the execution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Snapshot {
    /// Every shared cell and its value in memory, in declaration order.
    pub memory: Vec<(String, i64)>,
    /// Per thread, the stores still waiting: TSO in FIFO order; PSO by location (declaration
    /// order), each location's stores in FIFO order; always empty under SC.
    pub buffers: Vec<Vec<Pending>>,
    /// Per thread, its named registers (`r0`), as a final state names them without the thread.
    pub registers: Vec<Vec<(String, i64)>>,
}

/// One step of the schedule and the state after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TraceRow {
    /// The step as reported (thread, action, location, value, buffered, span).
    pub step: Step,
    pub after: Snapshot,
}

/// How the traced execution ends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "end", rename_all = "lowercase")]
pub enum TraceEnd {
    /// Every thread finished and every buffer drained.
    Final { state: FinalState },
    Violation {
        kind: ViolationKind,
        message: String,
        span: Span,
    },
    /// A false `assume` or the loop bound.
    Blocked { reason: String, span: Span },
    /// The schedule stops while the execution could go on.
    Running,
}

/// The trace of one schedule under one model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Trace {
    pub model: Model,
    /// Thread names, in declaration order (the columns).
    pub threads: Vec<String>,
    /// Shared cells in declaration order (`x`, `a[1]`).
    pub locations: Vec<String>,
    /// Before the first step.
    pub initial: Snapshot,
    pub rows: Vec<TraceRow>,
    pub end: TraceEnd,
    /// The execution as a graph of events with po, rf, co and fr edges.
    pub graph: Graph,
}

fn snapshot(p: &Program, s: &State) -> Snapshot {
    let memory = p
        .cells
        .iter()
        .zip(&s.mem)
        .map(|(c, v)| (c.clone(), *v))
        .collect();
    let buffers = s
        .buffers
        .iter()
        .map(|bufs| {
            bufs.iter()
                .flat_map(|b| b.iter())
                .map(|e| Pending {
                    loc: p.cells.get(e.cell as usize).cloned().unwrap_or_default(),
                    value: e.value,
                    span: e.span,
                })
                .collect()
        })
        .collect();
    let registers = p
        .threads
        .iter()
        .zip(&s.threads)
        .map(|(th, ts)| {
            th.regs
                .iter()
                .zip(&ts.regs)
                .map(|(n, v)| (n.clone(), *v))
                .collect()
        })
        .collect();
    Snapshot {
        memory,
        buffers,
        registers,
    }
}

/// The trace of `schedule` under `model`: a row per step with the state after it, how the
/// execution ends, and its event graph. An error names the first step that does not replay.
pub fn trace(
    test: &Test,
    model: Model,
    opts: &CheckOptions,
    schedule: &[Step],
) -> Result<Trace, String> {
    let mut initial = None;
    let mut rows = Vec::with_capacity(schedule.len());
    let mut events: Vec<Event> = Vec::with_capacity(schedule.len());
    let mut program = None;
    let end = replay_observed(test, model, opts, schedule, |p, s, ev| {
        let snap = snapshot(p, s);
        match ev {
            None => {
                initial = Some(snap);
                program = Some(p.clone());
            }
            Some(e) => {
                rows.push(TraceRow {
                    step: to_step(p, e),
                    after: snap,
                });
                events.push(e.clone());
            }
        }
    })?;
    let program = program.ok_or("the schedule did not start")?;
    let end = match end {
        ReplayEnd::Final(state) => TraceEnd::Final { state },
        ReplayEnd::Violation {
            kind,
            message,
            span,
        } => TraceEnd::Violation {
            kind,
            message,
            span,
        },
        ReplayEnd::Blocked { reason, span } => TraceEnd::Blocked {
            reason: match reason {
                BlockReason::Assume => "assume".into(),
                BlockReason::LoopBound => "loop-bound".into(),
            },
            span,
        },
        ReplayEnd::Running => TraceEnd::Running,
    };
    Ok(Trace {
        model,
        threads: program.threads.iter().map(|t| t.name.clone()).collect(),
        locations: program.cells.clone(),
        initial: initial.ok_or("the schedule did not start")?,
        graph: graph::build(&program, &events),
        rows,
        end,
    })
}

impl Trace {
    /// The snapshot after step `i` (0-based), or the initial one for `None`.
    pub fn state_after(&self, i: Option<usize>) -> &Snapshot {
        match i {
            None => &self.initial,
            Some(i) => self.rows.get(i).map_or(&self.initial, |r| &r.after),
        }
    }

    /// The last snapshot as a final state (registers `P0:r0` by thread, then memory), the
    /// order and keys [`crate::report::FinalState`] uses.
    pub fn last_as_final_state(&self) -> FinalState {
        let s = self.rows.last().map_or(&self.initial, |r| &r.after);
        let mut v = Vec::new();
        for (t, regs) in s.registers.iter().enumerate() {
            for (n, val) in regs {
                v.push((format!("{}:{n}", self.threads[t]), *val));
            }
        }
        v.extend(s.memory.iter().cloned());
        FinalState(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Action;
    use crate::syntax;
    use crate::{check, CheckOptions, Control};

    fn parse(src: &str) -> Test {
        let p = syntax::parse(src);
        p.test.expect("parses")
    }

    const SB: &str = "litmus SB\nshared x = 0, y = 0;\nthread P0 {\n  x = 1;\n  r0 = y;\n}\n\
                      thread P1 {\n  y = 1;\n  r1 = x;\n}\nexists (P0:r0 == 0 && P1:r1 == 0)\n";

    #[test]
    fn sb_under_tso_shows_both_stores_waiting_while_the_loads_read_zero() {
        let test = parse(SB);
        let opts = CheckOptions::default();
        let r = check(&test, Model::Tso, &opts, &Control::new());
        let w = r.witness.expect("SB's outcome is reachable under TSO");
        let t = trace(&test, Model::Tso, &opts, &w).unwrap();
        assert_eq!(t.threads, ["P0", "P1"]);
        assert_eq!(t.locations, ["x", "y"]);
        assert_eq!(t.rows.len(), w.len());
        // Both loads read 0 from memory; at the later one, the other thread has already run
        // its store, which is still waiting in its buffer.
        let loads: Vec<usize> = (0..t.rows.len())
            .filter(|&i| t.rows[i].step.action == Action::Load)
            .collect();
        assert_eq!(loads.len(), 2);
        for &i in &loads {
            let row = &t.rows[i];
            let loc = row.step.loc.clone().unwrap();
            let before = t.state_after(i.checked_sub(1));
            assert!(before.memory.contains(&(loc, 0)), "{row:?}");
            assert_eq!(row.step.value, Some(0));
        }
        let later = &t.rows[loads[1]];
        let waiting = &t.state_after(Some(loads[1] - 1)).buffers[1 - later.step.thread];
        assert_eq!(waiting.len(), 1, "{later:?}");
        assert_eq!(Some(&waiting[0].loc), later.step.loc.as_ref());
        assert_eq!(waiting[0].value, 1);
        match &t.end {
            TraceEnd::Final { state } => assert_eq!(state, &t.last_as_final_state()),
            other => panic!("{other:?}"),
        }
        assert!(t
            .rows
            .last()
            .unwrap()
            .after
            .buffers
            .iter()
            .all(|b| b.is_empty()));
    }

    #[test]
    fn pso_buffers_group_by_location_in_declaration_order() {
        let src = "litmus W\nshared x = 0, y = 0;\nthread P0 {\n  y = 1;\n  x = 2;\n  y = 3;\n}\n";
        let test = parse(src);
        let opts = CheckOptions::default();
        let sched: Vec<Step> = (0..3)
            .map(|_| Step {
                thread: 0,
                span: Span::default(),
                action: Action::Store,
                loc: None,
                value: None,
                buffered: true,
            })
            .collect();
        // A hand-built schedule does not match spans: replay says which step.
        assert!(trace(&test, Model::Pso, &opts, &sched).is_err());
        let r = check(&test, Model::Pso, &opts, &Control::new());
        assert!(r.violations.is_empty());
        // Build the schedule by replaying the program's own stores (no flushes yet).
        let p = Program::lower(&test, 8).unwrap();
        let mut s = State::initial(&p, Model::Pso);
        let evs: Vec<Step> = (0..3)
            .map(|_| to_step(&p, &s.step(&p, crate::semantics::Choice::Exec(0))))
            .collect();
        let t = trace(&test, Model::Pso, &opts, &evs).unwrap();
        let last = &t.rows[2].after.buffers[0];
        let got: Vec<(&str, i64)> = last.iter().map(|e| (e.loc.as_str(), e.value)).collect();
        assert_eq!(got, [("x", 2), ("y", 1), ("y", 3)]);
        assert_eq!(t.end, TraceEnd::Running);
        let tso = trace(&test, Model::Tso, &opts, &evs).unwrap();
        let got: Vec<(&str, i64)> = tso.rows[2].after.buffers[0]
            .iter()
            .map(|e| (e.loc.as_str(), e.value))
            .collect();
        assert_eq!(got, [("y", 1), ("x", 2), ("y", 3)]);
    }
}
