//! Verdicts for every number of loop iterations (`litmus check --unbounded`,
//! `docs/reference.md#unbounded`).
//!
//! The bounded engines cut a `while` loop after `--loop-bound` iterations, and its iteration
//! counter is part of the state. Here the program is lowered with its loop counters removed
//! ([`forever`]), so a state is the same whatever iteration reached it, and a breadth-first
//! search with a visited set ([`explore`]) closes on every program with finitely many
//! reachable states (the mutual exclusion classics, spin locks, message passing with spin
//! loops), whatever the iteration counts. When the states do not close (a counter that keeps
//! growing) the search ends at a state budget, or at `Control`'s deadline, cancel or memory
//! budget, and the answer is `unknown`, saying why.
//!
//! - **SC**: that search is the answer.
//! - **TSO**: the same search with each store flushed at once gives the SC executions as TSO
//!   schedules; the attack search of [`crate::robust`] over the same state space ([`attack`],
//!   with a finite monitor and attacker buffer) decides robustness for every iteration and
//!   any buffer size. A robust program's TSO results are its SC results, so that search is
//!   the answer. Otherwise lazy TSO reachability ([`lazy`]) searches for a TSO goal in
//!   refinement rounds, and then TSO is checked with the bounded engine the options name, up
//!   to the loop bound, and merged with the rounds' executions (each a TSO execution too): a
//!   violation found is real, but its absence is `unknown`.
//! - **PSO**: as TSO without robustness (decided under TSO only): the SC executions and the
//!   bounded check, so a violation or `unknown`.
//!
//! Every schedule reported is an execution of the program with enough loop iterations:
//! [`Unbounded::loop_bound`] is the smallest `--loop-bound` at which all of them replay.

mod attack;
mod explore;
mod lazy;

use crate::ast::Test;
use crate::collect::Collector;
use crate::control::Control;
use crate::ir::{InstrKind, Program};
use crate::options::{CheckOptions, EngineKind};
use crate::report::{Model, ModelReport, Schedule, Warning};
use crate::robust::Robustness;
use serde::Serialize;
use std::time::Instant;

/// How far the search may go before it answers `unknown`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Most states visited, per search (the SC states; robustness: SC and attack states;
    /// each round of lazy TSO reachability: the extended program's SC states).
    pub states: u64,
    /// Most refinement rounds of lazy TSO reachability (extensions of the program).
    pub rounds: u32,
}

impl Default for Budget {
    /// 2,000,000 states: a few hundred MiB for the programs of the corpus; 16 rounds.
    fn default() -> Self {
        Budget {
            states: 2_000_000,
            rounds: 16,
        }
    }
}

/// The answer for every number of iterations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The report is exact for every number of loop iterations: its final states, the
    /// condition's verdict and its violations (none, or each real).
    EveryIteration,
    /// A violation was found: it is real (its schedule replays with
    /// [`Unbounded::loop_bound`]); the rest of the report may be incomplete.
    Violation,
    /// No violation found, and the report is not proven exact: [`Unbounded::reason`] says why.
    Unknown,
}

impl Verdict {
    /// The JSON value.
    pub fn key(self) -> &'static str {
        match self {
            Verdict::EveryIteration => "every-iteration",
            Verdict::Violation => "violation",
            Verdict::Unknown => "unknown",
        }
    }
}

/// What `--unbounded` adds to a model's report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Unbounded {
    pub verdict: Verdict,
    /// Why the report is not exact for every iteration (`None` when it is).
    pub reason: Option<String>,
    /// The smallest loop bound at which every reported schedule replays (0: no schedule
    /// runs a loop body).
    pub loop_bound: u32,
    /// States the unbounded SC search visited.
    pub states: u64,
    /// Under TSO: robustness for every iteration, when the SC search closed.
    pub robust: Option<Robustness>,
    /// Under TSO, not robust: the refinement rounds of lazy TSO reachability (each extends
    /// the program by one attack's path and searches its SC executions again); 0 otherwise.
    pub rounds: u32,
    /// States the last refinement round's search visited (0 without rounds).
    pub round_states: u64,
}

