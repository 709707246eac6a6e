//! The exploration: the current execution as a stack of nodes (enabled processes, backtrack
//! and sleep sets), its steps, and the loop that descends and backs up.

use super::footprint::{footprint, independent, Footprint, Snap, TEvent};
use super::DporStats;
use crate::collect::Collector;
use crate::control::Control;
use crate::ir::Program;
use crate::options::CheckOptions;
use crate::report::{Model, ViolationKind};
use crate::semantics::{Choice, Event, State, Status, WriteId};
use rustc_hash::FxHashMap;

/// The processes of a program under a model: threads, then buffers.
pub(super) struct Procs {
    pub(super) threads: usize,
    pub(super) cells: usize,
    pub(super) model: Model,
}

impl Procs {
    pub(super) fn count(&self) -> usize {
        self.model.rules().processes(self.threads, self.cells)
    }
    pub(super) fn of(&self, c: Choice) -> usize {
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

/// An enabled process at a node: its choice and the footprint of its next step.
pub(super) struct Peek {
    pub(super) proc: usize,
    pub(super) choice: Choice,
    pub(super) fp: Footprint,
    /// Its next step faults (ends the execution in a violation or blocked).
    pub(super) fault: bool,
    /// Its next step is an `await` round that fails and parks the thread: a round that
    /// changes nothing, so it is not run (`docs/design/dpor.md#await`) until the leaf,
    /// where the parked threads make the deadlock.
    pub(super) parks: bool,
    /// The thread is back in a state it was in earlier in this execution, having changed
    /// nothing meanwhile (`Dpor::spinning`): the iterations since are a no-op, so the thread
    /// goes no further in this execution, as after a false `assume`.
    pub(super) spins: bool,
    /// With `spins`, the loads of the spin iteration the thread would run next (not run:
    /// `Dpor::spin_ahead`); empty when it already ran one (`Dpor::spinning`).
    pub(super) cycle: Vec<Footprint>,
    /// With `spins`: the thread waits at a spin iteration (it did at the parent node), and
    /// the steps that would let it out now are those its last pure steps would take had they
    /// run now (`Dpor::rotated`): it is not run here. Decided again at each node, on the
    /// memory of the node: a later write may give it a way out that reading later does not.
    pub(super) stuck: bool,
}

pub(super) struct Node {
    pub(super) state: State,
    pub(super) peeks: Vec<Peek>,
    pub(super) sleep: Vec<Footprint>,
    pub(super) backtrack: Vec<usize>,
    pub(super) done: Vec<Footprint>,
    /// The threads that wait for a mutex another thread holds, and the mutex
    /// ([`State::lock_wait`]): failed lock attempts, which race with the holder's `lock`.
    pub(super) waits: Vec<(usize, u32)>,
}

impl Node {
    pub(super) fn asleep(&self, p: usize) -> bool {
        self.sleep.iter().chain(&self.done).any(|f| f.proc == p)
    }
    pub(super) fn enabled(&self, p: usize) -> bool {
        self.peeks.iter().any(|k| k.proc == p && k.runs())
    }
    /// Whether process `p`'s next step is a failing `await` round (not run).
    pub(super) fn parks(&self, p: usize) -> bool {
        self.peeks.iter().any(|k| k.proc == p && k.parks)
    }
    /// Whether process `p`'s next steps are a spin iteration that is not run.
    pub(super) fn spins_ahead(&self, p: usize) -> bool {
        self.peeks
            .iter()
            .any(|k| k.proc == p && !k.cycle.is_empty())
    }
}

impl Peek {
    /// Whether the search runs this step: it neither faults nor only parks at an `await`.
    pub(super) fn runs(&self) -> bool {
        !self.fault && !self.parks && !self.spins
    }
}

/// Whether the step `choice` from `before` to `after` (footprint `fp`) is an `await` round
/// whose condition failed: the thread parks, or (memory having changed since the round
/// began) starts the round again with its registers as they were. It writes nothing.
pub(super) fn failed_round(before: &State, after: &State, choice: Choice, fp: &Footprint) -> bool {
    let Choice::Exec(t) = choice else {
        return false;
    };
    let (b, a) = (&before.threads[t], &after.threads[t]);
    fp.parks || (b.await_dirty.is_some() && a.pc == b.pc && a.regs == b.regs)
}

pub(super) fn faulted(s: &State) -> bool {
    match s.status() {
        Status::Violation { kind, .. } => *kind != ViolationKind::Deadlock,
        Status::Blocked { .. } => true,
        _ => false,
    }
}

pub(super) struct Dpor<'a, 'c, 'p> {
    pub(super) program: &'p Program,
    pub(super) procs: Procs,
    pub(super) col: &'a mut Collector<'c>,
    pub(super) nodes: Vec<Node>,
    pub(super) trace: Vec<TEvent>,
    /// `by_proc[q]`: the indices into `trace` of process `q`'s events, in order (so that a
    /// process's last event, and the events a new one may race with, are found without
    /// scanning the whole trace).
    pub(super) by_proc: Vec<Vec<usize>>,
    /// `loud[q]`: the same for the events of `q` that are not [`Footprint::quiet`], the only
    /// ones a later event can race with or be ordered after except for a flush after the
    /// issue of its store, which `issues` finds.
    pub(super) loud: Vec<Vec<usize>>,
    /// The index into `trace` of each store's issue.
    pub(super) issues: FxHashMap<WriteId, usize>,
    pub(super) events: Vec<Event>,
    pub(super) stats: DporStats,
    /// Called with the events of every maximal execution; `true` stops the exploration.
    pub(super) leaf: &'a mut dyn FnMut(&[Event]) -> bool,
    pub(super) halted: bool,
    /// Every step runs: failing `await` rounds and spin iterations too. Robustness needs every
    /// trace's loads (a failing round's read can close a non-SC cycle), not only its outcomes.
    pub(super) every_step: bool,
    /// Per thread, whether each pc lies inside a loop (`spin::loop_pcs`, made on first use).
    pub(super) loops: Vec<Vec<bool>>,
    /// What each thread can still do from each pc (`chain::Reach`, made on first use).
    pub(super) reach: Option<super::chain::Reach>,
}

impl Dpor<'_, '_, '_> {
    /// A node for `state`, reached by `self.events`; records the faults its enabled threads
    /// would newly run into (`known`: the processes whose fault the parent already recorded).
    pub(super) fn node(&mut self, state: State, sleep: Vec<Footprint>, known: &[usize]) -> Node {
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
                fp.woken = self.by_proc[t]
                    .last()
                    .is_some_and(|&i| self.trace[i].fp.parks);
            }
            let parks = !self.every_step && !fault && failed_round(&state, &after, choice, &fp);
            let mut cycle = Vec::new();
            let (mut spins, mut stuck) = (false, false);
            if !self.every_step && !fault && !parks {
                if let Choice::Exec(t) = choice {
                    cycle = self.spin_ahead(t, &state, &fp, &after).unwrap_or_default();
                    let was = self
                        .nodes
                        .last()
                        .and_then(|n| n.peeks.iter().find(|k| k.proc == proc));
                    let (ahead, was_stuck) =
                        was.map_or((false, false), |k| (!k.cycle.is_empty(), k.stuck));
                    if cycle.is_empty() {
                        stuck = (ahead || was_stuck || self.waited_split(t, &state))
                            && self.rotated(t, &state);
                    }
                }
                spins = !cycle.is_empty() || stuck || self.spinning(choice, &state);
            }
            peeks.push(Peek {
                proc,
                choice,
                fp,
                fault,
                parks,
                spins,
                cycle,
                stuck,
            });
        }
        let waits = (0..state.threads.len())
            .filter_map(|t| state.lock_wait(self.program, t).map(|m| (t, m)))
            .collect();
        Node {
            state,
            peeks,
            sleep,
            backtrack: Vec::new(),
            done: Vec::new(),
            waits,
        }
    }

    /// Decides what the new top node is: a leaf (recorded, returns false) or a node with a
    /// first process to explore.
    pub(super) fn open(&mut self) -> bool {
        let depth = self.nodes.len() - 1;
        self.stats.max_depth = self.stats.max_depth.max(depth);
        let top = self.nodes.last_mut().expect("a node");
        if !top.state.is_running() {
            self.col.end(&top.state, &self.events);
            self.halted |= (self.leaf)(&self.events);
            return false;
        }
        let runnable: Vec<usize> = top
            .peeks
            .iter()
            .filter(|k| k.runs())
            .map(|k| k.proc)
            .collect();
        if runnable.is_empty() {
            // Only faults (each recorded when it became pending) and failing `await` rounds
            // remain. The rounds are run now: each thread parks, and with no fault pending the
            // interpreter's state is the deadlock the program reaches (nothing is left to
            // change memory and wake them).
            let mut s = top.state.clone();
            let n = self.events.len();
            for k in top.peeks.iter().filter(|k| k.parks) {
                let Choice::Exec(t) = k.choice else { continue };
                // A round begun before the last change retries at once, and a round may
                // have more loads: a few steps until the thread parks.
                for _ in 0..64 {
                    if s.threads[t].awaiting.is_some() || !s.is_enabled(self.program, k.choice) {
                        break;
                    }
                    let ev = s.step(self.program, k.choice);
                    self.stats.steps += 1;
                    self.events.push(ev);
                }
            }
            if top.peeks.iter().any(|k| k.fault || k.spins) {
                self.col.stats.executions += 1;
                let only_blocked = top.peeks.iter().filter(|k| k.fault).all(|k| {
                    let mut s = top.state.clone();
                    s.step(self.program, k.choice);
                    matches!(s.status(), Status::Blocked { .. })
                });
                if only_blocked {
                    self.col.stats.blocked += 1;
                }
            } else {
                self.col.end(&s, &self.events);
            }
            self.halted |= (self.leaf)(&self.events);
            self.events.truncate(n);
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
    pub(super) fn descend(&mut self, p: usize) {
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
        let known: Vec<usize> = top
            .peeks
            .iter()
            .filter(|k| k.fault)
            .map(|k| k.proc)
            .collect();
        let mut state = top.state.clone();
        let ev = state.step(self.program, choice);
        self.stats.steps += 1;
        let clock = self.races(&fp);
        self.by_proc[fp.proc].push(self.trace.len());
        if !fp.quiet() {
            self.loud[fp.proc].push(self.trace.len());
        }
        if let Some(w) = fp.issue {
            self.issues.insert(w, self.trace.len());
        }
        let after = match choice {
            Choice::Exec(t) => Some(Snap::of(&state, t)),
            Choice::Flush { .. } => None,
        };
        self.trace.push(TEvent { fp, clock, after });
        self.events.push(ev);
        let node = self.node(state, sleep, &known);
        // A thread that now waits for a mutex and did not before failed to take it: that
        // attempt races with the holder's `lock` like a real `lock` would (Nidhugg's failed
        // `pthread_mutex_lock`). The holder may never unlock in this execution (a deadlock,
        // or a thread blocked for good), so waiting for the real `lock` to find the race
        // would miss the order in which the waiting thread takes the mutex first.
        let parent = self.nodes.last().expect("a node");
        let attempts: Vec<(usize, u32)> = node
            .waits
            .iter()
            .filter(|w| !parent.waits.contains(w))
            .copied()
            .collect();
        // Likewise a thread whose `await` round now fails and did not before (it just
        // arrived at the `await`, or the step changed what the round reads): the round is
        // not run, so its races with the writes it read are reversed here, as if it ran.
        let rounds: Vec<Footprint> = node
            .peeks
            .iter()
            .filter(|k| k.parks && !parent.parks(k.proc))
            .map(|k| k.fp)
            .collect();
        // And a thread whose next steps are now a spin iteration (not run) and were not:
        // its loads race with the writes they read, as if it ran.
        let spins: Vec<Footprint> = node
            .peeks
            .iter()
            .filter(|k| !k.cycle.is_empty() && !parent.spins_ahead(k.proc))
            .flat_map(|k| k.cycle.iter().copied())
            .collect();
        self.nodes.push(node);
        for (t, m) in attempts {
            self.lock_attempt(t, m);
        }
        for f in rounds.iter().chain(&spins) {
            self.races(f);
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
    opts: &CheckOptions,
    ctl: &Control,
    col: &mut Collector<'_>,
    leaf: &mut dyn FnMut(&[Event]) -> bool,
) -> DporStats {
    run(program, model, opts, ctl, col, leaf, false)
}

/// [`explore_leaves`] with every step run: no failing `await` round skipped and no spin
/// iteration cut, so every maximal execution has all its loads (robustness by DPOR,
/// `robust::robustness_dpor`, looks for cycles among them).
pub fn explore_every_step(
    program: &Program,
    model: Model,
    opts: &CheckOptions,
    ctl: &Control,
    col: &mut Collector<'_>,
    leaf: &mut dyn FnMut(&[Event]) -> bool,
) -> DporStats {
    run(program, model, opts, ctl, col, leaf, true)
}

fn run(
    program: &Program,
    model: Model,
    _opts: &CheckOptions,
    ctl: &Control,
    col: &mut Collector<'_>,
    leaf: &mut dyn FnMut(&[Event]) -> bool,
    every_step: bool,
) -> DporStats {
    let procs = Procs {
        threads: program.threads.len(),
        cells: program.cells.len(),
        model,
    };
    let mut d = Dpor {
        program,
        col,
        nodes: Vec::new(),
        trace: Vec::new(),
        by_proc: vec![Vec::new(); procs.count()],
        loud: vec![Vec::new(); procs.count()],
        issues: FxHashMap::default(),
        procs,
        events: Vec::new(),
        stats: DporStats::default(),
        leaf,
        halted: false,
        every_step,
        loops: Vec::new(),
        reach: None,
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
            // Cancel flag, deadline and memory budget (`Control::should_stop`); one unit of
            // work for the portfolio per check.
            d.col.count_work(1);
            if ctl.should_stop() {
                d.col.complete = false;
                // The path's states (each with its store buffers), its events and their
                // clocks are freed meanwhile: on a path of a million steps, freeing them here
                // took 0.1 s past the deadline.
                crate::explore::drop_in_background((
                    std::mem::take(&mut d.nodes),
                    std::mem::take(&mut d.trace),
                    std::mem::take(&mut d.events),
                    std::mem::take(&mut d.by_proc),
                    std::mem::take(&mut d.loud),
                    std::mem::take(&mut d.issues),
                ));
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
            let next = top.backtrack.iter().copied().find(|&q| !top.asleep(q));
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
        if let Some(e) = d.trace.pop() {
            d.by_proc[e.fp.proc].pop();
            if !e.fp.quiet() {
                d.loud[e.fp.proc].pop();
            }
            if let Some(w) = e.fp.issue {
                d.issues.remove(&w);
            }
        }
        d.events.pop();
        open = true;
    }
    ctl.report(&d.col.progress());
    d.stats
}
