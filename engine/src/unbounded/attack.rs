//! Robustness against TSO for every number of loop iterations: Trencher's attack search
//! ([`crate::robust`]) over the state space of a program whose loops do not count, with a
//! monitor and an attacker buffer that stay finite.
//!
//! A witness of non-robustness under TSO (Bouajjani, Derevenetc and Meyer 2013, Lemma 6 of
//! the lazy-TSO paper) delays the attacker's *first* delayed store past a later load, and the
//! helpers' happens-before path from that load ends at an access to the delayed store's
//! location. So, unlike the bounded search, which numbers every delayed store, this one keeps:
//!
//! - the delayed store's location (the cycle must close there);
//! - per helper thread and per location (reads and writes apart), whether it happens after an
//!   attacker load issued after the delayed store (a taint bit, not a store count);
//! - of the attacker's buffer, the newest store per location only. Under TSO the attacker never
//!   flushes during an attack (a flush of the delayed store would end it), so its buffer only
//!   matters for its own loads, which read the newest store to their location, and for its
//!   barriers, which wait while it is non-empty. An attacker that keeps storing in a loop then
//!   has finitely many buffers, where the exact buffer would grow without end.
//!
//! With the SC states finite, the whole search is finite, and "robust" holds for every
//! iteration count and any buffer size.

use super::explore::{path, sc_step, Node};
use super::lazy::Ext;
use super::Budget;
use crate::control::Control;
use crate::ir::Program;
use crate::report::{Action, Model};
use crate::robust::{Attack, Robustness};
use crate::semantics::{to_schedule, to_step, Buffer, Choice, Event, State};
use std::collections::{HashSet, VecDeque};
use std::time::Instant;

/// The monitor of an attack state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Monitor {
    attacker: u32,
    /// The delayed store's cell.
    delayed: u32,
    /// Per helper thread: it happens after an attacker load past the delayed store.
    thread_taint: Vec<bool>,
    /// Locations (cells, then mutexes) with a tainted read / write, sorted.
    read_taint: Vec<u32>,
    write_taint: Vec<u32>,
    /// A helper has run: the attacker has stopped for good.
    helpers: bool,
}

fn mark(v: &mut Vec<u32>, l: u32) {
    if let Err(i) = v.binary_search(&l) {
        v.insert(i, l);
    }
}

/// What an event reads and writes: cells, and mutexes as locations after the cells.
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

/// Keeps only the newest store per cell in thread `t`'s buffer (cells in order).
fn fold_buffer(s: &mut State, t: usize) {
    let Some(b) = s.buffers[t].first() else {
        return;
    };
    let mut newest: Vec<_> = b.iter().rev().cloned().collect();
    newest.sort_by_key(|e| e.cell);
    newest.dedup_by_key(|e| e.cell);
    if newest.len() == b.len() && b.iter().zip(&newest).all(|(x, y)| x.cell == y.cell) {
        return;
    }
    let mut nb = Buffer::new();
    for e in newest {
        nb.push_back(e);
    }
    s.buffers[t][0] = nb;
}

type Key = (State, Option<Monitor>);

struct Search {
    /// Registers dead per thread and pc ([`crate::ir::live`]), forgotten in every state.
    dead: Vec<Vec<Vec<crate::ir::Reg>>>,
    visited: HashSet<Key>,
    nodes: Vec<Node>,
    queue: VecDeque<(State, Option<Monitor>, Option<usize>)>,
}

impl Search {
    /// Adds a successor; its node id when new.
    fn push(
        &mut self,
        s: State,
        m: Option<Monitor>,
        parent: Option<usize>,
        events: Vec<Event>,
    ) -> Option<Option<usize>> {
        if !s.is_running() {
            return None;
        }
        let mut s = s;
        super::explore::forget_dead(&self.dead, &mut s);
        let key = (s, m);
        if self.visited.contains(&key) {
            return None;
        }
        self.visited.insert(key.clone());
        self.nodes.push(Node { parent, events });
        let id = Some(self.nodes.len() - 1);
        self.queue.push_back((key.0, key.1, id));
        Some(id)
    }
}

/// Robustness of `p` (loops not counting) under TSO. `complete: false` when the budget or
/// `ctl` ended the search; then `holds` is unproven.
pub(super) fn robustness(p: &Program, budget: Budget, ctl: &Control) -> Robustness {
    search(p, budget, ctl, &[]).0
}

