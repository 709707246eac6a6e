//! The union of several reports of one test under one model (`docs/reference.md#complete`):
//! what a stopped portfolio reports (every member's findings), and what `--unbounded` reports
//! (the SC executions for every iteration with the bounded check's).
//!
//! Each report's findings are real executions of the program, so their union is too: final
//! states (sorted, deduplicated), violations (one per kind and span, the shortest schedule,
//! ties to the earlier report), the shortest witness; the condition's counts are over the union
//! and, since each report counted states the others may not list (`stats.omitted`), never fewer
//! than any one report's.

use crate::ast::{Quantifier, Test};
use crate::report::{ModelReport, Violation, ViolationKind, Warning};
use crate::span::Span;
use std::collections::BTreeMap;

/// The union of `reports` (at least one; the first gives the model, the stats and `stopped`
/// when it has one), `complete` as the caller knows it, its condition settled accordingly.
pub fn merge(test: &Test, reports: Vec<ModelReport>, complete: bool) -> ModelReport {
    let mut reports = reports.into_iter();
    let first = reports.next().expect("merge takes at least one report");
    let rest: Vec<ModelReport> = reports.collect();
    let mut states = first.states;
    let mut omitted = first.stats.omitted;
    let mut found = first.stats.states;
    let mut stopped = first.stopped;
    let mut counted = first.condition.clone().into_iter().collect::<Vec<_>>();
    let mut violations: BTreeMap<(Span, ViolationKind), Violation> = BTreeMap::new();
    let mut witnesses = Vec::new();
    let mut warnings = Vec::new();
    let mut add = |vs: Vec<Violation>, w: Option<_>, ws: Vec<Warning>| {
        for v in vs {
            let k = (v.span, v.kind);
            if violations
                .get(&k)
                .is_none_or(|o| v.schedule.len() < o.schedule.len())
            {
                violations.insert(k, v);
            }
        }
        witnesses.extend(w);
        for w in ws {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
    };
    add(first.violations, first.witness, first.warnings);
    for r in rest {
        states.extend(r.states);
        omitted = omitted.max(r.stats.omitted);
        found = found.max(r.stats.states);
        stopped = stopped.or(r.stopped);
        counted.extend(r.condition);
        add(r.violations, r.witness, r.warnings);
    }
    states.sort();
    states.dedup();
    let mut condition = crate::evaluate_condition(test, &states);
    if let Some(c) = &mut condition {
        // Each report counted every state it found, listed or not: the union has at least as
        // many of each kind.
        for o in &counted {
            c.positive = c.positive.max(o.positive);
            c.negative = c.negative.max(o.negative);
        }
        c.holds = match c.kind {
            Quantifier::Exists => c.positive > 0,
            Quantifier::Forall => c.negative == 0,
            Quantifier::NotExists => c.positive == 0,
        };
        c.settle(complete);
        // A `condition` violation is a state falsifying the condition, found though a report
        // that was not waited for may not list it (`crate::auto`).
        let falsified = violations
            .keys()
            .any(|&(_, k)| k == ViolationKind::Condition);
        if falsified && c.kind != Quantifier::Exists {
            c.holds = false;
            c.decided = true;
        }
    }
    let witness = witnesses
        .into_iter()
        .min_by_key(|w: &crate::report::Schedule| w.len())
        .filter(|_| {
            condition
                .as_ref()
                .is_some_and(|c| c.kind == Quantifier::Exists && c.holds)
        });
    let mut stats = first.stats;
    stats.states = found.max(states.len() as u64);
    stats.omitted = omitted;
    ModelReport {
        model: first.model,
        complete,
        states,
        condition,
        violations: violations.into_values().collect(),
        witness,
        warnings,
        stats,
        stopped,
    }
}
