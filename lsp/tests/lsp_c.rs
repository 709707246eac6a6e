//! herd's C tests in the language server (issue 53): a kernel test opened in a kernel tree, with
//! no setting, is checked on open and save under the model found above it; the condition's
//! diagnostic, lens and hover say herd's observation and whether it agrees with the test's
//! `Result:` header (a disagreement is a warning on the header's line), and `litmus/status`
//! carries the verdict under the `c` key. A test outside any kernel tree gets one warning on
//! its first line naming the files looked for and the setting; `litmus.modelPath` naming the
//! `.cfg` (or its folder) answers it.
//!
//! The kernel's model files and tests are copied at test time from
//! `../shared/conformance/linux/` into a temporary tree (never committed: they are GPL);
//! without them the tests say SKIPPED.

mod lsp_harness;

use lsp_harness::*;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

const TEST: &str = "MP+pooncerelease+poacquireonce.litmus";

fn shared() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join("../shared/conformance/linux");
    if d.join("model/linux-kernel.cfg").is_file() && d.join("tests/catalogue").join(TEST).is_file()
    {
        Some(d)
    } else {
        println!("SKIPPED: ../shared/conformance/linux (model and catalogue) not found");
        None
    }
}

/// A stand-in kernel tree under `name`: `linux/tools/memory-model/` with the model files and
/// `litmus-tests/` with the test as shipped and the test with its header edited to disagree.
/// Returns the two tests' paths and texts.
fn tree(shared: &Path, name: &str) -> [(PathBuf, String); 2] {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let mm = root.join("linux/tools/memory-model");
    std::fs::create_dir_all(mm.join("litmus-tests")).unwrap();
    for f in std::fs::read_dir(shared.join("model")).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, mm.join(f.file_name().unwrap())).unwrap();
    }
    let text = std::fs::read_to_string(shared.join("tests/catalogue").join(TEST)).unwrap();
    let edited = text.replacen("Result: Never", "Result: Sometimes", 1);
    assert_ne!(edited, text);
    let a = mm.join("litmus-tests").join(TEST);
    let b = mm.join("litmus-tests/MP-disagrees.litmus");
    std::fs::write(&a, &text).unwrap();
    std::fs::write(&b, &edited).unwrap();
    [(a, text), (b, edited)]
}

fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

async fn lens_and_hover(h: &mut Harness, uri: &str, text: &str) -> (Vec<String>, String) {
    let lenses = h
        .request(
            "textDocument/codeLens",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    let (l, c) = find(text, "exists");
    let hover = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": pos(l, c + 2)}),
        )
        .await;
    let md = hover["contents"]["value"]
        .as_str()
        .unwrap_or("")
        .to_string();
    (lens_titles(&lenses), md)
}

