//! Maximal causality reduction (MCR) under SC, TSO and PSO, with Z3.
//!
//! Implements [Huang and Huang 2016](docs/papers.md#huang-huang-2016) §2-4 (Huang's MCR with the relaxed must-happen-before
//! of TSO/PSO and the TSO/PSO replay), corrected where the paper loses behaviours: see
//! [`encode`] for the issue/flush split that makes store forwarding expressible.
//!
//! The loop ([`explore_with`]):
//! 1. replay a seed prefix (a sequence of [`Choice`]s) through the interpreter of
//!    [`crate::semantics`], then run a deterministic default scheduler to the end of the
//!    execution; that execution's steps form a [`trace::Trace`];
//! 2. build the trace's maximal causal model ([`encode::Encoder`]) and, for every read and every
//!    value some write of the trace gives its location (plus lock orders and final values),
//!    ask Z3 for an interleaving of the trace's events in which that read returns the new value
//!    while every earlier read keeps its value;
//! 3. each answer is a new seed: the events ordered before the target, plus the target, mapped
//!    back to choices (`Exec(thread)` for a thread step, `Flush` for a flush — the paper's replay
//!    algorithm reduces to this because flushes are explicit steps of the semantics).
//!
//! Every execution MCR reports is one the interpreter actually ran, so MCR is sound by
//! construction; completeness rests on the encoding and is checked against the exhaustive
//! explorer by `engine/tests/mcr_vs_exhaustive.rs`.
//!
//! Reductions: a seed whose replayed prefix consists of the same per-thread steps (same values)
//! and flushes as an earlier seed's prefix, or as any point of an earlier execution's default
//! run, and ends in the same state, is dropped: the default continuation depends on the state
//! only, so it is the same, and the trace is a reordering of an explored one with the same
//! maximal causal model, whose committed prefix is not longer than the dropped seed's (so its
//! queries ask for at least as many new values). Likewise a default run that reaches a point
//! an earlier run passed, where that run's committed prefix is part of its own, stops there,
//! unreported: from there it is that run, so its execution has that run's causal state, and
//! that run's trace asked every query its own would. Seeds with equal choice sequences and
//! traces with equal events are handled once.
//!
//! Invariants: deterministic (no randomness, ordered containers and a fixed target order); the
//! Z3 context lives on the calling thread; the `Control` cancel flag and the timeout are checked
//! between executions and between solver calls, and each solver call is bounded by the time
//! left.

pub mod encode;
pub mod search;
pub mod trace;

use crate::ir::{InstrKind, Program};
use crate::options::{CheckOptions, Control};
use crate::report::{Action, Model, ViolationKind};
use crate::semantics::{Choice, Event, State, Status};
use encode::{Answer, Encoder, Precheck, Target};
use std::collections::hash_map::Entry;
use std::collections::HashSet;
use std::time::Instant;
use trace::{End, Ev, EvKind, RmwFn, Trace};

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
    /// With [`Tuning::check_prefilter`]: pre-checked queries Z3 found satisfiable (must be 0).
    pub prefilter_wrong: u64,
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
    /// Queries answered by the trace-local search ([`search`]) instead of Z3.
    pub searched: u64,
    /// Queries whose search ran out of budget (then Z3 answered them).
    pub search_gave_up: u64,
    /// States the searches visited, in all.
    pub search_states: u64,
    /// With [`Tuning::check_search`]: searched queries the search found unsatisfiable and Z3
    /// satisfiable (the search missing an interleaving of the encoding; must be 0); also with
    /// [`Tuning::witness_budget`].
    pub search_missed: u64,
    /// With [`Tuning::witness_budget`]: satisfiable queries whose seed came from the search.
    pub witnesses: u64,
    /// With [`Tuning::check_search`]: searched queries the search solved and Z3 did not (must
    /// be 0).
    pub search_extra: u64,
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
    /// With [`Tuning::bare_solve`]: Z3's work on the same queries without any data validity.
    pub z3_work_bare: u64,
    /// With [`Tuning::paired_solve`]: Z3's work on the same queries with every read's validity
    /// (MCR without the graph).
    pub z3_work_all: u64,
    /// With [`Tuning::paired_solve`]: Z3's work on the same queries with the MCR-S+ paper's
    /// Algorithm 3 taken literally.
    pub z3_work_literal: u64,
    /// With [`Tuning::paired_solve`]: Z3's work on the same queries with every read the graph
    /// says an event of the seed may need kept valid from the start (the static closure, as
    /// in the incremental solver, but no query solved again).
    pub z3_work_cone: u64,
    /// With [`Tuning::paired_solve`]: queries whose satisfiability with every read's validity
    /// differs from the real answer's (must be none: the graph changes no answer).
    pub paired_differ: u64,
    /// With [`Tuning::paired_solve`]: queries satisfiable both ways.
    pub paired_sat: u64,
    /// With [`Tuning::paired_solve`]: satisfiable queries for which Z3's model with every
    /// read's validity gives another seed than the real answer (the graph leaves the answers
    /// as they are, but which of their models Z3 returns is its own choice).
    pub paired_other_seed: u64,
    /// Of `z3_ms`: time inside Z3's satisfiability checks.
    pub check_ms: f64,
    /// Of `solver_ms`: time MCR-S+ spent choosing the reads a query constrains and checking
    /// the model's reads.
    pub lazy_ms: f64,
    /// Distinct causal states among the executions: per thread, its steps with the values they
    /// read (leaving out the `await` rounds it retried, see [`drop_failed_rounds`]), and how the
    /// execution ended. The paper's measure of redundancy is executions per causal state (MCR
    /// aims at one).
    pub causal_states: u64,
    /// False when the timeout or the cancel flag stopped exploration.
    pub complete: bool,
}

