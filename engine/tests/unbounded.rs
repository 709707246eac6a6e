//! Verdicts for every number of loop iterations (`litmus_engine::unbounded`): the mutual
//! exclusion classics proven for every number of rounds under SC, robust (so TSO too) when
//! fenced and not robust without fences; bounded and unbounded agree wherever both are
//! complete on random programs; every schedule replays at the loop bound it reports.

mod tier;

use litmus_engine::report::ViolationKind;
use litmus_engine::testgen::{random_test, random_test_with, GenConfig};
use litmus_engine::unbounded::{self, Budget, Verdict};
use litmus_engine::{replay, syntax, CheckOptions, Control, EngineKind, Model, ReplayEnd, Span};
use std::collections::BTreeSet;

fn parse_file(path: &str) -> litmus_engine::ast::Test {
    let path = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    let src = std::fs::read_to_string(&path).unwrap();
    syntax::parse(&src).test.expect("parses")
}

fn opts(loop_bound: u32) -> CheckOptions {
    CheckOptions {
        engine: EngineKind::Exhaustive.into(),
        loop_bound,
        ..CheckOptions::default()
    }
}

/// Every violation and the witness of `u` replay under `model` with the reported loop bound.
fn replays(t: &litmus_engine::ast::Test, model: Model, u: &unbounded::UnboundedReport) {
    let o = opts(u.unbounded.loop_bound.max(1));
    for v in &u.report.violations {
        match replay(t, model, &o, &v.schedule) {
            Ok(ReplayEnd::Violation { kind, span, .. }) => {
                assert_eq!((kind, span), (v.kind, v.span), "{}", t.name.text)
            }
            Ok(ReplayEnd::Final(_)) if v.kind == ViolationKind::Condition => {}
            other => panic!("{} {model:?}: {other:?}", t.name.text),
        }
    }
    if let Some(w) = &u.report.witness {
        assert!(matches!(replay(t, model, &o, w), Ok(ReplayEnd::Final(_))));
    }
}

/// The endless-loop versions of the classics (`tests/litmus/forever/`): mutual exclusion for
/// every number of rounds under SC; with fences robust, so TSO too; without, not robust under
/// TSO and the violation found by lazy TSO reachability, with a TSO schedule that replays.
#[test]
fn mutual_exclusion_for_every_round() {
    for name in ["dekker", "peterson", "lamport", "szymanski"] {
        for fenced in [true, false] {
            let file = format!(
                "tests/litmus/forever/{name}{}.litmus",
                if fenced { "_fence" } else { "" }
            );
            let t = parse_file(&file);
            let sc = unbounded::check(&t, Model::Sc, &opts(2), &Control::new());
            assert_eq!(sc.unbounded.verdict, Verdict::EveryIteration, "{file} SC");
            assert!(
                sc.report.complete && sc.report.violations.is_empty(),
                "{file}"
            );
            // An endless loop never finishes: no final state, and no loop-bound warning.
            assert!(sc.report.states.is_empty() && sc.report.warnings.is_empty());
            let tso = unbounded::check(&t, Model::Tso, &opts(2), &Control::new());
            let robust = tso
                .unbounded
                .robust
                .as_ref()
                .expect("TSO decides robustness");
            assert!(robust.complete, "{file}");
            assert_eq!(robust.holds, fenced, "{file} robust under TSO");
            if fenced {
                assert_eq!(tso.unbounded.verdict, Verdict::EveryIteration, "{file} TSO");
                assert!(tso.report.violations.is_empty());
            } else {
                assert_eq!(tso.unbounded.verdict, Verdict::Violation, "{file} TSO");
                assert!(tso
                    .report
                    .violations
                    .iter()
                    .any(|v| v.kind == ViolationKind::Assert));
                replays(&t, Model::Tso, &tso);
                // Found by lazy TSO reachability, whatever the loop bound: at bound 0 the
                // bounded check cannot enter a loop.
                let lazy = unbounded::check(&t, Model::Tso, &opts(0), &Control::new());
                assert_eq!(lazy.unbounded.verdict, Verdict::Violation, "{file} lazy");
                assert!(lazy.unbounded.rounds > 0, "{file}");
                replays(&t, Model::Tso, &lazy);
                // The attack replays too: it ends with the store still buffered.
                let a = robust.attack.as_ref().unwrap();
                let o = opts(unbounded::iterations(&t, Model::Tso, &a.schedule).max(1));
                assert_eq!(
                    replay(&t, Model::Tso, &o, &a.schedule),
                    Ok(ReplayEnd::Running)
                );
            }
        }
    }
}

