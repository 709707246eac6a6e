//! Must-happen-before and lock mutual exclusion: the orders every interleaving of a trace
//! keeps, and the trace's base in Z3.

use super::query::{lt, Z3Vars};
use super::{Encoder, Validity};
use crate::mcr::trace::EventKind;
use crate::model::Access;
use z3::ast::{Bool, Int};
use z3::{Params, Solver};

impl<'t> Encoder<'t> {
    /// Must-happen-before: fills `preds` (used by the pre-check, the causal cone and Z3). Every
    /// pair is found at its later event, in trace order.
    pub(super) fn order_pairs(&mut self) {
        let tr = self.trace;
        let events: Vec<(usize, Access)> = tr
            .events
            .iter()
            .map(|e| (e.thread, e.kind.access()))
            .collect();
        let hb = tr
            .rules()
            .must_happen_before(tr.threads, &events, &self.flush_of);
        for (a, b) in hb {
            self.preds[b].push(a);
        }
    }

    /// Asserts the trace's maximal causal model into Z3, once, before the first Z3 query (most
    /// queries are answered without it: by the pre-check or by [`crate::mcr::search`]).
    pub(super) fn ensure_base(&mut self, validity: Validity) {
        if self.z3.is_none() {
            let solver = Solver::new_for_logic("QF_IDL").unwrap_or_default();
            if let Some(seed) = self.opts.solver_seed {
                let mut p = Params::new();
                p.set_u32("random_seed", seed);
                solver.set_params(&p);
            }
            let ord = (0..self.trace.events.len())
                .map(|i| Int::new_const(format!("o{i}")))
                .collect();
            let guards = vec![None; self.trace.events.len()];
            self.z3 = Some(Z3Vars {
                solver,
                ord,
                bound: Int::new_const("bound"),
                guards,
            });
            self.assert_base(validity);
        }
    }

    pub(super) fn assert_base(&mut self, validity: Validity) {
        let tr = self.trace;
        // Ties. Every atom of the encoding is a strict `<` between order variables or a `<=`
        // against the bound, occurring only positively (or, for `<=`, negated into a strict
        // `<`). A model with ties can then be perturbed into a total order — break ties by event
        // index, put the bound above the events tied with it — without falsifying any literal,
        // so the order variables need not be distinct (`distinct` makes Z3 case-split on every
        // pair), and reading the order back as (value, index) is exactly such a perturbation.
        for b in 0..tr.events.len() {
            for k in 0..self.preds[b].len() {
                let c = lt(self.o(self.preds[b][k]), self.o(b));
                self.assert(&c);
            }
        }
        // Data validity: reads in the prefix keep their values — those whose guards a query
        // assumes (all but the target and the reads it re-encodes). With MCR-S+ a query assumes
        // fewer (see `solve_z3`), and a read's validity is asserted only once a query needs it.
        // (Per query, each query asserts the validity it keeps, in its own scope, instead.)
        if !self.opts.per_query
            && (validity == Validity::All
                || (validity == Validity::Mcr && self.pruning().is_none()))
        {
            let reads: Vec<usize> = (0..tr.events.len())
                .filter(|&i| tr.events[i].kind.read().is_some())
                .collect();
            self.assert_validity(&reads);
        }
        // Lock mutual exclusion over the critical sections of each mutex.
        let sections = self.sections().to_vec();
        for (a, sa) in sections.iter().enumerate() {
            for sb in sections.iter().skip(a + 1) {
                if sa.0 != sb.0 {
                    continue;
                }
                let (_, la, ua) = *sa;
                let (_, lb, ub) = *sb;
                let mut alts = vec![lt(self.bound(), self.o(la)), lt(self.bound(), self.o(lb))];
                if let Some(ua) = ua {
                    alts.push(lt(self.o(ua), self.o(lb)));
                }
                if let Some(ub) = ub {
                    alts.push(lt(self.o(ub), self.o(la)));
                }
                let c = Bool::or(&alts);
                self.assert(&c);
            }
        }
    }

    /// Critical sections: (mutex, lock event, matching unlock event of the same thread),
    /// found on first use (the base and every query's cones use them).
    pub(super) fn sections(&self) -> &[(u32, usize, Option<usize>)] {
        self.sections.get_or_init(|| {
            let tr = self.trace;
            let mut out = Vec::new();
            for (i, e) in tr.events.iter().enumerate() {
                if let EventKind::Lock { mutex } = e.kind {
                    let unlock = tr.events.iter().enumerate().skip(i + 1).find_map(|(j, f)| {
                        (f.thread == e.thread && f.kind == EventKind::Unlock { mutex }).then_some(j)
                    });
                    out.push((mutex, i, unlock));
                }
            }
            out
        })
    }
}
