//! DPOR's executions per Shasha-Snir (Mazurkiewicz) class under SC, against a brute force
//! (issue 39). Prints Markdown (committed in `docs/bench-engines.md`, section "DPOR's
//! executions per class").
//!
//! For each program, every maximal interleaving of the interpreter (`semantics::State::step`)
//! is enumerated by a plain depth-first search (no reduction, no state merging) and the
//! maximal traces are grouped into classes: two traces are equivalent when each thread has
//! the same events and every pair of conflicting events is in the same order. Conflicting:
//! two accesses to one cell of which one is a write, an RMW counting as a write (a failed
//! `cas` too), and two `lock`/`unlock` steps of one mutex (as Nidhugg treats pthread
//! mutexes). A trace is maximal as DPOR's executions are: a thread whose next step would
//! fault (a failed `assert` or `assume`, the loop bound) stops there and the others go on
//! (`docs/design/dpor.md#faults`), so a maximal trace ends when every thread has finished,
//! waits for good (a deadlock, an `await` nobody wakes) or is stopped at a fault.
//!
//! Then DPOR (`dpor::explore_leaves`, on the same lowered program, without the spin-loop
//! reduction the default engine applies) runs, the class of each of its executions is
//! computed the same way, and the table says: classes, DPOR executions (blocked ones
//! included, sleep-set-cut ones not), executions per class, and every class DPOR did not
//! visit (a soundness bug, printed with the program).
//!
//! Two equivalences are counted. *Exact*: the definition above. *Reduced*: a failed `cas`
//! is a read (it writes nothing; DPOR's dependence treats it so) and an `await` round that
//! read the same writes as the thread's next round of the same `await` is dropped (a
//! stutter: a change to another cell woke the thread and it re-read the same values; DPOR
//! does not order such a change before the round, `docs/design/dpor.md#await`). Misses of
//! the exact equivalence only are not soundness bugs: the two executions have the same
//! reads, writes and outcome.
//!
//! Run: `cargo bench -p litmus-engine --bench classes` (`CLASSES_SEEDS=N`, default 300
//! programs of `GenConfig::lock_order`; `CLASSES_CAP=N`, the most traces brute-forced per
//! program, default 200,000; `CLASSES_BOUND=N`, the loop bound, default 2;
//! `CLASSES_SHOW=NAME`: a trace of each class DPOR missed in the programs so named;
//! `CLASSES_PRINT=SEED`: only print that generated program; `CLASSES_ONLY=NAME`: only the
//! files so named; `CLASSES_DPOR_CAP=N`: DPOR stops after `N` executions, and a program over
//! the brute force's cap still runs DPOR, printing how many distinct classes its executions
//! are in, for programs whose classes are too many to enumerate; `CLASSES_COUNT=FILE`: only
//! count that file's classes under each model (`CLASSES_MODELS=sc,tso,pso`) without
//! enumerating traces, `classes/count.rs`, with failing `await` rounds as steps, without,
//! without and with stores of one value commuting, and value-aware).
//!
//! Every program the brute force enumerates is also counted by `classes/count.rs` under SC,
//! and a program whose count differs from its reduced classes is printed. They must agree on
//! programs without `await`; with one, the count's independence (both orders reach equal
//! states) tells apart executions that differ only in a thread's `await` flags (parked and
//! woken, or started again at once), which both equivalences of the brute force merge, so the
//! count is higher there.

#[path = "classes/count.rs"]
mod count;

use litmus_engine::ast::Test;
use litmus_engine::collect::Collector;
use litmus_engine::ir::{InstrKind, Program};
use litmus_engine::report::{Action, Model, ViolationKind};
use litmus_engine::semantics::{Choice, Event, State, Status};
use litmus_engine::testgen::{print, random_test_with, GenConfig};
use litmus_engine::{syntax, CheckOptions, Control, EngineKind};
use std::collections::{BTreeMap, HashSet};
use std::path::Path;

/// One event of a thread as far as its class is concerned: action, cell, mutex, value read
/// or written, value an RMW wrote, and for an access that only reads, how many writes of its
/// cell came before it.
type Ev = (
    Action,
    Option<u32>,
    Option<u32>,
    Option<i64>,
    Option<i64>,
    Option<usize>,
);
/// Per thread its events; per cell the order of its writes; per mutex the order of its
/// lock and unlock steps (writes and mutex steps named by thread and index in the thread).
type Key = (
    Vec<Vec<Ev>>,
    BTreeMap<u32, Vec<(usize, usize)>>,
    BTreeMap<u32, Vec<(usize, usize)>>,
);

