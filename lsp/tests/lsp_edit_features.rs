//! The language features of issue 57 in the server, in-process with the real engine:
//! completion, prepareRename and rename, document highlight, formatting (and formatting every
//! native test of the repository keeps its tokens and is idempotent), workspace symbols, and
//! their capabilities.

mod lsp_harness;

use std::path::{Path, PathBuf};

use lsp_harness::*;
use serde_json::{json, Value};

use litmus::server::engine::{Engine, RealEngine};
use litmus::server::format;
use litmus::server::tokens::TokenMap;

const U: &str = "file:///t/sb.litmus";
const X: &str = "file:///t/sb-x86.litmus";

const SB: &str = "litmus SB \"store buffering\"

shared x = 0, y = 0;
mutex m;

thread P0 {
  x = 1;
  r0 = y;
}

thread P1 {
  y = 1;
  r0 = x;
  r1 = x;
}

exists (P0:r0 == 0 && P1:r0 == 0)
";

const SB_X86: &str = "X86 SB
\"Fre PodWR Fre PodWR\"
{ x=0; y=0; }
 P0          | P1          ;
 MOV [x],$1  | MOV [y],$1  ;
 MOV EAX,[y] | MOV EAX,[x] ;
exists (0:EAX=0 /\\ 1:EAX=0)
";

async fn opened(docs: &[(&str, &str)]) -> Harness {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    for (uri, text) in docs {
        h.open(uri, 1, text).await;
        h.status(uri, "done").await;
    }
    h
}

fn at(text: &str, needle: &str, plus: u32) -> Value {
    let (l, c) = find(text, needle);
    pos(l, c + plus)
}

fn labels(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("a completion list")
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

async fn complete(h: &mut Harness, uri: &str, p: Value) -> Vec<String> {
    let r = h
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": p}),
        )
        .await;
    labels(&r)
}