impl McrStats {
    fn add_z3(&mut self, c: &encode::Z3Counts) {
        self.z3_queries += c.queries;
        self.reads_constrained += c.reads_constrained;
        self.match_terms += c.match_terms;
        self.refinements += c.refinements;
        self.z3_work += c.work;
        self.z3_work_bare += c.work_bare;
        self.z3_work_all += c.work_all;
        self.z3_work_literal += c.work_literal;
        self.z3_work_cone += c.work_cone;
        self.paired_differ += c.paired_differ;
        self.paired_sat += c.paired_sat;
        self.paired_other_seed += c.paired_other_seed;
        self.z3_ms += c.ms;
        self.check_ms += c.check_ms;
        self.lazy_ms += c.lazy_ms;
    }
}

/// One finished execution: its steps and the state it ended in (`Finished`, a violation, or
/// blocked).
pub struct Execution<'a> {
    pub events: &'a [Event],
    pub state: &'a State,
}

/// A seed interleaving and what its last step must observe.
struct Seed {
    choices: Vec<Choice>,
    /// The events of the parent trace the choices are expected to reproduce.
    expect: Vec<Ev>,
    target: Target,
    /// Targets of the resulting trace must be events at or after this index (or final values of
    /// cells at or after `min_cell`).
    min_event: usize,
    min_cell: u32,
    /// Position of the target event in `choices`.
    target_at: Option<usize>,
    /// The run whose trace the seed came from (`u32::MAX`: none).
    parent: u32,
}

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

