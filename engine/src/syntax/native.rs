//! Lowering of the native dialect (`docs/reference.md#native`) and its static rules.
//!
//! Two passes: declarations first (so a thread may use a location declared after it, with
//! an error saying declarations come first, rather than a cascade of unknown names), then
//! threads in source order, then the final condition, which sees every thread's registers.
//!
//! Choices where the spec is silent:
//! - a register named in the final condition that its thread never mentions is a warning,
//!   not an error: it exists and its final value is 0 (like an unused herd register);
//! - array sizes are constant expressions from 1 to [`MAX_ARRAY`];
//! - `0:r0` (herd style) is accepted in the final condition and means the first thread.

use super::expr::{const_eval, ExprLowerer, Mode, Scope, Sym, ThreadInfo, MAX_DEPTH};
use super::{children_by_field, field, span, Src};
use crate::ast::{
    Condition, Dialect, Expr, LocRef, Name, Quantifier, RmwOp, SharedDecl, Stmt, StmtKind, Test,
    Thread,
};
use crate::diag::Diagnostic;
use crate::span::Span;
use std::collections::{BTreeSet, HashMap};
use tree_sitter::Node;

/// The largest array the front end accepts (cells are explored state; keep it sane).
pub(crate) const MAX_ARRAY: i64 = 1 << 16;

/// Lowers a native test; stops early (with a partial result the caller discards) once
/// `src.should_stop()` says so.
pub(super) fn lower(src: &Src<'_>, node: Node, diags: &mut Vec<Diagnostic>) -> Option<Test> {
    let mut l = Native {
        src,
        diags,
        shared: Vec::new(),
        mutexes: Vec::new(),
        by_name: HashMap::new(),
    };

    let (name, description) = lower_header(src, node);

    let items = children_by_field(node, "item");
    // Pass 1: declarations.
    let mut seen_thread: Option<Node> = None;
    for &item in &items {
        if src.should_stop() {
            return None;
        }
        match item.kind() {
            "thread" => seen_thread = seen_thread.or(Some(item)),
            "shared_declaration" | "mutex_declaration" => {
                if let Some(t) = seen_thread {
                    l.diags.push(
                        Diagnostic::error(span(item), "declarations must come before the threads")
                            .with_related(span(t), "first thread is here"),
                    );
                }
                if field(item, "terminator").is_none() && !item.has_error() {
                    let end = item.end_byte();
                    l.diags
                        .push(Diagnostic::error(Span::new(end, end), "expected `;`"));
                }
                if item.kind() == "shared_declaration" {
                    for d in children_by_field(item, "declarator") {
                        l.shared_declarator(d);
                    }
                } else {
                    for n in children_by_field(item, "name") {
                        l.mutex(n);
                    }
                }
            }
            _ => {}
        }
    }

    // Pass 2: threads.
    let mut threads: Vec<Thread> = Vec::new();
    let mut infos: Vec<ThreadInfo> = Vec::new();
    for &item in items.iter().filter(|i| i.kind() == "thread") {
        if src.should_stop() {
            return None;
        }
        let Some(name_node) = field(item, "name") else {
            continue;
        };
        let tname = src.name(name_node);
        if let Some(prev) = threads.iter().find(|t| t.name.text == tname.text) {
            l.diags.push(
                Diagnostic::error(tname.span, format!("duplicate thread `{}`", tname.text))
                    .with_related(prev.name.span, "first declared here"),
            );
        }
        let mut regs = BTreeSet::new();
        let body = match field(item, "body") {
            Some(b) => l.block(b, &mut regs, 0),
            None => Vec::new(),
        };
        infos.push(ThreadInfo {
            name: tname.text.clone(),
            regs,
        });
        threads.push(Thread {
            name: tname,
            reg_init: Vec::new(),
            body,
            span: span(item),
        });
    }
    // Without threads after a syntax error, the error already says what is wrong.
    let syntax_error = node.parent().unwrap_or(node).has_error();
    if threads.is_empty() && !syntax_error {
        let at = field(node, "header").map(span).unwrap_or(span(node));
        l.diags.push(Diagnostic::error(
            at,
            "a test needs at least one thread: `thread P0 { ... }`",
        ));
    }

    let condition = field(node, "condition").and_then(|c| l.condition(c, &infos));

    Some(Test {
        dialect: Dialect::Native,
        name,
        description,
        shared: l.shared,
        mutexes: l.mutexes,
        threads,
        condition,
        span: span(node),
    })
}