/// The attack search as the lazy checker's oracle ([`super::lazy`]): robustness as
/// [`robustness`] says it (`holds` is false once any attack is found), and the first attack
/// whose path ([`Ext`]) is not in `known`, with that path. The search goes on past attacks
/// whose path is known.
pub(super) fn search(
    p: &Program,
    budget: Budget,
    ctl: &Control,
    known: &[Ext],
) -> (Robustness, Option<Ext>) {
    let mut found = None;
    let start = Instant::now();
    let model = Model::Tso;
    let mut out = Robustness {
        holds: true,
        complete: true,
        attack: None,
        states: 0,
        time_ms: 0.0,
    };
    let mut sr = Search {
        dead: crate::ir::live::dead_registers(p),
        visited: HashSet::new(),
        nodes: Vec::new(),
        queue: VecDeque::new(),
    };
    let mut init = State::initial(p, model);
    super::explore::forget_dead(&sr.dead, &mut init);
    if init.is_running() {
        sr.visited.insert((init.clone(), None));
        sr.queue.push_back((init, None, None));
    }
    let mut steps: u64 = 0;
    'search: while let Some((state, mon, id)) = sr.queue.pop_front() {
        steps += 1;
        if (steps.is_multiple_of(256) && ctl.should_stop())
            || sr.visited.len() as u64 >= budget.states
        {
            out.complete = false;
            break;
        }
        for choice in state.enabled(p) {
            // Helpers never buffer, and a TSO attacker never flushes.
            let Choice::Exec(t) = choice else { continue };
            match &mon {
                None => {
                    let mut s = state.clone();
                    let ev = s.step(p, choice);
                    if ev.action == Action::Store && ev.buffered {
                        // The store reaches memory at once (SC), or an attack begins.
                        let m = Monitor {
                            attacker: t as u32,
                            delayed: ev.cell.unwrap_or(0),
                            thread_taint: vec![false; p.threads.len()],
                            read_taint: vec![],
                            write_taint: vec![],
                            helpers: false,
                        };
                        let mut sc = s.clone();
                        let fl = sc.step(p, Choice::flush(model, t, m.delayed));
                        sr.push(sc, None, id, vec![ev.clone(), fl]);
                        sr.push(s, Some(m), id, vec![ev]);
                    } else {
                        sr.push(s, None, id, vec![ev]);
                    }
                }
                Some(m) if t == m.attacker as usize => {
                    if m.helpers {
                        continue;
                    }
                    let mut s = state.clone();
                    let ev = s.step(p, choice);
                    let mut m = m.clone();
                    if ev.action == Action::Load && !ev.buffered {
                        if let Some(c) = ev.cell {
                            mark(&mut m.read_taint, c);
                        }
                    }
                    fold_buffer(&mut s, t);
                    sr.push(s, Some(m), id, vec![ev]);
                }
                Some(m) => {
                    let mut s = state.clone();
                    let evs = sc_step(p, model, &mut s, choice);
                    let last = evs.last().cloned();
                    let mut m = m.clone();
                    m.helpers = true;
                    let (r, w) = last.as_ref().map_or((None, None), |e| accesses(p, e));
                    let has = |v: &Vec<u32>, l: Option<u32>| l.is_some_and(|l| v.contains(&l));
                    let taint = m.thread_taint[t]
                        || has(&m.write_taint, r)
                        || has(&m.write_taint, w)
                        || has(&m.read_taint, w);
                    if taint {
                        m.thread_taint[t] = true;
                        if let Some(l) = r {
                            mark(&mut m.read_taint, l);
                        }
                        if let Some(l) = w {
                            mark(&mut m.write_taint, l);
                        }
                    }
                    let hit = taint && (r == Some(m.delayed) || w == Some(m.delayed));
                    let attacker = m.attacker as usize;
                    let Some(nid) = sr.push(s, Some(m), id, evs) else {
                        continue;
                    };
                    if hit {
                        let events = path(&sr.nodes, nid);
                        out.holds = false;
                        let ext = sigma(p, &events, attacker);
                        if ext.as_ref().is_some_and(|e| known.contains(e)) {
                            continue;
                        }
                        out.attack = Some(witness(p, &events, attacker));
                        found = ext;
                        break 'search;
                    }
                }
            }
        }
    }
    out.states = sr.visited.len() as u64;
    out.time_ms = start.elapsed().as_secs_f64() * 1e3;
    crate::explore::drop_in_background((sr.visited, sr.nodes, sr.queue));
    (out, found)
}

/// The index of the attack's delayed store in `events`: the SC phase flushes each store at
/// once, so it is the attacker's first store not followed by its own flush.
fn attack_start(events: &[Event], a: usize) -> usize {
    (0..events.len())
        .find(|&i| {
            let e = &events[i];
            e.thread == a
                && e.action == Action::Store
                && e.buffered
                && !events.get(i + 1).is_some_and(|n| {
                    n.action == Action::Flush && n.thread == a && n.write == e.write
                })
        })
        .unwrap_or(0)
}

/// The attack's instruction path (the paper's `O(R)`): the program counters of the
/// attacker's steps from its delayed store to its last load, read by running the events
/// again from the initial state (events carry no program counter).
fn sigma(p: &Program, events: &[Event], a: usize) -> Option<Ext> {
    let start = attack_start(events, a);
    let mut s = State::initial(p, Model::Tso);
    let mut pcs = Vec::new();
    let mut last_load = None;
    for (i, e) in events.iter().enumerate() {
        let choice = if e.action == Action::Flush {
            Choice::flush(Model::Tso, e.thread, e.cell.unwrap_or(0))
        } else {
            Choice::Exec(e.thread)
        };
        if i >= start && e.thread == a && e.action != Action::Flush {
            pcs.push(s.threads[a].pc);
            if e.action == Action::Load {
                last_load = Some(pcs.len());
            }
        }
        s.try_step(p, choice)?;
    }
    pcs.truncate(last_load?);
    Some(Ext { thread: a, pcs })
}

/// The witness of an attack ending with `events`: the attacker's first store left in its
/// buffer, its later loads from memory, and the last helper event.
fn witness(p: &Program, events: &[Event], a: usize) -> Attack {
    let start = attack_start(events, a);
    let past = events[start..]
        .iter()
        .filter(|e| e.thread == a && e.action == Action::Load && !e.buffered)
        .map(|e| to_step(p, e))
        .collect();
    let conflict = events
        .iter()
        .rev()
        .find(|e| e.thread != a && e.action != Action::Flush)
        .or(events.last())
        .map(|e| to_step(p, e));
    let store = to_step(p, &events[start]);
    Attack {
        thread: a,
        conflict: conflict.unwrap_or_else(|| store.clone()),
        store,
        past,
        schedule: to_schedule(p, events),
    }
}
