//! Traces from interpreter steps: the MCR event of each step, failed `await` rounds left out,
//! pending locks added, and the causal state of an execution.

use super::trace::{End, EventKind, RmwFn, Trace, TraceEvent};
use crate::ids::EventId;
use crate::ir::{InstrKind, Program};
use crate::report::{Action, Model};
use crate::semantics::{Event, State, WriteId};
use std::hash::{Hash, Hasher};

/// Whether thread `t` has just begun an `await` round (its last local step was the round's
/// `AwaitBegin`).
pub(super) fn at_round_begin(p: &Program, st: &State, t: usize) -> bool {
    let Some(ts) = st.threads.get(t) else {
        return false;
    };
    ts.awaiting.is_none()
        && ts.pc > 0
        && p.threads[t]
            .code
            .get(ts.pc as usize - 1)
            .is_some_and(|i| i.kind == InstrKind::AwaitBegin)
}

/// Whether thread `t` was woken from a parked `await` and must run its wake-up step.
pub(super) fn wake_pending(p: &Program, st: &State, t: usize) -> bool {
    let Some(ts) = st.threads.get(t) else {
        return false;
    };
    ts.awaiting.is_none()
        && p.threads[t]
            .code
            .get(ts.pc as usize)
            .is_some_and(|i| i.kind == InstrKind::AwaitBegin)
}

/// Where each write's store event is in a trace so far (its last one), so that a flush finds
/// the store it publishes without scanning the trace back: a TSO `while (1)` buffers one store
/// per iteration, and a scan per flush made the loop quadratic in its bound.
#[derive(Clone, Default)]
pub(super) struct Stores(rustc_hash::FxHashMap<WriteId, usize>);

impl Stores {
    /// Event `e` is the trace's `i`-th.
    pub fn note(&mut self, i: usize, e: &TraceEvent) {
        if let (EventKind::Store { .. }, Some(w)) = (&e.kind, e.write) {
            self.0.insert(w, i);
        }
    }
}

/// The MCR view of one interpreter step from `before` to `after`, or `None` for a step with no
/// shared effect (the wake-up step of a parked `await`). `stores` are the stores of the
/// trace's events so far (to find the store a flush publishes).
pub(super) fn observe(
    p: &Program,
    ev: &Event,
    before: &State,
    after: &State,
    stores: &Stores,
) -> Option<TraceEvent> {
    let cell = ev.cell.unwrap_or(0);
    let value = ev.value.unwrap_or(0);
    let kind = match ev.action {
        Action::Load => EventKind::Load { cell, value },
        Action::Store => EventKind::Store { cell, value },
        Action::Flush => {
            let store = ev
                .write
                .and_then(|w| stores.0.get(&w).copied())
                .map(EventId::new);
            EventKind::Flush { cell, value, store }
        }
        Action::Rmw => EventKind::Rmw {
            cell,
            read: value,
            write: ev.stored,
            op: rmw_fn(p, before, ev.thread).filter(|f| f.write(value) == ev.stored),
        },
        Action::Fence => EventKind::Fence,
        Action::Lock => EventKind::Lock {
            mutex: ev.mutex.unwrap_or(0),
        },
        Action::Unlock => EventKind::Unlock {
            mutex: ev.mutex.unwrap_or(0),
        },
        _ => return None,
    };
    let t = ev.thread;
    let (mut failed_check, mut round_start) = (false, false);
    if ev.action != Action::Flush {
        if let (Some(b), Some(a)) = (before.threads.get(t), after.threads.get(t)) {
            let begun = at_round_begin(p, after, t);
            // Back at a round's beginning, at or before where it was: a failed check that
            // retried, unless a loop went round (the check passed and a `while` came back to
            // the same `await`; a retry jumps to the round's beginning without a loop's
            // iteration). Without the loop counts the first round of
            // `while (r0 < 2) { await(x == 1); r0 = r0 + 1; }` was taken for a failed one and
            // dropped: `tests/regressions/mcr-await-in-a-loop.litmus`.
            let looped = a.loop_counts() != b.loop_counts();
            failed_check = b.await_dirty.is_some()
                && (a.awaiting.is_some() || (begun && a.pc <= b.pc && !looped));
            round_start = !failed_check && begun;
        }
    }
    let write = match ev.action {
        Action::Store | Action::Flush => ev.write,
        _ => None,
    };
    let pc = if ev.action == Action::Flush {
        u32::MAX
    } else {
        before.threads.get(t).map_or(u32::MAX, |ts| ts.pc)
    };
    Some(TraceEvent {
        thread: t,
        kind,
        failed_check,
        round_start,
        write,
        pending: false,
        pc,
    })
}

