//! Lowering of herd's `C` tests (`docs/reference.md#c`): the header, init block, parameters,
//! `locations`, `filter` and condition to an [`ast::Test`] with empty thread bodies, and the
//! code as written to [`c::Source`] (macros stay calls: [`crate::c::lower`] expands them with
//! the model's `.def` file, which the front end does not have).
//!
//! - Threads are `P0`, `P1`, ... in order; their parameters (`int *x`) and the init block's
//!   names are the shared locations, with the condition's and `locations`' names, in order of
//!   first mention, initialised to 0 unless `x = 1` says otherwise.
//! - A thread's registers are its variables: declared (`int r0;`) or only assigned (`r0 =
//!   READ_ONCE(*x);`, as herd allows).
//! - What C has but the dialect does not (`x->f`, `a[i]`) is an error at the expression.

mod exprs;

use super::expr::{ExprLowerer, Mode, Scope, Sym, ThreadInfo};
use super::shared::{lower_condition, lower_header};
use super::{children_by_field, field, span, Src};

use crate::ast::{Dialect, Name, SharedDecl, Test, Thread};
use crate::c::source::{InitEntry, Param, SExpr, SStmt, SThread, SUnOp, Source};
use crate::c::{Expected, UnOp};
use crate::diag::Diagnostic;
use crate::span::Span;
use std::collections::{BTreeSet, HashMap};
use tree_sitter::Node;

/// The node a C test parses to.
pub(in crate::syntax) const NODE: &str = "c_test";

/// Deepest nesting of statements and expressions lowered (deeper is reported, not followed).
const MAX_DEPTH: usize = 200;

/// Lowers a `c_test` node; `None` when lowering stopped early.
pub(in crate::syntax) fn lower(
    src: &Src<'_>,
    node: Node,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Test, Source)> {
    let (name, description) = lower_header(src, node);
    let mut l = Lower {
        src,
        diags,
        shared: Vec::new(),
        by_name: HashMap::new(),
        depth: 0,
    };
    let mut init = Vec::new();
    let mut reg_init: Vec<(String, Name, i64)> = Vec::new();
    if let Some(block) = field(node, "init") {
        for entry in children_by_field(block, "entry") {
            if src.should_stop() {
                return None;
            }
            if let Some(e) = l.init_entry(entry) {
                let v = match &e.value {
                    Some(SExpr::Int(v, _)) => Some(*v),
                    Some(SExpr::Unary(SUnOp::Op(UnOp::Neg), x, _)) => match &**x {
                        SExpr::Int(v, _) => Some(-*v),
                        _ => None,
                    },
                    // `atomic_t v = ATOMIC_INIT(2)`
                    Some(SExpr::Call { name, args, .. }) if name.text == "ATOMIC_INIT" => {
                        match args.as_slice() {
                            [SExpr::Int(v, _)] => Some(*v),
                            _ => None,
                        }
                    }
                    _ => None,
                };
                match &e.thread {
                    Some(t) => {
                        // a register initialised to an address (`int 0:r1 = z;`) is one
                        // too; its value is read from `c::Source::init`
                        reg_init.push((t.clone(), e.name.clone(), v.unwrap_or(0)));
                    }
                    None => {
                        let i = l.mention(&e.name.text, e.name.span);
                        if let Some(v) = v {
                            l.shared[i].init = vec![v];
                        }
                        // `int *p = &y`, `p = y`: `y` is a location too.
                        let target = match &e.value {
                            Some(SExpr::Ident(n)) => Some(n),
                            Some(SExpr::Unary(SUnOp::AddrOf, x, _)) => match &**x {
                                SExpr::Ident(n) => Some(n),
                                _ => None,
                            },
                            _ => None,
                        };
                        if let Some(n) = target {
                            l.mention(&n.text, n.span);
                        }
                    }
                }
                init.push(e);
            }
        }
    }
    let mut threads = Vec::new();
    let mut sthreads = Vec::new();
    let mut infos = Vec::new();
    for (i, t) in children_by_field(node, "thread").into_iter().enumerate() {
        if src.should_stop() {
            return None;
        }
        let Some(name_node) = field(t, "name") else {
            continue;
        };
        let name = src.name(name_node);
        let expected = format!("P{i}");
        if name.text != expected {
            l.error(
                name.span,
                format!(
                    "threads are named P0, P1, ... in order: expected `{expected}`, found `{}`",
                    name.text
                ),
            );
        }
        let mut params = Vec::new();
        for p in children_by_field(t, "parameter") {
            let (Some(ty), Some(n)) = (field(p, "type"), field(p, "name")) else {
                continue;
            };
            let pname = src.name(n);
            l.mention(&pname.text, pname.span);
            params.push(Param {
                ty: type_text(src, ty),
                pointers: children_by_field(p, "pointer").len().min(255) as u8,
                name: pname,
            });
        }
        let mut body = Vec::new();
        if let Some(b) = field(t, "body") {
            l.block(b, &mut body);
        }
        if src.should_stop() {
            return None;
        }
        let mut regs = BTreeSet::new();
        variables(&body, &mut regs);
        for p in &params {
            regs.remove(&p.name.text);
        }
        let mut thread_init = Vec::new();
        for (th, reg, v) in &reg_init {
            if th.eq_ignore_ascii_case(&name.text) || *th == i.to_string() {
                regs.insert(reg.text.clone());
                if *v != 0 {
                    thread_init.push((reg.clone(), *v));
                }
            }
        }
        infos.push(ThreadInfo {
            name: name.text.clone(),
            regs,
        });
        threads.push(Thread {
            name: name.clone(),
            reg_init: thread_init,
            body: Vec::new(),
            span: span(t),
        });
        sthreads.push(SThread {
            name,
            params,
            body,
            span: span(t),
        });
    }
    // Names the condition, the filter and `locations` mention are locations too (herd's
    // `x=1` of a location no thread names), except thread registers.
    let cond = field(node, "condition");
    let filter = field(node, "filter").and_then(|f| field(f, "expression"));
    let locs = children_by_field(node, "locations");
    for e in cond
        .and_then(|c| field(c, "expression"))
        .into_iter()
        .chain(filter)
        .chain(locs.iter().copied())
    {
        l.mention_all(e);
    }
    let scope = Scope {
        shared: &l.shared,
        by_name: &l.by_name,
    };
    let condition = cond.and_then(|c| lower_condition(src, &scope, l.diags, Dialect::C, c, &infos));
    let in_condition = |diags: &mut Vec<Diagnostic>, node: Node| {
        ExprLowerer {
            src,
            scope: &scope,
            diags,
            dialect: Dialect::C,
            mode: Mode::Condition(&infos),
        }
        .lower(node, 0)
    };
    let filter = filter.map(|f| in_condition(l.diags, f));
    // `locations [x; 1:r0;]`: an item that does not lower is left out, as for AArch64.
    let mut shown = Vec::new();
    for clause in &locs {
        let mut cursor = clause.walk();
        let items: Vec<Node> = clause.named_children(&mut cursor).collect();
        for item in items {
            let before = l.diags.len();
            let e = in_condition(l.diags, item);
            if l.diags.len() == before {
                shown.push(e);
            } else {
                l.diags.truncate(before);
            }
        }
    }
    let test = Test {
        dialect: Dialect::C,
        name,
        description,
        shared: l.shared,
        mutexes: Vec::new(),
        threads,
        condition,
        span: span(node),
    };
    let expected = Expected::find(src.text);
    Some((
        test,
        Source {
            init,
            threads: sthreads,
            expected,
            filter,
            shown,
        },
    ))
}

