//! The maximal causal model of one trace as Z3 constraints, and the new-value queries on it.
//!
//! Implements [Huang and Huang 2016](docs/papers.md#huang-huang-2016) §2.3 (Φ_mhb ∧ Φ_lock ∧ Φ_validity ∧ Φ_state) and §4.1 (the
//! relaxed must-happen-before of TSO and PSO), with one correction: a write is two events, its
//! *issue* (program-ordered with the thread's other steps) and its *publish* (its flush under
//! TSO/PSO). A load by the issuing thread reads its newest own earlier store to the same cell when
//! that store's flush comes after the load (store forwarding), and memory otherwise. The paper
//! orders such a load after the store and reads memory, which loses x86-TSO test n6.
//!
//! Every event with a shared effect gets an integer order variable `O_e`; all are distinct. A
//! query picks a *target* — a read and a value it has not read in this trace, a lock and an
//! unlock it has not followed, or (for a trace that reached a final state) a cell and a final
//! value it did not have — and asks for an order. The *bound* `T` is the target's own order
//! variable (or lies after every event for a final-value target); the new interleaving's prefix is
//! every event ordered before `T`, plus the target. Constraints on events after `T` are vacuous
//! (they can always be ordered after the prefix), so:
//!
//! * must-happen-before (all events): each thread's non-flush events in program order; store
//!   issue before its flush; flushes in FIFO order per thread (TSO) or per thread and cell (PSO);
//!   a fence, lock, unlock or RMW after the flushes of its thread's earlier stores;
//! * lock mutual exclusion: two critical sections on one mutex whose locks are both in the prefix
//!   do not overlap;
//! * data validity: every read ordered before `T` reads the value it read in the trace, so each
//!   thread replays the same steps up to the prefix's end (local determinism);
//! * new state: the target reads the new value.

mod prefilter;

pub use prefilter::{Hints, Precheck};

use super::trace::{End, EvKind, Trace};
use crate::model::Access;
use crate::sdg::{self, TraceDeps};
use std::collections::BTreeSet;
use z3::ast::{Bool, Int};
use z3::{Params, SatResult, Solver};

/// A new-value query on a trace.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// Make the read (load or RMW) at `event` return `value`, taken from the write `from`
    /// (an event index: a publish, or under TSO/PSO the thread's own buffered store), or from
    /// the initial value with `None`. One target per source, not per value: the source decides
    /// which events the new prefix needs, and a value-only query lets the solver pick a source
    /// whose causal past commits reads that other executions need free.
    ///
    /// `late`: the read is a load of an `await` round, and the query also orders every publish
    /// of the other threads (and the flushes of the thread's own earlier stores) before the
    /// round's first load. A thread whose `await` fails *for good* (a deadlock) reads, in its
    /// last round, values no later write changes (any change would wake it); a plain query is
    /// free to leave value-changing writes after the read, so the thread is woken again and
    /// passes, and the deadlock is never produced.
    Read {
        event: usize,
        value: i64,
        from: Option<usize>,
        late: bool,
    },
    /// Make the lock at `event` acquire the mutex right after the unlock at `after` (or as its
    /// first acquisition with `None`).
    Lock { event: usize, after: Option<usize> },
    /// Reorder the whole trace so that `cell` ends with `value` while the cells before it keep
    /// their final values (an observer reading the cells in order after every thread).
    Final { cell: u32, value: i64 },
}

impl Target {
    /// The event that must read the new value, if the target is an event.
    pub fn event(&self) -> Option<usize> {
        match *self {
            Target::Read { event, .. } | Target::Lock { event, .. } => Some(event),
            Target::Final { .. } => None,
        }
    }
}

/// What a query answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The new interleaving's prefix: indices into [`Trace::events`] in the order to run them.
    Sat(Vec<usize>),
    Unsat,
    /// The solver gave up (timeout or interrupt).
    Unknown,
}

