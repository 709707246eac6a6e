//! `--engine auto` ([`crate::options::EngineChoice::Auto`]): the explorers as a deterministic
//! portfolio, a scheduler over [`crate::engine::Engine`]s sharing one lowered program.
//!
//! No engine wins everywhere (`docs/bench-engines.md`): the reference explorer merges equal
//! states (counters, await-heavy locks), DPOR runs one execution per Shasha-Snir class with no
//! solver (many threads, few conflicts), MCR merges executions that differ only in writes of
//! equal values (loops rewriting the same values under PSO). So `auto` runs the candidate
//! engines side by side, each on a thread of its own, and lets the one that finishes with the
//! least *work* answer; the others stop as soon as their work passes that, so the portfolio
//! costs about what the winner costs on each core it uses.
//!
//! Work is counted, never timed, so the answer is deterministic: every engine counts units of
//! work at fixed points of its own deterministic exploration (each step, each query; the
//! sites are listed in [`crate::engine`]) on its [`WorkMeter`], and one unit of engine `e`
//! costs [`weight`]`(e)` (calibrated, see below). Polls of [`Control::should_stop`] count
//! nothing, so adding one changes no pick. An engine that joins late is charged the work at which it joined (its start), as
//! if every engine had run on a core of its own from its start. The engine that finishes with
//! the least work (ties: the order of [`plan::candidates`]) answers; that does not depend on which
//! thread ran first or faster, because an engine is stopped only once its work exceeds the
//! work with which another one finished, so the least-work engine is never stopped, and an
//! engine is left unstarted only where another finished with less work than its start. A
//! timeout, a cancellation or the memory budget can still stop every engine (as they stop a
//! single one); the report is then the union of what every member had found, incomplete, and
//! says why ([`merge_stopped`]: a stopped check keeps every finding). With a deadline, the
//! members the guess's work has not started yet start once a quarter of the time has passed,
//! charged from their planned start, so that a stopped check has every member's findings.
//!
//! Which engines run, which runs first and when the others join is a static measure of the
//! program ([`plan::candidates`], [`plan::lean`]). The first candidate runs alone for at least [`plan::UNSURE`]
//! units of work (about 80 ms), which most tests never pass, so a catalogue of small tests
//! costs one engine per test, not the portfolio; the surer the guess, the longer it runs alone
//! (up to [`plan::CONFIDENT`], about 3 s). That matters on a busy machine: an engine beside
//! the right one takes its core (the SB ring of 12 threads under SC: DPOR alone 206 ms, with
//! the reference explorer beside it 470 ms), while a wrong guess costs its head start.
//!
//! The weights ([`weight`]) are nanoseconds of CPU per unit of each engine on the program
//! under the model (DPOR's unit costs in proportion to the threads, the reference explorer's
//! with their square root, both more under TSO and PSO), fitted on CPU time per unit over the
//! counter, the SB ring and the corpus (release build; the engine benchmark's `auto` section,
//! `ENGINES_ONLY=auto cargo bench -p litmus-engine --bench engines`, prints how closely they
//! track each run). The static guess was chosen on those, the MCR paper's Example (where MCR
//! joins) and the x86 conformance set; the mutual exclusion programs and `examples/` were
//! kept out of both and are reported apart in `docs/bench-engines.md`. For looping programs
//! ([`plan::lean_unrolled`], issue 58) its threshold was chosen on dev seeds of the engine
//! benchmark's held-out generator, and is judged on other seeds of it and on a second
//! family from the sweeps' generator, which no choice was made on.

mod meter;
pub mod plan;
pub mod turns;
mod unroll;

pub use meter::{thread_cpu_ns, CpuPath, WakeFn, WorkMeter};

pub use plan::{
    candidates, has_loop, lean, lean_unrolled, single, weight, ALONE, CONFIDENT, EARLY, UNSURE,
};

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::ast::Test;
use crate::control::Control;
use crate::engine::{engine, Engine, Task};
use crate::ir::Program;
use crate::options::{CheckOptions, EngineKind};
use crate::report::{Model, ModelReport, Violation};
use crate::robust::Robustness;
use turns::Turns;

/// The portfolio as an engine: [`check`]; its robustness is the attack search's.
pub struct Portfolio;

impl Engine for Portfolio {
    fn check(&self, task: &Task<'_>, ctl: &Control) -> ModelReport {
        check(task, ctl)
    }
    fn robustness(&self, task: &Task<'_>, ctl: &Control) -> Robustness {
        crate::robust::robustness_program(task.program, task.model, task.opts, ctl)
    }
}

type Outcome = (EngineKind, ModelReport, bool, u64);

