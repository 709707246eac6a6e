//! The targets of a trace: every new value its reads, locks and final values can take.

use super::{Encoder, Target};
use crate::ids::EventId;
use crate::mcr::trace::{End, EventKind};
use std::collections::BTreeSet;

impl<'t> Encoder<'t> {
    /// Every new-value target of the trace, in a deterministic order.
    pub fn targets(&self) -> Vec<Target> {
        let tr = self.trace;
        let mut out = Vec::new();
        let failed_rounds: BTreeSet<u32> = tr
            .events
            .iter()
            .zip(&self.rounds)
            .filter(|(e, _)| e.failed_check)
            .filter_map(|(_, r)| *r)
            .collect();
        for (i, e) in tr.events.iter().enumerate() {
            let id = EventId::new(i);
            if let Some((cell, cur)) = e.kind.read() {
                let mut srcs: BTreeSet<(i64, Option<EventId>)> = BTreeSet::new();
                if let Some(&v) = tr.init.get(cell as usize) {
                    srcs.insert((v, None));
                }
                if let Some(p) = self.publishes.get(cell as usize) {
                    srcs.extend(
                        p.iter()
                            .filter(|&&(p, _)| p != i)
                            .map(|&(p, v)| (v, Some(EventId::new(p)))),
                    );
                }
                if let Some(s) = self.own_store[i] {
                    if let EventKind::Store { value, .. } = tr.events[s].kind {
                        srcs.insert((value, Some(EventId::new(s))));
                    }
                }
                // Late variants for `await` loads: with a new value, and for a round that failed
                // in this trace also with the same value (the round failing for good).
                let round = self.rounds.get(i).copied().flatten();
                let failed = round.is_some_and(|r| failed_rounds.contains(&r));
                // A round that already fails for good here (every publish it must follow is
                // before it) needs no late target with the value and source it has.
                let late_here = failed && {
                    let (first, need) = tr.late_needs(id, &self.rounds);
                    need.iter().all(|&p| p < first)
                };
                let repeats = late_here.then(|| self.trace_source(i).map(EventId::new));
                for (value, from) in srcs {
                    if value != cur {
                        out.push(Target::Read {
                            event: id,
                            value,
                            from,
                            late: false,
                        });
                    }
                    if round.is_some() && (value != cur || (failed && repeats != Some(from))) {
                        out.push(Target::Read {
                            event: id,
                            value,
                            from,
                            late: true,
                        });
                    }
                }
            }
            if let EventKind::Lock { mutex } = e.kind {
                let unlocks: Vec<usize> = tr
                    .events
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.kind == EventKind::Unlock { mutex })
                    .map(|(j, _)| j)
                    .collect();
                // A pending lock never acquired the mutex: every acquisition is new.
                let cur = if e.pending {
                    None
                } else {
                    unlocks.iter().copied().rfind(|&j| j < i)
                };
                if cur.is_some() || e.pending {
                    out.push(Target::Lock {
                        event: id,
                        after: None,
                    });
                }
                for &u in &unlocks {
                    let same_later = tr.events[u].thread == e.thread && u > i;
                    if Some(u) != cur && !same_later {
                        out.push(Target::Lock {
                            event: id,
                            after: Some(EventId::new(u)),
                        });
                    }
                }
            }
        }
        if tr.end == End::Final {
            for (cell, pubs) in self.publishes.iter().enumerate() {
                let cur = pubs.last().map(|&(_, v)| v).unwrap_or(tr.init[cell]);
                let mut vals: BTreeSet<i64> = pubs.iter().map(|&(_, v)| v).collect();
                vals.insert(tr.init[cell]);
                vals.remove(&cur);
                out.extend(vals.into_iter().map(|value| Target::Final {
                    cell: cell as u32,
                    value,
                }));
            }
        }
        out
    }
}
