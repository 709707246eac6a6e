//! MCR against the exhaustive reference explorer on random programs: the same final states, the
//! same violations (kind and span), the same condition verdict, under SC, TSO and PSO; and MCR's
//! replay of every solved interleaving follows it exactly (no divergence).

mod mcr_support;

use litmus_engine::report::Model;
use mcr_support::*;

/// Number of random programs (each checked under all three models).
const PROGRAMS: u64 = 2000;

#[test]
fn mcr_agrees_with_exhaustive_on_random_programs() {
    let count = std::env::var("MCR_PROGRAMS").ok().and_then(|s| s.parse().ok()).unwrap_or(PROGRAMS);
    let first = std::env::var("MCR_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0u64);
    let mut failures = Vec::new();
    let (mut execs, mut states, mut exh_execs, mut diverged) = (0u64, 0u64, 0u64, 0u64);
    for seed in first..first + count {
        let test = random_test(seed);
        for model in Model::ALL {
            let want = exhaustive(&test, model);
            let (got, stats) = mcr_run(&test, model, tuning_from_env());
            execs += stats.executions;
            diverged += stats.diverged;
            states += want.states.len() as u64;
            exh_execs += want.stats.executions;
            if verdict(&got) != verdict(&want) || stats.diverged != 0 {
                let missing: Vec<_> = want.states.iter().filter(|s| !got.states.contains(s)).collect();
                failures.push(format!(
                    "seed {seed} {}: diverged {}, missing states {:?}\n--- exhaustive\n{}\n--- mcr\n{}",
                    model.label(),
                    stats.diverged,
                    missing,
                    verdict(&want),
                    verdict(&got)
                ));
            }
        }
    }
    eprintln!(
        "{count} programs x 3 models: MCR executions {execs}, distinct states {states}, exhaustive executions {exh_execs}, diverged {diverged}"
    );
    for f in failures.iter().take(5) {
        eprintln!("{f}\n");
    }
    assert!(failures.is_empty(), "{} disagreements (first seeds above)", failures.len());
}

#[test]
fn debug_one() {
    let Some(seed) = std::env::var("MCR_ONE").ok().and_then(|s| s.parse().ok()) else { return };
    let test = random_test(seed);
    eprintln!("{}", show(&test));
    let model = Model::parse(&std::env::var("MCR_MODEL").unwrap_or("sc".into())).unwrap();
    let (got, stats) = mcr_run(&test, model, tuning_from_env());
    eprintln!("{stats:?}\n{}", verdict(&got));
}
