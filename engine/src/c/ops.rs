//! The operations [`super::lower`] knows without a `.def` file: C11's `atomic_*` forms with a
//! memory order, and herd's primitives (`__load{tag}`, `__xchg{tag}`, ...) as values.

use super::lower::Lower;
use super::source::SExpr;
use super::{Annot, BinOp, Expr, MemoryOrder, Returns};
use crate::ast::Name;
use crate::span::Span;

/// C11's operations that take a memory order, built in (herd's C parser knows them too),
/// and how many arguments each takes.
pub(super) const C11: [(&str, usize); 15] = [
    ("atomic_load_explicit", 2),
    ("atomic_store_explicit", 3),
    ("atomic_exchange_explicit", 3),
    ("atomic_fetch_add_explicit", 3),
    ("atomic_fetch_sub_explicit", 3),
    ("atomic_fetch_or_explicit", 3),
    ("atomic_fetch_xor_explicit", 3),
    ("atomic_fetch_and_explicit", 3),
    ("atomic_compare_exchange_strong_explicit", 5),
    ("atomic_compare_exchange_weak_explicit", 5),
    ("atomic_compare_exchange_strong", 3),
    ("atomic_compare_exchange_weak", 3),
    ("atomic_thread_fence", 1),
    ("atomic_load", 1),
    ("atomic_store", 2),
];

/// herd's primitives and how many arguments each takes.
pub(super) const PRIMS: [(&str, usize); 14] = [
    ("__load", 1),
    ("__store", 2),
    ("__fence", 0),
    ("__xchg", 2),
    ("__cmpxchg", 3),
    ("__atomic_op", 3),
    ("__atomic_op_return", 3),
    ("__atomic_fetch_op", 3),
    ("__atomic_add_unless", 3),
    ("__lock", 1),
    ("__unlock", 1),
    ("__trylock", 1),
    ("__islocked", 1),
    ("__srcu", 1),
];

