//! The run of `litmus check` over its files, streamed: `jobs` workers read, parse and check
//! the files, and the main thread prints each file's results in argument order as soon as it
//! and every file before it are done, then drops them.
//!
//! Work is taken from one queue under a mutex: a worker first takes a check (a (file, model)
//! pair, earliest file first, so one heavy file's models run in parallel too), else loads the
//! next file (read and parse; its models become checks), else waits. A file whose models are
//! all done (or skipped after Ctrl-C) is rendered on the worker that finished it (its stderr
//! diagnostics, its text or JSON entry) and only those bytes wait for the printer; its test and
//! reports are dropped. No file is loaded while the results done ahead of the one the printer
//! waits for hold [`AHEAD_BYTES`] or more, so memory does not grow with the number of files,
//! whatever their order of completion: at most `jobs` files are loaded and unchecked, and the
//! rest is bytes of output.

use std::collections::{BTreeMap, VecDeque};
use std::io::Write as _;
use std::sync::{mpsc, Arc, Condvar, Mutex, MutexGuard};

use litmus_engine::robust::Robustness;
use litmus_engine::{Model, ModelReport};

use super::{diagnostics_text, err, json, load, out, FileRun, ModelOut, Run};

/// Output done ahead of the printer beyond which no further file is loaded.
const AHEAD_BYTES: usize = 8 << 20;
/// What each waiting result counts for beyond its bytes (its entry and allocation).
const ENTRY_BYTES: usize = 256;

/// What the run found, for the exit status.
#[derive(Default)]
pub struct Summary {
    /// Files unreadable or with an error diagnostic.
    pub bad: usize,
    /// A violation, or a program that is not robust.
    pub violation: bool,
    /// An incomplete exploration or robustness search, or a parse stopped early.
    pub incomplete: bool,
}

/// One loaded file and its models' results so far.
struct Slot {
    /// Position in this run's list (0-based).
    fi: usize,
    file: FileRun,
    /// Each model's result (None: not done, or skipped after Ctrl-C) and how many are left.
    outs: Mutex<(Vec<Option<ModelOut>>, usize)>,
}

/// A file's rendered results, waiting for the printer.
struct Done {
    fi: usize,
    stderr: String,
    stdout: String,
    bad: bool,
    violation: bool,
    incomplete: bool,
}

impl Done {
    fn weight(&self) -> usize {
        self.stderr.len() + self.stdout.len() + ENTRY_BYTES
    }
}

struct Queue {
    /// The next file to load (index into `positions`).
    next: usize,
    /// Checks ready to run, earliest file first.
    ready: VecDeque<(Arc<Slot>, usize)>,
    /// Files being loaded.
    loading: usize,
    /// Bytes of results done and not yet printed.
    ahead: usize,
}

struct Pool<'r, 'a> {
    run: &'r Run<'a>,
    positions: &'r [usize],
    shard: Option<json::Shard>,
    queue: Mutex<Queue>,
    wake: Condvar,
}

/// Checks the files at `positions` (1-based in the argument list) with `jobs` workers, prints
/// every result in argument order (text, or the JSON document), and returns what was found.
pub fn run(run: &Run, positions: &[usize], jobs: usize, shard: Option<json::Shard>) -> Summary {
    let (tx, rx) = mpsc::channel::<Done>();
    let pool = Pool {
        run,
        positions,
        shard,
        queue: Mutex::new(Queue {
            next: 0,
            ready: VecDeque::new(),
            loading: 0,
            ahead: 0,
        }),
        wake: Condvar::new(),
    };
    let json = run.args.json;
    if json {
        out(&json::open(shard, positions.is_empty()));
    }
    let mut sum = Summary::default();
    std::thread::scope(|s| {
        // Each worker holds a slot of the process's budget (`-j`) while it has work; all are
        // taken before any check starts, so no portfolio member borrows one a worker needs.
        let workers = run.ctl.workers();
        let slots: Vec<_> = (0..jobs)
            .map(|_| workers.as_ref().and_then(|w| w.try_acquire()))
            .collect();
        for slot in slots {
            let (pool, tx) = (&pool, tx.clone());
            s.spawn(move || pool.work(&tx, slot));
        }
        // The workers hold the only senders now: the loop below ends when the last returns.
        drop(tx);
        let mut waiting: BTreeMap<usize, Done> = BTreeMap::new();
        let mut head = 0;
        for d in rx {
            waiting.insert(d.fi, d);
            let mut freed = 0;
            while let Some(d) = waiting.remove(&head) {
                if !d.stderr.is_empty() {
                    let mut e = std::io::stderr().lock();
                    let _ = e.write_all(d.stderr.as_bytes()).and_then(|_| e.flush());
                }
                if !d.stdout.is_empty() {
                    out(&d.stdout);
                }
                sum.bad += d.bad as usize;
                sum.violation |= d.violation;
                sum.incomplete |= d.incomplete;
                freed += d.weight();
                head += 1;
            }
            if freed > 0 {
                pool.lock().ahead -= freed;
                pool.wake.notify_all();
            }
        }
        if head < positions.len() {
            // A worker panicked: say so rather than print a truncated document as complete.
            err("litmus: internal error: a worker stopped; the results are incomplete");
            std::process::exit(super::exit::BAD_INPUT);
        }
    });
    if json && !positions.is_empty() {
        out(json::close());
    }
    sum
}

