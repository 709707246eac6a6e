//! Fence synthesis (`litmus_engine::fences`): after inserting the proposed fences the
//! reference explorer finds SC's verdicts under the model (or the program is robust), no
//! smaller set of candidates works on programs small enough to try every subset, and the
//! classic programs get the textbook number of fences.

use litmus_engine::fences::{candidates, synthesize, Goal, Synthesis};
use litmus_engine::report::{ModelReport, ViolationKind};
use litmus_engine::robustness;
use litmus_engine::syntax::fences::insert;
use litmus_engine::testgen::{print, random_test_with, relaxed_test, GenConfig};
use litmus_engine::{check, syntax, CheckOptions, Control, EngineKind, Model, Span};
use std::collections::BTreeSet;

fn full() -> bool {
    std::env::var("LITMUS_FULL_TESTS").is_ok_and(|v| v == "1")
}

fn exhaustive() -> CheckOptions {
    CheckOptions {
        engine: EngineKind::Exhaustive.into(),
        loop_bound: 2,
        ..CheckOptions::default()
    }
}

fn parse(src: &str) -> litmus_engine::ast::Test {
    syntax::parse(src)
        .test
        .unwrap_or_else(|| panic!("does not parse:\n{src}"))
}

fn verdicts(r: &ModelReport) -> (Option<bool>, BTreeSet<(ViolationKind, Span)>) {
    (
        r.condition.as_ref().map(|c| c.holds),
        r.violations.iter().map(|v| (v.kind, v.span)).collect(),
    )
}

/// Whether `src` has SC's verdicts under `m` (reference explorer), or is robust.
fn good(src: &str, m: Model, goal: Goal, o: &CheckOptions) -> bool {
    let t = parse(src);
    match goal {
        Goal::Robust => {
            let r = robustness(&t, m, o, &Control::new());
            assert!(r.complete);
            r.holds
        }
        Goal::Verdicts => {
            let sc = check(&t, Model::Sc, o, &Control::new());
            let r = check(&t, m, o, &Control::new());
            assert!(sc.complete && r.complete);
            verdicts(&sc) == verdicts(&r)
        }
    }
}

/// Checks one answer: it works, and (when there are few candidates) nothing smaller does.
/// Returns whether fences were needed.
fn verify(src: &str, m: Model, goal: Goal, o: &CheckOptions, exhaustive_limit: usize) -> Synthesis {
    let t = parse(src);
    let s = synthesize(src, &t, m, goal, o, &Control::new()).unwrap();
    assert!(s.complete);
    assert!(
        good(&s.text, m, goal, o),
        "{m:?} {goal:?}: fences do not work\n{}",
        s.text
    );
    let cands = candidates(src, &t, m);
    assert_eq!(s.candidates, cands.len());
    if cands.len() <= exhaustive_limit {
        // Every smaller subset fails.
        for mask in 0u32..(1 << cands.len()) {
            if (mask.count_ones() as usize) < s.fences.len() {
                let chosen: Vec<_> = (0..cands.len())
                    .filter(|i| mask & (1 << i) != 0)
                    .map(|i| cands[i].clone())
                    .collect();
                let text = insert(src, t.dialect, &chosen);
                assert!(
                    !good(&text, m, goal, o),
                    "{m:?} {goal:?}: a smaller set works:\n{text}\nproposed:\n{}",
                    s.text
                );
            }
        }
    }
    s
}

fn corpus(name: &str) -> String {
    let path = format!(
        "{}/../tests/litmus/{name}.litmus",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn textbook_fences() {
    let o = CheckOptions {
        loop_bound: 2,
        ..CheckOptions::default()
    };
    // (program, model, goal, fences)
    let cases = [
        ("sb", Model::Tso, Goal::Verdicts, 2),
        ("sb", Model::Pso, Goal::Verdicts, 2),
        ("sb_fences", Model::Tso, Goal::Verdicts, 0),
        ("mp", Model::Tso, Goal::Verdicts, 0),
        ("mp", Model::Pso, Goal::Verdicts, 1),
        ("mp_fence", Model::Pso, Goal::Robust, 0),
        ("dekker", Model::Tso, Goal::Verdicts, 2),
        ("peterson", Model::Tso, Goal::Verdicts, 2),
        ("sb", Model::Tso, Goal::Robust, 2),
    ];
    for (name, m, goal, n) in cases {
        let src = corpus(name);
        let s = verify(&src, m, goal, &o, 0);
        assert_eq!(s.fences.len(), n, "{name} {m:?} {goal:?}:\n{}", s.text);
    }
}

#[test]
fn random_programs_get_smallest_working_fences() {
    let n = if full() { 1000 } else { 60 };
    let o = exhaustive();
    let mut needed = [0u32; 2];
    for seed in 0..n {
        let t = relaxed_test(seed);
        let src = print(&t);
        for (i, m) in [Model::Tso, Model::Pso].into_iter().enumerate() {
            let goal = if seed % 4 == 3 {
                Goal::Robust
            } else {
                Goal::Verdicts
            };
            let s = verify(&src, m, goal, &o, 5);
            needed[i] += !s.fences.is_empty() as u32;
        }
    }
    eprintln!("fences needed: {needed:?} of {n}");
    // The generator must make programs that need fences (conditions only TSO/PSO reach).
    assert!(
        needed[0] > n as u32 / 6 && needed[1] > n as u32 / 5,
        "{needed:?}"
    );
}

/// On the generator's whole language and its lock-order setting (locks, awaits, loops, RMWs,
/// runtime errors, deadlocks), the fences `litmus fences` proposes (MCR, its default engine)
/// make the reference explorer find SC's verdicts under the model.
#[test]
fn fences_give_sc_verdicts_on_the_whole_language() {
    let n = if full() { 300 } else { 30 };
    let mcr = CheckOptions {
        engine: EngineKind::Mcr.into(),
        loop_bound: 2,
        ..CheckOptions::default()
    };
    let (mut needed, mut checked) = (0u32, 0u32);
    for seed in 0..n {
        let cfg = if seed % 2 == 0 {
            GenConfig::all()
        } else {
            GenConfig::lock_order()
        };
        let t = random_test_with(seed, cfg);
        let src = print(&t);
        let t = parse(&src);
        for m in [Model::Tso, Model::Pso] {
            let s = synthesize(&src, &t, m, Goal::Verdicts, &mcr, &Control::new()).unwrap();
            assert!(s.complete, "seed {seed} {m:?}");
            assert!(
                good(&s.text, m, Goal::Verdicts, &exhaustive()),
                "seed {seed} {m:?}: the fenced program does not have SC's verdicts\n{}",
                s.text
            );
            checked += 1;
            needed += !s.fences.is_empty() as u32;
        }
    }
    eprintln!("whole language: {checked} program-models, fences needed in {needed}");
}

#[test]
fn insertions_rebuild_the_fenced_text() {
    for name in ["dekker", "sb", "szymanski"] {
        let src = corpus(name);
        let t = parse(&src);
        let cands = candidates(&src, &t, Model::Pso);
        let mut text = src.clone();
        for (o, s) in litmus_engine::syntax::fences::insertions(&src, t.dialect, &cands)
            .iter()
            .rev()
        {
            text.insert_str(*o, s);
        }
        assert_eq!(text, insert(&src, t.dialect, &cands), "{name}");
    }
}
