//! Memory models in the editor, the last parts of issue 55 (`docs/models.md`), over the
//! protocol: the include path (`litmus.includePath`, per workspace folder) in the cat
//! diagnostics, go to definition and the recheck on save; a changed x86 test's view under the
//! model as it was and as saved; the model as it was written out so that its check has a place.

mod lsp_harness;

use std::path::Path;

use lsp_harness::*;
use serde_json::{json, Value};

/// The text of the file at `loc` (a `{uri, range}`) in its range, which is on one line.
fn text_at(loc: &Value) -> String {
    let path = loc["uri"]
        .as_str()
        .unwrap_or_else(|| panic!("no uri in {loc}"))
        .strip_prefix("file://")
        .unwrap();
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let (s, e) = (&loc["range"]["start"], &loc["range"]["end"]);
    assert_eq!(s["line"], e["line"], "{loc}");
    let line = text
        .lines()
        .nth(s["line"].as_u64().unwrap() as usize)
        .unwrap();
    let (a, b) = (
        s["character"].as_u64().unwrap(),
        e["character"].as_u64().unwrap(),
    );
    line[a as usize..b as usize].to_string()
}

const SB: &str = "X86 SB\n{ x=0; y=0; }\n P0          | P1          ;\n MOV [x],$1  | MOV [y],$1  ;\n MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=0 /\\ 1:EAX=0)\n";
const MP: &str = "X86 MP\n{ x=0; y=0; }\n P0         | P1          ;\n MOV [x],$1 | MOV EAX,[y] ;\n MOV [y],$1 | MOV EBX,[x] ;\nexists (1:EAX=1 /\\ 1:EBX=0)\n";

/// The changed tests of a `litmus/modelChanges`: (file name, before, after).
fn changes(n: &Value) -> Vec<(String, String, String)> {
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    n["params"]["changed"]
        .as_array()
        .unwrap_or_else(|| panic!("{n}"))
        .iter()
        .map(|c| {
            let file = s(&c["file"]);
            let name = Path::new(&file).file_name().unwrap().to_string_lossy();
            (name.into_owned(), s(&c["before"]), s(&c["after"]))
        })
        .collect()
}

/// The `litmus/axiomaticUnder` view `which` of a changed test's entry.
async fn under(h: &mut Harness, entry: &Value, which: &str) -> Value {
    let v = &entry["views"][which];
    assert_eq!(v["method"], "litmus/axiomaticUnder");
    h.request("litmus/axiomaticUnder", v["params"].clone())
        .await
}

/// The view of the model as it was locates its failed check in a snapshot the server wrote:
/// an existing file, not the user's, whose text at the range is the check.
fn assert_before_located(view: &Value, model: &Path, check: &str) {
    let loc = &view["execution"]["check"]["location"];
    assert!(loc.is_object(), "no location: {view}");
    let file = loc["uri"]
        .as_str()
        .unwrap()
        .strip_prefix("file://")
        .unwrap();
    assert_ne!(Path::new(file), model, "{loc}");
    assert_eq!(Path::new(file).file_name(), model.file_name(), "{loc}");
    assert!(file.contains("/before/"), "{loc}");
    assert_eq!(text_at(loc), check);
    // read-only, as the server wrote it
    assert!(std::fs::metadata(file).unwrap().permissions().readonly());
}

const MODEL: &str = "\"mine\"\ninclude \"mylib.cat\"\nacyclic kept | rf | co | fr as sc\n";
const LIB: &str = "(* what program order keeps *)\nlet kept = po\n";
const LIB_WEAK: &str = "(* what program order keeps *)\nlet kept = po \\ (W * R)\n";

