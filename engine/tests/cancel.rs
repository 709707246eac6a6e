//! Parsing and lowering stop on request: a huge input ends promptly with "stopped" (the caller
//! reports it as incomplete), and a stop check that never fires changes nothing.

use litmus_engine::ir::{LowerError, Program};
use litmus_engine::options::ENGINES;
use litmus_engine::testgen::{random_test_with, GenConfig};
use litmus_engine::{syntax, CheckOptions, Control, EngineChoice, EngineKind, Model};
use std::cell::Cell;

/// One thread of `n` register assignments over 50 registers (issue 26's reproducer).
fn straight_line(n: usize) -> String {
    let body: String = (0..n).map(|i| format!("  r{} = {i};\n", i % 50)).collect();
    format!("litmus S\nshared x = 0;\nthread P0 {{\n{body}}}\nexists (x == 0)\n")
}

/// The same in herd's x86 dialect: `n` rows of `MOV EAX,$i`.
fn x86_rows(n: usize) -> String {
    let rows: String = (0..n).map(|i| format!(" MOV EAX,${i} ;\n")).collect();
    format!("X86 S\n{{ x=0; }}\n P0 ;\n{rows}exists (x=0)\n")
}

/// How many times parsing `text` asks its stop check when it never says stop.
fn polls(text: &str) -> usize {
    let n = Cell::new(0usize);
    let p = syntax::parse_with(text, None, &|| {
        n.set(n.get() + 1);
        false
    });
    assert!(p.is_some_and(|p| p.test.is_some()));
    n.get()
}

#[test]
fn parsing_stops_at_any_poll_and_is_unchanged_without_one() {
    for text in [straight_line(20_000), x86_rows(20_000)] {
        let total = polls(&text);
        // Polled during tree-sitter's parse and during lowering, many times on this size.
        assert!(total > 10, "only {total} polls");
        // Stopping at the first, a middle and the last poll: always "stopped", never a
        // partial test.
        for k in [1, total / 2, total] {
            let n = Cell::new(0usize);
            let p = syntax::parse_with(&text, None, &|| {
                n.set(n.get() + 1);
                n.get() >= k
            });
            assert!(p.is_none(), "stop at poll {k} of {total} gave a result");
            // Once it has said stop, it is not asked again.
            assert_eq!(n.get(), k);
        }
        let a = syntax::parse(&text);
        let b = syntax::parse_with(&text, None, &|| false).unwrap();
        assert_eq!(a.test, b.test);
        assert_eq!(a.diagnostics, b.diagnostics);
    }
}

#[test]
fn a_small_input_is_parsed_whatever_the_stop_check_says_later() {
    // Too small to reach a poll: parsing finishes (the deadline is checked again later).
    let p = syntax::parse_with("litmus T\nshared x;\nthread P0 { x = 1; }\n", None, &|| {
        true
    });
    assert!(p.is_some_and(|p| p.test.is_some()));
}

#[test]
fn lowering_stops_on_request() {
    let test = syntax::parse(&straight_line(5_000)).test.unwrap();
    assert_eq!(
        Program::lower_with(&test, 8, &|| true),
        Err(LowerError::Stopped)
    );
    assert_eq!(
        Program::lower_with(&test, 8, &|| false),
        Program::lower(&test, 8).map_err(LowerError::Invalid)
    );
}

#[test]
fn a_cancelled_check_of_a_huge_thread_is_incomplete_under_every_engine() {
    let test = syntax::parse(&straight_line(50_000)).test.unwrap();
    for engine in [
        EngineKind::Mcr.into(),
        EngineKind::Exhaustive.into(),
        EngineKind::Dpor.into(),
        EngineChoice::Auto,
    ] {
        let ctl = Control::new();
        ctl.cancel();
        let opts = CheckOptions {
            engine,
            ..CheckOptions::default()
        };
        let r = litmus_engine::check(&test, Model::Sc, &opts, &ctl);
        assert!(!r.complete, "{engine:?}");
        assert!(r.states.is_empty(), "{engine:?}");
        assert!(
            r.warnings.iter().any(|w| w.message.contains("cancelled")),
            "{engine:?}: {:?}",
            r.warnings
        );
    }
}

