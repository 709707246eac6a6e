//! The cycle check of one execution (`po ∪ rf ∪ co ∪ fr`), the brute-force definition of
//! robustness built on it (for tests), and robustness from DPOR's maximal executions.

use super::{Attack, Robustness, Start};
use crate::ast::Test;
use crate::collect::Collector;
use crate::control::Control;
use crate::ir::Program;
use crate::options::CheckOptions;
use crate::report::{Action, Model};
use crate::semantics::{to_schedule, to_step, Event, State};
use std::collections::HashMap;

/// Brute-force robustness, the definition itself: every path of the model's semantics (no
/// merging of states), each execution's `po ∪ rf ∪ co ∪ fr` checked for a cycle. Stores
/// still buffered at the end of an execution come last in coherence. `None` when there are
/// more than `budget` executions. For tests.
#[doc(hidden)]
pub fn brute_force(p: &Program, model: Model, budget: &mut u64) -> Option<bool> {
    let mut stack = vec![(State::initial(p, model), Vec::<Event>::new())];
    while let Some((s, evs)) = stack.pop() {
        if s.is_running() {
            for c in s.enabled(p) {
                let mut n = s.clone();
                let e = n.step(p, c);
                let mut ev2 = evs.clone();
                ev2.push(e);
                stack.push((n, ev2));
            }
        } else {
            *budget = budget.checked_sub(1)?;
            if cyclic(p, &evs) {
                return Some(false);
            }
        }
    }
    Some(true)
}

/// Whether the trace of `events` has a `po ∪ rf ∪ co ∪ fr` cycle.
fn cyclic(p: &Program, events: &[Event]) -> bool {
    cycle(p, events).is_some()
}

/// A `po ∪ rf ∪ co ∪ fr` cycle of the trace of `events`, if it has one: the indices in `events`
/// of its memory events, each related to the next (and the last to the first).
fn cycle(p: &Program, events: &[Event]) -> Option<Vec<usize>> {
    use crate::semantics::WriteId;
    // Nodes: memory events of threads (flushes are the commit points of their stores).
    let mut node_of_write: HashMap<WriteId, usize> = HashMap::new();
    let mut nodes: Vec<&Event> = Vec::new();
    // The index in `events` of each node.
    let mut node_ev: Vec<usize> = Vec::new();
    let mut edges: Vec<Vec<usize>> = Vec::new();
    let mut last_of_thread: HashMap<usize, usize> = HashMap::new();
    let nc = p.cells.len() as u32;
    // Per location: the commit order of writes (node ids), the reads with the write read.
    let mut co: HashMap<u32, Vec<usize>> = HashMap::new();
    let mut reads: Vec<(usize, u32, Option<usize>)> = Vec::new();
    let mut committed: std::collections::HashSet<usize> = Default::default();
    for (ei, e) in events.iter().enumerate() {
        // A faulting access (index out of bounds) touched no location.
        let is_mem = match e.action {
            Action::Load | Action::Store | Action::Rmw => e.cell.is_some(),
            Action::Lock | Action::Unlock => e.mutex.is_some(),
            _ => false,
        };
        if is_mem {
            let id = nodes.len();
            nodes.push(e);
            node_ev.push(ei);
            edges.push(vec![]);
            if let Some(prev) = last_of_thread.insert(e.thread, id) {
                edges[prev].push(id);
            }
            if let Some(w) = e.write {
                node_of_write.insert(w, id);
            }
            match e.action {
                Action::Load => reads.push((
                    id,
                    e.cell.unwrap_or(0),
                    e.read_from.and_then(|w| node_of_write.get(&w).copied()),
                )),
                Action::Store => {
                    if !e.buffered {
                        co.entry(e.cell.unwrap_or(0)).or_default().push(id);
                        committed.insert(id);
                    }
                }
                Action::Rmw => {
                    let c = e.cell.unwrap_or(0);
                    reads.push((
                        id,
                        c,
                        e.read_from.and_then(|w| node_of_write.get(&w).copied()),
                    ));
                    if e.write.is_some() {
                        co.entry(c).or_default().push(id);
                        committed.insert(id);
                    }
                }
                _ => {
                    // lock/unlock: read and write the mutex's location.
                    let l = nc + e.mutex.unwrap_or(0);
                    let prev = co.get(&l).and_then(|v| v.last().copied());
                    reads.push((id, l, prev));
                    co.entry(l).or_default().push(id);
                    committed.insert(id);
                }
            }
        } else if e.action == Action::Flush {
            if let Some(&id) = e.write.as_ref().and_then(|w| node_of_write.get(w)) {
                co.entry(e.cell.unwrap_or(0)).or_default().push(id);
                committed.insert(id);
            }
        }
    }
    // Stores still buffered come last, in program order.
    for (id, e) in nodes.iter().enumerate() {
        if e.action == Action::Store && !committed.contains(&id) {
            co.entry(e.cell.unwrap_or(0)).or_default().push(id);
        }
    }
    for order in co.values() {
        for w in order.windows(2) {
            edges[w[0]].push(w[1]);
        }
    }
    for &(r, l, from) in &reads {
        let order = co.get(&l).map(|v| v.as_slice()).unwrap_or(&[]);
        let next = match from {
            Some(w) => {
                if w != r {
                    edges[w].push(r);
                }
                order
                    .iter()
                    .position(|&x| x == w)
                    .and_then(|i| order.get(i + 1))
            }
            None => order.first(),
        };
        if let Some(&n) = next {
            if n != r {
                edges[r].push(n);
            }
        }
    }
    // Kahn's algorithm: a cycle iff not every node can be removed.
    let n = nodes.len();
    let mut indeg = vec![0usize; n];
    for es in &edges {
        for &t in es {
            indeg[t] += 1;
        }
    }
    let mut ready: Vec<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
    while let Some(i) = ready.pop() {
        for &t in &edges[i] {
            indeg[t] -= 1;
            if indeg[t] == 0 {
                ready.push(t);
            }
        }
    }
    // The nodes left each have a predecessor left: walking back from one repeats a node, and
    // the walk from its first visit on is a cycle.
    let start = (0..n).find(|&i| indeg[i] > 0)?;
    let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (a, es) in edges.iter().enumerate() {
        for &b in es {
            preds[b].push(a);
        }
    }
    let mut walk = vec![start];
    // Where each node first appears on the walk.
    let mut at: Vec<Option<usize>> = vec![None; n];
    at[start] = Some(0);
    let mut v = start;
    loop {
        v = *preds[v].iter().find(|&&u| indeg[u] > 0)?;
        if let Some(first) = at[v] {
            let mut c: Vec<usize> = walk[first..].iter().map(|&i| node_ev[i]).collect();
            c.reverse();
            return Some(c);
        }
        at[v] = Some(walk.len());
        walk.push(v);
    }
}

