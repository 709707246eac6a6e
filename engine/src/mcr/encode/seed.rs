//! What a seed keeps of an answer: its causal cone, in canonical order.

use super::{Encoder, Target};
use crate::ids::EventId;
use crate::mcr::trace::EventKind;

impl<'t> Encoder<'t> {
    /// The smallest prefix the solved order `pos` needs for event `target`: the target and,
    /// transitively, the must-happen-before predecessors of every event in it, the write each
    /// read in it reads from (and the own flush that made a load read memory), and the earlier
    /// critical sections of each lock in it. Everything else can move after the target, so reads
    /// outside the prefix stay free for later seeds (the paper's "shortest seed interleaving",
    /// which MCR's completeness relies on).
    ///
    /// A `late` target also keeps the publishes it orders before its round: the replay must run
    /// the round after them, or the thread could be woken again.
    pub(super) fn cone(&self, target: &Target, keep: usize, pos: &[i64]) -> Vec<usize> {
        let tr = self.trace;
        let n = tr.events.len();
        let mut inc = vec![false; n];
        let mut work: Vec<usize> = (0..keep).collect();
        match *target {
            Target::Read {
                event, late: true, ..
            } => {
                work.push(event.index());
                let need = tr.late_needs(event, &self.rounds).1;
                work.extend(need.into_iter().map(EventId::index));
            }
            _ => work.extend(target.event().map(EventId::index)),
        }
        // The order the seed runs in: by position, ties by event index.
        let at = |e: usize| (pos[e], e);
        let latest_before = |cell: u32, before: usize| -> Option<usize> {
            self.publishes
                .get(cell as usize)?
                .iter()
                .filter(|&&(p, _)| p != before && at(p) < at(before))
                .max_by_key(|&&(p, _)| at(p))
                .map(|&(p, _)| p)
        };
        let sections = self.sections();
        while let Some(i) = work.pop() {
            if i >= n || inc[i] {
                continue;
            }
            inc[i] = true;
            work.extend(self.preds[i].iter().copied());
            if let Some((cell, _)) = tr.events[i].kind.read() {
                let mut from_mem = true;
                if let Some(s) = self.own_store[i] {
                    match self.flush_of[s] {
                        // Reading memory right after its own flush, the load reads the store it
                        // would be forwarded: the flush need not be in the seed.
                        Some(f) if at(f) < at(i) && latest_before(cell, i) != Some(f) => {
                            work.push(f)
                        }
                        _ => from_mem = false,
                    }
                }
                if from_mem {
                    work.extend(latest_before(cell, i));
                }
            }
            if let EventKind::Lock { mutex } = tr.events[i].kind {
                for &(m, l, u) in sections {
                    if m == mutex && l != i && at(l) < at(i) {
                        work.push(l);
                        work.extend(u);
                    }
                }
            }
        }
        let mut out: Vec<usize> = (0..n).filter(|&i| inc[i]).collect();
        out.sort_by_key(|&i| pos[i]);
        out
    }

    /// The seed prefix for a solved order given as event positions (`pos[i]`: where event `i`
    /// comes; the events of the prefix first): for an event target, its causal cone
    /// ([`Self::cone`]); for a final-value target, every event.
    pub fn seed_order(
        &self,
        target: &Target,
        keep: usize,
        pos: &[i64],
        bound: i64,
    ) -> Vec<EventId> {
        let keep = keep.min(self.trace.events.len());
        let seed = match target.event() {
            Some(_) => self.cone(target, keep, pos),
            None => {
                let mut all: Vec<usize> = (0..pos.len()).filter(|&i| pos[i] < bound).collect();
                all.sort_by_key(|&i| pos[i]);
                all
            }
        };
        let seed = if self.opts.canonical {
            self.canonical(&seed)
        } else {
            seed
        };
        seed.into_iter().map(EventId::new).collect()
    }

    /// Per event: a step of a thread whose code has an `await`, with the thread inside a round
    /// (or parked) right before it or right after it: the thread's next step is a load of a
    /// round ([`Trace::await_rounds`], which over-approximates rounds), or there is none (the
    /// thread may end parked); before its first step, whether it starts in a round. Between
    /// two steps of the thread neither of which is such a step, it is outside every round and
    /// not parked, and a write of another thread leaves its state as it is.
    pub(super) fn round_steps(&self) -> &[bool] {
        self.round_steps.get_or_init(|| {
            let tr = self.trace;
            let n = tr.events.len();
            let mut out = vec![false; n];
            let mut prev: Vec<Option<usize>> = vec![None; tr.threads];
            for (i, e) in tr.events.iter().enumerate() {
                let t = e.thread;
                if t >= tr.threads
                    || matches!(e.kind, EventKind::Flush { .. })
                    || !self.opts.await_threads.get(t).copied().unwrap_or(false)
                {
                    continue;
                }
                // Inside a round (or parked) between the thread's previous step and this one.
                let between = self.rounds[i].is_some()
                    || (prev[t].is_none() && tr.in_round_at_start.get(t).copied().unwrap_or(false));
                if let Some(p) = prev[t] {
                    out[p] |= between;
                }
                out[i] = between;
                prev[t] = Some(i);
            }
            // A thread's last step: it may end inside a round, or parked.
            for p in prev.into_iter().flatten() {
                out[p] = true;
            }
            out
        })
    }

