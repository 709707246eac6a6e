//! The CLI end to end on herd's x86 catalogue: a deterministic sample of the conformance tests
//! (every 8th file) checked in one `--json` run under SC and TSO must give herd's verdicts.
//! (The engine's own runner checks all of them; this checks what the CLI prints.)
//!
//! The tests live outside the repository: `../shared/conformance/x86` next to the workspace,
//! or the directory named by `LITMUS_CONFORMANCE`. When neither exists the test says so and
//! passes without checking anything.

mod cli_support;
use cli_support::*;
use std::collections::HashMap;
use std::path::PathBuf;

fn conformance_dir() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("LITMUS_CONFORMANCE").map(PathBuf::from),
        Some(root().join("../shared/conformance/x86")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|d| d.join("expected.csv").is_file())
}

#[test]
fn sampled_x86_conformance_verdicts_match_herd() {
    let Some(dir) = conformance_dir() else {
        eprintln!(
            "skipping: no x86 conformance tests (../shared/conformance/x86 or LITMUS_CONFORMANCE)"
        );
        return;
    };
    let csv = std::fs::read_to_string(dir.join("expected.csv")).unwrap();
    // test,condition,sc,tso — 1 when the condition holds.
    let expected: HashMap<String, (bool, bool)> = csv
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f.len() == 4).then(|| (f[0].to_owned(), (f[2] == "1", f[3] == "1")))
        })
        .collect();
    let mut names: Vec<&String> = expected.keys().collect();
    names.sort();
    let sample: Vec<String> = names
        .iter()
        .step_by(8)
        .map(|n| dir.join(n.as_str()).display().to_string())
        .collect();
    assert!(
        sample.len() >= 20,
        "too few conformance tests: {}",
        sample.len()
    );

    let mut args = vec![
        "check",
        "--json",
        "--model",
        "sc,tso",
        "--engine",
        "exhaustive",
    ];
    args.extend(sample.iter().map(|s| s.as_str()));
    let r = run(&args);
    assert!(
        r.status == 0 || r.status == 1,
        "status {}: {}",
        r.status,
        r.stderr
    );
    let doc = r.json();
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), sample.len());
    let mut disagreements = Vec::new();
    for f in files {
        let path = f["path"].as_str().unwrap();
        let name = path.rsplit('/').next().unwrap();
        let (sc, tso) = expected[name];
        assert_eq!(f["diagnostics"], serde_json::json!([]), "{name}");
        for (model, want) in [("sc", sc), ("tso", tso)] {
            let got = &f["results"][model]["condition"]["holds"];
            if got != want {
                disagreements.push(format!("{name} {model}: herd {want}, litmus {got}"));
            }
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}
