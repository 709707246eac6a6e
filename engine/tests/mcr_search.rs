//! The causal search (`engine/src/mcr/search.rs`) answers MCR's queries in place of Z3. In test
//! mode every searched query is also solved by Z3, and both must agree on satisfiability: the
//! search calls no query unsatisfiable that the encoding satisfies (`search_missed`), nor the
//! other way round (`search_extra`). Random programs and the corpus, all three models.

mod mcr_support;
mod tier;

use litmus_engine::ir::Program;
use litmus_engine::mcr::{self, McrStats, Tuning};
use litmus_engine::report::Model;
use litmus_engine::{CheckOptions, Control};
use mcr_support::*;

fn check(test: &litmus_engine::ast::Test, loop_bound: u32, label: &str, totals: &mut McrStats) {
    let opts = CheckOptions {
        loop_bound,
        timeout: Some(std::time::Duration::from_secs(30)),
        ..CheckOptions::default()
    };
    let program = Program::lower(test, opts.loop_bound).expect("lowers");
    let tuning = Tuning {
        check_search: true,
        ..Tuning::default()
    };
    for model in Model::ALL {
        let s = mcr::explore_with(&program, model, &opts, &Control::new(), tuning, &mut |_| {});
        assert_eq!(
            s.checks.search_missed, 0,
            "{label} {model:?}: the search missed an interleaving Z3 found"
        );
        assert_eq!(
            s.checks.search_extra, 0,
            "{label} {model:?}: the search found an interleaving Z3 rules out"
        );
        assert_eq!(
            s.diverged, 0,
            "{label} {model:?}: a searched seed did not replay"
        );
        totals.queries += s.queries;
        totals.prefiltered += s.prefiltered;
        totals.searched += s.searched;
        totals.checks.search_extra += s.checks.search_extra;
        totals.search_gave_up += s.search_gave_up;
        totals.search_states += s.search_states;
    }
}

fn summary(label: &str, t: &McrStats) {
    eprintln!(
        "{label}: {} queries, {} pre-checked, {} searched ({} states), {} gave up, {} solved by the search only",
        t.queries, t.prefiltered, t.searched, t.search_states, t.search_gave_up, t.checks.search_extra
    );
}

#[test]
fn search_misses_nothing_z3_finds_on_random_programs() {
    let mut t = McrStats::default();
    for seed in 0..tier::sweep(20, 200) {
        check(&random_test(seed), 2, &format!("seed {seed}"), &mut t);
    }
    summary("random", &t);
    assert!(
        t.searched * 2 > t.queries - t.prefiltered,
        "the search should answer most queries the pre-check leaves"
    );
}

#[test]
fn search_misses_nothing_z3_finds_on_the_corpus() {
    let mut t = McrStats::default();
    for (f, test) in &corpus() {
        check(test, 2, &f.display().to_string(), &mut t);
    }
    summary("corpus", &t);
    assert!(t.searched > 0);
}
