//! The process's memory budget: a counting global allocator (installed by the `litmus` binary)
//! and the default budget.
//!
//! The engine does no I/O and knows no allocator: it reads the bytes in use through
//! [`litmus_engine::Control`]'s [`MemoryBudget`], which [`budget`] builds from [`used`]. Every
//! model, file and job of the process shares the one counter, so the budget bounds the process,
//! not one check. Z3 allocates through its own C++ allocator, which this does not count (MCR
//! reaches Z3 rarely, and a Z3 query has a time limit).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

use litmus_engine::MemoryBudget;

static USED: AtomicU64 = AtomicU64::new(0);

/// The system allocator, counting the bytes it hands out.
pub struct Counting;

// SAFETY: every call forwards to `System` with the same arguments; the counter is a side effect.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            USED.fetch_add(l.size() as u64, Ordering::Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            USED.fetch_add(l.size() as u64, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        USED.fetch_sub(l.size() as u64, Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            USED.fetch_add(new as u64, Ordering::Relaxed);
            USED.fetch_sub(l.size() as u64, Ordering::Relaxed);
        }
        q
    }
}

/// Bytes allocated and not yet freed (0 when [`Counting`] is not the global allocator).
pub fn used() -> u64 {
    USED.load(Ordering::Relaxed)
}

/// The smallest budget accepted (MiB): less and a check cannot even start.
pub const MIN_MIB: u64 = 16;
/// The largest budget accepted (MiB): 1 TiB.
pub const MAX_MIB: u64 = 1 << 20;

/// The default budget in bytes: half of the memory available to the process (the machine's,
/// or its cgroup's limit if lower), or 2 GiB when neither can be read.
pub fn default_budget() -> u64 {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
    });
    let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok());
    let total = match (meminfo, cgroup) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => 4 << 30,
    };
    (total / 2).max(MIN_MIB << 20)
}

/// The budget for `mib` MiB (`None`: the default), read through [`used`].
pub fn budget(mib: Option<u64>) -> MemoryBudget {
    MemoryBudget {
        limit: mib.map_or_else(default_budget, |m| m << 20),
        used,
    }
}
