//! Whether to stop: cancellation, the deadline and the memory budget, decided in one place
//! ([`Control::should_stop`]), and the callbacks that show a running check (progress, each
//! violation as it is found).
//!
//! A control decides nothing else: the `auto` portfolio's work meter lives in [`crate::auto`],
//! and engines count their work there at documented sites ([`crate::engine::Work`]), so adding
//! a poll does not change which engine answers. Controls form a tree: [`Control::child`] has a
//! stop flag of its own and also stops when its parent would (the portfolio's members, MCR
//! under `--first`), and [`Control::for_check`] is a child with the check's own deadline. Z3
//! allocates outside the allocator the embedding program counts; it registers what it holds
//! with [`register_outside`] (the Z3 watcher, [`crate::solver_watch`]), and the budget adds
//! that.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::options::CheckOptions;

/// How many iterations of a phase's loop (parsing, lowering, building the dependency graph)
/// may pass between two polls of [`Control::should_stop`].
pub const POLL_EVERY: u32 = 256;

/// Frees `big` on a thread of its own, so that a stopped exploration returns at once: freeing
/// millions of states takes a tenth of a second or more, which would count against the time
/// from a deadline or a cancel to the end. The CLI may exit before the thread is done (the
/// process's memory goes back anyway); the server gets the memory back a moment later. If no
/// thread can be started, it is freed here.
pub fn drop_in_background<T: Send + 'static>(big: T) {
    // A failed spawn drops the closure, and `big` with it, here.
    let _ = std::thread::Builder::new()
        .name("litmus-free".into())
        .spawn(move || drop(big));
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

/// A process-wide memory budget: the limit in bytes and how to read the bytes in use. The
/// engine does no I/O and knows no allocator: the program that embeds it supplies `used` (the
/// `litmus` binary counts its allocations with a global allocator); memory allocated outside
/// that allocator is registered with [`register_outside`] and added.
#[derive(Clone, Copy)]
pub struct MemoryBudget {
    pub limit: u64,
    pub used: fn() -> u64,
    /// Where the limit comes from, for the warning of a check that reached it ("set by
    /// --max-memory", "half of RLIMIT_AS 3 GiB"; empty: say nothing).
    pub origin: &'static str,
}

/// Bytes held outside the counted allocator at their owner's last report (Z3's estimate).
static OUTSIDE: AtomicU64 = AtomicU64::new(0);
/// How to read those bytes afresh (registered once by their owner).
static OUTSIDE_REFRESH: OnceLock<fn() -> u64> = OnceLock::new();

/// Registers memory held outside the counted allocator: `refresh` reads it afresh (and may
/// call [`note_outside`]); the budget adds the last noted value, and reads it again before
/// saying stop (it may have been freed since).
pub fn register_outside(refresh: fn() -> u64) {
    let _ = OUTSIDE_REFRESH.set(refresh);
}

/// Notes `bytes` held outside the counted allocator now.
pub fn note_outside(bytes: u64) {
    OUTSIDE.store(bytes, Ordering::Relaxed);
}

/// The bytes outside the counted allocator at the last note (0 if nothing registered).
pub fn outside_bytes() -> u64 {
    OUTSIDE.load(Ordering::Relaxed)
}

impl MemoryBudget {
    /// Whether the counted heap plus what is held outside it reach the limit.
    pub fn reached(&self) -> bool {
        let rust = (self.used)();
        let outside = outside_bytes();
        rust.saturating_add(outside) >= self.limit
            && (outside == 0
                || rust.saturating_add(OUTSIDE_REFRESH.get().map_or(0, |f| f())) >= self.limit)
    }
}

