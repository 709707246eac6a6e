//! MCR-S+ ([Huang and Huang 2017](docs/papers.md#huang-huang-2017) §5, Algorithm 3): the
//! reads a query must keep valid from the start, by the dependences of the trace's events
//! ([`crate::sdg`]); and where a read target's thread leaves the prefix.

use super::{Encoder, Target, Validity};
use crate::ids::EventId;
use crate::mcr::trace::EventKind;
use crate::sdg::{self, TraceDeps};

impl<'t> Encoder<'t> {
    /// The dependences, when MCR-S+ is on.
    pub(super) fn pruning(&self) -> Option<&TraceDeps> {
        self.deps.as_ref().filter(|_| self.opts.prune)
    }

    /// The first step of read `r`'s thread after `r` (not a flush) that may go otherwise
    /// when `r` reads another value: one whose existence (control dependences, address) or
    /// written value depends on it, or that comes after a condition depending on it (a branch
    /// whose other side has steps of its own, an `assume`, an `await` check: the thread may
    /// take another path to it). With a new value for `r`, that step and the thread's later
    /// ones stay out of the prefix; the steps between stay as in the trace, with their values
    /// (an `unlock` right after the read, which a committed critical section of another
    /// thread may need). Without dependences: the next step. Computed once
    /// per trace: the Z3 encoding, the pre-check and the causal search all ask for it.
    pub fn stop_after(&self, r: usize) -> Option<usize> {
        let stops = self.stops.get_or_init(|| {
            let tr = self.trace;
            let n = tr.events.len();
            let step = |j: usize| !matches!(tr.events[j].kind, EventKind::Flush { .. });
            (0..n)
                .map(|r| {
                    tr.events[r].kind.read()?;
                    let t = tr.events[r].thread;
                    let depends = |j: usize| {
                        let Some(deps) = &self.deps else { return true };
                        let bit = |s: Option<&Vec<u64>>| s.is_none_or(|s| sdg::has(s, r));
                        bit(deps.exist.get(j)) || bit(deps.value.get(j)) || bit(deps.path.get(j))
                    };
                    (r + 1..n).find(|&j| tr.events[j].thread == t && step(j) && depends(j))
                })
                .collect()
        });
        stops.get(r).copied().flatten()
    }

    /// Whether read `i` is among those a Z3 query constrains to begin with (see
    /// [`Self::closure`]).
    pub(super) fn is_constrained(&self, i: usize) -> bool {
        self.constrained
            .as_ref()
            .is_none_or(|c| c.get(i).copied().unwrap_or(true))
    }