/// Runs MCR on `p` under `model`, handing every execution to `sink`.
pub fn explore_with(
    p: &Program,
    model: Model,
    opts: &CheckOptions,
    ctl: &Control,
    tuning: Tuning,
    sink: &mut (dyn FnMut(&Execution<'_>) + Send + Sync),
) -> McrStats {
    // Most explorations never reach Z3 (the pre-check and the causal search decide their
    // queries), and creating a Z3 context costs a few milliseconds, most of a small test's
    // time. So explore without one first; only if a query needs Z3, explore again from the
    // start in a context of its own, without handing `sink` again the executions it already
    // has: exploration is deterministic, and Z3 decides nothing before that query, so the
    // second run repeats the first up to it. A context of its own, not the thread's default
    // one: that one keeps what earlier explorations built (hash-consed terms, its resource
    // counter), and Z3's models, hence the seeds, could then depend on what ran before on the
    // thread (a language server checks many files).
    // The dependency graph is built once, for both runs. It decides which steps after a read
    // target may stay in the prefix (`Encoder::stop_after`) even without MCR-S+ (`opts.sdg`).
    let start = Instant::now();
    let sdg = crate::sdg::Sdg::with_control(p, ctl);
    let skipped = sdg.skipped.clone().filter(|_| !ctl.should_stop());
    let sdg = (&sdg, start.elapsed().as_secs_f64() * 1000.0);
    let mut handed = 0u64;
    let first = explore_in(p, model, opts, ctl, tuning, sdg, false, &mut |ex| {
        handed += 1;
        sink(ex)
    });
    let mut stats = match first {
        Some(stats) => stats,
        None => z3::with_z3_config(&z3::Config::new(), || {
            let _z3_watch = crate::solver_watch::Watch::new(ctl); // Z3 stops with `ctl`.
            let mut skip = handed;
            let again = explore_in(p, model, opts, ctl, tuning, sdg, true, &mut |ex| {
                if skip > 0 {
                    skip -= 1;
                } else {
                    sink(ex)
                }
            });
            again.expect("with a Z3 context every query can be solved")
        }),
    };
    stats.sdg_skipped = skipped;
    stats
}

/// The exploration; `None` if a query needed Z3 and `z3` is false (no context to solve in).
/// `sdg`: the dependency graph and the time it took to build.
#[allow(clippy::too_many_arguments)]
fn explore_in(
    p: &Program,
    model: Model,
    opts: &CheckOptions,
    ctl: &Control,
    tuning: Tuning,
    (sdg, sdg_ms): (&crate::sdg::Sdg, f64),
    z3: bool,
    sink: &mut (dyn FnMut(&Execution<'_>) + Send + Sync),
) -> Option<McrStats> {
    let mut stats = McrStats { complete: true, sdg_ms, ..McrStats::default() };
    let stop = |stats: &mut McrStats| {
        let out = ctl.should_stop();
        if out {
            stats.complete = false;
        }
        out
    };
    // Each seen point, by its fingerprint, with the run that first reached it (an index into
    // `runs`). A fingerprint, not the state: a TSO `while (1)` grows its store buffer by one
    // entry per iteration, so whole states made the set quadratic in the loop bound.
    let mut seen_states: rustc_hash::FxHashMap<Point, u32> = Default::default();
    let mut runs: Vec<Run> = Vec::new();
    let mut step_ids = Steps::default();
    let (threads, cells) = (p.threads.len(), p.cells.len());
    // Every point of a default run is recorded as seen (see the module's doc).
    let record_runs = tuning.prune_states && tuning.prune_runs;
    let await_threads: Vec<bool> = p
        .threads
        .iter()
        .map(|t| t.code.iter().any(|i| i.kind == InstrKind::AwaitBegin))
        .collect();
    let mut causal: HashSet<u64> = HashSet::new();
    let mut seen_seeds: HashSet<Vec<Choice>> = HashSet::new();
    let mut seen_traces: HashSet<(Vec<Ev>, usize, u32)> = HashSet::new();
    let mut work: Vec<Seed> = vec![Seed {
        choices: Vec::new(),
        expect: Vec::new(),
        target: Target::Final {
            cell: u32::MAX,
            value: 0,
        },
        min_event: 0,
        min_cell: 0,
        target_at: None,
        parent: u32::MAX,
    }];
    while let Some(seed) = work.pop() {
        if stop(&mut stats) {
            break;
        }
        // 1. Replay the seed prefix. The wake-up step of a parked `await` is not in traces:
        // it runs on demand, right before the thread's next step.
        let mut st = State::initial(p, model);
        let in_round: Vec<bool> = (0..st.threads.len())
            .map(|t| at_round_begin(p, &st, t))
            .collect();
        let mut events: Vec<Event> = Vec::new();
        let mut evs: Vec<Ev> = Vec::new();
        let mut ok = true;
        for (k, &c) in seed.choices.iter().enumerate() {
            if stop(&mut stats) {
                ok = false;
                break;
            }
            if let Choice::Exec(t) = c {
                if wake_pending(p, &st, t) {
                    let before = st.clone();
                    if let Some(ev) = st.try_step(p, c) {
                        if let Some(e) = observe(p, &ev, &before, &st, &evs) {
                            evs.push(e);
                        }
                        events.push(ev);
                    }
                }
            }
            let before = st.clone();
            let Some(ev) = st.try_step(p, c) else {
                ok = false;
                break;
            };
            let e = observe(p, &ev, &before, &st, &evs);
            let got = e.as_ref().map(|e| (e.thread, discriminant(&e.kind)));
            if seed
                .expect
                .get(k)
                .map(|x| (x.thread, discriminant(&x.kind)))
                != got
            {
                ok = false;
            }
            events.push(ev);
            if let Some(e) = e {
                evs.push(e);
            }
            if !st.is_running() {
                // Only the seed's last step may end the execution.
                ok &= k + 1 == seed.choices.len();
                break;
            }
            if !ok {
                break;
            }
        }
        if ok && !seed_reached(&seed, &evs, &st) {
            ok = false;
        }
        if !ok {
            stats.diverged += 1;
        }
        let (seed_min_event, seed_min_cell) = (seed.min_event, seed.min_cell);
        let mut canon = if tuning.prune_states {
            Canon::of(&evs, threads, cells, &mut step_ids)
        } else {
            Canon::new(0, 0)
        };
        let run = runs.len() as u32;
        // The points this run recorded, each with the run it had before (undone if it merges).
        let mut touched: Vec<(Point, Option<u32>)> = Vec::new();
        if tuning.prune_states && st.is_running() {
            match seen_states.entry(point(&st, &canon)) {
                Entry::Occupied(_) => {
                    stats.pruned += 1;
                    continue;
                }
                Entry::Vacant(v) => {
                    if tuning.merge_runs {
                        touched.push((*v.key(), None));
                    }
                    v.insert(run);
                }
            }
        }
        runs.push(Run {
            committed: canon.clone(),
            min_cell: seed_min_cell,
            seeded: false,
            parent: seed.parent,
        });
        let mut merged = false;
        // 2. Run the default scheduler to the end; a choice that would end the execution
        // (a violation, a failed assume, the loop bound, a deadlock) is taken only when every
        // enabled choice would; then each of them is one execution.
        let mut endings: Vec<(Event, State)> = Vec::new();
        while st.is_running() {
            if stop(&mut stats) {
                break;
            }
            let en = st.enabled(p);
            let mut next = None;
            let mut ends: Vec<(Event, State)> = Vec::new();
            for &c in &en {
                // Each choice clones the state: with thousands of threads one step is long.
                if stop(&mut stats) {
                    break;
                }
                let mut s2 = st.clone();
                let Some(ev) = s2.try_step(p, c) else {
                    continue;
                };
                match s2.status() {
                    Status::Running | Status::Finished => {
                        if next.is_none() {
                            next = Some((ev, s2));
                        }
                    }
                    _ => ends.push((ev, s2)),
                }
            }
            if next.is_some() {
                // Endings the default scheduler steps around are real executions too: report
                // them (a deadlock reached by a lock order, say, needs no new read value).
                for (ev, s2) in &ends {
                    stats.executions += 1;
                    if matches!(s2.status(), Status::Blocked { .. }) {
                        stats.blocked += 1;
                    }
                    causal.insert(causal_hash(
                        &drop_failed_rounds(evs.clone(), &in_round, 0).0,
                        s2,
                    ));
                    let mut all = events.clone();
                    all.push(ev.clone());
                    sink(&Execution {
                        events: &all,
                        state: s2,
                    });
                }
            }
            match next {
                Some((ev, s2)) => {
                    if let Some(e) = observe(p, &ev, &st, &s2, &evs) {
                        if record_runs {
                            canon.push(&e, &mut step_ids);
                        }
                        evs.push(e);
                    }
                    events.push(ev);
                    st = s2;
                    // Every point of the default run is a prefix later seeds may reach too: from
                    // there the default continuation is this one (it depends on the state only).
                    if record_runs && st.is_running() {
                        match seen_states.entry(point(&st, &canon)) {
                            Entry::Vacant(v) => {
                                if tuning.merge_runs {
                                    touched.push((*v.key(), None));
                                }
                                v.insert(run);
                            }
                            // From this point on, this run is that one (see `Tuning::merge_runs`).
                            Entry::Occupied(mut o) if tuning.merge_runs => {
                                let (first, this) = (&runs[*o.get() as usize], &runs[run as usize]);
                                if first.seeded
                                    && first.within(this, &step_ids)
                                    && is_ancestor(&runs, *o.get(), run)
                                {
                                    merged = true;
                                    break;
                                }
                                if !first.seeded || this.within(first, &step_ids) {
                                    touched.push((*o.key(), Some(*o.get())));
                                    o.insert(run);
                                }
                            }
                            Entry::Occupied(_) => {}
                        }
                    }
                }
                None => {
                    endings = ends;
                    break;
                }
            }
        }
        if !stats.complete {
            break;
        }
        if merged {
            // A merged run is not analysed, so no seed may be dropped on its account: its
            // points go back to the runs they had.
            for (key, prev) in touched.drain(..).rev() {
                match prev {
                    Some(r) => {
                        seen_states.insert(key, r);
                    }
                    None => {
                        seen_states.remove(&key);
                    }
                }
            }
            stats.merged += 1;
            continue;
        }
        // 3. Report and collect the traces to analyse.
        let mut traces: Vec<(Trace, usize)> = Vec::new();
        if endings.is_empty() {
            stats.executions += 1;
            if matches!(st.status(), Status::Blocked { .. }) {
                stats.blocked += 1;
            }
            sink(&Execution {
                events: &events,
                state: &st,
            });
            let end = if *st.status() == Status::Finished {
                End::Final
            } else {
                End::Cut
            };
            let mut tev = evs.clone();
            if end == End::Cut {
                tev.extend(pending_locks(p, &st, None));
            }
            let traced = make_trace(p, model, &in_round, tev, end, seed_min_event);
            causal.insert(causal_hash(&traced.0.events, &st));
            traces.push(traced);
        } else {
            for (ev, s2) in &endings {
                stats.executions += 1;
                if matches!(s2.status(), Status::Blocked { .. }) {
                    stats.blocked += 1;
                }
                let mut all = events.clone();
                all.push(ev.clone());
                sink(&Execution {
                    events: &all,
                    state: s2,
                });
                // A deadlock follows an ordinary step, which stays in the trace; a fault is
                // the faulting step itself, which the model never schedules.
                let mut tev = evs.clone();
                if matches!(
                    s2.status(),
                    Status::Violation {
                        kind: ViolationKind::Deadlock,
                        ..
                    }
                ) {
                    tev.extend(observe(p, ev, &st, s2, &evs));
                }
                tev.extend(pending_locks(p, s2, Some(ev.thread)));
                let traced = make_trace(p, model, &in_round, tev, End::Cut, seed_min_event);
                causal.insert(causal_hash(&traced.0.events, s2));
                traces.push(traced);
            }
        }
        // 4. New seeds from each trace's maximal causal model.
        for (tr, min_event) in traces {
            // The target's round failed and its thread retried it: the trace lost the target's
            // new value with the round (see `drop_failed_rounds`). What it shows is the same
            // execution with the thread scheduled later, and MCR explores schedules through the
            // values reads take, not their order: the values the thread can read when it runs
            // later are targets of its round in this very trace's parent, and so are the values
            // other threads read meanwhile. So it seeds nothing. (A thread that waits for good
            // keeps its last round, which is then not dropped.)
            if min_event < seed_min_event {
                continue;
            }
            runs[run as usize].seeded = true;
            if !seen_traces.insert((tr.events.clone(), min_event, seed_min_cell)) {
                continue;
            }
            let mut enc = Encoder::new(&tr);
            let t0 = Instant::now();
            enc.set_deps(sdg.trace_deps(p, &tr), opts.sdg);
            stats.sdg_ms += t0.elapsed().as_secs_f64() * 1000.0;
            enc.prefilter = tuning.prefilter;
            enc.per_query = tuning.per_query;
            // Validity per query pays every validity constraint again: keep the fewest up front.
            enc.lazy_existence = tuning.per_query;
            enc.bare_solve = tuning.bare_solve;
            enc.paired_solve = tuning.paired_solve;
            enc.check_prefilter = tuning.check_prefilter;
            enc.z3_allowed = z3;
            enc.canonical = tuning.canonical_seeds;
            enc.await_threads = await_threads.clone();
            if let Some(s) = tuning.solver_seed {
                enc.set_random_seed(s);
            }
            // The search's view of the trace, built on the first query the pre-check leaves.
            let space = std::cell::OnceCell::new();
            let mut fresh: Vec<Seed> = Vec::new();
            for target in enc.targets() {
                if stop(&mut stats) {
                    break;
                }
                // Only new targets: reads after the seed's prefix, with the prefix kept; and
                // reads (locks) in the prefix only with a source write (unlock) after it, solved
                // without keeping the prefix. The trace the seed came from tried the prefix's
                // reads with its own writes, but not with writes that only this trace has:
                // such a read can move after the seed's target and read a write that the new
                // value of the target made possible (found on peterson_fence under PSO, where
                // which seeds come up depends on the model Z3 returns).
                let (after_prefix, new_source) = match target {
                    Target::Final { cell, .. } => (cell >= seed_min_cell, false),
                    Target::Read { event, from, .. } => {
                        (event >= min_event, from.is_some_and(|f| f >= min_event))
                    }
                    Target::Lock { event, after } => {
                        (event >= min_event, after.is_some_and(|a| a >= min_event))
                    }
                };
                if tuning.only_new_targets && !after_prefix && !new_source {
                    continue;
                }
                let left = ctl.deadline().map(|d| d.saturating_duration_since(Instant::now()).as_millis().min(u32::MAX as u128) as u32);
                let t0 = Instant::now();
                let keep = if tuning.only_new_targets && after_prefix {
                    min_event
                } else {
                    0
                };
                let answer = decide(
                    &mut enc, &tr, &space, &target, keep, left, tuning, &mut stats,
                );
                if enc.z3_wanted {
                    return None;
                }
                stats.solver_ms += t0.elapsed().as_secs_f64() * 1000.0;
                stats.queries += 1;
                match answer {
                    Answer::Sat(order) => {
                        let choices: Vec<Choice> =
                            order.iter().map(|&i| choice_of(&tr, i)).collect();
                        if seen_seeds.insert(choices.clone()) {
                            let expect = order.iter().map(|&i| tr.events[i].clone()).collect();
                            let (min_event, min_cell) = match target {
                                Target::Final { cell, .. } => (order.len(), cell + 1),
                                _ => (order.len(), 0),
                            };
                            let target_at = target
                                .event()
                                .and_then(|e| order.iter().position(|&i| i == e));
                            fresh.push(Seed {
                                choices,
                                expect,
                                target: target.clone(),
                                min_event,
                                min_cell,
                                target_at,
                                parent: run,
                            });
                        }
                    }
                    Answer::Unsat => {}
                    Answer::Unknown => {
                        stats.complete = false;
                    }
                }
            }
            stats.constraints += enc.constraints;
            stats.add_z3(&enc.counts);
            stats.prefiltered += enc.skipped;
            stats.prefilter_wrong += enc.prefilter_wrong;
            // Depth-first, in target order.
            work.extend(fresh.into_iter().rev());
        }
    }
    if !work.is_empty() {
        stats.complete = false;
    }
    stats.causal_states = causal.len() as u64;
    Some(stats)
}

/// Decides one query: the static pre-check, then the causal search over the trace (`space`,
/// built on first use), then Z3 if the search gives up; with no search budget, the pre-check
/// and Z3.
#[allow(clippy::too_many_arguments)]
fn decide<'t>(
    enc: &mut Encoder<'t>,
    tr: &'t Trace,
    space: &std::cell::OnceCell<Option<search::Space<'t>>>,
    target: &Target,
    keep: usize,
    left: Option<u32>,
    tuning: Tuning,
    stats: &mut McrStats,
) -> Answer {
    if tuning.search_budget == 0 {
        let answer = enc.solve(target, keep, left);
        if tuning.witness_budget > 0 && matches!(answer, Answer::Sat(_)) {
            let found = match space.get_or_init(|| search::Space::new(tr)) {
                Some(space) => {
                    space
                        .search(
                            target,
                            keep,
                            tuning.witness_budget,
                            None,
                            stop_of(enc, target),
                        )
                        .found
                }
                None => search::Found::GaveUp,
            };
            match found {
                search::Found::Sat(pos) => {
                    stats.witnesses += 1;
                    return Answer::Sat(enc.seed_order(target, keep, &pos, i64::MAX));
                }
                search::Found::Unsat => stats.search_missed += 1,
                search::Found::GaveUp => stats.search_gave_up += 1,
            }
        }
        return answer;
    }
    let hints = match enc.precheck(target, keep, left) {
        Precheck::Impossible => return Answer::Unsat,
        Precheck::Possible(hints) => hints,
    };
    let Some(space) = space.get_or_init(|| search::Space::new(tr)) else {
        return enc.solve_z3(target, keep, left);
    };
    let searched = space.search(
        target,
        keep,
        tuning.search_budget,
        hints.as_ref(),
        stop_of(enc, target),
    );
    stats.search_states += searched.states as u64;
    let answer = match searched.found {
        search::Found::GaveUp => {
            stats.search_gave_up += 1;
            return enc.solve_z3(target, keep, left);
        }
        search::Found::Sat(pos) => Answer::Sat(enc.seed_order(target, keep, &pos, i64::MAX)),
        search::Found::Unsat => Answer::Unsat,
    };
    stats.searched += 1;
    if tuning.check_search {
        match (&answer, &enc.solve_z3(target, keep, left)) {
            (Answer::Unsat, Answer::Sat(_)) => stats.search_missed += 1,
            (Answer::Sat(_), Answer::Unsat) => stats.search_extra += 1,
            _ => {}
        }
    }
    answer
}

/// Where a read target's thread leaves the prefix ([`Encoder::stop_after`]), for the search.
fn stop_of(enc: &Encoder<'_>, target: &Target) -> Option<usize> {
    match *target {
        Target::Read { event, .. } => enc.stop_after(event),
        _ => None,
    }
}

/// A hash of an execution's causal state (see [`McrStats::causal_states`]): its trace events per
/// thread, without flushes and pending locks, and the state it ended in.
fn causal_hash(events: &[Ev], end: &State) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    let threads = events.iter().map(|e| e.thread + 1).max().unwrap_or(0);
    for t in 0..threads {
        for e in events
            .iter()
            .filter(|e| e.thread == t && !e.pending && !matches!(e.kind, EvKind::Flush { .. }))
        {
            e.kind.hash(&mut h);
        }
        u32::MAX.hash(&mut h);
    }
    end.mem.hash(&mut h);
    end.status().hash(&mut h);
    h.finish()
}

/// A trace prefix up to the order of its events: each thread's own steps in program order and,
/// per thread and cell, how many of its stores have been flushed (flushes are FIFO per thread
/// and cell, so the count says which). The maximal causal model of a trace depends only on this
/// (and on how the trace continues, which the state after the prefix determines). Each thread's
/// steps are an id in [`Steps`], so extending a prefix by one event costs one lookup: default
/// runs add every point they pass.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Canon {
    steps: Vec<u32>,
    /// Indexed by `thread * cells + cell`.
    flushed: Vec<u32>,
    cells: usize,
}

/// A point of an execution, its state and its steps (see the module's doc), as a 128-bit
/// fingerprint: 16 bytes per point whatever the size of the state (a store buffer grows with
/// every iteration of a loop that only stores). Two different points share a fingerprint with
/// probability about `n^2 / 2^129` for `n` points, far below any other cause of error.
type Point = u128;

/// The fingerprint of a point (SipHash-1-3 with fixed keys, so runs are deterministic).
fn point(st: &State, canon: &Canon) -> Point {
    use siphasher::sip128::{Hasher128, SipHasher13};
    use std::hash::Hash;
    let mut h = SipHasher13::new_with_keys(0x6c69_746d_7573_2d6d, 0x6372_2d70_6f69_6e74);
    st.hash(&mut h);
    canon.hash(&mut h);
    h.finish128().as_u128()
}

/// A default run: its committed prefix (its seed) and the first cell whose final value its
/// trace asks about.
struct Run {
    committed: Canon,
    min_cell: u32,
    /// Whether a trace of the run was analysed for new seeds (not one whose target round was
    /// retried, which seeds nothing). A run covers a later one that reaches a point it passed
    /// (it asked every query the later one would) when it was analysed and its committed prefix
    /// is [`Run::within`] the later one's.
    seeded: bool,
    /// The run whose trace the seed came from (`u32::MAX`: none).
    parent: u32,
}

/// Whether run `a` is `b` or an ancestor of it (`b`'s seed came from `a`'s trace, or from a
/// trace of a run `a` is an ancestor of).
fn is_ancestor(runs: &[Run], a: u32, b: u32) -> bool {
    let mut r = b;
    while r != u32::MAX {
        if r == a {
            return true;
        }
        r = runs[r as usize].parent;
    }
    false
}

impl Run {
    /// Whether this run's committed prefix is part of `other`'s, both being prefixes of the same
    /// point (so per thread, the shorter step sequence is a prefix of the longer one).
    fn within(&self, other: &Run, ids: &Steps) -> bool {
        let (a, b) = (&self.committed, &other.committed);
        self.min_cell <= other.min_cell
            && a.steps
                .iter()
                .zip(&b.steps)
                .all(|(&x, &y)| ids.len(x) <= ids.len(y))
            && a.flushed.iter().zip(&b.flushed).all(|(x, y)| x <= y)
    }
}

/// Interns step sequences: a sequence's id is that of its last step after its prefix's id (0 is
/// the empty sequence). Equal sequences get equal ids, exactly (keys are compared in full).
/// `lens[id - 1]` is the length of sequence `id`.
#[derive(Default)]
struct Steps {
    ids: rustc_hash::FxHashMap<(u32, Ev), u32>,
    lens: Vec<u32>,
}

impl Steps {
    fn len(&self, id: u32) -> u32 {
        id.checked_sub(1)
            .and_then(|i| self.lens.get(i as usize))
            .copied()
            .unwrap_or(0)
    }
}

impl Canon {
    fn new(threads: usize, cells: usize) -> Canon {
        Canon {
            steps: vec![0; threads],
            flushed: vec![0; threads * cells],
            cells,
        }
    }

    fn of(evs: &[Ev], threads: usize, cells: usize, ids: &mut Steps) -> Canon {
        let mut c = Canon::new(threads, cells);
        for e in evs {
            c.push(e, ids);
        }
        c
    }

    fn push(&mut self, e: &Ev, ids: &mut Steps) {
        match e.kind {
            EvKind::Flush { cell, .. } => {
                if let Some(n) = self.flushed.get_mut(e.thread * self.cells + cell as usize) {
                    *n += 1;
                }
            }
            _ => {
                if let Some(id) = self.steps.get(e.thread).copied() {
                    let next = ids.ids.len() as u32 + 1;
                    let len = ids.len(id) + 1;
                    self.steps[e.thread] = *ids.ids.entry((id, e.clone())).or_insert_with(|| {
                        ids.lens.push(len);
                        next
                    });
                }
            }
        }
    }
}

fn discriminant(k: &EvKind) -> (u8, Option<u32>) {
    match *k {
        EvKind::Local => (0, None),
        EvKind::Store { cell, .. } => (1, Some(cell)),
        EvKind::Flush { cell, .. } => (2, Some(cell)),
        EvKind::Load { cell, .. } => (3, Some(cell)),
        EvKind::Rmw { cell, .. } => (4, Some(cell)),
        EvKind::Fence => (5, None),
        EvKind::Lock { mutex } => (6, Some(mutex)),
        EvKind::Unlock { mutex } => (7, Some(mutex)),
    }
}

/// Whether the replayed prefix did what the seed asked: every read but the target kept its
/// trace value, and the target read its new value.
fn seed_reached(seed: &Seed, evs: &[Ev], st: &State) -> bool {
    if evs.len() != seed.expect.len() {
        return false;
    }
    for (k, (got, want)) in evs.iter().zip(&seed.expect).enumerate() {
        let is_target = Some(k) == seed.target_at;
        match (got.kind.read(), want.kind.read()) {
            (Some((_, g)), Some((_, w))) => {
                if is_target {
                    if let Target::Read { value, .. } = seed.target {
                        if g != value {
                            return false;
                        }
                    }
                } else if g != w {
                    return false;
                }
            }
            (None, None) => {}
            _ => return false,
        }
    }
    if let Target::Final { cell, value } = seed.target {
        if cell != u32::MAX && st.mem.get(cell as usize) != Some(&value) {
            return false;
        }
    }
    true
}

/// Whether thread `t` has just begun an `await` round (its last local step was the round's
/// `AwaitBegin`).
fn at_round_begin(p: &Program, st: &State, t: usize) -> bool {
    let Some(ts) = st.threads.get(t) else {
        return false;
    };
    ts.awaiting.is_none()
        && ts.pc > 0
        && p.threads[t]
            .code
            .get(ts.pc as usize - 1)
            .is_some_and(|i| i.kind == InstrKind::AwaitBegin)
}

/// Whether thread `t` was woken from a parked `await` and must run its wake-up step.
fn wake_pending(p: &Program, st: &State, t: usize) -> bool {
    let Some(ts) = st.threads.get(t) else {
        return false;
    };
    ts.awaiting.is_none()
        && p.threads[t]
            .code
            .get(ts.pc as usize)
            .is_some_and(|i| i.kind == InstrKind::AwaitBegin)
}

/// The MCR view of one interpreter step from `before` to `after`, or `None` for a step with no
/// shared effect (the wake-up step of a parked `await`). `evs` are the trace's events so far
/// (to find the store a flush publishes).
fn observe(p: &Program, ev: &Event, before: &State, after: &State, evs: &[Ev]) -> Option<Ev> {
    let cell = ev.cell.unwrap_or(0);
    let value = ev.value.unwrap_or(0);
    let kind = match ev.action {
        Action::Load => EvKind::Load { cell, value },
        Action::Store => EvKind::Store { cell, value },
        Action::Flush => {
            let store = evs
                .iter()
                .rposition(|e| {
                    matches!(e.kind, EvKind::Store { .. })
                        && e.write.is_some()
                        && e.write == ev.write
                })
                .unwrap_or(usize::MAX);
            EvKind::Flush { cell, value, store }
        }
        Action::Rmw => EvKind::Rmw {
            cell,
            read: value,
            write: ev.stored,
            op: rmw_fn(p, before, ev.thread).filter(|f| f.write(value) == ev.stored),
        },
        Action::Fence => EvKind::Fence,
        Action::Lock => EvKind::Lock {
            mutex: ev.mutex.unwrap_or(0),
        },
        Action::Unlock => EvKind::Unlock {
            mutex: ev.mutex.unwrap_or(0),
        },
        _ => return None,
    };
    let t = ev.thread;
    let (mut failed_check, mut round_start) = (false, false);
    if ev.action != Action::Flush {
        if let (Some(b), Some(a)) = (before.threads.get(t), after.threads.get(t)) {
            let begun = at_round_begin(p, after, t);
            failed_check =
                b.await_dirty.is_some() && (a.awaiting.is_some() || (begun && a.pc <= b.pc));
            round_start = !failed_check && begun;
        }
    }
    let write = match ev.action {
        Action::Store | Action::Flush => ev.write,
        _ => None,
    };
    let pc = if ev.action == Action::Flush {
        u32::MAX
    } else {
        before.threads.get(t).map_or(u32::MAX, |ts| ts.pc)
    };
    Some(Ev {
        thread: t,
        kind,
        failed_check,
        round_start,
        write,
        pending: false,
        pc,
    })
}

/// The locks that threads (but `except`, whose step ended the execution) wait for in the final
/// state `st` of an execution that did not finish: each is a mutex another thread holds.
fn pending_locks(p: &Program, st: &State, except: Option<usize>) -> Vec<Ev> {
    let mut out = Vec::new();
    for (t, ts) in st.threads.iter().enumerate() {
        if Some(t) == except || ts.awaiting.is_some() {
            continue;
        }
        let Some(InstrKind::Lock(m)) = p.threads[t].code.get(ts.pc as usize).map(|i| &i.kind)
        else {
            continue;
        };
        if st
            .locks
            .get(*m as usize)
            .copied()
            .flatten()
            .is_some_and(|o| o as usize != t)
        {
            out.push(Ev {
                thread: t,
                kind: EvKind::Lock { mutex: *m },
                failed_check: false,
                round_start: false,
                write: None,
                pending: true,
                pc: ts.pc,
            });
        }
    }
    out
}

/// The write function of the RMW thread `t` is about to run in `st` (its operands evaluated).
fn rmw_fn(p: &Program, st: &State, t: usize) -> Option<RmwFn> {
    let ts = st.threads.get(t)?;
    let InstrKind::Rmw { op, args, .. } = &p.threads.get(t)?.code.get(ts.pc as usize)?.kind else {
        return None;
    };
    let arg = |k: usize| {
        args.get(k)
            .map(|a| a.eval(&ts.regs).ok())
            .unwrap_or(Some(0))
    };
    Some(RmwFn {
        op: *op,
        args: [arg(0)?, arg(1)?],
    })
}

/// The trace of an execution's MCR events, and how many of its first `committed` events (the
/// seed prefix) remain in it.
fn make_trace(
    p: &Program,
    model: Model,
    in_round: &[bool],
    events: Vec<Ev>,
    end: End,
    committed: usize,
) -> (Trace, usize) {
    let (events, committed) = drop_failed_rounds(events, in_round, committed);
    let tr = Trace {
        model,
        threads: p.threads.len(),
        init: p.init.clone(),
        in_round_at_start: in_round.to_vec(),
        events,
        end,
    };
    (tr, committed)
}

/// The trace without the `await` rounds that failed and were retried, and how many of its first
/// `committed` events remain. A failed round changes nothing (its loads fill temporaries that are
/// cleared and the thread goes back to the start of the `await`), so the execution without it is
/// the same execution with the thread scheduled later, and the maximal causal model need not
/// distinguish how often a thread spun. A failed round stays when it is its thread's last round
/// (the thread ends parked there: a deadlock, or parked when another thread ended the
/// execution): its loads are targets like any other reads.
fn drop_failed_rounds(events: Vec<Ev>, in_round: &[bool], committed: usize) -> (Vec<Ev>, usize) {
    let n = events.len();
    let threads = in_round.len();
    let mut ghost = vec![false; n];
    // Per thread: where its current round began (index of its first event in the round).
    let mut begin: Vec<Option<usize>> = (0..threads).map(|t| in_round[t].then_some(0)).collect();
    let mut last_own: Vec<Option<usize>> = vec![None; threads];
    let mut failed: Vec<(usize, usize, usize)> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if matches!(e.kind, EvKind::Flush { .. }) || e.thread >= threads {
            continue;
        }
        let t = e.thread;
        last_own[t] = Some(i);
        if begin[t].is_none() {
            begin[t] = Some(i);
        }
        if e.failed_check {
            // The round's loads: the thread's events from the round's beginning to here.
            failed.push((t, begin[t].unwrap_or(i), i));
            begin[t] = None;
        } else if e.round_start || !matches!(e.kind, EvKind::Load { .. }) {
            begin[t] = None;
        }
    }
    for (t, from, to) in failed {
        let last = last_own[t] == Some(to);
        let members: Vec<usize> = (from..=to)
            .filter(|&j| events[j].thread == t && !matches!(events[j].kind, EvKind::Flush { .. }))
            .collect();
        let is_round = members
            .iter()
            .all(|&j| matches!(events[j].kind, EvKind::Load { .. }));
        if !last && is_round {
            for j in members {
                ghost[j] = true;
            }
        }
    }
    if !ghost.iter().any(|&g| g) {
        return (events, committed);
    }
    let kept_committed = (0..committed.min(n)).filter(|&i| !ghost[i]).count();
    let mut new_index = vec![usize::MAX; n];
    let mut k = 0;
    for i in 0..n {
        if !ghost[i] {
            new_index[i] = k;
            k += 1;
        }
    }
    let events = events
        .into_iter()
        .enumerate()
        .filter(|&(i, _)| !ghost[i])
        .map(|(_, mut e)| {
            if let EvKind::Flush { store, .. } = &mut e.kind {
                *store = new_index.get(*store).copied().unwrap_or(usize::MAX);
            }
            e
        })
        .collect();
    (events, kept_committed)
}

