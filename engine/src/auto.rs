//! `EngineKind::Auto`: the engines as a deterministic portfolio.
//!
//! No engine wins everywhere (`docs/bench-engines.md`): the reference explorer merges equal
//! states (counters, await-heavy locks), DPOR runs one execution per Shasha-Snir class with no
//! solver (many threads, few conflicts), MCR merges executions that differ only in writes of
//! equal values (loops rewriting the same values under PSO). So `auto` runs the candidate
//! engines side by side, each on a thread of its own, and lets the one that finishes with the
//! least *work* answer; the others stop as soon as their work passes that, so the portfolio
//! costs about what the winner costs on each core it uses.
//!
//! Work is counted, never timed, so the answer is deterministic: every engine polls
//! [`Control::should_stop`] at fixed points of its own deterministic exploration (each step,
//! each query), and one poll of engine `e` costs [`weight`]`(e)` units (calibrated, see
//! below). The engine that finishes with the least weighted work (ties: the order of
//! [`candidates`]) answers; that does not depend on which thread ran first or faster, because
//! an engine is stopped only once its work exceeds the work with which another one finished,
//! so the least-work engine is never stopped. A timeout, a cancellation or the memory budget
//! can still stop every engine (as they stop a single one); the report is then the first
//! candidate's, incomplete, and says why.
//!
//! Which engines run, and which runs first, is a static measure of the program
//! ([`candidates`]): MCR only where a thread has a loop (what it is good at is loops that
//! rewrite equal values; elsewhere it lost every row of the benchmark) and not with `--first`
//! (MCR then stops through a control of its own, whose polls are not counted). The first
//! candidate runs alone for its first [`ALONE`] units of work (about 20 ms), which most tests
//! never pass, so a catalogue of small tests costs one engine per test, not the portfolio.
//!
//! The weights are nanoseconds per poll of each engine, measured by `examples/auto_weights.rs`
//! on the counter, the SB ring and the corpus (release build); the MCR paper's Example, the
//! mutual exclusion programs and the x86 conformance set were kept out of the fitting and are
//! reported apart in `docs/bench-engines.md`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use crate::ast::Test;
use crate::ir::{InstrKind, Program};
use crate::options::{CheckOptions, Control, EngineKind, WorkMeter};
use crate::report::{Model, ModelReport};

/// The cost of one [`Control::should_stop`] poll of `engine`, in the portfolio's unit (about
/// a nanosecond of a release build).
pub fn weight(engine: EngineKind) -> u64 {
    match engine {
        EngineKind::Exhaustive => WEIGHT_EXHAUSTIVE,
        EngineKind::Dpor => WEIGHT_DPOR,
        EngineKind::Mcr => WEIGHT_MCR,
        EngineKind::Auto => 1,
    }
}

const WEIGHT_EXHAUSTIVE: u64 = 6_500;
const WEIGHT_DPOR: u64 = 1_470_000;
const WEIGHT_MCR: u64 = 4_400;

/// Whether some thread of `program` has a loop (a jump backwards).
pub fn has_loop(program: &Program) -> bool {
    program.threads.iter().any(|t| {
        t.code.iter().enumerate().any(|(i, ins)| match ins.kind {
            InstrKind::Jump(target) | InstrKind::JumpIf { target, .. } => (target as usize) <= i,
            _ => false,
        })
    })
}

/// The engines the portfolio runs on `program`, in the order that breaks ties; the first is
/// the static guess, which runs alone for its first [`ALONE`] units of work.
///
/// The guess: DPOR for five threads or more (its executions grow with the conflicts, the
/// reference explorer's states with every thread's interleavings and buffers: the SB ring),
/// else the reference explorer (it merges equal states: counters, await-heavy locks, and most
/// small tests). MCR joins only where a thread has a loop and not with `--first`.
pub fn candidates(program: &Program, opts: &CheckOptions) -> Vec<EngineKind> {
    let mut v = if program.threads.len() >= 5 {
        vec![EngineKind::Dpor, EngineKind::Exhaustive]
    } else {
        vec![EngineKind::Exhaustive, EngineKind::Dpor]
    };
    if has_loop(program) && !opts.first {
        v.push(EngineKind::Mcr);
    }
    v
}

