//! Stopping a Z3 query from outside: cancellation, the deadline and the memory budget.
//!
//! A Z3 `check` does not return to the engine until it is decided, so the engine's own polls of
//! [`Control::should_stop`] cannot stop it. While a [`Watch`] is alive, one process-wide
//! watcher thread polls its control every [`POLL`] and, once it says stop, interrupts the
//! calling thread's Z3 context (`Z3_interrupt`, which Z3 allows from any thread). The
//! interrupted `check` returns *unknown*, which MCR records as an incomplete exploration; the
//! stop reason is the control's, recorded by the watcher's poll.
//!
//! Z3 allocates outside Rust's allocator, so the binary's counting allocator does not see it.
//! The watcher adds Z3's own estimate of what it holds (`Z3_get_estimated_alloc_size`) to the
//! budget's count by registering it ([`crate::control::register_outside`]); [`z3_bytes`]
//! gives the last estimate, which [`Control::should_stop`] adds. The estimate is refreshed on
//! every poll of a watched query and when a query ends.
//!
//! MCR solves in a Z3 context of its own per exploration (`z3::with_z3_config`) and holds one
//! [`Watch`] for that whole exploration: an interrupt that lands between two queries (Z3 may
//! then fail the next calls as cancelled) only matters to an exploration that is stopping, and
//! the context is dropped with it. A later query on the same thread is answered as usual.

use crate::control::Control;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::Duration;

/// How often the watcher polls the controls of running queries.
pub const POLL: Duration = Duration::from_millis(10);

extern "C" {
    fn Z3_interrupt(c: *mut std::ffi::c_void);
    fn Z3_get_estimated_alloc_size() -> u64;
}

/// One watched query: its id, its thread's Z3 context (as an address) and its control.
struct Entry {
    id: u64,
    ctx: usize,
    ctl: Control,
    interrupted: bool,
}

#[derive(Default)]
struct Registry {
    entries: Vec<Entry>,
    next_id: u64,
    /// Interrupts sent since the process started (for tests and benchmarks).
    interrupts: u64,
}

struct Watcher {
    reg: Mutex<Registry>,
    wake: Condvar,
}

static WATCHER: OnceLock<&'static Watcher> = OnceLock::new();
/// Whether a Z3 context was ever made here (Z3's allocation counter exists only from then).
static Z3_USED: AtomicBool = AtomicBool::new(false);

/// Z3's estimated allocation in bytes at its last refresh (0 before any Z3 query).
pub fn z3_bytes() -> u64 {
    crate::control::outside_bytes()
}

/// Reads Z3's estimate of what it holds now and registers it with the memory budget
/// ([`crate::control::note_outside`], read back by [`z3_bytes`]).
pub fn refresh_z3_bytes() -> u64 {
    if !Z3_USED.load(Ordering::Relaxed) {
        return 0;
    }
    // SAFETY: a context exists (`Z3_USED`), so Z3's memory manager is initialised; the call
    // takes Z3's own lock and reads a counter.
    let b = unsafe { Z3_get_estimated_alloc_size() };
    crate::control::note_outside(b);
    b
}

/// Interrupts Z3 queries sent since the process started.
pub fn interrupts() -> u64 {
    watcher().reg.lock().map(|r| r.interrupts).unwrap_or(0)
}

/// How many [`Watch`]es are alive (explorations solving with Z3 now).
pub fn watched() -> usize {
    watcher().reg.lock().map(|r| r.entries.len()).unwrap_or(0)
}

fn watcher() -> &'static Watcher {
    WATCHER.get_or_init(|| {
        let w: &'static Watcher = Box::leak(Box::new(Watcher {
            reg: Mutex::new(Registry::default()),
            wake: Condvar::new(),
        }));
        // If the thread cannot be started, queries are not interrupted (they still end at
        // Z3's own timeout, set from the deadline).
        let _ = std::thread::Builder::new()
            .name("litmus-z3-watch".into())
            .spawn(move || run(w));
        w
    })
}

