//! Parsing off the main loop (issue 26): a long document is parsed on a blocking thread with a
//! stop flag, so while it parses the server answers requests about other documents, and a newer
//! edit (or a close) supersedes the parse; the diagnostics finally shown are the newer text's.

mod lsp_harness;

use std::sync::atomic::Ordering;
use std::time::Duration;

use lsp_harness::*;
use serde_json::{json, Value};

const A: &str = "file:///t/huge.litmus";
const B: &str = "file:///t/other.litmus";

/// One thread of `n` plain statements (the reproducer), long enough to be parsed off
/// the loop from about 9,000 statements on (`INLINE_PARSE_BYTES`).
fn huge(n: usize) -> String {
    let mut s = String::from("litmus Huge\n\nshared x = 0;\n\nthread P0 {\n");
    for i in 0..n {
        s.push_str(&format!("  r{} = {};\n", i % 50, i));
    }
    s.push_str("}\n");
    s
}

fn symbol_names(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(v: &Value, out: &mut Vec<String>) {
        for s in v.as_array().into_iter().flatten() {
            out.push(s["name"].as_str().unwrap_or_default().to_string());
            walk(&s["children"], out);
        }
    }
    walk(v, &mut out);
    out
}

async fn symbols(h: &mut Harness, uri: &str) -> Value {
    h.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parse_that_never_ends_does_not_block_the_server_and_a_newer_edit_supersedes_it() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    h.open(B, 1, SB).await;
    h.status(B, "done").await;
    // A long text whose parse (hooked) runs until it is told to stop.
    let held = format!("{MP}\n{HOLD_PARSE}\n{}", "// padding line\n".repeat(20_000));
    h.open(A, 1, &held).await;
    for _ in 0..2000 {
        if PARSE_HELD.load(Ordering::SeqCst) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(PARSE_HELD.load(Ordering::SeqCst), "the long parse started");
    // The loop answers about another document while that parse runs...
    let names = symbol_names(&symbols(&mut h, B).await);
    assert!(names.iter().any(|n| n == "P0"), "symbols of B: {names:?}");
    // ...and about the parsing document itself: nothing yet, rather than a stale tree.
    assert_eq!(symbols(&mut h, A).await, Value::Null);
    // A newer edit with a small program stops the parse; its diagnostics are shown.
    h.change_full(A, 2, SB).await;
    h.diagnostics(A, 2).await;
    let names = symbol_names(&symbols(&mut h, A).await);
    assert!(
        names.iter().any(|n| n == "P1"),
        "symbols of the small program: {names:?}"
    );
    let published_v1 = h.log().iter().any(|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == A
            && m["params"]["version"] == 1
    });
    assert!(!published_v1, "the superseded parse published nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_document_parses_off_the_loop_and_a_small_edit_supersedes_it() {
    let mut h = Harness::default_with(litmus::server::engine::real(), json!({})).await;
    h.open(B, 1, SB).await;
    h.status(B, "done").await;
    h.open(A, 1, &huge(30_000)).await;
    let names = symbol_names(&symbols(&mut h, B).await);
    assert!(names.iter().any(|n| n == "P1"), "symbols of B: {names:?}");
    h.change_full(A, 2, MP).await;
    h.diagnostics(A, 2).await;
    let names = symbol_names(&symbols(&mut h, A).await);
    assert!(names.iter().any(|n| n == "P1"), "symbols of MP: {names:?}");
    let last = h.last_diagnostics(A).unwrap();
    assert_eq!(
        last["version"], 2,
        "the last diagnostics are the small program's"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_huge_document_is_parsed_checked_and_can_be_closed_while_parsing() {
    let mut h = Harness::default_with(litmus::server::engine::real(), json!({})).await;
    // Parsed off the loop, then published and checked like any document.
    let text = huge(20_000);
    h.open(A, 1, &text).await;
    h.diagnostics(A, 1).await;
    let names = symbol_names(&symbols(&mut h, A).await);
    assert!(
        names.iter().any(|n| n == "P0"),
        "symbols of the huge program: {names:?}"
    );
    // Closed while a newer version parses: nothing of it is shown; the server still answers.
    h.change_full(A, 2, &format!("{text}\n")).await;
    h.close(A).await;
    h.open(B, 1, SB).await;
    h.status(B, "done").await;
    let names = symbol_names(&symbols(&mut h, B).await);
    assert!(names.iter().any(|n| n == "P1"), "symbols of B: {names:?}");
}
