//! The C check on several workers ([`check_c_jobs`]): the report is the one-thread report,
//! field for field (counts, states, flags, the first witness and forbidden execution,
//! `partial`, `pruned`), with 1, 2, 3 and 4 workers, on a sample of the shared kernel tests
//! and on spin-lock emulations (few combinations of paths, many reads-from choices each,
//! which the workers share; one of them over the full count's budget of model runs, so that
//! the workers stop at the budget and the check starts again on the relevant executions).
//! And a check stopped by its caller says so on any number of workers.

mod c_support;

use litmus_engine::axiomatic::{check_c_jobs, CReport, CRun, Explore};
use litmus_engine::c::lower;
use litmus_engine::cat::Model;

fn run(
    k: &c_support::Kernel,
    text: &str,
    explore: Explore,
    jobs: usize,
    stop: &dyn Fn() -> bool,
) -> Result<CReport, String> {
    let p = litmus_engine::syntax::parse(text);
    let (Some(test), Some(src)) = (&p.test, &p.c) else {
        panic!("does not parse: {:?}", p.diagnostics);
    };
    let prog = lower(src, &k.defs).expect("lowers");
    let run = CRun { explore, jobs };
    check_c_jobs(test, src, &prog, &k.model, &k.variants, run, stop).map_err(|e| e.message)
}

/// The reports of `text` with 2, 3 and 4 workers equal the one-worker report.
fn same_on_every_count(k: &c_support::Kernel, name: &str, text: &str, explore: Explore) -> CReport {
    let one = run(k, text, explore, 1, &|| false).unwrap_or_else(|e| panic!("{name}: {e}"));
    for jobs in 2..=4 {
        let many = run(k, text, explore, jobs, &|| false).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(one, many, "{name}: {jobs} workers");
    }
    one
}

#[test]
fn kernel_tests_give_the_same_report_on_any_number_of_workers() {
    let Some(root) = c_support::root("linux") else {
        println!("SKIPPED: ../shared/conformance/linux not found; no C test was checked");
        return;
    };
    let k = c_support::kernel(&root);
    let csv = std::fs::read_to_string(root.join("expected.csv")).unwrap();
    let (mut checked, mut witnessed, mut forbidden, mut flagged) = (0, 0, 0, 0);
    for (i, line) in csv.lines().skip(1).enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        // herd's time as a measure of size: the small ones, every other row
        let small = f[7].parse::<f64>().is_ok_and(|t| t < 1.0);
        if i % 2 != 0 || f[8] != "ok" || !small {
            continue;
        }
        let text = std::fs::read_to_string(root.join(f[0])).unwrap();
        let r = same_on_every_count(&k, f[0], &text, Explore::Auto);
        witnessed += r.witness.is_some() as usize;
        forbidden += r.forbidden.is_some() as usize;
        flagged += !r.flags.is_empty() as usize;
        checked += 1;
    }
    println!(
        "jobs: {checked} kernel tests ({witnessed} with a witness, {forbidden} with a \
         forbidden execution, {flagged} with flags) give the same report on 1 to 4 workers"
    );
    assert!(checked >= 50, "only {checked} tests checked");
    assert!(witnessed > 0 && forbidden > 0 && flagged > 0);
}

#[test]
fn spin_lock_emulations_give_the_same_report_on_any_number_of_workers() {
    let Some(root) = c_support::root("linux") else {
        println!("SKIPPED: ../shared/conformance/linux not found; no C test was checked");
        return;
    };
    let k = c_support::kernel(&root);
    // 3 threads: every execution, counted in full (64 combinations of paths, their
    // reads-from choices cut among the workers)
    let text = c_support::sb_xchg_lock(3);
    let full = same_on_every_count(&k, "3 threads", &text, Explore::Full);
    assert!(!full.partial && full.negative > 0 && full.forbidden.is_some());
    // and only the relevant ones
    let rel = same_on_every_count(&k, "3 threads", &text, Explore::Relevant);
    assert!(rel.partial && rel.positive == 0 && rel.forbidden.is_some());
}

#[test]
fn a_count_over_the_budget_of_model_runs_gives_the_same_report_on_any_number_of_workers() {
    let Some(root) = c_support::root("linux") else {
        println!("SKIPPED: ../shared/conformance/linux not found; no C test was checked");
        return;
    };
    let mut k = c_support::kernel(&root);
    // sequential consistency with the coherence orders chosen by the model: cheap runs, and
    // a 4-thread spin-lock emulation has more of them than a full count makes
    k.model = Model::parse(
        "\"sc\"\ninclude \"cos-opt.cat\"\nacyclic po | rf | co | fr as sc\n",
        &|_| None,
    )
    .expect("parses");
    let text = c_support::sb_xchg_lock(4);
    let auto = same_on_every_count(&k, "4 threads", &text, Explore::Auto);
    assert!(auto.partial && !auto.ok, "{auto:?}");
}

#[test]
fn a_stopped_check_says_so_on_any_number_of_workers() {
    let Some(root) = c_support::root("linux") else {
        println!("SKIPPED: ../shared/conformance/linux not found; no C test was checked");
        return;
    };
    let k = c_support::kernel(&root);
    let text = c_support::sb_xchg_lock(3);
    for jobs in 1..=3 {
        let r = run(&k, &text, Explore::Full, jobs, &|| true);
        assert_eq!(r, Err("stopped".to_string()), "{jobs} workers");
    }
}
