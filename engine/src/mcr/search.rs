//! Causal search: answers a new-value query by enumerating the trace's own interleavings,
//! instead of asking Z3.
//!
//! A query asks for an interleaving of the trace's events (its *maximal causal model*, paper
//! [Huang and Huang 2016](docs/papers.md#huang-huang-2016) §2.1) in which every thread replays its own steps of the trace in program
//! order, every read but the target keeps the value it had, and the target reads its new value
//! from its source (see [`Target`]). [`super::encode`] states this as difference-logic
//! constraints for Z3. Because every read but the target keeps its value, every thread's
//! registers and control flow are fixed by its position in its own event list (local
//! determinism), so the whole machine state of such an interleaving is a small vector: each
//! thread's position, how far each store buffer has drained, each cell's memory value, each
//! mutex's owner, and whether the target has run. The search is a depth-first search over
//! these abstract states with a visited set, so each is expanded once. It applies the
//! operational rules of `docs/reference.md#models` to the trace's events exactly as [`crate::semantics`] does:
//! store forwarding from the thread's newest own buffered store to the cell, FIFO flushes per
//! thread (TSO) or per thread and cell (PSO), fences, locks, unlocks and RMWs waiting for empty
//! buffers, and lock ownership. (`await` parking plays no part: a trace keeps a failed round only
//! as its thread's last step, see [`super::observe::drop_failed_rounds`].)
//!
//! It answers exactly: `Unsat` only when no interleaving of the trace's events satisfies the
//! query, `Sat` with the positions of one that does (the caller cuts them to the target's causal
//! cone as it cuts a Z3 model, and replays that through the interpreter, which checks it).
//! A search that outgrows its budget gives up and the query goes to Z3. `engine/tests/
//! mcr_search.rs` checks it against Z3 on every query of random programs and the corpus.
//!
//! Two prunings keep unsatisfiable queries cheap: a state where the target can no longer read
//! from its source (the source was overwritten, the forwarded store flushed, the unlock to follow
//! was followed by another) is dead, and so is a state where some read that must still run (a
//! committed one, or one before the target in its thread) needs a value that its cell no longer
//! holds and that no write left to run writes.
//!
//! Deterministic: moves are tried in a fixed order (the event's index in the trace, so the search
//! first follows the trace's own order).

mod layout;
mod step;

use super::encode::{Hints, Target};
use super::trace::{EventKind, Trace};
use crate::ids::EventId;
use layout::{Layout, FREE};
use rustc_hash::FxHashSet as HashSet;

/// What a search found.
pub enum Found {
    /// An interleaving: the position of every trace event in it (events it did not run get
    /// positions after all that it ran).
    Sat(Vec<i64>),
    /// No interleaving of the trace's events answers the query.
    Unsat,
    /// The budget ran out first (or the query has a shape the search does not model).
    GaveUp,
}

/// A search's answer and the number of states it expanded.
pub struct Searched {
    pub found: Found,
    pub states: usize,
}

/// "No event" in the search's per-event arrays and packed states, which hold event indices as
/// `u32` words (an `Option<u32>` would double the arrays and not fit the packed state's
/// fields).
const NONE: u32 = u32::MAX;

/// The query-independent view of one trace, built once and shared by its queries.
pub struct Space<'t> {
    tr: &'t Trace,
    threads: usize,
    cells: usize,
    mutexes: usize,
    /// Per thread: its non-flush events in program order.
    thread_evs: Vec<Vec<u32>>,
    /// Per event: its index in its thread's list (non-flush) or in its queue (flush).
    slot: Vec<u32>,
    /// Flush events of each store buffer in FIFO order (TSO: one queue per thread; PSO: one per
    /// thread and cell).
    queues: Vec<Vec<u32>>,
    /// Queue of each flush event and of each store (its buffer).
    queue_of: Vec<u32>,
    /// Per thread: its queues.
    thread_queues: Vec<Vec<u32>>,
    /// Per store event: how many stores of its queue were issued before it (its index in the
    /// buffer's FIFO order).
    store_rank: Vec<u32>,
    /// For a barrier (fence, lock, unlock, RMW): the flush count each of its thread's queues
    /// must have reached (every earlier store flushed).
    drained: Vec<Vec<(u32, u32)>>,
    /// For a load under TSO/PSO: the newest earlier store of its thread to its cell.
    own_store: Vec<u32>,
    /// Flush event of each store (NONE if never flushed in the trace).
    flush_of: Vec<u32>,
    /// Per cell: the value each publish writes, with the publish event.
    publishes: Vec<Vec<(u32, i64)>>,
}

