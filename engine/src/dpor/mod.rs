//! Stateless dynamic partial order reduction over chronological traces (`--engine dpor`).
//!
//! Source-DPOR with sleep sets (Abdulla, Aronis, Jonsson, Sagonas, POPL'14) on the events of
//! the interpreter ([`crate::semantics::State::step`]), with stores split into an *issue* (the
//! thread's step) and a *flush* (a step of the buffer), as in the seed paper's chronological
//! traces (Abdulla et al., TACAS'15). Every execution is run by the interpreter, so every
//! schedule it reports replays.
//!
//! **Processes.** Thread `t`'s steps (`Choice::Exec(t)`) are one process; each store buffer is
//! another (TSO: one per thread, PSO: one per thread and cell; SC has none). Each process is
//! deterministic: its next event depends on the state only through what it reads.
//!
//! **Dependence** ([`dep`]) between events of different processes, on what each event did:
//! - *races* (reversible, explored both ways): two memory accesses to one cell of which one
//!   writes memory (a flush, an SC store, an RMW that wrote), except that a load of its own
//!   thread's store `w` races only with writes of its cell after `w` reached memory (the
//!   paper's rule, [`dep_in_trace`]); two `lock`s of one mutex, and a failed attempt to
//!   lock a held mutex with the holder's `lock` (the attempt is not an event: its races are
//!   reversed when the thread starts waiting, `docs/design/dpor.md#locks-and-blocking`);
//! - *orders* (happens-before, never reversed): a store's issue before its flush; a flush of
//!   thread `t`'s buffer before `t`'s next fence, RMW, lock or unlock (they wait for empty
//!   buffers); an `unlock(m)` before the next `lock(m)`; a memory change before the first step
//!   of a thread it woke from a parked `await`.
//!
//! A failing `await` round (the thread parks or starts the round again, changing nothing) is
//! not run: its races are reversed when it starts failing, as a failed lock attempt's, and at
//! a leaf the waiting threads run it and park, making the deadlock (issue 58).
//! `docs/design/dpor.md` says why awaits need no more than that, and measures the result.
//!
//! **Faults.** A step that would fault (failed `assert`, runtime error, false `assume`, the loop
//! bound) ends the whole execution in the interpreter, which would make it depend on every
//! other process. Instead, when a thread's next step faults, the fault is recorded at once
//! (state and schedule from the interpreter) and the thread is not scheduled again in that
//! execution; the others go on. A fault depends only on its thread's own state, so every
//! execution reaching that point reports the same fault.
//!
//! **Races** are found with vector clocks when an event is added; the race's reversal `v`
//! (the events after the first not happening after it, then the second) gives its initials,
//! one of which joins the backtrack set of the state before the first (unless one already
//! is there, or none is enabled there: the race cannot be reversed, e.g. a write that woke a
//! parked thread). Sleep sets keep equivalent executions from being explored twice;
//! executions that end with every enabled process asleep are counted apart
//! ([`DporStats::sleep_blocked`]), as Nidhugg does.
//!
//! **Memory**: one node per step of the current execution (its state, enabled processes,
//! backtrack and sleep sets) and one vector clock per step: proportional to the length of
//! one execution, never to the number explored. The nodes' states share their store buffers
//! ([`crate::semantics::Buffer`]), so a node costs what its step changed, not the whole
//! buffer: a loop that only stores does not make the path quadratic.
//!
//! **Time**: each new event is compared only with the events of other processes not yet known
//! to happen before it (the candidates of `race.rs`), and a buffered store's issue, which only its
//! flush depends on, only with that flush.

mod chain;
mod explore;
mod footprint;
mod race;
mod spin;
#[cfg(test)]
mod tests;

pub use explore::{explore, explore_every_step, explore_leaves};
pub use footprint::{dep, dep_in_trace, Dep, Footprint, TEvent};

/// What DPOR counted besides the collector's stats.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DporStats {
    /// Executions that ended with every enabled process in the sleep set (redundant, cut).
    pub sleep_blocked: u64,
    /// Steps run by the interpreter (including the look-ahead of each enabled process).
    pub steps: u64,
    /// The longest execution, in steps.
    pub max_depth: usize,
}
