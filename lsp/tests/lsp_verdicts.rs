//! One meaning of a verdict (issue 44): a cancel keeps what was found, marked incomplete; a
//! file that does not parse says why in `litmus/status`; the trace's graph marks the cycle that
//! explains a relaxed violation and a deadlock's waits.

mod lsp_harness;

use std::sync::atomic::Ordering;

use lsp_harness::*;
use serde_json::{json, Value};

const U: &str = "file:///t/held.litmus";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_keeps_the_violation_found_and_marks_the_rest_incomplete() {
    let mut h = Harness::default_with(hooked(), json!({"maxJobs": 3})).await;
    // PSO finds MP's violation, then its exploration is held open until cancelled.
    h.open(U, 1, &MP.replacen("litmus MP", "litmus HeldMP", 1))
        .await;
    h.wait_for("the first violation", |m| {
        m["method"] == "litmus/status" && m["params"]["verdicts"]["pso"] == "fails"
    })
    .await;
    let r = h
        .request(
            "workspace/executeCommand",
            json!({"command": "litmus.cancel", "arguments": [U]}),
        )
        .await;
    assert_eq!(r, Value::Null);
    let st = h.status(U, "cancelled").await;
    assert_eq!(st["verdicts"]["pso"], "fails", "{st}");
    let lenses = h
        .request("textDocument/codeLens", json!({"textDocument": {"uri": U}}))
        .await;
    let t = lens_titles(&lenses);
    assert!(
        t.iter().any(|t| t == "PSO ✗"),
        "what was found stays: {t:?}"
    );
    assert!(
        !t.iter().any(|t| t.contains("not verified yet")),
        "a saved, cancelled file is not 'not verified': {t:?}"
    );
    let d = h.last_diagnostics(U).unwrap();
    let all = d["diagnostics"].to_string();
    assert!(all.contains("assertion fails under PSO"), "{all}");
    assert!(all.contains("cancelled before the end"), "{all}");
    assert!(!all.contains("still exploring"), "{all}");
    RELEASE.store(true, Ordering::SeqCst);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_that_does_not_parse_says_why_in_the_status() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    let u = "file:///t/broken.litmus";
    h.open(u, 1, "litmus B\nshared x;\nthread P0 { x = ; }\n")
        .await;
    let st = h.status(u, "done").await;
    let p = st["problem"].as_str().expect("a problem");
    assert!(p.starts_with("line 3: "), "{st}");
    assert_eq!(st["verdicts"], json!({}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_graph_marks_the_cycle_of_a_relaxed_violation_and_a_deadlocks_waits() {
    let mut h = Harness::default_with(hooked(), json!({"models": ["tso"]})).await;
    let s = "file:///t/sb.litmus";
    let sb = SB.replace("exists", "~exists");
    h.open(s, 1, &sb).await;
    h.status(s, "done").await;
    let t = h
        .request("litmus/trace", json!({"uri": s, "model": "tso"}))
        .await;
    let edges = t["graph"]["edges"].as_array().unwrap();
    let cycle: Vec<&str> = edges
        .iter()
        .filter(|e| e["explains"] == true)
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    // SB's TSO execution: po; fr; po; fr (each load reads the initial value).
    let mut kinds = cycle.clone();
    kinds.sort();
    assert_eq!(kinds, ["fr", "fr", "po", "po"], "{edges:?}");
    assert!(
        edges
            .iter()
            .any(|e| e["kind"] == "rf" && e["explains"] == false),
        "{edges:?}"
    );

    let d = "file:///t/lock-order.litmus";
    let text = include_str!("../../examples/lock-order.litmus");
    h.open(d, 1, text).await;
    h.status(d, "done").await;
    let t = h
        .request("litmus/trace", json!({"uri": d, "model": "tso"}))
        .await;
    assert_eq!(t["kind"], "deadlock");
    assert!(
        !t["title"].as_str().unwrap().contains("deadlock: deadlock"),
        "{}",
        t["title"]
    );
    let waits = t["graph"]["waits"].as_array().unwrap();
    assert_eq!(waits.len(), 2, "{waits:?}");
    let nodes = t["graph"]["nodes"].as_array().unwrap();
    for w in waits {
        // Each thread waits for the mutex the other one locked: a cycle of waits.
        let lock = &nodes[w["lock"].as_u64().unwrap() as usize];
        assert_eq!(lock["kind"], "lock");
        assert_eq!(lock["loc"], w["mutex"]);
        assert_eq!(lock["thread"], w["holder"]);
        assert_ne!(w["holder"], w["thread"]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_schedule_is_folded_in_the_problems_related_rows() {
    let mut h = Harness::default_with(hooked(), json!({"models": ["pso"]})).await;
    let u = "file:///t/long.litmus";
    let stores: String = (1..=20).map(|i| format!("  x = {i};\n")).collect();
    let text = format!(
        "litmus Long\nshared x = 0, y = 0;\nthread P0 {{\n{stores}  y = 1;\n}}\nthread P1 {{\n  r0 = y;\n  r1 = x;\n  assert(r0 == 0 || r1 == 20);\n}}\n"
    );
    h.open(u, 1, &text).await;
    let st = h.status(u, "done").await;
    assert_eq!(st["verdicts"]["pso"], "fails", "{st}");
    let d = h.last_diagnostics(u).unwrap();
    let e = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["severity"] == 1)
        .unwrap()
        .clone();
    let rel: Vec<&str> = e["relatedInformation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["message"].as_str().unwrap())
        .collect();
    // 6 first steps, one entry for the fold, 5 last steps.
    assert_eq!(rel.len(), 12, "{rel:#?}");
    assert!(rel[0].starts_with("PSO step 1/"), "{rel:#?}");
    assert!(
        rel[6].starts_with("PSO steps 7-") && rel[6].contains("more steps"),
        "{rel:#?}"
    );
    let n: usize = rel[0]["PSO step 1/".len()..]
        .split(':')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!(n > 12, "{rel:#?}");
    assert!(
        rel[11].starts_with(&format!("PSO step {n}/{n}:")),
        "{rel:#?}"
    );
}
