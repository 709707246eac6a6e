//! The query deciders: the static pre-check, the causal search and Z3, each behind
//! [`Decider`], chained cheapest first ([`Chain`]); and the test and benchmark modes as
//! wrappers around a decider ([`CheckPrecheck`], [`CrossCheck`], [`Witness`], [`Compared`]).
//!
//! All three decide the same question, so a query goes to the next decider only when one
//! cannot decide it: the pre-check proves most unsatisfiable queries impossible from orderings
//! alone and hands what it derived to the search; the search gives up past its budget (or on a
//! trace it cannot represent); Z3 always answers (`Unknown` when it runs out of time).

use super::encode::{Answer, Compare, Encoder, Hints, Precheck, Target};
use super::search::{Found, Space};
use super::trace::Trace;
use super::{McrStats, Tuning};
use std::cell::OnceCell;

/// One query on a trace.
pub(super) struct Query<'q> {
    pub target: &'q Target,
    /// The committed prefix: the trace's first `keep` events stay in the prefix, with their
    /// values.
    pub keep: usize,
    /// Milliseconds left before the deadline, if there is one (bounds a Z3 call).
    pub left: Option<u32>,
}

/// One way to decide a query.
pub(super) trait Decider<'t> {
    /// Its name, for counters and messages.
    #[allow(dead_code)]
    fn name(&self) -> &'static str;
    /// `Some` when it decided the query; `None` hands the query to the next decider, with
    /// what this one derived in `hints`.
    fn decide(
        &mut self,
        enc: &mut Encoder<'t>,
        q: &Query<'_>,
        hints: &mut Option<Hints>,
        stats: &mut McrStats,
    ) -> Option<Answer>;
}

/// The deciders of one trace, in the order they are tried.
pub(super) struct Chain<'t> {
    deciders: Vec<Box<dyn Decider<'t> + 't>>,
}

impl<'t> Chain<'t> {
    /// The chain `tuning` asks for: the pre-check (unless off), the causal search (unless its
    /// budget is 0), Z3; each wrapped in the test or benchmark mode `tuning` sets.
    pub fn new(tr: &'t Trace, tuning: &Tuning) -> Chain<'t> {
        let mut deciders: Vec<Box<dyn Decider<'t> + 't>> = Vec::new();
        if tuning.prefilter {
            if tuning.check_prefilter {
                deciders.push(Box::new(CheckPrecheck(PreCheck)));
            } else {
                deciders.push(Box::new(PreCheck));
            }
        }
        if tuning.search_budget > 0 {
            let search = Search::new(tr, tuning.search_budget);
            if tuning.check_search {
                deciders.push(Box::new(CrossCheck(search)));
            } else {
                deciders.push(Box::new(search));
            }
        }
        let mut z3: Box<dyn Decider<'t> + 't> = Box::new(Z3);
        if tuning.bare_solve || tuning.paired_solve {
            z3 = Box::new(Compared {
                inner: z3,
                compare: Compare::new(tuning.bare_solve, tuning.paired_solve),
            });
        }
        if tuning.search_budget == 0 && tuning.witness_budget > 0 {
            z3 = Box::new(Witness {
                inner: z3,
                search: Search::new(tr, tuning.witness_budget),
            });
        }
        deciders.push(z3);
        Chain { deciders }
    }

    /// Decides `q`: the first decider that can.
    pub fn decide(&mut self, enc: &mut Encoder<'t>, q: &Query<'_>, stats: &mut McrStats) -> Answer {
        let mut hints = None;
        for d in &mut self.deciders {
            if let Some(answer) = d.decide(enc, q, &mut hints, stats) {
                return answer;
            }
        }
        unreachable!("Z3 decides every query")
    }
}

/// The static pre-check ([`Encoder::precheck`]).
pub(super) struct PreCheck;

impl<'t> Decider<'t> for PreCheck {
    fn name(&self) -> &'static str {
        "pre-check"
    }

    fn decide(
        &mut self,
        enc: &mut Encoder<'t>,
        q: &Query<'_>,
        hints: &mut Option<Hints>,
        _: &mut McrStats,
    ) -> Option<Answer> {
        match enc.precheck(q.target, q.keep) {
            Precheck::Impossible => Some(Answer::Unsat),
            Precheck::Possible(h) => {
                *hints = h;
                None
            }
        }
    }
}

/// The causal search over the trace's own interleavings ([`crate::mcr::search`]), its view of
/// the trace built on the first query that reaches it.
pub(super) struct Search<'t> {
    tr: &'t Trace,
    space: OnceCell<Option<Space<'t>>>,
    budget: usize,
}

impl<'t> Search<'t> {
    fn new(tr: &'t Trace, budget: usize) -> Search<'t> {
        Search {
            tr,
            space: OnceCell::new(),
            budget,
        }
    }

    /// The search's answer (`None`: no view of the trace), and the states it visited.
    fn run(
        &self,
        enc: &Encoder<'t>,
        q: &Query<'_>,
        hints: Option<&Hints>,
    ) -> Option<(Found, usize)> {
        let space = self.space.get_or_init(|| Space::new(self.tr)).as_ref()?;
        let searched = space.search(q.target, q.keep, self.budget, hints, stop_of(enc, q.target));
        Some((searched.found, searched.states))
    }
}

impl<'t> Decider<'t> for Search<'t> {
    fn name(&self) -> &'static str {
        "causal search"
    }

    fn decide(
        &mut self,
        enc: &mut Encoder<'t>,
        q: &Query<'_>,
        hints: &mut Option<Hints>,
        stats: &mut McrStats,
    ) -> Option<Answer> {
        let (found, states) = self.run(enc, q, hints.as_ref())?;
        stats.search_states += states as u64;
        let answer = match found {
            Found::GaveUp => {
                stats.search_gave_up += 1;
                return None;
            }
            Found::Sat(pos) => Answer::Sat(enc.seed_order(q.target, q.keep, &pos, i64::MAX)),
            Found::Unsat => Answer::Unsat,
        };
        stats.searched += 1;
        Some(answer)
    }
}

