//! The fence quick fix: on a violation TSO has and SC has not, a preferred code action inserts
//! the synthesised fences; after applying it and saving, the violation is gone. The hover of
//! the violation names the delayed store and load.

mod lsp_harness;

use lsp_harness::*;
use serde_json::{json, Value};

const U: &str = "file:///t/sb_assert.litmus";
const SB: &str = "litmus SB\nshared x = 0, y = 0;\nthread P0 {\n  x = 1;\n  r0 = y;\n}\nthread P1 {\n  y = 1;\n  r1 = x;\n}\n~exists (P0:r0 == 0 && P1:r1 == 0)\n";

/// Applies LSP text edits (ASCII text: characters are bytes) to `text`.
fn apply(text: &str, edits: &[Value]) -> String {
    let offset = |p: &Value| {
        let (l, c) = (
            p["line"].as_u64().unwrap() as usize,
            p["character"].as_u64().unwrap() as usize,
        );
        text.split_inclusive('\n')
            .take(l)
            .map(str::len)
            .sum::<usize>()
            + c
    };
    let mut es: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    es.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (a, b, t) in es {
        out.replace_range(a..b, &t);
    }
    out
}

fn errors(diags: &[Value]) -> usize {
    diags.iter().filter(|d| d["severity"] == 1).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_fix_inserts_the_fences_and_the_violation_goes() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    h.open(U, 1, SB).await;
    h.status(U, "done").await;
    let d = h.last_diagnostics(U).unwrap();
    assert_eq!(errors(d["diagnostics"].as_array().unwrap()), 1, "{d}");

    let (l, c) = find(SB, "~exists");
    let hover = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": U}, "position": pos(l, c + 2)}),
        )
        .await;
    let md = hover["contents"]["value"].as_str().unwrap();
    assert!(
        md.contains(
            "**TSO**: P0's store `x = 1;` (line 4) is delayed past its load of `y` (line 5). The quick fix inserts the fences verified to make TSO behave as SC"
        ),
        "{md}"
    );

    let actions = h
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": U}, "range": {"start": pos(l, c), "end": pos(l, c)}, "context": {"diagnostics": []}}),
        )
        .await;
    let actions = actions.as_array().expect("code actions");
    let tso = actions
        .iter()
        .find(|a| a["title"] == "Insert 2 fences so that TSO behaves as SC")
        .unwrap_or_else(|| panic!("{actions:#?}"));
    assert_eq!(tso["kind"], "quickfix");
    assert_eq!(tso["isPreferred"], true);
    let edits = tso["edit"]["changes"][U].as_array().unwrap();
    assert_eq!(edits.len(), 2);
    // Pure insertions, each a fence.
    assert!(edits
        .iter()
        .all(|e| e["range"]["start"] == e["range"]["end"]
            && e["newText"].as_str().unwrap().trim() == "fence;"));
    let fixed = apply(SB, edits);
    assert_eq!(fixed.matches("fence;").count(), 2);

    h.change_full(U, 2, &fixed).await;
    h.save(U).await;
    let diags = h.diagnostics(U, 2).await;
    h.status(U, "done").await;
    let d = h.last_diagnostics(U).unwrap();
    assert_eq!(d["version"], 2);
    assert_eq!(
        errors(d["diagnostics"].as_array().unwrap()),
        0,
        "{d} {diags:?}"
    );
    // No quick fix is offered any more.
    let again = h
        .request(
            "textDocument/codeAction",
            json!({"textDocument": {"uri": U}, "range": {"start": pos(0, 0), "end": pos(12, 0)}, "context": {"diagnostics": []}}),
        )
        .await;
    assert!(again.is_null(), "{again}");
}
