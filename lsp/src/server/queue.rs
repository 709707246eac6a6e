//! The job queue: at most `limit` checks run at once (`litmus.maxJobs`, default one per core);
//! the others wait, the most recently started first (a job's id grows with every edit, save or
//! `litmus.verify` that starts one, so the newest is the document the user touched last).
//!
//! A waiting job holds a place; [`Queue::acquire`] resolves once the job may run, and the
//! returned [`Slot`] frees the place when dropped. A job cancelled while it waits leaves the
//! queue (its waiter sees the cancellation within [`POLL`]).
//!
//! The queue also keeps the process's worker budget ([`Workers`], sized to `maxJobs`): every
//! place a job holds carries one of its slots, and a check borrows the free ones for the
//! `auto` portfolio's parallel members (through its control, [`Queue::workers`]). When
//! `maxJobs` changes, a new budget of the new size replaces the old for the places given out
//! from then on. A place granted while a member has borrowed the slot it would carry runs
//! without one (the queue, not the budget, decides when jobs run).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use litmus_engine::{Control, WorkerSlot, Workers};
use tokio::sync::oneshot;

/// How often a waiting job looks at its cancel flag.
pub const POLL: Duration = Duration::from_millis(20);

#[derive(Default)]
struct State {
    running: usize,
    waiting: BTreeMap<u64, oneshot::Sender<()>>,
    /// The worker budget and its size (`None` until the first job asks).
    workers: Option<(usize, Workers)>,
}

impl State {
    /// The budget of `limit` slots (a new one if the limit changed).
    fn workers(&mut self, limit: usize) -> &Workers {
        let limit = limit.max(1);
        if self.workers.as_ref().is_none_or(|(n, _)| *n != limit) {
            self.workers = Some((limit, Workers::new(limit)));
        }
        &self.workers.as_ref().expect("set above").1
    }
}

/// Shared by every document of the server.
#[derive(Clone, Default)]
pub struct Queue {
    state: Arc<Mutex<State>>,
}

/// A running job's place; dropping it lets the next waiting job run.
pub struct Slot {
    queue: Queue,
    /// The slot of the worker budget this place carries.
    worker: Option<WorkerSlot>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        // The worker slot first, so the job the place goes to can take it.
        drop(self.worker.take());
        let mut s = self.queue.lock();
        s.running = s.running.saturating_sub(1);
        // Hand the place on to the newest job still waiting (a waiter that gave up is skipped).
        while let Some((_, tx)) = s.waiting.pop_last() {
            if tx.send(()).is_ok() {
                s.running += 1;
                break;
            }
        }
    }
}

/// The default number of checks at once: one per core.
pub fn default_limit() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl Queue {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A place's handle, with a slot of the current worker budget (of `limit`) if one is free.
    fn slot(&self, s: &mut State, limit: usize) -> Slot {
        Slot {
            queue: self.clone(),
            worker: s.workers(limit).try_acquire(),
        }
    }

    /// The process's worker budget of `limit` slots, for a job's checks to borrow from.
    pub fn workers(&self, limit: usize) -> Workers {
        self.lock().workers(limit).clone()
    }

    /// Job ids waiting, newest first.
    pub fn waiting(&self) -> Vec<u64> {
        self.lock().waiting.keys().rev().copied().collect()
    }

    /// A place for job `id` if one is free now, else `Err` with the receiver to wait on.
    fn try_acquire(&self, id: u64, limit: usize) -> Result<Slot, oneshot::Receiver<()>> {
        let mut s = self.lock();
        if s.running < limit.max(1) && s.waiting.keys().all(|&w| w < id) {
            s.running += 1;
            return Ok(self.slot(&mut s, limit));
        }
        let (tx, rx) = oneshot::channel();
        s.waiting.insert(id, tx);
        Err(rx)
    }

    /// Waits for a place for job `id`; `None` if `ctl` is cancelled first. `queued` runs
    /// (once) if the job has to wait.
    pub async fn acquire(
        &self,
        id: u64,
        limit: usize,
        ctl: &Control,
        queued: impl std::future::Future<Output = ()>,
    ) -> Option<Slot> {
        let mut rx = match self.try_acquire(id, limit) {
            Ok(slot) => return Some(slot),
            Err(rx) => rx,
        };
        queued.await;
        loop {
            match tokio::time::timeout(POLL, &mut rx).await {
                Ok(Ok(())) => return Some(self.slot(&mut self.lock(), limit)),
                Ok(Err(_)) => return None,
                Err(_) if ctl.is_cancelled() => {
                    let mut s = self.lock();
                    s.waiting.remove(&id);
                    // Granted meanwhile: take the place and give it back at once.
                    if rx.try_recv().is_ok() {
                        drop(s);
                        drop(Slot {
                            queue: self.clone(),
                            worker: None,
                        });
                    }
                    return None;
                }
                Err(_) => {}
            }
        }
    }

    /// Up to `n` more places for a running job's other models, taken only if free now and no
    /// job waits (a waiting job always comes first).
    pub fn try_more(&self, limit: usize, n: usize) -> Vec<Slot> {
        let mut s = self.lock();
        let mut out = Vec::new();
        while out.len() < n && s.running < limit.max(1) && s.waiting.is_empty() {
            s.running += 1;
            let slot = self.slot(&mut s, limit);
            out.push(slot);
        }
        out
    }

    /// More places (the limit was raised): wakes waiting jobs up to `limit` running.
    pub fn refill(&self, limit: usize) {
        let mut s = self.lock();
        s.workers(limit);
        while s.running < limit.max(1) {
            let Some((_, tx)) = s.waiting.pop_last() else {
                break;
            };
            if tx.send(()).is_ok() {
                s.running += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_newest_waiting_job_runs_first_and_cancelled_ones_leave() {
        let q = Queue::default();
        let a = q.acquire(1, 1, &Control::new(), async {}).await.unwrap();
        let (c2, c3, c4) = (Control::new(), Control::new(), Control::new());
        let (q2, q3, q4) = (q.clone(), q.clone(), q.clone());
        let j2 = tokio::spawn(async move { q2.acquire(2, 1, &c2, async {}).await.is_some() });
        let j3 = tokio::spawn({
            let c3 = c3.clone();
            async move { q3.acquire(3, 1, &c3, async {}).await.is_some() }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(q.waiting(), [3, 2]);
        c3.cancel();
        assert!(!j3.await.unwrap());
        let j4 = tokio::spawn(async move {
            q4.acquire(4, 1, &c4, async {}).await.map(|s| {
                drop(s);
                4
            })
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(q.waiting(), [4, 2]);
        drop(a);
        assert_eq!(j4.await.unwrap(), Some(4));
        assert!(j2.await.unwrap());
        assert!(q.waiting().is_empty());
    }
}
