//! `litmus fences` and `litmus check --robust`: the diff, `--write`, JSON positions, the exit
//! statuses, and the `robust` key; every proposed text is checked again with `litmus check`.

mod cli_support;
use cli_support::*;

#[test]
fn dekker_gets_two_fences_as_a_diff_and_write_fixes_it() {
    let r = run(&["fences", &example("dekker.litmus")]);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.starts_with("--- a/"), "{}", r.stdout);
    assert_eq!(
        r.stdout
            .lines()
            .filter(|l| l.trim() == "+  fence;" || l.trim() == "+fence;")
            .count(),
        2,
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("2 fences make TSO give SC's verdicts"),
        "{}",
        r.stderr
    );
    // --write rewrites the file; the fenced program passes under TSO and needs no more fences.
    let src = std::fs::read(example("dekker.litmus")).unwrap();
    let path = scratch("fences", "dekker.litmus", &src);
    let w = run(&["fences", "--write", &path]);
    assert_eq!(w.status, 1, "{}", w.stderr);
    assert!(w.stdout.is_empty());
    let c = run(&["check", "--model", "tso", &path]);
    assert_eq!(c.status, 0, "{}{}", c.stdout, c.stderr);
    let again = run(&["fences", &path]);
    assert_eq!(again.status, 0, "{}{}", again.stdout, again.stderr);
    assert!(again.stdout.is_empty() && again.stderr.contains("no fence needed"));
}

#[test]
fn json_gives_positions_and_sc_violations_are_named() {
    let r = run(&["fences", "--json", "--model", "pso", &example("mp.litmus")]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    let j = r.json();
    let f = &j["files"][0];
    assert_eq!(f["model"], "pso");
    let fences = f["fences"].as_array().unwrap();
    assert_eq!(fences.len(), 1);
    assert!(fences[0]["line"].as_u64().unwrap() > 1 && fences[0]["after"]["line"].is_u64());
    // A violation SC has too is named as not fixable.
    let src =
        b"litmus Bad\nshared x = 0;\nthread P0 {\n  x = 1;\n  r0 = x;\n  assert(r0 == 2);\n}\n";
    let path = scratch("fences", "bad.litmus", src);
    let r = run(&["fences", "--json", &path]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let f = &r.json()["files"][0];
    assert_eq!(f["fences"].as_array().unwrap().len(), 0);
    assert_eq!(f["sc_violations"][0]["kind"], "assert");
    let r = run(&["fences", &path]);
    assert!(r.stderr.contains("fences cannot fix it"), "{}", r.stderr);
}

#[test]
fn x86_fences_go_in_the_threads_column() {
    let r = run(&["fences", &example("sb-x86.litmus")]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    let added: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .collect();
    assert_eq!(added.len(), 1, "{}", r.stdout);
    assert_eq!(added[0].matches("MFENCE").count(), 2);
    // The bars line up with the row above.
    let row = r.stdout.lines().find(|l| l.contains("MOV [x],$1")).unwrap();
    assert_eq!(added[0][1..].find('|'), row[1..].find('|'));
}

/// herd's AT&T dialect: a lower-case `mfence` row in each thread's column, and the rewritten
/// file gives SC's verdict under TSO.
#[test]
fn x86_64_fences_are_mfence_rows_and_fix_the_verdict() {
    let src = std::fs::read(example("sb-x86_64.litmus")).unwrap();
    let path = scratch("fences", "sb-x86_64.litmus", &src);
    let r = run(&["fences", &path]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    let added: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .collect();
    assert_eq!(added.len(), 1, "{}", r.stdout);
    assert_eq!(added[0].matches("mfence").count(), 2, "{}", r.stdout);
    assert_eq!(
        run(&["check", "--model", "tso", &path]).status,
        0,
        "an exists that holds is an answer, not a failure"
    );
    assert_eq!(run(&["fences", "--write", &path]).status, 1);
    let r = run(&["check", "--model", "tso", &path]);
    assert!(r.stdout.contains("Observation SB Never"), "{}", r.stdout);
}

#[test]
fn bad_input_exits_2_and_robust_key() {
    let path = scratch(
        "fences",
        "broken.litmus",
        b"litmus X\nthread P0 { x = ; }\n",
    );
    assert_eq!(run(&["fences", &path]).status, 2);
    assert_eq!(
        run(&["fences", "--model", "sc", &example("sb.litmus")]).status,
        2
    );
    let r = run(&["check", "--robust", "--json", &example("sb.litmus")]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    let res = &r.json()["files"][0]["results"];
    assert!(res["sc"].get("robust").is_none());
    for m in ["tso", "pso"] {
        assert_eq!(res[m]["robust"]["holds"], false);
        let w = res[m]["robust"]["witness"].as_array().unwrap();
        assert!(w.len() >= 4);
        assert_eq!(res[m]["robust"]["delayed"]["store"]["loc"], "x");
    }
    let r = run(&["check", "--robust", &example("sb-fenced.litmus")]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("Robust under TSO: yes"), "{}", r.stdout);
    let r = run(&["check", "--robust", "--model", "pso", &example("mp.litmus")]);
    assert!(r.stdout.contains("Robust under PSO: no"), "{}", r.stdout);
}