/// A model's report with the unbounded answer.
#[derive(Clone, Debug, PartialEq)]
pub struct UnboundedReport {
    pub report: ModelReport,
    pub unbounded: Unbounded,
}

/// Checks `test` under `model` for every number of loop iterations, with the default budget.
pub fn check(test: &Test, model: Model, opts: &CheckOptions, ctl: &Control) -> UnboundedReport {
    check_with(test, model, opts, ctl, Budget::default())
}

/// [`check`] with a budget of its own.
pub fn check_with(
    test: &Test,
    model: Model,
    opts: &CheckOptions,
    ctl: &Control,
    budget: Budget,
) -> UnboundedReport {
    let start = Instant::now();
    let ctl = &ctl.for_check(opts);
    let mut program = match Program::lower_with(test, opts.loop_bound, &|| ctl.should_stop()) {
        Ok(p) => p,
        // The bounded check reports the same error (or stop) the same way.
        Err(_) => {
            let report = crate::check(test, model, opts, ctl);
            let reason = report.warnings.first().map(|w| w.message.clone());
            return finish(test, model, report, Verdict::Unknown, reason, 0, None);
        }
    };
    forever(&mut program);
    // Under TSO and PSO the unbounded searches (SC states, attacks, refinement rounds) get
    // half the time left when there is a deadline, and the bounded check the rest: a search
    // that cannot close within the time (Lamport's fast mutex at N = 5) would otherwise leave
    // nothing to the bounded check, which finds a TSO violation there in milliseconds.
    let whole = ctl;
    let half = (model != Model::Sc)
        .then(|| whole.deadline())
        .flatten()
        .map(|d| {
            let now = Instant::now();
            whole
                .child()
                .with_deadline(now + d.saturating_duration_since(now) / 2)
        });
    let ctl = half.as_ref().unwrap_or(whole);
    let mut col = Collector::new(test, &program, model);
    col.first = opts.first;
    col.on_violation = ctl.on_violation();
    let (states, cut) = explore::explore(&program, model, budget, ctl, &mut col);
    let over = matches!(cut, Some(explore::Cut::States(_)));
    // Stopped by its half of the time alone: said below, like the state budget.
    let halved =
        half.is_some() && matches!(cut, Some(explore::Cut::Control)) && !whole.should_stop();
    if over || halved {
        // Said below; the collector's warning is for `Control`'s reasons.
        col.complete = true;
    } else if !col.complete {
        col.stop = ctl.stop_reason();
    }
    let mut sc = col.finish(start.elapsed());
    sc.stats.engine = Some(EngineKind::Exhaustive);
    let mut reason = None;
    if over {
        let m = format!(
            "the SC states did not close within the budget of {} states: some value may keep \
             growing with the iterations (a counter)",
            budget.states
        );
        sc.complete = false;
        sc.warnings.push(Warning {
            message: m.clone(),
            span: None,
        });
        reason = Some(m);
    } else if halved {
        let m = format!(
            "the SC states did not close within half the time limit ({states} states); the \
             bounded check had the other half"
        );
        sc.complete = false;
        sc.warnings.push(Warning {
            message: m.clone(),
            span: None,
        });
        reason = Some(m);
    } else if !sc.complete && sc.stopped.is_none() {
        reason = sc.warnings.iter().rev().map(|w| w.message.clone()).next();
    }
    let first_stop = sc.stopped.is_some() && !sc.violations.is_empty();
    if first_stop || model == Model::Sc && reason.is_none() && sc.complete {
        let v = verdict(&sc, reason.is_none() && sc.complete);
        return finish(test, model, sc, v, reason, states, None);
    }
    if model == Model::Sc {
        // The search did not close: the bounded check's findings stay in the answer, so that
        // checking every iteration never weakens what the bounded check shows.
        let bounded = crate::check(test, model, opts, whole);
        let report = merge(test, sc, bounded, false);
        let v = verdict(&report, false);
        return finish(test, model, report, v, reason, states, None);
    }
    let mut robust = None;
    let mut rounds = 0;
    let mut round_states = 0;
    // Under TSO the attack search and the rounds also run when the SC states did not close
    // within the budget: an attack found is real, and so is a goal the rounds reach.
    let closed = sc.complete;
    if (closed || over) && model == Model::Tso {
        let (r, ext) = attack::search(&program, budget, ctl, &[]);
        if r.holds && r.complete {
            let v = verdict(&sc, true);
            return finish(test, model, sc, v, None, states, Some(r));
        }
        let mut why = if !closed {
            reason.clone().unwrap_or_default()
        } else if !r.complete {
            format!(
                "the robustness search did not finish ({})",
                stop_words(ctl, r.states, budget)
            )
        } else {
            "not robust under TSO (a store can be delayed past a later load of its thread; \
             `--robust` shows the attack)"
                .to_string()
        };
        // Lazy TSO reachability (`lazy.rs`): when the SC search reached no goal.
        if let Some(e) = ext.filter(|_| !lazy::goal(&sc)) {
            let lz = lazy::rounds(test, &program, e, opts, budget, ctl);
            rounds = lz.rounds;
            round_states = lz.states;
            let n = lz.rounds;
            let mut lreason = match &lz.end {
                lazy::End::Goal => format!(
                    "found by lazy TSO reachability in refinement round {n}; the final states \
                     are those of the extended program's SC executions, not all of TSO's"
                ),
                lazy::End::NoNewAttack => format!(
                    "lazy TSO reachability encoded every attack it found ({n} refinement \
                     rounds) without reaching a goal, but the extended program keeps the \
                     original stores (the paper's §5), so it is robust only when the program \
                     is"
                ),
                lazy::End::RoundBudget => format!(
                    "lazy TSO reachability reached no goal within the budget of {n} refinement \
                     rounds"
                ),
                lazy::End::Stopped(w) => {
                    format!("lazy TSO reachability stopped in refinement round {n} ({w})")
                }
            };
            if !lz.report.violations.is_empty() {
                let lreason = format!("{why}; {lreason}");
                let mut report = lz.report;
                report.warnings.push(Warning {
                    message: "lazy TSO reachability reached a goal: the final states are those of \
                              the extended program's SC executions, some TSO executions \
                              only: results are incomplete"
                        .to_string(),
                    span: None,
                });
                // With the bounded check's findings: the rounds' goal is one violation, and
                // checking every iteration must not drop the others the bounded check finds.
                let bounded = crate::check(test, model, opts, whole);
                let report = merge(test, report, bounded, false);
                let mut out = finish(
                    test,
                    model,
                    report,
                    Verdict::Violation,
                    Some(lreason),
                    states,
                    closed.then_some(r),
                );
                out.unbounded.rounds = rounds;
                out.unbounded.round_states = round_states;
                return out;
            }
            if lz.end == lazy::End::Goal {
                lreason = format!(
                    "the condition's `exists` is witnessed by lazy TSO reachability in \
                     refinement round {n}"
                );
            }
            why = format!("{why}; {lreason}");
            sc = lz.report;
        }
        reason = Some(format!(
            "{why}: TSO executions beyond those were checked up to loop bound {} only",
            opts.loop_bound
        ));
        robust = closed.then_some(r);
    } else if model == Model::Pso {
        reason = Some(format!(
            "under PSO, executions beyond SC's are checked up to loop bound {} only: PSO is \
             answered as bounded (robustness for every iteration and lazy reachability are \
             TSO's only)",
            opts.loop_bound
        ));
    }
    let bounded = crate::check(test, model, opts, whole);
    // A complete bounded check that no loop bound cut is exact for every iteration.
    let exact = bounded.complete && !bounded.warnings.iter().any(is_loop_cut);
    let report = merge(test, sc, bounded, exact);
    let v = verdict(&report, exact);
    let mut out = finish(test, model, report, v, reason, states, robust);
    out.unbounded.rounds = rounds;
    out.unbounded.round_states = round_states;
    out
}

