//! `litmus/results` (issue 57): one notification per finished check of a document, after its
//! `done` status (or the `cancelled` one of a stopped check), with each model's verdict and
//! numbers and the document's `litmus check --json` entry, for the editors' Testing items
//! (the gutter after a save) and results views. An edit that only drops results sends none.

mod lsp_harness;

use std::sync::atomic::Ordering;

use lsp_harness::*;
use serde_json::{json, Value};

const SB: &str = "litmus SBForall\nshared x = 0, y = 0;\nthread P0 {\n  x = 1;\n  r0 = y;\n}\nthread P1 {\n  y = 1;\n  r1 = x;\n}\nforall (P0:r0 == 1 || P1:r1 == 1)\n";

const MP_ARM_DMB: &str = "AArch64 MP+dmb.sy+ldar\n{ 0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x; }\n P0          | P1           ;\n MOV W0,#1   | LDAR W0,[X1] ;\n STR W0,[X1] | LDR W2,[X3]  ;\n DMB SY      |              ;\n STR W0,[X3] |              ;\nexists (1:X0=1 /\\ 1:X2=0)\n";

/// The next `litmus/results` of `uri`.
async fn results(h: &mut Harness, uri: &str) -> Value {
    h.wait_for(&format!("results of {uri}"), |m| {
        m["method"] == "litmus/results" && m["params"]["uri"] == uri
    })
    .await["params"]
        .clone()
}

fn model<'a>(r: &'a Value, key: &str) -> &'a Value {
    r["models"]
        .as_array()
        .and_then(|ms| ms.iter().find(|m| m["model"] == key))
        .unwrap_or_else(|| panic!("no {key} in {r}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_check_sends_each_models_numbers_and_its_json_entry() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    let u = "file:///t/sb-forall.litmus";
    h.open(u, 1, SB).await;
    let r = results(&mut h, u).await;
    assert_eq!(
        (r["version"].clone(), r["state"].clone()),
        (json!(1), json!("done"))
    );
    let keys: Vec<&str> = r["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["model"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["sc", "tso", "pso"], "{r}");
    for (key, mark) in [("sc", "✓"), ("tso", "✗"), ("pso", "✗")] {
        let m = model(&r, key);
        assert_eq!(m["mark"], mark, "{m}");
        assert_eq!(m["completeness"], "complete", "{m}");
        assert!(m["engine"].as_str().is_some_and(|e| !e.is_empty()), "{m}");
        assert!(m["executions"].as_u64().is_some_and(|n| n > 0), "{m}");
        assert!(m["time_ms"].as_f64().is_some(), "{m}");
        assert_eq!(m["undecided"], false, "{m}");
    }
    assert_eq!(
        model(&r, "sc")["states"],
        3,
        "SB has three final states under SC: {r}"
    );
    assert_eq!(model(&r, "tso")["states"], 4, "{r}");
    assert_eq!(model(&r, "tso")["title"], "TSO ✗");
    // the CLI's entry: the forall's violation under TSO at the condition (line 11), none under SC
    let f = &r["file"];
    assert_eq!(f["name"], "SBForall");
    assert_eq!(f["results"]["sc"]["violations"], json!([]), "{f}");
    assert!(
        f["results"]["sc"].get("states").is_none(),
        "no final states sent: {f}"
    );
    let v = &f["results"]["tso"]["violations"][0];
    assert_eq!(
        (v["kind"].clone(), v["line"].clone()),
        (json!("condition"), json!(11)),
        "{f}"
    );
    assert!(
        v["schedule"].as_array().is_some_and(|s| !s.is_empty()),
        "{v}"
    );

    // An edit to the program drops the results (status `cancelled`): no results for it.
    let fixed = SB
        .replace("x = 1;\n", "x = 1;\n  fence;\n")
        .replace("y = 1;\n", "y = 1;\n  fence;\n");
    h.change_full(u, 2, &fixed).await;
    h.status(u, "cancelled").await;
    h.save(u).await;
    let r = results(&mut h, u).await;
    assert_eq!(
        (r["version"].clone(), r["state"].clone()),
        (json!(2), json!("done")),
        "the save's check, not the edit: {r}"
    );
    for key in ["sc", "tso", "pso"] {
        assert_eq!(model(&r, key)["mark"], "✓", "{r}");
        assert_eq!(r["file"]["results"][key]["violations"], json!([]), "{r}");
    }
    assert!(!h
        .log()
        .iter()
        .any(|m| m["method"] == "litmus/results" && m["params"]["state"] == "cancelled"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_check_sends_what_it_found_as_stopped() {
    let mut h = Harness::default_with(hooked(), json!({"maxJobs": 3})).await;
    let u = "file:///t/held-results.litmus";
    h.open(u, 1, &MP.replacen("litmus MP", "litmus HeldResults", 1))
        .await;
    h.wait_for("the first violation", |m| {
        m["method"] == "litmus/status"
            && m["params"]["uri"] == u
            && m["params"]["verdicts"]["pso"] == "fails"
    })
    .await;
    h.request(
        "workspace/executeCommand",
        json!({"command": "litmus.cancel", "arguments": [u]}),
    )
    .await;
    let r = results(&mut h, u).await;
    RELEASE.store(true, Ordering::SeqCst);
    assert_eq!(r["state"], "cancelled", "{r}");
    let pso = model(&r, "pso");
    assert_eq!(
        (pso["mark"].clone(), pso["completeness"].clone()),
        (json!("✗"), json!("stopped")),
        "{pso}"
    );
    assert!(
        pso["why"].as_str().is_some_and(|w| w.contains("cancelled")),
        "{pso}"
    );
    let entry = &r["file"]["results"]["pso"];
    assert_eq!(entry["complete"], false, "{entry}");
    assert!(
        entry["violations"]
            .as_array()
            .is_some_and(|v| !v.is_empty()),
        "the violation found stays: {entry}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_axiomatic_test_sends_its_models_answer() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    let u = "file:///t/mp-dmb-ldar.litmus";
    h.open(u, 1, MP_ARM_DMB).await;
    let r = results(&mut h, u).await;
    let m = model(&r, "aarch64");
    assert_eq!(m["engine"], "axiomatic", "{m}");
    assert_eq!(m["exists"], "No", "herd's answer: {m}");
    assert_eq!(m["mark"], "✓", "an exists is answered, not failed: {m}");
    assert_eq!(m["completeness"], "complete", "{m}");
    assert!(
        m["title"].as_str().is_some_and(|t| t.ends_with("✓ No")),
        "{m}"
    );
    assert!(
        m["states"].as_u64().is_some_and(|n| n > 0),
        "herd's States count: {m}"
    );
    let c = &r["file"]["results"]["aarch64"]["condition"];
    assert_eq!(
        (c["kind"].clone(), c["holds"].clone()),
        (json!("exists"), json!(false)),
        "{r}"
    );
}
