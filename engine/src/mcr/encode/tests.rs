use super::*;
use crate::ids::EventId;
use crate::ir::Program;
use crate::mcr::trace_of;
use crate::report::Model;
use crate::semantics::Choice;

/// The trace of `src` (SC) run by `choices` then thread by thread, with an encoder holding
/// its dependences, and the new-value target `(event, value, from)`.
fn encoder(
    src: &str,
    choices: &[Choice],
    target: (usize, i64, Option<usize>),
) -> (Trace, Program, Target) {
    let parsed = crate::syntax::parse(src);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let p = Program::lower(&parsed.test.unwrap(), 8).unwrap();
    let tr = trace_of(&p, Model::Sc, choices);
    let (event, value, from) = target;
    (
        tr,
        p,
        Target::Read {
            event: EventId::new(event),
            value,
            from: from.map(EventId::new),
            late: false,
        },
    )
}

/// The reads MCR-S+ constrains from the start for the new-value target `(event, value,
/// from)` of the trace of `src` (see [`encoder`]): with existence checked on the model (the
/// validity per query), with the static closure (litmus's incremental solver), and as
/// the paper's Algorithm 3 does literally.
fn constrained(
    src: &str,
    choices: &[Choice],
    target: (usize, i64, Option<usize>),
) -> [Vec<usize>; 3] {
    let (tr, p, target) = encoder(src, choices, target);
    let deps = || crate::sdg::Sdg::new(&p).trace_deps(&p, &tr);
    let opts = EncoderOptions {
        prune: true,
        ..EncoderOptions::default()
    };
    let enc = Encoder::new(&tr, deps(), opts.clone());
    assert!(
        enc.targets().contains(&target),
        "{target:?} is not a target of {:?}",
        tr.events
    );
    let reads = |c: Option<Vec<bool>>| -> Vec<usize> {
        (0..tr.events.len())
            .filter(|&i| c.as_ref().expect("dependences")[i])
            .collect()
    };
    let incremental = reads(enc.closure(&target, 0, Validity::Mcr));
    assert_eq!(
        incremental,
        reads(enc.closure(&target, 0, Validity::Cone)),
        "the static closure"
    );
    let enc = Encoder::new(
        &tr,
        deps(),
        EncoderOptions {
            lazy_existence: true,
            ..opts
        },
    );
    [
        reads(enc.closure(&target, 0, Validity::Mcr)),
        incremental,
        reads(enc.closure(&target, 0, Validity::Literal)),
    ]
}

/// A read target's thread keeps in the prefix the steps it reaches the same way whatever
/// the read gives. `y = 1` depends on nothing P0 reads, but with `x` = 0 the thread runs
/// the `fence` first, a step the trace does not have (the replay would
/// diverge); the `unlock` after the read of `z` is reached the same way (a
/// committed critical section may need it), and `y = c` writes what `z`
/// gave.
#[test]
fn a_read_target_stops_its_thread_at_the_first_step_its_value_may_change() {
    let src = "litmus T shared x = 1, y = 0, z = 0; mutex m;
        thread P0 { a = x; if (a == 0) { fence; } y = 1; lock(m); b = z; unlock(m); c = b + 1; y = c; }";
    // 0: a = x (1), 1: y = 1, 2: lock, 3: b = z, 4: unlock, 5: y = c.
    let (tr, p, _) = encoder(src, &[], (0, 0, None));
    let kinds: Vec<String> = tr.events.iter().map(|e| format!("{:?}", e.kind)).collect();
    assert_eq!(kinds.len(), 6, "{kinds:?}");
    let enc = Encoder::new(&tr, None, EncoderOptions::default());
    assert_eq!(
        (enc.stop_after(0), enc.stop_after(3)),
        (Some(1), Some(4)),
        "without dependences: the next step"
    );
    let enc = Encoder::new(
        &tr,
        crate::sdg::Sdg::new(&p).trace_deps(&p, &tr),
        EncoderOptions::default(),
    );
    assert_eq!(
        enc.stop_after(0),
        Some(1),
        "y = 1 comes after the branch on a"
    );
    assert_eq!(enc.stop_after(3), Some(5), "the unlock stays in, y = c not");
}

