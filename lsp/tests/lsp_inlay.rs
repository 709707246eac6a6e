//! Inlay hints (the values loads read in the counterexamples), issue 31's problem 6: a load run
//! in a loop is summarised by its first value and a count, herd's x86 thread columns are left
//! alone (one hint at the end of each row), and every violation contributes, tagged with its
//! model and number.

mod lsp_harness;

use lsp_harness::*;
use serde_json::{json, Value};

async fn hints(uri: &str, text: &str, init: Value) -> Vec<Value> {
    let mut h = Harness::default_with(hooked(), init).await;
    h.open(uri, 1, text).await;
    h.status(uri, "done").await;
    let r = h
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": uri}, "range": {"start": pos(0, 0), "end": pos(200, 0)}}),
        )
        .await;
    r.as_array().unwrap().clone()
}

fn on_line(hs: &[Value], line: u32) -> Vec<&str> {
    hs.iter()
        .filter(|h| h["position"]["line"] == line)
        .map(|h| h["label"].as_str().unwrap())
        .collect()
}

const LOOP: &str = "litmus Loop\nshared x = 0;\nthread P0 {\n  r0 = 0;\n  while (r0 < 5) {\n    r1 = x;\n    r0 = r0 + 1;\n  }\n  assert(r1 == 1);\n}\nthread P1 {\n  x = 1;\n}\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_load_in_a_loop_shows_its_first_value_and_a_count() {
    let u = "file:///t/loop.litmus";
    let hs = hints(u, LOOP, json!({"models": ["sc"], "loopBound": 8})).await;
    let (l, c) = find(LOOP, "r1 = x");
    let got = on_line(&hs, l);
    // The first counterexample: P0 runs its five reads before P1's store.
    assert_eq!(got, [" ⇐ x=0 (×5, SC)"], "{hs:?}");
    let h = hs.iter().find(|h| h["position"]["line"] == l).unwrap();
    assert_eq!(h["position"], pos(l, c + 7), "at the end of the line");
    // `r0 = r0 + 1` reads no shared location: no hint.
    assert!(on_line(&hs, find(LOOP, "r0 = r0").0).is_empty(), "{hs:?}");
}

const SB_X86: &str = "X86 SB\n{ x=0; y=0; }\n P0          | P1          ;\n MOV [x],$1  | MOV [y],$1  ;\n MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=0 /\\ 1:EAX=0)\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn x86_rows_get_one_hint_at_the_line_end() {
    let u = "file:///t/sb-x86.litmus";
    let hs = hints(u, SB_X86, json!({"models": ["tso"]})).await;
    let (l, _) = find(SB_X86, "MOV EAX,[y]");
    let row = SB_X86.lines().nth(l as usize).unwrap();
    assert_eq!(hs.len(), 1, "one hint for the one row with loads: {hs:?}");
    assert_eq!(hs[0]["position"], pos(l, row.trim_end().len() as u32));
    assert_eq!(hs[0]["label"], " ⇐ P0 y=0, P1 x=0 (TSO)");
}

const DEKKER: &str = include_str!("../../examples/dekker.litmus");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_violation_contributes_its_values_tagged_with_model_and_number() {
    let u = "file:///t/dekker.litmus";
    let hs = hints(u, DEKKER, json!({"models": ["tso"]})).await;
    // Two assertions fail under TSO; each violation's reads are shown, named `TSO #1`/`TSO #2`.
    let labels: Vec<&str> = hs.iter().map(|h| h["label"].as_str().unwrap()).collect();
    assert!(labels.iter().any(|l| l.contains("TSO #1")), "{labels:?}");
    assert!(labels.iter().any(|l| l.contains("TSO #2")), "{labels:?}");
    assert!(labels.iter().all(|l| !l.contains("(TSO)")), "{labels:?}");
    // One hint per position, never a run of repeated values.
    let mut at: Vec<&Value> = hs.iter().map(|h| &h["position"]).collect();
    at.dedup();
    assert_eq!(at.len(), hs.len(), "{hs:?}");
    assert!(labels.iter().all(|l| !l.contains("0, 0")), "{labels:?}");
    // The critical section's fetch_add read differs between the two counterexamples (whose
    // thread entered first): both values are shown, each with its violation.
    let (l, _) = find(DEKKER, "r0 = fetch_add(inside, 1)");
    let fa = on_line(&hs, l);
    assert_eq!(fa.len(), 1, "{hs:?}");
    assert!(
        fa[0].contains(" · ") && fa[0].contains("TSO #1") && fa[0].contains("TSO #2"),
        "{fa:?}"
    );
    // Both threads' `while (flagN == 1)` loads are annotated.
    for needle in ["while (flag1 == 1)", "while (flag0 == 1)"] {
        let (l, _) = find(DEKKER, needle);
        assert!(!on_line(&hs, l).is_empty(), "{needle}: {hs:?}");
    }
}