/// Cancellation, deadline, memory budget and progress for one check. Cloning shares the stop
/// flag and the stop reason.
///
/// Every phase and every engine polls [`Control::should_stop`] (one call: cancel flags,
/// deadlines, memory budget, this control's and its ancestors') often enough to stop within a
/// few milliseconds: between steps, iterations of an analysis and solver calls; the Z3 watcher
/// polls it for a running query. It costs an atomic load per ancestor, a clock read per
/// deadline and, with a budget, a counter read: cheap next to a step of the interpreter, but
/// in a tight loop call it every few hundred iterations. Once it says stop, it keeps saying
/// so, and [`Control::stop_reason`] says why (the report's warning names it).
#[derive(Clone, Default)]
pub struct Control {
    cancel: Arc<AtomicBool>,
    /// The first reason [`Control::should_stop`] gave, shared by clones.
    stopped: Arc<OnceLock<StopReason>>,
    deadline: Option<Instant>,
    memory: Option<MemoryBudget>,
    /// A child's parent: its cancel, deadline and budget stop the child too.
    parent: Option<Arc<Control>>,
    progress: Option<ProgressFn>,
    on_violation: Option<ViolationFn>,
    /// The worker budget extra threads of this check borrow from (own or inherited).
    workers: Option<Workers>,
    /// Where the `auto` portfolio measures its critical path in CPU time (own or inherited).
    cpu_path: Option<Arc<crate::cputime::CpuPath>>,
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
    /// Stops the exploration once `budget.used()` (plus what is held outside the counted
    /// allocator) reaches `budget.limit`.
    pub fn with_memory_budget(mut self, budget: MemoryBudget) -> Control {
        self.memory = Some(budget);
        self
    }
    /// Starts a thread beside the check's own (a portfolio member) only with a slot of
    /// `workers`; without a budget (the default) a portfolio starts its members as it needs.
    pub fn with_workers(mut self, workers: Workers) -> Control {
        self.workers = Some(workers);
        self
    }
    /// The worker budget, if any, own or inherited.
    pub fn workers(&self) -> Option<Workers> {
        self.workers
            .clone()
            .or_else(|| self.parent.as_ref().and_then(|p| p.workers()))
    }
    /// Measures the `auto` portfolio's critical path in CPU time on `path` (benchmarks: the
    /// check's time on free cores, [`crate::cputime::CpuPath`]); a single engine leaves it alone.
    pub fn with_cpu_path(mut self, path: Arc<crate::cputime::CpuPath>) -> Control {
        self.cpu_path = Some(path);
        self
    }
    /// The critical path's measure, if any, own or inherited.
    pub fn cpu_path(&self) -> Option<Arc<crate::cputime::CpuPath>> {
        self.cpu_path
            .clone()
            .or_else(|| self.parent.as_ref().and_then(|p| p.cpu_path()))
    }
    /// This control without its progress callback (a portfolio reports one engine's progress).
    pub fn without_progress(mut self) -> Control {
        self.progress = None;
        self
    }
    /// The deadline, if any, own or inherited (for a solver's own time limit).
    pub fn deadline(&self) -> Option<Instant> {
        let inherited = self.parent.as_ref().and_then(|p| p.deadline());
        match (self.deadline, inherited) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
    /// The memory budget, if any, own or inherited.
    pub fn memory_budget(&self) -> Option<MemoryBudget> {
        self.memory
            .or_else(|| self.parent.as_ref().and_then(|p| p.memory_budget()))
    }
    /// A control with a stop flag and a stop reason of its own that also stops when this one
    /// would (its cancel, deadline and memory budget): cancelling the child leaves this one
    /// alone (`--first` stops MCR so; the portfolio stops an outrun engine so). A stop the
    /// child inherits is its stop reason too.
    pub fn child(&self) -> Control {
        Control {
            cancel: Arc::new(AtomicBool::new(false)),
            stopped: Arc::new(OnceLock::new()),
            deadline: None,
            memory: None,
            parent: Some(Arc::new(self.clone())),
            progress: self.progress.clone(),
            on_violation: self.on_violation.clone(),
            workers: None,
            cpu_path: None,
        }
    }
    /// The control of one check: a [`Control::child`] with `opts.timeout` counted from now
    /// (unless an earlier deadline was set) and a stop reason of its own.
    pub fn for_check(&self, opts: &CheckOptions) -> Control {
        self.child().with_timeout(opts.timeout)
    }
    /// Ask the exploration to stop; it returns a report with `complete: false`. A child's
    /// cancel stops the child alone.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
    /// Whether this control or an ancestor was cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
            || self.parent.as_ref().is_some_and(|p| p.is_cancelled())
    }
    /// This control's own flag, for callers that keep their own handle.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.cancel.clone()
    }
    /// Why this control (or an ancestor) says stop now, without recording it (an ancestor's
    /// recorded reason is its own: a stopped check does not stop the next one).
    fn poll(&self) -> Option<StopReason> {
        if self.cancel.load(Ordering::Relaxed) {
            return Some(StopReason::Cancelled);
        }
        if let Some(r) = self.parent.as_ref().and_then(|p| p.poll()) {
            return Some(r);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Some(StopReason::Timeout);
        }
        self.memory
            .filter(|m| m.reached())
            .map(|m| StopReason::Memory {
                budget: m.limit,
                origin: m.origin,
            })
    }
    /// Whether to stop now: cancelled, past the deadline, or over the memory budget (this
    /// control's or an ancestor's). The one check every phase, engine and the Z3 watcher call
    /// (see the type's doc); it has no other effect than recording the reason.
    pub fn should_stop(&self) -> bool {
        if self.stopped.get().is_some() {
            return true;
        }
        match self.poll() {
            Some(r) => {
                let _ = self.stopped.set(r);
                true
            }
            None => false,
        }
    }
    /// Why [`Control::should_stop`] first said stop, if it did.
    pub fn stop_reason(&self) -> Option<StopReason> {
        self.stopped.get().copied()
    }
    pub fn report(&self, p: &Progress) {
        if let Some(f) = &self.progress {
            f(p)
        }
    }
}

