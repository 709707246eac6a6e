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
//! below). An engine that joins late is charged the work at which it joined (its start), as
//! if every engine had run on a core of its own from its start. The engine that finishes with
//! the least work (ties: the order of [`candidates`]) answers; that does not depend on which
//! thread ran first or faster, because an engine is stopped only once its work exceeds the
//! work with which another one finished, so the least-work engine is never stopped, and an
//! engine is left unstarted only where another finished with less work than its start. A
//! timeout, a cancellation or the memory budget can still stop every engine (as they stop a
//! single one); the report is then the first candidate's, incomplete, and says why.
//!
//! Which engines run, which runs first and when the others join is a static measure of the
//! program ([`candidates`], [`lean`]). The first candidate runs alone for at least [`UNSURE`]
//! units of work (about 80 ms), which most tests never pass, so a catalogue of small tests
//! costs one engine per test, not the portfolio; the surer the guess, the longer it runs alone
//! (up to [`CONFIDENT`], about 3 s). That matters on a busy machine: an engine beside
//! the right one takes its core (the SB ring of 12 threads under SC: DPOR alone 206 ms, with
//! the reference explorer beside it 470 ms), while a wrong guess costs its head start.
//!
//! The weights are nanoseconds per poll of each engine, measured by the engine benchmark's
//! `weights` section (`ENGINES_ONLY=weights cargo bench -p litmus-engine --bench engines`) on
//! the counter, the SB ring and the corpus (release build). The static guess was chosen on
//! those and the x86 conformance set; the MCR paper's Example, the mutual exclusion programs
//! and `examples/` were kept out of both and are reported apart in `docs/bench-engines.md`
//! (the mutual exclusion programs are written after the same algorithms as four of the
//! corpus's, so they are held out from the fitting, not unlike it).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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

const WEIGHT_EXHAUSTIVE: u64 = 6_000;
const WEIGHT_DPOR: u64 = 430_000;
const WEIGHT_MCR: u64 = 4_100;

/// Whether some thread of `program` has a loop (a jump backwards).
pub fn has_loop(program: &Program) -> bool {
    program.threads.iter().any(|t| {
        t.code.iter().enumerate().any(|(i, ins)| match ins.kind {
            InstrKind::Jump(target) | InstrKind::JumpIf { target, .. } => (target as usize) <= i,
            _ => false,
        })
    })
}

/// `ln(n!)`.
fn ln_factorial(n: u64) -> f64 {
    (2..=n).map(|i| (i as f64).ln()).sum()
}

