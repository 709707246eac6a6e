//! Robustness against TSO and PSO: is every execution of the program under the model
//! equivalent to some SC execution (trace robustness: the same program order, reads-from and
//! coherence, so `po ∪ rf ∪ co ∪ fr` is acyclic)? If not, a witness.
//!
//! The search follows Trencher's *attacks* ([Bouajjani, Derevenetc and Meyer 2013](docs/papers.md#bouajjani-derevenetc-meyer-2013), "Checking and
//! enforcing robustness against TSO", reused by [Bouajjani et al. 2015](docs/papers.md#bouajjani-et-al-2015)): a program is not
//! robust iff some execution has the form
//!
//! 1. an SC prefix (every store reaches memory at once);
//! 2. one thread, the *attacker*, issues a store that stays in its buffer (the delayed store)
//!    and goes on running: its later stores stay buffered behind it, its loads read memory
//!    (or its own buffer);
//! 3. then the other threads, the *helpers*, run under SC while the attacker stays stopped
//!    (Trencher's normal form of a minimal violation: once a helper has moved, the attacker
//!    never moves again, which keeps the attack states few);
//! 4. some helper event that *happens after* a later load of the attacker (through `fr` from
//!    that load, helpers' program order, `rf`, `co`, `fr`) touches the location of a store the
//!    attacker issued before that load and that is still buffered: the cycle
//!    `store →po load →hb helper event →(co|fr) store` closes.
//!
//! So only SC states and single-attacker states are explored, never TSO's states where several
//! threads buffer at once. The happens-before taint of step 4 is a small finite monitor:
//! per helper thread and per location, the newest attacker load (counted by the attacker's
//! stores issued before it) that it happens after. Under PSO the attacker may also flush its
//! buffered stores to other locations early (store-store reordering); such a flush is a
//! taint source like a load. The papers prove the single-attacker form for TSO; for PSO it is
//! this module's generalisation, checked against the brute-force definition on random
//! programs (tests below) like the TSO search.
//!
//! Under SC every program is robust; [`robustness`] answers at once.
//!
//! Code map: this file has the verdict and its entry point; `attack.rs` is the attack search
//! (phases 1-4 above); `cycle.rs` is the cycle check of one execution, with the brute-force
//! definition and the DPOR-based search built on it.

mod attack;
mod cycle;

pub use attack::robustness_program;
pub use cycle::{brute_force, robustness_dpor};

use crate::control::Control;
use crate::options::CheckOptions;
use crate::report::{Model, Schedule, Step};
use crate::span::Span;
use serde::Serialize;

/// The robustness verdict of one program under one model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Robustness {
    /// Every execution is equivalent to an SC one (false only with an [`Attack`]).
    pub holds: bool,
    /// False when the search stopped early (timeout, cancellation): `holds` is then unproven.
    pub complete: bool,
    /// Why it does not hold.
    pub attack: Option<Attack>,
    /// States the search visited (SC states and attack states).
    pub states: u64,
    pub time_ms: f64,
}

impl Robustness {
    /// No attack found yet: robust so far, `complete` as given, nothing counted.
    pub(crate) fn unrefuted(complete: bool) -> Robustness {
        Robustness {
            holds: true,
            complete,
            attack: None,
            states: 0,
            time_ms: 0.0,
        }
    }
}

/// Where a robustness search starts: its clock and its control (the deadline counts from
/// here; cancel, deadline and memory budget in one check). [`Start::new`] is `None` for a
/// model without store buffers, where every program is robust.
pub(crate) struct Start {
    at: std::time::Instant,
    pub ctl: Control,
}

impl Start {
    /// The start of a search of `model`; `None` when there is nothing to search (robust).
    pub(crate) fn new(model: Model, opts: &CheckOptions, ctl: &Control) -> Option<Start> {
        let at = std::time::Instant::now();
        if !model.rules().buffered() {
            return None;
        }
        Some(Start {
            at,
            ctl: ctl.for_check(opts),
        })
    }

    /// Milliseconds since the search started, for [`Robustness::time_ms`].
    pub(crate) fn elapsed_ms(&self) -> f64 {
        self.at.elapsed().as_secs_f64() * 1e3
    }
}

/// A store delayed past later loads of the same thread, closing a happens-before cycle.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Attack {
    /// The attacking thread.
    pub thread: usize,
    /// The delayed store (still buffered at the end of the schedule).
    pub store: Step,
    /// The attacker's later loads (from memory) the store was delayed past, and under PSO its
    /// later stores that reached memory first.
    pub past: Vec<Step>,
    /// The other thread's access to the store's location that closes the cycle.
    pub conflict: Step,
    /// A schedule from the initial state that replays to the end of the attack.
    pub schedule: Schedule,
}

/// The delayed store's span, for callers that only need positions.
impl Attack {
    pub fn store_span(&self) -> Span {
        self.store.span
    }
}