    /// The seed `seed` (events in the solved order) in canonical order: every pair of
    /// dependent events as the solved order has them, and otherwise the trace's order (the
    /// earliest trace event whose dependences have run goes next). Two events are dependent
    /// when they are steps of one thread (its flushes included), access one cell and one of
    /// them writes memory (a flush, an RMW, a store under SC), or lock or unlock one mutex;
    /// and a step of a thread with an `await` that begins or ends inside a round
    /// ([`Self::round_steps`]) depends on every write of another thread to any cell (a write
    /// that changes a value wakes a parked thread and marks a round in progress as stale, so
    /// where it comes relative to such a step matters; this also keeps the order a `late`
    /// target puts publishes in before its round, whose first load is such a step). Outside
    /// rounds a write changes nothing of the thread's. Independent steps commute
    /// in the semantics, so the canonical order replays to the same state with every read
    /// reading the same write, and it satisfies the query as the solved order does; what Z3
    /// chose for the order of independent events does not decide the seed, nor the order of
    /// the trace it leads to.
    pub(super) fn canonical(&self, seed: &[usize]) -> Vec<usize> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let tr = self.trace;
        let m = seed.len();
        // What an event accesses besides its thread: a cell or a mutex, and whether it writes.
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        enum Key {
            Cell(u32),
            Mutex(u32),
            /// Every write (as readers) against the steps of `await` threads (as writers).
            Awaits,
        }
        let access = |e: usize| -> Option<(Key, bool)> {
            match tr.events[e].kind {
                EventKind::Load { cell, .. } => Some((Key::Cell(cell), false)),
                EventKind::Rmw { cell, .. } | EventKind::Flush { cell, .. } => {
                    Some((Key::Cell(cell), true))
                }
                EventKind::Store { cell, .. } if tr.rules().store_publishes() => {
                    Some((Key::Cell(cell), true))
                }
                EventKind::Lock { mutex } | EventKind::Unlock { mutex } => {
                    Some((Key::Mutex(mutex), true))
                }
                _ => None,
            }
        };
        // Edges from seed positions to later seed positions (enough of them that their
        // transitive closure orders every dependent pair).
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); m];
        let mut indeg = vec![0u32; m];
        let mut last_of_thread: rustc_hash::FxHashMap<usize, usize> = Default::default();
        // Per key: the last writer and the readers since.
        let mut last: rustc_hash::FxHashMap<Key, (Option<usize>, Vec<usize>)> = Default::default();
        let mut edge = |a: usize, b: usize| {
            succ[a].push(b);
            indeg[b] += 1;
        };
        let round_steps = self.round_steps();
        for (k, &e) in seed.iter().enumerate() {
            if let Some(prev) = last_of_thread.insert(tr.events[e].thread, k) {
                edge(prev, k);
            }
            let acc = access(e);
            let awaits = if round_steps[e] {
                Some((Key::Awaits, true))
            } else {
                matches!(acc, Some((Key::Cell(_), true))).then_some((Key::Awaits, false))
            };
            for (key, writes) in acc.into_iter().chain(awaits) {
                let (w, readers) = last.entry(key).or_default();
                if let Some(w) = *w {
                    edge(w, k);
                }
                if writes {
                    for r in readers.drain(..) {
                        edge(r, k);
                    }
                    *w = Some(k);
                } else {
                    readers.push(k);
                }
            }
        }
        let mut ready: BinaryHeap<Reverse<(usize, usize)>> = (0..m)
            .filter(|&k| indeg[k] == 0)
            .map(|k| Reverse((seed[k], k)))
            .collect();
        let mut out = Vec::with_capacity(m);
        while let Some(Reverse((e, k))) = ready.pop() {
            out.push(e);
            for &j in &succ[k] {
                indeg[j] -= 1;
                if indeg[j] == 0 {
                    ready.push(Reverse((seed[j], j)));
                }
            }
        }
        debug_assert_eq!(out.len(), m);
        out
    }
}
