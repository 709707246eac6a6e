//! The machine state, what is enabled in it, and its identity (equality and hashing).

use super::{Buffer, Choice, Event, Status, WriteId};
use crate::ir::{InstrKind, Program};
use crate::report::{Action, FinalState, Model, ViolationKind};
use crate::span::Span;
use smallvec::SmallVec;
use std::hash::{Hash, Hasher};

/// A thread's registers, inline up to four (most litmus tests have fewer): copying a state,
/// which explorers do at every step, then allocates nothing per thread.
pub type Regs = SmallVec<[i64; 4]>;
/// A thread's loop counters, inline up to two.
pub type Loops = SmallVec<[u32; 2]>;
/// A thread's store buffers: one under TSO, inline; one per cell under PSO; none under SC.
pub type Buffers = SmallVec<[Buffer; 1]>;

#[derive(Debug)]
pub struct ThreadState {
    pub pc: u32,
    pub regs: Regs,
    pub(super) loops: Loops,
    /// Parked at a failed `await` (the pc of its check) until memory changes.
    pub awaiting: Option<u32>,
    /// Inside an await round: whether memory changed since the round began.
    pub await_dirty: Option<bool>,
    /// Program-order index of the next event.
    pub po: u32,
    /// Writes issued so far (the next store's [`WriteId`] index).
    pub writes: u32,
}

/// By hand: `SmallVec`'s own `clone` copies element by element; these are `Copy` values,
/// copied as a block (a state's copy, made at every step, is mostly its threads).
impl Clone for ThreadState {
    fn clone(&self) -> ThreadState {
        ThreadState {
            pc: self.pc,
            regs: Regs::from_slice(&self.regs),
            loops: Loops::from_slice(&self.loops),
            awaiting: self.awaiting,
            await_dirty: self.await_dirty,
            po: self.po,
            writes: self.writes,
        }
    }
}

impl ThreadState {
    /// The iteration count of each `while` loop of the thread (the loop bound cuts at
    /// [`crate::ir::Program::loop_bound`]).
    pub fn loop_counts(&self) -> &[u32] {
        &self.loops
    }

    /// Forgets the iteration counts (DPOR's look-ahead for a spin iteration: a cycle that
    /// changes nothing is not run, so it needs no room under the loop bound).
    pub fn clear_loop_counts(&mut self) {
        self.loops.iter_mut().for_each(|n| *n = 0);
    }
}

/// A state of the machine. Equality and hashing ignore write identities and program-order
/// counters, which do not influence what can happen next; two equal states have the same
/// futures (used by the exhaustive explorer's visited set).
#[derive(Clone, Debug)]
pub struct State {
    pub model: Model,
    pub mem: Vec<i64>,
    /// The write each cell's memory value came from.
    pub writer: Vec<WriteId>,
    pub threads: Vec<ThreadState>,
    /// `buffers[t][b]`: TSO one buffer (`b = 0`), PSO one per cell (`b = cell`), SC none.
    pub buffers: Vec<Buffers>,
    /// Owner thread of each mutex.
    pub locks: Vec<Option<u32>>,
    pub(super) status: Status,
}

impl State {
    /// The initial state: initial memory, registers, empty buffers, free mutexes; every thread
    /// has run its leading local instructions.
    pub fn initial(p: &Program, model: Model) -> State {
        let nbuf = model.rules().buffers(p.cells.len());
        let mut s = State {
            model,
            mem: p.init.clone(),
            writer: (0..p.cells.len() as u32).map(WriteId::Init).collect(),
            threads: p
                .threads
                .iter()
                .map(|t| ThreadState {
                    pc: 0,
                    regs: Regs::from_slice(&t.reg_init),
                    loops: smallvec::smallvec![0; t.n_loops as usize],
                    awaiting: None,
                    await_dirty: None,
                    po: 0,
                    writes: 0,
                })
                .collect(),
            buffers: vec![smallvec::smallvec![Buffer::new(); nbuf]; p.threads.len()],
            locks: vec![None; p.mutexes.len()],
            status: Status::Running,
        };
        for t in 0..p.threads.len() {
            s.advance_locals(p, t);
        }
        s.update_status(p);
        s
    }