/// A type as written, words separated by one space (`volatile int`, `struct srcu_struct`).
fn type_text(src: &Src, node: Node) -> String {
    src.text(node)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every variable a thread's statements declare or assign (its registers).
fn variables(body: &[SStmt], out: &mut BTreeSet<String>) {
    fn expr(e: &SExpr, out: &mut BTreeSet<String>) {
        match e {
            SExpr::Assign { left, right, .. } => {
                if let SExpr::Ident(n) = &**left {
                    out.insert(n.text.clone());
                }
                expr(left, out);
                expr(right, out);
            }
            SExpr::Unary(_, x, _) => expr(x, out),
            SExpr::Binary(_, l, r, _) => {
                expr(l, out);
                expr(r, out);
            }
            SExpr::Cond(c, x, y, _) => {
                expr(c, out);
                expr(x, out);
                expr(y, out);
            }
            SExpr::Call { args, .. } | SExpr::Prim { args, .. } => {
                for a in args {
                    expr(a, out);
                }
            }
            _ => {}
        }
    }
    for s in body {
        match s {
            SStmt::Decl { name, value, .. } => {
                out.insert(name.text.clone());
                if let Some(v) = value {
                    expr(v, out);
                }
            }
            SStmt::Expr(e) => expr(e, out),
            SStmt::If {
                cond,
                then,
                otherwise,
            } => {
                expr(cond, out);
                variables(then, out);
                variables(otherwise, out);
            }
            SStmt::While { cond, body } => {
                expr(cond, out);
                variables(body, out);
            }
            SStmt::Block(b) => variables(b, out),
        }
    }
}

struct Lower<'s, 'd> {
    src: &'s Src<'s>,
    pub(super) diags: &'d mut Vec<Diagnostic>,
    shared: Vec<SharedDecl>,
    by_name: HashMap<String, Sym>,
    depth: usize,
}

impl Lower<'_, '_> {
    pub(super) fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, message));
    }

    /// The index of location `name`, declared at its first mention.
    fn mention(&mut self, name: &str, at: Span) -> usize {
        if let Some(Sym::Shared(i)) = self.by_name.get(name) {
            return *i;
        }
        let i = self.shared.len();
        self.shared.push(SharedDecl {
            name: Name {
                text: name.to_string(),
                span: at,
            },
            size: None,
            init: vec![0],
            span: at,
        });
        self.by_name.insert(name.to_string(), Sym::Shared(i));
        i
    }

    /// Every identifier under `node` that is not a thread's register is a location.
    fn mention_all(&mut self, node: Node) {
        let src = self.src;
        super::shared::each_location(src, node, |text, at| {
            self.mention(text, at);
        });
    }

    fn init_entry(&mut self, entry: Node) -> Option<InitEntry> {
        let loc = field(entry, "location")?;
        let (thread, name) = match loc.kind() {
            "thread_register" => (
                field(loc, "thread").map(|t| self.src.text(t).to_string()),
                self.src.name(field(loc, "register")?),
            ),
            "memory_operand" => (None, self.src.name(field(loc, "location")?)),
            _ => (None, self.src.name(loc)),
        };
        if let Some(s) = field(entry, "size") {
            self.error(span(s), "arrays are not supported in C tests");
        }
        let value = field(entry, "value").map(|v| self.expr(v));
        Some(InitEntry {
            ty: field(entry, "type").map(|t| type_text(self.src, t)),
            pointers: children_by_field(entry, "pointer").len().min(255) as u8,
            thread,
            name,
            value,
            span: span(entry),
        })
    }

    fn block(&mut self, node: Node, out: &mut Vec<SStmt>) {
        for s in children_by_field(node, "statement") {
            if self.src.should_stop() {
                return;
            }
            self.stmt(s, out);
        }
    }

    fn nested(&mut self, node: Node) -> bool {
        if self.depth >= MAX_DEPTH {
            self.error(
                span(node),
                format!("nested more than {MAX_DEPTH} deep: not supported"),
            );
            return false;
        }
        true
    }

    /// One statement; a block's statements are appended as a [`SStmt::Block`].
    fn stmt(&mut self, node: Node, out: &mut Vec<SStmt>) {
        if !self.nested(node) {
            return;
        }
        self.depth += 1;
        match node.kind() {
            "c_declaration" => {
                let ty = field(node, "type").map_or(String::new(), |t| type_text(self.src, t));
                for d in children_by_field(node, "declarator") {
                    let Some(n) = field(d, "name") else { continue };
                    let value = field(d, "value").map(|v| self.expr(v));
                    out.push(SStmt::Decl {
                        ty: ty.clone(),
                        pointers: children_by_field(d, "pointer").len().min(255) as u8,
                        name: self.src.name(n),
                        value,
                    });
                }
            }
            "c_expression_statement" => {
                if let Some(e) = field(node, "expression") {
                    let e = self.expr(e);
                    out.push(SStmt::Expr(e));
                }
            }
            "c_if_statement" => {
                let cond = self.expr_field(node, "condition");
                let mut then = Vec::new();
                if let Some(c) = field(node, "consequence") {
                    self.stmt(c, &mut then);
                }
                let mut otherwise = Vec::new();
                if let Some(a) = field(node, "alternative") {
                    self.stmt(a, &mut otherwise);
                }
                out.push(SStmt::If {
                    cond,
                    then,
                    otherwise,
                });
            }
            "c_while_statement" => {
                let cond = self.expr_field(node, "condition");
                let mut body = Vec::new();
                if let Some(b) = field(node, "body") {
                    self.stmt(b, &mut body);
                }
                out.push(SStmt::While { cond, body });
            }
            "c_block" => {
                let mut b = Vec::new();
                self.block(node, &mut b);
                out.push(SStmt::Block(b));
            }
            _ => {}
        }
        self.depth -= 1;
    }

    pub(super) fn expr_field(&mut self, node: Node, name: &str) -> SExpr {
        match field(node, name) {
            Some(e) => self.expr(e),
            None => SExpr::Int(0, span(node)),
        }
    }

    pub(super) fn expr(&mut self, node: Node) -> SExpr {
        let sp = span(node);
        if !self.nested(node) {
            return SExpr::Int(0, sp);
        }
        self.depth += 1;
        let e = self.expr_inner(node, sp);
        self.depth -= 1;
        e
    }
}
