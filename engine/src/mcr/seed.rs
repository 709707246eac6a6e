//! Seeds: the prefixes MCR replays, each the answer to a query on the trace of an earlier run,
//! and the check that a replay reproduced what the answer solved.

use super::encode::Target;
use super::trace::{EventKind, Trace, TraceEvent};
use crate::ids::EventId;
use crate::semantics::{Choice, State};

/// A seed interleaving and what its last step must observe.
pub(super) struct Seed {
    pub choices: Vec<Choice>,
    /// The events of the parent trace the choices are expected to reproduce.
    pub expect: Vec<TraceEvent>,
    /// The query it answers (`None`: the first seed, the empty prefix).
    pub target: Option<Target>,
    /// Targets of the resulting trace must be events at or after this index (or final values of
    /// cells at or after `min_cell`).
    pub min_event: usize,
    pub min_cell: u32,
    /// Position of the target event in `choices`.
    pub target_at: Option<usize>,
    /// The run whose trace the seed came from (`None`: the first seed).
    pub parent: Option<u32>,
}

impl Seed {
    /// The first seed: the empty prefix.
    pub fn initial() -> Seed {
        Seed {
            choices: Vec::new(),
            expect: Vec::new(),
            target: None,
            min_event: 0,
            min_cell: 0,
            target_at: None,
            parent: None,
        }
    }

    /// The seed of an answer to the query `target` on trace `tr` of run `run`: the trace's
    /// events `order`, run by `choices`.
    pub fn new(
        tr: &Trace,
        choices: Vec<Choice>,
        order: &[EventId],
        target: Target,
        run: u32,
    ) -> Seed {
        let expect = order.iter().map(|&i| tr.event(i).clone()).collect();
        let (min_event, min_cell) = match target {
            Target::Final { cell, .. } => (order.len(), cell + 1),
            _ => (order.len(), 0),
        };
        let target_at = target
            .event()
            .and_then(|e| order.iter().position(|&i| i == e));
        Seed {
            choices,
            expect,
            target: Some(target),
            min_event,
            min_cell,
            target_at,
            parent: Some(run),
        }
    }
}

pub(super) fn discriminant(k: &EventKind) -> (u8, Option<u32>) {
    match *k {
        EventKind::Local => (0, None),
        EventKind::Store { cell, .. } => (1, Some(cell)),
        EventKind::Flush { cell, .. } => (2, Some(cell)),
        EventKind::Load { cell, .. } => (3, Some(cell)),
        EventKind::Rmw { cell, .. } => (4, Some(cell)),
        EventKind::Fence => (5, None),
        EventKind::Lock { mutex } => (6, Some(mutex)),
        EventKind::Unlock { mutex } => (7, Some(mutex)),
    }
}

/// Whether the replayed prefix did what the seed asked: every read but the target kept its
/// trace value, and the target read its new value.
pub(super) fn seed_reached(seed: &Seed, evs: &[TraceEvent], st: &State) -> bool {
    if evs.len() != seed.expect.len() {
        return false;
    }
    for (k, (got, want)) in evs.iter().zip(&seed.expect).enumerate() {
        let is_target = Some(k) == seed.target_at;
        match (got.kind.read(), want.kind.read()) {
            (Some((_, g)), Some((_, w))) => {
                if is_target {
                    if let Some(Target::Read { value, .. }) = seed.target {
                        if g != value {
                            return false;
                        }
                    }
                } else if g != w {
                    return false;
                }
            }
            (None, None) => {}
            _ => return false,
        }
    }
    if let Some(Target::Final { cell, value }) = seed.target {
        if st.mem.get(cell as usize) != Some(&value) {
            return false;
        }
    }
    true
}

/// The interpreter choice that runs event `i` of a trace.
pub(super) fn choice_of(tr: &Trace, i: EventId) -> Choice {
    let e = tr.event(i);
    match e.kind {
        EventKind::Flush { cell, .. } => Choice::flush(tr.model, e.thread, cell),
        _ => Choice::Exec(e.thread),
    }
}
