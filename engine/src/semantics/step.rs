//! One step: running a thread's instruction (and the local ones around it), or a flush.

use super::{BlockReason, BufEntry, Event, State, Status, WriteId};
use crate::ir::{InstrKind, Program};
use crate::report::{Action, ViolationKind};
use crate::span::Span;

pub(super) enum Fault {
    Violation(ViolationKind, String),
    Blocked(BlockReason),
}

impl State {
    pub(super) fn write_mem(&mut self, cell: usize, value: i64, w: WriteId) {
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

    pub(super) fn flush(&mut self, t: usize, slot: usize) -> Option<Event> {
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
    pub(super) fn read(&self, t: usize, cell: u32) -> (i64, WriteId, bool) {
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

    pub(super) fn next_write(&mut self, t: usize) -> WriteId {
        let ts = &mut self.threads[t];
        let w = WriteId::Store {
            thread: t as u32,
            index: ts.writes,
        };
        ts.writes += 1;
        w
    }

    pub(super) fn exec(&mut self, p: &Program, t: usize) -> Event {
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

    pub(super) fn fault(&mut self, f: Fault, span: Span) {
        self.status = match f {
            Fault::Violation(kind, message) => Status::Violation {
                kind,
                message,
                span,
            },
            Fault::Blocked(reason) => Status::Blocked { reason, span },
        };
    }

    pub(super) fn set_reg(&mut self, t: usize, r: u32, v: i64) {
        if let Some(x) = self.threads[t].regs.get_mut(r as usize) {
            *x = v;
        }
    }

    pub(super) fn clear_temps(&mut self, p: &Program, t: usize) {
        let named = p.threads[t].regs.len();
        for x in self.threads[t].regs.iter_mut().skip(named) {
            *x = 0;
        }
    }

    /// Runs the local instruction at the thread's pc. `Ok(true)`: it ran; `Ok(false)`: an
    /// await check failed and the thread is now parked. `Err`: it faults (nothing changed).
    pub(super) fn run_local(&mut self, p: &Program, t: usize) -> Result<bool, Fault> {
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
    pub(super) fn advance_locals(&mut self, p: &Program, t: usize) {
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
}

pub(super) fn div_zero() -> Fault {
    Fault::Violation(ViolationKind::Error, "division by zero".to_string())
}
