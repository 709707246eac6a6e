//! The random program generator (`litmus_engine::testgen`) covers the native language: a
//! table of how many programs have each construct and how many deadlock, block, fail an
//! assertion, hit the loop bound or stop at a runtime error under the reference explorer,
//! and a floor per construct and outcome. Printed programs parse back to the same program.

mod sweep_support;
mod tier;

use litmus_engine::testgen::{constructs, print, random_test_with, Construct, GenConfig};
use litmus_engine::{syntax, Model};
use std::collections::BTreeMap;
use sweep_support::{outcomes, reference, Outcome};

/// Draws `count` programs of `cfg`, prints the table, and returns the counts per construct
/// and per outcome (an outcome counts a program once if any model has it).
fn table(
    label: &str,
    cfg: GenConfig,
    count: u64,
) -> (BTreeMap<Construct, u64>, BTreeMap<Outcome, u64>) {
    let mut by_construct: BTreeMap<Construct, u64> =
        Construct::ALL.iter().map(|&c| (c, 0)).collect();
    let mut by_outcome: BTreeMap<Outcome, u64> = Outcome::ALL.iter().map(|&o| (o, 0)).collect();
    for seed in 0..count {
        let t = random_test_with(seed, cfg);
        for c in constructs(&t) {
            *by_construct.entry(c).or_default() += 1;
        }
        let mut seen = std::collections::BTreeSet::new();
        for m in Model::ALL {
            seen.extend(outcomes(&reference(&t, m)));
        }
        for o in seen {
            *by_outcome.entry(o).or_default() += 1;
        }
    }
    eprintln!("{label}: {count} programs");
    for (c, n) in &by_construct {
        eprintln!("  {:<20} {n:>6}", format!("{c:?}"));
    }
    for (o, n) in &by_outcome {
        eprintln!("  {:<20} {n:>6}", format!("{o:?}"));
    }
    (by_construct, by_outcome)
}

#[test]
fn every_construct_and_outcome_is_generated() {
    let count = tier::sweep(400, 3000);
    let (c, o) = table("GenConfig::all()", GenConfig::all(), count);
    // Floors: every construct in at least 1% of the programs, the common ones far more.
    for (k, n) in &c {
        assert!(*n * 100 >= count, "{k:?} in only {n} of {count} programs");
    }
    for k in [
        Construct::Lock,
        Construct::StoreScalar,
        Construct::LoadScalar,
        Construct::Assert,
    ] {
        assert!(
            c[&k] * 10 >= count,
            "{k:?} in only {} of {count} programs",
            c[&k]
        );
    }
    for (k, n) in &o {
        assert!(*n * 100 >= count, "{k:?}: only {n} of {count} programs");
    }
}

#[test]
fn the_lock_order_setting_inverts_locks_and_deadlocks() {
    let count = tier::sweep(200, 1000);
    let (c, o) = table("GenConfig::lock_order()", GenConfig::lock_order(), count);
    for k in [
        Construct::TwoMutexes,
        Construct::LockInversion,
        Construct::Await,
        Construct::WhileRegister,
        Construct::Assume,
    ] {
        assert!(
            c[&k] * 10 >= count,
            "{k:?} in only {} of {count} programs",
            c[&k]
        );
    }
    for k in [Construct::Xchg, Construct::Cas, Construct::FetchAdd] {
        assert!(
            c[&k] * 20 >= count,
            "{k:?} in only {} of {count} programs",
            c[&k]
        );
    }
    assert!(
        o[&Outcome::Deadlock] * 5 >= count,
        "only {} deadlocks in {count} programs",
        o[&Outcome::Deadlock]
    );
    assert!(
        o[&Outcome::Assert] * 10 >= count,
        "only {} failed assertions in {count} programs",
        o[&Outcome::Assert]
    );
}

#[test]
fn printed_programs_parse_back() {
    for seed in 0..tier::sweep(200, 1000) {
        for cfg in [
            GenConfig::plain(),
            GenConfig::all(),
            GenConfig::lock_order(),
        ] {
            let t = random_test_with(seed, cfg);
            let src = print(&t);
            let parsed = syntax::parse(&src);
            let back = parsed
                .test
                .unwrap_or_else(|| panic!("seed {seed}: {:?}\n{src}", parsed.diagnostics));
            assert_eq!(print(&back), src, "seed {seed}");
            assert_eq!(constructs(&back), constructs(&t), "seed {seed}\n{src}");
        }
    }
}

#[test]
fn generation_is_deterministic_and_varied() {
    for cfg in [
        GenConfig::plain(),
        GenConfig::all(),
        GenConfig::lock_order(),
    ] {
        assert_eq!(random_test_with(7, cfg), random_test_with(7, cfg));
        let srcs: std::collections::BTreeSet<String> =
            (0..100).map(|s| print(&random_test_with(s, cfg))).collect();
        assert!(srcs.len() > 95, "{cfg:?}");
    }
}
