//! The content-keyed result cache: a model's report with the program tokens it was computed
//! from, moved to the document's current text token by token ([`TokenMap::remap`]), with the
//! final condition re-evaluated when only the condition changed.

use std::collections::HashMap;

use litmus_engine::ast::{Quantifier, Test};
use litmus_engine::report::{Violation, ViolationKind};
use litmus_engine::{Model, ModelReport};

use super::document::{Document, Outcome};
use super::engine::Engine;
use super::tokens::TokenMap;

/// A cached report and the text coordinates its spans are in.
#[derive(Clone)]
pub struct CacheEntry {
    pub tokens: TokenMap,
    pub cond_key: String,
    pub report: ModelReport,
}

/// Reports keyed by (program tokens, check options, model).
#[derive(Default)]
pub struct Cache {
    map: HashMap<(String, String, Model), CacheEntry>,
}

impl Cache {
    const MAX: usize = 512;
    pub fn get(&self, key: &str, opts: &str, m: Model) -> Option<&CacheEntry> {
        self.map.get(&(key.to_string(), opts.to_string(), m))
    }
    pub fn insert(&mut self, opts: &str, m: Model, e: CacheEntry) {
        if self.map.len() >= Self::MAX {
            self.map.clear();
        }
        self.map
            .insert((e.tokens.key.clone(), opts.to_string(), m), e);
    }
}

/// Moves the spans of a violation and its schedule from `from`'s coordinates to `to`'s.
pub(super) fn remap_violation(v: &mut Violation, from: &TokenMap, to: &TokenMap) {
    v.span = from.remap(to, v.span);
    for s in &mut v.schedule {
        s.span = from.remap(to, s.span);
    }
}

/// Moves every span of `r` from the coordinates of `from` to those of `to` (equal keys).
pub fn remap_report(r: &ModelReport, from: &TokenMap, to: &TokenMap) -> ModelReport {
    let mut r = r.clone();
    if from.spans == to.spans {
        return r;
    }
    for v in &mut r.violations {
        remap_violation(v, from, to);
    }
    if let Some(w) = &mut r.witness {
        for s in w {
            s.span = from.remap(to, s.span);
        }
    }
    for w in &mut r.warnings {
        w.span = w.span.map(|s| from.remap(to, s));
    }
    r
}

/// Re-evaluates the final condition of `test` over the cached states of `r`: the verdict and
/// counts are exact; a condition violation has no schedule until the next check.
pub fn reevaluate(engine: &dyn Engine, test: &Test, r: &mut ModelReport) {
    r.violations.retain(|v| v.kind != ViolationKind::Condition);
    r.witness = None;
    // A report that lists only some of its states (the memory budget, `stats.omitted`) cannot
    // give the verdict over all of them again: it is over the listed ones only.
    if r.stats.omitted > 0 {
        r.complete = false;
    }
    let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        engine.evaluate_condition(test, &r.states)
    }));
    r.condition = res.unwrap_or(None);
    if let Some(c) = &mut r.condition {
        c.settle(r.complete);
    }
    if let (Some(c), Some(cr)) = (&test.condition, &r.condition) {
        if cr.verdict() == Some(false) && c.quantifier != Quantifier::Exists {
            r.violations.push(Violation {
                kind: ViolationKind::Condition,
                message: "re-evaluated over the cached final states; verify again for its schedule"
                    .into(),
                span: c.span,
                schedule: vec![],
            });
        }
    }
}

/// A cached (or freshly computed) report adapted to the document's current text.
pub(super) fn adapt(engine: &dyn Engine, d: &Document, e: &CacheEntry) -> Outcome {
    let mut report = remap_report(&e.report, &e.tokens, &d.tokens);
    let fresh = e.cond_key == d.cond_key;
    if !fresh {
        if let Some(t) = &d.test {
            reevaluate(engine, t, &mut report);
        }
    }
    Outcome::Done {
        report: Box::new(report),
        fresh_condition: fresh,
    }
}
