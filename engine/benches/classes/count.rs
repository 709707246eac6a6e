//! Counting classes without enumerating traces (issue 58): a depth-first search with sleep
//! sets and no persistent sets explores exactly one trace per class of maximal traces (the
//! lexicographically least of each), and the number of those from a node depends only on the
//! node's state and sleep set, so it is memoised on both. The cost is the number of
//! (state, sleep set) pairs, not the number of traces: AwaitBlowup's classes are counted in
//! seconds where the brute force does not finish enumerating its traces.
//!
//! Two steps of different processes enabled at a state are independent when they do not
//! conflict (two accesses to one cell in memory of which one writes memory, a failed `cas`
//! reading only; two steps on one mutex) and they commute there: each stays enabled after
//! the other and both orders reach equal states. A load forwarded from its own buffer touches
//! no memory (the chronological traces' rule); a buffered store's issue neither. So under SC
//! this is the brute force's reduced equivalence (checked on every program it enumerates),
//! and under TSO/PSO the equivalence of DPOR's chronological traces. Faults end their thread
//! only, as in the brute force and in DPOR.

use litmus_engine::ir::Program;
use litmus_engine::report::{Action, Model, ViolationKind};
use litmus_engine::semantics::{Choice, Event, State, Status};
use std::collections::HashMap;

/// A step that ends its thread: a failed `assert` or `assume`, a runtime error, the loop bound.
fn faulted(s: &State) -> bool {
    match s.status() {
        Status::Violation { kind, .. } => *kind != ViolationKind::Deadlock,
        Status::Blocked { .. } => true,
        _ => false,
    }
}

/// What a step accesses, as far as conflicts go.
#[derive(Clone, Copy)]
struct Acc {
    read: Option<u32>,
    write: Option<u32>,
    mutex: Option<u32>,
}

fn acc(c: Choice, ev: &Event) -> Acc {
    let mut a = Acc {
        read: None,
        write: None,
        mutex: None,
    };
    match c {
        Choice::Flush { .. } => a.write = ev.cell,
        Choice::Exec(_) => match ev.action {
            Action::Load if !ev.buffered => a.read = ev.cell,
            Action::Store if !ev.buffered => a.write = ev.cell,
            Action::Rmw => {
                a.read = ev.cell;
                if ev.write.is_some() {
                    a.write = ev.cell;
                }
            }
            Action::Lock | Action::Unlock => a.mutex = ev.mutex,
            _ => {}
        },
    }
    a
}

fn conflict(a: &Acc, b: &Acc) -> bool {
    let w = |x: &Acc, y: &Acc| x.write.is_some() && (x.write == y.write || x.write == y.read);
    w(a, b) || w(b, a) || (a.mutex.is_some() && a.mutex == b.mutex)
}

/// An enabled step at a state: its process, choice, access and the state after it.
struct Next {
    proc: usize,
    choice: Choice,
    acc: Acc,
    after: State,
}

pub struct Counter<'p> {
    p: &'p Program,
    /// Failing `await` rounds are steps (the brute force's traces); without, they are not
    /// (DPOR's executions: such a round changes nothing and is run only at the end).
    rounds: bool,
    /// Steps that conflict commute when both orders reach equal states (two writes of one
    /// value, a load and a write that leaves its cell as it was): value-aware classes.
    values: bool,
    /// Two stores of one value to one cell commute (and nothing else that conflicts).
    same_value_writes: bool,
    memo: HashMap<(State, u64), u128>,
    /// Steps run (the cost).
    pub steps: u64,
}

impl<'p> Counter<'p> {
    pub fn new(p: &'p Program, rounds: bool, values: bool) -> Self {
        Counter {
            p,
            rounds,
            values,
            same_value_writes: false,
            memo: HashMap::new(),
            steps: 0,
        }
    }

    /// The number of (state, sleep set) pairs memoised.
    pub fn nodes(&self) -> usize {
        self.memo.len()
    }

    fn proc(&self, c: Choice) -> usize {
        let n = self.p.threads.len();
        let cells = self.p.cells.len();
        match c {
            Choice::Exec(t) => t,
            Choice::Flush { thread, cell: None } => n + thread,
            Choice::Flush {
                thread,
                cell: Some(c),
            } => n + thread * cells + c as usize,
        }
    }