    /// MCR-S+ ([Huang and Huang 2017](docs/papers.md#huang-huang-2017) §4-5): the reads a Z3 query constrains to begin
    /// with. Without dependences every read in the prefix keeps its value. With them, for an
    /// event target, every read before it in its thread (Algorithm 3's no-redundancy rule: the
    /// read given a new value keeps all earlier reads, so it takes exactly the sources MCR
    /// would give it), and the reads its new value is computed from (what the target writes,
    /// for an RMW, and what its source's value depends on, with the source's own read for an
    /// RMW); `None` (every read) for a final-value target. Then, in litmus's incremental solver,
    /// also the static closure ([`Validity::Cone`]): the reads any event that can be in the
    /// seed ([`Self::may_cone`]) depends on for its existence (control dependences, array
    /// indices), and, transitively, the reads the value of a candidate source of a kept read
    /// depends on (a write that must come after the read or after the target is no
    /// candidate). Per query ([`Self::per_query`], which sets [`Self::lazy_existence`]) only
    /// the first part: every validity constraint is then built and paid again on each query,
    /// and checking the model costs Z3 less than the static closure; in the incremental
    /// solver validity is asserted once per trace and kept, and solving again costs more
    /// (`docs/bench-sdg.md`). Either way `solve_z3` adds any read of the seed that the model
    /// gets wrong and solves again, so every answer keeps every read of its seed valid, as
    /// MCR's does.
    ///
    /// [`Validity::Literal`], a benchmark's comparison: the paper's Algorithm 3 as written:
    /// existence constraints only for the target, its source, the reads kept and their
    /// candidate sources (every write of the value).
    pub(super) fn closure(
        &self,
        target: &Target,
        keep: usize,
        validity: Validity,
    ) -> Option<Vec<bool>> {
        let literal = validity == Validity::Literal;
        let deps = self.pruning()?;
        let tr = self.trace;
        let n = tr.events.len();
        let te = target.event()?.index();
        let tt = tr.events.get(te)?.thread;
        let mut c = vec![false; n];
        let mut work: Vec<usize> = Vec::new();
        let is_read = |i: usize| tr.events[i].kind.read().is_some();
        work.extend((0..te).filter(|&i| {
            tr.events[i].thread == tt
                && !matches!(tr.events[i].kind, EventKind::Flush { .. })
                && is_read(i)
        }));
        // What the target writes (an RMW with its new value) and where its value comes from.
        work.extend(sdg::members(deps.value.get(te)?, n));
        if let Target::Read { from: Some(f), .. } = *target {
            let f = f.index();
            work.extend(self.value_deps(f, deps));
            if literal {
                work.extend(sdg::members(deps.exist.get(self.writer(f)?)?, n));
            }
        }
        if validity == Validity::Mcr && self.opts.lazy_existence {
            for r in work.into_iter().filter(|&r| r < n) {
                c[r] = true;
            }
            return Some(c);
        }
        // Existence: every event that can be in the seed (literally: the target only).
        let exist: Vec<bool> = if literal {
            (0..n).map(|e| e == te).collect()
        } else {
            self.may_cone(target, keep)
        };
        for e in (0..n).filter(|&e| exist[e]) {
            work.extend(sdg::members(deps.exist.get(e)?, n));
        }
        // Transitively, what the candidate sources of the kept reads write (literally: every
        // write of the value, and what it and each kept read exist by).
        while let Some(r) = work.pop() {
            if r >= n || c[r] {
                continue;
            }
            c[r] = true;
            if literal {
                work.extend(sdg::members(deps.exist.get(r)?, n));
            }
            for w in self.candidate_sources(r, (!literal).then_some(te)) {
                work.extend(self.value_deps(w, deps));
                if literal {
                    work.extend(sdg::members(deps.exist.get(self.writer(w)?)?, n));
                }
            }
        }
        Some(c)
    }

    /// The writes read `r` can take its trace value from: the publishes of that value to its
    /// cell and its own buffered store if it wrote the value. With the target event `te`, only
    /// those that can be its source in the seed of an answer: not a write that `r` must happen
    /// before, nor one the target must (every event of the seed comes before the target).
    pub(super) fn candidate_sources(&self, r: usize, te: Option<usize>) -> Vec<usize> {
        let tr = self.trace;
        let Some((cell, value)) = tr.events.get(r).and_then(|e| e.kind.read()) else {
            return Vec::new();
        };
        let possible =
            |q: usize| te.is_none_or(|te| !self.must_precede(r, q) && !self.must_precede(te, q));
        let mut out: Vec<usize> = self
            .publishes
            .get(cell as usize)
            .map(|p| {
                p.iter()
                    .filter(|&&(q, v)| q != r && v == value && possible(q))
                    .map(|&(q, _)| q)
                    .collect()
            })
            .unwrap_or_default();
        if let Some(s) = self.own_store[r] {
            if matches!(tr.events[s].kind, EventKind::Store { value: v, .. } if v == value) {
                out.push(s);
            }
        }
        out
    }