/// A static measure of a loop-free `program` under `model`: the natural log of DPOR's
/// estimated work over the reference explorer's.
///
/// DPOR runs about one execution per Shasha-Snir class, each costing its steps. A class is
/// fixed, per location (a shared variable, an array as one, a mutex) that some thread writes
/// and two threads access, by the order of the writes (the multinomial of each thread's
/// count) and, for each run of reads of one thread, where it falls among the other threads'
/// writes (with `g` of them between two writes of its own on average, a run of `r` reads has
/// `C(g + r, r)` places). The reference explorer visits at most one state per combination of
/// thread positions (times, under TSO and PSO, how many stores each thread may have
/// buffered), each costing a step per thread. Both are estimates from instruction counts
/// (both arms of a branch count); what matters is their ratio: many threads racing on one
/// location (the counter: millions of classes, a few hundred states) against many locations
/// with few accesses each (the SB ring: 2^n classes, 3^n states).
pub fn lean(program: &Program, model: Model) -> f64 {
    let n_vars = program.vars.len();
    let n_locs = n_vars + program.mutexes.len();
    let n_threads = program.threads.len();
    // Per location and thread: its writes and its runs of reads, in program order.
    let mut writes = vec![vec![0u64; n_threads]; n_locs];
    let mut runs: Vec<Vec<Vec<u64>>> = vec![vec![vec![]; n_threads]; n_locs];
    let mut last_read = vec![vec![false; n_threads]; n_locs];
    let (mut ln_exh, mut steps) = (0.0, 0u64);
    for (t, th) in program.threads.iter().enumerate() {
        let (mut vis, mut stores) = (0u64, 0u64);
        for ins in &th.code {
            let (loc, write) = match &ins.kind {
                InstrKind::Load { loc, .. } => (Some(loc.var as usize), false),
                InstrKind::Store { loc, .. } => {
                    stores += 1;
                    (Some(loc.var as usize), true)
                }
                InstrKind::Rmw { loc, .. } => (Some(loc.var as usize), true),
                InstrKind::Lock(m) | InstrKind::Unlock(m) => (Some(n_vars + *m as usize), true),
                _ => (None, false),
            };
            if ins.kind.is_visible() {
                vis += 1;
            }
            if let Some(l) = loc.filter(|&l| l < n_locs) {
                if write {
                    writes[l][t] += 1;
                    last_read[l][t] = false;
                } else if last_read[l][t] {
                    *runs[l][t].last_mut().expect("a run is open") += 1;
                } else {
                    runs[l][t].push(1);
                    last_read[l][t] = true;
                }
            }
        }
        steps += vis;
        ln_exh += ((vis + 1) as f64).ln();
        if model != Model::Sc {
            ln_exh += ((stores + 1) as f64).ln();
        }
    }
    ln_exh += (n_threads.max(1) as f64).ln();
    let mut ln_dpor = (steps.max(1) as f64).ln();
    for l in 0..n_locs {
        let w = &writes[l];
        let total: u64 = w.iter().sum();
        let touching = (0..n_threads)
            .filter(|&t| w[t] > 0 || !runs[l][t].is_empty())
            .count();
        if total == 0 || touching < 2 {
            continue;
        }
        ln_dpor += ln_factorial(total) - w.iter().map(|&k| ln_factorial(k)).sum::<f64>();
        for t in 0..n_threads {
            let g = (total - w[t]) as f64 / (w[t] + 1) as f64;
            for &r in &runs[l][t] {
                ln_dpor += (1..=r)
                    .map(|j| ((g + j as f64) / j as f64).ln())
                    .sum::<f64>();
            }
        }
    }
    ln_dpor - ln_exh
}

/// Where [`lean`] says the reference explorer first, for a program without loops or awaits
/// under SC and under TSO/PSO, and for one with awaits under TSO/PSO (under SC awaits always
/// say the reference explorer). Chosen on the counter, the SB ring, the corpus and the x86
/// set: the estimate leaves out register values and buffered values, which the reference
/// explorer's states also hold, and awaits cost DPOR real steps per failed round.
const LEAN_SC: f64 = 3.7;
const LEAN_WEAK: f64 = 2.2;
const LEAN_AWAIT_WEAK: f64 = 4.0;

/// The head start of a guess [`lean`] made, by how far it was from the threshold `at`:
/// [`UNSURE`] times `e^d`, at most [`CONFIDENT`]. Near the threshold the engines cost about
/// the same, so running the guess alone loses little where it is wrong and running both
/// halves each one's share of a busy machine; far from it the guess is much cheaper, unless
/// the estimate (which grows with the program, as its error does) is badly off.
fn head_start(lean: f64, at: f64) -> u64 {
    let x = (lean - at).abs().exp() * (UNSURE / ALONE) as f64;
    (ALONE as f64 * x.clamp(1.0, (CONFIDENT / ALONE) as f64)) as u64
}

