//! What an event did, as far as dependence is concerned, and when two events depend on each other.

use crate::report::Action;
use crate::semantics::{Choice, Event, State, WriteId};

/// What an event did, as far as dependence is concerned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    pub proc: usize,
    pub thread: usize,
    /// Cell read from memory (a load not forwarded, an RMW).
    pub mem_read: Option<u32>,
    /// Cell written to memory (a flush, an SC store, an RMW that wrote).
    pub mem_write: Option<u32>,
    /// The write changed the cell's value (only such writes wake or disturb an `await`).
    pub changes: bool,
    /// A load that read its own thread's store (forwarded from the buffer, or from memory
    /// after the flush): that store, and the cell in `own_cell`.
    pub own: Option<WriteId>,
    pub own_cell: Option<u32>,
    /// The write this step put into memory (a flush, an SC store, an RMW that wrote).
    pub publishes: Option<WriteId>,
    /// A buffered store's issue.
    pub issue: Option<WriteId>,
    /// A flush: the store it publishes.
    pub flush_of: Option<WriteId>,
    pub lock: Option<u32>,
    pub unlock: Option<u32>,
    /// A thread step that waits for the thread's buffers to be empty.
    pub barrier: bool,
    /// A thread step after which the thread is parked at a failed `await`.
    pub parks: bool,
    /// The thread's first step after it was parked (a memory change woke it).
    pub woken: bool,
}

impl Footprint {
    /// Whether, as the earlier of two events, this one can depend on nothing but the flush of
    /// the store it issued ([`dep`], [`dep_in_trace`]): it touched no memory, mutex or own
    /// store (a buffered store's issue, a fence, a faulting local step).
    pub fn quiet(&self) -> bool {
        self.mem_read.is_none()
            && self.mem_write.is_none()
            && !self.changes
            && self.own_cell.is_none()
            && self.lock.is_none()
            && self.unlock.is_none()
            && self.flush_of.is_none()
    }
}

/// How two events of different processes depend on each other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dep {
    /// Conflicting accesses: explored in both orders.
    Race,
    /// Happens-before that can never be reversed.
    Order,
    /// `unlock(m)` before a later `lock(m)`: happens-before, but invisible when looking for
    /// the lock's races (its race is with the previous `lock(m)`).
    Unlock,
    /// A memory change before the first step of a thread woken from a parked `await`:
    /// happens-before when the change came after the thread parked (it, or a later one, woke
    /// the thread).
    Wake,
}

/// The dependence of `b` on the earlier event `a` (of another process).
pub fn dep(a: &Footprint, b: &Footprint) -> Option<Dep> {
    if let Some(c) = a.mem_write {
        if b.mem_write == Some(c) || b.mem_read == Some(c) {
            return Some(Dep::Race);
        }
    }
    if let Some(c) = b.mem_write {
        if a.mem_read == Some(c) {
            return Some(Dep::Race);
        }
    }
    if a.lock.is_some() && a.lock == b.lock {
        return Some(Dep::Race);
    }
    if a.issue.is_some() && a.issue == b.flush_of {
        return Some(Dep::Order);
    }
    if a.flush_of.is_some() && b.barrier && a.thread == b.thread {
        return Some(Dep::Order);
    }
    if a.changes && b.woken {
        return Some(Dep::Wake);
    }
    if a.unlock.is_some() && a.unlock == b.lock {
        return Some(Dep::Unlock);
    }
    None
}

/// The dependence of the new event `b` on the earlier event `a` in the current `trace` (which
/// `b` will extend). As [`dep`], except for a load that read its own thread's store `w` (the
/// paper's chronological traces): it does not depend on the writes of its cell before it
/// (they are older than `w`, or `w`'s flush, and change nothing it reads), and a later write
/// of its cell races with it only once `w` has reached memory (the write then overwrites
/// the value the load read; before, it comes before `w` and the load still reads `w`).
pub fn dep_in_trace(a: &Footprint, b: &Footprint, trace: &[TEvent]) -> Option<Dep> {
    if b.own_cell.is_some() && b.own_cell == a.mem_write {
        return (a.changes && b.woken).then_some(Dep::Wake);
    }
    if a.own_cell.is_some() && a.own_cell == b.mem_write {
        return published(a.own, trace).then_some(Dep::Race);
    }
    dep(a, b)
}