impl<'t> Space<'t> {
    /// `None` if the trace has a shape the search does not model.
    pub fn new(tr: &'t Trace) -> Option<Space<'t>> {
        let n = tr.events.len();
        let threads = tr.threads;
        let cells = tr.init.len();
        let mut mutexes = 0;
        let mut thread_evs: Vec<Vec<u32>> = vec![Vec::new(); threads];
        let mut slot = vec![0u32; n];
        let mut queue_key: Vec<(usize, u32)> = Vec::new();
        let mut queues: Vec<Vec<u32>> = Vec::new();
        let mut queue_of = vec![NONE; n];
        let mut thread_queues: Vec<Vec<u32>> = vec![Vec::new(); threads];
        let mut store_rank = vec![0u32; n];
        let mut issued: Vec<u32> = Vec::new();
        let mut drained = vec![Vec::new(); n];
        // The buffer a store of thread `t` to `cell` goes to (created on first use).
        let mut queue_for = |t: usize,
                             cell: u32,
                             queues: &mut Vec<Vec<u32>>,
                             issued: &mut Vec<u32>,
                             tq: &mut Vec<Vec<u32>>|
         -> u32 {
            let key = (t, tr.rules().fifo(cell) as u32);
            match queue_key.iter().position(|&k| k == key) {
                Some(q) => q as u32,
                None => {
                    queue_key.push(key);
                    queues.push(Vec::new());
                    issued.push(0);
                    tq[t].push(queue_key.len() as u32 - 1);
                    queue_key.len() as u32 - 1
                }
            }
        };
        for (i, e) in tr.events.iter().enumerate() {
            let t = e.thread;
            if t >= threads {
                return None;
            }
            match e.kind {
                EventKind::Local => return None,
                EventKind::Flush { cell, store, .. } => {
                    let store = store?.index();
                    if cell as usize >= cells
                        || store >= i
                        || !matches!(tr.events[store].kind, EventKind::Store { .. })
                    {
                        return None;
                    }
                    let q = queue_for(t, cell, &mut queues, &mut issued, &mut thread_queues);
                    slot[i] = queues[q as usize].len() as u32;
                    queues[q as usize].push(i as u32);
                    queue_of[i] = q;
                    // FIFO: the k-th flush of a queue publishes its k-th store.
                    if store_rank[store] != slot[i] || queue_of[store] != q {
                        return None;
                    }
                    continue;
                }
                _ => {}
            }
            slot[i] = thread_evs[t].len() as u32;
            thread_evs[t].push(i as u32);
            match e.kind {
                EventKind::Store { cell, .. } => {
                    if cell as usize >= cells {
                        return None;
                    }
                    if tr.rules().buffered() {
                        let q = queue_for(t, cell, &mut queues, &mut issued, &mut thread_queues);
                        queue_of[i] = q;
                        store_rank[i] = issued[q as usize];
                        issued[q as usize] += 1;
                    }
                }
                EventKind::Load { cell, .. } | EventKind::Rmw { cell, .. }
                    if cell as usize >= cells =>
                {
                    return None
                }
                EventKind::Lock { mutex } | EventKind::Unlock { mutex } => {
                    mutexes = mutexes.max(mutex as usize + 1)
                }
                _ => {}
            }
            if e.kind.is_barrier() && tr.rules().barriers_drain() {
                drained[i] = thread_queues[t]
                    .iter()
                    .map(|&q| (q, issued[q as usize]))
                    .collect();
            }
        }
        let index = |e: Option<EventId>| e.map_or(NONE, |e| e.index() as u32);
        let own_store = tr.own_stores().into_iter().map(index).collect();
        let flush_of = tr.flush_of().into_iter().map(index).collect();
        let publishes = tr
            .publishes()
            .into_iter()
            .map(|p| p.into_iter().map(|(q, v)| (q.index() as u32, v)).collect())
            .collect();
        Some(Space {
            tr,
            threads,
            cells,
            mutexes,
            thread_evs,
            slot,
            queues,
            queue_of,
            thread_queues,
            store_rank,
            drained,
            own_store,
            flush_of,
            publishes,
        })
    }

    /// Searches for an interleaving answering `target`, keeping the trace's first `keep` events,
    /// expanding at most `budget` states. `hints` are orderings the pre-check derived, which
    /// every answer obeys: the search runs no event before those it must follow, and none forced
    /// out of the prefix. `stop`, for a read target: its thread's first later step that depends
    /// on the new value ([`super::encode::Encoder::stop_after`]), where the thread stops.
    pub fn search(
        &self,
        target: &Target,
        keep: usize,
        budget: usize,
        hints: Option<&Hints>,
        stop: Option<usize>,
    ) -> Searched {
        let Some(mut q) = Query::new(self, target, keep.min(self.tr.events.len())) else {
            return Searched {
                found: Found::GaveUp,
                states: 0,
            };
        };
        q.budget = budget;
        q.tstop = stop.map_or(NONE, |s| s as u32);
        q.hints = hints.filter(|h| {
            h.after.len() == self.tr.events.len() && h.out.len() == self.tr.events.len()
        });
        let found = q.run();
        Searched {
            found,
            states: q.expanded,
        }
    }
}

struct Query<'s, 't> {
    sp: &'s Space<'t>,
    hints: Option<&'s Hints>,
    target: &'s Target,
    /// The target event, its thread and cell (or mutex).
    tev: Option<usize>,
    tthread: usize,
    tcell: u32,
    /// For a read target: the first step of its thread that depends on the new value, where
    /// the thread stops (`NONE`: none does, or another kind of target).
    tstop: u32,
    /// What the target RMW writes with its new value (`None`: nothing).
    twrite: Option<Option<i64>>,
    /// Per thread: how many of its events must run (committed ones, those before the target).
    need_pos: Vec<u16>,
    /// Per queue: how many of its flushes must run.
    need_flushed: Vec<u16>,
    /// For a `late` target: the round's first load and the publishes that must precede it.
    late: Option<(usize, Vec<u32>)>,
    /// For a final-value target: the value each cell up to the target's must end with.
    finals: Vec<(u32, i64)>,
    lay: Layout,
    visited: HashSet<Box<[u64]>>,
    budget: usize,
    expanded: usize,
    /// The events of the current path, in order.
    path: Vec<u32>,
}

impl<'s, 't> Query<'s, 't> {
    fn new(sp: &'s Space<'t>, target: &'s Target, keep: usize) -> Option<Query<'s, 't>> {
        let tr = sp.tr;
        let n = tr.events.len();
        let mut need_pos = vec![0u16; sp.threads];
        let mut need_flushed = vec![0u16; sp.queues.len()];
        for i in 0..keep {
            let e = &tr.events[i];
            let s = sp.slot[i] as u16 + 1;
            if matches!(e.kind, EventKind::Flush { .. }) {
                let q = sp.queue_of[i] as usize;
                need_flushed[q] = need_flushed[q].max(s);
            } else {
                need_pos[e.thread] = need_pos[e.thread].max(s);
            }
        }
        let (mut tev, mut tthread, mut tcell, mut twrite, mut late, mut finals) =
            (None, 0, NONE, None, None, Vec::new());
        // An event target: the cell (mutex) it reads and the write (unlock) it must follow.
        let event_target = match *target {
            Target::Read { event, from, .. } => Some((
                event.index(),
                tr.events.get(event.index())?.kind.read()?.0,
                from.map(EventId::index),
            )),
            Target::Lock { event, after } => match tr.events.get(event.index())?.kind {
                EventKind::Lock { mutex } => {
                    Some((event.index(), mutex, after.map(EventId::index)))
                }
                _ => return None,
            },
            Target::Final { .. } => None,
        };
        if let Some((event, cell, source)) = event_target {
            if source.is_some_and(|f| f >= n) {
                return None;
            }
            let thread = tr.events[event].thread;
            tev = Some(event);
            tthread = thread;
            tcell = cell;
            need_pos[thread] = need_pos[thread].max(sp.slot[event] as u16 + 1);
        }
        match *target {
            Target::Read {
                event,
                value,
                late: is_late,
                ..
            } => {
                if let EventKind::Rmw { op, .. } = tr.event(event).kind {
                    twrite = Some(op?.write(value));
                }
                if is_late {
                    let (first, need) = tr.late_needs(event, &tr.await_rounds());
                    let need = need.into_iter().map(|j| j.index() as u32).collect();
                    late = Some((first.index(), need));
                }
            }
            Target::Lock { .. } => {}
            Target::Final { cell, value } => {
                if cell as usize >= sp.cells {
                    return None;
                }
                let last = |c: usize| {
                    sp.publishes[c]
                        .last()
                        .map(|&(_, v)| v)
                        .unwrap_or(tr.init[c])
                };
                finals.extend((0..cell).map(|c| (c, last(c as usize))));
                finals.push((cell, value));
                for (need, evs) in need_pos.iter_mut().zip(&sp.thread_evs).take(sp.threads) {
                    *need = evs.len() as u16;
                }
                for (q, fs) in sp.queues.iter().enumerate() {
                    need_flushed[q] = fs.len() as u16;
                }
            }
        }
        let lay = Layout::new(sp.cells, sp.threads, sp.queues.len(), sp.mutexes);
        Some(Query {
            sp,
            hints: None,
            lay,
            target,
            tev,
            tthread,
            tcell,
            tstop: NONE,
            twrite,
            need_pos,
            need_flushed,
            late,
            finals,
            visited: HashSet::default(),
            budget: usize::MAX,
            expanded: 0,
            path: Vec::new(),
        })
    }

