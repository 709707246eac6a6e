//! One `litmus check` over every dialect at once (issue 56): `examples/`, a deterministic
//! sample of the shared x86, AArch64 and RISC-V conformance tests (every 16th, 10th and 10th
//! of `expected.csv`) and a broken file of each dialect, in one mixed run. Every herd verdict of
//! the sample is given (x86 under SC and TSO; AArch64 and RISC-V under their models, keyed
//! `aarch64`/`riscv` in the JSON document), every file has one entry in argument order (the
//! broken ones with an error diagnostic), and each file's text in the mixed run is the text
//! it gets checked alone (less the `Stats:` lines, which carry times).
//!
//! The samples are read from `../shared/conformance` next to the workspace; without them the
//! test says `SKIPPED` and checks `examples/` and the broken files only.

mod cli_support;
use cli_support::*;
use std::collections::HashMap;
use std::path::PathBuf;

/// `(path, expected)`: the sampled files of `dir` (every `step`-th row of its
/// `expected.csv`) with herd's verdicts by model key.
fn sample(dir: &str, step: usize) -> Vec<(String, Vec<(&'static str, bool)>)> {
    let dir = root().join("../shared/conformance").join(dir);
    let Ok(csv) = std::fs::read_to_string(dir.join("expected.csv")) else {
        return vec![];
    };
    let mut out = vec![];
    for (i, l) in csv.lines().skip(1).enumerate() {
        if i % step != 0 {
            continue;
        }
        let f: Vec<&str> = l.split(',').collect();
        let path = dir.join(f[0]);
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let want = if text.trim_start().starts_with("AArch64") {
            vec![("aarch64", f[3] == "1")]
        } else if text.trim_start().starts_with("RISCV") {
            vec![("riscv", f[f.len() - 1] == "1")]
        } else {
            // x86: test,condition,sc,tso
            vec![("sc", f[2] == "1"), ("tso", f[3] == "1")]
        };
        out.push((path.display().to_string(), want));
    }
    out
}

const BROKEN: [(&str, &str); 5] = [
    (
        "broken-native.litmus",
        "litmus B\nshared x = 0;\nthread P0 { x = ; }\n",
    ),
    (
        "broken-x86.litmus",
        "X86 B\n{ x=0; }\n P0          ;\n FROB [x],$1 ;\nexists (x=1)\n",
    ),
    (
        "broken-aarch64.litmus",
        "AArch64 B\n{ 0:X1=x; }\n P0 ;\n FOO X0,[X1] ;\nexists (0:X0=1)\n",
    ),
    (
        "broken-riscv.litmus",
        "RISCV B\n{ 0:x6=x; }\n P0 ;\n frob x5,0(x6) ;\nexists (0:x5=1)\n",
    ),
    (
        "c-no-model.litmus",
        "C B\n{ }\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=1)\n",
    ),
];

/// The text with its `Stats:` lines (times) left out.
fn timeless(s: &str) -> String {
    s.lines()
        .filter(|l| !l.starts_with("Stats:"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_mixed_run_answers_every_file_with_its_dialects_models() {
    let mut files: Vec<(String, Vec<(&'static str, bool)>)> = vec![];
    let mut examples: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    examples.sort();
    files.extend(examples.iter().map(|p| (p.display().to_string(), vec![])));
    let shared = [
        sample("x86", 16),
        sample("aarch64", 10),
        sample("riscv", 10),
    ];
    if shared.iter().any(Vec::is_empty) {
        println!("SKIPPED: the shared conformance samples (../shared/conformance) are absent");
    }
    // Interleaved, so that neighbours are of different dialects.
    let longest = shared.iter().map(Vec::len).max().unwrap_or(0);
    for i in 0..longest {
        for s in &shared {
            if let Some(f) = s.get(i) {
                files.push(f.clone());
            }
        }
    }
    let broken: Vec<String> = BROKEN
        .iter()
        .map(|(n, t)| scratch("cli_dialects", n, t.as_bytes()))
        .collect();
    for (k, b) in broken.iter().enumerate() {
        files.insert(3 + 7 * k, (b.clone(), vec![]));
    }
    let paths: Vec<&str> = files.iter().map(|f| f.0.as_str()).collect();

    // One JSON document: one entry per file, in argument order.
    let mut args = vec!["check", "--json"];
    args.extend(&paths);
    let r = run(&args);
    assert_eq!(
        r.status, 2,
        "a broken file makes the run exit 2: {}",
        r.stderr
    );
    let doc = r.json();
    assert_eq!(doc["version"], 2);
    let entries = doc["files"].as_array().unwrap();
    assert_eq!(entries.len(), files.len());
    let mut wrong = vec![];
    for ((path, want), e) in files.iter().zip(entries) {
        assert_eq!(e["path"], path.as_str());
        let errors: Vec<&serde_json::Value> = e["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["severity"] == "error")
            .collect();
        if broken.contains(path) {
            assert!(!errors.is_empty(), "{path} has no error diagnostic: {e}");
            assert!(errors.iter().all(|d| d["line"].as_u64() >= Some(1)), "{e}");
            if path.ends_with("c-no-model.litmus") {
                // no kernel tree above the scratch file and no `--conf`: no model
                assert!(errors[0]["message"]
                    .as_str()
                    .unwrap()
                    .contains("no memory model for the C test"));
            }
            continue;
        }
        assert!(errors.is_empty(), "{path}: {errors:?}");
        let results = e["results"].as_object().unwrap();
        let keys: Vec<&str> = results.keys().map(String::as_str).collect();
        let text = std::fs::read_to_string(path).unwrap();
        let expected_keys: &[&str] = if text.trim_start().starts_with("AArch64") {
            &["aarch64"]
        } else if text.trim_start().starts_with("RISCV") {
            &["riscv"]
        } else {
            &["sc", "tso", "pso"]
        };
        assert_eq!(keys, expected_keys, "{path}");
        for (key, holds) in want {
            let got = &results[*key]["condition"]["holds"];
            if got != holds {
                wrong.push(format!("{path} {key}: herd {holds}, litmus {got}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "verdicts unlike herd7's:\n{}",
        wrong.join("\n")
    );
    let checked: usize = files.iter().map(|f| f.1.len()).sum();
    println!(
        "{} files, {checked} herd verdicts compared, {} broken",
        files.len(),
        broken.len()
    );

    // The text: each file's part of the mixed run is its text checked alone.
    let mut args = vec!["check"];
    args.extend(&paths);
    let mixed = run(&args);
    assert_eq!(mixed.status, 2, "{}", mixed.stderr);
    let mut parts: HashMap<&str, String> = HashMap::new();
    let mut current: Option<&str> = None;
    for line in mixed.stdout.split_inclusive('\n') {
        if let Some(p) = line.strip_prefix("# ") {
            current = paths.iter().copied().find(|x| *x == p.trim_end());
            assert!(current.is_some(), "a header for no file: {line}");
            continue;
        }
        if let Some(c) = current {
            parts.entry(c).or_default().push_str(line);
        }
    }
    for path in &paths {
        if path.ends_with("c-no-model.litmus") {
            // Alone, a run of C files says on stderr that there is no model (exit 2).
            let alone = run(&["check", path]);
            assert_eq!(alone.status, 2, "{path}");
            assert!(alone.stderr.contains("no memory model"), "{}", alone.stderr);
            let part = parts.get(path).map_or("", |p| p.trim());
            assert!(
                part.is_empty(),
                "{path} has a text in the mixed run: {part}"
            );
            continue;
        }
        let alone = run(&["check", path]);
        let part = parts.get(path).map(String::as_str).unwrap_or("");
        assert_eq!(
            timeless(part).trim_end(),
            timeless(&alone.stdout).trim_end(),
            "{path}: its text in the mixed run differs from its text alone"
        );
        if broken.iter().any(|b| b == path) {
            assert_eq!(alone.status, 2, "{path}");
            assert!(alone.stderr.contains("error"), "{}", alone.stderr);
        }
    }

    // `-q`: one line per file and model, for every dialect.
    let mut args = vec!["check", "-q"];
    args.extend(&paths);
    let q = run(&args);
    let lines: Vec<&str> = q.stdout.lines().collect();
    let models: usize = files
        .iter()
        .filter(|(p, _)| !broken.contains(p))
        .map(|(p, _)| {
            let t = std::fs::read_to_string(p).unwrap();
            if t.trim_start().starts_with("AArch64") || t.trim_start().starts_with("RISCV") {
                1
            } else {
                3
            }
        })
        .sum();
    assert_eq!(lines.len(), models, "{}", q.stdout);
}

#[test]
fn model_and_cat_are_refused_where_they_do_not_apply() {
    let arm = scratch(
        "cli_dialects",
        "sb-arm.litmus",
        b"AArch64 SB\n{ 0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x; }\n P0          | P1          ;\n MOV W0,#1   | MOV W0,#1   ;\n STR W0,[X1] | STR W0,[X1] ;\n LDR W2,[X3] | LDR W2,[X3] ;\nexists (0:X2=0 /\\ 1:X2=0)\n",
    );
    let sb = example("sb.litmus");
    // `--model tso`: the native file under TSO, the AArch64 file refused (no model of its
    // dialect listed), said as its error.
    let r = run(&["check", "--json", "--model", "tso", &sb, &arm]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    let doc = r.json();
    assert_eq!(
        doc["files"][0]["results"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["tso"]
    );
    let msg = doc["files"][1]["diagnostics"][0]["message"]
        .as_str()
        .unwrap();
    assert!(
        msg.contains("--model tso names no model of AArch64 tests (aarch64)"),
        "{msg}"
    );
    // `--model aarch64,sc`: both checked, each under its own.
    let r = run(&["check", "-q", "--model", "aarch64,sc", &sb, &arm]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stdout.lines().count(), 2, "{}", r.stdout);
    assert!(
        r.stdout.contains(" SB aarch64: Ok, exists holds"),
        "{}",
        r.stdout
    );
    // An unknown model is a bad option.
    let r = run(&["check", "--model", "armv9", &arm]);
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("unknown model `armv9`"), "{}", r.stderr);
    // `arm` is ARMv7's model: it names no model of AArch64 tests.
    let r = run(&["check", "--model", "arm", &arm]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr
            .contains("--model arm names no model of AArch64 tests (aarch64)"),
        "{}",
        r.stderr
    ); // The operational engines' options: the AArch64 file is still checked, and says they
       // have no effect on it (a warning, in the text and in its JSON entry); the native file
       // takes them.
    let r = run(&["check", "-q", "--robust", "--engine", "dpor", &sb, &arm]);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    let warned = "--robust and --engine dpor have no effect on AArch64 tests: they are checked \
                  axiomatically under aarch64.cat (litmus)";
    assert!(r.stderr.contains(warned), "{}", r.stderr);
    assert!(
        r.stdout.contains(" SB aarch64: Ok, exists holds"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("robust"), "{}", r.stdout);
    let r = run(&["check", "--json", "--unbounded", &arm]);
    let d = &r.json()["files"][0]["diagnostics"][0];
    assert_eq!(d["severity"], "warning", "{d}");
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .starts_with("--unbounded has no effect on AArch64"),
        "{d}"
    );
    // without them, nothing is said
    let r = run(&["check", "-q", &arm]);
    assert!(!r.stderr.contains("no effect"), "{}", r.stderr);
}

#[test]
fn the_axiomatic_engine_stops_at_the_timeout_without_a_verdict() {
    // Five threads each storing to and loading from two locations: about 10^12 candidates (120
    // coherence orders per location, six sources per load), far more than the engine examines
    // in a millisecond, and a verdict would need them all.
    let mut t = String::from("AArch64 Big\n{ ");
    for p in 0..5 {
        t += &format!("{p}:X1=x; {p}:X3=y; ");
    }
    t += "}\n";
    t += &(0..5)
        .map(|p| format!(" P{p}         "))
        .collect::<Vec<_>>()
        .join("|");
    t += ";\n";
    for row in [
        "MOV W0,#1  ",
        "STR W0,[X1]",
        "LDR W2,[X3]",
        "STR W0,[X3]",
        "LDR W4,[X1]",
    ] {
        t += &(0..5)
            .map(|_| format!(" {row} "))
            .collect::<Vec<_>>()
            .join("|");
        t += ";\n";
    }
    t += "exists (0:X2=0 /\\ 1:X2=0)\n";
    let f = scratch("cli_dialects", "big.litmus", t.as_bytes());
    let r = run(&["check", "--json", "--timeout", "0.001", &f]);
    assert_eq!(r.status, 3, "incomplete: {}{}", r.stdout, r.stderr);
    let res = &r.json()["files"][0]["results"]["aarch64"];
    assert_eq!(res["complete"], false, "{res}");
    assert!(res["condition"].is_null(), "{res}");
    assert!(
        res["warnings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("stopped (timeout)"),
        "{res}"
    );
    let q = run(&["check", "-q", "--timeout", "0.001", &f]);
    assert_eq!(q.status, 3);
    assert!(
        q.stdout.contains("no verdict, incomplete (timeout)"),
        "{}",
        q.stdout
    );
}

#[test]
fn shards_of_a_mixed_run_merge_into_the_unsharded_document() {
    let arm = scratch(
        "cli_dialects",
        "mp-arm.litmus",
        b"AArch64 MP\n{ 0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x; }\n P0          | P1          ;\n MOV W0,#1   | LDR W0,[X1] ;\n STR W0,[X1] | LDR W2,[X3] ;\n STR W0,[X3] |             ;\nexists (1:X0=1 /\\ 1:X2=0)\n",
    );
    let rv = scratch(
        "cli_dialects",
        "bad-rv.litmus",
        b"RISCV B\n{ 0:x6=x; }\n P0 ;\n frob x5,0(x6) ;\nexists (0:x5=1)\n",
    );
    let (sb, mp) = (example("sb.litmus"), example("mp.litmus"));
    let files = [sb.as_str(), arm.as_str(), mp.as_str(), rv.as_str()];
    // Times differ from run to run: the documents are compared without them.
    let timeless = |v: serde_json::Value| {
        let s = v.to_string();
        let mut out = String::new();
        let mut rest = s.as_str();
        while let Some(i) = rest.find("_ms\":") {
            out += &rest[..i + 5];
            rest =
                rest[i + 5..].trim_start_matches(|c: char| c.is_ascii_digit() || ".e-".contains(c));
        }
        out + rest
    };
    let mut shards = vec![];
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let mut args = vec!["check", "--json", "--shard", &shard];
        args.extend(files);
        let r = run(&args);
        shards.push(scratch(
            "cli_dialects",
            &format!("shard{k}.json"),
            r.stdout.as_bytes(),
        ));
    }
    let merged = run(&["merge", &shards[0], &shards[1]]);
    let mut args = vec!["check", "--json"];
    args.extend(files);
    let whole = run(&args);
    assert_eq!(merged.status, whole.status, "{}", merged.stderr);
    assert_eq!(whole.status, 2, "the broken RISC-V file");
    assert_eq!(timeless(merged.json()), timeless(whole.json()));
    assert_eq!(
        whole.json()["files"][1]["results"]["aarch64"]["condition"]["holds"],
        true
    );
}
