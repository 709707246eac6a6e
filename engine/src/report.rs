//! What a check reports (`docs/reference.md#results`): per model, the final states, the condition's verdict with
//! herd's counts, violations with replayable schedules, a witness, stats and completeness.
//!
//! These types are the engine's public result; the CLI renders them as herd7-style text and
//! JSON, the language server as diagnostics, hovers, lenses and inlay hints.

use crate::ast::Quantifier;
use crate::span::Span;
use serde::Serialize;

/// A memory model (`docs/reference.md#models`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    Sc,
    Tso,
    Pso,
}

impl Model {
    pub const ALL: [Model; 3] = [Model::Sc, Model::Tso, Model::Pso];
    /// `sc`, `tso`, `pso` (JSON keys, CLI values).
    pub fn key(self) -> &'static str {
        match self {
            Model::Sc => "sc",
            Model::Tso => "tso",
            Model::Pso => "pso",
        }
    }
    /// `SC`, `TSO`, `PSO` (for people).
    pub fn label(self) -> &'static str {
        match self {
            Model::Sc => "SC",
            Model::Tso => "TSO",
            Model::Pso => "PSO",
        }
    }
    pub fn parse(s: &str) -> Option<Model> {
        match s.to_ascii_lowercase().as_str() {
            "sc" => Some(Model::Sc),
            "tso" | "x86" | "x86-tso" => Some(Model::Tso),
            "pso" | "sparc-pso" => Some(Model::Pso),
            _ => None,
        }
    }
}

/// One reachable final state: every register of every thread (`P0:r0`) and every shared
/// location cell (`x`, `a[1]`), in a canonical order (registers by thread, then memory in
/// declaration order). Two states are equal iff their vectors are equal.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FinalState(pub Vec<(String, i64)>);

impl FinalState {
    pub fn get(&self, key: &str) -> Option<i64> {
        self.0.iter().find(|(k, _)| k == key).map(|&(_, v)| v)
    }
}

/// The verdict of the final condition over the reachable final states
/// (`docs/reference.md#verdicts`).
///
/// Three-valued: a complete exploration decides the condition; an incomplete one decides it
/// only when the states found do (a state falsifying a `forall`, a state satisfying an `exists`
/// or a `~exists`), and otherwise leaves it *not decided*: `holds` then says only what the
/// states found so far show, and nothing may be concluded from it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConditionResult {
    pub kind: Quantifier,
    /// `exists`: some state found satisfies it; `forall`: all do; `~exists`: none does. Over
    /// every reachable state when `decided`.
    pub holds: bool,
    /// States satisfying the condition's expression.
    pub positive: u64,
    /// States not satisfying it.
    pub negative: u64,
    /// Whether `holds` is the answer: the exploration was complete, or the states found decide
    /// the condition whatever the others are ([`ConditionResult::decided_by_states`]).
    pub decided: bool,
}

impl ConditionResult {
    /// Whether the states counted decide the condition whatever states were not seen: a
    /// counterexample to a `forall` (a state that does not satisfy it) or to a `~exists` (a
    /// state that satisfies it), or a witness of an `exists`.
    pub fn decided_by_states(&self) -> bool {
        match self.kind {
            Quantifier::Forall => self.negative > 0,
            Quantifier::Exists | Quantifier::NotExists => self.positive > 0,
        }
    }

    /// Sets `decided` for a report whose exploration was `complete` or not.
    pub fn settle(&mut self, complete: bool) {
        self.decided = complete || self.decided_by_states();
    }

    /// The verdict in three values: `Some(holds)` when decided, `None` when not known yet.
    pub fn verdict(&self) -> Option<bool> {
        self.decided.then_some(self.holds)
    }

    /// herd's `Observation` word for these counts ([`observation`]).
    pub fn observation(&self, complete: bool) -> &'static str {
        observation(self.positive, self.negative, complete)
    }
}

