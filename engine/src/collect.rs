//! The result collector every explorer feeds: the reference explorer ([`crate::explore`]),
//! MCR ([`crate::mcr`]) and DPOR ([`crate::dpor`]); [`crate::check`] creates it, dispatches to
//! the engine and turns it into the report.
//!
//! An explorer runs executions of the [`crate::semantics`] machine and calls
//! [`Collector::end`] with every terminal state it reaches and the events that led there.
//! The collector keeps final states as a sorted set, violations deduplicated by (kind, span)
//! with the shortest schedule, the shortest witness of an `exists`, condition violations of
//! `forall`/`~exists`, loop-bound warnings and stats. It imports no explorer.

use crate::ast::{Quantifier, Test};
use crate::condition::{condition_fault_in, evaluate_projected, falsifies, observed_keys};
use crate::control::{MemoryBudget, Progress, StopReason};
use crate::finals::{CompiledCondition, FinalKeys};
use crate::ir::Program;
use crate::report::{
    FinalState, Model, ModelReport, Schedule, Stats, Stopped, Violation, ViolationKind, Warning,
};
use crate::semantics::{to_schedule, BlockReason, Event, State, Status};
use crate::span::Span;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

/// Accumulates what the executions of one check found.
pub struct Collector<'a> {
    pub test: &'a Test,
    pub program: &'a Program,
    pub model: Model,
    /// The final states' values, in [`FinalKeys`] order (strings only in the report).
    states: BTreeSet<Vec<i64>>,
    keys: FinalKeys,
    /// The final condition over those values.
    condition: Option<CompiledCondition>,
    violations: BTreeMap<(ViolationKind, Span), Violation>,
    witness: Option<Schedule>,
    loop_bound_spans: BTreeSet<Span>,
    /// Explorers add their counters here (`constraints`, `solver_ms` for MCR).
    pub stats: Stats,
    /// Set to false by an explorer that stopped early.
    pub complete: bool,
    /// Extra warnings an explorer wants reported.
    pub warnings: Vec<Warning>,
    /// Why the exploration stopped early (the incompleteness warning says it).
    pub stop: Option<StopReason>,
    /// `--first`: explorers stop once [`Collector::stopped_first`] says so.
    pub first: bool,
    /// Called with each violation when it is first recorded ([`Control::with_on_violation`]).
    pub on_violation: Option<crate::control::ViolationFn>,
    /// Where the explorer counts its work ([`Collector::count_work`]), if anyone counts.
    pub work: Option<WorkFn>,
    /// The check's memory budget: the report lists final states only while it is not reached
    /// ([`Collector::finish`]).
    pub budget: Option<MemoryBudget>,
}

/// Where an engine counts its work, in its own units: the `auto` portfolio ([`crate::auto`])
/// weighs them and lets the engine that finished with the least answer. The sites are fixed
/// points of each engine's deterministic exploration, listed in [`crate::engine`]; a poll of
/// [`crate::control::Control::should_stop`] counts nothing.
pub type WorkFn = std::sync::Arc<dyn Fn(u64) + Send + Sync>;