/// The contents of a string literal: quotes removed, `\"` and `\\` unescaped (any other
/// backslash is kept as written).
/// The test's name and description from the `header` field of either dialect's test node; a
/// missing name (already a syntax error) is an empty name at the test's start.
pub(crate) fn lower_header(src: &Src<'_>, node: Node) -> (Name, Option<String>) {
    let header = field(node, "header");
    let name = header
        .and_then(|h| field(h, "name"))
        .map(|n| src.name(n))
        .unwrap_or(Name {
            text: String::new(),
            span: Span::new(node.start_byte(), node.start_byte()),
        });
    let description = header
        .and_then(|h| field(h, "description"))
        .map(|d| unquote(src.text(d)));
    (name, description)
}

pub(crate) fn unquote(s: &str) -> String {
    let inner = s
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(s);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('\\', Some(&next)) if next == '"' || next == '\\' => {
                out.push(next);
                chars.next();
            }
            _ => out.push(c),
        }
    }
    out
}

/// Lowers a final condition (both dialects).
pub(crate) fn lower_condition(
    src: &Src,
    scope: &Scope,
    diags: &mut Vec<Diagnostic>,
    dialect: Dialect,
    node: Node,
    threads: &[ThreadInfo],
) -> Option<Condition> {
    let q = field(node, "quantifier")?;
    let qtext: String = src.text(q).chars().filter(|c| !c.is_whitespace()).collect();
    let quantifier = match qtext.as_str() {
        "forall" => Quantifier::Forall,
        "~exists" => Quantifier::NotExists,
        "final" if dialect == Dialect::Native => {
            diags.push(Diagnostic::error(
                span(q),
                "`final` is x86 syntax; use `exists`",
            ));
            Quantifier::Exists
        }
        _ => Quantifier::Exists,
    };
    let e = field(node, "expression")?;
    let mut lw = ExprLowerer {
        src,
        scope,
        diags,
        dialect,
        mode: Mode::Condition(threads),
    };
    let expr = lw.lower(e, 0);
    Some(Condition {
        quantifier,
        expr,
        span: span(node),
    })
}

struct Native<'s, 'd> {
    src: &'s Src<'s>,
    diags: &'d mut Vec<Diagnostic>,
    shared: Vec<SharedDecl>,
    mutexes: Vec<Name>,
    by_name: HashMap<String, Sym>,
}

