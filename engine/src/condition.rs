//! The final condition (`docs/reference.md#condition`, `docs/reference.md#verdicts`): evaluation over final
//! states, herd's projection and counts.
//!
//! Final-state keys: `P0:r0` (thread name, colon, register; x86 `P0:EAX`), `x` for a scalar,
//! `a[1]` for an array cell. herd counts *projected* states: the distinct final states
//! restricted to the keys the condition mentions, so `positive + negative` is the number of
//! projected states, and `holds` is decided on the same set.

use crate::ast::{self, BinOp, ExprKind, Quantifier, UnOp};
use crate::ir::binop;
use crate::report::{ConditionResult, FinalState};

/// The final-state key of register `reg` of the thread named `thread`.
pub fn reg_key(thread: &str, reg: &str) -> String {
    format!("{thread}:{reg}")
}

/// The final-state key of a shared cell: `x`, or `a[i]` for an array.
pub fn cell_key(var: &str, index: Option<i64>) -> String {
    match index {
        None => var.to_string(),
        Some(i) => format!("{var}[{i}]"),
    }
}

impl FinalState {
    /// The state restricted to `keys`, in that order (a missing key reads as 0).
    pub fn project(&self, keys: &[String]) -> FinalState {
        FinalState(
            keys.iter()
                .map(|k| (k.clone(), self.get(k).unwrap_or(0)))
                .collect(),
        )
    }
}

/// The key an atom of the condition names, if it is a register or a location.
fn atom_key(test: &ast::Test, e: &ast::Expr, state: Option<&FinalState>) -> Option<String> {
    match &e.kind {
        ExprKind::ThreadReg { thread, reg } => {
            let t = test.threads.get(*thread)?;
            Some(reg_key(&t.name.text, &reg.text))
        }
        ExprKind::Load(loc) => {
            let d = test.shared.get(loc.var)?;
            let index = loc.index.as_ref().map(|i| eval_in(test, i, state));
            Some(cell_key(
                &d.name.text,
                if d.is_array() {
                    index.or(Some(0))
                } else {
                    None
                },
            ))
        }
        _ => None,
    }
}

/// Evaluates a condition expression in a final state (`None`: every atom reads 0). Division
/// by zero yields 0.
fn eval_in(test: &ast::Test, e: &ast::Expr, state: Option<&FinalState>) -> i64 {
    match &e.kind {
        ExprKind::Int(v) => *v,
        ExprKind::Reg(_) => 0,
        ExprKind::ThreadReg { .. } | ExprKind::Load(_) => atom_key(test, e, state)
            .and_then(|k| state.and_then(|s| s.get(&k)))
            .unwrap_or(0),
        ExprKind::Unary(op, a) => {
            let v = eval_in(test, a, state);
            match op {
                UnOp::Neg => v.wrapping_neg(),
                UnOp::Not => (v == 0) as i64,
            }
        }
        ExprKind::Binary(op, a, b) => {
            let x = eval_in(test, a, state);
            match op {
                BinOp::And if x == 0 => return 0,
                BinOp::Or if x != 0 => return 1,
                BinOp::Implies if x == 0 => return 1,
                _ => {}
            }
            binop(*op, x, eval_in(test, b, state)).unwrap_or(0)
        }
    }
}

/// Whether the condition's expression `c` holds in `state` (`None` without a condition).
/// The first division or remainder by zero evaluating `e` in `state` meets (the operation's
/// span), following the same short-circuits as [`eval_in`], which reads it as 0.
fn division_by_zero(
    test: &ast::Test,
    e: &ast::Expr,
    state: Option<&FinalState>,
) -> Option<crate::span::Span> {
    match &e.kind {
        ExprKind::Unary(_, a) => division_by_zero(test, a, state),
        ExprKind::Binary(op, a, b) => {
            if let Some(s) = division_by_zero(test, a, state) {
                return Some(s);
            }
            let x = eval_in(test, a, state);
            if matches!(
                (op, x != 0),
                (BinOp::And, false) | (BinOp::Or, true) | (BinOp::Implies, false)
            ) {
                return None;
            }
            if let Some(s) = division_by_zero(test, b, state) {
                return Some(s);
            }
            (matches!(op, BinOp::Div | BinOp::Rem) && eval_in(test, b, state) == 0)
                .then_some(e.span)
        }
        ExprKind::Load(loc) => loc
            .index
            .as_ref()
            .and_then(|i| division_by_zero(test, i, state)),
        _ => None,
    }
}

/// A warning if the final condition divides by zero in some of `states` (where it reads the
/// result as 0): a run-time error in the condition is reported, never a silent `false`.
pub fn condition_fault(test: &ast::Test, states: &[FinalState]) -> Option<crate::report::Warning> {
    condition_fault_in(test, states.len(), states)
}

/// [`condition_fault`] over `n` states given one at a time (the collector makes each one only
/// while it is looked at, so a report that lists few of them still checks them all).
pub fn condition_fault_in<S: std::borrow::Borrow<FinalState>>(
    test: &ast::Test,
    n: usize,
    states: impl IntoIterator<Item = S>,
) -> Option<crate::report::Warning> {
    let c = test.condition.as_ref()?;
    if !divides(&c.expr) {
        return None;
    }
    let mut faulty = states
        .into_iter()
        .filter_map(|s| division_by_zero(test, &c.expr, Some(s.borrow())));
    let span = faulty.next()?;
    let k = 1 + faulty.count();
    Some(crate::report::Warning {
        message: format!(
            "division by zero in the final condition ({k} of {n} final states): the \
             operation reads as 0 there, so the verdict may not mean what it says"
        ),
        span: Some(span),
    })
}