fn published(w: Option<WriteId>, trace: &[TEvent]) -> bool {
    trace
        .iter()
        .any(|e| e.fp.publishes.is_some() && e.fp.publishes == w)
}

/// Whether `a` and `b`, both enabled after `trace`, commute (for sleep sets). A load of its
/// own store `w` and a write of its cell commute while `w` is still buffered (the load
/// forwards it either way), not once `w` is in memory.
pub(super) fn independent(a: &Footprint, b: &Footprint, trace: &[TEvent]) -> bool {
    for (l, w) in [(a, b), (b, a)] {
        if l.own_cell.is_some() && l.own_cell == w.mem_write && published(l.own, trace) {
            return false;
        }
    }
    a.proc != b.proc && dep(a, b).is_none() && dep(b, a).is_none()
}

/// One step of the current execution.
pub struct TEvent {
    pub(super) fp: Footprint,
    pub(super) clock: Vec<u32>,
    /// A thread's step: its thread's state after it (`None` for a buffer's flush).
    pub(super) after: Option<Snap>,
}

/// What a thread's future depends on besides memory: its pc, registers (temporaries
/// included) and `await` state; not its loop counters (a spin cycle is found in spite of them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snap {
    pub(super) pc: u32,
    regs: smallvec::SmallVec<[i64; 4]>,
    awaiting: Option<u32>,
    await_dirty: Option<bool>,
}

impl Snap {
    /// Puts thread `t` of `s` back in this state (pc, registers, `await` state).
    pub(super) fn restore(&self, s: &mut State, t: usize) {
        let ts = &mut s.threads[t];
        ts.pc = self.pc;
        ts.regs.clear();
        ts.regs.extend_from_slice(&self.regs);
        ts.awaiting = self.awaiting;
        ts.await_dirty = self.await_dirty;
    }

    pub(super) fn of(s: &State, t: usize) -> Snap {
        let ts = &s.threads[t];
        Snap {
            pc: ts.pc,
            regs: ts.regs.iter().copied().collect(),
            awaiting: ts.awaiting,
            await_dirty: ts.await_dirty,
        }
    }
}

impl Footprint {
    /// Whether the step changed nothing but its thread's pc and registers: no store (issued
    /// or in memory), RMW, fence, lock or unlock. A cycle of such steps back to the same
    /// thread state is a spin iteration.
    pub fn pure(&self) -> bool {
        self.mem_write.is_none()
            && self.issue.is_none()
            && self.lock.is_none()
            && self.unlock.is_none()
            && !self.barrier
            && self.flush_of.is_none()
    }
}

/// What the step `ev` (by `choice`, from `before` to `after`) did.
pub(super) fn footprint(
    proc: usize,
    choice: Choice,
    before: &State,
    ev: &Event,
    after: &State,
) -> Footprint {
    let mut f = Footprint {
        proc,
        thread: ev.thread,
        ..Footprint::default()
    };
    match choice {
        Choice::Flush { .. } => {
            f.mem_write = ev.cell;
            f.flush_of = ev.write;
            f.publishes = ev.write;
            if let Some(c) = ev.cell {
                f.changes = before.mem[c as usize] != after.mem[c as usize];
            }
        }
        Choice::Exec(t) => {
            f.thread = t;
            match ev.action {
                Action::Load => match ev.read_from {
                    Some(w @ WriteId::Store { thread, .. }) if thread as usize == t => {
                        f.own = Some(w);
                        f.own_cell = ev.cell;
                    }
                    _ => f.mem_read = ev.cell,
                },
                Action::Store if ev.buffered => f.issue = ev.write,
                Action::Store => {
                    f.mem_write = ev.cell;
                    f.publishes = ev.write;
                }
                Action::Rmw => {
                    f.mem_read = ev.cell;
                    if ev.write.is_some() {
                        f.mem_write = ev.cell;
                        f.publishes = ev.write;
                    }
                    f.barrier = true;
                }
                Action::Fence => f.barrier = true,
                Action::Lock => {
                    f.lock = ev.mutex;
                    f.barrier = true;
                }
                Action::Unlock => {
                    f.unlock = ev.mutex;
                    f.barrier = true;
                }
                _ => {}
            }
            if let Some(c) = f.mem_write {
                f.changes = before.mem[c as usize] != after.mem[c as usize];
            }
            f.parks = after.threads[t].awaiting.is_some();
        }
    }
    f
}
