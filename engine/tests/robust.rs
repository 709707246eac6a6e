//! Robustness (`litmus_engine::robust`): the attack search agrees with the brute-force
//! definition (every path's `po ∪ rf ∪ co ∪ fr` acyclic) on random programs, and the corpus's
//! classic programs get the textbook answers; every witness replays.

use litmus_engine::ir::Program;
use litmus_engine::robust::{brute_force, robustness, robustness_program};
use litmus_engine::testgen::{random_test, random_test_with, relaxed_test, GenConfig};
use litmus_engine::{replay, syntax, CheckOptions, Control, Model, ReplayEnd};

fn full() -> bool {
    std::env::var("LITMUS_FULL_TESTS").is_ok_and(|v| v == "1")
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
        let t = match seed % 3 {
            0 => random_test(seed),
            1 => random_test_with(seed, GenConfig::all()),
            _ => relaxed_test(seed),
        };
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
