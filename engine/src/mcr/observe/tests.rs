//! Unit tests of traces from interpreter steps: the running causal hash, stutters.

use super::*;
use crate::testgen::Rng;

/// The running causal hash equals the causal hash of the trace without its failed rounds,
/// after every event of random traces (rounds that fail or not, last or not, flushes).
#[test]
fn running_causal_hash_matches_the_whole_trace() {
    let src = "litmus T\nshared x = 0;\nthread P0 { x = 1; }\nthread P1 { x = 2; }\nthread P2 { x = 3; }\nexists (x == 1)\n";
    let parsed = crate::syntax::parse(src);
    let p = Program::lower(&parsed.test.unwrap(), 8).unwrap();
    let st = State::initial(&p, Model::Tso);
    let mut rng = Rng::new(7);
    for _ in 0..300 {
        let in_round: Vec<bool> = (0..3).map(|_| rng.chance(50)).collect();
        let mut evs: Vec<TraceEvent> = Vec::new();
        let mut running = CausalHasher::new(3);
        for _ in 0..rng.below(30) {
            let cell = rng.below(2) as u32;
            let value = rng.below(3) as i64;
            let kind = match rng.below(5) {
                0 | 1 => EventKind::Load { cell, value },
                2 => EventKind::Store { cell, value },
                3 => EventKind::Flush {
                    cell,
                    value,
                    store: None,
                },
                _ => EventKind::Fence,
            };
            let failed_check = rng.chance(25);
            evs.push(TraceEvent {
                thread: rng.below(3) as usize,
                kind,
                failed_check,
                round_start: !failed_check && rng.chance(25),
                write: None,
                pending: false,
                pc: 0,
            });
            running.catch_up(&evs);
            let whole = drop_failed_rounds(evs.clone(), &in_round, 0, Model::Tso).0;
            assert_eq!(running.hash(&st), causal_hash(&whole, &st), "{evs:?}");
        }
    }
}

/// A load of `x` by P1 in a round of its `await` (`failed`: the round's check failed).
fn round(value: i64, failed: bool) -> TraceEvent {
    TraceEvent {
        thread: 1,
        kind: EventKind::Load { cell: 0, value },
        failed_check: failed,
        round_start: false,
        write: None,
        pending: false,
        pc: 1,
    }
}

/// A store of `value` to `x` by P0.
fn store(value: i64) -> TraceEvent {
    TraceEvent {
        thread: 0,
        kind: EventKind::Store { cell: 0, value },
        failed_check: false,
        round_start: false,
        write: None,
        pending: false,
        pc: 0,
    }
}

/// A failed round that reads again what the one before read, no other value published
/// between, is a stutter: it leaves the trace and the round it repeats stays as the thread's
/// last. A store of another value between makes it a real retry, and a passing round after
/// them makes both retried rounds leave.
#[test]
fn a_round_that_reads_the_same_again_is_a_stutter() {
    let in_round = [false, true];
    let evs = vec![store(2), round(2, true), round(2, true), store(3)];
    assert_eq!(
        stutters(&evs, &in_round, Model::Sc),
        [false, false, true, false]
    );
    let (kept, committed) = drop_failed_rounds(evs.clone(), &in_round, 2, Model::Sc);
    assert_eq!(kept, [evs[0].clone(), evs[1].clone(), evs[3].clone()]);
    assert_eq!(committed, 2, "the committed round stays");
    assert_eq!(retry_cut(&evs, &in_round, 2, Model::Sc), None);
    // The same value stored again changes nothing the round sees.
    let same = vec![round(2, true), store(2), round(2, true)];
    assert_eq!(stutters(&same, &in_round, Model::Sc), [false, false, true]);
    // Another value between: the second round is a retry.
    let other = vec![round(2, true), store(3), store(2), round(2, true)];
    assert_eq!(stutters(&other, &in_round, Model::Sc), [false; 4]);
    assert_eq!(retry_cut(&other, &in_round, 1, Model::Sc), Some(3));
    // Under TSO a store is not yet published.
    assert_eq!(
        stutters(&other, &in_round, Model::Tso),
        [false, false, false, true]
    );
    // A different value read, or a passing round after the stutter.
    let differ = vec![round(2, true), round(3, true)];
    assert_eq!(stutters(&differ, &in_round, Model::Sc), [false, false]);
    let passes = vec![round(2, true), round(2, true), store(1), round(1, false)];
    assert_eq!(
        stutters(&passes, &in_round, Model::Sc),
        [false, true, false, false]
    );
    let (kept, _) = drop_failed_rounds(passes.clone(), &in_round, 0, Model::Sc);
    assert_eq!(kept, [passes[2].clone(), passes[3].clone()]);
    assert_eq!(retry_cut(&passes, &in_round, 1, Model::Sc), Some(3));
}
