//! From a test's axiomatic answer to its model (issue 55, `docs/models.md#from-a-test-to-the-check`),
//! over the protocol: the check that forbids a state has its place in the model's cat file (the
//! server's written-out copy of a built-in model) in the `litmus/axiomatic` reply, the
//! diagnostic's related information and the hover; hovering a relation's name in a cat file
//! while a test is open shows its pairs in the execution the test's view shows.

mod lsp_harness;

use std::path::Path;

use lsp_harness::*;
use serde_json::{json, Value};

const MP_ARM_DMB: &str = "AArch64 MP+dmb.sy+ldar\n{ 0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x; }\n P0          | P1           ;\n MOV W0,#1   | LDAR W0,[X1] ;\n STR W0,[X1] | LDR W2,[X3]  ;\n DMB SY      |              ;\n STR W0,[X3] |              ;\nexists (1:X0=1 /\\ 1:X2=0)\n";

/// The line of the file at `loc` (a `{uri, range}`), from the range's start.
fn line_at(loc: &Value) -> String {
    let path = loc["uri"]
        .as_str()
        .unwrap()
        .strip_prefix("file://")
        .unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let line = loc["range"]["start"]["line"].as_u64().unwrap() as usize;
    let col = loc["range"]["start"]["character"].as_u64().unwrap() as usize;
    text.lines().nth(line).unwrap()[col..].to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_check_that_forbids_a_state_is_located_in_the_models_file() {
    let d = dir("lsp_catview_site");
    let test = d.join("MP+dmb.sy+ldar.litmus");
    std::fs::write(&test, MP_ARM_DMB).unwrap();
    let u = uri(&test);
    let caps = json!({"workspace": {"configuration": true}});
    let mut h = Harness::start_in(hooked(), caps, json!({}), json!(uri(&d))).await;
    h.open(&u, 1, MP_ARM_DMB).await;
    h.status(&u, "done").await;
    let view = h.request("litmus/axiomatic", json!({"uri": u})).await;
    assert_eq!(view["herd"], "No", "{view}");
    let check = &view["execution"]["check"];
    let loc = &check["location"];
    // the built-in model: the server's written-out copy, the text the check ran
    let file = loc["uri"].as_str().unwrap();
    assert!(file.ends_with("/aarch64.cat"), "{check}");
    let path = file.strip_prefix("file://").unwrap();
    assert_eq!(
        std::fs::read_to_string(path).unwrap(),
        litmus_engine::axiomatic::AARCH64_CAT
    );
    let (kind, name) = (
        check["kind"].as_str().unwrap(),
        check["name"].as_str().unwrap(),
    );
    let line = line_at(loc);
    assert!(
        line.starts_with(kind),
        "{line:?} is not the check {kind} {name}"
    );
    assert!(
        line.contains(&format!("as {name}")),
        "{line:?} names {name}"
    );
    assert_eq!(loc["range"]["start"]["line"], loc["range"]["end"]["line"]);

    // the diagnostic at the condition points to it
    let diags = h.last_diagnostics(&u).unwrap()["diagnostics"].clone();
    let forbidden = diags
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["message"].as_str().unwrap().contains("forbidden by"))
        .unwrap_or_else(|| panic!("{diags}"));
    let related = &forbidden["relatedInformation"][0];
    assert_eq!(related["location"], *loc, "{forbidden}");
    assert_eq!(related["message"], format!("the check `{kind} {name}`"));

    // and the hover on the condition links to it
    let (l, c) = find(MP_ARM_DMB, "exists");
    let hover = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": u}, "position": pos(l, c + 2)}),
        )
        .await;
    let md = hover["contents"]["value"].as_str().unwrap();
    let at = loc["range"]["start"]["line"].as_u64().unwrap() + 1;
    assert!(
        md.contains(&format!("[aarch64.cat:{at}]({file}#L{at})")),
        "{md}"
    );
}

const MINE: &str = "\"mine\"
let obs = rfe | coe | fre
let mine = po-loc ; [W]
acyclic po | rf | obs | mine as sc
";

