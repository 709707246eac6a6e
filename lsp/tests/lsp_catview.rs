//! From a test's axiomatic answer to its model (issue 55, `docs/models.md#from-a-test-to-the-check`),
//! over the protocol: the check that forbids a state has its place in the model's cat file (the
//! server's written-out copy of a built-in model) in the `litmus/axiomatic` reply, the
//! diagnostic's related information and the hover; hovering a relation's name in a cat file
//! while a test is open shows its pairs in the execution the test's view shows.

mod lsp_harness;

use std::path::{Path, PathBuf};

use lsp_harness::*;
use serde_json::{json, Value};

const MP_ARM_DMB: &str = "AArch64 MP+dmb.sy+ldar\n{ 0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x; }\n P0          | P1           ;\n MOV W0,#1   | LDAR W0,[X1] ;\n STR W0,[X1] | LDR W2,[X3]  ;\n DMB SY      |              ;\n STR W0,[X3] |              ;\nexists (1:X0=1 /\\ 1:X2=0)\n";

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn uri(p: &Path) -> String {
    format!("file://{}", p.display())
}

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
