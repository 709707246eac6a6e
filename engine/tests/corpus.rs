//! Runs every program of `tests/litmus/*.litmus` under SC, TSO and PSO with every engine (MCR,
//! the default; DPOR; the reference explorer) and compares each with its hand-derived sidecar
//! `*.expected`; MCR and DPOR must also agree with the reference explorer on everything the sidecar does
//! not list (every final state in full, every violation's kind and position, the condition's
//! counts).
//!
//! ```text
//! keys: P0:r0 P1:r1            # the final-state keys the states below list, in order
//! sc: states 0,1 1,0 1,1       # reachable final states projected onto the keys
//! tso pso: condition true 1 3  # holds, herd's positive and negative counts
//! sc tso pso: violations assert deadlock   # kinds of the violations (a multiset)
//! sc: warnings loop-bound      # optional; without it no loop-bound warning is expected
//! ```
//!
//! Every reported schedule (violations, witness) must also replay to what was reported.

use litmus_engine::condition::{falsifies, satisfies};
use litmus_engine::report::{ModelReport, ViolationKind};
use litmus_engine::{check, replay, syntax, CheckOptions, Control, EngineKind, Model, ReplayEnd};
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(Default, Debug)]
struct Expect {
    states: Option<Vec<String>>,
    condition: Option<String>,
    violations: Option<Vec<String>>,
    loop_bound: bool,
}

fn parse_expected(text: &str) -> Result<(Vec<String>, BTreeMap<Model, Expect>), String> {
    let mut keys = None;
    let mut per: BTreeMap<Model, Expect> = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (head, rest) = line.split_once(':').ok_or(format!("bad line {line:?}"))?;
        let rest = rest.trim();
        if head == "keys" {
            keys = Some(rest.split_whitespace().map(String::from).collect());
            continue;
        }
        let (field, values) = rest.split_once(' ').unwrap_or((rest, ""));
        let values: Vec<String> = values.split_whitespace().map(String::from).collect();
        for m in head.split_whitespace() {
            let model = Model::parse(m).ok_or(format!("bad model {m:?}"))?;
            let e = per.entry(model).or_default();
            match field {
                "states" => {
                    let mut v = values.clone();
                    v.sort();
                    e.states = Some(v)
                }
                "condition" => e.condition = Some(values.join(" ")),
                "violations" => {
                    let mut v = values.clone();
                    v.sort();
                    e.violations = Some(v)
                }
                "warnings" => e.loop_bound = values.iter().any(|w| w == "loop-bound"),
                _ => return Err(format!("bad field {field:?}")),
            }
        }
    }
    Ok((keys.ok_or("no keys line")?, per))
}

fn kind_name(k: ViolationKind) -> &'static str {
    match k {
        ViolationKind::Assert => "assert",
        ViolationKind::Condition => "condition",
        ViolationKind::Error => "error",
        ViolationKind::Deadlock => "deadlock",
    }
}

