//! Test tiers. `cargo test` is the fast tier, for the edit-test loop: random sweeps run at a
//! small size. `LITMUS_FULL_TESTS=1` (set by `scripts/test-all`, so CI) runs them in full. An
//! explicit count in a test's own variable (`MCR_PROGRAMS`, ...) still wins over both.

/// Whether the full tier was asked for.
pub fn full() -> bool {
    std::env::var_os("LITMUS_FULL_TESTS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// How many cases a sweep runs: `fast` in the fast tier, `full` in the full one.
pub fn sweep(fast: u64, full_size: u64) -> u64 {
    if full() {
        full_size
    } else {
        fast
    }
}
