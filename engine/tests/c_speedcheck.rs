//! herd's `-speedcheck true` for C tests ([`Explore::Relevant`]): only the executions
//! relevant to the condition are examined. On a sample of the shared kernel tests (every
//! fourth row of `expected.csv`), against every execution ([`Explore::Full`]): the verdict
//! is the same, the relevant count is the full run's (the positive executions for `exists`
//! and `~exists`, the negative ones for `forall`), the other count is 0, and every state is
//! one of the full run's. And a chain of 16 threads, too many combinations of paths for a
//! full count, which [`Explore::Auto`] answers from the relevant executions alone, and a
//! spin-lock emulation whose coherence orders need more model runs than a full count may make.

mod c_support;

use litmus_engine::ast::Quantifier;
use litmus_engine::axiomatic::{check_c_with, Explore, FULL_COMBOS, FULL_RUNS};
use litmus_engine::c::lower;
use std::collections::BTreeSet;

fn run(k: &c_support::Kernel, text: &str, explore: Explore) -> litmus_engine::axiomatic::CReport {
    let p = litmus_engine::syntax::parse(text);
    let (Some(test), Some(src)) = (&p.test, &p.c) else {
        panic!("does not parse: {:?}", p.diagnostics);
    };
    let prog = lower(src, &k.defs).expect("lowers");
    check_c_with(test, src, &prog, &k.model, &k.variants, explore, &|| false).expect("checks")
}

#[test]
fn relevant_executions_give_the_full_verdict() {
    let Some(root) = c_support::root("linux") else {
        println!("SKIPPED: ../shared/conformance/linux not found; no C test was checked");
        return;
    };
    let k = c_support::kernel(&root);
    let csv = std::fs::read_to_string(root.join("expected.csv")).unwrap();
    let (mut checked, mut exists, mut forall, mut witnessed) = (0, 0, 0, 0);
    for (i, line) in csv.lines().skip(1).enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        if i % 4 != 0 || f[8] != "ok" {
            continue;
        }
        let text = std::fs::read_to_string(root.join(f[0])).unwrap();
        let full = run(&k, &text, Explore::Full);
        let part = run(&k, &text, Explore::Relevant);
        let file = f[0];
        assert!(!full.partial && part.partial, "{file}");
        assert_eq!(full.ok, part.ok, "{file}: the verdict");
        if full.quantifier == Quantifier::Forall {
            forall += 1;
            assert_eq!((part.positive, part.negative), (0, full.negative), "{file}");
        } else {
            exists += 1;
            assert_eq!((part.positive, part.negative), (full.positive, 0), "{file}");
        }
        witnessed += (part.positive + part.negative > 0) as usize;
        let all: BTreeSet<&String> = full.states.iter().collect();
        for s in &part.states {
            assert!(
                all.contains(s),
                "{file}: state {s} is not one of the full run's"
            );
        }
        assert!(part.candidates <= full.candidates, "{file}");
        checked += 1;
    }
    println!(
        "speedcheck: {checked} kernel tests ({exists} exists or ~exists, {forall} forall; \
         {witnessed} with relevant executions) give the full run's verdict and counts"
    );
    assert!(checked >= 100, "only {checked} tests checked");
    assert!(witnessed > 0 && witnessed < checked);
}

/// A load-buffering chain of `n` threads: each reads its location and writes the next.
fn chain(n: usize) -> String {
    let mut s = format!("C LB-chain-{n}\n{{}}\n");
    for t in 0..n {
        let (a, b) = (t, (t + 1) % n);
        s += &format!(
            "P{t}(int *x{a}, int *x{b})\n{{\n  int r0;\n  r0 = READ_ONCE(*x{a});\n  \
             WRITE_ONCE(*x{b}, 1);\n}}\n"
        );
    }
    let cond: Vec<String> = (0..n).map(|t| format!("{t}:r0=1")).collect();
    s + &format!("exists ({})\n", cond.join(" /\\ "))
}

#[test]
fn auto_answers_a_test_too_large_to_count_from_its_relevant_executions() {
    let Some(root) = c_support::root("linux") else {
        println!("SKIPPED: ../shared/conformance/linux not found; no C test was checked");
        return;
    };
    let k = c_support::kernel(&root);
    // 2^16 combinations of paths, more than a full count takes
    const { assert!(1u64 << 16 > FULL_COMBOS) };
    let r = run(&k, &chain(16), Explore::Auto);
    assert!(r.partial, "16 threads: only the relevant executions");
    // the kernel model allows load buffering of marked accesses without dependencies
    assert!(r.ok && r.positive == 1 && r.negative == 0, "{r:?}");
    assert_eq!(r.states.len(), 1);
    // a small chain is counted in full, and the two agree on it
    let small = run(&k, &chain(4), Explore::Auto);
    assert!(!small.partial);
    assert_eq!(
        small.positive + small.negative,
        16,
        "every combination of 4 reads"
    );
    let rel = run(&k, &chain(4), Explore::Relevant);
    assert_eq!((rel.ok, rel.positive), (small.ok, small.positive));
}

#[test]
fn auto_answers_a_spin_lock_emulation_from_its_relevant_executions() {
    let Some(root) = c_support::root("linux") else {
        println!("SKIPPED: ../shared/conformance/linux not found; no C test was checked");
        return;
    };
    let k = c_support::kernel(&root);
    // 4 threads: 256 combinations of paths, far below FULL_COMBOS, but each candidate has
    // hundreds of coherence orders of the lock's 8 writes: more model runs than FULL_RUNS
    let text = c_support::sb_xchg_lock(4);
    let r = run(&k, &text, Explore::Auto);
    assert!(
        r.partial,
        "over {FULL_RUNS} model runs: the relevant executions only"
    );
    assert!(
        !r.ok && r.positive == 0,
        "the lock forbids the state: {r:?}"
    );
    assert_eq!(r, run(&k, &text, Explore::Relevant));
    // 2 threads: counted in full
    let text = c_support::sb_xchg_lock(2);
    let small = run(&k, &text, Explore::Auto);
    assert!(!small.partial);
    assert_eq!(small, run(&k, &text, Explore::Full));
}
