//! The run of `litmus check` over its files, streamed, on the process's job core
//! (`crate::jobs`): the pool's workers read, parse and check the files, and the main thread,
//! the run's one loop, consumes their events, prints each file's results in argument order as
//! soon as it and every file before it are done, then drops them.
//!
//! The schedule ([`Files`]) hands a free worker a check (a (file, model) pair, earliest file
//! first, so one heavy file's models run in parallel too), else the next file's load (read and
//! parse), else nothing (the worker ends; new work starts workers again, up to `-j`, each
//! holding a slot of the run's worker budget while it lives). A load sends the loop the file
//! and queues its models' checks; the check that finishes a file's last model renders the file
//! (its stderr diagnostics, its text or JSON entry: on the worker, so that the loop's thread
//! does little more than print) and sends those bytes (`Kind::Done`; a file with nothing to
//! check is rendered by its load, `Kind::Started`); its test and reports are dropped. The loop
//! keeps the bytes until the printer reaches the file. No file is loaded while the
//! results done ahead of the one the printer waits for hold [`AHEAD_BYTES`] or more, so memory
//! does not grow with the number of files, whatever their order of completion: at most `-j`
//! files are loaded and unchecked, and the rest is bytes of output.

use std::collections::{BTreeMap, VecDeque};
use std::io::Write as _;
use std::sync::{mpsc, Arc, Mutex};

use litmus_engine::robust::Robustness;
use litmus_engine::{Model, ModelReport};

use super::{diagnostics_text, err, json, load, out, Check, FileRun, ModelOut, Out, Run};
use crate::jobs::{self, Kind, Schedule, Task};

/// Output done ahead of the printer beyond which no further file is loaded.
const AHEAD_BYTES: usize = 8 << 20;
/// What each waiting result counts for beyond its bytes (its entry and allocation).
const ENTRY_BYTES: usize = 256;

/// What a worker sends the loop: a file loaded, a model's result (`None`: skipped after
/// Ctrl-C), or a task that panicked. The job id is the file's position in the run.
type Event = jobs::Event<Done, Option<Done>>;

type Pool = jobs::Pool<Files>;

/// What the run found, for the exit status.
#[derive(Default)]
pub struct Summary {
    /// Files unreadable or with an error diagnostic.
    pub bad: usize,
    /// A violation, or a program that is not robust.
    pub violation: bool,
    /// An incomplete exploration or robustness search, or a parse stopped early.
    pub incomplete: bool,
    /// C tests whose answer was judged against their `Result:` header, and those that disagree.
    pub judged: usize,
    pub disagree: usize,
}

/// A file's rendered results, waiting for the printer.
struct Done {
    stderr: String,
    stdout: String,
    bad: bool,
    violation: bool,
    incomplete: bool,
    /// C tests' answers against their `Result:` header: judged, disagreeing.
    judged: (usize, usize),
}

impl Done {
    fn weight(&self) -> usize {
        self.stderr.len() + self.stdout.len() + ENTRY_BYTES
    }
}

/// A file's models' results so far (`None`: not done, or skipped after Ctrl-C) and how many
/// are left, shared by its checks: the last one renders the file.
struct Open {
    outs: Vec<Option<ModelOut>>,
    left: usize,
}

/// The run's schedule: checks first, earliest file first, else the next file's load.
struct Files {
    run: Arc<Run>,
    positions: Arc<[usize]>,
    shard: Option<json::Shard>,
    tx: mpsc::Sender<Event>,
    /// The pool, for a load to queue its checks (taken out when the run ends).
    pool: Option<Pool>,
    /// The next file to load (index into `positions`).
    next: usize,
    /// Checks ready to run, earliest file first.
    ready: VecDeque<Task>,
    /// Bytes of results done and not yet printed.
    ahead: usize,
}

impl Schedule for Files {
    fn next(&mut self) -> Option<Task> {
        if let Some(t) = self.ready.pop_front() {
            return Some(t);
        }
        if self.next >= self.positions.len() || self.ahead >= AHEAD_BYTES {
            return None;
        }
        let fi = self.next;
        self.next += 1;
        let (run, positions, tx) = (self.run.clone(), self.positions.clone(), self.tx.clone());
        let shard = self.shard;
        let pool = self.pool.clone().expect("set while the run lasts");
        Some(Box::new(move || {
            load_task(&run, &positions, shard, fi, &tx, &pool)
        }))
    }
}

