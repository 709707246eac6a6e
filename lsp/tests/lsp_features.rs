//! The language server driven in-process over `tokio::io::duplex` with the real engine: what the
//! user sees (diagnostics, hover, lenses, commands, inlay hints, symbols, navigation, semantic
//! tokens) and the settings.

mod lsp_harness;

use lsp_harness::*;
use serde_json::{json, Value};

const U: &str = "file:///t/mp.litmus";
const S: &str = "file:///t/sb.litmus";

async fn verified(text: &str, uri: &str, init: Value) -> Harness {
    let mut h = Harness::default_with(hooked(), init).await;
    h.open(uri, 1, text).await;
    h.status(uri, "done").await;
    h
}

fn errors(diags: &[Value]) -> Vec<&Value> {
    diags.iter().filter(|d| d["severity"] == 1).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn assertion_diagnostic_names_models_and_carries_the_schedule() {
    let h = verified(MP, U, json!({})).await;
    let d = h.last_diagnostics(U).unwrap();
    assert_eq!(d["version"], 1);
    let diags = d["diagnostics"].as_array().unwrap();
    let errs = errors(diags);
    assert_eq!(errs.len(), 1, "{diags:#?}");
    let e = errs[0];
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("assertion fails under PSO; holds under SC and TSO"),
        "{e}"
    );
    let (line, col) = find(MP, "assert(r1");
    assert_eq!(e["range"]["start"], pos(line, col), "{e}");
    let rel = e["relatedInformation"].as_array().unwrap();
    assert!(rel.len() >= 4, "{rel:#?}");
    assert!(rel
        .iter()
        .all(|r| r["location"]["uri"] == U
            && r["message"].as_str().unwrap().starts_with("PSO step ")));
    let msgs: Vec<&str> = rel.iter().map(|r| r["message"].as_str().unwrap()).collect();
    assert!(
        msgs.iter()
            .any(|m| m
                .contains("P1 reads data = 0 from memory (P0's store data = 1 still buffered)")),
        "{msgs:#?}"
    );
    // The step that reads `flag` points at the line `r0 = flag;`.
    let read_flag = rel
        .iter()
        .find(|r| r["message"].as_str().unwrap().contains("P1 reads flag = 1"))
        .unwrap();
    assert_eq!(
        read_flag["location"]["range"]["start"]["line"],
        find(MP, "r0 = flag").0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn positions_after_non_ascii_text_in_utf16_and_utf8() {
    let text = MP.replace("    assert(r1 == 1);", "    /* é😀 */ assert(r1 == 1);");
    let h = verified(&text, U, json!({})).await;
    let d = h.last_diagnostics(U).unwrap();
    let e = errors(d["diagnostics"].as_array().unwrap())[0].clone();
    // UTF-16: `    /* é😀 */ ` is 4 + 3 + 1 + 2 + 4 = 14 units.
    assert_eq!(e["range"]["start"], pos(find(&text, "assert(").0, 14));

    let caps = json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}});
    let mut h = Harness::start(hooked(), caps, json!({})).await;
    h.open(U, 1, &text).await;
    h.status(U, "done").await;
    let d = h.last_diagnostics(U).unwrap();
    let e = errors(d["diagnostics"].as_array().unwrap())[0].clone();
    // UTF-8: 4 + 3 + 2 + 4 + 4 = 17 bytes.
    assert_eq!(e["range"]["start"], pos(find(&text, "assert(").0, 17));
    // A hover at a UTF-8 position inside the assertion finds it.
    let r = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": U}, "position": pos(find(&text, "assert(").0, 18)}),
        )
        .await;
    assert!(
        r["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("assert(r1 == 1)"),
        "{r}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn syntax_diagnostics_follow_incremental_edits() {
    let mut h = Harness::default_with(hooked(), json!({"verifyOnSave": false})).await;
    h.open(U, 1, MP).await;
    h.diagnostics(U, 1).await;
    // Break `flag = 1;` into `flag = ;` with a ranged edit.
    let (l, c) = find(MP, "flag = 1");
    h.change(U, 2, &[(l, c + 7, l, c + 8, "")]).await;
    let d = h.diagnostics(U, 2).await;
    assert!(!errors(&d).is_empty(), "{d:#?}");
    assert_eq!(errors(&d)[0]["range"]["start"]["line"], l);
    // Repair it with a second edit.
    h.change(U, 3, &[(l, c + 7, l, c + 7, "2")]).await;
    let d = h.diagnostics(U, 3).await;
    assert!(errors(&d).is_empty(), "{d:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_order_and_multi_change_edits_keep_the_text_right() {
    let mut h = Harness::default_with(hooked(), json!({"verifyOnSave": false})).await;
    h.open(U, 1, MP).await;
    h.diagnostics(U, 1).await;
    let (l0, c0) = find(MP, "MP");
    // Two ranged edits in one notification: rename the test, then insert a comment line.
    h.change(
        U,
        3,
        &[(l0, c0, l0, c0 + 2, "MP2"), (1, 0, 1, 0, "// é comment\n")],
    )
    .await;
    // A late change with an older version must be ignored.
    h.change(U, 2, &[(l0, c0, l0, c0 + 2, "XX")]).await;
    h.diagnostics(U, 3).await;
    let syms = h
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": U}}),
        )
        .await;
    assert_eq!(syms[0]["name"], "MP2", "{syms}");
    let threads: Vec<&str> = syms[0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(threads, ["data", "flag", "P0", "P1"]);
    // P0's range moved down by the inserted line.
    let p0 = &syms[0]["children"][2];
    assert_eq!(
        p0["selectionRange"]["start"]["line"],
        find(MP, "thread P0").0 + 1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hover_lenses_show_schedule_and_inlay_hints() {
    let mut h = verified(MP, U, json!({})).await;
    let (l, c) = find(MP, "assert(r1");
    let r = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": U}, "position": pos(l, c + 2)}),
        )
        .await;
    let md = r["contents"]["value"].as_str().unwrap();
    assert!(md.contains("SC ✓ · TSO ✓ · PSO ✗"), "{md}");
    assert!(
        md.contains("- SC ✓ · ") && md.contains("- PSO ✗ · "),
        "{md}"
    );
    assert!(md.contains("**Counterexample under PSO**"), "{md}");
    assert!(md.contains("· engine "), "the engine that answered: {md}");
    // Short: the schedule is in the diagnostic and the trace view, not repeated as a table.
    assert!(!md.contains("| # |") && !md.contains("|---"), "{md}");
    assert!(
        md.contains("[Trace under PSO](command:litmus.showTrace?"),
        "{md}"
    );
    assert!(md.lines().count() < 25, "{md}");

    // Hover on a shared variable and a thread.
    let (dl, dc) = find(MP, "data = 0");
    let r = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": U}, "position": pos(dl, dc)}),
        )
        .await;
    assert!(
        r["contents"]["value"]
            .as_str()
            .unwrap()
            .starts_with("**shared data (initially 0)**"),
        "{r}"
    );
    let (tl, tc) = find(MP, "P1 {");
    let r = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": U}, "position": pos(tl, tc)}),
        )
        .await;
    assert!(
        r["contents"]["value"]
            .as_str()
            .unwrap()
            .starts_with("**thread P1**"),
        "{r}"
    );

    let lenses = h
        .request("textDocument/codeLens", json!({"textDocument": {"uri": U}}))
        .await;
    let titles: Vec<&str> = lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "SC ✓",
            "TSO ✓",
            "PSO ✗",
            "Show schedule",
            "SC ✓",
            "TSO ✓",
            "PSO ✗",
            "Show schedule"
        ]
    );
    let show = &lenses[7]["command"];
    assert_eq!(show["command"], "litmus.showSchedule");
    assert_eq!(show["arguments"], json!([U, l, c]));
    assert_eq!(lenses[4]["range"]["start"], pos(l, 0));
    // The ✗ opens PSO's counterexample; the ✓ opens nothing.
    assert_eq!(lenses[6]["command"]["arguments"], json!([U, l, c, "pso"]));
    assert_eq!(lenses[5]["command"]["command"], "");

    let s = h
        .request(
            "workspace/executeCommand",
            json!({"command": "litmus.showSchedule", "arguments": show["arguments"]}),
        )
        .await;
    assert_eq!(s["model"], "pso");
    assert_eq!(s["kind"], "assert");
    assert!(
        s["title"]
            .as_str()
            .unwrap()
            .contains("assertion failure under PSO"),
        "{s}"
    );
    let steps = s["steps"].as_array().unwrap();
    assert!(
        steps
            .iter()
            .any(|st| st["label"].as_str().unwrap().contains("still buffered")),
        "{s}"
    );
    assert!(steps.iter().all(|st| st["location"]["uri"] == U));
    // Without a position: the first violation of the test.
    let s2 = h
        .request(
            "workspace/executeCommand",
            json!({"command": "litmus.showSchedule", "arguments": [U]}),
        )
        .await;
    assert_eq!(s2, s);

    let hints = h
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": U}, "range": {"start": pos(0, 0), "end": pos(100, 0)}}),
        )
        .await;
    let hints = hints.as_array().unwrap();
    let (rl, _) = find(MP, "r1 = data");
    let h_data = hints
        .iter()
        .find(|x| x["position"]["line"] == rl)
        .expect("a hint on `r1 = data`");
    // At the end of the line, naming the location.
    assert_eq!(h_data["label"], " ⇐ data=0 (PSO)");
    assert_eq!(h_data["position"], pos(rl, find(MP, "r1 = data").1 + 10));
    let (fl, _) = find(MP, "r0 = flag");
    assert!(
        hints
            .iter()
            .any(|x| x["position"]["line"] == fl && x["label"] == " ⇐ flag=1 (PSO)"),
        "{hints:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exists_condition_witness_lens_and_hover_counts() {
    let mut h = verified(SB, S, json!({})).await;
    let d = h.last_diagnostics(S).unwrap();
    assert!(
        errors(d["diagnostics"].as_array().unwrap()).is_empty(),
        "an exists that holds is no failure: {d}"
    );
    let lenses = h
        .request("textDocument/codeLens", json!({"textDocument": {"uri": S}}))
        .await;
    let titles: Vec<&str> = lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap())
        .collect();
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
    // An unobserved `exists` is herd's `No`: an answer, not a failure, and the lens says why.
    let sc_no = lenses
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["command"]["title"] == "SC No")
        .unwrap();
    let tip = sc_no["data"]["tooltip"].as_str().unwrap();
    assert!(
        tip.contains("SC: No: no execution reaches the “exists” state — an answer, not a failure"),
        "{tip}"
    );
    assert!(tip.contains("? incomplete"), "the legend: {tip}");
    let log = h.log();
    let st = &log
        .iter()
        .rev()
        .find(|m| m["method"] == "litmus/status" && m["params"]["state"] == "done")
        .unwrap()["params"];
    assert_eq!(
        st["verdicts"],
        json!({"sc": "holds", "tso": "holds", "pso": "holds"})
    );
    assert_eq!(st["exists"], json!({"sc": "no", "tso": "ok", "pso": "ok"}));
    let tip = st["tooltip"].as_str().unwrap();
    assert!(
        tip.contains("“exists” under SC No · “exists” under TSO Ok"),
        "{tip}"
    );
    assert!(
        !tip.contains("every assertion and condition holds"),
        "{tip}"
    );
    let (l, c) = find(SB, "exists");
    let r = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": S}, "position": pos(l, c + 1)}),
        )
        .await;
    let md = r["contents"]["value"].as_str().unwrap();
    assert!(
        md.contains("- SC No: `exists` does not hold · Observation SB Never 0 3"),
        "{md}"
    );
    assert!(
        md.contains("- TSO Ok: `exists` holds · Observation SB Sometimes 1 3"),
        "{md}"
    );
    assert!(md.contains("**Witness under TSO**"), "{md}");
    let s = h
        .request(
            "workspace/executeCommand",
            json!({"command": "litmus.showSchedule", "arguments": [S, l, c]}),
        )
        .await;
    assert_eq!(s["kind"], "witness");
    assert_eq!(s["model"], "tso");
    let hints = h
        .request(
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": S}, "range": {"start": pos(0, 0), "end": pos(100, 0)}}),
        )
        .await;
    let (rl, rc) = find(SB, "r0 = y");
    assert!(
        hints
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x["position"] == pos(rl, rc + 7) && x["label"] == " ⇐ y=0 (TSO, PSO)"),
        "{hints}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn symbols_definition_references_and_semantic_tokens() {
    let mut h = Harness::default_with(hooked(), json!({"verifyOnSave": false})).await;
    h.open(S, 1, SB).await;
    h.diagnostics(S, 1).await;
    let syms = h
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": S}}),
        )
        .await;
    assert_eq!(syms[0]["name"], "SB");
    assert_eq!(syms[0]["detail"], "store buffering");
    let kinds: Vec<(String, i64)> = syms[0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["kind"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("x".into(), 13),
            ("y".into(), 13),
            ("P0".into(), 12),
            ("P1".into(), 12),
            ("exists".into(), 17)
        ]
    );

    // `x` in `r1 = x;` goes to the declaration; its references are the decl, the store, the load.
    let (l, c) = find(SB, "r1 = x");
    let def = h
        .request(
            "textDocument/definition",
            json!({"textDocument": {"uri": S}, "position": pos(l, c + 5)}),
        )
        .await;
    let (dl, dc) = find(SB, "x = 0");
    assert_eq!(
        def["range"],
        json!({"start": pos(dl, dc), "end": pos(dl, dc + 1)})
    );
    let refs = h
        .request("textDocument/references", json!({"textDocument": {"uri": S}, "position": pos(l, c + 5), "context": {"includeDeclaration": true}}))
        .await;
    let lines: Vec<i64> = refs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["range"]["start"]["line"].as_i64().unwrap())
        .collect();
    assert_eq!(lines, [dl as i64, find(SB, "x = 1").0 as i64, l as i64]);
    let refs = h
        .request("textDocument/references", json!({"textDocument": {"uri": S}, "position": pos(l, c + 5), "context": {"includeDeclaration": false}}))
        .await;
    assert_eq!(refs.as_array().unwrap().len(), 2);
    // A register: `r0` in the condition `P0:r0` refers back to P0's `r0 = y`.
    let (cl, cc) = find(SB, "P0:r0");
    let def = h
        .request(
            "textDocument/definition",
            json!({"textDocument": {"uri": S}, "position": pos(cl, cc + 4)}),
        )
        .await;
    assert_eq!(
        def["range"]["start"],
        json!(pos(find(SB, "r0 = y").0, find(SB, "r0 = y").1))
    );

    // Absolute (line, col, len, type).
    let abs: Vec<(u64, u64, u64, u64)> = h
        .semantic_tokens(S)
        .await
        .into_iter()
        .map(|[l, c, n, t, _]| (l, c, n, t))
        .collect();
    assert_eq!(abs[0], (0, 0, 6, 0), "`litmus` is a keyword");
    assert!(abs.contains(&(0, 7, 2, 7)), "the test name: {abs:?}");
    assert!(
        abs.contains(&(dl as u64, dc as u64, 1, 4)),
        "shared `x`: {abs:?}"
    );
    let (rl, rc) = find(SB, "r0 = y");
    assert!(
        abs.contains(&(rl as u64, rc as u64, 2, 5)),
        "register `r0`: {abs:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn settings_from_initialization_options_and_configuration() {
    let mut h = verified(MP, U, json!({"litmus": {"models": ["sc", "pso"]}})).await;
    let st = h
        .log()
        .into_iter()
        .rev()
        .find(|m| m["method"] == "litmus/status")
        .unwrap();
    assert_eq!(
        st["params"]["verdicts"],
        json!({"sc": "holds", "pso": "fails"})
    );
    // The client's configuration answers `workspace/configuration` on didChangeConfiguration.
    h.set_config(json!({"models": ["tso"], "loopBound": 2}));
    h.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": null}),
    )
    .await;
    let st = h.status(U, "done").await;
    assert_eq!(st["verdicts"], json!({"tso": "holds"}));
    let lenses = h
        .request("textDocument/codeLens", json!({"textDocument": {"uri": U}}))
        .await;
    assert_eq!(lenses[0]["command"]["title"], "TSO ✓");
    // Settings pushed in the notification itself.
    h.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"litmus": {"models": ["sc", "tso", "pso"]}}}),
    )
    .await;
    let st = h.status(U, "done").await;
    assert_eq!(
        st["verdicts"],
        json!({"sc": "holds", "tso": "holds", "pso": "fails"})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verify_on_change_setting_and_verify_command() {
    let mut h = Harness::default_with(hooked(), json!({"verifyOnChange": true})).await;
    h.open(U, 1, SB).await;
    h.status(U, "done").await;
    // Turn the exists into a violated ~exists by editing the program (not just the condition).
    let (l, c) = find(SB, "x = 1");
    h.change(U, 2, &[(l, c + 4, l, c + 5, "2")]).await;
    let st = h.status(U, "done").await;
    assert_eq!(st["version"], 2);
    // litmus.verify runs again even though the cache could answer.
    h.request(
        "workspace/executeCommand",
        json!({"command": "litmus.verify", "arguments": [U]}),
    )
    .await;
    h.status(U, "running").await;
    h.status(U, "done").await;
    let bad = h
        .request_raw(
            "workspace/executeCommand",
            json!({"command": "litmus.verify", "arguments": [42]}),
        )
        .await;
    assert!(bad.get("error").is_some(), "{bad}");
}
