//! How MCR's loop counts and hands on the executions of a default run, and the traces it
//! derives from them (the run's end, or each ending beside it).

use super::*;

impl Explorer<'_> {
    /// Counts an execution that ended in `st`.
    pub(super) fn count(&mut self, st: &State) {
        self.stats.executions += 1;
        if matches!(st.status(), Status::Blocked { .. }) {
            self.stats.blocked += 1;
        }
    }

    /// Hands the executions of a default run to `sink`: the run's end `st`, or each of
    /// `endings`; returns their traces, each with how many of its first events are the seed's
    /// (`min_event` of the seed, less the failed rounds dropped).
    pub(super) fn report(
        &mut self,
        r: &Replayed,
        endings: Vec<(Event, State)>,
        min_event: usize,
        sink: Sink<'_>,
    ) -> Vec<(Trace, usize)> {
        let (p, model) = (self.p, self.model);
        let Replayed {
            st,
            in_round,
            events,
            evs,
            stores,
        } = r;
        let mut traces: Vec<(Trace, usize)> = Vec::new();
        if endings.is_empty() {
            self.count(st);
            sink(&Execution { events, state: st });
            let end = if *st.status() == Status::Finished {
                End::Final
            } else {
                End::Cut
            };
            let mut tev = evs.to_vec();
            if end == End::Cut {
                tev.extend(pending_locks(p, st, None));
            }
            let traced = make_trace(p, model, in_round, tev, end, min_event);
            self.causal.insert(causal_hash(&traced.0.events, st));
            traces.push(traced);
        } else {
            for (ev, s2) in &endings {
                self.count(s2);
                let mut all = events.to_vec();
                all.push(ev.clone());
                sink(&Execution {
                    events: &all,
                    state: s2,
                });
                // A deadlock follows an ordinary step, which stays in the trace; a fault is
                // the faulting step itself, which the model never schedules.
                let mut tev = evs.to_vec();
                let deadlock = matches!(
                    s2.status(),
                    Status::Violation {
                        kind: ViolationKind::Deadlock,
                        ..
                    }
                );
                if deadlock {
                    tev.extend(observe(p, ev, st, s2, stores));
                }
                // After a deadlock the thread that took the last step may itself wait for a
                // mutex (it stepped up to a lock held by another): its lock is pending like
                // any other. Only a faulting step's thread has no next step to add.
                let except = (!deadlock).then_some(ev.thread);
                tev.extend(pending_locks(p, s2, except));
                let traced = make_trace(p, model, in_round, tev, End::Cut, min_event);
                self.causal.insert(causal_hash(&traced.0.events, s2));
                traces.push(traced);
            }
        }
        traces
    }
}
