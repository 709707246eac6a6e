//! The reference explorer: exhaustive depth-first search of the operational semantics of
//! [`crate::semantics`] with a visited set of states. It is the oracle the MCR engine is tested
//! against: simple rather than fast.
//!
//! Every state reachable from the initial state is visited once; choices are taken in the
//! order of [`State::enabled`], so exploration is deterministic. An *execution* here is a path
//! reaching a terminal state not seen before, so `stats.executions` counts distinct terminal
//! states (final, violating or blocked).

use super::{Collector, Limits};
use crate::ir::Program;
use crate::options::{CheckOptions, Control};
use crate::report::Model;
use crate::semantics::{Choice, Event, State};
use std::collections::HashSet;

struct Frame {
    state: State,
    choices: Vec<Choice>,
    next: usize,
}

/// Explores every state of `program` under `model`, feeding `col`. Stops early (setting
/// `col.complete = false`) on cancellation or timeout.
pub fn explore(
    program: &Program,
    model: Model,
    opts: &CheckOptions,
    ctl: &Control,
    col: &mut Collector<'_>,
) {
    let limits = Limits::new(opts, ctl);
    let init = State::initial(program, model);
    if !init.is_running() {
        col.end(&init, &[]);
        return;
    }
    let mut visited: HashSet<State> = HashSet::new();
    visited.insert(init.clone());
    let mut events: Vec<Event> = Vec::new();
    let mut stack = vec![Frame { choices: init.enabled(program), state: init, next: 0 }];
    let mut steps: u64 = 0;
    while let Some(top) = stack.last_mut() {
        if top.next == top.choices.len() {
            stack.pop();
            events.pop();
            continue;
        }
        let choice = top.choices[top.next];
        top.next += 1;
        let mut s = top.state.clone();
        let ev = s.step(program, choice);
        steps += 1;
        if steps % 512 == 0 {
            if limits.stop() {
                col.complete = false;
                return;
            }
            if steps % 8192 == 0 {
                ctl.report(&col.progress());
            }
        }
        if visited.contains(&s) {
            continue;
        }
        visited.insert(s.clone());
        events.push(ev);
        if !s.is_running() {
            col.end(&s, &events);
            events.pop();
            continue;
        }
        let choices = s.enabled(program);
        stack.push(Frame { state: s, choices, next: 0 });
    }
    ctl.report(&col.progress());
}
