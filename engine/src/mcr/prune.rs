//! Pruning and merging: the points (states with the steps that reached them) seeds and default
//! runs reach, and the runs that reached them first.
//!
//! A seed whose replayed prefix consists of the same per-thread steps (same values) and
//! flushes as an earlier seed's prefix, or as any point of an earlier execution's default run,
//! and ends in the same state, is dropped: the default continuation depends on the state only,
//! so it is the same, and the trace is a reordering of an explored one with the same maximal
//! causal model, whose committed prefix is not longer than the dropped seed's (so its queries
//! ask for at least as many new values). Likewise a default run that reaches a point an
//! earlier run passed, where that run's committed prefix is part of its own, stops there,
//! unreported: from there it is that run, so its execution has that run's causal state, and
//! that run's trace asked every query its own would.

use super::trace::{EventKind, TraceEvent};
use super::Tuning;
use crate::semantics::State;
use std::collections::hash_map::Entry;

/// Every point seen, with the run that first reached it, and the runs.
pub(super) struct Points {
    /// Each seen point, by its fingerprint, with the run that first reached it (an index into
    /// `runs`). A fingerprint, not the state: a TSO `while (1)` grows its store buffer by one
    /// entry per iteration, so whole states made the set quadratic in the loop bound.
    seen: rustc_hash::FxHashMap<Point, u32>,
    runs: Vec<Run>,
    ids: Steps,
    /// The points the current run recorded, each with the run it had before (undone if it
    /// merges).
    touched: Vec<(Point, Option<u32>)>,
    /// [`Tuning::prune_states`], [`Tuning::merge_runs`], and whether every point of a default
    /// run is recorded (`prune_states && prune_runs`).
    prune: bool,
    merge: bool,
    record_runs: bool,
}

impl Points {
    pub fn new(tuning: &Tuning) -> Points {
        Points {
            seen: Default::default(),
            runs: Vec::new(),
            ids: Steps::default(),
            touched: Vec::new(),
            prune: tuning.prune_states,
            merge: tuning.merge_runs,
            record_runs: tuning.prune_states && tuning.prune_runs,
        }
    }

    /// The canonical prefix of a replayed seed's events (empty when not pruning).
    pub fn canon(&mut self, evs: &[TraceEvent], threads: usize, cells: usize) -> Canon {
        if self.prune {
            Canon::of(evs, threads, cells, &mut self.ids)
        } else {
            Canon::new(0, 0)
        }
    }

    /// The index the next run gets.
    pub fn next_run(&self) -> u32 {
        self.runs.len() as u32
    }

    /// A seed's prefix ended at `st` (with `canon`): false when an earlier seed or run reached
    /// that point (the seed is pruned); else the point is recorded for the next run, which is
    /// started with `committed` as its committed prefix.
    pub fn start_run(
        &mut self,
        st: &State,
        canon: &Canon,
        min_cell: u32,
        parent: Option<u32>,
    ) -> bool {
        self.touched.clear();
        let run = self.next_run();
        if self.prune && st.is_running() {
            match self.seen.entry(point(st, canon)) {
                Entry::Occupied(_) => return false,
                Entry::Vacant(v) => {
                    if self.merge {
                        self.touched.push((*v.key(), None));
                    }
                    v.insert(run);
                }
            }
        }
        self.runs.push(Run {
            committed: canon.clone(),
            min_cell,
            seeded: false,
            parent,
        });
        true
    }

    /// A default run's step added event `e` to its prefix `canon`.
    pub fn push(&mut self, canon: &mut Canon, e: &TraceEvent) {
        if self.record_runs {
            canon.push(e, &mut self.ids);
        }
    }

    /// Run `run` passed the point `st` (with `canon`): records it; true when the run merges
    /// there into an ancestor that passed it first (see [`Tuning::merge_runs`]).
    pub fn pass(&mut self, st: &State, canon: &Canon, run: u32) -> bool {
        // Every point of the default run is a prefix later seeds may reach too: from there the
        // default continuation is this one (it depends on the state only).
        if !(self.record_runs && st.is_running()) {
            return false;
        }
        match self.seen.entry(point(st, canon)) {
            Entry::Vacant(v) => {
                if self.merge {
                    self.touched.push((*v.key(), None));
                }
                v.insert(run);
            }
            // From this point on, this run is that one (see `Tuning::merge_runs`).
            Entry::Occupied(mut o) if self.merge => {
                let (first, this) = (&self.runs[*o.get() as usize], &self.runs[run as usize]);
                if first.seeded
                    && first.within(this, &self.ids)
                    && is_ancestor(&self.runs, *o.get(), run)
                {
                    return true;
                }
                if !first.seeded || this.within(first, &self.ids) {
                    self.touched.push((*o.key(), Some(*o.get())));
                    o.insert(run);
                }
            }
            Entry::Occupied(_) => {}
        }
        false
    }

    /// A merged run is not analysed, so no seed may be dropped on its account: its points go
    /// back to the runs they had.
    pub fn undo(&mut self) {
        for (key, prev) in self.touched.drain(..).rev() {
            match prev {
                Some(r) => {
                    self.seen.insert(key, r);
                }
                None => {
                    self.seen.remove(&key);
                }
            }
        }
    }

    /// Run `run`'s trace was analysed for new seeds.
    pub fn seeded(&mut self, run: u32) {
        self.runs[run as usize].seeded = true;
    }
}