/// An event of a trace and the pc of its instruction.
#[derive(Clone)]
struct Step {
    pc: u32,
    ev: Event,
}

fn faulted(s: &State) -> bool {
    match s.status() {
        Status::Violation { kind, .. } => *kind != ViolationKind::Deadlock,
        Status::Blocked { .. } => true,
        _ => false,
    }
}

/// What a maximal trace ends in: every cell's and register's value, and per thread whether
/// it finished, stopped at a fault (and which) or waits (and where).
type Outcome = (Vec<i64>, Vec<Vec<i64>>, Vec<(u8, u32, String)>);

fn outcome(p: &Program, s: &State) -> Outcome {
    let ends = (0..s.threads.len())
        .map(|t| {
            let pc = s.threads[t].awaiting.unwrap_or(s.threads[t].pc);
            if s.thread_done(p, t) {
                return (0, 0, String::new());
            }
            if s.is_enabled(p, Choice::Exec(t)) {
                let mut n = s.clone();
                n.step(p, Choice::Exec(t));
                if faulted(&n) {
                    return (1, pc, format!("{:?}", n.status()));
                }
            }
            (2, pc, String::new())
        })
        .collect();
    let regs = s.threads.iter().map(|t| t.regs.to_vec()).collect();
    (s.mem.clone(), regs, ends)
}

/// The `await` region (`retry..=check`) each pc of each thread lies in.
fn await_regions(p: &Program) -> Vec<Vec<Option<(u32, u32)>>> {
    p.threads
        .iter()
        .map(|t| {
            let mut r = vec![None; t.code.len()];
            for (c, ins) in t.code.iter().enumerate() {
                if let InstrKind::AwaitCheck { retry, .. } = ins.kind {
                    for slot in r.iter_mut().take(c + 1).skip(retry as usize) {
                        *slot = Some((retry, c as u32));
                    }
                }
            }
            r
        })
        .collect()
}

/// The trace without await stutters: per thread, an await round (its events in one await
/// region, up to where the region starts again) whose reads equal those of the thread's
/// next round of the same await is dropped.
fn drop_stutters(trace: &[Step], regions: &[Vec<Option<(u32, u32)>>]) -> Vec<Step> {
    // Per thread: rounds as lists of positions in `trace`.
    let mut keep = vec![true; trace.len()];
    for (t, region) in regions.iter().enumerate() {
        let mine: Vec<usize> = (0..trace.len())
            .filter(|&i| trace[i].ev.thread == t)
            .collect();
        // (region, positions) of consecutive rounds.
        let mut rounds: Vec<((u32, u32), Vec<usize>)> = Vec::new();
        let mut prev: Option<(Option<(u32, u32)>, u32)> = None;
        for &i in &mine {
            let pc = trace[i].pc;
            let reg = region.get(pc as usize).copied().flatten();
            match reg {
                Some(r) => {
                    let same_round = matches!(prev, Some((Some(q), ppc)) if q == r && pc > ppc);
                    if same_round {
                        rounds.last_mut().expect("a round").1.push(i);
                    } else {
                        rounds.push((r, vec![i]));
                    }
                }
                None => rounds.push(((u32::MAX, u32::MAX), vec![i])),
            }
            prev = Some((reg, pc));
        }
        let sig = |pos: &[usize]| -> Vec<(Option<u32>, Option<i64>, Option<_>)> {
            pos.iter()
                .map(|&i| (trace[i].ev.cell, trace[i].ev.value, trace[i].ev.read_from))
                .collect()
        };
        for w in rounds.windows(2) {
            let ((r1, a), (r2, b)) = (&w[0], &w[1]);
            if r1.0 != u32::MAX && r1 == r2 && sig(a) == sig(b) {
                for &i in a {
                    keep[i] = false;
                }
            }
        }
    }
    trace
        .iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(s, _)| s.clone())
        .collect()
}

/// A trace as text: `P1 Load x=1 (from P0's write 0)`, one step a line.
fn text(trace: &[Step]) -> String {
    trace
        .iter()
        .map(|s| {
            format!(
                "  P{} pc {} {:?} cell {:?} mutex {:?} value {:?} from {:?}\n",
                s.ev.thread, s.pc, s.ev.action, s.ev.cell, s.ev.mutex, s.ev.value, s.ev.read_from
            )
        })
        .collect()
}

