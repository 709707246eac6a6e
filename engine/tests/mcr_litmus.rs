//! MCR on classic litmus tests with hand-checked outcomes (store buffering, message passing,
//! IRIW, store forwarding and x86-TSO test n6 under SC, TSO and PSO), and the shrunk programs of
//! the completeness bugs random tests found, each against the exhaustive explorer. (The whole
//! corpus `tests/litmus/` is checked with both engines by `corpus.rs`.)

mod mcr_support;

use litmus_engine::ast::Test;
use litmus_engine::mcr::Tuning;
use litmus_engine::report::{Model, ModelReport};
use litmus_engine::syntax;
use mcr_support::*;

fn parse(src: &str) -> Test {
    let p = syntax::parse(src);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    p.test.expect("parses")
}

/// Runs MCR and checks the run was complete and every seed replayed as solved.
fn mcr(src: &str, model: Model) -> ModelReport {
    let (r, stats) = mcr_run(&parse(src), model, Tuning::default());
    assert!(r.complete, "incomplete");
    assert_eq!(
        stats.diverged, 0,
        "a seed's replay left the solved interleaving"
    );
    r
}

/// The projection of the final states onto `keys`, as `a,b,c` strings.
fn outcomes(r: &ModelReport, keys: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = r
        .states
        .iter()
        .map(|s| {
            keys.iter()
                .map(|k| s.get(k).unwrap().to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

const SB: &str = "litmus SB
shared x = 0, y = 0;
thread P0 { x = 1; r0 = y; }
thread P1 { y = 1; r1 = x; }
exists (P0:r0 == 0 && P1:r1 == 0)";

#[test]
fn store_buffering() {
    let k = ["P0:r0", "P1:r1"];
    assert_eq!(outcomes(&mcr(SB, Model::Sc), &k), ["0,1", "1,0", "1,1"]);
    for m in [Model::Tso, Model::Pso] {
        let r = mcr(SB, m);
        assert_eq!(outcomes(&r, &k), ["0,0", "0,1", "1,0", "1,1"], "{m:?}");
        assert!(r.condition.unwrap().holds);
        assert!(r.witness.is_some());
    }
}

const MP: &str = "litmus MP
shared x = 0, y = 0;
thread P0 { x = 1; y = 1; }
thread P1 { r0 = y; r1 = x; }
exists (P1:r0 == 1 && P1:r1 == 0)";

#[test]
fn message_passing() {
    let k = ["P1:r0", "P1:r1"];
    for m in [Model::Sc, Model::Tso] {
        assert_eq!(outcomes(&mcr(MP, m), &k), ["0,0", "0,1", "1,1"], "{m:?}");
    }
    // PSO lets y = 1 reach memory before x = 1.
    assert_eq!(
        outcomes(&mcr(MP, Model::Pso), &k),
        ["0,0", "0,1", "1,0", "1,1"]
    );
}

const IRIW: &str = "litmus IRIW
shared x = 0, y = 0;
thread P0 { x = 1; }
thread P1 { y = 1; }
thread P2 { r0 = x; r1 = y; }
thread P3 { r0 = y; r1 = x; }
exists (P2:r0 == 1 && P2:r1 == 0 && P3:r0 == 1 && P3:r1 == 0)";

#[test]
fn iriw_is_forbidden_everywhere() {
    // Store buffers are per thread and FIFO into one memory: writes are multi-copy atomic.
    for m in Model::ALL {
        let r = mcr(IRIW, m);
        assert!(!r.condition.unwrap().holds, "{m:?}");
        assert_eq!(r.states.len(), 15, "{m:?}: 16 outcomes minus the IRIW one");
    }
}

const N6: &str = "litmus n6
shared x = 0, y = 0;
thread P0 { x = 1; r0 = x; r1 = y; }
thread P1 { y = 2; x = 2; }
exists (P0:r0 == 1 && P0:r1 == 0 && x == 1)";

#[test]
fn n6_needs_store_forwarding() {
    // TSO allows r0 = 1, r1 = 0, x = 1: P0 reads its own buffered x = 1 (forwarding) and
    // y = 0 from memory, then P1's y = 2 and x = 2 reach memory, and P0's x = 1 last. The
    // paper's encoding, which makes the load of x read memory after its own store, loses it.
    let k = ["P0:r0", "P0:r1", "x"];
    assert_eq!(
        outcomes(&mcr(N6, Model::Sc), &k),
        ["1,0,2", "1,2,1", "1,2,2", "2,2,2"]
    );
    let tso = mcr(N6, Model::Tso);
    assert_eq!(
        outcomes(&tso, &k),
        ["1,0,1", "1,0,2", "1,2,1", "1,2,2", "2,2,2"]
    );
    assert!(tso.condition.unwrap().holds);
    assert_eq!(
        outcomes(&mcr(N6, Model::Pso), &k),
        ["1,0,1", "1,0,2", "1,2,1", "1,2,2", "2,0,2", "2,2,2"]
    );
}

const FORWARD: &str = "litmus Forward
shared x = 0;
thread P0 { x = 1; r0 = x; }
thread P1 { x = 2; }
exists (P0:r0 == 2 && x == 1)";

#[test]
fn a_load_reads_its_own_buffered_store() {
    let k = ["P0:r0", "x"];
    // SC: r0 == 2 only when P1's store comes between, and then x ends 2.
    assert_eq!(
        outcomes(&mcr(FORWARD, Model::Sc), &k),
        ["1,1", "1,2", "2,2"]
    );
    // TSO/PSO: x = 1 may reach memory after x = 2 while r0 already read 1 from the buffer;
    // r0 == 2 with x == 1 would need P0 to see P1's store before its own, which the FIFO
    // buffer forbids (the flush of x = 1 comes after the load).
    for m in [Model::Tso, Model::Pso] {
        let r = mcr(FORWARD, m);
        assert_eq!(outcomes(&r, &k), ["1,1", "1,2", "2,2"], "{m:?}");
        assert!(!r.condition.unwrap().holds);
    }
}

const LOCK_ORDER: &str = "litmus LockOrder
shared x = 0, y = 0;
mutex a, b;
thread P0 { lock(a); lock(b); x = 1; unlock(b); unlock(a); }
thread P1 { lock(b); lock(a); y = 1; unlock(a); unlock(b); }";

#[test]
fn lock_order_deadlock_is_found() {
    for m in Model::ALL {
        let (r, stats) = mcr_run(&parse(LOCK_ORDER), m, Tuning::default());
        eprintln!("{stats:?}");
        assert!(
            r.violations
                .iter()
                .any(|v| v.kind == litmus_engine::report::ViolationKind::Deadlock),
            "{m:?}"
        );
    }
}

/// Seed 1248 of the random generator, shrunk: P1's `cas` reads 2 from its own `y = 2` and fails
/// again, and only then P2's `fetch_add` reads that 2 (final P1:r0 = 2, P2:r1 = 2, y = 1).
/// From the trace where the `fetch_add` ran first, asking for the `cas` to read 2 forbade every
/// later read of `y` in the prefix (an RMW with a new value "writes something else"), although
/// a failing `cas` writes nothing either way.
const CAS_FAILS_AGAIN: &str = "litmus CasFailsAgain
shared y = 0;
thread P1 { y = 2; r0 = cas(y, 1, 1); y = 1; }
thread P2 { r1 = fetch_add(y, 1); }";

/// Seed 1866, shrunk: P1's `cas` reads 0 and fails, then P2's `xchg` reads 0 and P0 reads its 1
/// (final P0:r1 = 1, P1:r0 = 0, P2:r1 = 0). From the trace where the `cas` read 1 and wrote 2,
/// the `xchg` reading 0 after the `cas` needs the `cas` to write nothing with its new value.
const CAS_STOPS_WRITING: &str = "litmus CasStopsWriting
shared y = 0;
thread P0 { r1 = y; }
thread P1 { cas(y, 1, 2); r0 = y; }
thread P2 { r1 = xchg(y, 1); }";

#[test]
fn an_rmw_with_a_new_value_writes_what_its_operands_say() {
    for src in [CAS_FAILS_AGAIN, CAS_STOPS_WRITING] {
        let test = parse(src);
        for m in Model::ALL {
            let want = exhaustive(&test, m);
            let got = mcr(src, m);
            assert_eq!(verdict(&got), verdict(&want), "{m:?}\n{src}");
        }
    }
}

/// Seed 67, shrunk: the `cas` fails in the first trace (P1's `z = 2` came first) and succeeds
/// with the new value 0, so a later RMW of `z` in the prefix must read its 2: the re-encoded
/// reads must see a write the trace did not have (else the replay diverges).
const CAS_STARTS_WRITING: &str = "litmus CasStartsWriting
shared z = 0;
thread P0 { r0 = cas(z, 0, 2); }
thread P1 { z = 2; }
thread P2 { r0 = fetch_add(z, 2); }";

#[test]
fn an_rmw_that_starts_writing_is_read_after_it() {
    let test = parse(CAS_STARTS_WRITING);
    for m in Model::ALL {
        let want = exhaustive(&test, m);
        let got = mcr(CAS_STARTS_WRITING, m);
        assert_eq!(verdict(&got), verdict(&want), "{m:?}");
    }
}

/// Peterson with a fence under PSO missed a final state (P1 in the critical section first, with
/// P0's `turn = 1` reaching memory before its `flag0 = 1`) depending on the interleavings Z3
/// returned (CI once; here with some solver seeds). A read in a seed's prefix can take a new
/// value from a write only the seed's trace has; only reads after the prefix were targets.
#[test]
fn prefix_reads_get_the_new_writes_of_their_trace() {
    let src = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/litmus/peterson_fence.litmus"),
    )
    .expect("corpus file");
    let test = parse(&src);
    let want = exhaustive(&test, Model::Pso);
    for seed in [2, 5] {
        let tuning = Tuning {
            solver_seed: Some(seed),
            ..Tuning::default()
        };
        let (got, stats) = mcr_run(&test, Model::Pso, tuning);
        assert_eq!(stats.diverged, 0);
        assert_eq!(verdict(&got), verdict(&want), "solver seed {seed}");
    }
}

/// Random seed 7807, shrunk: P0 takes `m` for good, so in the first trace P1 waits at its
/// `lock(m)` forever (a deadlock) and the lock never appears in the trace. Only the lock as a
/// pending target (acquire `m` before P0 does) reaches P1's assertion and the final state.
const PENDING_LOCK: &str = "litmus PendingLock
shared y = 0;
mutex m;
thread P0 { lock(m); }
thread P1 { r1 = y; lock(m); assert(r1 != 0); unlock(m); }
thread P2 { y = 1; }";

/// MCR gives `src` the reference explorer's verdict under every model, whose violations
/// `want` checks first.
fn agrees_with_exhaustive(src: &str, want: impl Fn(Model, &ModelReport)) {
    let test = parse(src);
    for m in Model::ALL {
        let reference = exhaustive(&test, m);
        want(m, &reference);
        assert_eq!(verdict(&mcr(src, m)), verdict(&reference), "{m:?}\n{src}");
    }
}

#[test]
fn a_lock_waited_for_at_the_end_is_a_target() {
    agrees_with_exhaustive(PENDING_LOCK, |m, r| {
        assert_eq!(
            r.violations.len(),
            2,
            "{m:?}: the deadlock and the assertion"
        );
    });
}

/// Random seed 6, shrunk: P1 waits for good when P2's `x = 1` lands after P0's `x = 2`. The
/// failed rounds that P1 retries are not in traces, so its only chance to wait for good is a
/// `late` target (its round after every other write); its seed must keep those writes, or P1 is
/// woken again by the ones left out.
const WAIT_FOR_GOOD: &str = "litmus WaitForGood
shared x = 0;
thread P0 { x = 2; }
thread P1 { await(x == 2); }
thread P2 { x = 1; }";

#[test]
fn a_late_await_target_keeps_the_writes_before_its_round() {
    agrees_with_exhaustive(WAIT_FOR_GOOD, |m, r| {
        assert!(
            r.violations
                .iter()
                .any(|v| v.kind == litmus_engine::report::ViolationKind::Deadlock),
            "{m:?}"
        );
    });
}

/// Two threads each waiting for the other's write: one causal state (both wait for good), and
/// the first trace already is it, so MCR runs it once (no `late` target repeats it).
#[test]
fn a_deadlock_of_two_awaits_runs_once() {
    let src = "litmus AwaitDeadlock
shared x = 0, y = 0;
thread P0 { await(x == 1); y = 1; }
thread P1 { await(y == 1); x = 1; }";
    for m in Model::ALL {
        let (got, stats) = mcr_run(&parse(src), m, Tuning::default());
        assert_eq!(verdict(&got), verdict(&exhaustive(&parse(src), m)), "{m:?}");
        assert_eq!(stats.executions, 1, "{m:?}");
    }
}

/// An exploration starts without a Z3 context and, at the first query that needs Z3, starts
/// again in one: the executions handed out before that are not handed out again, none is
/// lost, and the whole is deterministic.
#[test]
fn an_exploration_that_needs_z3_midway_hands_out_each_execution_once() {
    use litmus_engine::ir::Program;
    use litmus_engine::mcr;
    use litmus_engine::{CheckOptions, Control};
    let test = parse(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/litmus/dekker.litmus"
        ))
        .unwrap(),
    );
    let program = Program::lower(&test, CheckOptions::default().loop_bound).unwrap();
    // Every query the pre-check leaves goes to Z3; the first execution comes before any query.
    let tuning = Tuning {
        search_budget: 0,
        ..Tuning::default()
    };
    let run = || {
        let mut handed: Vec<String> = Vec::new();
        let stats = mcr::explore_with(
            &program,
            Model::Tso,
            &CheckOptions::default(),
            &Control::new(),
            tuning,
            &mut |ex| {
                handed.push(
                    ex.events
                        .iter()
                        .map(|e| format!("{}{:?}{:?}{:?}", e.thread, e.action, e.cell, e.value))
                        .collect::<Vec<_>>()
                        .join(" "),
                );
            },
        );
        (handed, stats)
    };
    let (handed, stats) = run();
    assert!(stats.complete && stats.z3_queries > 0, "Z3 was not needed");
    assert!(handed.len() > 1);
    assert_eq!(
        handed.len() as u64,
        stats.executions,
        "executions handed out twice or lost"
    );
    // Deterministic: the same executions in the same order again.
    assert_eq!(run().0, handed);
}

/// Random seed 8472: P0 reading `y` before P1's `y = 2` moves P0's critical section before
/// P1's, which the committed prefix keeps; P1's `lock` then needs P0's `unlock`, a step after
/// the target that does not depend on its value. The query lets it into the prefix (the
/// dependency graph says which steps may, with MCR-S+ on or off). Keeping every
/// later step of the target's thread out makes Z3 and the causal search call the state
/// unreachable, and with every query to Z3 it is missed.
const UNLOCK_AFTER_TARGET: &str = "litmus UnlockAfterTarget
shared y = 1, z = 0;
mutex m;
thread P0 { lock(m); r1 = y; unlock(m); z = 1; fence; y = r0 + 1; }
thread P1 { y = 2; lock(m); r0 = z; unlock(m); }";

#[test]
fn a_step_after_the_target_that_does_not_depend_on_it_may_stay_in_the_prefix() {
    use litmus_engine::options::EngineKind;
    use litmus_engine::CheckOptions;
    let test = parse(UNLOCK_AFTER_TARGET);
    for m in Model::ALL {
        let reference = exhaustive(&test, m);
        assert!(
            outcomes(&reference, &["P0:r1", "P1:r0", "y"]).contains(&"1,0,1".to_string()),
            "{m:?}: the state is reachable"
        );
        for sdg in [true, false] {
            let opts = CheckOptions {
                engine: EngineKind::Mcr,
                loop_bound: 2,
                sdg,
                ..CheckOptions::default()
            };
            // Every query to Z3; and the causal search, each of its answers checked against Z3.
            for tuning in [
                Tuning {
                    search_budget: 0,
                    ..Tuning::default()
                },
                Tuning {
                    check_search: true,
                    ..Tuning::default()
                },
            ] {
                let (got, stats) = mcr_run_opts(&test, m, tuning, &opts);
                assert!(stats.z3_queries > 0, "{m:?}: the queries went to Z3");
                assert_eq!(
                    verdict(&got),
                    verdict(&reference),
                    "{m:?}, graph {sdg}, search budget {}",
                    tuning.search_budget
                );
                assert_eq!(
                    (
                        stats.checks.search_missed,
                        stats.checks.search_extra,
                        stats.diverged
                    ),
                    (0, 0, 0),
                    "{m:?}"
                );
            }
        }
    }
}
