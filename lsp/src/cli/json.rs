//! `--json`: the version-1 document of spec §5. Every conversion from engine values to JSON
//! lives here, so the document's shape is defined in one place.
//!
//! Positions are 1-based lines and columns in characters ([`LineIndex`]). Keys beyond the
//! spec's (`end_line`/`end_col` on steps and violations, `related` on diagnostics,
//! `warnings` per model) are additions the spec allows; none changes a specified key's meaning.

use litmus_engine::ast::Test;
use litmus_engine::report::{ModelReport, Step};
use litmus_engine::{Diagnostic, LineIndex, Span};
use serde_json::{json, Map, Value};

use super::FileRun;

/// The document for a whole run.
pub fn document(files: &[FileRun]) -> Value {
    json!({
        "version": 1,
        "files": files.iter().map(file).collect::<Vec<_>>(),
    })
}

fn file(f: &FileRun) -> Value {
    let diagnostics: Vec<Value> = match (&f.read_error, &f.index) {
        (Some(err), _) => vec![json!({
            "severity": "error",
            "message": format!("cannot read {}: {err}", f.path),
            "line": 1, "col": 1, "end_line": 1, "end_col": 1,
        })],
        (None, Some(index)) => f.diagnostics.iter().map(|d| diagnostic(index, d)).collect(),
        (None, None) => vec![],
    };
    let mut results = Map::new();
    if let (Some(test), Some(index)) = (&f.test, &f.index) {
        for r in &f.reports {
            let mut v = model_report(test, index, r);
            if let (Some((_, rb)), Some(o)) =
                (f.robust.iter().find(|(m, _)| *m == r.model), v.as_object_mut())
            {
                o.insert("robust".into(), robust(test, index, rb));
            }
            results.insert(r.model.key().to_owned(), v);
        }
    }
    json!({
        "path": f.path,
        "name": f.test.as_ref().map(|t| t.name.text.clone()),
        "diagnostics": diagnostics,
        "results": results,
    })
}

/// `line`, `col`, `end_line`, `end_col` of a span.
fn position(index: &LineIndex, span: Span, out: &mut Map<String, Value>) {
    let (start, end) = index.span(span);
    out.insert("line".into(), start.line.into());
    out.insert("col".into(), start.col.into());
    out.insert("end_line".into(), end.line.into());
    out.insert("end_col".into(), end.col.into());
}

pub fn diagnostic(index: &LineIndex, d: &Diagnostic) -> Value {
    let mut o = Map::new();
    o.insert(
        "severity".into(),
        serde_json::to_value(d.severity).unwrap_or(Value::Null),
    );
    o.insert("message".into(), d.message.clone().into());
    position(index, d.span, &mut o);
    let related: Vec<Value> = d
        .related
        .iter()
        .map(|r| {
            let mut ro = Map::new();
            ro.insert("message".into(), r.message.clone().into());
            position(index, r.span, &mut ro);
            Value::Object(ro)
        })
        .collect();
    o.insert("related".into(), related.into());
    Value::Object(o)
}

pub fn model_report(test: &Test, index: &LineIndex, r: &ModelReport) -> Value {
    let states: Vec<Value> = r
        .states
        .iter()
        .map(|s| Value::Object(s.0.iter().map(|(k, v)| (k.clone(), json!(v))).collect()))
        .collect();
    let condition = match &r.condition {
        Some(c) => json!({
            "kind": c.kind.as_str(),
            "holds": c.holds,
            "positive": c.positive,
            "negative": c.negative,
        }),
        None => Value::Null,
    };
    let violations: Vec<Value> = r
        .violations
        .iter()
        .map(|v| {
            let mut o = Map::new();
            o.insert(
                "kind".into(),
                serde_json::to_value(v.kind).unwrap_or(Value::Null),
            );
            o.insert("message".into(), v.message.clone().into());
            position(index, v.span, &mut o);
            o.insert("schedule".into(), schedule(test, index, &v.schedule));
            Value::Object(o)
        })
        .collect();
    let witness = match &r.witness {
        Some(w) => schedule(test, index, w),
        None => json!([]),
    };
    let warnings: Vec<Value> = r
        .warnings
        .iter()
        .map(|w| {
            let mut o = Map::new();
            o.insert("message".into(), w.message.clone().into());
            if let Some(span) = w.span {
                position(index, span, &mut o);
            }
            Value::Object(o)
        })
        .collect();
    let s = &r.stats;
    let mut doc = json!({
        "complete": r.complete,
        "states": states,
        "condition": condition,
        "violations": violations,
        "witness": witness,
        "warnings": warnings,
        "stats": {
            "executions": s.executions,
            "blocked": s.blocked,
            "states": s.states,
            "constraints": s.constraints,
            "solver_ms": round3(s.solver_ms),
            "time_ms": round3(s.time_ms),
            "queries": s.queries,
            "explored": s.explored,
        },
    });
    // `--first`: why exploration stopped, right after `complete` (absent otherwise).
    if let (Some(stopped), Value::Object(o)) = (r.stopped, &mut doc) {
        let mut m = Map::new();
        for (k, v) in std::mem::take(o) {
            let after = k == "complete";
            m.insert(k, v);
            if after {
                m.insert("stopped".into(), stopped.key().into());
            }
        }
        *o = m;
    }
    doc
}

fn round3(ms: f64) -> f64 {
    if ms.is_finite() {
        (ms * 1000.0).round() / 1000.0
    } else {
        0.0
    }
}

pub fn schedule(test: &Test, index: &LineIndex, steps: &[Step]) -> Value {
    Value::Array(steps.iter().map(|s| step(test, index, s)).collect())
}

pub fn step(test: &Test, index: &LineIndex, s: &Step) -> Value {
    let mut o = Map::new();
    o.insert(
        "thread".into(),
        super::text::thread_name(test, s.thread).into(),
    );
    position(index, s.span, &mut o);
    o.insert(
        "action".into(),
        serde_json::to_value(s.action).unwrap_or(Value::Null),
    );
    o.insert(
        "loc".into(),
        s.loc.clone().map(Value::from).unwrap_or(Value::Null),
    );
    o.insert(
        "value".into(),
        s.value.map(Value::from).unwrap_or(Value::Null),
    );
    o.insert("buffered".into(), s.buffered.into());
    Value::Object(o)
}

/// `"robust": {"holds", "witness", "complete", "delayed"}` (`--robust`, TSO and PSO only; SC
/// is robust by definition and has no key). `witness` is the attack's schedule (empty when
/// robust); `delayed` names the delayed store, the later accesses it was delayed past and the
/// other thread's access closing the cycle.
pub fn robust(test: &Test, index: &LineIndex, r: &litmus_engine::robust::Robustness) -> Value {
    let (witness, delayed) = match &r.attack {
        Some(a) => (
            schedule(test, index, &a.schedule),
            json!({
                "thread": super::text::thread_name(test, a.thread),
                "store": step(test, index, &a.store),
                "past": schedule(test, index, &a.past),
                "conflict": step(test, index, &a.conflict),
            }),
        ),
        None => (json!([]), Value::Null),
    };
    json!({
        "holds": r.holds,
        "witness": witness,
        "complete": r.complete,
        "delayed": delayed,
        "states": r.states,
        "time_ms": round3(r.time_ms),
    })
}
