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
//! The weights are nanoseconds per poll of each engine, measured by the engine benchmark's
//! `weights` section (`ENGINES_ONLY=weights cargo bench -p litmus-engine --bench engines`) on
//! the counter, the SB ring and the corpus (release build). The static guess was chosen on the
//! corpus and the x86 conformance set; the MCR paper's Example, the mutual exclusion programs
//! and `examples/` were kept out of both and are reported apart in `docs/bench-engines.md`.

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

/// The engines the portfolio runs on `program` under `model`, in the order that breaks ties;
/// the first is the static guess, which runs alone for its first [`ALONE`] units of work.
///
/// The guess: the reference explorer where a thread awaits, or under SC where one loops (it
/// merges equal states: spinning and await-heavy locks such as Dekker's and Szymanski's
/// converge on few), else DPOR (no solver, memory for one execution, one execution per
/// Shasha-Snir class: the x86 conformance set, SB rings, loop-free programs under TSO and
/// PSO). MCR joins only where a thread has a loop and not with `--first`.
pub fn candidates(program: &Program, model: Model, opts: &CheckOptions) -> Vec<EngineKind> {
    let awaits = program
        .threads
        .iter()
        .any(|t| t.code.iter().any(|i| matches!(i.kind, InstrKind::AwaitBegin)));
    let loops = has_loop(program);
    let mut v = if awaits || (loops && model == Model::Sc) {
        vec![EngineKind::Exhaustive, EngineKind::Dpor]
    } else {
        vec![EngineKind::Dpor, EngineKind::Exhaustive]
    };
    if loops && !opts.first {
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
pub fn single(program: &Program, model: Model, opts: &CheckOptions) -> EngineKind {
    candidates(program, model, opts)[0]
}

type Outcome = (EngineKind, ModelReport, bool, u64);

/// Runs `engine` with `meter` under `ctl`; tells `bound` its work if it finished.
fn run_engine(
    test: &Test,
    model: Model,
    opts: &CheckOptions,
    ctl: Control,
    engine: EngineKind,
    meter: Arc<WorkMeter>,
) -> Outcome {
    let bound = meter.bound.clone();
    let c = ctl.with_work(meter.clone());
    let o = CheckOptions {
        engine,
        ..opts.clone()
    };
    let r = crate::check::check(test, model, &o, &c);
    let finished = r.complete || r.stopped.is_some();
    let work = meter.work();
    if finished {
        bound.fetch_min(work, Ordering::Relaxed);
    }
    (engine, r, finished, work)
}

/// `check` with `EngineKind::Auto`: runs the candidates as a portfolio and returns the report
/// of the one that finished with the least weighted work, `stats.engine` naming it and
/// `stats.time_ms` the portfolio's wall time.
///
/// The first candidate runs alone, on this thread; the poll at which its work passes
/// [`ALONE`] starts the others, each on a thread of its own. So the engines that run are the
/// first alone if it finishes within `ALONE`, else all of them, and the least work among those
/// decides: both follow from work counts alone. A test the first candidate finishes within
/// `ALONE` costs no thread at all.
pub(crate) fn check(test: &Test, model: Model, opts: &CheckOptions, ctl: &Control) -> ModelReport {
    let start = Instant::now();
    // The deadline counts from here for every engine, also those that start later.
    let ctl = &ctl.clone().with_timeout(opts.timeout);
    // Lowering polls a control of its own, so that its stop reason is this check's alone.
    let pre = ctl.for_check(opts);
    let engines = match Program::lower_with(test, opts.loop_bound, &|| pre.should_stop()) {
        Ok(p) => candidates(&p, model, opts),
        // `check` reports why it cannot lower (or that it stopped first); any engine says it.
        Err(_) => vec![EngineKind::Exhaustive],
    };
    let bound = Arc::new(AtomicU64::new(u64::MAX));
    let meters: Vec<Arc<WorkMeter>> = engines
        .iter()
        .map(|&e| Arc::new(WorkMeter::new(weight(e), bound.clone())))
        .collect();
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Outcome)>();
    let others: Arc<dyn Fn() + Send + Sync> = {
        let (test, opts) = (Arc::new(test.clone()), opts.clone());
        // The others report no progress, so a progress line does not jump between engines.
        let ctl = ctl.clone().without_progress();
        let (engines, meters) = (engines.clone(), meters.clone());
        Arc::new(move || {
            for (i, &engine) in engines.iter().enumerate().skip(1) {
                let meter = meters[i].clone();
                let (test, opts, ctl) = (test.clone(), opts.clone(), ctl.clone());
                let tx = tx.clone();
                std::thread::spawn(move || {
                    let out = run_engine(&test, model, &opts, ctl, engine, meter);
                    let _ = tx.send((i, out));
                });
            }
        })
    };
    let first = Arc::new(WorkMeter {
        wake: Some((ALONE, {
            let others = others.clone();
            Box::new(move || others())
        })),
        ..WorkMeter::new(weight(engines[0]), bound.clone())
    });
    let mut results = vec![(
        0,
        run_engine(test, model, opts, ctl.clone(), engines[0], first.clone()),
    )];
    // Past `ALONE` at its last poll but not yet woken (it finished first): start them now.
    if first.work() > ALONE && first.claim_wake() {
        others();
    }
    // Every sender left is an engine's thread. The answer is known once every other engine
    // has finished or been outrun (its work passed the bound, which only falls, so it cannot
    // finish below it): an outrun engine's teardown (freeing a large state space) is not
    // waited for.
    let woken = first.woken.load(Ordering::Relaxed);
    drop((others, first));
    let mut done = vec![false; engines.len()];
    done[0] = true;
    while woken {
        match rx.recv_timeout(std::time::Duration::from_millis(1)) {
            Ok((i, out)) => {
                done[i] = true;
                results.push((i, out));
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
        }
        let b = bound.load(Ordering::Relaxed);
        if (1..engines.len()).all(|i| done[i] || meters[i].work() > b) {
            break;
        }
    }
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
