//! The search's moves: a thread's next event, a flush, under the rules of the memory model and
//! the pre-check's hints.

use super::layout::{DONE, FREE};
use super::{Query, NONE};
use crate::ids::EventId;
use crate::mcr::encode::Target;
use crate::mcr::trace::EventKind;

/// An event (or none) as the packed state words store it.
fn index(e: Option<EventId>) -> u32 {
    e.map_or(NONE, |e| e.index() as u32)
}

impl Query<'_, '_> {
    /// A publish of `value` to `cell` by event `i`.
    pub(super) fn publish(&self, n: &mut [u64], cell: u32, value: i64, i: u32) {
        n[cell as usize] = value as u64;
        if cell == self.tcell && matches!(self.target, Target::Read { .. }) {
            self.lay.set_src(n, i);
        }
    }

    /// Runs thread `t`'s next event from `node` into `n` (a copy of `node`), if the rules allow
    /// it and it keeps its value; the event.
    pub(super) fn exec(&self, node: &[u64], t: usize, n: &mut [u64]) -> Option<u32> {
        let sp = self.sp;
        let tr = sp.tr;
        let l = &self.lay;
        let i = *sp.thread_evs[t].get(l.pos(node, t) as usize)? as usize;
        // A read target's thread stops at its first later step that depends on the new value
        // (with it, it may go elsewhere); a lock target changes no value, so its thread goes on
        // as in the trace.
        if t == self.tthread && i as u32 >= self.tstop {
            return None;
        }
        let e = &tr.events[i];
        let is_target = self.tev == Some(i);
        if (e.pending && !is_target) || !self.allowed(node, i) {
            return None;
        }
        let drained = || {
            sp.drained[i]
                .iter()
                .all(|&(q, k)| l.flushed(node, q as usize) as u32 >= k)
        };
        if let Some((first, need)) = &self.late {
            if i == *first && !need.iter().all(|&j| self.ran(node, j as usize)) {
                return None;
            }
        }
        match e.kind {
            EventKind::Load { cell, value } => {
                let s = sp.own_store[i];
                let forwarded = s != NONE && {
                    let f = sp.flush_of[s as usize];
                    f == NONE
                        || (l.flushed(node, sp.queue_of[f as usize] as usize) as u32)
                            <= sp.store_rank[s as usize]
                };
                let got = if forwarded {
                    match tr.events[s as usize].kind {
                        EventKind::Store { value, .. } => value,
                        _ => return None,
                    }
                } else {
                    node[cell as usize] as i64
                };
                if is_target {
                    let Target::Read {
                        value: want, from, ..
                    } = *self.target
                    else {
                        return None;
                    };
                    if got != want {
                        return None;
                    }
                    let ok = match from {
                        Some(f) if tr.forwarded(Some(f)) => forwarded && s as usize == f.index(),
                        _ => !forwarded && l.src(node) == index(from),
                    };
                    if !ok {
                        return None;
                    }
                    n[l.misc] |= DONE;
                } else if got != value {
                    return None;
                }
            }
            EventKind::Store { cell, value } => {
                if tr.rules().store_publishes() {
                    self.publish(n, cell, value, i as u32);
                }
            }
            EventKind::Rmw {
                cell, read, write, ..
            } => {
                if !drained() {
                    return None;
                }
                let got = node[cell as usize] as i64;
                let write = if is_target {
                    let Target::Read {
                        value: want, from, ..
                    } = *self.target
                    else {
                        return None;
                    };
                    if got != want || l.src(node) != index(from) {
                        return None;
                    }
                    n[l.misc] |= DONE;
                    self.twrite?
                } else {
                    if got != read {
                        return None;
                    }
                    write
                };
                if let Some(w) = write {
                    self.publish(n, cell, w, i as u32);
                }
            }
            EventKind::Fence => {
                if !drained() {
                    return None;
                }
            }
            EventKind::Lock { mutex } => {
                if !drained() || l.owner(node, mutex as usize) != FREE {
                    return None;
                }
                if is_target {
                    let Target::Lock { after, .. } = *self.target else {
                        return None;
                    };
                    if l.unlock(node) != index(after) {
                        return None;
                    }
                    n[l.misc] |= DONE;
                }
                l.set_owner(n, mutex as usize, t as u64);
            }
            EventKind::Unlock { mutex } => {
                if !drained() || l.owner(node, mutex as usize) != t as u64 {
                    return None;
                }
                l.set_owner(n, mutex as usize, FREE);
                if mutex == self.tcell && matches!(self.target, Target::Lock { .. }) {
                    l.set_unlock(n, i as u32);
                }
            }
            EventKind::Flush { .. } | EventKind::Local => return None,
        }
        l.bump(n, t);
        Some(i as u32)
    }

    /// Runs the next flush of queue `q` from `node` into `n` (a copy of `node`), if its store was
    /// issued; the event.
    pub(super) fn flush(&self, node: &[u64], q: usize, n: &mut [u64]) -> Option<u32> {
        let sp = self.sp;
        let l = &self.lay;
        let i = *sp.queues[q].get(l.flushed(node, q) as usize)? as usize;
        let EventKind::Flush {
            cell,
            value,
            store: Some(store),
        } = sp.tr.events[i].kind
        else {
            return None;
        };
        let t = sp.tr.events[i].thread;
        if l.pos(node, t) as u32 <= sp.slot[store] || !self.allowed(node, i) {
            return None;
        }
        l.bump(n, l.threads + q);
        self.publish(n, cell, value, i as u32);
        Some(i as u32)
    }

    /// Whether the pre-check's hints let event `i` run in `n`.
    pub(super) fn allowed(&self, n: &[u64], i: usize) -> bool {
        match self.hints {
            None => true,
            Some(h) => !h.out[i] && h.after[i].iter().all(|&a| self.ran(n, a)),
        }
    }

    /// Whether event `j` ran in `n`.
    pub(super) fn ran(&self, n: &[u64], j: usize) -> bool {
        let sp = self.sp;
        match sp.tr.events[j].kind {
            EventKind::Flush { .. } => {
                self.lay.flushed(n, sp.queue_of[j] as usize) as u32 > sp.slot[j]
            }
            _ => self.lay.pos(n, sp.tr.events[j].thread) as u32 > sp.slot[j],
        }
    }
}