/// The locks that threads (but `except`, whose step ended the execution) wait for in the final
/// state `st` of an execution that did not finish: each is a mutex another thread holds.
pub(super) fn pending_locks(p: &Program, st: &State, except: Option<usize>) -> Vec<TraceEvent> {
    let mut out = Vec::new();
    for (t, ts) in st.threads.iter().enumerate() {
        if Some(t) == except || ts.awaiting.is_some() {
            continue;
        }
        let Some(InstrKind::Lock(m)) = p.threads[t].code.get(ts.pc as usize).map(|i| &i.kind)
        else {
            continue;
        };
        if st
            .locks
            .get(*m as usize)
            .copied()
            .flatten()
            .is_some_and(|o| o as usize != t)
        {
            out.push(TraceEvent {
                thread: t,
                kind: EventKind::Lock { mutex: *m },
                failed_check: false,
                round_start: false,
                write: None,
                pending: true,
                pc: ts.pc,
            });
        }
    }
    out
}

/// The write function of the RMW thread `t` is about to run in `st` (its operands evaluated).
pub(super) fn rmw_fn(p: &Program, st: &State, t: usize) -> Option<RmwFn> {
    let ts = st.threads.get(t)?;
    let InstrKind::Rmw { op, args, .. } = &p.threads.get(t)?.code.get(ts.pc as usize)?.kind else {
        return None;
    };
    let arg = |k: usize| {
        args.get(k)
            .map(|a| a.eval(&ts.regs).ok())
            .unwrap_or(Some(0))
    };
    Some(RmwFn {
        op: *op,
        args: [arg(0)?, arg(1)?],
    })
}

/// The trace of an execution's MCR events, and how many of its first `committed` events (the
/// seed prefix) remain in it.
pub(super) fn make_trace(
    p: &Program,
    model: Model,
    in_round: &[bool],
    events: Vec<TraceEvent>,
    end: End,
    committed: usize,
) -> (Trace, usize) {
    let (events, committed) = drop_failed_rounds(events, in_round, committed, model);
    let tr = Trace {
        model,
        threads: p.threads.len(),
        init: p.init.clone(),
        in_round_at_start: in_round.to_vec(),
        events,
        end,
    };
    (tr, committed)
}

