//! The cat language's syntax: a lexer and a recursive-descent parser to [`Stmt`]s, following
//! herd's grammar (herd's manual, "The cat language").
//!
//! Precedence, loosest first: `|`, `++` (right), `;`, `\` (left), `&`, then `*` (cartesian
//! product), prefix `~`, the postfix operators `^-1`, `+`, `*`, `?`, and application by
//! juxtaposition (`f x`, `f(a, b)`: `f` applied to the tuple `(a, b)`). A `*` is the cartesian
//! product when an operand follows it, else the postfix closure.

use super::lex::{is_kw, lex, Tok};
use super::names::free_vars;
use super::{BinOp, Binding, CatError, Cond, EltClause, Expr, FunDef, Pat, Stmt, UnOp};
use std::sync::Arc;

pub(super) struct P {
    pub(super) toks: Vec<(Tok, usize)>,
    pub(super) pos: usize,
    pub(super) end: usize,
    pub(super) depth: usize,
    /// A statement parsed along with the previous one (the check of `let rec ... when`).
    pub(super) pending: Option<Stmt>,
}

const MAX_DEPTH: usize = 200;

impl P {
    pub(super) fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }
    pub(super) fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.0)
    }
    pub(super) fn offset(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |t| t.1)
    }
    pub(super) fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Sym(x)) if *x == s)
    }
    pub(super) fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Some(Tok::Id(x)) if x == k)
    }
    pub(super) fn eat_sym(&mut self, s: &str) -> bool {
        let y = self.is_sym(s);
        if y {
            self.pos += 1;
        }
        y
    }
    pub(super) fn eat_kw(&mut self, k: &str) -> bool {
        let y = self.is_kw(k);
        if y {
            self.pos += 1;
        }
        y
    }
    pub(super) fn expect_sym(&mut self, s: &str) -> Result<(), CatError> {
        if self.eat_sym(s) {
            Ok(())
        } else {
            Err(self.err(&format!("expected `{s}`{}", self.found())))
        }
    }
    pub(super) fn expect_kw(&mut self, k: &str) -> Result<(), CatError> {
        if self.eat_kw(k) {
            Ok(())
        } else {
            Err(self.err(&format!("expected `{k}`{}", self.found())))
        }
    }
    pub(super) fn found(&self) -> String {
        match self.peek() {
            None => ", found the end of the file".into(),
            Some(Tok::Id(s)) => format!(", found `{s}`"),
            Some(Tok::Str(s)) => format!(", found \"{s}\""),
            Some(Tok::Tag(s)) => format!(", found `'{s}`"),
            Some(Tok::Sym(s)) => format!(", found `{s}`"),
        }
    }
    pub(super) fn err(&self, msg: &str) -> CatError {
        CatError::at(self.offset(), msg)
    }
    pub(super) fn ident(&mut self) -> Result<String, CatError> {
        match self.peek() {
            Some(Tok::Id(s)) if !is_kw(s) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => Err(self.err(&format!("expected a name{}", self.found()))),
        }
    }
    pub(super) fn is_name(&self) -> bool {
        matches!(self.peek(), Some(Tok::Id(s)) if !is_kw(s))
    }
    /// A `pat0`: a name or `_`.
    pub(super) fn pat0(&mut self) -> Result<Option<String>, CatError> {
        if self.eat_sym("_") {
            Ok(None)
        } else {
            Ok(Some(self.ident()?))
        }
    }
    pub(super) fn deeper(&mut self) -> Result<(), CatError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("expression nested too deeply"));
        }
        Ok(())
    }
    /// Whether the next token can start an argument of an application (herd's `arg`).
    pub(super) fn starts_arg(&self) -> bool {
        match self.peek() {
            Some(Tok::Id(s)) => !is_kw(s),
            Some(Tok::Tag(_)) => true,
            Some(Tok::Sym(s)) => ["(", "[", "0", "{", "_"].contains(s),
            _ => false,
        }
    }
    /// Whether the next token can start an operand (after a binary `*`).
    pub(super) fn starts_operand(&self) -> bool {
        self.starts_arg() || self.is_sym("~") || self.is_kw("begin")
    }
}

