//! `litmus check --json` says each schedule step as a sentence (`label`), the language server's
//! words for it (`server::schedule::labels`, `docs/design/lsp.md#one-rendering`): the same text
//! as the `litmus/trace` reply's `label` for the same schedule, so the VS Code test explorer
//! (which reads the CLI's JSON) and the trace view say the same thing.

mod cli_support;
mod lsp_harness;

use cli_support::*;
use lsp_harness::*;
use serde_json::{json, Value};

/// A TSO witness with a buffered store flushed before a lock, a read-modify-write and an
/// unlock (the same test as `lsp_trace.rs`'s).
const STEPS: &str = "litmus Steps
shared x = 0, y = 0, f = 0;
mutex m;
thread P0 {
  x = 1;
  lock(m);
  r0 = fetch_add(y, 2);
  unlock(m);
  f = 1;
}
thread P1 {
  await(f == 1);
  r1 = y;
}
exists (P1:r1 == 2)
";

/// Store buffering: under TSO each load misses the other thread's buffered store.
const SB: &str = "litmus SB
shared x = 0, y = 0;
thread P0 {
  x = 1;
  r0 = y;
}
thread P1 {
  y = 1;
  r1 = x;
}
exists (P0:r0 == 0 && P1:r1 == 0)
";

fn arr(v: &Value) -> &Vec<Value> {
    v.as_array().unwrap_or_else(|| panic!("not an array: {v}"))
}

/// The TSO witness of `text`'s `litmus check --json`.
fn cli_witness(name: &str, text: &str) -> Vec<Value> {
    let path = scratch("cli_json_labels", name, text.as_bytes());
    let r = run(&["check", "--json", "--model", "tso", &path]);
    let doc = r.json();
    arr(&doc["files"][0]["results"]["tso"]["witness"]).clone()
}

/// The labels of the server's `litmus/trace` rows for `text`'s TSO witness.
async fn trace_labels(h: &mut Harness, uri: &str, text: &str) -> Vec<Value> {
    h.open(uri, 1, text).await;
    h.status(uri, "done").await;
    let t = h
        .request("litmus/trace", json!({"uri": uri, "model": "tso"}))
        .await;
    assert_eq!(t["kind"], "witness", "{t}");
    arr(&t["rows"]).iter().map(|r| r["label"].clone()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_schedule_step_says_the_sentence_of_the_trace() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    for (name, text) in [("steps.litmus", STEPS), ("sb.litmus", SB)] {
        let steps = cli_witness(name, text);
        let cli: Vec<Value> = steps.iter().map(|s| s["label"].clone()).collect();
        let server = trace_labels(&mut h, &format!("file:///t/{name}"), text).await;
        assert_eq!(cli, server, "{name}: the CLI's sentences and the trace's");
        // `label` is the last key of a step: the keys before it are version 1's, unchanged.
        for s in &steps {
            let keys: Vec<&str> = s.as_object().unwrap().keys().map(|k| k.as_str()).collect();
            assert_eq!(
                keys,
                [
                    "thread", "line", "col", "end_line", "end_col", "action", "loc", "value",
                    "buffered", "label"
                ],
                "{s}"
            );
        }
    }

    // The kinds of step whose words once drifted between the clients, as the JSON says them.
    let steps = cli_witness("steps.litmus", STEPS);
    let said = |pred: &dyn Fn(&Value) -> bool, what: &str| -> String {
        steps
            .iter()
            .find(|s| pred(s))
            .unwrap_or_else(|| panic!("no {what} step in {steps:?}"))["label"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(said(&|s| s["action"] == "lock", "lock"), "P0 locks m");
    assert_eq!(said(&|s| s["action"] == "unlock", "unlock"), "P0 unlocks m");
    assert_eq!(
        said(&|s| s["action"] == "rmw", "rmw"),
        "P0 atomically updates y (`r0 = fetch_add(y, 2);`), old value 0"
    );
    assert_eq!(
        said(&|s| s["action"] == "flush" && s["loc"] == "x", "flush of x"),
        "P0's buffered store x = 1 reaches memory"
    );
    assert_eq!(
        said(
            &|s| s["action"] == "store" && s["loc"] == "x" && s["buffered"] == true,
            "buffered store of x"
        ),
        "P0 stores x = 1 into its store buffer"
    );
    let sb = cli_witness("sb.litmus", SB);
    let loads: Vec<&str> = sb
        .iter()
        .filter(|s| s["action"] == "load")
        .map(|s| s["label"].as_str().unwrap())
        .collect();
    assert!(
        loads.iter().any(|l| l.ends_with("still buffered)")),
        "a load of SB's witness names the store it missed: {loads:?}"
    );
}

#[test]
fn robust_witness_steps_have_sentences_and_the_delayed_steps_none() {
    let path = scratch("cli_json_labels", "sb-robust.litmus", SB.as_bytes());
    let r = run(&["check", "--json", "--model", "tso", "--robust", &path]);
    let doc = r.json();
    let rb = &doc["files"][0]["results"]["tso"]["robust"];
    assert_eq!(rb["holds"], false, "{rb}");
    let w = arr(&rb["witness"]);
    assert!(!w.is_empty(), "{rb}");
    for s in w {
        assert!(
            s["label"].as_str().is_some_and(|l| l.starts_with('P')),
            "{s}"
        );
    }
    let d = &rb["delayed"];
    assert!(d["store"].get("label").is_none(), "{d}");
    assert!(d["conflict"].get("label").is_none(), "{d}");
    for s in arr(&d["past"]) {
        assert!(s.get("label").is_none(), "{s}");
    }
}
