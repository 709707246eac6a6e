//! Lazy TSO reachability (Bouajjani, Calin, Derevenetc and Meyer; Trencher): the paper's
//! Algorithm 1 with the amendments of its §5, over a program whose loops do not count.
//!
//! Round k explores the SC executions of the extended program `R_k` (`R_0` is the program);
//! when no goal (a failed assertion, a runtime error, a deadlock, a falsified `forall` or
//! `~exists`, a witnessed `exists`) is reached, the attack search ([`super::attack::search`],
//! the robustness oracle) gives an attack whose path `σ` is new, and `R_{k+1} = R_k ⊕ σ`.
//!
//! **The extension, as semantics.** The paper adds to the attacker's thread a copy of `σ` in
//! which stores go to auxiliary registers, loads read those registers first, and, at the end
//! of `σ`, the registers are stored to memory in order; with §5's amendments the original
//! store stays (so `R ⊕ σ` has every behaviour of `R`) and nothing else is added. Here the
//! copy is not written out as instructions: a thread of `R` is the program's thread plus a
//! mode, "on the copy of extension j at step i, with some stores held back". On the copy its
//! steps are the program's own steps, checked against `σ`'s program counters (a step off the
//! path is not taken: the copy's `assume` fails; a local instruction that faults is, since the
//! execution ends there), its stores stay in its TSO store buffer (the
//! auxiliary registers, which its loads read first, exactly as TSO's own-buffer reads), and at
//! the end of `σ` its only steps are the flushes of those stores, oldest first (the copy's
//! stores to memory, each at once under SC). Every step of `R` is then a step of the program
//! under TSO, so every execution this search finds is a TSO execution of the program, written
//! as the program's own steps and flushes: its schedule replays under TSO like any other.
//!
//! **What it proves.** A goal reached in any round is reached under TSO (soundness is the
//! sentence above). With §5's amendment the extended program keeps the original store, hence
//! every attack of the program: it is robust only when the program is, and then round 0 (the
//! SC search) is the TSO answer (Lemma 5) before any extension. So for a program that is not
//! robust the rounds are a search for a TSO violation, and their end without one (no new
//! attack, or the round budget) is `unknown`: the caller says so and adds the bounded check.
//! A round ends at its first violation (the check ends there; its report is incomplete).

use super::explore::{path, Cut, Node};
use super::Budget;
use crate::ast::{Quantifier, Test};
use crate::collect::Collector;
use crate::control::Control;
use crate::ir::Program;
use crate::options::{CheckOptions, EngineKind};
use crate::report::{Action, Model, ModelReport};
use crate::semantics::{Choice, Event, State};
use std::collections::{HashSet, VecDeque};
use std::time::Instant;

/// An extension: the attacker's thread and the program counters of its steps from the
/// delayed store (first) to its last load past which the store is delayed (last).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ext {
    pub thread: usize,
    pub pcs: Vec<u32>,
}

/// A thread on the copy of extension `ext`: `pos` steps of its path done, `held` stores held
/// back (the newest `held` entries of its TSO buffer; under SC of `R` there are no others).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct OnCopy {
    ext: u32,
    pos: u32,
    held: u32,
}

type Key = (State, Vec<Option<OnCopy>>);

/// The successors of `(s, modes)` under SC of the extended program, each with its events.
fn successors(
    p: &Program,
    exts: &[Ext],
    s: &State,
    modes: &[Option<OnCopy>],
) -> Vec<(Key, Vec<Event>)> {
    let mut out = Vec::new();
    for t in 0..s.threads.len() {
        let exec = Choice::Exec(t);
        match modes[t] {
            None => {
                if !s.is_enabled(p, exec) {
                    continue;
                }
                let mut n = s.clone();
                let evs = super::explore::sc_step(p, Model::Tso, &mut n, exec);
                out.push(((n, modes.to_vec()), evs));
                // Onto the copy of every extension that starts at this store.
                for (j, e) in exts.iter().enumerate() {
                    if e.thread != t || e.pcs[0] != s.threads[t].pc {
                        continue;
                    }
                    let mut n = s.clone();
                    let ev = n.step(p, exec);
                    if ev.action != Action::Store || !ev.buffered {
                        continue;
                    }
                    let mut m = modes.to_vec();
                    m[t] = Some(OnCopy {
                        ext: j as u32,
                        pos: 1,
                        held: 1,
                    });
                    out.push(((n, m), vec![ev]));
                }
            }
            Some(c) if (c.pos as usize) < exts[c.ext as usize].pcs.len() => {
                let want = exts[c.ext as usize].pcs[c.pos as usize];
                let pc = s.threads[t].pc;
                // A local instruction left pending is one that faults: the execution ends
                // there (a goal, under TSO as much as on the copy).
                let faults = p.threads[t]
                    .code
                    .get(pc as usize)
                    .is_some_and(|i| !i.kind.is_visible());
                if (pc != want && !faults) || !s.is_enabled(p, exec) {
                    continue;
                }
                let mut n = s.clone();
                let ev = n.step(p, exec);
                let held = c.held + u32::from(ev.action == Action::Store && ev.buffered);
                let mut m = modes.to_vec();
                m[t] = Some(OnCopy {
                    pos: c.pos + 1,
                    held,
                    ..c
                });
                out.push(((n, m), vec![ev]));
            }
            Some(c) => {
                // The end of the path: the held stores reach memory, oldest first.
                let Some(front) = s.buffers[t].first().and_then(|b| b.front()) else {
                    continue;
                };
                let mut n = s.clone();
                let ev = n.step(p, Choice::flush(Model::Tso, t, front.cell));
                let mut m = modes.to_vec();
                m[t] = (c.held > 1).then_some(OnCopy {
                    held: c.held - 1,
                    ..c
                });
                out.push(((n, m), vec![ev]));
            }
        }
    }
    out
}