impl P {
    /// `formals`: `pat0, pat0, ...`, possibly none.
    pub(super) fn formals(&mut self) -> Result<Vec<Option<String>>, CatError> {
        let mut out = Vec::new();
        if self.is_sym(")") {
            return Ok(out);
        }
        out.push(self.pat0()?);
        while self.eat_sym(",") {
            out.push(self.pat0()?);
        }
        Ok(out)
    }

    pub(super) fn bindings(&mut self) -> Result<Vec<Binding>, CatError> {
        let mut binds = vec![self.binding()?];
        while self.eat_kw("and") {
            binds.push(self.binding()?);
        }
        Ok(binds)
    }

    pub(super) fn binding(&mut self) -> Result<Binding, CatError> {
        if self.eat_sym("(") {
            let f = self.formals()?;
            self.expect_sym(")")?;
            self.expect_sym("=")?;
            return Ok((tuple_pat(f), self.expr()?));
        }
        let first = self.pat0()?;
        if let Some(name) = &first {
            if self.eat_sym("(") {
                let f = self.formals()?;
                self.expect_sym(")")?;
                self.expect_sym("=")?;
                let body = self.expr()?;
                return Ok((Pat::Var(Some(name.clone())), fun(tuple_pat(f), body)));
            }
            if self.is_name() || self.is_sym("_") {
                let p = self.pat0()?;
                self.expect_sym("=")?;
                let body = self.expr()?;
                return Ok((Pat::Var(Some(name.clone())), fun(Pat::Var(p), body)));
            }
        }
        let mut names = vec![first];
        while self.eat_sym(",") {
            names.push(self.pat0()?);
        }
        self.expect_sym("=")?;
        Ok((tuple_pat(names), self.expr()?))
    }

    pub(super) fn expr(&mut self) -> Result<Expr, CatError> {
        self.deeper()?;
        let r = self.expr_inner();
        self.depth -= 1;
        r
    }

    pub(super) fn expr_inner(&mut self) -> Result<Expr, CatError> {
        let at = self.offset();
        if self.eat_kw("let") {
            let rec = self.eat_kw("rec");
            let binds = self.bindings()?;
            self.expect_kw("in")?;
            let body = Box::new(self.expr()?);
            return Ok(if rec {
                Expr::LetRec(binds, body)
            } else {
                Expr::Let(binds, body)
            });
        }
        if self.eat_kw("fun") {
            let pat = if self.eat_sym("(") {
                let f = self.formals()?;
                self.expect_sym(")")?;
                tuple_pat(f)
            } else {
                Pat::Var(self.pat0()?)
            };
            self.expect_sym("->")?;
            return Ok(fun(pat, self.expr()?));
        }
        if self.eat_kw("try") {
            let e = self.expr()?;
            self.expect_kw("with")?;
            let d = self.expr()?;
            return Ok(Expr::Try(Box::new(e), Box::new(d)));
        }
        if self.eat_kw("if") {
            let cond = if self.starts_variant() {
                Cond::Variant(self.variant()?)
            } else {
                let a = Box::new(self.base()?);
                if self.eat_sym("=") {
                    Cond::Eq(a, Box::new(self.base()?))
                } else if self.eat_kw("subset") {
                    Cond::Subset(a, Box::new(self.base()?))
                } else if self.eat_kw("in") {
                    Cond::In(a, Box::new(self.base()?))
                } else {
                    return Err(self.err("expected `=`, `subset` or `in` in a condition"));
                }
            };
            self.expect_kw("then")?;
            let a = self.expr()?;
            self.expect_kw("else")?;
            let b = self.expr()?;
            return Ok(Expr::If(Box::new(cond), Box::new(a), Box::new(b)));
        }
        if self.eat_kw("match") {
            let e = Box::new(self.expr()?);
            self.expect_kw("with")?;
            self.eat_sym("||");
            if self.is_sym("{") || self.is_name() || self.is_sym("_") && !self.is_arrow_at(1) {
                return self.match_set(e, at);
            }
            let mut clauses = Vec::new();
            let mut default = None;
            loop {
                if self.eat_sym("_") {
                    self.expect_sym("->")?;
                    default = Some(Box::new(self.expr()?));
                    break;
                }
                let t = self.tag()?;
                self.expect_sym("->")?;
                clauses.push((t, self.expr()?));
                if !self.eat_sym("||") {
                    break;
                }
            }
            self.expect_kw("end")?;
            return Ok(Expr::Match(e, clauses, default, at));
        }
        let first = self.base()?;
        if self.is_sym(",") {
            let mut items = vec![first];
            while self.eat_sym(",") {
                items.push(self.base()?);
            }
            return Ok(Expr::Tuple(items, at));
        }
        Ok(first)
    }