fn run(w: &'static Watcher) {
    let Ok(mut reg) = w.reg.lock() else { return };
    loop {
        while reg.entries.is_empty() {
            reg = match w.wake.wait(reg) {
                Ok(r) => r,
                Err(_) => return,
            };
        }
        // Z3's allocation, registered with the budget that `should_stop` reads.
        refresh_z3_bytes();
        let mut sent = 0;
        for e in reg.entries.iter_mut() {
            // Again on every poll once stopped: an interrupt that lands between two calls
            // into Z3 may be reset when the next `check` starts.
            if e.ctl.should_stop() {
                // SAFETY: the entry's `Watch` holds the context alive and removes the entry,
                // under this lock, before it can be dropped.
                unsafe { Z3_interrupt(e.ctx as *mut std::ffi::c_void) };
                sent += u64::from(!e.interrupted);
                e.interrupted = true;
            }
        }
        reg.interrupts += sent;
        reg = match w.wake.wait_timeout(reg, POLL) {
            Ok((r, _)) => r,
            Err(_) => return,
        };
    }
}

/// While alive, Z3 queries in the calling thread's current context stop soon after `ctl` says
/// stop (see the module doc).
pub struct Watch {
    id: u64,
    /// The context interrupted, kept alive while registered.
    _ctx: z3::Context,
}

impl Watch {
    pub fn new(ctl: &Control) -> Watch {
        let ctx = z3::Context::thread_local();
        Z3_USED.store(true, Ordering::Relaxed);
        crate::control::register_outside(refresh_z3_bytes);
        let w = watcher();
        let raw = ctx.get_z3_context().as_ptr() as usize;
        let mut id = 0;
        if let Ok(mut reg) = w.reg.lock() {
            id = reg.next_id;
            reg.next_id += 1;
            let was_idle = reg.entries.is_empty();
            reg.entries.push(Entry {
                id,
                ctx: raw,
                ctl: ctl.clone(),
                interrupted: false,
            });
            if was_idle {
                w.wake.notify_one();
            }
        }
        Watch { id, _ctx: ctx }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Ok(mut reg) = watcher().reg.lock() {
            if let Some(i) = reg.entries.iter().position(|e| e.id == self.id) {
                reg.entries.swap_remove(i);
            }
        }
        refresh_z3_bytes();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use z3::ast::Bool;
    use z3::{SatResult, Solver};

    /// Pigeonhole: `n + 1` pigeons in `n` holes, unsatisfiable and exponential for Z3's
    /// resolution (minutes from about 11 holes).
    fn pigeonhole(s: &Solver, n: usize) {
        let p: Vec<Vec<Bool>> = (0..=n)
            .map(|i| {
                (0..n)
                    .map(|j| Bool::new_const(format!("p{i}_{j}")))
                    .collect()
            })
            .collect();
        for row in &p {
            s.assert(Bool::or(&row.iter().collect::<Vec<_>>()));
        }
        for j in 0..n {
            for (a, pa) in p.iter().enumerate() {
                for pb in &p[a + 1..] {
                    s.assert(Bool::and(&[&pa[j], &pb[j]]).not());
                }
            }
        }
    }

    #[test]
    fn a_cancelled_query_stops_and_the_thread_can_solve_again() {
        let ctl = Control::new();
        let s = Solver::new();
        pigeonhole(&s, 14);
        let before = interrupts();
        ctl.cancel();
        let sat = {
            let _w = Watch::new(&ctl);
            s.check()
        };
        assert_eq!(
            sat,
            SatResult::Unknown,
            "the interrupted query has no answer"
        );
        assert!(interrupts() > before, "the watcher interrupted it");
        drop(s);
        let s = Solver::new();
        let x = Bool::new_const("x");
        s.assert(&x);
        assert_eq!(
            s.check(),
            SatResult::Sat,
            "a later query on this thread is answered"
        );
    }

    #[test]
    fn a_query_running_when_the_check_is_cancelled_stops() {
        let ctl = Control::new();
        let s = Solver::new();
        pigeonhole(&s, 14);
        let canceller = ctl.clone();
        let before = interrupts();
        let sat = std::thread::scope(|sc| {
            let _w = Watch::new(&ctl);
            // Cancels once the watcher knows the query: it may land before Z3 starts
            // solving or during it, and must stop it either way.
            sc.spawn(move || {
                std::thread::sleep(POLL * 3);
                canceller.cancel();
            });
            s.check()
        });
        assert_eq!(sat, SatResult::Unknown);
        assert!(interrupts() > before);
        assert_eq!(
            ctl.stop_reason(),
            Some(crate::control::StopReason::Cancelled)
        );
    }
}