/// The trace without the `await` rounds that failed and were retried, and how many of its first
/// `committed` events remain. A failed round changes nothing (its loads fill temporaries that are
/// cleared and the thread goes back to the start of the `await`), so the execution without it is
/// the same execution with the thread scheduled later, and the maximal causal model need not
/// distinguish how often a thread spun. A failed round stays when it is its thread's last round
/// (the thread ends parked there: a deadlock, or parked when another thread ended the
/// execution): its loads are targets like any other reads. A failed round that repeats its
/// thread's previous one ([`stutters`]) goes first, so that the round it repeats is the one kept
/// when it is the last.
pub(super) fn drop_failed_rounds(
    events: Vec<TraceEvent>,
    in_round: &[bool],
    committed: usize,
    model: Model,
) -> (Vec<TraceEvent>, usize) {
    let n = events.len();
    let threads = in_round.len();
    let mut ghost = stutters(&events, in_round, model);
    // Per thread: where its current round began (index of its first event in the round).
    let mut begin: Vec<Option<usize>> = (0..threads).map(|t| in_round[t].then_some(0)).collect();
    let mut last_own: Vec<Option<usize>> = vec![None; threads];
    let mut failed: Vec<(usize, usize, usize)> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        if matches!(e.kind, EventKind::Flush { .. }) || e.thread >= threads || ghost[i] {
            continue;
        }
        let t = e.thread;
        last_own[t] = Some(i);
        if begin[t].is_none() {
            begin[t] = Some(i);
        }
        if e.failed_check {
            // The round's loads: the thread's events from the round's beginning to here.
            failed.push((t, begin[t].unwrap_or(i), i));
            begin[t] = None;
        } else if e.round_start || !matches!(e.kind, EventKind::Load { .. }) {
            begin[t] = None;
        }
    }
    for (t, from, to) in failed {
        let last = last_own[t] == Some(to);
        let members: Vec<usize> = (from..=to)
            .filter(|&j| {
                events[j].thread == t && !matches!(events[j].kind, EventKind::Flush { .. })
            })
            .collect();
        let is_round = members
            .iter()
            .all(|&j| matches!(events[j].kind, EventKind::Load { .. }));
        if !last && is_round {
            for j in members {
                ghost[j] = true;
            }
        }
    }
    if !ghost.iter().any(|&g| g) {
        return (events, committed);
    }
    let kept_committed = (0..committed.min(n)).filter(|&i| !ghost[i]).count();
    let mut new_index: Vec<Option<EventId>> = vec![None; n];
    let mut k = 0;
    for i in 0..n {
        if !ghost[i] {
            new_index[i] = Some(EventId::new(k));
            k += 1;
        }
    }
    let events = events
        .into_iter()
        .enumerate()
        .filter(|&(i, _)| !ghost[i])
        .map(|(_, mut e)| {
            if let EventKind::Flush { store, .. } = &mut e.kind {
                *store = store.and_then(|s| new_index.get(s.index()).copied().flatten());
            }
            e
        })
        .collect();
    (events, kept_committed)
}

/// Where to cut an execution whose `await` rounds in its first `committed` events (the seed
/// prefix) failed and were retried, so that those rounds stay in the trace: the index of the
/// first event of the earliest retry (a [stutter](stutters) is no retry). The events before it are an execution prefix in which each
/// such round is its thread's last, so [`drop_failed_rounds`] keeps it with its loads, whose
/// other values are then targets. `None` if no round of the prefix was retried.
pub(super) fn retry_cut(
    events: &[TraceEvent],
    in_round: &[bool],
    committed: usize,
    model: Model,
) -> Option<usize> {
    let threads = in_round.len();
    let mut begin: Vec<Option<usize>> = (0..threads).map(|t| in_round[t].then_some(0)).collect();
    // A round that repeats the failed one is no retry: the thread is still parked there.
    let stutter = stutters(events, in_round, model);
    // Per thread: whether its last round failed and began inside the prefix.
    let mut parked = vec![false; threads];
    for (i, e) in events.iter().enumerate() {
        if matches!(e.kind, EventKind::Flush { .. })
            || e.thread >= threads
            || e.pending
            || stutter[i]
        {
            continue;
        }
        let t = e.thread;
        if parked[t] {
            return Some(i);
        }
        if begin[t].is_none() {
            begin[t] = Some(i);
        }
        if e.failed_check {
            parked[t] = begin[t].is_some_and(|b| b < committed);
            begin[t] = None;
        } else if e.round_start || !matches!(e.kind, EventKind::Load { .. }) {
            begin[t] = None;
        }
    }
    None
}

