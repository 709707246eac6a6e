//! The axiomatic engine with the project's own cat models against herd7's verdicts on
//! `../shared/conformance/riscv` and `../shared/conformance/aarch64` (relative to the
//! repository root; skipped with a message when absent): prints the agreement count and
//! every disagreement, and asserts a floor. Each witness is re-checked by the simple checker
//! in `axiom_witness/mod.rs`. Final states are compared with `states.json` where it has
//! the test, as strings: `Report::herd_states` must write them as herd7 does (the records
//! `SOURCES.csv` takes from the tracesynth log were written by a herd7 before 7.56.3, without
//! brackets around locations, and are compared in that spelling); a difference fails.

mod axiom_witness;

use litmus_engine::asm::Arch;
use litmus_engine::axiomatic::{self, builtin_model};
use litmus_engine::syntax;
use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

fn shared(sub: &str) -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    [
        root.join(format!("../shared/conformance/{sub}")),
        root.join(format!("../../shared/conformance/{sub}")),
    ]
    .into_iter()
    .find(|d| d.exists())
}

struct Tally {
    agree: usize,
    disagree: Vec<String>,
    unsupported: Vec<String>,
    states_checked: usize,
    states_differ: Vec<String>,
    witnesses: usize,
}

fn sample(set: &str, arch: Arch) -> Option<(usize, Tally)> {
    let Some(dir) = shared(set) else {
        println!("SKIPPED {set}: ../shared/conformance/{set} not found; nothing was checked");
        return None;
    };
    let expected = std::fs::read_to_string(dir.join("expected.csv")).expect("expected.csv");
    let states: HashMap<String, serde_json::Value> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("states.json")).unwrap_or("{}".into()),
    )
    .unwrap_or_default();
    // Tests whose herd output is from a herd7 before 7.56.3 (locations without brackets).
    let old_herd: Vec<String> = std::fs::read_to_string(dir.join("SOURCES.csv"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("tracesynth"))
        .filter_map(|l| l.split(',').next().map(str::to_owned))
        .collect();
    let model = builtin_model(arch);
    let mut t = Tally {
        agree: 0,
        disagree: vec![],
        unsupported: vec![],
        states_checked: 0,
        states_differ: vec![],
        witnesses: 0,
    };
    let mut total = 0;
    for line in expected.lines().skip(1) {
        let cols: Vec<&str> = line.split(',').collect();
        let (file, name, verdict) = (cols[0], cols[1], cols[cols.len() - 1] == "1");
        total += 1;
        let src = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
        let p = syntax::parse(&src);
        let (Some(test), Some(code)) = (&p.test, &p.asm) else {
            t.unsupported.push(format!("{name}: does not parse"));
            continue;
        };
        let started = std::time::Instant::now();
        let rep = axiomatic::check(test, code, &model, &|| false);
        let took = started.elapsed().as_secs_f64();
        if took > 0.5 {
            println!("  slow: {name} {took:.1}s");
        }
        let rep = match rep {
            Ok(r) => r,
            Err(e) => {
                t.unsupported.push(format!("{name}: {e}"));
                continue;
            }
        };
        if let Some(w) = &rep.witness {
            if let Err(e) = axiom_witness::recheck(arch, w) {
                panic!("{name}: the witness does not satisfy the axioms: {e}");
            }
            t.witnesses += 1;
        }
        if rep.ok == verdict {
            t.agree += 1;
        } else {
            t.disagree.push(format!(
                "{name}: herd7 {}, litmus {} (positive {}, negative {})",
                if verdict { "Ok" } else { "No" },
                if rep.ok { "Ok" } else { "No" },
                rep.positive,
                rep.negative
            ));
        }
        if let Some(s) = states.get(name) {
            let vars: Vec<String> = serde_json::from_value(s["vars"].clone()).unwrap_or_default();
            let herd: Vec<Vec<String>> =
                serde_json::from_value(s["states"].clone()).unwrap_or_default();
            let herd: BTreeSet<String> = herd
                .iter()
                .map(|st| {
                    let atoms: Vec<String> = vars
                        .iter()
                        .zip(st)
                        .map(|(k, v)| format!("{k}={v};"))
                        .collect();
                    atoms.join(" ")
                })
                .collect();
            let brackets = !old_herd.iter().any(|n| n == name);
            let ours: BTreeSet<String> =
                rep.herd_states(test, code, brackets).into_iter().collect();
            t.states_checked += 1;
            if ours != herd {
                t.states_differ
                    .push(format!("{name}: herd7 {herd:?}, litmus {ours:?}"));
            }
        }
    }
    println!(
        "{set}: {} of {total} agree with herd7; {} disagree, {} not checked; final states \
         compared on {} (differ on {}); {} witnesses re-checked",
        t.agree,
        t.disagree.len(),
        t.unsupported.len(),
        t.states_checked,
        t.states_differ.len(),
        t.witnesses
    );
    for d in &t.disagree {
        println!("  disagree: {d}");
    }
    for d in &t.unsupported {
        println!("  not checked: {d}");
    }
    for d in &t.states_differ {
        println!("  states differ: {d}");
    }
    Some((total, t))
}

/// Every disagreement and every test not checked must be a known one, listed with its
/// reason in `docs/arm-riscv.md`: a new one fails the test. A listed test that now agrees is
/// printed, to be taken off the list.
fn only_known(set: &str, t: &Tally, disagree: &[&str], unchecked: &[&str]) {
    let name = |d: &String| d.split(": ").next().unwrap_or_default().to_string();
    let found: Vec<String> = t.disagree.iter().map(name).collect();
    let skipped: Vec<String> = t.unsupported.iter().map(name).collect();
    for (what, list, got) in [
        ("disagreement", disagree, &found),
        ("test not checked", unchecked, &skipped),
    ] {
        for k in list {
            if !got.iter().any(|g| g == k) {
                println!("{set}: {k} is listed as a known {what} but is not one any more");
            }
        }
        let new: Vec<&String> = got.iter().filter(|g| !list.contains(&g.as_str())).collect();
        assert!(new.is_empty(), "{set}: new {what}s: {new:?}");
    }
    assert!(
        t.states_differ.is_empty(),
        "{set}: final states not written as herd7 writes them: {:?}",
        t.states_differ
    );
}

#[test]
fn riscv_agrees_with_herd7() {
    if let Some((total, t)) = sample("riscv", Arch::RiscV) {
        assert!(total >= 100);
        assert!(t.agree * 100 >= total * 90, "{} of {total}", t.agree);
        only_known("riscv", &t, &[], &[]);
    }
}

#[test]
fn aarch64_agrees_with_herd7() {
    if let Some((total, t)) = sample("aarch64", Arch::AArch64) {
        assert!(total >= 100);
        // Every test agrees: none disagrees, none is left unchecked.
        assert!(t.agree * 100 >= total * 95, "{} of {total}", t.agree);
        only_known("aarch64", &t, &[], &[]);
    }
}
