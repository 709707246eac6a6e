//! [`Source`] → [`Program`]: every call expanded through the `.def` file (or C11's built-in
//! `atomic_*` forms), herd's primitives turned into memory operations. An unknown macro,
//! primitive, memory order or argument count is an error at the call in the test.

use super::def::{Body, Defs};
use super::source::{SExpr, SStmt, SUnOp, Source};
use super::{Annot, BinOp, Expr, MemoryOrder, Program, Returns, Stmt, Thread};
use crate::ast::Name;
use crate::diag::Diagnostic;
use crate::span::Span;
use std::collections::BTreeSet;

/// How deep macros may expand into macros (a recursive definition stops here).
pub const MAX_EXPANSION_DEPTH: usize = 32;

/// Expands and lowers every thread of `src` with `defs`; the errors, in source order, if any.
pub fn lower(src: &Source, defs: &Defs) -> Result<Program, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut threads = Vec::new();
    for t in &src.threads {
        let mut l = Lower {
            defs,
            diags: &mut diags,
            locals: BTreeSet::new(),
        };
        let mut body = Vec::new();
        l.stmts(&t.body, &mut body);
        threads.push(Thread {
            name: t.name.clone(),
            params: t.params.clone(),
            body,
        });
    }
    if diags.is_empty() {
        Ok(Program { threads })
    } else {
        diags.sort_by_key(|d| d.span.start);
        Err(diags)
    }
}

struct Lower<'a> {
    defs: &'a Defs,
    diags: &'a mut Vec<Diagnostic>,
    /// Locals declared so far in the thread (`int r0;`).
    locals: BTreeSet<String>,
}

/// `e` with the macro's parameters replaced by the call's arguments and every other span
/// the call's (a `.def` file's positions mean nothing in the test).
fn subst(e: &SExpr, args: &[SExpr], at: Span) -> SExpr {
    let b = |e: &SExpr| Box::new(subst(e, args, at));
    match e {
        SExpr::Param(i, _) => args.get(*i).cloned().unwrap_or(SExpr::Int(0, at)),
        SExpr::Int(v, _) => SExpr::Int(*v, at),
        SExpr::Ident(n) => SExpr::Ident(Name {
            text: n.text.clone(),
            span: at,
        }),
        SExpr::Op(op, _) => SExpr::Op(*op, at),
        SExpr::Unary(op, x, _) => SExpr::Unary(*op, b(x), at),
        SExpr::Binary(op, l, r, _) => SExpr::Binary(*op, b(l), b(r), at),
        SExpr::Cond(c, x, y, _) => SExpr::Cond(b(c), b(x), b(y), at),
        SExpr::Assign {
            op, left, right, ..
        } => SExpr::Assign {
            op: *op,
            left: b(left),
            right: b(right),
            span: at,
        },
        SExpr::Call { name, args: a, .. } => SExpr::Call {
            name: Name {
                text: name.text.clone(),
                span: at,
            },
            args: a.iter().map(|x| subst(x, args, at)).collect(),
            span: at,
        },
        SExpr::Prim {
            name, tag, args: a, ..
        } => SExpr::Prim {
            name: name.clone(),
            tag: tag.clone(),
            args: a.iter().map(|x| subst(x, args, at)).collect(),
            span: at,
        },
    }
}

