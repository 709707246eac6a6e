//! Catalogues: `--engine auto` is deterministic, `-j N` prints what `-j 1` prints, `--shard
//! K/N` + `litmus merge` give the unsharded document, and a broken file in the middle of a
//! catalogue leaves every other file checked.

mod cli_support;
use cli_support::*;
use serde_json::Value;

/// Output without its timings (`time_ms`, `solver_ms` in JSON; `solver ... ms`, `time ... ms`
/// on the text stats line): everything else must be identical from run to run.
fn untimed(s: &str) -> String {
    s.lines()
        .filter(|l| !l.contains("\"time_ms\"") && !l.contains("\"solver_ms\""))
        .map(|l| match l.find(", solver ") {
            Some(i) if l.starts_with("Stats:") => match l.rfind(" ms, ") {
                Some(j) => format!("{}{}", &l[..i], &l[j + 4..]),
                None => l.to_owned(),
            },
            _ => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Each thread increments `c` k times: under TSO big enough that the portfolio's other
/// engines join (the first one passes its work alone), small enough for a debug build.
fn counter(threads: usize, incs: usize) -> String {
    let mut s = format!("litmus Counter{threads}x{incs}\nshared c = 0;\n");
    for t in 0..threads {
        s += &format!("thread P{t} {{\n");
        for _ in 0..incs {
            s += "  r = c;\n  c = r + 1;\n";
        }
        s += "}\n";
    }
    s + &format!("exists (c == {})\n", threads * incs)
}

#[test]
fn auto_gives_the_same_report_twenty_times_and_the_winners_own() {
    let f = scratch("catalogue_auto", "counter.litmus", counter(2, 4).as_bytes());
    let mut args = vec!["check", "--json", "--model", "tso", "-j", "2"];
    args.extend(std::iter::repeat_n(f.as_str(), 20));
    let r = run(&args);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let doc = r.json();
    let files = doc["files"].as_array().unwrap();
    assert_eq!(files.len(), 20);
    let first = untimed(&format!("{:#}", files[0]));
    for (i, f) in files.iter().enumerate() {
        assert_eq!(
            untimed(&format!("{f:#}")),
            first,
            "run {i} differs from run 0"
        );
    }
    // The report is the answering engine's own, as if it had run alone.
    let report = &files[0]["results"]["tso"];
    let engine = report["stats"]["engine"].as_str().unwrap();
    assert!(["exhaustive", "dpor", "mcr"].contains(&engine), "{engine}");
    let alone = run(&["check", "--json", "--model", "tso", "--engine", engine, &f]);
    assert_eq!(untimed(&format!("{:#}", alone.json()["files"][0])), first);
    // And the same under -j 1.
    args[5] = "1";
    let one = run(&args);
    assert_eq!(untimed(&one.stdout), untimed(&r.stdout));
}

#[test]
fn jobs_print_what_one_job_prints() {
    let mut files: Vec<String> = vec![];
    for dir in ["examples", "tests/litmus"] {
        let mut v: Vec<String> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
            .map(|p| p.display().to_string())
            .collect();
        v.sort();
        files.extend(v);
    }
    for mode in [&["--json"][..], &["-q"][..], &[][..]] {
        let outs: Vec<(i32, String)> = ["1", "2", "3"]
            .iter()
            .map(|j| {
                let mut args = vec!["check", "--color", "never", "-j", j];
                args.extend(mode);
                args.extend(files.iter().map(String::as_str));
                let r = run(&args);
                (r.status, untimed(&r.stdout))
            })
            .collect();
        assert!(outs[0].1.len() > 1000, "{mode:?}: {}", outs[0].1);
        for o in &outs[1..] {
            assert_eq!(o.0, outs[0].0, "{mode:?}: exit status");
            assert!(o.1 == outs[0].1, "{mode:?}: -j 1 and -j N differ");
        }
    }
}

#[test]
fn shards_merge_into_the_unsharded_document_around_a_broken_file() {
    let bad = scratch(
        "catalogue_shards",
        "bad.litmus",
        b"litmus Bad\nshared x = 0;\nthread P0 { x = ; }\n",
    );
    let missing = root().join("no-such-file.litmus").display().to_string();
    let files = [
        example("sb.litmus"),
        example("mp.litmus"),
        bad,
        example("dekker.litmus"),
        missing,
        example("racy-counter.litmus"),
        example("sb-x86.litmus"),
    ];
    let check = |extra: &[&str]| {
        let mut args = vec!["check", "--json", "-j", "2"];
        args.extend(extra);
        args.extend(files.iter().map(String::as_str));
        run(&args)
    };
    let whole = check(&[]);
    // A broken file in the middle: its entry has the error, every other file is checked.
    assert_eq!(whole.status, 2, "{}", whole.stderr);
    let doc = whole.json();
    for (i, f) in doc["files"].as_array().unwrap().iter().enumerate() {
        let broken = i == 2 || i == 4;
        assert_eq!(
            f["results"].as_object().unwrap().is_empty(),
            broken,
            "file {i}: {f}"
        );
        assert_eq!(
            f["diagnostics"][0]["severity"] == "error",
            broken,
            "file {i}"
        );
    }
    for n in [1, 2, 3, 7, 9] {
        let mut paths = vec![];
        for k in 1..=n {
            let r = check(&["--shard", &format!("{k}/{n}")]);
            let d = r.json();
            assert_eq!(
                d["shard"],
                serde_json::json!({"index": k, "count": n, "files": 7})
            );
            let idx: Vec<u64> = d["files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["index"].as_u64().unwrap())
                .collect();
            assert_eq!(
                idx,
                (k as u64..=7).step_by(n).collect::<Vec<_>>(),
                "shard {k}/{n}"
            );
            paths.push(scratch(
                "catalogue_shards",
                &format!("shard{k}of{n}.json"),
                r.stdout.as_bytes(),
            ));
        }
        // In any order.
        paths.reverse();
        let mut args = vec!["merge"];
        args.extend(paths.iter().map(String::as_str));
        let m = run(&args);
        assert_eq!(m.status, whole.status, "{n} shards: {}", m.stderr);
        assert!(
            untimed(&m.stdout) == untimed(&whole.stdout),
            "{n} shards: the merge differs from the unsharded run"
        );
        if n > 1 {
            // A shard missing, or given twice: an error, no document.
            let r = run(&args[..args.len() - 1]);
            assert_eq!(r.status, 2);
            assert!(r.stderr.contains("shards missing"), "{}", r.stderr);
            assert!(r.stdout.is_empty());
            let mut twice = args.clone();
            twice[1] = args[2];
            let r = run(&twice);
            assert_eq!(r.status, 2);
            assert!(r.stderr.contains("given twice"), "{}", r.stderr);
        }
    }
    // A document that is not a shard's.
    let plain = scratch("catalogue_shards", "plain.json", whole.stdout.as_bytes());
    let r = run(&["merge", &plain]);
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("no `shard`"), "{}", r.stderr);
}

#[test]
fn merge_exit_status_is_the_unsharded_runs() {
    for (file, status) in [("sb.litmus", 0), ("racy-counter.litmus", 1)] {
        let f = example(file);
        let r = run(&["check", "--json", "--shard", "1/1", &f]);
        assert_eq!(r.status, status);
        let p = scratch(
            "catalogue_status",
            &format!("{file}.json"),
            r.stdout.as_bytes(),
        );
        let m = run(&["merge", &p]);
        assert_eq!(m.status, status, "{file}");
        let v: Value = serde_json::from_str(&m.stdout).unwrap();
        assert!(v.get("shard").is_none() && v["files"][0].get("index").is_none());
    }
}