/// Reads and parses file `fi`, sends it to the loop, and queues its models' checks.
fn load_task(
    run: &Arc<Run>,
    positions: &[usize],
    shard: Option<json::Shard>,
    fi: usize,
    tx: &mpsc::Sender<Event>,
    pool: &Pool,
) {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let path = &run.args.files[positions[fi] - 1];
        // After Ctrl-C the rest is still read and parsed (as when every file was loaded before
        // the first check), for its diagnostics and its JSON entry, without a "parsing
        // stopped" warning for each; its models are skipped.
        let after_cancel = litmus_engine::Control::new();
        let ctl = if run.ctl.is_cancelled() {
            &after_cancel
        } else {
            &run.ctl
        };
        let mut f = load(path, ctl, &run.opts);
        run.plan(&mut f);
        Arc::new(f)
    }));
    let file = match r {
        Ok(f) => f,
        Err(e) => {
            let msg = crate::server::util::panic_message(&*e);
            let _ = tx.send(Event::new(fi as u64, Kind::Failed(None, msg)));
            return;
        }
    };
    let n = models_of(run, &file);
    // With `--shard`, each JSON entry names its place in the whole argument list.
    let index = shard.map(|_| positions[fi]);
    if n == 0 {
        let done = render(run, index, fi, &file, vec![]);
        let _ = tx.send(Event::new(fi as u64, Kind::Started(done)));
        return;
    }
    let open = Arc::new(Mutex::new(Open {
        outs: (0..n).map(|_| None).collect(),
        left: n,
    }));
    let checks = (0..n).map(|mi| check_task(run, index, fi, &file, &open, mi, tx));
    let checks: Vec<Task> = checks.collect();
    pool.with(|s| s.ready.extend(checks));
}

/// The task checking model `mi` of file `fi`; the file's last check renders it.
fn check_task(
    run: &Arc<Run>,
    index: Option<usize>,
    fi: usize,
    file: &Arc<FileRun>,
    open: &Arc<Mutex<Open>>,
    mi: usize,
    tx: &mpsc::Sender<Event>,
) -> Task {
    let (run, file, open, tx) = (run.clone(), file.clone(), open.clone(), tx.clone());
    Box::new(move || {
        // The loop reads only the job id of a model's event: an axiomatic model goes as SC.
        let model = match file.plan[mi] {
            Check::Op(m) => m,
            Check::Ax(_) => Model::Sc,
        };
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let o = run.model(&file, mi);
            let outs = {
                let mut f = open.lock().unwrap_or_else(|e| e.into_inner());
                f.outs[mi] = o;
                f.left -= 1;
                (f.left == 0).then(|| std::mem::take(&mut f.outs))
            };
            outs.map(|outs| render(&run, index, fi, &file, outs))
        }));
        let kind = match r {
            Ok(done) => Kind::Done(model, done),
            Err(e) => Kind::Failed(Some(model), crate::server::util::panic_message(&*e)),
        };
        let _ = tx.send(Event::new(fi as u64, kind));
    })
}

/// How many models a loaded file has to check (none when it cannot be checked).
fn models_of(_run: &Run, f: &FileRun) -> usize {
    if f.test.is_some() && f.index.is_some() {
        f.plan.len()
    } else {
        0
    }
}

