//! herd's own output, line by line: every `X86_64` test of `../shared/conformance/x86_64`
//! checked in one `litmus check --model sc,tso` run must print, for each model, herd7's block
//! (`herd/NAME.sc.out`, `herd/NAME.tso.out`) from `Test` to `Observation` exactly (herd's
//! `Time` and `Hash` lines are not reproduced), and its verdict must be `expected.csv`'s.
//!
//! The tests live outside the repository: `../shared/conformance/x86_64` next to the
//! workspace, or the directory named by `LITMUS_CONFORMANCE_X86_64`. When neither exists the
//! test says so and passes without checking anything (CI always has them).

mod cli_support;
use cli_support::*;
use std::collections::HashMap;
use std::path::PathBuf;

fn conformance_dir() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("LITMUS_CONFORMANCE_X86_64").map(PathBuf::from),
        Some(root().join("../shared/conformance/x86_64")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|d| d.join("expected.csv").is_file())
}

/// herd's block of one output file: its lines without `Time`, `Hash` and blank lines.
fn herd_block(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("Time ") && !l.starts_with("Hash="))
        .map(str::to_owned)
        .collect()
}

/// litmus's text output for many files, split into (path, model) → the herd block lines
/// (from `Test` to `Observation`).
fn litmus_blocks(stdout: &str) -> HashMap<(String, String), Vec<String>> {
    let mut blocks = HashMap::new();
    let mut path = String::new();
    let mut model = String::new();
    let mut current: Option<Vec<String>> = None;
    for line in stdout.lines() {
        if let Some(p) = line.strip_prefix("# ") {
            path = p.to_owned();
        } else if let Some(m) = line
            .strip_prefix("--- ")
            .and_then(|l| l.strip_suffix(" ---"))
        {
            model = m.to_owned();
        } else if line.starts_with("Test ") {
            current = Some(vec![line.to_owned()]);
        } else if let Some(block) = current.as_mut() {
            block.push(line.to_owned());
            if line.starts_with("Observation ") {
                blocks.insert((path.clone(), model.clone()), current.take().unwrap());
            }
        }
    }
    blocks
}

#[test]
fn x86_64_tests_print_herds_block_line_by_line() {
    let Some(dir) = conformance_dir() else {
        eprintln!("skipping: no X86_64 conformance tests (../shared/conformance/x86_64 or LITMUS_CONFORMANCE_X86_64)");
        return;
    };
    let csv = std::fs::read_to_string(dir.join("expected.csv")).unwrap();
    // test,condition,sc,tso — 1 when the condition holds.
    let rows: Vec<(String, bool, bool)> = csv
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.trim().split(',').collect();
            (f.len() == 4).then(|| (f[0].to_owned(), f[2] == "1", f[3] == "1"))
        })
        .collect();
    assert!(
        rows.len() >= 300,
        "only {} rows in expected.csv",
        rows.len()
    );
    let paths: Vec<String> = rows
        .iter()
        .map(|(n, ..)| dir.join(n).display().to_string())
        .collect();
    let mut args = vec!["check", "--color", "never", "--model", "sc,tso"];
    args.extend(paths.iter().map(String::as_str));
    let r = run(&args);
    assert!(
        r.status == 0 || r.status == 1,
        "status {}: {}",
        r.status,
        r.stderr
    );
    let blocks = litmus_blocks(&r.stdout);
    let mut disagreements = Vec::new();
    for ((name, sc, tso), path) in rows.iter().zip(&paths) {
        let stem = name.trim_end_matches(".litmus");
        for (model, file, want) in [("SC", "sc", *sc), ("TSO", "tso", *tso)] {
            let Some(got) = blocks.get(&(path.clone(), model.to_owned())) else {
                disagreements.push(format!("{name} {model}: no block printed"));
                continue;
            };
            let verdict = if want { "Ok" } else { "No" };
            if !got.iter().any(|l| l == verdict) {
                disagreements.push(format!("{name} {model}: herd says {verdict}"));
            }
            let herd_path = dir.join("herd").join(format!("{stem}.{file}.out"));
            let Ok(herd_text) = std::fs::read_to_string(&herd_path) else {
                disagreements.push(format!(
                    "{name} {model}: cannot read {}",
                    herd_path.display()
                ));
                continue;
            };
            let want_block = herd_block(&herd_text);
            if *got != want_block {
                disagreements.push(format!(
                    "{name} {model}:\n  herd:\n    {}\n  litmus:\n    {}",
                    want_block.join("\n    "),
                    got.join("\n    ")
                ));
            }
        }
    }
    println!(
        "X86_64 herd blocks: {} tests x 2 models, {} disagreements",
        rows.len(),
        disagreements.len()
    );
    assert!(
        disagreements.is_empty(),
        "{} disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}