/// The trace of the execution that runs `choices` from the initial state and then, as the
/// explorer's default scheduler does, the first enabled choice until the end (for tests of what
/// is computed from traces).
#[cfg(test)]
pub(crate) fn trace_of(p: &Program, model: Model, choices: &[Choice]) -> Trace {
    let mut st = State::initial(p, model);
    let in_round: Vec<bool> = (0..st.threads.len())
        .map(|t| at_round_begin(p, &st, t))
        .collect();
    let mut evs: Vec<Ev> = Vec::new();
    let mut k = 0;
    while st.is_running() {
        let c = match choices.get(k) {
            Some(&c) => c,
            None => match st.enabled(p).first() {
                Some(&c) => c,
                None => break,
            },
        };
        k += 1;
        let before = st.clone();
        let Some(ev) = st.try_step(p, c) else { break };
        if let Some(e) = observe(p, &ev, &before, &st, &evs) {
            evs.push(e);
        }
    }
    let end = if *st.status() == Status::Finished {
        End::Final
    } else {
        End::Cut
    };
    make_trace(p, model, &in_round, evs, end, 0).0
}

/// The interpreter choice that runs event `i` of a trace.
fn choice_of(tr: &Trace, i: usize) -> Choice {
    let e = &tr.events[i];
    match e.kind {
        EvKind::Flush { cell, .. } => Choice::flush(tr.model, e.thread, cell),
        _ => Choice::Exec(e.thread),
    }
}

