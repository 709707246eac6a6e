//! The MCR view of one execution: the events the maximal causal model reorders.
//!
//! An execution of the interpreter is a sequence of steps. MCR only needs, per step, who did it
//! and what it did to shared state; everything else is a [`EventKind::Local`] step that the thread
//! runs deterministically from its registers (local determinism, paper §2.1).
//!
//! Writes are split into an *issue* (the thread executes the store: [`EventKind::Store`]) and a
//! *publish* (the value reaches memory: the store itself under SC, its [`EventKind::Flush`] under
//! TSO/PSO, the RMW itself for atomics). This is what makes store forwarding expressible: a load
//! by the issuing thread that comes after the issue but before the flush reads the buffered value
//! (x86-TSO test n6), which the paper's encoding (it orders a read after its own thread's earlier
//! store to the same location) cannot express.

use crate::ids::EventId;
use crate::model::{Access, MemoryModel};
use crate::report::Model;

/// What a [`TraceEvent`] did, as far as the maximal causal model is concerned.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// A thread step with no shared effect. (Not produced by the explorer, which leaves the
    /// wake-up step of a parked `await` out of traces and replays it on demand.)
    Local,
    /// A store executed by its thread (enters the buffer under TSO/PSO, memory under SC).
    Store { cell: u32, value: i64 },
    /// A buffered store reaching memory. `store` is the store it publishes (`None`: its issue
    /// is not in the trace, which the explorer never produces).
    Flush {
        cell: u32,
        value: i64,
        store: Option<EventId>,
    },
    /// A load of `cell` that returned `value` (from memory or forwarded from the own buffer).
    Load { cell: u32, value: i64 },
    /// An atomic read-modify-write: reads memory (buffers drained) and, unless a `cas` failed,
    /// writes `write` to memory in the same instant. `op` is what it would write for any other
    /// value read (its operands come from registers, fixed by the thread's earlier reads), or
    /// `None` if unknown.
    Rmw {
        cell: u32,
        read: i64,
        write: Option<i64>,
        op: Option<RmwFn>,
    },
    /// A full fence: waits for the thread's buffers to drain.
    Fence,
    /// Acquire a mutex (also a full fence).
    Lock { mutex: u32 },
    /// Release a mutex (also a full fence).
    Unlock { mutex: u32 },
}

impl EventKind {
    /// Events that wait for the thread's own buffers to be empty.
    pub fn is_barrier(&self) -> bool {
        matches!(
            self,
            EventKind::Fence
                | EventKind::Lock { .. }
                | EventKind::Unlock { .. }
                | EventKind::Rmw { .. }
        )
    }
    /// What the event is to the memory model's orders.
    pub fn access(&self) -> Access {
        match *self {
            EventKind::Store { cell, .. } => Access::Issue { cell },
            EventKind::Flush { cell, store, .. } => Access::Flush {
                cell,
                store: store.map(EventId::index),
            },
            _ if self.is_barrier() => Access::Barrier,
            _ => Access::Other,
        }
    }
    /// The cell read and the value read, for loads and RMWs.
    pub fn read(&self) -> Option<(u32, i64)> {
        match *self {
            EventKind::Load { cell, value } => Some((cell, value)),
            EventKind::Rmw { cell, read, .. } => Some((cell, read)),
            _ => None,
        }
    }
}

/// An RMW's write as a function of the value it reads: the operation with its operands
/// evaluated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RmwFn {
    pub op: crate::ast::RmwOp,
    pub args: [i64; 2],
}

impl RmwFn {
    /// What the RMW writes when it reads `old` (`None`: a failed `cas` writes nothing); the
    /// interpreter's own rule, [`crate::ast::RmwOp::write`].
    pub fn write(self, old: i64) -> Option<i64> {
        self.op.write(old, &self.args)
    }
}

/// One event of a trace: a step of an execution with a shared effect, as MCR sees it. Not to be
/// confused with [`crate::semantics::Event`] (what one interpreter step did, from which a trace
/// event is made) nor with [`crate::report::Step`] (a line of a schedule shown to the user).
/// Its position in [`Trace::events`] is the index queries, seeds and the search speak of.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TraceEvent {
    pub thread: usize,
    pub kind: EventKind,
    /// This step ended a round of an `await` whose condition was false. The thread's next step
    /// (the retry) can run only if some write changed a cell's value since the round began
    /// (sem's semantics: without such a change the thread parks until one happens).
    pub failed_check: bool,
    /// A new `await` round began right after this step (not a retry).
    pub round_start: bool,
    /// For a store: its write identity (to pair it with its flush).
    pub write: Option<crate::semantics::WriteId>,
    /// A lock the thread was waiting for when the execution ended (another thread held the
    /// mutex): not part of the execution, but a target (acquire it before that holder), so that
    /// the lock orders that end in a deadlock are not the only ones explored. Only a query whose
    /// target it is may put it in a prefix.
    pub pending: bool,
    /// The instruction the step ran (its thread's program counter; `u32::MAX` for a flush).
    pub pc: u32,
}

/// How an execution ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// Every thread finished and every buffer drained: memory holds a final state.
    Final,
    /// A violation, a failed `assume`, a loop bound or a deadlock ended it early. The step that
    /// ended it is not part of [`Trace::events`]: its thread cannot pass it with the same reads,
    /// so the causal model never schedules it.
    Cut,
}

/// One execution as MCR sees it.
#[derive(Clone, Debug)]
pub struct Trace {
    pub model: Model,
    pub threads: usize,
    /// Initial value of every shared cell.
    pub init: Vec<i64>,
    /// Threads inside an `await` round in the initial state.
    pub in_round_at_start: Vec<bool>,
    /// The steps in execution order. Each thread's non-flush events are in program order.
    pub events: Vec<TraceEvent>,
    pub end: End,
}

