//! DPOR's memory is linear in the length of an execution: the TSO store loop
//! `while (1) { x = 1; }` grows its store buffer by one entry per iteration, and DPOR keeps a
//! state per step of its path, so with whole copies of each state its memory was quadratic in
//! the loop bound (650 MB at bound 4,000). States now share their buffers (`semantics::Buffer`).
//! This binary counts its own heap with a global allocator and runs the loop under a memory
//! budget that the quadratic version passed long before the end: the check must complete.

use litmus_engine::{syntax, CheckOptions, Control, EngineKind, MemoryBudget, Model};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

static LIVE: AtomicU64 = AtomicU64::new(0);
static PEAK: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = System.alloc(l);
        if !p.is_null() {
            let now = LIVE.fetch_add(l.size() as u64, Ordering::Relaxed) + l.size() as u64;
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l);
        LIVE.fetch_sub(l.size() as u64, Ordering::Relaxed);
    }
}

#[global_allocator]
static A: Counting = Counting;

fn live() -> u64 {
    LIVE.load(Ordering::Relaxed)
}

const BUDGET: u64 = 64 << 20;

#[test]
fn dpor_runs_the_tso_store_loop_within_a_small_memory_budget() {
    let src = "litmus Loop\nshared x = 0;\nthread P0 {\n  while (1) { x = 1; }\n}\n";
    let t = syntax::parse(src).test.expect("parses");
    let bound = 4_000;
    let opts = CheckOptions {
        engine: EngineKind::Dpor.into(),
        loop_bound: bound,
        ..CheckOptions::default()
    };
    let base = live();
    let ctl = Control::new().with_memory_budget(MemoryBudget {
        limit: base + BUDGET,
        used: live,
        origin: "",
    });
    let r = litmus_engine::check(&t, Model::Tso, &opts, &ctl);
    assert!(
        r.complete,
        "stopped by the {} MiB budget: {:?}",
        BUDGET >> 20,
        r.stopped
    );
    // One execution: the loop bound ends it (blocked), after every store was issued and
    // flushed.
    assert_eq!((r.stats.executions, r.stats.blocked), (1, 1));
    let peak = PEAK.load(Ordering::Relaxed) - base;
    assert!(peak < BUDGET, "peak heap {} MiB", peak >> 20);
    eprintln!(
        "TSO loop, bound {bound}: peak heap {:.1} MiB",
        peak as f64 / (1u64 << 20) as f64
    );
}
