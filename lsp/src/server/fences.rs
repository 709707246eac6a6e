//! The fence quick fix and the hover line about delayed stores.
//!
//! On a violation that a relaxed model (TSO, PSO) has and SC has not, `textDocument/codeAction`
//! offers a preferred quick fix "Insert N fences so that TSO behaves as SC" whose edit inserts
//! exactly the fences `litmus fences` proposes ([`litmus_engine::fences`], goal: SC's
//! verdicts). The synthesis runs on a blocking thread with a time limit and is cached by
//! (text, model), since clients ask for code actions on every cursor move. The hover of a
//! failing assertion or condition gets a line per relaxed model naming the store that was
//! delayed and the later load it was delayed past, read off the violation's schedule.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use litmus_engine::ast::Test;
use litmus_engine::fences::{insertions, synthesize, Goal};
use litmus_engine::report::{Action, Schedule, Violation};
use litmus_engine::{CheckOptions, Control, Model, Span};

use super::document::Outcome;
use super::Backend;

/// Violations of a relaxed model that SC does not have, per model (none without SC's report).
pub fn relaxed_only(results: &BTreeMap<Model, Outcome>) -> Vec<(Model, Violation)> {
    let Some(Outcome::Done { report: sc, .. }) = results.get(&Model::Sc) else {
        return vec![];
    };
    let mut out = Vec::new();
    for m in [Model::Tso, Model::Pso] {
        if let Some(Outcome::Done { report, .. }) = results.get(&m) {
            for v in &report.violations {
                if !sc
                    .violations
                    .iter()
                    .any(|s| s.kind == v.kind && s.span == v.span)
                {
                    out.push((m, v.clone()));
                }
            }
        }
    }
    out
}

type Insertions = Vec<(usize, String)>;

fn cache() -> &'static Mutex<HashMap<(String, Model), Option<Insertions>>> {
    static C: OnceLock<Mutex<HashMap<(String, Model), Option<Insertions>>>> = OnceLock::new();
    C.get_or_init(Default::default)
}

/// The fences for `model` as insertions, or `None` when the search found none in time.
pub fn fences_for(text: &str, test: &Test, model: Model, loop_bound: u32) -> Option<Insertions> {
    let key = (text.to_string(), model);
    if let Some(v) = cache().lock().ok()?.get(&key) {
        return v.clone();
    }
    let opts = CheckOptions {
        loop_bound,
        timeout: Some(Duration::from_secs(10)),
        ..CheckOptions::default()
    };
    let s = synthesize(text, test, model, Goal::Verdicts, &opts, &Control::new()).ok();
    let v = s
        .filter(|s| s.complete && !s.fences.is_empty())
        .map(|s| insertions(text, test, &s.fences));
    if let Ok(mut c) = cache().lock() {
        if c.len() > 64 {
            c.clear();
        }
        c.insert(key, v.clone());
    }
    v
}

/// `textDocument/codeAction`: the fence quick fix per relaxed model whose violation touches
/// the requested range.
pub async fn code_actions(b: &Backend, p: CodeActionParams) -> Result<Option<CodeActionResponse>> {
    let uri = p.text_document.uri.clone();
    let loop_bound = b.ctx.settings().loop_bound;
    let found = b.with_doc(&uri, |d, conv| {
        let test = d.test.as_ref()?.as_ref().clone();
        let models: Vec<Model> = relaxed_only(&d.results)
            .into_iter()
            .filter(|(_, v)| {
                let r = conv.range(v.span);
                r.start <= p.range.end && p.range.start <= r.end
            })
            .map(|(m, _)| m)
            .collect();
        (!models.is_empty()).then(|| (d.text.clone(), d.version, test, models))
    })?;
    let Some((text, version, test, mut models)) = found else {
        return Ok(None);
    };
    models.dedup();
    let mut actions = Vec::new();
    for m in models {
        let (t2, test2) = (text.clone(), test.clone());
        let ins = tokio::task::spawn_blocking(move || fences_for(&t2, &test2, m, loop_bound))
            .await
            .ok()
            .flatten();
        let Some(ins) = ins else { continue };
        let action = b.with_doc(&uri, |d, conv| {
            if d.version != version {
                return None;
            }
            let n = ins
                .iter()
                .map(|(_, s)| s.matches("fence").count() + s.matches("MFENCE").count())
                .sum::<usize>();
            let title = format!(
                "Insert {n} fence{} so that {} behaves as SC",
                if n == 1 { "" } else { "s" },
                m.label()
            );
            Some(conv.quick_fix(title, &ins))
        })?;
        actions.extend(action);
    }
    Ok((!actions.is_empty()).then_some(actions))
}

/// Hover lines for a failing assertion or condition at `span`: per relaxed model where only it
/// fails, the store that was delayed and the later load it was delayed past.
pub fn hover_lines(
    test: &Test,
    text: &str,
    results: &BTreeMap<Model, Outcome>,
    span: Span,
) -> String {
    let mut out = String::new();
    for (m, v) in relaxed_only(results) {
        if v.span != span {
            continue;
        }
        if let Some((st, ld)) = delayed(&v.schedule) {
            let src = |s: Span| {
                text.get(s.start as usize..s.end as usize)
                    .unwrap_or("")
                    .trim()
                    .to_string()
            };
            let line = |s: Span| {
                text[..(s.start as usize).min(text.len())]
                    .matches('\n')
                    .count()
                    + 1
            };
            let thread = test
                .threads
                .get(st.0)
                .map_or("?".into(), |t| t.name.text.clone());
            out += &format!(
                "\n\n**{}**: {thread}'s store `{}` (line {}) is delayed past its load of `{}` (line {}). The quick fix inserts the fences verified to make {} behave as SC (it may need more than this one).",
                m.label(),
                src(st.1),
                line(st.1),
                src(ld),
                line(ld),
                m.label(),
            );
        }
    }
    out
}

/// The first store of a schedule that a later load of the same thread overtakes: (thread,
/// store span), load span.
fn delayed(s: &Schedule) -> Option<((usize, Span), Span)> {
    for (i, st) in s.iter().enumerate() {
        if st.action != Action::Store || !st.buffered {
            continue;
        }
        let flush = s[i + 1..]
            .iter()
            .position(|f| f.action == Action::Flush && f.thread == st.thread && f.span == st.span)
            .map_or(s.len(), |j| i + 1 + j);
        if let Some(ld) = s[i + 1..flush].iter().find(|l| {
            l.thread == st.thread && l.action == Action::Load && !l.buffered && l.loc != st.loc
        }) {
            return Some(((st.thread, st.span), ld.span));
        }
    }
    None
}
