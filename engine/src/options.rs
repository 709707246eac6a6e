//! How a check runs: engine choice, bounds, timeout, cancellation and progress.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Which explorer answers a check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// Maximal causality reduction (the default, `docs/reference.md#check`): explores one execution per causal state
    /// of the program, choosing each next interleaving by solving the maximal causal model of an
    /// explored trace ([`crate::mcr`]).
    #[default]
    Mcr,
    /// Exhaustive exploration of the operational semantics with state hashing: the reference
    /// oracle MCR is tested against.
    Exhaustive,
    /// Stateless Source-DPOR with sleep sets over chronological traces ([`crate::dpor`]).
    Dpor,
    /// The engines above as a deterministic portfolio ([`crate::auto`]): each runs on a thread
    /// of its own, and the one that finishes with the least weighted work answers (the
    /// `litmus` binary's default).
    Auto,
}

impl EngineKind {
    /// The name on the command line and in JSON (`stats.engine`).
    pub fn key(self) -> &'static str {
        match self {
            EngineKind::Mcr => "mcr",
            EngineKind::Exhaustive => "exhaustive",
            EngineKind::Dpor => "dpor",
            EngineKind::Auto => "auto",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CheckOptions {
    pub engine: EngineKind,
    /// Use the static dependency graph to prune MCR's constraints (`--no-sdg` turns it off).
    pub sdg: bool,
    /// How often a `while` loop may run its body in one execution (default 8).
    pub loop_bound: u32,
    /// Per test and model; exploration then ends incomplete.
    pub timeout: Option<Duration>,
    /// `--first`: stop at the first violation (the report then says `stopped`).
    pub first: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            engine: EngineKind::Mcr,
            sdg: true,
            loop_bound: 8,
            timeout: None,
            first: false,
        }
    }
}

/// Progress of a running exploration, reported now and then through [`Control`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Progress {
    pub executions: u64,
    pub states: u64,
    pub violations: u64,
}

/// What [`Control`] calls with progress.
type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// What [`Control`] calls with each violation when it is first found (an editor shows it before
/// the exploration ends).
pub type ViolationFn = Arc<dyn Fn(&crate::report::Violation) + Send + Sync>;

/// Why an exploration stopped before it was complete.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StopReason {
    /// [`Control::cancel`] (Ctrl-C, a newer edit, the client's cancel).
    Cancelled,
    /// The deadline ([`CheckOptions::timeout`], or [`Control::with_deadline`]).
    Timeout,
    /// The process's memory use reached the budget ([`Control::with_memory_budget`]), in bytes,
    /// with where the budget came from ([`MemoryBudget::origin`]).
    Memory { budget: u64, origin: &'static str },
}

impl StopReason {
    fn code(self) -> u8 {
        match self {
            StopReason::Cancelled => 1,
            StopReason::Timeout => 2,
            StopReason::Memory { .. } => 3,
        }
    }
}

/// The work meter of one engine in the `auto` portfolio ([`crate::auto`]): every
/// [`Control::should_stop`] poll is one unit of work, weighted per engine, and the engine stops
/// once its weighted work passes `bound`, the least weighted work with which another engine of
/// the portfolio finished. Polls are made at fixed points of each engine's deterministic
/// exploration, so the work an engine needs to finish does not depend on timing, and neither
/// does which engine finishes with the least.
pub struct WorkMeter {
    /// Polls so far.
    pub polls: AtomicU64,
    /// The cost of one poll, in the portfolio's common unit.
    pub weight: u64,
    /// Shared by the portfolio: the least weighted work any engine finished with (`u64::MAX`
    /// while none has).
    pub bound: Arc<AtomicU64>,
    /// Called once, from the poll at which the weighted work first passes the threshold (the
    /// portfolio starts its other engines there).
    pub wake: Option<(u64, WakeFn)>,
    /// Whether `wake` was called (or claimed by [`WorkMeter::claim_wake`]).
    pub woken: AtomicBool,
    /// Work charged before the first poll (an engine that joins the portfolio late starts
    /// from the work at which it joined).
    pub offset: u64,
}

/// What [`WorkMeter::wake`] calls.
pub type WakeFn = Box<dyn Fn() + Send + Sync>;

impl WorkMeter {
    /// A meter without a wake-up.
    pub fn new(weight: u64, bound: Arc<AtomicU64>) -> WorkMeter {
        WorkMeter {
            polls: AtomicU64::new(0),
            weight,
            bound,
            wake: None,
            woken: AtomicBool::new(false),
            offset: 0,
        }
    }
    /// True for the one caller that gets to run the wake-up (the poll past the threshold, or
    /// whoever claims it first).
    pub fn claim_wake(&self) -> bool {
        !self.woken.swap(true, Ordering::Relaxed)
    }
    /// Weighted work so far.
    pub fn work(&self) -> u64 {
        self.polls
            .load(Ordering::Relaxed)
            .saturating_mul(self.weight)
            .saturating_add(self.offset)
    }
}

