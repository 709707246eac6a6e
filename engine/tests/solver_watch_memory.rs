//! Z3's own allocation counts against the memory budget ([`litmus_engine::solver_watch`]): MCR
//! with every query sent to Z3 stops at a budget only Z3's estimate can reach. (A file of its
//! own: the watcher and its registry are process-wide, and `solver_watch.rs` counts watches.)

mod solver_support;

use litmus_engine::ir::Program;
use litmus_engine::mcr::{self, Tuning};
use litmus_engine::options::{CheckOptions, Control, StopReason};
use litmus_engine::report::Model;
use litmus_engine::solver_watch;
use solver_support::heavy;

#[test]
fn z3s_own_allocation_counts_against_the_memory_budget() {
    // A budget whose Rust heap reads 0 bytes: only Z3's estimate of what it holds
    // (`Z3_get_estimated_alloc_size`, read by the watcher) can reach it. The exploration without
    // Z3 cannot stop on it, so it ends in the Z3 exploration, stopped by the memory budget.
    let parsed = litmus_engine::syntax::parse(&heavy());
    let program = Program::lower(&parsed.test.unwrap(), 8).unwrap();
    let ctl = Control::new().with_memory_budget(litmus_engine::MemoryBudget {
        limit: 2 << 20,
        used: || 0,
        origin: "a test's",
    });
    let tuning = Tuning {
        search_budget: 0,
        ..Tuning::default()
    };
    let stats = mcr::explore_with(
        &program,
        Model::Pso,
        &CheckOptions::default(),
        &ctl,
        tuning,
        &mut |_| {},
    );
    assert!(!stats.complete, "stopped by Z3's memory, so incomplete");
    assert_eq!(
        ctl.stop_reason(),
        Some(StopReason::Memory {
            budget: 2 << 20,
            origin: "a test's"
        })
    );
    assert!(solver_watch::z3_bytes() > 0, "Z3's estimate was read");
}
