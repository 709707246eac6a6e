//! A query in Z3: the target's goal pushed on the trace's base, the validity the query keeps,
//! and (MCR-S+) the reads the model got wrong added until none is.

use super::{Answer, Encoder, Precheck, Target, Validity};
use crate::mcr::trace::EventKind;
use z3::ast::{Bool, Int};
use z3::{Params, SatResult, Solver};

/// What an [`Encoder`]'s Z3 queries counted.
#[derive(Clone, Copy, Debug, Default)]
pub struct Z3Counts {
    /// Z3 solver calls (a query solved again after adding constraints counts again).
    pub queries: u64,
    /// Reads whose validity a query kept, summed over queries (a query solved again counts
    /// each of its reads once: their constraints are built once, the added ones on top).
    pub reads_constrained: u64,
    /// Match terms of that validity (see [`Encoder::match_terms_of`]), summed likewise.
    pub match_terms: u64,
    /// Queries solved again because the model broke a read left unconstrained (MCR-S+).
    pub refinements: u64,
    /// Z3's work on queries, in its own resource units (see [`Encoder::rlimit`]).
    pub work: u64,
    /// Time in [`Encoder::solve_z3`]: building the query's formula, checking it, reading the
    /// model.
    pub ms: f64,
    /// Of `ms`: time inside Z3's satisfiability checks.
    pub check_ms: f64,
    /// Time computing which reads a query constrains and checking the model's reads (MCR-S+).
    pub lazy_ms: f64,
}

/// The Z3 side of an [`Encoder`]: the solver holding the trace's base constraints, one integer
/// order variable per event, the prefix bound `T`, and the validity guard of each read.
pub(super) struct Z3Vars {
    pub(super) solver: Solver,
    pub(super) ord: Vec<Int>,
    pub(super) bound: Int,
    /// Per event: the guard of its validity, once asserted (reads only).
    pub(super) guards: Vec<Option<Bool>>,
}

pub(super) fn lt(a: &Int, b: &Int) -> Bool {
    a.lt(b)
}

impl<'t> Encoder<'t> {
    /// The static pre-check ([`super::prefilter`]): `Impossible` when it proves the query
    /// unsatisfiable (counted in `skipped`), else what it derived.
    pub fn precheck(&mut self, target: &Target, keep: usize) -> Precheck {
        let keep = keep.min(self.trace.events.len());
        let answer = self.precheck_orders(target, keep);
        if matches!(answer, Precheck::Impossible) {
            self.skipped += 1;
        }
        answer
    }

    /// Solves one query with Z3 (no pre-check). `timeout_ms` bounds the solver call.
    ///
    /// `keep` are the first events of the trace (the seed prefix it was replayed from): the
    /// new prefix keeps them, so their reads keep their values (the paper's "the prefix of each
    /// newly explored interleaving is always preserved").
    pub fn solve_z3(&mut self, target: &Target, keep: usize, timeout_ms: Option<u32>) -> Answer {
        if !self.opts.z3_allowed {
            self.z3_wanted = true;
            return Answer::Unknown;
        }
        let t0 = std::time::Instant::now();
        let answer = self.solve_z3_with(target, keep, timeout_ms, Validity::Mcr);
        self.counts.ms += t0.elapsed().as_secs_f64() * 1000.0;
        answer
    }

