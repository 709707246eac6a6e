//! A query in Z3: the target's goal pushed on the trace's base, the validity the query keeps,
//! and (MCR-S+) the reads the model got wrong added until none is.

use super::goal::Goal;
use super::{Answer, Encoder, Precheck, Target, Validity};
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
        let Some(Goal {
            goal,
            relaxed,
            over,
        }) = self.goal(target, keep)
        else {
            return Answer::Unsat;
        };
        #[cfg(test)]
        let goal = {
            let mut goal = goal;
            for &(a, b) in &self.forced {
                goal.push(lt(self.o(a), self.o(b)));
            }
            goal
        };
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
