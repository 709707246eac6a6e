//! Shrinking a program while a property holds (for sweeps that found a disagreement): drop a
//! thread, a statement, an `else`, the condition or one side of it; replace an `if` or a
//! `while` by its body. Greedy, to a fixpoint.

use crate::ast::*;

/// The smallest program the greedy steps reach from `test` on which `keep` still holds (the
/// caller has seen it hold on `test`). Each step makes the program strictly smaller, so this
/// ends.
pub fn shrink(test: &Test, keep: &mut dyn FnMut(&Test) -> bool) -> Test {
    let mut cur = test.clone();
    'outer: loop {
        for cand in candidates(&cur) {
            if keep(&cand) {
                cur = cand;
                continue 'outer;
            }
        }
        return cur;
    }
}

/// Every program one step smaller than `t`, threads first (the biggest steps).
fn candidates(t: &Test) -> Vec<Test> {
    let mut out = Vec::new();
    if t.threads.len() > 1 {
        for k in 0..t.threads.len() {
            let mut c = t.clone();
            c.threads.remove(k);
            c.condition = t.condition.as_ref().and_then(|cond| {
                let mut cond = cond.clone();
                renumber(&mut cond.expr, k).then_some(cond)
            });
            out.push(c);
        }
    }
    for k in 0..t.threads.len() {
        for body in body_variants(&t.threads[k].body) {
            let mut c = t.clone();
            c.threads[k].body = body;
            out.push(c);
        }
    }
    if let Some(cond) = &t.condition {
        let mut c = t.clone();
        c.condition = None;
        out.push(c);
        for e in expr_parts(&cond.expr) {
            let mut c = t.clone();
            if let Some(cc) = &mut c.condition {
                cc.expr = e;
            }
            out.push(c);
        }
    }
    out
}

/// Renumbers `P<i>:r` past a removed thread `k`; false if the expression names thread `k`.
fn renumber(e: &mut Expr, k: usize) -> bool {
    match &mut e.kind {
        ExprKind::ThreadReg { thread, .. } => {
            if *thread == k {
                return false;
            }
            if *thread > k {
                *thread -= 1;
            }
            true
        }
        ExprKind::Unary(_, a) => renumber(a, k),
        ExprKind::Binary(_, a, b) => renumber(a, k) && renumber(b, k),
        _ => true,
    }
}

/// The sides of a condition's `&&`, `||` and `!`.
fn expr_parts(e: &Expr) -> Vec<Expr> {
    match &e.kind {
        ExprKind::Binary(BinOp::And | BinOp::Or, a, b) => vec![(**a).clone(), (**b).clone()],
        ExprKind::Unary(UnOp::Not, a) => vec![(**a).clone()],
        _ => vec![],
    }
}

fn body_variants(body: &[Stmt]) -> Vec<Vec<Stmt>> {
    let mut out = Vec::new();
    let splice = |i: usize, with: &[Stmt]| {
        let mut v = body[..i].to_vec();
        v.extend_from_slice(with);
        v.extend_from_slice(&body[i + 1..]);
        v
    };
    for (i, stmt) in body.iter().enumerate() {
        out.push(splice(i, &[]));
        match &stmt.kind {
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => {
                out.push(splice(i, then_body));
                if !else_body.is_empty() {
                    out.push(splice(i, else_body));
                }
                let with = |then_body: Vec<Stmt>, else_body: Vec<Stmt>| {
                    let s = Stmt {
                        kind: StmtKind::If {
                            cond: cond.clone(),
                            then_body,
                            else_body,
                        },
                        span: stmt.span,
                    };
                    splice(i, &[s])
                };
                if !else_body.is_empty() {
                    out.push(with(then_body.clone(), vec![]));
                }
                for v in body_variants(then_body) {
                    out.push(with(v, else_body.clone()));
                }
                for v in body_variants(else_body) {
                    out.push(with(then_body.clone(), v));
                }
            }
            StmtKind::While { cond, body: inner } => {
                out.push(splice(i, inner));
                for v in body_variants(inner) {
                    let s = Stmt {
                        kind: StmtKind::While {
                            cond: cond.clone(),
                            body: v,
                        },
                        span: stmt.span,
                    };
                    out.push(splice(i, &[s]));
                }
            }
            _ => {}
        }
    }
    out
}
