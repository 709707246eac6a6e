//! Issue 58's AwaitBlowup (`benches/engines/await-blowup.litmus`) at loop bound 3 under each
//! model: DPOR's executions and time, the program's class counts (`benches/classes/count.rs`,
//! counted without enumerating traces) and the reference explorer, in one run.

use crate::count;
use crate::run::measure;
use litmus_engine::ir::Program;
use litmus_engine::report::Model;
use litmus_engine::{syntax, EngineChoice, EngineKind};

pub fn table(timeout: f64) {
    let src = include_str!("await-blowup.litmus");
    let bound = 3;
    let t = syntax::parse(src).test.expect("AwaitBlowup parses");
    let p = Program::lower(&t, bound).expect("AwaitBlowup lowers");
    println!("\n### Issue 58: DPOR on AwaitBlowup\n");
    println!("`ENGINES_ONLY=await cargo bench -p litmus-engine --bench engines`: `benches/engines/await-blowup.litmus` at loop bound {bound}. Classes: of the maximal traces, faults ending their thread only (`benches/classes/count.rs`, a sleep-set search memoised on state and sleep set, which visits one trace per class without enumerating the others); *with rounds*: every failing `await` round a step (the brute force's traces, `engine/benches/classes.rs`), *without*: failing rounds not run (DPOR's equivalence, `docs/design/dpor.md#await`); *value-aware*: without rounds, and two steps also commute when both orders reach equal states (two writes of one value; a load and a write that leaves the value as it was), which DPOR does not use. Executions / wall time (the check's, in a child process).\n");
    println!("| model | classes with rounds | classes without | value-aware classes | DPOR | DPOR per class (without) | reference explorer |");
    println!("|---|---:|---:|---:|---|---:|---|");
    for model in Model::ALL {
        let (with, _, _) = count::classes(&p, model, true);
        let (without, _, _) = count::classes(&p, model, false);
        let (values, _, _) = count::value_classes(&p, model);
        let d = measure(
            src,
            EngineChoice::Fixed(EngineKind::Dpor),
            model,
            bound,
            timeout,
            false,
        );
        let e = measure(
            src,
            EngineChoice::Fixed(EngineKind::Exhaustive),
            model,
            bound,
            timeout,
            false,
        );
        let mark = |complete: bool| if complete { "" } else { " **timeout**" };
        println!(
            "| {} | {with} | {without} | {values} | {} / {:.0} ms{} | {:.3} | {} / {:.0} ms{} |",
            model.label(),
            d.executions,
            d.ms,
            mark(d.complete),
            d.executions as f64 / without.max(1) as f64,
            e.executions,
            e.ms,
            mark(e.complete),
        );
    }
}
