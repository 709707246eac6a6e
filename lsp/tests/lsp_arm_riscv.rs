//! The language server on herd's `AArch64` and `RISCV` dialects: no error diagnostics on a
//! supported test, one per instruction outside the subset (at its mnemonic), the threads as
//! document symbols, a one-line hover on each mnemonic, mnemonics and registers in the
//! semantic tokens, and the axiomatic engine's verdict.

mod lsp_harness;

use lsp_harness::*;
use serde_json::{json, Value};

const A: &str = "file:///t/mp-arm.litmus";
const MP_ARM: &str = "AArch64 MP+dmb.sy+ldar\n{ 0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x; }\n P0          | P1           ;\n MOV W0,#1   | LDAR W0,[X1] ;\n STR W0,[X1] | LDR W2,[X3]  ;\n DMB SY      |              ;\n STR W0,[X3] |              ;\nexists (1:X0=1 /\\ 1:X2=0)\n";

const R: &str = "file:///t/mp-riscv.litmus";
const MP_RISCV: &str = "RISCV MP\n{ 0:x5=1; 0:x6=x; 0:x7=y; 1:x6=y; 1:x8=x; }\n P0          | P1             ;\n sw x5,0(x6) | lw.aq x5,0(x6) ;\n fence w,w   | amocas.w x9,x5,(x8) ;\n sw x5,0(x7) | lw x7,0(x8)    ;\nexists (1:x5=1 /\\ 1:x7=0)\n";

async fn hover(h: &mut Harness, uri: &str, text: &str, needle: &str) -> String {
    let (l, c) = find(text, needle);
    let r = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri}, "position": pos(l, c + 1)}),
        )
        .await;
    r["contents"]["value"].as_str().unwrap_or("").to_string()
}

async fn thread_symbols(h: &mut Harness, uri: &str) -> Vec<String> {
    let syms = h
        .request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    syms[0]["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect()
}

/// The semantic tokens as (line, column, length, type).
async fn tokens(h: &mut Harness, uri: &str) -> Vec<(u64, u64, u64, u64)> {
    h.semantic_tokens(uri)
        .await
        .into_iter()
        .map(|[l, c, n, t, _]| (l, c, n, t))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aarch64_in_the_editor() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    h.open(A, 1, MP_ARM).await;
    h.status(A, "done").await;
    let d = h.last_diagnostics(A).unwrap();
    let diags = d["diagnostics"].as_array().unwrap();
    assert!(diags.iter().all(|x| x["severity"] != 1), "no errors: {d}");
    // The axiomatic engine answers (`lsp_axiomatic.rs` tests what it says).
    assert!(
        diags.iter().any(|x| x["message"]
            .as_str()
            .unwrap_or("")
            .contains("the condition's state is forbidden under aarch64.cat")),
        "{d}"
    );
    let syms = thread_symbols(&mut h, A).await;
    assert_eq!(syms, ["x", "y", "P0", "P1", "exists"]);
    let md = hover(&mut h, A, MP_ARM, "LDAR").await;
    assert!(md.contains("**LDAR**: load-acquire"), "{md}");
    let md = hover(&mut h, A, MP_ARM, "DMB").await;
    assert!(md.contains("data memory barrier"), "{md}");
    // `LDAR` is a keyword (0), `W0` after it a register (5).
    let (l, c) = find(MP_ARM, "LDAR");
    let toks = tokens(&mut h, A).await;
    assert!(toks.contains(&(l as u64, c as u64, 4, 0)), "{toks:?}");
    assert!(toks.contains(&(l as u64, c as u64 + 5, 2, 5)), "{toks:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn riscv_in_the_editor() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    h.open(R, 1, MP_RISCV).await;
    let diags = h.diagnostics(R, 1).await;
    let errors: Vec<&Value> = diags.iter().filter(|x| x["severity"] == 1).collect();
    assert_eq!(errors.len(), 1, "{diags:?}");
    let (l, c) = find(MP_RISCV, "amocas.w");
    assert_eq!(errors[0]["range"]["start"], pos(l, c), "{diags:?}");
    assert_eq!(errors[0]["range"]["end"], pos(l, c + 8), "{diags:?}");
    assert!(errors[0]["message"]
        .as_str()
        .unwrap()
        .contains("outside the supported RISC-V subset"));
    // Fixed: no error, and the hover and symbols answer.
    let fixed = MP_RISCV.replace("amocas.w x9,x5,(x8)", "amoswap.w x9,x5,(x8)");
    h.change_full(R, 2, &fixed).await;
    let diags = h.diagnostics(R, 2).await;
    assert!(diags.iter().all(|x| x["severity"] != 1), "{diags:?}");
    let syms = thread_symbols(&mut h, R).await;
    assert_eq!(syms, ["x", "y", "P0", "P1", "exists"]);
    let md = hover(&mut h, R, &fixed, "lw.aq").await;
    assert!(
        md.contains("**lw.aq**: load a word, sign-extended, acquire"),
        "{md}"
    );
    let md = hover(&mut h, R, &fixed, "amoswap").await;
    assert!(md.contains("atomic swap"), "{md}");
    let (l, c) = find(&fixed, "fence");
    let toks = tokens(&mut h, R).await;
    assert!(toks.contains(&(l as u64, c as u64, 5, 0)), "{toks:?}");
}
