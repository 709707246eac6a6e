//! The MCR loop: replay a seed, continue it with the default scheduler, report the execution,
//! and decide the queries of its trace; each satisfiable answer is a new seed.

use super::decide::{Chain, Query};
use super::encode::{Answer, Encoder, EncoderOptions, Target};
use super::observe::{
    at_round_begin, causal_hash, make_trace, observe, pending_locks, retry_cut, wake_pending,
    CausalHasher, Stores,
};
use super::prune::{Canon, Points};
use super::seed::{choice_of, discriminant, seed_reached, Seed};
use super::trace::{End, Trace, TraceEvent};
use super::{Execution, McrStats, Tuning};
use crate::collect::WorkFn;
use crate::control::Control;
use crate::ids::EventId;
use crate::ir::{InstrKind, Program};
use crate::options::CheckOptions;
use crate::report::{Model, ViolationKind};
use crate::sdg::Sdg;
use crate::semantics::{Choice, Event, State, Status};
use std::collections::HashSet;
use std::time::Instant;

mod report;
mod targets;

use targets::{precedes_prefix_lock, rmw_target};

/// Where executions go.
pub(super) type Sink<'s> = &'s mut (dyn FnMut(&Execution<'_>) + Send + Sync);

/// Runs MCR on `p` under `model`, handing every execution to `sink`.
pub fn explore_with(
    p: &Program,
    model: Model,
    opts: &CheckOptions,
    ctl: &Control,
    tuning: Tuning,
    sink: Sink<'_>,
) -> McrStats {
    explore_counted(p, model, opts, ctl, tuning, None, sink)
}

/// [`explore_with`], counting work on `work` (the `auto` portfolio's meter): one unit per
/// poll while the dependency graph is built (every 256 instructions of each pass), one more
/// if it was skipped, one per stop check of the loop ([`Explorer::stop`]: before each seed and
/// each replayed step), and each decided query's share ([`Explorer::count_query`]: half a
/// unit, and a quarter per state of the causal search and per unit of Z3's resource count),
/// in both explorations when Z3 is needed.
pub(crate) fn explore_counted(
    p: &Program,
    model: Model,
    opts: &CheckOptions,
    ctl: &Control,
    tuning: Tuning,
    work: Option<WorkFn>,
    sink: Sink<'_>,
) -> McrStats {
    let count = |n: u64| work.iter().for_each(|w| w(n));
    // Most explorations never reach Z3 (the pre-check and the causal search decide), and a Z3
    // context costs a few milliseconds. So explore without one first; only if a query needs
    // Z3, explore again in a context of its own, not handing `sink` again what it has: the
    // run is deterministic and Z3 decides nothing before that query. Not the thread's default
    // context: it keeps earlier explorations' terms, and the seeds could then depend on what
    // ran before on the thread (a language server checks many files). The dependency graph,
    // built once for both runs, decides which steps after a read target may stay in the
    // prefix (`Encoder::stop_after`) even without MCR-S+ (`opts.sdg`).
    let start = Instant::now();
    let sdg = Sdg::with_stop(p, || {
        count(1);
        ctl.should_stop()
    });
    let skipped = sdg.skipped.clone().filter(|_| {
        count(1);
        !ctl.should_stop()
    });
    let sdg_ms = start.elapsed().as_secs_f64() * 1000.0;
    let mut handed = 0u64;
    let common = Common {
        p,
        model,
        opts,
        ctl,
        tuning,
        sdg: &sdg,
        sdg_ms,
        count: &count,
    };
    let first = Explorer::new(&common, false).run(&mut |ex| {
        handed += 1;
        sink(ex)
    });
    let mut stats = match first {
        Some(stats) => stats,
        None => z3::with_z3_config(&z3::Config::new(), || {
            let _z3_watch = crate::solver_watch::Watch::new(ctl); // Z3 stops with `ctl`.
            let mut skip = handed;
            let again = Explorer::new(&common, true).run(&mut |ex| {
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

/// What both explorations share.
struct Common<'a> {
    p: &'a Program,
    model: Model,
    opts: &'a CheckOptions,
    ctl: &'a Control,
    tuning: Tuning,
    sdg: &'a Sdg,
    sdg_ms: f64,
    /// Counts work for the portfolio.
    count: &'a (dyn Fn(u64) + Sync),
}

/// One exploration, with or without a Z3 context.
struct Explorer<'a> {
    count: &'a (dyn Fn(u64) + Sync),
    /// Work of decided queries not yet counted, in quarters of a unit ([`Explorer::count_query`]).
    query_quarters: u64,
    p: &'a Program,
    model: Model,
    opts: &'a CheckOptions,
    ctl: &'a Control,
    tuning: Tuning,
    sdg: &'a Sdg,
    /// Whether a Z3 context is there: without one, a query that needs Z3 ends the exploration.
    z3: bool,
    stats: McrStats,
    points: Points,
    /// Threads whose code has an `await`.
    await_threads: Vec<bool>,
    /// Causal states of the executions ([`McrStats::causal_states`]).
    causal: HashSet<u64>,
    /// Seeds and traces already handled: equal ones are handled once.
    seen_seeds: HashSet<Vec<Choice>>,
    seen_traces: HashSet<(Vec<TraceEvent>, usize, u32)>,
    /// Seeds still to run, the next last.
    work: Vec<Seed>,
}

/// The execution so far: a seed's prefix replayed, then extended by the default run.
struct Replayed {
    st: State,
    /// Per thread: whether it starts inside an `await` round.
    in_round: Vec<bool>,
    /// The interpreter's steps, and the MCR events among them.
    events: Vec<Event>,
    evs: Vec<TraceEvent>,
    /// Where the stores of `evs` are.
    stores: Stores,
}

/// A query needed Z3 and there is no context to solve in.
struct NeedZ3;

impl<'a> Explorer<'a> {
    fn new(c: &Common<'a>, z3: bool) -> Explorer<'a> {
        Explorer {
            count: c.count,
            query_quarters: 0,
            p: c.p,
            model: c.model,
            opts: c.opts,
            ctl: c.ctl,
            tuning: c.tuning,
            sdg: c.sdg,
            z3,
            stats: McrStats {
                complete: true,
                sdg_ms: c.sdg_ms,
                ..McrStats::default()
            },
            points: Points::new(&c.tuning),
            await_threads: c
                .p
                .threads
                .iter()
                .map(|t| t.code.iter().any(|i| i.kind == InstrKind::AwaitBegin))
                .collect(),
            causal: HashSet::new(),
            seen_seeds: HashSet::new(),
            seen_traces: HashSet::new(),
            work: vec![Seed::initial()],
        }
    }

    /// Counts a decided query's work for the portfolio: half a unit for the query, a quarter
    /// per state the causal search expanded, a quarter per unit of Z3's resource count. The
    /// queries are where MCR spends most of its time on many programs (a dev program of the
    /// engine benchmark's held-out generator: 57,885 units of seeds and steps in 2 s, 1.95 s
    /// of it deciding queries, 4.8 million states of causal search), and a meter blind to them let
    /// MCR run for seconds beside a member that had finished with more counted work (the
    /// portfolio waits for it: its counted work might still have come out least). The shares
    /// are least squares of MCR's CPU time over its counts on dev seeds 0-199 of that
    /// generator, the corpus and the MCR paper's Example under PSO (about 1.2 µs per unit,
    /// 0.33 µs per search state, 0.5 µs per query), Z3's from its own time per resource unit
    /// (0.22-0.44 µs on the runs that reached Z3). All are deterministic, so the count is.
    fn count_query(&mut self, search_states: u64, z3_work: u64) {
        self.query_quarters += 2 + search_states + z3_work;
        let units = self.query_quarters / 4;
        if units > 0 {
            self.query_quarters %= 4;
            (self.count)(units);
        }
    }

    /// Whether to stop (cancelled or out of time); the exploration is then incomplete.
    fn stop(&mut self) -> bool {
        (self.count)(1);
        let out = self.ctl.should_stop();
        if out {
            self.stats.complete = false;
        }
        out
    }

    /// The exploration; `None` if a query needed Z3 and there is no context to solve in.
    fn run(mut self, sink: Sink<'_>) -> Option<McrStats> {
        let (threads, cells) = (self.p.threads.len(), self.p.cells.len());
        while let Some(seed) = self.work.pop() {
            if self.stop() {
                break;
            }
            // 1. Replay the seed prefix.
            let mut replayed = self.replay(&seed);
            let mut canon = self.points.canon(&replayed.evs, threads, cells);
            let run = self.points.next_run();
            if !self
                .points
                .start_run(&replayed.st, &canon, seed.min_cell, seed.parent)
            {
                self.stats.pruned += 1;
                continue;
            }
            // 2. Run the default scheduler to the end.
            let (merged, endings) = self.default_run(run, &mut replayed, &mut canon, sink);
            if !self.stats.complete {
                // Stopped: the run's states and events (a million steps on a long loop) are
                // freed meanwhile, like the rest below.
                crate::explore::drop_in_background((replayed, canon));
                break;
            }
            if merged {
                self.points.undo();
                self.stats.merged += 1;
                continue;
            }
            // 3. Report and collect the traces to analyse.
            let mut traces = self.report(&replayed, endings, seed.min_event, sink);
            // A round of the seed's prefix (the target's, typically) failed and its thread
            // retried it: the whole trace lost the round with its loads (`drop_failed_rounds`),
            // and with them the other values those loads could take together with the target's
            // new one (an `await` on two loads of `x` that needs both to read 1). The trace is
            // cut before the first retry instead, where the round is its thread's last and
            // stays; everything after the cut is the parent's execution with the thread
            // scheduled later, whose values are targets of the parent trace.
            let retried = traces.iter().any(|(_, m)| *m < seed.min_event);
            if retried {
                traces.clear();
                // (No retry among the run's events: the retry is the step that ended it.)
                let evs = &replayed.evs;
                let cut = retry_cut(evs, &replayed.in_round, seed.min_event, self.model)
                    .unwrap_or(evs.len());
                let (p, model) = (self.p, self.model);
                let evs = evs[..cut].to_vec();
                let cut = make_trace(p, model, &replayed.in_round, evs, End::Cut, seed.min_event);
                if cut.1 == seed.min_event {
                    traces.push(cut);
                }
            }
            // 4. New seeds from each trace's maximal causal model.
            for (tr, min_event) in traces {
                if min_event < seed.min_event {
                    continue;
                }
                if !retried {
                    // A cut trace's queries do not cover the run's: no run merges into it.
                    self.points.seeded(run);
                }
                if !self
                    .seen_traces
                    .insert((tr.events.clone(), min_event, seed.min_cell))
                {
                    continue;
                }
                let new_write = rmw_target(&seed, &tr);
                let fresh = self
                    .analyse(&tr, (min_event, new_write), seed.min_cell, run)
                    .ok()?;
                // Depth-first, in target order.
                self.work.extend(fresh.into_iter().rev());
            }
        }
        if !self.work.is_empty() {
            self.stats.complete = false;
        }
        self.stats.causal_states = self.causal.len() as u64;
        if !self.stats.complete {
            // A stopped exploration returns at once; what it built is freed meanwhile.
            crate::explore::drop_in_background((
                self.points,
                self.causal,
                self.seen_seeds,
                self.seen_traces,
                self.work,
            ));
        }
        Some(self.stats)
    }

    /// Replays `seed`'s prefix, checking that it reproduces the solved events (a mismatch
    /// counts as diverged). The wake-up step of a parked `await` is not in traces: it runs on
    /// demand, right before the thread's next step.
    fn replay(&mut self, seed: &Seed) -> Replayed {
        let p = self.p;
        let mut st = State::initial(p, self.model);
        let in_round: Vec<bool> = (0..st.threads.len())
            .map(|t| at_round_begin(p, &st, t))
            .collect();
        let mut events: Vec<Event> = Vec::new();
        let mut evs: Vec<TraceEvent> = Vec::new();
        let mut stores = Stores::default();
        let mut ok = true;
        for (k, &c) in seed.choices.iter().enumerate() {
            if self.stop() {
                ok = false;
                break;
            }
            if let Choice::Exec(t) = c {
                if wake_pending(p, &st, t) {
                    let before = st.clone();
                    if let Some(ev) = st.try_step(p, c) {
                        if let Some(e) = observe(p, &ev, &before, &st, &stores) {
                            stores.note(evs.len(), &e);
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
            let e = observe(p, &ev, &before, &st, &stores);
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
                stores.note(evs.len(), &e);
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
        if ok && !seed_reached(seed, &evs, &st) {
            ok = false;
        }
        if !ok {
            self.stats.diverged += 1;
        }
        Replayed {
            st,
            in_round,
            events,
            evs,
            stores,
        }
    }

    /// Runs the default scheduler from `st` to the end of the execution, recording the points
    /// it passes for run `run`: whether the run merged into an earlier one, and the executions
    /// it ended in (empty: `st` is the end). A choice that would end the execution (a
    /// violation, a failed assume, the loop bound, a deadlock) is taken only when every enabled
    /// choice would; then each of them is one execution.
    fn default_run(
        &mut self,
        run: u32,
        r: &mut Replayed,
        canon: &mut Canon,
        sink: Sink<'_>,
    ) -> (bool, Vec<(Event, State)>) {
        let p = self.p;
        let Replayed {
            st,
            in_round,
            events,
            evs,
            stores,
        } = r;
        // The causal state of each ending beside the run, kept up to date as the trace grows.
        let mut causal = CausalHasher::new(in_round.len());
        while st.is_running() {
            if self.stop() {
                break;
            }
            let en = st.enabled(p);
            let mut next = None;
            let mut ends: Vec<(Event, State)> = Vec::new();
            for &c in &en {
                // Each choice clones the state: with thousands of threads one step is long.
                if self.stop() {
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
            let Some((ev, s2)) = next else {
                return (false, ends);
            };
            // Endings the default scheduler steps around are real executions too: report them
            // (a deadlock reached by a lock order, say, needs no new read value). An ending's
            // steps are the run's so far and its own, pushed and popped rather than copied, and
            // its causal state comes from a running hash: a TSO loop has an ending beside every
            // flush, and work over the whole trace per step made it quadratic in its bound.
            if !ends.is_empty() {
                causal.catch_up(evs);
            }
            for (ev, s2) in &ends {
                self.count(s2);
                self.causal.insert(causal.hash(s2));
                events.push(ev.clone());
                sink(&Execution { events, state: s2 });
                events.pop();
            }
            if let Some(e) = observe(p, &ev, st, &s2, stores) {
                self.points.push(canon, &e);
                stores.note(evs.len(), &e);
                evs.push(e);
            }
            events.push(ev);
            *st = s2;
            if self.points.pass(st, canon, run) {
                return (true, Vec::new());
            }
        }
        (false, Vec::new())
    }

    /// Decides the queries of trace `tr` of run `run`, whose first `min_event` events (and
    /// final values of the cells before `min_cell`) are its committed prefix: the new seeds,
    /// in target order. `new_write` is the seed's RMW target, the one write of the prefix whose
    /// value the parent trace did not have (see [`rmw_target`]).
    fn analyse(
        &mut self,
        tr: &Trace,
        (min_event, new_write): (usize, Option<EventId>),
        min_cell: u32,
        run: u32,
    ) -> Result<Vec<Seed>, NeedZ3> {
        let (p, tuning) = (self.p, self.tuning);
        // The chain before the encoder, so that the encoder's solver is dropped first: the
        // benchmark's side solvers (in the chain) share its Z3 context, and the order in which
        // Z3 frees terms decides the ids of later ones, hence which models Z3 returns.
        let mut chain = Chain::new(tr, &tuning);
        let t0 = Instant::now();
        let deps = self.sdg.trace_deps(p, tr);
        self.stats.sdg_ms += t0.elapsed().as_secs_f64() * 1000.0;
        let mut enc = Encoder::new(
            tr,
            deps,
            EncoderOptions {
                prune: self.opts.sdg,
                per_query: tuning.per_query,
                // Validity per query pays every validity constraint again: keep the fewest up
                // front.
                lazy_existence: tuning.per_query,
                canonical: tuning.canonical_seeds,
                await_threads: self.await_threads.clone(),
                solver_seed: tuning.solver_seed,
                z3_allowed: self.z3,
            },
        );
        let mut fresh: Vec<Seed> = Vec::new();
        for target in enc.targets() {
            if self.stop() {
                break;
            }
            // Only new targets: reads after the seed's prefix, with the prefix kept; and reads
            // (locks) in the prefix only with a source write (unlock) after it, solved without
            // keeping the prefix. The trace the seed came from tried the prefix's reads with
            // its own writes, but not with writes that only this trace has: such a read can
            // move after the seed's target and read a write that the new value of the target
            // made possible (found on peterson_fence under PSO, where which seeds come up
            // depends on the model Z3 returns).
            let (after_prefix, new_source) = match target {
                Target::Final { cell, .. } => (cell >= min_cell, false),
                Target::Read { event, from, .. } => (
                    event.index() >= min_event,
                    from.is_some_and(|f| f.index() >= min_event || Some(f) == new_write),
                ),
                Target::Lock { event, after } => (
                    event.index() >= min_event,
                    after.is_some_and(|a| a.index() >= min_event),
                ),
            };
            if tuning.only_new_targets && !after_prefix && !new_source {
                continue;
            }
            let left = self.ctl.deadline().map(|d| {
                d.saturating_duration_since(Instant::now())
                    .as_millis()
                    .min(u32::MAX as u128) as u32
            });
            let t0 = Instant::now();
            let keep = if tuning.only_new_targets
                && after_prefix
                && !precedes_prefix_lock(tr, &target, min_event)
            {
                min_event
            } else {
                0
            };
            let query = Query {
                target: &target,
                keep,
                left,
            };
            let (states0, z3_work0) = (self.stats.search_states, enc.counts.work);
            let answer = chain.decide(&mut enc, &query, &mut self.stats);
            if enc.z3_wanted {
                return Err(NeedZ3);
            }
            self.count_query(
                self.stats.search_states - states0,
                enc.counts.work - z3_work0,
            );
            self.stats.solver_ms += t0.elapsed().as_secs_f64() * 1000.0;
            self.stats.queries += 1;
            match answer {
                Answer::Sat(order) => {
                    let choices: Vec<Choice> = order.iter().map(|&i| choice_of(tr, i)).collect();
                    if self.seen_seeds.insert(choices.clone()) {
                        fresh.push(Seed::new(tr, choices, &order, target, run));
                    }
                }
                Answer::Unsat => {}
                Answer::Unknown => {
                    self.stats.complete = false;
                }
            }
        }
        self.stats.constraints += enc.constraints;
        self.stats.add_z3(&enc.counts);
        self.stats.prefiltered += enc.skipped;
        Ok(fresh)
    }
}
