//! `litmus check --unbounded` (`docs/reference.md#unbounded`): the answer for every number of
//! iterations in text, `-q` and JSON, the exit status, and the bounded check's pointer to it.

mod cli_support;
use cli_support::*;

fn corpus(name: &str) -> String {
    root().join("tests/litmus").join(name).display().to_string()
}

#[test]
fn a_spin_loop_holds_for_every_iteration() {
    // The bounded check of the reference explorer cuts P0's spin loop and says how to go
    // further (DPOR, which `auto` may pick, proves the spinning rounds redundant and reaches
    // no bound: `docs/design/dpor.md#spin-loops`).
    let f = corpus("loop_bound.litmus");
    let r = run(&[
        "check",
        "--engine",
        "exhaustive",
        "--model",
        "sc",
        "--loop-bound",
        "2",
        &f,
    ]);
    assert!(
        r.stdout
            .contains("`--unbounded` checks every number of iterations"),
        "{}",
        r.stdout
    );
    let r = run(&[
        "check",
        "--unbounded",
        "--model",
        "sc,tso",
        "--loop-bound",
        "2",
        &f,
    ]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert!(!r.stdout.contains("loop bound 2 reached"), "{}", r.stdout);
    assert!(r
        .stdout
        .contains("For every number of iterations: the results above hold"));
    assert!(
        r.stdout.contains("(robust under TSO: TSO behaves as SC)"),
        "{}",
        r.stdout
    );
    let r = run(&["check", "-q", "--unbounded", "--model", "sc", &f]);
    assert!(
        r.stdout
            .trim_end()
            .ends_with("no violation, for every iteration"),
        "{}",
        r.stdout
    );
}

#[test]
fn json_says_which_answer() {
    let f = corpus("forever/peterson.litmus");
    let r = run(&[
        "check",
        "--json",
        "--unbounded",
        "--model",
        "sc,tso",
        "--loop-bound",
        "2",
        &f,
    ]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    let doc = r.json();
    let res = &doc["files"][0]["results"];
    let sc = &res["sc"]["unbounded"];
    assert_eq!(sc["verdict"], "every-iteration", "{sc}");
    assert!(sc["reason"].is_null() && sc["states"].as_u64().unwrap() > 0);
    assert!(sc["robust"].is_null());
    let tso = &res["tso"]["unbounded"];
    assert_eq!(tso["verdict"], "violation", "{tso}");
    assert_eq!(tso["robust"]["holds"], false);
    assert!(tso["reason"]
        .as_str()
        .unwrap()
        .contains("not robust under TSO"));
    assert!(tso["loop_bound"].as_u64().unwrap() >= 1);
    // Found by lazy TSO reachability's refinement rounds.
    assert!(tso["rounds"].as_u64().unwrap() >= 1, "{tso}");
    assert_eq!(sc["rounds"], 0);
    // The key is last, and absent without the option.
    let keys: Vec<&String> = res["sc"].as_object().unwrap().keys().collect();
    assert_eq!(keys.last().unwrap().as_str(), "unbounded");
    let r = run(&["check", "--json", "--model", "sc", "--loop-bound", "2", &f]);
    assert!(r.json()["files"][0]["results"]["sc"]
        .get("unbounded")
        .is_none());
}

#[test]
fn a_growing_counter_is_unknown_and_exits_3() {
    let f = scratch(
        "cli_unbounded",
        "count.litmus",
        b"litmus Count\nshared x = 0;\nthread P0 { r = 0; while (r >= 0) { r = r + 1; x = r; } }\n",
    );
    // The state budget is large: a deadline ends the search first.
    let r = run(&[
        "check",
        "--unbounded",
        "--model",
        "sc",
        "--timeout",
        "0.3",
        &f,
    ]);
    assert_eq!(r.status, 3, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("For every number of iterations: unknown"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("Why not proven: exploration stopped early (timeout)"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_violation_deep_in_a_loop_prints_the_bound_to_replay_it() {
    let f = scratch(
        "cli_unbounded",
        "deep.litmus",
        b"litmus Deep\nshared x = 0;\nthread P0 { r = 0; while (r < 12) { r = r + 1; x = r; } }\nthread P1 { s = x; assert(s != 12); }\n",
    );
    let r = run(&["check", "--model", "sc", &f]);
    assert_eq!(r.status, 0, "{}", r.stdout);
    let r = run(&["check", "--unbounded", "--model", "sc", &f]);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("violated (the schedules replay with --loop-bound 12)"),
        "{}",
        r.stdout
    );
    // The schedule printed replays (the text output replays it with that bound).
    assert!(!r.stdout.contains("does not replay"), "{}", r.stdout);
}
