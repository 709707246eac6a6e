//! Unit tests of the DPOR explorer.

use crate::control::Control;
use crate::options::{CheckOptions, EngineKind};
use crate::report::Model;
use crate::testgen::{random_test_with, GenConfig};

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
