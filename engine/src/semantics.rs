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

use crate::ir::{InstrKind, Program};
use crate::report::{Action, FinalState, Model, Schedule, Step, ViolationKind};
use crate::span::Span;
use std::collections::VecDeque;
use std::hash::{Hash, Hasher};

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

/// A buffered store.
#[derive(Clone, Debug)]
pub struct BufEntry {
    pub cell: u32,
    pub value: i64,
    pub write: WriteId,
    pub span: Span,
    pub po: u32,
}

#[derive(Clone, Debug)]
pub struct ThreadState {
    pub pc: u32,
    pub regs: Vec<i64>,
    loops: Vec<u32>,
    /// Parked at a failed `await` (the pc of its check) until memory changes.
    pub awaiting: Option<u32>,
    /// Inside an await round: whether memory changed since the round began.
    pub await_dirty: Option<bool>,
    /// Program-order index of the next event.
    pub po: u32,
    /// Writes issued so far (the next store's [`WriteId`] index).
    pub writes: u32,
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
    pub buffers: Vec<Vec<VecDeque<BufEntry>>>,
    /// Owner thread of each mutex.
    pub locks: Vec<Option<u32>>,
    status: Status,
}

enum Fault {
    Violation(ViolationKind, String),
    Blocked(BlockReason),
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
                    regs: t.reg_init.clone(),
                    loops: vec![0; t.n_loops as usize],
                    awaiting: None,
                    await_dirty: None,
                    po: 0,
                    writes: 0,
                })
                .collect(),
            buffers: vec![vec![VecDeque::new(); nbuf]; p.threads.len()],
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

    fn buffers_empty(&self, t: usize) -> bool {
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

    fn can_exec(&self, p: &Program, t: usize) -> bool {
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

    fn update_status(&mut self, p: &Program) {
        if self.status != Status::Running {
            return;
        }
        let all_done = (0..self.threads.len()).all(|t| self.thread_done(p, t));
        if all_done && self.all_drained() {
            self.status = Status::Finished;
        } else if self.enabled(p).is_empty() {
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
                message: format!("deadlock: {}", waits.join(", ")),
                span: span.unwrap_or_default(),
            };
        }
    }

    fn write_mem(&mut self, cell: usize, value: i64, w: WriteId) {
        if self.mem[cell] != value {
            // Parked awaits re-read memory (their pc already is the retry point); rounds in
            // progress may have read stale values.
            for ts in &mut self.threads {
                ts.awaiting = None;
                if ts.await_dirty.is_some() {
                    ts.await_dirty = Some(true);
                }
            }
        }
        self.mem[cell] = value;
        self.writer[cell] = w;
    }

    fn flush(&mut self, t: usize, slot: usize) -> Option<Event> {
        let e = self.buffers[t].get_mut(slot)?.pop_front()?;
        self.write_mem(e.cell as usize, e.value, e.write);
        Some(Event {
            thread: t,
            span: e.span,
            action: Action::Flush,
            cell: Some(e.cell),
            mutex: None,
            value: Some(e.value),
            stored: None,
            buffered: false,
            write: Some(e.write),
            read_from: None,
            po: e.po,
        })
    }

    /// The value thread `t` reads from `cell`: its newest buffered store to it (in the buffer
    /// its stores to `cell` enter), else memory.
    fn read(&self, t: usize, cell: u32) -> (i64, WriteId, bool) {
        let fwd = self
            .model
            .rules()
            .buffer_of(cell)
            .and_then(|b| self.buffers[t].get(b))
            .and_then(|b| b.iter().rev().find(|e| e.cell == cell));
        match fwd {
            Some(e) => (e.value, e.write, true),
            None => (self.mem[cell as usize], self.writer[cell as usize], false),
        }
    }

    fn next_write(&mut self, t: usize) -> WriteId {
        let ts = &mut self.threads[t];
        let w = WriteId::Store {
            thread: t as u32,
            index: ts.writes,
        };
        ts.writes += 1;
        w
    }

    fn exec(&mut self, p: &Program, t: usize) -> Event {
        let code = &p.threads[t].code;
        let pc = self.threads[t].pc as usize;
        let ins = &code[pc];
        let po = self.threads[t].po;
        self.threads[t].po += 1;
        let mut ev = Event {
            thread: t,
            span: ins.span,
            action: Action::Local,
            cell: None,
            mutex: None,
            value: None,
            stored: None,
            buffered: false,
            write: None,
            read_from: None,
            po,
        };
        if !ins.kind.is_visible() {
            // A pending faulting local instruction.
            ev.action = match &ins.kind {
                InstrKind::Assert(_) => Action::Assert,
                InstrKind::Assume(_) => Action::Assume,
                InstrKind::AwaitCheck { .. } => Action::Await,
                InstrKind::JumpIf { .. } | InstrKind::LoopIter(_) => Action::Branch,
                _ => Action::Local,
            };
            match self.run_local(p, t) {
                Err(f) => self.fault(f, ins.span),
                Ok(_) => self.advance_locals(p, t),
            }
            return ev;
        }
        let regs = &self.threads[t].regs;
        let mut fault = None;
        match &ins.kind {
            InstrKind::Load { dst, loc } => {
                ev.action = Action::Load;
                match p.resolve(loc, regs) {
                    Err(m) => fault = Some(Fault::Violation(ViolationKind::Error, m)),
                    Ok(cell) => {
                        let (v, w, fwd) = self.read(t, cell);
                        ev.cell = Some(cell);
                        ev.value = Some(v);
                        ev.read_from = Some(w);
                        ev.buffered = fwd;
                        self.set_reg(t, *dst, v);
                    }
                }
            }
            InstrKind::Store { loc, value } => {
                ev.action = Action::Store;
                match (p.resolve(loc, regs), value.eval(regs)) {
                    (Err(m), _) => fault = Some(Fault::Violation(ViolationKind::Error, m)),
                    (_, Err(_)) => fault = Some(div_zero()),
                    (Ok(cell), Ok(v)) => {
                        let w = self.next_write(t);
                        ev.cell = Some(cell);
                        ev.value = Some(v);
                        ev.write = Some(w);
                        let entry = BufEntry {
                            cell,
                            value: v,
                            write: w,
                            span: ins.span,
                            po,
                        };
                        match self.model.rules().buffer_of(cell) {
                            None => self.write_mem(cell as usize, v, w),
                            Some(b) => {
                                ev.buffered = true;
                                self.buffers[t][b].push_back(entry);
                            }
                        }
                    }
                }
            }
            InstrKind::Fence => ev.action = Action::Fence,
            InstrKind::Lock(m) => {
                ev.action = Action::Lock;
                ev.mutex = Some(*m);
                let m = *m as usize;
                if self.locks[m] == Some(t as u32) {
                    fault = Some(Fault::Violation(
                        ViolationKind::Error,
                        format!(
                            "lock of mutex {} which {} already holds",
                            p.mutexes[m], p.threads[t].name
                        ),
                    ));
                } else {
                    self.locks[m] = Some(t as u32);
                }
            }
            InstrKind::Unlock(m) => {
                ev.action = Action::Unlock;
                ev.mutex = Some(*m);
                let m = *m as usize;
                if self.locks[m] != Some(t as u32) {
                    fault = Some(Fault::Violation(
                        ViolationKind::Error,
                        format!(
                            "unlock of mutex {} which {} does not hold",
                            p.mutexes[m], p.threads[t].name
                        ),
                    ));
                } else {
                    self.locks[m] = None;
                }
            }
            InstrKind::Rmw { dst, op, loc, args } => {
                ev.action = Action::Rmw;
                let cell = p.resolve(loc, regs);
                let vals: Result<Vec<i64>, _> = args.iter().map(|a| a.eval(regs)).collect();
                match (cell, vals) {
                    (Err(m), _) => fault = Some(Fault::Violation(ViolationKind::Error, m)),
                    (_, Err(_)) => fault = Some(div_zero()),
                    (Ok(cell), Ok(vals)) => {
                        let old = self.mem[cell as usize];
                        ev.cell = Some(cell);
                        ev.value = Some(old);
                        ev.read_from = Some(self.writer[cell as usize]);
                        let new = op.write(old, &vals);
                        if let Some(nv) = new {
                            let w = self.next_write(t);
                            ev.stored = Some(nv);
                            ev.write = Some(w);
                            self.write_mem(cell as usize, nv, w);
                        }
                        if let Some(d) = dst {
                            self.set_reg(t, *d, old);
                        }
                    }
                }
            }
            _ => {}
        }
        if let Some(f) = fault {
            self.fault(f, ins.span);
            return ev;
        }
        if ins.clear_temps {
            self.clear_temps(p, t);
        }
        self.threads[t].pc += 1;
        self.advance_locals(p, t);
        ev
    }

    fn fault(&mut self, f: Fault, span: Span) {
        self.status = match f {
            Fault::Violation(kind, message) => Status::Violation {
                kind,
                message,
                span,
            },
            Fault::Blocked(reason) => Status::Blocked { reason, span },
        };
    }

    fn set_reg(&mut self, t: usize, r: u32, v: i64) {
        if let Some(x) = self.threads[t].regs.get_mut(r as usize) {
            *x = v;
        }
    }

    fn clear_temps(&mut self, p: &Program, t: usize) {
        let named = p.threads[t].regs.len();
        for x in self.threads[t].regs.iter_mut().skip(named) {
            *x = 0;
        }
    }

    /// Runs the local instruction at the thread's pc. `Ok(true)`: it ran; `Ok(false)`: an
    /// await check failed and the thread is now parked. `Err`: it faults (nothing changed).
    fn run_local(&mut self, p: &Program, t: usize) -> Result<bool, Fault> {
        let ins = &p.threads[t].code[self.threads[t].pc as usize];
        let ts = &mut self.threads[t];
        let mut next = ts.pc + 1;
        match &ins.kind {
            InstrKind::Assign { dst, value } => {
                let v = value.eval(&ts.regs).map_err(|_| div_zero())?;
                if let Some(x) = ts.regs.get_mut(*dst as usize) {
                    *x = v;
                }
            }
            InstrKind::Jump(to) => next = *to,
            InstrKind::JumpIf { cond, target, when } => {
                let v = cond.eval(&ts.regs).map_err(|_| div_zero())?;
                if (v != 0) == *when {
                    next = *target;
                }
            }
            InstrKind::Assert(c) => {
                let v = c.eval(&ts.regs).map_err(|_| div_zero())?;
                if v == 0 {
                    return Err(Fault::Violation(
                        ViolationKind::Assert,
                        "assertion failed".to_string(),
                    ));
                }
            }
            InstrKind::Assume(c) => {
                let v = c.eval(&ts.regs).map_err(|_| div_zero())?;
                if v == 0 {
                    return Err(Fault::Blocked(BlockReason::Assume));
                }
            }
            InstrKind::AwaitBegin => ts.await_dirty = Some(false),
            InstrKind::AwaitCheck { cond, retry } => {
                let v = cond.eval(&ts.regs).map_err(|_| div_zero())?;
                let dirty = ts.await_dirty.take() == Some(true);
                if v == 0 {
                    let park = !dirty;
                    if park {
                        ts.awaiting = Some(ts.pc);
                    }
                    ts.pc = *retry;
                    self.clear_temps(p, t);
                    return Ok(!park);
                }
            }
            InstrKind::LoopEnter(l) => {
                if let Some(c) = ts.loops.get_mut(*l as usize) {
                    *c = 0;
                }
            }
            InstrKind::LoopIter(l) => {
                let bound = p.loop_bound;
                if let Some(c) = ts.loops.get_mut(*l as usize) {
                    if *c >= bound {
                        return Err(Fault::Blocked(BlockReason::LoopBound));
                    }
                    *c += 1;
                }
            }
            _ => return Ok(true),
        }
        self.threads[t].pc = next;
        if ins.clear_temps {
            self.clear_temps(p, t);
        }
        Ok(true)
    }

    /// Runs local instructions of thread `t` until a visible instruction, a faulting local, a
    /// failed await, or the end.
    fn advance_locals(&mut self, p: &Program, t: usize) {
        // Every loop has a LoopIter, so this terminates; the cap is a safety net only.
        for _ in 0..1_000_000 {
            if self.threads[t].awaiting.is_some() {
                return;
            }
            let Some(ins) = p.threads[t].code.get(self.threads[t].pc as usize) else {
                return;
            };
            if ins.kind.is_visible() {
                return;
            }
            match self.run_local(p, t) {
                Ok(true) => {}
                Ok(false) | Err(_) => return,
            }
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

    fn key_eq(&self, o: &State) -> bool {
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
            && self.buffers.iter().zip(&o.buffers).all(|(a, b)| {
                a.len() == b.len()
                    && a.iter().zip(b).all(|(x, y)| {
                        x.len() == y.len()
                            && x.iter()
                                .zip(y)
                                .all(|(e, f)| e.cell == f.cell && e.value == f.value)
                    })
            })
    }
}

fn div_zero() -> Fault {
    Fault::Violation(ViolationKind::Error, "division by zero".to_string())
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
                b.len().hash(h);
                for e in b {
                    e.cell.hash(h);
                    e.value.hash(h);
                }
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{BinOp, StmtKind};
    use crate::testgen::Builder;

    /// P0: x = 1; r0 = x; r1 = y    P1: y = 2; x = 2   (n6)
    fn n6() -> Program {
        let mut b = Builder::new();
        let shared = vec![b.shared("x", 0), b.shared("y", 0)];
        let one = b.int(1);
        let (lx, ly) = (b.load(0), b.load(1));
        let t0 = vec![b.store(0, one), b.assign("r0", lx), b.assign("r1", ly)];
        let (two, two2) = (b.int(2), b.int(2));
        let t1 = vec![b.store(1, two), b.store(0, two2)];
        let threads = vec![b.thread("P0", t0), b.thread("P1", t1)];
        let t = b.test("n6", shared, vec![], threads, None);
        Program::lower(&t, 8).unwrap()
    }

    #[test]
    fn events_carry_write_ids_read_from_and_program_order() {
        let p = n6();
        let mut s = State::initial(&p, Model::Tso);
        assert_eq!(s.enabled(&p), vec![Choice::Exec(0), Choice::Exec(1)]);
        let e = s.step(&p, Choice::Exec(0));
        assert_eq!(
            (e.action, e.cell, e.value, e.buffered),
            (Action::Store, Some(0), Some(1), true)
        );
        assert_eq!(
            e.write,
            Some(WriteId::Store {
                thread: 0,
                index: 0
            })
        );
        assert_eq!(e.po, 0);
        assert_eq!(
            s.enabled(&p),
            vec![
                Choice::Exec(0),
                Choice::Flush {
                    thread: 0,
                    cell: None
                },
                Choice::Exec(1)
            ]
        );
        // The load of x is forwarded from the buffer.
        let e = s.step(&p, Choice::Exec(0));
        assert_eq!(
            (e.action, e.value, e.buffered, e.po),
            (Action::Load, Some(1), true, 1)
        );
        assert_eq!(
            e.read_from,
            Some(WriteId::Store {
                thread: 0,
                index: 0
            })
        );
        // P1 runs and drains completely.
        for c in [
            Choice::Exec(1),
            Choice::Exec(1),
            Choice::Flush {
                thread: 1,
                cell: None,
            },
            Choice::Flush {
                thread: 1,
                cell: None,
            },
        ] {
            s.step(&p, c);
        }
        assert_eq!(s.mem, vec![2, 2]);
        assert_eq!(
            s.writer[0],
            WriteId::Store {
                thread: 1,
                index: 1
            }
        );
        let e = s.step(&p, Choice::Exec(0));
        assert_eq!(
            (e.value, e.read_from, e.buffered),
            (
                Some(2),
                Some(WriteId::Store {
                    thread: 1,
                    index: 0
                }),
                false
            )
        );
        assert!(s.is_running(), "P0's store is still buffered");
        let e = s.step(
            &p,
            Choice::Flush {
                thread: 0,
                cell: None,
            },
        );
        assert_eq!(
            (e.action, e.write, e.po, e.value),
            (
                Action::Flush,
                Some(WriteId::Store {
                    thread: 0,
                    index: 0
                }),
                0,
                Some(1)
            )
        );
        assert_eq!(*s.status(), Status::Finished);
        let fs = s.final_state(&p);
        assert_eq!(
            fs.0,
            vec![
                ("P0:r0".into(), 1),
                ("P0:r1".into(), 2),
                ("x".into(), 1),
                ("y".into(), 2)
            ]
        );
        // A choice that is not enabled changes nothing.
        let before = s.clone();
        assert!(s.try_step(&p, Choice::Exec(0)).is_none());
        assert_eq!(s, before);
    }

    #[test]
    fn pso_flushes_per_location_and_fences_wait_for_drains() {
        let mut b = Builder::new();
        let shared = vec![b.shared("x", 0), b.shared("y", 0)];
        let (one, one2) = (b.int(1), b.int(1));
        let t0 = vec![b.store(0, one), b.store(1, one2), b.stmt(StmtKind::Fence)];
        let threads = vec![b.thread("P0", t0)];
        let t = b.test("W", shared, vec![], threads, None);
        let p = Program::lower(&t, 8).unwrap();
        let mut s = State::initial(&p, Model::Pso);
        s.step(&p, Choice::Exec(0));
        s.step(&p, Choice::Exec(0));
        // The fence is not enabled; both per-location flushes are.
        assert_eq!(
            s.enabled(&p),
            vec![
                Choice::Flush {
                    thread: 0,
                    cell: Some(0)
                },
                Choice::Flush {
                    thread: 0,
                    cell: Some(1)
                }
            ]
        );
        let e = s.step(
            &p,
            Choice::Flush {
                thread: 0,
                cell: Some(1),
            },
        );
        assert_eq!((e.cell, e.po), (Some(1), 1));
        assert_eq!(s.mem, vec![0, 1]);
        s.step(
            &p,
            Choice::Flush {
                thread: 0,
                cell: Some(0),
            },
        );
        assert_eq!(s.enabled(&p), vec![Choice::Exec(0)]);
        let e = s.step(&p, Choice::Exec(0));
        assert_eq!((e.action, e.po), (Action::Fence, 2));
        assert_eq!(*s.status(), Status::Finished);
    }

    #[test]
    fn a_failed_await_parks_until_memory_changes() {
        // P0: await(x == 1)   P1: x = 1
        let mut b = Builder::new();
        let shared = vec![b.shared("x", 0)];
        let (l, one) = (b.load(0), b.int(1));
        let c = b.bin(BinOp::Eq, l, one);
        let t0 = vec![b.stmt(StmtKind::Await(c))];
        let one = b.int(1);
        let t1 = vec![b.store(0, one)];
        let threads = vec![b.thread("P0", t0), b.thread("P1", t1)];
        let t = b.test("A", shared, vec![], threads, None);
        let p = Program::lower(&t, 8).unwrap();
        let mut s = State::initial(&p, Model::Tso);
        let e = s.step(&p, Choice::Exec(0));
        assert_eq!((e.action, e.value), (Action::Load, Some(0)));
        assert!(s.threads[0].awaiting.is_some());
        assert_eq!(s.enabled(&p), vec![Choice::Exec(1)]);
        s.step(&p, Choice::Exec(1));
        // Buffered: memory unchanged, P0 still parked.
        assert_eq!(
            s.enabled(&p),
            vec![Choice::Flush {
                thread: 1,
                cell: None
            }]
        );
        s.step(
            &p,
            Choice::Flush {
                thread: 1,
                cell: None,
            },
        );
        assert_eq!(s.enabled(&p), vec![Choice::Exec(0)]);
        let e = s.step(&p, Choice::Exec(0));
        assert_eq!(e.value, Some(1));
        assert_eq!(*s.status(), Status::Finished);
    }
}
