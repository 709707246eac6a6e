//! What confused a new user (issue 31), server side: the status bar follows the lenses when an
//! edit drops the results, the "not verified" lens reads as words, the hover starts with the
//! verdicts, the thread table and the final state, a time limit names `litmus.timeout` once,
//! and the table says when the loop bound cut executions short.

mod lsp_harness;

use lsp_harness::*;
use serde_json::json;

const S: &str = "file:///t/sb.litmus";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_that_drops_results_updates_the_status_and_the_lens_says_not_verified() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    h.open(S, 1, SB).await;
    let st = h.status(S, "done").await;
    assert_eq!(
        st["verdicts"],
        json!({"sc": "holds", "tso": "holds", "pso": "holds"})
    );
    // A new program (no check running): the shown verdicts are dropped, and the status says so.
    let (l, c) = find(SB, "x = 1");
    h.change(S, 2, &[(l, c + 4, l, c + 5, "2")]).await;
    let st = h.status(S, "cancelled").await;
    assert_eq!(st["version"], 2);
    assert_eq!(st["verdicts"], json!({}));
    let lenses = h
        .request("textDocument/codeLens", json!({"textDocument": {"uri": S}}))
        .await;
    let t = lens_titles(&lenses);
    assert_eq!(
        t[0], "SC, TSO, PSO: not verified yet (save to verify)",
        "{t:?}"
    );
    assert!(t.iter().all(|t| !t.contains("· ·")), "{t:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hover_starts_with_verdicts_and_final_state_then_the_numbers_and_legend() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    h.open(S, 1, SB).await;
    h.status(S, "done").await;
    let (l, c) = find(SB, "exists");
    let r = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": S}, "position": pos(l, c + 1)}),
        )
        .await;
    let md = r["contents"]["value"].as_str().unwrap();
    let at = |s: &str| md.find(s).unwrap_or_else(|| panic!("no {s:?} in {md}"));
    let order = [
        at("SC No · TSO Ok · PSO Ok"),
        at("**Witness under TSO**"),
        at("final state `P0:r0 = 0, P1:r1 = 0, x = 1, y = 1`"),
        at("[Trace under TSO]"),
        at("- SC No: `exists` does not hold"),
        at("- TSO Ok: `exists` holds"),
        at("✓ holds · ✗ fails"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?} in {md}");
    // One list item a model, no table (Neovim 0.7 shows tables raw).
    assert!(!md.contains("|---"), "{md}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_time_limit_is_said_once_naming_the_setting_and_a_loop_bound_is_not_complete_yes() {
    let spin = "litmus Spin\nshared x = 0;\nthread P0 {\n  while (1) { x = 1; }\n}\nthread P1 {\n  while (1) { r0 = x; }\n}\n";
    let u = "file:///t/spin.litmus";
    let mut h = Harness::default_with(
        hooked(),
        json!({"models": ["tso"], "timeout": 0.3, "loopBound": 100000}),
    )
    .await;
    h.open(u, 1, spin).await;
    let st = h.status(u, "done").await;
    assert_eq!(st["verdicts"]["tso"], "incomplete");
    let d = h.last_diagnostics(u).unwrap();
    let warnings: Vec<&str> = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == 2)
        .map(|d| d["message"].as_str().unwrap())
        .filter(|m| m.contains("stopped") || m.contains("incomplete"))
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("“litmus.timeout”"), "{warnings:?}");
    assert!(
        !warnings[0].contains('`'),
        "plain text in the Problems panel: {warnings:?}"
    );
    assert!(!warnings[0].contains("or cancellation"), "{warnings:?}");

    // A small bound: explored completely within it, which the table does not call `yes`.
    let mut h = Harness::default_with(hooked(), json!({"models": ["sc"], "loopBound": 2})).await;
    h.open(u, 1, spin).await;
    h.status(u, "done").await;
    let (l, c) = find(spin, "Spin");
    let r = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": u}, "position": pos(l, c + 1)}),
        )
        .await;
    let md = r["contents"]["value"].as_str().unwrap();
    assert!(
        md.contains("complete: bounded (loop bound reached)"),
        "{md}"
    );
    assert!(!md.contains("complete: yes"), "{md}");
}