/// C11's operations that take a memory order, built in (herd's C parser knows them too),
/// and how many arguments each takes.
const C11: [(&str, usize); 15] = [
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
const PRIMS: [(&str, usize); 14] = [
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
    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, message));
    }

    fn stmts(&mut self, body: &[SStmt], out: &mut Vec<Stmt>) {
        for s in body {
            self.stmt(s, out);
        }
    }

    fn stmt(&mut self, s: &SStmt, out: &mut Vec<Stmt>) {
        match s {
            SStmt::Decl { name, value, .. } => {
                let value = value.as_ref().map(|v| self.value(v, 0));
                self.locals.insert(name.text.clone());
                out.push(Stmt::Local {
                    name: name.clone(),
                    value,
                });
            }
            SStmt::Expr(e) => self.effect(e, 0, out),
            SStmt::If {
                cond,
                then,
                otherwise,
            } => {
                let cond = self.value(cond, 0);
                let (mut t, mut o) = (Vec::new(), Vec::new());
                self.stmts(then, &mut t);
                self.stmts(otherwise, &mut o);
                out.push(Stmt::If {
                    cond,
                    then: t,
                    otherwise: o,
                });
            }
            SStmt::While { cond, body } => {
                let cond = self.value(cond, 0);
                let mut b = Vec::new();
                self.stmts(body, &mut b);
                out.push(Stmt::While { cond, body: b });
            }
            SStmt::Block(b) => self.stmts(b, out),
        }
    }

    /// The definition of a called macro, or `None` (with an error unless it is built in).
    fn expand(&mut self, name: &Name, args: &[SExpr], span: Span, depth: usize) -> Option<Body> {
        if depth >= MAX_EXPANSION_DEPTH {
            self.error(
                span,
                format!(
                    "`{}`: macros expand more than {MAX_EXPANSION_DEPTH} deep (a recursive definition in {}?)",
                    name.text, self.defs.file
                ),
            );
            return None;
        }
        let def = self.defs.get(&name.text)?;
        if def.params.len() != args.len() {
            self.error(
                span,
                format!(
                    "`{}` takes {} argument{} ({}, line {}), not {}",
                    name.text,
                    def.params.len(),
                    if def.params.len() == 1 { "" } else { "s" },
                    self.defs.file,
                    def.line,
                    args.len()
                ),
            );
            return None;
        }
        Some(match &def.body {
            Body::Expr(e) => Body::Expr(subst(e, args, span)),
            Body::Block(b) => Body::Block(b.iter().map(|e| subst(e, args, span)).collect()),
        })
    }

    fn undefined(&mut self, name: &Name) {
        let file = if self.defs.file.is_empty() {
            "the `.def` file".to_string()
        } else {
            format!("`{}`", self.defs.file)
        };
        self.error(
            name.span,
            format!(
                "unknown macro `{}`: not defined in {file} (searched) nor one of C11's built-in `atomic_*` operations",
                name.text
            ),
        );
    }

    fn arity(&mut self, name: &str, args: &[SExpr], want: usize, span: Span) -> bool {
        if args.len() == want {
            return true;
        }
        self.error(
            span,
            format!(
                "`{name}` takes {want} argument{}, not {}",
                if want == 1 { "" } else { "s" },
                args.len()
            ),
        );
        false
    }

    /// An expression evaluated as a statement.
    fn effect(&mut self, e: &SExpr, depth: usize, out: &mut Vec<Stmt>) {
        match e {
            SExpr::Assign {
                op,
                left,
                right,
                span,
            } => {
                let mut value = self.value(right, depth);
                match &**left {
                    SExpr::Ident(n) => {
                        if let Some(op) = op {
                            value = Expr::Binary(*op, Box::new(Expr::Var(n.clone())), Box::new(value));
                        }
                        out.push(Stmt::Assign {
                            name: n.clone(),
                            value,
                        });
                    }
                    SExpr::Unary(SUnOp::Deref, p, _) => {
                        let addr = self.value(p, depth);
                        if let Some(op) = op {
                            let old = Expr::Load {
                                annot: Annot::Plain,
                                addr: Box::new(addr.clone()),
                                span: *span,
                            };
                            value = Expr::Binary(*op, Box::new(old), Box::new(value));
                        }
                        out.push(Stmt::Store {
                            annot: Annot::Plain,
                            addr,
                            value,
                            span: *span,
                        });
                    }
                    other => self.error(
                        other.span(),
                        "cannot assign to this: expected a register (`r0 = ...`) or a location (`*x = ...`)",
                    ),
                }
            }
            SExpr::Call { name, args, span } => match self.expand(name, args, *span, depth) {
                Some(Body::Block(b)) => {
                    for s in &b {
                        self.effect(s, depth + 1, out);
                    }
                }
                Some(Body::Expr(x)) => self.effect(&x, depth + 1, out),
                None if self.defs.get(&name.text).is_some() || depth >= MAX_EXPANSION_DEPTH => {}
                None => match name.text.as_str() {
                    "atomic_store_explicit" | "atomic_store" => {
                        let explicit = name.text.ends_with("_explicit");
                        if !self.arity(&name.text, args, if explicit { 3 } else { 2 }, *span) {
                            return;
                        }
                        let order = if explicit {
                            self.order(&args[2])
                        } else {
                            MemoryOrder::SeqCst
                        };
                        let addr = self.value(&args[0], depth);
                        let value = self.value(&args[1], depth);
                        out.push(Stmt::Store {
                            annot: Annot::Order(order),
                            addr,
                            value,
                            span: *span,
                        });
                    }
                    "atomic_thread_fence" => {
                        if self.arity(&name.text, args, 1, *span) {
                            let order = self.order(&args[0]);
                            out.push(Stmt::Fence {
                                annot: Annot::Order(order),
                                span: *span,
                            });
                        }
                    }
                    _ => {
                        let v = self.value(e, depth);
                        out.push(Stmt::Eval(v));
                    }
                },
            },
            SExpr::Prim {
                name,
                tag,
                args,
                span,
            } => {
                let annot = tag.clone().map_or(Annot::Plain, Annot::Tag);
                match name.as_str() {
                    "__store" => {
                        if self.arity(name, args, 2, *span) {
                            let addr = self.lvalue(&args[0], depth);
                            let value = self.value(&args[1], depth);
                            out.push(Stmt::Store {
                                annot,
                                addr,
                                value,
                                span: *span,
                            });
                        }
                    }
                    "__fence" => {
                        if self.arity(name, args, 0, *span) {
                            out.push(Stmt::Fence { annot, span: *span });
                        }
                    }
                    "__lock" | "__unlock" => {
                        if self.arity(name, args, 1, *span) {
                            let addr = self.value(&args[0], depth);
                            out.push(if name == "__lock" {
                                Stmt::Lock { addr, span: *span }
                            } else {
                                Stmt::Unlock { addr, span: *span }
                            });
                        }
                    }
                    "__srcu" => {
                        if self.arity(name, args, 1, *span) {
                            let addr = self.value(&args[0], depth);
                            out.push(Stmt::Srcu {
                                tag: tag.clone().unwrap_or_default(),
                                addr,
                                span: *span,
                            });
                        }
                    }
                    _ => {
                        let v = self.value(e, depth);
                        out.push(Stmt::Eval(v));
                    }
                }
            }
            _ => {
                let v = self.value(e, depth);
                out.push(Stmt::Eval(v));
            }
        }
    }

    fn order(&mut self, e: &SExpr) -> MemoryOrder {
        if let SExpr::Ident(n) = e {
            if let Some(o) = MemoryOrder::from_name(&n.text) {
                return o;
            }
        }
        self.error(
            e.span(),
            "expected a memory order (`memory_order_relaxed`, `_consume`, `_acquire`, `_release`, `_acq_rel` or `_seq_cst`)",
        );
        MemoryOrder::SeqCst
    }

    /// The address of an lvalue given to `__load`/`__store`: `*p` is at `p`; a location's
    /// name `x` is at `&x`.
    fn lvalue(&mut self, e: &SExpr, depth: usize) -> Expr {
        match e {
            SExpr::Unary(SUnOp::Deref, p, _) => self.value(p, depth),
            SExpr::Ident(n) if !self.locals.contains(&n.text) => Expr::AddrOf(n.clone()),
            other => {
                self.error(
                    other.span(),
                    "expected a memory location here (`*x`, or a shared location's name)",
                );
                Expr::Int(0, other.span())
            }
        }
    }

    fn value(&mut self, e: &SExpr, depth: usize) -> Expr {
        let b = |x: Expr| Box::new(x);
        match e {
            SExpr::Int(v, s) => Expr::Int(*v, *s),
            SExpr::Ident(n) => Expr::Var(n.clone()),
            SExpr::Unary(SUnOp::Deref, p, s) => {
                let addr = self.value(p, depth);
                Expr::Load {
                    annot: Annot::Plain,
                    addr: b(addr),
                    span: *s,
                }
            }
            SExpr::Unary(SUnOp::AddrOf, x, _) => match &**x {
                SExpr::Ident(n) => Expr::AddrOf(n.clone()),
                SExpr::Unary(SUnOp::Deref, p, _) => self.value(p, depth),
                other => {
                    self.error(other.span(), "expected a name after `&`");
                    Expr::Int(0, other.span())
                }
            },
            SExpr::Unary(SUnOp::Op(op), x, _) => {
                let x = self.value(x, depth);
                Expr::Unary(*op, b(x))
            }
            SExpr::Binary(op, l, r, _) => {
                let l = self.value(l, depth);
                let r = self.value(r, depth);
                Expr::Binary(*op, b(l), b(r))
            }
            SExpr::Cond(c, x, y, _) => {
                let c = self.value(c, depth);
                let x = self.value(x, depth);
                let y = self.value(y, depth);
                Expr::Cond(b(c), b(x), b(y))
            }
            SExpr::Assign { span, .. } => {
                self.error(
                    *span,
                    "an assignment inside an expression is not supported: write it as a statement",
                );
                Expr::Int(0, *span)
            }
            SExpr::Param(_, s) | SExpr::Op(_, s) => {
                self.error(*s, "expected a value");
                Expr::Int(0, *s)
            }
            SExpr::Call { name, args, span } => match self.expand(name, args, *span, depth) {
                Some(Body::Expr(x)) => self.value(&x, depth + 1),
                Some(Body::Block(_)) => {
                    self.error(
                        *span,
                        format!(
                            "`{}` has no value: {} defines it as a block of statements",
                            name.text, self.defs.file
                        ),
                    );
                    Expr::Int(0, *span)
                }
                None if self.defs.get(&name.text).is_some() || depth >= MAX_EXPANSION_DEPTH => {
                    Expr::Int(0, *span)
                }
                None => self.c11(name, args, *span, depth),
            },
            SExpr::Prim {
                name,
                tag,
                args,
                span,
            } => self.prim(name, tag, args, *span, depth),
        }
    }

    fn c11(&mut self, name: &Name, args: &[SExpr], span: Span, depth: usize) -> Expr {
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

    fn prim(
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