/// Whether `e` has a division or a remainder (else it cannot divide by zero).
fn divides(e: &ast::Expr) -> bool {
    match &e.kind {
        ExprKind::Unary(_, a) => divides(a),
        ExprKind::Binary(op, a, b) => {
            matches!(op, BinOp::Div | BinOp::Rem) || divides(a) || divides(b)
        }
        ExprKind::Load(loc) => loc.index.as_deref().is_some_and(divides),
        _ => false,
    }
}

pub fn satisfies(test: &ast::Test, state: &FinalState) -> Option<bool> {
    let c = test.condition.as_ref()?;
    Some(eval_in(test, &c.expr, Some(state)) != 0)
}

/// Whether a final state where `c` has the value `sat` falsifies the condition as a whole
/// (a `forall` state where `c` is false, a `~exists` state where it is true).
pub fn falsifies(q: Quantifier, sat: bool) -> bool {
    match q {
        Quantifier::Exists => false,
        Quantifier::Forall => !sat,
        Quantifier::NotExists => sat,
    }
}

/// The keys the condition mentions, in order of first mention (herd's projection).
pub fn observed_keys(test: &ast::Test) -> Vec<String> {
    fn walk(test: &ast::Test, e: &ast::Expr, out: &mut Vec<String>) {
        match &e.kind {
            ExprKind::ThreadReg { .. } | ExprKind::Load(_) => {
                if let Some(k) = atom_key(test, e, None) {
                    if !out.contains(&k) {
                        out.push(k)
                    }
                }
            }
            ExprKind::Unary(_, a) => walk(test, a, out),
            ExprKind::Binary(_, a, b) => {
                walk(test, a, out);
                walk(test, b, out);
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(c) = &test.condition {
        walk(test, &c.expr, &mut out);
    }
    out
}

/// The condition's verdict over the final states, with herd's counts over the states
/// projected onto [`observed_keys`]. `None` without a condition.
pub fn evaluate_condition(test: &ast::Test, states: &[FinalState]) -> Option<ConditionResult> {
    let keys = observed_keys(test);
    let projected = states
        .iter()
        .map(|s| keys.iter().map(|k| s.get(k).unwrap_or(0)).collect())
        .collect();
    evaluate_projected(test, &keys, projected)
}

/// [`evaluate_condition`] over the states' values on [`observed_keys`] (`keys`; a missing key
/// reads 0), one vector per state: the collector projects its states so, without making them.
pub fn evaluate_projected(
    test: &ast::Test,
    keys: &[String],
    mut projected: Vec<Vec<i64>>,
) -> Option<ConditionResult> {
    let c = test.condition.as_ref()?;
    // The keys are the same in every projection, so the values order them as the states.
    projected.sort_unstable();
    projected.dedup();
    let positive = projected
        .iter()
        .filter(|v| {
            let s = FinalState(keys.iter().cloned().zip(v.iter().copied()).collect());
            eval_in(test, &c.expr, Some(&s)) != 0
        })
        .count() as u64;
    let negative = projected.len() as u64 - positive;
    let holds = match c.quantifier {
        Quantifier::Exists => positive > 0,
        Quantifier::Forall => negative == 0,
        Quantifier::NotExists => positive == 0,
    };
    Some(ConditionResult {
        kind: c.quantifier,
        holds,
        positive,
        negative,
        // Over the states given: whether those are all is the report's to say (`settle`).
        decided: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax;

    fn fs(pairs: &[(&str, i64)]) -> FinalState {
        FinalState(pairs.iter().map(|&(k, v)| (k.to_string(), v)).collect())
    }

    #[test]
    fn counts_are_over_states_projected_onto_the_condition() {
        let src = "litmus T\nshared x = 0, a[2];\nthread P0 {\n  r0 = x;\n  r1 = a[1];\n}\n\
                   forall (P0:r0 == 1 || a[1] == 2)\n";
        let test = syntax::parse(src).test.expect("parses");
        assert_eq!(
            observed_keys(&test),
            vec!["P0:r0".to_string(), "a[1]".to_string()]
        );
        let states = vec![
            fs(&[
                ("P0:r0", 1),
                ("P0:r1", 0),
                ("x", 0),
                ("a[0]", 0),
                ("a[1]", 0),
            ]),
            fs(&[
                ("P0:r0", 1),
                ("P0:r1", 5),
                ("x", 0),
                ("a[0]", 0),
                ("a[1]", 0),
            ]),
            fs(&[
                ("P0:r0", 0),
                ("P0:r1", 0),
                ("x", 0),
                ("a[0]", 0),
                ("a[1]", 2),
            ]),
            fs(&[
                ("P0:r0", 0),
                ("P0:r1", 0),
                ("x", 7),
                ("a[0]", 0),
                ("a[1]", 0),
            ]),
        ];
        // Projected: (1,0) (0,2) (0,0): two satisfy, one does not.
        let c = evaluate_condition(&test, &states).unwrap();
        assert_eq!((c.holds, c.positive, c.negative), (false, 2, 1));
        assert_eq!(satisfies(&test, &states[3]), Some(false));
        assert_eq!(
            states[2].project(&observed_keys(&test)),
            fs(&[("P0:r0", 0), ("a[1]", 2)])
        );
        let c = evaluate_condition(&test, &states[..2]).unwrap();
        assert_eq!((c.holds, c.positive, c.negative), (true, 1, 0));
    }
}
