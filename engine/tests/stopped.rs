//! A stopped check keeps what it found (`docs/reference.md#complete`, issue 52): every engine and
//! `auto`, under every model, stopped by a cancel, a deadline or the memory budget at several
//! points, on programs whose violations come early (lost updates, an early failed assertion)
//! and on random programs with violations. For every stopped report:
//! - every violation the engine published before the stop (what an editor already shows) is in
//!   the report, and every violation in it is one the complete check reports;
//! - every schedule replays to what the report says;
//! - its condition is decided only when the states found decide it (a counterexample to a
//!   `forall`/`~exists`, a witness of an `exists`), and then as the complete check decides it;
//! - a check the stop did not reach is the complete report.

mod sweep_support;
mod tier;

use litmus_engine::ast::Test;
use litmus_engine::report::{ModelReport, ViolationKind};
use litmus_engine::testgen::{random_test_with, GenConfig};
use litmus_engine::{
    check, syntax, CheckOptions, Control, EngineChoice, EngineKind, MemoryBudget, Model, Span,
};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use sweep_support::{schedules_replay, LOOP_BOUND};

fn engines() -> [(&'static str, EngineChoice); 4] {
    [
        ("exhaustive", EngineKind::Exhaustive.into()),
        ("mcr", EngineKind::Mcr.into()),
        ("dpor", EngineKind::Dpor.into()),
        ("auto", EngineChoice::Auto),
    ]
}

fn options(engine: EngineChoice) -> CheckOptions {
    CheckOptions {
        engine,
        loop_bound: LOOP_BOUND,
        ..CheckOptions::default()
    }
}

/// `n` threads each adding 1 to `x` `k` times without a lock: a lost update falsifies the
/// `forall` in a few steps, and the whole exploration is long.
fn counter(n: usize, k: usize) -> Test {
    let threads: String = (0..n)
        .map(|t| {
            format!(
                "thread P{t} {{ r0 = 0; while (r0 < {k}) {{ r1 = x; x = r1 + 1; r0 = r0 + 1; }} }}\n"
            )
        })
        .collect();
    let src = format!(
        "litmus Counter\nshared x = 0;\n{threads}forall (x == {})\n",
        n * k
    );
    syntax::parse(&src).test.expect("the counter parses")
}

/// An assertion that fails as soon as P1's store is seen, beside threads whose stores to
/// their own locations multiply the interleavings.
fn early_assert(busy: usize) -> Test {
    let others: String = (0..busy)
        .map(|t| format!("thread B{t} {{ y{t} = 1; y{t} = 2; r0 = x; }}\n"))
        .collect();
    let decl: String = (0..busy).map(|t| format!(", y{t} = 0")).collect();
    let src = format!(
        "litmus Early\nshared x = 0{decl};\nthread P0 {{ r0 = x; assert(r0 == 0); }}\n\
         thread P1 {{ x = 1; }}\n{others}exists (x == 1)\n"
    );
    syntax::parse(&src).test.expect("the program parses")
}

fn keys(r: &ModelReport) -> BTreeSet<(ViolationKind, Span)> {
    r.violations.iter().map(|v| (v.kind, v.span)).collect()
}

/// How a check is stopped.
#[derive(Clone, Copy, Debug)]
enum Stop {
    /// Cancelled from the callback of the `n`-th violation published.
    AtViolation(usize),
    /// Cancelled from the `n`-th progress report.
    AtProgress(usize),
    /// A deadline this far from the start.
    Deadline(Duration),
    /// The memory budget, reached at the `n`-th time it is read.
    Memory(u64),
}

/// Reads of the stand-in memory meter: the memory "in use" is the number of reads, so a
/// budget of `n` is reached at the `n`-th read. One check at a time uses it (`MEMORY`).
static READS: AtomicU64 = AtomicU64::new(0);
static MEMORY: Mutex<()> = Mutex::new(());

fn reads() -> u64 {
    READS.fetch_add(1, Ordering::Relaxed)
}

/// Runs `test` stopped by `stop`, returning the report and the violations published before it
/// returned.
fn stopped(
    test: &Test,
    model: Model,
    mut opts: CheckOptions,
    stop: Stop,
) -> (ModelReport, BTreeSet<(ViolationKind, Span)>) {
    let published: Arc<Mutex<BTreeSet<(ViolationKind, Span)>>> = Arc::default();
    let base = Control::new();
    let flag = base.flag();
    let seen = Arc::new(AtomicUsize::new(0));
    let ticks = Arc::new(AtomicUsize::new(0));
    let (p, f, s) = (published.clone(), flag.clone(), seen.clone());
    let mut ctl = base.with_on_violation(move |v| {
        p.lock().unwrap().insert((v.kind, v.span));
        let n = s.fetch_add(1, Ordering::SeqCst) + 1;
        if matches!(stop, Stop::AtViolation(k) if n >= k) {
            f.store(true, Ordering::SeqCst);
        }
    });
    let (f, t) = (flag.clone(), ticks.clone());
    ctl = ctl.with_progress(move |_| {
        let n = t.fetch_add(1, Ordering::SeqCst) + 1;
        if matches!(stop, Stop::AtProgress(k) if n >= k) {
            f.store(true, Ordering::SeqCst);
        }
    });
    let _guard = match stop {
        Stop::Deadline(d) => {
            opts.timeout = Some(d);
            None
        }
        Stop::Memory(n) => {
            let g = MEMORY.lock().unwrap_or_else(|e| e.into_inner());
            READS.store(0, Ordering::SeqCst);
            ctl = ctl.with_memory_budget(MemoryBudget {
                limit: n,
                used: reads,
                origin: "a test's stand-in meter",
            });
            Some(g)
        }
        _ => None,
    };
    let r = check(test, model, &opts, &ctl);
    let published = published.lock().unwrap().clone();
    (r, published)
}

/// The properties of the module doc, for one stopped report against the complete one.
fn judge(
    test: &Test,
    model: Model,
    full: &ModelReport,
    r: &ModelReport,
    published: &BTreeSet<(ViolationKind, Span)>,
) -> Result<(), String> {
    let found = keys(r);
    if let Some(lost) = published.difference(&found).next() {
        return Err(format!("published {lost:?}, not in the report {found:?}"));
    }
    if let Some(extra) = found.difference(&keys(full)).next() {
        return Err(format!(
            "{extra:?} is not a violation of the complete check"
        ));
    }
    // A report that reached the memory budget while listing its states lists only the first
    // ones (`stats.omitted`): a schedule may end in one it counted but does not list.
    let listed_all = r.stats.omitted == 0;
    if listed_all {
        schedules_replay(test, model, r)?;
    } else {
        let mut whole = r.clone();
        whole.states.extend(full.states.iter().cloned());
        whole.states.sort();
        whole.states.dedup();
        schedules_replay(test, model, &whole)?;
        if r.states.iter().any(|s| !full.states.contains(s)) {
            return Err("a listed state is not one of the complete check's".into());
        }
    }
    if r.complete {
        let states = if listed_all {
            r.states == full.states
        } else {
            r.states.len() as u64 + r.stats.omitted == full.states.len() as u64
        };
        if !states || found != keys(full) || r.condition != full.condition {
            return Err("a complete report differs from the complete check's".into());
        }
        return Ok(());
    }
    if let (Some(c), Some(fc)) = (&r.condition, &full.condition) {
        let falsified = found.iter().any(|&(k, _)| k == ViolationKind::Condition);
        if c.decided && !c.decided_by_states() && !falsified {
            return Err(format!(
                "an incomplete report decides {c:?} without a state that does"
            ));
        }
        if c.decided && c.holds != fc.holds {
            return Err(format!("decided {c:?}, but the complete check says {fc:?}"));
        }
        if c.verdict() == Some(true) && c.kind != litmus_engine::ast::Quantifier::Exists {
            return Err(format!("an incomplete report says the {:?} holds", c.kind));
        }
    }
    if let (Some(e), false) = (r.stats.engine, r.stats.members.is_empty()) {
        if !r.stats.members.contains(&e) {
            return Err(format!(
                "members {:?} leave out the engine {e:?}",
                r.stats.members
            ));
        }
    }
    Ok(())
}

/// The programs: the early-violation shapes and random programs whose complete check has a
/// violation.
fn programs() -> Vec<(String, Test)> {
    let mut out = vec![
        ("counter 3x2".to_string(), counter(3, 2)),
        ("counter 2x3".to_string(), counter(2, 3)),
        ("early assert, 3 busy".to_string(), early_assert(3)),
    ];
    let want = tier::sweep(3, 8) as usize;
    let mut seed = 0;
    while out.len() < 3 + want && seed < 400 {
        let t = random_test_with(seed, GenConfig::all());
        let r = check(
            &t,
            Model::Pso,
            &options(EngineKind::Dpor.into()),
            &Control::new(),
        );
        if r.complete && !r.violations.is_empty() && r.stats.executions > 30 {
            out.push((format!("random seed {seed}"), t));
        }
        seed += 1;
    }
    out
}

#[test]
fn a_stopped_check_keeps_every_violation_it_published_and_decides_nothing_it_has_not_seen() {
    let stops = [
        Stop::AtViolation(1),
        Stop::AtViolation(2),
        Stop::AtProgress(1),
        Stop::AtProgress(4),
        Stop::Deadline(Duration::ZERO),
        Stop::Deadline(Duration::from_millis(3)),
        Stop::Deadline(Duration::from_millis(30)),
        Stop::Memory(5),
        Stop::Memory(500),
        Stop::Memory(20_000),
    ];
    let models: &[Model] = if tier::full() {
        &Model::ALL
    } else {
        &[Model::Sc, Model::Pso]
    };
    let (mut checks, mut incomplete, mut kept, mut undecided, mut merged) = (0, 0, 0, 0, 0);
    let mut failures = Vec::new();
    let programs = programs();
    for (name, test) in &programs {
        let t0 = std::time::Instant::now();
        for &model in models {
            for (ename, engine) in engines() {
                let full = check(test, model, &options(engine), &Control::new());
                assert!(
                    full.complete,
                    "{name} {ename} {model:?}: the complete check"
                );
                for stop in stops {
                    let (r, published) = stopped(test, model, options(engine), stop);
                    checks += 1;
                    if !r.complete {
                        incomplete += 1;
                        kept += r.violations.len();
                        undecided += r.condition.as_ref().is_some_and(|c| !c.decided) as usize;
                        merged += (!r.stats.members.is_empty()) as usize;
                    }
                    if let Err(e) = judge(test, model, &full, &r, &published) {
                        failures.push(format!("{name}, {ename}, {model:?}, {stop:?}: {e}"));
                    }
                }
            }
        }
        println!("{name}: {:.1} s", t0.elapsed().as_secs_f64());
    }
    println!(
        "{checks} stopped checks of {} programs ({} models, 4 engines, {} stop points): {incomplete} \
         incomplete, keeping {kept} violations; {undecided} conditions not decided; {merged} \
         portfolio reports merged from their members",
        programs.len(),
        models.len(),
        stops.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The sweep stopped something, kept violations and left conditions undecided.
    assert!(incomplete > 0 && kept > 0 && undecided > 0);
}

/// The reproducer: the portfolio on the slow counter, its guess (the reference
/// explorer, breadth first) far from any final state, stopped once a member has found a lost
/// update, keeps it. The plan starts DPOR at once (as the portfolio does after its head start)
/// and the stop comes from the first violation published, so nothing depends on timing.
#[test]
fn the_portfolio_stopped_keeps_the_lost_update_a_member_found() {
    use litmus_engine::engine::Task;
    let test = counter(4, 2);
    let opts = options(EngineChoice::Auto);
    let program = litmus_engine::ir::Program::lower(&test, opts.loop_bound).unwrap();
    let task = Task::new(&test, &program, Model::Sc, &opts);
    let published: Arc<Mutex<BTreeSet<(ViolationKind, Span)>>> = Arc::default();
    let base = Control::new();
    let flag = base.flag();
    let p = published.clone();
    let ctl = base.with_on_violation(move |v| {
        p.lock().unwrap().insert((v.kind, v.span));
        flag.store(true, Ordering::SeqCst);
    });
    let plan = vec![(EngineKind::Exhaustive, 0), (EngineKind::Dpor, 0)];
    let r = litmus_engine::auto::run_plan(&task, &ctl, plan);
    assert!(!r.complete);
    let published = published.lock().unwrap().clone();
    assert!(!published.is_empty());
    assert_eq!(keys(&r), published, "{:?}", r.violations);
    let c = r.condition.as_ref().expect("a condition");
    assert_eq!(c.verdict(), Some(false), "{c:?}");
    assert!(c.negative > 0, "the falsifying state is listed: {c:?}");
    // The guess answers for the stats; DPOR's findings are in the report.
    assert_eq!(r.stats.engine, Some(EngineKind::Exhaustive));
    assert!(r.stats.members.contains(&EngineKind::Dpor), "{:?}", r.stats);
    schedules_replay(&test, Model::Sc, &r).unwrap();
}

/// With a deadline, a member whose planned start the guess's work never reaches starts anyway
/// once a quarter of the time has passed (the timer's thread starts once the guess's work
/// passes `auto::EARLY`): the guess, the reference explorer breadth first on the slow
/// counter, finds nothing within the time, DPOR (planned far beyond it) finds the lost update
/// and the stopped report keeps it.
#[test]
fn the_portfolio_with_a_deadline_starts_every_member_after_a_quarter_of_it() {
    use litmus_engine::engine::Task;
    let test = counter(6, 2);
    let opts = options(EngineChoice::Auto);
    let program = litmus_engine::ir::Program::lower(&test, opts.loop_bound).unwrap();
    let task = Task::new(&test, &program, Model::Sc, &opts);
    let ctl = Control::new().with_timeout(Some(Duration::from_millis(1500)));
    let plan = vec![
        (EngineKind::Exhaustive, 0),
        (EngineKind::Dpor, litmus_engine::auto::CONFIDENT * 1000),
    ];
    let r = litmus_engine::auto::run_plan(&task, &ctl, plan);
    assert!(!r.complete, "the counter is not explored in 1.5 s");
    assert_eq!(r.stats.engine, Some(EngineKind::Exhaustive));
    assert!(r.stats.members.contains(&EngineKind::Dpor), "{:?}", r.stats);
    let c = r.condition.as_ref().expect("a condition");
    assert_eq!(
        c.verdict(),
        Some(false),
        "DPOR's lost update is kept: {c:?}"
    );
    assert!(c.negative > 0, "the falsifying state is listed: {c:?}");
    schedules_replay(&test, Model::Sc, &r).unwrap();
}
