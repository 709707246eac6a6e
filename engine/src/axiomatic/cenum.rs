//! The candidates of a C test and the model's runs on them ([`super::ccheck::check_c_jobs`]),
//! on the caller's thread or on several workers, with the same report either way.
//!
//! The work is cut into *items* in the sequential order: per combination of thread paths
//! ([`for_each_combo`], its skeleton built once), a range of its reads-from choices (the rf
//! odometer's positions, thread 0's first read varying fastest); each item covers every
//! choice of final writes of its reads-from choices. An item's result ([`Part`]) holds its
//! counts, flags, states and its first witness and first forbidden execution. Parts are
//! merged in item order, never in the order they arrive, so the report is the sequential
//! one whatever the number of workers and whichever finishes first.
//!
//! The budget of model runs ([`super::ccheck::FULL_RUNS`] for a full count) and errors keep
//! their sequential meaning: a part ends at its first error, or where the runs made before
//! it in the sequential order (what is merged so far, a lower bound) and its own exceed the
//! budget; merging in order then finds the first of them exactly as one thread would (the
//! over-budget point when the runs before an error already exceed the budget, else the
//! error). Only the merging thread polls the caller's `stop`; workers poll a flag it sets.

use super::ccombos::for_each_combo;
use super::cexec::{c_candidate_env, c_skeleton, finals_coherent, values_grounded, CSkeleton};
use super::cthread::{CEvent, CPath};
use super::exec::odometer;
use super::tally::Tally;
use super::AxError;
use crate::ast::Quantifier;
use crate::cat::{Failure, Model};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// A candidate with what the model said of it.
#[derive(Clone, Debug, PartialEq)]
pub struct CExecution {
    pub events: Vec<CEvent>,
    pub rf: Vec<(usize, usize)>,
    /// The check that forbids it (`None`: allowed).
    pub failure: Option<Failure>,
    /// Its named sets and relations (`crate::cat::named_values`) from the model run again.
    pub values: Vec<(String, crate::cat::Named)>,
}

/// A final state's values as herd sorts them.
pub(super) type State = Vec<(u8, String, i64)>;

/// Per thread its chosen path's final registers, and the final memory.
pub(super) type Finals<'a> = (&'a [&'a BTreeMap<String, i64>], &'a BTreeMap<i64, i64>);

/// What every item reads: the paths, the model, and how the condition judges a candidate.
pub(super) struct Shared<'a> {
    /// Per location its address, initial value and whether it is observed.
    pub init: &'a [(i64, i64, bool)],
    pub all: &'a [Vec<CPath>],
    pub variants: &'a BTreeSet<String>,
    pub model: &'a Model,
    pub quantifier: Quantifier,
    /// Only the executions whose condition comes out `relevant` are examined.
    pub partial: bool,
    pub relevant: bool,
    /// The most model runs a full count makes (`None`: no bound).
    pub budget: Option<u64>,
    /// Whether the filter keeps the candidate.
    pub keep: &'a (dyn Fn(Finals) -> bool + Sync),
    /// Whether the condition holds.
    pub sat: &'a (dyn Fn(Finals) -> bool + Sync),
    /// The observed state.
    pub state: &'a (dyn Fn(Finals) -> State + Sync),
    /// The symbolic value (a read no write is known to write).
    pub symbolic: i64,
}

/// How an item (or the whole enumeration) ended.
pub(super) enum End {
    Done,
    /// The runs made before this point in the sequential order exceed the budget.
    Over,
    Failed(AxError),
}

/// What the model said of the candidates of an item (or, merged, of all of them).
pub(super) struct Part {
    pub candidates: u64,
    /// Model runs made (those pruned as a group not counted).
    pub made: u64,
    pub pruned: u64,
    pub tally: Tally<CExecution>,
    pub flags: BTreeSet<String>,
    pub states: BTreeSet<State>,
    pub end: End,
}

impl Part {
    fn new() -> Part {
        Part {
            candidates: 0,
            made: 0,
            pruned: 0,
            tally: Tally::new(),
            flags: BTreeSet::new(),
            states: BTreeSet::new(),
            end: End::Done,
        }
    }

    /// Adds the next item's part, in the sequential order; false once the enumeration has
    /// ended (over the budget, or an error).
    fn add(&mut self, p: Part, budget: Option<u64>) -> bool {
        let over = |made: u64| budget.is_some_and(|b| made > b);
        match p.end {
            End::Done => {
                self.candidates += p.candidates;
                self.made += p.made;
                self.pruned += p.pruned;
                self.tally.merge(p.tally);
                self.flags.extend(p.flags);
                self.states.extend(p.states);
                if over(self.made) {
                    self.end = End::Over;
                }
            }
            End::Over => self.end = End::Over,
            End::Failed(e) => {
                self.end = match over(self.made + p.made) {
                    true => End::Over,
                    false => End::Failed(e),
                }
            }
        }
        matches!(self.end, End::Done)
    }
}

