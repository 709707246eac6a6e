//! Races: vector clocks of the events of the current execution, and the backtrack points
//! that reverse each race they find.

use super::explore::Dpor;
use super::footprint::{dep_in_trace, Dep, Footprint};

pub(super) fn join(a: &mut [u32], b: &[u32]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = (*x).max(*y);
    }
}

impl Dpor<'_, '_, '_> {
    /// The vector clock of the event `f` about to be appended, adding a backtrack point for
    /// each race it completes.
    pub(super) fn races(&mut self, f: &Footprint) -> Vec<u32> {
        let n = self.trace.len();
        let p = f.proc;
        let prev = self.trace.iter().rposition(|e| e.fp.proc == p);
        let mut c = match prev {
            Some(i) => self.trace[i].clock.clone(),
            None => vec![0; self.procs.count()],
        };
        let mut c_race = c.clone();
        let mut races = Vec::new();
        for k in (0..n).rev() {
            let e = &self.trace[k];
            if e.fp.proc == p {
                continue;
            }
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
        for k in races {
            self.reverse(k, p, &c);
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
