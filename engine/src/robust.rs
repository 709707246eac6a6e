//! Robustness against TSO and PSO: is every execution of the program under the model
//! equivalent to some SC execution (trace robustness: the same program order, reads-from and
//! coherence, so `po ∪ rf ∪ co ∪ fr` is acyclic)? If not, a witness.
//!
//! The search follows Trencher's *attacks* ([Bouajjani, Derevenetc and Meyer 2013](docs/papers.md#bouajjani-derevenetc-meyer-2013), "Checking and
//! enforcing robustness against TSO", reused by [Bouajjani et al. 2015](docs/papers.md#bouajjani-et-al-2015)): a program is not
//! robust iff some execution has the form
//!
//! 1. an SC prefix (every store reaches memory at once);
//! 2. one thread, the *attacker*, issues a store that stays in its buffer (the delayed store)
//!    and goes on running: its later stores stay buffered behind it, its loads read memory
//!    (or its own buffer);
//! 3. then the other threads, the *helpers*, run under SC while the attacker stays stopped
//!    (Trencher's normal form of a minimal violation: once a helper has moved, the attacker
//!    never moves again, which keeps the attack states few);
//! 4. some helper event that *happens after* a later load of the attacker (through `fr` from
//!    that load, helpers' program order, `rf`, `co`, `fr`) touches the location of a store the
//!    attacker issued before that load and that is still buffered: the cycle
//!    `store →po load →hb helper event →(co|fr) store` closes.
//!
//! So only SC states and single-attacker states are explored, never TSO's states where several
//! threads buffer at once. The happens-before taint of step 4 is a small finite monitor:
//! per helper thread and per location, the newest attacker load (counted by the attacker's
//! stores issued before it) that it happens after. Under PSO the attacker may also flush its
//! buffered stores to other locations early (store-store reordering); such a flush is a
//! taint source like a load. The papers prove the single-attacker form for TSO; for PSO it is
//! this module's generalisation, checked against the brute-force definition on random
//! programs (tests below) like the TSO search.
//!
//! Under SC every program is robust; [`robustness`] answers at once.

use crate::ast::Test;
use crate::ir::Program;
use crate::collect::Collector;
use crate::options::{CheckOptions, Control, EngineKind};
use crate::report::{Action, Model, Schedule, Step};
use crate::semantics::{to_schedule, to_step, Choice, Event, State};
use crate::span::Span;
use serde::Serialize;
use std::collections::{HashMap, VecDeque};
use std::time::Instant;

/// The robustness verdict of one program under one model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Robustness {
    /// Every execution is equivalent to an SC one (false only with an [`Attack`]).
    pub holds: bool,
    /// False when the search stopped early (timeout, cancellation): `holds` is then unproven.
    pub complete: bool,
    /// Why it does not hold.
    pub attack: Option<Attack>,
    /// States the search visited (SC states and attack states).
    pub states: u64,
    pub time_ms: f64,
}

impl Robustness {
    /// No attack found yet: robust so far, `complete` as given, nothing counted.
    fn unrefuted(complete: bool) -> Robustness {
        Robustness {
            holds: true,
            complete,
            attack: None,
            states: 0,
            time_ms: 0.0,
        }
    }
}

/// A store delayed past later loads of the same thread, closing a happens-before cycle.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Attack {
    /// The attacking thread.
    pub thread: usize,
    /// The delayed store (still buffered at the end of the schedule).
    pub store: Step,
    /// The attacker's later loads (from memory) the store was delayed past, and under PSO its
    /// later stores that reached memory first.
    pub past: Vec<Step>,
    /// The other thread's access to the store's location that closes the cycle.
    pub conflict: Step,
    /// A schedule from the initial state that replays to the end of the attack.
    pub schedule: Schedule,
}

/// Checks `test` for robustness under `model`.
pub fn robustness(test: &Test, model: Model, opts: &CheckOptions, ctl: &Control) -> Robustness {
    match Program::lower_with(test, opts.loop_bound, &|| ctl.should_stop()) {
        Ok(p) if opts.engine == EngineKind::Dpor => robustness_dpor(test, &p, model, opts, ctl),
        Ok(p) => robustness_program(&p, model, opts, ctl),
        Err(_) => Robustness::unrefuted(false),
    }
}