/// The class of a trace; `failed_cas_writes`: a `cas` that wrote nothing still counts as a
/// write.
fn key(trace: &[Step], threads: usize, failed_cas_writes: bool) -> Key {
    let mut per: Vec<Vec<Ev>> = vec![Vec::new(); threads];
    let mut writes: BTreeMap<u32, Vec<(usize, usize)>> = BTreeMap::new();
    let mut mutexes: BTreeMap<u32, Vec<(usize, usize)>> = BTreeMap::new();
    for s in trace {
        let e = &s.ev;
        let t = e.thread;
        let idx = per[t].len();
        let is_write = match e.action {
            Action::Store => true,
            Action::Rmw => failed_cas_writes || e.write.is_some(),
            _ => false,
        };
        let mut before = None;
        if let Some(c) = e.cell {
            let ws = writes.entry(c).or_default();
            if is_write {
                ws.push((t, idx));
            } else {
                before = Some(ws.len());
            }
        }
        if let Some(m) = e.mutex {
            mutexes.entry(m).or_default().push((t, idx));
        }
        per[t].push((e.action, e.cell, e.mutex, e.value, e.stored, before));
    }
    (per, writes, mutexes)
}

#[derive(Default)]
struct Classes {
    exact: HashSet<Key>,
    reduced: HashSet<Key>,
    /// The outcome of each reduced class.
    outcomes: std::collections::HashMap<Key, Outcome>,
    /// With `CLASSES_SHOW`: one trace of each reduced class, as text.
    shown: std::collections::HashMap<Key, String>,
    show: bool,
}

impl Classes {
    fn add(&mut self, trace: &[Step], regions: &[Vec<Option<(u32, u32)>>], end: Outcome) {
        let n = regions.len();
        self.exact.insert(key(trace, n, true));
        let k = key(&drop_stutters(trace, regions), n, false);
        if self.show {
            self.shown.entry(k.clone()).or_insert_with(|| text(trace));
        }
        self.outcomes.entry(k.clone()).or_insert(end);
        self.reduced.insert(k);
    }
}

struct Brute<'p> {
    p: &'p Program,
    regions: Vec<Vec<Option<(u32, u32)>>>,
    classes: Classes,
    traces: u64,
    cap: u64,
}

impl Brute<'_> {
    /// Every maximal trace from `s` (reached by `path`); `stopped`: the threads stopped at a
    /// fault. `false` once over the cap.
    fn dfs(&mut self, s: &State, path: &mut Vec<Step>, stopped: u64) -> bool {
        let mut next = Vec::new();
        let mut stopped_here = stopped;
        if s.is_running() {
            for c in s.enabled(self.p) {
                let Choice::Exec(t) = c else {
                    unreachable!("SC has no buffers")
                };
                if stopped & (1 << t) != 0 {
                    continue;
                }
                let mut n = s.clone();
                let ev = n.step(self.p, c);
                if faulted(&n) {
                    stopped_here |= 1 << t;
                } else {
                    next.push((s.threads[t].pc, ev, n));
                }
            }
        }
        if next.is_empty() {
            self.traces += 1;
            if self.traces > self.cap {
                return false;
            }
            let end = outcome(self.p, s);
            self.classes.add(path, &self.regions, end);
            return true;
        }
        for (pc, ev, n) in next {
            path.push(Step { pc, ev });
            let ok = self.dfs(&n, path, stopped_here);
            path.pop();
            if !ok {
                return false;
            }
        }
        true
    }
}

/// The steps of `events` with their pcs, by replaying them (checks that they replay), and
/// the outcome.
fn replay(p: &Program, events: &[Event]) -> (Vec<Step>, Outcome) {
    let mut s = State::initial(p, Model::Sc);
    let steps = events
        .iter()
        .map(|e| {
            let pc = s.threads[e.thread].pc;
            let again = s.step(p, Choice::Exec(e.thread));
            assert_eq!(&again, e, "DPOR's execution does not replay");
            Step { pc, ev: again }
        })
        .collect();
    let end = outcome(p, &s);
    (steps, end)
}