/// Checks the files at `positions` (1-based in the argument list) with up to `-j` workers,
/// prints every result in argument order (text, or the JSON document), and returns what was
/// found.
pub fn run(run: Arc<Run>, positions: &[usize], shard: Option<json::Shard>) -> Summary {
    let (tx, rx) = mpsc::channel::<Event>();
    let json = run.args.json;
    if json {
        out(&json::open(shard, positions.is_empty()));
    }
    let positions: Arc<[usize]> = positions.into();
    let files = Files {
        run: run.clone(),
        positions: positions.clone(),
        shard,
        tx,
        pool: None,
        next: 0,
        ready: VecDeque::new(),
        ahead: 0,
    };
    // The workers take their slots from the run's budget (`-j`), which every check's control
    // carries too: the slots no worker holds (fewer checks than `-j`, the run's tail) are free
    // for the `auto` portfolio's parallel members.
    let budget = run
        .ctl
        .workers()
        .unwrap_or_else(|| litmus_engine::Workers::new(1));
    let pool = Pool::with_budget(files, budget, "litmus-check");
    let p = pool.clone();
    pool.with(|s| s.pool = Some(p));

    let mut sum = Summary::default();
    let mut waiting: BTreeMap<usize, Done> = BTreeMap::new();
    let mut head = 0;
    while head < positions.len() {
        // The schedule keeps a sender while the pool lives: `recv` fails only if it is gone.
        let Ok(e) = rx.recv() else { break };
        let fi = e.job as usize;
        let rendered = match e.kind {
            Kind::Started(d) => Some(d),
            Kind::Done(_, d) => d,
            Kind::Failed(..) => break,
            Kind::Begun(_) | Kind::Progress(..) | Kind::Found(..) => None,
        };
        let Some(d) = rendered else { continue };
        let added = d.weight();
        waiting.insert(fi, d);
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
            sum.judged += d.judged.0;
            sum.disagree += d.judged.1;
            freed += d.weight();
            head += 1;
        }
        // Printing frees room: workers start on the next files.
        pool.with(|s| s.ahead = s.ahead + added - freed);
    }
    pool.with(|s| s.pool = None);
    if head < positions.len() {
        // A task panicked: say so rather than print a truncated document as complete.
        err("litmus: internal error: a worker stopped; the results are incomplete");
        std::process::exit(super::exit::BAD_INPUT);
    }
    if json && !positions.is_empty() {
        out(json::close());
    }
    sum
}

/// Renders a file whose models are all done, for the printer (`index`: its place in the
/// whole argument list, with `--shard`).
fn render(
    run: &Run,
    index: Option<usize>,
    fi: usize,
    f: &FileRun,
    outs: Vec<Option<ModelOut>>,
) -> Done {
    // An axiomatic model's refusal is an error of the file, with its diagnostics.
    let refusals: Vec<litmus_engine::Diagnostic> = outs
        .iter()
        .flatten()
        .filter_map(|o| match &o.out {
            Out::Ax(a) => a.error(),
            Out::Op { .. } => None,
        })
        .collect();
    let mut d = Done {
        stderr: String::new(),
        stdout: String::new(),
        bad: f.has_errors() || !refusals.is_empty(),
        violation: outs.iter().flatten().any(ModelOut::violation),
        incomplete: f.parse_stopped.is_some() || outs.iter().flatten().any(ModelOut::incomplete),
        judged: (0, 0),
    };
    for o in outs.iter().flatten() {
        if let Out::Ax(a) = &o.out {
            if let Some(agrees) = a.judged() {
                d.judged.0 += 1;
                d.judged.1 += usize::from(!agrees);
            }
        }
    }
    let all_diags: Vec<litmus_engine::Diagnostic>;
    let diags = if refusals.is_empty() {
        &f.diagnostics
    } else {
        all_diags = f.diagnostics.iter().cloned().chain(refusals).collect();
        &all_diags
    };
    if run.args.json {
        let mut reports: Vec<ModelReport> = vec![];
        let mut robust: Vec<(Model, Robustness)> = vec![];
        let mut unbounded: Vec<(Model, litmus_engine::unbounded::Unbounded)> = vec![];
        let mut axs = vec![];
        for o in outs.into_iter().flatten() {
            match o.out {
                Out::Op {
                    report,
                    robust: rb,
                    unbounded: u,
                } => {
                    if let Some(r) = rb {
                        robust.push((report.model, r));
                    }
                    if let Some(u) = u {
                        unbounded.push((report.model, u));
                    }
                    reports.push(report);
                }
                Out::Ax(a) => axs.push(a),
            }
        }
        let axiomatic: Vec<_> = axs.iter().filter_map(|a| a.json()).collect();
        let input = json::Input {
            diagnostics: diags,
            ..f.json_input()
        };
        d.stdout = json::entry(fi, &input, &reports, &robust, &unbounded, &axiomatic, index);
    } else {
        d.stderr = diagnostics_text(f, diags, run.color_err);
        d.stdout = run.file_text(fi, f, &outs);
    }
    d
}