/// One item: a combination of paths, its skeleton, and a range of its reads-from choices.
struct Item {
    choice: Vec<usize>,
    sk: Arc<CSkeleton>,
    from: u64,
    count: u64,
}

/// Reads-from choices per item when a combination's are cut among workers.
const CHUNK: u64 = 8;

/// Makes the items in the sequential order, each combination's reads-from choices cut in
/// ranges of [`CHUNK`] when `split`; stops when `emit` says false.
fn produce(sh: &Shared, split: bool, emit: &mut dyn FnMut(Item) -> bool) {
    let _ = for_each_combo(sh.init, sh.all, &mut |choice: &[usize]| {
        let chosen: Vec<&CPath> = sh.all.iter().zip(choice).map(|(p, c)| &p[*c]).collect();
        let Some(sk) = c_skeleton(sh.init, &chosen, sh.variants) else {
            return Ok(());
        };
        // the odometer's positions, when they fit in a number
        let total = sk
            .sources
            .iter()
            .try_fold(1u64, |n, (_, ws)| n.checked_mul(ws.len() as u64));
        let (total, step) = match total {
            Some(t) if split => (t, CHUNK),
            _ => (u64::MAX, u64::MAX),
        };
        let sk = Arc::new(sk);
        let mut from = 0;
        while from < total {
            let count = step.min(total - from);
            let item = Item {
                choice: choice.to_vec(),
                sk: sk.clone(),
                from,
                count,
            };
            if !emit(item) {
                return Err(());
            }
            from += count;
        }
        Ok(())
    });
}

/// The model's runs on an item's candidates. `before`: a lower bound of the runs made
/// before the item in the sequential order; `stop` is polled between candidates and between
/// a candidate's choices of a `with`.
fn run_item(sh: &Shared, it: &Item, before: &dyn Fn() -> u64, stop: &dyn Fn() -> bool) -> Part {
    let mut part = Part::new();
    if let Err(e) = candidates(sh, it, &mut part, before, stop) {
        part.end = e;
    }
    part
}

fn candidates(
    sh: &Shared,
    it: &Item,
    part: &mut Part,
    before: &dyn Fn() -> u64,
    stop: &dyn Fn() -> bool,
) -> Result<(), End> {
    let sk = &*it.sk;
    let tregs: Vec<&BTreeMap<String, i64>> = sh
        .all
        .iter()
        .zip(&it.choice)
        .map(|(p, c)| &p[*c].vars)
        .collect();
    // the odometer at position `from`
    let mut rc = vec![0usize; sk.sources.len()];
    let mut rest = it.from;
    for (d, (_, ws)) in rc.iter_mut().zip(&sk.sources) {
        let radix = ws.len() as u64;
        *d = (rest % radix) as usize;
        rest /= radix;
    }
    for _ in 0..it.count {
        let rf: Vec<(usize, usize)> = sk
            .sources
            .iter()
            .zip(&rc)
            .map(|((r, ws), c)| (ws[*c], *r))
            .collect();
        let mut fc = vec![0usize; sk.finals.len()];
        let grounded = values_grounded(sk, &rf, sh.symbolic);
        loop {
            if stop() {
                return Err(End::Failed(AxError::new("stopped")));
            }
            let fw: Vec<usize> = sk
                .finals
                .iter()
                .zip(&fc)
                .map(|((_, ws), c)| ws[*c])
                .collect();
            if grounded && finals_coherent(sk, &rf, &fw) {
                candidate(sh, sk, (&tregs, &rf, &fw), part, before, stop)?;
            }
            if !odometer(&mut fc, |i| sk.finals[i].1.len()) {
                break;
            }
        }
        if !odometer(&mut rc, |i| sk.sources[i].1.len()) {
            break;
        }
    }
    Ok(())
}

/// One candidate: the registers, the reads-from and the final writes.
type Cand<'a> = (
    &'a [&'a BTreeMap<String, i64>],
    &'a [(usize, usize)],
    &'a [usize],
);

