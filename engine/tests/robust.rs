//! Robustness (`litmus_engine::robust`): the attack search agrees with the brute-force
//! definition (every path's `po ∪ rf ∪ co ∪ fr` acyclic) on random programs, and the corpus's
//! classic programs get the textbook answers; every witness replays.

use litmus_engine::ir::Program;
use litmus_engine::robust::{brute_force, robustness_program};
use litmus_engine::robustness;
use litmus_engine::testgen::{random_test, random_test_with, relaxed_test, GenConfig};
use litmus_engine::{replay, syntax, CheckOptions, Control, EngineKind, Model, ReplayEnd};

fn full() -> bool {
    std::env::var("LITMUS_FULL_TESTS").is_ok_and(|v| v == "1")
}

/// Program `seed` of the random sweeps: the generator's plain setting, its whole language, its
/// lock-order setting (two mutexes in either order, awaits, loops) and SB/MP shapes in turn.
fn program(seed: u64) -> litmus_engine::ast::Test {
    match seed % 4 {
        0 => random_test(seed),
        1 => random_test_with(seed, GenConfig::all()),
        2 => relaxed_test(seed),
        _ => random_test_with(seed, GenConfig::lock_order()),
    }
}

fn corpus(name: &str) -> litmus_engine::ast::Test {
    let path = format!(
        "{}/../tests/litmus/{name}.litmus",
        env!("CARGO_MANIFEST_DIR")
    );
    let src = std::fs::read_to_string(path).unwrap();
    syntax::parse(&src).test.expect("corpus parses")
}

#[test]
fn textbook_answers() {
    // (program, robust under TSO, robust under PSO)
    let cases = [
        ("sb", false, false),
        ("sb_fences", true, true),
        ("mp", true, false),
        ("mp_fence", true, true),
        ("dekker", false, false),
        ("dekker_fence", true, false),
        ("peterson", false, false),
        ("peterson_fence", true, false),
        ("lamport_fast", false, false),
        ("szymanski", false, false),
        ("iriw", true, true),
        ("lb", true, true),
        ("n6", false, false),
    ];
    let opts = CheckOptions::default();
    for (name, tso, pso) in cases {
        let t = corpus(name);
        for (m, want) in [(Model::Tso, tso), (Model::Pso, pso)] {
            let r = robustness(&t, m, &opts, &Control::new());
            assert!(r.complete, "{name} {m:?}");
            assert_eq!(r.holds, want, "{name} {m:?}: {:?}", r.attack);
            if let Some(a) = &r.attack {
                let end = replay(&t, m, &opts, &a.schedule).expect("witness replays");
                assert_eq!(end, ReplayEnd::Running, "{name} {m:?}");
                assert_eq!(a.store.thread, a.thread);
                assert!(a.conflict.thread != a.thread);
            }
        }
        assert!(robustness(&t, Model::Sc, &opts, &Control::new()).holds);
    }
}

#[test]
fn attacks_agree_with_the_definition() {
    let n = if full() { 800 } else { 80 };
    let mut compared = [0u32; 2];
    let mut non_robust = [0u32; 2];
    for seed in 0..n {
        let t = program(seed);
        let p = Program::lower(&t, 2).unwrap();
        let opts = CheckOptions {
            loop_bound: 2,
            ..CheckOptions::default()
        };
        for (i, m) in [Model::Tso, Model::Pso].into_iter().enumerate() {
            let Some(want) = brute_force(&p, m, &mut 20_000) else {
                continue;
            };
            compared[i] += 1;
            let r = robustness_program(&p, m, &opts, &Control::new());
            assert_eq!(
                r.holds,
                want,
                "seed {seed} {m:?}\n{}",
                litmus_engine::testgen::print(&t)
            );
            if !want {
                non_robust[i] += 1;
                let a = r.attack.unwrap();
                replay(&t, m, &opts, &a.schedule).expect("witness replays");
            }
        }
    }
    eprintln!("compared {compared:?}, not robust {non_robust:?}");
    for i in 0..2 {
        assert!(compared[i] > n as u32 / 2, "only {compared:?} compared");
        assert!(
            non_robust[i] > compared[i] / 10,
            "{non_robust:?} of {compared:?}"
        );
    }
}

/// `--engine dpor --robust`: robustness from DPOR's classes gives the attack search's answer on
/// every program of the corpus and `examples/`, and every witness replays.
#[test]
fn dpor_robustness_agrees_with_the_attack_search_on_the_corpus() {
    let dpor = CheckOptions {
        engine: EngineKind::Dpor.into(),
        ..CheckOptions::default()
    };
    let mut files = Vec::new();
    for dir in ["tests/litmus", "examples"] {
        let dir = format!("{}/../{dir}", env!("CARGO_MANIFEST_DIR"));
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "litmus") {
                files.push(path);
            }
        }
    }
    files.sort();
    let (mut compared, mut non_robust) = (0, 0);
    for f in &files {
        let Some(t) = syntax::parse(&std::fs::read_to_string(f).unwrap()).test else {
            continue;
        };
        for m in [Model::Tso, Model::Pso] {
            let want = robustness(&t, m, &CheckOptions::default(), &Control::new());
            let got = robustness(&t, m, &dpor, &Control::new());
            assert!(want.complete && got.complete, "{} {m:?}", f.display());
            assert_eq!(
                got.holds,
                want.holds,
                "{} {m:?}: {:?}",
                f.display(),
                got.attack
            );
            compared += 1;
            if let Some(a) = &got.attack {
                non_robust += 1;
                replay(&t, m, &dpor, &a.schedule).expect("witness replays");
                assert_eq!(a.store.thread, a.thread);
                assert!(a.conflict.thread != a.thread, "{} {m:?}", f.display());
            }
        }
        assert!(robustness(&t, Model::Sc, &dpor, &Control::new()).holds);
    }
    eprintln!("corpus: {compared} program-models compared, {non_robust} not robust");
    assert!(
        compared > 50 && non_robust > 10,
        "{compared} compared, {non_robust} not robust"
    );
}

/// Robustness from DPOR's classes agrees with the brute-force definition on random programs.
#[test]
fn dpor_robustness_agrees_with_the_definition() {
    let n = if full() { 800 } else { 80 };
    let opts = CheckOptions {
        engine: EngineKind::Dpor.into(),
        loop_bound: 2,
        ..CheckOptions::default()
    };
    let mut compared = [0u32; 2];
    let mut non_robust = [0u32; 2];
    for seed in 0..n {
        let t = program(seed);
        let p = Program::lower(&t, 2).unwrap();
        for (i, m) in [Model::Tso, Model::Pso].into_iter().enumerate() {
            let Some(want) = brute_force(&p, m, &mut 20_000) else {
                continue;
            };
            compared[i] += 1;
            let r = robustness(&t, m, &opts, &Control::new());
            assert!(r.complete || !r.holds, "seed {seed} {m:?}");
            assert_eq!(
                r.holds,
                want,
                "seed {seed} {m:?}\n{}",
                litmus_engine::testgen::print(&t)
            );
            if !want {
                non_robust[i] += 1;
                let a = r.attack.unwrap();
                replay(&t, m, &opts, &a.schedule).expect("witness replays");
            }
        }
    }
    eprintln!("dpor: compared {compared:?}, not robust {non_robust:?}");
    for i in 0..2 {
        assert!(compared[i] > n as u32 / 2, "only {compared:?} compared");
        assert!(
            non_robust[i] > compared[i] / 10,
            "{non_robust:?} of {compared:?}"
        );
    }
}
