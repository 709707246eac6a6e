//! Bad input: syntax and name errors are rendered compiler-style (file:line:col, the source
//! line, a caret) and exit 2; that file is not checked, the other files of the run are; so
//! do unreadable files.

mod cli_support;
use cli_support::*;

const BAD_LINE_3: &str = "litmus Bad\nshared x = 0;\nthread P0 { x = = 1; }\n";

#[test]
fn syntax_error_on_line_3_exits_2_with_position_and_caret() {
    let path = scratch("syntax_error", "bad.litmus", BAD_LINE_3.as_bytes());
    let r = run(&["check", "--color", "never", &path]);
    assert_eq!(r.status, 2, "stderr:\n{}", r.stderr);
    assert!(r.stdout.is_empty(), "nothing may be checked:\n{}", r.stdout);
    assert!(r.stderr.contains("error"), "{}", r.stderr);
    assert!(
        r.stderr.contains(&format!("{path}:3:")),
        "no {path}:3: in\n{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("thread P0 { x = = 1; }"),
        "no source line in\n{}",
        r.stderr
    );
    let caret = r
        .stderr
        .lines()
        .find(|l| l.contains('^'))
        .unwrap_or_else(|| panic!("no caret in\n{}", r.stderr));
    // The caret sits under the offending part of line 3, inside the statement.
    let gutter = caret.find('│').or_else(|| caret.find('|')).unwrap_or(0);
    let col = caret.find('^').unwrap() - gutter;
    assert!(col > 12 && col < 24, "caret at {col}:\n{}", r.stderr);
    assert!(r.stderr.contains("nothing was checked"), "{}", r.stderr);
}

#[test]
fn a_bad_file_in_a_batch_is_skipped_and_every_other_file_is_checked() {
    let bad = scratch("one_bad", "bad.litmus", BAD_LINE_3.as_bytes());
    let sb = example("sb.litmus");
    let mp = example("mp.litmus");
    let r = run(&[
        "check", "--color", "never", "--model", "tso", &sb, &bad, &mp,
    ]);
    assert_eq!(r.status, 2, "stderr:\n{}", r.stderr);
    assert!(
        r.stderr.contains("the other files are checked"),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout.contains(&format!("# {sb}")) && r.stdout.contains(&format!("# {mp}")),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains(&format!("# {bad}")), "{}", r.stdout);
    assert_eq!(r.stdout.matches("--- TSO ---").count(), 2, "{}", r.stdout);
    // JSON: the bad file's entry has its diagnostics, the others their results.
    let r = run(&["check", "--json", "--model", "tso", &sb, &bad]);
    assert_eq!(r.status, 2);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).expect("one JSON document");
    let files = doc["files"].as_array().expect("files");
    assert_eq!(files.len(), 2);
    assert!(files[0]["results"]["tso"].is_object(), "{}", r.stdout);
    assert!(
        files[1]["diagnostics"]
            .as_array()
            .is_some_and(|d| !d.is_empty()),
        "{}",
        r.stdout
    );
}

#[test]
fn json_reports_diagnostics_with_empty_results() {
    let path = scratch("json_error", "bad.litmus", BAD_LINE_3.as_bytes());
    let r = run(&["check", "--json", &path]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    let doc = r.json();
    assert_eq!(doc["version"], 2);
    let file = &doc["files"][0];
    assert_eq!(file["path"], path.as_str());
    assert_eq!(file["results"], serde_json::json!({}));
    let d = &file["diagnostics"][0];
    assert_eq!(d["severity"], "error");
    assert_eq!(d["line"], 3);
    assert!(
        d["col"].as_u64().unwrap() >= 1 && d["end_line"].as_u64().unwrap() >= 3,
        "{d}"
    );
    assert!(d["message"].as_str().is_some_and(|m| !m.is_empty()));
}

#[test]
fn unreadable_files_exit_2_naming_the_file() {
    let r = run(&["check", "no/such/file.litmus"]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains("cannot read no/such/file.litmus"),
        "{}",
        r.stderr
    );

    let dir = root().join("examples").display().to_string();
    let r = run(&["check", &dir]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains(&format!("cannot read {dir}")),
        "{}",
        r.stderr
    );

    let latin1 = scratch("latin1", "latin1.litmus", b"litmus T\n// caf\xe9\n");
    let r = run(&["check", &latin1]);
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("not UTF-8"), "{}", r.stderr);
}

#[test]
fn a_test_can_come_from_standard_input() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = litmus()
        .args(["check", "--color", "never", "-"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(BAD_LINE_3.as_bytes())
        .unwrap();
    let r: Run = child.wait_with_output().unwrap().into();
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("<stdin>:3:"), "{}", r.stderr);
}

#[test]
fn warnings_are_shown_and_the_test_is_still_checked() {
    let text = "litmus W\nshared x;\nthread P0 { x = 1; }\nexists (P0:r9 == 0)\n";
    let path = scratch("warning", "warn.litmus", text.as_bytes());
    let r = run(&["check", "--color", "never", "--model", "sc", &path]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(r.stderr.contains("warning:"), "{}", r.stderr);
    assert!(r.stderr.contains(&format!("{path}:4:")), "{}", r.stderr);
    assert!(r.stdout.contains("Test W Allowed"), "{}", r.stdout);
    let doc = run(&["check", "--json", "--model", "sc", &path]).json();
    assert_eq!(doc["files"][0]["diagnostics"][0]["severity"], "warning");
    assert_eq!(doc["files"][0]["results"]["sc"]["condition"]["holds"], true);
}
