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
        msg.contains("agrees with its header `Result: Never`"),
        "{msg}"
    );
    let (lenses, md) = lens_and_hover(&mut h, &ua, &text).await;
    assert_eq!(lenses.len(), 1, "{lenses:?}");
    assert!(
        lenses[0].starts_with("C Never 0 3 ✓ agrees with its `Result:` header"),
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
            .contains("DISAGREES with its header `Result: Sometimes`: Never 0 3"),
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