/// The one-shot classics of the corpus, whose spin loops the bounded check cuts: for every
/// iteration, SC gives the expected count, and so does TSO with fences.
#[test]
fn corpus_classics_for_every_iteration() {
    let cases = [
        ("dekker", false),
        ("dekker_fence", true),
        ("peterson_fence", true),
        ("lamport_fast_fence", true),
        ("szymanski_fence", true),
        ("xchg_spinlock", true),
        ("loop_bound", true),
    ];
    for (name, tso_ok) in cases {
        let t = parse_file(&format!("tests/litmus/{name}.litmus"));
        for m in [Model::Sc, Model::Tso] {
            let u = unbounded::check(&t, m, &opts(2), &Control::new());
            let ok = m == Model::Sc || tso_ok;
            let want = if ok {
                Verdict::EveryIteration
            } else {
                Verdict::Violation
            };
            assert_eq!(
                u.unbounded.verdict, want,
                "{name} {m:?}: {:?}",
                u.unbounded.reason
            );
            if ok {
                // Not cut by a loop bound: the bounded check is not involved.
                assert!(u
                    .report
                    .warnings
                    .iter()
                    .all(|w| !w.message.contains("loop bound")));
            }
            if let Some(c) = &u.report.condition {
                assert_eq!(c.holds, ok, "{name} {m:?}");
            }
            replays(&t, m, &u);
        }
    }
}

type Outcome = (BTreeSet<String>, BTreeSet<(ViolationKind, Span)>);

fn outcome(r: &litmus_engine::ModelReport) -> Outcome {
    (
        r.states.iter().map(|s| format!("{s:?}")).collect(),
        r.violations.iter().map(|v| (v.kind, v.span)).collect(),
    )
}

/// On random programs with loops (`testgen`), SC and TSO: what the bounded check finds the
/// unbounded one finds; where the bounded check was not cut by its loop bound both are equal;
/// every violation found unbounded is found by the bounded check at the bound it reports.
#[test]
fn bounded_and_unbounded_agree_on_random_programs() {
    let n = tier::sweep(60, 600);
    let budget = Budget {
        states: 20_000,
        ..Budget::default()
    };
    let (mut compared, mut cut, mut deeper, mut with_loops) = (0, 0, 0, 0);
    for seed in 0..n {
        let t = if seed % 2 == 0 {
            random_test(seed)
        } else {
            random_test_with(seed, GenConfig::all())
        };
        // The generator's loops run at most twice: bound 1 cuts them.
        let bound = 1;
        for m in [Model::Sc, Model::Tso] {
            let u = unbounded::check_with(&t, m, &opts(bound), &Control::new(), budget);
            let b = litmus_engine::check(&t, m, &opts(bound), &Control::new());
            let was_cut = b.warnings.iter().any(|w| w.message.contains("loop bound"));
            with_loops += was_cut as u32;
            let (us, uv) = outcome(&u.report);
            let (bs, bv) = outcome(&b);
            // A violation at any bound is real: the unbounded check has it whenever it is
            // complete for every iteration (under TSO: robust), and always under SC.
            let exact = u.unbounded.verdict == Verdict::EveryIteration
                || (u.report.complete && u.unbounded.verdict == Verdict::Violation);
            if !exact && m == Model::Tso {
                continue;
            }
            if u.report.complete {
                compared += 1;
                assert!(bs.is_subset(&us), "seed {seed} {m:?} states");
                assert!(bv.is_subset(&uv), "seed {seed} {m:?} violations");
                if !was_cut {
                    assert_eq!((&us, &uv), (&bs, &bv), "seed {seed} {m:?}");
                } else {
                    cut += 1;
                }
            }
            replays(&t, m, &u);
            // Each violation found for every iteration is found at the bound it needs.
            let need = u.unbounded.loop_bound.max(1);
            if need > bound && !u.report.violations.is_empty() {
                deeper += 1;
                let b = litmus_engine::check(&t, m, &opts(need), &Control::new());
                let (_, bv) = outcome(&b);
                assert!(uv.is_subset(&bv), "seed {seed} {m:?} at bound {need}");
            }
        }
    }
    println!(
        "{n} programs x 2 models: {compared} compared, {with_loops} cut by loop bound 1 \
         ({cut} of them compared), {deeper} with violations needing a larger bound"
    );
    assert!(compared as u64 > n, "only {compared} comparisons");
}