impl Trace {
    /// The event at `id`.
    pub fn event(&self, id: EventId) -> &TraceEvent {
        &self.events[id.index()]
    }

    /// Every event's position, in trace order.
    pub fn ids(&self) -> impl Iterator<Item = EventId> {
        (0..self.events.len()).map(EventId::new)
    }

    /// The rules of the trace's memory model.
    pub fn rules(&self) -> &'static dyn MemoryModel {
        self.model.rules()
    }

    /// Whether a read of this trace that takes its value from event `from` (`None`: the
    /// initial value) reads it from its own thread's buffer: `from` is a store's issue, which
    /// only forwarding lets a load see. The one statement of that rule for the encoder, the
    /// causal search and the pre-check.
    pub fn forwarded(&self, from: Option<EventId>) -> bool {
        self.rules().forwards()
            && from.is_some_and(|s| {
                matches!(
                    self.events.get(s.index()).map(|e| &e.kind),
                    Some(EventKind::Store { .. })
                )
            })
    }

    /// The `await` rounds of the trace: for each load that may belong to a round (failed or
    /// not), a round number shared by the loads of that round. Rounds begin after a step marked
    /// `round_start`, after a failed check, or at the start for threads in a round there; a
    /// round's loads are the thread's loads from then on until its next other step. (A
    /// successful round's end is a local step, invisible here, so loads right after it count
    /// as part of it: an over-approximation, which only adds queries.)
    pub fn await_rounds(&self) -> Vec<Option<u32>> {
        let mut round = vec![None; self.events.len()];
        let mut open: Vec<Option<u32>> = vec![None; self.threads];
        let mut next = 0u32;
        for (t, slot) in open.iter_mut().enumerate() {
            if self.in_round_at_start.get(t).copied().unwrap_or(false) {
                *slot = Some(next);
                next += 1;
            }
        }
        for (i, e) in self.events.iter().enumerate() {
            if e.thread >= self.threads || matches!(e.kind, EventKind::Flush { .. }) {
                continue;
            }
            let t = e.thread;
            let is_load = matches!(e.kind, EventKind::Load { .. });
            if is_load {
                round[i] = open[t];
            } else {
                open[t] = None;
            }
            if e.failed_check || e.round_start {
                open[t] = Some(next);
                next += 1;
            }
        }
        round
    }

    /// For a `late` target on the load at `event` (see [`crate::mcr::encode::Target::Read`]): the
    /// first load of its `await` round, and the publishes that must come before that load
    /// (every publish of the other threads, and the flushes of the thread's own stores up to
    /// `event`). `rounds` is [`Trace::await_rounds`].
    pub fn late_needs(&self, event: EventId, rounds: &[Option<u32>]) -> (EventId, Vec<EventId>) {
        let round = rounds.get(event.index()).copied().flatten();
        let first = (0..=event.index())
            .find(|&j| round.is_some() && rounds[j] == round)
            .map_or(event, EventId::new);
        let t = self.event(event).thread;
        let need = self
            .ids()
            .filter(|&j| {
                let f = self.event(j);
                match f.kind {
                    EventKind::Flush { store, .. } => {
                        f.thread != t || store.is_some_and(|s| s <= event)
                    }
                    EventKind::Store { .. } => self.rules().store_publishes() && f.thread != t,
                    EventKind::Rmw { write: Some(_), .. } => f.thread != t,
                    _ => false,
                }
            })
            .collect();
        (first, need)
    }

    /// Per cell: the events that publish a value to memory (a store under SC, a flush, an RMW
    /// that wrote), in trace order, with the value.
    pub fn publishes(&self) -> Vec<Vec<(EventId, i64)>> {
        let mut out: Vec<Vec<(EventId, i64)>> = vec![Vec::new(); self.init.len()];
        for (i, e) in self.events.iter().enumerate() {
            let published = match e.kind {
                EventKind::Store { cell, value } if self.rules().store_publishes() => {
                    Some((cell, value))
                }
                EventKind::Flush { cell, value, .. }
                | EventKind::Rmw {
                    cell,
                    write: Some(value),
                    ..
                } => Some((cell, value)),
                _ => None,
            };
            if let Some((cell, value)) = published {
                if let Some(p) = out.get_mut(cell as usize) {
                    p.push((EventId::new(i), value));
                }
            }
        }
        out
    }

    /// Per load under TSO/PSO: the newest earlier store of its thread to its cell (which it
    /// reads while that store is buffered).
    pub fn own_stores(&self) -> Vec<Option<EventId>> {
        let mut out = vec![None; self.events.len()];
        if !self.rules().forwards() {
            return out;
        }
        let mut last: std::collections::HashMap<(usize, u32), EventId> = Default::default();
        for (i, e) in self.events.iter().enumerate() {
            match e.kind {
                EventKind::Store { cell, .. } => {
                    last.insert((e.thread, cell), EventId::new(i));
                }
                EventKind::Load { cell, .. } => out[i] = last.get(&(e.thread, cell)).copied(),
                _ => {}
            }
        }
        out
    }

    /// For each store event, its flush event (TSO/PSO), if it was flushed.
    pub fn flush_of(&self) -> Vec<Option<EventId>> {
        let mut f = vec![None; self.events.len()];
        for (i, e) in self.events.iter().enumerate() {
            if let EventKind::Flush {
                store: Some(store), ..
            } = e.kind
            {
                if let Some(slot) = f.get_mut(store.index()) {
                    *slot = Some(EventId::new(i));
                }
            }
        }
        f
    }
}
