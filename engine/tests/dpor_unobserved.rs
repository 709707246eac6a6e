//! DPOR leaves unreversed the write-write races that nothing can observe (a fault is pending,
//! and no thread that can still move reads the cell: `docs/design/dpor.md#unobserved-write-orders`).
//! On the translations of Nidhugg's TACAS'15 benchmarks (`benches/engines/`, every fence
//! variant and model) the report agrees with the reference explorer's, and against the full
//! exploration (`dpor::explore_leaves`, which reverses every race, on the same program) it has
//! the same final states, violations and loop-bound warnings in at most as many executions,
//! fewer on some rows (issue 42). About 2 s.

mod programs;
mod sweep_support;

use litmus_engine::collect::Collector;
use litmus_engine::ir::Program;
use litmus_engine::report::{Model, ModelReport};
use litmus_engine::{dpor, syntax, CheckOptions, Control, EngineKind};
use programs::nidhugg;
use std::time::Duration;
use sweep_support::*;

fn explored(test: &litmus_engine::ast::Test, p: &Program, m: Model, full: bool) -> ModelReport {
    let opts = CheckOptions {
        engine: EngineKind::Dpor.into(),
        loop_bound: LOOP_BOUND,
        ..CheckOptions::default()
    };
    let mut col = Collector::new(test, p, m);
    if full {
        dpor::explore_leaves(p, m, &opts, &Control::new(), &mut col, &mut |_| false);
    } else {
        dpor::explore(p, m, &opts, &Control::new(), &mut col);
    }
    col.finish(Duration::ZERO)
}

#[test]
fn unobserved_write_orders_lose_nothing() {
    let (mut pruned, mut all, mut fewer) = (0, 0, 0);
    for name in ["dekker", "peterson", "szymanski", "lamport"] {
        for f in ["none", "TSO", "PSO"] {
            let src = nidhugg(name, f);
            let test = syntax::parse(&src).test.expect("the benchmark parses");
            let p = Program::lower(&test, LOOP_BOUND).expect("lowers");
            for m in Model::ALL {
                let at = format!("{name} {f} {}", m.label());
                let got = run(&test, m, EngineKind::Dpor.into(), false);
                if let Err(d) = compare(&test, m, &reference(&test, m), &got, false) {
                    panic!("{at}: {d:?}");
                }
                let (a, b) = (explored(&test, &p, m, false), explored(&test, &p, m, true));
                assert_eq!(a.states, b.states, "{at}");
                let viol = |r: &ModelReport| {
                    let mut v: Vec<_> = r.violations.iter().map(|v| (v.kind, v.span)).collect();
                    v.sort();
                    v
                };
                assert_eq!(viol(&a), viol(&b), "{at}");
                assert_eq!(a.warnings, b.warnings, "{at}");
                assert!(a.stats.executions <= b.stats.executions, "{at}");
                pruned += a.stats.executions;
                all += b.stats.executions;
                fewer += (a.stats.executions < b.stats.executions) as u32;
            }
        }
    }
    eprintln!(
        "36 program-models: {pruned} executions, {all} with every race reversed; fewer on {fewer}"
    );
    assert!(fewer > 0, "the rule never applied");
}

/// The rule needs the fault to be pending where the writes race, not merely to come later in
/// the execution that found the race: here `A` and `B` write `x`, which nobody reads, and `T`
/// blocks unless it reads `y` after `U` wrote it. An execution that runs `A`, `B`, then `T`
/// blocked has a fault but not yet when `x` is written; dropping its race of `x` because it
/// ended with a fault (the race is found once, in the prefix the next executions share) lost
/// the final state `x = 1`. Both final states, under every model, as the reference explorer.
#[test]
fn a_fault_that_comes_later_does_not_drop_a_race() {
    let src = "litmus later_fault \"a fault after the race\"\nshared x = 0, y = 0;\nthread A { x = 1; }\nthread B { x = 2; }\n\
               thread T { r = y; assume(r == 1); }\nthread U { y = 1; }\n";
    let test = syntax::parse(src).test.expect("parses");
    for m in Model::ALL {
        let got = run(&test, m, EngineKind::Dpor.into(), false);
        assert_eq!(got.states.len(), 2, "{}", m.label());
        if let Err(d) = compare(&test, m, &reference(&test, m), &got, false) {
            panic!("{}: {d:?}", m.label());
        }
    }
}