impl Lower<'_> {
    pub(super) fn c11(&mut self, name: &Name, args: &[SExpr], span: Span, depth: usize) -> Expr {
        let zero = Expr::Int(0, span);
        let Some(&(_, want)) = C11.iter().find(|(n, _)| *n == name.text) else {
            self.undefined(name);
            return zero;
        };
        if !self.arity(&name.text, args, want, span) {
            return zero;
        }
        let b = |x: Expr| Box::new(x);
        let n = name.text.as_str();
        match n {
            "atomic_load_explicit" | "atomic_load" => {
                let order = if want == 2 {
                    self.order(&args[1])
                } else {
                    MemoryOrder::SeqCst
                };
                let addr = self.value(&args[0], depth);
                Expr::Load {
                    annot: Annot::Order(order),
                    addr: b(addr),
                    span,
                }
            }
            "atomic_exchange_explicit" => {
                let order = self.order(&args[2]);
                let addr = self.value(&args[0], depth);
                let value = self.value(&args[1], depth);
                Expr::Xchg {
                    annot: Annot::Order(order),
                    addr: b(addr),
                    value: b(value),
                    span,
                }
            }
            _ if n.starts_with("atomic_fetch_") => {
                let op = match n
                    .trim_start_matches("atomic_fetch_")
                    .trim_end_matches("_explicit")
                {
                    "add" => BinOp::Add,
                    "sub" => BinOp::Sub,
                    "or" => BinOp::Or,
                    "xor" => BinOp::Xor,
                    _ => BinOp::And,
                };
                let order = self.order(&args[2]);
                let addr = self.value(&args[0], depth);
                let value = self.value(&args[1], depth);
                Expr::AtomicOp {
                    annot: Annot::Order(order),
                    addr: b(addr),
                    op,
                    value: b(value),
                    returns: Returns::Old,
                    span,
                }
            }
            _ if n.starts_with("atomic_compare_exchange_") => {
                let (success, failure) = if want == 5 {
                    (self.order(&args[3]), self.order(&args[4]))
                } else {
                    (MemoryOrder::SeqCst, MemoryOrder::SeqCst)
                };
                let addr = self.value(&args[0], depth);
                let expected = self.value(&args[1], depth);
                let desired = self.value(&args[2], depth);
                Expr::CompareExchange {
                    strong: n.contains("strong"),
                    addr: b(addr),
                    expected: b(expected),
                    desired: b(desired),
                    success,
                    failure,
                    span,
                }
            }
            _ => {
                self.error(
                    span,
                    format!("`{n}` has no value: it is a statement (a store or a fence)"),
                );
                zero
            }
        }
    }

    pub(super) fn prim(
        &mut self,
        name: &str,
        tag: &Option<String>,
        args: &[SExpr],
        span: Span,
        depth: usize,
    ) -> Expr {
        let zero = Expr::Int(0, span);
        let Some(&(_, want)) = PRIMS.iter().find(|(n, _)| *n == name) else {
            self.error(
                span,
                format!("unknown primitive `{name}` in {} (herd's are `__load`, `__store`, `__fence`, `__xchg`, `__cmpxchg`, `__atomic_op`, `__atomic_op_return`, `__atomic_fetch_op`, `__atomic_add_unless`, `__lock`, `__unlock`, `__trylock`, `__islocked`, `__srcu`)", self.defs.file),
            );
            return zero;
        };
        if !self.arity(name, args, want, span) {
            return zero;
        }
        let annot = tag.clone().map_or(Annot::Plain, Annot::Tag);
        let b = |x: Expr| Box::new(x);
        match name {
            "__load" => {
                let addr = self.lvalue(&args[0], depth);
                Expr::Load {
                    annot,
                    addr: b(addr),
                    span,
                }
            }
            "__xchg" => {
                let addr = self.value(&args[0], depth);
                let value = self.value(&args[1], depth);
                Expr::Xchg {
                    annot,
                    addr: b(addr),
                    value: b(value),
                    span,
                }
            }
            "__cmpxchg" => {
                let addr = self.value(&args[0], depth);
                let old = self.value(&args[1], depth);
                let new = self.value(&args[2], depth);
                Expr::Cmpxchg {
                    annot,
                    addr: b(addr),
                    old: b(old),
                    new: b(new),
                    span,
                }
            }
            "__atomic_op" | "__atomic_op_return" | "__atomic_fetch_op" => {
                let returns = match name {
                    "__atomic_op" => Returns::Nothing,
                    "__atomic_op_return" => Returns::New,
                    _ => Returns::Old,
                };
                let op = match &args[1] {
                    SExpr::Op(op, _) => *op,
                    other => {
                        self.error(
                            other.span(),
                            "expected an operator (`+`, `-`, `&`, `|`, `^`, `&~`)",
                        );
                        BinOp::Add
                    }
                };
                let addr = self.value(&args[0], depth);
                let value = self.value(&args[2], depth);
                Expr::AtomicOp {
                    annot,
                    addr: b(addr),
                    op,
                    value: b(value),
                    returns,
                    span,
                }
            }
            "__atomic_add_unless" => {
                let addr = self.value(&args[0], depth);
                let add = self.value(&args[1], depth);
                let unless = self.value(&args[2], depth);
                Expr::AddUnless {
                    annot,
                    addr: b(addr),
                    add: b(add),
                    unless: b(unless),
                    span,
                }
            }
            "__trylock" => {
                let addr = self.value(&args[0], depth);
                Expr::TryLock {
                    addr: b(addr),
                    span,
                }
            }
            "__islocked" => {
                let addr = self.value(&args[0], depth);
                Expr::IsLocked {
                    addr: b(addr),
                    span,
                }
            }
            _ => {
                self.error(span, format!("`{name}` has no value: it is a statement"));
                zero
            }
        }
    }
}

impl super::Source {
    /// Whether the test uses C11's forms: an `atomic_*` operation of [`C11`] or a
    /// `memory_order_*` (the callers check such a test under RC11 when no model is named).
    pub fn uses_c11(&self) -> bool {
        fn expr(e: &SExpr) -> bool {
            match e {
                SExpr::Ident(n) => n.text.starts_with("memory_order_"),
                SExpr::Call { name, args, .. } => {
                    C11.iter().any(|(n, _)| *n == name.text) || args.iter().any(expr)
                }
                SExpr::Unary(_, a, _) => expr(a),
                SExpr::Binary(_, a, b, _) => expr(a) || expr(b),
                SExpr::Cond(a, b, c, _) => expr(a) || expr(b) || expr(c),
                SExpr::Assign { left, right, .. } => expr(left) || expr(right),
                SExpr::Prim { args, .. } => args.iter().any(expr),
                SExpr::Int(..) | SExpr::Param(..) | SExpr::Op(..) => false,
            }
        }
        fn stmt(s: &super::source::SStmt) -> bool {
            use super::source::SStmt;
            match s {
                SStmt::Decl { value, .. } => value.as_ref().is_some_and(expr),
                SStmt::Expr(e) => expr(e),
                SStmt::If {
                    cond,
                    then,
                    otherwise,
                } => expr(cond) || then.iter().any(stmt) || otherwise.iter().any(stmt),
                SStmt::While { cond, body } => expr(cond) || body.iter().any(stmt),
                SStmt::Block(b) => b.iter().any(stmt),
            }
        }
        self.threads.iter().flat_map(|t| &t.body).any(stmt)
    }
}
