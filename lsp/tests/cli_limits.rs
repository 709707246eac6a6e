//! The reproducers of issue 26 against the real binary, scaled down where the behaviour shows:
//! every run ends, with the clean outcome (exit status, `complete: false` with what was found,
//! a warning naming the limit), whatever the input.

mod cli_support;
use cli_support::reproducers::{heavy, straight_line};
use cli_support::*;
use std::process::Stdio;
use std::time::{Duration, Instant};

/// Writes `text` to `name` in this suite's scratch folder under the target directory (each
/// test writes names of its own; a folder per process under /tmp was never removed, 3 MB a
/// run for `huge.litmus`).
fn file(name: &str, text: &str) -> String {
    scratch("cli_limits", name, text.as_bytes())
}

/// How long `litmus ARGS` took, and what it did. The bound asserted on it is generous (it
/// catches runs that ignore the deadline by a wide margin, as they did, not machine speed:
/// `docs/bench-limits.md` has the measured times).
fn timed(args: &[&str]) -> (Run, Duration) {
    let t = Instant::now();
    let r = run(args);
    (r, t.elapsed())
}

#[test]
fn long_straight_line_threads_honour_the_timeout() {
    // 20,000 statements took 100 s with --timeout 2 (post-dominators by bit sets).
    let f = file("straight.litmus", &straight_line(20_000, 50));
    let (r, took) = timed(&["check", "--json", "--model", "sc", "--timeout", "1", &f]);
    assert!(r.status == 0 || r.status == 3, "{}", r.stderr);
    assert!(took < Duration::from_secs(20), "took {took:?}");
    // 10,000 distinct registers: dense reaching definitions would need 10^8 cells; the
    // sparse ones build the graph (no "not built" warning) and the check answers in time.
    let f = file("regs.litmus", &straight_line(10_000, 10_000));
    let (r, took) = timed(&[
        "check",
        "--json",
        "--model",
        "sc",
        "--engine",
        "mcr",
        "--timeout",
        "1",
        &f,
    ]);
    assert!(took < Duration::from_secs(20), "took {took:?}");
    let m = &r.json()["files"][0]["results"]["sc"];
    let warnings = m["warnings"].to_string();
    assert!(
        !warnings.contains("dependency graph was not built"),
        "{warnings}"
    );
    assert!(
        m["complete"] == true || warnings.contains("timeout"),
        "{warnings}"
    );
}

#[test]
fn the_memory_budget_stops_every_engine_cleanly() {
    // `while (1) { x = 1; }` under TSO grew to 4 GB.
    let f = file(
        "loop.litmus",
        "litmus L\nshared x = 0;\nthread P0 { while (1) { x = 1; } }\n",
    );
    for engine in ["mcr", "exhaustive"] {
        let r = run(&[
            "check",
            "--json",
            "--model",
            "tso",
            "--engine",
            engine,
            "--loop-bound",
            "100000",
            "--max-memory",
            "32",
            &f,
        ]);
        assert_eq!(r.status, 3, "{engine}: {}", r.stderr);
        let m = &r.json()["files"][0]["results"]["tso"];
        assert_eq!(m["complete"], false, "{engine}");
        assert!(
            m["warnings"].to_string().contains("--max-memory"),
            "{engine}: {}",
            m["warnings"]
        );
    }
    // What was found before the budget is kept: states of a heavy test under MCR (the
    // reference explorer, breadth-first, may reach the budget before any final state).
    let heavy = heavy();
    let f = file("heavy.litmus", &heavy);
    let r = run(&[
        "check",
        "--json",
        "--model",
        "pso",
        "--engine",
        "mcr",
        "--max-memory",
        "24",
        &f,
    ]);
    assert_eq!(r.status, 3, "{}", r.stderr);
    let m = &r.json()["files"][0]["results"]["pso"];
    assert_eq!(m["complete"], false);
    assert!(
        !m["states"].as_array().unwrap().is_empty(),
        "no partial states"
    );
}

