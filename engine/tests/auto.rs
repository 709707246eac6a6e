//! `--engine auto`: the portfolio's report is the answering engine's own report (as if it had
//! run alone), the same from run to run, and agrees with the reference explorer; it can be
//! cancelled like any engine.

#[path = "programs/heldout.rs"]
mod heldout;
mod programs;
mod tier;

use litmus_engine::report::Model;
use litmus_engine::testgen::{random_test_with, GenConfig};
use litmus_engine::{check, syntax, CheckOptions, Control, EngineChoice, EngineKind, ModelReport};
use programs::{counter, sb_ring};

fn opts(engine: EngineChoice) -> CheckOptions {
    CheckOptions {
        engine,
        ..CheckOptions::default()
    }
}

fn untimed(mut r: ModelReport) -> ModelReport {
    r.stats.time_ms = 0.0;
    r.stats.solver_ms = 0.0;
    r
}

/// The report of `auto` is its engine's own, twice the same, and has the reference
/// explorer's states, condition and violation kinds.
fn agrees(t: &litmus_engine::ast::Test, m: Model, what: &str) -> EngineKind {
    let a = untimed(check(t, m, &opts(EngineChoice::Auto), &Control::new()));
    let engine = a.stats.engine.expect("auto names its engine");
    let again = untimed(check(t, m, &opts(EngineChoice::Auto), &Control::new()));
    assert_eq!(a, again, "{what}: auto differs from run to run");
    let alone = untimed(check(t, m, &opts(engine.into()), &Control::new()));
    assert_eq!(a, alone, "{what}: auto's report is not {engine:?}'s own");
    let oracle = check(t, m, &opts(EngineKind::Exhaustive.into()), &Control::new());
    assert!(a.complete, "{what}");
    assert_eq!(a.states, oracle.states, "{what}");
    assert_eq!(a.condition, oracle.condition, "{what}");
    let kinds = |r: &ModelReport| {
        r.violations
            .iter()
            .map(|v| (v.kind, v.span))
            .collect::<Vec<_>>()
    };
    assert_eq!(kinds(&a), kinds(&oracle), "{what}");
    engine
}

#[test]
fn auto_reports_its_engines_own_report_on_random_programs() {
    for seed in 0..tier::sweep(30, 300) {
        let t = random_test_with(seed, GenConfig::all());
        for m in Model::ALL {
            agrees(&t, m, &format!("seed {seed} {m:?}"));
        }
    }
}

/// Whether the reference explorer closes `t` under `m` within `steps` steps (one unit of its
/// work each), cancelled past them.
fn closes_within(t: &litmus_engine::ast::Test, m: Model, steps: u64) -> bool {
    use litmus_engine::{engine, ir::Program};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    let Ok(p) = Program::lower(t, 8) else {
        return false;
    };
    let o = opts(EngineKind::Exhaustive.into());
    let ctl = Control::new();
    let (count, stop) = (Arc::new(AtomicU64::new(0)), ctl.clone());
    let task = engine::Task {
        work: Some(Arc::new(move |n| {
            if count.fetch_add(n, Ordering::Relaxed) + n > steps {
                stop.cancel();
            }
        })),
        ..engine::Task::new(t, &p, m, &o)
    };
    engine::engine(EngineKind::Exhaustive)
        .check(&task, &ctl)
        .complete
}

/// Issue 58: on the held-out family of the engine benchmark (`programs/heldout.rs`, from the
/// benchmark's first seed on: programs neither the weights nor the plan were chosen on), the
/// programs small enough for a debug build (the reference explorer closes them under PSO
/// within 50,000 steps), at least ten and until both the plan's guess (DPOR) and the runner-up
/// it starts early (the reference explorer) have answered: under TSO and PSO `auto`'s report
/// is its engine's own, the same from run to run, and has the reference explorer's states,
/// condition and violations.
#[test]
fn auto_agrees_with_the_reference_on_the_held_out_family() {
    let want = tier::sweep(10, 40);
    let (mut checked, mut engines) = (0, std::collections::BTreeSet::new());
    for seed in 5_800_000u64..5_800_400 {
        if checked >= want && engines.len() >= 2 {
            break;
        }
        let t = syntax::parse(&heldout::heldout(seed))
            .test
            .expect("held-out programs parse");
        if !closes_within(&t, Model::Pso, 50_000) {
            continue;
        }
        for m in [Model::Tso, Model::Pso] {
            engines.insert(agrees(&t, m, &format!("held-out seed {seed} {m:?}")));
        }
        checked += 1;
    }
    assert!(
        engines.len() >= 2,
        "one engine answered every program: {engines:?}"
    );
}

