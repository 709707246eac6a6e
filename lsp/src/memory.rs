//! The process's memory budget: a counting global allocator (installed by the `litmus` binary)
//! and the default budget.
//!
//! The engine does no I/O and knows no allocator: it reads the bytes in use through
//! [`litmus_engine::Control`]'s [`MemoryBudget`], which [`budget`] builds from [`used`]. Every
//! model, file and job of the process shares the one counter, so the budget bounds the process,
//! not one check. Z3 allocates through its own C++ allocator, which this does not count (MCR
//! reaches Z3 rarely, and a Z3 query has a time limit).

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::atomic::{AtomicI64, Ordering};

use litmus_engine::MemoryBudget;
/// The allocator underneath the count: mimalloc, not glibc's malloc (ARCHITECTURE.md says why).
use mimalloc::MiMalloc as System;

static USED: AtomicI64 = AtomicI64::new(0);

/// Bytes a thread allocates (or frees) before it adds them to `USED`: one shared counter
/// updated on every allocation made parallel checks (`-j`, `auto`) contend on its cache line,
/// which cost `-j 2` its whole speed-up. Each thread holds at most this much unreported.
const BATCH: i64 = 64 * 1024;

thread_local! {
    static DELTA: Cell<i64> = const { Cell::new(0) };
}

/// Counts `n` bytes (negative: freed) on this thread, reporting them in batches.
fn count(n: i64) {
    // A const-initialised `Cell` has no destructor, so this works during thread exit too.
    let _ = DELTA.try_with(|d| {
        let v = d.get() + n;
        if !(-BATCH..=BATCH).contains(&v) {
            USED.fetch_add(v, Ordering::Relaxed);
            d.set(0);
        } else {
            d.set(v);
        }
    });
}

/// The allocator (`System`: mimalloc), counting the bytes it hands out.
pub struct Counting;

// SAFETY: every call forwards to `System` with the same arguments; the counter is a side effect.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            count(l.size() as i64);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(l) };
        if !p.is_null() {
            count(l.size() as i64);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        count(-(l.size() as i64));
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, l, new) };
        if !q.is_null() {
            count(new as i64 - l.size() as i64);
        }
        q
    }
}

/// Bytes allocated and not yet freed (0 when [`Counting`] is not the global allocator).
pub fn used() -> u64 {
    // Another thread may have reported the free of memory whose allocation is still in its
    // allocator's batch: never below zero.
    USED.load(Ordering::Relaxed).max(0) as u64
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