fn candidate(
    sh: &Shared,
    sk: &CSkeleton,
    (tregs, rf, fw): Cand,
    part: &mut Part,
    before: &dyn Fn() -> u64,
    stop: &dyn Fn() -> bool,
) -> Result<(), End> {
    let mem: BTreeMap<i64, i64> = fw
        .iter()
        .map(|&f| (sk.events[f].addr, sk.events[f].write))
        .collect();
    let keep = (sh.keep)((tregs, &mem));
    let sat = (sh.sat)((tregs, &mem));
    if !keep || (sh.partial && sat != sh.relevant) {
        return Ok(());
    }
    part.candidates += 1;
    let env = c_candidate_env(sk, rf, fw);
    // the model asks `stop` between its choices: one candidate may have thousands
    let runs = match sh.model.outcomes(&env, stop) {
        Err(_) if stop() => return Err(End::Failed(AxError::new("stopped"))),
        r => r.map_err(|e| End::Failed(e.into()))?,
    };
    part.made += runs.len() as u64;
    if sh.budget.is_some_and(|b| before() + part.made > b) {
        return Err(End::Over);
    }
    let exe = |failure| CExecution {
        events: sk.events.clone(),
        rf: rf.to_vec(),
        failure,
        values: crate::cat::named_values(&{
            let mut e = env.clone();
            sh.model
                .run(&mut e)
                .map_or_else(|_| crate::cat::Env::new(0), |_| e)
        }),
    };
    for out in runs {
        part.pruned += out.pruned;
        if part.tally.run(out.failed, sat, sh.quantifier, &exe) {
            part.flags.extend(out.flags);
            part.states.insert((sh.state)((tregs, &mem)));
        }
    }
    Ok(())
}

/// Every candidate's runs, merged in the sequential order, on `jobs` workers (1: the
/// caller's thread alone).
pub(super) fn enumerate(sh: &Shared, jobs: usize, stop: &dyn Fn() -> bool) -> Part {
    let mut merged = Part::new();
    if jobs <= 1 {
        produce(sh, false, &mut |it| {
            let made = merged.made;
            let p = run_item(sh, &it, &|| made, stop);
            merged.add(p, sh.budget)
        });
        return merged;
    }
    parallel(sh, jobs, stop, &mut merged);
    merged
}

/// Items per worker that may be made ahead of the first one not merged yet.
const WINDOW: u64 = 64;

/// How often the merging thread polls `stop` while it waits for a part.
const POLL: Duration = Duration::from_millis(5);

fn parallel(sh: &Shared, jobs: usize, stop: &dyn Fn() -> bool, merged: &mut Part) {
    let abort = AtomicBool::new(false);
    // the runs made by the parts merged so far
    let made = AtomicU64::new(0);
    // room for the whole window: a producer that the system leaves waiting for a core still
    // has items made ahead for the workers
    let (item_tx, item_rx) = mpsc::sync_channel::<(u64, Item)>(WINDOW as usize * jobs);
    // taken (and so closed) on abort, which frees a producer waiting to send
    let items = Mutex::new(Some(item_rx));
    let (part_tx, part_rx) = mpsc::channel::<(u64, Part)>();
    // the first item not merged yet: the producer keeps within a window of it, so that the
    // parts waiting for a slow one to be merged stay few
    let merged_upto = (Mutex::new(0u64), Condvar::new());
    let window = WINDOW * jobs as u64;
    std::thread::scope(|s| {
        let (abort, made, items, upto) = (&abort, &made, &items, &merged_upto);
        s.spawn(move || {
            let mut n = 0;
            produce(sh, true, &mut |it| {
                let mut g = upto.0.lock().unwrap_or_else(|e| e.into_inner());
                while !abort.load(Ordering::Relaxed) && n >= *g + window {
                    g = upto.1.wait(g).unwrap_or_else(|e| e.into_inner());
                }
                drop(g);
                n += 1;
                !abort.load(Ordering::Relaxed) && item_tx.send((n - 1, it)).is_ok()
            });
        });
        for _ in 0..jobs {
            let tx = part_tx.clone();
            s.spawn(move || loop {
                if abort.load(Ordering::Relaxed) {
                    return;
                }
                let next = match &*items.lock().unwrap_or_else(|e| e.into_inner()) {
                    Some(rx) => rx.recv(),
                    None => return,
                };
                let Ok((i, it)) = next else { return };
                let p = run_item(sh, &it, &|| made.load(Ordering::Acquire), &|| {
                    abort.load(Ordering::Relaxed)
                });
                if tx.send((i, p)).is_err() {
                    return;
                }
            });
        }
        drop(part_tx);
        let mut pending = BTreeMap::new();
        let mut next = 0u64;
        loop {
            match part_rx.recv_timeout(POLL) {
                Ok((i, p)) => {
                    pending.insert(i, p);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            if stop() {
                merged.end = End::Failed(AxError::new("stopped"));
                break;
            }
            let mut open = true;
            while let Some(p) = pending.remove(&next) {
                next += 1;
                open = merged.add(p, sh.budget);
                made.store(merged.made, Ordering::Release);
                if !open {
                    break;
                }
            }
            if !open {
                break;
            }
            *upto.0.lock().unwrap_or_else(|e| e.into_inner()) = next;
            upto.1.notify_all();
        }
        abort.store(true, Ordering::Relaxed);
        drop(upto.0.lock().unwrap_or_else(|e| e.into_inner()));
        upto.1.notify_all();
        items.lock().unwrap_or_else(|e| e.into_inner()).take();
    });
}
