//! A query's goal: the target's new value (Φ_state), the committed prefix kept, pending locks
//! left out, and for an RMW target the reads of its cell re-encoded with what it now writes.

use super::query::lt;
use super::{Encoder, Target};
use crate::ids::EventId;
use crate::mcr::trace::EventKind;
use z3::ast::Bool;

/// What a query asserts on top of the trace's base, and the reads whose base validity it
/// leaves out.
pub(super) struct Goal {
    pub goal: Vec<Bool>,
    /// Reads whose base validity is left out (the target, and reads re-encoded here).
    pub relaxed: Vec<usize>,
    /// An RMW target that writes another value than in the trace: `(event, write)`.
    pub over: Option<(usize, Option<i64>)>,
}

impl Encoder<'_> {
    /// The goal of the query `target` keeping the first `keep` events (at most the trace's);
    /// `None` when the target is not one of the trace (unsatisfiable).
    pub(super) fn goal(&self, target: &Target, keep: usize) -> Option<Goal> {
        let tr = self.trace;
        let mut goal: Vec<Bool> = Vec::new();
        // Reads whose base validity is left out (the target, and reads re-encoded here).
        let mut relaxed: Vec<usize> = Vec::new();
        // An RMW target that writes another value than in the trace (see below).
        let mut over: Option<(usize, Option<i64>)> = None;
        if target.event().is_some() {
            // The committed prefix stays in the prefix (in any order), with its values.
            for k in 0..keep {
                goal.push(self.o(k).le(self.bound()));
            }
        }
        // Pending locks stay out of the prefix unless one is the target.
        for (j, e) in tr.events.iter().enumerate() {
            if e.pending && target.event() != Some(EventId::new(j)) {
                goal.push(lt(self.bound(), self.o(j)));
            }
        }
        match *target {
            Target::Read {
                event,
                value,
                from,
                late,
            } => {
                let (event, from) = (event.index(), from.map(EventId::index));
                let (cell, _) = tr.events.get(event).and_then(|e| e.kind.read())?;
                if late {
                    let (first, need) = tr.late_needs(EventId::new(event), &self.rounds);
                    for p in need {
                        goal.push(lt(self.o(p.index()), self.o(first.index())));
                    }
                }
                goal.push(self.o(event).le(self.bound()));
                goal.push(self.value_is(event, cell, value));
                goal.push(self.reads_from(event, cell, from));
                // With a new value the target's thread may go elsewhere: from its first later
                // step that depends on the value, its steps are not part of the prefix.
                if let Some(stop) = self.stop_after(event) {
                    goal.push(lt(self.bound(), self.o(stop)));
                }
                // An RMW reading a new value may write something else (or nothing). Its operands
                // are fixed (they come from registers, which the prefix's reads fix), so what it
                // writes is known: the same as in the trace (a `cas` failing again, an `xchg`),
                // and then the trace's publish stays exact; or a different value (or none), and
                // then the reads of its cell are re-encoded with the RMW writing that (their
                // base validity, which has the trace's publish, is left out of the assumptions).
                // Forbidding every later read of the cell in the prefix instead loses states:
                // a `cas` failing on a new value with another thread's RMW after it reading what
                // was there before (`mcr_litmus::an_rmw_*`).
                let rmw = match tr.events[event].kind {
                    EventKind::Rmw { write, op, .. } => Some(op.map(|f| (f.write(value), write))),
                    _ => None,
                };
                if let Some(Some((new, old))) = rmw {
                    if new != old {
                        over = Some((event, new));
                        for (j, e) in tr.events.iter().enumerate() {
                            if j == event {
                                continue;
                            }
                            if let Some((c, v)) = e.kind.read().filter(|&(c, _)| c == cell) {
                                let valid = self.value_is_with(j, c, v, Some((event, new)));
                                goal.push(self.o(j).le(self.bound()).implies(&valid));
                                relaxed.push(j);
                            }
                        }
                    }
                } else if rmw.is_some() {
                    // The write function is unknown: no read of its cell in the prefix may come
                    // after it unless a later write intervenes.
                    let r = self.o(event);
                    let others: Vec<usize> = self
                        .publishes
                        .get(cell as usize)
                        .map(|p| p.iter().map(|&(p, _)| p).filter(|&p| p != event).collect())
                        .unwrap_or_default();
                    for (j, e) in tr.events.iter().enumerate() {
                        if j == event {
                            continue;
                        }
                        if e.kind.read().is_none_or(|(c, _)| c != cell) {
                            continue;
                        }
                        // A later read of the cell must read a later write.
                        let mut alts = vec![lt(self.o(j), r), lt(self.bound(), self.o(j))];
                        for &q in &others {
                            alts.push(Bool::and(&[lt(r, self.o(q)), lt(self.o(q), self.o(j))]));
                        }
                        goal.push(Bool::or(&alts));
                    }
                }
            }
            Target::Lock { event, after } => {
                let (event, after) = (event.index(), after.map(EventId::index));
                let EventKind::Lock { mutex } = tr.events[event].kind else {
                    return None;
                };
                let l = self.o(event);
                goal.push(l.le(self.bound()));
                let unlocks = tr
                    .events
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.kind == EventKind::Unlock { mutex })
                    .map(|(j, _)| j);
                match after {
                    None => goal.extend(unlocks.map(|u| lt(l, self.o(u)))),
                    Some(a) => {
                        goal.push(lt(self.o(a), l));
                        for u in unlocks.filter(|&u| u != a) {
                            goal.push(Bool::or(&[lt(self.o(u), self.o(a)), lt(l, self.o(u))]));
                        }
                    }
                }
            }
            Target::Final { cell, value } => {
                for o in &self.vars().ord {
                    goal.push(lt(o, self.bound()));
                }
                // The final values are read by an observer after every thread, one cell after
                // the other: earlier cells keep the value this trace gave them.
                for (c, pubs) in self.publishes.iter().enumerate().take(cell as usize) {
                    let cur = pubs.last().map(|&(_, v)| v).unwrap_or(tr.init[c]);
                    goal.push(self.mem_is(self.bound(), c as u32, cur, None));
                }
                goal.push(self.mem_is(self.bound(), cell, value, None));
            }
        }
        if let Target::Read { event, .. } = *target {
            relaxed.push(event.index());
        }
        Some(Goal {
            goal,
            relaxed,
            over,
        })
    }
}
