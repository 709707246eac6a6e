//! The language server on herd's `X86_64` dialect: a test in AT&T syntax is verified like any
//! other (no error diagnostics, a verdict lens per model on the condition, a witness schedule
//! replayed), and semantic tokens and hovers answer on it.

mod lsp_harness;

use lsp_harness::*;
use serde_json::json;

const T: &str = "file:///t/sb64.litmus";
const SB64: &str = "X86_64 SB\n{\nuint64_t y; uint64_t x; uint64_t 1:rax; uint64_t 0:rax;\n}\n P0            | P1            ;\n movq $1,(x)   | movq $1,(y)   ;\n movq (y),%rax | movq (x),%rax ;\nexists (0:rax=0 /\\ 1:rax=0)\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn x86_64_tests_are_verified_in_the_editor() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    h.open(T, 1, SB64).await;
    h.status(T, "done").await;
    let d = h.last_diagnostics(T).unwrap();
    let diags = d["diagnostics"].as_array().unwrap();
    assert!(
        diags.iter().all(|x| x["severity"] != 1),
        "an exists that holds is no failure: {d}"
    );
    let lenses = h
        .request("textDocument/codeLens", json!({"textDocument": {"uri": T}}))
        .await;
    let titles: Vec<&str> = lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap())
        .collect();
    // The test (no violation in any model), then the condition (herd's answer: No under SC,
    // Ok under TSO and PSO).
    assert_eq!(
        titles,
        [
            "SC ✓",
            "TSO ✓",
            "PSO ✓",
            "Show schedule",
            "SC No",
            "TSO Ok",
            "PSO Ok",
            "Show schedule"
        ]
    );
    let (l, c) = find(SB64, "exists");
    let s = h
        .request(
            "workspace/executeCommand",
            json!({"command": "litmus.showSchedule", "arguments": [T, l, c]}),
        )
        .await;
    assert_eq!(s["kind"], "witness");
    assert_eq!(s["model"], "tso");
    let toks = h
        .request(
            "textDocument/semanticTokens/full",
            json!({"textDocument": {"uri": T}}),
        )
        .await;
    assert!(
        !toks["data"].as_array().unwrap().is_empty(),
        "semantic tokens: {toks}"
    );
}