#[test]
fn a_timed_out_reference_explorer_says_how_far_it_got() {
    let th: Vec<String> = (0..5)
        .map(|t| {
            format!(
                "thread P{t} {{ x{t} = 1; r0 = x{}; x{t} = 2; r1 = x{}; }}",
                (t + 1) % 5,
                (t + 2) % 5
            )
        })
        .collect();
    let shared: Vec<String> = (0..5).map(|i| format!("x{i} = 0")).collect();
    let f = file(
        "bfs.litmus",
        &format!(
            "litmus B\nshared {};\n{}\n",
            shared.join(", "),
            th.join("\n")
        ),
    );
    let r = run(&[
        "check",
        "--json",
        "--model",
        "pso",
        "--engine",
        "exhaustive",
        "--timeout",
        "0.3",
        &f,
    ]);
    assert_eq!(r.status, 3, "{}", r.stderr);
    let m = &r.json()["files"][0]["results"]["pso"];
    assert_eq!(m["complete"], false);
    assert!(
        m["stats"]["explored"].as_u64().unwrap() > 0,
        "{}",
        m["stats"]
    );
    assert!(m["warnings"].to_string().contains("timeout"));
}

#[test]
fn many_threads_and_many_locations_end_at_the_deadline() {
    let th: String = (0..2000)
        .map(|t| format!("thread P{t} {{ x = {t}; }}\n"))
        .collect();
    let f = file("threads.litmus", &format!("litmus T\nshared x = 0;\n{th}"));
    let (r, took) = timed(&["check", "--json", "--model", "sc", "--timeout", "0.5", &f]);
    assert!(r.status == 0 || r.status == 3, "{}", r.stderr);
    assert!(took < Duration::from_secs(20), "took {took:?}");
    let locs: Vec<String> = (0..800).map(|i| format!("v{i} = 0")).collect();
    let stores: String = (0..800).map(|i| format!("v{i} = 1; ")).collect();
    let f = file(
        "pso.litmus",
        &format!(
            "litmus P\nshared {};\nthread P0 {{ {stores}}}\n",
            locs.join(", ")
        ),
    );
    let (r, took) = timed(&["check", "--json", "--model", "pso", "--timeout", "1", &f]);
    assert!(r.status == 0 || r.status == 3, "{}", r.stderr);
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

#[test]
fn absurd_numbers_are_bad_options_not_panics() {
    for args in [
        ["--timeout", "1e19"],
        ["--timeout", "1e300"],
        ["--max-memory", "0"],
        ["--max-memory", "99999999999999999999"],
    ] {
        let r = run(&["check", args[0], args[1], &example("sb.litmus")]);
        assert_eq!(r.status, 2, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains("invalid value"), "{args:?}: {}", r.stderr);
    }
}

#[test]
fn failed_writes_exit_2_and_a_closed_pipe_exits_141() {
    if std::path::Path::new("/dev/full").exists() {
        let full = || {
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap()
        };
        let o = litmus()
            .args(["check", &example("dekker.litmus")])
            .stdout(full())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("cannot write the results"));
        // Even stderr full: still 2, no panic (101).
        let bad = file("bad.litmus", "litmus X\nthread P0 { r0 = ; }\n");
        let o = litmus()
            .args(["check", &bad])
            .stderr(full())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2));
        let o = litmus()
            .args(["check", &example("dekker.litmus")])
            .stdout(full())
            .stderr(full())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2));
    }
    // `litmus check ... | head -c 1`: the reader goes away; the check ends quietly with 141.
    let mut child = litmus()
        .args(["check", &example("dekker.litmus"), &example("sb.litmus")])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(141),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn a_division_by_zero_in_the_condition_is_reported() {
    let f = file(
        "rem.litmus",
        "litmus R\nshared x = 0;\nthread P0 { x = 1; }\nexists (1 % 0 == 1)\n",
    );
    let r = run(&["check", "--json", "--model", "sc", &f]);
    let m = &r.json()["files"][0]["results"]["sc"];
    assert!(
        m["warnings"]
            .to_string()
            .contains("division by zero in the final condition"),
        "{m}"
    );
}

