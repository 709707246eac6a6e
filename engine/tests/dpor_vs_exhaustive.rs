//! DPOR against the exhaustive reference explorer: the same final states, violations (kind and
//! span), condition verdict and loop-bound warnings under SC, TSO and PSO, on random programs
//! of two generators, with every reported schedule replaying to what it claims. A small size
//! by default; `LITMUS_FULL_TESTS=1` runs 2,000 programs of each generator.

mod mcr_support;

use litmus_engine::ast::Test;
use litmus_engine::report::{Model, ModelReport};
use litmus_engine::{check, replay, testgen, CheckOptions, Control, EngineKind, ReplayEnd};
use mcr_support::{exhaustive, show, verdict};

fn full() -> bool {
    std::env::var("LITMUS_FULL_TESTS").is_ok_and(|v| v == "1")
}

fn dpor(test: &Test, model: Model) -> ModelReport {
    let opts = CheckOptions { engine: EngineKind::Dpor.into(), loop_bound: 2, ..CheckOptions::default() };
    check(test, model, &opts, &Control::new())
}

fn loop_bound_warned(r: &ModelReport) -> bool {
    r.warnings.iter().any(|w| w.message.contains("loop bound"))
}

/// Every violation's schedule and the witness replay to what the report says.
pub fn schedules_replay(test: &Test, model: Model, r: &ModelReport) -> Result<(), String> {
    let opts = CheckOptions { loop_bound: 2, ..CheckOptions::default() };
    for v in &r.violations {
        match replay(test, model, &opts, &v.schedule)? {
            ReplayEnd::Violation { kind, span, .. } if kind == v.kind && span == v.span => {}
            ReplayEnd::Final(s) if v.kind == litmus_engine::report::ViolationKind::Condition => {
                if !r.states.contains(&s) {
                    return Err(format!("condition violation replays to an unreported state {s:?}"));
                }
            }
            other => return Err(format!("{:?} at {:?} replays to {other:?}", v.kind, v.span)),
        }
    }
    if let Some(w) = &r.witness {
        match replay(test, model, &opts, w)? {
            ReplayEnd::Final(s) if r.states.contains(&s) => {}
            other => return Err(format!("witness replays to {other:?}")),
        }
    }
    Ok(())
}

fn agree(gen: &dyn Fn(u64) -> Test, label: &str, first: u64, count: u64) {
    let mut bad = Vec::new();
    let (mut execs, mut exh, mut states) = (0u64, 0u64, 0u64);
    for seed in first..first + count {
        let test = gen(seed);
        for model in Model::ALL {
            let want = exhaustive(&test, model);
            let got = dpor(&test, model);
            execs += got.stats.executions;
            exh += want.stats.executions;
            states += want.states.len() as u64;
            let same = verdict(&got) == verdict(&want) && loop_bound_warned(&got) == loop_bound_warned(&want);
            let replays = schedules_replay(&test, model, &got);
            if !same || replays.is_err() {
                bad.push(format!(
                    "{label} seed {seed} {}: {replays:?}\n{}\n--- exhaustive\n{}\n--- dpor\n{}",
                    model.label(),
                    show(&test),
                    verdict(&want),
                    verdict(&got)
                ));
            }
        }
    }
    eprintln!("{label}: {count} programs x 3 models: DPOR executions {execs}, exhaustive executions {exh}, distinct states {states}");
    for b in bad.iter().take(3) {
        eprintln!("{b}\n");
    }
    assert!(bad.is_empty(), "{label}: {} disagreements (first ones above)", bad.len());
}

#[test]
fn dpor_agrees_with_exhaustive_on_random_programs() {
    agree(&mcr_support::random_test, "random programs", 0, if full() { 2000 } else { 300 });
}

/// `testgen` programs with awaits, arrays, divisions, locks and loops.
#[test]
fn dpor_agrees_with_exhaustive_on_testgen_programs() {
    let gen = |seed| testgen::random_test_with(seed, testgen::GenConfig::all());
    agree(&gen, "testgen (all features)", 0, if full() { 2000 } else { 200 });
}

#[test]
fn dpor_agrees_with_exhaustive_on_plain_testgen_programs() {
    agree(&testgen::random_test, "testgen", 5000, if full() { 1000 } else { 100 });
}
