//! Bounded and unbounded verdicts in the editor (issue 41): the lens and hover tell "✓ up to 8
//! iterations" (a bounded check the loop bound cut) from "✓ for every iteration" (an unbounded
//! check that proved it) and `unknown` with its reason; `litmus.verifyUnbounded` and
//! `litmus.unbounded: "onSave"` run the unbounded check as a job; a violation it finds beyond
//! the loop bound opens with a schedule that replays.

mod lsp_harness;

use lsp_harness::*;
use serde_json::{json, Value};

/// P0 sets `x` forever: every model's bounded check is cut by the loop bound; SC and TSO are
/// proven for every iteration, PSO is answered as bounded (`unknown`).
const SPIN: &str = "litmus Spin \"a flag set again and again\"
shared x = 0;
thread P0 {
  while (1) {
    x = 1;
    x = 0;
  }
}
thread P1 {
  r = x;
  assert(r <= 1);
}
";

/// `y` is set in P0's second round only: no violation with loop bound 1, one for every
/// iteration (its schedule needs loop bound 2).
const TWO: &str = "litmus TwoRounds \"y is set in the second round only\"
shared x = 0, y = 0;
thread P0 {
  while (1) {
    if (x == 1) { y = 1; }
    x = 1;
  }
}
thread P1 {
  r = y;
  assert(r == 0);
}
";

async fn lenses(h: &mut Harness, uri: &str) -> Value {
    h.request(
        "textDocument/codeLens",
        json!({"textDocument": {"uri": uri}}),
    )
    .await
}

async fn hover_on_name(h: &mut Harness, uri: &str, text: &str, name: &str) -> String {
    let (l, c) = find(text, name);
    let v = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": pos(l, c + 1)}),
        )
        .await;
    v["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bounded_then_every_iteration_and_unknown_on_command() {
    let u = "file:///t/spin.litmus";
    let mut h = Harness::default_with(hooked(), json!({})).await;
    h.open(u, 1, SPIN).await;
    h.status(u, "done").await;
    let ls = lenses(&mut h, u).await;
    let t = lens_titles(&ls);
    assert!(
        t.iter().any(|t| t == "✓ up to 8 iterations (SC, TSO, PSO)"),
        "{t:?}"
    );
    let cmd = ls
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["command"]["title"] == "check for every iteration")
        .unwrap_or_else(|| panic!("no command lens: {t:?}"));
    assert_eq!(cmd["command"]["command"], "litmus.verifyUnbounded");
    assert_eq!(cmd["command"]["arguments"], json!([u]));
    // Plain text where the client shows plain text, and no CLI flag in an editor's warning.
    for l in ls.as_array().unwrap() {
        let tip = l["data"]["tooltip"].as_str().unwrap_or_default();
        assert!(
            !tip.contains('`'),
            "a raw backtick in a lens tooltip: {tip}"
        );
    }
    let d = h.last_diagnostics(u).unwrap();
    let cut: Vec<&str> = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["message"].as_str())
        .filter(|m| m.starts_with("loop bound 8 reached"))
        .collect();
    assert!(!cut.is_empty(), "{d}");
    for m in &cut {
        assert!(!m.contains("--unbounded") && !m.contains('`'), "{m}");
        assert!(
            m.contains("“check for every iteration”")
                && m.contains("Litmus: Check for Every Iteration")
                && m.contains("“litmus.loopBound”"),
            "{m}"
        );
    }
    let md = hover_on_name(&mut h, u, SPIN, "Spin").await;
    assert!(md.contains("SC, TSO, PSO: ✓ up to 8 iterations"), "{md}");
    assert!(md.contains("command:litmus.verifyUnbounded?"), "{md}");

    // The command runs the unbounded check as a job of the document.
    let r = h
        .request(
            "workspace/executeCommand",
            json!({"command": "litmus.verifyUnbounded", "arguments": [u]}),
        )
        .await;
    assert_eq!(r, Value::Null);
    h.status(u, "running").await;
    h.status(u, "done").await;
    let ls = lenses(&mut h, u).await;
    let t = lens_titles(&ls);
    assert!(
        t.iter().any(|t| t == "✓ for every iteration (SC, TSO)"),
        "{t:?}"
    );
    let unknown = ls
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["command"]["title"] == "unknown for every iteration (PSO)")
        .unwrap_or_else(|| panic!("no unknown lens: {t:?}"));
    let tip = unknown["data"]["tooltip"].as_str().unwrap();
    assert!(tip.starts_with("PSO: unknown: "), "{tip}");
    assert!(tip.contains("PSO"), "the reason names PSO: {tip}");
    assert!(!t.iter().any(|t| t.contains("up to 8")), "{t:?}");
    assert!(!t.iter().any(|t| t == "check for every iteration"), "{t:?}");
    let md = hover_on_name(&mut h, u, SPIN, "Spin").await;
    assert!(md.contains("SC, TSO: ✓ for every iteration"), "{md}");
    assert!(
        md.contains("PSO: unknown for every iteration — unknown: "),
        "{md}"
    );

    // An edit of the program drops the unbounded answers with the results; the bounded check
    // (on open, here) says "up to" again.
    let edited = SPIN.replace("x = 0;\n  }", "x = 0;\n    x = 0;\n  }");
    h.change_full(u, 2, &edited).await;
    h.save(u).await;
    h.status(u, "done").await;
    let t = lens_titles(&lenses(&mut h, u).await);
    assert!(
        t.iter().any(|t| t == "✓ up to 8 iterations (SC, TSO, PSO)"),
        "{t:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_save_checks_for_every_iteration_and_a_violation_beyond_the_bound_replays() {
    let u = "file:///t/two.litmus";
    let mut h = Harness::default_with(
        hooked(),
        json!({"models": ["sc"], "loopBound": 1, "unbounded": "onSave"}),
    )
    .await;
    // Opening checks bounded: no violation within one iteration.
    h.open(u, 1, TWO).await;
    h.status(u, "done").await;
    let t = lens_titles(&lenses(&mut h, u).await);
    assert!(t.iter().any(|t| t == "✓ up to 1 iteration (SC)"), "{t:?}");
    assert!(t.iter().any(|t| t == "SC ✓"), "{t:?}");

    // A save checks for every iteration: the violation needs two.
    h.save(u).await;
    h.status(u, "running").await;
    let st = h.status(u, "done").await;
    assert_eq!(st["verdicts"]["sc"], "fails", "{st}");
    let t = lens_titles(&lenses(&mut h, u).await);
    assert!(t.iter().any(|t| t == "SC ✗"), "{t:?}");
    assert!(t.iter().any(|t| t == "✗ from loop bound 2 (SC)"), "{t:?}");
    let d = h.last_diagnostics(u).unwrap();
    assert!(
        d["diagnostics"]
            .to_string()
            .contains("assertion fails under SC"),
        "{d}"
    );
    // Its trace replays with the loop bound it needs, not the setting's.
    let tr = h
        .request("litmus/trace", json!({"uri": u, "model": "sc"}))
        .await;
    let rows = tr["rows"].as_array().unwrap_or_else(|| panic!("{tr}"));
    let loads_of_x = rows
        .iter()
        .filter(|r| r["action"] == "load" && r["loc"] == "x")
        .count();
    assert_eq!(loads_of_x, 2, "two rounds of P0: {tr}");
}

