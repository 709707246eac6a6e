//! herd's C tests in the one pipeline of `litmus check` (issues 53 and 56): in a run that mixes
//! them with other dialects, and with `--json`, each C test is answered as when it is checked
//! alone (herd's block and the judgement against its `Result:` header), the JSON document has
//! one entry per C file with its result under the `c` key (a broken file or one with no model
//! with its diagnostics), and the exit status is 2 for a broken file, else 1 when an answer
//! disagrees with its header.
//!
//! The kernel's tests and model files are read from `../shared/conformance/linux/`; without
//! them the tests say SKIPPED (the no-model test needs no shared data).

mod cli_support;
use cli_support::*;
use std::collections::HashMap;
use std::path::PathBuf;

fn linux() -> Option<PathBuf> {
    let d = root().join("../shared/conformance/linux");
    if d.join("model/linux-kernel.cfg").is_file() && d.join("expected.csv").is_file() {
        Some(d)
    } else {
        println!("SKIPPED: ../shared/conformance/linux (tests and model) not found");
        None
    }
}

/// `(path, observation, flags)`: every `step`-th row of `expected.csv` that herd7 finished
/// quickly (under 0.5 s), herd7's observation and flags.
fn sample(dir: &std::path::Path, step: usize) -> Vec<(String, String, String)> {
    let csv = std::fs::read_to_string(dir.join("expected.csv")).unwrap();
    csv.lines()
        .skip(1)
        .map(|l| l.split(',').collect::<Vec<_>>())
        .filter(|f| f[8] == "ok" && f[7].parse::<f64>().is_ok_and(|t| t < 0.5))
        .step_by(step)
        .map(|f| {
            (
                dir.join(f[0]).display().to_string(),
                f[2].to_string(),
                f[5].to_string(),
            )
        })
        .collect()
}

/// The parts of a multi-file text run by file (`# path` headers).
fn parts<'a>(stdout: &str, paths: &[&'a str]) -> HashMap<&'a str, String> {
    let mut parts: HashMap<&str, String> = HashMap::new();
    let mut current = None;
    for line in stdout.split_inclusive('\n') {
        if let Some(p) = line.strip_prefix("# ") {
            current = paths.iter().copied().find(|x| *x == p.trim_end());
            continue;
        }
        if line.starts_with("litmus: ") {
            current = None;
        }
        if let Some(c) = current {
            parts.entry(c).or_default().push_str(line);
        }
    }
    parts
}