impl<'a> Collector<'a> {
    pub fn new(test: &'a Test, program: &'a Program, model: Model) -> Collector<'a> {
        Collector {
            test,
            program,
            model,
            states: BTreeSet::new(),
            keys: FinalKeys::new(program),
            condition: CompiledCondition::new(test, program),
            violations: BTreeMap::new(),
            witness: None,
            loop_bound_spans: BTreeSet::new(),
            stats: Stats::default(),
            complete: true,
            warnings: Vec::new(),
            stop: None,
            first: false,
            on_violation: None,
            work: None,
            budget: None,
        }
    }

    /// Counts `units` of the explorer's work on the portfolio's meter (nothing outside it).
    pub fn count_work(&self, units: u64) {
        if let Some(w) = &self.work {
            w(units)
        }
    }

    /// With `--first`: whether a violation has been found, so exploration must stop.
    pub fn stopped_first(&self) -> bool {
        self.first && !self.violations.is_empty()
    }

    /// Records one execution that ended in `state` (which must not be running) after `events`.
    pub fn end(&mut self, state: &State, events: &[Event]) {
        self.stats.executions += 1;
        if matches!(state.status(), Status::Blocked { .. }) {
            self.stats.blocked += 1;
        }
        self.record(state, events);
    }

    /// Records what the terminal `state` reached by `events` shows (final state, violation,
    /// loop-bound warning) without counting an execution: for explorers that meet one outcome
    /// in several executions and count executions themselves (DPOR's pending faults).
    pub fn record(&mut self, state: &State, events: &[Event]) {
        match state.status() {
            Status::Running => {}
            Status::Finished => self.final_values(FinalKeys::values(self.program, state), events),
            Status::Violation {
                kind,
                message,
                span,
            } => self.violation(*kind, message.clone(), *span, events),
            Status::Blocked { reason, span } => {
                if *reason == BlockReason::LoopBound {
                    self.loop_bound_spans.insert(*span);
                }
            }
        }
    }

    /// Records the final state with `values` (in [`FinalKeys`] order) reached by `events`.
    fn final_values(&mut self, values: Vec<i64>, events: &[Event]) {
        let sat = self.condition.as_ref().map(|c| c.holds(&values));
        if let (Some(c), Some(sat)) = (&self.test.condition, sat) {
            if falsifies(c.quantifier, sat) {
                let message = match c.quantifier {
                    Quantifier::Forall => {
                        "forall condition does not hold: a final state falsifies it"
                    }
                    _ => "~exists condition does not hold: a final state satisfies it",
                };
                self.violation(
                    ViolationKind::Condition,
                    message.to_string(),
                    c.span,
                    events,
                );
            }
            if c.quantifier == Quantifier::Exists
                && sat
                && self.witness.as_ref().is_none_or(|w| events.len() < w.len())
            {
                self.witness = Some(to_schedule(self.program, events));
            }
        }
        self.states.insert(values);
    }

    /// Records a violation reached by `events`, keeping the shortest schedule per (kind, span).
    ///
    /// With `--first`, only the first violation recorded: an explorer stops at its next look at
    /// [`Collector::stopped_first`], and DPOR looks at the end of an execution, where a second
    /// thread's fault in the same execution had been recorded too (two violations reported
    /// where `--first` promises one: `tests/regressions/dpor-first-two-faults.litmus`).
    pub fn violation(
        &mut self,
        kind: ViolationKind,
        message: String,
        span: Span,
        events: &[Event],
    ) {
        if self.stopped_first() && !self.violations.contains_key(&(kind, span)) {
            return;
        }
        let better = self
            .violations
            .get(&(kind, span))
            .is_none_or(|v| events.len() < v.schedule.len());
        if better {
            let schedule = to_schedule(self.program, events);
            let v = Violation {
                kind,
                message,
                span,
                schedule,
            };
            let first = !self.violations.contains_key(&(kind, span));
            if let Some(f) = self.on_violation.as_ref().filter(|_| first) {
                f(&v);
            }
            self.violations.insert((kind, span), v);
        }
    }

    pub fn progress(&self) -> Progress {
        Progress {
            executions: self.stats.executions,
            states: self.states.len() as u64,
            violations: self.violations.len() as u64,
        }
    }

    /// The report, with `elapsed` as wall time.
    ///
    /// A final state as the report lists it (a string per key) takes several times the memory
    /// of its values in the set: the states are made one by one, each value vector freed as its
    /// state is made, and only while the memory budget is not reached; the rest are counted in
    /// `stats.omitted` and a warning says so. The condition's verdict, its counts and the
    /// division-by-zero warning are worked out from the values, over every state found.
    pub fn finish(mut self, elapsed: Duration) -> ModelReport {
        let found = self.states.len();
        let mut condition = self.condition_result();
        let fault = condition_fault_in(
            self.test,
            found,
            self.states.iter().map(|v| self.keys.state(v)),
        );
        let mut states: Vec<FinalState> = Vec::new();
        let mut omitted = 0u64;
        // What one listed state takes, about (a pair and a string per key); the listing keeps
        // as much again free of the budget for its rendering (text, JSON) after the check.
        let per_state = self.keys.listed_bytes();
        let mut listed = 0u64;
        for v in std::mem::take(&mut self.states) {
            let fits = self
                .budget
                .as_ref()
                .is_none_or(|b| (b.used)().saturating_add(listed) < b.limit && !b.reached());
            if omitted == 0 && fits {
                states.push(self.keys.state(&v));
                listed += per_state;
            } else {
                omitted += 1;
            }
        }
        let witness = match &condition {
            Some(c) if c.kind == Quantifier::Exists && c.holds => self.witness.take(),
            _ => None,
        };
        let mut violations: Vec<Violation> = self.violations.into_values().collect();
        violations.sort_by_key(|v| (v.span, v.kind));
        let mut warnings: Vec<Warning> = self
            .loop_bound_spans
            .iter()
            .map(|&s| Warning {
                message: format!(
                    "loop bound {} reached: exploration was bounded (`--unbounded` checks every \
                     number of iterations)",
                    self.program.loop_bound
                ),
                span: Some(s),
            })
            .collect();
        let stopped = (self.first && !violations.is_empty()).then_some(Stopped::FirstViolation);
        let complete = self.complete && stopped.is_none();
        if let Some(c) = &mut condition {
            c.settle(complete);
        }
        if stopped.is_some() {
            warnings.push(Warning {
                message: "exploration stopped at the first violation (--first): results are \
                          incomplete"
                    .to_string(),
                span: None,
            });
        } else if !complete {
            warnings.push(Warning {
                message: incomplete_message(self.stop),
                span: None,
            });
        }
        if omitted > 0 {
            warnings.push(Warning {
                message: omitted_message(omitted, found as u64, self.budget),
                span: None,
            });
        }
        warnings.extend(self.warnings);
        warnings.extend(fault);
        let mut stats = self.stats;
        stats.states = found as u64;
        stats.omitted = omitted;
        stats.time_ms = elapsed.as_secs_f64() * 1000.0;
        ModelReport {
            model: self.model,
            complete,
            states,
            condition,
            violations,
            witness,
            warnings,
            stats,
            stopped,
        }
    }
}

