//! Spin iterations, recognised on values at run time (`docs/design/dpor.md#spin-loops`): a
//! thread whose next steps would go round a cycle of pure steps (loads and local steps) back
//! to the state it is in is not run (`Dpor::spin_ahead`), and a thread that did go round such
//! a cycle goes no further (`Dpor::spinning`).

use super::explore::{faulted, Dpor};
use super::footprint::{footprint, Footprint, Snap};
use crate::ir::{InstrKind, Program};
use crate::semantics::{Choice, State};

/// The most steps of a thread the look-ahead runs to find its way back to the state it
/// started in (a spin iteration of a few loads and branches takes a handful).
const AHEAD: usize = 32;

/// Per thread, whether each pc lies on a backward jump's way round (between the jump's target
/// and the jump): only there can a thread come back to a state it was in.
fn loop_pcs(p: &Program) -> Vec<Vec<bool>> {
    p.threads
        .iter()
        .map(|t| {
            let mut inside = vec![false; t.code.len() + 1];
            for (pc, ins) in t.code.iter().enumerate() {
                let target = match ins.kind {
                    InstrKind::Jump(target) | InstrKind::JumpIf { target, .. } => target,
                    InstrKind::AwaitCheck { retry, .. } => retry,
                    _ => continue,
                };
                if (target as usize) <= pc {
                    for slot in &mut inside[target as usize..=pc] {
                        *slot = true;
                    }
                }
            }
            inside
        })
        .collect()
}

