//! The process's memory budget: a counting global allocator (installed by the `litmus` binary)
//! and the default budget.
//!
//! The engine does no I/O and knows no allocator: it reads the bytes in use through
//! [`litmus_engine::Control`]'s [`MemoryBudget`], which [`budget`] builds from [`used`]. Every
//! model, file and job of the process shares the one counter, so the budget bounds the process,
//! not one check. Z3 allocates through its own C++ allocator, which this does not count: the
//! engine adds Z3's own estimate of what it holds (`solver_watch`).
//!
//! The default budget is half of the smallest limit on the process's memory ([`crate::limits`]:
//! physical memory, its cgroups', `RLIMIT_AS`, `RLIMIT_DATA`), and says which it is, so
//! `--help` and the warning of a check that reached it can tell the user.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::OnceLock;

use litmus_engine::MemoryBudget;
use mimalloc::MiMalloc;

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

/// What an allocation of `size` bytes takes from mimalloc: its size class (classes 1/8 apart,
/// no header), or whole pages for huge blocks (`mi_good_size`). Counting the bytes asked for
/// alone, a store loop whose heap is mostly small nodes counted 2 GiB with 3.9 GB resident
/// (under glibc, whose chunks this counted before).
fn footprint(size: usize) -> i64 {
    // SAFETY: `mi_good_size` is a pure function of its argument.
    unsafe { libmimalloc_sys::mi_good_size(size) as i64 }
}

/// mimalloc (`mimalloc::MiMalloc`), counting what it hands out ([`footprint`]).
pub struct Counting;

// SAFETY: every call forwards to `MiMalloc` with the same arguments; the counter is a side
// effect.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { MiMalloc.alloc(l) };
        if !p.is_null() {
            count(footprint(l.size()));
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = unsafe { MiMalloc.alloc_zeroed(l) };
        if !p.is_null() {
            count(footprint(l.size()));
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { MiMalloc.dealloc(p, l) };
        count(-footprint(l.size()));
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = unsafe { MiMalloc.realloc(p, l, new) };
        if !q.is_null() {
            count(footprint(new) - footprint(l.size()));
        }
        q
    }
}

/// mimalloc's `mi_option_arena_eager_commit` and `mi_option_arena_reserve` (`mimalloc.h` of
/// v3; `libmimalloc-sys` names neither). A unit test checks them against their defaults.
const MI_ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
const MI_ARENA_RESERVE: libmimalloc_sys::mi_option_t = 23;

/// The arena mimalloc reserves at a time under `RLIMIT_AS` or `RLIMIT_DATA` (KiB).
const RLIMITED_ARENA_KIB: libc::c_long = 64 << 10;

/// Under `RLIMIT_AS` or `RLIMIT_DATA`, makes mimalloc reserve its arenas 64 MiB at a time
/// instead of 1 GiB, and commit them page by page. By default it maps 1 GiB readable and
/// writable at its first allocation (Linux overcommits), which `RLIMIT_DATA` counts whole: the
/// reservation fails under a small limit and mimalloc falls back to 128 MiB, and either way
/// what the arena holds unused is address space and data the limit no longer leaves the
/// process. Committed on demand, `RLIMIT_DATA` counts what the heap has touched, as with
/// glibc; reserved 64 MiB at a time, `RLIMIT_AS` loses at most the rest of the last arena.
/// Call it before the first allocation: the first arena is reserved then. Returns whether it
/// did.
pub fn fit_allocator_to_rlimits() -> bool {
    if !crate::limits::rlimited() {
        return false;
    }
    // SAFETY: `mi_option_set` stores an option's value; mimalloc reads it at its next arena
    // reservation.
    unsafe {
        libmimalloc_sys::mi_option_set(MI_ARENA_EAGER_COMMIT, 0);
        libmimalloc_sys::mi_option_set(MI_ARENA_RESERVE, RLIMITED_ARENA_KIB);
    }
    true
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

/// The default budget: its bytes and where they come from ("half of RLIMIT_AS 3 GiB"), worked
/// out once per process.
pub fn default_budget() -> (u64, &'static str) {
    static DEFAULT: OnceLock<(u64, &'static str)> = OnceLock::new();
    *DEFAULT.get_or_init(|| {
        let (bytes, why) = half_of(&crate::limits::limits());
        // Once per process: the stop reason carries a `&'static str`.
        (bytes, Box::leak(why.into_boxed_str()))
    })
}

/// Half of the smallest of `limits` (at least [`MIN_MIB`]), and why; 2 GiB when none is known.
pub fn half_of(limits: &[crate::limits::Limit]) -> (u64, String) {
    match crate::limits::smallest(limits) {
        Some(l) => (
            (l.bytes / 2).max(MIN_MIB << 20),
            format!("half of {}", l.what),
        ),
        None => (
            2 << 30,
            "no limit on the process's memory could be read".into(),
        ),
    }
}

/// The budget for `mib` MiB, set by `setting` (`"set by --max-memory"`, `"set by litmus.maxMemory"`; `mib` `None`: the
/// default), read through [`used`].
pub fn budget(mib: Option<u64>, setting: &'static str) -> MemoryBudget {
    let (limit, origin) = match mib {
        Some(m) => (m << 20, setting),
        None => default_budget(),
    };
    MemoryBudget {
        limit,
        used,
        origin,
    }
}

/// The default as `--help` and the server's settings describe it: "1.5 GiB (half of RLIMIT_AS
/// 3 GiB)".
pub fn describe_default() -> String {
    let (bytes, why) = default_budget();
    format!("{} ({why})", litmus_engine::human_bytes(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::Limit;

    #[test]
    fn the_default_is_half_the_smallest_limit_and_says_which() {
        let l = |bytes, what: &str| Limit {
            bytes,
            what: what.into(),
        };
        let (b, why) = half_of(&[
            l(24 << 30, "physical memory 24 GiB"),
            l(3 << 30, "RLIMIT_AS 3 GiB"),
        ]);
        assert_eq!((b, why.as_str()), (3 << 29, "half of RLIMIT_AS 3 GiB"));
        // Never below the smallest budget a check can start with.
        assert_eq!(half_of(&[l(1 << 20, "RLIMIT_DATA 1 MiB")]).0, MIN_MIB << 20);
        assert_eq!(half_of(&[]).0, 2 << 30);
    }

    #[test]
    fn an_allocation_counts_its_mimalloc_size_class() {
        // Words up to 64 bytes, then four classes per power of two; huge blocks in pages.
        assert_eq!(footprint(1), 8);
        assert_eq!(footprint(25), 32);
        assert_eq!(footprint(1000), 1024);
        assert_eq!(footprint(1100), 1280);
        assert_eq!(footprint(1 << 30), 1 << 30);
    }

    #[test]
    fn the_arena_options_are_the_ones_mimalloc_h_names() {
        // Their defaults (eager commit on an overcommitting system, 1 GiB), unless the
        // environment sets them.
        let get = |o| unsafe { libmimalloc_sys::mi_option_get(o) };
        if std::env::var_os("MIMALLOC_ARENA_EAGER_COMMIT").is_none() {
            assert_eq!(get(MI_ARENA_EAGER_COMMIT), 2);
        }
        if std::env::var_os("MIMALLOC_ARENA_RESERVE").is_none() {
            assert_eq!(get(MI_ARENA_RESERVE), 1 << 20);
        }
    }
}