/// A budget of worker threads shared by every check of a process (the CLI's and the server's
/// pool hand the same one to each check): a thread that runs a check holds a slot, and a check
/// starts a thread beside its own (the `auto` portfolio's parallel members) only with a slot
/// from [`Workers::try_acquire`], which never blocks; without one it runs the work on its own
/// thread. Cloning shares the budget.
#[derive(Clone, Debug)]
pub struct Workers {
    inner: Arc<WorkersInner>,
}

#[derive(Debug)]
struct WorkersInner {
    total: usize,
    in_use: AtomicU64,
    granted: AtomicU64,
}

/// One slot of a [`Workers`] budget, given back when dropped.
#[derive(Debug)]
pub struct WorkerSlot {
    inner: Arc<WorkersInner>,
}

impl Workers {
    /// A budget of `n` slots (at least one).
    pub fn new(n: usize) -> Workers {
        Workers {
            inner: Arc::new(WorkersInner {
                total: n.max(1),
                in_use: AtomicU64::new(0),
                granted: AtomicU64::new(0),
            }),
        }
    }
    /// A slot if one is free, at once.
    pub fn try_acquire(&self) -> Option<WorkerSlot> {
        let total = self.inner.total as u64;
        self.inner
            .in_use
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| {
                (u < total).then_some(u + 1)
            })
            .ok()?;
        self.inner.granted.fetch_add(1, Ordering::Relaxed);
        Some(WorkerSlot {
            inner: self.inner.clone(),
        })
    }
    /// The number of slots.
    pub fn total(&self) -> usize {
        self.inner.total
    }
    /// Slots held now.
    pub fn in_use(&self) -> usize {
        self.inner.in_use.load(Ordering::Acquire) as usize
    }
    /// Slots granted so far, in all (tests observe with it which threads were started).
    pub fn granted(&self) -> u64 {
        self.inner.granted.load(Ordering::Relaxed)
    }
}

impl Drop for WorkerSlot {
    fn drop(&mut self) {
        self.inner.in_use.fetch_sub(1, Ordering::AcqRel);
    }
}

impl std::fmt::Debug for Control {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}
