//! The language server on cat files (`docs/models.md#in-the-editor`), driven over the protocol:
//! diagnostics with positions, go to definition and references across an `include` (a file of
//! the folder and a file of litmus's library), hover with the comment above a definition,
//! document symbols, semantic tokens, rename; the write-out command; a saved model's `litmus/modelChanges` (equal to
//! `litmus diff`'s list, and empty again once the original is saved back); and every file of
//! herd's library and the kernel's model answered without error (SKIPPED when
//! `../shared` is absent).

mod lsp_harness;

use std::path::Path;

use lsp_harness::*;
use serde_json::{json, Value};

async fn server(root: &Path) -> Harness {
    let caps = json!({"workspace": {"configuration": true}});
    Harness::start_in(hooked(), caps, json!({}), json!(uri(root))).await
}

fn tdp(u: &str, text: &str, needle: &str, plus: u32) -> Value {
    let (l, c) = find(text, needle);
    json!({"textDocument": {"uri": u}, "position": pos(l, c + plus)})
}

const LIB: &str = "(* Observed-by: what another thread sees. *)
let obs2 = rfe | coe
";

const MODEL: &str = "\"test\"
include \"lib.cat\"
include \"cross.cat\"

(* Happens-before. *)
let hb = po | obs2 | fencerel(F)
let both = cross({hb}) | unknownx
let f(x) = x ; hb
acyclic hb as main
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn navigation_hover_symbols_tokens_and_rename_across_an_include() {
    let d = dir("lsp_cat_nav");
    std::fs::write(d.join("lib.cat"), LIB).unwrap();
    let model = d.join("model.cat");
    std::fs::write(&model, MODEL).unwrap();
    let u = uri(&model);
    let mut h = server(&d).await;
    h.open(&u, 1, MODEL).await;
    let diags = h.diagnostics(&u, 1).await;
    assert_eq!(diags.len(), 1, "{diags:#?}");
    assert_eq!(diags[0]["severity"], 2);
    assert!(diags[0]["message"]
        .as_str()
        .unwrap()
        .contains("unknown name “unknownx”"));
    let (l, c) = find(MODEL, "unknownx");
    assert_eq!(diags[0]["range"]["start"], pos(l, c));

    // Definition across the include, and into litmus's library.
    let def = h
        .request("textDocument/definition", tdp(&u, MODEL, "obs2 |", 0))
        .await;
    assert_eq!(def["uri"], uri(&d.join("lib.cat")));
    let (l, c) = find(LIB, "obs2");
    assert_eq!(def["range"]["start"], pos(l, c));
    let def = h
        .request("textDocument/definition", tdp(&u, MODEL, "cross({", 1))
        .await;
    assert!(
        def["uri"].as_str().unwrap().ends_with("/cross.cat"),
        "{def}"
    );
    assert!(!def["uri"].as_str().unwrap().starts_with(&uri(&d)), "{def}");
    let def = h
        .request("textDocument/definition", tdp(&u, MODEL, "lib.cat", 0))
        .await;
    assert_eq!(def["uri"], uri(&d.join("lib.cat")));
    // A parameter goes to its binding.
    let def = h
        .request("textDocument/definition", tdp(&u, MODEL, "x ; hb", 0))
        .await;
    assert_eq!(
        def["range"]["start"],
        pos(find(MODEL, "x)").0, find(MODEL, "x)").1)
    );

    // Hover: the definition and its comment.
    let hv = h
        .request("textDocument/hover", tdp(&u, MODEL, "obs2 |", 0))
        .await;
    let text = hv["contents"]["value"].as_str().unwrap();
    assert!(text.contains("let obs2 = rfe | coe"), "{text}");
    assert!(
        text.contains("Observed-by: what another thread sees."),
        "{text}"
    );
    assert!(text.contains("lib.cat:2"), "{text}");
    let hv = h
        .request("textDocument/hover", tdp(&u, MODEL, "po |", 0))
        .await;
    assert!(
        hv["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("supplied by"),
        "{hv}"
    );

    // References of hb: its definition and three uses, in this file.
    let refs = h
        .request("textDocument/references", json!({"textDocument": {"uri": u}, "position": pos(find(MODEL, "hb =").0, find(MODEL, "hb =").1), "context": {"includeDeclaration": true}}))
        .await;
    assert_eq!(refs.as_array().unwrap().len(), 4, "{refs:#}");
    // References of obs2 from its use: the definition in lib.cat and the use here.
    let refs = h
        .request("textDocument/references", json!({"textDocument": {"uri": u}, "position": pos(find(MODEL, "obs2").0, find(MODEL, "obs2").1), "context": {"includeDeclaration": true}}))
        .await;
    let files: Vec<&str> = refs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    assert_eq!(files.len(), 2, "{refs:#}");
    assert!(files.contains(&uri(&d.join("lib.cat")).as_str()));

    // Symbols: definitions and checks in order.
    let syms = h
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": u}}),
        )
        .await;
    let names: Vec<&str> = syms
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["hb", "both", "f", "acyclic main"]);

    // Semantic tokens: the comment (type 2) and the definition of hb (variable, declaration).
    let decoded: Vec<(u64, u64, u64, u64, u64)> = h
        .semantic_tokens(&u)
        .await
        .into_iter()
        .map(|[l, c, n, t, m]| (l, c, n, t, m))
        .collect();
    let (l, c) = find(MODEL, "(* Happens");
    assert!(
        decoded.contains(&(l as u64, c as u64, 21, 2, 0)),
        "{decoded:?}"
    );
    let (l, c) = find(MODEL, "hb =");
    assert!(
        decoded.contains(&(l as u64, c as u64, 2, 4, 1)),
        "{decoded:?}"
    );
    let (l, c) = find(MODEL, "f(x)");
    assert!(
        decoded.contains(&(l as u64, c as u64, 1, 6, 1)),
        "{decoded:?}"
    );

    // Rename hb: four edits; a library definition cannot be renamed.
    let r = h
        .request("textDocument/rename", json!({"textDocument": {"uri": u}, "position": pos(find(MODEL, "hb").0, find(MODEL, "hb").1), "newName": "happens"}))
        .await;
    assert_eq!(r["changes"][&u].as_array().unwrap().len(), 4, "{r:#}");
    let p = h
        .request("textDocument/prepareRename", tdp(&u, MODEL, "cross({", 1))
        .await;
    assert!(p.is_null(), "{p}");
    let bad = h
        .request_raw("textDocument/rename", json!({"textDocument": {"uri": u}, "position": pos(find(MODEL, "hb").0, find(MODEL, "hb").1), "newName": "let"}))
        .await;
    assert!(bad.get("error").is_some(), "{bad}");

    // A parse error, with its position; a missing include.
    let broken = MODEL
        .replace("let f(x) = x ; hb", "let f(x) = (x ; hb")
        .replace("lib.cat", "nowhere.cat");
    h.change_full(&u, 2, &broken).await;
    let diags = h.diagnostics(&u, 2).await;
    let errs: Vec<&Value> = diags.iter().filter(|d| d["severity"] == 1).collect();
    assert_eq!(errs.len(), 2, "{diags:#?}");
    assert!(errs.iter().any(|e| e["message"]
        .as_str()
        .unwrap()
        .contains("cannot include “nowhere.cat”")));
    let (l, _) = find(&broken, "acyclic");
    assert!(errs.iter().any(
        |e| e["message"].as_str().unwrap().starts_with("expected “)”")
            && e["range"]["start"]["line"] == l
    ));
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

