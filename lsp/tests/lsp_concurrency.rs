//! The server under concurrency and failure, in-process: the content-keyed cache (whitespace,
//! comment and condition-only edits), cancellation by newer versions, stale results, closing a
//! document during an exploration, `$/progress` and its cancellation, a panicking check, and
//! malformed messages.

mod lsp_harness;

use lsp_harness::*;
use serde_json::{json, Value};

const U: &str = "file:///t/a.litmus";

fn errors(diags: &[Value]) -> Vec<Value> {
    diags
        .iter()
        .filter(|d| d["severity"] == 1)
        .cloned()
        .collect()
}

fn slow(text: &str) -> String {
    text.replacen("litmus MP", "litmus SlowMP", 1)
        .replacen("litmus SB", "litmus SlowSB", 1)
}

fn no_stale_ever(h: &Harness) {
    for m in h.log() {
        if m["method"] == "textDocument/publishDiagnostics" {
            assert!(
                !m.to_string().contains("STALE"),
                "a cancelled result was shown: {m}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whitespace_and_comment_edits_answer_from_the_cache_with_moved_positions() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    h.open(U, 1, MP).await;
    h.status(U, "done").await;
    // Insert a comment line at the top and re-indent the assertion: same program tokens.
    let text2 = format!(
        "// a comment é😀\n{}",
        MP.replace("    assert(r1 == 1);", "        assert(r1 == 1);   ")
    );
    h.change_full(U, 2, &text2).await;
    let d = h.diagnostics(U, 2).await;
    let e = errors(&d);
    assert_eq!(
        e.len(),
        1,
        "the violation is still shown after a whitespace edit: {d:#?}"
    );
    let (l, c) = find(&text2, "assert(r1");
    assert_eq!(e[0]["range"]["start"], pos(l, c));
    // Related steps moved as well: the `r1 = data` step is on its new line.
    let rel = e[0]["relatedInformation"].as_array().unwrap();
    let step = rel
        .iter()
        .find(|r| r["message"].as_str().unwrap().contains("reads data = 0"))
        .unwrap();
    assert_eq!(
        step["location"]["range"]["start"]["line"],
        find(&text2, "r1 = data").0
    );
    // Saving answers from the cache: no job runs.
    h.save(U).await;
    let st = h.status(U, "done").await;
    assert_eq!(st["verdicts"]["pso"], "fails");
    let jobs = h
        .log()
        .iter()
        .filter(|m| m["method"] == "window/workDoneProgress/create")
        .count();
    assert_eq!(jobs, 1, "only the first open ran a check");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn condition_only_edit_is_re_evaluated_from_cached_states_at_once() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    h.open(U, 1, SB).await;
    h.status(U, "done").await;
    // `exists` → `~exists`: now a violation under TSO and PSO, known before any check runs.
    let (l, c) = find(SB, "exists");
    h.change(U, 2, &[(l, c, l, c, "~")]).await;
    let d = h.diagnostics(U, 2).await;
    let e = errors(&d);
    assert_eq!(e.len(), 1, "{d:#?}");
    let msg = e[0]["message"].as_str().unwrap();
    assert!(
        msg.starts_with(
            "final condition “~exists” does not hold under TSO and PSO; holds under SC"
        ),
        "{msg}"
    );
    // The lens already shows the new verdicts.
    let lenses = h
        .request("textDocument/codeLens", json!({"textDocument": {"uri": U}}))
        .await;
    let titles: Vec<&str> = lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap())
        .collect();
    assert_eq!(&titles[..3], ["SC ✓", "TSO ✗", "PSO ✗"], "{titles:?}");
    // On save the schedules are recomputed in the background: the violation gets its steps.
    h.save(U).await;
    h.status(U, "done").await;
    let d = h.last_diagnostics(U).unwrap();
    let e = errors(d["diagnostics"].as_array().unwrap());
    assert!(
        e[0]["relatedInformation"]
            .as_array()
            .is_some_and(|r| r.len() >= 4),
        "{e:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newer_version_cancels_the_older_exploration_and_stale_results_never_show() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    h.open(U, 1, &slow(MP)).await;
    h.status(U, "running").await;
    // Edit the program: the running exploration is cancelled at once.
    h.change_full(U, 2, MP).await;
    let st = h.status(U, "cancelled").await;
    assert_eq!(st["version"], 2);
    h.save(U).await;
    let st = h.status(U, "done").await;
    assert_eq!(st["version"], 2);
    assert_eq!(st["verdicts"]["pso"], "fails");
    h.progress_settled().await;
    no_stale_ever(&h);
    let d = h.last_diagnostics(U).unwrap();
    assert_eq!(d["version"], 2);
    assert_eq!(errors(d["diagnostics"].as_array().unwrap()).len(), 1);

    // A second verification of the same slow program cancels the first one.
    h.change_full(U, 3, &slow(SB)).await;
    h.save(U).await;
    h.status(U, "running").await;
    h.request(
        "workspace/executeCommand",
        json!({"command": "litmus.verify", "arguments": [U]}),
    )
    .await;
    h.status(U, "cancelled").await;
    h.status(U, "running").await;
    h.change_full(U, 4, SB).await;
    h.status(U, "cancelled").await;
    h.progress_settled().await;
    no_stale_ever(&h);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_a_document_during_exploration_cancels_it_and_clears_diagnostics() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    h.open(U, 1, &slow(MP)).await;
    h.wait_for("progress begin", |m| {
        m["method"] == "$/progress" && m["params"]["value"]["kind"] == "begin"
    })
    .await;
    h.close(U).await;
    let cleared = h
        .wait_for("cleared diagnostics", |m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == U
                && m["params"]["diagnostics"] == json!([])
        })
        .await;
    assert!(cleared["params"].get("version").is_none_or(Value::is_null));
    // The cancelled job ends its progress (before or after the clearing), and nothing about the
    // closed document follows.
    let after_clear = h.cursor;
    h.cursor = 0;
    h.wait_for("progress end", |m| {
        m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end"
    })
    .await;
    h.cursor = h.cursor.max(after_clear);
    h.progress_settled().await;
    let after: Vec<Value> = h.log()[h.cursor..]
        .iter()
        .filter(|m| m["params"]["uri"] == U)
        .cloned()
        .collect();
    assert!(after.is_empty(), "{after:#?}");
    no_stale_ever(&h);
    // The server still serves other documents.
    h.open("file:///t/b.litmus", 1, SB).await;
    h.status("file:///t/b.litmus", "done").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn work_done_progress_reports_counts_and_can_be_cancelled_by_the_client() {
    let mut h = Harness::default_with(hooked(), json!({"models": ["tso"]})).await;
    h.open(U, 1, &slow(MP)).await;
    let create = h
        .wait_for("progress create", |m| {
            m["method"] == "window/workDoneProgress/create"
        })
        .await;
    let token = create["params"]["token"].clone();
    let begin = h
        .wait_for("begin", |m| {
            m["method"] == "$/progress" && m["params"]["value"]["kind"] == "begin"
        })
        .await;
    assert_eq!(begin["params"]["token"], token);
    assert_eq!(begin["params"]["value"]["title"], "Verifying SlowMP");
    assert_eq!(begin["params"]["value"]["cancellable"], true);
    let report = h
        .wait_for("report", |m| {
            m["method"] == "$/progress" && m["params"]["value"]["kind"] == "report"
        })
        .await;
    let msg = report["params"]["value"]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("TSO: ") && msg.contains(" executions, 1 states"),
        "{msg}"
    );
    h.notify("window/workDoneProgress/cancel", json!({"token": token}))
        .await;
    let end = h
        .wait_for("end", |m| {
            m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end"
        })
        .await;
    assert_eq!(end["params"]["value"]["message"], "cancelled");
    let st = h.status(U, "cancelled").await;
    // Cancelled with nothing found: the model stays, incomplete (not "not verified").
    assert_eq!(st["verdicts"], json!({"tso": "incomplete"}));
    no_stale_ever(&h);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_is_skipped_when_the_client_refuses_a_token() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    h.refuse_progress();
    h.open(U, 1, MP).await;
    let st = h.status(U, "done").await;
    assert_eq!(st["verdicts"]["pso"], "fails");
    assert!(!h.log().iter().any(|m| m["method"] == "$/progress"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_check_becomes_a_diagnostic_and_the_server_lives_on() {
    let mut h = Harness::default_with(hooked(), json!({"models": ["sc", "tso"]})).await;
    let boom = MP.replacen("litmus MP", "litmus BoomMP", 1);
    h.open(U, 1, &boom).await;
    let st = h.status(U, "done").await;
    assert_eq!(
        st["verdicts"],
        json!({"sc": "incomplete", "tso": "incomplete"})
    );
    let d = h.last_diagnostics(U).unwrap();
    let e = errors(d["diagnostics"].as_array().unwrap());
    let msgs: Vec<&str> = e.iter().map(|x| x["message"].as_str().unwrap()).collect();
    assert_eq!(
        msgs,
        [
            "internal error while checking under SC: boom in SC",
            "internal error while checking under TSO: boom in TSO"
        ]
    );
    assert_eq!(e[0]["range"]["start"], pos(0, 7));
    // Requests still work, and a fixed program verifies.
    let syms = h
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": U}}),
        )
        .await;
    assert_eq!(syms[0]["name"], "BoomMP");
    h.change_full(U, 2, MP).await;
    h.save(U).await;
    let st = h.status(U, "done").await;
    assert_eq!(st["verdicts"], json!({"sc": "holds", "tso": "holds"}));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_messages_get_errors_not_crashes() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    // Wrong params for a known method.
    let r = h
        .request_raw("textDocument/hover", json!({"bogus": 1}))
        .await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // An unknown method.
    let r = h.request_raw("litmus/nope", json!({})).await;
    assert_eq!(r["error"]["code"], -32601, "{r}");
    // Not JSON at all, and a notification with bad params.
    h.send_raw("{this is not json").await;
    let e = h
        .wait_for("parse error", |m| m["error"]["code"] == -32700)
        .await;
    assert!(e["id"].is_null());
    let r = h
        .request_raw(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": "file:///nope.litmus"}}),
        )
        .await;
    assert!(r["result"].is_null(), "{r}");
    h.notify("textDocument/didOpen", json!({"textDocument": 3}))
        .await;
    // Not JSON-RPC: a bad id, params of the wrong type, no method.
    h.send(json!({"jsonrpc": "2.0", "id": {"x": 1}, "method": "textDocument/hover"}))
        .await;
    h.wait_for("invalid request", |m| {
        m["error"]["code"] == -32600 && m["id"].is_null()
    })
    .await;
    h.send(json!({"jsonrpc": "2.0", "id": 77, "method": "textDocument/hover", "params": 5}))
        .await;
    h.wait_for("invalid request 77", |m| {
        m["error"]["code"] == -32600 && m["id"] == 77
    })
    .await;
    h.send(json!([1, 2, 3])).await;
    h.wait_for("invalid request (array)", |m| m["error"]["code"] == -32600)
        .await;
    // Requests about unknown documents answer null; a change to an unknown document is ignored.
    h.change_full("file:///nope.litmus", 2, "x").await;
    let r = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": "file:///nope.litmus"}, "position": pos(0, 0)}),
        )
        .await;
    assert!(r.is_null());
    // Positions far outside the text clamp.
    h.open(U, 1, SB).await;
    h.status(U, "done").await;
    let r = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": U}, "position": pos(999, 999)}),
        )
        .await;
    assert!(r.is_null());
    h.change(U, 2, &[(999, 0, 999, 5, "\n// tail")]).await;
    let d = h.diagnostics(U, 2).await;
    assert!(errors(&d).is_empty(), "{d:#?}");
    let syms = h
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": U}}),
        )
        .await;
    assert_eq!(syms[0]["name"], "SB");
}

/// With `maxJobs: 1` one job runs at a time, observed through the client's events: the
/// `$/progress` of the job that has the place ends before the next job's begins, every progress
/// report belongs to the one job begun, and a document opened meanwhile says `queued`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_one_job_allowed_jobs_never_overlap() {
    const V: &str = "file:///t/b.litmus";
    let mut h = Harness::default_with(hooked(), json!({"maxJobs": 1})).await;
    h.open(U, 1, &slow(MP)).await;
    h.wait_for("A's begin", |m| {
        m["params"]["value"]["title"] == "Verifying SlowMP"
    })
    .await;
    h.open(V, 1, &slow(SB)).await;
    h.status(V, "queued").await;
    let reports = |h: &Harness| {
        h.log()
            .iter()
            .filter(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "report")
            .count()
    };
    while reports(&h) < 20 {
        h.wait_for("a progress report", |m| {
            m["method"] == "$/progress" && m["params"]["value"]["kind"] == "report"
        })
        .await;
    }
    // Closing A cancels its job: B takes the place.
    h.close(U).await;
    h.wait_for("B's begin", |m| {
        m["params"]["value"]["title"] == "Verifying SlowSB"
    })
    .await;
    let at = reports(&h);
    while reports(&h) < at + 20 {
        h.wait_for("a progress report", |m| {
            m["method"] == "$/progress" && m["params"]["value"]["kind"] == "report"
        })
        .await;
    }
    h.close(V).await;
    h.progress_settled().await;

    let (mut active, mut begun, mut reported) = (Vec::new(), 0, 0);
    for m in h.log().iter().filter(|m| m["method"] == "$/progress") {
        let token = m["params"]["token"].clone();
        match m["params"]["value"]["kind"].as_str() {
            Some("begin") => {
                assert!(active.is_empty(), "{token} began while {active:?} ran");
                active.push(token);
                begun += 1;
            }
            Some("report") => {
                assert_eq!(active, [token], "a report of a job not running");
                reported += 1;
            }
            Some("end") => active.retain(|t| *t != token),
            k => panic!("unexpected progress kind {k:?}"),
        }
    }
    assert_eq!(begun, 2, "both jobs ran");
    assert!(reported >= 40, "{reported} reports");
    assert!(active.is_empty(), "{active:?} never ended");
}