impl Native<'_, '_> {
    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, msg));
    }

    /// The span where `name` was first declared, if it was.
    fn declared(&self, name: &str) -> Option<Span> {
        match self.by_name.get(name)? {
            Sym::Shared(i) => Some(self.shared[*i].name.span),
            Sym::Mutex(i) => Some(self.mutexes[*i].span),
        }
    }

    fn duplicate(&mut self, name: &Name) -> bool {
        if let Some(first) = self.declared(&name.text) {
            self.diags.push(
                Diagnostic::error(name.span, format!("`{}` is already declared", name.text))
                    .with_related(first, "first declared here"),
            );
            return true;
        }
        false
    }

    fn mutex(&mut self, node: Node) {
        let name = self.src.name(node);
        if !self.duplicate(&name) {
            self.by_name
                .insert(name.text.clone(), Sym::Mutex(self.mutexes.len()));
            self.mutexes.push(name);
        }
    }

    /// A constant expression in a declaration (no names allowed).
    fn constant(&mut self, node: Node, what: &str) -> Option<i64> {
        let empty = HashMap::new();
        let scope = Scope {
            shared: &[],
            by_name: &empty,
        };
        let mut regs = BTreeSet::new();
        let before = self.diags.len();
        let mut lw = ExprLowerer {
            src: self.src,
            scope: &scope,
            diags: self.diags,
            dialect: Dialect::Native,
            mode: Mode::Thread(&mut regs),
        };
        let e = lw.lower(node, 0);
        if self.diags.len() > before {
            return None;
        }
        match const_eval(&e) {
            Some(v) if regs.is_empty() => Some(v),
            None if regs.is_empty() => {
                self.error(span(node), format!("{what} divides by zero"));
                None
            }
            _ => {
                self.error(
                    span(node),
                    format!("{what} must be a constant (literals and operators, no names)"),
                );
                None
            }
        }
    }

    fn shared_declarator(&mut self, node: Node) {
        let Some(name_node) = field(node, "name") else {
            return;
        };
        let name = self.src.name(name_node);
        let size = field(node, "size").and_then(|s| {
            let v = self.constant(s, "an array size")?;
            if v < 1 {
                self.error(span(s), format!("array size must be at least 1, not {v}"));
                None
            } else if v > MAX_ARRAY {
                self.error(
                    span(s),
                    format!("array size {v} is too large (at most {MAX_ARRAY})"),
                );
                None
            } else {
                Some(v as u32)
            }
        });
        let is_array = field(node, "size").is_some();
        let cells = size.unwrap_or(1) as usize;
        let mut init = vec![0i64; cells];
        if let Some(value) = field(node, "value") {
            match (value.kind() == "initializer_list", is_array) {
                (true, true) => {
                    let elems = children_by_field(value, "element");
                    for (i, el) in elems.iter().enumerate() {
                        if i >= cells {
                            if size.is_some() {
                                self.error(
                                    span(*el),
                                    format!(
                                        "too many initialisers: `{}` has {cells} cells",
                                        name.text
                                    ),
                                );
                            }
                            break;
                        }
                        if let Some(v) = self.constant(*el, "an initial value") {
                            init[i] = v;
                        }
                    }
                }
                (true, false) => self.error(
                    span(value),
                    format!(
                        "`{}` is a scalar; a list initialiser needs an array: `{}[N] = {{...}}`",
                        name.text, name.text
                    ),
                ),
                (false, true) => self.error(
                    span(value),
                    format!(
                        "an array is initialised with a list: `{}[N] = {{...}}`",
                        name.text
                    ),
                ),
                (false, false) => {
                    if let Some(v) = self.constant(value, "an initial value") {
                        init[0] = v;
                    }
                }
            }
        }
        if self.duplicate(&name) {
            return;
        }
        self.by_name
            .insert(name.text.clone(), Sym::Shared(self.shared.len()));
        // A broken size still declares an array (of one cell) so uses do not cascade.
        let size = if is_array {
            Some(size.unwrap_or(1))
        } else {
            None
        };
        self.shared.push(SharedDecl {
            name,
            size,
            init,
            span: span(node),
        });
    }

    fn expr(&mut self, node: Node, regs: &mut BTreeSet<String>, depth: usize) -> Expr {
        let scope = Scope {
            shared: &self.shared,
            by_name: &self.by_name,
        };
        let mut lw = ExprLowerer {
            src: self.src,
            scope: &scope,
            diags: self.diags,
            dialect: Dialect::Native,
            mode: Mode::Thread(regs),
        };
        lw.lower(node, depth)
    }

    fn block(&mut self, node: Node, regs: &mut BTreeSet<String>, depth: usize) -> Vec<Stmt> {
        if depth > MAX_DEPTH {
            self.error(
                span(node),
                format!("statements nested too deeply (more than {MAX_DEPTH} levels)"),
            );
            return Vec::new();
        }
        let mut out = Vec::new();
        for s in children_by_field(node, "statement") {
            if self.src.should_stop() {
                break;
            }
            out.extend(self.stmt(s, regs, depth + 1));
        }
        out
    }

    fn condition_of(
        &mut self,
        node: Node,
        regs: &mut BTreeSet<String>,
        depth: usize,
    ) -> Option<Expr> {
        let c = field(node, "condition")?;
        self.require_parens(node, c);
        Some(self.expr(c, regs, depth))
    }

    /// `if (c)`, `assert(c)`, `lock(m)`: the grammar accepts the operand without parentheses
    /// so that this can say so precisely.
    fn require_parens(&mut self, stmt: Node, operand: Node) {
        if operand.kind() == "parenthesized_expression" {
            return;
        }
        let keyword = stmt.child(0).map(|k| self.src.text(k)).unwrap_or("if");
        let operand_text = self.src.text(operand);
        let example = match keyword {
            "if" | "while" => format!("`{keyword} ({operand_text}) {{ ... }}`"),
            _ => format!("`{keyword}({operand_text});`"),
        };
        self.error(
            span(operand),
            format!("`{keyword}` needs parentheses: {example}"),
        );
    }

    fn stmt(&mut self, node: Node, regs: &mut BTreeSet<String>, depth: usize) -> Option<Stmt> {
        let sp = span(node);
        if depth > MAX_DEPTH {
            // `else if` chains nest here without a block in between.
            self.error(
                sp,
                format!("statements nested too deeply (more than {MAX_DEPTH} levels)"),
            );
            return None;
        }
        let kind = match node.kind() {
            "assignment_statement" => return self.assignment(node, regs, depth),
            "atomic_statement" => {
                let atomic = field(node, "atomic")?;
                let (op, loc, args) = self.atomic(atomic, regs, depth)?;
                StmtKind::Rmw {
                    dest: None,
                    op,
                    loc,
                    args,
                }
            }
            "fence_statement" => StmtKind::Fence,
            "lock_statement" | "unlock_statement" => {
                let m = field(node, "mutex")?;
                self.require_parens(node, m);
                let m = if m.kind() == "parenthesized_expression" {
                    field(m, "expression")?
                } else {
                    m
                };
                let text = self.src.text(m);
                let found = match (m.kind(), self.by_name.get(text)) {
                    ("identifier", Some(Sym::Mutex(i))) => Some(*i),
                    _ => None,
                };
                let Some(mutex) = found else {
                    let verb = if node.kind() == "lock_statement" {
                        "lock"
                    } else {
                        "unlock"
                    };
                    let msg = if m.kind() == "identifier" && !self.by_name.contains_key(text) {
                        format!("unknown mutex `{text}`; declare it with `mutex {text};`")
                    } else {
                        format!("`{verb}` needs a mutex, and `{text}` is not one")
                    };
                    self.error(span(m), msg);
                    return None;
                };
                let name = self.src.name(m);
                if node.kind() == "lock_statement" {
                    StmtKind::Lock { mutex, name }
                } else {
                    StmtKind::Unlock { mutex, name }
                }
            }
            "assert_statement" => StmtKind::Assert(self.condition_of(node, regs, depth)?),
            "assume_statement" => StmtKind::Assume(self.condition_of(node, regs, depth)?),
            "await_statement" => StmtKind::Await(self.condition_of(node, regs, depth)?),
            "if_statement" => {
                let cond = self.condition_of(node, regs, depth)?;
                let then_body = field(node, "consequence")
                    .map(|b| self.block(b, regs, depth))
                    .unwrap_or_default();
                let else_body = match field(node, "alternative").and_then(|a| field(a, "body")) {
                    Some(b) if b.kind() == "block" => self.block(b, regs, depth),
                    Some(b) => self.stmt(b, regs, depth + 1).into_iter().collect(),
                    None => Vec::new(),
                };
                StmtKind::If {
                    cond,
                    then_body,
                    else_body,
                }
            }
            "while_statement" => {
                let cond = self.condition_of(node, regs, depth)?;
                let body = field(node, "body")
                    .map(|b| self.block(b, regs, depth))
                    .unwrap_or_default();
                StmtKind::While { cond, body }
            }
            _ => return None,
        };
        Some(Stmt { kind, span: sp })
    }

    /// A location operand: `x` or `a[e]` naming a shared location.
    fn location(
        &mut self,
        node: Node,
        regs: &mut BTreeSet<String>,
        depth: usize,
        what: &str,
    ) -> Option<LocRef> {
        let sp = span(node);
        let (name_node, index) = match node.kind() {
            "identifier" => (node, None),
            "subscript_expression" => (field(node, "array")?, Some(field(node, "index")?)),
            _ => {
                self.error(
                    sp,
                    format!("{what} must be a shared location (`x` or `a[i]`)"),
                );
                return None;
            }
        };
        let name = self.src.text(name_node);
        match (self.by_name.get(name).copied(), index) {
            (Some(Sym::Shared(var)), index) => {
                let decl = &self.shared[var];
                match (decl.is_array(), index) {
                    (true, None) => {
                        self.error(sp, format!("array `{name}` needs an index: `{name}[i]`"));
                        None
                    }
                    (false, Some(_)) => {
                        self.error(
                            span(name_node),
                            format!("`{name}` is not an array and cannot be indexed"),
                        );
                        None
                    }
                    (_, index) => {
                        let index = index.map(|i| Box::new(self.expr(i, regs, depth + 1)));
                        Some(LocRef {
                            var,
                            index,
                            span: sp,
                        })
                    }
                }
            }
            (Some(Sym::Mutex(_)), _) => {
                self.error(
                    span(name_node),
                    format!("mutex `{name}` cannot be {what}; use `lock`/`unlock`"),
                );
                None
            }
            (None, Some(_)) => {
                self.error(
                    span(name_node),
                    format!("`{name}` is a register and cannot be indexed; declare an array with `shared {name}[N];`"),
                );
                None
            }
            (None, None) => None, // a register: the caller decides
        }
    }

    fn assignment(
        &mut self,
        node: Node,
        regs: &mut BTreeSet<String>,
        depth: usize,
    ) -> Option<Stmt> {
        let sp = span(node);
        let left = field(node, "left")?;
        let right = field(node, "right")?;
        let lname = self.src.text(if left.kind() == "identifier" {
            left
        } else {
            field(left, "array")?
        });
        let is_register = left.kind() == "identifier" && !self.by_name.contains_key(lname);
        if is_register {
            if !regs.contains(lname) {
                regs.insert(lname.to_string());
            }
            let reg = self.src.name(left);
            if right.kind() == "atomic_expression" {
                let (op, loc, args) = self.atomic(right, regs, depth)?;
                return Some(Stmt {
                    kind: StmtKind::Rmw {
                        dest: Some(reg),
                        op,
                        loc,
                        args,
                    },
                    span: sp,
                });
            }
            let value = self.expr(right, regs, depth + 1);
            return Some(Stmt {
                kind: StmtKind::Assign { reg, value },
                span: sp,
            });
        }
        if let (Some(Sym::Mutex(_)), "identifier") = (self.by_name.get(lname), left.kind()) {
            self.error(
                span(left),
                format!(
                    "cannot assign to mutex `{lname}`; use `lock({lname});` and `unlock({lname});`"
                ),
            );
            self.expr(right, regs, depth + 1);
            return None;
        }
        let loc = self.location(left, regs, depth, "assigned to");
        if right.kind() == "atomic_expression" {
            self.error(
                span(right),
                format!("the result of an atomic goes to a register: `r = ...; {lname} = r;`"),
            );
            return None;
        }
        let value = self.expr(right, regs, depth + 1);
        Some(Stmt {
            kind: StmtKind::Store { loc: loc?, value },
            span: sp,
        })
    }

    fn atomic(
        &mut self,
        node: Node,
        regs: &mut BTreeSet<String>,
        depth: usize,
    ) -> Option<(RmwOp, LocRef, Vec<Expr>)> {
        let op_node = field(node, "operation")?;
        let op_text = self.src.text(op_node);
        let (op, arity, shape) = match op_text {
            "cas" => (RmwOp::Cas, 2, "cas(x, expected, new)"),
            "fetch_add" => (RmwOp::FetchAdd, 1, "fetch_add(x, v)"),
            _ => (RmwOp::Xchg, 1, "xchg(x, v)"),
        };
        let loc_node = field(node, "location")?;
        let loc = if loc_node.kind() == "identifier"
            && !self.by_name.contains_key(self.src.text(loc_node))
        {
            let t = self.src.text(loc_node);
            self.error(
                span(loc_node),
                format!("`{t}` is not a shared location; declare it with `shared {t};`"),
            );
            None
        } else {
            self.location(loc_node, regs, depth, &format!("the target of `{op_text}`"))
        };
        let arg_nodes = children_by_field(node, "argument");
        let args: Vec<Expr> = arg_nodes
            .iter()
            .map(|a| self.expr(*a, regs, depth + 1))
            .collect();
        if args.len() != arity {
            self.error(
                span(node),
                format!("`{op_text}` takes {} arguments: `{shape}`", arity + 1),
            );
            return None;
        }
        Some((op, loc?, args))
    }

    fn condition(&mut self, node: Node, threads: &[ThreadInfo]) -> Option<Condition> {
        let scope = Scope {
            shared: &self.shared,
            by_name: &self.by_name,
        };
        // `None` only when the quantifier or expression is missing: a syntax error already.
        lower_condition(self.src, &scope, self.diags, Dialect::Native, node, threads)
    }
}