/// A model in workspace folder `a` includes a file found only through `a`'s setting
/// `litmus.includePath` (`../b`, relative to `a`): no diagnostic once the setting is there, go
/// to definition lands in `b`, and saving `b`'s file rechecks `a`'s tests under `a`'s model.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_include_path_finds_a_library_outside_the_workspace() {
    let d = dir("lsp_catmodels_include");
    let (a, b) = (d.join("a"), d.join("b"));
    std::fs::create_dir_all(a.join("models")).unwrap();
    std::fs::create_dir_all(a.join("tests")).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    let model = a.join("models/m.cat");
    std::fs::write(&model, MODEL).unwrap();
    let lib = b.join("mylib.cat");
    std::fs::write(&lib, LIB).unwrap();
    std::fs::write(a.join("tests/SB.litmus"), SB).unwrap();
    let caps = json!({"workspace": {"configuration": true, "workspaceFolders": true}});
    let mut h = Harness::start_folders(hooked(), caps, &[uri(&a)]).await;
    let m = uri(&model);
    h.open(&m, 1, MODEL).await;
    // no setting yet: the include is found nowhere
    let diags = h.diagnostics(&m, 1).await;
    assert!(
        diags.iter().any(|d| d["message"]
            .as_str()
            .unwrap()
            .contains("litmus.includePath")),
        "{diags:?}"
    );

    h.set_config_for(
        &uri(&a),
        json!({"modelPath": "models/m.cat", "includePath": ["../b"]}),
    );
    h.notify("workspace/didChangeConfiguration", json!({"settings": {}}))
        .await;
    h.wait_for("the model's diagnostics, none", |n| {
        n["method"] == "textDocument/publishDiagnostics"
            && n["params"]["uri"] == m
            && n["params"]["diagnostics"] == json!([])
    })
    .await;
    // go to definition of `kept`: the file in b
    let (l, c) = find(MODEL, "kept");
    let def = h
        .request(
            "textDocument/definition",
            json!({"textDocument": {"uri": m}, "position": pos(l, c + 1)}),
        )
        .await;
    assert_eq!(def["uri"], json!(uri(&lib)), "{def}");
    assert_eq!(def["range"]["start"]["line"], 1, "{def}");
    // the hover finds it too
    let hover = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": m}, "position": pos(l, c + 1)}),
        )
        .await;
    let md = hover["contents"]["value"].as_str().unwrap();
    assert!(
        md.contains("let kept = po") && md.contains("mylib.cat:2"),
        "{md}"
    );

    // saving the library weakened: a's test, under a's model, changes
    let u = uri(&lib);
    h.open(&u, 1, LIB).await;
    h.diagnostics(&u, 1).await;
    h.change_full(&u, 2, LIB_WEAK).await;
    std::fs::write(&lib, LIB_WEAK).unwrap();
    h.save(&u).await;
    let n = h
        .wait_for("modelChanges", |n| n["method"] == "litmus/modelChanges")
        .await;
    assert_eq!(n["params"]["checked"], 1, "{n:#}");
    let (no, ok) = ("No".to_string(), "Ok".to_string());
    assert_eq!(changes(&n), [("SB.litmus".to_string(), no, ok)]);
    let entry = &n["params"]["changed"][0];
    assert_eq!(entry["model"], json!(m), "{entry}");
    // the model as it was: its check in the snapshot of m.cat, which includes the library as
    // it was (beside it)
    let before = under(&mut h, entry, "before").await;
    assert_eq!(before["herd"], "No", "{before}");
    assert_before_located(&before, &model, "acyclic kept | rf | co | fr as sc");
    let snap = before["execution"]["check"]["location"]["uri"]
        .as_str()
        .unwrap()
        .strip_prefix("file://")
        .unwrap()
        .to_string();
    let beside = Path::new(&snap).with_file_name("mylib.cat");
    assert_eq!(std::fs::read_to_string(beside).unwrap(), LIB);
    // opened, the snapshot resolves its include beside it, and nothing in it can be renamed
    let s = uri(Path::new(&snap));
    h.open(&s, 1, MODEL).await;
    assert_eq!(h.diagnostics(&s, 1).await, Vec::<Value>::new());
    let at = json!({"textDocument": {"uri": s}, "position": pos(l, c + 1)});
    let def = h.request("textDocument/definition", at.clone()).await;
    assert_eq!(
        def["uri"],
        json!(uri(&Path::new(&snap).with_file_name("mylib.cat")))
    );
    assert_eq!(
        h.request("textDocument/prepareRename", at).await,
        Value::Null
    );
    let after = under(&mut h, entry, "after").await;
    assert_eq!(after["herd"], "Ok", "{after}");
    assert_eq!(after["execution"]["role"], "witness", "{after}");
}