/// The base constraints of one trace, asserted once; each query pushes its target on top.
pub struct Encoder<'t> {
    trace: &'t Trace,
    /// The solver and its variables, made on the first query that reaches Z3 (most never do).
    z3: Option<Z3Vars>,
    /// Z3's random seed, if set.
    seed: Option<u32>,
    /// Whether a Z3 context is there to solve in; without one, a query that needs Z3 sets
    /// `z3_wanted` and answers `Unknown` (the exploration then starts again with a context).
    pub z3_allowed: bool,
    pub z3_wanted: bool,
    /// Flush event of each store (TSO/PSO).
    flush_of: Vec<Option<usize>>,
    /// Per cell: the events that publish a value to memory, with the value.
    publishes: Vec<Vec<(usize, i64)>>,
    /// For each load: the newest earlier store of the same thread to the same cell (TSO/PSO).
    own_store: Vec<Option<usize>>,
    /// Assertions built so far (base and queries).
    pub constraints: u64,
    /// Whether [`Encoder::solve`] first runs the cheap static check ([`prefilter`]).
    pub prefilter: bool,
    /// Benchmark mode ([`super::Tuning::per_query`]): each Z3 query's formula holds only the
    /// validity it needs, in a scope of its own on the trace's base.
    pub per_query: bool,
    /// MCR-S+ keeps up front only what no answer can do without, and checks on the model what
    /// the seed's other events need (see [`Self::closure`]); set with `per_query`.
    pub lazy_existence: bool,
    /// Queries the static check answered `Unsat` without calling Z3.
    pub skipped: u64,
    /// Test mode: solve pre-checked queries anyway and count in `prefilter_wrong` those Z3
    /// found satisfiable (a bug in the pre-check if ever non-zero).
    pub check_prefilter: bool,
    pub prefilter_wrong: u64,
    /// Must-happen-before predecessors of each event.
    preds: Vec<Vec<usize>>,
    /// The `await` round of each load, if any ([`Trace::await_rounds`]).
    rounds: Vec<Option<u32>>,
    /// The closure of must-happen-before for the pre-check, built on its first query.
    hb_order: std::cell::OnceCell<Option<prefilter::Order>>,
    /// The trace's critical sections ([`Self::sections`]).
    sections: std::cell::OnceCell<Vec<(u32, usize, Option<usize>)>>,
    /// What the Z3 queries counted.
    pub counts: Z3Counts,
    /// Benchmark mode ([`super::Tuning::bare_solve`]): solve every Z3 query a second time
    /// without any data validity, counting only its work, in `counts.work_bare`.
    pub bare_solve: bool,
    /// Benchmark mode ([`super::Tuning::paired_solve`]): with dependences, solve every Z3
    /// query twice more, with every read's validity and with the paper's Algorithm 3 taken
    /// literally, counting only their work (`counts.work_all`, `counts.work_literal`), and
    /// once more with the static closure ([`Validity::Cone`], `counts.work_cone`).
    pub paired_solve: bool,
    /// The solvers of the benchmark's extra solves (bare, all, literal, cone: see
    /// [`Validity`]), each kept apart from the real one so that none changes what another
    /// learns.
    sides: [Option<Z3Vars>; 4],
    /// What the trace's events depend on ([`crate::sdg`]): which steps after a read target
    /// may stay in the prefix ([`Self::stop_after`]), and, when [`Self::prune`], MCR-S+.
    deps: Option<TraceDeps>,
    /// MCR-S+: queries keep only the validity the dependences say they need.
    prune: bool,
    /// Per read event, [`Self::stop_after`], built on first use.
    stops: std::cell::OnceCell<Vec<Option<usize>>>,
    /// The reads the current query constrains (see [`Self::closure`]); `None`: all.
    constrained: Option<Vec<bool>>,
    /// Tests: pairs `(a, b)` every query puts `a` before `b` in, to force a model.
    #[cfg(test)]
    forced: Vec<(usize, usize)>,
    /// Hand out seeds in canonical order ([`Self::canonical`]) rather than the model's.
    pub canonical: bool,
    /// Threads whose code has an `await` (see [`Self::canonical`]); empty: none.
    pub await_threads: Vec<bool>,
    /// The steps next to an `await` round ([`Self::round_steps`]), built on first use.
    round_steps: std::cell::OnceCell<Vec<bool>>,
}

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
    /// With [`Encoder::bare_solve`]: Z3's work on the same queries without any validity.
    pub work_bare: u64,
    /// With [`Encoder::paired_solve`]: Z3's work on the same queries with every read's
    /// validity (MCR without the graph).
    pub work_all: u64,
    /// With [`Encoder::paired_solve`]: Z3's work on the same queries with the paper's
    /// Algorithm 3 taken literally.
    pub work_literal: u64,
    /// With [`Encoder::paired_solve`]: Z3's work on the same queries with the static closure
    /// ([`Validity::Cone`]).
    pub work_cone: u64,
    /// With [`Encoder::paired_solve`]: queries whose satisfiability with every read's validity
    /// differs from the real answer (the graph must change no answer, only which model of it
    /// Z3 returns).
    pub paired_differ: u64,
    /// With [`Encoder::paired_solve`]: queries satisfiable both ways.
    pub paired_sat: u64,
    /// With [`Encoder::paired_solve`]: satisfiable queries whose seed with every read's
    /// validity differs from the real one (both keep every read of their seed valid; Z3 chose
    /// another model).
    pub paired_other_seed: u64,
    /// Time in [`Encoder::solve_z3`]: building the query's formula, checking it, reading the
    /// model.
    pub ms: f64,
    /// Of `ms`: time inside Z3's satisfiability checks.
    pub check_ms: f64,
    /// Time computing which reads a query constrains and checking the model's reads (MCR-S+).
    pub lazy_ms: f64,
}

/// Which data validity a Z3 query keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Validity {
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

impl Validity {
    /// The slot of a benchmark's extra solve in [`Encoder::sides`] (`None`: the real one).
    fn side(self) -> Option<usize> {
        match self {
            Validity::Mcr => None,
            Validity::Bare => Some(0),
            Validity::All => Some(1),
            Validity::Literal => Some(2),
            Validity::Cone => Some(3),
        }
    }
}

/// The Z3 side of an [`Encoder`]: the solver holding the trace's base constraints, one integer
/// order variable per event, the prefix bound `T`, and the validity guard of each read.
struct Z3Vars {
    solver: Solver,
    ord: Vec<Int>,
    bound: Int,
    /// Per event: the guard of its validity, once asserted (reads only).
    guards: Vec<Option<Bool>>,
}

fn lt(a: &Int, b: &Int) -> Bool {
    a.lt(b)
}

