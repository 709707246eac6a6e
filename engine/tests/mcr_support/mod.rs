//! Shared helpers of the MCR tests: run both explorers on an AST, and the random programs they
//! run on (the one generator, `litmus_engine::testgen`, on two or three threads).
#![allow(dead_code)]

use litmus_engine::ast::*;
use litmus_engine::collect::Collector;
use litmus_engine::ir::Program;
use litmus_engine::mcr::{self, McrStats, Tuning};
use litmus_engine::report::{Model, ModelReport};
use litmus_engine::testgen::{random_test_with, GenConfig, Weights};
use litmus_engine::{check, CheckOptions, Control, EngineKind};
use std::time::Instant;

/// Every program of the corpus `tests/litmus/*.litmus`, parsed, with its path, in file order.
pub fn corpus() -> Vec<(std::path::PathBuf, Test)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/litmus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/litmus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.retain(|p| p.extension().is_some_and(|x| x == "litmus"));
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let test =
                litmus_engine::syntax::parse(&std::fs::read_to_string(&f).expect("readable"))
                    .test
                    .expect("corpus parses");
            (f, test)
        })
        .collect()
}

/// The exhaustive reference report (loop bound 2).
pub fn exhaustive(test: &Test, model: Model) -> ModelReport {
    let opts = CheckOptions {
        engine: EngineKind::Exhaustive.into(),
        loop_bound: 2,
        ..CheckOptions::default()
    };
    check(test, model, &opts, &Control::new())
}

/// The exhaustive reference report with the default options.
pub fn exhaustive_with_default_bound(test: &Test, model: Model) -> ModelReport {
    let opts = CheckOptions {
        engine: EngineKind::Exhaustive.into(),
        ..CheckOptions::default()
    };
    check(test, model, &opts, &Control::new())
}

/// The MCR report and MCR's own counters with the default options.
pub fn mcr_run_default_bound(test: &Test, model: Model) -> (ModelReport, McrStats) {
    mcr_run_opts(test, model, Tuning::default(), &CheckOptions::default())
}

/// The MCR report and MCR's own counters with the default options and a timeout.
pub fn mcr_run_with_timeout(
    test: &Test,
    model: Model,
    timeout: std::time::Duration,
) -> (ModelReport, McrStats) {
    let opts = CheckOptions {
        timeout: Some(timeout),
        ..CheckOptions::default()
    };
    mcr_run_opts(test, model, Tuning::default(), &opts)
}

/// The MCR report and MCR's own counters (loop bound 2).
pub fn mcr_run(test: &Test, model: Model, tuning: Tuning) -> (ModelReport, McrStats) {
    let opts = CheckOptions {
        engine: EngineKind::Mcr.into(),
        loop_bound: 2,
        ..CheckOptions::default()
    };
    mcr_run_opts(test, model, tuning, &opts)
}

/// MCR with `opts`; with `MCR_NOSDG` set, without the static dependency graph (to compare).
pub fn mcr_run_opts(
    test: &Test,
    model: Model,
    tuning: Tuning,
    opts: &CheckOptions,
) -> (ModelReport, McrStats) {
    let mut opts = opts.clone();
    if std::env::var("MCR_NOSDG").is_ok() {
        opts.sdg = false;
    }
    let start = Instant::now();
    let program = Program::lower(test, opts.loop_bound).expect("lowers");
    let mut col = Collector::new(test, &program, model);
    let ctl = Control::new();
    let stats = mcr::explore_with(&program, model, &opts, &ctl, tuning, &mut |ex| {
        col.end(ex.state, ex.events)
    });
    col.stats.constraints += stats.constraints;
    col.stats.solver_ms += stats.solver_ms;
    col.complete &= stats.complete;
    (col.finish(start.elapsed()), stats)
}

/// The MCR tuning, with `MCR_NOPRUNE` / `MCR_NOPRUNE_RUNS` / `MCR_NOMERGE` / `MCR_NOCANON` /
/// `MCR_ALLTARGETS` /
/// `MCR_NOPREFILTER` turning reductions off (to compare), `MCR_NOSEARCH` sending every query
/// to Z3, `MCR_SEARCH_BUDGET` setting the trace-local search's budget, `MCR_PER_QUERY` giving
/// each Z3 query a formula with only its own validity, `MCR_Z3SEED` seeding Z3 (other
/// models, other seeds: completeness must not change), and `MCR_WITNESS=n` taking the seeds of
/// satisfiable Z3 queries from the causal search with budget `n`.
pub fn tuning_from_env() -> Tuning {
    Tuning {
        prune_states: std::env::var("MCR_NOPRUNE").is_err(),
        prune_runs: std::env::var("MCR_NOPRUNE_RUNS").is_err(),
        merge_runs: std::env::var("MCR_NOMERGE").is_err(),
        canonical_seeds: std::env::var("MCR_NOCANON").is_err(),
        only_new_targets: std::env::var("MCR_ALLTARGETS").is_err(),
        prefilter: std::env::var("MCR_NOPREFILTER").is_err(),
        check_prefilter: false,
        solver_seed: std::env::var("MCR_Z3SEED")
            .ok()
            .and_then(|s| s.parse().ok()),
        search_budget: if std::env::var("MCR_NOSEARCH").is_ok() {
            0
        } else {
            std::env::var("MCR_SEARCH_BUDGET")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(mcr::SEARCH_BUDGET)
        },
        check_search: false,
        witness_budget: std::env::var("MCR_WITNESS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0),
        per_query: std::env::var("MCR_PER_QUERY").is_ok(),
        bare_solve: false,
        paired_solve: false,
    }
}

/// What must agree between the engines: states, (kind, span) of violations, the verdict.
pub fn verdict(r: &ModelReport) -> String {
    let mut v: Vec<String> = r
        .violations
        .iter()
        .map(|v| format!("{:?}@{:?}", v.kind, v.span))
        .collect();
    v.sort();
    format!(
        "states={:?}\nviolations={:?}\ncondition={:?}\ncomplete={}",
        r.states, v, r.condition, r.complete
    )
}

/// A random program for the MCR tests: the one generator's plain setting with awaits, on two
/// or three threads (the size these tests' thresholds were set on; the whole language is
/// `sweep.rs`'s).
pub fn random_test(seed: u64) -> Test {
    let plain = GenConfig::plain();
    let weights = Weights {
        await_: 3,
        ..plain.weights
    };
    random_test_with(
        seed,
        GenConfig {
            threads: (2, 3),
            weights,
            ..plain
        },
    )
}

/// The test as native-dialect source (for failure messages).
pub fn show(t: &Test) -> String {
    litmus_engine::testgen::print(t)
}
