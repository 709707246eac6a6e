//! Every reported schedule replays to what was reported (`docs/reference.md#schedules`), over random programs:
//! violations to the same violation (kind and span; condition violations to a final state that
//! falsifies the condition), witnesses to a final state satisfying it. Also checks the model
//! inclusion SC ⊆ TSO ⊆ PSO on the final states.

mod tier;

use litmus_engine::condition::satisfies;
use litmus_engine::report::{ModelReport, ViolationKind};
use litmus_engine::testgen::{random_test, random_test_with, GenConfig};
use litmus_engine::{check, replay, CheckOptions, Control, EngineKind, Model, ReplayEnd};

fn check_replays(
    test: &litmus_engine::ast::Test,
    model: Model,
    opts: &CheckOptions,
    r: &ModelReport,
) {
    for v in &r.violations {
        let end = replay(test, model, opts, &v.schedule)
            .unwrap_or_else(|e| panic!("{}: {model:?}: {e}", test.name.text));
        match (v.kind, end) {
            (ViolationKind::Condition, ReplayEnd::Final(s)) => {
                let q = test.condition.as_ref().unwrap().quantifier;
                let sat = satisfies(test, &s).unwrap();
                assert!(litmus_engine::condition::falsifies(q, sat));
                assert!(r.states.contains(&s));
            }
            (k, ReplayEnd::Violation { kind, span, .. }) => {
                assert_eq!((k, v.span), (kind, span), "{}", test.name.text)
            }
            (k, other) => panic!("{}: {k:?} replayed to {other:?}", test.name.text),
        }
    }
    if let Some(w) = &r.witness {
        match replay(test, model, opts, w).unwrap() {
            ReplayEnd::Final(s) => {
                assert_eq!(satisfies(test, &s), Some(true));
                assert!(r.states.contains(&s));
            }
            other => panic!("{}: witness replayed to {other:?}", test.name.text),
        }
    }
}

#[test]
fn reported_schedules_replay_on_random_programs_mcr() {
    schedules_replay(EngineKind::Mcr);
}

#[test]
fn reported_schedules_replay_on_random_programs_exhaustive() {
    schedules_replay(EngineKind::Exhaustive);
}

fn schedules_replay(engine: EngineKind) {
    let opts = CheckOptions {
        engine,
        ..CheckOptions::default()
    };
    let ctl = Control::new();
    let (mut schedules, mut tso_only, mut pso_only) = (0, 0, 0);
    let mut kinds = std::collections::BTreeSet::new();
    let programs = tier::sweep(300, 900);
    for seed in 0..programs {
        // Two thirds plain, one third with awaits, arrays and divisions.
        let test = if seed % 3 == 2 {
            random_test_with(seed, GenConfig::all())
        } else {
            random_test(seed)
        };
        let reports: Vec<ModelReport> = Model::ALL
            .iter()
            .map(|&m| check(&test, m, &opts, &ctl))
            .collect();
        for (m, r) in Model::ALL.iter().zip(&reports) {
            assert!(r.complete);
            check_replays(&test, *m, &opts, r);
            schedules += r.violations.len() + r.witness.is_some() as usize;
            kinds.extend(r.violations.iter().map(|v| v.kind));
        }
        let [sc, tso, pso] = &reports[..] else {
            unreachable!()
        };
        for s in &sc.states {
            assert!(tso.states.contains(s), "seed {seed}: SC state not in TSO");
        }
        for s in &tso.states {
            assert!(pso.states.contains(s), "seed {seed}: TSO state not in PSO");
        }
        tso_only += (tso.states.len() > sc.states.len()) as usize;
        pso_only += (pso.states.len() > tso.states.len()) as usize;
    }
    // The generator must exercise the relaxed models and produce schedules at all.
    assert!(
        schedules as u64 > programs / 3,
        "only {schedules} schedules"
    );
    assert!(
        (tso_only as u64) * 90 > programs && (pso_only as u64) * 90 > programs,
        "tso {tso_only} pso {pso_only}"
    );
    for k in [
        ViolationKind::Assert,
        ViolationKind::Condition,
        ViolationKind::Error,
        ViolationKind::Deadlock,
    ] {
        assert!(
            kinds.contains(&k),
            "no {k:?} violation in the random programs"
        );
    }
}
