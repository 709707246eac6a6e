//! The operational semantics of `docs/reference.md#models`, one step at a time (SC, x86-TSO, PSO).
//!
//! A [`State`] holds memory, per-thread registers and program counters, store buffers and
//! mutex owners. [`State::enabled`] lists the [`Choice`]s possible in a state, in a fixed order;
//! [`State::step`] performs one and returns the [`Event`] it produced. The rules:
//!
//! - **SC**: a store writes memory at once.
//! - **TSO** (x86-TSO, Owens–Sarkar–Sewell): one FIFO buffer per thread. A store enters it; a
//!   load reads the thread's newest buffered store to that cell, else memory; a flush
//!   ([`Choice::Flush`]) moves the oldest entry to memory at any time.
//! - **PSO**: one FIFO buffer per thread and cell; flushing the buffer of one cell may overtake
//!   older stores to other cells.
//! - `fence`, `lock`, `unlock` and the atomics need the thread's buffers empty: until they are,
//!   the thread cannot run them (only flushes can happen), so every flush stays a step of its own.
//! - Thread-local instructions (register assignments, branches, passing assertions and
//!   assumptions, loop counters) run silently before and after the visible instruction of a
//!   step. A local instruction that would *fault* (a failed `assert`, a false `assume`, division
//!   by zero, the loop bound exceeded) stops there and becomes the thread's next step, so other
//!   threads can still act first.
//! - `await(e)`: when `e` is false the thread is parked at the start of the await until some
//!   memory cell changes value (re-reading unchanged memory is a stutter), so spinning does not
//!   blow up exploration. If memory changed while the round read it (its values may be
//!   stale), the thread retries at once instead of parking, so no wake-up is lost. A running
//!   state where nothing is enabled is a deadlock.
//!
//! For maximal causality reduction every write has a [`WriteId`] (thread and per-thread store
//! index, or the initial write of a cell), every load and RMW names the write it read from, and
//! every event carries its program-order index in its thread.

mod buffer;
mod state;
mod step;
#[cfg(test)]
mod tests;

pub use buffer::{BufEntry, Buffer};
pub use state::{State, ThreadState};

use crate::ir::Program;
use crate::report::{Action, Model, Schedule, Step, ViolationKind};
use crate::span::Span;

/// What the scheduler may do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Choice {
    /// Run the thread's next instruction.
    Exec(usize),
    /// Move the oldest buffered store of `thread` to memory: under TSO (`cell: None`) from its
    /// single buffer, under PSO from its buffer for `cell`.
    Flush { thread: usize, cell: Option<u32> },
}

impl Choice {
    /// The flush, under `model`, of thread `thread`'s buffer whose oldest store is to `cell`.
    pub fn flush(model: Model, thread: usize, cell: u32) -> Choice {
        Choice::Flush {
            thread,
            cell: model.rules().flush_cell(cell),
        }
    }
}

/// The identity of a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WriteId {
    /// The initial value of a cell.
    Init(u32),
    /// The `index`-th write (store or RMW, counting from 0) of thread `thread`.
    Store { thread: u32, index: u32 },
}

/// What one step did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    pub thread: usize,
    /// The instruction's span (for a flush: the store's).
    pub span: Span,
    pub action: Action,
    /// The cell accessed (load, store, flush, rmw).
    pub cell: Option<u32>,
    /// The mutex locked or unlocked.
    pub mutex: Option<u32>,
    /// The value loaded, stored, flushed, or returned by an RMW (the old value).
    pub value: Option<i64>,
    /// For an RMW that wrote: the value it wrote (a failed `cas` writes nothing).
    pub stored: Option<i64>,
    /// Store: it went into a buffer. Load: it was forwarded from the thread's own buffer.
    pub buffered: bool,
    /// The write created (store, writing RMW) or published (flush).
    pub write: Option<WriteId>,
    /// The write a load or RMW read from.
    pub read_from: Option<WriteId>,
    /// Program-order index of the event in its thread (0, 1, ... over the thread's `Exec`
    /// steps); a flush carries the index of the store it publishes.
    pub po: u32,
}

/// Why an execution ended without a final state and without a violation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockReason {
    /// An `assume` was false.
    Assume,
    /// A `while` loop would run more often than the loop bound.
    LoopBound,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Running,
    /// Every thread finished and every buffer drained: a final state.
    Finished,
    /// The execution ended at a violation.
    Violation {
        kind: ViolationKind,
        message: String,
        span: Span,
    },
    /// The execution was discarded (no final state, no violation).
    Blocked {
        reason: BlockReason,
        span: Span,
    },
}

/// The name of the location or mutex an event touched.
pub fn event_loc(p: &Program, e: &Event) -> Option<String> {
    if let Some(c) = e.cell {
        return p.cells.get(c as usize).cloned();
    }
    e.mutex.and_then(|m| p.mutexes.get(m as usize).cloned())
}

/// The schedule step of an event.
pub fn to_step(p: &Program, e: &Event) -> Step {
    Step {
        thread: e.thread,
        span: e.span,
        action: e.action,
        loc: event_loc(p, e),
        value: e.value,
        buffered: e.buffered,
    }
}

/// The schedule of an event sequence.
pub fn to_schedule(p: &Program, events: &[Event]) -> Schedule {
    events.iter().map(|e| to_step(p, e)).collect()
}
