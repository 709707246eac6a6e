//! Maximal causality reduction (MCR) under SC, TSO and PSO, with Z3.
//!
//! Implements [Huang and Huang 2016](docs/papers.md#huang-huang-2016) §2-4 (Huang's MCR with the relaxed must-happen-before
//! of TSO/PSO and the TSO/PSO replay), corrected where the paper loses behaviours: see
//! [`encode`] for the issue/flush split that makes store forwarding expressible.
//!
//! The loop ([`explore_with`], `explore.rs`):
//! 1. replay a seed prefix (a sequence of [`crate::semantics::Choice`]s, `seed.rs`) through the
//!    interpreter of [`crate::semantics`], then run a deterministic default scheduler to the end
//!    of the execution; that execution's steps form a [`trace::Trace`] (`observe.rs`);
//! 2. for every read and every value some write of the trace gives its location (plus lock
//!    orders and final values: [`encode::Encoder::targets`]), ask for an interleaving of the
//!    trace's events in which that read returns the new value while every earlier read keeps
//!    its value: a query on the trace's maximal causal model, decided by the pre-check, the
//!    causal search ([`search`]) or Z3 ([`encode`]), cheapest first (`decide.rs`);
//! 3. each answer is a new seed: the events ordered before the target, plus the target, mapped
//!    back to choices (`Exec(thread)` for a thread step, `Flush` for a flush — the paper's replay
//!    algorithm reduces to this because flushes are explicit steps of the semantics).
//!
//! Every execution MCR reports is one the interpreter actually ran, so MCR is sound by
//! construction; completeness rests on the encoding and is checked against the exhaustive
//! explorer by `engine/tests/mcr_vs_exhaustive.rs`.
//!
//! Reductions (`prune.rs`): a seed whose prefix reaches a point an earlier seed or default run
//! reached is dropped, and a default run that reaches a point an ancestor run passed stops
//! there. Seeds with equal choice sequences and traces with equal events are handled once.
//!
//! Invariants: deterministic (no randomness, ordered containers and a fixed target order); the
//! Z3 context lives on the calling thread; the `Control` cancel flag and the timeout are checked
//! between executions and between solver calls, and each solver call is bounded by the time
//! left.

mod decide;
pub mod encode;
mod explore;
mod observe;
mod prune;
pub mod search;
mod seed;
mod stats;
pub mod trace;
mod tuning;

pub use explore::explore_with;
#[cfg(test)]
pub(crate) use observe::trace_of;
pub use stats::{CheckCounts, McrStats};
pub use tuning::{Tuning, SEARCH_BUDGET};

use crate::ir::Program;
use crate::options::{CheckOptions, Control};
use crate::report::Model;
use crate::semantics::{Event, State};

/// One finished execution: its steps and the state it ended in (`Finished`, a violation, or
/// blocked).
pub struct Execution<'a> {
    pub events: &'a [Event],
    pub state: &'a State,
}

/// The `EngineKind::Mcr` entry point: explores `program` under `model` and feeds every
/// execution to `col`, adding MCR's counters (constraints, solver time) to its stats and
/// marking it incomplete when stopped early.
pub fn explore(
    program: &Program,
    model: Model,
    opts: &CheckOptions,
    ctl: &Control,
    col: &mut crate::collect::Collector<'_>,
) {
    // `--first`: MCR stops as on cancellation, through a child control with a stop flag of its
    // own, so that the caller's is left alone; the child still stops at the caller's cancel,
    // deadline and memory budget (and interrupts Z3 at them).
    let own = ctl.child();
    let inner = if col.first { &own } else { ctl };
    let stats = explore_with(program, model, opts, inner, Tuning::default(), &mut |ex| {
        // A run can end in several executions at once (the endings beside a default run):
        // with `--first`, those after the first violation are not reported.
        if col.stopped_first() {
            return;
        }
        col.end(ex.state, ex.events);
        ctl.report(&col.progress());
        if col.stopped_first() {
            own.cancel();
        }
    });
    col.stats.constraints += stats.constraints;
    col.stats.solver_ms += stats.solver_ms;
    col.stats.queries += stats.queries;
    if !stats.complete {
        col.complete = false;
    }
    if let Some(why) = stats.sdg_skipped {
        col.warnings.push(crate::report::Warning {
            message: format!(
                "the dependency graph was not built ({why}): every read stays constrained, \
                 which is exact but slower"
            ),
            span: None,
        });
    }
}
