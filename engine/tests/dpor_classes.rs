//! DPOR explores about one execution per Shasha-Snir class. On small random programs whose
//! every execution finishes (no fault, no await, no lock), all executions are enumerated by
//! brute force and grouped by their Shasha-Snir trace: each thread's events with the write
//! every read read from (program order and reads-from), and the order in which writes reached
//! memory per cell (coherence; from-reads follow from the two). DPOR must run at least one
//! execution per class (it must cover them all) and, being Source-DPOR with sleep sets (whose
//! cut executions are not counted), hardly more: 1.000 per class on these 608 program-models.

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
                engine: EngineKind::Dpor,
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
