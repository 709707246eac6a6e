//! Long expressions (issue 26): a chain of one associative operator of any length is accepted
//! and keeps its value (it is lowered as a balanced tree, `syntax::expr`), and a statement of
//! many loads keeps a few temporaries, not one per load (`ir::lower`), with the values each
//! interleaving gives.

use litmus_engine::ir::Program;
use litmus_engine::{check, syntax, CheckOptions, Control, EngineKind, Model};
use std::collections::BTreeSet;

/// The values of `P0:r0` over the final states, per engine (all must agree).
fn r0_values(src: &str, model: Model) -> BTreeSet<i64> {
    let test = syntax::parse(src).test.expect("parses");
    let mut seen = None;
    for engine in [EngineKind::Exhaustive, EngineKind::Dpor, EngineKind::Mcr] {
        let opts = CheckOptions {
            engine: engine.into(),
            ..CheckOptions::default()
        };
        let r = check(&test, model, &opts, &Control::new());
        assert!(r.complete, "{engine:?}: {:?}", r.warnings);
        let values: BTreeSet<i64> = r.states.iter().filter_map(|s| s.get("P0:r0")).collect();
        if let Some(s) = &seen {
            assert_eq!(s, &values, "{engine:?} disagrees");
        }
        seen = Some(values);
    }
    seen.unwrap()
}

#[test]
fn long_chains_of_an_associative_operator_are_accepted_with_their_value() {
    let n: i64 = 5_000;
    let terms: Vec<String> = (1..=n).map(|i| i.to_string()).collect();
    let conj: Vec<String> = (0..n).map(|_| "P0:r0 > 0".to_string()).collect();
    let src = format!(
        "litmus Sum\nthread P0 {{ r0 = {}; r1 = 3 * {}; }}\nexists ({})\n",
        terms.join(" + "),
        vec!["2"; 40].join(" * "),
        conj.join(" && ")
    );
    let parsed = syntax::parse(&src);
    assert!(parsed.test.is_some(), "{:?}", parsed.diagnostics);
    let test = parsed.test.unwrap();
    let r = check(&test, Model::Sc, &CheckOptions::default(), &Control::new());
    assert_eq!(r.states.len(), 1);
    assert_eq!(r.states[0].get("P0:r0"), Some(n * (n + 1) / 2));
    assert_eq!(r.states[0].get("P0:r1"), Some(3 << 40));
    assert!(
        r.condition.expect("a condition").holds,
        "exists (r0 > 0 && ...) holds"
    );
}

#[test]
fn a_statement_of_many_loads_keeps_few_registers() {
    let n = 20_000;
    let src = format!(
        "litmus Loads\nshared x = 0;\nthread P0 {{ r0 = {}; }}\n",
        vec!["x"; n].join(" + ")
    );
    let test = syntax::parse(&src).test.expect("parses");
    let p = Program::lower(&test, 10).expect("lowers");
    // One temporary per load was 20,001 registers, and every state of the thread held them all.
    assert!(
        p.threads[0].n_regs < 64,
        "{} registers",
        p.threads[0].n_regs
    );
}

/// Each interleaving of `P0: r0 = e` (loads of `x` and `y`, left to right) with `P1: x = 1;
/// y = 1;` under SC: `x` reads 1 from the `i`-th load on, `y` from the `j`-th (`i <= j`).
fn expected(loads: &[(char, i64)], combine: impl Fn(&[i64]) -> i64) -> BTreeSet<i64> {
    let n = loads.len();
    let mut out = BTreeSet::new();
    for i in 0..=n {
        for j in i..=n {
            let v: Vec<i64> = loads
                .iter()
                .enumerate()
                .map(|(k, &(loc, c))| c * i64::from(if loc == 'x' { k >= i } else { k >= j }))
                .collect();
            out.insert(combine(&v));
        }
    }
    out
}

#[test]
fn folded_loads_keep_the_values_of_every_interleaving() {
    // 40 loads with distinct weights, so that every (i, j) gives its own sum: folding the
    // left operand into one temporary must keep every loaded value and the order of the loads.
    let loads: Vec<(char, i64)> = (0..40)
        .map(|k| (if k % 3 == 0 { 'y' } else { 'x' }, k + 1))
        .collect();
    let sum: Vec<String> = loads.iter().map(|(l, c)| format!("{c} * {l}")).collect();
    let src = format!(
        "litmus Fold\nshared x = 0, y = 0;\nthread P0 {{ r0 = {}; }}\nthread P1 {{ x = 1; y = 1; }}\n",
        sum.join(" + ")
    );
    assert_eq!(
        r0_values(&src, Model::Sc),
        expected(&loads, |v| v.iter().sum())
    );
    // A non-associative operator above folded operands: (20 loads) - (20 loads).
    let (a, b) = loads.split_at(20);
    let side = |s: &[(char, i64)]| {
        s.iter()
            .map(|(l, c)| format!("{c} * {l}"))
            .collect::<Vec<_>>()
            .join(" + ")
    };
    let src = format!(
        "litmus Diff\nshared x = 0, y = 0;\nthread P0 {{ r0 = ({}) - ({}); }}\nthread P1 {{ x = 1; y = 1; }}\n",
        side(a),
        side(b)
    );
    assert_eq!(
        r0_values(&src, Model::Sc),
        expected(&loads, |v| v[..20].iter().sum::<i64>()
            - v[20..].iter().sum::<i64>())
    );
}
