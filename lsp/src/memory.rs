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

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicI64, AtomicU8, Ordering};
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

/// What an allocation of `size` bytes takes from mimalloc, as its `mi_good_size` says: one
/// word, pairs of words up to 64 bytes, then four size classes per power of two (no header),
/// whole pages above 512 KiB.
/// Worked out here, not asked of mimalloc: the call on every allocation and free took 4% of
/// the catalogue's CPU time. Counting the bytes asked for alone, a store loop whose heap is
/// mostly small nodes counted 2 GiB with 3.9 GB resident.
#[inline]
fn mimalloc_footprint(size: usize) -> i64 {
    const LARGE_MAX: usize = 512 << 10;
    let words = size.div_ceil(8).max(1);
    let bytes = if words <= 1 {
        8
    } else if words <= 8 {
        // Pairs of words (16-byte alignment).
        words.next_multiple_of(2) * 8
    } else if size <= LARGE_MAX {
        // The top three bits of `words - 1` pick the class.
        let w = words - 1;
        let step = w.ilog2() - 2;
        (((w >> step) + 1) << step) * 8
    } else {
        size.next_multiple_of(4096)
    };
    bytes as i64
}

/// What an allocation of `size` bytes takes from glibc: its chunk (8 bytes of header, rounded
/// up to 16, at least 32), or whole pages from 128 KiB on (glibc maps those apart).
#[inline]
fn glibc_footprint(size: usize) -> i64 {
    let s = size as i64;
    if s >= 128 << 10 {
        (s + 8 + 4095) & !4095
    } else {
        ((s + 8 + 15) & !15).max(32)
    }
}

/// The allocator under the count, chosen at the process's first allocation (before `main`,
/// before any thread): 0 not yet, else [`MIMALLOC`] or [`GLIBC`].
static CHOICE: AtomicU8 = AtomicU8::new(0);
const MIMALLOC: u8 = 1;
const GLIBC: u8 = 2;

/// Whether the heap is glibc's: under `RLIMIT_AS` or `RLIMIT_DATA`, where the default budget
/// is half of what the limit leaves and glibc with one arena
/// ([`crate::limits::one_arena_under_rlimits`]) keeps the rest within it. mimalloc did not:
/// with 20 heavy documents in the server under `RLIMIT_DATA` 128 MiB (budget 64 MiB), its
/// data reached the limit and an allocation aborted (`lsp/tests/lsp_limits.rs`), where glibc's
/// stayed at 115 MB; its arenas also reserve 1 GiB of address space at a time. Elsewhere
/// mimalloc: 20-30% less CPU than glibc's `malloc` (`docs/catalogues.md`).
#[inline]
fn glibc() -> bool {
    match CHOICE.load(Ordering::Relaxed) {
        0 => choose(),
        c => c == GLIBC,
    }
}

#[cold]
fn choose() -> bool {
    // `rlimited` calls `getrlimit` only: it does not allocate. Every caller would choose alike.
    let c = if crate::limits::rlimited() {
        GLIBC
    } else {
        MIMALLOC
    };
    let _ = CHOICE.compare_exchange(0, c, Ordering::Relaxed, Ordering::Relaxed);
    CHOICE.load(Ordering::Relaxed) == GLIBC
}

/// What an allocation of `size` bytes takes from the allocator in use.
#[inline]
fn footprint(glibc: bool, size: usize) -> i64 {
    if glibc {
        glibc_footprint(size)
    } else {
        mimalloc_footprint(size)
    }
}

/// mimalloc (`mimalloc::MiMalloc`), or glibc's allocator under an rlimit ([`glibc`]), counting
/// what it hands out ([`footprint`]).
pub struct Counting;

// SAFETY: every call forwards to `MiMalloc` or `System` with the same arguments, the same one
// for the whole process (chosen once, before the first block is handed out); the counter is a
// side effect.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let g = glibc();
        let p = unsafe { heap(g).alloc(l) };
        if !p.is_null() {
            count(footprint(g, l.size()));
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let g = glibc();
        let p = unsafe { heap(g).alloc_zeroed(l) };
        if !p.is_null() {
            count(footprint(g, l.size()));
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        let g = glibc();
        unsafe { heap(g).dealloc(p, l) };
        count(-footprint(g, l.size()));
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let g = glibc();
        let q = unsafe { heap(g).realloc(p, l, new) };
        if !q.is_null() {
            count(footprint(g, new) - footprint(g, l.size()));
        }
        q
    }
}

/// The allocator in use: glibc's ([`glibc`]) or mimalloc.
#[inline]
fn heap(glibc: bool) -> &'static dyn GlobalAlloc {
    if glibc {
        &System
    } else {
        &MiMalloc
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

/// Whom a default budget is for: the command line (a run the user started and waits for) or
/// the language server (which runs beside an editor and everything else on the machine, on
/// every save).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Cli,
    Server,
}

impl Role {
    /// The share of physical memory a default may take (the process's own limits: always half,
    /// `limits.rs` says why) and the most it may be.
    fn shares(self) -> (u64, u64) {
        match self {
            Role::Cli => (2, 8 << 30),
            Role::Server => (4, 4 << 30),
        }
    }
}