struct Measured {
    name: String,
    traces: u64,
    exact: usize,
    reduced: usize,
    execs: u64,
    blocked: u64,
    sleep_cut: u64,
    missed_exact: usize,
    missed_reduced: usize,
    extra: usize,
    /// Outcomes of the brute force that no DPOR execution ends in.
    missed_outcomes: usize,
    /// The classes counted without enumerating traces (`count.rs`).
    counted: u128,
    /// The program has an `await`.
    awaits: bool,
}

fn measure(name: &str, t: &Test, p: &Program, cap: u64) -> Option<Measured> {
    let mut b = Brute {
        p,
        regions: await_regions(p),
        classes: Classes {
            show: std::env::var("CLASSES_SHOW").is_ok_and(|s| name.contains(&s)),
            ..Classes::default()
        },
        traces: 0,
        cap,
    };
    let brute_ok = b.dfs(&State::initial(p, Model::Sc), &mut Vec::new(), 0);
    let dpor_cap = std::env::var("CLASSES_DPOR_CAP")
        .ok()
        .and_then(|s| s.parse::<u64>().ok());
    if !brute_ok && dpor_cap.is_none() {
        return None;
    }
    let opts = CheckOptions {
        engine: EngineKind::Dpor.into(),
        loop_bound: p.loop_bound,
        ..CheckOptions::default()
    };
    let mut col = Collector::new(t, p, Model::Sc);
    let mut seen = Classes::default();
    let mut leaves = 0u64;
    let stats = litmus_engine::dpor::explore_leaves(
        p,
        Model::Sc,
        &opts,
        &Control::new(),
        &mut col,
        &mut |events| {
            leaves += 1;
            let (steps, end) = replay(p, events);
            seen.add(&steps, &b.regions, end);
            dpor_cap.is_some_and(|c| leaves >= c)
        },
    );
    assert_eq!(
        leaves, col.stats.executions,
        "{name}: leaves and executions"
    );
    if !brute_ok {
        eprintln!(
            "{name}: over {cap} traces; DPOR ran {leaves} executions ({}), in {} reduced classes",
            if col.complete { "complete" } else { "stopped" },
            seen.reduced.len()
        );
        return None;
    }
    let (counted, _, _) = count::classes(p, Model::Sc, true);
    if counted != b.classes.reduced.len() as u128 {
        eprintln!(
            "{name}: {counted} classes counted, {} reduced and {} exact classes enumerated",
            b.classes.reduced.len(),
            b.classes.exact.len()
        );
    }
    let missed = |all: &HashSet<Key>, got: &HashSet<Key>| all.difference(got).count();
    let dpor_ends: HashSet<&Outcome> = seen.outcomes.values().collect();
    let brute_ends: HashSet<&Outcome> = b.classes.outcomes.values().collect();
    let missed_outcomes = brute_ends.difference(&dpor_ends).count();
    if b.classes.show {
        for k in b.classes.reduced.difference(&seen.reduced) {
            eprintln!("{name}: missed class, e.g.\n{}", b.classes.shown[k]);
        }
    }
    Some(Measured {
        name: name.to_string(),
        traces: b.traces,
        exact: b.classes.exact.len(),
        reduced: b.classes.reduced.len(),
        execs: col.stats.executions,
        blocked: col.stats.blocked,
        sleep_cut: stats.sleep_blocked,
        missed_exact: missed(&b.classes.exact, &seen.exact),
        missed_reduced: missed(&b.classes.reduced, &seen.reduced),
        extra: seen.exact.difference(&b.classes.exact).count(),
        missed_outcomes,
        counted,
        awaits: b.regions.iter().flatten().any(Option::is_some),
    })
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|f: &std::path::PathBuf| f.extension().is_some_and(|x| x == "litmus"));
    v.sort();
    v
}

#[derive(Default)]
struct Sum {
    programs: u64,
    skipped: u64,
    traces: u64,
    exact: u64,
    reduced: u64,
    execs: u64,
    blocked: u64,
    sleep_cut: u64,
    missed_exact: u64,
    missed_reduced: u64,
    extra: u64,
    missed_outcomes: u64,
    /// Programs whose classes counted without enumeration differ from the reduced classes,
    /// and those of them without an `await`.
    count_differs: u64,
    count_differs_no_await: u64,
    /// (executions per reduced class, name) of every program.
    ratios: Vec<(f64, String, u64, usize)>,
    /// Programs where DPOR missed a class: name and source.
    misses: Vec<(String, String, usize, usize, usize)>,
}

