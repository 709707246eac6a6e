//! Spin loops as Nidhugg does them (its spin-assume and partial-loop-purity passes, after the
//! chronological-traces paper): a `while` iteration that changes nothing, only reading memory
//! and testing, ends in `assume(false)`.
//!
//! **The rule.** A path through a loop body is *pure* when every statement on it is an
//! `assert`, an `assume` or an `if` (whose condition only reads), so that it writes neither
//! memory nor a register, takes no mutex, fences nothing and waits at no `await`. A pure
//! iteration brings the thread back to the loop head in the state it left it (temporaries are
//! zero at every statement boundary), and memory is as the others left it: deleting the
//! iteration's loads from any execution leaves an execution of the program that ends in the same
//! state, reports the same faults and runs fewer iterations (so it is within every loop bound
//! the first was). So executions with a pure iteration add nothing, and each pure path is
//! ended with `assume(false)` *after* its last statement (its loads, runtime errors and
//! assertions still happen). What is lost is only the loop bound being reached by pure
//! iterations: a loop whose only way round is pure costs the same at every loop bound and no
//! longer warns about it; a loop with an impure way round keeps counting and warning.
//!
//! **How.** A path is only known to be pure at the end of the body, but an `if` with a pure and
//! an impure branch joins them before that; the rest of the body after such an `if` is copied
//! into both branches (at most [`MAX_GROWTH`] times the body's statements, else the loop is left
//! as it is). Nested loops are impure for the loop around them and reduced on their own.
//! Statements keep their spans, and register names are taken from the original body, so the
//! reduced program reports as the original does.

use crate::ast::{Expr, ExprKind, Stmt, StmtKind};

/// How many times its own size a reduced loop body may grow by copying (see the module doc).
pub const MAX_GROWTH: usize = 4;

/// `body` with every `while` in it reduced (the module doc); `None` if nothing changed.
pub fn reduce_block(body: &[Stmt]) -> Option<Vec<Stmt>> {
    // Most programs have no such loop: find out before copying anything.
    if !body.iter().any(has_spin) {
        return None;
    }
    let mut changed = false;
    let out = body.iter().map(|s| reduce_loops(s, &mut changed)).collect();
    changed.then_some(out)
}

/// Whether `s` is or contains a loop with a pure way round its body.
fn has_spin(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::If {
            then_body,
            else_body,
            ..
        } => then_body.iter().chain(else_body).any(has_spin),
        StmtKind::While { body, .. } => may_be_pure(body) || body.iter().any(has_spin),
        _ => false,
    }
}

/// `s` with the loops in it reduced, without splitting any path of `s` itself.
fn reduce_loops(s: &Stmt, changed: &mut bool) -> Stmt {
    let kind = match &s.kind {
        StmtKind::If {
            cond,
            then_body,
            else_body,
        } => StmtKind::If {
            cond: cond.clone(),
            then_body: then_body.iter().map(|s| reduce_loops(s, changed)).collect(),
            else_body: else_body.iter().map(|s| reduce_loops(s, changed)).collect(),
        },
        StmtKind::While { cond, body } => {
            let inner: Vec<Stmt> = body.iter().map(|s| reduce_loops(s, changed)).collect();
            let mut budget = MAX_GROWTH * size(&inner).max(1);
            let spun = if may_be_pure(&inner) {
                end_pure_paths(&inner, s, &mut budget)
            } else {
                None
            };
            *changed |= spun.is_some();
            let body = spun.unwrap_or(inner);
            StmtKind::While {
                cond: cond.clone(),
                body,
            }
        }
        k => k.clone(),
    };
    Stmt { kind, span: s.span }
}

/// Whether a statement reads at most (an `assert`, an `assume`, or an `if` of such).
fn pure(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Assert(_) | StmtKind::Assume(_) => true,
        StmtKind::If {
            then_body,
            else_body,
            ..
        } => then_body.iter().all(pure) && else_body.iter().all(pure),
        _ => false,
    }
}

/// Whether some path through `body` is pure.
fn may_be_pure(body: &[Stmt]) -> bool {
    body.iter().all(|s| match &s.kind {
        StmtKind::Assert(_) | StmtKind::Assume(_) => true,
        StmtKind::If {
            then_body,
            else_body,
            ..
        } => may_be_pure(then_body) || may_be_pure(else_body),
        _ => false,
    })
}