    /// [`Self::solve_z3`] with the data validity `validity` (MCR's, or a benchmark's
    /// comparison).
    pub(super) fn solve_z3_with(
        &mut self,
        target: &Target,
        keep: usize,
        timeout_ms: Option<u32>,
        validity: Validity,
    ) -> Answer {
        self.ensure_base(validity);
        let work0 = self.rlimit();
        let tr = self.trace;
        let keep = keep.min(tr.events.len());
        let mut goal: Vec<Bool> = Vec::new();
        // Reads whose base validity is left out (the target, and reads re-encoded here).
        let mut relaxed: Vec<usize> = Vec::new();
        // An RMW target that writes another value than in the trace (see below).
        let mut over: Option<(usize, Option<i64>)> = None;
        if target.event().is_some() {
            // The committed prefix stays in the prefix (in any order), with its values.
            for k in 0..keep {
                goal.push(self.o(k).le(self.bound()));
            }
        }
        // Pending locks stay out of the prefix unless one is the target.
        for (j, e) in tr.events.iter().enumerate() {
            if e.pending && target.event() != Some(j) {
                goal.push(lt(self.bound(), self.o(j)));
            }
        }
        match *target {
            Target::Read {
                event,
                value,
                from,
                late,
            } => {
                let Some((cell, _)) = tr.events.get(event).and_then(|e| e.kind.read()) else {
                    return Answer::Unsat;
                };
                if late {
                    let (first, need) = tr.late_needs(event, &self.rounds);
                    for p in need {
                        goal.push(lt(self.o(p), self.o(first)));
                    }
                }
                goal.push(self.o(event).le(self.bound()));
                goal.push(self.value_is(event, cell, value));
                goal.push(self.reads_from(event, cell, from));
                // With a new value the target's thread may go elsewhere: from its first later
                // step that depends on the value, its steps are not part of the prefix.
                if let Some(stop) = self.stop_after(event) {
                    goal.push(lt(self.bound(), self.o(stop)));
                }
                // An RMW reading a new value may write something else (or nothing). Its operands
                // are fixed (they come from registers, which the prefix's reads fix), so what it
                // writes is known: the same as in the trace (a `cas` failing again, an `xchg`),
                // and then the trace's publish stays exact; or a different value (or none), and
                // then the reads of its cell are re-encoded with the RMW writing that (their
                // base validity, which has the trace's publish, is left out of the assumptions).
                // Forbidding every later read of the cell in the prefix instead loses states:
                // a `cas` failing on a new value with another thread's RMW after it reading what
                // was there before (`mcr_litmus::an_rmw_*`).
                let rmw = match tr.events[event].kind {
                    EventKind::Rmw { write, op, .. } => Some(op.map(|f| (f.write(value), write))),
                    _ => None,
                };
                if let Some(Some((new, old))) = rmw {
                    if new != old {
                        over = Some((event, new));
                        for (j, e) in tr.events.iter().enumerate() {
                            if j == event {
                                continue;
                            }
                            if let Some((c, v)) = e.kind.read().filter(|&(c, _)| c == cell) {
                                let valid = self.value_is_with(j, c, v, Some((event, new)));
                                goal.push(self.o(j).le(self.bound()).implies(&valid));
                                relaxed.push(j);
                            }
                        }
                    }
                } else if rmw.is_some() {
                    // The write function is unknown: no read of its cell in the prefix may come
                    // after it unless a later write intervenes.
                    let r = self.o(event);
                    let others: Vec<usize> = self
                        .publishes
                        .get(cell as usize)
                        .map(|p| p.iter().map(|&(p, _)| p).filter(|&p| p != event).collect())
                        .unwrap_or_default();
                    for (j, e) in tr.events.iter().enumerate() {
                        if j == event {
                            continue;
                        }
                        if e.kind.read().is_none_or(|(c, _)| c != cell) {
                            continue;
                        }
                        // A later read of the cell must read a later write.
                        let mut alts = vec![lt(self.o(j), r), lt(self.bound(), self.o(j))];
                        for &q in &others {
                            alts.push(Bool::and(&[lt(r, self.o(q)), lt(self.o(q), self.o(j))]));
                        }
                        goal.push(Bool::or(&alts));
                    }
                }
            }
            Target::Lock { event, after } => {
                let EventKind::Lock { mutex } = tr.events[event].kind else {
                    return Answer::Unsat;
                };
                let l = self.o(event);
                goal.push(l.le(self.bound()));
                let unlocks = tr
                    .events
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.kind == EventKind::Unlock { mutex })
                    .map(|(j, _)| j);
                match after {
                    None => goal.extend(unlocks.map(|u| lt(l, self.o(u)))),
                    Some(a) => {
                        goal.push(lt(self.o(a), l));
                        for u in unlocks.filter(|&u| u != a) {
                            goal.push(Bool::or(&[lt(self.o(u), self.o(a)), lt(l, self.o(u))]));
                        }
                    }
                }
            }
            Target::Final { cell, value } => {
                for o in &self.vars().ord {
                    goal.push(lt(o, self.bound()));
                }
                // The final values are read by an observer after every thread, one cell after
                // the other: earlier cells keep the value this trace gave them.
                for (c, pubs) in self.publishes.iter().enumerate().take(cell as usize) {
                    let cur = pubs.last().map(|&(_, v)| v).unwrap_or(tr.init[c]);
                    goal.push(self.mem_is(self.bound(), c as u32, cur, None));
                }
                goal.push(self.mem_is(self.bound(), cell, value, None));
            }
        }
        if let Target::Read { event, .. } = *target {
            relaxed.push(event);
        }
        #[cfg(test)]
        for &(a, b) in &self.forced {
            goal.push(lt(self.o(a), self.o(b)));
        }
        // Validity in force for this query. Without dependences (MCR), every read's, asserted
        // once in the base behind a guard: the assumptions switch on all but the relaxed ones.
        // With them (MCR-S+), only the reads the query must constrain to begin with
        // ([`Self::closure`]); a read the model then gets wrong is added and the query solved
        // again, so every answer keeps every read in the prefix valid, as MCR's does.
        let closed = self.pruning().is_some()
            && matches!(validity, Validity::Mcr | Validity::Literal | Validity::Cone);
        let lazy = closed && validity == Validity::Mcr;
        if closed {
            let t0 = std::time::Instant::now();
            self.constrained = self.closure(target, keep, validity);
            self.counts.lazy_ms += t0.elapsed().as_secs_f64() * 1000.0;
        }
        let mut valid: Vec<usize> = (0..tr.events.len())
            .filter(|&i| {
                validity != Validity::Bare
                    && tr.events[i].kind.read().is_some()
                    && !relaxed.contains(&i)
                    && (!closed || self.is_constrained(i))
            })
            .collect();
        // Per query ([`Self::per_query`]), the query's formula is the trace's base and, in a
        // scope of its own, the validity it keeps (without guards) and its goal; a read added
        // by the lazy check below is asserted in place, the goal kept and what Z3 learnt with
        // it. (A new solver per query, the base built again each time, took 1.7 times as long
        // on the set of `docs/bench-sdg.md` with the graph, 1.3 times without.) In the
        // incremental solver, validity goes into the base, behind guards, and only the goal
        // into the scope.
        let per_query = self.opts.per_query;
        if per_query {
            self.vars().solver.push();
        }
        self.assert_validity(&valid);
        if let Some(ms) = timeout_ms {
            let mut p = Params::new();
            p.set_u32("timeout", ms.max(1));
            self.vars().solver.set_params(&p);
        }
        if !per_query {
            self.vars().solver.push();
        }
        for g in &goal {
            self.assert(g);
        }
        let answer = loop {
            self.counts.queries += 1;
            let t0 = std::time::Instant::now();
            let sat = if per_query {
                self.vars().solver.check()
            } else {
                // A read not kept valid has its guard assumed false: its validity is then off
                // for good, rather than a choice left to the solver.
                let mut on = vec![false; tr.events.len()];
                for &i in &valid {
                    on[i] = true;
                }
                let assumptions: Vec<Bool> = self
                    .vars()
                    .guards
                    .iter()
                    .zip(&on)
                    .filter_map(|(g, &on)| g.as_ref().map(|g| if on { g.clone() } else { g.not() }))
                    .collect();
                self.vars().solver.check_assumptions(&assumptions)
            };
            self.counts.check_ms += t0.elapsed().as_secs_f64() * 1000.0;
            let solver = &self.vars().solver;
            let (pos, t) = match sat {
                SatResult::Unsat => break Answer::Unsat,
                SatResult::Unknown => break Answer::Unknown,
                SatResult::Sat => {
                    let Some(m) = solver.get_model() else {
                        break Answer::Unknown;
                    };
                    let pos: Option<Vec<i64>> = self
                        .vars()
                        .ord
                        .iter()
                        .map(|o| m.eval(o, true).and_then(|v| v.as_i64()))
                        .collect();
                    match (pos, m.eval(self.bound(), true).and_then(|v| v.as_i64())) {
                        (Some(pos), Some(t)) => (pos, t),
                        _ => break Answer::Unknown,
                    }
                }
            };
            let seed = self.seed_order(target, keep, &pos, t);
            if lazy {
                // Only the reads of the seed matter: the model's prefix may hold more (events
                // ordered before the bound that the target does not need), but the seed is the
                // causal cone, and a read outside it is not replayed.
                let t0 = std::time::Instant::now();
                let mut check = vec![false; tr.events.len()];
                for &i in &seed {
                    check[i] = true;
                }
                for &i in relaxed.iter().chain(&valid) {
                    check[i] = false;
                }
                let wrong: Vec<usize> = (0..tr.events.len())
                    .filter(|&i| {
                        check[i]
                            && tr.events[i].kind.read().is_some()
                            && !self.reads_its_value(i, &pos, over)
                    })
                    .collect();
                self.counts.lazy_ms += t0.elapsed().as_secs_f64() * 1000.0;
                if !wrong.is_empty() {
                    // Their validity goes into the base (outside this query's scope, so that
                    // later queries on the trace can assume it too), then the goal again; per
                    // query, into the query's scope, beside the goal.
                    self.counts.refinements += 1;
                    if !per_query {
                        self.vars().solver.pop(1);
                    }
                    self.assert_validity(&wrong);
                    valid.extend(wrong);
                    if !per_query {
                        self.vars().solver.push();
                        for g in &goal {
                            self.assert(g);
                        }
                    }
                    continue;
                }
            }
            break Answer::Sat(seed);
        };
        // The validity this query built, each read once (a query solved again adds to it).
        self.counts.reads_constrained += valid.len() as u64;
        self.counts.match_terms += valid.iter().map(|&i| self.match_terms_of(i)).sum::<u64>();
        self.counts.work += u64::from(self.rlimit().wrapping_sub(work0));
        self.vars().solver.pop(1);
        answer
    }
}
