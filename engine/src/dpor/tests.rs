//! Unit tests of the DPOR explorer.

use crate::control::Control;
use crate::options::{CheckOptions, EngineKind};
use crate::report::Model;
use crate::testgen::{random_test_with, GenConfig};
use std::time::Duration;

fn opts() -> CheckOptions {
    CheckOptions {
        engine: EngineKind::Dpor.into(),
        ..CheckOptions::default()
    }
}

#[test]
fn exploration_is_deterministic() {
    for seed in 0..40 {
        let t = random_test_with(seed, GenConfig::all());
        for m in Model::ALL {
            let mut a = crate::check(&t, m, &opts(), &Control::new());
            let mut b = crate::check(&t, m, &opts(), &Control::new());
            a.stats.time_ms = 0.0;
            b.stats.time_ms = 0.0;
            assert_eq!(a, b, "seed {seed} {m:?}");
        }
    }
}

#[test]
fn cancellation_and_timeout_end_incomplete() {
    // The largest of some random programs, so that exploration takes more than 256 steps.
    let t = (0..80)
        .map(|s| random_test_with(s, GenConfig::all()))
        .max_by_key(|t| {
            crate::check(t, Model::Pso, &opts(), &Control::new())
                .stats
                .executions
        })
        .unwrap();
    let full = crate::check(&t, Model::Pso, &opts(), &Control::new());
    assert!(full.complete && full.stats.executions > 100);
    let ctl = Control::new();
    ctl.cancel();
    let r = crate::check(&t, Model::Pso, &opts(), &ctl);
    assert!(!r.complete);
    assert!(r.stats.executions < full.stats.executions);
    assert!(r.warnings.iter().any(|w| w.message.contains("incomplete")));
    let o = CheckOptions {
        timeout: Some(Duration::ZERO),
        ..opts()
    };
    let r = crate::check(&t, Model::Pso, &o, &Control::new());
    assert!(!r.complete && r.stopped.is_none());
}