/// The pairs a hover lists after `` `name`: ``, parsed back: `(e1, e2), (e3, e4)`.
fn listed(md: &str, name: &str) -> Vec<(u64, u64)> {
    let tail = md
        .split(&format!("`{name}`: "))
        .nth(1)
        .unwrap_or_else(|| panic!("no value of {name} in {md}"));
    let line = tail.lines().next().unwrap();
    if line == "empty" {
        return vec![];
    }
    line.split("), (")
        .map(|p| {
            let p = p.trim_matches(|c| c == '(' || c == ')');
            let (a, b) = p.split_once(", ").unwrap();
            let n = |s: &str| s.trim_start_matches('e').parse::<u64>().unwrap();
            (n(a), n(b))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hovering_a_relation_shows_its_pairs_in_the_execution_on_view() {
    let d = dir("lsp_catview_values");
    let test = d.join("MP+dmb.sy+ldar.litmus");
    std::fs::write(&test, MP_ARM_DMB).unwrap();
    let model = d.join("mine.cat");
    std::fs::write(&model, MINE).unwrap();
    let (u, m) = (uri(&test), uri(&model));
    let caps = json!({"workspace": {"configuration": true}});
    let mut h = Harness::start_in(hooked(), caps, json!({}), json!(uri(&d))).await;
    h.open(&m, 1, MINE).await;
    h.diagnostics(&m, 1).await;
    let hover_at = |needle: &str, nth: usize| {
        let at = MINE.match_indices(needle).nth(nth).unwrap().0;
        let before = &MINE[..at];
        let line = before.matches('\n').count() as u32;
        let col = (at - before.rfind('\n').map_or(0, |i| i + 1)) as u32;
        json!({"textDocument": {"uri": m}, "position": pos(line, col + 1)})
    };
    // no test open yet: the definition's hover alone
    let md = h.request("textDocument/hover", hover_at("po-loc", 0)).await;
    let md = md["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("{md}"));
    assert!(md.starts_with("```cat\nlet po-loc"), "{md}");

    h.open(&u, 1, MP_ARM_DMB).await;
    h.status(&u, "done").await;
    let view = h.request("litmus/axiomatic", json!({"uri": u})).await;
    let x = &view["execution"];
    assert_eq!(x["role"], "forbidden");
    let text = |v: Value| {
        v["contents"]["value"]
            .as_str()
            .unwrap_or_else(|| panic!("{v}"))
            .to_string()
    };

    // rf: the view's own pairs
    let md = text(h.request("textDocument/hover", hover_at("rf", 1)).await);
    assert!(
        md.starts_with("**In MP+dmb.sy+ldar's forbidden execution** (under mine.cat):"),
        "{md}"
    );
    let mut rf: Vec<(u64, u64)> = serde_json::from_value(x["rf"].clone()).unwrap();
    rf.sort();
    assert_eq!(listed(&md, "rf"), rf);
    // po: every pair of one thread's events in program order, from the view's nodes
    let md = text(h.request("textDocument/hover", hover_at("po", 1)).await);
    let nodes = x["nodes"].as_array().unwrap();
    let mut po = vec![];
    for a in nodes {
        for b in nodes {
            if !a["thread"].is_null()
                && a["thread"] == b["thread"]
                && a["po"].as_u64() < b["po"].as_u64()
            {
                po.push((a["id"].as_u64().unwrap(), b["id"].as_u64().unwrap()));
            }
        }
    }
    po.sort();
    assert!(!po.is_empty());
    assert_eq!(listed(&md, "po"), po);
    // obs, as mine.cat defines it: holds the rfe pairs
    let md = text(h.request("textDocument/hover", hover_at("obs", 0)).await);
    let obs = listed(&md, "obs");
    let thread = |e: u64| nodes.iter().find(|n| n["id"] == e).unwrap()["thread"].clone();
    for &(w, r) in &rf {
        assert_eq!(obs.contains(&(w, r)), thread(w) != thread(r), "{md}");
    }
    // mine, mine.cat's own: po-loc ; [W], from the view's nodes
    let md = text(h.request("textDocument/hover", hover_at("mine", 1)).await);
    let node = |e: u64| nodes.iter().find(|n| n["id"] == e).unwrap();
    let mut want: Vec<(u64, u64)> = po
        .iter()
        .copied()
        .filter(|&(a, b)| node(a)["kind"] != "F" && node(a)["loc"] == node(b)["loc"])
        .filter(|&(_, b)| node(b)["kind"] == "W")
        .collect();
    want.sort();
    assert_eq!(listed(&md, "mine"), want, "{md}");
    // the definition's hover is still there
    assert!(md.contains("let mine = po-loc"), "{md}");

    // a file that is no model that loads (its include is nowhere): the values of the model
    // the test was checked under, which does not define `mine2`
    let other = d.join("other.cat");
    let text2 = "include \"nowhere.cat\"\nlet mine2 = po\n";
    std::fs::write(&other, text2).unwrap();
    let o = uri(&other);
    h.open(&o, 1, text2).await;
    h.diagnostics(&o, 1).await;
    let (l, c) = find(text2, "mine2");
    let md = text(
        h.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": o}, "position": pos(l, c + 1)}),
        )
        .await,
    );
    assert!(
        md.starts_with("**In MP+dmb.sy+ldar's forbidden execution** (under aarch64.cat (litmus)): `mine2` has no value"),
        "{md}"
    );
    let (l, c) = find(text2, "po");
    let md = text(
        h.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": o}, "position": pos(l, c + 1)}),
        )
        .await,
    );
    assert_eq!(listed(&md, "po"), po);
}

const MP: &str = "AArch64 MP+dmb.sy+addr
{
0:X1=x; 0:X3=y;
1:X1=y; 1:X3=x;
}
 P0          | P1                  ;
 MOV W0,#1   | LDR W0,[X1]         ;
 STR W0,[X1] | EOR W2,W0,W0        ;
 DMB SY      | LDR W4,[X3,W2,SXTW] ;
 MOV W2,#1   |                     ;
 STR W2,[X3] |                     ;
exists (1:X0=1 /\\ 1:X4=0)
";

/// The changed tests of a `litmus/modelChanges`: (file, before, after, model).
fn changes(n: &Value) -> Vec<(String, String, String, String)> {
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    n["params"]["changed"]
        .as_array()
        .unwrap_or_else(|| panic!("{n}"))
        .iter()
        .map(|c| {
            (
                s(&c["file"]),
                s(&c["before"]),
                s(&c["after"]),
                s(&c["model"]),
            )
        })
        .collect()
}

/// Two workspace folders, each with its own `litmus.modelPath` (asked with the folder's
/// `scopeUri`): saving a model rechecks the tests of the folders whose model uses it, each
/// under its folder's model.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_workspace_folder_has_its_own_model() {
    let d = dir("lsp_catview_folders");
    let (a, b) = (d.join("a"), d.join("b"));
    for f in [&a, &b] {
        litmus::catmodel::builtin::write("aarch64", &f.join("models"), false).unwrap();
        std::fs::create_dir_all(f.join("tests")).unwrap();
        std::fs::write(f.join("tests/MP+dmb.sy+addr.litmus"), MP).unwrap();
    }
    let model = a.join("models/aarch64.cat");
    let orig = std::fs::read_to_string(&model).unwrap();
    let weak = orig.replace(
        "acyclic obs | hob | lob | plob | dsbob as external",
        "acyclic obs | hob | plob | dsbob as external",
    );
    assert_ne!(orig, weak);
    let caps = json!({"workspace": {"configuration": true, "workspaceFolders": true}});
    let mut h = Harness::start_folders(hooked(), caps, &[uri(&a), uri(&b)]).await;
    // a: its own model; b: its own copy, which does not use a's file
    h.set_config_for(&uri(&a), json!({"modelPath": "models/aarch64.cat"}));
    h.set_config_for(&uri(&b), json!({"modelPath": "models/aarch64.cat"}));
    let u = uri(&model);
    let n = save_weakened(&mut h, &u, &model, &orig, &weak).await;
    let mp_a = a.join("tests/MP+dmb.sy+addr.litmus").display().to_string();
    let mp_b = b.join("tests/MP+dmb.sy+addr.litmus").display().to_string();
    let asked: Vec<Value> = h
        .log()
        .into_iter()
        .filter(|m| m["method"] == "workspace/configuration")
        .collect();
    assert_eq!(n["params"]["checked"], 1, "only a's tests: {n:#} {asked:?}");
    let (no, ok) = ("No".to_string(), "Ok".to_string());
    assert_eq!(
        changes(&n),
        [(mp_a.clone(), no.clone(), ok.clone(), u.clone())]
    );

    // b's setting now names a's model (absolute): b's tests are rechecked under it too
    h.set_config_for(&uri(&b), json!({"modelPath": model.display().to_string()}));
    h.change_full(&u, 3, &weak.replace("as external", "as external2"))
        .await;
    h.save(&u).await;
    let n = h
        .wait_for("modelChanges", |m| m["method"] == "litmus/modelChanges")
        .await;
    assert_eq!(n["params"]["checked"], 2, "{n:#}");
    assert_eq!(
        changes(&n),
        [(mp_a, no.clone(), ok.clone(), u.clone()), (mp_b, no, ok, u)]
    );
}

/// Each changed test of `litmus/modelChanges` opens under the model as it was and as saved:
/// the entry's `views` are `litmus/axiomaticUnder` requests answering the test's axiomatic view
/// (its forbidding execution before, its witness after a check is weakened).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_test_opens_under_both_models() {
    let d = dir("lsp_catview_under");
    litmus::catmodel::builtin::write("aarch64", &d.join("models"), false).unwrap();
    std::fs::create_dir_all(d.join("tests")).unwrap();
    let test = d.join("tests/MP+dmb.sy+addr.litmus");
    std::fs::write(&test, MP).unwrap();
    let model = d.join("models/aarch64.cat");
    let orig = std::fs::read_to_string(&model).unwrap();
    let weak = orig.replace(
        "acyclic obs | hob | lob | plob | dsbob as external",
        "acyclic obs | hob | plob | dsbob as external",
    );
    let caps = json!({"workspace": {"configuration": true}});
    let mut h = Harness::start_in(hooked(), caps, json!({}), json!(uri(&d))).await;
    let u = uri(&model);
    let n = save_weakened(&mut h, &u, &model, &orig, &weak).await;
    let entry = &n["params"]["changed"][0];
    assert_eq!(
        (&entry["before"], &entry["after"]),
        (&json!("No"), &json!("Ok"))
    );
    let ask = |which: &str| {
        let v = &entry["views"][which];
        assert_eq!(v["method"], "litmus/axiomaticUnder");
        assert_eq!(v["params"]["uri"], entry["uri"]);
        assert_eq!(v["params"]["model"], json!(u));
        v["params"].clone()
    };
    let before = h.request("litmus/axiomaticUnder", ask("before")).await;
    assert_eq!(before["herd"], "No", "{before}");
    assert_eq!(before["model"], "aarch64.cat (as it was)");
    let x = &before["execution"];
    assert_eq!(x["role"], "forbidden", "{before}");
    assert_eq!(x["check"]["name"], "external", "{x}");
    let after = h.request("litmus/axiomaticUnder", ask("after")).await;
    assert_eq!(after["herd"], "Ok", "{after}");
    assert_eq!(after["model"], "aarch64.cat (as saved)");
    assert_eq!(after["execution"]["role"], "witness", "{after}");
    // one test, two models
    assert_eq!(after["test"], before["test"]);
    let bad = h
        .request_raw(
            "litmus/axiomaticUnder",
            json!({"uri": entry["uri"], "model": "file:///nowhere.cat", "which": "after"}),
        )
        .await;
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no recheck compared"),
        "{bad}"
    );
}

/// Opens the model, replaces its text with `weak`, saves it and waits for the list of
/// changed tests.
async fn save_weakened(h: &mut Harness, u: &str, model: &Path, orig: &str, weak: &str) -> Value {
    h.open(u, 1, orig).await;
    h.diagnostics(u, 1).await;
    h.change_full(u, 2, weak).await;
    std::fs::write(model, weak).unwrap();
    h.save(u).await;
    h.wait_for("modelChanges", |m| m["method"] == "litmus/modelChanges")
        .await
}
