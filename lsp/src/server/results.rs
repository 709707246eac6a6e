//! `litmus/results`: what a finished check of a document found, sent once per finished check
//! (the `done` status, and a `cancelled` one that stopped a running check) so that a client can
//! keep it: the Testing items and their gutter marks of the checked version, and a results view
//! with each model's numbers and the history of the session's runs (`docs/editors.md`).
//!
//! The payload (`docs/design/lsp.md#protocol-contract-from-the-integrator`):
//! `{uri, version, state, models: [..], file}`, where `models` has one entry per model checked
//! (its verdict in the lens's words, engine, executions, states, time, completeness and why a
//! check stopped) and `file` is the document's entry of `litmus check --json` (version 2, the
//! same shape the Testing view's catalogue runs read, less each model's `states` list), made
//! from the results shown now. A cancelled model's entry is `complete: false` with the
//! violations it had found.
//!
//! Everything here reads the document's state; nothing sends or waits.

use std::collections::BTreeMap;

use serde_json::{json, Value};
use tower_lsp_server::ls_types::Uri;

use litmus_engine::ast::{Quantifier, Test};
use litmus_engine::report::{Stats, Warning};
use litmus_engine::{LineIndex, Model, ModelReport};

use super::document::{Document, Outcome};
use super::target::Target;
use super::verdict::{self, Mark};
use crate::json::axview::AxView;

/// `litmus/results` (see the module's comment).
pub enum ResultsNotification {}
impl tower_lsp_server::ls_types::notification::Notification for ResultsNotification {
    type Params = Value;
    const METHOD: &'static str = "litmus/results";
}

/// The notification's params for a document whose status is `state`, or `None` when no check
/// finished: a status `cancelled` that only dropped results (an edit) or replaced a job before
/// any model ended, a check still running, or an axiomatic test with no answer yet.
pub fn params(uri: &Uri, d: &Document, state: &str) -> Option<Value> {
    let finished = match state {
        "done" => !d.results.values().any(Outcome::running),
        "cancelled" => d
            .results
            .values()
            .any(|o| matches!(o, Outcome::Cancelled(_))),
        _ => false,
    };
    let index = LineIndex::new(&d.text);
    let (models, file) = match d.test.as_deref() {
        Some(t) if super::axiom::is_asm(t) => {
            let answer = super::axiom::current(d).filter(|_| state == "done")?;
            axiomatic(t, &index, answer)?
        }
        _ if !finished => return None,
        test => operational(uri, d, test, &index),
    };
    Some(json!({
        "uri": uri.as_str(),
        "version": d.version,
        "state": state,
        "models": models,
        "file": file,
    }))
}

/// A cancelled, crashed or finished model as a report (`None` while it runs).
fn report_of(m: Model, o: &Outcome) -> Option<ModelReport> {
    let (violations, why) = match o {
        Outcome::Done { report, .. } => return Some((**report).clone()),
        Outcome::Cancelled(vs) => (vs.clone(), "cancelled before the end".to_string()),
        Outcome::Crashed(e) => (vec![], format!("internal error: {e}")),
        _ => return None,
    };
    Some(ModelReport {
        model: m,
        complete: false,
        states: vec![],
        condition: None,
        violations,
        witness: None,
        warnings: vec![Warning {
            message: why,
            span: None,
        }],
        stats: Stats::default(),
        stopped: None,
    })
}

/// Why an incomplete report stopped: its warning naming the limit, else its first warning.
fn stop_reason(r: &ModelReport) -> String {
    let ws = &r.warnings;
    ws.iter()
        .find(|w| {
            w.message.contains("stopped")
                || w.message.contains("memory budget")
                || w.message.contains("cancelled")
                || w.message.contains("internal error")
        })
        .or_else(|| ws.iter().find(|w| w.span.is_none()))
        .or(ws.first())
        .map_or_else(|| "stopped early".to_string(), |w| w.message.clone())
}

fn operational(
    uri: &Uri,
    d: &Document,
    test: Option<&Test>,
    index: &LineIndex,
) -> (Vec<Value>, Value) {
    let reports: Vec<ModelReport> = d
        .results
        .iter()
        .filter_map(|(m, o)| report_of(*m, o))
        .collect();
    let input = crate::json::report::Input {
        path: uri.as_str(),
        read_error: None,
        text: Some(&d.text),
        index: Some(index),
        test,
        diagnostics: &d.syntax,
    };
    let entry = crate::json::report::entry(0, &input, &reports, &[], &[], &[], None);
    let mut file: Value = serde_json::from_str(entry.trim()).unwrap_or(Value::Null);
    // Without each model's final states: no client reads them here, and a test with many
    // states would send them on every save (the hover and `litmus check` have them).
    if let Some(rs) = file["results"].as_object_mut() {
        for r in rs.values_mut().filter_map(Value::as_object_mut) {
            r.remove("states");
        }
    }
    let Some(test) = test else {
        return (vec![], file);
    };
    let models: Vec<Model> = d.results.keys().copied().collect();
    let whole = verdict::verdicts(test, Target::Test, &models, &d.results);
    let exists = is_exists(test).then(|| {
        verdict::verdicts(test, Target::Condition, &models, &d.results)
            .into_iter()
            .map(|v| (v.model, v.mark))
            .collect::<BTreeMap<_, _>>()
    });
    let rows = whole
        .iter()
        .map(|v| {
            let r = reports.iter().find(|r| r.model == v.model);
            let mut row = json!({
                "model": v.model.key(),
                "label": v.model.label(),
                "verdict": v.mark.status_word(),
                "mark": v.mark.symbol(),
                "title": v.title(),
                "implied_by": v.implied_by.map(Model::key),
            });
            if let Some(a) = exists.as_ref().and_then(|e| e.get(&v.model)) {
                row["exists"] = json!(answer(*a));
            }
            if let Some(r) = r {
                numbers(&mut row, r, v.bounded);
            }
            row
        })
        .collect();
    (rows, file)
}