    pub(super) fn is_arrow_at(&self, k: usize) -> bool {
        matches!(self.peek_at(k), Some(Tok::Sym("->")))
    }

    /// The clauses of a `match` on a set, in either order: `{} -> e` and `x ++ rest -> e`.
    pub(super) fn match_set(&mut self, e: Box<Expr>, at: usize) -> Result<Expr, CatError> {
        let mut empty = None;
        let mut elt = None;
        for i in 0..2 {
            if i == 1 {
                self.expect_sym("||")?;
            }
            if self.eat_sym("{") {
                self.expect_sym("}")?;
                self.expect_sym("->")?;
                empty = Some(Box::new(self.expr()?));
            } else {
                let x = self.pat0()?;
                if self.is_sym("|") {
                    return Err(self.err("the clause `a | x ++ b` of `match` is not supported"));
                }
                self.expect_sym("++")?;
                let rest = self.pat0()?;
                self.expect_sym("->")?;
                elt = Some(EltClause {
                    elt: x,
                    rest,
                    body: Box::new(self.expr()?),
                });
            }
        }
        self.expect_kw("end")?;
        match (empty, elt) {
            (Some(a), Some(b)) => Ok(Expr::MatchSet(e, a, b, at)),
            _ => Err(CatError::at(
                at,
                "a `match` on a set needs a `{}` clause and an `x ++ rest` clause",
            )),
        }
    }

    /// herd's `base`: the operators, loosest first.
    pub(super) fn base(&mut self) -> Result<Expr, CatError> {
        self.deeper()?;
        let r = self.binary(0);
        self.depth -= 1;
        r
    }