    pub fn status(&self) -> &Status {
        &self.status
    }

    pub fn is_running(&self) -> bool {
        self.status == Status::Running
    }

    pub(super) fn buffers_empty(&self, t: usize) -> bool {
        self.buffers[t].iter().all(|b| b.is_empty())
    }

    /// Whether every buffer of every thread is empty.
    pub fn all_drained(&self) -> bool {
        (0..self.threads.len()).all(|t| self.buffers_empty(t))
    }

    /// Whether thread `t` has run to its end.
    pub fn thread_done(&self, p: &Program, t: usize) -> bool {
        self.threads[t].pc as usize >= p.threads[t].code.len()
    }

    /// The mutex thread `t` waits for: its next instruction is `lock(m)`, its buffers are
    /// empty (so only the mutex holds it back) and another thread holds `m`. A lock attempt
    /// that failed, as far as the explorers are concerned (DPOR races it with the holder's
    /// `lock`).
    pub fn lock_wait(&self, p: &Program, t: usize) -> Option<u32> {
        let ts = &self.threads[t];
        if ts.awaiting.is_some() || !self.buffers_empty(t) {
            return None;
        }
        match p.threads[t].code.get(ts.pc as usize).map(|i| &i.kind) {
            Some(InstrKind::Lock(m)) => match self.locks.get(*m as usize) {
                Some(Some(owner)) if *owner as usize != t => Some(*m),
                _ => None,
            },
            _ => None,
        }
    }

    pub(super) fn can_exec(&self, p: &Program, t: usize) -> bool {
        let ts = &self.threads[t];
        if ts.awaiting.is_some() {
            return false;
        }
        let Some(ins) = p.threads[t].code.get(ts.pc as usize) else {
            return false;
        };
        match &ins.kind {
            InstrKind::Fence | InstrKind::Unlock(_) | InstrKind::Rmw { .. } => {
                self.buffers_empty(t)
            }
            InstrKind::Lock(m) => {
                self.buffers_empty(t)
                    && match self.locks.get(*m as usize) {
                        Some(None) => true,
                        Some(Some(owner)) => *owner as usize == t,
                        None => false,
                    }
            }
            // Load, store, or a local instruction left pending because it faults.
            _ => true,
        }
    }

    /// The choices possible now, in a deterministic order: per thread, `Exec` then its
    /// flushes (PSO: by cell). Empty unless the state is running.
    pub fn enabled(&self, p: &Program) -> Vec<Choice> {
        let mut out = Vec::new();
        if !self.is_running() {
            return out;
        }
        for t in 0..self.threads.len() {
            if self.can_exec(p, t) {
                out.push(Choice::Exec(t));
            }
            for b in &self.buffers[t] {
                if let Some(e) = b.front() {
                    out.push(Choice::flush(self.model, t, e.cell));
                }
            }
        }
        out
    }

    /// Whether [`State::enabled`] would list anything (without building the list).
    fn any_enabled(&self, p: &Program) -> bool {
        self.is_running()
            && (0..self.threads.len())
                .any(|t| self.can_exec(p, t) || self.buffers[t].iter().any(|b| !b.is_empty()))
    }

    /// Whether `c` is one of [`State::enabled`].
    pub fn is_enabled(&self, p: &Program, c: Choice) -> bool {
        if !self.is_running() {
            return false;
        }
        match c {
            Choice::Exec(t) => t < self.threads.len() && self.can_exec(p, t),
            Choice::Flush { thread, cell } => {
                thread < self.threads.len()
                    && self
                        .model
                        .rules()
                        .flush_buffer(cell)
                        .and_then(|b| self.buffers[thread].get(b))
                        .is_some_and(|b| !b.is_empty())
            }
        }
    }