    fn root(&self) -> Box<[u64]> {
        let sp = self.sp;
        let l = &self.lay;
        let mut n = vec![0u64; l.words];
        for (c, &v) in sp.tr.init.iter().enumerate() {
            n[c] = v as u64;
        }
        for m in 0..sp.mutexes {
            l.set_owner(&mut n, m, FREE);
        }
        l.set_src(&mut n, NONE);
        l.set_unlock(&mut n, NONE);
        n.into()
    }

    fn run(&mut self) -> Found {
        let root = self.root();
        let n = self.sp.tr.events.len();
        match self.dfs(root) {
            Some(true) => {
                let mut pos: Vec<i64> = (0..n).map(|i| (n + 1 + i) as i64).collect();
                for (k, &i) in self.path.iter().enumerate() {
                    pos[i as usize] = k as i64;
                }
                Found::Sat(pos)
            }
            Some(false) => Found::Unsat,
            None => Found::GaveUp,
        }
    }

    /// `Some(true)`: found (the path is in `self.path`); `Some(false)`: nothing below this
    /// node; `None`: out of budget.
    fn dfs(&mut self, node: Box<[u64]>) -> Option<bool> {
        if self.expanded >= self.budget {
            return None;
        }
        self.expanded += 1;
        let mut moves: Vec<(u32, Box<[u64]>)> = Vec::new();
        let mut scratch = node.to_vec();
        for t in 0..self.sp.threads {
            if let Some(i) = self.exec(&node, t, &mut scratch) {
                if self.is_goal(&scratch) {
                    moves.push((i, Box::default()));
                } else if !self.visited.contains(&scratch[..]) {
                    moves.push((i, scratch.as_slice().into()));
                }
                scratch.copy_from_slice(&node);
            }
            for &q in &self.sp.thread_queues[t] {
                if let Some(i) = self.flush(&node, q as usize, &mut scratch) {
                    if self.is_goal(&scratch) {
                        moves.push((i, Box::default()));
                    } else if !self.visited.contains(&scratch[..]) {
                        moves.push((i, scratch.as_slice().into()));
                    }
                    scratch.copy_from_slice(&node);
                }
            }
        }
        moves.sort_unstable_by_key(|&(i, _)| i);
        if let Some(&(i, _)) = moves.iter().find(|(_, c)| c.is_empty()) {
            self.path.push(i);
            return Some(true);
        }
        // Every move runs one more event, so the graph has no cycles: the node can be marked
        // visited once its children are known.
        self.visited.insert(node);
        for (i, child) in moves {
            if self.visited.contains(&child) || self.dead(&child) {
                continue;
            }
            self.path.push(i);
            match self.dfs(child)? {
                true => return Some(true),
                false => {
                    self.path.pop();
                }
            }
        }
        Some(false)
    }

