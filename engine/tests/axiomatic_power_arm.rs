//! herd's `PPC` and `ARM` dialects against herd7 7.58 on `../shared/conformance/ppc` (416 of
//! Dat3M's POWER tests) and `../shared/conformance/arm` (220 of the herding-cats ARMv7 tests),
//! relative to the repository root; skipped with a message when absent.
//!
//! Every test must parse (an instruction outside the subset is listed with its position and
//! counted per mnemonic), be checked by the axiomatic engine with the project's `ppc.cat` or
//! `arm.cat`, give herd7's verdict (`expected.csv`) and write herd7's final states
//! (`states.json`, herd's lines) through `Report::herd_states`. The counts are printed; any
//! disagreement or unchecked file fails. Every witness is re-checked by the brute-force
//! checker of `axiom_witness/mod.rs`, and every instruction has a hover line. About 3 s.

mod axiom_witness;

use litmus_engine::asm::Arch;
use litmus_engine::axiomatic::{self, builtin_model};
use litmus_engine::syntax;
use std::collections::{BTreeMap, BTreeSet, HashMap};
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

#[derive(Default)]
struct Tally {
    total: usize,
    parsed: usize,
    verdicts: usize,
    states: usize,
    counts: usize,
    problems: Vec<String>,
    outside: BTreeMap<String, usize>,
    witnesses: usize,
}

fn sample(set: &str, arch: Arch) -> Option<Tally> {
    let Some(dir) = shared(set) else {
        println!("SKIPPED {set}: ../shared/conformance/{set} not found; nothing was checked");
        return None;
    };
    let expected = std::fs::read_to_string(dir.join("expected.csv")).expect("expected.csv");
    let states: HashMap<String, Vec<String>> = serde_json::from_str(
        &std::fs::read_to_string(dir.join("states.json")).expect("states.json"),
    )
    .expect("states.json is a map from file to herd's state lines");
    let model = builtin_model(arch);
    let mut t = Tally::default();
    let mut header: Vec<&str> = Vec::new();
    for (i, line) in expected.lines().enumerate() {
        let cols: Vec<&str> = line.split(',').collect();
        if i == 0 {
            header = cols;
            continue;
        }
        let col = |name: &str| {
            header
                .iter()
                .position(|h| *h == name)
                .and_then(|k| cols.get(k).copied())
                .unwrap_or_default()
        };
        let (file, name) = (col("file"), col("test"));
        t.total += 1;
        let src = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
        let p = syntax::parse(&src);
        let (Some(test), Some(code)) = (&p.test, &p.asm) else {
            for d in &p.diagnostics {
                let at = d.span.start as usize;
                let word: String = src[at..]
                    .chars()
                    .take_while(|c| !c.is_whitespace() && *c != ',')
                    .collect();
                if d.message.contains("outside the supported") {
                    *t.outside.entry(word).or_default() += 1;
                }
            }
            let first = p.diagnostics.first().map(|d| {
                let line = src[..d.span.start as usize].lines().count();
                format!("line {line}: {}", d.message)
            });
            t.problems.push(format!(
                "{name}: does not parse ({})",
                first.unwrap_or_default()
            ));
            continue;
        };
        assert_eq!(code.arch, arch, "{name}");
        t.parsed += 1;
        // The editor's hover describes every instruction the front end lowers.
        for i in code.threads.iter().flat_map(|t| &t.instrs) {
            assert!(
                litmus_engine::asm::describe(arch, &i.mnemonic).is_some(),
                "{name}: `{}` has no description",
                i.mnemonic
            );
        }
        let rep = match axiomatic::check(test, code, &model, &|| false) {
            Ok(r) => r,
            Err(e) => {
                t.problems.push(format!("{name}: not checked: {e}"));
                continue;
            }
        };
        if let Some(w) = &rep.witness {
            if let Err(e) = axiom_witness::recheck(arch, w) {
                panic!("{name}: the witness does not satisfy the axioms: {e}");
            }
            t.witnesses += 1;
        }
        let herd_ok = col("verdict") == "Ok";
        if rep.ok == herd_ok {
            t.verdicts += 1;
        } else {
            t.problems.push(format!(
                "{name}: herd7 {}, litmus {} (positive {}, negative {})",
                col("verdict"),
                if rep.ok { "Ok" } else { "No" },
                rep.positive,
                rep.negative
            ));
        }
        if col("positive") == rep.positive.to_string()
            && col("negative") == rep.negative.to_string()
        {
            t.counts += 1;
        }
        let herd: BTreeSet<String> = states
            .get(file)
            .unwrap_or_else(|| panic!("{name}: no states in states.json"))
            .iter()
            .map(|s| s.trim().to_string())
            .collect();
        let ours: BTreeSet<String> = rep.herd_states(test, code, true).into_iter().collect();
        if ours == herd {
            t.states += 1;
        } else {
            t.problems.push(format!(
                "{name}: final states differ: herd7 {herd:?}, litmus {ours:?}"
            ));
        }
    }
    println!(
        "{set}: {} tests; {} parse; verdicts agree with herd7 on {}, final states on {}, \
         positive/negative counts on {}; {} witnesses re-checked",
        t.total, t.parsed, t.verdicts, t.states, t.counts, t.witnesses
    );
    for (m, n) in &t.outside {
        println!("  outside the subset: {m} ({n} tests)");
    }
    for p in &t.problems {
        println!("  {p}");
    }
    Some(t)
}

fn all_agree(set: &str, arch: Arch) {
    if let Some(t) = sample(set, arch) {
        assert!(t.total >= 200, "{set}: only {} tests", t.total);
        assert!(
            t.problems.is_empty(),
            "{set}: {} problems: {:?}",
            t.problems.len(),
            t.problems
        );
        assert_eq!(t.verdicts, t.total);
        assert_eq!(t.states, t.total);
    }
}

#[test]
fn power_agrees_with_herd7() {
    all_agree("ppc", Arch::Ppc);
}

#[test]
fn armv7_agrees_with_herd7() {
    all_agree("arm", Arch::Arm);
}