/// Runs `kind` on `task` under its meter's control, counting its work there (and telling
/// `task.work`, the portfolio's own counter if it has one, the weighted work); tells the
/// meter's bound its work if it finished.
fn run_member(task: &Task<'_>, kind: EngineKind, meter: Arc<WorkMeter>) -> Outcome {
    let counter = meter.clone();
    let outer = task.work.clone();
    let t = Task {
        work: Some(Arc::new(move |n| {
            counter.add(n);
            if let Some(o) = &outer {
                o(n.saturating_mul(counter.weight()));
            }
        })),
        ..task.clone()
    };
    let r = engine(kind).check(&t, meter.member());
    meter.mark_end();
    let finished = r.complete || r.stopped.is_some();
    let work = meter.work();
    if finished {
        meter.bound.fetch_min(work, Ordering::Relaxed);
    }
    meter.end_turns();
    (kind, r, finished, work)
}

/// What a member started on a thread of its own owns: the test and its one lowered program.
struct Shared {
    test: Test,
    program: Program,
    model: Model,
    opts: CheckOptions,
    work: Option<crate::engine::WorkFn>,
}

/// The portfolio on `task`: runs the candidates and returns the report of the one that
/// finished with the least weighted work (counting from its start), with `stats.engine`
/// naming it and `stats.time_ms` the portfolio's wall time. `ctl` is the check's control:
/// each member runs under a child of it, which its meter cancels once it is outrun.
///
/// The first candidate runs alone, on this thread; the count at which its work passes another
/// candidate's start starts that one on a thread of its own (or, once the first has ended, this
/// thread starts it if no engine has finished with less work than its start). So an engine
/// runs whenever it could answer, and the least work among those that finish decides: both
/// follow from work counts alone. A test the first candidate finishes alone costs no thread.
///
/// With a worker budget on `ctl` ([`crate::control::Workers`]) a member runs beside the others
/// only with a free slot; one that gets none still starts on a thread of its own, but takes
/// turns with the first candidate and the other members without a slot ([`turns`]): they share
/// the check's one slot, one running at a time, each in turn up to [`turns::QUANTUM`] of work
/// past the least of the others, so the same engine answers as with free slots, and a wrong
/// guess costs about twice the winner's work rather than the guess's whole.
pub(crate) fn check(task: &Task<'_>, ctl: &Control) -> ModelReport {
    run_plan(task, ctl, candidates(task.program, task.model, task.opts))
}