/// The witness of a cycle (from [`cycle`]) of an execution under TSO or PSO: a store of the
/// cycle followed in it by a later access of its thread that took effect first (a load while
/// the store was buffered, or under PSO a store that reached memory first) is the delayed
/// store, that access what it was delayed past, and the nearest other thread's event before it
/// on the cycle the conflict.
fn cycle_attack(p: &Program, events: &[Event], cycle: &[usize]) -> Attack {
    // When an event took effect: a buffered store when it was flushed (never flushed: after
    // every event, `events.len()`).
    let effect = |i: usize| -> usize {
        let e = &events[i];
        if e.action == Action::Store && e.buffered {
            (i + 1..events.len())
                .find(|&j| events[j].action == Action::Flush && events[j].write == e.write)
                .unwrap_or(events.len())
        } else {
            i
        }
    };
    let n = cycle.len();
    let k = (0..n)
        .find(|&k| {
            let (s, a) = (cycle[k], cycle[(k + 1) % n]);
            events[s].action == Action::Store
                && events[a].thread == events[s].thread
                && a > s
                && effect(a) < effect(s)
        })
        .or_else(|| (0..n).find(|&k| events[cycle[k]].action == Action::Store))
        .unwrap_or(0);
    let s = cycle[k];
    let conflict = (1..n)
        .map(|d| cycle[(k + n - d) % n])
        .find(|&i| events[i].thread != events[s].thread)
        .unwrap_or(cycle[(k + n - 1) % n]);
    Attack {
        thread: events[s].thread,
        store: to_step(p, &events[s]),
        past: vec![to_step(p, &events[cycle[(k + 1) % n]])],
        conflict: to_step(p, &events[conflict]),
        schedule: to_schedule(p, events),
    }
}

/// Robustness from DPOR's exploration (`--engine dpor --robust`): every Shasha-Snir class of
/// the program's executions under `model` has a representative among DPOR's maximal
/// executions, so the program is robust iff none of them has a `po ∪ rf ∪ co ∪ fr` cycle.
/// Stops at the first cyclic one, whose schedule is the witness; `states` counts the
/// executions checked.
pub fn robustness_dpor(
    test: &Test,
    p: &Program,
    model: Model,
    opts: &CheckOptions,
    ctl: &Control,
) -> Robustness {
    let Some(start) = Start::new(model, opts, ctl) else {
        return Robustness::unrefuted(true);
    };
    let ctl = &start.ctl;
    let mut out = Robustness::unrefuted(true);
    let mut col = Collector::new(test, p, model);
    let mut found = None;
    let mut leaves = 0u64;
    crate::dpor::explore_every_step(p, model, opts, ctl, &mut col, &mut |events| {
        leaves += 1;
        if found.is_none() {
            found = cycle(p, events).map(|c| {
                // The witness ends where the cycle is complete: after its last event and the
                // flushes of its stores (a prefix keeps the cycle's edges: rf and po as they
                // are, and coherence among the writes committed so far).
                let end = c
                    .iter()
                    .map(|&i| {
                        let e = &events[i];
                        (i + 1..events.len())
                            .rev()
                            .find(|&j| {
                                e.action == Action::Store
                                    && e.buffered
                                    && events[j].action == Action::Flush
                                    && events[j].write == e.write
                            })
                            .unwrap_or(i)
                    })
                    .max()
                    .map_or(events.len(), |i| i + 1);
                match cycle(p, &events[..end]) {
                    Some(short) => cycle_attack(p, &events[..end], &short),
                    None => cycle_attack(p, events, &c),
                }
            });
        }
        found.is_some()
    });
    out.states = leaves;
    match found {
        Some(a) => {
            out.holds = false;
            out.attack = Some(a);
        }
        None => out.complete = col.complete,
    }
    out.time_ms = start.elapsed_ms();
    out
}
