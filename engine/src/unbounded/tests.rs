use super::*;
use crate::replay::ReplayEnd;
use crate::report::ViolationKind;
use crate::syntax;

fn parse(src: &str) -> Test {
    syntax::parse(src).test.expect("parses")
}

fn opts(loop_bound: u32) -> CheckOptions {
    CheckOptions {
        engine: EngineKind::Exhaustive.into(),
        loop_bound,
        ..CheckOptions::default()
    }
}

/// Message passing with a spin loop: the bounded check cuts the loop, the unbounded one
/// closes (the spin revisits one state) and finds the one final state.
const SPIN_MP: &str = "litmus SpinMP
shared x = 0, y = 0;
thread P0 { x = 1; y = 1; }
thread P1 { r0 = 0; while (r0 == 0) { r0 = y; } r1 = x; }
forall (P1:r1 == 1)";

#[test]
fn a_spin_loop_closes_for_every_iteration() {
    let t = parse(SPIN_MP);
    let bounded = crate::check(&t, Model::Sc, &opts(2), &Control::new());
    assert!(bounded
        .warnings
        .iter()
        .any(|w| w.message.contains("--unbounded")));
    for m in [Model::Sc, Model::Tso] {
        let u = check(&t, m, &opts(2), &Control::new());
        assert_eq!(u.unbounded.verdict, Verdict::EveryIteration, "{m:?}");
        assert!(u.report.complete && u.report.violations.is_empty());
        assert_eq!(u.report.states.len(), 1);
        assert!(u.report.warnings.is_empty(), "{:?}", u.report.warnings);
    }
    // Under PSO, y may reach memory before x: a real violation.
    let u = check(&t, Model::Pso, &opts(2), &Control::new());
    assert_eq!(u.unbounded.verdict, Verdict::Violation);
}

#[test]
fn a_growing_counter_is_unknown_at_the_state_budget() {
    let t = parse(
        "litmus Count
shared x = 0;
thread P0 { r = 0; while (r >= 0) { r = r + 1; x = r; } }",
    );
    let u = check_with(
        &t,
        Model::Sc,
        &opts(4),
        &Control::new(),
        Budget {
            states: 500,
            ..Budget::default()
        },
    );
    assert_eq!(u.unbounded.verdict, Verdict::Unknown);
    assert!(!u.report.complete);
    let reason = u.unbounded.reason.unwrap();
    assert!(reason.contains("budget of 500 states"), "{reason}");
    // Cancelled: unknown, and the reason says so.
    let ctl = Control::new();
    ctl.cancel();
    let u = check(&t, Model::Sc, &opts(4), &ctl);
    assert_eq!(u.unbounded.verdict, Verdict::Unknown);
    assert!(u.unbounded.reason.unwrap().contains("cancelled"));
}

#[test]
fn a_violation_deep_in_a_loop_replays_at_the_bound_it_needs() {
    // The assertion fails only in the 12th iteration: beyond the default bound.
    let t = parse(
        "litmus Deep
shared x = 0;
thread P0 { r = 0; while (r < 12) { r = r + 1; x = r; } }
thread P1 { s = x; assert(s != 12); }",
    );
    let b = crate::check(&t, Model::Sc, &opts(8), &Control::new());
    assert!(b.violations.is_empty());
    let u = check(&t, Model::Sc, &opts(8), &Control::new());
    assert_eq!(u.unbounded.verdict, Verdict::Violation);
    assert_eq!(u.unbounded.loop_bound, 12);
    let v = &u.report.violations[0];
    let end = crate::replay(&t, Model::Sc, &opts(12), &v.schedule).unwrap();
    assert!(matches!(end, ReplayEnd::Violation { .. }), "{end:?}");
    assert!(crate::replay(&t, Model::Sc, &opts(11), &v.schedule).is_err());
}

#[test]
fn forever_leaves_no_loop_counter() {
    let t = parse(SPIN_MP);
    let mut p = Program::lower(&t, 8).unwrap();
    forever(&mut p);
    assert!(p
        .threads
        .iter()
        .flat_map(|t| &t.code)
        .all(|i| !matches!(i.kind, InstrKind::LoopEnter(_) | InstrKind::LoopIter(_))));
}