/// How much work (about 20 ms) the first candidate does alone before the others join: most
/// tests (the x86 conformance set, the corpus) finish within it, at the cost of one engine.
/// In work units, so whether the others run does not depend on timing either.
pub const ALONE: u64 = 20_000_000;

/// One engine for callers that need a single exploration on one thread (fence synthesis):
/// the first candidate.
pub fn single(program: &Program, opts: &CheckOptions) -> EngineKind {
    candidates(program, opts)[0]
}

type Outcome = (EngineKind, ModelReport, bool, u64);

/// `check` with `EngineKind::Auto`: runs the candidates as a portfolio and returns the report
/// of the one that finished with the least weighted work, `stats.engine` naming it and
/// `stats.time_ms` the portfolio's wall time.
///
/// The first candidate runs alone; once its work passes [`ALONE`] (seen within a millisecond,
/// or when it finishes), the others start. So the engines that run are the first alone if it
/// finishes within `ALONE`, else all of them, and the least work among those decides: both
/// follow from work counts alone.
pub(crate) fn check(test: &Test, model: Model, opts: &CheckOptions, ctl: &Control) -> ModelReport {
    let start = Instant::now();
    let engines = match Program::lower(test, opts.loop_bound) {
        Ok(p) => candidates(&p, opts),
        // `check` reports why it cannot lower; any engine says it.
        Err(_) => vec![EngineKind::Exhaustive],
    };
    let bound = Arc::new(AtomicU64::new(u64::MAX));
    let meters: Vec<Arc<WorkMeter>> = engines
        .iter()
        .map(|&e| {
            Arc::new(WorkMeter {
                polls: AtomicU64::new(0),
                weight: weight(e),
                bound: bound.clone(),
            })
        })
        .collect();
    let run = |i: usize| -> Outcome {
        let engine = engines[i];
        // One engine reports progress (the first candidate), so a progress line does not
        // jump between engines.
        let c = if i == 0 {
            ctl.clone()
        } else {
            ctl.clone().without_progress()
        };
        let c = c.with_work(meters[i].clone());
        let o = CheckOptions {
            engine,
            ..opts.clone()
        };
        let r = crate::check::check(test, model, &o, &c);
        let finished = r.complete || r.stopped.is_some();
        let work = meters[i].work();
        if finished {
            bound.fetch_min(work, Ordering::Relaxed);
        }
        (engine, r, finished, work)
    };
    let mut results: Vec<(usize, Outcome)> = std::thread::scope(|s| {
        let (tx, rx) = std::sync::mpsc::channel();
        let first = {
            let (tx, run) = (tx.clone(), &run);
            s.spawn(move || {
                let _ = tx.send((0, run(0)));
            })
        };
        drop(first);
        let mut results = vec![];
        let mut others = false;
        loop {
            match rx.recv_timeout(std::time::Duration::from_millis(1)) {
                Ok(r) => {
                    results.push(r);
                    if results.len() == engines.len() || (!others && results[0].1 .3 <= ALONE) {
                        break;
                    }
                }
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            }
            if !others && (meters[0].work() > ALONE || !results.is_empty()) {
                others = true;
                for i in 1..engines.len() {
                    let (tx, run) = (tx.clone(), &run);
                    s.spawn(move || {
                        let _ = tx.send((i, run(i)));
                    });
                }
            }
        }
        results
    });
    // The least work among the finished engines, ties to the earlier candidate; none
    // finished (timeout, cancellation, memory): the first candidate's incomplete report.
    results.sort_by_key(|(i, _)| *i);
    let best = results
        .iter()
        .enumerate()
        .filter(|(_, (_, r))| r.2)
        .min_by_key(|(_, (i, r))| (r.3, *i))
        .map_or(0, |(k, _)| k);
    let (_, (engine, mut report, _, _)) = results.swap_remove(best);
    report.stats.engine = Some(engine);
    report.stats.time_ms = start.elapsed().as_secs_f64() * 1000.0;
    report
}