/// A process-wide memory budget: the limit in bytes and how to read the bytes in use. The
/// engine does no I/O and knows no allocator: the program that embeds it supplies `used` (the
/// `litmus` binary counts its allocations with a global allocator).
#[derive(Clone, Copy)]
pub struct MemoryBudget {
    pub limit: u64,
    pub used: fn() -> u64,
    /// Where the limit comes from, for the warning of a check that reached it ("set by
    /// --max-memory", "half of RLIMIT_AS 3 GiB"; empty: say nothing).
    pub origin: &'static str,
}

/// Cancellation, deadline, memory budget and progress for one check. Cloning shares the cancel
/// flag.
///
/// Every phase and every engine polls [`Control::should_stop`] (one call: cancel flag, deadline,
/// memory budget) often enough to stop within a few milliseconds: between steps, iterations of
/// an analysis and solver calls. It costs an atomic load, a clock read and, with a budget, a
/// counter read: cheap next to a step of the interpreter, but in a tight loop call it every few
/// hundred iterations. Once it says stop, it keeps saying so, and [`Control::stop_reason`] says
/// why (the report's warning names it).
#[derive(Clone, Default)]
pub struct Control {
    cancel: Arc<AtomicBool>,
    progress: Option<ProgressFn>,
    on_violation: Option<ViolationFn>,
    deadline: Option<Instant>,
    memory: Option<MemoryBudget>,
    /// The first reason [`Control::should_stop`] gave (0: none), shared by clones made after
    /// [`Control::for_check`].
    stopped: Arc<AtomicU8>,
    /// In the `auto` portfolio: this engine's work meter.
    work: Option<Arc<WorkMeter>>,
    /// A child's parent ([`Control::child`]): its cancel, deadline and budget stop the child.
    parent: Option<Arc<Control>>,
}

