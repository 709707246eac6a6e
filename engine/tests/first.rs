//! `--first` (`CheckOptions::first`) with every engine: exploration stops at the first
//! violation, which is reported with a schedule that replays; the report says
//! `complete: false` and `stopped: FirstViolation`; programs without violations are explored
//! to the end as without the option.

use litmus_engine::report::{Model, Stopped};
use litmus_engine::{check, replay, syntax, CheckOptions, Control, EngineKind, ReplayEnd};

const ENGINES: [EngineKind; 3] = [EngineKind::Mcr, EngineKind::Exhaustive, EngineKind::Dpor];

fn test_of(name: &str) -> litmus_engine::ast::Test {
    let path = format!(
        "{}/../tests/litmus/{name}.litmus",
        env!("CARGO_MANIFEST_DIR")
    );
    let src = std::fs::read_to_string(path).expect("corpus file");
    syntax::parse(&src).test.expect("parses")
}

#[test]
fn first_stops_at_one_violation_that_replays() {
    for name in ["dekker", "peterson", "div_zero", "await_deadlock"] {
        let t = test_of(name);
        for engine in ENGINES {
            for model in Model::ALL {
                let all = CheckOptions {
                    engine,
                    ..CheckOptions::default()
                };
                let full = check(&t, model, &all, &Control::new());
                let first = CheckOptions {
                    first: true,
                    ..all.clone()
                };
                let r = check(&t, model, &first, &Control::new());
                let at = format!("{name} {engine:?} {model:?}");
                if full.violations.is_empty() {
                    assert_eq!(r.stopped, None, "{at}");
                    assert_eq!(r.states, full.states, "{at}");
                    assert!(r.complete, "{at}");
                    continue;
                }
                assert_eq!(r.stopped, Some(Stopped::FirstViolation), "{at}");
                assert!(!r.complete, "{at}");
                assert_eq!(r.violations.len(), 1, "{at}");
                assert!(r.stats.executions <= full.stats.executions, "{at}");
                let v = &r.violations[0];
                assert!(
                    full.violations
                        .iter()
                        .any(|w| (w.kind, w.span) == (v.kind, v.span)),
                    "{at}: {v:?} is not a violation of the full run"
                );
                match replay(&t, model, &first, &v.schedule).unwrap() {
                    ReplayEnd::Violation { kind, span, .. } => {
                        assert_eq!((kind, span), (v.kind, v.span), "{at}")
                    }
                    ReplayEnd::Final(_) => {
                        assert_eq!(v.kind, litmus_engine::report::ViolationKind::Condition)
                    }
                    other => panic!("{at}: replays to {other:?}"),
                }
                assert!(
                    r.warnings
                        .iter()
                        .any(|w| w.message.contains("first violation")),
                    "{at}"
                );
            }
        }
    }
}
