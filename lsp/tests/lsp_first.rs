//! First violation first (issue 28): a model's first violation is shown (diagnostic, lens,
//! status, hover, schedule) while its exploration still runs, marked as such, and replaced by
//! the complete result when the exploration ends; models run in parallel when `maxJobs` allows.

mod lsp_harness;

use std::sync::atomic::Ordering;

use lsp_harness::*;
use serde_json::{json, Value};

const U: &str = "file:///t/held.litmus";

fn held(text: &str) -> String {
    text.replacen("litmus MP", "litmus HeldMP", 1)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_violation_shows_while_exploring_then_the_complete_result_replaces_it() {
    let mut h = Harness::default_with(hooked(), json!({"maxJobs": 3})).await;
    let text = held(MP);
    h.open(U, 1, &text).await;
    // PSO finds MP's violation and its exploration is held open right after announcing it.
    let d = h
        .wait_for("interim diagnostics", |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == U
                && m["params"]["diagnostics"]
                    .to_string()
                    .contains("still exploring PSO")
        })
        .await;
    let diag = d["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["severity"] == 1)
        .unwrap()
        .clone();
    assert!(
        diag["message"]
            .as_str()
            .unwrap()
            .starts_with("assertion fails under PSO (first found; still exploring PSO)"),
        "{diag}"
    );
    assert!(
        diag["relatedInformation"]
            .as_array()
            .is_some_and(|r| !r.is_empty()),
        "{diag}"
    );
    let st = h
        .wait_for("interim status", |m| {
            m["method"] == "litmus/status" && m["params"]["verdicts"]["pso"] == "fails"
        })
        .await;
    assert_eq!(st["params"]["state"], "running");
    let lenses = h
        .request("textDocument/codeLens", json!({"textDocument": {"uri": U}}))
        .await;
    let titles = lens_titles(&lenses);
    // One lens per model; beside them a lens names the models still exploring.
    assert!(titles.iter().any(|t| t == "PSO ✗"), "{titles:?}");
    // (TSO may still be running too on a loaded machine, "exploring TSO and PSO", or still
    // waiting for its worker to start: "exploring PSO · queued TSO".)
    assert!(
        titles
            .iter()
            .any(|t| t.starts_with("exploring") && t.split(" · ").next().unwrap().ends_with("PSO")),
        "{titles:?}"
    );
    let sched = h
        .request(
            "workspace/executeCommand",
            json!({"command": "litmus.showSchedule", "arguments": [U]}),
        )
        .await;
    assert_eq!(sched["model"], "pso", "{sched}");
    assert!(!sched["steps"].as_array().unwrap().is_empty());
    let (l, c) = find(&text, "assert(");
    let hov = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": U}, "position": pos(l, c + 2)}),
        )
        .await;
    let md = hov["contents"]["value"].as_str().unwrap();
    assert!(
        md.contains("Counterexample under PSO") && md.contains("still exploring"),
        "{md}"
    );

    // The exploration ends: the complete, deterministic result replaces the interim one.
    RELEASE.store(true, Ordering::SeqCst);
    let st = h.status(U, "done").await;
    assert_eq!(
        st["verdicts"],
        json!({"sc": "holds", "tso": "holds", "pso": "fails"})
    );
    h.progress_settled().await;
    let d = h.last_diagnostics(U).unwrap();
    let all = d["diagnostics"].to_string();
    assert!(!all.contains("still exploring"), "{all}");
    assert!(
        all.contains("assertion fails under PSO; holds under SC and TSO"),
        "{all}"
    );
    let lenses = h
        .request("textDocument/codeLens", json!({"textDocument": {"uri": U}}))
        .await;
    let titles = lens_titles(&lenses);
    for t in ["SC ✓", "TSO ✓", "PSO ✗"] {
        assert!(titles.contains(&t.to_string()), "{titles:?}");
    }
    assert!(
        !titles.iter().any(|t| t.contains("exploring")),
        "{titles:?}"
    );
}

/// The executions a `$/progress` report says `model`'s check has explored
/// (`SC: 20 executions, 1 states`).
fn executions_reported(m: &Value, model: &str) -> Option<u64> {
    if m["method"] != "$/progress" || m["params"]["value"]["kind"] != "report" {
        return None;
    }
    let msg = m["params"]["value"]["message"].as_str()?;
    let rest = msg.strip_prefix(model)?.strip_prefix(": ")?;
    rest.split(' ').next()?.parse().ok()
}

