//! The one job core of the process, shared by `litmus check` (`cli/stream.rs`) and the language
//! server (`server/main_loop.rs`): one [`Pool`] of worker threads fed by the process's worker
//! budget, and one [`Event`] type that the workers send to the process's one loop.
//!
//! The shape is rust-analyzer's main loop: workers never touch what the user sees. They run
//! tasks and send events (a job started, a model's progress, a violation found while it still
//! explores, a model's result, a task that failed), each with its job's id, to one channel;
//! one loop per process consumes every event in order and owns the running jobs (the server's:
//! publishing, progress, cancellation; the CLI's: printing in argument order).
//!
//! The pool decides nothing about order: a [`Schedule`] (the server's job queue, newest job
//! first; the CLI's files, earliest first) hands a free worker its next task. The pool keeps at
//! most `limit` workers running (`-j`, `litmus.maxJobs`); each worker holds a slot of the budget
//! ([`Workers`]) while it lives, if one is free, and the `auto` portfolio of a check borrows
//! the slots left free. A worker takes tasks until the schedule has none, then ends; adding
//! work wakes the pool, which starts workers for it.

use std::sync::{Arc, Mutex, MutexGuard};

use litmus_engine::report::Violation;
use litmus_engine::{Model, Progress, WorkerSlot, Workers};

/// What a worker sends the loop: what happened to job `job`.
#[derive(Debug)]
pub struct Event<S, R> {
    pub job: u64,
    pub kind: Kind<S, R>,
}

/// What happened. `S` is what a job has once it starts (the CLI's loaded file; nothing in the
/// server), `R` a model's result.
#[derive(Debug)]
pub enum Kind<S, R> {
    /// The job has a worker: its first task begins.
    Started(S),
    /// A model's check has a worker and begins.
    Begun(Model),
    /// A model's check explores (sent now and then).
    Progress(Model, Progress),
    /// A violation found while the model's check still explores.
    Found(Model, Violation),
    /// A model's result (`R` says whether it ran: a task skipped after a cancel sends one too).
    Done(Model, R),
    /// A task panicked: the model's check, or (`None`) the job's other work.
    Failed(Option<Model>, String),
}

impl<S, R> Event<S, R> {
    pub fn new(job: u64, kind: Kind<S, R>) -> Self {
        Event { job, kind }
    }
}

/// A unit of work for a worker. It reports through events of its own; the pool only runs it.
pub type Task = Box<dyn FnOnce() + Send + 'static>;

/// The order in which work is handed out: the pool asks it, under the pool's lock, for a free
/// worker's next task.
pub trait Schedule: Send + 'static {
    /// The next task to run now, if any (a worker that gets none ends).
    fn next(&mut self) -> Option<Task>;
}

struct State<S> {
    schedule: S,
    /// At most this many workers at once.
    limit: usize,
    /// Workers alive.
    running: usize,
    /// The budget the workers take their slots from (a new one when the limit changes).
    workers: Workers,
}

/// The process's workers (cheap to clone).
pub struct Pool<S: Schedule> {
    state: Arc<Mutex<State<S>>>,
    name: &'static str,
}

impl<S: Schedule> Clone for Pool<S> {
    fn clone(&self) -> Self {
        Pool {
            state: self.state.clone(),
            name: self.name,
        }
    }
}

impl<S: Schedule> Pool<S> {
    /// A pool of at most `limit` workers (at least one) whose threads are called `name-N`,
    /// with its own budget of `limit` slots.
    pub fn new(schedule: S, limit: usize, name: &'static str) -> Self {
        let limit = limit.max(1);
        Self::with_budget(schedule, Workers::new(limit), name)
    }