impl Dpor<'_, '_, '_> {
    /// Thread `t`'s snapshot just before its last `pure` steps (the entries of `mine`, its
    /// trace indices): the node after its step before them, or its initial state; `None`
    /// where that node kept none.
    fn before_pure(&self, mine: &[usize], pure: usize, state: &State, t: usize) -> Option<Snap> {
        match mine.len().checked_sub(pure + 1) {
            Some(k) => self.trace[mine[k]].after.clone(),
            None => Some(Snap::of(&State::initial(self.program, state.model), t)),
        }
    }

    /// The loads of the spin iteration thread `t` would run from `state` (its next step, `fp`,
    /// leading to `after`), if its steps from here are pure (loads and local steps: no store,
    /// RMW, fence, lock or unlock, no fault, no `await`) and come back to the state (`Snap`)
    /// it is in now, with memory as it is: such an iteration changes nothing, so the thread is
    /// not run while memory stays so (as a failing `await` round is not). Its loads' races
    /// are reversed when it starts spinning (`Dpor::descend`), so the orders in which they
    /// read other values, and the thread gets out, are explored.
    pub(super) fn spin_ahead(
        &mut self,
        t: usize,
        state: &State,
        fp: &Footprint,
        after: &State,
    ) -> Option<Vec<Footprint>> {
        if self.loops.is_empty() {
            self.loops = loop_pcs(self.program);
        }
        let ts = &state.threads[t];
        let inside = self.loops[t].get(ts.pc as usize).copied().unwrap_or(false);
        if !inside || !fp.pure() || fp.parks || ts.await_dirty.is_some() || ts.awaiting.is_some() {
            return None;
        }
        let now = Snap::of(state, t);
        let loud = |f: &Footprint| !f.quiet();
        let mut cycle: Vec<Footprint> = [*fp].into_iter().filter(loud).collect();
        let mut s = after.clone();
        s.threads[t].clear_loop_counts();
        let choice = Choice::Exec(t);
        for _ in 0..AHEAD {
            let th = &s.threads[t];
            if th.await_dirty.is_some() || th.awaiting.is_some() {
                return None;
            }
            let here = Snap::of(&s, t);
            let pc = s.threads[t].pc as usize;
            if here != now
                && (pc == now.pc as usize || !self.loops[t].get(pc).copied().unwrap_or(false))
            {
                // Back at its pc in another state (one way round that changed a register, a
                // loop over a counter), or out of every loop: it does not come back.
                return None;
            }
            if here == now {
                // With several loads, another thread's write between them can meet the
                // iteration half way (`assume(x == 1); assert(x != 2);` against `x = 2`, or
                // message passing between two flags), an order neither running the whole
                // iteration before the write nor after it gives: only an iteration no
                // write can still split is looked ahead (`Dpor::splittable`).
                if cycle.is_empty() || self.split(t, state, &cycle) {
                    return None;
                }
                return Some(cycle);
            }
            if !s.is_enabled(self.program, choice) {
                return None;
            }
            let before = s.clone();
            let ev = s.step(self.program, choice);
            self.stats.steps += 1;
            if faulted(&s) {
                return None;
            }
            let f = footprint(fp.proc, choice, &before, &ev, &s);
            if !f.pure() || f.parks {
                return None;
            }
            if loud(&f) {
                cycle.push(f);
            }
        }
        None
    }

    /// Whether the iteration of `cycle`'s loads, run whole by thread `t` from `state`, could
    /// be split by a write between two of its loads (`Dpor::splittable`, for each load but
    /// the last and the cells loaded after it).
    fn split(&mut self, t: usize, state: &State, cycle: &[Footprint]) -> bool {
        let cell = |f: &Footprint| f.mem_read.or(f.own_cell);
        let cells: Vec<u32> = cycle.iter().filter_map(cell).collect();
        (0..cells.len().saturating_sub(1)).any(|i| {
            let a = cells[i];
            // A cell loaded earlier in the iteration too was asked about then.
            !cells[..i].contains(&a) && self.splittable(state, t, a, &cells[i + 1..])
        })
    }

    /// Where thread `t`'s pure steps from `state` lead with memory as it is: its state
    /// before the first step that is not a pure one (a store, RMW, fence, lock or unlock, a
    /// fault, an `await`, or none: the thread is done or waits). `None` when it goes round
    /// longer than the look-ahead, or passes through `avoid`.
    fn pure_run(&mut self, t: usize, mut s: State, avoid: Option<&Snap>) -> Option<Snap> {
        s.threads[t].clear_loop_counts();
        let choice = Choice::Exec(t);
        for _ in 0..2 * AHEAD {
            let here = Snap::of(&s, t);
            if avoid == Some(&here) {
                return None;
            }
            let th = &s.threads[t];
            if th.await_dirty.is_some() || th.awaiting.is_some() {
                return Some(here);
            }
            if !s.is_enabled(self.program, choice) {
                return Some(here);
            }
            let before = s.clone();
            let ev = s.step(self.program, choice);
            self.stats.steps += 1;
            let f = footprint(t, choice, &before, &ev, &s);
            if faulted(&s) || !f.pure() || f.parks {
                return Some(here);
            }
        }
        None
    }

    /// Thread `t` waited at a spin iteration and memory has changed so that it would now get
    /// out (in `state`). Whether this execution is redundant: had the thread's last pure
    /// steps (`σ`, since its last store, RMW, fence, lock or unlock) run now instead, they
    /// would read what it reads now and lead where its way out leads (the same pc and
    /// registers before its next impure step), without going round the iteration. That
    /// execution (σ's loads moved after the writes that let the thread out) is one of the
    /// program, with the same memory and thread states from here on, and DPOR explores it:
    /// σ's loads race with those writes. This is Nidhugg's spin-assume for a loop whose load
    /// comes before it and again at the end of its body (`f = x; while (f) { f = x; }`, the
    /// same loop as `do f = x; while (f);` once LLVM rotates it): an iteration that fails
    /// blocks the execution, and only a first read of the value that gets out goes on.
    pub(super) fn rotated(&mut self, t: usize, state: &State) -> bool {
        let mine = &self.by_proc[t];
        let pure = mine
            .iter()
            .rev()
            .take_while(|&&i| self.trace[i].fp.pure())
            .count();
        let sigma = &mine[mine.len() - pure..];
        if !sigma.iter().any(|&i| !self.trace[i].fp.quiet()) {
            return false;
        }
        let Some(start) = self.before_pure(mine, pure, state, t) else {
            return false;
        };
        let now = Snap::of(state, t);
        let Some(out) = self.pure_run(t, state.clone(), None) else {
            return false;
        };
        let mut again = state.clone();
        start.restore(&mut again, t);
        self.pure_run(t, again, Some(&now)) == Some(out)
    }

    /// Whether thread `t` would have waited at a spin iteration but for a write that split
    /// its last pure steps σ (since its last store, RMW, fence, lock or unlock): σ has two
    /// loads or more, another thread (or its buffer) wrote a cell σ loads after σ's first
    /// load, and had σ
    /// run whole where its first load ran (on that node's memory) it would have led to the
    /// state the thread is in now, where it would then have waited (its next iteration
    /// spins on that memory, `Dpor::spin_ahead`). That execution is one where the thread
    /// waited and the writes then let it out, which `Dpor::rotated` judges; the writes that
    /// fell between σ's loads change nothing in that judgment, which reruns σ whole on the
    /// memory of now (`docs/design/dpor.md#spin-loops`).
    pub(super) fn waited_split(&mut self, t: usize, state: &State) -> bool {
        let ts = &state.threads[t];
        if ts.await_dirty.is_some() || ts.awaiting.is_some() {
            return false;
        }
        let mine = &self.by_proc[t];
        let pure = mine
            .iter()
            .rev()
            .take_while(|&&i| self.trace[i].fp.pure())
            .count();
        let sigma = &mine[mine.len() - pure..];
        let cell = |f: &Footprint| f.mem_read.or(f.own_cell);
        let loads: Vec<usize> = sigma
            .iter()
            .copied()
            .filter(|&i| !self.trace[i].fp.quiet())
            .collect();
        if loads.len() < 2 {
            return false;
        }
        let cells: Vec<u32> = loads
            .iter()
            .filter_map(|&i| cell(&self.trace[i].fp))
            .collect();
        let split = self.trace[loads[0] + 1..]
            .iter()
            .any(|e| e.fp.thread != t && e.fp.mem_write.is_some_and(|c| cells.contains(&c)));
        if !split {
            return false;
        }
        let Some(start) = self.before_pure(mine, pure, state, t) else {
            return false;
        };
        // σ run whole from the node before its first step, on that node's memory.
        let mut s = self.nodes[sigma[0]].state.clone();
        start.restore(&mut s, t);
        let choice = Choice::Exec(t);
        for _ in 0..sigma.len() {
            if !s.is_enabled(self.program, choice) {
                return false;
            }
            s.step(self.program, choice);
            self.stats.steps += 1;
            if faulted(&s) {
                return false;
            }
        }
        if Snap::of(&s, t) != Snap::of(state, t) || !s.is_enabled(self.program, choice) {
            return false;
        }
        let mut after = s.clone();
        let ev = after.step(self.program, choice);
        self.stats.steps += 1;
        if faulted(&after) {
            return false;
        }
        let fp = footprint(t, choice, &s, &ev, &after);
        self.spin_ahead(t, &s, &fp, &after).is_some()
    }

    /// Whether thread `choice` is in a state (`Snap`) it was in after an earlier step of this
    /// execution, with only pure steps since (no store, RMW, fence, lock or unlock): the
    /// steps since went round a cycle that changed nothing but the loop counters (a spin
    /// iteration, whether its loads are in the loop's condition or its body). Deleting them
    /// leaves an execution of the program with fewer iterations, so executions that go on
    /// from here add nothing (`docs/design/dpor.md#spin-loops`).
    pub(super) fn spinning(&self, choice: Choice, state: &State) -> bool {
        let Choice::Exec(t) = choice else {
            return false;
        };
        let mine = &self.by_proc[t];
        let Some((&last, older)) = mine.split_last() else {
            return false;
        };
        if !self.trace[last].fp.pure() {
            return false;
        }
        // Inside an `await` round the state is not the thread's alone: another thread's write
        // marks the round as stale (`await_dirty`) and makes it retry. Failing rounds are not
        // run anyway (`Peek::parks`); a cycle through whole rounds is found outside them.
        let ts = &state.threads[t];
        if ts.await_dirty.is_some() || ts.awaiting.is_some() {
            return false;
        }
        let now = Snap::of(state, t);
        for &i in older.iter().rev() {
            let e = &self.trace[i];
            if e.after.as_ref() == Some(&now) {
                return true;
            }
            if !e.fp.pure() {
                return false;
            }
        }
        false
    }
}