/// Robustness for every iteration agrees with the bounded attack search on programs without
/// loops (where both search the same space), and on programs with loops is implied by it
/// in the one direction that must hold: not robust at some bound, not robust for every one.
#[test]
fn unbounded_robustness_agrees_with_the_bounded_search() {
    let n = tier::sweep(80, 800);
    let (mut same, mut loops, mut not_robust) = (0, 0, 0);
    for seed in 0..n {
        let t = if seed % 2 == 0 {
            random_test(seed)
        } else {
            random_test_with(seed, GenConfig::all())
        };
        let u = unbounded::robustness(
            &t,
            &opts(2),
            &Control::new(),
            Budget {
                states: 50_000,
                ..Budget::default()
            },
        )
        .unwrap();
        if !u.complete {
            continue;
        }
        let p = litmus_engine::ir::Program::lower(&t, 2).unwrap();
        let has_loops = p.threads.iter().any(|th| th.n_loops > 0);
        let b =
            litmus_engine::robust::robustness_program(&p, Model::Tso, &opts(2), &Control::new());
        not_robust += !u.holds as u32;
        if has_loops {
            loops += 1;
            if !b.holds {
                assert!(
                    !u.holds,
                    "seed {seed}: not robust at bound 2, robust unbounded"
                );
            }
        } else {
            same += 1;
            assert_eq!(u.holds, b.holds, "seed {seed}");
        }
        if let Some(a) = &u.attack {
            let o = opts(unbounded::iterations(&t, Model::Tso, &a.schedule).max(1));
            assert_eq!(
                replay(&t, Model::Tso, &o, &a.schedule),
                Ok(ReplayEnd::Running)
            );
        }
    }
    println!("{n} programs under TSO: {same} without loops equal, {loops} with loops, {not_robust} not robust");
    assert!(same > 0 && not_robust > 0);
}

/// Lazy TSO reachability against the bounded engines, on random programs with loops
/// (`testgen` with loop statements weighted up): a violation found for every iteration is
/// found by the bounded reference explorer at the loop bound it reports (and its schedule
/// replays); a violation the bounded check finds at bound 1 is a violation for every
/// iteration; a proof for every iteration has every final state and violation of the
/// bounded check.
#[test]
fn lazy_tso_agrees_with_the_bounded_engines() {
    let n = tier::sweep(100, 1000);
    let budget = Budget {
        states: 10_000,
        rounds: 4,
    };
    // Loops weighted up; fewer assertions, RMWs and mutexes, so that more violations are
    // TSO's own (an SC violation ends the check before any round).
    let mut cfg = GenConfig::plain();
    cfg.threads = (2, 3);
    cfg.mutex_chance = 0;
    cfg.condition_chance = 100;
    cfg.weights.while_reg = 6;
    cfg.weights.while_mem = 8;
    cfg.weights.assert = 1;
    cfg.weights.rmw = 2;
    cfg.weights.fence = 0;
    cfg.weights.assume = 0;
    let (mut lazy_found, mut proven, mut unknown, mut rounds, mut deeper) = (0, 0, 0, 0, 0);
    for seed in 0..n {
        let t = random_test_with(seed, cfg);
        let u = unbounded::check_with(&t, Model::Tso, &opts(1), &Control::new(), budget);
        let b = litmus_engine::check(&t, Model::Tso, &opts(1), &Control::new());
        let (us, uv) = outcome(&u.report);
        let (bs, bv) = outcome(&b);
        rounds += u.unbounded.rounds;
        replays(&t, Model::Tso, &u);
        if !bv.is_empty() {
            assert_eq!(u.unbounded.verdict, Verdict::Violation, "seed {seed}");
        }
        match u.unbounded.verdict {
            Verdict::EveryIteration => {
                proven += 1;
                assert!(bs.is_subset(&us) && bv.is_subset(&uv), "seed {seed}");
            }
            Verdict::Violation => {
                lazy_found += (u.unbounded.rounds > 0) as u32;
                let need = u.unbounded.loop_bound.max(1);
                deeper += (need > 1) as u32;
                let b = litmus_engine::check(&t, Model::Tso, &opts(need), &Control::new());
                let (_, bv) = outcome(&b);
                assert!(uv.is_subset(&bv), "seed {seed} at bound {need}");
            }
            Verdict::Unknown => unknown += 1,
        }
    }
    println!(
        "{n} programs under TSO: {proven} proven for every iteration, {lazy_found} violations \
         after refinement rounds ({deeper} needing loop bound > 1), {unknown} unknown; \
         {rounds} refinement rounds in all"
    );
    assert!(rounds > 0 && proven > 0);
}

