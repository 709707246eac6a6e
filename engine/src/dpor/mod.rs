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
//!   paper's rule, [`dep_in_trace`]); two `lock`s of one mutex;
//! - *orders* (happens-before, never reversed): a store's issue before its flush; a flush of
//!   thread `t`'s buffer before `t`'s next fence, RMW, lock or unlock (they wait for empty
//!   buffers); an `unlock(m)` before the next `lock(m)`; a memory change before the first step
//!   of a thread it woke from a parked `await`.
//!
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
//! one execution, never to the number explored.

use crate::collect::Collector;
use crate::ir::Program;
use crate::options::{CheckOptions, Control};
use crate::report::{Action, Model, ViolationKind};
use crate::semantics::{Choice, Event, State, Status, WriteId};

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
    trace.iter().any(|e| e.fp.publishes.is_some() && e.fp.publishes == w)
}

/// Whether `a` and `b`, both enabled after `trace`, commute (for sleep sets). A load of its
/// own store `w` and a write of its cell commute while `w` is still buffered (the load
/// forwards it either way), not once `w` is in memory.
fn independent(a: &Footprint, b: &Footprint, trace: &[TEvent]) -> bool {
    for (l, w) in [(a, b), (b, a)] {
        if l.own_cell.is_some() && l.own_cell == w.mem_write && published(l.own, trace) {
            return false;
        }
    }
    a.proc != b.proc && dep(a, b).is_none() && dep(b, a).is_none()
}

/// The processes of a program under a model: threads, then buffers.
struct Procs {
    threads: usize,
    cells: usize,
    model: Model,
}

impl Procs {
    fn count(&self) -> usize {
        self.model.rules().processes(self.threads, self.cells)
    }
    fn of(&self, c: Choice) -> usize {
        match c {
            Choice::Exec(t) => t,
            Choice::Flush { thread, cell } => {
                self.model
                    .rules()
                    .buffer_process(self.threads, self.cells, thread, cell)
            }
        }
    }
}

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

/// An enabled process at a node: its choice and the footprint of its next step.
struct Peek {
    proc: usize,
    choice: Choice,
    fp: Footprint,
    /// Its next step faults (ends the execution in a violation or blocked).
    fault: bool,
}

struct Node {
    state: State,
    peeks: Vec<Peek>,
    sleep: Vec<Footprint>,
    backtrack: Vec<usize>,
    done: Vec<Footprint>,
}

impl Node {
    fn asleep(&self, p: usize) -> bool {
        self.sleep.iter().chain(&self.done).any(|f| f.proc == p)
    }
    fn enabled(&self, p: usize) -> bool {
        self.peeks.iter().any(|k| k.proc == p && !k.fault)
    }
}

/// One step of the current execution.
pub struct TEvent {
    fp: Footprint,
    clock: Vec<u32>,
}

/// What the step `ev` (by `choice`, from `before` to `after`) did.
fn footprint(proc: usize, choice: Choice, before: &State, ev: &Event, after: &State) -> Footprint {
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

fn faulted(s: &State) -> bool {
    match s.status() {
        Status::Violation { kind, .. } => *kind != ViolationKind::Deadlock,
        Status::Blocked { .. } => true,
        _ => false,
    }
}

fn join(a: &mut [u32], b: &[u32]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x = (*x).max(*y);
    }
}

struct Dpor<'a, 'c, 'p> {
    program: &'p Program,
    procs: Procs,
    col: &'a mut Collector<'c>,
    nodes: Vec<Node>,
    trace: Vec<TEvent>,
    events: Vec<Event>,
    stats: DporStats,
    /// Called with the events of every maximal execution; `true` stops the exploration.
    leaf: &'a mut dyn FnMut(&[Event]) -> bool,
    halted: bool,
}

