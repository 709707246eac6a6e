//! `check`: one test under one model, dispatched to the chosen explorer.

use crate::ast::Test;
use crate::explore::{self, Collector};
use crate::ir::Program;
use crate::options::{CheckOptions, Control, EngineKind};
use crate::report::{Model, ModelReport, Stats, Warning};
use std::time::Instant;

/// Checks `test` under `model`: every reachable final state, the condition's verdict,
/// violations with schedules, a witness, stats. Never panics; a violation is a result.
pub fn check(test: &Test, model: Model, opts: &CheckOptions, ctl: &Control) -> ModelReport {
    let start = Instant::now();
    let program = match Program::lower(test, opts.loop_bound) {
        Ok(p) => p,
        Err(message) => {
            return ModelReport {
                model,
                complete: false,
                states: vec![],
                condition: None,
                violations: vec![],
                witness: None,
                warnings: vec![Warning { message: format!("cannot check: {message}"), span: None }],
                stats: Stats::default(),
            }
        }
    };
    let mut col = Collector::new(test, &program, model);
    match opts.engine {
        EngineKind::Exhaustive => explore::exhaustive::explore(&program, model, opts, ctl, &mut col),
        EngineKind::Mcr => explore::explore_mcr(&program, model, opts, ctl, &mut col),
    }
    col.finish(start.elapsed())
}
