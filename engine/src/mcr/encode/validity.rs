//! Data validity: a read in the prefix returns the value it returned in the trace (Φ_value,
//! with store forwarding), and the source a read target takes its new value from.

use super::query::lt;
use super::Encoder;
use crate::ids::EventId;
use crate::mcr::trace::EventKind;
use z3::ast::{Bool, Int};

/// Which data validity a Z3 query keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Validity {
    /// MCR's: every read of the prefix. With dependences, MCR-S+: the reads of
    /// [`Encoder::closure`], then those of the seed the model got wrong; an answer keeps every
    /// read of its seed valid either way.
    Mcr,
    /// Benchmark only: none at all (the ceiling of what pruning validity can save).
    Bare,
    /// Benchmark only: every read of the prefix even with dependences (MCR on the same
    /// queries).
    All,
    /// Benchmark only: the paper's Algorithm 3 taken literally: the closure, with existence
    /// constraints only for the target, its source, the reads kept and their candidate
    /// sources, and nothing added after (answers may break seed reads, which loses states
    /// here, see `docs/design/sdg.md`).
    Literal,
    /// Benchmark only: the static closure (what [`Encoder::closure`] keeps in the incremental
    /// solver, see `docs/design/sdg.md`): existence constraints for every event that can be in
    /// the seed ([`Encoder::may_cone`]) and the value dependences of candidate sources,
    /// transitively, all up front, and nothing added after.
    Cone,
}

impl<'t> Encoder<'t> {
    /// Asserts, at the solver's base level, the guarded validity of those of `reads` that do
    /// not have it yet: `g_i → (o_i ≤ T → read i gets its trace value)`. Per query
    /// ([`Self::per_query`]), without the guard, in the query's scope (see `solve_z3_with`).
    pub(super) fn assert_validity(&mut self, reads: &[usize]) {
        let tr = self.trace;
        for &i in reads {
            if self.vars().guards[i].is_some() {
                continue;
            }
            let Some((cell, value)) = tr.events[i].kind.read() else {
                continue;
            };
            let v = self.value_is(i, cell, value);
            let c = self.o(i).le(self.bound()).implies(&v);
            if self.opts.per_query {
                // A query's own validity, gone with its scope: no guard to switch, and no
                // record needed (a query never asserts a read's validity twice).
                self.assert(&c);
                continue;
            }
            let g = Bool::new_const(format!("g{i}"));
            self.assert(&g.implies(&c));
            if let Some(z) = self.z3.as_mut() {
                z.guards[i] = Some(g);
            }
        }
    }

    /// `reader` reads `value` of `cell` from memory (the newest publish ordered before it, or
    /// the initial value). `skip` is the reader itself when it also publishes (an RMW).
    pub(super) fn mem_is(&self, reader: &Int, cell: u32, value: i64, skip: Option<usize>) -> Bool {
        self.mem_is_with(reader, cell, value, skip, None)
    }

    /// [`Self::mem_is`] with the publish of one RMW replaced: `over = (rmw, write)` makes that
    /// RMW write `write` instead of its trace value, or nothing with `None` (an RMW target that
    /// reads a new value, see [`Self::solve`]).
    pub(super) fn mem_is_with(
        &self,
        reader: &Int,
        cell: u32,
        value: i64,
        skip: Option<usize>,
        over: Option<(usize, Option<i64>)>,
    ) -> Bool {
        let mut pubs: Vec<(usize, i64)> = self
            .publishes
            .get(cell as usize)
            .map(|p| {
                p.iter()
                    .copied()
                    .filter(|&(p, _)| Some(p) != skip)
                    .collect()
            })
            .unwrap_or_default();
        if let Some((r, w)) = over {
            // The RMW may not have written in the trace (a failed `cas`), so add it as well.
            pubs.retain(|&(p, _)| p != r);
            let same_cell = matches!(self.trace.events.get(r).map(|e| &e.kind), Some(EventKind::Rmw { cell: c, .. }) if *c == cell);
            if let Some(w) = w.filter(|_| same_cell && Some(r) != skip) {
                pubs.push((r, w));
            }
        }
        let mut alts = Vec::new();
        for &(p, v) in &pubs {
            if v != value {
                continue;
            }
            let mut conj = vec![lt(self.o(p), reader)];
            for &(q, _) in &pubs {
                if q != p {
                    conj.push(Bool::or(&[lt(self.o(q), self.o(p)), lt(reader, self.o(q))]));
                }
            }
            alts.push(Bool::and(&conj));
        }
        if self.trace.init.get(cell as usize) == Some(&value) {
            let conj: Vec<Bool> = pubs.iter().map(|&(q, _)| lt(reader, self.o(q))).collect();
            alts.push(Bool::and(&conj));
        }
        Bool::or(&alts)
    }

    /// The read at event `i` returns `value` (Φ_value, with store forwarding).
    pub(super) fn value_is(&self, i: usize, cell: u32, value: i64) -> Bool {
        self.value_is_with(i, cell, value, None)
    }