/// The attack monitor of a state in phase 2-4 (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Monitor {
    attacker: u32,
    /// Stores the attacker issued since the attack began.
    issued: u32,
    /// The attacker's buffered stores, in issue order: (cell, attack index).
    pending: Vec<(u32, u32)>,
    /// Per helper thread: the greatest taint it carries (0: none). A taint `k` means "happens
    /// after an attacker event that followed its first `k` delayed stores".
    thread_taint: Vec<u32>,
    /// Per location (cells, then mutexes): taint of the newest tainted read / write of it.
    read_taint: Vec<(u32, u32)>,
    write_taint: Vec<(u32, u32)>,
    /// A helper has run since the attack began: the attacker has stopped for good.
    helpers: bool,
}

fn get(v: &[(u32, u32)], loc: u32) -> u32 {
    v.iter().find(|(l, _)| *l == loc).map_or(0, |(_, t)| *t)
}

fn raise(v: &mut Vec<(u32, u32)>, loc: u32, t: u32) {
    if t == 0 {
        return;
    }
    match v.iter_mut().find(|(l, _)| *l == loc) {
        Some((_, old)) => *old = (*old).max(t),
        None => {
            v.push((loc, t));
            v.sort_unstable();
        }
    }
}

/// What a helper event reads and writes: cells, and mutexes as locations after the cells.
fn accesses(p: &Program, ev: &Event) -> (Option<u32>, Option<u32>) {
    let nc = p.cells.len() as u32;
    match ev.action {
        Action::Load => (ev.cell, None),
        Action::Store | Action::Flush => (None, ev.cell),
        Action::Rmw => (ev.cell, if ev.write.is_some() { ev.cell } else { None }),
        Action::Lock | Action::Unlock => {
            let m = ev.mutex.map(|m| nc + m);
            (m, m)
        }
        _ => (None, None),
    }
}

struct Node {
    parent: usize,
    event: Event,
}

const ROOT: usize = usize::MAX;

fn path(nodes: &[Node], mut id: usize) -> Vec<Event> {
    let mut out = Vec::new();
    while id != ROOT {
        out.push(nodes[id].event.clone());
        id = nodes[id].parent;
    }
    out.reverse();
    out
}

