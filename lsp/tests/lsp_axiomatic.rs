//! The language server checks herd's AArch64, RISC-V, POWER and ARMv7 tests with the
//! axiomatic engine on open and save: the verdict (herd's `Ok`/`No`, allowed/forbidden, the
//! model) as a diagnostic, a lens and a hover at the condition, and `litmus/axiomatic`'s
//! execution graph: for a forbidden state the failed check and a cycle whose every edge is
//! checked against the execution's own po, rf and co; for an allowed one a witness whose reads
//! give the condition's values. Message passing is the test: forbidden with a barrier and
//! acquire (AArch64), fences (RISC-V), `lwsync` and an address dependency (POWER), allowed
//! without (AArch64, RISC-V) or with a control dependency alone (ARMv7).

mod lsp_harness;

use lsp_harness::*;
use serde_json::{json, Value};

const MP_ARM_DMB: &str = "AArch64 MP+dmb.sy+ldar\n{ 0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x; }\n P0          | P1           ;\n MOV W0,#1   | LDAR W0,[X1] ;\n STR W0,[X1] | LDR W2,[X3]  ;\n DMB SY      |              ;\n STR W0,[X3] |              ;\nexists (1:X0=1 /\\ 1:X2=0)\n";
const MP_ARM: &str = "AArch64 MP\n{ 0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x; }\n P0          | P1          ;\n MOV W0,#1   | LDR W0,[X1] ;\n STR W0,[X1] | LDR W2,[X3] ;\n STR W0,[X3] |             ;\nexists (1:X0=1 /\\ 1:X2=0)\n";
const MP_RV_FENCES: &str = "RISCV MP+fence.w.w+fence.r.r\n{ 0:x5=1; 0:x6=x; 0:x7=y; 1:x6=y; 1:x8=x; }\n P0          | P1          ;\n sw x5,0(x6) | lw x5,0(x6) ;\n fence w,w   | fence r,r   ;\n sw x5,0(x7) | lw x7,0(x8) ;\nexists (1:x5=1 /\\ 1:x7=0)\n";
const MP_RV: &str = "RISCV MP\n{ 0:x5=1; 0:x6=x; 0:x7=y; 1:x6=y; 1:x8=x; }\n P0          | P1          ;\n sw x5,0(x6) | lw x5,0(x6) ;\n sw x5,0(x7) | lw x7,0(x8) ;\nexists (1:x5=1 /\\ 1:x7=0)\n";

async fn checked(h: &mut Harness, uri: &str, text: &str) -> (Vec<Value>, Value) {
    h.open(uri, 1, text).await;
    let st = h.status(uri, "done").await;
    // The status bar's verdict is the architecture's model's, never SC/TSO/PSO's.
    let key = match text.split_whitespace().next() {
        Some("AArch64") => "aarch64",
        Some("PPC") => "ppc",
        Some("ARM") => "arm",
        _ => "riscv",
    };
    assert_eq!(
        st["verdicts"]
            .as_object()
            .map(|v| v.keys().collect::<Vec<_>>()),
        Some(vec![&key.to_string()]),
        "{st}"
    );
    assert!(
        st["tooltip"]
            .as_str()
            .is_some_and(|t| t.contains(&format!("{key}.cat"))),
        "{st}"
    );
    let d = h.last_diagnostics(uri).unwrap();
    let diags = d["diagnostics"].as_array().unwrap().clone();
    let view = h.request("litmus/axiomatic", json!({"uri": uri})).await;
    // ✗ only for a `~exists` or `forall` that does not hold; an `exists` is answered Ok/No.
    let fails = view["herd"] == "No" && view["quantifier"] != "exists";
    let want = if fails { "fails" } else { "holds" };
    assert_eq!(st["verdicts"][key], want, "{st}");
    if view["quantifier"] == "exists" {
        let herd = view["herd"].as_str().unwrap().to_lowercase();
        assert_eq!(st["exists"][key], json!(herd), "{st}");
    }
    (diags, view)
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

fn node<'a>(x: &'a Value, id: &Value) -> &'a Value {
    x["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == *id)
        .unwrap()
}

/// The location (its initial write) and position of write `w` in coherence order.
fn co_rank(x: &Value, w: &Value) -> (Value, usize) {
    x["co"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|o| {
            let o = o.as_array().unwrap();
            o.iter().position(|e| e == w).map(|k| (o[0].clone(), k))
        })
        .unwrap_or_else(|| panic!("{w} is in no co order: {x}"))
}

