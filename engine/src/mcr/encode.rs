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

mod closure;
mod compare;
mod goal;
mod mhb;
mod prefilter;
mod query;
mod seed;
mod targets;
mod validity;

pub use compare::{Compare, CompareCounts};
pub use prefilter::{Hints, Precheck};
pub use query::Z3Counts;

use super::trace::Trace;
use crate::ids::EventId;
use crate::sdg::TraceDeps;
use query::Z3Vars;
use validity::Validity;
use z3::ast::{Bool, Int};

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
        event: EventId,
        value: i64,
        from: Option<EventId>,
        late: bool,
    },
    /// Make the lock at `event` acquire the mutex right after the unlock at `after` (or as its
    /// first acquisition with `None`).
    Lock {
        event: EventId,
        after: Option<EventId>,
    },
    /// Reorder the whole trace so that `cell` ends with `value` while the cells before it keep
    /// their final values (an observer reading the cells in order after every thread).
    Final { cell: u32, value: i64 },
}

impl Target {
    /// The event that must read the new value, if the target is an event.
    pub fn event(&self) -> Option<EventId> {
        match *self {
            Target::Read { event, .. } | Target::Lock { event, .. } => Some(event),
            Target::Final { .. } => None,
        }
    }
}

/// What a query answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The new interleaving's prefix: events of the trace in the order to run them.
    Sat(Vec<EventId>),
    Unsat,
    /// The solver gave up (timeout or interrupt).
    Unknown,
}

/// How an [`Encoder`] works, fixed when it is made. The default: MCR without MCR-S+, seeds in
/// the model's order, Z3's default seed, a Z3 context there.
#[derive(Clone, Debug)]
pub struct EncoderOptions {
    /// MCR-S+ ([`crate::sdg`]): queries keep only the validity the dependences say they need
    /// (with dependences; without, they still decide [`Encoder::stop_after`]).
    pub prune: bool,
    /// Benchmark mode ([`super::Tuning::per_query`]): each Z3 query's formula holds only the
    /// validity it needs, in a scope of its own on the trace's base.
    pub per_query: bool,
    /// MCR-S+ keeps up front only what no answer can do without, and checks on the model what
    /// the seed's other events need (see [`Encoder::closure`]); set with `per_query`.
    pub lazy_existence: bool,
    /// Hand out seeds in canonical order ([`Encoder::canonical`]) rather than the model's.
    pub canonical: bool,
    /// Threads whose code has an `await` (see [`Encoder::canonical`]); empty: none.
    pub await_threads: Vec<bool>,
    /// Z3's random seed, if not its default: which satisfying order a query returns, hence
    /// which seeds MCR explores, depends on it (tests vary it to check completeness does not).
    pub solver_seed: Option<u32>,
    /// Whether a Z3 context is there to solve in; without one, a query that needs Z3 sets
    /// [`Encoder::z3_wanted`] and answers `Unknown` (the exploration then starts again with a
    /// context).
    pub z3_allowed: bool,
}

impl Default for EncoderOptions {
    fn default() -> Self {
        EncoderOptions {
            prune: false,
            per_query: false,
            lazy_existence: false,
            canonical: false,
            await_threads: Vec::new(),
            solver_seed: None,
            z3_allowed: true,
        }
    }
}

/// Per-event links as the encoder's dense arrays hold them.
fn dense(links: Vec<Option<EventId>>) -> Vec<Option<usize>> {
    links.into_iter().map(|e| e.map(EventId::index)).collect()
}

/// The base constraints of one trace, asserted once; each query pushes its target on top.
///
/// Inside, events are numbered by their plain position (`usize`): the encoder, the pre-check's
/// order matrix and Z3's variables are dense per-event arrays and bit sets over `0..n`, where a
/// typed index would be converted at every use. Its interface ([`Target`], [`Answer`], the
/// trace's links) speaks [`EventId`].
pub struct Encoder<'t> {
    trace: &'t Trace,
    /// What it was made with.
    opts: EncoderOptions,
    /// The solver and its variables, made on the first query that reaches Z3 (most never do).
    z3: Option<Z3Vars>,
    /// A query needed Z3 without [`EncoderOptions::z3_allowed`].
    pub z3_wanted: bool,
    /// Flush event of each store (TSO/PSO).
    flush_of: Vec<Option<usize>>,
    /// Per cell: the events that publish a value to memory, with the value.
    publishes: Vec<Vec<(usize, i64)>>,
    /// For each load: the newest earlier store of the same thread to the same cell (TSO/PSO).
    own_store: Vec<Option<usize>>,
    /// Assertions built so far (base and queries).
    pub constraints: u64,
    /// Queries the static pre-check ([`prefilter`]) answered `Unsat` without calling Z3.
    pub skipped: u64,
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
    /// What the trace's events depend on ([`crate::sdg`]): which steps after a read target
    /// may stay in the prefix ([`Self::stop_after`]), and, with [`EncoderOptions::prune`],
    /// MCR-S+.
    deps: Option<TraceDeps>,
    /// Per read event, [`Self::stop_after`], built on first use.
    stops: std::cell::OnceCell<Vec<Option<usize>>>,
    /// The reads the current query constrains (see [`Self::closure`]); `None`: all.
    constrained: Option<Vec<bool>>,
    /// Tests: pairs `(a, b)` every query puts `a` before `b` in, to force a model.
    #[cfg(test)]
    forced: Vec<(usize, usize)>,
    /// The steps next to an `await` round ([`Self::round_steps`]), built on first use.
    round_steps: std::cell::OnceCell<Vec<bool>>,
}

impl<'t> Encoder<'t> {
    /// The encoder of `trace`, with what its events depend on (`deps`, if the graph was built).
    pub fn new(trace: &'t Trace, deps: Option<TraceDeps>, opts: EncoderOptions) -> Encoder<'t> {
        let n = trace.events.len();
        let flush_of = if !trace.rules().buffered() {
            vec![None; n]
        } else {
            dense(trace.flush_of())
        };
        let publishes = trace
            .publishes()
            .into_iter()
            .map(|p| p.into_iter().map(|(e, v)| (e.index(), v)).collect())
            .collect();
        let own_store = dense(trace.own_stores());
        let mut enc = Encoder {
            trace,
            opts,
            z3: None,
            z3_wanted: false,
            flush_of,
            publishes,
            own_store,
            constraints: 0,
            skipped: 0,
            preds: vec![Vec::new(); n],
            rounds: trace.await_rounds(),
            hb_order: std::cell::OnceCell::new(),
            sections: std::cell::OnceCell::new(),
            counts: Z3Counts::default(),
            deps,
            stops: std::cell::OnceCell::new(),
            constrained: None,
            #[cfg(test)]
            forced: Vec::new(),
            round_steps: std::cell::OnceCell::new(),
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
}

#[cfg(test)]
mod tests;