/// Robustness of a lowered program (see the module doc). Breadth-first, so a witness is a
/// shortest attack.
pub fn robustness_program(
    p: &Program,
    model: Model,
    opts: &CheckOptions,
    ctl: &Control,
) -> Robustness {
    let start = Instant::now();
    let mut out = Robustness::unrefuted(true);
    if !model.rules().buffered() {
        return out;
    }
    // The deadline counts from here; cancel, deadline and memory budget in one check.
    let ctl = &ctl.for_check(opts);
    let init = State::initial(p, model);
    let mut visited: HashMap<(State, Option<Monitor>), ()> = HashMap::new();
    let mut nodes: Vec<Node> = Vec::new();
    let mut queue: VecDeque<(State, Option<Monitor>, usize)> = VecDeque::new();
    if init.is_running() {
        visited.insert((init.clone(), None), ());
        queue.push_back((init, None, ROOT));
    }
    let mut steps: u64 = 0;
    // Adds a successor; returns its node id when new.
    let push = |s: State,
                m: Option<Monitor>,
                parent: usize,
                evs: Vec<Event>,
                visited: &mut HashMap<(State, Option<Monitor>), ()>,
                nodes: &mut Vec<Node>,
                queue: &mut VecDeque<(State, Option<Monitor>, usize)>|
     -> Option<usize> {
        if !s.is_running() {
            return None;
        }
        let key = (s, m);
        if visited.contains_key(&key) {
            return None;
        }
        visited.insert(key.clone(), ());
        let mut id = parent;
        for e in evs {
            nodes.push(Node {
                parent: id,
                event: e,
            });
            id = nodes.len() - 1;
        }
        queue.push_back((key.0, key.1, id));
        Some(id)
    };
    while let Some((state, mon, id)) = queue.pop_front() {
        steps += 1;
        if steps.is_multiple_of(256) && ctl.should_stop() {
            out.complete = false;
            break;
        }
        for choice in state.enabled(p) {
            let Choice::Exec(t) = choice else {
                // Helpers never buffer; the attacker flushes only under PSO.
                if let (
                    Some(m),
                    Choice::Flush {
                        thread,
                        cell: Some(c),
                    },
                ) = (&mon, choice)
                {
                    if thread == m.attacker as usize && model.rules().stores_reorder() && !m.helpers
                    {
                        let mut s = state.clone();
                        let ev = s.step(p, choice);
                        let mut m = m.clone();
                        if let Some(i) = m.pending.iter().position(|(pc, _)| *pc == c) {
                            let (_, j) = m.pending.remove(i);
                            raise(&mut m.write_taint, c, j);
                        }
                        push(
                            s,
                            Some(m),
                            id,
                            vec![ev],
                            &mut visited,
                            &mut nodes,
                            &mut queue,
                        );
                    }
                }
                continue;
            };
            let mut s = state.clone();
            let ev = s.step(p, choice);
            match &mon {
                None => {
                    if ev.action == Action::Store && ev.buffered {
                        // Either the store reaches memory at once (SC) or an attack begins.
                        let cell = ev.cell.unwrap_or(0);
                        let m = Monitor {
                            attacker: t as u32,
                            issued: 1,
                            pending: vec![(cell, 0)],
                            thread_taint: vec![0; p.threads.len()],
                            helpers: false,
                            read_taint: vec![],
                            write_taint: vec![],
                        };
                        let mut sc = s.clone();
                        let fl = sc.step(p, flush_choice(model, t, cell));
                        push(
                            sc,
                            None,
                            id,
                            vec![ev.clone(), fl],
                            &mut visited,
                            &mut nodes,
                            &mut queue,
                        );
                        push(
                            s,
                            Some(m),
                            id,
                            vec![ev],
                            &mut visited,
                            &mut nodes,
                            &mut queue,
                        );
                    } else {
                        push(s, None, id, vec![ev], &mut visited, &mut nodes, &mut queue);
                    }
                }
                Some(m) if t == m.attacker as usize => {
                    if m.helpers {
                        continue;
                    }
                    let mut m = m.clone();
                    match ev.action {
                        Action::Load if !ev.buffered => {
                            if let Some(c) = ev.cell {
                                raise(&mut m.read_taint, c, m.issued)
                            }
                        }
                        Action::Store => {
                            m.pending.push((ev.cell.unwrap_or(0), m.issued));
                            m.issued += 1;
                        }
                        _ => {}
                    }
                    push(
                        s,
                        Some(m),
                        id,
                        vec![ev],
                        &mut visited,
                        &mut nodes,
                        &mut queue,
                    );
                }
                Some(m) => {
                    let mut evs = vec![ev.clone()];
                    let mut last = ev.clone();
                    if ev.action == Action::Store && ev.buffered {
                        let fl = s.step(p, flush_choice(model, t, ev.cell.unwrap_or(0)));
                        last = fl.clone();
                        evs.push(fl);
                    }
                    let mut m = m.clone();
                    m.helpers = true;
                    let (r, w) = accesses(p, &last);
                    let mut taint = m.thread_taint[t];
                    if let Some(l) = r {
                        taint = taint.max(get(&m.write_taint, l));
                    }
                    if let Some(l) = w {
                        taint = taint.max(get(&m.write_taint, l)).max(get(&m.read_taint, l));
                    }
                    m.thread_taint[t] = taint;
                    if let Some(l) = r {
                        raise(&mut m.read_taint, l, taint);
                    }
                    if let Some(l) = w {
                        raise(&mut m.write_taint, l, taint);
                    }
                    if let Some(index) = hit_of(taint, r, w, &m) {
                        let Some(nid) = push(
                            s,
                            Some(m.clone()),
                            id,
                            evs,
                            &mut visited,
                            &mut nodes,
                            &mut queue,
                        ) else {
                            continue;
                        };
                        let events = path(&nodes, nid);
                        out.holds = false;
                        out.attack = Some(attack(p, &events, m.attacker as usize, index, taint));
                        out.states = visited.len() as u64;
                        out.time_ms = start.elapsed().as_secs_f64() * 1e3;
                        return out;
                    }
                    push(s, Some(m), id, evs, &mut visited, &mut nodes, &mut queue);
                }
            }
        }
    }
    out.states = visited.len() as u64;
    out.time_ms = start.elapsed().as_secs_f64() * 1e3;
    out
}

/// The attack index of the attacker's buffered store the tainted access `r`/`w` conflicts
/// with, if any.
fn hit_of(taint: u32, r: Option<u32>, w: Option<u32>, m: &Monitor) -> Option<u32> {
    if taint == 0 {
        return None;
    }
    [r, w].into_iter().flatten().find_map(|l| {
        m.pending
            .iter()
            .find(|(c, i)| *c == l && *i < taint)
            .map(|(_, i)| *i)
    })
}

fn flush_choice(model: Model, t: usize, cell: u32) -> Choice {
    Choice::flush(model, t, cell)
}