impl Control {
    pub fn new() -> Control {
        Control::default()
    }
    pub fn with_progress(mut self, f: impl Fn(&Progress) + Send + Sync + 'static) -> Control {
        self.progress = Some(Arc::new(f));
        self
    }
    /// Calls `f` with each violation (kind and span) the first time an explorer records it,
    /// with the schedule that reached it (the report may end with a shorter one).
    pub fn with_on_violation(
        mut self,
        f: impl Fn(&crate::report::Violation) + Send + Sync + 'static,
    ) -> Control {
        self.on_violation = Some(Arc::new(f));
        self
    }
    /// The violation callback, for the result collector.
    pub fn on_violation(&self) -> Option<ViolationFn> {
        self.on_violation.clone()
    }
    /// Stops the exploration at `deadline` (the earlier one, if it already had one).
    pub fn with_deadline(mut self, deadline: Instant) -> Control {
        self.deadline = Some(self.deadline.map_or(deadline, |d| d.min(deadline)));
        self
    }
    /// Stops the exploration `timeout` from now (no deadline if that is past the clock's range).
    pub fn with_timeout(self, timeout: Option<Duration>) -> Control {
        match timeout.and_then(|t| Instant::now().checked_add(t)) {
            Some(d) => self.with_deadline(d),
            None => self,
        }
    }
    /// Stops the exploration once `budget.used()` reaches `budget.limit`.
    pub fn with_memory_budget(mut self, budget: MemoryBudget) -> Control {
        self.memory = Some(budget);
        self
    }
    /// Counts this control's polls on `meter` and stops once they outweigh its bound (the
    /// `auto` portfolio, [`crate::auto`]).
    pub fn with_work(mut self, meter: Arc<WorkMeter>) -> Control {
        self.work = Some(meter);
        self
    }
    /// This control without the portfolio's work meter, sharing everything else (its stop
    /// reason too): for the phases before an exploration (parsing, lowering), whose polls must
    /// not count as an engine's work.
    pub fn unmetered(&self) -> Control {
        let mut c = self.clone();
        c.work = None;
        c
    }
    /// This control without its progress callback (a portfolio reports one engine's progress).
    pub fn without_progress(mut self) -> Control {
        self.progress = None;
        self
    }
    /// The deadline, if any (for a solver's own time limit).
    pub fn deadline(&self) -> Option<Instant> {
        let inherited = self.parent.as_ref().and_then(|p| p.deadline());
        match (self.deadline, inherited) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    /// The memory budget, if any.
    pub fn memory_budget(&self) -> Option<MemoryBudget> {
        self.memory
            .or_else(|| self.parent.as_ref().and_then(|p| p.memory_budget()))
    }
    /// The control of one check: this one with `opts.timeout` counted from now (unless an
    /// earlier deadline was set) and a stop reason of its own.
    pub fn for_check(&self, opts: &CheckOptions) -> Control {
        let mut c = self.clone().with_timeout(opts.timeout);
        c.stopped = Arc::new(AtomicU8::new(0));
        c
    }
    /// A control with a stop flag of its own that also stops when this one would (its cancel,
    /// deadline and memory budget, and the Z3 watcher's interrupt through them): cancelling
    /// the child leaves this one alone (`--first` stops MCR so). A stop the child inherits is
    /// recorded as this control's stop reason too; the child's own cancel is not. The child
    /// counts no portfolio work (its polls are the engine's own business).
    pub fn child(&self) -> Control {
        Control {
            cancel: Arc::new(AtomicBool::new(false)),
            progress: self.progress.clone(),
            on_violation: self.on_violation.clone(),
            deadline: None,
            memory: None,
            stopped: Arc::new(AtomicU8::new(0)),
            work: None,
            parent: Some(Arc::new(self.unmetered())),
        }
    }
    /// Ask the exploration to stop; it returns a report with `complete: false`.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
    /// The shared flag itself, for callers that keep their own handle.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.cancel.clone()
    }
    /// Whether to stop now: cancelled, past the deadline, or over the memory budget. The one
    /// check every phase and engine calls (see the type's doc).
    pub fn should_stop(&self) -> bool {
        let reason = if self.is_cancelled() {
            StopReason::Cancelled
        } else if let Some(r) = self.parent.as_ref().filter(|p| p.should_stop()) {
            r.stop_reason().unwrap_or(StopReason::Cancelled)
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            StopReason::Timeout
        } else if let Some(m) = self.memory.filter(|m| over_budget(m, None)) {
            StopReason::Memory {
                budget: m.limit,
                origin: m.origin,
            }
        } else if self.work.as_ref().is_some_and(|w| {
            let work = (w.polls.fetch_add(1, Ordering::Relaxed) + 1)
                .saturating_mul(w.weight)
                .saturating_add(w.offset);
            if let Some((at, wake)) = &w.wake {
                if work > *at && w.claim_wake() {
                    wake();
                }
            }
            work > w.bound.load(Ordering::Relaxed)
        }) {
            // Outrun by another engine of the portfolio: its report is discarded, never shown.
            StopReason::Cancelled
        } else {
            return self.stopped.load(Ordering::Relaxed) != 0;
        };
        let _ =
            self.stopped
                .compare_exchange(0, reason.code(), Ordering::Relaxed, Ordering::Relaxed);
        true
    }
    /// [`Control::should_stop`] for the Z3 watcher ([`crate::solver_watch`]), with Z3's
    /// allocation `z3` just read: cancel, deadline and memory only (the portfolio's work
    /// meter counts the engine's own polls, which a thread polling on a clock would make
    /// nondeterministic).
    pub fn should_interrupt(&self, z3: u64) -> bool {
        let reason = if self.is_cancelled() {
            StopReason::Cancelled
        } else if let Some(r) = self.parent.as_ref().filter(|p| p.should_interrupt(z3)) {
            r.stop_reason().unwrap_or(StopReason::Cancelled)
        } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
            StopReason::Timeout
        } else if let Some(m) = self.memory.filter(|m| over_budget(m, Some(z3))) {
            StopReason::Memory {
                budget: m.limit,
                origin: m.origin,
            }
        } else {
            return false;
        };
        let _ =
            self.stopped
                .compare_exchange(0, reason.code(), Ordering::Relaxed, Ordering::Relaxed);
        true
    }
    /// Why [`Control::should_stop`] first said stop, if it did.
    pub fn stop_reason(&self) -> Option<StopReason> {
        match self.stopped.load(Ordering::Relaxed) {
            1 => Some(StopReason::Cancelled),
            2 => Some(StopReason::Timeout),
            3 => Some(StopReason::Memory {
                budget: self.memory_budget().map_or(0, |m| m.limit),
                origin: self.memory_budget().map_or("", |m| m.origin),
            }),
            _ => None,
        }
    }
    pub fn report(&self, p: &Progress) {
        if let Some(f) = &self.progress {
            f(p)
        }
    }
}

/// Whether the heap the binary counts plus Z3's own allocation (`z3`, or the last estimate,
/// read again before saying yes: Z3 may have freed it since) reach the budget.
fn over_budget(m: &MemoryBudget, z3: Option<u64>) -> bool {
    let rust = (m.used)();
    let z3 = z3.unwrap_or_else(crate::solver_watch::z3_bytes);
    rust.saturating_add(z3) >= m.limit
        && (z3 == 0 || rust.saturating_add(crate::solver_watch::refresh_z3_bytes()) >= m.limit)
}

impl std::fmt::Debug for Control {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}