/// Robustness under TSO for every number of loop iterations and any buffer size (the search
/// `--unbounded` runs under TSO), `None` when the test cannot be lowered.
pub fn robustness(
    test: &Test,
    opts: &CheckOptions,
    ctl: &Control,
    budget: Budget,
) -> Option<Robustness> {
    let ctl = &ctl.for_check(opts);
    let mut program = Program::lower(test, opts.loop_bound).ok()?;
    forever(&mut program);
    Some(attack::robustness(&program, budget, ctl))
}

/// Why a search stopped: `Control`'s reason, else the state budget.
fn stop_words(ctl: &Control, states: u64, budget: Budget) -> String {
    match ctl.stop_reason() {
        Some(r) => crate::collect::incomplete_message(Some(r)),
        None if states >= budget.states => {
            format!("the budget of {} states was reached", budget.states)
        }
        None => "stopped early".to_string(),
    }
}

/// Whether a warning is the loop bound's cut (`collect.rs`).
fn is_loop_cut(w: &Warning) -> bool {
    w.span.is_some() && w.message.starts_with("loop bound ")
}

/// `Violation` when the report has one, else `EveryIteration` when `exact`, else `Unknown`.
fn verdict(r: &ModelReport, exact: bool) -> Verdict {
    if !r.violations.is_empty() {
        Verdict::Violation
    } else if exact {
        Verdict::EveryIteration
    } else {
        Verdict::Unknown
    }
}

