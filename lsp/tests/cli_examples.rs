//! Every bundled example parses without diagnostics, and the results its header comment
//! promises are the ones `litmus check` gives.
//!
//! Header lines `SC   No   ...` state per model the condition's verdict (`Ok`/`No`), `pass`
//! (no violation) or the kind of violation expected (`assert`, `condition`, `error`,
//! `deadlock`); `Exit status N` states the exit status.
//!
//! The header's "Final states" block states the whole outcome per model in the corpus's sidecar
//! format (`tests/litmus/README.md`), comment markers aside: `keys:` names every key of the
//! final states, then per model its states (a set), the condition's verdict with herd's
//! positive and negative counts, and the kinds of its violations (a multiset). Checked with
//! the default engine (`auto`), MCR and the reference explorer.

mod cli_support;
use cli_support::*;

fn examples() -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "litmus"))
        .collect();
    v.sort();
    v
}

#[test]
fn the_required_examples_exist() {
    let names: Vec<String> = examples()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for required in [
        "sb.litmus",
        "mp.litmus",
        "dekker.litmus",
        "locked-counter.litmus",
    ] {
        assert!(
            names.iter().any(|n| n == required),
            "missing examples/{required}"
        );
    }
}

#[test]
fn every_example_parses_without_diagnostics() {
    for path in examples() {
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed = litmus_engine::syntax::parse(&text);
        assert!(
            parsed.diagnostics.is_empty(),
            "{}: {:?}",
            path.display(),
            parsed.diagnostics
        );
        assert!(parsed.test.is_some(), "{}", path.display());
    }
}

struct Expectation {
    model: &'static str,
    word: String,
}

fn header_expectations(text: &str) -> (Vec<Expectation>, Option<i32>) {
    let mut out = Vec::new();
    let mut exit = None;
    for line in text.lines() {
        let t = line.trim_start_matches(['/', '(', '*', ' ']).trim();
        if t.starts_with("litmus ") || t.starts_with("X86 ") {
            break;
        }
        if let Some(rest) = t.strip_prefix("Exit status ") {
            exit = rest
                .trim_end_matches(|c: char| !c.is_ascii_digit())
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|n| n.parse().ok());
        }
        let mut words = t.split_whitespace();
        let (Some(m), Some(w)) = (words.next(), words.next()) else {
            continue;
        };
        let model = match m {
            "SC" => "sc",
            "TSO" => "tso",
            "PSO" => "pso",
            _ => continue,
        };
        if [
            "Ok",
            "No",
            "pass",
            "assert",
            "condition",
            "error",
            "deadlock",
        ]
        .contains(&w)
        {
            out.push(Expectation {
                model,
                word: w.to_owned(),
            });
        }
    }
    (out, exit)
}

#[test]
fn every_example_gives_the_results_its_header_promises() {
    for path in examples() {
        let text = std::fs::read_to_string(&path).unwrap();
        let (expectations, exit) = header_expectations(&text);
        let name = path.display().to_string();
        assert_eq!(
            expectations.len(),
            3,
            "{name}: the header must give SC, TSO and PSO"
        );
        let exit = exit.unwrap_or_else(|| panic!("{name}: the header must give the exit status"));
        // MCR and the reference explorer (the default engine: the final-states test below).
        for engine in ["mcr", "exhaustive"] {
            let r = run(&["check", "--json", "--engine", engine, &name]);
            assert_eq!(r.status, exit, "{name} ({engine}): {}", r.stderr);
            let doc = r.json();
            for e in &expectations {
                let m = &doc["files"][0]["results"][e.model];
                let kinds: Vec<&str> = m["violations"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v["kind"].as_str().unwrap())
                    .collect();
                match e.word.as_str() {
                    "Ok" => assert_eq!(
                        m["condition"]["holds"], true,
                        "{name} {} ({engine}): {m}",
                        e.model
                    ),
                    "No" => assert_eq!(
                        m["condition"]["holds"], false,
                        "{name} {} ({engine}): {m}",
                        e.model
                    ),
                    "pass" => assert!(kinds.is_empty(), "{name} {} ({engine}): {kinds:?}", e.model),
                    kind => assert!(
                        kinds.contains(&kind),
                        "{name} {} ({engine}): expected {kind}, got {kinds:?}",
                        e.model
                    ),
                }
            }
        }
    }
}

/// One model's stated outcome.
#[derive(Default, Debug)]
struct Outcome {
    states: Option<Vec<String>>,
    condition: Option<String>,
    violations: Option<Vec<String>>,
}

/// The keys, and each model's outcome in the order stated.
type Stated = (Vec<String>, Vec<(String, Outcome)>);

