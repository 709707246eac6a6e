//! Knobs for tests and benchmarks (not user options).

/// Knobs for tests and benchmarks (not user options).
#[derive(Clone, Copy, Debug)]
pub struct Tuning {
    /// Drop seeds whose prefix reaches a state with the same steps as an earlier seed's prefix.
    pub prune_states: bool,
    /// With `prune_states`, also drop those reaching a point of an earlier execution's default
    /// run.
    pub prune_runs: bool,
    /// With `prune_runs`, also stop a default run, and neither report nor analyse it, where it
    /// reaches a point of an ancestor run (one whose trace the seed descends from) whose
    /// committed prefix is part of its own: from there it is that run, so its execution has
    /// that run's causal state, and that run's queries asked for at least as many new values.
    /// The points the stopped run recorded are taken back. Merging into any earlier run, not
    /// only an ancestor, loses states: a run's query can be
    /// dropped at a point of a run whose own seed for it then merges
    /// back into the first.
    pub merge_runs: bool,
    /// Hand out each seed in canonical order (see `Encoder::canonical`): dependent events as
    /// the answer orders them, the others in the trace's order.
    pub canonical_seeds: bool,
    /// Ask for new values only of reads after the seed's prefix (the paper's MCR): the reads in
    /// the prefix had their other values tried by the trace the seed came from.
    pub only_new_targets: bool,
    /// Answer queries that must-happen-before alone makes unsatisfiable without Z3.
    pub prefilter: bool,
    /// Test mode: solve the pre-checked queries too and count wrong rejections.
    pub check_prefilter: bool,
    /// Z3's random seed, if not its default (the models Z3 returns decide which seeds are
    /// explored; completeness must not depend on them).
    pub solver_seed: Option<u32>,
    /// States the trace-local search may visit per query before the query goes to Z3
    /// (0: every query goes to Z3).
    pub search_budget: usize,
    /// Test mode: also solve every searched query with Z3 and count disagreements on
    /// satisfiability (`search_missed`, `search_extra`).
    pub check_search: bool,
    /// Test mode, with no search budget: take the seed of a query Z3 finds satisfiable from
    /// the causal search, given this budget, rather than from Z3's model (0: Z3's model). The
    /// search is deterministic, so the seed is then a function of the query alone, not of
    /// which model Z3 happened to return: what the graph changes is then only what it
    /// changes in the answers.
    pub witness_budget: usize,
    /// Benchmark mode: each Z3 query's formula holds only the validity the query needs (the
    /// setting of the MCR-S+ paper), asserted in a scope of its own on the trace's base and
    /// popped with it, instead of every read's validity asserted once per trace behind a
    /// guard that each query's assumptions switch.
    pub per_query: bool,
    /// Benchmark mode: solve every Z3 query a second time without any data validity and count
    /// that work in [`McrStats::z3_work_bare`]: what leaving out every validity constraint
    /// would save, the ceiling of any pruning of them (the exploration follows the real
    /// answers).
    pub bare_solve: bool,
    /// Benchmark mode, with the graph on: solve every Z3 query twice more, each time in a
    /// solver of its own, with every read's validity ([`McrStats::z3_work_all`]) and with the
    /// MCR-S+ paper's Algorithm 3 taken literally ([`McrStats::z3_work_literal`]), so that the
    /// graph's saving is measured on identical queries (the exploration follows the real
    /// answers); and once more with the static closure ([`McrStats::z3_work_cone`]).
    pub paired_solve: bool,
}

/// The default [`Tuning::search_budget`].
pub const SEARCH_BUDGET: usize = 20_000;

impl Default for Tuning {
    fn default() -> Self {
        Tuning {
            prune_states: true,
            prune_runs: true,
            merge_runs: true,
            canonical_seeds: true,
            only_new_targets: true,
            prefilter: true,
            check_prefilter: false,
            solver_seed: None,
            search_budget: SEARCH_BUDGET,
            check_search: false,
            witness_budget: 0,
            per_query: false,
            bare_solve: false,
            paired_solve: false,
        }
    }
}