/// Statements, counted through `if`s (a loop's body counts as one).
fn size(body: &[Stmt]) -> usize {
    body.iter()
        .map(|s| match &s.kind {
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => 1 + size(then_body) + size(else_body),
            _ => 1,
        })
        .sum()
}

/// `body` with `assume(false)` at the end of each pure path; `at` (the loop) gives its span.
/// `None` once the copies made would pass `budget` statements.
fn end_pure_paths(body: &[Stmt], at: &Stmt, budget: &mut usize) -> Option<Vec<Stmt>> {
    let mut out = Vec::new();
    for (i, s) in body.iter().enumerate() {
        if pure(s) {
            out.push(s.clone());
            continue;
        }
        match &s.kind {
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } if may_be_pure(then_body) || may_be_pure(else_body) => {
                // Mixed: the rest of the body goes into both branches.
                let rest = &body[i + 1..];
                *budget = budget.checked_sub(2 * size(rest))?;
                let mut branch = |b: &[Stmt]| {
                    let mut v = b.to_vec();
                    v.extend_from_slice(rest);
                    end_pure_paths(&v, at, budget)
                };
                let then_body = branch(then_body)?;
                let else_body = branch(else_body)?;
                out.push(Stmt {
                    kind: StmtKind::If {
                        cond: cond.clone(),
                        then_body,
                        else_body,
                    },
                    span: s.span,
                });
            }
            // Impure on every path from here: the rest as it is.
            _ => out.extend_from_slice(&body[i..]),
        }
        return Some(out);
    }
    *budget = budget.checked_sub(1)?;
    out.push(Stmt {
        kind: StmtKind::Assume(Expr {
            kind: ExprKind::Int(0),
            span: at.span,
        }),
        span: at.span,
    });
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax;

    fn body(src: &str) -> Vec<Stmt> {
        let text = format!("litmus T\nshared x = 0, y = 0;\nthread P0 {{\n{src}\n}}\n");
        let test = syntax::parse(&text).test.expect("parses");
        test.threads[0].body.clone()
    }

    fn assumes(b: &[Stmt]) -> usize {
        b.iter()
            .map(|s| match &s.kind {
                StmtKind::Assume(e) => (e.kind == ExprKind::Int(0)) as usize,
                StmtKind::If {
                    then_body,
                    else_body,
                    ..
                } => assumes(then_body) + assumes(else_body),
                StmtKind::While { body, .. } => assumes(body),
                _ => 0,
            })
            .sum()
    }

    #[test]
    fn pure_ways_round_end_in_an_assume_and_impure_loops_stay() {
        // An empty spin, and Dekker's wait (one pure way round, the else of the `if`).
        assert_eq!(
            reduce_block(&body("while (x == 0) {}")).map(|b| assumes(&b)),
            Some(1)
        );
        let dekker = "while (x == 1) { if (y != 0) { x = 0; assume(y == 0); x = 1; } }";
        assert_eq!(reduce_block(&body(dekker)).map(|b| assumes(&b)), Some(1));
        // Two mixed `if`s: the rest is copied, and each pure way round gets its assume.
        let two =
            "while (x == 1) { if (y == 1) { x = 2; } assert(x != 3); if (y == 2) { x = 3; } }";
        assert_eq!(reduce_block(&body(two)).map(|b| assumes(&b)), Some(1));
        // A register assignment, a store, an await or an inner loop on every way round: none.
        for src in [
            "while (x == 0) { r = r + 1; }",
            "while (x == 0) { y = 1; }",
            "while (x == 0) { await(y == 1); }",
            "while (x == 0) { while (y == 0) { y = 1; } }",
        ] {
            assert_eq!(reduce_block(&body(src)), None, "{src}");
        }
        // An inner spin is reduced on its own; the outer loop, which contains it, is not.
        let nested = "while (x == 0) { while (y == 0) {} }";
        assert_eq!(reduce_block(&body(nested)).map(|b| assumes(&b)), Some(1));
    }

    #[test]
    fn copying_stops_at_the_budget() {
        // Sequential `if`s whose both branches have pure and impure ways round double the
        // copies each time: the loop is left alone rather than grown past MAX_GROWTH.
        let one = "if (y == 1) { if (x == 1) { y = 2; } } else { if (x == 2) { y = 3; } }";
        let src = format!("while (x == 0) {{ {} }}", [one; 12].join(" "));
        assert_eq!(reduce_block(&body(&src)), None);
    }
}