/// herd's `Observation` word for `sat` states satisfying the condition's proposition and
/// `unsat` not: `Never`, `Always` or `Sometimes` over every state of a complete check. A
/// stopped check knows `Sometimes` when it has seen both kinds, and otherwise says `Unknown`
/// (the states not seen could be of either kind; herd, which always runs to the end, has no
/// such word).
pub fn observation(sat: u64, unsat: u64, complete: bool) -> &'static str {
    match (sat, unsat) {
        (s, u) if s > 0 && u > 0 => "Sometimes",
        _ if !complete => "Unknown",
        (0, _) => "Never",
        _ => "Always",
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ViolationKind {
    /// A failed `assert`.
    Assert,
    /// A `forall` or `~exists` that does not hold.
    Condition,
    /// Division by zero, index out of bounds, bad unlock, re-lock.
    Error,
    /// Unfinished threads that can never move again.
    Deadlock,
}

/// What one step of a schedule did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Load,
    Store,
    /// A buffered store reaching memory.
    Flush,
    Fence,
    Lock,
    Unlock,
    Rmw,
    Assert,
    Assume,
    Await,
    /// A branch or loop condition evaluated (no memory access of its own).
    Branch,
    /// A register assignment with no memory access.
    Local,
}

/// One step of a schedule (`docs/reference.md#schedules`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Step {
    /// Index of the thread in [`crate::ast::Test::threads`].
    pub thread: usize,
    /// Source of the instruction (for a flush: of the store being flushed).
    pub span: Span,
    pub action: Action,
    /// The location accessed (`x`, `a[1]`), or the mutex for lock/unlock.
    pub loc: Option<String>,
    /// The value loaded, stored, flushed, or returned by an RMW.
    pub value: Option<i64>,
    /// For a store: whether it went into a store buffer (false under SC and for atomics).
    /// For a load: whether it was forwarded from the thread's own buffer.
    pub buffered: bool,
}

/// The steps of one execution, in order; replaying it reaches the same state.
pub type Schedule = Vec<Step>;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub kind: ViolationKind,
    pub message: String,
    /// The failing assertion, the faulting instruction, the final condition, or (deadlock) the
    /// instruction a blocked thread waits at.
    pub span: Span,
    pub schedule: Schedule,
}

/// Something the user should know that is not a violation (loop bound reached, timeout).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Warning {
    pub message: String,
    pub span: Option<Span>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    /// Executions explored (complete runs of the program, including blocked ones).
    pub executions: u64,
    /// Executions that ended blocked (an `assume` that failed, an `await` that never held,
    /// a loop bound reached) and so contributed no final state.
    pub blocked: u64,
    /// Distinct final states found.
    pub states: u64,
    /// Final states found but not listed in the report's `states`: the memory budget was
    /// reached while the report listed them (0 otherwise).
    pub omitted: u64,
    /// SMT constraints built (MCR only; most queries are decided before they reach Z3, and
    /// then build none).
    pub constraints: u64,
    /// Time spent deciding MCR's queries: the pre-check, the causal search and Z3.
    pub solver_ms: f64,
    /// Wall time of the whole check for this model.
    pub time_ms: f64,
    /// New-value queries MCR asked about its traces (MCR only).
    pub queries: u64,
    /// Distinct program states the reference explorer visited (0 for MCR). A breadth-first
    /// search reaches final states only at its last levels, so an exploration stopped early
    /// may have no execution yet: this says how far it got.
    pub explored: u64,
    /// The engine that answered (with `auto`, the portfolio's winner); `None` in a report
    /// that no engine made (a program that cannot be lowered).
    pub engine: Option<crate::options::EngineKind>,
    /// The engines whose findings the report carries, in the portfolio's order, when it is the
    /// union of several: a portfolio (`auto`) stopped by a deadline, the memory budget or a
    /// cancel before any member finished reports what every member had found
    /// (`docs/reference.md#complete`). Empty otherwise (then `engine` alone answered).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<crate::options::EngineKind>,
}

/// The result of checking one test under one model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelReport {
    pub model: Model,
    /// False when exploration stopped early (timeout, cancellation, limits).
    pub complete: bool,
    /// Reachable final states, sorted.
    pub states: Vec<FinalState>,
    /// `None` when the test has no final condition.
    pub condition: Option<ConditionResult>,
    /// Violations, at most one per (kind, span), each with a schedule.
    pub violations: Vec<Violation>,
    /// For an `exists` that holds: a schedule reaching a satisfying state.
    pub witness: Option<Schedule>,
    pub warnings: Vec<Warning>,
    pub stats: Stats,
    /// Why exploration stopped before its end when an option asked for it (`--first`);
    /// `None` otherwise (a timeout or cancellation only clears `complete`).
    pub stopped: Option<Stopped>,
}

/// An exploration stopped on purpose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stopped {
    /// `--first`: at the first violation.
    FirstViolation,
}

impl Stopped {
    /// The JSON value (`"stopped": "first-violation"`).
    pub fn key(self) -> &'static str {
        match self {
            Stopped::FirstViolation => "first-violation",
        }
    }
}