    fn nexts(&mut self, s: &State) -> Vec<Next> {
        let mut v = Vec::new();
        if !s.is_running() {
            return v;
        }
        for c in s.enabled(self.p) {
            let mut after = s.clone();
            let ev = after.step(self.p, c);
            self.steps += 1;
            if faulted(&after) || (!self.rounds && failed_round(s, &after, c)) {
                continue;
            }
            if !self.rounds {
                quiet_awaits(&mut after);
            }
            let proc = self.proc(c);
            assert!(proc < 64, "at most 64 processes");
            v.push(Next {
                proc,
                choice: c,
                acc: acc(c, &ev),
                after,
            });
        }
        v
    }

    /// Whether `a` and `b`, both enabled at the state they were computed from, commute.
    fn independent(&mut self, a: &Next, b: &Next) -> bool {
        // Stores (no read) of one cell that leave memory equal: the same value.
        let same_value_writes = self.same_value_writes
            && a.acc.write.is_some()
            && a.acc.write == b.acc.write
            && a.acc.read.is_none()
            && b.acc.read.is_none()
            && a.after.mem == b.after.mem;
        if !self.values && !same_value_writes && conflict(&a.acc, &b.acc) {
            return false;
        }
        let mut ab = a.after.clone();
        let mut ba = b.after.clone();
        if !ab.is_enabled(self.p, b.choice) || !ba.is_enabled(self.p, a.choice) {
            return false;
        }
        ab.step(self.p, b.choice);
        ba.step(self.p, a.choice);
        self.steps += 2;
        if !self.rounds {
            quiet_awaits(&mut ab);
            quiet_awaits(&mut ba);
        }
        ab == ba
    }

    /// The number of classes of maximal traces from `s` whose least trace does not start with
    /// a process in `sleep`.
    pub fn count(&mut self, s: &State, sleep: u64) -> u128 {
        if let Some(&n) = self.memo.get(&(s.clone(), sleep)) {
            return n;
        }
        let nexts = self.nexts(s);
        if nexts.is_empty() {
            return 1;
        }
        let mut total = 0u128;
        let mut done = 0u64;
        for i in 0..nexts.len() {
            let bit = 1u64 << nexts[i].proc;
            if sleep & bit != 0 {
                continue;
            }
            let mut z = 0u64;
            for j in 0..nexts.len() {
                let bj = 1u64 << nexts[j].proc;
                if j != i && (sleep | done) & bj != 0 && self.independent(&nexts[j], &nexts[i]) {
                    z |= bj;
                }
            }
            total += self.count(&nexts[i].after.clone(), z);
            done |= bit;
        }
        self.memo.insert((s.clone(), sleep), total);
        total
    }
}

/// Whether the step `c` from `before` to `after` is an `await` round whose condition failed:
/// the thread parks, or starts the round again with its registers as they were.
fn failed_round(before: &State, after: &State, c: Choice) -> bool {
    let Choice::Exec(t) = c else {
        return false;
    };
    let (b, a) = (&before.threads[t], &after.threads[t]);
    a.awaiting.is_some() || (b.await_dirty.is_some() && a.pc == b.pc && a.regs == b.regs)
}

/// Without failing rounds, whether a thread is parked at an `await` and whether memory changed
/// since its round began only decide whether a failing round parks or starts again, and such
/// rounds are not steps: every thread is put in the state a memory change leaves it in (woken,
/// its round clean), so that the order of a write and a step that begins a round does not
/// tell two executions apart (DPOR's `await` rule).
fn quiet_awaits(s: &mut State) {
    for ts in &mut s.threads {
        ts.awaiting = None;
        if ts.await_dirty.is_some() {
            ts.await_dirty = Some(false);
        }
    }
}

/// The class count of `p` under `model` from its initial state (`rounds`: failing `await`
/// rounds count as steps), the (state, sleep set) pairs and the steps it took.
pub fn classes(p: &Program, model: Model, rounds: bool) -> (u128, usize, u64) {
    let mut c = Counter::new(p, rounds, false);
    let n = c.count(&State::initial(p, model), 0);
    (n, c.nodes(), c.steps)
}

/// [`classes`] without failing rounds, value-aware: two steps commute whenever both orders
/// reach equal states (equal values; which write a cell's value came from is not compared).
pub fn value_classes(p: &Program, model: Model) -> (u128, usize, u64) {
    let mut c = Counter::new(p, false, true);
    let n = c.count(&State::initial(p, model), 0);
    (n, c.nodes(), c.steps)
}

/// [`classes`] without failing rounds, where two stores of one value to one cell also commute
/// (a static rule: they reach equal states in either order from any state).
pub fn same_value_write_classes(p: &Program, model: Model) -> (u128, usize, u64) {
    let mut c = Counter::new(p, false, false);
    c.same_value_writes = true;
    let n = c.count(&State::initial(p, model), 0);
    (n, c.nodes(), c.steps)
}