    /// Performs `c`, which must be enabled. A choice that is not enabled leaves the state
    /// unchanged and returns `None`.
    pub fn try_step(&mut self, p: &Program, c: Choice) -> Option<Event> {
        if !self.is_enabled(p, c) {
            return None;
        }
        let ev = match c {
            Choice::Exec(t) => self.exec(p, t),
            Choice::Flush { thread, cell } => {
                self.flush(thread, self.model.rules().flush_buffer(cell)?)?
            }
        };
        if self.is_running() {
            // Threads woken by a memory change restart their await round.
            for u in 0..self.threads.len() {
                self.advance_locals(p, u);
            }
        }
        self.update_status(p);
        Some(ev)
    }

    /// Performs `c`, one of [`State::enabled`], and returns its event. (A choice that is not
    /// enabled is a caller bug: the state stays unchanged and the event is an empty local
    /// step of thread 0.)
    pub fn step(&mut self, p: &Program, c: Choice) -> Event {
        self.try_step(p, c).unwrap_or(Event {
            thread: 0,
            span: Span::default(),
            action: Action::Local,
            cell: None,
            mutex: None,
            value: None,
            stored: None,
            buffered: false,
            write: None,
            read_from: None,
            po: 0,
        })
    }

    pub(super) fn update_status(&mut self, p: &Program) {
        if self.status != Status::Running {
            return;
        }
        let all_done = (0..self.threads.len()).all(|t| self.thread_done(p, t));
        if all_done && self.all_drained() {
            self.status = Status::Finished;
        } else if !self.any_enabled(p) {
            let mut waits = Vec::new();
            let mut span = None;
            for (t, ts) in self.threads.iter().enumerate() {
                if self.thread_done(p, t) {
                    continue;
                }
                let pc = ts.awaiting.unwrap_or(ts.pc) as usize;
                let ins = &p.threads[t].code[pc];
                span.get_or_insert(ins.span);
                let what = match &ins.kind {
                    InstrKind::Lock(m) => format!("waits for mutex {}", p.mutexes[*m as usize]),
                    _ => "waits at await".to_string(),
                };
                waits.push(format!("{} {}", p.threads[t].name, what));
            }
            self.status = Status::Violation {
                kind: ViolationKind::Deadlock,
                message: waits.join(", "),
                span: span.unwrap_or_default(),
            };
        }
    }

    /// The final state (meaningful once [`Status::Finished`]): every named register of every
    /// thread, then every cell, in canonical order.
    pub fn final_state(&self, p: &Program) -> FinalState {
        let mut v = Vec::new();
        for (t, th) in p.threads.iter().enumerate() {
            for (r, _) in th.regs.iter().enumerate() {
                v.push((p.reg_key(t, r), self.threads[t].regs[r]));
            }
        }
        for (c, name) in p.cells.iter().enumerate() {
            v.push((name.clone(), self.mem[c]));
        }
        FinalState(v)
    }

    pub(super) fn key_eq(&self, o: &State) -> bool {
        self.mem == o.mem
            && self.locks == o.locks
            && self.status == o.status
            && self.threads.len() == o.threads.len()
            && self.threads.iter().zip(&o.threads).all(|(a, b)| {
                a.pc == b.pc
                    && a.regs == b.regs
                    && a.loops == b.loops
                    && a.awaiting == b.awaiting
                    && a.await_dirty == b.await_dirty
            })
            && self.buffers.len() == o.buffers.len()
            && self
                .buffers
                .iter()
                .zip(&o.buffers)
                .all(|(a, b)| a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_stores(y)))
    }
}

impl PartialEq for State {
    fn eq(&self, o: &State) -> bool {
        self.key_eq(o)
    }
}

impl Eq for State {}

impl Hash for State {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.mem.hash(h);
        self.locks.hash(h);
        self.status.hash(h);
        for ts in &self.threads {
            ts.pc.hash(h);
            ts.regs.hash(h);
            ts.loops.hash(h);
            ts.awaiting.hash(h);
            ts.await_dirty.hash(h);
        }
        for bs in &self.buffers {
            for b in bs {
                // The `(cell, value)` sequence through its digest: O(1), not O(length).
                b.len().hash(h);
                b.digest().hash(h);
            }
        }
    }
}