    pub(super) fn binary(&mut self, level: usize) -> Result<Expr, CatError> {
        const LEVELS: [(&str, BinOp); 5] = [
            ("|", BinOp::Union),
            ("++", BinOp::Add),
            (";", BinOp::Seq),
            ("\\", BinOp::Diff),
            ("&", BinOp::Inter),
        ];
        if level == LEVELS.len() {
            return self.cartesian();
        }
        let (sym, op) = LEVELS[level];
        let at = self.offset();
        let lhs = self.binary(level + 1)?;
        if !self.is_sym(sym) {
            return Ok(lhs);
        }
        if op == BinOp::Diff {
            // left-associative
            let mut lhs = lhs;
            while self.eat_sym(sym) {
                let rhs = self.binary(level + 1)?;
                lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs), at);
            }
            return Ok(lhs);
        }
        // right-associative
        self.pos += 1;
        self.deeper()?;
        let rhs = self.binary(level);
        self.depth -= 1;
        Ok(Expr::Bin(op, Box::new(lhs), Box::new(rhs?), at))
    }

    pub(super) fn cartesian(&mut self) -> Result<Expr, CatError> {
        let at = self.offset();
        let mut lhs = self.unary()?;
        while self.is_sym("*") {
            self.pos += 1;
            if !self.starts_operand() {
                // postfix `*` after a postfix operator: `r?*`
                lhs = Expr::Un(UnOp::Star, Box::new(lhs), at);
                continue;
            }
            let rhs = self.unary()?;
            lhs = Expr::Bin(BinOp::Cart, Box::new(lhs), Box::new(rhs), at);
        }
        Ok(lhs)
    }

    pub(super) fn unary(&mut self) -> Result<Expr, CatError> {
        let at = self.offset();
        if self.eat_sym("~") {
            self.deeper()?;
            let e = self.unary();
            self.depth -= 1;
            return Ok(Expr::Un(UnOp::Compl, Box::new(e?), at));
        }
        let mut e = self.app()?;
        loop {
            if self.eat_sym("^-1") {
                e = Expr::Un(UnOp::Inverse, Box::new(e), at);
            } else if self.is_sym("^") && matches!(self.peek_at(1), Some(Tok::Sym("-1"))) {
                self.pos += 2;
                e = Expr::Un(UnOp::Inverse, Box::new(e), at);
            } else if self.eat_sym("-1") {
                // older models write `r -1` for `r^-1`
                e = Expr::Un(UnOp::Inverse, Box::new(e), at);
            } else if self.eat_sym("+") {
                e = Expr::Un(UnOp::Plus, Box::new(e), at);
            } else if self.eat_sym("?") {
                e = Expr::Un(UnOp::Opt, Box::new(e), at);
            } else if self.is_sym("*") {
                self.pos += 1;
                if self.starts_operand() {
                    self.pos -= 1;
                    break;
                }
                e = Expr::Un(UnOp::Star, Box::new(e), at);
            } else {
                break;
            }
        }
        Ok(e)
    }

    /// herd's `exp0`: a name applied to arguments by juxtaposition, or a `simple`.
    pub(super) fn app(&mut self) -> Result<Expr, CatError> {
        if !self.is_name() {
            return self.simple();
        }
        let at = self.offset();
        let mut e = Expr::Var(self.ident()?, at);
        while self.starts_arg() {
            let arg_at = self.offset();
            let arg = if self.is_name() {
                Expr::Var(self.ident()?, arg_at)
            } else {
                self.simple()?
            };
            e = Expr::App(Box::new(e), Box::new(arg), at);
        }
        Ok(e)
    }

    /// herd's `simple`: `0`, a tag, `{...}`, `_`, `()`, `(e)`, `begin e end`, `[e]`.
    pub(super) fn simple(&mut self) -> Result<Expr, CatError> {
        let at = self.offset();
        if self.eat_sym("0") {
            return Ok(Expr::Empty);
        }
        if self.eat_sym("_") {
            return Ok(Expr::Universe);
        }
        if let Some(Tok::Tag(t)) = self.peek().cloned() {
            self.pos += 1;
            return Ok(Expr::Tag(t, at));
        }
        if self.eat_sym("(") {
            if self.eat_sym(")") {
                return Ok(Expr::Tuple(Vec::new(), at));
            }
            let e = self.expr()?;
            self.expect_sym(")")?;
            return Ok(e);
        }
        if self.eat_kw("begin") {
            let e = self.expr()?;
            self.expect_kw("end")?;
            return Ok(e);
        }
        if self.eat_sym("[") {
            let e = self.expr()?;
            self.expect_sym("]")?;
            return Ok(Expr::Un(UnOp::Ident, Box::new(e), at));
        }
        if self.eat_sym("{") {
            let items = self.args("}")?;
            return Ok(if items.is_empty() {
                Expr::Empty
            } else {
                Expr::Set(items, at)
            });
        }
        if self.is_name() {
            return Ok(Expr::Var(self.ident()?, at));
        }
        Err(self.err(&format!("expected an expression{}", self.found())))
    }

    /// Comma-separated `base`s up to `close` (consumed).
    pub(super) fn args(&mut self, close: &str) -> Result<Vec<Expr>, CatError> {
        let mut items = Vec::new();
        if self.eat_sym(close) {
            return Ok(items);
        }
        items.push(self.base()?);
        while self.eat_sym(",") {
            items.push(self.base()?);
        }
        self.expect_sym(close)?;
        Ok(items)
    }
}

pub(super) fn tuple_pat(mut names: Vec<Option<String>>) -> Pat {
    if names.len() == 1 {
        Pat::Var(names.pop().unwrap_or(None))
    } else {
        Pat::Tuple(names)
    }
}

fn fun(pat: Pat, body: Expr) -> Expr {
    let mut free = Vec::new();
    let bound: Vec<String> = pat.names().into_iter().map(String::from).collect();
    free_vars(&body, &mut bound.clone(), &mut free);
    free.sort();
    free.dedup();
    Expr::Fun(Arc::new(FunDef { pat, body, free }))
}

/// Parses a cat (or bell) file's statements, without resolving its `include`s.
pub fn parse(src: &str) -> Result<Vec<Stmt>, CatError> {
    let mut p = P {
        toks: lex(src)?,
        pos: 0,
        end: src.len(),
        depth: 0,
        pending: None,
    };
    p.header();
    let mut out = Vec::new();
    while p.pos < p.toks.len() {
        if !p.starts_stmt() {
            return Err(p.err(&format!(
                "expected a statement (`let`, `include`, a check such as `acyclic`, ...){}",
                p.found()
            )));
        }
        out.push(p.stmt()?);
        out.extend(p.pending.take());
    }
    Ok(out)
}
