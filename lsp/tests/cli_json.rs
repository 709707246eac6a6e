//! `--json`: the version-2 document of `docs/reference.md#json`, checked key by key on real runs.

mod cli_support;
use cli_support::*;
use serde_json::Value;

fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .map(|k| k.as_str())
        .collect()
}

fn assert_position(v: &Value) {
    for k in ["line", "col"] {
        assert!(
            v[k].as_u64().is_some_and(|n| n >= 1),
            "{k} must count from 1: {v}"
        );
    }
}

fn assert_schedule(s: &Value) {
    let steps = s
        .as_array()
        .unwrap_or_else(|| panic!("schedule is not an array: {s}"));
    for step in steps {
        assert!(
            step["thread"].as_str().is_some_and(|t| t.starts_with('P')),
            "{step}"
        );
        assert_position(step);
        assert!(step["action"].is_string(), "{step}");
        assert!(step["loc"].is_string() || step["loc"].is_null(), "{step}");
        assert!(step["value"].is_i64() || step["value"].is_null(), "{step}");
        assert!(step["buffered"].is_boolean(), "{step}");
    }
}

#[test]
fn sb_document_has_the_spec_shape_and_herd_counts() {
    let r = run(&["check", "--json", &example("sb.litmus")]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let doc = r.json();
    assert_eq!(keys(&doc), ["version", "files"]);
    assert_eq!(doc["version"], 2);
    let file = &doc["files"][0];
    assert!(file["path"].as_str().unwrap().ends_with("sb.litmus"));
    assert_eq!(file["name"], "SB");
    assert_eq!(file["diagnostics"], serde_json::json!([]));
    assert_eq!(keys(&file["results"]), ["sc", "tso", "pso"]);
    for model in ["sc", "tso", "pso"] {
        let m = &file["results"][model];
        for k in [
            "complete",
            "states",
            "condition",
            "violations",
            "witness",
            "stats",
        ] {
            assert!(m.get(k).is_some(), "{model} lacks {k}: {m}");
        }
        assert_eq!(m["complete"], true);
        for st in m["states"].as_array().unwrap() {
            assert_eq!(keys(st), ["P0:r0", "P1:r1", "x", "y"], "{st}");
            assert_eq!(st["x"], 1);
            assert_eq!(st["y"], 1);
        }
        assert_eq!(m["condition"]["kind"], "exists");
        assert_eq!(m["violations"], serde_json::json!([]));
        let stats = &m["stats"];
        assert_eq!(
            keys(stats),
            [
                "executions",
                "blocked",
                "states",
                "constraints",
                "solver_ms",
                "time_ms",
                "queries",
                "explored",
                "engine"
            ]
        );
        // `auto` (the default) names the engine of its portfolio that answered.
        assert!(
            ["exhaustive", "dpor", "mcr"].contains(&stats["engine"].as_str().unwrap()),
            "{stats}"
        );
        assert!(stats["executions"].as_u64().unwrap() >= 3);
        assert!(stats["time_ms"].is_f64() || stats["time_ms"].is_u64());
        assert_schedule(&m["witness"]);
    }
    let sc = &file["results"]["sc"];
    assert_eq!(sc["states"].as_array().unwrap().len(), 3);
    assert_eq!(
        sc["condition"],
        serde_json::json!({"kind": "exists", "holds": false, "positive": 0, "negative": 3})
    );
    assert_eq!(sc["witness"], serde_json::json!([]));
    let tso = &file["results"]["tso"];
    assert_eq!(tso["states"].as_array().unwrap().len(), 4);
    assert_eq!(
        tso["condition"],
        serde_json::json!({"kind": "exists", "holds": true, "positive": 1, "negative": 3})
    );
    let witness = tso["witness"].as_array().unwrap();
    assert!(
        witness
            .iter()
            .any(|s| s["action"] == "store" && s["buffered"] == true),
        "{witness:?}"
    );
    assert!(
        witness.iter().any(|s| s["action"] == "flush"),
        "{witness:?}"
    );
}

#[test]
fn violations_carry_kind_position_and_schedule() {
    let r = run(&[
        "check",
        "--json",
        "--model",
        "tso",
        "--engine",
        "exhaustive",
        &example("dekker.litmus"),
    ]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    let doc = r.json();
    let file = &doc["files"][0];
    assert_eq!(keys(&file["results"]), ["tso"]);
    let tso = &file["results"]["tso"];
    assert_eq!(tso["condition"], Value::Null, "no final condition");
    let v = &tso["violations"][0];
    assert_eq!(v["kind"], "assert");
    assert!(v["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert_position(v);
    assert_schedule(&v["schedule"]);
    assert!(!v["schedule"].as_array().unwrap().is_empty());
}

#[test]
fn several_files_give_one_document() {
    let r = run(&[
        "check",
        "--json",
        "--model",
        "sc",
        &example("sb.litmus"),
        &example("mp.litmus"),
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let doc = r.json();
    let names: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["SB", "MP"]);
}

/// `--first` with every engine: one violation with its schedule, `complete: false`, the key
/// `"stopped": "first-violation"` right after `complete`, exit 1; a model without violations
/// is explored to the end and has no `stopped` key.
#[test]
fn first_stops_each_model_at_its_first_violation() {
    for engine in ["mcr", "exhaustive", "dpor"] {
        let r = run(&[
            "check",
            "--json",
            "--first",
            "--engine",
            engine,
            &example("dekker.litmus"),
        ]);
        assert_eq!(r.status, 1, "{engine}: {}", r.stderr);
        let doc = r.json();
        let results = &doc["files"][0]["results"];
        let sc = &results["sc"];
        assert_eq!(sc["complete"], true, "{engine}");
        assert!(sc.get("stopped").is_none(), "{engine}: {sc}");
        for model in ["tso", "pso"] {
            let m = &results[model];
            assert_eq!(&keys(m)[..2], ["complete", "stopped"], "{engine} {model}");
            assert_eq!(m["complete"], false, "{engine} {model}");
            assert_eq!(m["stopped"], "first-violation", "{engine} {model}");
            let v = m["violations"].as_array().unwrap();
            assert_eq!(v.len(), 1, "{engine} {model}: {v:?}");
            assert_schedule(&v[0]["schedule"]);
        }
    }
    let r = run(&[
        "check",
        "--first",
        "--engine",
        "dpor",
        "--model",
        "tso",
        &example("dekker.litmus"),
    ]);
    assert_eq!(r.status, 1);
    assert!(
        r.stdout
            .contains("stopped at the first violation (--first)"),
        "{}",
        r.stdout
    );
}