/// Lazy TSO reachability finds Dekker's violation in the endless loop without the bounded
/// check (at loop bound 0 it cannot enter a loop), and its schedule, store-buffer flushes
/// included, replays under TSO at the loop bound it reports.
#[test]
fn lazy_rounds_find_dekker_without_a_loop_bound() {
    let src = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/litmus/forever/dekker.litmus"
    ))
    .unwrap();
    let t = parse(&src);
    let bounded = crate::check(&t, Model::Tso, &opts(0), &Control::new());
    assert!(bounded.violations.is_empty());
    let u = check(&t, Model::Tso, &opts(0), &Control::new());
    assert_eq!(u.unbounded.verdict, Verdict::Violation, "{:?}", u.unbounded);
    assert!(u.unbounded.rounds >= 1);
    let v = &u.report.violations[0];
    assert!(v
        .schedule
        .iter()
        .any(|s| s.action == crate::report::Action::Flush));
    let o = opts(u.unbounded.loop_bound);
    match crate::replay::replay(&t, Model::Tso, &o, &v.schedule) {
        Ok(ReplayEnd::Violation { kind, span, .. }) => assert_eq!((kind, span), (v.kind, v.span)),
        other => panic!("{other:?}"),
    }
}

/// Store buffering: `forall` holds under SC and fails under TSO; the first refinement round
/// finds the failing final state, and its schedule ends with the delayed flush.
#[test]
fn lazy_rounds_falsify_store_buffering() {
    let t = parse(
        "litmus SB
shared x = 0, y = 0;
thread P0 { x = 1; r0 = y; }
thread P1 { y = 1; r1 = x; }
forall (P0:r0 == 1 || P1:r1 == 1)",
    );
    let u = check(&t, Model::Tso, &opts(0), &Control::new());
    assert_eq!(u.unbounded.verdict, Verdict::Violation, "{:?}", u.unbounded);
    assert_eq!(u.unbounded.rounds, 1);
    let v = &u.report.violations[0];
    assert_eq!(v.kind, ViolationKind::Condition);
    assert_eq!(
        v.schedule.last().map(|s| s.action),
        Some(crate::report::Action::Flush)
    );
    let end = crate::replay::replay(&t, Model::Tso, &opts(0), &v.schedule);
    assert!(matches!(end, Ok(ReplayEnd::Final(_))), "{end:?}");
}

/// With a time limit, the unbounded searches under TSO take half of it: a search that cannot
/// close (a counter that keeps growing) leaves the other half to the bounded check, which
/// finds the store-buffering failure. Without the split the SC search used the whole limit
/// and the answer was `unknown`.
#[test]
fn a_search_that_cannot_close_leaves_time_to_the_bounded_check() {
    let t = parse(
        "litmus SBCount
shared x = 0, y = 0, a = 0;
thread P0 { x = 1; r0 = y; if (r0 == 0) { a = 1; } }
thread P1 { y = 1; r1 = x; if (r1 == 0) { r2 = a; assert(r2 == 0); } }
thread P2 { r = 0; while (r >= 0) { r = r + 1; } }",
    );
    let ctl = Control::new().with_timeout(Some(std::time::Duration::from_secs(4)));
    let u = check(&t, Model::Tso, &opts(8), &ctl);
    assert_eq!(u.unbounded.verdict, Verdict::Violation, "{:?}", u.unbounded);
    let reason = u.unbounded.reason.clone().unwrap();
    assert!(reason.contains("half the time limit"), "{reason}");
    let v = &u.report.violations[0];
    assert_eq!(v.kind, ViolationKind::Assert);
    let o = opts(u.unbounded.loop_bound);
    let end = crate::replay::replay(&t, Model::Tso, &o, &v.schedule);
    assert!(matches!(end, Ok(ReplayEnd::Violation { .. })), "{end:?}");
    // Under SC the search keeps the whole limit and the program is correct: unknown.
    let ctl = Control::new().with_timeout(Some(std::time::Duration::from_secs(1)));
    let u = check(&t, Model::Sc, &opts(8), &ctl);
    assert_eq!(u.unbounded.verdict, Verdict::Unknown, "{:?}", u.unbounded);
}