impl Dpor<'_, '_, '_> {
    /// A node for `state`, reached by `self.events`; records the faults its enabled threads
    /// would newly run into (`known`: the processes whose fault the parent already recorded).
    fn node(&mut self, state: State, sleep: Vec<Footprint>, known: &[usize]) -> Node {
        let mut peeks = Vec::new();
        for choice in state.enabled(self.program) {
            let proc = self.procs.of(choice);
            let mut after = state.clone();
            let ev = after.step(self.program, choice);
            self.stats.steps += 1;
            let fault = faulted(&after);
            if fault && !known.contains(&proc) {
                self.events.push(ev.clone());
                self.col.record(&after, &self.events);
                self.events.pop();
            }
            let mut fp = footprint(proc, choice, &state, &ev, &after);
            if let Choice::Exec(t) = choice {
                fp.woken = self
                    .trace
                    .iter()
                    .rev()
                    .find(|e| e.fp.proc == t)
                    .is_some_and(|e| e.fp.parks);
            }
            peeks.push(Peek {
                proc,
                choice,
                fp,
                fault,
            });
        }
        Node {
            state,
            peeks,
            sleep,
            backtrack: Vec::new(),
            done: Vec::new(),
        }
    }

    /// Decides what the new top node is: a leaf (recorded, returns false) or a node with a
    /// first process to explore.
    fn open(&mut self) -> bool {
        let depth = self.nodes.len() - 1;
        self.stats.max_depth = self.stats.max_depth.max(depth);
        let top = self.nodes.last_mut().expect("a node");
        if !top.state.is_running() {
            let state = top.state.clone();
            self.col.end(&state, &self.events);
            self.halted |= (self.leaf)(&self.events);
            return false;
        }
        let runnable: Vec<usize> = top
            .peeks
            .iter()
            .filter(|k| !k.fault)
            .map(|k| k.proc)
            .collect();
        if runnable.is_empty() {
            // Only faults remain: each was recorded when it became pending.
            self.col.stats.executions += 1;
            let only_blocked = top.peeks.iter().all(|k| {
                let mut s = top.state.clone();
                s.step(self.program, k.choice);
                matches!(s.status(), Status::Blocked { .. })
            });
            if only_blocked {
                self.col.stats.blocked += 1;
            }
            self.halted |= (self.leaf)(&self.events);
            return false;
        }
        match runnable.iter().find(|&&p| !top.asleep(p)) {
            Some(&p) => {
                top.backtrack.push(p);
                true
            }
            None => {
                self.stats.sleep_blocked += 1;
                false
            }
        }
    }

    /// Runs process `p` from the top node: finds the races of its step, pushes the new node.
    fn descend(&mut self, p: usize) {
        let top = self.nodes.last_mut().expect("a node");
        let peek = top.peeks.iter().find(|k| k.proc == p).expect("enabled");
        let (choice, fp) = (peek.choice, peek.fp);
        let sleep: Vec<Footprint> = top
            .sleep
            .iter()
            .chain(&top.done)
            .filter(|q| independent(q, &fp, &self.trace))
            .copied()
            .collect();
        top.done.push(fp);
        let known: Vec<usize> = top.peeks.iter().filter(|k| k.fault).map(|k| k.proc).collect();
        let mut state = top.state.clone();
        let ev = state.step(self.program, choice);
        self.stats.steps += 1;
        let clock = self.races(&fp);
        self.trace.push(TEvent { fp, clock });
        self.events.push(ev);
        let node = self.node(state, sleep, &known);
        self.nodes.push(node);
    }

    /// The vector clock of the event `f` about to be appended, adding a backtrack point for
    /// each race it completes.
    fn races(&mut self, f: &Footprint) -> Vec<u32> {
        let n = self.trace.len();
        let p = f.proc;
        let prev = self.trace.iter().rposition(|e| e.fp.proc == p);
        let mut c = match prev {
            Some(i) => self.trace[i].clock.clone(),
            None => vec![0; self.procs.count()],
        };
        let mut c_race = c.clone();
        let mut races = Vec::new();
        for k in (0..n).rev() {
            let e = &self.trace[k];
            if e.fp.proc == p {
                continue;
            }
            let d = match dep_in_trace(&e.fp, f, &self.trace) {
                // A woken thread's step comes after the memory changes since it parked (one
                // of them woke it), not after earlier ones.
                Some(Dep::Wake) if prev.is_some_and(|i| k < i) => None,
                d => d,
            };
            match d {
                None => {}
                Some(Dep::Race) => {
                    if c_race[e.fp.proc] as usize <= k {
                        races.push(k);
                    }
                    join(&mut c, &e.clock);
                    join(&mut c_race, &e.clock);
                }
                Some(Dep::Order | Dep::Wake) => {
                    join(&mut c, &e.clock);
                    join(&mut c_race, &e.clock);
                }
                Some(Dep::Unlock) => join(&mut c, &e.clock),
            }
        }
        c[p] = n as u32 + 1;
        for k in races {
            self.reverse(k, p, &c);
        }
        c
    }

    /// The race between event `k` and the new event (process `p`, clock `cf`): schedules, at
    /// the node before `k`, a process that starts the reversed order.
    fn reverse(&mut self, k: usize, p: usize, cf: &[u32]) {
        let n = self.trace.len();
        let pk = self.trace[k].fp.proc;
        // v: the events after k that do not happen after it, then the new event.
        let v: Vec<usize> = (k + 1..n)
            .filter(|&j| self.trace[j].clock[pk] as usize <= k)
            .collect();
        let mut seen = Vec::new();
        let mut initials = Vec::new();
        for (i, &j) in v.iter().enumerate() {
            let q = self.trace[j].fp.proc;
            if seen.contains(&q) {
                continue;
            }
            seen.push(q);
            let cj = &self.trace[j].clock;
            if v[..i]
                .iter()
                .all(|&h| cj[self.trace[h].fp.proc] as usize <= h)
            {
                initials.push(q);
            }
        }
        if !seen.contains(&p) && v.iter().all(|&h| cf[self.trace[h].fp.proc] as usize <= h) {
            initials.push(p);
        }
        let node = &mut self.nodes[k];
        let cands: Vec<usize> = initials.into_iter().filter(|&q| node.enabled(q)).collect();
        if cands.is_empty() || cands.iter().any(|q| node.backtrack.contains(q)) {
            return;
        }
        if let Some(&q) = cands.iter().find(|&&q| !node.asleep(q)) {
            node.backtrack.push(q);
        }
    }
}

