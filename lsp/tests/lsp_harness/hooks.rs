//! The engine the server tests run: the real one with test hooks (a held, a slow and a
//! panicking check, a held parse).

use std::sync::Arc;
use std::time::Duration;

use litmus::server::engine::Engine;

/// Lets the checks of `Held...` tests go on (see [`HookedEngine`]).
pub static RELEASE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// The real engine, with three test hooks: a check of a test named `Held...` runs the real
/// engine but, each time it finds a violation, waits after announcing it until [`RELEASE`] is
/// set or the check is cancelled (an exploration held open after its first violation); a check of a test named `Slow...` runs until it is
/// cancelled (reporting progress), then returns a report holding a bogus `STALE` violation that
/// must never be shown; a check of a test named `Boom...` panics.
pub struct HookedEngine;

/// See [`HookedEngine::parse_with`].
pub const HOLD_PARSE: &str = "// HOLD-PARSE";
pub static PARSE_HELD: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

impl Engine for HookedEngine {
    fn parse(
        &self,
        text: &str,
        old: Option<&tree_sitter::Tree>,
    ) -> litmus::server::engine::ParseOut {
        litmus::server::engine::RealEngine.parse(text, old)
    }
    /// A text holding [`HOLD_PARSE`] is parsed only once `stop` says stop (then `None`): a parse
    /// that never ends unless superseded ([`PARSE_HELD`] says it started).
    fn parse_with(
        &self,
        text: &str,
        old: Option<&tree_sitter::Tree>,
        stop: &dyn Fn() -> bool,
    ) -> Option<litmus::server::engine::ParseOut> {
        if text.contains(HOLD_PARSE) {
            PARSE_HELD.store(true, std::sync::atomic::Ordering::SeqCst);
            let start = std::time::Instant::now();
            while start.elapsed() < Duration::from_secs(30) {
                if stop() {
                    return None;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        litmus::server::engine::RealEngine.parse_with(text, old, stop)
    }
    fn check(
        &self,
        test: &litmus_engine::ast::Test,
        model: litmus_engine::Model,
        opts: &litmus_engine::CheckOptions,
        ctl: &litmus_engine::Control,
    ) -> litmus_engine::ModelReport {
        if test.name.text.starts_with("Held") {
            let forward = ctl.on_violation();
            let cancelled = ctl.flag();
            let held = ctl.clone().with_on_violation(move |v| {
                if let Some(f) = &forward {
                    f(v);
                }
                while !RELEASE.load(std::sync::atomic::Ordering::SeqCst)
                    && !cancelled.load(std::sync::atomic::Ordering::SeqCst)
                {
                    std::thread::sleep(Duration::from_millis(5));
                }
            });
            return litmus::server::engine::RealEngine.check(test, model, opts, &held);
        }
        if test.name.text.starts_with("Forgetful") {
            // An engine that forgets at its deadline what it published: it checks (showing its
            // violations as found), waits for the time limit and reports nothing found,
            // incomplete. The server must keep what it showed.
            let r = litmus::server::engine::RealEngine.check(test, model, opts, ctl);
            let c = ctl.for_check(opts);
            while !c.should_stop() {
                std::thread::sleep(Duration::from_millis(5));
            }
            return litmus_engine::ModelReport {
                complete: false,
                violations: vec![],
                witness: None,
                warnings: vec![litmus_engine::report::Warning {
                    message: litmus_engine::collect::incomplete_message(c.stop_reason()),
                    span: None,
                }],
                ..r
            };
        }
        if test.name.text.starts_with("Boom") {
            panic!("boom in {}", model.label());
        }
        if test.name.text.starts_with("Slow") {
            let start = std::time::Instant::now();
            let mut n = 0;
            while !ctl.is_cancelled() && start.elapsed() < Duration::from_secs(30) {
                n += 1;
                ctl.report(&litmus_engine::Progress {
                    executions: n,
                    states: 1,
                    violations: 0,
                });
                std::thread::sleep(Duration::from_millis(5));
            }
            let mut r = litmus::server::engine::RealEngine.check(test, model, opts, ctl);
            r.violations.push(litmus_engine::report::Violation {
                kind: litmus_engine::report::ViolationKind::Assert,
                message: "STALE".into(),
                span: test.name.span,
                schedule: vec![],
            });
            r.complete = true;
            return r;
        }
        litmus::server::engine::RealEngine.check(test, model, opts, ctl)
    }
    fn evaluate_condition(
        &self,
        test: &litmus_engine::ast::Test,
        states: &[litmus_engine::report::FinalState],
    ) -> Option<litmus_engine::report::ConditionResult> {
        litmus::server::engine::RealEngine.evaluate_condition(test, states)
    }
}

pub fn hooked() -> Arc<dyn Engine> {
    Arc::new(HookedEngine)
}