    /// [`Self::value_is`] with one RMW's publish replaced (see [`Self::mem_is_with`]).
    pub(super) fn value_is_with(
        &self,
        i: usize,
        cell: u32,
        value: i64,
        over: Option<(usize, Option<i64>)>,
    ) -> Bool {
        let skip = matches!(self.trace.events[i].kind, EventKind::Rmw { .. }).then_some(i);
        let mem = self.mem_is_with(self.o(i), cell, value, skip, over);
        match self.own_store[i] {
            None => mem,
            Some(s) => {
                let sv = match self.trace.events[s].kind {
                    EventKind::Store { value, .. } => value,
                    _ => return mem,
                };
                let fwd = Bool::from_bool(sv == value);
                match self.flush_of[s] {
                    // Never flushed in this trace: the load always finds it in the buffer.
                    None => fwd,
                    Some(f) => Bool::or(&[
                        Bool::and(&[lt(self.o(i), self.o(f)), fwd]),
                        Bool::and(&[lt(self.o(f), self.o(i)), mem]),
                    ]),
                }
            }
        }
    }

    /// The read at event `i` of `cell` takes its value from `from` (see [`Target::Read`]).
    pub(super) fn reads_from(&self, i: usize, cell: u32, from: Option<usize>) -> Bool {
        let tr = self.trace;
        let me = self.o(i);
        let pubs: Vec<usize> = self
            .publishes
            .get(cell as usize)
            .map(|p| p.iter().map(|&(p, _)| p).filter(|&p| p != i).collect())
            .unwrap_or_default();
        // Reading memory needs the own newest store to the cell (if any) flushed before.
        let from_memory = || -> Bool {
            match self.own_store[i].and_then(|s| self.flush_of[s]) {
                Some(f) => lt(self.o(f), me),
                None if self.own_store[i].is_some() => Bool::from_bool(false),
                None => Bool::from_bool(true),
            }
        };
        match from {
            Some(s) if tr.forwarded(Some(EventId::new(s))) => {
                // Forwarded from the own buffer: the store is not flushed yet.
                match self.flush_of[s] {
                    Some(f) => lt(me, self.o(f)),
                    None => Bool::from_bool(true),
                }
            }
            Some(p) => {
                let mut conj = vec![from_memory(), lt(self.o(p), me)];
                for &q in pubs.iter().filter(|&&q| q != p) {
                    conj.push(Bool::or(&[lt(self.o(q), self.o(p)), lt(me, self.o(q))]));
                }
                Bool::and(&conj)
            }
            None => {
                let mut conj = vec![from_memory()];
                conj.extend(pubs.iter().map(|&q| lt(me, self.o(q))));
                Bool::and(&conj)
            }
        }
    }

    /// The write read `i` reads in the trace: its own buffered store, or the latest publish
    /// of its cell before it (`None`: the initial value).
    pub(super) fn trace_source(&self, i: usize) -> Option<usize> {
        let tr = self.trace;
        let (cell, _) = tr.events.get(i)?.kind.read()?;
        if let Some(s) = self.own_store[i] {
            if self.flush_of[s].is_none_or(|f| f > i) {
                return Some(s);
            }
        }
        self.publishes
            .get(cell as usize)?
            .iter()
            .map(|&(q, _)| q)
            .filter(|&q| q < i)
            .max()
    }

    /// Whether read `i` gets its trace value in the order `pos` (store forwarding, else the
    /// newest publish before it; `over` replaces an RMW target's publish, see
    /// [`Self::mem_is_with`]).
    pub(super) fn reads_its_value(
        &self,
        i: usize,
        pos: &[i64],
        over: Option<(usize, Option<i64>)>,
    ) -> bool {
        let tr = self.trace;
        let Some((cell, value)) = tr.events.get(i).and_then(|e| e.kind.read()) else {
            return true;
        };
        // The order the seed runs: by position, ties by event index (see `assert_base`).
        let at = |e: usize| (pos[e], e);
        if let Some(s) = self.own_store[i] {
            let forwarded = match self.flush_of[s] {
                None => true,
                Some(f) => at(f) > at(i),
            };
            if forwarded {
                return matches!(tr.events[s].kind, EventKind::Store { value: v, .. } if v == value);
            }
        }
        let mut pubs: Vec<(usize, Option<i64>)> =
            self.publishes.get(cell as usize).map_or(Vec::new(), |p| {
                p.iter().map(|&(q, v)| (q, Some(v))).collect()
            });
        if let Some((r, w)) = over {
            // An RMW target that writes another value (or nothing) in place of its trace write.
            pubs.retain(|&(q, _)| q != r);
            let same_cell = matches!(tr.events.get(r).map(|e| &e.kind), Some(EventKind::Rmw { cell: c, .. }) if *c == cell);
            if same_cell && w.is_some() {
                pubs.push((r, w));
            }
        }
        let latest = pubs
            .iter()
            .filter(|&&(q, _)| q != i && at(q) < at(i))
            .max_by_key(|&&(q, _)| at(q));
        match latest {
            None => tr.init.get(cell as usize) == Some(&value),
            Some(&(_, v)) => v == Some(value),
        }
    }
}