/// Z3 on the trace's maximal causal model ([`Encoder::solve_z3`]): decides every query.
pub(super) struct Z3;

impl<'t> Decider<'t> for Z3 {
    fn name(&self) -> &'static str {
        "Z3"
    }

    fn decide(
        &mut self,
        enc: &mut Encoder<'t>,
        q: &Query<'_>,
        _: &mut Option<Hints>,
        _: &mut McrStats,
    ) -> Option<Answer> {
        Some(enc.solve_z3(q.target, q.keep, q.left))
    }
}

/// Where a read target's thread leaves the prefix ([`Encoder::stop_after`]), for the search.
fn stop_of(enc: &Encoder<'_>, target: &Target) -> Option<usize> {
    match *target {
        Target::Read { event, .. } => enc.stop_after(event.index()),
        _ => None,
    }
}

/// Test mode ([`Tuning::check_prefilter`]): a query the pre-check proves impossible is solved by
/// Z3 too, counting in [`super::CheckCounts::prefilter_wrong`] those Z3 finds satisfiable (must be none).
pub(super) struct CheckPrecheck<D>(D);

impl<'t, D: Decider<'t>> Decider<'t> for CheckPrecheck<D> {
    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn decide(
        &mut self,
        enc: &mut Encoder<'t>,
        q: &Query<'_>,
        hints: &mut Option<Hints>,
        stats: &mut McrStats,
    ) -> Option<Answer> {
        let answer = self.0.decide(enc, q, hints, stats);
        if answer == Some(Answer::Unsat)
            && matches!(enc.solve_z3(q.target, q.keep, q.left), Answer::Sat(_))
        {
            stats.checks.prefilter_wrong += 1;
        }
        answer
    }
}

/// Test mode ([`Tuning::check_search`]): every query the inner decider decides is solved by Z3
/// too, counting disagreements on satisfiability ([`super::CheckCounts::search_missed`],
/// [`super::CheckCounts::search_extra`]: must be none).
pub(super) struct CrossCheck<D>(D);

impl<'t, D: Decider<'t>> Decider<'t> for CrossCheck<D> {
    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn decide(
        &mut self,
        enc: &mut Encoder<'t>,
        q: &Query<'_>,
        hints: &mut Option<Hints>,
        stats: &mut McrStats,
    ) -> Option<Answer> {
        let answer = self.0.decide(enc, q, hints, stats)?;
        match (&answer, &enc.solve_z3(q.target, q.keep, q.left)) {
            (Answer::Unsat, Answer::Sat(_)) => stats.checks.search_missed += 1,
            (Answer::Sat(_), Answer::Unsat) => stats.checks.search_extra += 1,
            _ => {}
        }
        Some(answer)
    }
}

/// Test mode ([`Tuning::witness_budget`]): the seed of a query the inner decider finds
/// satisfiable comes from the causal search, when it finds one within its budget, so that it is
/// a function of the query alone, not of the model Z3 returned.
pub(super) struct Witness<'t> {
    inner: Box<dyn Decider<'t> + 't>,
    search: Search<'t>,
}

impl<'t> Decider<'t> for Witness<'t> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn decide(
        &mut self,
        enc: &mut Encoder<'t>,
        q: &Query<'_>,
        hints: &mut Option<Hints>,
        stats: &mut McrStats,
    ) -> Option<Answer> {
        let answer = self.inner.decide(enc, q, hints, stats)?;
        if !matches!(answer, Answer::Sat(_)) {
            return Some(answer);
        }
        match self.search.run(enc, q, None).map(|(found, _)| found) {
            Some(Found::Sat(pos)) => {
                stats.checks.witnesses += 1;
                return Some(Answer::Sat(enc.seed_order(
                    q.target,
                    q.keep,
                    &pos,
                    i64::MAX,
                )));
            }
            Some(Found::Unsat) => stats.checks.search_missed += 1,
            Some(Found::GaveUp) | None => stats.search_gave_up += 1,
        }
        Some(answer)
    }
}

/// Benchmark mode ([`Tuning::bare_solve`], [`Tuning::paired_solve`]): every query the inner
/// decider decides is solved again with other data validity ([`Compare`]), counting the work;
/// the answer stays the inner decider's.
pub(super) struct Compared<'t> {
    inner: Box<dyn Decider<'t> + 't>,
    compare: Compare,
}

impl<'t> Decider<'t> for Compared<'t> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn decide(
        &mut self,
        enc: &mut Encoder<'t>,
        q: &Query<'_>,
        hints: &mut Option<Hints>,
        stats: &mut McrStats,
    ) -> Option<Answer> {
        let answer = self.inner.decide(enc, q, hints, stats)?;
        if !enc.z3_wanted {
            self.compare
                .after(enc, q.target, q.keep, q.left, &answer, &mut stats.compare);
        }
        Some(answer)
    }
}