impl Collector<'_> {
    /// The condition's verdict over the values of every final state found, as
    /// [`crate::condition::evaluate_condition`] gives it over the states.
    fn condition_result(&self) -> Option<crate::report::ConditionResult> {
        self.test.condition.as_ref()?;
        let keys = observed_keys(self.test);
        let at: Vec<Option<usize>> = keys.iter().map(|k| self.keys.position(k)).collect();
        let projected = self
            .states
            .iter()
            .map(|v| at.iter().map(|i| i.map_or(0, |i| v[i])).collect())
            .collect();
        evaluate_projected(self.test, &keys, projected)
    }
}

/// The warning of a report that lists only some of the final states it found.
fn omitted_message(omitted: u64, found: u64, budget: Option<MemoryBudget>) -> String {
    format!(
        "{omitted} of {found} final states are not listed: the memory budget{} was reached \
         while listing them (the condition's verdict and counts cover them all; raise it with \
         `--max-memory MIB` or the `litmus.maxMemory` setting)",
        budget.map_or(String::new(), |b| format!(" of {}", human_bytes(b.limit)))
    )
}

/// `bytes` for people: "512 MiB" below 1 GiB, then GiB with at most one decimal ("1.5 GiB",
/// "3 GiB"); below 1 MiB, KiB.
pub fn human_bytes(bytes: u64) -> String {
    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;
    if bytes < MIB {
        format!("{} KiB", bytes >> 10)
    } else if bytes < GIB {
        format!("{} MiB", bytes / MIB)
    } else {
        let tenths = (bytes as u128 * 10 + GIB as u128 / 2) / GIB as u128;
        if tenths.is_multiple_of(10) {
            format!("{} GiB", tenths / 10)
        } else {
            format!("{}.{} GiB", tenths / 10, tenths % 10)
        }
    }
}

/// The warning of an incomplete report: why it stopped and, for the memory budget, how to
/// raise it.
pub fn incomplete_message(stop: Option<StopReason>) -> String {
    match stop {
        Some(StopReason::Cancelled) => {
            "exploration stopped early (cancelled): results are incomplete".into()
        }
        Some(StopReason::Timeout) => {
            "exploration stopped early (timeout): results are incomplete".into()
        }
        Some(StopReason::Memory { budget, origin }) => format!(
            "exploration stopped early: the memory budget of {}{} was reached; results are \
             incomplete (raise it with `--max-memory MIB` or the `litmus.maxMemory` setting)",
            human_bytes(budget),
            if origin.is_empty() {
                String::new()
            } else {
                format!(" ({origin})")
            }
        ),
        None => {
            "exploration stopped early (timeout or cancellation): results are incomplete".into()
        }
    }
}
