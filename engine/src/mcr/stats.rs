//! What an MCR run counted.

use super::encode;
#[allow(unused_imports)]
use super::Tuning;

/// What an MCR run counted.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct McrStats {
    /// Executions run to their end and reported.
    pub executions: u64,
    /// Of those, executions that ended blocked (failed `assume`, loop bound).
    pub blocked: u64,
    /// SMT assertions built.
    pub constraints: u64,
    /// Solver queries made (including those the static pre-check answered).
    pub queries: u64,
    /// Queries the static pre-check proved unsatisfiable without calling Z3.
    pub prefiltered: u64,
    /// Time deciding queries: the static pre-check, the causal search and Z3.
    pub solver_ms: f64,
    /// Seeds whose replay did not follow the solved interleaving (a bug in the encoding if
    /// ever non-zero; the execution is still a real one, so results stay sound).
    pub diverged: u64,
    /// Seeds dropped because their prefix reached an already-seen state (an earlier seed's
    /// prefix or a point of an earlier default run, with the same steps).
    pub pruned: u64,
    /// Default runs stopped, unreported, where they reached a point of an earlier default run
    /// whose committed prefix was part of theirs ([`Tuning::merge_runs`]).
    pub merged: u64,
    /// Queries answered by the trace-local search ([`super::search`]) instead of Z3.
    pub searched: u64,
    /// Queries whose search ran out of budget (then Z3 answered them).
    pub search_gave_up: u64,
    /// States the searches visited, in all.
    pub search_states: u64,
    /// Z3 solver calls.
    pub z3_queries: u64,
    /// Reads whose validity Z3 had to keep, summed over the queries (a query solved again
    /// counts each of its reads once, as its constraints are built once).
    pub reads_constrained: u64,
    /// Match terms of that validity (one per candidate source and other write of the cell: the
    /// paper's count of constraints), summed likewise.
    pub match_terms: u64,
    /// Z3 queries solved again because the model broke a read MCR-S+ had left unconstrained.
    pub refinements: u64,
    /// Time spent building the dependence graph and mapping it onto traces.
    pub sdg_ms: f64,
    /// Why the dependence graph was not built, if it was not ([`crate::sdg::Sdg::skipped`]).
    pub sdg_skipped: Option<String>,
    /// Of `solver_ms`: time in Z3 queries (building the query's formula, checking it, reading
    /// the model back), the rest being the static pre-check and the causal search.
    pub z3_ms: f64,
    /// Z3's work on queries in its own resource units ("rlimit count"): deterministic, unlike
    /// the times, so comparisons do not depend on the machine's load.
    pub z3_work: u64,
    /// Of `z3_ms`: time inside Z3's satisfiability checks.
    pub check_ms: f64,
    /// Of `solver_ms`: time MCR-S+ spent choosing the reads a query constrains and checking
    /// the model's reads.
    pub lazy_ms: f64,
    /// Distinct causal states among the executions: per thread, its steps with the values they
    /// read (leaving out the `await` rounds it retried, see [`super::observe::drop_failed_rounds`]), and how the
    /// execution ended. The paper's measure of redundancy is executions per causal state (MCR
    /// aims at one).
    pub causal_states: u64,
    /// False when the timeout or the cancel flag stopped exploration.
    pub complete: bool,
    /// What the test modes counted (all zero without them).
    pub checks: CheckCounts,
    /// What the benchmark's extra solves counted ([`Tuning::bare_solve`],
    /// [`Tuning::paired_solve`]; all zero without them).
    pub compare: encode::CompareCounts,
}

/// What the test modes of [`Tuning`] counted: disagreements with Z3 (each must be 0) and the
/// seeds taken from the search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CheckCounts {
    /// With [`Tuning::check_prefilter`]: pre-checked queries Z3 found satisfiable (must be 0).
    pub prefilter_wrong: u64,
    /// With [`Tuning::check_search`]: searched queries the search found unsatisfiable and Z3
    /// satisfiable (the search missing an interleaving of the encoding; must be 0); also with
    /// [`Tuning::witness_budget`].
    pub search_missed: u64,
    /// With [`Tuning::check_search`]: searched queries the search solved and Z3 did not (must
    /// be 0).
    pub search_extra: u64,
    /// With [`Tuning::witness_budget`]: satisfiable queries whose seed came from the search.
    pub witnesses: u64,
}

impl McrStats {
    pub(super) fn add_z3(&mut self, c: &encode::Z3Counts) {
        self.z3_queries += c.queries;
        self.reads_constrained += c.reads_constrained;
        self.match_terms += c.match_terms;
        self.refinements += c.refinements;
        self.z3_work += c.work;
        self.z3_ms += c.ms;
        self.check_ms += c.check_ms;
        self.lazy_ms += c.lazy_ms;
    }
}
