//! The names an expression or statements use: what a closure captures, and which of the
//! library's definitions a model needs.

use super::{Cond, Expr, Stmt};

/// The names `e` uses that `bound` does not bind, into `out`.
pub(super) fn free_vars(e: &Expr, bound: &mut Vec<String>, out: &mut Vec<String>) {
    let with = |names: Vec<&str>, e: &Expr, bound: &mut Vec<String>, out: &mut Vec<String>| {
        let n = bound.len();
        bound.extend(names.into_iter().map(String::from));
        free_vars(e, bound, out);
        bound.truncate(n);
    };
    match e {
        Expr::Var(n, _) => {
            if !bound.contains(n) {
                out.push(n.clone());
            }
        }
        Expr::Empty | Expr::Universe | Expr::Tag(..) => {}
        Expr::Set(items, _) | Expr::Tuple(items, _) => {
            for i in items {
                free_vars(i, bound, out);
            }
        }
        Expr::Bin(_, a, b, _) | Expr::App(a, b, _) | Expr::Try(a, b) => {
            free_vars(a, bound, out);
            free_vars(b, bound, out);
        }
        Expr::Un(_, a, _) => free_vars(a, bound, out),
        Expr::Fun(f) => {
            for n in &f.free {
                if !bound.contains(n) {
                    out.push(n.clone());
                }
            }
        }
        Expr::Let(binds, body) => {
            for (_, v) in binds {
                free_vars(v, bound, out);
            }
            let names = binds.iter().flat_map(|(p, _)| p.names()).collect();
            with(names, body, bound, out);
        }
        Expr::LetRec(binds, body) => {
            let names: Vec<&str> = binds.iter().flat_map(|(p, _)| p.names()).collect();
            for (_, v) in binds {
                with(names.clone(), v, bound, out);
            }
            with(names, body, bound, out);
        }
        Expr::If(c, a, b) => {
            match &**c {
                Cond::Variant(_) => {}
                Cond::Eq(x, y) | Cond::Subset(x, y) | Cond::In(x, y) => {
                    free_vars(x, bound, out);
                    free_vars(y, bound, out);
                }
            }
            free_vars(a, bound, out);
            free_vars(b, bound, out);
        }
        Expr::Match(e, clauses, default, _) => {
            free_vars(e, bound, out);
            for (_, c) in clauses {
                free_vars(c, bound, out);
            }
            if let Some(d) = default {
                free_vars(d, bound, out);
            }
        }
        Expr::MatchSet(e, empty, elt, _) => {
            free_vars(e, bound, out);
            free_vars(empty, bound, out);
            let names = elt
                .elt
                .iter()
                .chain(&elt.rest)
                .map(String::as_str)
                .collect();
            with(names, &elt.body, bound, out);
        }
    }
}

/// Every name the statements use (free in their expressions, called, or bound by a `let`
/// that reads it back), into `out`: an over-approximation, for pruning the prelude.
pub(super) fn names_used(stmts: &[Stmt], out: &mut Vec<String>) {
    let expr = |e: &Expr, out: &mut Vec<String>| free_vars(e, &mut Vec::new(), out);
    for s in stmts {
        match s {
            Stmt::Let(binds, _) | Stmt::LetRec(binds, _) => {
                for (_, e) in binds {
                    expr(e, out);
                }
            }
            Stmt::Check { expr: e, .. } | Stmt::WithFrom(_, e, _) => expr(e, out),
            Stmt::Events(_, args, _) => {
                for e in args {
                    expr(e, out);
                }
            }
            Stmt::Procedure(_, _, body, _) => names_used(body, out),
            Stmt::Call(name, e, _, _) => {
                out.push(name.clone());
                expr(e, out);
            }
            Stmt::Forall(_, e, body, _) => {
                expr(e, out);
                names_used(body, out);
            }
            Stmt::IfVariant(_, a, b, _) => {
                names_used(a, out);
                names_used(b, out);
            }
            Stmt::Match(e, clauses, default, _) => {
                expr(e, out);
                for (_, b) in clauses {
                    names_used(b, out);
                }
                if let Some(d) = default {
                    names_used(d, out);
                }
            }
            Stmt::Include(..) | Stmt::Show | Stmt::Enum(..) | Stmt::Origin(_) => {}
        }
    }
}