    /// The events that can be in the seed of an answer to `target` (a superset of every
    /// [`Self::cone`] whose reads keep their trace values): the target and the committed
    /// prefix, and transitively their must-happen-before predecessors, the candidate sources
    /// of their reads (the target's: its `from`), the own flush a load may read memory after,
    /// and the critical sections of their locks' mutexes. The target thread's steps after the
    /// target and pending locks other than the target are after the bound, so never in it.
    pub(super) fn may_cone(&self, target: &Target, keep: usize) -> Vec<bool> {
        let tr = self.trace;
        let n = tr.events.len();
        let mut inc = vec![false; n];
        let Some(te) = target.event().map(EventId::index) else {
            return vec![true; n];
        };
        let tt = tr.events[te].thread;
        // A read target's thread stops at its first step that depends on the new value; a
        // lock target's goes on as in the trace.
        let stop = match *target {
            Target::Read { event, .. } => self.stop_after(event.index()),
            _ => Some(te + 1),
        };
        let mut work: Vec<usize> = (0..keep.min(n)).collect();
        work.push(te);
        if let Target::Read {
            event, late: true, ..
        } = *target
        {
            work.extend(
                tr.late_needs(event, &self.rounds)
                    .1
                    .into_iter()
                    .map(EventId::index),
            );
        }
        if let Target::Read { from: Some(f), .. } = *target {
            work.push(f.index());
        }
        let sections = self.sections();
        while let Some(i) = work.pop() {
            if i >= n || inc[i] {
                continue;
            }
            let ev = &tr.events[i];
            if (ev.thread == tt
                && stop.is_some_and(|s| i >= s)
                && !matches!(ev.kind, EventKind::Flush { .. }))
                || (ev.pending && i != te)
            {
                continue;
            }
            inc[i] = true;
            work.extend(self.preds[i].iter().copied());
            if ev.kind.read().is_some() {
                if let Some(s) = self.own_store[i] {
                    work.extend(self.flush_of[s]);
                }
                if i != te {
                    work.extend(self.candidate_sources(i, Some(te)));
                }
            }
            if let EventKind::Lock { mutex } = ev.kind {
                for &(m, l, u) in sections {
                    if m == mutex {
                        work.push(l);
                        work.extend(u);
                    }
                }
            }
        }
        inc
    }

    /// The reads the value written by publish (or store) `w` depends on: its store's operands,
    /// and for an RMW its operands and its own read.
    pub(super) fn value_deps(&self, w: usize, deps: &TraceDeps) -> Vec<usize> {
        let tr = self.trace;
        let n = tr.events.len();
        let Some(e) = tr.events.get(w) else {
            return Vec::new();
        };
        let mut out: Vec<usize> = self
            .writer(w)
            .and_then(|s| deps.value.get(s))
            .map(|s| sdg::members(s, n).collect())
            .unwrap_or_default();
        if matches!(e.kind, EventKind::Rmw { .. }) {
            out.push(w);
        }
        out
    }

    /// The instruction that writes publish `w`: the store a flush drains, else `w` itself
    /// (`None`: a flush whose store is not in the trace).
    pub(super) fn writer(&self, w: usize) -> Option<usize> {
        match self.trace.events.get(w).map(|e| &e.kind) {
            Some(EventKind::Flush { store, .. }) => store.map(EventId::index),
            _ => Some(w),
        }
    }

    /// Match terms of read `i`'s validity: one per candidate source and other write of its cell
    /// (the paper's count of constraints).
    pub(super) fn match_terms_of(&self, i: usize) -> u64 {
        let tr = self.trace;
        let Some((cell, value)) = tr.events.get(i).and_then(|e| e.kind.read()) else {
            return 0;
        };
        let pubs = self
            .publishes
            .get(cell as usize)
            .map_or(&[][..], |p| p.as_slice());
        let cands = pubs.iter().filter(|&&(q, v)| q != i && v == value).count() as u64
            + u64::from(tr.init.get(cell as usize) == Some(&value))
            + u64::from(self.own_store[i].is_some());
        cands * (pubs.len() as u64).max(1)
    }
}
