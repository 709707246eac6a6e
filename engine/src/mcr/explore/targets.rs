//! The two exceptions to "only new targets" (`docs/design/mcr.md`) that look at a trace and
//! its seed: a lock target that must precede an acquisition inside the committed prefix, and
//! the prefix's one new write when the seed's target is an RMW.

use super::super::encode::Target;
use super::super::seed::Seed;
use super::super::trace::{EventKind, Trace};
use crate::ids::EventId;

/// Whether `target`, a lock after the committed prefix (its first `min_event` events), must
/// take its mutex before another thread's acquisition inside the prefix: the acquisition right
/// after `after` (or the first, without one) is in the prefix. With the prefix kept such a
/// target is unsatisfiable whatever the reads, so it is solved without keeping it (as targets
/// with a source after the prefix are). The parent trace asked for the same lock order only
/// with its own values of the reads before the lock: `tests/regressions/mcr-lock-before-a-prefix-lock.litmus`
/// (P1 reads `y == 0` in the seed's run, P0's lock is in its prefix as the cone of P1's other
/// read, which reads P0's store of the initial value; the lock order where P1 locks first, and
/// P0's deadlock, came up in no run).
pub(super) fn precedes_prefix_lock(tr: &Trace, target: &Target, min_event: usize) -> bool {
    let Target::Lock { event, after } = *target else {
        return false;
    };
    let EventKind::Lock { mutex } = tr.events[event.index()].kind else {
        return false;
    };
    let thread = tr.events[event.index()].thread;
    let from = after.map_or(0, |a| a.index() + 1);
    tr.events[from.min(min_event)..min_event]
        .iter()
        .any(|e| e.kind == EventKind::Lock { mutex } && e.thread != thread && !e.pending)
}

/// The seed's target in its replayed trace `tr` when it is an RMW: the one write of the
/// committed prefix whose value is new (its read changed, so may its write; a failed `cas` may
/// now write). A prefix read is otherwise a target only with a source after the prefix, since
/// the parent trace asked for the prefix's other writes; with this one it could not, and
/// `tests/regressions/mcr-rand472.litmus` lost three final states (P0 reading the `cas`'s 2).
pub(super) fn rmw_target(seed: &Seed, tr: &Trace) -> Option<EventId> {
    let k = seed.target_at?;
    let (want, got) = (seed.expect.get(k)?, tr.events.get(k)?);
    (matches!(got.kind, EventKind::Rmw { .. }) && got.thread == want.thread)
        .then(|| EventId::new(k))
}