/// Every cycle edge joins consecutive events of the check's cycle and holds in the execution:
/// `po` in one thread forwards, `rf` from a write to a read of its value, `fr` from a read to a
/// write coherence-after the one it read.
fn assert_real_cycle(x: &Value) {
    let cyc: Vec<Value> = x["check"]["cycle"].as_array().unwrap().clone();
    assert!(cyc.len() >= 2, "{x}");
    let edges: Vec<&Value> = x["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["cycle"] == true)
        .collect();
    assert_eq!(edges.len(), cyc.len(), "one edge per step: {x}");
    let rf: Vec<(Value, Value)> = serde_json::from_value(x["rf"].clone()).unwrap();
    for (k, a) in cyc.iter().enumerate() {
        let b = &cyc[(k + 1) % cyc.len()];
        let e = edges
            .iter()
            .find(|e| e["from"] == *a && e["to"] == *b)
            .unwrap_or_else(|| panic!("no cycle edge {a}->{b}: {x}"));
        let (na, nb) = (node(x, a), node(x, b));
        match e["kind"].as_str().unwrap() {
            "po" => {
                assert_eq!(na["thread"], nb["thread"], "{e}");
                assert!(na["po"].as_u64() < nb["po"].as_u64(), "{e}");
            }
            "rf" => {
                assert!(rf.contains(&(a.clone(), b.clone())), "{e}");
                assert_eq!(
                    (na["kind"].as_str(), nb["kind"].as_str()),
                    (Some("W"), Some("R"))
                );
                assert_eq!((&na["loc"], &na["value"]), (&nb["loc"], &nb["value"]));
            }
            "fr" => {
                assert_eq!(
                    (na["kind"].as_str(), nb["kind"].as_str()),
                    (Some("R"), Some("W"))
                );
                let (w, _) = rf.iter().find(|(_, r)| r == a).expect("the read reads");
                let (cw, kw) = co_rank(x, w);
                let (cb, kb) = co_rank(x, b);
                assert_eq!(cw, cb, "same location");
                assert!(kw < kb, "fr goes to a later write: {e}");
            }
            k => panic!("unexpected cycle edge kind {k}: {x}"),
        }
    }
}

/// The witness reads: the final values of the condition's registers equal the values wanted.
fn assert_witness(x: &Value, want: &[(&str, i64)]) {
    assert_eq!(x["role"], "witness");
    assert!(x["check"].is_null());
    let state: Vec<(String, i64)> = serde_json::from_value(x["state"].clone()).unwrap();
    for (k, v) in want {
        assert!(state.contains(&(k.to_string(), *v)), "{k}={v} in {state:?}");
    }
    // Each read's value comes from the write its rf edge names.
    for e in x["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "rf")
    {
        let (w, r) = (node(x, &e["from"]), node(x, &e["to"]));
        assert_eq!((&w["loc"], &w["value"]), (&r["loc"], &r["value"]), "{e}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn aarch64_forbidden_with_its_cycle_and_allowed_with_a_witness() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    let a = "file:///t/mp-dmb.litmus";
    let (diags, v) = checked(&mut h, a, MP_ARM_DMB).await;
    assert_eq!(v["herd"], "No", "{v}");
    assert_eq!(v["verdict"], "forbidden");
    assert_eq!(v["arch"], "AArch64");
    assert!(v["model"].as_str().unwrap().contains("aarch64.cat"));
    let x = &v["execution"];
    assert_eq!(x["role"], "forbidden");
    assert_eq!(x["check"]["kind"], "acyclic");
    assert_real_cycle(x);
    let check = format!("acyclic {}", x["check"]["name"].as_str().unwrap());
    // An exists answered No is information, not an error; it names the check and the cycle.
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["severity"], 3);
    let msg = diags[0]["message"].as_str().unwrap();
    assert!(
        msg.contains("No: the condition's state is forbidden"),
        "{msg}"
    );
    assert!(msg.contains(&format!("forbidden by {check}: e")), "{msg}");
    // Program-order steps named by what orders them, as herd names it: the barrier on P0, the
    // acquire on P1 (never a bare `-po->`).
    assert!(
        msg.contains(" -dmb.sy-> ") && msg.contains(" -[A];po-> ") && !msg.contains("-po->"),
        "{msg}"
    );
    let (lenses, md) = lens_and_hover(&mut h, a, MP_ARM_DMB).await;
    assert_eq!(lenses.len(), 1, "{lenses:?}");
    assert!(
        lenses[0].starts_with("AArch64 No: forbidden (acyclic"),
        "{lenses:?}"
    );
    assert!(md.contains("Observation MP+dmb.sy+ldar Never 0"), "{md}");
    assert!(md.contains(&format!("Forbidden by `{check}")), "{md}");
    assert!(md.contains("command:litmus.showAxiomatic"), "{md}");

    let b = "file:///t/mp.litmus";
    let (diags, v) = checked(&mut h, b, MP_ARM).await;
    assert_eq!(
        (&v["herd"], &v["verdict"]),
        (&json!("Ok"), &json!("allowed"))
    );
    assert_witness(&v["execution"], &[("1:X0", 1), ("1:X2", 0)]);
    assert_eq!(diags[0]["severity"], 3);
    assert!(v["text"][0]
        .as_str()
        .unwrap()
        .starts_with("Ok: the condition's state is allowed"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn riscv_forbidden_with_its_cycle_and_allowed_with_a_witness() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    let a = "file:///t/mp-fences.litmus";
    let (diags, v) = checked(&mut h, a, MP_RV_FENCES).await;
    assert_eq!(
        (&v["herd"], &v["verdict"]),
        (&json!("No"), &json!("forbidden")),
        "{v}"
    );
    assert_eq!(v["arch"], "RISCV");
    assert!(v["model"].as_str().unwrap().contains("riscv.cat"));
    assert_real_cycle(&v["execution"]);
    assert!(diags[0]["message"]
        .as_str()
        .unwrap()
        .contains("forbidden by acyclic"));
    // The fences are events of the graph.
    let fences = v["execution"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["kind"] == "F")
        .count();
    assert_eq!(fences, 2);

    let b = "file:///t/mp-rv.litmus";
    let (_, v) = checked(&mut h, b, MP_RV).await;
    assert_eq!(
        (&v["herd"], &v["verdict"]),
        (&json!("Ok"), &json!("allowed"))
    );
    assert_witness(&v["execution"], &[("1:x5", 1), ("1:x7", 0)]);
    let (lenses, _) = lens_and_hover(&mut h, b, MP_RV).await;
    assert!(lenses[0].starts_with("RISCV Ok: allowed"), "{lenses:?}");
}

/// A `~exists` whose state is reachable is an error, and saving after an edit checks the new
/// program: adding the barrier makes it hold.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn save_checks_again() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    let u = "file:///t/mp-not.litmus";
    let not = MP_ARM.replace("exists", "~exists");
    let (diags, v) = checked(&mut h, u, &not).await;
    assert_eq!(
        (&v["herd"], &v["verdict"]),
        (&json!("No"), &json!("allowed"))
    );
    assert_eq!(diags[0]["severity"], 1, "{diags:?}");
    let fixed = MP_ARM_DMB.replace("exists", "~exists");
    h.change_full(u, 2, &fixed).await;
    h.save(u).await;
    h.status(u, "done").await;
    let v = h.request("litmus/axiomatic", json!({"uri": u})).await;
    assert_eq!(
        (&v["herd"], &v["verdict"]),
        (&json!("Ok"), &json!("forbidden")),
        "{v}"
    );
    let d = h.last_diagnostics(u).unwrap();
    assert_eq!(d["diagnostics"][0]["severity"], 3, "{d}");
}

/// The real engine, except that the axiomatic check of a test named `Slow…` waits until it is
/// told to stop, and says so.
struct StopEngine(std::sync::mpsc::Sender<&'static str>);

impl litmus::server::engine::Engine for StopEngine {
    fn parse(
        &self,
        text: &str,
        old: Option<&tree_sitter::Tree>,
    ) -> litmus::server::engine::ParseOut {
        litmus::server::engine::RealEngine.parse(text, old)
    }
    fn check(
        &self,
        test: &litmus_engine::ast::Test,
        model: litmus_engine::Model,
        opts: &litmus_engine::CheckOptions,
        ctl: &litmus_engine::Control,
    ) -> litmus_engine::ModelReport {
        litmus::server::engine::RealEngine.check(test, model, opts, ctl)
    }
    fn evaluate_condition(
        &self,
        test: &litmus_engine::ast::Test,
        states: &[litmus_engine::report::FinalState],
    ) -> Option<litmus_engine::report::ConditionResult> {
        litmus::server::engine::RealEngine.evaluate_condition(test, states)
    }
    fn axiomatic(
        &self,
        text: &str,
        stop: &dyn Fn() -> bool,
    ) -> Result<litmus::server::engine::AxOut, litmus::server::engine::AxFail> {
        if text.contains(" Slow") {
            let _ = self.0.send("started");
            while !stop() {
                std::thread::yield_now();
            }
            let _ = self.0.send("stopped");
        }
        litmus::server::engine::RealEngine.axiomatic(text, stop)
    }
}

/// A save while the check runs cancels it: the running check is told to stop, and the new
/// program's answer is the one shown.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_check_cancels_the_running_one() {
    let (tx, rx) = std::sync::mpsc::channel();
    let mut h = Harness::default_with(std::sync::Arc::new(StopEngine(tx)), json!({})).await;
    let u = "file:///t/slow.litmus";
    let slow = MP_ARM.replace("AArch64 MP", "AArch64 Slow");
    h.open(u, 1, &slow).await;
    let rx = tokio::task::spawn_blocking(move || {
        assert_eq!(rx.recv().unwrap(), "started");
        rx
    })
    .await
    .unwrap();
    h.change_full(u, 2, MP_ARM_DMB).await;
    h.save(u).await;
    let rx = tokio::task::spawn_blocking(move || {
        assert_eq!(rx.recv().unwrap(), "stopped");
        rx
    })
    .await
    .unwrap();
    h.status(u, "done").await;
    let v = h.request("litmus/axiomatic", json!({"uri": u})).await;
    assert_eq!(
        (&v["test"], &v["herd"]),
        (&json!("MP+dmb.sy+ldar"), &json!("No")),
        "{v}"
    );
    drop(rx);
}

const MP_PPC: &str = "PPC MP+lwsync+addr\n{ 0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x; }\n P0           | P1            ;\n li r1,1      | lwz r1,0(r2)  ;\n stw r1,0(r2) | xor r3,r1,r1  ;\n lwsync       | lwzx r5,r3,r4 ;\n stw r1,0(r4) |               ;\nexists (1:r1=1 /\\ 1:r5=0)\n";
const MP_ARMV7: &str = "ARM MP+dmb+ctrl\n{ %x0=x; %y0=y; %y1=y; %x1=x; }\n P0           | P1           ;\n MOV R0,#1    | LDR R1,[%y1] ;\n STR R0,[%x0] | CMP R1,R1    ;\n DMB          | BNE L0       ;\n STR R0,[%y0] | L0:          ;\n              | LDR R5,[%x1] ;\nexists (1:R1=1 /\\ 1:R5=0)\n";

/// POWER and ARMv7 as AArch64: the verdict under the project's model, the lens and hover at
/// the condition, the execution graph, and the hover of a mnemonic.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn power_and_armv7_in_the_editor() {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    let a = "file:///t/mp-lwsync-addr.litmus";
    let (diags, v) = checked(&mut h, a, MP_PPC).await;
    assert_eq!(
        (&v["herd"], &v["verdict"], &v["arch"]),
        (&json!("No"), &json!("forbidden"), &json!("PPC")),
        "{v}"
    );
    assert!(v["model"].as_str().unwrap().contains("ppc.cat"), "{v}");
    assert_eq!(v["execution"]["role"], "forbidden");
    let fences = v["execution"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["kind"] == "F")
        .count();
    assert_eq!(fences, 1, "the lwsync is an event of the graph");
    assert_eq!(diags[0]["severity"], 3, "{diags:?}");
    let (lenses, md) = lens_and_hover(&mut h, a, MP_PPC).await;
    assert!(lenses[0].starts_with("PPC No: forbidden"), "{lenses:?}");
    assert!(md.contains("Observation MP+lwsync+addr Never 0"), "{md}");
    let (l, c) = find(MP_PPC, "lwsync ");
    let r = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": a}, "position": pos(l, c + 1)}),
        )
        .await;
    let md = r["contents"]["value"].as_str().unwrap_or("");
    assert!(md.contains("**lwsync**: lightweight barrier"), "{md}");

    let b = "file:///t/mp-dmb-ctrl.litmus";
    let (_, v) = checked(&mut h, b, MP_ARMV7).await;
    assert_eq!(
        (&v["herd"], &v["verdict"], &v["arch"]),
        (&json!("Ok"), &json!("allowed"), &json!("ARM")),
        "{v}"
    );
    assert!(v["model"].as_str().unwrap().contains("arm.cat"), "{v}");
    assert_witness(&v["execution"], &[("1:R1", 1), ("1:R5", 0)]);
    let (lenses, _) = lens_and_hover(&mut h, b, MP_ARMV7).await;
    assert!(lenses[0].starts_with("ARM Ok: allowed"), "{lenses:?}");
}