/// Under PSO, P0 reads `x` from memory right after flushing its own `x = 1`: the value it
/// would be forwarded from its buffer. The seed for P1's read of `y = 1` (P0's load of `x`
/// comes before `y = 1` in P0) therefore leaves the flush of `x` out; with it, the seed would
/// differ from the one the model ordering the flush after the load gives, for the same
/// execution (a redundant one).
#[test]
fn a_load_reading_its_own_flushed_store_does_not_bring_the_flush_into_the_seed() {
    let src = "litmus T shared x = 0, y = 0;
        thread P0 { x = 1; a = x; y = 1; }
        thread P1 { b = y; }";
    let parsed = crate::syntax::parse(src);
    let p = Program::lower(&parsed.test.unwrap(), 8).unwrap();
    let flush = |cell| Choice::Flush {
        thread: 0,
        cell: Some(cell),
    };
    // P1's read of `y` first (0), then P0 step by step, flushing each store at once.
    let tr = trace_of(
        &p,
        Model::Pso,
        &[
            Choice::Exec(1),
            Choice::Exec(0),
            flush(0),
            Choice::Exec(0),
            Choice::Exec(0),
            flush(1),
        ],
    );
    let kinds: Vec<String> = tr
        .events
        .iter()
        .map(|e| format!("{}:{:?}", e.thread, e.kind))
        .collect();
    let find = |pat: &str| {
        kinds
            .iter()
            .position(|k| k.starts_with(pat))
            .unwrap_or_else(|| panic!("{pat} in {kinds:?}"))
    };
    let (read_y, store_x, load_x, store_y) = (
        find("1:Load"),
        find("0:Store { cell: 0"),
        find("0:Load"),
        find("0:Store { cell: 1"),
    );
    let (flush_x, flush_y) = (find("0:Flush { cell: 0"), find("0:Flush { cell: 1"));
    let enc = Encoder::new(&tr, None, EncoderOptions::default());
    let target = Target::Read {
        event: EventId::new(read_y),
        value: 1,
        from: Some(EventId::new(flush_y)),
        late: false,
    };
    // The answer's order: P0's steps as in the trace, then P1's read.
    let order = [store_x, flush_x, load_x, store_y, flush_y, read_y];
    let mut pos = vec![0i64; tr.events.len()];
    for (k, &e) in order.iter().enumerate() {
        pos[e] = k as i64;
    }
    assert!(enc.reads_its_value(load_x, &pos, None));
    assert_eq!(
        enc.cone(&target, 0, &pos),
        vec![store_x, load_x, store_y, flush_y, read_y]
    );
    // The same seed as with the flush ordered after the load.
    let late = [store_x, load_x, store_y, flush_y, read_y, flush_x];
    for (k, &e) in late.iter().enumerate() {
        pos[e] = k as i64;
    }
    assert_eq!(
        enc.cone(&target, 0, &pos),
        vec![store_x, load_x, store_y, flush_y, read_y]
    );
}

/// P0's store to `z` exists by P0's read of `x`, but no read that can be in a seed for P1's
/// read of `y` reads `z`: the read of `x` need not keep its value.
#[test]
fn an_event_that_cannot_be_in_the_seed_constrains_nothing() {
    let src = "litmus T shared x = 0, y = 0, z = 0;
        thread P0 { a = x; if (a == 0) { z = 1; } }
        thread P1 { b = y; }
        thread P2 { y = 1; }";
    // 0: P0 a = x, 1: P0 z = 1, 2: P1 b = y (0), 3: P2 y = 1.
    let [lazy, cone, literal] = constrained(src, &[], (2, 1, Some(3)));
    assert_eq!((lazy, cone, literal), (vec![], vec![], vec![]));
}

/// P1's read of `y` is given P0's `y = 1`, which exists by P0's read of `x`: the static
/// closure keeps that read from the start; with existence checked on the model, only if a
/// model breaks it (see the next test). That read keeps 0, also written by P0's later
/// `x = b`; but that store must come after the read, so it is no source of it, and the
/// read of `z` that `x = b` writes stays free. The paper's Algorithm 3 counts every write
/// of the value as a source and keeps it.
#[test]
fn a_write_that_must_come_after_a_read_is_not_its_source() {
    let src = "litmus T shared x = 0, y = 0, z = 0;
        thread P0 { a = x; if (a == 0) { y = 1; } b = z; x = b; }
        thread P1 { c = y; }";
    // 0: P1 c = y (0), 1: P0 a = x, 2: P0 y = 1, 3: P0 b = z, 4: P0 x = b (0).
    let [lazy, cone, literal] = constrained(src, &[Choice::Exec(1)], (0, 1, Some(2)));
    assert_eq!((lazy, cone, literal), (vec![], vec![1], vec![1, 3]));
}

