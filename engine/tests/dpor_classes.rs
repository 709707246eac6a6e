//! DPOR explores about one execution per Shasha-Snir class. On small random programs whose
//! every execution finishes (no fault, no await, no lock), all executions are enumerated by
//! brute force and grouped by their Shasha-Snir trace: each thread's events with the write
//! every read read from (program order and reads-from), and the order in which writes reached
//! memory per cell (coherence; from-reads follow from the two). DPOR must run at least one
//! execution per class (it must cover them all) and, being Source-DPOR with sleep sets (whose
//! cut executions are not counted), hardly more: 1.000 per class on these 608 program-models.
//! With awaits, locks, faults and deadlocks (issue 58's shape), where traces are too many to
//! enumerate, the classes are counted instead (`benches/classes/count.rs`).

use litmus_engine::collect::Collector;
use litmus_engine::ir::Program;
use litmus_engine::report::{Action, Model};
use litmus_engine::semantics::{State, Status, WriteId};
use litmus_engine::{testgen, CheckOptions, Control, EngineKind};
use std::collections::{BTreeMap, BTreeSet};

type ThreadEvent = (u32, String, Option<u32>, Option<i64>, Option<WriteId>);
type Class = (Vec<Vec<ThreadEvent>>, BTreeMap<u32, Vec<WriteId>>);

/// The Shasha-Snir classes of all executions, or `None` if some execution does not finish or
/// there are more than `budget` executions.
fn classes(p: &Program, m: Model, budget: usize) -> Option<BTreeSet<Class>> {
    let mut out = BTreeSet::new();
    let mut runs = 0;
    let empty: Class = (vec![Vec::new(); p.threads.len()], BTreeMap::new());
    let mut stack = vec![(State::initial(p, m), empty)];
    while let Some((s, class)) = stack.pop() {
        match s.status() {
            Status::Running => {
                for c in s.enabled(p) {
                    let mut n = s.clone();
                    let ev = n.step(p, c);
                    let mut k = class.clone();
                    if ev.action != Action::Flush {
                        k.0[ev.thread].push((
                            ev.po,
                            format!("{:?}", ev.action),
                            ev.cell,
                            ev.value,
                            ev.read_from,
                        ));
                    }
                    let to_memory = match ev.action {
                        Action::Flush => true,
                        Action::Store => !ev.buffered,
                        Action::Rmw => true,
                        _ => false,
                    };
                    if let (true, Some(w), Some(cell)) = (to_memory, ev.write, ev.cell) {
                        k.1.entry(cell).or_default().push(w);
                    }
                    stack.push((n, k));
                }
            }
            Status::Finished => {
                runs += 1;
                if runs > budget {
                    return None;
                }
                out.insert(class);
            }
            _ => return None,
        }
    }
    Some(out)
}

#[test]
fn dpor_runs_about_one_execution_per_shasha_snir_class() {
    let (mut total_classes, mut total_execs, mut programs) = (0u64, 0u64, 0u64);
    let mut worst = (0.0f64, 0u64, Model::Sc);
    for seed in 0..400 {
        let t = testgen::random_test(seed);
        let Ok(p) = Program::lower(&t, 2) else {
            continue;
        };
        for m in Model::ALL {
            let Some(cls) = classes(&p, m, 3_000) else {
                continue;
            };
            let opts = CheckOptions {
                engine: EngineKind::Dpor.into(),
                loop_bound: 2,
                ..CheckOptions::default()
            };
            let mut col = Collector::new(&t, &p, m);
            litmus_engine::dpor::explore(&p, m, &opts, &Control::new(), &mut col);
            let execs = col.stats.executions;
            let n = cls.len() as u64;
            assert!(
                execs >= n,
                "seed {seed} {m:?}: {execs} executions for {n} classes"
            );
            let ratio = execs as f64 / n as f64;
            if ratio > worst.0 {
                worst = (ratio, seed, m);
            }
            total_classes += n;
            total_execs += execs;
            programs += 1;
        }
    }
    let ratio = total_execs as f64 / total_classes as f64;
    eprintln!(
        "{programs} program-models: {total_execs} DPOR executions for {total_classes} Shasha-Snir classes ({ratio:.3} per class; worst {:.2}, seed {} {:?})",
        worst.0, worst.1, worst.2
    );
    assert!(programs > 300, "only {programs} programs compared");
    assert!(ratio <= 1.02, "{ratio:.3} executions per class");
}

#[path = "../benches/classes/count.rs"]
#[allow(dead_code)]
mod count;

/// Issue 58's shape (`GenConfig::awaits`: awaits, one mutex, RMWs, register loops, faults and
/// deadlocks) under every model: DPOR's executions against the classes of its equivalence
/// (failing `await` rounds not run), counted without enumerating traces
/// (`benches/classes/count.rs`). At least one execution per class on every program-model,
/// exactly one on all but those whose `await` condition reads two cells or one twice (the
/// count merges a round that memory changed under, which DPOR starts again with a new first
/// load, with a parked one: `docs/design/dpor.md#why-awaitblowup-explodes`); 1.024 per class
/// on these 450 program-models.
#[test]
fn dpor_runs_one_execution_per_class_with_awaits_and_locks() {
    let (mut classes, mut execs, mut programs) = (0u128, 0u128, 0u64);
    let mut differ = Vec::new();
    for seed in 0..150 {
        let t = testgen::random_test_with(seed, testgen::GenConfig::awaits());
        let Ok(p) = Program::lower(&t, 2) else {
            continue;
        };
        for m in Model::ALL {
            let (n, _, _) = count::classes(&p, m, false);
            let opts = CheckOptions {
                engine: EngineKind::Dpor.into(),
                loop_bound: 2,
                ..CheckOptions::default()
            };
            let mut col = Collector::new(&t, &p, m);
            litmus_engine::dpor::explore(&p, m, &opts, &Control::new(), &mut col);
            let e = col.stats.executions as u128;
            assert!(
                e >= n,
                "seed {seed} {m:?}: {e} executions for {n} classes:\n{}",
                testgen::print(&t)
            );
            if e != n {
                differ.push(format!("seed {seed} {m:?}: {e} executions, {n} classes"));
            }
            classes += n;
            execs += e;
            programs += 1;
        }
    }
    let ratio = execs as f64 / classes as f64;
    eprintln!(
        "{programs} program-models: {execs} DPOR executions for {classes} classes ({ratio:.3} per class); more than one per class: {differ:#?}"
    );
    assert!(programs > 400, "only {programs} programs compared");
    assert!(ratio <= 1.05, "{ratio:.3} executions per class");
    assert!(
        differ.len() * 20 <= programs as usize,
        "over one execution per class on {} program-models",
        differ.len()
    );
}