fn compare(keys: &[String], e: &Expect, r: &ModelReport) -> Vec<String> {
    let mut out = Vec::new();
    if !r.complete {
        out.push("exploration incomplete".to_string());
    }
    let mut states: Vec<String> = r
        .states
        .iter()
        .map(|s| {
            keys.iter()
                .map(|k| s.get(k).map_or("?".to_string(), |v| v.to_string()))
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    states.sort();
    states.dedup();
    match &e.states {
        None => out.push("no expected states".into()),
        Some(x) if *x != states => out.push(format!("states: expected {x:?}, got {states:?}")),
        _ => {}
    }
    let cond = r
        .condition
        .as_ref()
        .map(|c| format!("{} {} {}", c.holds, c.positive, c.negative));
    if e.condition != cond {
        out.push(format!(
            "condition: expected {:?}, got {cond:?}",
            e.condition
        ));
    }
    let mut kinds: Vec<String> = r
        .violations
        .iter()
        .map(|v| kind_name(v.kind).to_string())
        .collect();
    kinds.sort();
    match &e.violations {
        None => out.push("no expected violations".into()),
        Some(x) if *x != kinds => out.push(format!("violations: expected {x:?}, got {kinds:?}")),
        _ => {}
    }
    let lb = r.warnings.iter().any(|w| w.message.contains("loop bound"));
    if lb != e.loop_bound {
        out.push(format!(
            "loop-bound warning: expected {}, got {lb}",
            e.loop_bound
        ));
    }
    out
}

fn check_replays(
    test: &litmus_engine::ast::Test,
    model: Model,
    opts: &CheckOptions,
    r: &ModelReport,
) -> Vec<String> {
    let mut out = Vec::new();
    for v in &r.violations {
        match (v.kind, replay(test, model, opts, &v.schedule)) {
            (_, Err(e)) => out.push(format!("{:?} schedule does not replay: {e}", v.kind)),
            (ViolationKind::Condition, Ok(ReplayEnd::Final(s))) => {
                let q = test.condition.as_ref().unwrap().quantifier;
                if !falsifies(q, satisfies(test, &s).unwrap()) || !r.states.contains(&s) {
                    out.push(format!(
                        "condition schedule replays to a state that does not falsify it: {s:?}"
                    ));
                }
            }
            (k, Ok(ReplayEnd::Violation { kind, span, .. })) if k == kind && span == v.span => {}
            (k, Ok(end)) => out.push(format!("{k:?} schedule replays to {end:?}")),
        }
    }
    if let Some(w) = &r.witness {
        match replay(test, model, opts, w) {
            Ok(ReplayEnd::Final(s))
                if satisfies(test, &s) == Some(true) && r.states.contains(&s) => {}
            other => out.push(format!("witness replays to {other:?}")),
        }
    }
    out
}

#[test]
fn corpus_matches_hand_derived_expectations() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/litmus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/litmus")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    files.sort();
    assert!(files.len() >= 40, "only {} corpus programs", files.len());
    let ctl = Control::new();
    let mut failures = Vec::new();
    for f in &files {
        let name = f.file_stem().unwrap().to_string_lossy().to_string();
        let src = std::fs::read_to_string(f).unwrap();
        let parsed = syntax::parse(&src);
        let Some(test) = parsed.test else {
            failures.push(format!("{name}: does not parse: {:?}", parsed.diagnostics));
            continue;
        };
        let exp_text = std::fs::read_to_string(f.with_extension("expected"))
            .unwrap_or_else(|_| panic!("{name}: no .expected sidecar"));
        let (keys, per) = match parse_expected(&exp_text) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{name}.expected: {e}"));
                continue;
            }
        };
        let mut reports: Vec<(EngineKind, Model, ModelReport)> = Vec::new();
        for engine in [EngineKind::Mcr, EngineKind::Exhaustive, EngineKind::Dpor] {
            // A bound so that a slow run shows up as "exploration incomplete", not a hang.
            let opts = CheckOptions {
                engine,
                timeout: Some(std::time::Duration::from_secs(30)),
                ..CheckOptions::default()
            };
            for model in Model::ALL {
                let Some(e) = per.get(&model) else {
                    failures.push(format!("{name}: no expectations for {model:?}"));
                    continue;
                };
                let t0 = std::time::Instant::now();
                let r = check(&test, model, &opts, &ctl);
                eprintln!(
                    "{name:24} {engine:?} {}: {:.2}s",
                    model.label(),
                    t0.elapsed().as_secs_f64()
                );
                for msg in compare(&keys, e, &r)
                    .into_iter()
                    .chain(check_replays(&test, model, &opts, &r))
                {
                    failures.push(format!("{name} {engine:?} {}: {msg}", model.label()));
                }
                reports.push((engine, model, r));
            }
        }
        for (engine, model, mcr) in reports.iter().filter(|r| r.0 != EngineKind::Exhaustive) {
            let Some((_, _, exh)) = reports
                .iter()
                .find(|r| r.0 == EngineKind::Exhaustive && r.1 == *model)
            else {
                continue;
            };
            let spans = |r: &ModelReport| -> std::collections::BTreeSet<String> {
                r.violations
                    .iter()
                    .map(|v| format!("{:?}@{:?}", v.kind, v.span))
                    .collect()
            };
            if mcr.states != exh.states
                || spans(mcr) != spans(exh)
                || mcr.condition != exh.condition
            {
                failures.push(format!(
                    "{name} {engine:?} {}: differs from the reference explorer: states {:?} vs {:?}, violations {:?} vs {:?}",
                    model.label(),
                    mcr.states,
                    exh.states,
                    spans(mcr),
                    spans(exh)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