/// The command line's default budget: its bytes and where they come from ("half of RLIMIT_AS
/// 3 GiB"), worked out once per process ([`default_of`]).
pub fn default_budget() -> (u64, &'static str) {
    static DEFAULT: OnceLock<(u64, &'static str)> = OnceLock::new();
    *DEFAULT.get_or_init(|| {
        let (bytes, why) = default_of(&crate::limits::limits(), Role::Cli);
        // Once per process: the stop reason carries a `&'static str`.
        (bytes, Box::leak(why.into_boxed_str()))
    })
}

/// The language server's default budget for the whole process ([`default_of`]).
pub fn server_default() -> (u64, &'static str) {
    static DEFAULT: OnceLock<(u64, &'static str)> = OnceLock::new();
    *DEFAULT.get_or_init(|| {
        let (bytes, why) = default_of(&crate::limits::limits(), Role::Server);
        (bytes, Box::leak(why.into_boxed_str()))
    })
}

/// The default budget for `role`: the smallest of half of each limit on the process's memory
/// (its cgroup, `RLIMIT_AS`, `RLIMIT_DATA`), a share of physical memory (the command line half,
/// the server a quarter) and a cap (8 GiB for the command line, 4 GiB for the server), at least
/// [`MIN_MIB`]; with the reason, for `--help`, the settings and a stopped check's warning. So
/// one check of an editor's document cannot take the machine: on a 24 GiB machine the server's
/// default is 4 GiB and the command line's 8 GiB (`--max-memory` and `litmus.maxMemory` raise
/// them).
pub fn default_of(limits: &[crate::limits::Limit], role: Role) -> (u64, String) {
    let (physical_share, cap) = role.shares();
    let mut best = (
        cap,
        format!("the default's cap of {}", litmus_engine::human_bytes(cap)),
    );
    for l in limits {
        let (div, word) = if l.what.starts_with("physical memory") && physical_share == 4 {
            (4, "a quarter")
        } else {
            (2, "half")
        };
        if l.bytes / div < best.0 {
            best = (l.bytes / div, format!("{word} of {}", l.what));
        }
    }
    (best.0.max(MIN_MIB << 20), best.1)
}

/// The budget of one check in the language server: `litmus.maxMemory` MiB for the process when
/// set, else [`server_check_budget`].
pub fn server_budget(max_memory: Option<u64>) -> MemoryBudget {
    match max_memory {
        Some(_) => budget(max_memory, "set by litmus.maxMemory"),
        None => server_check_budget(),
    }
}

/// The budget of one check in the language server when `litmus.maxMemory` is not set: the
/// heap in use when it begins plus half the server's default, within that default. So two
/// checks at once fit, and one runaway check stops at its share instead of taking everything
/// the server may use (`docs/reference.md#limits`).
pub fn server_check_budget() -> MemoryBudget {
    static ORIGIN: OnceLock<&'static str> = OnceLock::new();
    let (process, why) = server_default();
    let share = process / 2;
    let origin = *ORIGIN.get_or_init(|| {
        let o = format!(
            "one check's default share: {} more than the server used when it began, within \
             the server's {} ({why})",
            litmus_engine::human_bytes(share),
            litmus_engine::human_bytes(process)
        );
        Box::leak(o.into_boxed_str())
    });
    MemoryBudget {
        limit: used().saturating_add(share).min(process),
        used,
        origin,
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
    fn the_default_is_the_smallest_share_of_a_limit_or_the_cap_and_says_which() {
        let l = |bytes, what: &str| Limit {
            bytes,
            what: what.into(),
        };
        let phys = l(24 << 30, "physical memory 24 GiB");
        let (b, why) = default_of(&[phys.clone(), l(3 << 30, "RLIMIT_AS 3 GiB")], Role::Cli);
        assert_eq!((b, why.as_str()), (3 << 29, "half of RLIMIT_AS 3 GiB"));
        // The server takes half of a process limit too, but a quarter of physical memory.
        let (b, why) = default_of(&[phys.clone(), l(3 << 30, "RLIMIT_AS 3 GiB")], Role::Server);
        assert_eq!((b, why.as_str()), (3 << 29, "half of RLIMIT_AS 3 GiB"));
        let small = l(8 << 30, "physical memory 8 GiB");
        let (b, why) = default_of(std::slice::from_ref(&small), Role::Server);
        assert_eq!(
            (b, why.as_str()),
            (2 << 30, "a quarter of physical memory 8 GiB")
        );
        let (b, why) = default_of(&[small], Role::Cli);
        assert_eq!(
            (b, why.as_str()),
            (4 << 30, "half of physical memory 8 GiB")
        );
        // A large machine: the caps, 8 GiB for the command line and 4 for the server.
        let (b, why) = default_of(std::slice::from_ref(&phys), Role::Cli);
        assert_eq!((b, why.as_str()), (8 << 30, "the default's cap of 8 GiB"));
        assert_eq!(default_of(&[phys], Role::Server).0, 4 << 30);
        // Never below the smallest budget a check can start with; the cap with nothing known.
        let tiny = [l(1 << 20, "RLIMIT_DATA 1 MiB")];
        assert_eq!(default_of(&tiny, Role::Cli).0, MIN_MIB << 20);
        assert_eq!(default_of(&[], Role::Server).0, 4 << 30);
    }

    #[test]
    fn an_allocation_counts_what_glibc_takes_for_it() {
        assert_eq!(glibc_footprint(1), 32);
        assert_eq!(glibc_footprint(24), 32);
        assert_eq!(glibc_footprint(25), 48);
        assert_eq!(glibc_footprint(1000), 1008);
        assert_eq!(glibc_footprint(1 << 20), (1 << 20) + 4096);
    }

    #[test]
    fn an_allocation_counts_its_mimalloc_size_class() {
        let mut sizes: Vec<usize> = (1..=70_000).collect();
        sizes.extend((0..=2_000).map(|k| 500_000 + k * 37));
        for size in sizes {
            // SAFETY: `mi_good_size` is a pure function of its argument.
            let good = unsafe { libmimalloc_sys::mi_good_size(size) };
            assert_eq!(mimalloc_footprint(size), good as i64, "{size} bytes");
        }
    }
}