/// P0's assertion fails before its loop runs: the violation needs no iteration.
const ZERO: &str = "litmus ZeroRounds \"the assertion fails before the loop\"
shared x = 0, y = 0;
thread P0 {
  r0 = x;
  assert(r0 == 0);
  while (y == 0) {
    r1 = y;
  }
}
thread P1 {
  x = 1;
  y = 1;
}
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_loop_bound_a_violation_needs_is_the_clis() {
    // The lens says the loop bound the violation's schedule replays with, as `litmus check
    // --unbounded` prints it: 0 here (it said 1, the CLI 0).
    let dir = std::env::temp_dir().join(format!("litmus-zero-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("zero.litmus");
    std::fs::write(&file, ZERO).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_litmus"))
        .args(["check", "-q", "--unbounded", "--model", "sc"])
        .arg(&file)
        .output()
        .unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let cli = String::from_utf8_lossy(&out.stdout).to_string();
    let n: u32 = cli
        .split("violation for every iteration from loop bound ")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("the CLI's answer: {cli}"));
    assert_eq!(n, 0, "{cli}");

    let u = "file:///t/zero.litmus";
    let mut h =
        Harness::default_with(hooked(), json!({"models": ["sc"], "unbounded": "onSave"})).await;
    h.open(u, 1, ZERO).await;
    h.status(u, "done").await;
    h.save(u).await;
    h.status(u, "running").await;
    h.status(u, "done").await;
    let t = lens_titles(&lenses(&mut h, u).await);
    assert!(
        t.iter()
            .any(|t| t == &format!("✗ from loop bound {n} (SC)")),
        "{t:?}"
    );
}
