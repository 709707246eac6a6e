//! `litmus merge`: the JSON documents of `litmus check --json --shard K/N` runs, combined into
//! the document the unsharded run prints.
//!
//! Each shard's document says which shard it is (`"shard": {"index": K, "count": N, "files":
//! M}`) and each file's 1-based position in the whole argument list (`"index"`). The merge
//! checks that the shards make up one run (the same N and M, each K once, every position
//! once), puts the files back in argument order, and drops the shard keys, so its output is
//! byte for byte the unsharded run's, timings aside. The exit status is the unsharded run's,
//! read from the merged reports.

use std::path::Path;

use serde_json::{Map, Value};

use super::args::MergeArgs;
use super::{err, exit, out};

/// Runs `litmus merge`; returns the exit status.
pub fn run(args: MergeArgs) -> i32 {
    match merge(&args.files) {
        Ok(doc) => {
            out(&format!("{doc:#}\n"));
            status(&doc)
        }
        Err(e) => {
            err(&format!("litmus merge: {e}"));
            exit::BAD_INPUT
        }
    }
}

fn read(path: &Path) -> Result<Value, String> {
    let text = if path == Path::new("-") {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map(|_| s)
    } else {
        std::fs::read_to_string(path)
    }
    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))
}

/// The merged document, or why the shards do not make up one run.
pub fn merge(paths: &[std::path::PathBuf]) -> Result<Value, String> {
    let mut count_files: Option<(u64, u64)> = None;
    let mut seen_shards = std::collections::BTreeSet::new();
    let mut files: Vec<(u64, Value)> = vec![];
    for path in paths {
        let doc = read(path)?;
        let name = path.display();
        if doc["version"] != 1 {
            return Err(format!(
                "{name} is not a version-1 document of `litmus check --json`"
            ));
        }
        let shard = &doc["shard"];
        let (Some(k), Some(n), Some(m)) = (
            shard["index"].as_u64(),
            shard["count"].as_u64(),
            shard["files"].as_u64(),
        ) else {
            return Err(format!(
                "{name} has no `shard` (made by `litmus check --json --shard K/N`?)"
            ));
        };
        match count_files {
            None => count_files = Some((n, m)),
            Some(cm) if cm != (n, m) => {
                return Err(format!(
                    "{name} is shard {k}/{n} of {m} files, the others are of {}/{} files",
                    cm.0, cm.1
                ))
            }
            Some(_) => {}
        }
        if !seen_shards.insert(k) {
            return Err(format!("shard {k}/{n} is given twice ({name})"));
        }
        for f in doc["files"].as_array().into_iter().flatten() {
            let mut f = f.clone();
            let Some(i) = f
                .as_object_mut()
                .and_then(|o| o.shift_remove("index"))
                .and_then(|i| i.as_u64())
            else {
                return Err(format!("{name}: a file has no `index`"));
            };
            files.push((i, f));
        }
    }
    let Some((n, m)) = count_files else {
        return Err("no documents".into());
    };
    let missing: Vec<String> = (1..=n)
        .filter(|k| !seen_shards.contains(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        return Err(format!("shards missing: {}", missing.join(", ")));
    }
    files.sort_by_key(|(i, _)| *i);
    let positions: Vec<u64> = files.iter().map(|(i, _)| *i).collect();
    if positions != (1..=m).collect::<Vec<_>>() {
        return Err(format!(
            "the shards' files are not positions 1 to {m} of one argument list, each once"
        ));
    }
    let mut doc = Map::new();
    doc.insert("version".into(), 1.into());
    doc.insert(
        "files".into(),
        Value::Array(files.into_iter().map(|(_, f)| f).collect()),
    );
    Ok(Value::Object(doc))
}

/// The exit status `litmus check` gives the run the document reports: 2 if a file has an
/// error diagnostic, else 1 if a violation (or a program that is not robust), else 3 if an
/// exploration was incomplete, else 0.
pub fn status(doc: &Value) -> i32 {
    let files = doc["files"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let errors = files.iter().any(|f| {
        f["diagnostics"]
            .as_array()
            .is_some_and(|d| d.iter().any(|d| d["severity"] == "error"))
    });
    let reports: Vec<&Value> = files
        .iter()
        .filter_map(|f| f["results"].as_object())
        .flat_map(|r| r.values())
        .collect();
    let violation = reports.iter().any(|r| {
        r["violations"].as_array().is_some_and(|v| !v.is_empty()) || r["robust"]["holds"] == false
    });
    let incomplete = reports
        .iter()
        .any(|r| r["complete"] == false || r["robust"]["complete"] == false);
    if errors {
        exit::BAD_INPUT
    } else if violation {
        exit::VIOLATION
    } else if incomplete {
        exit::INCOMPLETE
    } else {
        exit::OK
    }
}
