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

/// A failing `await` round changes nothing, so DPOR does not run it (issue 58): a thread
/// waiting for `x == n` while another writes `x = 1`, ..., `x = n` costs the same whatever
/// `n`, where running every round woken by a change (each a load that races with the later
/// writes) made the executions grow with `n`. The reference explorer agrees on the final
/// states, and a waiter nobody wakes is still a deadlock.
#[test]
fn failing_await_rounds_cost_nothing() {
    use crate::syntax;
    let run = |src: &str, m: Model, engine: EngineKind| {
        let t = syntax::parse(src).test.expect("parses");
        let o = CheckOptions {
            engine: engine.into(),
            ..CheckOptions::default()
        };
        crate::check(&t, m, &o, &Control::new())
    };
    for m in Model::ALL {
        let mut counts = Vec::new();
        for n in 2..=6 {
            let writes: String = (1..=n).map(|v| format!("x = {v}; ")).collect();
            let src = format!(
                "litmus W\nshared x = 0, y = 0;\nthread P0 {{ {writes}}}\n\
                 thread P1 {{ await(x == {n}); y = 1; }}\n"
            );
            let d = run(&src, m, EngineKind::Dpor);
            let r = run(&src, m, EngineKind::Exhaustive);
            assert!(d.complete && d.violations.is_empty(), "{m:?} {n}");
            assert_eq!(d.states, r.states, "{m:?} {n}");
            counts.push(d.stats.executions);
        }
        assert!(counts.iter().all(|&c| c == counts[0]), "{m:?}: {counts:?}");
        // Nobody writes 7: every execution ends with P1 parked, a deadlock.
        let src = "litmus D\nshared x = 0;\nthread P0 { x = 1; x = 2; }\n\
                   thread P1 { await(x == 7); }\n";
        let d = run(src, m, EngineKind::Dpor);
        let r = run(src, m, EngineKind::Exhaustive);
        assert_eq!(d.violations.len(), 1, "{m:?}");
        assert_eq!(d.violations[0].kind, r.violations[0].kind, "{m:?}");
    }
}