/// The report with its unbounded answer and the loop bound its schedules need.
fn finish(
    test: &Test,
    model: Model,
    report: ModelReport,
    verdict: Verdict,
    reason: Option<String>,
    states: u64,
    robust: Option<Robustness>,
) -> UnboundedReport {
    let loop_bound = report
        .violations
        .iter()
        .map(|v| &v.schedule)
        .chain(report.witness.as_ref())
        .map(|s| iterations(test, model, s))
        .max()
        .unwrap_or(0);
    let reason = match verdict {
        Verdict::EveryIteration => None,
        _ => reason,
    };
    UnboundedReport {
        report,
        unbounded: Unbounded {
            verdict,
            reason,
            loop_bound,
            states,
            robust,
            rounds: 0,
            round_states: 0,
        },
    }
}

/// The smallest loop bound at which `schedule` replays to the end it has without one: the
/// most iterations any loop runs along it. Loops of local steps run and end between two
/// visible steps, where no observer sees their counts, so the bound is searched for
/// (doubling, then bisecting: a replay that meets the bound ends blocked or short of its end).
pub fn iterations(test: &Test, model: Model, schedule: &Schedule) -> u32 {
    let at = |loop_bound: u32| {
        let opts = CheckOptions {
            loop_bound,
            ..CheckOptions::default()
        };
        crate::replay::replay(test, model, &opts, schedule)
    };
    let Ok(end) = at(u32::MAX) else { return 0 };
    let ok = |b: u32| at(b).is_ok_and(|e| e == end);
    if ok(0) {
        return 0;
    }
    let mut hi = 1u32;
    while !ok(hi) {
        if hi >= 1 << 30 {
            return u32::MAX;
        }
        hi *= 2;
    }
    let mut lo = hi / 2; // not ok (or 0, checked above)
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// Removes the loop counters: `LoopEnter` and `LoopIter` become jumps to the next
/// instruction, so no loop is cut and no state records an iteration count.
pub fn forever(p: &mut Program) {
    p.loop_bound = u32::MAX;
    for t in &mut p.threads {
        for (pc, ins) in t.code.iter_mut().enumerate() {
            if matches!(ins.kind, InstrKind::LoopEnter(_) | InstrKind::LoopIter(_)) {
                ins.kind = InstrKind::Jump(pc as u32 + 1);
            }
        }
    }
}

/// The SC executions' report merged with the bounded check's under the same model
/// ([`crate::merge`]): complete only when `exact` (the bounded check was, and no loop bound cut
/// it); the time is both checks'.
fn merge(test: &Test, sc: ModelReport, bounded: ModelReport, exact: bool) -> ModelReport {
    let sc_ms = sc.stats.time_ms;
    let mut r = crate::merge::merge(test, vec![bounded, sc], exact);
    r.stats.time_ms += sc_ms;
    r
}

#[cfg(test)]
mod tests;