/// The engines the portfolio runs on `program` under `model`, in the order that breaks ties,
/// each with its start: the weighted work of the first candidate (the static guess, start 0)
/// at which it joins, which is also the work it is charged for joining (so it can only answer
/// where it would have finished first had every engine started at its start).
///
/// Where no thread loops: under SC with an await, the reference explorer (it merges equal
/// states: await-heavy locks such as Szymanski's converge on few); else [`lean`] chooses
/// between DPOR and the reference explorer, and the further it is from its threshold the
/// longer the guess runs alone. MCR joins nowhere while it has known gaps (`mcr_trusted`
/// below), though it was the fastest on the Bakery under TSO and PSO.
///
/// Where a thread loops: the reference explorer under SC or with an await, else DPOR (no
/// solver, memory for one execution, one execution per Shasha-Snir class), the other at
/// [`UNSURE`]; MCR joins them under TSO and PSO where no thread awaits or locks (what it is good at is
/// loops that rewrite equal values; under SC it lost every row of the benchmark, with awaits
/// every looping one), and never with `--first` (MCR then stops through a control of its
/// own, whose polls are not counted).
pub fn candidates(program: &Program, model: Model, opts: &CheckOptions) -> Vec<(EngineKind, u64)> {
    use EngineKind::{Dpor, Exhaustive, Mcr};
    let awaits = program.threads.iter().any(|t| {
        t.code
            .iter()
            .any(|i| matches!(i.kind, InstrKind::AwaitBegin))
    });
    let sc = model == Model::Sc;
    // MCR misses outcomes with awaits, with mutexes and on some programs with neither (the
    // files of `tests/regressions/` marked `known gap: mcr`, issue 39): until those gaps are
    // fixed the default never answers with it. Where it would join is kept below.
    let mcr_trusted = false;
    let mcr = mcr_trusted && !sc && !opts.first;
    if !has_loop(program) {
        if awaits && sc {
            return vec![(Exhaustive, 0), (Dpor, UNSURE)];
        }
        let at = match (awaits, sc) {
            (true, _) => LEAN_AWAIT_WEAK,
            (false, true) => LEAN_SC,
            (false, false) => LEAN_WEAK,
        };
        let l = lean(program, model);
        let start = head_start(l, at);
        if l > at {
            return vec![(Exhaustive, 0), (Dpor, start)];
        }
        return vec![(Dpor, 0), (Exhaustive, start)];
    }
    if awaits || sc {
        return vec![(Exhaustive, 0), (Dpor, UNSURE)];
    }
    let mut v = vec![(Dpor, 0), (Exhaustive, UNSURE)];
    if mcr {
        v.push((Mcr, UNSURE));
    }
    v
}

/// The unit of head starts: about 20 ms of weighted work. Head starts are work, never time,
/// so whether the others run does not depend on timing either.
pub const ALONE: u64 = 20_000_000;

/// How long a guess runs alone where [`lean`] does not apply or is near its threshold (about
/// 80 ms of weighted work; DPOR's weight is an average over programs whose real cost per poll
/// varies fivefold, so on small programs this is nearer 20 ms of DPOR).
pub const UNSURE: u64 = 4 * ALONE;

/// The longest a guess runs alone (about 3 s): on a busy machine a second engine
/// beside it takes its core, doubling its time, so the others join only where the guess is
/// slow enough that being wrong would cost more.
pub const CONFIDENT: u64 = 150 * ALONE;

