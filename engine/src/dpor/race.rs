//! Races: vector clocks of the events of the current execution, and the backtrack points
//! that reverse each race they find.

use super::explore::Dpor;
use super::footprint::{dep_in_trace, Dep, Footprint};
use std::collections::BinaryHeap;

pub(super) fn join(a: &mut [u32], b: &[u32]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = (*x).max(*y);
    }
}

impl Dpor<'_, '_, '_> {
    /// A failed attempt of thread `t` to lock `m` at the end of the current trace: its races
    /// (with the `lock` that holds `m`) get their backtrack points as if it were an event,
    /// but it is not appended (the thread did not move).
    pub(super) fn lock_attempt(&mut self, t: usize, m: u32) {
        let f = Footprint {
            proc: t,
            thread: t,
            lock: Some(m),
            barrier: true,
            ..Footprint::default()
        };
        self.races(&f);
    }

    /// The vector clock of the event `f` about to be appended, adding a backtrack point for
    /// each race it completes.
    pub(super) fn races(&mut self, f: &Footprint) -> Vec<u32> {
        let n = self.trace.len();
        let p = f.proc;
        let prev = self.by_proc[p].last().copied();
        let mut c = match prev {
            Some(i) => self.trace[i].clock.clone(),
            None => vec![0; self.procs.count()],
        };
        let mut c_race = c.clone();
        let mut races = Vec::new();
        // A flush comes after the issue of its store (`Dep::Order`). A quiet issue depends on
        // nothing else, so it is joined here and left out of the candidates below; joining it
        // first changes nothing, since what it adds to the clocks is its past, which the loop
        // below would reach only after it.
        if let Some(&k) = f.flush_of.and_then(|w| self.issues.get(&w)) {
            let e = &self.trace[k];
            if e.fp.quiet() && e.fp.proc != p {
                join(&mut c, &e.clock);
                join(&mut c_race, &e.clock);
            }
        }
        // The earlier loud events of other processes from the newest back, but only those
        // not yet known to happen before the new event: an event `k` of process `q` with
        // `c_race[q] > k` is in `c_race`'s past, and so (clocks being joins of whole clocks)
        // is its own clock, in `c_race` and `c`; it could add neither a race nor anything to
        // either clock. Each process's candidates are its events from the newest back to
        // `c_race[q]`, merged newest first through a heap of each process's next candidate.
        let mut next: Vec<usize> = self.loud.iter().map(Vec::len).collect();
        let mut heap: BinaryHeap<(usize, usize)> = BinaryHeap::new();
        for (q, evs) in self.loud.iter().enumerate() {
            if q != p {
                if let Some(&k) = evs.last() {
                    heap.push((k, q));
                }
            }
        }
        while let Some((k, q)) = heap.pop() {
            if c_race[q] as usize > k {
                // This process's earlier events are known too.
                continue;
            }
            next[q] -= 1;
            if next[q] > 0 {
                heap.push((self.loud[q][next[q] - 1], q));
            }
            let e = &self.trace[k];
            let d = match dep_in_trace(&e.fp, f, &self.trace) {
                // A woken thread's step comes after the memory changes since it parked (one
                // of them woke it), not after earlier ones.
                Some(Dep::Wake) if prev.is_some_and(|i| k < i) => None,
                d => d,
            };
            match d {
                None => {}
                Some(Dep::Race) => {
                    if c_race[e.fp.proc] as usize <= k {
                        races.push(k);
                    }
                    join(&mut c, &e.clock);
                    join(&mut c_race, &e.clock);
                }
                Some(Dep::Order | Dep::Wake) => {
                    join(&mut c, &e.clock);
                    join(&mut c_race, &e.clock);
                }
                Some(Dep::Unlock) => join(&mut c, &e.clock),
            }
        }
        c[p] = n as u32 + 1;
        c_race[p] = n as u32 + 1;
        // The reversal is judged by what `f` depends on other than the unlocks before a
        // `lock`: in the reversed order `f` takes the mutex first, so it does not come after
        // the critical section it raced with, nor after what that section depended on.
        for k in races {
            self.reverse(k, p, &c_race);
        }
        c
    }

    /// The race between event `k` and the new event (process `p`, clock `cf`): schedules, at
    /// the node before `k`, a process that starts the reversed order.
    pub(super) fn reverse(&mut self, k: usize, p: usize, cf: &[u32]) {
        let n = self.trace.len();
        let pk = self.trace[k].fp.proc;
        // v: the events after k that do not happen after it, then the new event.
        let v: Vec<usize> = (k + 1..n)
            .filter(|&j| self.trace[j].clock[pk] as usize <= k)
            .collect();
        let mut seen = Vec::new();
        let mut initials = Vec::new();
        for (i, &j) in v.iter().enumerate() {
            let q = self.trace[j].fp.proc;
            if seen.contains(&q) {
                continue;
            }
            seen.push(q);
            let cj = &self.trace[j].clock;
            if v[..i]
                .iter()
                .all(|&h| cj[self.trace[h].fp.proc] as usize <= h)
            {
                initials.push(q);
            }
        }
        if !seen.contains(&p) && v.iter().all(|&h| cf[self.trace[h].fp.proc] as usize <= h) {
            initials.push(p);
        }
        let node = &mut self.nodes[k];
        let cands: Vec<usize> = initials.into_iter().filter(|&q| node.enabled(q)).collect();
        if cands.is_empty() || cands.iter().any(|q| node.backtrack.contains(q)) {
            return;
        }
        if let Some(&q) = cands.iter().find(|&&q| !node.asleep(q)) {
            node.backtrack.push(q);
        }
    }
}