/// Lazy TSO reachability on the litmus corpus (`tests/litmus/*.litmus`, the classics SB, MP,
/// IRIW, Dekker, Peterson... with and without fences): every TSO violation the bounded
/// reference explorer finds at loop bound 2 and SC has not is found by the refinement rounds
/// alone (the bounded check is not run after a violation), and it is found by the bounded
/// explorer again at the loop bound the unbounded answer reports; every schedule replays.
#[test]
fn lazy_tso_finds_the_corpus_tso_violations() {
    let dir = format!("{}/../tests/litmus", env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "litmus"))
        .collect();
    files.sort();
    let budget = Budget {
        states: 200_000,
        rounds: 8,
    };
    let (mut tso_only, mut rounds) = (0, 0);
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        let Some(t) = syntax::parse(&src).test else {
            continue;
        };
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let sc = litmus_engine::check(&t, Model::Sc, &opts(2), &Control::new());
        let b = litmus_engine::check(&t, Model::Tso, &opts(2), &Control::new());
        let u = unbounded::check_with(&t, Model::Tso, &opts(2), &Control::new(), budget);
        replays(&t, Model::Tso, &u);
        let (_, uv) = outcome(&u.report);
        if !b.violations.is_empty() {
            assert_eq!(u.unbounded.verdict, Verdict::Violation, "{name}");
        }
        if u.unbounded.verdict == Verdict::Violation {
            let need = u.unbounded.loop_bound.max(2);
            let (_, bv) = outcome(&litmus_engine::check(
                &t,
                Model::Tso,
                &opts(need),
                &Control::new(),
            ));
            assert!(uv.is_subset(&bv), "{name} at bound {need}");
        }
        let exists = |r: &litmus_engine::ModelReport| {
            r.condition
                .as_ref()
                .is_some_and(|c| c.kind == litmus_engine::ast::Quantifier::Exists && c.holds)
        };
        if exists(&b) {
            assert!(exists(&u.report) && u.report.witness.is_some(), "{name}");
        }
        let sc_closed = u.unbounded.robust.as_ref().is_some_and(|r| r.complete);
        let goal = |r: &litmus_engine::ModelReport| !r.violations.is_empty() || exists(r);
        if !goal(&sc) && goal(&b) && sc_closed {
            tso_only += 1;
            rounds += u.unbounded.rounds;
            assert!(u.unbounded.rounds > 0, "{name}: {:?}", u.unbounded.reason);
            // Found by the rounds: the reason says so, unless the bounded check then made
            // the report exact.
            assert!(
                u.unbounded.verdict == Verdict::EveryIteration
                    || u.unbounded
                        .reason
                        .as_ref()
                        .is_some_and(|r| r.contains("lazy TSO")),
                "{name}: {:?}",
                u.unbounded.reason
            );
        }
    }
    println!(
        "{} corpus files: {tso_only} with TSO-only goals (violations, `exists` witnesses), \
         each found by lazy TSO reachability ({rounds} refinement rounds in all)",
        files.len()
    );
    assert!(tso_only >= 10);
}