/// After the MCR paper's Example: a writer and a reader loop `n` times.
fn mcr_example(n: usize) -> String {
    format!(
        "litmus Example{n}\nshared x = 0, y = 0, z = 0;\n\
         thread P0 {{\n  i = 0;\n  while (i < {n}) {{\n    x = 0;\n    y = 0;\n    x = 2;\n    y = 3;\n    z = 1;\n    i = i + 1;\n  }}\n}}\n\
         thread P1 {{\n  j = 0;\n  while (j < {n}) {{\n    r = z;\n    if (r == 1) {{\n      a = x;\n      b = y;\n      assert(a != 0 && b != 0);\n    }}\n    j = j + 1;\n  }}\n}}\n"
    )
}

#[test]
fn auto_runs_the_portfolio_past_the_first_engines_budget() {
    // The Example under PSO loops without awaiting: DPOR first, and its work passes the
    // budget it runs alone, so MCR joins (whichever answers, the report is its own and the
    // same twice).
    let example = syntax::parse(&mcr_example(3)).test.unwrap();
    agrees(&example, Model::Pso, "Example 3");
    // The Bakery under PSO awaits without looping: DPOR first, the reference explorer joins
    // at the start `lean` gives it.
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/litmus/bakery.litmus");
    let bakery = syntax::parse(&std::fs::read_to_string(path).unwrap())
        .test
        .unwrap();
    agrees(&bakery, Model::Pso, "bakery");
    // Where the static measure is sure (the counter of 2 x 4 under TSO: the reference
    // explorer; the SB ring of 6: DPOR), the guess may finish alone.
    let counter = syntax::parse(&counter(2, 4)).test.unwrap();
    agrees(&counter, Model::Tso, "counter 2x4");
    let ring = syntax::parse(&sb_ring(6)).test.unwrap();
    agrees(&ring, Model::Pso, "SB ring 6");
}

#[test]
fn the_static_guess_separates_racing_counters_from_rings() {
    use litmus_engine::{auto, ir::Program};
    let guess = |src: &str, m: Model| {
        let p = Program::lower(&syntax::parse(src).test.unwrap(), 8).unwrap();
        auto::candidates(&p, m, &CheckOptions::default())
    };
    // Many threads racing on one location: millions of Shasha-Snir classes, few states.
    for m in Model::ALL {
        let c = guess(&counter(3, 3), m);
        assert_eq!(c[0].0, EngineKind::Exhaustive, "{m:?}");
        let r = guess(&sb_ring(10), m);
        assert_eq!(r[0].0, EngineKind::Dpor, "{m:?}");
        // Sure guesses run alone longer than the least head start.
        assert!(
            c[1].1 > auto::UNSURE && r[1].1 > auto::UNSURE,
            "{c:?} {r:?}"
        );
    }
    // MCR joins where a thread loops without awaiting under PSO (the Example), never under
    // SC or TSO nor with `--first`.
    let e = guess(&mcr_example(3), Model::Pso);
    assert!(e.iter().any(|c| c.0 == EngineKind::Mcr), "{e:?}");
    for m in [Model::Sc, Model::Tso] {
        let e = guess(&mcr_example(3), m);
        assert!(!e.iter().any(|c| c.0 == EngineKind::Mcr), "{m:?} {e:?}");
    }
    let first = CheckOptions {
        first: true,
        ..CheckOptions::default()
    };
    let p = Program::lower(&syntax::parse(&mcr_example(3)).test.unwrap(), 8).unwrap();
    assert!(!auto::candidates(&p, Model::Pso, &first)
        .iter()
        .any(|c| c.0 == EngineKind::Mcr));
}