/// Which events belong to a *stutter*: a failed `await` round of all loads that reads, load by
/// load, what its thread's previous round (failed too, right before it in the thread) read,
/// with no other value published to the load's cell between the two loads. The
/// interpreter retries a round at once when a cell's value changed while the round was in
/// progress, and a round is in progress from its `AwaitBegin` on, before its first load (from
/// the initial state, for a thread that starts with an `await`): a write before the loads makes
/// the round stale although it read the new value. Its retry reads the same again and parks.
/// It changes nothing: the thread is back where the previous round left it, waiting for the
/// same values to change, so the execution without the stutter is the same execution with
/// the thread parked after the round it repeats. Rounds are delimited as in
/// [`drop_failed_rounds`].
pub(super) fn stutters(events: &[TraceEvent], in_round: &[bool], model: Model) -> Vec<bool> {
    let threads = in_round.len();
    let mut out = vec![false; events.len()];
    // Per thread: its events since its current round began, and its previous failed round of
    // loads when nothing of the thread came after it but the current round.
    let mut cur: Vec<Vec<usize>> = vec![Vec::new(); threads];
    let mut prev: Vec<Option<Vec<usize>>> = vec![None; threads];
    // Whether `e` publishes to `cell` a value other than `v`.
    let changes = |e: &TraceEvent, cell: u32, v: i64| match e.kind {
        EventKind::Flush { cell: c, value, .. } => c == cell && value != v,
        EventKind::Store { cell: c, value } => c == cell && value != v && model == Model::Sc,
        EventKind::Rmw { cell: c, write, .. } => c == cell && write.is_some_and(|w| w != v),
        _ => false,
    };
    let repeats = |a: &[usize], b: &[usize]| {
        a.len() == b.len()
            && a.iter().zip(b).all(|(&i, &j)| {
                let (x, y) = (&events[i], &events[j]);
                let EventKind::Load { cell, value } = x.kind else {
                    return false;
                };
                x.kind == y.kind
                    && x.pc == y.pc
                    && !events[i + 1..j].iter().any(|e| changes(e, cell, value))
            })
    };
    for (i, e) in events.iter().enumerate() {
        if matches!(e.kind, EventKind::Flush { .. }) || e.thread >= threads || e.pending {
            continue;
        }
        let t = e.thread;
        cur[t].push(i);
        let load = matches!(e.kind, EventKind::Load { .. });
        if e.failed_check {
            let round = std::mem::take(&mut cur[t]);
            if !round
                .iter()
                .all(|&j| matches!(events[j].kind, EventKind::Load { .. }))
            {
                prev[t] = None;
            } else if prev[t].as_deref().is_some_and(|p| repeats(p, &round)) {
                // The previous round stays the one this thread repeats.
                round.into_iter().for_each(|j| out[j] = true);
            } else {
                prev[t] = Some(round);
            }
        } else if e.round_start || !load {
            cur[t].clear();
            prev[t] = None;
        }
    }
    out
}

/// A hash of an execution's causal state (see [`McrStats::causal_states`]): its trace events per
/// thread, without flushes and pending locks, and the state it ended in. Each thread's events
/// are hashed on their own and the execution's hash combines the threads' hashes, so that
/// [`CausalHasher`] can keep a thread's hash up to date as its trace grows.
///
/// [`McrStats::causal_states`]: super::McrStats::causal_states
pub(super) fn causal_hash(events: &[TraceEvent], end: &State) -> u64 {
    let threads = events.iter().map(|e| e.thread + 1).max().unwrap_or(0);
    let mut hs = vec![rustc_hash::FxHasher::default(); threads];
    for e in events {
        if !e.pending && !matches!(e.kind, EventKind::Flush { .. }) {
            e.kind.hash(&mut hs[e.thread]);
        }
    }
    combine(hs.into_iter().map(thread_hash), end)
}

/// A thread's hash from its events' hasher.
fn thread_hash(mut h: rustc_hash::FxHasher) -> u64 {
    u32::MAX.hash(&mut h);
    h.finish()
}

/// An execution's causal hash from its threads' hashes and its end.
fn combine(threads: impl Iterator<Item = u64>, end: &State) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    for t in threads {
        h.write_u64(t);
    }
    end.mem.hash(&mut h);
    end.status().hash(&mut h);
    h.finish()
}

/// [`causal_hash`] of a growing trace without its failed `await` rounds
/// ([`drop_failed_rounds`]), kept up to date event by event: the default run asks it after
/// each step that has an ending beside it, and recomputing it from the whole trace each time
/// made a loop quadratic in its bound.
pub(super) struct CausalHasher {
    threads: Vec<ThreadHasher>,
    /// One more than the highest thread of an event so far (flushes included).
    seen: usize,
    /// How many of the trace's events were added.
    fed: usize,
    /// The events of threads beyond `threads`, in order.
    extra: Vec<(usize, EventKind)>,
}

