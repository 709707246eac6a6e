//! CPU clocks of threads, and the `auto` portfolio's critical path measured on them
//! ([`CpuPath`], for benchmarks). Apart from `auto` so that [`crate::control::Control`], which
//! carries a path, does not import the portfolio that uses it.

use std::sync::atomic::{AtomicU64, Ordering};

/// This thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), in ns: the clock of a [`CpuPath`].
pub fn thread_cpu_ns() -> u64 {
    clock_ns(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// The CPU clock of the calling thread, which other threads may read ([`clock_ns`]) while it
/// lives.
pub(crate) fn this_thread_clock() -> libc::clockid_t {
    let mut id: libc::clockid_t = libc::CLOCK_THREAD_CPUTIME_ID;
    // SAFETY: `pthread_getcpuclockid` of the calling thread writes the id it is given.
    unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut id) };
    id
}

/// The CPU time of the thread whose clock is `id`, in ns.
pub(crate) fn clock_ns(id: libc::clockid_t) -> u64 {
    // SAFETY: `clock_gettime` fills the zeroed struct it is given.
    let mut t: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(id, &mut t) };
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// The portfolio's critical path in CPU time, for benchmarks ([`crate::Control::with_cpu_path`]):
/// what the check would take in wall time with a free core for each member, whatever the
/// machine's load. Each member's end is its start plus its own thread's CPU time up to the
/// moment it finished or was outrun (its work passed the bound; its teardown is not waited
/// for), and its start is the CPU time the check's own thread (the first candidate's) had used
/// when the member was started. The path is the latest end, in the check's thread's CPU clock
/// ([`thread_cpu_ns`] on the thread that called the check): its CPU time at the check's start
/// subtracted, the rest is the check's time on free cores.
#[derive(Default)]
pub struct CpuPath {
    pub(crate) ns: AtomicU64,
    /// Members started and not yet at their end.
    pub(crate) open: AtomicU64,
}

impl CpuPath {
    /// The latest end so far, in ns of the check's thread's CPU clock.
    pub fn ns(&self) -> u64 {
        self.ns.load(Ordering::Acquire)
    }
    /// Whether every member started has reached its end (finished or outrun); an outrun
    /// member's end is marked by its own thread at its next unit of work, which may come
    /// after the portfolio has answered.
    pub fn settled(&self) -> bool {
        self.open.load(Ordering::Acquire) == 0
    }
    /// Extends the path to `end` (the check's own thread after the portfolio).
    pub fn reach(&self, end: u64) {
        self.ns.fetch_max(end, Ordering::AcqRel);
    }
}
