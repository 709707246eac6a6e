//! The reproducers of issue 39: programs that take two mutexes in opposite orders, on which
//! DPOR (and `auto`, which answered with it) lost final states and an assertion failure.
//! Every engine must report what the reference explorer reports, under every model, and the
//! facts the programs were written to show are stated here by hand.

use litmus_engine::ast::Test;
use litmus_engine::report::{Model, ModelReport, ViolationKind};
use litmus_engine::{check, replay, syntax, CheckOptions, Control, EngineKind, ReplayEnd};

/// A store in each critical section: both orders of the sections end the test, and the
/// opposite orders of taking the mutexes deadlock.
const LOCK_ORDER: &str = "litmus LO
shared c = 0;
mutex a, b;
thread P0 { lock(a); lock(b); c = 1; unlock(b); unlock(a); }
thread P1 { lock(b); lock(a); c = 2; unlock(a); unlock(b); }
";

/// P1 runs first and P0 reads 1: the assertion fails (the smallest missed failure).
const MISSED: &str = "litmus Missed
shared x = 0;
mutex a, b;
thread P0 { r0 = x; lock(b); lock(a); unlock(a); unlock(b); assert(r0 != 1); }
thread P1 { lock(a); lock(b); x = 1; unlock(b); unlock(a); }
";

/// Three threads, each pair taking a mutex in the other order: a cycle of three.
const THREE: &str = "litmus Three
shared c = 0;
mutex a, b, d;
thread P0 { lock(a); lock(b); c = 1; unlock(b); unlock(a); }
thread P1 { lock(b); lock(d); c = 2; unlock(d); unlock(b); }
thread P2 { lock(d); lock(a); c = 3; unlock(a); unlock(d); }
";

fn parse(src: &str) -> Test {
    let p = syntax::parse(src);
    p.test
        .unwrap_or_else(|| panic!("does not parse: {:?}", p.diagnostics))
}

fn run(test: &Test, model: Model, engine: EngineKind) -> ModelReport {
    let opts = CheckOptions {
        engine,
        ..CheckOptions::default()
    };
    check(test, model, &opts, &Control::new())
}

fn kinds(r: &ModelReport) -> Vec<(ViolationKind, u32)> {
    let mut v: Vec<_> = r
        .violations
        .iter()
        .map(|v| (v.kind, v.span.start))
        .collect();
    v.sort_by_key(|&(k, s)| (format!("{k:?}"), s));
    v
}

fn values(r: &ModelReport, key: &str) -> Vec<i64> {
    r.states.iter().filter_map(|s| s.get(key)).collect()
}

/// Every engine gives the reference explorer's states and violations, each schedule replays.
fn agree(src: &str) -> Vec<(Model, ModelReport)> {
    let test = parse(src);
    let mut out = Vec::new();
    for model in Model::ALL {
        let want = run(&test, model, EngineKind::Exhaustive);
        assert!(want.complete);
        for engine in [EngineKind::Dpor, EngineKind::Mcr, EngineKind::Auto] {
            let got = run(&test, model, engine);
            assert!(got.complete, "{engine:?} {model:?}");
            assert_eq!(
                got.states, want.states,
                "{engine:?} {model:?}: final states\n{src}"
            );
            assert_eq!(
                kinds(&got),
                kinds(&want),
                "{engine:?} {model:?}: violations\n{src}"
            );
            for v in &got.violations {
                let opts = CheckOptions::default();
                match replay(&test, model, &opts, &v.schedule) {
                    Ok(ReplayEnd::Violation { kind, span, .. }) => {
                        assert_eq!((kind, span), (v.kind, v.span), "{engine:?} {model:?}")
                    }
                    other => panic!("{engine:?} {model:?}: {:?} replays to {other:?}", v.kind),
                }
            }
        }
        out.push((model, want));
    }
    out
}

#[test]
fn lock_order_keeps_both_final_states() {
    for (model, r) in agree(LOCK_ORDER) {
        assert_eq!(values(&r, "c"), vec![1, 2], "{model:?}");
        assert!(r
            .violations
            .iter()
            .any(|v| v.kind == ViolationKind::Deadlock));
    }
}

#[test]
fn lock_order_assertion_failure_is_found() {
    for (model, r) in agree(MISSED) {
        assert!(
            r.violations.iter().any(|v| v.kind == ViolationKind::Assert),
            "{model:?}"
        );
        assert!(
            r.violations
                .iter()
                .any(|v| v.kind == ViolationKind::Deadlock),
            "{model:?}"
        );
    }
}

#[test]
fn a_cycle_of_three_mutexes_keeps_every_final_state() {
    for (model, r) in agree(THREE) {
        assert_eq!(values(&r, "c"), vec![1, 2, 3], "{model:?}");
        assert!(r
            .violations
            .iter()
            .any(|v| v.kind == ViolationKind::Deadlock));
    }
}

/// With `--first`, the assertion failure (or the deadlock) is still reported, and DPOR's
/// first violation replays.
#[test]
fn first_violation_of_the_missed_program() {
    let test = parse(MISSED);
    for model in Model::ALL {
        let opts = CheckOptions {
            engine: EngineKind::Dpor,
            first: true,
            ..CheckOptions::default()
        };
        let r = check(&test, model, &opts, &Control::new());
        assert_eq!(r.violations.len(), 1, "{model:?}");
        let v = &r.violations[0];
        match replay(&test, model, &CheckOptions::default(), &v.schedule) {
            Ok(ReplayEnd::Violation { kind, .. }) => assert_eq!(kind, v.kind),
            other => panic!("{model:?}: replays to {other:?}"),
        }
    }
}