impl Sum {
    fn add(&mut self, r: Measured, src: String) {
        self.programs += 1;
        self.traces += r.traces;
        self.exact += r.exact as u64;
        self.reduced += r.reduced as u64;
        self.execs += r.execs;
        self.blocked += r.blocked;
        self.sleep_cut += r.sleep_cut;
        self.missed_exact += r.missed_exact as u64;
        self.missed_reduced += r.missed_reduced as u64;
        self.extra += r.extra as u64;
        self.missed_outcomes += r.missed_outcomes as u64;
        self.count_differs += u64::from(r.counted != r.reduced as u128);
        self.count_differs_no_await += u64::from(r.counted != r.reduced as u128 && !r.awaits);
        if r.missed_exact + r.missed_reduced + r.missed_outcomes > 0 {
            self.misses.push((
                r.name.clone(),
                src,
                r.missed_exact,
                r.missed_reduced,
                r.missed_outcomes,
            ));
        }
        self.ratios.push((
            r.execs as f64 / r.reduced.max(1) as f64,
            r.name,
            r.execs,
            r.reduced,
        ));
    }

    fn row(&self, set: &str) {
        println!(
            "| {set} | {} | {} | {} | {} | {} | {} ({}) | {} | {:.3} | {:.3} | {} | {} | {} |",
            self.programs,
            self.skipped,
            self.traces,
            self.exact,
            self.reduced,
            self.execs,
            self.blocked,
            self.sleep_cut,
            self.execs as f64 / self.exact.max(1) as f64,
            self.execs as f64 / self.reduced.max(1) as f64,
            self.missed_exact,
            self.missed_reduced,
            self.missed_outcomes,
        );
    }
}