    fn is_goal(&self, n: &[u64]) -> bool {
        let l = &self.lay;
        let counts = (0..self.sp.threads).all(|t| l.pos(n, t) >= self.need_pos[t])
            && (0..self.sp.queues.len()).all(|q| l.flushed(n, q) >= self.need_flushed[q]);
        match self.target {
            Target::Final { .. } => {
                counts && self.finals.iter().all(|&(c, v)| n[c as usize] as i64 == v)
            }
            _ => l.done(n) && counts,
        }
    }

    /// Whether nothing below `n` can answer the query (see the module doc).
    fn dead(&self, n: &[u64]) -> bool {
        let sp = self.sp;
        let tr = sp.tr;
        let l = &self.lay;
        if !l.done(n) {
            // The write (unlock) the target must follow ran and is no longer the last, or the
            // initial value (no unlock) is gone: writes never come back.
            let gone = |after: Option<EventId>, last: u32| match after {
                Some(a) => self.ran(n, a.index()) && last != a.index() as u32,
                None => last != NONE,
            };
            let dead = match *self.target {
                Target::Read { from, .. } => {
                    if tr.forwarded(from) {
                        // A forwarded read: its store must still be in the buffer.
                        let f = sp.flush_of[from.map_or(0, EventId::index)];
                        f != NONE && self.ran(n, f as usize)
                    } else {
                        gone(from, l.src(n))
                    }
                }
                Target::Lock { after, .. } => gone(after, l.unlock(n)),
                Target::Final { .. } => false,
            };
            if dead {
                return true;
            }
        }
        // A read that must still run needs a value its cell holds or a write left to run gives.
        for t in 0..sp.threads {
            let evs = &sp.thread_evs[t];
            let upto = self.need_pos[t] as usize;
            for &i in &evs[(l.pos(n, t) as usize).min(upto)..upto] {
                let i = i as usize;
                if self.tev == Some(i) {
                    continue;
                }
                let (cell, value) = match tr.events[i].kind {
                    EventKind::Load { cell, value } => {
                        let s = sp.own_store[i];
                        if s != NONE {
                            // Forwarding can still give it (the store is issued later or is in
                            // the buffer): leave it.
                            continue;
                        }
                        (cell, value)
                    }
                    EventKind::Rmw { cell, read, .. } => (cell, read),
                    _ => continue,
                };
                if n[cell as usize] as i64 == value {
                    continue;
                }
                // The target RMW writes its new value, not its trace one.
                let by_target = !l.done(n)
                    && cell == self.tcell
                    && self.twrite.is_some_and(|w| w == Some(value));
                let left = by_target
                    || sp.publishes[cell as usize].iter().any(|&(p, v)| {
                        v == value && self.tev != Some(p as usize) && !self.ran(n, p as usize)
                    });
                if !left {
                    return true;
                }
            }
        }
        false
    }
}
