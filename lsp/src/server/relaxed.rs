//! What a relaxed model (TSO, PSO) gets wrong that SC gets right, read off the reports a
//! document shows: the violations only the relaxed model has (the fence quick fix's trigger,
//! [`super::fences`]) and the hover line naming the store that was delayed and the later load
//! it was delayed past, read off the violation's schedule. Pure: reports in, values out.

use std::collections::BTreeMap;

use litmus_engine::ast::Test;
use litmus_engine::report::{Action, Schedule, Violation};
use litmus_engine::{Model, Span};

use super::document::Outcome;

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