#[test]
fn a_cancelled_auto_check_ends_incomplete() {
    let t = syntax::parse(&counter(3, 3)).test.unwrap();
    let ctl = Control::new();
    ctl.cancel();
    let r = check(&t, Model::Pso, &opts(EngineChoice::Auto), &ctl);
    assert!(!r.complete);
    assert!(r.stats.engine.is_some());
    // A deadline stops every engine of the portfolio too.
    let o = CheckOptions {
        timeout: Some(std::time::Duration::from_millis(200)),
        ..opts(EngineChoice::Auto)
    };
    let start = std::time::Instant::now();
    let r = check(&t, Model::Pso, &o, &Control::new());
    assert!(!r.complete);
    assert!(
        start.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_worker_slot_is_given_back_when_dropped() {
    use litmus_engine::Workers;
    let w = Workers::new(2);
    let a = w.try_acquire().expect("a free slot");
    let b = w.clone().try_acquire().expect("a clone shares the budget");
    assert!(w.try_acquire().is_none(), "two slots, both held");
    assert_eq!(w.in_use(), 2);
    drop(a);
    assert_eq!(w.in_use(), 1);
    let c = w.try_acquire().expect("the dropped slot is free again");
    assert_eq!((w.granted(), w.total()), (3, 2));
    drop((b, c));
    assert_eq!(w.in_use(), 0);
}

/// `auto` on `t` under `m` with a worker budget of `n` slots, this thread holding one (as the
/// pool that runs a check does): the report and the slots granted in all.
fn with_workers(t: &litmus_engine::ast::Test, m: Model, n: usize) -> (ModelReport, u64) {
    let w = litmus_engine::Workers::new(n);
    let _mine = w.try_acquire().expect("the check's own slot");
    let ctl = Control::new().with_workers(w.clone());
    let r = untimed(check(t, m, &opts(EngineChoice::Auto), &ctl));
    (r, w.granted())
}

#[test]
fn auto_starts_a_member_thread_only_with_a_free_worker_slot() {
    // The Example under PSO: DPOR first, and its work passes MCR's start, so MCR joins; with
    // no free slot it runs after DPOR on the same thread.
    let example = syntax::parse(&mcr_example(3)).test.unwrap();
    let free = untimed(check(
        &example,
        Model::Pso,
        &opts(EngineChoice::Auto),
        &Control::new(),
    ));
    let (one, granted_one) = with_workers(&example, Model::Pso, 1);
    assert_eq!(
        granted_one, 1,
        "only the check's own slot: no member thread"
    );
    let (two, granted_two) = with_workers(&example, Model::Pso, 2);
    assert_eq!(
        granted_two, 2,
        "a free slot: the joining member gets a thread"
    );
    // The same engine answers with the same report, threads or not.
    assert_eq!(one, free);
    assert_eq!(two, free);
}

#[test]
fn with_first_the_guess_on_a_lock_is_dpor() {
    // Szymanski's lock (Nidhugg's translation) under TSO without fences: mutual exclusion
    // fails, and DPOR's first executions reach it long before the reference explorer's states.
    let t = syntax::parse(&programs::nidhugg("szymanski", "none"))
        .test
        .unwrap();
    let first = CheckOptions {
        first: true,
        ..opts(EngineChoice::Auto)
    };
    let p = litmus_engine::ir::Program::lower(&t, 8).unwrap();
    let plan = litmus_engine::auto::candidates(&p, Model::Tso, &first);
    assert_eq!(plan[0].0, EngineKind::Dpor, "{plan:?}");
    let a = untimed(check(&t, Model::Tso, &first, &Control::new()));
    assert!(a.stopped.is_some(), "a violation stops the check");
    let engine = a.stats.engine.expect("auto names its engine");
    let alone = untimed(check(
        &t,
        Model::Tso,
        &CheckOptions {
            engine: engine.into(),
            ..first.clone()
        },
        &Control::new(),
    ));
    assert_eq!(a, alone, "auto's report is {engine:?}'s own");
}

#[test]
fn an_unsure_guess_has_its_runner_up_start_early() {
    use litmus_engine::{auto, ir::Program};
    let plan = |src: &str, m: Model| {
        let p = Program::lower(&syntax::parse(src).test.unwrap(), 8).unwrap();
        auto::candidates(&p, m, &CheckOptions::default())
    };
    let start =
        |plan: &[(EngineKind, u64)], e: EngineKind| plan.iter().find(|c| c.0 == e).map(|c| c.1);
    // A loop under SC and TSO: `lean_unrolled` decides, and the runner-up keeps the head
    // start it gives (the MCR paper's Example, where the reference explorer is 7-350x faster
    // than DPOR under SC from N = 3, and under TSO about as fast at N = 3, 3.7x at N = 4 and
    // 17x at N = 5: the reference explorer first, DPOR after at least `UNSURE`). Under PSO, lock-free: MCR early, whichever of DPOR and the
    // reference explorer `lean_unrolled` puts first.
    for m in [Model::Sc, Model::Tso] {
        let p = plan(&mcr_example(3), m);
        assert_eq!(p[0].0, EngineKind::Exhaustive, "{m:?} {p:?}");
        assert!(
            start(&p, EngineKind::Dpor) >= Some(auto::UNSURE),
            "{m:?} {p:?}"
        );
        assert_eq!(start(&p, EngineKind::Mcr), None, "{m:?} {p:?}");
    }
    let pso = plan(&mcr_example(3), Model::Pso);
    assert_eq!(start(&pso, EngineKind::Mcr), Some(auto::EARLY));
    // Loops under PSO (issue 58): the issue's programs. JMCR's RVExample (18 states, DPOR
    // 4,985 executions) goes to the reference explorer first, DPOR and MCR (it takes a mutex)
    // after its head start; Lamport's mutex with JMCR's busy waits (234 DPOR executions, 4,820
    // states) to DPOR.
    let issue58 = |name: &str| {
        std::fs::read_to_string(format!(
            "{}/benches/engines/issue58/{name}.litmus",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    };
    let rv = plan(&issue58("rvexample"), Model::Pso);
    assert_eq!(rv[0].0, EngineKind::Exhaustive, "{rv:?}");
    assert!(start(&rv, EngineKind::Dpor) >= Some(auto::UNSURE), "{rv:?}");
    assert!(start(&rv, EngineKind::Mcr) >= Some(auto::UNSURE), "{rv:?}");
    let lamport = plan(&issue58("lamport_jmcr"), Model::Pso);
    assert_eq!(lamport[0].0, EngineKind::Dpor, "{lamport:?}");
    assert!(
        start(&lamport, EngineKind::Exhaustive) >= Some(auto::ALONE),
        "{lamport:?}"
    );
    // A loop-free program that assumes (`lean` does not model it, and overestimates DPOR):
    // where the guess is the reference explorer, DPOR early.
    let szymanski = programs::nidhugg("szymanski", "none");
    for m in Model::ALL {
        let p = plan(&szymanski, m);
        assert_eq!(p[0].0, EngineKind::Exhaustive, "{m:?} {p:?}");
        assert_eq!(p[1], (EngineKind::Dpor, auto::EARLY), "{m:?} {p:?}");
    }
}

#[test]
fn the_critical_path_ends_after_the_checks_start_on_its_clock() {
    use litmus_engine::auto;
    use std::sync::Arc;
    // The Example under PSO: MCR joins early and answers, DPOR is outrun.
    let t = syntax::parse(&mcr_example(3)).test.unwrap();
    let path = Arc::new(auto::CpuPath::default());
    let before = auto::thread_cpu_ns();
    let ctl = Control::new().with_cpu_path(path.clone());
    let r = check(&t, Model::Pso, &opts(EngineChoice::Auto), &ctl);
    assert_eq!(r.stats.engine, Some(EngineKind::Mcr));
    // The outrun member marks its end at its next unit of work.
    while !path.settled() {
        std::thread::yield_now();
    }
    assert!(path.ns() > before, "{} {before}", path.ns());
}

/// `kind` alone on `t` under `m` (`kind` None: the portfolio with `plan`), with its weighted
/// work counted as the portfolio counts it, the check cancelled once that passes `limit`, and
/// `workers` as the worker budget: the report and the work counted.
fn counted(
    t: &litmus_engine::ast::Test,
    m: Model,
    kind: Option<EngineKind>,
    limit: u64,
    workers: Option<litmus_engine::Workers>,
) -> (ModelReport, u64) {
    use litmus_engine::{auto, engine, ir::Program};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    let p = Program::lower(t, 8).unwrap();
    let o = opts(kind.map_or(EngineChoice::Auto, EngineChoice::from));
    let mut ctl = Control::new();
    if let Some(w) = workers {
        ctl = ctl.with_workers(w);
    }
    // The portfolio tells its counter weighted work; an engine alone, units.
    let weight = kind.map_or(1, |k| auto::weight(k, &p, m));
    let work = Arc::new(AtomicU64::new(0));
    let (count, stop) = (work.clone(), ctl.clone());
    let task = engine::Task {
        work: Some(Arc::new(move |n| {
            if count.fetch_add(n * weight, Ordering::Relaxed) + n * weight > limit {
                stop.cancel();
            }
        })),
        ..engine::Task::new(t, &p, m, &o)
    };
    let r = match kind {
        Some(k) => engine::engine(k).check(&task, &ctl),
        None => auto::run_plan(&task, &ctl, auto::candidates(&p, m, &o)),
    };
    (untimed(r), work.load(Ordering::Relaxed))
}

#[test]
fn without_a_free_slot_a_wrong_guess_takes_turns_with_the_winner() {
    use litmus_engine::{auto, ir::Program};
    // A program of the engine benchmark's held-out family under PSO where `lean_unrolled` is
    // just above its threshold: the guess is the reference explorer (about 400 ms here), DPOR
    // joins after its head start and answers with far less work (about 12 ms).
    let t = syntax::parse(&heldout::heldout(5_800_053)).test.unwrap();
    let m = Model::Pso;
    let p = Program::lower(&t, 8).unwrap();
    let plan = auto::candidates(&p, m, &opts(EngineChoice::Auto));
    let free = untimed(check(&t, m, &opts(EngineChoice::Auto), &Control::new()));
    let winner = free.stats.engine.expect("auto names its engine");
    assert_ne!(winner, plan[0].0, "the guess is wrong here: {plan:?}");
    // With only the check's own slot the members take turns on it: no thread of their own
    // runs beside it, and the same engine answers with the same report.
    let (one, granted) = with_workers(&t, m, 1);
    assert_eq!(granted, 1, "only the check's own slot");
    assert_eq!(one, free);
    // Under a work limit the winner completes within, beside the guess taking turns (each
    // member at most a quantum and a unit past the other), auto with one slot completes,
    // where the guess alone (which, run first to its end, is what one slot cost before) does
    // not.
    let (alone, win) = counted(&t, m, Some(winner), u64::MAX, None);
    assert!(alone.complete);
    let at = plan.iter().find(|c| c.0 == winner).unwrap().1;
    let units: u64 = plan.iter().map(|c| auto::weight(c.0, &p, m)).sum();
    let limit = at + 2 * win + 2 * (auto::turns::QUANTUM + units);
    let (guess, _) = counted(&t, m, Some(plan[0].0), limit, None);
    assert!(!guess.complete, "the guess alone needs more than {limit}");
    let w = litmus_engine::Workers::new(1);
    let _mine = w.try_acquire().expect("the check's own slot");
    let (turns, work) = counted(&t, m, None, limit, Some(w.clone()));
    assert!(
        turns.complete,
        "auto by turns within {limit} (counted {work})"
    );
    assert_eq!(turns, free);
    assert_eq!(w.granted(), 1);
}

/// `lean` counts a mutex's orders as its locked sections' orders: DPOR races two `lock`s of a
/// mutex and nothing with an `unlock` (`docs/design/dpor.md`), so two threads of `k`
/// sections each have `C(2k, k)` orders of their owners, not the `C(4k, 2k)` of as many
/// locks and unlocks counted as writes (which put the reference explorer first on programs of
/// the sweeps' generator, rich in locks, where DPOR ran 3-20x faster: `docs/bench-engines.md`).
#[test]
fn lean_counts_a_mutexs_orders_by_its_locked_sections() {
    use litmus_engine::{auto, ir::Program};
    let ln_choose = |n: u64, k: u64| -> f64 {
        (1..=k)
            .map(|i| (((n - k + i) as f64) / i as f64).ln())
            .sum()
    };
    for k in 1..=4u64 {
        let body = "  lock(m);\n  unlock(m);\n".repeat(k as usize);
        let src =
            format!("litmus Sections\nmutex m;\nthread P0 {{\n{body}}}\nthread P1 {{\n{body}}}\n");
        let p = Program::lower(&syntax::parse(&src).test.unwrap(), 8).unwrap();
        // DPOR: its steps times the sections' orders; the reference explorer: the two
        // threads' positions (2k + 1 each) times the two threads.
        let steps = (4 * k) as f64;
        let want = steps.ln() + ln_choose(2 * k, k) - 2.0 * ((2 * k + 1) as f64).ln() - 2f64.ln();
        let got = auto::lean(&p, Model::Sc);
        assert!(
            (got - want).abs() < 1e-9,
            "k = {k}: lean {got}, want {want}"
        );
    }
}

/// MCR's meter counts the work of deciding its queries (issue 58): half a unit a query and a
/// quarter per state of the causal search and per unit of Z3's resource count, beside a unit
/// per seed and replayed step. Without them, MCR's counted work on this program (a dev seed
/// of the engine benchmark's held-out generator, whose time goes to 200,000 states of causal
/// search) was 2,212 units for 86 ms of CPU, where a unit is weighed at about 1.25 µs: the
/// portfolio then waited for MCR long after another member had finished.
#[test]
fn mcrs_meter_counts_the_work_of_its_queries() {
    use litmus_engine::ir::Program;
    use litmus_engine::mcr::{self, Tuning};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;
    let src = "litmus Heldout130\nshared x = 0, y = 0;\nmutex l;\n\
        thread T0 { i0 = 0; while (i0 < 3) { x = 0; fence; i0 = i0 + 1; } x = 1; }\n\
        thread T1 { i0 = 0; while (i0 < 2) { x = 1; y = 0; fence; i0 = i0 + 1; }\n\
          r0 = x; if (x > 0) { if (y > 0) { assert(r0 != 0); } } }\n\
        thread T2 { i0 = 0; while (i0 < 1) { y = 0;\n\
            if (y != 1) { y = 3; await(y == 0); } else { lock(l); r0 = y; fence; unlock(l); }\n\
            i0 = i0 + 1; }\n\
          i1 = 0; while (i1 < 3) { r1 = y; i1 = i1 + 1; } }\n";
    let test = syntax::parse(src).test.expect("parses");
    let o = opts(EngineKind::Mcr.into());
    let units = Arc::new(AtomicU64::new(0));
    let counter = units.clone();
    let work: litmus_engine::collect::WorkFn = Arc::new(move |n| {
        counter.fetch_add(n, Ordering::Relaxed);
    });
    let r = check::check_counting(&test, Model::Pso, &o, &Control::new(), Some(work));
    assert!(r.complete, "MCR finishes");
    let program = Program::lower(&test, o.loop_bound).expect("lowers");
    let s = mcr::explore_with(
        &program,
        Model::Pso,
        &o,
        &Control::new(),
        Tuning::default(),
        &mut |_| {},
    );
    assert!(
        s.search_states > 10 * s.queries,
        "the program exercises the causal search: {} states over {} queries",
        s.search_states,
        s.queries
    );
    let queries = (4 * s.queries + 2 * s.search_states + 2 * s.z3_work) / 8;
    let counted = units.load(Ordering::Relaxed);
    assert!(
        counted >= queries,
        "MCR counted {counted} units, less than its queries' share alone ({queries}: {} \
         queries, {} search states, {} Z3 units)",
        s.queries,
        s.search_states,
        s.z3_work
    );
}
