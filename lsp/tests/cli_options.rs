//! Command-line handling: help, version, and bad options exiting 2 with a clear message.

mod cli_support;
use cli_support::*;

#[test]
fn help_lists_the_options_examples_and_exit_statuses() {
    let r = run(&["check", "--help"]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    for needle in [
        "--model",
        "--json",
        "--engine",
        "--no-sdg",
        "--loop-bound",
        "--timeout",
        "--color",
        "Examples:",
        "Exit status:",
    ] {
        assert!(
            r.stdout.contains(needle),
            "help lacks {needle}:\n{}",
            r.stdout
        );
    }
}

#[test]
fn version_prints_the_crate_version() {
    let r = run(&["--version"]);
    assert_eq!(r.status, 0);
    assert_eq!(
        r.stdout.trim(),
        format!("litmus {}", env!("CARGO_PKG_VERSION"))
    );
}

fn assert_bad(args: &[&str], says: &str) {
    let r = run(args);
    assert_eq!(r.status, 2, "{args:?} should exit 2; stderr:\n{}", r.stderr);
    assert!(
        r.stdout.is_empty(),
        "{args:?} printed on stdout:\n{}",
        r.stdout
    );
    assert!(
        r.stderr.contains(says),
        "{args:?}: stderr lacks {says:?}:\n{}",
        r.stderr
    );
}

#[test]
fn bad_options_exit_2_with_a_message() {
    let sb = example("sb.litmus");
    assert_bad(
        &["check", "--model", "armv9", &sb],
        "unknown model `armv9` (expected sc, tso, pso, aarch64, riscv, ppc or arm)",
    );
    assert_bad(&["check", "--model", "sc,,tso", &sb], "unknown model ``");
    assert_bad(&["check", "--engine", "fast", &sb], "invalid value 'fast'");
    assert_bad(
        &["check", "--loop-bound", "many", &sb],
        "invalid value 'many'",
    );
    assert_bad(&["check", "--loop-bound=-1", &sb], "invalid value '-1'");
    assert_bad(
        &["check", "--timeout", "soon", &sb],
        "not a number of seconds",
    );
    assert_bad(&["check", "--timeout=-2", &sb], "non-negative");
    assert_bad(
        &["check", "--color", "sometimes", &sb],
        "invalid value 'sometimes'",
    );
    assert_bad(
        &["check", "--frobnicate", &sb],
        "unexpected argument '--frobnicate'",
    );
    assert_bad(&["check", "--json", "--quiet", &sb], "cannot be used with");
    assert_bad(&["check"], "FILE");
    assert_bad(&["verify", &sb], "unrecognized subcommand 'verify'");
}

#[test]
fn no_arguments_prints_usage_and_exits_2() {
    let r = run(&[]);
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("Usage: litmus <COMMAND>"), "{}", r.stderr);
}

const SPIN: &str = "litmus Spin\nshared x = 0;\nthread P0 {\n  while (x == 0) { r0 = r0 + 1; }\n}\nthread P1 { x = 1; }\nexists (P0:r0 == 2)\n";

#[test]
fn loop_bound_engine_and_sdg_options_reach_the_engine() {
    let path = scratch("options", "spin.litmus", SPIN.as_bytes());
    let states = |args: &[&str]| {
        let mut all = vec!["check", "--json", "--model", "sc"];
        all.extend_from_slice(args);
        all.push(&path);
        let r = run(&all);
        assert_eq!(r.status, 0, "{args:?}: {}", r.stderr);
        r.json()["files"][0]["results"]["sc"].clone()
    };
    // r0 counts loop iterations: the bound decides how many final values are reachable.
    let b2 = states(&["--loop-bound", "2"]);
    assert_eq!(b2["states"].as_array().unwrap().len(), 3, "{b2}");
    let warning = b2["warnings"][0]["message"].as_str().unwrap();
    assert!(warning.contains("loop bound 2"), "{warning}");
    assert_eq!(b2["warnings"][0]["line"], 4);
    let b4 = states(&["--loop-bound", "4"]);
    assert_eq!(b4["states"].as_array().unwrap().len(), 5, "{b4}");
    // Every engine and pruning choice finds the same states.
    for args in [
        &["--engine", "exhaustive"][..],
        &["--engine", "mcr"],
        &["--no-sdg"],
    ] {
        let mut a = args.to_vec();
        a.extend(["--loop-bound", "2"]);
        assert_eq!(states(&a)["states"], b2["states"], "{args:?}");
    }
    assert_eq!(
        states(&["--engine", "exhaustive"])["stats"]["constraints"],
        0
    );
}

#[test]
fn dump_sdg_prints_the_dependence_graph_instead_of_checking() {
    let path = scratch("options", "spin-sdg.litmus", SPIN.as_bytes());
    let r = run(&["check", "--dump-sdg", &path]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        !r.stdout.contains("Test Spin"),
        "nothing is checked:\n{}",
        r.stdout
    );
    // P0's loop: the load of x decides whether the body runs, and the body's assignment reads
    // the register it updates.
    assert!(r.stdout.contains("thread P0 (#0):"), "{}", r.stdout);
    let load = r
        .stdout
        .lines()
        .find(|l| l.contains("= load x"))
        .expect("the load of x");
    let pc = load.split_whitespace().next().unwrap();
    let branch = r
        .stdout
        .lines()
        .find(|l| l.contains("if !"))
        .expect("the loop test");
    assert!(branch.contains(&format!("data: {pc} (")), "{branch}");
    let body = r
        .stdout
        .lines()
        .find(|l| l.contains("r0 = (r0 + 1)"))
        .expect("the loop body");
    assert!(body.contains("control:"), "{body}");
    let dot = run(&["check", "--dump-sdg=dot", &path]);
    assert_eq!(dot.status, 0, "{}", dot.stderr);
    assert!(dot.stdout.starts_with("digraph sdg {"), "{}", dot.stdout);
    assert!(dot.stdout.contains("style=dashed"), "{}", dot.stdout);
    assert_bad(&["check", "--dump-sdg=svg", &path], "invalid value 'svg'");
}