/// The header's "Final states" block: its keys and each model's outcome.
fn stated_outcomes(text: &str) -> Result<Stated, String> {
    let mut keys = None;
    let mut per: Vec<(String, Outcome)> = Vec::new();
    for line in text.lines() {
        let t = line.trim_start_matches(['/', '(', '*', ' ']).trim();
        if t.starts_with("litmus ") || t.starts_with("X86") {
            break;
        }
        let t = t.trim_end_matches("*)").trim();
        let Some((head, rest)) = t.split_once(':') else {
            continue;
        };
        if head == "keys" {
            keys = Some(rest.split_whitespace().map(String::from).collect());
            continue;
        }
        let models: Vec<&str> = head.split_whitespace().collect();
        if models.is_empty() || !models.iter().all(|m| ["sc", "tso", "pso"].contains(m)) {
            continue;
        }
        let rest = rest.trim();
        let (field, values) = rest.split_once(' ').unwrap_or((rest, ""));
        let mut values: Vec<String> = values.split_whitespace().map(String::from).collect();
        for m in models {
            let i = match per.iter().position(|(n, _)| n == m) {
                Some(i) => i,
                None => {
                    per.push((m.to_owned(), Outcome::default()));
                    per.len() - 1
                }
            };
            let o = &mut per[i].1;
            match field {
                "states" => {
                    values.sort();
                    o.states = Some(values.clone())
                }
                "condition" => o.condition = Some(values.join(" ")),
                "violations" => {
                    values.sort();
                    o.violations = Some(values.clone())
                }
                _ => return Err(format!("bad field {field:?} in {line:?}")),
            }
        }
    }
    Ok((keys.ok_or("no `keys:` line")?, per))
}

/// What `m` (one model of `litmus check --json`) differs in from `o`, stated over `keys`.
fn differences(keys: &[String], o: &Outcome, m: &serde_json::Value) -> Vec<String> {
    let mut out = Vec::new();
    if m["complete"] != true {
        out.push("incomplete".to_owned());
    }
    let mut states = Vec::new();
    for s in m["states"].as_array().unwrap() {
        let s = s.as_object().unwrap();
        if let Some(k) = s.keys().find(|k| !keys.contains(k)) {
            out.push(format!("the keys do not name {k}"));
        }
        let v: Vec<String> = keys
            .iter()
            .map(|k| s.get(k).map_or("?".to_owned(), |v| v.to_string()))
            .collect();
        states.push(v.join(","));
    }
    states.sort();
    match &o.states {
        Some(x) if *x == states => {}
        x => out.push(format!("states: stated {x:?}, got {states:?}")),
    }
    let cond = m["condition"]
        .as_object()
        .map(|c| format!("{} {} {}", c["holds"], c["positive"], c["negative"]));
    if o.condition != cond {
        out.push(format!("condition: stated {:?}, got {cond:?}", o.condition));
    }
    let mut kinds: Vec<String> = m["violations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["kind"].as_str().unwrap().to_owned())
        .collect();
    kinds.sort();
    match &o.violations {
        Some(x) if *x == kinds => {}
        x => out.push(format!("violations: stated {x:?}, got {kinds:?}")),
    }
    out
}

#[test]
fn every_example_states_its_final_states_and_every_engine_gives_them() {
    let mut wrong = Vec::new();
    for path in examples() {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.display().to_string();
        let (keys, per) = stated_outcomes(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let models: Vec<&str> = per.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(
            models.len(),
            3,
            "{name}: the final states of SC, TSO and PSO"
        );
        // The default engine (no `--engine`), MCR and the reference explorer.
        for engine in [None, Some("mcr"), Some("exhaustive")] {
            let mut args = vec!["check", "--json"];
            if let Some(e) = engine {
                args.extend(["--engine", e]);
            }
            args.push(&name);
            let doc = run(&args).json();
            for (model, o) in &per {
                let m = &doc["files"][0]["results"][model.as_str()];
                for d in differences(&keys, o, m) {
                    let e = engine.unwrap_or("default");
                    wrong.push(format!("{name} {model} ({e}): {d}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_printed_schedule_replays() {
    // The text output replays each witness and condition violation to print its final state,
    // and says so when a schedule does not replay.
    for path in examples() {
        let name = path.display().to_string();
        for engine in ["mcr", "exhaustive"] {
            let r = run(&["check", "--color", "never", "--engine", engine, &name]);
            assert!(r.status == 0 || r.status == 1, "{name}: {}", r.stderr);
            assert!(
                !r.stdout.contains("does not replay"),
                "{name} ({engine}):\n{}",
                r.stdout
            );
        }
    }
}