/// The portfolio on `task` with a given `plan` (engines and starts, as [`candidates`] gives
/// them) instead of the static guess's: for the sweeps, which run every member from the start
/// so that each engine answers on some programs (`tests/sweep.rs`).
#[doc(hidden)]
pub fn run_plan(task: &Task<'_>, ctl: &Control, plan: Vec<(EngineKind, u64)>) -> ModelReport {
    let start = Instant::now();
    let n = plan.len();
    let bound = Arc::new(AtomicU64::new(u64::MAX));
    // Every violation a member publishes, with the member: a stopped portfolio reports them
    // all, even one whose member did not hand in its report in time.
    let found: Arc<Mutex<Vec<(usize, Violation)>>> = Arc::default();
    let publish = |i: usize, c: Control| -> Control {
        let (found, outer) = (found.clone(), ctl.on_violation());
        c.with_on_violation(move |v| {
            found
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push((i, v.clone()));
            if let Some(f) = &outer {
                f(v);
            }
        })
    };
    // The others report no progress, so a progress line does not jump between engines.
    let quiet = ctl.clone().without_progress();
    let meters: Vec<Arc<WorkMeter>> = plan
        .iter()
        .enumerate()
        .map(|(i, &(e, at))| {
            let w = weight(e, task.program, task.model);
            Arc::new(WorkMeter::new(
                w,
                bound.clone(),
                at,
                publish(i, quiet.child()),
            ))
        })
        .collect();
    let turns = Arc::new(Turns::new(n, bound.clone()));
    let started: Arc<Vec<AtomicBool>> = Arc::new((0..n).map(|i| AtomicBool::new(i == 0)).collect());
    let first_done = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Outcome)>();
    // Starts engine `i` on a thread of its own, once, unless an engine already finished with
    // no more work than `i` is charged for starting (then it cannot answer). With a worker
    // budget and no free slot it takes turns with the first candidate (which holds the
    // check's slot) and the others without one.
    let workers = ctl.workers();
    // The critical path (benchmarks): a member starts on it at this thread's CPU time.
    let path = ctl.cpu_path();
    let here_clock = meter::this_thread_clock();
    let launch: Arc<dyn Fn(usize) + Send + Sync> = {
        let shared = Arc::new(Shared {
            test: task.test.clone(),
            program: task.program.clone(),
            model: task.model,
            opts: task.opts.clone(),
            work: task.work.clone(),
        });
        let (plan, meters, started, bound, path, turns) = (
            plan.clone(),
            meters.clone(),
            started.clone(),
            bound.clone(),
            path.clone(),
            turns.clone(),
        );
        Arc::new(move |i: usize| {
            if bound.load(Ordering::Relaxed) <= plan[i].1 || started[i].load(Ordering::Relaxed) {
                return;
            }
            let slot = workers.as_ref().map(|w| w.try_acquire());
            if started[i].swap(true, Ordering::Relaxed) {
                return;
            }
            let (shared, meter, tx) = (shared.clone(), meters[i].clone(), tx.clone());
            // No free slot: a turn of the check's.
            let turn = matches!(slot, Some(None)).then(|| {
                turns.join(i, plan[i].1);
                meter.take_turns(turns.clone(), i);
                turns.clone()
            });
            let (engine, at) = plan[i];
            let timing = path.clone().map(|p| (p, meter::clock_ns(here_clock)));
            std::thread::spawn(move || {
                let _slot = slot;
                if let Some(t) = turn {
                    if !t.wait_turn(i, at, meter.member()) {
                        t.end(i);
                        return;
                    }
                }
                if let Some((p, start)) = timing {
                    meter.arm(p, start);
                }
                let s = &*shared;
                let task = Task {
                    work: s.work.clone(),
                    ..Task::new(&s.test, &s.program, s.model, &s.opts)
                };
                let out = run_member(&task, engine, meter);
                let _ = tx.send((i, out));
            });
        })
    };
    // With a deadline, a member whose start the first's work has not reached starts anyway
    // once a quarter of the time has passed (charged, as always, from its planned start, so no
    // answer changes): a check stopped by its time limit then has every member's findings,
    // not the guess's alone (the slow counter under SC: the reference explorer, breadth
    // first, reaches no final state in seconds; DPOR finds a lost update at once). The timer's
    // thread starts once the first's work passes [`EARLY`] (a check finished sooner, most
    // tests, starts no thread: spawning one cost more than the check on the small programs of
    // the engine benchmark's held-out family); its sender is dropped when the portfolio
    // returns, which ends it.
    let timer: Arc<Mutex<Option<std::sync::mpsc::Sender<()>>>> = Arc::default();
    let timer_wake: Option<WakeFn> = ctl.deadline().filter(|_| n > 1).map(|d| {
        let until = start + d.saturating_duration_since(start) / 4;
        let (timer, launch) = (timer.clone(), launch.clone());
        Box::new(move || {
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            *timer.lock().unwrap_or_else(|e| e.into_inner()) = Some(tx);
            let launch = launch.clone();
            std::thread::spawn(move || {
                let wait = until.saturating_duration_since(Instant::now());
                if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(wait) {
                    for i in 1..n {
                        launch(i);
                    }
                }
            });
        }) as WakeFn
    });
    let wake_at = plan[1..]
        .iter()
        .map(|&(_, at)| at)
        .min()
        .unwrap_or(u64::MAX);
    let first = Arc::new_cyclic(|me: &std::sync::Weak<WorkMeter>| {
        // The first candidate keeps the check's progress callback.
        let w = weight(plan[0].0, task.program, task.model);
        let mut meter = WorkMeter::new(w, bound.clone(), 0, publish(0, ctl.child()));
        if let Some(t) = timer_wake {
            meter = meter.with_timer(EARLY, t);
        }
        let (me, launch, plan, first_done) =
            (me.clone(), launch.clone(), plan.clone(), first_done.clone());
        meter.with_wake(
            wake_at,
            Box::new(move || {
                for (i, &(_, at)) in plan.iter().enumerate().skip(1) {
                    if at <= wake_at {
                        launch(i);
                        continue;
                    }
                    // A later start: wait for the first engine's work to pass it.
                    let (me, launch, first_done) = (me.clone(), launch.clone(), first_done.clone());
                    std::thread::spawn(move || loop {
                        let Some(m) = me.upgrade() else { return };
                        if m.work() > at {
                            launch(i);
                            return;
                        }
                        drop(m);
                        if first_done.load(Ordering::Relaxed) {
                            return;
                        }
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    });
                }
            }),
        )
    });
    first.take_turns(turns.clone(), 0);
    if let Some(p) = &path {
        first.arm(p.clone(), meter::thread_cpu_ns());
    }
    let mut results = vec![(0, run_member(task, plan[0].0, first.clone()))];
    let mut done = vec![false; n];
    done[0] = true;
    first_done.store(true, Ordering::Relaxed);
    first.claim_wake();
    // The engines whose start the first one's work passed, if it finished (else a timeout, a
    // cancellation or the memory budget stopped it, and would stop them) or was outrun: start
    // those not started that no finished engine has outrun.
    let finished = results[0].1 .2;
    for (i, &(_, at)) in plan.iter().enumerate().skip(1) {
        if finished || first.work() > at {
            launch(i);
        }
    }
    drop(first);
    drop(launch);
    // Every sender left is an engine's thread. The answer is known once every other engine
    // has finished, been outrun (its work passed the bound, which only falls, so it cannot
    // finish below it) or never started because it could not answer: an outrun engine's
    // teardown (freeing a large state space) is not waited for.
    loop {
        let b = bound.load(Ordering::Relaxed);
        let settled = |i: usize| {
            done[i] || meters[i].work() > b || !started[i].load(Ordering::Relaxed) && plan[i].1 >= b
        };
        if (1..n).all(settled) {
            break;
        }
        // Past the deadline, cancelled or over the memory budget, no engine still running can
        // finish: it stops at its next poll, on its own thread, and hands in what it found,
        // which the report keeps ([`merge_stopped`]); it is waited for up to [`STOP_GRACE`]
        // (its teardown, freeing what it built, is not waited for).
        if ctl.should_stop() {
            let grace = Instant::now() + STOP_GRACE;
            while (1..n).any(|i| !done[i] && started[i].load(Ordering::Relaxed)) {
                let left = grace.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                match rx.recv_timeout(left.min(std::time::Duration::from_millis(5))) {
                    Ok((i, out)) => {
                        done[i] = true;
                        results.push((i, out));
                    }
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                    Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
                }
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
    // finished (timeout, cancellation, memory): the union of what each had found.
    results.sort_by_key(|(i, _)| *i);
    if !results.iter().any(|(_, r)| r.2) {
        let found = std::mem::take(&mut *found.lock().unwrap_or_else(|e| e.into_inner()));
        let mut report = merge_stopped(task, &plan, results, found);
        report.stats.time_ms = start.elapsed().as_secs_f64() * 1000.0;
        if let Some(p) = &path {
            p.reach(meter::thread_cpu_ns());
        }
        return report;
    }
    let best = results
        .iter()
        .enumerate()
        .filter(|(_, (_, r))| r.2)
        .min_by_key(|(_, (i, r))| (r.3, *i))
        .map_or(0, |(k, _)| k);
    let (_, (engine, mut report, _, _)) = results.swap_remove(best);
    report.stats.engine = Some(engine);
    report.stats.time_ms = start.elapsed().as_secs_f64() * 1000.0;
    if let Some(p) = &path {
        p.reach(meter::thread_cpu_ns());
    }
    report
}

/// How long a stopped portfolio waits for its other members to hand in what they found: each
/// stops at its next poll of its control, within milliseconds; one that does not answer in
/// this time is left, and only the violations it published are kept.
pub const STOP_GRACE: std::time::Duration = std::time::Duration::from_secs(1);

/// The report of a portfolio that no member finished (deadline, memory budget, cancel): the
/// union of every member's findings ([`crate::merge::merge`]) and of the violations the
/// members published (`found`, some perhaps from a member that did not hand in its report),
/// incomplete. `stats.engine` is the first candidate (the static guess), `stats.members` lists
/// the members whose findings are in it, in the plan's order; the other stats are the first
/// candidate's. A member that found nothing adds nothing, so a stopped report depends on when
/// it stopped, as any stopped exploration's does.
fn merge_stopped(
    task: &Task<'_>,
    plan: &[(EngineKind, u64)],
    results: Vec<(usize, Outcome)>,
    found: Vec<(usize, Violation)>,
) -> ModelReport {
    let mut members: Vec<usize> = results.iter().map(|(i, _)| *i).collect();
    members.extend(found.iter().map(|(i, _)| *i));
    members.sort_unstable();
    members.dedup();
    let mut reports: Vec<ModelReport> = results.into_iter().map(|(_, o)| o.1).collect();
    // The published violations, as a report of their own after the members' (whose schedules,
    // the same or shorter, come first).
    let mut published = ModelReport {
        model: task.model,
        complete: false,
        states: vec![],
        condition: None,
        violations: found.into_iter().map(|(_, v)| v).collect(),
        witness: None,
        warnings: vec![],
        stats: Default::default(),
        stopped: None,
    };
    // A `condition` violation ends in a final state falsifying the condition: its replay gives
    // that state, so the report lists it even when its member's report did not come in time.
    for v in &published.violations {
        if v.kind == crate::report::ViolationKind::Condition {
            if let Ok(crate::ReplayEnd::Final(s)) =
                crate::replay::replay(task.test, task.model, task.opts, &v.schedule)
            {
                published.states.push(s);
            }
        }
    }
    reports.push(published);
    let mut report = crate::merge::merge(task.test, reports, false);
    report.stats.engine = Some(plan[0].0);
    report.stats.members = members.into_iter().map(|i| plan[i].0).collect();
    report
}
