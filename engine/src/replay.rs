//! Replaying a reported schedule through the interpreter (`docs/reference.md#schedules`: "every reported
//! schedule replays").

use crate::ast::Test;
use crate::ir::Program;
use crate::options::CheckOptions;
use crate::report::{Action, FinalState, Model, Step, ViolationKind};
use crate::semantics::{to_step, BlockReason, Choice, Event, State, Status};
use crate::span::Span;

/// Where a replayed schedule ends.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayEnd {
    /// Every thread finished and every buffer drained.
    Final(FinalState),
    /// The execution ended at a violation.
    Violation {
        kind: ViolationKind,
        message: String,
        span: Span,
    },
    /// The execution was discarded (a false `assume`, the loop bound).
    Blocked { reason: BlockReason, span: Span },
    /// The schedule ended while the execution could still go on.
    Running,
}

/// Replays `schedule` under `model`: each step must be possible and produce exactly the
/// recorded step (thread, span, action, location, value, buffered). An error names the first
/// step that does not match.
pub fn replay(
    test: &Test,
    model: Model,
    opts: &CheckOptions,
    schedule: &[Step],
) -> Result<ReplayEnd, String> {
    replay_observed(test, model, opts, schedule, |_, _, _| {})
}

/// [`replay`], showing `observe` the initial state (event `None`) and the state after every
/// step with the step's event (for the trace view, [`crate::trace`]).
pub fn replay_observed(
    test: &Test,
    model: Model,
    opts: &CheckOptions,
    schedule: &[Step],
    mut observe: impl FnMut(&Program, &State, Option<&Event>),
) -> Result<ReplayEnd, String> {
    let program = Program::lower(test, opts.loop_bound)?;
    let mut state = State::initial(&program, model);
    observe(&program, &state, None);
    for (i, step) in schedule.iter().enumerate() {
        let choice = match step.action {
            Action::Flush => {
                let cell = program
                    .cells
                    .iter()
                    .position(|c| Some(c) == step.loc.as_ref())
                    .map(|c| c as u32);
                match cell {
                    Some(c) => Choice::flush(model, step.thread, c),
                    // A model whose flushes name no cell needs none.
                    None if model.rules().flush_cell(0).is_none() => Choice::Flush {
                        thread: step.thread,
                        cell: None,
                    },
                    None => return Err(format!("step {}: flush of an unknown location", i + 1)),
                }
            }
            _ => Choice::Exec(step.thread),
        };
        let ev = state
            .try_step(&program, choice)
            .ok_or_else(|| format!("step {}: {:?} is not possible here", i + 1, choice))?;
        let got = to_step(&program, &ev);
        if &got != step {
            return Err(format!(
                "step {}: expected {:?}, replay did {:?}",
                i + 1,
                step,
                got
            ));
        }
        observe(&program, &state, Some(&ev));
    }
    Ok(match state.status() {
        Status::Running => ReplayEnd::Running,
        Status::Finished => ReplayEnd::Final(state.final_state(&program)),
        Status::Violation {
            kind,
            message,
            span,
        } => ReplayEnd::Violation {
            kind: *kind,
            message: message.clone(),
            span: *span,
        },
        Status::Blocked { reason, span } => ReplayEnd::Blocked {
            reason: *reason,
            span: *span,
        },
    })
}
