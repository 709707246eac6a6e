//! The server's job queue: the order in which the process's one pool (`crate::jobs::Pool`)
//! runs jobs. At most `limit` tasks run at once (`litmus.maxJobs`, default one per core, the
//! pool's limit); the jobs that have started come first (a job's further models before a
//! waiting job), then the waiting jobs, the most recently started first (a job's id grows with
//! every edit, save or `litmus.verify` that starts one, so the newest is the document the user
//! touched last). A job is one or more tasks: a check's models, or one task (the axiomatic
//! check, the fence quick fix).
//!
//! Whoever cancels a job takes its tasks out ([`Queue::cancel`]): the main loop for a check,
//! [`run_one`] (within [`POLL`]) for the others; a task already running stops through its
//! job's `Control`.
//!
//! The pool keeps the process's worker budget (`Workers`, sized to `maxJobs`): every worker
//! holds one of its slots if one is free, and a check borrows the free ones for the `auto`
//! portfolio's parallel members (its control carries [`crate::jobs::Pool::workers`]). When
//! `maxJobs` changes, a budget of the new size replaces the old for the workers started from
//! then on. A worker started while a member has borrowed the slot it would take runs without
//! one (the queue, not the budget, decides when jobs run).

use std::collections::{BTreeMap, VecDeque};
use std::time::Duration;

use litmus_engine::Control;
use tokio::sync::oneshot;

use crate::jobs::{Schedule, Task};

/// How often a job waiting in [`run_one`] looks at its cancel flag.
pub const POLL: Duration = Duration::from_millis(20);

/// The pool every job of the server runs on.
pub type Pool = crate::jobs::Pool<Queue>;

/// A new pool with the default limit (the settings set the real one before each job).
pub fn pool() -> Pool {
    Pool::new(Queue::default(), default_limit(), "litmus-check")
}

/// The jobs' tasks not started yet.
#[derive(Default)]
pub struct Queue {
    /// Jobs that have started: their tasks left.
    started: BTreeMap<u64, VecDeque<Task>>,
    /// Jobs waiting for their first task to start: what to do when it does, and their tasks.
    waiting: BTreeMap<u64, (Task, VecDeque<Task>)>,
}

impl Schedule for Queue {
    fn next(&mut self) -> Option<Task> {
        if let Some(mut e) = self.started.last_entry() {
            let t = e.get_mut().pop_front();
            if e.get().is_empty() {
                e.remove();
            }
            if t.is_some() {
                return t;
            }
        }
        let (id, (on_start, mut tasks)) = self.waiting.pop_last()?;
        let first = tasks.pop_front()?;
        if !tasks.is_empty() {
            self.started.insert(id, tasks);
        }
        Some(Box::new(move || {
            on_start();
            first()
        }))
    }
}

impl Queue {
    /// Queues job `id`'s tasks; `on_start` runs on the worker before its first task.
    pub fn push(&mut self, id: u64, on_start: Task, tasks: Vec<Task>) {
        if !tasks.is_empty() {
            self.waiting.insert(id, (on_start, tasks.into()));
        }
    }

    /// Whether job `id` waits for its first task to start.
    pub fn is_waiting(&self, id: u64) -> bool {
        self.waiting.contains_key(&id)
    }

    /// Job ids waiting, newest first.
    pub fn waiting(&self) -> Vec<u64> {
        self.waiting.keys().rev().copied().collect()
    }

    /// Takes job `id`'s tasks not started out of the queue; returns how many.
    pub fn cancel(&mut self, id: u64) -> usize {
        let waiting = self.waiting.remove(&id).map_or(0, |(_, t)| t.len());
        waiting + self.started.remove(&id).map_or(0, |t| t.len())
    }
}

/// The default number of checks at once: one per core.
pub fn default_limit() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Runs `f` as job `id`, one task, once it has its place; `None` if `ctl` is cancelled while
/// it waits (or `f` panicked). `queued` runs (once) if the job has to wait. For the jobs whose
/// answer a handler awaits (the axiomatic check, the fence quick fix).
pub async fn run_one<R: Send + 'static>(
    pool: &Pool,
    id: u64,
    ctl: &Control,
    queued: impl std::future::Future<Output = ()>,
    f: impl FnOnce() -> R + Send + 'static,
) -> Option<R> {
    let (tx, mut rx) = oneshot::channel();
    let task: Task = Box::new(move || {
        let _ = tx.send(f());
    });
    let waits = pool.with(|q| {
        q.push(id, Box::new(|| {}), vec![task]);
        q.is_waiting(id)
    });
    if waits {
        queued.await;
    }
    loop {
        match tokio::time::timeout(POLL, &mut rx).await {
            Ok(r) => return r.ok(),
            Err(_) if ctl.is_cancelled() => {
                if pool.with(|q| q.cancel(id)) > 0 {
                    return None;
                }
                // Already running: it stops through `ctl`; its answer is the caller's to judge.
                return rx.await.ok();
            }
            Err(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    /// A job's task that says when it runs and waits for the test's go.
    fn task(id: u64, log: &mpsc::Sender<u64>, go: mpsc::Receiver<()>) -> Task {
        let log = log.clone();
        Box::new(move || {
            log.send(id).unwrap();
            let _ = go.recv();
        })
    }

    #[test]
    fn the_newest_waiting_job_runs_first_and_cancelled_ones_leave() {
        let pool = Pool::new(Queue::default(), 1, "test");
        let (log, ran) = mpsc::channel();
        let mut gos = Vec::new();
        let mut push = |id| {
            let (go, wait) = mpsc::channel();
            gos.push(go);
            pool.with(|q| q.push(id, Box::new(|| {}), vec![task(id, &log, wait)]));
        };
        push(1);
        assert_eq!(ran.recv().unwrap(), 1);
        push(2);
        push(3);
        assert_eq!(pool.with(|q| q.waiting()), [3, 2]);
        assert_eq!(pool.with(|q| q.cancel(3)), 1);
        push(4);
        assert_eq!(pool.with(|q| q.waiting()), [4, 2]);
        for go in &gos {
            let _ = go.send(());
        }
        assert_eq!(ran.recv().unwrap(), 4);
        assert_eq!(ran.recv().unwrap(), 2);
        assert!(pool.with(|q| q.waiting()).is_empty());
    }

    #[test]
    fn a_started_jobs_further_tasks_come_before_a_waiting_job() {
        let pool = Pool::new(Queue::default(), 1, "test");
        let (log, ran) = mpsc::channel();
        let (go, wait) = mpsc::channel();
        let (go2, wait2) = mpsc::channel();
        let (go3, wait3) = mpsc::channel();
        pool.with(|q| {
            let tasks = vec![task(1, &log, wait), task(11, &log, wait2)];
            q.push(1, Box::new(|| {}), tasks)
        });
        assert_eq!(ran.recv().unwrap(), 1);
        pool.with(|q| q.push(2, Box::new(|| {}), vec![task(2, &log, wait3)]));
        for g in [&go, &go2, &go3] {
            g.send(()).unwrap();
        }
        assert_eq!(ran.recv().unwrap(), 11);
        assert_eq!(ran.recv().unwrap(), 2);
    }
}