/// Explores `program` under `model` by Source-DPOR, feeding `col`. Stops early (setting
/// `col.complete = false`) on cancellation, timeout, or (with `--first`) the first violation.
pub fn explore(
    program: &Program,
    model: Model,
    opts: &CheckOptions,
    ctl: &Control,
    col: &mut Collector<'_>,
) -> DporStats {
    explore_leaves(program, model, opts, ctl, col, &mut |_| false)
}

/// [`explore`], calling `leaf` with the events of every maximal execution explored (one per
/// Shasha-Snir class at least: every class has a representative among them); when `leaf`
/// returns `true` the exploration stops there, incomplete.
pub fn explore_leaves(
    program: &Program,
    model: Model,
    _opts: &CheckOptions,
    ctl: &Control,
    col: &mut Collector<'_>,
    leaf: &mut dyn FnMut(&[Event]) -> bool,
) -> DporStats {
    let procs = Procs {
        threads: program.threads.len(),
        cells: program.cells.len(),
        model,
    };
    let mut d = Dpor {
        program,
        procs,
        col,
        nodes: Vec::new(),
        trace: Vec::new(),
        events: Vec::new(),
        stats: DporStats::default(),
        leaf,
        halted: false,
    };
    let init = State::initial(program, model);
    let root = d.node(init, Vec::new(), &[]);
    d.nodes.push(root);
    let mut open = d.open();
    let mut ticks: u64 = 0;
    // Also poll after every 4,096 interpreter steps: with hundreds of threads one tick steps
    // every enabled thread, and 256 ticks overran the deadline by a minute (2,000 threads).
    let mut polled_steps: u64 = 0;
    loop {
        ticks += 1;
        if ticks.is_multiple_of(256) || d.stats.steps - polled_steps >= 4096 {
            polled_steps = d.stats.steps;
            // Cancel flag, deadline and memory budget (`Control::should_stop`).
            if ctl.should_stop() {
                d.col.complete = false;
                // The path's states (each with its store buffers) are freed meanwhile.
                crate::explore::drop_in_background(std::mem::take(&mut d.nodes));
                break;
            }
            if ticks.is_multiple_of(4096) {
                ctl.report(&d.col.progress());
            }
        }
        if d.col.stopped_first() || d.halted {
            d.col.complete = false;
            break;
        }
        if open {
            let top = d.nodes.last().expect("a node");
            let next = top
                .backtrack
                .iter()
                .copied()
                .find(|&q| !top.asleep(q));
            if let Some(q) = next {
                d.descend(q);
                open = d.open();
                continue;
            }
        }
        // The top node is finished: back up.
        d.nodes.pop();
        if d.nodes.is_empty() {
            break;
        }
        d.trace.pop();
        d.events.pop();
        open = true;
    }
    ctl.report(&d.col.progress());
    d.stats
}

#[cfg(test)]
mod tests {
    use crate::options::{CheckOptions, Control, EngineKind};
    use crate::report::Model;
    use crate::testgen::{random_test_with, GenConfig};
    use std::time::Duration;

    fn opts() -> CheckOptions {
        CheckOptions {
            engine: EngineKind::Dpor,
            ..CheckOptions::default()
        }
    }

    #[test]
    fn exploration_is_deterministic() {
        for seed in 0..40 {
            let t = random_test_with(seed, GenConfig::all());
            for m in Model::ALL {
                let mut a = crate::check(&t, m, &opts(), &Control::new());
                let mut b = crate::check(&t, m, &opts(), &Control::new());
                a.stats.time_ms = 0.0;
                b.stats.time_ms = 0.0;
                assert_eq!(a, b, "seed {seed} {m:?}");
            }
        }
    }

    #[test]
    fn cancellation_and_timeout_end_incomplete() {
        // The largest of some random programs, so that exploration takes more than 256 steps.
        let t = (0..80)
            .map(|s| random_test_with(s, GenConfig::all()))
            .max_by_key(|t| crate::check(t, Model::Pso, &opts(), &Control::new()).stats.executions)
            .unwrap();
        let full = crate::check(&t, Model::Pso, &opts(), &Control::new());
        assert!(full.complete && full.stats.executions > 100);
        let ctl = Control::new();
        ctl.cancel();
        let r = crate::check(&t, Model::Pso, &opts(), &ctl);
        assert!(!r.complete);
        assert!(r.stats.executions < full.stats.executions);
        assert!(r.warnings.iter().any(|w| w.message.contains("incomplete")));
        let o = CheckOptions {
            timeout: Some(Duration::ZERO),
            ..opts()
        };
        let r = crate::check(&t, Model::Pso, &o, &Control::new());
        assert!(!r.complete && r.stopped.is_none());
    }
}
