//! Pruning a model's choices ([`Model::prune`], `engine/src/cat/prune.rs`): a group of
//! coherence orders (or lock matches) that a check growing with them forbids on the pairs
//! they share is not run member by member. It must change nothing but the time: on a third
//! of the shared kernel tests, and on spin-lock emulations whose coherence orders number in
//! the thousands, the report with pruning equals the report without, field for field, and
//! pruning does skip runs.

mod c_support;

use litmus_engine::axiomatic::{check_c_with, CReport, Explore};
use litmus_engine::c::lower;
use litmus_engine::cat::Model;

fn run(k: &c_support::Kernel, model: &Model, text: &str) -> CReport {
    let p = litmus_engine::syntax::parse(text);
    let (Some(test), Some(src)) = (&p.test, &p.c) else {
        panic!("does not parse: {:?}", p.diagnostics);
    };
    let prog = lower(src, &k.defs).expect("lowers");
    check_c_with(test, src, &prog, model, &k.variants, Explore::Full, &|| {
        false
    })
    .expect("checks")
}

/// Both runs, compared; the number of model runs pruning saved.
fn same(k: &c_support::Kernel, plain: &Model, name: &str, text: &str) -> u64 {
    let mut with = run(k, &k.model, text);
    let without = run(k, plain, text);
    assert_eq!(without.pruned, 0);
    let saved = std::mem::take(&mut with.pruned);
    assert_eq!(with, without, "{name}: pruning changed the report");
    saved
}

/// The shared kernel data, its model, and the same model with pruning off.
fn setup() -> Option<(std::path::PathBuf, c_support::Kernel, Model)> {
    let Some(root) = c_support::root("linux") else {
        println!("SKIPPED: ../shared/conformance/linux not found; no C test was checked");
        return None;
    };
    let k = c_support::kernel(&root);
    let mut plain = k.model.clone();
    plain.prune = false;
    Some((root, k, plain))
}

#[test]
fn pruning_changes_no_report_of_the_shared_kernel_tests() {
    let Some((root, k, plain)) = setup() else {
        return;
    };
    let csv = std::fs::read_to_string(root.join("expected.csv")).unwrap();
    let (mut checked, mut pruned_tests, mut saved) = (0, 0, 0);
    for (i, line) in csv.lines().skip(1).enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        if i % 3 != 0 || f[8] != "ok" {
            continue;
        }
        let text = std::fs::read_to_string(root.join(f[0])).unwrap();
        let s = same(&k, &plain, f[0], &text);
        pruned_tests += (s > 0) as usize;
        saved += s;
        checked += 1;
    }
    println!(
        "pruning: {checked} kernel tests give the same report with and without it; \
         {pruned_tests} of them skip {saved} model runs"
    );
    assert!(checked >= 150, "only {checked} tests checked");
    assert!(pruned_tests > 0, "no test was pruned");
}

#[test]
fn pruning_skips_most_coherence_orders_of_a_spin_lock_emulation() {
    let Some((_, k, plain)) = setup() else {
        return;
    };
    for n in [2, 3] {
        let text = c_support::sb_xchg_lock(n);
        let r = run(&k, &k.model, &text);
        // two threads each taking the lock and seeing the other's write not yet: forbidden
        assert!(!r.ok && r.positive == 0, "{n} threads: {r:?}");
        let saved = same(&k, &plain, &format!("{n} threads"), &text);
        println!(
            "{n} threads: {} candidates, {saved} model runs skipped",
            r.candidates
        );
        if n == 3 {
            assert!(saved > 0, "3 threads: nothing pruned");
        }
    }
}