fn main() {
    let seeds = env("CLASSES_SEEDS", 300);
    let cap = env("CLASSES_CAP", 200_000);
    let bound = env("CLASSES_BOUND", 2) as u32;
    if let Ok(seed) = std::env::var("CLASSES_PRINT") {
        // The source of one generated program of the table.
        let seed = seed.parse().expect("CLASSES_PRINT=SEED");
        print!(
            "{}",
            print(&random_test_with(seed, GenConfig::lock_order()))
        );
        return;
    }
    if let Ok(file) = std::env::var("CLASSES_COUNT") {
        // Only count the classes of one file under each model, without enumerating traces.
        let src = std::fs::read_to_string(&file).expect("CLASSES_COUNT=FILE");
        let t = syntax::parse(&src).test.expect("a litmus test");
        let p = Program::lower(&t, bound).expect("lowers");
        println!("| model | failing `await` rounds | classes | (state, sleep set) pairs | steps | time |");
        println!("|---|---|---:|---:|---:|---:|");
        let models = std::env::var("CLASSES_MODELS").unwrap_or("sc,tso,pso".into());
        for model in [Model::Sc, Model::Tso, Model::Pso] {
            if !models.split(',').any(|m| m == model.key()) {
                continue;
            }
            for rounds in [true, false] {
                let start = std::time::Instant::now();
                let (n, nodes, steps) = count::classes(&p, model, rounds);
                println!(
                    "| {} | {} | {n} | {nodes} | {steps} | {:.1} s |",
                    model.label(),
                    if rounds { "steps" } else { "not run" },
                    start.elapsed().as_secs_f64()
                );
            }
            let start = std::time::Instant::now();
            let (n, nodes, steps) = count::same_value_write_classes(&p, model);
            println!(
                "| {} | not run, stores of one value commute | {n} | {nodes} | {steps} | {:.1} s |",
                model.label(),
                start.elapsed().as_secs_f64()
            );
            let start = std::time::Instant::now();
            let (n, nodes, steps) = count::value_classes(&p, model);
            println!(
                "| {} | not run, value-aware | {n} | {nodes} | {steps} | {:.1} s |",
                model.label(),
                start.elapsed().as_secs_f64()
            );
        }
        return;
    }
    let start = std::time::Instant::now();
    let mut sums: Vec<(String, Sum)> = Vec::new();

    let mut gen = Sum::default();
    for seed in 0..seeds {
        let t = random_test_with(seed, GenConfig::lock_order());
        let Ok(p) = Program::lower(&t, bound) else {
            gen.skipped += 1;
            continue;
        };
        match measure(&format!("lock_order seed {seed}"), &t, &p, cap) {
            Some(r) => gen.add(r, print(&t)),
            None => gen.skipped += 1,
        }
    }
    sums.push((format!("`GenConfig::lock_order`, seeds 0..{seeds}"), gen));

    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let only = std::env::var("CLASSES_ONLY").ok();
    for dir in ["examples", "tests/regressions"] {
        let mut s = Sum::default();
        for f in files(&root.join(dir)) {
            let named = |o: &str| {
                f.file_name()
                    .is_some_and(|n| n.to_string_lossy().contains(o))
            };
            if only.as_deref().is_some_and(|o| !named(o)) {
                continue;
            }
            let src = std::fs::read_to_string(&f).unwrap_or_default();
            let name = f.file_name().unwrap().to_string_lossy().to_string();
            let Some(t) = syntax::parse(&src).test else {
                s.skipped += 1;
                continue;
            };
            let Ok(p) = Program::lower(&t, bound) else {
                s.skipped += 1;
                continue;
            };
            match measure(&name, &t, &p, cap) {
                Some(r) => s.add(r, src),
                None => {
                    eprintln!("{name}: over {cap} traces, skipped");
                    s.skipped += 1
                }
            }
        }
        sums.push((format!("`{dir}/`"), s));
    }

    println!("Loop bound {bound}, SC, at most {cap} brute-force traces per program (programs over it are skipped).\n");
    println!("| set | programs | skipped | traces | classes (exact) | classes (reduced) | DPOR executions (blocked) | sleep-set cut | per exact class | per reduced class | missed (exact) | missed (reduced) | missed outcomes |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut all = Sum::default();
    for (name, s) in &sums {
        s.row(name);
        all.programs += s.programs;
        all.skipped += s.skipped;
        all.traces += s.traces;
        all.exact += s.exact;
        all.reduced += s.reduced;
        all.execs += s.execs;
        all.blocked += s.blocked;
        all.sleep_cut += s.sleep_cut;
        all.missed_exact += s.missed_exact;
        all.missed_reduced += s.missed_reduced;
        all.extra += s.extra;
        all.missed_outcomes += s.missed_outcomes;
    }
    all.row("all");
    let differs: u64 = sums.iter().map(|(_, s)| s.count_differs).sum();
    let no_await: u64 = sums.iter().map(|(_, s)| s.count_differs_no_await).sum();
    println!("\nPrograms whose classes counted without enumerating traces (`classes/count.rs`) differ from the reduced classes enumerated: {differs}; of them without an `await` (must be 0): {no_await}.");
    let extra: u64 = sums.iter().map(|(_, s)| s.extra).sum();
    println!("\nDPOR executions whose class the brute force does not have (must be 0): {extra}.");

    let mut ratios: Vec<_> = sums.iter().flat_map(|(_, s)| s.ratios.clone()).collect();
    let optimal = ratios.iter().filter(|r| r.2 as usize == r.3).count();
    println!(
        "\nPrograms where DPOR ran exactly one execution per reduced class: {optimal} of {}.\n",
        ratios.len()
    );
    ratios.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    println!("Worst programs (executions per reduced class):\n");
    println!("| program | DPOR executions | reduced classes | per class |");
    println!("|---|---:|---:|---:|");
    for (r, name, e, c) in ratios.iter().take(10) {
        println!("| {name} | {e} | {c} | {r:.2} |");
    }
    let misses: Vec<_> = sums.iter().flat_map(|(_, s)| s.misses.iter()).collect();
    let exact_only: Vec<&str> = misses
        .iter()
        .filter(|m| m.3 + m.4 == 0)
        .map(|m| m.0.as_str())
        .collect();
    println!(
        "\nPrograms where DPOR missed exact classes only (a failed `cas` or an await stutter apart): {} ({}).",
        exact_only.len(),
        exact_only.join(", ")
    );
    let real: Vec<_> = misses.iter().filter(|m| m.3 + m.4 > 0).collect();
    if real.is_empty() {
        println!("\nNo reduced class and no outcome that DPOR did not visit.");
    } else {
        println!("\nPrograms with reduced classes or outcomes DPOR did not visit:\n");
        for (name, src, e, r, o) in real {
            println!(
                "- {name}: {e} exact, {r} reduced classes, {o} outcomes missed\n\n```c\n{}\n```\n",
                src.trim_end()
            );
        }
    }
    eprintln!("{:.1} s", start.elapsed().as_secs_f64());
}
