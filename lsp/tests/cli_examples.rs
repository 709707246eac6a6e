//! Every bundled example parses without diagnostics, and the results its header comment
//! promises are the ones `litmus check` gives.
//!
//! Header lines `SC   No   ...` state per model the condition's verdict (`Ok`/`No`), `pass`
//! (no violation) or the kind of violation expected (`assert`, `condition`, `error`,
//! `deadlock`); `Exit status N` states the exit status.

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
        // The default engine (MCR) and the reference explorer.
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