#[test]
fn parsing_a_huge_file_honours_the_timeout() {
    // 200,000 statements took seconds to parse and lower, none of it cancellable. With a
    // deadline that passes during parsing, the file is reported as not checked and the run
    // as incomplete; a deadline that passes later stops the check instead.
    let f = file("huge.litmus", &straight_line(200_000, 50));
    let r = run(&["check", "--json", "--model", "sc", "--timeout", "0.001", &f]);
    assert_eq!(r.status, 3, "{}", r.stderr);
    let doc = r.json();
    let file = &doc["files"][0];
    let parse_stopped = file["diagnostics"]
        .to_string()
        .contains("parsing stopped early (timeout)");
    let check_stopped = file["results"]["sc"]["complete"] == false;
    assert!(parse_stopped || check_stopped, "{file}");
    // Text output: the warning on stderr, exit 3.
    let r = run(&["check", "--model", "sc", "--timeout", "0.001", &f]);
    assert_eq!(r.status, 3, "{}", r.stderr);
    let said = format!("{}{}", r.stdout, r.stderr);
    assert!(said.contains("stopped early"), "{said}");
}

/// Four threads adding to a shared counter without a lock (`editors/vscode/e2e/fixtures/
/// slow-counter.litmus`): a lost update falsifies the `forall` at once for DPOR, while the
/// reference explorer, breadth first, reaches no final state for a long time.
const SLOW_COUNTER: &str = "litmus SlowCounter
shared x = 0;
thread P0 { r0 = 0; while (r0 < 3) { r1 = x; x = r1 + 1; r0 = r0 + 1; } }
thread P1 { r0 = 0; while (r0 < 3) { r1 = x; x = r1 + 1; r0 = r0 + 1; } }
thread P2 { r0 = 0; while (r0 < 3) { r1 = x; x = r1 + 1; r0 = r0 + 1; } }
thread P3 { r0 = 0; while (r0 < 3) { r1 = x; x = r1 + 1; r0 = r0 + 1; } }
forall (x == 12)
";

#[test]
fn a_stopped_check_decides_no_condition_it_has_not_seen_decided() {
    // Issue 52: stopped before any final state, the exhaustive engine said `forall holds (0 of
    // 0 states)`, herd's `Ok` and `"holds": true`. Now: not decided, `Unknown`, `decided: false`.
    let f = file("slow-counter.litmus", SLOW_COUNTER);
    let base = [
        "check",
        "--model",
        "sc",
        "--engine",
        "exhaustive",
        "--timeout",
        "0.3",
    ];
    let with = |extra: &[&str]| -> Run {
        let mut a: Vec<&str> = base.to_vec();
        a.extend_from_slice(extra);
        a.push(&f);
        run(&a)
    };
    let r = with(&["-q"]);
    assert_eq!(r.status, 3, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("SC: forall not decided (0 states seen), no violation, incomplete"),
        "{}",
        r.stdout
    );
    let r = with(&[]);
    assert_eq!(r.status, 3);
    assert!(r.stdout.contains("\nUnknown\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains("Observation SlowCounter Unknown 0 0"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("\nOk\n"), "{}", r.stdout);
    let r = with(&["--json"]);
    let c = &r.json()["files"][0]["results"]["sc"]["condition"];
    assert_eq!(c["decided"], false, "{c}");
    assert_eq!(r.json()["files"][0]["results"]["sc"]["complete"], false);
}

#[test]
fn a_counterexample_found_before_the_deadline_decides_the_forall() {
    // DPOR meets a lost update in its first few executions: whatever stops it later, the
    // `forall` does not hold, the violation is reported and the exit status is 1.
    let f = file("slow-counter-dpor.litmus", SLOW_COUNTER);
    let r = run(&[
        "check",
        "-q",
        "--model",
        "sc",
        "--engine",
        "dpor",
        "--timeout",
        "2",
        &f,
    ]);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("SC: forall does not hold ("),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("1 violation, incomplete"), "{}", r.stdout);
}
