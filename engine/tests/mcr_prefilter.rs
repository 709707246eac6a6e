//! The static pre-check of MCR's queries (`engine/src/mcr/encode/prefilter.rs`) must only
//! reject queries Z3 cannot satisfy: in test mode every rejected query is solved anyway and a
//! satisfiable one counts as wrong. Run over random programs and the corpus, all three models.

mod mcr_support;
mod tier;

use litmus_engine::ir::Program;
use litmus_engine::mcr::{self, Tuning};
use litmus_engine::report::Model;
use litmus_engine::{CheckOptions, Control};
use mcr_support::*;

fn check(
    test: &litmus_engine::ast::Test,
    loop_bound: u32,
    label: &str,
    totals: &mut (u64, u64, u64),
) {
    let opts = CheckOptions {
        loop_bound,
        timeout: Some(std::time::Duration::from_secs(20)),
        ..CheckOptions::default()
    };
    let program = Program::lower(test, opts.loop_bound).expect("lowers");
    let tuning = Tuning {
        check_prefilter: true,
        ..Tuning::default()
    };
    for model in Model::ALL {
        let stats = mcr::explore_with(&program, model, &opts, &Control::new(), tuning, &mut |_| {});
        assert_eq!(
            stats.checks.prefilter_wrong, 0,
            "{label} {model:?}: the pre-check rejected a satisfiable query"
        );
        totals.0 += stats.queries;
        totals.1 += stats.prefiltered;
        totals.2 += 1;
    }
}

#[test]
fn prefilter_rejects_only_unsatisfiable_queries_on_random_programs() {
    let mut totals = (0, 0, 0);
    for seed in 0..tier::sweep(20, 200) {
        check(&random_test(seed), 2, &format!("seed {seed}"), &mut totals);
    }
    eprintln!(
        "random: {} runs, {} queries, {} answered by the pre-check",
        totals.2, totals.0, totals.1
    );
    assert!(
        totals.1 * 4 > totals.0,
        "the pre-check should answer a good share of the queries"
    );
}

#[test]
fn prefilter_rejects_only_unsatisfiable_queries_on_the_corpus() {
    let mut totals = (0, 0, 0);
    for (f, test) in &corpus() {
        check(test, 2, &f.display().to_string(), &mut totals);
    }
    eprintln!(
        "corpus: {} runs, {} queries, {} answered by the pre-check",
        totals.2, totals.0, totals.1
    );
    assert!(totals.1 > 0);
}
