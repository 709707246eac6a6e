//! `litmus/trace` and the per-model verdict lenses (issue 31): every model's counterexample is
//! reachable, the trace rows carry each step's buffers and memory, and the graph has its edges.

mod lsp_harness;

use lsp_harness::*;
use serde_json::{json, Value};

const D: &str = "file:///t/dekker.litmus";
const S: &str = "file:///t/sb.litmus";
const DEKKER: &str = include_str!("../../tests/litmus/dekker.litmus");
const SB: &str = include_str!("../../tests/litmus/sb.litmus");

async fn verified(text: &str, uri: &str) -> Harness {
    let mut h = Harness::default_with(hooked(), json!({})).await;
    h.open(uri, 1, text).await;
    h.status(uri, "done").await;
    h
}

fn arr(v: &Value) -> &Vec<Value> {
    v.as_array().unwrap_or_else(|| panic!("not an array: {v}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_failing_models_lens_opens_its_own_counterexample() {
    let mut h = verified(DEKKER, D).await;
    let lenses = h
        .request("textDocument/codeLens", json!({"textDocument": {"uri": D}}))
        .await;
    let (l, c) = find(DEKKER, "forall");
    let on_cond: Vec<&Value> = arr(&lenses)
        .iter()
        .filter(|x| x["range"]["start"]["line"] == l)
        .collect();
    let titles: Vec<&str> = on_cond
        .iter()
        .map(|x| x["command"]["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["SC ✓", "TSO ✗", "PSO ✗", "Show schedule"]);
    assert_eq!(on_cond[0]["command"]["command"], "");
    for (lens, model) in [(on_cond[1], "tso"), (on_cond[2], "pso")] {
        let cmd = &lens["command"];
        assert_eq!(cmd["command"], "litmus.showSchedule");
        assert_eq!(cmd["arguments"], json!([D, l, c, model]));
        let s = h
            .request(
                "workspace/executeCommand",
                json!({"command": "litmus.showSchedule", "arguments": cmd["arguments"]}),
            )
            .await;
        assert_eq!(s["model"], model, "{s}");
        assert_eq!(s["kind"], "condition");
        assert!(arr(&s["steps"]).len() >= 8, "{s}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trace_of_sb_under_tso_shows_the_waiting_stores_and_herds_graph() {
    let mut h = verified(SB, S).await;
    let t = h
        .request("litmus/trace", json!({"uri": S, "model": "tso"}))
        .await;
    assert_eq!(t["model"], "tso");
    assert_eq!(t["kind"], "witness");
    assert_eq!(t["threads"], json!(["P0", "P1"]));
    assert_eq!(t["locations"], json!(["x", "y"]));
    // SC has no counterexample or witness; TSO and PSO have a witness each.
    let choices: Vec<(String, String)> = arr(&t["choices"])
        .iter()
        .map(|c| {
            (
                c["model"].as_str().unwrap().into(),
                c["kind"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        choices,
        [
            ("tso".into(), "witness".into()),
            ("pso".into(), "witness".into())
        ]
    );
    let rows = arr(&t["rows"]);
    assert!(rows.len() >= 6, "{t}");
    // The later of the two loads reads 0 while the other thread's store waits in its buffer.
    let loads: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i]["action"] == "load")
        .collect();
    assert_eq!(loads.len(), 2);
    let i = loads[1];
    let reader = rows[i]["thread"].as_u64().unwrap() as usize;
    let before = &rows[i - 1]["after"];
    let waiting = arr(&before["buffers"][1 - reader]);
    assert_eq!(waiting.len(), 1, "{before}");
    assert_eq!(waiting[0]["loc"], rows[i]["loc"]);
    assert_eq!(waiting[0]["value"], 1);
    assert!(waiting[0]["range"]["start"]["line"].is_u64());
    assert_eq!(rows[i]["value"], 0);
    assert!(
        rows[i]["label"]
            .as_str()
            .unwrap()
            .contains("still buffered"),
        "{}",
        rows[i]
    );
    // Each row says where its instruction is.
    let (sl, _) = find(SB, "x = 1");
    let store_x = rows
        .iter()
        .find(|r| r["action"] == "store" && r["loc"] == "x")
        .unwrap();
    assert_eq!(store_x["range"]["start"]["line"], sl);
    assert_eq!(store_x["text"], "x = 1;");
    // The final state, and memory after the last step.
    assert_eq!(t["end"]["end"], "final");
    assert!(
        arr(&t["end"]["state"]).contains(&json!(["P0:r0", 0])),
        "{}",
        t["end"]
    );
    assert_eq!(
        rows.last().unwrap()["after"]["memory"],
        json!([["x", 1], ["y", 1]])
    );
    // The graph: both reads from the initial writes, fr to the other thread's store.
    let g = &t["graph"];
    let nodes = arr(&g["nodes"]);
    let label = |i: &Value| {
        nodes[i.as_u64().unwrap() as usize]["label"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let mut fr: Vec<(String, String)> = arr(&g["edges"])
        .iter()
        .filter(|e| e["kind"] == "fr")
        .map(|e| (label(&e["from"]), label(&e["to"])))
        .collect();
    fr.sort();
    assert_eq!(
        fr,
        [
            ("Rx=0".into(), "Wx=1".into()),
            ("Ry=0".into(), "Wy=1".into())
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trace_selects_by_model_and_index_and_says_when_there_is_nothing() {
    let mut h = verified(SB, S).await;
    let pso = h
        .request(
            "litmus/trace",
            json!({"uri": S, "model": "pso", "violation": 0}),
        )
        .await;
    assert_eq!(pso["model"], "pso");
    // No default model given: the first with something to show.
    let first = h.request("litmus/trace", json!({"uri": S})).await;
    assert_eq!(first["model"], "tso");
    let none = h
        .request("litmus/trace", json!({"uri": S, "model": "sc"}))
        .await;
    assert_eq!(none, Value::Null);
    let past = h
        .request(
            "litmus/trace",
            json!({"uri": S, "model": "tso", "violation": 5}),
        )
        .await;
    assert_eq!(past, Value::Null);
    let bad = h
        .request_raw("litmus/trace", json!({"uri": S, "model": "arm"}))
        .await;
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown model"),
        "{bad}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hover_links_each_models_trace_and_a_position_picks_the_finding() {
    let mut h = verified(DEKKER, D).await;
    let (l, c) = find(DEKKER, "forall");
    let r = h
        .request(
            "textDocument/hover",
            json!({"textDocument": {"uri": D}, "position": pos(l, c + 1)}),
        )
        .await;
    let md = r["contents"]["value"].as_str().unwrap();
    // `litmus.showTrace ["file:///t/dekker.litmus","tso",0]`, percent-encoded.
    let tso = "[Trace under TSO](command:litmus.showTrace?%5B%22file%3A%2F%2F%2Ft%2Fdekker.litmus%22%2C%22tso%22%2C0%5D)";
    assert!(md.contains(tso), "{md}");
    assert!(md.contains("[Trace under PSO]("), "{md}");
    assert!(!md.contains("[Trace under SC]"), "{md}");
    let t = h
        .request(
            "litmus/trace",
            json!({"uri": D, "model": "pso", "position": pos(l, c)}),
        )
        .await;
    assert_eq!(t["model"], "pso");
    assert_eq!(t["kind"], "condition");
    assert_eq!(t["end"]["end"], "final");
    assert!(
        arr(&t["end"]["state"]).contains(&json!(["cnt", 1])),
        "{}",
        t["end"]
    );
}

/// A witness under TSO that needs the kinds of step whose text the clients once wrote
/// themselves (Neovim had no words for lock and unlock): a buffered store flushed before a
/// lock, a read-modify-write, an unlock.
const STEPS: &str = "litmus Steps
shared x = 0, y = 0, f = 0;
mutex m;
thread P0 {
  x = 1;
  lock(m);
  r0 = fetch_add(y, 2);
  unlock(m);
  f = 1;
}
thread P1 {
  await(f == 1);
  r1 = y;
}
exists (P1:r1 == 2)
";

/// An await is a step of its own when its condition fails at run time.
const AWAIT: &str = "litmus Await
shared x = 0;
thread P0 {
  x = 1;
}
thread P1 {
  r0 = x;
  await(10 / r0 == 10);
}
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_writes_every_steps_text_for_locks_rmws_flushes_and_awaits() {
    let uri = "file:///t/steps.litmus";
    let mut h = verified(STEPS, uri).await;
    let t = h
        .request("litmus/trace", json!({"uri": uri, "model": "tso"}))
        .await;
    assert_eq!(t["kind"], "witness", "{t}");
    let rows = arr(&t["rows"]);
    let row = |action: &str| {
        rows.iter()
            .find(|r| r["action"] == action)
            .unwrap_or_else(|| panic!("no {action} step in {t}"))
    };
    let text = |r: &Value| r["text"].as_str().unwrap().to_string();
    // (cell, label) of each step, as the trace view's column and its sentence.
    let said = |r: &Value| (r["cell"].clone(), r["label"].clone());
    assert_eq!(said(row("lock")), (json!("lock m"), json!("P0 locks m")));
    assert_eq!(
        said(row("unlock")),
        (json!("unlock m"), json!("P0 unlocks m"))
    );
    // The graph names those events as the table does (it said `Lm`, `Um`).
    let graph_label = |kind: &str| {
        arr(&t["graph"]["nodes"])
            .iter()
            .find(|n| n["kind"] == kind)
            .map(|n| n["label"].clone())
    };
    assert_eq!(graph_label("lock"), Some(json!("lock m")), "{t}");
    assert_eq!(graph_label("unlock"), Some(json!("unlock m")), "{t}");
    let flush_x = rows
        .iter()
        .find(|r| r["action"] == "flush" && r["loc"] == "x")
        .unwrap_or_else(|| panic!("no flush of x in {t}"));
    assert_eq!(
        said(flush_x),
        (
            json!("flush x = 1"),
            json!("P0's buffered store x = 1 reaches memory")
        )
    );
    let rmw = row("rmw");
    assert!(text(rmw).starts_with("r0 = fetch_add(y, 2)"), "{rmw}");
    assert_eq!(
        said(rmw),
        (
            json!(format!("{} (old 0)", text(rmw))),
            json!(format!(
                "P0 atomically updates y (`{}`), old value 0",
                text(rmw)
            ))
        )
    );
    // A buffered store's column says where it went.
    let store_x = rows
        .iter()
        .find(|r| r["action"] == "store" && r["loc"] == "x")
        .unwrap();
    assert_eq!(store_x["cell"], "x = 1 → buffer");
    // One rendering: `litmus.showSchedule` says the same sentences as the trace.
    let s = h
        .request(
            "workspace/executeCommand",
            json!({"command": "litmus.showSchedule", "arguments": [uri, 0, 0, "tso"]}),
        )
        .await;
    let sched: Vec<&Value> = arr(&s["steps"]).iter().map(|st| &st["label"]).collect();
    let trace: Vec<&Value> = rows.iter().map(|r| &r["label"]).collect();
    assert_eq!(sched, trace);

    let uri = "file:///t/await.litmus";
    h.open(uri, 1, AWAIT).await;
    h.status(uri, "done").await;
    let t = h
        .request("litmus/trace", json!({"uri": uri, "model": "tso"}))
        .await;
    assert_eq!(t["kind"], "error", "{t}");
    let wait = arr(&t["rows"])
        .iter()
        .find(|r| r["action"] == "await")
        .unwrap_or_else(|| panic!("no await step in {t}"));
    assert_eq!(wait["text"], "await(10 / r0 == 10);");
    assert_eq!(
        said(wait),
        (
            json!("await(10 / r0 == 10);"),
            json!("P1 waits at `await(10 / r0 == 10);`")
        )
    );
}
