//! The attack search: SC states and single-attacker states, with the happens-before monitor
//! of the parent module's doc, until a helper event closes a cycle or the space is exhausted.

use super::{Attack, Robustness, Start};
use crate::control::Control;
use crate::explore::tree::Tree;
use crate::ir::Program;
use crate::options::CheckOptions;
use crate::report::{Action, Model};
use crate::semantics::{to_schedule, to_step, Choice, Event, State};
use std::collections::{HashMap, VecDeque};

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

/// Robustness of a lowered program (see the module doc). Breadth-first, so a witness is a
/// shortest attack.
pub fn robustness_program(
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
    let init = State::initial(p, model);
    let mut visited: HashMap<(State, Option<Monitor>), ()> = HashMap::new();
    let mut nodes = Tree::default();
    let mut queue: VecDeque<(State, Option<Monitor>, Option<usize>)> = VecDeque::new();
    if init.is_running() {
        visited.insert((init.clone(), None), ());
        queue.push_back((init, None, None));
    }
    let mut steps: u64 = 0;
    // Adds a successor; returns its node id when new.
    let push = |s: State,
                m: Option<Monitor>,
                parent: Option<usize>,
                evs: Vec<Event>,
                visited: &mut HashMap<(State, Option<Monitor>), ()>,
                nodes: &mut Tree,
                queue: &mut VecDeque<(State, Option<Monitor>, Option<usize>)>|
     -> Option<Option<usize>> {
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
            id = nodes.push(id, e);
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
                        let events = nodes.path(nid);
                        out.holds = false;
                        out.attack = Some(attack(p, &events, m.attacker as usize, index, taint));
                        out.states = visited.len() as u64;
                        out.time_ms = start.elapsed_ms();
                        return out;
                    }
                    push(s, Some(m), id, evs, &mut visited, &mut nodes, &mut queue);
                }
            }
        }
    }
    out.states = visited.len() as u64;
    out.time_ms = start.elapsed_ms();
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