fn timeless(s: &str) -> String {
    s.lines()
        .filter(|l| !l.starts_with("Stats:"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn c_tests_in_a_mixed_run_are_answered_as_alone_and_in_json() {
    let Some(dir) = linux() else { return };
    let conf = dir.join("model/linux-kernel.cfg").display().to_string();
    let tests = sample(&dir, 40);
    assert!(tests.len() >= 8, "{} sampled tests", tests.len());
    // one test whose header is edited to disagree with the answer
    let (first, obs, _) = &tests[0];
    let text = std::fs::read_to_string(first).unwrap();
    let other = if obs == "Never" { "Always" } else { "Never" };
    let edited = text.replacen(&format!("Result: {obs}"), &format!("Result: {other}"), 1);
    assert_ne!(edited, text, "{first} has no `Result: {obs}` header");
    let disagreeing = scratch("cli_cpipe", "disagrees.litmus", edited.as_bytes());
    let sb = example("sb.litmus");
    let mut paths: Vec<&str> = vec![sb.as_str()];
    paths.extend(tests.iter().map(|t| t.0.as_str()));
    paths.insert(3, disagreeing.as_str());
    paths.push(example("mp.litmus").leak());

    // text: each C file's part is its text alone; the closing line counts the disagreement
    let mut args = vec!["check", "--conf", &conf];
    args.extend(&paths);
    let mixed = run(&args);
    assert_eq!(mixed.status, 1, "{}{}", mixed.stdout, mixed.stderr);
    // the tests with a `Result:` header (not every one of Paul McKenney's has one)
    let judged = mixed.stdout.matches(" with its header `Result:").count();
    assert!(judged >= 2, "{}", mixed.stdout);
    assert!(
        mixed.stdout.ends_with(&format!(
            "litmus: 1 of {judged} C tests disagrees with its `Result:` header\n"
        )),
        "{}",
        mixed.stdout
    );
    let parts = parts(&mixed.stdout, &paths);
    for p in &paths {
        let alone = run(&["check", "--conf", &conf, p]);
        let part = parts.get(p).map(String::as_str).unwrap_or("");
        assert_eq!(
            timeless(part).trim_end(),
            timeless(&alone.stdout)
                .trim_end()
                .trim_end_matches("litmus: 1 of 1 C test disagrees with its `Result:` header")
                .trim_end(),
            "{p}: its text in the mixed run differs from its text alone"
        );
    }
    assert!(
        parts[disagreeing.as_str()].contains("DISAGREES with its header"),
        "{}",
        parts[disagreeing.as_str()]
    );

    // JSON: one entry per file, the C ones under `c` with herd's observation and flags
    let mut args = vec!["check", "--json", "--conf", &conf];
    args.extend(&paths);
    let r = run(&args);
    assert_eq!(r.status, 1, "{}", r.stderr);
    let doc = r.json();
    assert_eq!(doc["version"], 2);
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), paths.len());
    let mut compared = 0;
    for (p, e) in paths.iter().zip(files) {
        assert_eq!(e["path"], *p);
        let results = e["results"].as_object().unwrap();
        if p.ends_with("sb.litmus") || p.ends_with("mp.litmus") {
            assert_eq!(results.keys().collect::<Vec<_>>(), ["sc", "tso", "pso"]);
            continue;
        }
        assert_eq!(results.keys().collect::<Vec<_>>(), ["c"], "{p}");
        let c = &results["c"];
        assert_eq!(c["model"], conf.as_str());
        assert_eq!(c["complete"], true);
        let j = &c["judgement"];
        if *p == disagreeing.as_str() {
            assert_eq!(j["agrees"], false, "{c}");
            assert_eq!(j["header"], format!("Result: {other}"));
            let v = c["violations"].as_array().unwrap();
            assert_eq!(v.len(), 1, "{c}");
            assert_eq!(v[0]["kind"], "result-header");
            assert!(v[0]["line"].as_u64().unwrap() >= 1);
            continue;
        }
        let (_, obs, flags) = tests.iter().find(|t| t.0 == *p).unwrap();
        assert_eq!(j["observation"], obs.as_str(), "{p}: {c}");
        let got: Vec<&str> = c["flags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect();
        let want: Vec<&str> = flags.split(';').filter(|f| !f.is_empty()).collect();
        assert_eq!(got, want, "{p}: flags");
        // the states are those of herd's block in the text
        let n = c["states"].as_array().unwrap().len();
        assert!(
            parts[p].contains(&format!("\nStates {n}\n")),
            "{p}: {n} states, text:\n{}",
            parts[p]
        );
        compared += 1;
    }
    // `--shard` and `merge`: the shards' documents merge into the unsharded one
    let mut shards = vec![];
    for k in ["1/2", "2/2"] {
        let mut args = vec!["check", "--json", "--conf", &conf, "--shard", k];
        args.extend(&paths);
        let s = run(&args);
        shards.push(scratch(
            "cli_cpipe",
            &format!("shard{}.json", &k[..1]),
            s.stdout.as_bytes(),
        ));
    }
    let merged = run(&["merge", &shards[0], &shards[1]]);
    assert_eq!(merged.status, 1, "{}", merged.stderr);
    let untimed = |mut d: serde_json::Value| {
        for f in d["files"].as_array_mut().unwrap() {
            for r in f["results"].as_object_mut().unwrap().values_mut() {
                r["stats"].as_object_mut().unwrap().remove("time_ms");
            }
        }
        d
    };
    assert_eq!(untimed(merged.json()), untimed(doc.clone()));
    println!(
        "{} files, {compared} C tests' observations and flags compared with herd7's, 1 disagreeing header",
        paths.len()
    );
}

#[test]
fn a_broken_c_file_and_one_with_no_model_have_their_entries() {
    let broken = scratch(
        "cli_cpipe",
        "broken.litmus",
        b"C broken\n{}\nP0(int *x) { r0 = ; }\nexists (0:r0=1)\n",
    );
    let fine = scratch(
        "cli_cpipe",
        "nomodel.litmus",
        b"C nomodel\n(* Result: Never *)\n{}\nP0(int *x) { WRITE_ONCE(*x, 1); }\nexists (x=2)\n",
    );
    let sb = example("sb.litmus");
    let r = run(&["check", "--json", &broken, &sb, &fine]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    let doc = r.json();
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), 3);
    let errors = |e: &serde_json::Value| -> Vec<String> {
        e["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["severity"] == "error")
            .map(|d| format!("{}:{} {}", d["line"], d["col"], d["message"]))
            .collect()
    };
    let b = errors(&files[0]);
    assert!(!b.is_empty() && b[0].starts_with("3:"), "{b:?}");
    assert!(errors(&files[1]).is_empty());
    let m = errors(&files[2]);
    assert_eq!(m.len(), 1, "{m:?}");
    for want in [
        "no memory model for the C test",
        "tools/memory-model/linux-kernel.cfg",
        "--conf",
        "kernel tree",
    ] {
        assert!(m[0].contains(want), "{want}: {}", m[0]);
    }
    assert_eq!(files[2]["results"], serde_json::json!({}));
    // the text run says the same on stderr and checks the native test
    let t = run(&["check", &sb, &fine]);
    assert_eq!(t.status, 2);
    assert!(
        t.stderr.contains("no memory model for the C test"),
        "{}",
        t.stderr
    );
    assert!(t.stdout.contains("# "), "{}", t.stdout);
}

/// A C test in a kernel tree, in a mixed run with no option: the model is found above it.
#[test]
fn a_mixed_run_finds_the_model_in_a_kernel_tree() {
    let Some(dir) = linux() else { return };
    let tree = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("cli_cpipe-tree");
    let mm = tree.join("linux/tools/memory-model");
    std::fs::create_dir_all(mm.join("litmus-tests")).unwrap();
    for f in std::fs::read_dir(dir.join("model")).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, mm.join(f.file_name().unwrap())).unwrap();
    }
    let name = "MP+pooncerelease+poacquireonce.litmus";
    let test = mm.join("litmus-tests").join(name);
    std::fs::copy(dir.join("tests/catalogue").join(name), &test).unwrap();
    let test = test.display().to_string();
    let sb = example("sb.litmus");
    let r = run(&["check", "--json", &sb, &test]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let doc = r.json();
    let c = &doc["files"][1]["results"]["c"];
    assert!(
        c["model"]
            .as_str()
            .unwrap()
            .ends_with("linux/tools/memory-model/linux-kernel.cfg"),
        "{c}"
    );
    assert_eq!(c["judgement"]["agrees"], true, "{c}");
    assert_eq!(c["judgement"]["observation"], "Never");
    // a small test: every execution examined
    assert_eq!(c["judgement"]["speedcheck"], false, "{c}");
}