/// The models whose progress the client saw (`$/progress` reports `SC: …`).
fn progressing(h: &Harness) -> Vec<String> {
    let mut out: Vec<String> = h
        .log()
        .iter()
        .filter(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "report")
        .filter_map(|m| m["params"]["value"]["message"].as_str())
        .filter(|s| s.contains(" executions"))
        .map(|s| s.split(':').next().unwrap().to_string())
        .collect();
    out.sort();
    out.dedup();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn models_run_in_parallel_when_places_are_free_and_one_by_one_with_one_job() {
    let slow = MP.replacen("litmus MP", "litmus SlowMP", 1);
    let mut h = Harness::default_with(hooked(), json!({"maxJobs": 3})).await;
    h.open(U, 1, &slow).await;
    for model in ["SC", "TSO", "PSO"] {
        h.cursor = 0;
        h.wait_for(&format!("{model}'s progress"), |m| {
            executions_reported(m, model).is_some()
        })
        .await;
    }
    assert_eq!(progressing(&h), ["PSO", "SC", "TSO"]);
    h.close(U).await;

    // With one place, the (never-ending) SC check holds it: TSO and PSO never start.
    let mut h = Harness::default_with(hooked(), json!({"maxJobs": 1})).await;
    h.open(U, 1, &slow).await;
    h.status(U, "running").await;
    // The one worker reports SC's progress every few milliseconds; a second worker, had the
    // job started one beside it, would have reported its model long before SC's 20th report.
    h.wait_for("SC's 20th progress report", |m| {
        executions_reported(m, "SC").is_some_and(|n| n >= 20)
    })
    .await;
    assert_eq!(progressing(&h), ["SC"]);
    // The lenses say which model explores and which wait for the place.
    let lenses = h
        .request("textDocument/codeLens", json!({"textDocument": {"uri": U}}))
        .await;
    let titles = lens_titles(&lenses);
    assert!(
        titles
            .iter()
            .any(|t| t == "exploring SC · queued TSO and PSO"),
        "{titles:?}"
    );
    h.close(U).await;
}

/// Issue 52: a violation shown while exploring stays shown when the check then ends at its time
/// limit, even from an engine whose stopped report leaves it out: the lens goes `PSO ✗` (found)
/// and stays `PSO ✗` after the limit, the status says the check stopped at its time limit, and
/// the diagnostic stays.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_violation_shown_while_exploring_survives_the_time_limit() {
    let mut h = Harness::default_with(
        hooked(),
        json!({"maxJobs": 3, "models": ["pso"], "timeout": 1}),
    )
    .await;
    let u = "file:///t/forgetful.litmus";
    h.open(u, 1, &MP.replacen("litmus MP", "litmus ForgetfulMP", 1))
        .await;
    let found = h
        .wait_for("the violation while exploring", |m| {
            m["method"] == "litmus/status"
                && m["params"]["uri"] == u
                && m["params"]["state"] == "running"
                && m["params"]["verdicts"]["pso"] == "fails"
        })
        .await;
    assert_eq!(found["params"]["verdicts"]["pso"], "fails");
    let done = h
        .wait_for("the check's end at its time limit", |m| {
            m["method"] == "litmus/status"
                && m["params"]["uri"] == u
                && m["params"]["state"] == "done"
        })
        .await;
    assert_eq!(done["params"]["verdicts"]["pso"], "fails", "{done}");
    assert_eq!(done["params"]["limit"], "time", "{done}");
    assert!(
        done["params"]["tooltip"]
            .as_str()
            .unwrap()
            .contains("PSO stopped at its time limit"),
        "{done}"
    );
    let titles = lens_titles(
        &h.request("textDocument/codeLens", json!({"textDocument": {"uri": u}}))
            .await,
    );
    assert!(titles.iter().any(|t| t == "PSO ✗"), "{titles:?}");
    let diags = h.last_diagnostics(u).expect("diagnostics");
    assert!(
        diags.to_string().contains("assertion fails under PSO"),
        "{diags}"
    );
}