#[test]
fn a_past_deadline_stops_a_check_of_a_huge_thread() {
    let test = syntax::parse(&straight_line(50_000)).test.unwrap();
    let opts = CheckOptions {
        timeout: Some(std::time::Duration::ZERO),
        ..CheckOptions::default()
    };
    let r = litmus_engine::check(&test, Model::Tso, &opts, &Control::new());
    assert!(!r.complete);
    assert!(
        r.warnings.iter().any(|w| w.message.contains("timeout")),
        "{:?}",
        r.warnings
    );
}

/// Every engine in the table of engine names, through the one interface (`check`): on the
/// random program with the most executions of the reference explorer, a cancelled check and a
/// check past its deadline end incomplete, the cancelled one having explored less than the
/// full check.
#[test]
fn every_engine_ends_incomplete_when_cancelled_or_past_its_deadline() {
    let opts = |engine: EngineChoice| CheckOptions {
        engine,
        ..CheckOptions::default()
    };
    // The largest of some random programs (by the reference explorer's count), so that
    // exploration takes more than a few hundred steps.
    let t = (0..80)
        .map(|s| random_test_with(s, GenConfig::all()))
        .max_by_key(|t| {
            litmus_engine::check(
                t,
                Model::Pso,
                &opts(EngineKind::Exhaustive.into()),
                &Control::new(),
            )
            .stats
            .executions
        })
        .expect("some programs");
    for (name, engine, _) in ENGINES {
        let full = litmus_engine::check(&t, Model::Pso, &opts(engine), &Control::new());
        // The engines differ in what they count (`auto` answers with whichever member wins:
        // DPOR runs the fewest), so only enough work for a cancel to cut short.
        assert!(
            full.complete && full.stats.executions > 20,
            "{name}: {:?}",
            full.stats
        );
        let ctl = Control::new();
        ctl.cancel();
        let r = litmus_engine::check(&t, Model::Pso, &opts(engine), &ctl);
        assert!(!r.complete, "{name}");
        assert!(r.stats.executions < full.stats.executions, "{name}");
        assert!(
            r.warnings.iter().any(|w| w.message.contains("incomplete")),
            "{name}: {:?}",
            r.warnings
        );
        let past = CheckOptions {
            timeout: Some(std::time::Duration::ZERO),
            ..opts(engine)
        };
        let r = litmus_engine::check(&t, Model::Pso, &past, &Control::new());
        assert!(!r.complete && r.stopped.is_none(), "{name}");
    }
    println!(
        "{} engines on a program of {} threads",
        ENGINES.len(),
        t.threads.len()
    );
}

/// A model choosing among thousands of coherence orders of one candidate (`with co from
/// generate_cos(...)`) is asked to stop between them, and stops at the first yes: a kernel
/// test's single candidate can take minutes, and a deadline must not wait for its end.
#[test]
fn a_model_choosing_among_coherence_orders_stops_between_them() {
    use litmus_engine::cat::{rel::Rel, Env, Model, Value};
    let text = "\"orders\"\ninclude \"cross.cat\"\nwith co from generate_cos(0)\n\
                flag ~empty co as ordered\n";
    let model = Model::parse(text, &|_| None).expect("parses");
    // seven writes to one location, unordered: 7! = 5040 coherence orders
    let n = 7;
    let mut env = Env::new(n);
    let mut loc = Rel::empty(n);
    for a in 0..n {
        for b in 0..n {
            loc.add(a, b);
        }
    }
    env.vars.insert("W".into(), Value::Set((1 << n) - 1));
    env.vars.insert("loc".into(), Value::Rel(loc));
    let polls = Cell::new(0u64);
    let all = model
        .outcomes(&env, &|| {
            polls.set(polls.get() + 1);
            false
        })
        .expect("runs");
    assert_eq!(all.len(), 5040, "one outcome per order");
    assert!(all.iter().all(|o| o.flags == ["ordered"]));
    assert!(polls.get() >= 5040, "asked {} times", polls.get());
    for k in [1, 100, 5000] {
        let asked = Cell::new(0u64);
        let r = model.outcomes(&env, &|| {
            asked.set(asked.get() + 1);
            asked.get() >= k
        });
        assert!(r.is_err(), "stop at poll {k}: ran to the end");
        assert_eq!(asked.get(), k, "asked again after saying stop");
    }
}