/// The witness of a successful attack ending with `events`.
fn attack(p: &Program, events: &[Event], a: usize, index: u32, taint: u32) -> Attack {
    // The attacker's stores from the attack's start are numbered 0, 1, ... as in the
    // monitor: `index` is the delayed store the conflict hits, and the cycle runs through the
    // attacker's accesses after it up to the one that issued `taint` stores before it.
    let mut store = None;
    let mut past = Vec::new();
    let mut k = 0u32;
    let start = attack_start(events, a);
    for (i, e) in events.iter().enumerate().skip(start) {
        if e.thread != a {
            continue;
        }
        match e.action {
            Action::Store => {
                if k == index {
                    store = Some(to_step(p, e));
                }
                k += 1;
            }
            Action::Load if !e.buffered && k > index && k <= taint => past.push(to_step(p, e)),
            Action::Flush if i > start => {
                let kk = flushed_index(events, start, a, e);
                if kk > index && kk <= taint {
                    past.push(to_step(p, e));
                }
            }
            _ => {}
        }
    }
    let conflict = events
        .iter()
        .rev()
        .find(|e| e.thread != a && e.action != Action::Flush)
        .or(events.last())
        .map(|e| to_step(p, e))
        .unwrap_or_else(|| to_step(p, &events[0]));
    Attack {
        thread: a,
        store: store.unwrap_or_else(|| to_step(p, &events[start])),
        past,
        conflict,
        schedule: to_schedule(p, events),
    }
}

/// Index of the attack's first event. In the SC phase every store is followed at once by its
/// flush; the attack begins at the attacker's first store that is not.
fn attack_start(events: &[Event], a: usize) -> usize {
    for (i, e) in events.iter().enumerate() {
        if e.action == Action::Store && e.buffered {
            let next = events.get(i + 1);
            let flushed = next.is_some_and(|n| {
                n.action == Action::Flush && n.thread == e.thread && n.write == e.write
            });
            if !flushed && e.thread == a {
                return i;
            }
        }
    }
    0
}

/// The attack index of the store an attacker flush publishes.
fn flushed_index(events: &[Event], start: usize, a: usize, flush: &Event) -> u32 {
    events[start..]
        .iter()
        .filter(|e| e.thread == a && e.action == Action::Store)
        .position(|e| e.write == flush.write)
        .unwrap_or(0) as u32
}

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
    let mut at = vec![usize::MAX; n];
    at[start] = 0;
    let mut v = start;
    loop {
        v = *preds[v].iter().find(|&&u| indeg[u] > 0)?;
        if at[v] != usize::MAX {
            let mut c: Vec<usize> = walk[at[v]..].iter().map(|&i| node_ev[i]).collect();
            c.reverse();
            return Some(c);
        }
        at[v] = walk.len();
        walk.push(v);
    }
}

/// The witness of a cycle (from [`cycle`]) of an execution under TSO or PSO: a store of the
/// cycle followed in it by a later access of its thread that took effect first (a load while
/// the store was buffered, or under PSO a store that reached memory first) is the delayed
/// store, that access what it was delayed past, and the nearest other thread's event before it
/// on the cycle the conflict.
fn cycle_attack(p: &Program, events: &[Event], cycle: &[usize]) -> Attack {
    // When an event took effect: a buffered store when it was flushed (never: at the end).
    let effect = |i: usize| -> usize {
        let e = &events[i];
        if e.action == Action::Store && e.buffered {
            (i + 1..events.len())
                .find(|&j| events[j].action == Action::Flush && events[j].write == e.write)
                .unwrap_or(usize::MAX)
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
    let start = Instant::now();
    let mut out = Robustness::unrefuted(true);
    if !model.rules().buffered() {
        return out;
    }
    let ctl = &ctl.for_check(opts);
    let mut col = Collector::new(test, p, model);
    let mut found = None;
    let mut leaves = 0u64;
    crate::dpor::explore_leaves(p, model, opts, ctl, &mut col, &mut |events| {
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
                            .filter(|&j| {
                                e.action == Action::Store
                                    && e.buffered
                                    && events[j].action == Action::Flush
                                    && events[j].write == e.write
                            })
                            .last()
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
    out.time_ms = start.elapsed().as_secs_f64() * 1000.0;
    out
}

/// The delayed store's span, for callers that only need positions.
impl Attack {
    pub fn store_span(&self) -> Span {
        self.store.span
    }
}