impl<'t> Encoder<'t> {
    pub fn new(trace: &'t Trace) -> Encoder<'t> {
        let n = trace.events.len();
        let flush_of = if !trace.rules().buffered() {
            vec![None; n]
        } else {
            trace.flush_of()
        };
        let publishes = trace.publishes();
        let own_store = trace.own_stores();
        let mut enc = Encoder {
            trace,
            z3: None,
            seed: None,
            flush_of,
            publishes,
            own_store,
            constraints: 0,
            prefilter: true,
            per_query: false,
            lazy_existence: false,
            skipped: 0,
            check_prefilter: false,
            prefilter_wrong: 0,
            preds: vec![Vec::new(); n],
            rounds: trace.await_rounds(),
            hb_order: std::cell::OnceCell::new(),
            sections: std::cell::OnceCell::new(),
            deps: None,
            prune: false,
            stops: std::cell::OnceCell::new(),
            constrained: None,
            #[cfg(test)]
            forced: Vec::new(),
            canonical: false,
            await_threads: Vec::new(),
            round_steps: std::cell::OnceCell::new(),
            counts: Z3Counts::default(),
            bare_solve: false,
            paired_solve: false,
            sides: [None, None, None, None],
            z3_allowed: true,
            z3_wanted: false,
        };
        enc.order_pairs();
        enc
    }

    /// Z3's resource counter ("rlimit count"): the context's deterministic measure of the
    /// solver's work, the unit of Z3's `rlimit` (which Dafny and F* use for resource limits
    /// that do not vary with the machine's speed).
    fn rlimit(&self) -> u32 {
        match self.vars().solver.get_statistics().value("rlimit count") {
            Some(z3::StatisticsValue::UInt(n)) => n,
            _ => 0,
        }
    }

    fn vars(&self) -> &Z3Vars {
        self.z3
            .as_ref()
            .expect("Z3 variables are made before the first Z3 query")
    }

    fn o(&self, i: usize) -> &Int {
        &self.vars().ord[i]
    }

    fn bound(&self) -> &Int {
        &self.vars().bound
    }

    fn assert(&mut self, b: &Bool) {
        self.constraints += 1;
        self.vars().solver.assert(b);
    }

    /// Must-happen-before: fills `preds` (used by the pre-check, the causal cone and Z3). Every
    /// pair is found at its later event, in trace order.
    fn order_pairs(&mut self) {
        let tr = self.trace;
        let events: Vec<(usize, Access)> = tr.events.iter().map(|e| (e.thread, e.kind.access())).collect();
        let hb = tr.rules().must_happen_before(tr.threads, &events, &self.flush_of);
        for (a, b) in hb {
            self.preds[b].push(a);
        }
    }

    /// Asserts the trace's maximal causal model into Z3, once, before the first Z3 query (most
    /// queries are answered without it: by the pre-check or by [`super::search`]).
    fn ensure_base(&mut self, validity: Validity) {
        if self.z3.is_none() {
            let solver = Solver::new_for_logic("QF_IDL").unwrap_or_default();
            if let Some(seed) = self.seed {
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

    fn assert_base(&mut self, validity: Validity) {
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
        if !self.per_query
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

    /// Asserts, at the solver's base level, the guarded validity of those of `reads` that do
    /// not have it yet: `g_i → (o_i ≤ T → read i gets its trace value)`. Per query
    /// ([`Self::per_query`]), without the guard, in the query's scope (see `solve_z3_with`).
    fn assert_validity(&mut self, reads: &[usize]) {
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
            if self.per_query {
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

    /// Critical sections: (mutex, lock event, matching unlock event of the same thread),
    /// found on first use (the base and every query's cones use them).
    fn sections(&self) -> &[(u32, usize, Option<usize>)] {
        self.sections.get_or_init(|| {
            let tr = self.trace;
            let mut out = Vec::new();
            for (i, e) in tr.events.iter().enumerate() {
                if let EvKind::Lock { mutex } = e.kind {
                    let unlock = tr.events.iter().enumerate().skip(i + 1).find_map(|(j, f)| {
                        (f.thread == e.thread && f.kind == EvKind::Unlock { mutex }).then_some(j)
                    });
                    out.push((mutex, i, unlock));
                }
            }
            out
        })
    }

    /// `reader` reads `value` of `cell` from memory (the newest publish ordered before it, or
    /// the initial value). `skip` is the reader itself when it also publishes (an RMW).
    fn mem_is(&self, reader: &Int, cell: u32, value: i64, skip: Option<usize>) -> Bool {
        self.mem_is_with(reader, cell, value, skip, None)
    }

    /// [`Self::mem_is`] with the publish of one RMW replaced: `over = (rmw, write)` makes that
    /// RMW write `write` instead of its trace value, or nothing with `None` (an RMW target that
    /// reads a new value, see [`Self::solve`]).
    fn mem_is_with(
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
            let same_cell = matches!(self.trace.events.get(r).map(|e| &e.kind), Some(EvKind::Rmw { cell: c, .. }) if *c == cell);
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
    fn value_is(&self, i: usize, cell: u32, value: i64) -> Bool {
        self.value_is_with(i, cell, value, None)
    }

    /// [`Self::value_is`] with one RMW's publish replaced (see [`Self::mem_is_with`]).
    fn value_is_with(
        &self,
        i: usize,
        cell: u32,
        value: i64,
        over: Option<(usize, Option<i64>)>,
    ) -> Bool {
        let skip = matches!(self.trace.events[i].kind, EvKind::Rmw { .. }).then_some(i);
        let mem = self.mem_is_with(self.o(i), cell, value, skip, over);
        match self.own_store[i] {
            None => mem,
            Some(s) => {
                let sv = match self.trace.events[s].kind {
                    EvKind::Store { value, .. } => value,
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

    /// The smallest prefix the solved order `pos` needs for event `target`: the target and,
    /// transitively, the must-happen-before predecessors of every event in it, the write each
    /// read in it reads from (and the own flush that made a load read memory), and the earlier
    /// critical sections of each lock in it. Everything else can move after the target, so reads
    /// outside the prefix stay free for later seeds (the paper's "shortest seed interleaving",
    /// which MCR's completeness relies on).
    ///
    /// A `late` target also keeps the publishes it orders before its round: the replay must run
    /// the round after them, or the thread could be woken again.
    fn cone(&self, target: &Target, keep: usize, pos: &[i64]) -> Vec<usize> {
        let tr = self.trace;
        let n = tr.events.len();
        let mut inc = vec![false; n];
        let mut work: Vec<usize> = (0..keep).collect();
        match *target {
            Target::Read {
                event, late: true, ..
            } => {
                work.push(event);
                work.extend(tr.late_needs(event, &self.rounds).1);
            }
            _ => work.extend(target.event()),
        }
        // The order the seed runs in: by position, ties by event index.
        let at = |e: usize| (pos[e], e);
        let latest_before = |cell: u32, before: usize| -> Option<usize> {
            self.publishes
                .get(cell as usize)?
                .iter()
                .filter(|&&(p, _)| p != before && at(p) < at(before))
                .max_by_key(|&&(p, _)| at(p))
                .map(|&(p, _)| p)
        };
        let sections = self.sections();
        while let Some(i) = work.pop() {
            if i >= n || inc[i] {
                continue;
            }
            inc[i] = true;
            work.extend(self.preds[i].iter().copied());
            if let Some((cell, _)) = tr.events[i].kind.read() {
                let mut from_mem = true;
                if let Some(s) = self.own_store[i] {
                    match self.flush_of[s] {
                        // Reading memory right after its own flush, the load reads the store it
                        // would be forwarded: the flush need not be in the seed.
                        Some(f) if at(f) < at(i) && latest_before(cell, i) != Some(f) => {
                            work.push(f)
                        }
                        _ => from_mem = false,
                    }
                }
                if from_mem {
                    work.extend(latest_before(cell, i));
                }
            }
            if let EvKind::Lock { mutex } = tr.events[i].kind {
                for &(m, l, u) in sections {
                    if m == mutex && l != i && at(l) < at(i) {
                        work.push(l);
                        work.extend(u);
                    }
                }
            }
        }
        let mut out: Vec<usize> = (0..n).filter(|&i| inc[i]).collect();
        out.sort_by_key(|&i| pos[i]);
        out
    }

    /// The read at event `i` of `cell` takes its value from `from` (see [`Target::Read`]).
    fn reads_from(&self, i: usize, cell: u32, from: Option<usize>) -> Bool {
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
            Some(s) if tr.forwarded(Some(s)) => {
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
    fn trace_source(&self, i: usize) -> Option<usize> {
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

    /// Every new-value target of the trace, in a deterministic order.
    pub fn targets(&self) -> Vec<Target> {
        let tr = self.trace;
        let mut out = Vec::new();
        let failed_rounds: BTreeSet<u32> = tr
            .events
            .iter()
            .zip(&self.rounds)
            .filter(|(e, _)| e.failed_check)
            .filter_map(|(_, r)| *r)
            .collect();
        for (i, e) in tr.events.iter().enumerate() {
            if let Some((cell, cur)) = e.kind.read() {
                let mut srcs: BTreeSet<(i64, Option<usize>)> = BTreeSet::new();
                if let Some(&v) = tr.init.get(cell as usize) {
                    srcs.insert((v, None));
                }
                if let Some(p) = self.publishes.get(cell as usize) {
                    srcs.extend(
                        p.iter()
                            .filter(|&&(p, _)| p != i)
                            .map(|&(p, v)| (v, Some(p))),
                    );
                }
                if let Some(s) = self.own_store[i] {
                    if let EvKind::Store { value, .. } = tr.events[s].kind {
                        srcs.insert((value, Some(s)));
                    }
                }
                // Late variants for `await` loads: with a new value, and for a round that failed
                // in this trace also with the same value (the round failing for good).
                let round = self.rounds.get(i).copied().flatten();
                let failed = round.is_some_and(|r| failed_rounds.contains(&r));
                // A round that already fails for good here (every publish it must follow is
                // before it) needs no late target with the value and source it has.
                let late_here = failed && {
                    let (first, need) = tr.late_needs(i, &self.rounds);
                    need.iter().all(|&p| p < first)
                };
                let repeats = late_here.then(|| self.trace_source(i));
                for (value, from) in srcs {
                    if value != cur {
                        out.push(Target::Read {
                            event: i,
                            value,
                            from,
                            late: false,
                        });
                    }
                    if round.is_some() && (value != cur || (failed && repeats != Some(from))) {
                        out.push(Target::Read {
                            event: i,
                            value,
                            from,
                            late: true,
                        });
                    }
                }
            }
            if let EvKind::Lock { mutex } = e.kind {
                let unlocks: Vec<usize> = tr
                    .events
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.kind == EvKind::Unlock { mutex })
                    .map(|(j, _)| j)
                    .collect();
                // A pending lock never acquired the mutex: every acquisition is new.
                let cur = if e.pending {
                    None
                } else {
                    unlocks.iter().copied().rfind(|&j| j < i)
                };
                if cur.is_some() || e.pending {
                    out.push(Target::Lock {
                        event: i,
                        after: None,
                    });
                }
                for &u in &unlocks {
                    let same_later = tr.events[u].thread == e.thread && u > i;
                    if Some(u) != cur && !same_later {
                        out.push(Target::Lock {
                            event: i,
                            after: Some(u),
                        });
                    }
                }
            }
        }
        if tr.end == End::Final {
            for (cell, pubs) in self.publishes.iter().enumerate() {
                let cur = pubs.last().map(|&(_, v)| v).unwrap_or(tr.init[cell]);
                let mut vals: BTreeSet<i64> = pubs.iter().map(|&(_, v)| v).collect();
                vals.insert(tr.init[cell]);
                vals.remove(&cur);
                out.extend(vals.into_iter().map(|value| Target::Final {
                    cell: cell as u32,
                    value,
                }));
            }
        }
        out
    }

    /// The dependences of the trace's events: for [`Self::stop_after`], and with `prune`, MCR-S+
    /// ([Huang and Huang 2017](docs/papers.md#huang-huang-2017) §5, Algorithm 3).
    pub fn set_deps(&mut self, deps: Option<TraceDeps>, prune: bool) {
        self.deps = deps;
        self.prune = prune;
        self.stops = std::cell::OnceCell::new();
    }

    /// The dependences, when MCR-S+ is on.
    fn pruning(&self) -> Option<&TraceDeps> {
        self.deps.as_ref().filter(|_| self.prune)
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
            let step = |j: usize| !matches!(tr.events[j].kind, EvKind::Flush { .. });
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
    fn is_constrained(&self, i: usize) -> bool {
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
    fn closure(&self, target: &Target, keep: usize, validity: Validity) -> Option<Vec<bool>> {
        let literal = validity == Validity::Literal;
        let deps = self.pruning()?;
        let tr = self.trace;
        let n = tr.events.len();
        let te = target.event()?;
        let tt = tr.events.get(te)?.thread;
        let mut c = vec![false; n];
        let mut work: Vec<usize> = Vec::new();
        let is_read = |i: usize| tr.events[i].kind.read().is_some();
        work.extend((0..te).filter(|&i| {
            tr.events[i].thread == tt
                && !matches!(tr.events[i].kind, EvKind::Flush { .. })
                && is_read(i)
        }));
        // What the target writes (an RMW with its new value) and where its value comes from.
        work.extend(sdg::members(deps.value.get(te)?, n));
        if let Target::Read { from: Some(f), .. } = *target {
            work.extend(self.value_deps(f, deps));
            if literal {
                work.extend(sdg::members(deps.exist.get(self.writer(f))?, n));
            }
        }
        if validity == Validity::Mcr && self.lazy_existence {
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
                    work.extend(sdg::members(deps.exist.get(self.writer(w))?, n));
                }
            }
        }
        Some(c)
    }

    /// The writes read `r` can take its trace value from: the publishes of that value to its
    /// cell and its own buffered store if it wrote the value. With the target event `te`, only
    /// those that can be its source in the seed of an answer: not a write that `r` must happen
    /// before, nor one the target must (every event of the seed comes before the target).
    fn candidate_sources(&self, r: usize, te: Option<usize>) -> Vec<usize> {
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
            if matches!(tr.events[s].kind, EvKind::Store { value: v, .. } if v == value) {
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
    fn may_cone(&self, target: &Target, keep: usize) -> Vec<bool> {
        let tr = self.trace;
        let n = tr.events.len();
        let mut inc = vec![false; n];
        let Some(te) = target.event() else {
            return vec![true; n];
        };
        let tt = tr.events[te].thread;
        // A read target's thread stops at its first step that depends on the new value; a
        // lock target's goes on as in the trace.
        let stop = match *target {
            Target::Read { event, .. } => self.stop_after(event),
            _ => Some(te + 1),
        };
        let mut work: Vec<usize> = (0..keep.min(n)).collect();
        work.push(te);
        if let Target::Read {
            event, late: true, ..
        } = *target
        {
            work.extend(tr.late_needs(event, &self.rounds).1);
        }
        if let Target::Read { from: Some(f), .. } = *target {
            work.push(f);
        }
        let sections = self.sections();
        while let Some(i) = work.pop() {
            if i >= n || inc[i] {
                continue;
            }
            let ev = &tr.events[i];
            if (ev.thread == tt
                && stop.is_some_and(|s| i >= s)
                && !matches!(ev.kind, EvKind::Flush { .. }))
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
            if let EvKind::Lock { mutex } = ev.kind {
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
    fn value_deps(&self, w: usize, deps: &TraceDeps) -> Vec<usize> {
        let tr = self.trace;
        let n = tr.events.len();
        let Some(e) = tr.events.get(w) else {
            return Vec::new();
        };
        let mut out: Vec<usize> = deps
            .value
            .get(self.writer(w))
            .map(|s| sdg::members(s, n).collect())
            .unwrap_or_default();
        if matches!(e.kind, EvKind::Rmw { .. }) {
            out.push(w);
        }
        out
    }

    /// The instruction that writes publish `w`: the store a flush drains, else `w` itself.
    fn writer(&self, w: usize) -> usize {
        match self.trace.events.get(w).map(|e| &e.kind) {
            Some(EvKind::Flush { store, .. }) => *store,
            _ => w,
        }
    }

    /// Match terms of read `i`'s validity: one per candidate source and other write of its cell
    /// (the paper's count of constraints).
    fn match_terms_of(&self, i: usize) -> u64 {
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

    /// Whether read `i` gets its trace value in the order `pos` (store forwarding, else the
    /// newest publish before it; `over` replaces an RMW target's publish, see
    /// [`Self::mem_is_with`]).
    fn reads_its_value(&self, i: usize, pos: &[i64], over: Option<(usize, Option<i64>)>) -> bool {
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
                return matches!(tr.events[s].kind, EvKind::Store { value: v, .. } if v == value);
            }
        }
        let mut pubs: Vec<(usize, Option<i64>)> =
            self.publishes.get(cell as usize).map_or(Vec::new(), |p| {
                p.iter().map(|&(q, v)| (q, Some(v))).collect()
            });
        if let Some((r, w)) = over {
            // An RMW target that writes another value (or nothing) in place of its trace write.
            pubs.retain(|&(q, _)| q != r);
            let same_cell = matches!(tr.events.get(r).map(|e| &e.kind), Some(EvKind::Rmw { cell: c, .. }) if *c == cell);
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

    /// Seeds Z3's random choices: which satisfying order a query returns, hence which seeds MCR
    /// explores, depends on it (tests vary it to check completeness does not).
    pub fn set_random_seed(&mut self, seed: u32) {
        self.seed = Some(seed);
    }

    /// Solve one query. `timeout_ms` bounds the solver call.
    ///
    /// `keep` are the first events of the trace (the seed prefix it was replayed from): the
    /// new prefix keeps them, so their reads keep their values (the paper's "the prefix of each
    /// newly explored interleaving is always preserved").
    pub fn solve(&mut self, target: &Target, keep: usize, timeout_ms: Option<u32>) -> Answer {
        if self.rejects(target, keep, timeout_ms) {
            return Answer::Unsat;
        }
        self.solve_z3(target, keep, timeout_ms)
    }

    /// Whether the static pre-check ([`prefilter`]) proves the query unsatisfiable (counted in
    /// `skipped`; with `check_prefilter`, also solved by Z3 to count wrong rejections).
    pub fn rejects(&mut self, target: &Target, keep: usize, timeout_ms: Option<u32>) -> bool {
        matches!(
            self.precheck(target, keep, timeout_ms),
            Precheck::Impossible
        )
    }

    /// The static pre-check ([`prefilter`]): `Impossible` when it proves the query
    /// unsatisfiable (counted in `skipped`; with `check_prefilter`, also solved by Z3 to count
    /// wrong rejections), else what it derived.
    pub fn precheck(&mut self, target: &Target, keep: usize, timeout_ms: Option<u32>) -> Precheck {
        let keep = keep.min(self.trace.events.len());
        if !self.prefilter {
            return Precheck::Possible(None);
        }
        let answer = self.precheck_orders(target, keep);
        if matches!(answer, Precheck::Impossible) {
            self.skipped += 1;
            if self.check_prefilter {
                // Test mode: ask Z3 anyway; the pre-check must never reject a solvable query.
                if matches!(self.solve_z3(target, keep, timeout_ms), Answer::Sat(_)) {
                    self.prefilter_wrong += 1;
                }
            }
        }
        answer
    }

    /// The seed prefix for a solved order given as event positions (`pos[i]`: where event `i`
    /// comes; the events of the prefix first): for an event target, its causal cone
    /// ([`Self::cone`]); for a final-value target, every event.
    pub fn seed_order(&self, target: &Target, keep: usize, pos: &[i64], bound: i64) -> Vec<usize> {
        let keep = keep.min(self.trace.events.len());
        let seed = match target.event() {
            Some(_) => self.cone(target, keep, pos),
            None => {
                let mut all: Vec<usize> = (0..pos.len()).filter(|&i| pos[i] < bound).collect();
                all.sort_by_key(|&i| pos[i]);
                all
            }
        };
        if self.canonical {
            self.canonical(&seed)
        } else {
            seed
        }
    }

    /// Per event: a step of a thread whose code has an `await`, with the thread inside a round
    /// (or parked) right before it or right after it: the thread's next step is a load of a
    /// round ([`Trace::await_rounds`], which over-approximates rounds), or there is none (the
    /// thread may end parked); before its first step, whether it starts in a round. Between
    /// two steps of the thread neither of which is such a step, it is outside every round and
    /// not parked, and a write of another thread leaves its state as it is.
    fn round_steps(&self) -> &[bool] {
        self.round_steps.get_or_init(|| {
            let tr = self.trace;
            let n = tr.events.len();
            let mut out = vec![false; n];
            let mut prev: Vec<Option<usize>> = vec![None; tr.threads];
            for (i, e) in tr.events.iter().enumerate() {
                let t = e.thread;
                if t >= tr.threads
                    || matches!(e.kind, EvKind::Flush { .. })
                    || !self.await_threads.get(t).copied().unwrap_or(false)
                {
                    continue;
                }
                // Inside a round (or parked) between the thread's previous step and this one.
                let between = self.rounds[i].is_some()
                    || (prev[t].is_none() && tr.in_round_at_start.get(t).copied().unwrap_or(false));
                if let Some(p) = prev[t] {
                    out[p] |= between;
                }
                out[i] = between;
                prev[t] = Some(i);
            }
            // A thread's last step: it may end inside a round, or parked.
            for p in prev.into_iter().flatten() {
                out[p] = true;
            }
            out
        })
    }

    /// The seed `seed` (events in the solved order) in canonical order: every pair of
    /// dependent events as the solved order has them, and otherwise the trace's order (the
    /// earliest trace event whose dependences have run goes next). Two events are dependent
    /// when they are steps of one thread (its flushes included), access one cell and one of
    /// them writes memory (a flush, an RMW, a store under SC), or lock or unlock one mutex;
    /// and a step of a thread with an `await` that begins or ends inside a round
    /// ([`Self::round_steps`]) depends on every write of another thread to any cell (a write
    /// that changes a value wakes a parked thread and marks a round in progress as stale, so
    /// where it comes relative to such a step matters; this also keeps the order a `late`
    /// target puts publishes in before its round, whose first load is such a step). Outside
    /// rounds a write changes nothing of the thread's. Independent steps commute
    /// in the semantics, so the canonical order replays to the same state with every read
    /// reading the same write, and it satisfies the query as the solved order does; what Z3
    /// chose for the order of independent events does not decide the seed, nor the order of
    /// the trace it leads to.
    fn canonical(&self, seed: &[usize]) -> Vec<usize> {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let tr = self.trace;
        let m = seed.len();
        // What an event accesses besides its thread: a cell or a mutex, and whether it writes.
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        enum Key {
            Cell(u32),
            Mutex(u32),
            /// Every write (as readers) against the steps of `await` threads (as writers).
            Awaits,
        }
        let access = |e: usize| -> Option<(Key, bool)> {
            match tr.events[e].kind {
                EvKind::Load { cell, .. } => Some((Key::Cell(cell), false)),
                EvKind::Rmw { cell, .. } | EvKind::Flush { cell, .. } => {
                    Some((Key::Cell(cell), true))
                }
                EvKind::Store { cell, .. } if tr.rules().store_publishes() => {
                    Some((Key::Cell(cell), true))
                }
                EvKind::Lock { mutex } | EvKind::Unlock { mutex } => {
                    Some((Key::Mutex(mutex), true))
                }
                _ => None,
            }
        };
        // Edges from seed positions to later seed positions (enough of them that their
        // transitive closure orders every dependent pair).
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); m];
        let mut indeg = vec![0u32; m];
        let mut last_of_thread: rustc_hash::FxHashMap<usize, usize> = Default::default();
        // Per key: the last writer and the readers since.
        let mut last: rustc_hash::FxHashMap<Key, (Option<usize>, Vec<usize>)> = Default::default();
        let mut edge = |a: usize, b: usize| {
            succ[a].push(b);
            indeg[b] += 1;
        };
        let round_steps = self.round_steps();
        for (k, &e) in seed.iter().enumerate() {
            if let Some(prev) = last_of_thread.insert(tr.events[e].thread, k) {
                edge(prev, k);
            }
            let acc = access(e);
            let awaits = if round_steps[e] {
                Some((Key::Awaits, true))
            } else {
                matches!(acc, Some((Key::Cell(_), true))).then_some((Key::Awaits, false))
            };
            for (key, writes) in acc.into_iter().chain(awaits) {
                let (w, readers) = last.entry(key).or_default();
                if let Some(w) = *w {
                    edge(w, k);
                }
                if writes {
                    for r in readers.drain(..) {
                        edge(r, k);
                    }
                    *w = Some(k);
                } else {
                    readers.push(k);
                }
            }
        }
        let mut ready: BinaryHeap<Reverse<(usize, usize)>> = (0..m)
            .filter(|&k| indeg[k] == 0)
            .map(|k| Reverse((seed[k], k)))
            .collect();
        let mut out = Vec::with_capacity(m);
        while let Some(Reverse((e, k))) = ready.pop() {
            out.push(e);
            for &j in &succ[k] {
                indeg[j] -= 1;
                if indeg[j] == 0 {
                    ready.push(Reverse((seed[j], j)));
                }
            }
        }
        debug_assert_eq!(out.len(), m);
        out
    }

    /// Solve one query with Z3 (no pre-check).
    pub fn solve_z3(&mut self, target: &Target, keep: usize, timeout_ms: Option<u32>) -> Answer {
        if !self.z3_allowed {
            self.z3_wanted = true;
            return Answer::Unknown;
        }
        let t0 = std::time::Instant::now();
        let answer = self.solve_z3_with(target, keep, timeout_ms, Validity::Mcr);
        self.counts.ms += t0.elapsed().as_secs_f64() * 1000.0;
        if self.bare_solve {
            self.counts.work_bare += self.side_solve(target, keep, timeout_ms, Validity::Bare).0;
        }
        if self.paired_solve && self.pruning().is_some() {
            let (work, all) = self.side_solve(target, keep, timeout_ms, Validity::All);
            self.counts.work_all += work;
            match (&answer, &all) {
                (Answer::Sat(a), Answer::Sat(b)) => {
                    self.counts.paired_sat += 1;
                    self.counts.paired_other_seed += u64::from(a != b);
                }
                (Answer::Unknown, _) | (_, Answer::Unknown) | (Answer::Unsat, Answer::Unsat) => {}
                _ => self.counts.paired_differ += 1,
            }
            self.counts.work_literal += self
                .side_solve(target, keep, timeout_ms, Validity::Literal)
                .0;
            self.counts.work_cone += self.side_solve(target, keep, timeout_ms, Validity::Cone).0;
        }
        answer
    }

    /// A benchmark's extra solve of the query with other validity, in a solver of its own:
    /// its work (returned) and its answer count; the other counters are dropped.
    fn side_solve(
        &mut self,
        target: &Target,
        keep: usize,
        timeout_ms: Option<u32>,
        validity: Validity,
    ) -> (u64, Answer) {
        let Some(slot) = validity.side() else {
            return (0, Answer::Unknown);
        };
        let (counts, constraints, constrained) =
            (self.counts, self.constraints, self.constrained.take());
        std::mem::swap(&mut self.z3, &mut self.sides[slot]);
        let answer = self.solve_z3_with(target, keep, timeout_ms, validity);
        std::mem::swap(&mut self.z3, &mut self.sides[slot]);
        let work = self.counts.work - counts.work;
        (self.counts, self.constraints, self.constrained) = (counts, constraints, constrained);
        (work, answer)
    }

    /// [`Self::solve_z3`] with the data validity `validity` (MCR's, or a benchmark's
    /// comparison).
    fn solve_z3_with(
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
                    EvKind::Rmw { write, op, .. } => Some(op.map(|f| (f.write(value), write))),
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
                let EvKind::Lock { mutex } = tr.events[event].kind else {
                    return Answer::Unsat;
                };
                let l = self.o(event);
                goal.push(l.le(self.bound()));
                let unlocks = tr
                    .events
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.kind == EvKind::Unlock { mutex })
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
        let per_query = self.per_query;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Program;
    use crate::mcr::trace_of;
    use crate::report::Model;
    use crate::semantics::Choice;

    /// The trace of `src` (SC) run by `choices` then thread by thread, with an encoder holding
    /// its dependences, and the new-value target `(event, value, from)`.
    fn encoder(
        src: &str,
        choices: &[Choice],
        target: (usize, i64, Option<usize>),
    ) -> (Trace, Program, Target) {
        let parsed = crate::syntax::parse(src);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let p = Program::lower(&parsed.test.unwrap(), 8).unwrap();
        let tr = trace_of(&p, Model::Sc, choices);
        let (event, value, from) = target;
        (
            tr,
            p,
            Target::Read {
                event,
                value,
                from,
                late: false,
            },
        )
    }

    /// The reads MCR-S+ constrains from the start for the new-value target `(event, value,
    /// from)` of the trace of `src` (see [`encoder`]): with existence checked on the model (the
    /// validity per query), with the static closure (litmus's incremental solver), and as
    /// the paper's Algorithm 3 does literally.
    fn constrained(
        src: &str,
        choices: &[Choice],
        target: (usize, i64, Option<usize>),
    ) -> [Vec<usize>; 3] {
        let (tr, p, target) = encoder(src, choices, target);
        let mut enc = Encoder::new(&tr);
        enc.set_deps(crate::sdg::Sdg::new(&p).trace_deps(&p, &tr), true);
        assert!(
            enc.targets().contains(&target),
            "{target:?} is not a target of {:?}",
            tr.events
        );
        let reads = |c: Option<Vec<bool>>| -> Vec<usize> {
            (0..tr.events.len())
                .filter(|&i| c.as_ref().expect("dependences")[i])
                .collect()
        };
        let incremental = reads(enc.closure(&target, 0, Validity::Mcr));
        assert_eq!(
            incremental,
            reads(enc.closure(&target, 0, Validity::Cone)),
            "the static closure"
        );
        enc.lazy_existence = true;
        [
            reads(enc.closure(&target, 0, Validity::Mcr)),
            incremental,
            reads(enc.closure(&target, 0, Validity::Literal)),
        ]
    }

    /// A read target's thread keeps in the prefix the steps it reaches the same way whatever
    /// the read gives. `y = 1` depends on nothing P0 reads, but with `x` = 0 the thread runs
    /// the `fence` first, a step the trace does not have (the replay would
    /// diverge); the `unlock` after the read of `z` is reached the same way (a
    /// committed critical section may need it), and `y = c` writes what `z`
    /// gave.
    #[test]
    fn a_read_target_stops_its_thread_at_the_first_step_its_value_may_change() {
        let src = "litmus T shared x = 1, y = 0, z = 0; mutex m;
            thread P0 { a = x; if (a == 0) { fence; } y = 1; lock(m); b = z; unlock(m); c = b + 1; y = c; }";
        // 0: a = x (1), 1: y = 1, 2: lock, 3: b = z, 4: unlock, 5: y = c.
        let (tr, p, _) = encoder(src, &[], (0, 0, None));
        let kinds: Vec<String> = tr.events.iter().map(|e| format!("{:?}", e.kind)).collect();
        assert_eq!(kinds.len(), 6, "{kinds:?}");
        let mut enc = Encoder::new(&tr);
        assert_eq!(
            (enc.stop_after(0), enc.stop_after(3)),
            (Some(1), Some(4)),
            "without dependences: the next step"
        );
        enc.set_deps(crate::sdg::Sdg::new(&p).trace_deps(&p, &tr), false);
        assert_eq!(
            enc.stop_after(0),
            Some(1),
            "y = 1 comes after the branch on a"
        );
        assert_eq!(enc.stop_after(3), Some(5), "the unlock stays in, y = c not");
    }

    /// Under PSO, P0 reads `x` from memory right after flushing its own `x = 1`: the value it
    /// would be forwarded from its buffer. The seed for P1's read of `y = 1` (P0's load of `x`
    /// comes before `y = 1` in P0) therefore leaves the flush of `x` out; with it, the seed would
    /// differ from the one the model ordering the flush after the load gives, for the same
    /// execution (a redundant one).
    #[test]
    fn a_load_reading_its_own_flushed_store_does_not_bring_the_flush_into_the_seed() {
        let src = "litmus T shared x = 0, y = 0;
            thread P0 { x = 1; a = x; y = 1; }
            thread P1 { b = y; }";
        let parsed = crate::syntax::parse(src);
        let p = Program::lower(&parsed.test.unwrap(), 8).unwrap();
        let flush = |cell| Choice::Flush {
            thread: 0,
            cell: Some(cell),
        };
        // P1's read of `y` first (0), then P0 step by step, flushing each store at once.
        let tr = trace_of(
            &p,
            Model::Pso,
            &[
                Choice::Exec(1),
                Choice::Exec(0),
                flush(0),
                Choice::Exec(0),
                Choice::Exec(0),
                flush(1),
            ],
        );
        let kinds: Vec<String> = tr
            .events
            .iter()
            .map(|e| format!("{}:{:?}", e.thread, e.kind))
            .collect();
        let find = |pat: &str| {
            kinds
                .iter()
                .position(|k| k.starts_with(pat))
                .unwrap_or_else(|| panic!("{pat} in {kinds:?}"))
        };
        let (read_y, store_x, load_x, store_y) = (
            find("1:Load"),
            find("0:Store { cell: 0"),
            find("0:Load"),
            find("0:Store { cell: 1"),
        );
        let (flush_x, flush_y) = (find("0:Flush { cell: 0"), find("0:Flush { cell: 1"));
        let enc = Encoder::new(&tr);
        let target = Target::Read {
            event: read_y,
            value: 1,
            from: Some(flush_y),
            late: false,
        };
        // The answer's order: P0's steps as in the trace, then P1's read.
        let order = [store_x, flush_x, load_x, store_y, flush_y, read_y];
        let mut pos = vec![0i64; tr.events.len()];
        for (k, &e) in order.iter().enumerate() {
            pos[e] = k as i64;
        }
        assert!(enc.reads_its_value(load_x, &pos, None));
        assert_eq!(
            enc.cone(&target, 0, &pos),
            vec![store_x, load_x, store_y, flush_y, read_y]
        );
        // The same seed as with the flush ordered after the load.
        let late = [store_x, load_x, store_y, flush_y, read_y, flush_x];
        for (k, &e) in late.iter().enumerate() {
            pos[e] = k as i64;
        }
        assert_eq!(
            enc.cone(&target, 0, &pos),
            vec![store_x, load_x, store_y, flush_y, read_y]
        );
    }

    /// P0's store to `z` exists by P0's read of `x`, but no read that can be in a seed for P1's
    /// read of `y` reads `z`: the read of `x` need not keep its value.
    #[test]
    fn an_event_that_cannot_be_in_the_seed_constrains_nothing() {
        let src = "litmus T shared x = 0, y = 0, z = 0;
            thread P0 { a = x; if (a == 0) { z = 1; } }
            thread P1 { b = y; }
            thread P2 { y = 1; }";
        // 0: P0 a = x, 1: P0 z = 1, 2: P1 b = y (0), 3: P2 y = 1.
        let [lazy, cone, literal] = constrained(src, &[], (2, 1, Some(3)));
        assert_eq!((lazy, cone, literal), (vec![], vec![], vec![]));
    }

    /// P1's read of `y` is given P0's `y = 1`, which exists by P0's read of `x`: the static
    /// closure keeps that read from the start; with existence checked on the model, only if a
    /// model breaks it (see the next test). That read keeps 0, also written by P0's later
    /// `x = b`; but that store must come after the read, so it is no source of it, and the
    /// read of `z` that `x = b` writes stays free. The paper's Algorithm 3 counts every write
    /// of the value as a source and keeps it.
    #[test]
    fn a_write_that_must_come_after_a_read_is_not_its_source() {
        let src = "litmus T shared x = 0, y = 0, z = 0;
            thread P0 { a = x; if (a == 0) { y = 1; } b = z; x = b; }
            thread P1 { c = y; }";
        // 0: P1 c = y (0), 1: P0 a = x, 2: P0 y = 1, 3: P0 b = z, 4: P0 x = b (0).
        let [lazy, cone, literal] = constrained(src, &[Choice::Exec(1)], (0, 1, Some(2)));
        assert_eq!((lazy, cone, literal), (vec![], vec![1], vec![1, 3]));
    }

    /// With existence checked on the model, the target's thread keeps its earlier reads (no
    /// redundant executions) and the reads the seed's other events exist by are not encoded up
    /// front, yet the answer's seed still keeps them: P0's `y = 1` exists only while P0 reads
    /// `x == 0`, which P2's `x = 1` would break. The seed is P0's read of `x` (from the initial
    /// value), its `y = 1`, P1's read of `w`, then the target, without P2's store.
    #[test]
    fn existence_is_checked_on_the_model_not_encoded_up_front() {
        let src = "litmus T shared x = 0, y = 0, w = 0;
            thread P0 { a = x; if (a == 0) { y = 1; } }
            thread P1 { d = w; c = y; }
            thread P2 { x = 1; }";
        // 0: P1 d = w, 1: P1 c = y (0), 2: P0 a = x (0), 3: P0 y = 1, 4: P2 x = 1.
        let target = (1, 1, Some(3));
        let [lazy, cone, _] = constrained(src, &[Choice::Exec(1), Choice::Exec(1)], target);
        assert_eq!(lazy, vec![0], "the target's earlier read only");
        assert_eq!(cone, vec![0, 2], "and what the source exists by");
        let (tr, p, target) = encoder(src, &[Choice::Exec(1), Choice::Exec(1)], target);
        // Both solver settings: the incremental one (validity behind guards, a read the model
        // breaks added to the base and the goal asserted again) and the validity per query
        // (the read asserted beside the goal, in place).
        for per_query in [false, true] {
            let make = |deps: bool| {
                let mut enc = Encoder::new(&tr);
                enc.lazy_existence = true;
                enc.per_query = per_query;
                if deps {
                    enc.set_deps(crate::sdg::Sdg::new(&p).trace_deps(&p, &tr), true);
                }
                enc
            };
            for deps in [false, true] {
                match make(deps).solve_z3(&target, 0, None) {
                    Answer::Sat(mut order) => {
                        assert_eq!(
                            order.last(),
                            Some(&1),
                            "per query {per_query}, dependences {deps}: the target last"
                        );
                        order.sort_unstable();
                        assert_eq!(
                            order,
                            vec![0, 1, 2, 3],
                            "per query {per_query}, dependences {deps}"
                        );
                    }
                    a => panic!("per query {per_query}, dependences {deps}: {a:?}"),
                }
            }
            // A model that breaks the read of `x` (forced here by putting P2's store before
            // it) is caught: with the read kept valid there is no answer left.
            let mut enc = make(true);
            enc.forced = vec![(4, 2)];
            assert_eq!(
                enc.solve_z3(&target, 0, None),
                Answer::Unsat,
                "per query {per_query}"
            );
            assert_eq!(
                enc.counts.refinements, 1,
                "per query {per_query}: solved once more with the read of x kept"
            );
            assert_eq!(
                enc.counts.reads_constrained, 2,
                "per query {per_query}: the reads of w and x"
            );
        }
    }
    /// A seed in canonical order keeps the solved order of dependent events and otherwise the
    /// trace's: P1's `y = 1` stays before P0's read of `y`, and P0's `x = 1`, which nothing
    /// orders after P1's store, comes first as in the trace. With an `await` in P0, a write of
    /// another thread keeps its place against P0's steps that begin or end inside a round,
    /// and only those.
    #[test]
    fn a_canonical_seed_keeps_dependent_pairs_and_otherwise_the_trace_order() {
        let src = "litmus T shared x = 0, y = 0;
            thread P0 { x = 1; a = y; }
            thread P1 { y = 1; b = x; }";
        // 0: P0 x = 1, 1: P0 a = y (0), 2: P1 y = 1, 3: P1 b = x (1).
        let (tr, _, _) = encoder(src, &[], (1, 1, Some(2)));
        let mut enc = Encoder::new(&tr);
        enc.canonical = true;
        assert_eq!(enc.canonical(&[2, 0, 1, 3]), vec![0, 2, 1, 3]);
        assert_eq!(
            enc.canonical(&[0, 1, 2, 3]),
            vec![0, 1, 2, 3],
            "P0 reads y before y = 1"
        );
        let awaits = "litmus T shared x = 0, y = 0, z = 0, w = 0;
            thread P0 { x = 1; a = y; await(z == 0); }
            thread P1 { w = 1; b = x; }";
        // 0: P0 x = 1, 1: P0 a = y, after which P0's round begins, 2: P0 reads z in it,
        // 3: P1 w = 1, 4: P1 b = x (1).
        let (tr, _, _) = encoder(awaits, &[], (4, 0, None));
        let make = |await_threads: Vec<bool>| {
            let mut enc = Encoder::new(&tr);
            enc.canonical = true;
            enc.await_threads = await_threads;
            enc
        };
        let plain = make(vec![]);
        assert_eq!(
            plain.canonical(&[0, 1, 3, 2, 4]),
            vec![0, 1, 2, 3, 4],
            "no thread has an await"
        );
        let enc = make(vec![true, false]);
        assert_eq!(enc.round_steps(), &[false, true, true, false, false]);
        assert_eq!(
            enc.canonical(&[0, 1, 3, 2, 4]),
            vec![0, 1, 3, 2, 4],
            "w = 1 inside P0's round stays there"
        );
        assert_eq!(
            enc.canonical(&[3, 0, 1, 2, 4]),
            vec![0, 3, 1, 2, 4],
            "before the round, only before it"
        );
    }
}