fn diags(h: &Harness, uri: &str) -> Vec<Value> {
    h.last_diagnostics(uri).unwrap()["diagnostics"]
        .as_array()
        .unwrap()
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kernel_test_is_judged_against_its_header_with_no_setting() {
    let Some(shared) = shared() else { return };
    let [(a, text), (b, edited)] = tree(&shared, "lsp_c-tree");
    let (ua, ub) = (uri(&a), uri(&b));
    let mut h = Harness::default_with(hooked(), json!({})).await;

    // agrees: an information at the condition, a passed lens, `holds` under `c`
    h.open(&ua, 1, &text).await;
    let st = h.status(&ua, "done").await;
    assert_eq!(st["verdicts"]["c"], "holds", "{st}");
    assert!(
        st["tooltip"].as_str().unwrap().contains("Never 0 3"),
        "{st}"
    );
    let d = diags(&h, &ua);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["severity"], 3, "{d:?}");
    let msg = d[0]["message"].as_str().unwrap();
    assert!(msg.starts_with("Never 0 3 under "), "{msg}");
    assert!(
        msg.contains("linux/tools/memory-model/linux-kernel.cfg"),
        "{msg}"
    );
    assert!(
        msg.contains("agrees with its header “Result: Never”"),
        "{msg}"
    );
    let (lenses, md) = lens_and_hover(&mut h, &ua, &text).await;
    assert_eq!(lenses.len(), 1, "{lenses:?}");
    assert!(
        lenses[0].starts_with("C Never 0 3 ✓ agrees with its “Result:” header"),
        "{lenses:?}"
    );
    assert!(
        md.contains("Observation MP+pooncerelease+poacquireonce Never 0 3"),
        "{md}"
    );
    let view = h.request("litmus/axiomatic", json!({"uri": ua})).await;
    assert_eq!(view["judgement"]["agrees"], true, "{view}");
    assert_eq!(view["judgement"]["observation"], "Never", "{view}");

    // disagrees: a warning on the `Result:` line, a failed lens, `fails` under `c`
    h.open(&ub, 1, &edited).await;
    let st = h.status(&ub, "done").await;
    assert_eq!(st["verdicts"]["c"], "fails", "{st}");
    let d = diags(&h, &ub);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["severity"], 2, "{d:?}");
    let (line, _) = find(&edited, "Result: Sometimes");
    assert_eq!(d[0]["range"]["start"]["line"], line, "{d:?}");
    assert!(
        d[0]["message"]
            .as_str()
            .unwrap()
            .contains("DISAGREES with its header “Result: Sometimes”: Never 0 3"),
        "{d:?}"
    );
    let (lenses, _) = lens_and_hover(&mut h, &ub, &edited).await;
    assert!(lenses[0].contains("✗ DISAGREES"), "{lenses:?}");

    // on save, checked again: the header fixed in the buffer agrees
    let fixed = edited.replacen("Result: Sometimes", "Result: Never", 1);
    h.change_full(&ub, 2, &fixed).await;
    h.save(&ub).await;
    let st = h.status(&ub, "done").await;
    assert_eq!(st["verdicts"]["c"], "holds", "{st}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_model_found_is_one_warning_at_the_top_and_the_setting_answers() {
    let Some(shared) = shared() else { return };
    let [(a, text), _] = tree(&shared, "lsp_c-setting");
    // the same test outside the tree
    let lone = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("lsp_c-lone");
    std::fs::create_dir_all(&lone).unwrap();
    let t = lone.join(TEST);
    std::fs::write(&t, &text).unwrap();
    let ut = uri(&t);
    let mut h = Harness::default_with(hooked(), json!({})).await;
    h.open(&ut, 1, &text).await;
    let st = h.status(&ut, "done").await;
    assert_eq!(st["verdicts"]["c"], "incomplete", "{st}");
    let d = diags(&h, &ut);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["severity"], 2, "{d:?}");
    assert_eq!(d[0]["range"]["start"]["line"], 0, "{d:?}");
    let msg = d[0]["message"].as_str().unwrap();
    for want in [
        "no memory model for the C test",
        "tools/memory-model/linux-kernel.cfg",
        "litmus.modelPath",
    ] {
        assert!(msg.contains(want), "{want}: {msg}");
    }
    // `litmus.modelPath` naming the model's folder: answered on the next save
    let folder = a.parent().unwrap().parent().unwrap();
    h.set_config(json!({"modelPath": folder.display().to_string()}));
    h.save(&ut).await;
    let st = h.status(&ut, "done").await;
    assert_eq!(st["verdicts"]["c"], "holds", "{st}");
}