/// herd's answer to an `exists`: `Ok`, `No`, or `?` (not decided).
fn answer(m: Mark) -> &'static str {
    match m {
        Mark::Observed => "Ok",
        Mark::NotObserved => "No",
        _ => "?",
    }
}

fn is_exists(test: &Test) -> bool {
    test.condition
        .as_ref()
        .is_some_and(|c| c.quantifier == Quantifier::Exists)
}

/// A row's numbers: engine, executions, states, time, and how complete the check was.
fn numbers(row: &mut Value, r: &ModelReport, bounded: bool) {
    let s = &r.stats;
    row["engine"] = json!(s.engine.map(|e| e.key()));
    row["executions"] = json!(s.executions);
    row["states"] = json!(s.states.max(r.states.len() as u64));
    row["time_ms"] = json!((s.time_ms * 1000.0).round() / 1000.0);
    let undecided = r.condition.as_ref().is_some_and(|c| !c.decided);
    row["undecided"] = json!(undecided);
    if r.complete {
        row["completeness"] = json!(if bounded { "bounded" } else { "complete" });
        if bounded {
            row["why"] = json!("a loop reached the loop bound: complete up to it");
        }
    } else if r.stopped.is_some() {
        row["completeness"] = json!("stopped");
        row["why"] = json!("stopped at the first violation");
    } else {
        row["completeness"] = json!("stopped");
        row["why"] = json!(stop_reason(r));
    }
}

/// An AArch64, RISC-V, POWER, ARMv7 or C test: its model's answer (`None` when the test's
/// dialect has no axiomatic model).
fn axiomatic(
    test: &Test,
    index: &LineIndex,
    answer: &Result<std::sync::Arc<AxView>, super::engine::AxFail>,
) -> Option<(Vec<Value>, Value)> {
    let crate::dialect::Models::Axiomatic(model) = crate::dialect::models(test.dialect) else {
        return None;
    };
    let anchor = test.condition.as_ref().map_or(test.name.span, |c| c.span);
    let pos = |span| {
        let p = crate::json::Pos::new(index, span);
        json!({"line": p.line, "col": p.col, "end_line": p.end_line, "end_col": p.end_col})
    };
    let name = &test.name.text;
    let (row, result) = match answer {
        Err(f) => {
            let why = format!("cannot check: {}", f.message);
            (
                json!({"verdict": "incomplete", "mark": "?", "completeness": "stopped", "why": why}),
                json!({"complete": false, "condition": null, "violations": [],
                       "warnings": [{"message": why}], "stats": {"engine": "axiomatic"}}),
            )
        }
        Ok(v) => {
            let failed = v.failed();
            let mut violations = vec![];
            if failed {
                let at = v
                    .judgement
                    .as_ref()
                    .and_then(|j| j.header)
                    .unwrap_or(anchor);
                let kind = if v.judgement.is_some() {
                    "result-header"
                } else {
                    "condition"
                };
                let mut viol = pos(at);
                viol["kind"] = json!(kind);
                viol["message"] = json!(v.headline());
                viol["schedule"] = json!([]);
                violations.push(viol);
            }
            // herd's block: `States N` is its count of final states.
            let states = v
                .block
                .iter()
                .find_map(|l| l.strip_prefix("States ")?.trim().parse::<u64>().ok());
            let mark = if failed { "✗" } else { "✓" };
            let mut row = json!({
                "verdict": if failed { "fails" } else { "holds" },
                "mark": mark,
                "executions": v.positive + v.negative,
                "states": states,
                "completeness": "complete",
                "undecided": false,
            });
            if v.quantifier == Quantifier::Exists.as_str() {
                row["exists"] = json!(v.herd);
            }
            let cond = json!({"kind": v.quantifier, "holds": v.herd == "Ok",
                              "positive": v.positive, "negative": v.negative});
            (
                row,
                json!({"complete": true, "condition": cond, "violations": violations,
                       "warnings": [], "stats": {"engine": "axiomatic"}}),
            )
        }
    };
    let mut row = row;
    row["model"] = json!(model.key);
    row["label"] = json!(model.name);
    row["engine"] = json!("axiomatic");
    let title = format!(
        "{} {}{}",
        model.name,
        row["mark"].as_str().unwrap_or("?"),
        row.get("exists")
            .and_then(Value::as_str)
            .map_or(String::new(), |a| format!(" {a}"))
    );
    row["title"] = json!(title);
    let file = json!({
        "path": "", "name": name, "diagnostics": [],
        "results": {model.key: result},
    });
    Some((vec![row], file))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cancelled_model_is_an_incomplete_report_that_keeps_its_findings() {
        let v = litmus_engine::report::Violation {
            kind: litmus_engine::report::ViolationKind::Assert,
            message: "assertion failed".into(),
            span: litmus_engine::Span::new(3, 9),
            schedule: Default::default(),
        };
        let r = report_of(Model::Tso, &Outcome::Cancelled(vec![v])).expect("a report");
        assert!(!r.complete);
        assert_eq!(r.violations.len(), 1);
        assert_eq!(stop_reason(&r), "cancelled before the end");
        assert!(report_of(Model::Tso, &Outcome::Running).is_none());
        let crashed = report_of(Model::Sc, &Outcome::Crashed("boom".into())).expect("a report");
        assert_eq!(stop_reason(&crashed), "internal error: boom");
    }
}