/// One thread's part of a [`CausalHasher`], following [`drop_failed_rounds`].
#[derive(Clone, Default)]
struct ThreadHasher {
    /// The events that stay whatever comes next.
    kept: rustc_hash::FxHasher,
    /// The thread's events of its current round so far (from `begin` of
    /// [`drop_failed_rounds`]): they leave the trace if the round fails and is not the
    /// thread's last.
    round: Vec<EventKind>,
    /// A failed round that is the thread's last events so far, and whether it is all loads
    /// (then its next event drops it).
    failed: Option<(Vec<EventKind>, bool)>,
}

impl CausalHasher {
    /// An empty trace of `threads` threads (whether a thread starts in a round changes
    /// nothing: its round so far has no events either way). The trace has no pending locks.
    pub fn new(threads: usize) -> CausalHasher {
        CausalHasher {
            threads: vec![ThreadHasher::default(); threads],
            seen: 0,
            fed: 0,
            extra: Vec::new(),
        }
    }

    /// Adds the events of `evs` not added yet (`evs` extends the trace added so far).
    pub fn catch_up(&mut self, evs: &[TraceEvent]) {
        for e in &evs[self.fed.min(evs.len())..] {
            self.push(e);
        }
        self.fed = self.fed.max(evs.len());
    }

    fn push(&mut self, e: &TraceEvent) {
        self.seen = self.seen.max(e.thread + 1);
        let flush = matches!(e.kind, EventKind::Flush { .. });
        if flush || e.pending {
            return;
        }
        // `drop_failed_rounds` keeps every event of a thread it does not know.
        let Some(th) = self.threads.get_mut(e.thread) else {
            self.extra.push((e.thread, e.kind.clone()));
            return;
        };
        // A later event of the thread: its failed round is not its last.
        if let Some((round, all_loads)) = th.failed.take() {
            if !all_loads {
                round.iter().for_each(|k| k.hash(&mut th.kept));
            }
        }
        th.round.push(e.kind.clone());
        if e.failed_check {
            let round = std::mem::take(&mut th.round);
            let all_loads = round.iter().all(|k| matches!(k, EventKind::Load { .. }));
            th.failed = Some((round, all_loads));
        } else if e.round_start || !matches!(e.kind, EventKind::Load { .. }) {
            let ThreadHasher { kept, round, .. } = th;
            round.drain(..).for_each(|k| k.hash(kept));
        }
    }

    /// The causal hash of the trace so far ended in `end`.
    pub fn hash(&self, end: &State) -> u64 {
        let empty = ThreadHasher::default();
        let threads = (0..self.seen).map(|t| {
            let th = self.threads.get(t).unwrap_or(&empty);
            let mut h = th.kept.clone();
            if let Some((round, _)) = &th.failed {
                round.iter().for_each(|k| k.hash(&mut h));
            }
            th.round.iter().for_each(|k| k.hash(&mut h));
            for (_, k) in self.extra.iter().filter(|(u, _)| *u == t) {
                k.hash(&mut h);
            }
            thread_hash(h)
        });
        combine(threads, end)
    }
}

/// The trace of the execution that runs `choices` from the initial state and then, as the
/// explorer's default scheduler does, the first enabled choice until the end (for tests of what
/// is computed from traces).
#[cfg(test)]
pub(crate) fn trace_of(p: &Program, model: Model, choices: &[crate::semantics::Choice]) -> Trace {
    use crate::semantics::Status;
    let mut st = State::initial(p, model);
    let in_round: Vec<bool> = (0..st.threads.len())
        .map(|t| at_round_begin(p, &st, t))
        .collect();
    let mut evs: Vec<TraceEvent> = Vec::new();
    let mut stores = Stores::default();
    let mut k = 0;
    while st.is_running() {
        let c = match choices.get(k) {
            Some(&c) => c,
            None => match st.enabled(p).first() {
                Some(&c) => c,
                None => break,
            },
        };
        k += 1;
        let before = st.clone();
        let Some(ev) = st.try_step(p, c) else { break };
        if let Some(e) = observe(p, &ev, &before, &st, &stores) {
            stores.note(evs.len(), &e);
            evs.push(e);
        }
    }
    let end = if *st.status() == Status::Finished {
        End::Final
    } else {
        End::Cut
    };
    make_trace(p, model, &in_round, evs, end, 0).0
}

#[cfg(test)]
mod tests;