    /// A pool sized to an existing budget (the CLI's `-j`, which its run's control carries).
    pub fn with_budget(schedule: S, workers: Workers, name: &'static str) -> Self {
        Pool {
            state: Arc::new(Mutex::new(State {
                schedule,
                limit: workers.total(),
                running: 0,
                workers,
            })),
            name,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<S>> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The budget every check's control carries, for the portfolio to borrow from.
    pub fn workers(&self) -> Workers {
        self.lock().workers.clone()
    }

    /// Workers alive now.
    #[cfg(test)]
    pub fn running(&self) -> usize {
        self.lock().running
    }

    /// A new limit (and a budget of that size for the workers started from now on).
    pub fn set_limit(&self, limit: usize) {
        let limit = limit.max(1);
        let mut st = self.lock();
        if st.limit != limit {
            st.limit = limit;
            st.workers = Workers::new(limit);
        }
        self.start_workers(st);
    }

    /// Reads or changes the schedule; then starts workers for whatever it has to run.
    pub fn with<T>(&self, f: impl FnOnce(&mut S) -> T) -> T {
        let mut st = self.lock();
        let t = f(&mut st.schedule);
        self.start_workers(st);
        t
    }

    /// Starts workers (up to the limit) while the schedule has tasks for them. Each takes its
    /// budget slot before any of them starts, so no check borrows one a new worker needs.
    fn start_workers(&self, mut st: MutexGuard<'_, State<S>>) {
        let mut start = Vec::new();
        while st.running < st.limit {
            let Some(task) = st.schedule.next() else {
                break;
            };
            st.running += 1;
            start.push((task, st.workers.try_acquire(), st.running));
        }
        let mut inline = Vec::new();
        for (task, slot, n) in start {
            // The task is handed over through a cell, so that it can still run if no thread
            // can be started.
            let cell = Arc::new(Mutex::new(Some(task)));
            let (pool, c) = (self.clone(), cell.clone());
            let spawned = std::thread::Builder::new()
                .name(format!("{}-{n}", self.name))
                .spawn(move || {
                    let first = c.lock().unwrap_or_else(|p| p.into_inner()).take();
                    pool.work(first, slot)
                });
            if spawned.is_err() {
                st.running -= 1;
                inline.extend(cell.lock().unwrap_or_else(|p| p.into_inner()).take());
            }
        }
        drop(st);
        // No thread could be started: the work is done here rather than lost.
        for t in inline {
            run(t);
            self.start_workers(self.lock());
        }
    }

    /// One worker: runs tasks until the schedule has none, holding its budget slot meanwhile.
    fn work(&self, first: Option<Task>, mut slot: Option<WorkerSlot>) {
        let mut task = first;
        loop {
            if let Some(t) = task.take() {
                run(t);
            }
            let mut st = self.lock();
            task = st.schedule.next();
            if task.is_none() {
                // The slot first, so a worker started for the next task can take it.
                drop(slot.take());
                st.running -= 1;
                return;
            }
        }
    }
}

/// Runs a task; a panic that it did not catch itself ends only the task, not its worker.
fn run(t: Task) {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(t));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;
    use std::sync::mpsc;

    struct Fifo(VecDeque<Task>);
    impl Schedule for Fifo {
        fn next(&mut self) -> Option<Task> {
            self.0.pop_front()
        }
    }

    #[test]
    fn at_most_limit_workers_hold_slots_and_every_task_runs() {
        let pool = Pool::new(Fifo(VecDeque::new()), 2, "test");
        let (tx, rx) = mpsc::channel();
        let (gate_tx, gate_rx) = mpsc::channel::<()>();
        let gate = Arc::new(Mutex::new(gate_rx));
        let workers = pool.workers();
        pool.with(|s| {
            for i in 0..5 {
                let (tx, gate, w) = (tx.clone(), gate.clone(), workers.clone());
                s.0.push_back(Box::new(move || {
                    // Each task waits for the test's go, so the workers are seen busy.
                    let _ = tx.send((i, w.in_use()));
                    let _ = gate.lock().unwrap().recv();
                }));
            }
        });
        let mut seen = Vec::new();
        for _ in 0..2 {
            seen.push(rx.recv().unwrap());
        }
        assert_eq!(pool.running(), 2, "two workers, no more");
        assert_eq!(workers.in_use(), 2, "each holds a slot");
        for _ in 0..5 {
            gate_tx.send(()).unwrap();
        }
        for _ in 2..5 {
            seen.push(rx.recv().unwrap());
        }
        let mut ids: Vec<_> = seen.iter().map(|s| s.0).collect();
        ids.sort();
        assert_eq!(ids, [0, 1, 2, 3, 4]);
        assert!(seen.iter().all(|s| s.1 <= 2));
    }

    #[test]
    fn a_panicking_task_leaves_the_worker_to_the_next() {
        let pool = Pool::new(Fifo(VecDeque::new()), 1, "test");
        let (tx, rx) = mpsc::channel();
        pool.with(|s| {
            s.0.push_back(Box::new(|| panic!("boom")));
            s.0.push_back(Box::new(move || tx.send(7).unwrap()));
        });
        assert_eq!(rx.recv().unwrap(), 7);
    }
}