#[test]
fn the_capabilities_are_advertised() {
    let r = serde_json::to_value(litmus::server::to_proto::initialize_result(false)).unwrap();
    let caps = &r["capabilities"];
    for k in [
        "completionProvider",
        "renameProvider",
        "documentHighlightProvider",
        "documentFormattingProvider",
        "workspaceSymbolProvider",
    ] {
        assert!(
            caps.get(k).is_some_and(|v| !v.is_null()),
            "{k} missing: {caps}"
        );
    }
    assert_eq!(caps["renameProvider"]["prepareProvider"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_knows_where_it_is_in_the_native_dialect() {
    let mut h = opened(&[(U, SB)]).await;
    // In P1's body: statements, locations, mutexes, P1's registers only.
    let body = complete(&mut h, U, at(SB, "r1 = x;", 0)).await;
    for w in ["fence", "lock", "assert", "x", "y", "m", "r0", "r1"] {
        assert!(body.contains(&w.to_string()), "{w} not in {body:?}");
    }
    let p0 = complete(&mut h, U, at(SB, "r0 = y;", 0)).await;
    assert!(
        p0.contains(&"r0".to_string()) && !p0.contains(&"r1".to_string()),
        "{p0:?}"
    );
    // In the condition: registers as `P0:r0`, locations, operators; no statements.
    let cond = complete(&mut h, U, at(SB, "P0:r0 ==", 0)).await;
    for w in ["P0:r0", "P1:r0", "P1:r1", "x", "&&", "||"] {
        assert!(cond.contains(&w.to_string()), "{w} not in {cond:?}");
    }
    assert!(!cond.contains(&"fence".to_string()), "{cond:?}");
    // Between declarations: the test's keywords.
    let top = complete(&mut h, U, at(SB, "mutex m;", 0)).await;
    for w in ["thread", "shared", "mutex", "exists", "forall"] {
        assert!(top.contains(&w.to_string()), "{w} not in {top:?}");
    }
    assert!(!top.contains(&"r0".to_string()), "{top:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_works_while_a_statement_is_half_typed() {
    // `r2 = ` with no `;` yet: the text does not parse, and completion must still know P1's
    // registers and the locations (as a user types, this is when it is asked)
    let typing = SB.replace("  r1 = x;\n}", "  r1 = x;\n  r2 = \n}");
    let mut h = opened(&[(U, &typing)]).await;
    let items = complete(&mut h, U, at(&typing, "r2 = ", 5)).await;
    for w in ["x", "y", "r0", "r1", "fence"] {
        assert!(items.contains(&w.to_string()), "{w} not in {items:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn completion_offers_herds_instructions_registers_and_condition_syntax() {
    let mut h = opened(&[(X, SB_X86)]).await;
    let code = complete(&mut h, X, at(SB_X86, "MOV EAX,[y]", 4)).await;
    for w in ["MOV", "MFENCE", "EAX", "x", "y"] {
        assert!(code.contains(&w.to_string()), "{w} not in {code:?}");
    }
    let cond = complete(&mut h, X, at(SB_X86, "0:EAX=0", 0)).await;
    for w in ["0:EAX", "1:EAX", "/\\", "\\/", "~", "x"] {
        assert!(cond.contains(&w.to_string()), "{w} not in {cond:?}");
    }
    // AArch64: the engine's instructions, each with its description.
    const A: &str = "file:///t/mp.litmus";
    let text = "AArch64 MP\n{\n0:X1=x; 0:X3=y;\n1:X1=y; 1:X3=x;\n}\n P0          | P1          ;\n MOV W0,#1   | LDR W0,[X1] ;\n STR W0,[X1] | LDR W2,[X3] ;\n MOV W2,#1   |             ;\n STR W2,[X3] |             ;\nexists (1:X0=1 /\\ 1:X2=0)\n";
    h.open(A, 1, text).await;
    let r = h
        .request(
            "textDocument/completion",
            json!({"textDocument": {"uri": A}, "position": at(text, "LDR W2", 0)}),
        )
        .await;
    let items = r.as_array().unwrap();
    let ldar = items
        .iter()
        .find(|i| i["label"] == "LDAR")
        .expect("LDAR offered");
    assert!(
        ldar["detail"].as_str().unwrap().contains("acquire"),
        "{ldar}"
    );
    let l = labels(&r);
    assert!(
        l.contains(&"W0".to_string()) && l.contains(&"X1".to_string()),
        "{l:?}"
    );
}

async fn rename(h: &mut Harness, uri: &str, p: Value, new: &str) -> Value {
    h.request_raw(
        "textDocument/rename",
        json!({"textDocument": {"uri": uri}, "position": p, "newName": new}),
    )
    .await
}

/// The text after applying a rename's edits to `text`.
fn apply(text: &str, edit: &Value, uri: &str) -> String {
    let mut edits: Vec<(usize, usize, String)> = edit["changes"][uri]
        .as_array()
        .expect("edits")
        .iter()
        .map(|e| {
            let off = |p: &Value| {
                let line = p["line"].as_u64().unwrap() as usize;
                let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
                start + p["character"].as_u64().unwrap() as usize
            };
            (
                off(&e["range"]["start"]),
                off(&e["range"]["end"]),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (s, e, t) in edits {
        out.replace_range(s..e, &t);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rename_a_register_stays_in_its_thread_and_follows_the_condition() {
    let mut h = opened(&[(U, SB)]).await;
    let prep = h
        .request(
            "textDocument/prepareRename",
            json!({"textDocument": {"uri": U}, "position": at(SB, "r0 = y;", 1)}),
        )
        .await;
    assert_eq!(prep["placeholder"], "r0", "{prep}");
    let r = rename(&mut h, U, at(SB, "r0 = y;", 0), "seen").await;
    let out = apply(SB, &r["result"], U);
    assert!(
        out.contains("seen = y;") && out.contains("P0:seen == 0"),
        "{out}"
    );
    // P1's r0 is another register.
    assert!(
        out.contains("r0 = x;") && out.contains("P1:r0 == 0"),
        "{out}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rename_a_location_a_mutex_and_a_thread() {
    let mut h = opened(&[(U, SB)]).await;
    let r = rename(&mut h, U, at(SB, "x = 1;", 0), "flag").await;
    let out = apply(SB, &r["result"], U);
    assert!(out.contains("shared flag = 0, y = 0;"), "{out}");
    assert_eq!(out.matches("flag").count(), 4, "{out}");
    let r = rename(&mut h, U, at(SB, "m;", 0), "lk").await;
    assert!(apply(SB, &r["result"], U).contains("mutex lk;"));
    let r = rename(&mut h, U, at(SB, "P0 {", 0), "Writer").await;
    let out = apply(SB, &r["result"], U);
    assert!(
        out.contains("thread Writer {") && out.contains("(Writer:r0 == 0"),
        "{out}"
    );
    assert!(out.contains("P1:r0"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rename_refuses_keywords_and_clashes_with_a_reason() {
    let mut h = opened(&[(U, SB)]).await;
    let r = h
        .request_raw(
            "textDocument/prepareRename",
            json!({"textDocument": {"uri": U}, "position": at(SB, "thread P0", 1)}),
        )
        .await;
    let msg = r["error"]["message"].as_str().expect("an error");
    assert!(msg.contains("`thread` is a keyword"), "{msg}");
    let r = rename(&mut h, U, at(SB, "x = 1;", 0), "y").await;
    let msg = r["error"]["message"].as_str().expect("an error");
    assert!(msg.contains("`y` is already a name"), "{msg}");
    let r = rename(&mut h, U, at(SB, "r1 = x;", 0), "r0").await;
    assert!(
        r["error"]["message"].as_str().unwrap().contains("already"),
        "{r}"
    );
    let r = rename(&mut h, U, at(SB, "r1 = x;", 0), "while").await;
    assert!(
        r["error"]["message"].as_str().unwrap().contains("keyword"),
        "{r}"
    );
    let r = rename(&mut h, U, at(SB, "r1 = x;", 0), "1r").await;
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not a name"),
        "{r}"
    );
}

/// `textDocument/documentHighlight` at `p` in `U`: the reply and its kinds in order.
async fn highlight_kinds(h: &mut Harness, p: Value) -> (Value, Vec<u64>) {
    let r = h
        .request(
            "textDocument/documentHighlight",
            json!({"textDocument": {"uri": U}, "position": p}),
        )
        .await;
    let kinds = r
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["kind"].as_u64().unwrap())
        .collect();
    (r, kinds)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn document_highlight_tells_writes_from_reads() {
    let mut h = opened(&[(U, SB)]).await;
    let (r, kinds) = highlight_kinds(&mut h, at(SB, "x = 1;", 0)).await;
    // The declaration (text), `x = 1` (write), the two reads in P1.
    assert_eq!(kinds, vec![1, 3, 2, 2], "{r}");
    let (r, kinds) = highlight_kinds(&mut h, at(SB, "r0 = y;", 0)).await;
    assert_eq!(
        kinds,
        vec![3, 2],
        "P0's r0 written, read in the condition: {r}"
    );
}

async fn format_doc(h: &mut Harness, uri: &str) -> Value {
    h.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": uri}, "options": {"tabSize": 2, "insertSpaces": true}}),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn formatting_reindents_the_native_dialect_and_keeps_herds_columns() {
    let messy = "litmus SB   \n\n\n\nshared x = 0, y = 0;\nthread P0 {\n        x = 1;\n    if (y == 0) {\nr0 = y;   \n   }\n}\n\nexists (P0:r0 == 0)\n\n\n";
    const M: &str = "file:///t/messy.litmus";
    let mut h = opened(&[(M, messy), (X, SB_X86)]).await;
    let r = format_doc(&mut h, M).await;
    let new = r[0]["newText"].as_str().expect("one edit").to_string();
    assert_eq!(
        new,
        "litmus SB\n\nshared x = 0, y = 0;\nthread P0 {\n  x = 1;\n  if (y == 0) {\n    r0 = y;\n  }\n}\n\nexists (P0:r0 == 0)\n"
    );
    h.change_full(M, 2, &new).await;
    let again = format_doc(&mut h, M).await;
    assert_eq!(again, json!([]), "formatting twice changes nothing");
    // herd's x86: the columns stay; only trailing whitespace goes.
    let trailing = SB_X86.replace("[y],$1  ;\n", "[y],$1  ;   \n");
    h.change_full(X, 2, &trailing).await;
    let r = format_doc(&mut h, X).await;
    let edits = r.as_array().unwrap();
    assert_eq!(edits.len(), 1, "{r}");
    assert_eq!(edits[0]["newText"], "");
    assert_eq!(edits[0]["range"]["start"]["line"], 4);
}

/// Every `.litmus` file of the repository's examples and tests, and the editor's fixtures.
fn repository_tests() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let mut out = vec![];
    let mut stack: Vec<PathBuf> = [
        "examples",
        "tests/litmus",
        "tests/regressions",
        "editors/vscode/e2e/fixtures",
    ]
    .iter()
    .map(|d| root.join(d))
    .collect();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "litmus") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn formatting_every_repository_test_keeps_its_program_and_is_idempotent() {
    let engine = RealEngine;
    let (mut native, mut herd) = (0, 0);
    for p in repository_tests() {
        let text = std::fs::read_to_string(&p).unwrap();
        let before = engine.parse(&text, None);
        let Some(test) = before.test.as_ref() else {
            continue;
        };
        if test.dialect != litmus_engine::ast::Dialect::Native {
            // herd's: only trailing whitespace is touched.
            let mut kept = text.clone();
            for sp in format::trailing_whitespace(&text).iter().rev() {
                kept.replace_range(sp.range(), "");
            }
            assert_eq!(
                TokenMap::new(&kept, None).key,
                TokenMap::new(&text, None).key
            );
            herd += 1;
            continue;
        }
        let new = format::native(&text);
        let after = engine.parse(&new, None);
        let errors = |d: &[litmus_engine::Diagnostic]| {
            d.iter()
                .filter(|x| x.severity == litmus_engine::Severity::Error)
                .count()
        };
        assert_eq!(
            errors(&after.diagnostics),
            errors(&before.diagnostics),
            "{}",
            p.display()
        );
        assert!(after.test.is_some(), "{}", p.display());
        assert_eq!(
            TokenMap::new(&new, None).key,
            TokenMap::new(&text, None).key,
            "{}: the tokens changed",
            p.display()
        );
        assert_eq!(format::native(&new), new, "{}: not idempotent", p.display());
        native += 1;
    }
    println!("{native} native tests formatted, {herd} of herd's dialects");
    assert!(native >= 20 && herd >= 5, "{native} native, {herd} herd");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workspace_symbols_name_open_tests_threads_locations_and_the_workspace_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("examples");
    let root_uri = format!("file://{}", root.display());
    let mut h = Harness::start_in(hooked(), json!({}), json!({}), json!(root_uri)).await;
    h.open(U, 1, SB).await;
    h.status(U, "done").await;
    let r = h.request("workspace/symbol", json!({"query": ""})).await;
    let names: Vec<(String, u64)> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["kind"].as_u64().unwrap(),
            )
        })
        .collect();
    for (n, k) in [("SB", 2), ("P0", 12), ("P1", 12), ("x", 13), ("m", 14)] {
        assert!(
            names.contains(&(n.to_string(), k)),
            "{n} ({k}) not in {names:?}"
        );
    }
    // The workspace's files, not open: dekker.litmus's test by its name.
    let r = h
        .request("workspace/symbol", json!({"query": "dekker"}))
        .await;
    let hits = r.as_array().unwrap();
    assert!(
        hits.iter().any(|s| s["name"] == "Dekker"
            && s["location"]["uri"]
                .as_str()
                .unwrap()
                .ends_with("examples/dekker.litmus")),
        "{r}"
    );
    assert!(
        hits.iter().all(|s| s["name"]
            .as_str()
            .unwrap()
            .to_lowercase()
            .contains("dekker")),
        "{r}"
    );
}