/// x86 tests under a model edited from SC to x86-TSO: the store buffer test changes, the
/// message passing test does not; the changed test's view under the model as it was is its
/// forbidding execution (the check located in the snapshot), as saved its witness.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_x86_test_opens_under_both_models() {
    let d = dir("lsp_catmodels_x86");
    std::fs::create_dir_all(d.join("models")).unwrap();
    std::fs::create_dir_all(d.join("tests")).unwrap();
    std::fs::write(d.join("tests/SB.litmus"), SB).unwrap();
    std::fs::write(d.join("tests/MP.litmus"), MP).unwrap();
    let model = d.join("models/m.cat");
    let (sc, tso) = (
        litmus_engine::axiomatic::SC_CAT,
        litmus_engine::axiomatic::X86TSO_CAT,
    );
    std::fs::write(&model, sc).unwrap();
    let caps = json!({"workspace": {"configuration": true}});
    let mut h = Harness::start_in(hooked(), caps, json!({}), json!(uri(&d))).await;
    let u = uri(&model);
    h.open(&u, 1, sc).await;
    h.diagnostics(&u, 1).await;
    h.change_full(&u, 2, tso).await;
    std::fs::write(&model, tso).unwrap();
    h.save(&u).await;
    let n = h
        .wait_for("modelChanges", |n| n["method"] == "litmus/modelChanges")
        .await;
    assert_eq!(n["params"]["checked"], 2, "{n:#}");
    let (no, ok) = ("No".to_string(), "Ok".to_string());
    assert_eq!(changes(&n), [("SB.litmus".to_string(), no, ok)]);
    let entry = &n["params"]["changed"][0];

    let before = under(&mut h, entry, "before").await;
    assert_eq!(before["arch"], "X86", "{before}");
    assert_eq!(before["herd"], "No", "{before}");
    assert_eq!(before["model"], "m.cat (as it was)");
    assert_eq!(before["verdict"], "forbidden");
    let x = &before["execution"];
    assert_eq!(x["role"], "forbidden", "{before}");
    let check = &x["check"];
    assert_eq!(
        (&check["kind"], &check["name"]),
        (&json!("acyclic"), &json!("sc"))
    );
    // the cycle: both threads' write then read, through the memory
    let cycle = check["cycle"].as_array().unwrap();
    assert_eq!(cycle.len(), 4, "{check}");
    let labels: Vec<&str> = x["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["label"].as_str().unwrap())
        .collect();
    for want in ["W x=1", "W y=1", "R y=0", "R x=0"] {
        assert!(labels.contains(&want), "{labels:?}");
    }
    assert_before_located(&before, &model, "acyclic po | rf | co | fr as sc");
    assert!(before["block"][0]
        .as_str()
        .unwrap()
        .starts_with("Test SB Allowed"));

    let after = under(&mut h, entry, "after").await;
    assert_eq!(after["herd"], "Ok", "{after}");
    assert_eq!(after["model"], "m.cat (as saved)");
    assert_eq!(after["verdict"], "allowed");
    let w = &after["execution"];
    assert_eq!(w["role"], "witness", "{after}");
    assert!(w["check"].is_null(), "{w}");
    // the witness reaches the condition's state: both reads of 0
    let state: Vec<(String, i64)> = serde_json::from_value(w["state"].clone()).unwrap();
    let eax: Vec<i64> = state
        .iter()
        .filter(|(k, _)| k.ends_with(":EAX"))
        .map(|(_, v)| *v)
        .collect();
    assert_eq!(eax, [0, 0], "{state:?}");
    assert!(after["positive"].as_u64().unwrap() > 0, "{after}");
}

/// A client that cannot be asked for settings (no `workspace/configuration`, as Neovim 0.7)
/// gives the include path in `initializationOptions`, and a later one in
/// `workspace/didChangeConfiguration`: every folder uses it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_configuration_sends_the_include_path() {
    let d = dir("lsp_catmodels_pushed");
    let (a, b, c) = (d.join("a"), d.join("b"), d.join("c"));
    for f in [&a, &b, &c] {
        std::fs::create_dir_all(f).unwrap();
    }
    let model = a.join("m.cat");
    std::fs::write(&model, MODEL).unwrap();
    std::fs::write(b.join("mylib.cat"), LIB).unwrap();
    std::fs::write(c.join("mylib.cat"), "let other = po\n").unwrap();
    let init = json!({"includePath": [b.display().to_string()]});
    let mut h = Harness::start_in(hooked(), json!({}), init, json!(uri(&a))).await;
    let m = uri(&model);
    h.open(&m, 1, MODEL).await;
    assert_eq!(h.diagnostics(&m, 1).await, Vec::<Value>::new());
    let (l, col) = find(MODEL, "kept");
    let at = json!({"textDocument": {"uri": m}, "position": pos(l, col + 1)});
    let def = h.request("textDocument/definition", at.clone()).await;
    assert_eq!(def["uri"], json!(uri(&b.join("mylib.cat"))), "{def}");
    // the setting changed: c's file now, which does not define `kept`
    let settings = json!({"litmus": {"includePath": [c.display().to_string()]}});
    h.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": settings }),
    )
    .await;
    let n = h
        .wait_for("the diagnostics published again, with c's file", |n| {
            n["method"] == "textDocument/publishDiagnostics"
                && n["params"]["uri"] == m
                && n["params"]["diagnostics"] != json!([])
        })
        .await;
    let msg = n["params"]["diagnostics"][0]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("unknown name") && msg.contains("kept"),
        "{n}"
    );
    let def = h.request("textDocument/definition", at).await;
    assert!(def.is_null(), "{def}");
}