/// The view's cycle: every step an edge of the graph marked on the cycle.
fn cycle_edges(view: &Value) -> Vec<(u64, u64)> {
    let x = &view["execution"];
    let cycle: Vec<u64> = x["check"]["cycle"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_u64().unwrap())
        .collect();
    let edges = x["edges"].as_array().unwrap();
    (0..cycle.len())
        .map(|k| {
            let (a, b) = (cycle[k], cycle[(k + 1) % cycle.len()]);
            assert!(
                edges
                    .iter()
                    .any(|e| e["from"] == a && e["to"] == b && e["cycle"] == true),
                "no cycle edge e{a} -> e{b}: {view}"
            );
            (a, b)
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_axiomatic_view_of_a_kernel_test_draws_its_cycle_or_witness() {
    let Some(shared) = shared() else { return };
    let [(a, text), _] = tree(&shared, "lsp_c-view");
    let allowed =
        std::fs::read_to_string(shared.join("tests/catalogue/MP+poonceonces.litmus")).unwrap();
    let b = a.with_file_name("MP+poonceonces.litmus");
    std::fs::write(&b, &allowed).unwrap();
    let (ua, ub) = (uri(&a), uri(&b));
    let mut h = Harness::default_with(hooked(), json!({})).await;

    // release/acquire: the candidate reaching the state, forbidden by `acyclic happens-before`
    h.open(&ua, 1, &text).await;
    h.status(&ua, "done").await;
    let view = h.request("litmus/axiomatic", json!({"uri": ua})).await;
    let x = &view["execution"];
    assert_eq!(x["role"], "forbidden", "{view}");
    assert_eq!(x["check"]["name"], "happens-before", "{view}");
    assert_eq!(x["check"]["kind"], "acyclic", "{view}");
    assert!(cycle_edges(&view).len() >= 2, "{view}");
    assert_eq!(x["threads"], json!(["P0", "P1"]), "{view}");
    let words = view["text"].as_array().unwrap();
    assert!(
        words.iter().any(|w| w
            .as_str()
            .unwrap()
            .starts_with("forbidden by acyclic happens-before: e")),
        "{view}"
    );
    // the acquire orders the second read after it; the model's step back is no base relation
    assert!(
        words.iter().any(|w| w.as_str().unwrap()
            == "forbidden by acyclic happens-before: e5 -other-> e4 -[ACQUIRE];po-> e5"),
        "{view}"
    );
    assert!(
        words
            .iter()
            .any(|w| w.as_str().unwrap().contains("P1: R[ACQUIRE] flag=1")),
        "{view}"
    );

    // once accesses: a witness whose reads-from are drawn
    h.open(&ub, 1, &allowed).await;
    h.status(&ub, "done").await;
    let view = h.request("litmus/axiomatic", json!({"uri": ub})).await;
    let x = &view["execution"];
    assert_eq!(x["role"], "witness", "{view}");
    assert!(x["check"].is_null(), "{view}");
    let rf: Vec<&Value> = x["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "rf")
        .collect();
    assert_eq!(rf.len(), 2, "{view}");
    let nodes = x["nodes"].as_array().unwrap();
    let label = |id: &Value| nodes[id.as_u64().unwrap() as usize]["label"].clone();
    let pairs: Vec<(Value, Value)> = rf
        .iter()
        .map(|e| (label(&e["from"]), label(&e["to"])))
        .collect();
    assert!(
        pairs.contains(&(json!("W[ONCE] flag=1"), json!("R[ONCE] flag=1"))),
        "{pairs:?}"
    );
    assert!(
        pairs.contains(&(json!("W buf=0"), json!("R[ONCE] buf=0"))),
        "{pairs:?}"
    );
}

const MP_C11: &str = "C MP+rel+acq\n\n{}\n\n\
P0(atomic_int *x, atomic_int *y)\n{\n\
\tatomic_store_explicit(x, 1, memory_order_relaxed);\n\
\tatomic_store_explicit(y, 1, memory_order_release);\n}\n\n\
P1(atomic_int *x, atomic_int *y)\n{\n\
\tint r0 = atomic_load_explicit(y, memory_order_acquire);\n\
\tint r1 = atomic_load_explicit(x, memory_order_relaxed);\n}\n\n\
exists (1:r0=1 /\\ 1:r1=0)\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_c11_test_with_no_setting_is_checked_under_rc11() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("lsp_c-c11");
    std::fs::create_dir_all(&dir).unwrap();
    let t = dir.join("MP+rel+acq.litmus");
    std::fs::write(&t, MP_C11).unwrap();
    let ut = uri(&t);
    let mut h = Harness::default_with(hooked(), json!({})).await;
    h.open(&ut, 1, MP_C11).await;
    let st = h.status(&ut, "done").await;
    assert_eq!(st["verdicts"]["c"], "holds", "{st}");
    let d = diags(&h, &ut);
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0]["severity"], 3, "{d:?}");
    let msg = d[0]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("Never 0 3 under rc11.cat (built in, for C11 tests)"),
        "{msg}"
    );
    let view = h.request("litmus/axiomatic", json!({"uri": ut})).await;
    assert_eq!(
        view["model"], "rc11.cat (built in, for C11 tests)",
        "{view}"
    );
    assert_eq!(view["herd"], "No", "{view}");
    assert_eq!(view["execution"]["role"], "forbidden", "{view}");
    assert!(view["execution"]["check"]["name"].is_string(), "{view}");
    // the check is located in the server's written-out copy of the built-in rc11.cat
    let check = &view["execution"]["check"];
    let loc = &check["location"];
    let path = loc["uri"]
        .as_str()
        .unwrap()
        .strip_prefix("file://")
        .unwrap();
    assert!(path.ends_with("/rc11.cat"), "{check}");
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(text, litmus_engine::axiomatic::RC11_CAT);
    let line = text
        .lines()
        .nth(loc["range"]["start"]["line"].as_u64().unwrap() as usize)
        .unwrap();
    let kind = check["kind"].as_str().unwrap();
    assert!(
        line.trim_start().starts_with(kind),
        "{line:?} is not a check {kind}"
    );
}