/// Explores every SC state of the program extended by `exts` (loops not counting), feeding
/// `col` (a TSO collector: every execution is one of the program under TSO), until the first
/// violation (it ends the check). Returns the states visited and why it stopped early, if it
/// did.
pub(super) fn explore(
    p: &Program,
    exts: &[Ext],
    budget: Budget,
    ctl: &Control,
    col: &mut Collector<'_>,
) -> (u64, Option<Cut>) {
    let dead = crate::ir::live::dead_registers(p);
    let mut init = State::initial(p, Model::Tso);
    if !init.is_running() {
        col.end(&init, &[]);
        return (1, None);
    }
    super::explore::forget_dead(&dead, &mut init);
    let modes = vec![None; p.threads.len()];
    let mut visited: HashSet<Key> = HashSet::new();
    visited.insert((init.clone(), modes.clone()));
    let mut nodes: Vec<Node> = Vec::new();
    let mut queue: VecDeque<(Key, Option<usize>)> = VecDeque::from([((init, modes), None)]);
    let mut steps: u64 = 0;
    while let Some(((state, modes), id)) = queue.pop_front() {
        for (mut key, events) in successors(p, exts, &state, &modes) {
            super::explore::forget_dead(&dead, &mut key.0);
            steps += 1;
            let cut = if ctl.should_stop() {
                Some(Cut::Control)
            } else if visited.len() as u64 >= budget.states {
                Some(Cut::States(budget.states))
            } else {
                None
            };
            if cut.is_some() {
                col.complete = false;
                let n = visited.len() as u64;
                crate::explore::drop_in_background((visited, nodes, queue));
                return (n, cut);
            }
            if steps.is_multiple_of(8192) {
                ctl.report(&col.progress());
            }
            if visited.contains(&key) {
                continue;
            }
            visited.insert(key.clone());
            nodes.push(Node { parent: id, events });
            let nid = Some(nodes.len() - 1);
            if key.0.is_running() {
                queue.push_back((key, nid));
            } else {
                col.end(&key.0, &path(&nodes, nid));
                // A violation ends the check: no need to close the round.
                if col.progress().violations > 0 {
                    // (`rounds` marks the report incomplete, with its own warning.)
                    let n = visited.len() as u64;
                    crate::explore::drop_in_background((visited, nodes, queue));
                    return (n, None);
                }
            }
        }
    }
    ctl.report(&col.progress());
    (visited.len() as u64, None)
}

/// How the rounds ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum End {
    /// A goal was reached under TSO (a violation, or a witness of `exists`).
    Goal,
    /// The oracle had no attack whose path was not encoded yet.
    NoNewAttack,
    /// The round budget was spent.
    RoundBudget,
    /// A search stopped early: why.
    Stopped(String),
}

/// What the rounds found: the last round's report (TSO executions of the program, not all
/// of them), the rounds run (one extension each), the states of the last round.
pub(super) struct Rounds {
    pub report: ModelReport,
    pub rounds: u32,
    pub states: u64,
    pub end: End,
}

/// Whether a report reaches a goal: a violation, or a witness of its `exists`.
pub(super) fn goal(r: &ModelReport) -> bool {
    !r.violations.is_empty()
        || r.condition
            .as_ref()
            .is_some_and(|c| c.kind == Quantifier::Exists && c.holds)
}

/// Algorithm 1's loop from its first extension on: `first` is the attack path the oracle
/// gave for the program itself (round 0, the SC search, reached no goal).
pub(super) fn rounds(
    test: &Test,
    p: &Program,
    first: Ext,
    opts: &CheckOptions,
    budget: Budget,
    ctl: &Control,
) -> Rounds {
    let start = Instant::now();
    let mut exts = vec![first];
    let mut rounds = 0;
    loop {
        rounds += 1;
        let mut col = Collector::new(test, p, Model::Tso);
        col.first = opts.first;
        col.on_violation = ctl.on_violation();
        let (states, cut) = explore(p, &exts, budget, ctl, &mut col);
        if cut.is_none() && !col.complete {
            col.stop = ctl.stop_reason();
        }
        let mut report = col.finish(start.elapsed());
        report.stats.engine = Some(EngineKind::Exhaustive);
        // Some TSO executions only, whatever the search did.
        report.complete = false;
        let reached = goal(&report);
        let done = |end| Rounds {
            report,
            rounds,
            states,
            end,
        };
        if reached {
            return done(End::Goal);
        }
        match cut {
            Some(Cut::States(n)) => {
                return done(End::Stopped(format!(
                    "the extended program's SC states did not close within the budget of {n} \
                     states"
                )))
            }
            Some(Cut::Control) => {
                return done(End::Stopped(crate::collect::incomplete_message(
                    ctl.stop_reason(),
                )))
            }
            None => {}
        }
        if rounds >= budget.rounds {
            return done(End::RoundBudget);
        }
        let (r, ext) = super::attack::search(p, budget, ctl, &exts);
        if !r.complete {
            return done(End::Stopped(super::stop_words(ctl, r.states, budget)));
        }
        match ext {
            Some(e) => exts.push(e),
            None => return done(End::NoNewAttack),
        }
    }
}
