//! The SC state space of a program without loop counters: breadth-first, a visited set, every
//! store followed at once by its flush (so under TSO and PSO the steps are the model's own, and
//! every schedule replays under the model), until the reachable states close or a budget ends
//! the search.

use super::Budget;
use crate::collect::Collector;
use crate::control::Control;
use crate::ir::Program;
use crate::report::{Action, Model};
use crate::semantics::{Choice, Event, State};
use std::collections::{HashSet, VecDeque};

/// A visited state's incoming edge: its parent node and the events that led here (a store and
/// its flush count as one edge).
pub(super) struct Node {
    pub parent: Option<usize>,
    pub events: Vec<Event>,
}

/// The events from the initial state to node `id` (`None`: the initial state itself).
pub(super) fn path(nodes: &[Node], mut id: Option<usize>) -> Vec<Event> {
    let mut out = Vec::new();
    while let Some(i) = id {
        out.extend(nodes[i].events.iter().rev().cloned());
        id = nodes[i].parent;
    }
    out.reverse();
    out
}

/// Runs `choice` (an `Exec`) in `s` and, when it buffered a store, the store's flush too: the
/// SC step under a buffered model. The events in order.
pub(super) fn sc_step(p: &Program, model: Model, s: &mut State, choice: Choice) -> Vec<Event> {
    let ev = s.step(p, choice);
    let mut evs = vec![ev];
    let e = &evs[0];
    if e.action == Action::Store && e.buffered {
        let fl = Choice::flush(model, e.thread, e.cell.unwrap_or(0));
        let f = s.step(p, fl);
        evs.push(f);
    }
    evs
}

/// Why the search ended before the states closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cut {
    /// The state budget was reached.
    States(u64),
    /// `Control` said stop (its stop reason says why).
    Control,
}

/// Explores every SC state of `p` (a program whose loops no longer count) under `model`,
/// feeding `col`. Returns the number of states visited and why it stopped early, if it did.
pub(super) fn explore(
    p: &Program,
    model: Model,
    budget: Budget,
    ctl: &Control,
    col: &mut Collector<'_>,
) -> (u64, Option<Cut>) {
    let dead = crate::ir::live::dead_registers(p);
    let mut init = State::initial(p, model);
    forget_dead(&dead, &mut init);
    if !init.is_running() {
        col.end(&init, &[]);
        return (1, None);
    }
    let mut visited: HashSet<State> = HashSet::new();
    visited.insert(init.clone());
    let mut nodes: Vec<Node> = Vec::new();
    let mut queue: VecDeque<(State, Option<usize>)> = VecDeque::from([(init, None)]);
    let mut steps: u64 = 0;
    while let Some((state, id)) = queue.pop_front() {
        for choice in state.enabled(p) {
            // Buffers are empty between SC steps: only `Exec` choices are enabled.
            if !matches!(choice, Choice::Exec(_)) {
                continue;
            }
            steps += 1;
            if ctl.should_stop() {
                col.complete = false;
                let n = visited.len() as u64;
                crate::explore::drop_in_background((visited, nodes, queue));
                return (n, Some(Cut::Control));
            }
            if visited.len() as u64 >= budget.states {
                col.complete = false;
                let n = visited.len() as u64;
                crate::explore::drop_in_background((visited, nodes, queue));
                return (n, Some(Cut::States(budget.states)));
            }
            if steps.is_multiple_of(8192) {
                ctl.report(&col.progress());
            }
            let mut s = state.clone();
            let events = sc_step(p, model, &mut s, choice);
            forget_dead(&dead, &mut s);
            if visited.contains(&s) {
                continue;
            }
            visited.insert(s.clone());
            nodes.push(Node { parent: id, events });
            let nid = Some(nodes.len() - 1);
            if s.is_running() {
                queue.push_back((s, nid));
            } else {
                col.end(&s, &path(&nodes, nid));
                if col.stopped_first() {
                    col.complete = false;
                    return (visited.len() as u64, None);
                }
            }
        }
    }
    ctl.report(&col.progress());
    (visited.len() as u64, None)
}

/// Sets the registers no future step reads ([`crate::ir::live`]) to 0: states that differ only
/// there have the same futures and are one state. Final states are unchanged (every register
/// is live at a thread's end), and schedules replay from the program's own initial state.
pub(super) fn forget_dead(dead: &[Vec<Vec<crate::ir::Reg>>], s: &mut State) {
    for (t, ts) in s.threads.iter_mut().enumerate() {
        if let Some(regs) = dead[t].get(ts.pc as usize) {
            for &r in regs {
                ts.regs[r as usize] = 0;
            }
        }
    }
}