/// A trace prefix up to the order of its events: each thread's own steps in program order and,
/// per thread and cell, how many of its stores have been flushed (flushes are FIFO per thread
/// and cell, so the count says which). The maximal causal model of a trace depends only on this
/// (and on how the trace continues, which the state after the prefix determines). Each thread's
/// steps are an id in [`Steps`], so extending a prefix by one event costs one lookup: default
/// runs add every point they pass.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Canon {
    steps: Vec<u32>,
    /// Indexed by `thread * cells + cell`.
    flushed: Vec<u32>,
    cells: usize,
    /// Per mutex, the order in which threads acquired it, interned in [`Steps::locks`]: the
    /// steps and values alone do not say which critical section of a mutex came first.
    locks: Vec<u32>,
}

/// A point of an execution, its state and its steps (see the module's doc), as a 128-bit
/// fingerprint: 16 bytes per point whatever the size of the state (a store buffer grows with
/// every iteration of a loop that only stores). Two different points share a fingerprint with
/// probability about `n^2 / 2^129` for `n` points, far below any other cause of error.
type Point = u128;

/// The fingerprint of a point (SipHash-1-3 with fixed keys, so runs are deterministic).
fn point(st: &State, canon: &Canon) -> Point {
    use siphasher::sip128::{Hasher128, SipHasher13};
    use std::hash::Hash;
    let mut h = SipHasher13::new_with_keys(0x6c69_746d_7573_2d6d, 0x6372_2d70_6f69_6e74);
    st.hash(&mut h);
    canon.hash(&mut h);
    h.finish128().as_u128()
}

/// A default run: its committed prefix (its seed) and the first cell whose final value its
/// trace asks about.
struct Run {
    committed: Canon,
    min_cell: u32,
    /// Whether a trace of the run was analysed for new seeds (not one whose target round was
    /// retried, which seeds nothing). A run covers a later one that reaches a point it passed
    /// (it asked every query the later one would) when it was analysed and its committed prefix
    /// is [`Run::within`] the later one's.
    seeded: bool,
    /// The run whose trace the seed came from (`None`: the first run).
    parent: Option<u32>,
}

/// Whether run `a` is `b` or an ancestor of it (`b`'s seed came from `a`'s trace, or from a
/// trace of a run `a` is an ancestor of).
fn is_ancestor(runs: &[Run], a: u32, b: u32) -> bool {
    let mut r = Some(b);
    while let Some(x) = r {
        if x == a {
            return true;
        }
        r = runs[x as usize].parent;
    }
    false
}

impl Run {
    /// Whether this run's committed prefix is part of `other`'s, both being prefixes of the same
    /// point (so per thread, the shorter step sequence is a prefix of the longer one).
    fn within(&self, other: &Run, ids: &Steps) -> bool {
        let (a, b) = (&self.committed, &other.committed);
        self.min_cell <= other.min_cell
            && a.steps
                .iter()
                .zip(&b.steps)
                .all(|(&x, &y)| ids.len(x) <= ids.len(y))
            && a.flushed.iter().zip(&b.flushed).all(|(x, y)| x <= y)
    }
}

/// Interns step sequences: a sequence's id is that of its last step after its prefix's id (0 is
/// the empty sequence). Equal sequences get equal ids, exactly (keys are compared in full).
/// `lens[id - 1]` is the length of sequence `id`.
#[derive(Default)]
struct Steps {
    ids: rustc_hash::FxHashMap<(u32, TraceEvent), u32>,
    lens: Vec<u32>,
    /// Acquisition orders of a mutex: an order's id is that of its last thread after its
    /// prefix's id (0 is the empty order).
    locks: rustc_hash::FxHashMap<(u32, usize), u32>,
}

impl Steps {
    fn len(&self, id: u32) -> u32 {
        id.checked_sub(1)
            .and_then(|i| self.lens.get(i as usize))
            .copied()
            .unwrap_or(0)
    }
}

impl Canon {
    fn new(threads: usize, cells: usize) -> Canon {
        Canon {
            steps: vec![0; threads],
            flushed: vec![0; threads * cells],
            cells,
            locks: Vec::new(),
        }
    }

    fn of(evs: &[TraceEvent], threads: usize, cells: usize, ids: &mut Steps) -> Canon {
        let mut c = Canon::new(threads, cells);
        for e in evs {
            c.push(e, ids);
        }
        c
    }

    fn push(&mut self, e: &TraceEvent, ids: &mut Steps) {
        match e.kind {
            EventKind::Flush { cell, .. } => {
                if let Some(n) = self.flushed.get_mut(e.thread * self.cells + cell as usize) {
                    *n += 1;
                }
            }
            _ => {
                if let EventKind::Lock { mutex } = e.kind {
                    let m = mutex as usize;
                    if self.locks.len() <= m {
                        self.locks.resize(m + 1, 0);
                    }
                    let next = ids.locks.len() as u32 + 1;
                    let prev = self.locks[m];
                    self.locks[m] = *ids.locks.entry((prev, e.thread)).or_insert(next);
                }
                if let Some(id) = self.steps.get(e.thread).copied() {
                    let next = ids.ids.len() as u32 + 1;
                    let len = ids.len(id) + 1;
                    self.steps[e.thread] = *ids.ids.entry((id, e.clone())).or_insert_with(|| {
                        ids.lens.push(len);
                        next
                    });
                }
            }
        }
    }
}