/// The `EngineKind::Mcr` entry point: explores `program` under `model` and feeds every
/// execution to `col`, adding MCR's counters (constraints, solver time) to its stats and
/// marking it incomplete when stopped early.
pub fn explore(
    program: &Program,
    model: Model,
    opts: &CheckOptions,
    ctl: &Control,
    col: &mut crate::collect::Collector<'_>,
) {
    // `--first`: MCR stops as on cancellation, through a flag of its own so that the caller's
    // is left alone; the caller's cancellation is passed on at each execution.
    let own = Control::new();
    let inner = if col.first { &own } else { ctl };
    let stats = explore_with(program, model, opts, inner, Tuning::default(), &mut |ex| {
        col.end(ex.state, ex.events);
        ctl.report(&col.progress());
        if col.stopped_first() || ctl.is_cancelled() {
            own.cancel();
        }
    });
    col.stats.constraints += stats.constraints;
    col.stats.solver_ms += stats.solver_ms;
    col.stats.queries += stats.queries;
    if !stats.complete {
        col.complete = false;
    }
    if let Some(why) = stats.sdg_skipped {
        col.warnings.push(crate::report::Warning {
            message: format!(
                "the dependency graph was not built ({why}): every read stays constrained, \
                 which is exact but slower"
            ),
            span: None,
        });
    }
}
