//! Two independent semantics checking each other: on every test of
//! `../shared/conformance/x86` and `x86_64` (relative to the repository root; skipped with a
//! message when absent), the axiomatic engine with the project's `sc.cat` and `x86tso.cat`
//! must give the same final states, and so the same verdict, as the operational reference
//! explorer under SC and TSO. Prints the agreement counts and every difference.

use litmus_engine::axiomatic::{check_program, operational_model};
use litmus_engine::ir::Program;
use litmus_engine::{check, syntax, CheckOptions, Control, EngineKind, Model};
use std::path::PathBuf;
use std::time::Instant;

fn dir(set: &str) -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    [
        root.join(format!("../shared/conformance/{set}")),
        root.join(format!("../../shared/conformance/{set}")),
    ]
    .into_iter()
    .find(|d| d.join("expected.csv").is_file())
}

fn compare(set: &str, min_tests: usize) {
    let Some(dir) = dir(set) else {
        println!("skipping axiomatic {set}: ../shared/conformance/{set} not found");
        return;
    };
    let start = Instant::now();
    let csv = std::fs::read_to_string(dir.join("expected.csv")).unwrap_or_default();
    let opts = CheckOptions {
        engine: EngineKind::Exhaustive.into(),
        ..CheckOptions::default()
    };
    let ctl = Control::new();
    let (mut tests, mut agree, mut candidates) = (0, 0, 0u64);
    let mut differences = Vec::new();
    for line in csv.lines().skip(1) {
        let Some(file) = line.split(',').next() else {
            continue;
        };
        tests += 1;
        let src = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
        let Some(test) = syntax::parse(&src).test else {
            differences.push(format!("{file}: does not parse"));
            continue;
        };
        let program = match Program::lower(&test, opts.loop_bound) {
            Ok(p) => p,
            Err(e) => {
                differences.push(format!("{file}: does not lower: {e}"));
                continue;
            }
        };
        for model in [Model::Sc, Model::Tso] {
            let op = check(&test, model, &opts, &ctl);
            let cat = operational_model(model).expect("SC and TSO have cat models");
            match check_program(&test, &program, &cat, &|| false) {
                Err(e) => differences.push(format!("{file} {}: axiomatic: {e}", model.label())),
                Ok(ax) => {
                    candidates += ax.candidates;
                    let verdict = |c: &Option<litmus_engine::report::ConditionResult>| {
                        c.as_ref().map(|c| c.holds)
                    };
                    if !op.complete {
                        differences
                            .push(format!("{file} {}: operational incomplete", model.label()));
                    } else if ax.states == op.states
                        && verdict(&ax.condition) == verdict(&op.condition)
                    {
                        agree += 1;
                    } else {
                        let only =
                            |a: &[litmus_engine::report::FinalState],
                             b: &[litmus_engine::report::FinalState]| {
                                a.iter().filter(|s| !b.contains(s)).count()
                            };
                        differences.push(format!(
                            "{file} {}: verdict axiomatic {:?} operational {:?}; {} states only axiomatic, {} only operational",
                            model.label(),
                            verdict(&ax.condition),
                            verdict(&op.condition),
                            only(&ax.states, &op.states),
                            only(&op.states, &ax.states),
                        ));
                    }
                }
            }
        }
    }
    println!(
        "axiomatic vs operational on {set}: {tests} tests x SC, TSO: {agree} of {} agree (final states and verdict), {} differences, {candidates} candidates, {:.1}s",
        2 * tests,
        differences.len(),
        start.elapsed().as_secs_f64()
    );
    for d in &differences {
        println!("  {d}");
    }
    assert!(
        tests >= min_tests,
        "only {tests} tests in {set}/expected.csv"
    );
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

#[test]
fn axiomatic_sc_and_tso_equal_operational_on_x86() {
    compare("x86", 400);
}

#[test]
fn axiomatic_sc_and_tso_equal_operational_on_x86_64() {
    compare("x86_64", 300);
}

/// herd's `Positive` and `Negative`: the allowed executions whose final state satisfies the
/// condition's expression and those whose state does not. The store buffer test has four
/// executions (each read takes the initial value or the other thread's write); SC allows the
/// three where a read sees a write, TSO all four.
#[test]
fn the_program_check_counts_positive_and_negative_executions() {
    let src = "X86 SB\n{ x=0; y=0; }\n P0          | P1          ;\n MOV [x],$1  | MOV [y],$1  ;\n MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=0 /\\ 1:EAX=0)\n";
    let test = syntax::parse(src).test.expect("parses");
    let program = Program::lower(&test, 8).expect("lowers");
    let count = |m: Model| {
        let cat = operational_model(m).expect("a cat model");
        let r = check_program(&test, &program, &cat, &|| false).expect("checked");
        assert_eq!(r.witness.is_some(), r.positive > 0);
        (r.positive, r.negative)
    };
    assert_eq!(count(Model::Sc), (0, 3));
    assert_eq!(count(Model::Tso), (1, 3));
}
