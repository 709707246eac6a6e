//! x86 conformance: every test of `../shared/conformance/x86` (herd's `X86` dialect) and of
//! `../shared/conformance/x86_64` (herd's `X86_64` dialect), relative to the repository root
//! (skipped with a message when absent), under SC and TSO with both engines, compared with
//! `expected.csv` (herd7's `Ok`/`No` per model). PSO must allow every TSO state.

use litmus_engine::{check, syntax, CheckOptions, Control, EngineKind, Model};
use std::path::PathBuf;
use std::time::Instant;

#[test]
fn x86_conformance_suite_agrees_with_herd_mcr() {
    conformance(EngineKind::Mcr, "x86", "LITMUS_CONFORMANCE", 400);
}

#[test]
fn x86_conformance_suite_agrees_with_herd_exhaustive() {
    conformance(EngineKind::Exhaustive, "x86", "LITMUS_CONFORMANCE", 400);
}

#[test]
fn x86_64_conformance_suite_agrees_with_herd_mcr() {
    conformance(EngineKind::Mcr, "x86_64", "LITMUS_CONFORMANCE_X86_64", 300);
}

#[test]
fn x86_64_conformance_suite_agrees_with_herd_exhaustive() {
    conformance(
        EngineKind::Exhaustive,
        "x86_64",
        "LITMUS_CONFORMANCE_X86_64",
        300,
    );
}

fn conformance(engine: EngineKind, set: &str, var: &str, min_rows: usize) {
    // `../shared` next to the repository (`/work/main` → `/work/shared`); worktrees one level
    // deeper also look one more level up; `LITMUS_CONFORMANCE` overrides.
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut candidates: Vec<PathBuf> = std::env::var_os(var)
        .map(PathBuf::from)
        .into_iter()
        .collect();
    candidates.push(root.join(format!("../shared/conformance/{set}")));
    candidates.push(root.join(format!("../../shared/conformance/{set}")));
    let Some(dir) = candidates
        .into_iter()
        .find(|d| d.join("expected.csv").is_file())
    else {
        println!("skipping {set} conformance: ../shared/conformance/{set} not found");
        return;
    };
    let csv = std::fs::read_to_string(dir.join("expected.csv")).unwrap_or_default();
    let start = Instant::now();
    let opts = CheckOptions {
        engine: engine.into(),
        ..CheckOptions::default()
    };
    let ctl = Control::new();
    let mut disagreements = Vec::new();
    let mut rows = 0;
    for line in csv.lines().skip(1) {
        let cols: Vec<&str> = line.trim().split(',').collect();
        let [file, _quantifier, sc, tso] = cols[..] else {
            continue;
        };
        rows += 1;
        let Ok(src) = std::fs::read_to_string(dir.join(file)) else {
            disagreements.push(format!("{file}: cannot read"));
            continue;
        };
        let parsed = syntax::parse(&src);
        let Some(test) = parsed.test else {
            let msgs: Vec<&str> = parsed
                .diagnostics
                .iter()
                .map(|d| d.message.as_str())
                .collect();
            disagreements.push(format!("{file}: does not parse: {msgs:?}"));
            continue;
        };
        let mut tso_states = Vec::new();
        for (model, want) in [(Model::Sc, sc), (Model::Tso, tso)] {
            let r = check(&test, model, &opts, &ctl);
            let got = r
                .condition
                .as_ref()
                .map(|c| if c.holds { "1" } else { "0" });
            if !r.complete || got != Some(want) {
                disagreements.push(format!(
                    "{file} {}: expected {want}, got {got:?} (complete {})",
                    model.label(),
                    r.complete
                ));
            }
            if model == Model::Tso {
                tso_states = r.states;
            }
        }
        let pso = check(&test, Model::Pso, &opts, &ctl);
        if tso_states.iter().any(|s| !pso.states.contains(s)) {
            disagreements.push(format!("{file} PSO: misses a TSO state"));
        }
    }
    println!(
        "{set} conformance ({engine:?}): {rows} tests, {} disagreements, {:.1}s",
        disagreements.len(),
        start.elapsed().as_secs_f64()
    );
    for d in &disagreements {
        println!("  {d}");
    }
    assert!(rows >= min_rows, "only {rows} rows in expected.csv");
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}
