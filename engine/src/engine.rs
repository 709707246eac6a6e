//! The engine interface: what an engine answers, a report for one lowered program under one
//! memory model ([`Engine::check`]) and its robustness ([`Engine::robustness`]), not how it
//! explores. The explorers of schedules (the reference explorer, MCR, DPOR) implement it here
//! by feeding one [`Collector`]; an engine that enumerates candidate executions instead (an
//! axiomatic one) or proves unbounded properties implements the same two methods, and the
//! `auto` portfolio ([`crate::auto`]), fence synthesis ([`crate::fences`]) and the public
//! entry points ([`crate::check`]) reach every engine through it.
//!
//! Layering (no import cycle, `engine/tests/house.rs`): the explorers (`explore`, `mcr`,
//! `dpor`) and the robustness searches (`robust`) import neither this module nor each other's
//! entry points; this module imports them; `auto` imports this module; `check` imports both.

use std::time::Instant;

use crate::ast::Test;
use crate::collect::Collector;
use crate::control::Control;
use crate::ir::Program;
use crate::options::{CheckOptions, EngineKind};
use crate::report::{Model, ModelReport};
use crate::robust::Robustness;

pub use crate::collect::WorkFn;

/// One question for an engine: a test, its program lowered once, the model and the options.
#[derive(Clone)]
pub struct Task<'a> {
    pub test: &'a Test,
    pub program: &'a Program,
    pub model: Model,
    pub opts: &'a CheckOptions,
    /// Where to count work (for a member, the portfolio's meter; for the portfolio, the
    /// weighted work of all its members), if anyone counts.
    pub work: Option<WorkFn>,
}

impl<'a> Task<'a> {
    pub fn new(test: &'a Test, program: &'a Program, model: Model, opts: &'a CheckOptions) -> Self {
        Task {
            test,
            program,
            model,
            opts,
            work: None,
        }
    }
}

/// An engine: answers for a lowered program under a model.
pub trait Engine: Sync {
    /// The report for `task`: every reachable final state, the condition's verdict,
    /// violations with schedules, a witness, stats (`stats.engine` names the explorer that
    /// answered). Stops when `ctl` says so, with `complete: false` and the reason.
    fn check(&self, task: &Task<'_>, ctl: &Control) -> ModelReport;
    /// Whether the program is robust under `task.model` (its executions are SC's).
    fn robustness(&self, task: &Task<'_>, ctl: &Control) -> Robustness;
}

/// The explorer `kind`.
pub fn engine(kind: EngineKind) -> &'static dyn Engine {
    match kind {
        EngineKind::Exhaustive => &Exhaustive,
        EngineKind::Mcr => &Mcr,
        EngineKind::Dpor => &Dpor,
    }
}

/// The report of an explorer of schedules: one collector, fed by `explore`; when it stops
/// early, the reason is `ctl`'s (unless the explorer recorded its own).
fn collect(
    task: &Task<'_>,
    ctl: &Control,
    kind: EngineKind,
    explore: impl FnOnce(&mut Collector<'_>),
) -> ModelReport {
    let start = Instant::now();
    let mut col = Collector::new(task.test, task.program, task.model);
    col.first = task.opts.first;
    col.on_violation = ctl.on_violation();
    col.work = task.work.clone();
    col.budget = ctl.memory_budget();
    explore(&mut col);
    if !col.complete && col.stop.is_none() {
        col.stop = ctl.stop_reason();
    }
    let mut report = col.finish(start.elapsed());
    report.stats.engine = Some(kind);
    report
}

/// The attack search, the robustness of every engine without a by-product of its own.
fn attack(task: &Task<'_>, ctl: &Control) -> Robustness {
    crate::robust::robustness_program(task.program, task.model, task.opts, ctl)
}

/// The reference explorer. Work: one unit per step ([`crate::explore::exhaustive`]).
struct Exhaustive;

impl Engine for Exhaustive {
    fn check(&self, task: &Task<'_>, ctl: &Control) -> ModelReport {
        collect(task, ctl, EngineKind::Exhaustive, |col| {
            crate::explore::exhaustive::explore(task.program, task.model, task.opts, ctl, col)
        })
    }
    fn robustness(&self, task: &Task<'_>, ctl: &Control) -> Robustness {
        attack(task, ctl)
    }
}

/// MCR. Work: one unit per poll while building the dependency graph, one more if it was
/// skipped, one per seed and replayed step checked for a stop, and a decided query's share
/// (half a unit, and a quarter per state of the causal search and per unit of Z3's resource
/// count; [`crate::mcr`]).
struct Mcr;

impl Engine for Mcr {
    fn check(&self, task: &Task<'_>, ctl: &Control) -> ModelReport {
        collect(task, ctl, EngineKind::Mcr, |col| {
            crate::mcr::explore(task.program, task.model, task.opts, ctl, col)
        })
    }
    fn robustness(&self, task: &Task<'_>, ctl: &Control) -> Robustness {
        attack(task, ctl)
    }
}

/// The task's program with spin loops as Nidhugg does them (`ir::spin`: the same states and
/// faults, and a side-effect-free iteration ends at an `assume` instead of running to the loop
/// bound), if it has such a loop and is its test's plain lowering (fence synthesis hands
/// engines programs with some of the test's fences removed: those are explored as they are).
fn spin_reduced(task: &Task<'_>, ctl: &Control) -> Option<Program> {
    let stop = || ctl.should_stop();
    let spun = Program::lower_spins(task.test, task.opts.loop_bound, &stop).ok()??;
    let plain = Program::lower_with(task.test, task.opts.loop_bound, &stop).ok()?;
    (plain == *task.program).then_some(spun)
}

/// DPOR. Work: one unit per stop check of its loop, every 256 nodes or 4,096 steps
/// ([`crate::dpor`]). Its robustness is its by-product: a cycle check of every execution it
/// explores.
struct Dpor;

impl Engine for Dpor {
    fn check(&self, task: &Task<'_>, ctl: &Control) -> ModelReport {
        let spun = spin_reduced(task, ctl);
        let task = &Task {
            program: spun.as_ref().unwrap_or(task.program),
            ..task.clone()
        };
        collect(task, ctl, EngineKind::Dpor, |col| {
            crate::dpor::explore(task.program, task.model, task.opts, ctl, col);
        })
    }
    fn robustness(&self, task: &Task<'_>, ctl: &Control) -> Robustness {
        crate::robust::robustness_dpor(task.test, task.program, task.model, task.opts, ctl)
    }
}
