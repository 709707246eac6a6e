//! `Control::with_on_violation`: every engine calls it once per violation (kind and span), as
//! soon as it records it, with a schedule that replays to that violation; the calls name
//! exactly the report's violations.

use std::sync::{Arc, Mutex};

use litmus_engine::report::{Model, ViolationKind};
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
fn each_violation_is_announced_once_with_a_schedule_that_replays() {
    let mut announced_any = false;
    for name in ["dekker", "div_zero", "await_deadlock", "sb"] {
        let t = test_of(name);
        for engine in ENGINES {
            for model in Model::ALL {
                let opts = CheckOptions {
                    engine: engine.into(),
                    ..CheckOptions::default()
                };
                let seen = Arc::new(Mutex::new(Vec::new()));
                let s2 = seen.clone();
                let ctl =
                    Control::new().with_on_violation(move |v| s2.lock().unwrap().push(v.clone()));
                let r = check(&t, model, &opts, &ctl);
                let at = format!("{name} {engine:?} {model:?}");
                let seen = seen.lock().unwrap();
                let mut keys: Vec<_> = seen.iter().map(|v| (v.kind, v.span)).collect();
                keys.sort();
                let mut want: Vec<_> = r.violations.iter().map(|v| (v.kind, v.span)).collect();
                want.sort();
                assert_eq!(
                    keys, want,
                    "{at}: announced once each, the report's violations"
                );
                announced_any |= !seen.is_empty();
                for v in seen.iter() {
                    match replay(&t, model, &opts, &v.schedule).unwrap() {
                        ReplayEnd::Violation { kind, span, .. } => {
                            assert_eq!((kind, span), (v.kind, v.span), "{at}")
                        }
                        ReplayEnd::Final(_) => assert_eq!(v.kind, ViolationKind::Condition, "{at}"),
                        other => panic!("{at}: replays to {other:?}"),
                    }
                }
            }
        }
    }
    assert!(announced_any);
}