impl Pool<'_, '_> {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// One worker: checks, else the next file's load, until nothing is left; then it gives
    /// its slot of the worker budget back (`_slot` is dropped on return).
    fn work(&self, tx: &mpsc::Sender<Done>, _slot: Option<litmus_engine::WorkerSlot>) {
        let mut q = self.lock();
        loop {
            if let Some((slot, mi)) = q.ready.pop_front() {
                drop(q);
                let o = self.run.model(&slot.file, mi);
                self.model_done(&slot, mi, o, tx);
                q = self.lock();
            } else if q.next < self.positions.len() && q.ahead < AHEAD_BYTES {
                let fi = q.next;
                q.next += 1;
                q.loading += 1;
                drop(q);
                let path = &self.run.args.files[self.positions[fi] - 1];
                // After Ctrl-C the rest is still read and parsed (as when every file was loaded
                // before the first check), for its diagnostics and its JSON entry, without a
                // "parsing stopped" warning for each; its models are skipped.
                let after_cancel = litmus_engine::Control::new();
                let ctl = if self.run.ctl.is_cancelled() {
                    &after_cancel
                } else {
                    self.run.ctl
                };
                let file = load(path, ctl, self.run.opts);
                let n = if file.test.is_some() && file.index.is_some() {
                    self.run.models.len()
                } else {
                    0
                };
                let slot = Arc::new(Slot {
                    fi,
                    file,
                    outs: Mutex::new(((0..n).map(|_| None).collect(), n)),
                });
                if n == 0 {
                    self.file_done(&slot, vec![], tx);
                }
                q = self.lock();
                q.loading -= 1;
                q.ready.extend((0..n).map(|mi| (slot.clone(), mi)));
                drop(slot);
                self.wake.notify_all();
            } else if q.next >= self.positions.len() && q.ready.is_empty() && q.loading == 0 {
                break;
            } else {
                q = self.wake.wait(q).unwrap_or_else(|p| p.into_inner());
            }
        }
        drop(q);
        self.wake.notify_all();
    }

    fn model_done(&self, slot: &Slot, mi: usize, o: Option<ModelOut>, tx: &mpsc::Sender<Done>) {
        let outs = {
            let mut g = slot.outs.lock().unwrap_or_else(|p| p.into_inner());
            g.0[mi] = o;
            g.1 -= 1;
            if g.1 > 0 {
                return;
            }
            std::mem::take(&mut g.0)
        };
        self.file_done(slot, outs, tx);
    }

    /// Renders a file whose models are all done and hands it to the printer.
    fn file_done(&self, slot: &Slot, outs: Vec<Option<ModelOut>>, tx: &mpsc::Sender<Done>) {
        let (run, f) = (self.run, &slot.file);
        let mut d = Done {
            fi: slot.fi,
            stderr: String::new(),
            stdout: String::new(),
            bad: f.has_errors(),
            violation: false,
            incomplete: f.parse_stopped.is_some(),
        };
        for o in outs.iter().flatten() {
            d.violation |= !o.report.violations.is_empty();
            d.incomplete |= !o.report.complete;
            if let Some(r) = &o.robust {
                d.violation |= !r.holds;
                d.incomplete |= !r.complete;
            }
        }
        if run.args.json {
            let mut reports: Vec<ModelReport> = vec![];
            let mut robust: Vec<(Model, Robustness)> = vec![];
            let mut unbounded: Vec<(Model, litmus_engine::unbounded::Unbounded)> = vec![];
            for (model, o) in run
                .models
                .iter()
                .zip(outs)
                .filter_map(|(m, o)| Some((m, o?)))
            {
                if let Some(r) = o.robust {
                    robust.push((*model, r));
                }
                if let Some(u) = o.unbounded {
                    unbounded.push((*model, u));
                }
                reports.push(o.report);
            }
            let index = self.shard.map(|_| self.positions[slot.fi]);
            d.stdout = json::entry(
                slot.fi,
                &f.json_input(),
                &reports,
                &robust,
                &unbounded,
                index,
            );
        } else {
            d.stderr = diagnostics_text(f, run.color_err);
            d.stdout = run.file_text(slot.fi, f, &outs);
        }
        let weight = d.weight();
        self.lock().ahead += weight;
        // The printer only stops receiving when the process exits.
        let _ = tx.send(d);
    }
}
