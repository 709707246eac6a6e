//! [`Source`] → [`Program`]: every call expanded through the `.def` file (or C11's built-in
//! `atomic_*` forms), herd's primitives turned into memory operations. An unknown macro,
//! primitive, memory order or argument count is an error at the call in the test.

use super::def::{Body, Defs};
use super::source::{SExpr, SStmt, SUnOp, Source};
use super::{Annot, Expr, MemoryOrder, Program, Stmt, Thread};
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

pub(super) struct Lower<'a> {
    pub(super) defs: &'a Defs,
    pub(super) diags: &'a mut Vec<Diagnostic>,
    /// Locals declared so far in the thread (`int r0;`).
    pub(super) locals: BTreeSet<String>,
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

impl Lower<'_> {
    pub(super) fn error(&mut self, span: Span, message: impl Into<String>) {
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

    pub(super) fn undefined(&mut self, name: &Name) {
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

    pub(super) fn arity(&mut self, name: &str, args: &[SExpr], want: usize, span: Span) -> bool {
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

    pub(super) fn order(&mut self, e: &SExpr) -> MemoryOrder {
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
    pub(super) fn lvalue(&mut self, e: &SExpr, depth: usize) -> Expr {
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

    pub(super) fn value(&mut self, e: &SExpr, depth: usize) -> Expr {
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
}