/// One engine for callers that need a single exploration on one thread (fence synthesis):
/// the first candidate.
pub fn single(program: &Program, model: Model, opts: &CheckOptions) -> EngineKind {
    candidates(program, model, opts)[0].0
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
/// of the one that finished with the least weighted work (counting from its start), with
/// `stats.engine` naming it and `stats.time_ms` the portfolio's wall time.
///
/// The first candidate runs alone, on this thread; the poll at which its work passes another
/// candidate's start starts that one on a thread of its own (or, once the first has ended, this
/// thread starts it if no engine has finished with less work than its start). So an engine
/// runs whenever it could answer, and the least work among those that finish decides: both
/// follow from work counts alone. A test the first candidate finishes alone costs no thread.
pub(crate) fn check(test: &Test, model: Model, opts: &CheckOptions, ctl: &Control) -> ModelReport {
    let start = Instant::now();
    // The deadline counts from here for every engine, also those that start later.
    let ctl = &ctl.clone().with_timeout(opts.timeout);
    // Lowering polls a control of its own, so that its stop reason is this check's alone.
    let pre = ctl.for_check(opts);
    let plan = match Program::lower_with(test, opts.loop_bound, &|| pre.should_stop()) {
        Ok(p) => candidates(&p, model, opts),
        // `check` reports why it cannot lower (or that it stopped first); any engine says it.
        Err(_) => vec![(EngineKind::Exhaustive, 0)],
    };
    let n = plan.len();
    let bound = Arc::new(AtomicU64::new(u64::MAX));
    let meters: Vec<Arc<WorkMeter>> = plan
        .iter()
        .map(|&(e, at)| {
            Arc::new(WorkMeter {
                offset: at,
                ..WorkMeter::new(weight(e), bound.clone())
            })
        })
        .collect();
    let started: Arc<Vec<AtomicBool>> = Arc::new((0..n).map(|i| AtomicBool::new(i == 0)).collect());
    let first_done = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Outcome)>();
    // Starts engine `i` on a thread of its own, once, unless an engine already finished with
    // no more work than `i` is charged for starting (then it cannot answer).
    let launch: Arc<dyn Fn(usize) + Send + Sync> = {
        let (test, opts) = (Arc::new(test.clone()), opts.clone());
        // The others report no progress, so a progress line does not jump between engines.
        let ctl = ctl.clone().without_progress();
        let (plan, meters, started, bound) =
            (plan.clone(), meters.clone(), started.clone(), bound.clone());
        Arc::new(move |i: usize| {
            if bound.load(Ordering::Relaxed) <= plan[i].1
                || started[i].swap(true, Ordering::Relaxed)
            {
                return;
            }
            let meter = meters[i].clone();
            let (test, opts, ctl, tx) = (test.clone(), opts.clone(), ctl.clone(), tx.clone());
            let engine = plan[i].0;
            std::thread::spawn(move || {
                let out = run_engine(&test, model, &opts, ctl, engine, meter);
                let _ = tx.send((i, out));
            });
        })
    };
    let wake_at = plan[1..]
        .iter()
        .map(|&(_, at)| at)
        .min()
        .unwrap_or(u64::MAX);
    let first = Arc::new_cyclic(|me: &std::sync::Weak<WorkMeter>| WorkMeter {
        wake: Some((wake_at, {
            let (me, launch, plan, first_done) =
                (me.clone(), launch.clone(), plan.clone(), first_done.clone());
            Box::new(move || {
                for i in 1..plan.len() {
                    let at = plan[i].1;
                    if at <= wake_at {
                        launch(i);
                        continue;
                    }
                    // A later start: wait for the first engine's work to pass it.
                    let (me, launch, first_done) = (me.clone(), launch.clone(), first_done.clone());
                    std::thread::spawn(move || loop {
                        let Some(m) = me.upgrade() else { return };
                        if m.work() > at {
                            return launch(i);
                        }
                        drop(m);
                        if first_done.load(Ordering::Relaxed) {
                            return;
                        }
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    });
                }
            }) as crate::options::WakeFn
        })),
        ..WorkMeter::new(weight(plan[0].0), bound.clone())
    });
    let mut results = vec![(
        0,
        run_engine(test, model, opts, ctl.clone(), plan[0].0, first.clone()),
    )];
    first_done.store(true, Ordering::Relaxed);
    first.claim_wake();
    // The engines whose start the first one's work passed, if it finished (else a timeout, a
    // cancellation or the memory budget stopped it, and would stop them) or was outrun: start
    // those not started that no finished engine has outrun.
    let finished = results[0].1 .2;
    for i in 1..n {
        if finished || first.work() > plan[i].1 {
            launch(i);
        }
    }
    drop(first);
    drop(launch);
    // Every sender left is an engine's thread. The answer is known once every other engine
    // has finished, been outrun (its work passed the bound, which only falls, so it cannot
    // finish below it) or never started because it could not answer: an outrun engine's
    // teardown (freeing a large state space) is not waited for.
    let mut done = vec![false; n];
    done[0] = true;
    loop {
        let b = bound.load(Ordering::Relaxed);
        let settled = |i: usize| {
            done[i] || meters[i].work() > b || !started[i].load(Ordering::Relaxed) && plan[i].1 >= b
        };
        if (1..n).all(settled) {
            break;
        }
        // Past the deadline, cancelled or over the memory budget, no engine still running can
        // finish: it stops at its next poll, on its own thread, and its teardown (freeing what
        // it built) is not waited for either. An engine that finished just before has sent
        // its report already: it is taken, as the loop would have.
        if ctl.should_stop() {
            while let Ok((i, out)) = rx.try_recv() {
                done[i] = true;
                results.push((i, out));
            }
            break;
        }
        match rx.recv_timeout(std::time::Duration::from_millis(1)) {
            Ok((i, out)) => {
                done[i] = true;
                results.push((i, out));
            }
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
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