const SB: &str = "AArch64 SB
{
0:X1=x; 0:X3=y;
1:X1=y; 1:X3=x;
}
 P0          | P1          ;
 MOV W0,#1   | MOV W0,#1   ;
 STR W0,[X1] | STR W0,[X1] ;
 LDR W2,[X3] | LDR W2,[X3] ;
exists (0:X2=0 /\\ 1:X2=0)
";

fn changed(v: &Value) -> Vec<(String, String, String)> {
    v["params"]["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["file"].as_str().unwrap().to_string(),
                c["before"].as_str().unwrap().to_string(),
                c["after"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saving_a_model_lists_the_tests_whose_verdict_changed_as_litmus_diff_does() {
    let d = dir("lsp_cat_recheck");
    let models = d.join("models");
    litmus::catmodel::builtin::write("aarch64", &models, false).unwrap();
    let tests = d.join("tests");
    std::fs::create_dir_all(&tests).unwrap();
    std::fs::write(tests.join("MP+dmb.sy+addr.litmus"), MP).unwrap();
    std::fs::write(tests.join("SB.litmus"), SB).unwrap();
    let model = models.join("aarch64.cat");
    let orig = std::fs::read_to_string(&model).unwrap();
    let weak = orig.replace(
        "acyclic obs | hob | lob | plob | dsbob as external",
        "acyclic obs | hob | plob | dsbob as external",
    );
    assert_ne!(orig, weak);
    std::fs::write(d.join("orig.cat.txt"), &orig).unwrap();

    let u = uri(&model);
    let mut h = server(&d).await;
    h.open(&u, 1, &orig).await;
    h.diagnostics(&u, 1).await;
    h.change_full(&u, 2, &weak).await;
    std::fs::write(&model, &weak).unwrap();
    h.save(&u).await;
    let n = h
        .wait_for("modelChanges", |m| m["method"] == "litmus/modelChanges")
        .await;
    assert_eq!(n["params"]["checked"], 2, "{n:#}");
    let got = changed(&n);
    let mp = tests.join("MP+dmb.sy+addr.litmus").display().to_string();
    assert_eq!(got, [(mp.clone(), "No".into(), "Ok".into())]);

    // `litmus diff` on the same two files says the same.
    let before = d.join("before.cat");
    std::fs::write(&before, &orig).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_litmus"))
        .args(["diff", "--json", "--cat"])
        .arg(&before)
        .arg("--cat")
        .arg(&model)
        .args([&mp, &tests.join("SB.litmus").display().to_string()])
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let cli: Vec<(String, String, String)> = doc["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["file"].as_str().unwrap().to_string(),
                c["before"].as_str().unwrap().to_string(),
                c["after"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(cli, got);

    // Saving the original back empties the list.
    h.change_full(&u, 3, &orig).await;
    std::fs::write(&model, &orig).unwrap();
    h.save(&u).await;
    let n = h
        .wait_for("modelChanges", |m| m["method"] == "litmus/modelChanges")
        .await;
    assert_eq!(changed(&n), []);
    assert_eq!(n["params"]["checked"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_write_model_command_writes_a_model_and_its_library_files() {
    let d = dir("lsp_cat_write");
    let mut h = server(&d).await;
    let target = d.join("models");
    let r = h
        .request(
            "workspace/executeCommand",
            json!({"command": "litmus.writeModel", "arguments": ["riscv", uri(&target)]}),
        )
        .await;
    let files: Vec<&str> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert_eq!(files.len(), 2, "{r}");
    assert_eq!(
        std::fs::read_to_string(target.join("riscv.cat")).unwrap(),
        litmus_engine::axiomatic::RISCV_CAT
    );
    assert!(target.join("stdlib.cat").is_file());
    let bad = h
        .request_raw(
            "workspace/executeCommand",
            json!({"command": "litmus.writeModel", "arguments": ["power", uri(&target)]}),
        )
        .await;
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no built-in model"),
        "{bad}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_file_of_herds_library_and_the_kernel_model_is_answered() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared");
    let dirs = [
        root.join("cat-corpus/herd-libdir"),
        root.join("conformance/linux/model"),
    ];
    let mut files = Vec::new();
    for d in &dirs {
        if !d.is_dir() {
            println!("SKIPPED: {} is absent", d.display());
            continue;
        }
        let mut todo = vec![d.clone()];
        while let Some(x) = todo.pop() {
            for e in std::fs::read_dir(&x).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    todo.push(p);
                } else if p.extension().is_some_and(|e| e == "cat" || e == "bell") {
                    files.push(p);
                }
            }
        }
    }
    if files.is_empty() {
        return;
    }
    files.sort();
    let mut h = server(&dirs[0]).await;
    let mut errors = 0;
    for p in &files {
        let text = std::fs::read_to_string(p).unwrap();
        let u = uri(p);
        h.open(&u, 1, &text).await;
        for d in h.diagnostics(&u, 1).await {
            if d["severity"] == 1 {
                errors += 1;
                println!("{}: {}", p.display(), d["message"]);
            }
        }
        let syms = h
            .request(
                "textDocument/documentSymbol",
                json!({"textDocument": {"uri": u}}),
            )
            .await;
        assert!(syms.is_array());
        h.request(
            "textDocument/semanticTokens/full",
            json!({"textDocument": {"uri": u}}),
        )
        .await;
        // Hover and definition on the file's first definition.
        let o = litmus_engine::cat::outline(&text);
        if let Some(def) = o.defs.first() {
            let before = &text[..def.span.start as usize];
            let line = before.matches('\n').count() as u32;
            let col = before.rsplit('\n').next().unwrap().encode_utf16().count() as u32;
            let at = json!({"textDocument": {"uri": u}, "position": pos(line, col)});
            h.request("textDocument/hover", at.clone()).await;
            h.request("textDocument/definition", at).await;
        }
        h.close(&u).await;
    }
    println!("{} files answered; {errors} error diagnostics", files.len());
    assert!(files.len() >= 100, "{}", files.len());
    assert_eq!(errors, 0, "every file parses and finds its includes");
}

/// litmus's own library files and built-in models, as `litmus model --write` writes them, open
/// without a diagnostic: the title line (`litmus-stdlib`) is not a use, `fold` is a built-in
/// function, `FW` a set the engine supplies (each was once an "unknown name" warning in the
/// written-out stdlib.cat, found by the browser test).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_library_and_builtin_models_open_without_diagnostics() {
    use litmus_engine::axiomatic as ax;
    let d = dir("lsp_cat_builtin");
    let models = [
        ("aarch64.cat", ax::AARCH64_CAT),
        ("riscv.cat", ax::RISCV_CAT),
        ("ppc.cat", ax::PPC_CAT),
        ("arm.cat", ax::ARM_CAT),
        ("sc.cat", ax::SC_CAT),
        ("x86tso.cat", ax::X86TSO_CAT),
        ("rc11.cat", ax::RC11_CAT),
    ];
    let files: Vec<(&str, &str)> = litmus_engine::cat::LIBRARY
        .into_iter()
        .chain(models)
        .collect();
    for (name, text) in &files {
        std::fs::write(d.join(name), text).unwrap();
    }
    let mut h = server(&d).await;
    for (name, text) in &files {
        let u = uri(&d.join(name));
        h.open(&u, 1, text).await;
        let diags = h.diagnostics(&u, 1).await;
        assert!(diags.is_empty(), "{name}: {diags:#?}");
    }
}
