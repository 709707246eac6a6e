//! A Z3 query stops when its check is cancelled ([`litmus_engine::solver_watch`]): MCR with
//! every query sent to Z3, on a program whose exploration takes far longer than the test, is
//! cancelled while its Z3 watch is registered, and returns an incomplete report with the cancellation as its
//! reason.

mod solver_support;

use litmus_engine::ir::Program;
use litmus_engine::mcr::{self, Tuning};
use litmus_engine::options::{CheckOptions, Control, StopReason};
use litmus_engine::report::Model;
use litmus_engine::solver_watch;
use solver_support::heavy;

#[test]
fn cancelling_an_exploration_in_z3_interrupts_the_solver() {
    let parsed = litmus_engine::syntax::parse(&heavy());
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let program = Program::lower(&parsed.test.unwrap(), 8).unwrap();
    let ctl = Control::new();
    let tuning = Tuning {
        search_budget: 0,
        ..Tuning::default()
    };
    let run = {
        let ctl = ctl.clone();
        std::thread::spawn(move || {
            mcr::explore_with(
                &program,
                Model::Pso,
                &CheckOptions::default(),
                &ctl,
                tuning,
                &mut |_| {},
            )
        })
    };
    // Wait until the exploration solves with Z3 (its watch is registered), then cancel.
    while solver_watch::watched() == 0 {
        assert!(
            !run.is_finished(),
            "the exploration ended before reaching Z3"
        );
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    ctl.cancel();
    let stats = run.join().expect("no panic");
    assert!(!stats.complete, "a cancelled exploration is incomplete");
    assert_eq!(ctl.stop_reason(), Some(StopReason::Cancelled));
    // Whether the cancel landed inside a query (and the watcher interrupted it) or between two
    // (and the explorer's own poll saw it) depends on timing; the solver_watch unit tests
    // interrupt a query that cannot finish on its own. Either way the report says why it
    // stopped, and the watch is gone.
    assert_eq!(
        solver_watch::watched(),
        0,
        "the watch ends with the exploration"
    );
}