/// With existence checked on the model, the target's thread keeps its earlier reads (no
/// redundant executions) and the reads the seed's other events exist by are not encoded up
/// front, yet the answer's seed still keeps them: P0's `y = 1` exists only while P0 reads
/// `x == 0`, which P2's `x = 1` would break. The seed is P0's read of `x` (from the initial
/// value), its `y = 1`, P1's read of `w`, then the target, without P2's store.
#[test]
fn existence_is_checked_on_the_model_not_encoded_up_front() {
    let src = "litmus T shared x = 0, y = 0, w = 0;
        thread P0 { a = x; if (a == 0) { y = 1; } }
        thread P1 { d = w; c = y; }
        thread P2 { x = 1; }";
    // 0: P1 d = w, 1: P1 c = y (0), 2: P0 a = x (0), 3: P0 y = 1, 4: P2 x = 1.
    let target = (1, 1, Some(3));
    let [lazy, cone, _] = constrained(src, &[Choice::Exec(1), Choice::Exec(1)], target);
    assert_eq!(lazy, vec![0], "the target's earlier read only");
    assert_eq!(cone, vec![0, 2], "and what the source exists by");
    let (tr, p, target) = encoder(src, &[Choice::Exec(1), Choice::Exec(1)], target);
    // Both solver settings: the incremental one (validity behind guards, a read the model
    // breaks added to the base and the goal asserted again) and the validity per query
    // (the read asserted beside the goal, in place).
    for per_query in [false, true] {
        let make = |deps: bool| {
            let trace_deps = if deps {
                crate::sdg::Sdg::new(&p).trace_deps(&p, &tr)
            } else {
                None
            };
            let opts = EncoderOptions {
                prune: deps,
                lazy_existence: true,
                per_query,
                ..EncoderOptions::default()
            };
            Encoder::new(&tr, trace_deps, opts)
        };
        for deps in [false, true] {
            match make(deps).solve_z3(&target, 0, None) {
                Answer::Sat(mut order) => {
                    assert_eq!(
                        order.last(),
                        Some(&EventId::new(1)),
                        "per query {per_query}, dependences {deps}: the target last"
                    );
                    order.sort_unstable();
                    assert_eq!(
                        order,
                        [0, 1, 2, 3].map(EventId::new),
                        "per query {per_query}, dependences {deps}"
                    );
                }
                a => panic!("per query {per_query}, dependences {deps}: {a:?}"),
            }
        }
        // A model that breaks the read of `x` (forced here by putting P2's store before
        // it) is caught: with the read kept valid there is no answer left.
        let mut enc = make(true);
        enc.forced = vec![(4, 2)];
        assert_eq!(
            enc.solve_z3(&target, 0, None),
            Answer::Unsat,
            "per query {per_query}"
        );
        assert_eq!(
            enc.counts.refinements, 1,
            "per query {per_query}: solved once more with the read of x kept"
        );
        assert_eq!(
            enc.counts.reads_constrained, 2,
            "per query {per_query}: the reads of w and x"
        );
    }
}
/// A seed in canonical order keeps the solved order of dependent events and otherwise the
/// trace's: P1's `y = 1` stays before P0's read of `y`, and P0's `x = 1`, which nothing
/// orders after P1's store, comes first as in the trace. With an `await` in P0, a write of
/// another thread keeps its place against P0's steps that begin or end inside a round,
/// and only those.
#[test]
fn a_canonical_seed_keeps_dependent_pairs_and_otherwise_the_trace_order() {
    let src = "litmus T shared x = 0, y = 0;
        thread P0 { x = 1; a = y; }
        thread P1 { y = 1; b = x; }";
    // 0: P0 x = 1, 1: P0 a = y (0), 2: P1 y = 1, 3: P1 b = x (1).
    let (tr, _, _) = encoder(src, &[], (1, 1, Some(2)));
    let opts = EncoderOptions {
        canonical: true,
        ..EncoderOptions::default()
    };
    let enc = Encoder::new(&tr, None, opts);
    assert_eq!(enc.canonical(&[2, 0, 1, 3]), vec![0, 2, 1, 3]);
    assert_eq!(
        enc.canonical(&[0, 1, 2, 3]),
        vec![0, 1, 2, 3],
        "P0 reads y before y = 1"
    );
    let awaits = "litmus T shared x = 0, y = 0, z = 0, w = 0;
        thread P0 { x = 1; a = y; await(z == 0); }
        thread P1 { w = 1; b = x; }";
    // 0: P0 x = 1, 1: P0 a = y, after which P0's round begins, 2: P0 reads z in it,
    // 3: P1 w = 1, 4: P1 b = x (1).
    let (tr, _, _) = encoder(awaits, &[], (4, 0, None));
    let make = |await_threads: Vec<bool>| {
        let opts = EncoderOptions {
            canonical: true,
            await_threads,
            ..EncoderOptions::default()
        };
        Encoder::new(&tr, None, opts)
    };
    let plain = make(vec![]);
    assert_eq!(
        plain.canonical(&[0, 1, 3, 2, 4]),
        vec![0, 1, 2, 3, 4],
        "no thread has an await"
    );
    let enc = make(vec![true, false]);
    assert_eq!(enc.round_steps(), &[false, true, true, false, false]);
    assert_eq!(
        enc.canonical(&[0, 1, 3, 2, 4]),
        vec![0, 1, 3, 2, 4],
        "w = 1 inside P0's round stays there"
    );
    assert_eq!(
        enc.canonical(&[3, 0, 1, 2, 4]),
        vec![0, 3, 1, 2, 4],
        "before the round, only before it"
    );
}
