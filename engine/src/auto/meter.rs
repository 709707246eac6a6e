//! The work meter of one engine in the portfolio.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use super::turns::Turns;
use crate::control::Control;
pub(crate) use crate::cputime::{clock_ns, this_thread_clock};
pub use crate::cputime::{thread_cpu_ns, CpuPath};

/// What [`WorkMeter`] calls once the first engine's work passes the earliest later start.
pub type WakeFn = Box<dyn Fn() + Send + Sync>;

/// A member's clock on a [`CpuPath`]: its start on the path and its thread's CPU time then.
struct Timing {
    path: Arc<CpuPath>,
    start: u64,
    cpu0: u64,
}

/// The work meter of one engine in the `auto` portfolio: the engine counts its units of work
/// at the documented sites ([`crate::engine`]), each weighted per engine, and the meter
/// cancels the engine's control once its weighted work passes `bound`, the least weighted
/// work with which another engine of the portfolio finished. The sites are fixed points of
/// each engine's deterministic exploration, so the work an engine needs to finish does not
/// depend on timing, and neither does which engine finishes with the least.
pub struct WorkMeter {
    /// Units counted so far.
    units: AtomicU64,
    /// The cost of one unit, in the portfolio's common unit.
    weight: u64,
    /// Shared by the portfolio: the least weighted work any engine finished with (`u64::MAX`
    /// while none has).
    pub bound: Arc<AtomicU64>,
    /// Called once, from the count at which the weighted work first passes the threshold (the
    /// portfolio starts its other engines there).
    wake: Option<(u64, WakeFn)>,
    /// Whether `wake` was called (or claimed by [`WorkMeter::claim_wake`]).
    woken: AtomicBool,
    /// Called once, from the count at which the weighted work first passes its threshold, and
    /// independent of `wake` (the portfolio starts its deadline's timer there, so that a check
    /// finished sooner starts no thread).
    timer: Option<(u64, WakeFn)>,
    /// Whether `timer` was called (or claimed by [`WorkMeter::claim_wake`]).
    timer_woken: AtomicBool,
    /// Work charged before the first unit (an engine that joins the portfolio late starts
    /// from the work at which it joined).
    offset: u64,
    /// The engine's control, cancelled once it is outrun.
    member: Control,
    /// Set by [`WorkMeter::arm`] where a [`CpuPath`] is measured.
    timing: std::sync::OnceLock<Timing>,
    /// Whether the end was marked on the path.
    marked: AtomicBool,
    /// The turns this member takes with others of its check, and its index there
    /// ([`WorkMeter::take_turns`]).
    turn: std::sync::OnceLock<(Arc<Turns>, usize)>,
}

impl WorkMeter {
    /// A meter without a wake-up, charging `offset` for a late start.
    pub fn new(weight: u64, bound: Arc<AtomicU64>, offset: u64, member: Control) -> WorkMeter {
        WorkMeter {
            units: AtomicU64::new(0),
            weight,
            bound,
            wake: None,
            woken: AtomicBool::new(false),
            timer: None,
            timer_woken: AtomicBool::new(false),
            offset,
            member,
            timing: std::sync::OnceLock::new(),
            marked: AtomicBool::new(false),
            turn: std::sync::OnceLock::new(),
        }
    }
    /// Has this member, index `i`, take turns on `turns` with the others of its check that
    /// share one worker slot: at its counts it hands the baton over, or waits for it.
    pub(crate) fn take_turns(&self, turns: Arc<Turns>, i: usize) {
        let _ = self.turn.set((turns, i));
    }
    /// This member ended: it leaves its turns, handing the baton on if it held it.
    pub(crate) fn end_turns(&self) {
        if let Some((t, i)) = self.turn.get() {
            t.end(*i);
        }
    }
    /// Starts this member's clock on `path`, on the thread that runs it, its start on the
    /// path being `start`.
    pub fn arm(&self, path: Arc<CpuPath>, start: u64) {
        path.open.fetch_add(1, Ordering::AcqRel);
        let cpu0 = thread_cpu_ns();
        if let Err(t) = self.timing.set(Timing { path, start, cpu0 }) {
            t.path.open.fetch_sub(1, Ordering::AcqRel);
        }
    }
    /// Marks this member's end on its path (once; on the thread that runs it).
    pub fn mark_end(&self) {
        if let Some(t) = self.timing.get() {
            if !self.marked.swap(true, Ordering::AcqRel) {
                let own = thread_cpu_ns().saturating_sub(t.cpu0);
                t.path.reach(t.start + own);
                t.path.open.fetch_sub(1, Ordering::AcqRel);
            }
        }
    }
    /// This meter, calling `wake` once its work first passes `at`.
    pub fn with_wake(mut self, at: u64, wake: WakeFn) -> WorkMeter {
        self.wake = Some((at, wake));
        self
    }
    /// This meter, calling `timer` once its work first passes `at`.
    pub fn with_timer(mut self, at: u64, timer: WakeFn) -> WorkMeter {
        self.timer = Some((at, timer));
        self
    }
    /// Counts `n` units; wakes the portfolio at the threshold, and stops the engine once its
    /// work passes the bound (outrun by another engine: its report is discarded, never shown).
    /// A member taking turns hands the baton over here once its work passes another's by the
    /// quantum, and waits here for its next turn (its work as it stands).
    pub fn add(&self, n: u64) {
        let work = self.weighted(self.units.fetch_add(n, Ordering::Relaxed) + n);
        if let Some((at, wake)) = &self.wake {
            if work > *at && self.claim_wake() {
                wake();
            }
        }
        if let Some((at, timer)) = &self.timer {
            if work > *at && !self.timer_woken.swap(true, Ordering::Relaxed) {
                timer();
            }
        }
        if work > self.bound.load(Ordering::Relaxed) {
            self.mark_end();
            self.member.cancel();
            self.end_turns();
        } else if let Some((t, i)) = self.turn.get() {
            t.poll(*i, work, &self.member);
        }
    }
    /// True for the one caller that gets to run the wake-up (the count past the threshold, or
    /// whoever claims it first).
    pub fn claim_wake(&self) -> bool {
        self.timer_woken.store(true, Ordering::Relaxed);
        !self.woken.swap(true, Ordering::Relaxed)
    }
    fn weighted(&self, units: u64) -> u64 {
        units
            .saturating_mul(self.weight)
            .saturating_add(self.offset)
    }
    /// The cost of one unit.
    pub fn weight(&self) -> u64 {
        self.weight
    }
    /// Weighted work so far.
    pub fn work(&self) -> u64 {
        self.weighted(self.units.load(Ordering::Relaxed))
    }
    /// The engine's control.
    pub fn member(&self) -> &Control {
        &self.member
    }
    /// Unweighted units so far (benchmarks print them).
    pub fn units(&self) -> u64 {
        self.units.load(Ordering::Relaxed)
    }
}
