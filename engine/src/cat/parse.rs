//! The cat language's syntax: a lexer and a recursive-descent parser to [`Stmt`]s, following
//! herd's grammar (herd's manual, "The cat language").
//!
//! Precedence, loosest first: `|`, `++` (right), `;`, `\` (left), `&`, then `*` (cartesian
//! product), prefix `~`, the postfix operators `^-1`, `+`, `*`, `?`, and application by
//! juxtaposition (`f x`, `f(a, b)`: `f` applied to the tuple `(a, b)`). A `*` is the cartesian
//! product when an operand follows it, else the postfix closure.

use super::{
    BinOp, Binding, CatError, CheckKind, CheckMode, Cond, EltClause, Expr, FunDef, Pat, Stmt, UnOp,
    Variant,
};
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Id(String),
    Str(String),
    Tag(String),
    Sym(&'static str),
}

const SYMS: [&str; 25] = [
    "^-1", "||", "&&", "->", "++", "|", ";", "\\", "&", "*", "+", "?", "~", "(", ")", "[", "]",
    "=", ",", "{", "}", "^", "0", "_", "-1",
];

const KEYWORDS: [&str; 37] = [
    "let",
    "rec",
    "and",
    "when",
    "acyclic",
    "irreflexive",
    "show",
    "unshow",
    "empty",
    "subset",
    "as",
    "fun",
    "in",
    "undefined_unless",
    "flag",
    "assert",
    "include",
    "variant",
    "begin",
    "end",
    "procedure",
    "call",
    "enum",
    "debug",
    "match",
    "with",
    "forall",
    "from",
    "do",
    "try",
    "if",
    "then",
    "else",
    "catdep",
    "instructions",
    "default",
    "not",
];

fn name_len(src: &str, i: usize) -> usize {
    // herd's names: `_`? letter (letter | digit | `_` | `.` | `-`)* `'`?
    let b = src.as_bytes();
    let mut j = i;
    if b.get(j) == Some(&b'_') {
        j += 1;
    }
    if !b.get(j).is_some_and(|c| c.is_ascii_alphabetic()) {
        return 0;
    }
    while j < b.len()
        && (b[j].is_ascii_alphanumeric() || b"_.-".contains(&b[j]))
        && !(b[j] == b'-' && src[j..].starts_with("->"))
    {
        j += 1;
    }
    if b.get(j) == Some(&b'\'') {
        j += 1;
    }
    j - i
}

fn lex(src: &str) -> Result<Vec<(Tok, usize)>, CatError> {
    let b = src.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if src[i..].starts_with("(*") {
            let start = i;
            let mut depth = 0;
            while i < b.len() {
                if src[i..].starts_with("(*") {
                    depth += 1;
                    i += 2;
                } else if src[i..].starts_with("*)") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            if depth != 0 {
                return Err(CatError::at(start, "unterminated comment"));
            }
        } else if src[i..].starts_with("//") || c == b'#' {
            i = src[i..].find('\n').map_or(b.len(), |k| i + k);
        } else if c == b'"' {
            let end = src[i + 1..]
                .find('"')
                .ok_or_else(|| CatError::at(i, "unterminated string"))?;
            out.push((Tok::Str(src[i + 1..i + 1 + end].to_string()), i));
            i += end + 2;
        } else if c == b'\'' {
            let n = name_len(src, i + 1);
            if n == 0 {
                return Err(CatError::at(i, "expected a tag name after `'`"));
            }
            out.push((Tok::Tag(src[i + 1..i + 1 + n].to_string()), i));
            i += 1 + n;
        } else if let n @ 1.. = name_len(src, i) {
            out.push((Tok::Id(src[i..i + n].to_string()), i));
            i += n;
        } else if c.is_ascii_digit() && c != b'0' {
            // Not herd's, but the project's models have always accepted names like `1x`.
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b"_.-".contains(&b[i])) {
                i += 1;
            }
            out.push((Tok::Id(src[start..i].to_string()), start));
        } else if let Some(s) = SYMS.iter().find(|s| src[i..].starts_with(**s)) {
            out.push((Tok::Sym(s), i));
            i += s.len();
        } else {
            let ch = src[i..].chars().next().unwrap_or('?');
            return Err(CatError::at(i, &format!("unexpected `{ch}`")));
        }
    }
    Ok(out)
}

struct P {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    end: usize,
    depth: usize,
    /// A statement parsed along with the previous one (the check of `let rec ... when`).
    pending: Option<Stmt>,
}

const MAX_DEPTH: usize = 200;

fn is_kw(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

impl P {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }
    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.0)
    }
    fn offset(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |t| t.1)
    }
    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Sym(x)) if *x == s)
    }
    fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Some(Tok::Id(x)) if x == k)
    }
    fn eat_sym(&mut self, s: &str) -> bool {
        let y = self.is_sym(s);
        if y {
            self.pos += 1;
        }
        y
    }
    fn eat_kw(&mut self, k: &str) -> bool {
        let y = self.is_kw(k);
        if y {
            self.pos += 1;
        }
        y
    }
    fn expect_sym(&mut self, s: &str) -> Result<(), CatError> {
        if self.eat_sym(s) {
            Ok(())
        } else {
            Err(self.err(&format!("expected `{s}`{}", self.found())))
        }
    }
    fn expect_kw(&mut self, k: &str) -> Result<(), CatError> {
        if self.eat_kw(k) {
            Ok(())
        } else {
            Err(self.err(&format!("expected `{k}`{}", self.found())))
        }
    }
    fn found(&self) -> String {
        match self.peek() {
            None => ", found the end of the file".into(),
            Some(Tok::Id(s)) => format!(", found `{s}`"),
            Some(Tok::Str(s)) => format!(", found \"{s}\""),
            Some(Tok::Tag(s)) => format!(", found `'{s}`"),
            Some(Tok::Sym(s)) => format!(", found `{s}`"),
        }
    }
    fn err(&self, msg: &str) -> CatError {
        CatError::at(self.offset(), msg)
    }
    fn ident(&mut self) -> Result<String, CatError> {
        match self.peek() {
            Some(Tok::Id(s)) if !is_kw(s) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => Err(self.err(&format!("expected a name{}", self.found()))),
        }
    }
    fn is_name(&self) -> bool {
        matches!(self.peek(), Some(Tok::Id(s)) if !is_kw(s))
    }
    /// A `pat0`: a name or `_`.
    fn pat0(&mut self) -> Result<Option<String>, CatError> {
        if self.eat_sym("_") {
            Ok(None)
        } else {
            Ok(Some(self.ident()?))
        }
    }
    fn deeper(&mut self) -> Result<(), CatError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("expression nested too deeply"));
        }
        Ok(())
    }
    /// Whether the next token can start an argument of an application (herd's `arg`).
    fn starts_arg(&self) -> bool {
        match self.peek() {
            Some(Tok::Id(s)) => !is_kw(s),
            Some(Tok::Tag(_)) => true,
            Some(Tok::Sym(s)) => ["(", "[", "0", "{", "_"].contains(s),
            _ => false,
        }
    }
    /// Whether the next token can start an operand (after a binary `*`).
    fn starts_operand(&self) -> bool {
        self.starts_arg() || self.is_sym("~") || self.is_kw("begin")
    }

    fn header(&mut self) {
        // herd's model identity: up to two words or strings, then an optional `catdep`.
        for _ in 0..2 {
            match self.peek() {
                Some(Tok::Str(_)) => self.pos += 1,
                Some(Tok::Id(s)) if !is_kw(s) => self.pos += 1,
                _ => break,
            }
        }
        self.eat_kw("catdep");
    }

    fn starts_stmt(&self) -> bool {
        match self.peek() {
            Some(Tok::Id(s)) => [
                "let",
                "match",
                "acyclic",
                "irreflexive",
                "empty",
                "undefined_unless",
                "flag",
                "assert",
                "show",
                "unshow",
                "include",
                "procedure",
                "call",
                "debug",
                "forall",
                "with",
                "if",
                "enum",
                "instructions",
                "default",
            ]
            .contains(&s.as_str()),
            Some(Tok::Sym("~")) => true,
            _ => false,
        }
    }

    fn stmts_until_end(&mut self) -> Result<Vec<Stmt>, CatError> {
        let mut out = Vec::new();
        while self.starts_stmt() {
            out.push(self.stmt()?);
            out.extend(self.pending.take());
        }
        Ok(out)
    }

    fn stmt(&mut self) -> Result<Stmt, CatError> {
        let at = self.offset();
        if self.eat_kw("let") {
            let rec = self.eat_kw("rec");
            let binds = self.bindings()?;
            if rec && self.eat_kw("when") {
                // `let rec ... when check`: the check applies to the fixed point.
                let check = self.stmt()?;
                if !matches!(check, Stmt::Check { .. }) {
                    return Err(CatError::at(at, "expected a check after `when`"));
                }
                self.pending = Some(check);
            }
            self.eat_kw("in");
            return Ok(if rec {
                Stmt::LetRec(binds, at)
            } else {
                Stmt::Let(binds, at)
            });
        }
        if self.eat_kw("include") {
            return match self.peek().cloned() {
                Some(Tok::Str(s)) => {
                    self.pos += 1;
                    Ok(Stmt::Include(s, at))
                }
                _ => Err(self.err("expected a file name in quotes")),
            };
        }
        if self.eat_kw("show") || self.eat_kw("unshow") {
            // Display directives: `show r as name`, `show a, b`; nothing to check.
            self.base()?;
            if self.eat_kw("as") {
                self.ident()?;
            } else {
                while self.eat_sym(",") {
                    self.base()?;
                }
            }
            return Ok(Stmt::Show);
        }
        if self.eat_kw("debug") {
            self.expr()?;
            return Ok(Stmt::Show);
        }
        if self.eat_kw("enum") {
            let name = self.ident()?;
            self.expect_sym("=")?;
            self.eat_sym("||");
            let mut tags = vec![self.tag()?];
            while self.eat_sym("||") {
                tags.push(self.tag()?);
            }
            return Ok(Stmt::Enum(name, tags, at));
        }
        if self.eat_kw("instructions") || self.eat_kw("default") {
            let name = self.ident()?;
            self.expect_sym("[")?;
            let args = self.args("]")?;
            return Ok(Stmt::Events(name, args, at));
        }
        if self.eat_kw("procedure") {
            self.eat_kw("rec");
            let name = self.ident()?;
            let pat = if self.eat_sym("(") {
                let f = self.formals()?;
                self.expect_sym(")")?;
                tuple_pat(f)
            } else {
                Pat::Var(self.pat0()?)
            };
            self.expect_sym("=")?;
            let body = self.stmts_until_end()?;
            self.expect_kw("end")?;
            return Ok(Stmt::Procedure(name, pat, Arc::new(body), at));
        }
        if self.eat_kw("call") {
            let name = self.ident()?;
            let arg = self.simple()?;
            let as_name = if self.eat_kw("as") {
                Some(self.ident()?)
            } else {
                None
            };
            return Ok(Stmt::Call(name, arg, as_name, at));
        }
        if self.eat_kw("forall") {
            let x = self.ident()?;
            self.expect_kw("in")?;
            let e = self.expr()?;
            self.expect_kw("do")?;
            let body = self.stmts_until_end()?;
            self.expect_kw("end")?;
            return Ok(Stmt::Forall(x, e, body, at));
        }
        if self.eat_kw("with") {
            let x = self.ident()?;
            self.expect_kw("from")?;
            let e = self.expr()?;
            return Ok(Stmt::WithFrom(x, e, at));
        }
        if self.eat_kw("if") {
            let v = self.variant()?;
            let then = self.stmts_until_end()?;
            let els = if self.eat_kw("else") {
                self.stmts_until_end()?
            } else {
                Vec::new()
            };
            self.expect_kw("end")?;
            return Ok(Stmt::IfVariant(v, then, els, at));
        }
        if self.eat_kw("match") {
            let e = self.expr()?;
            self.expect_kw("with")?;
            self.eat_sym("||");
            let mut clauses = Vec::new();
            let mut default = None;
            loop {
                if self.eat_sym("_") {
                    self.expect_sym("->")?;
                    default = Some(self.stmts_until_end()?);
                    break;
                }
                let t = self.tag()?;
                self.expect_sym("->")?;
                clauses.push((t, self.stmts_until_end()?));
                if !self.eat_sym("||") {
                    break;
                }
            }
            self.expect_kw("end")?;
            return Ok(Stmt::Match(e, clauses, default, at));
        }
        let mode = if self.eat_kw("flag") {
            CheckMode::Flag
        } else if self.eat_kw("undefined_unless") {
            CheckMode::UndefinedUnless
        } else if self.eat_kw("assert") {
            CheckMode::Assert
        } else {
            CheckMode::Check
        };
        let negated = self.eat_sym("~");
        let kind = if self.eat_kw("acyclic") {
            CheckKind::Acyclic
        } else if self.eat_kw("irreflexive") {
            CheckKind::Irreflexive
        } else if self.eat_kw("empty") {
            CheckKind::Empty
        } else {
            return Err(self.err(&format!(
                "expected a statement (`let`, `include`, a check such as `acyclic`, ...){}",
                self.found()
            )));
        };
        let expr = self.expr()?;
        let name = if self.eat_kw("as") {
            Some(self.ident()?)
        } else {
            None
        };
        Ok(Stmt::Check {
            kind,
            negated,
            mode,
            expr,
            name,
            at,
        })
    }

    fn tag(&mut self) -> Result<String, CatError> {
        match self.peek().cloned() {
            Some(Tok::Tag(t)) => {
                self.pos += 1;
                Ok(t)
            }
            _ => Err(self.err(&format!("expected a tag such as `'a`{}", self.found()))),
        }
    }

    fn variant(&mut self) -> Result<Variant, CatError> {
        let mut v = self.variant_and()?;
        while self.eat_sym("||") {
            v = Variant::Or(Box::new(v), Box::new(self.variant_and()?));
        }
        Ok(v)
    }
    fn variant_and(&mut self) -> Result<Variant, CatError> {
        let mut v = self.variant_atom()?;
        while self.eat_sym("&&") {
            v = Variant::And(Box::new(v), Box::new(self.variant_atom()?));
        }
        Ok(v)
    }
    fn variant_atom(&mut self) -> Result<Variant, CatError> {
        self.deeper()?;
        let r = if self.eat_kw("not") {
            Ok(Variant::Not(Box::new(self.variant_atom()?)))
        } else if self.eat_sym("(") {
            let v = self.variant()?;
            self.expect_sym(")")?;
            Ok(v)
        } else {
            self.eat_kw("variant");
            match self.peek().cloned() {
                Some(Tok::Str(s)) => {
                    self.pos += 1;
                    Ok(Variant::Name(s))
                }
                _ => Err(self.err(&format!("expected a variant in quotes{}", self.found()))),
            }
        };
        self.depth -= 1;
        r
    }
    fn starts_variant(&self) -> bool {
        let mut k = 0;
        while matches!(self.peek_at(k), Some(Tok::Sym("("))) {
            k += 1;
        }
        match self.peek_at(k) {
            Some(Tok::Str(_)) => true,
            Some(Tok::Id(s)) => s == "not" || s == "variant",
            _ => false,
        }
    }

    /// `formals`: `pat0, pat0, ...`, possibly none.
    fn formals(&mut self) -> Result<Vec<Option<String>>, CatError> {
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

    fn bindings(&mut self) -> Result<Vec<Binding>, CatError> {
        let mut binds = vec![self.binding()?];
        while self.eat_kw("and") {
            binds.push(self.binding()?);
        }
        Ok(binds)
    }

    fn binding(&mut self) -> Result<Binding, CatError> {
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

    fn expr(&mut self) -> Result<Expr, CatError> {
        self.deeper()?;
        let r = self.expr_inner();
        self.depth -= 1;
        r
    }

    fn expr_inner(&mut self) -> Result<Expr, CatError> {
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

    fn is_arrow_at(&self, k: usize) -> bool {
        matches!(self.peek_at(k), Some(Tok::Sym("->")))
    }

    /// The clauses of a `match` on a set, in either order: `{} -> e` and `x ++ rest -> e`.
    fn match_set(&mut self, e: Box<Expr>, at: usize) -> Result<Expr, CatError> {
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
    fn base(&mut self) -> Result<Expr, CatError> {
        self.deeper()?;
        let r = self.binary(0);
        self.depth -= 1;
        r
    }

    fn binary(&mut self, level: usize) -> Result<Expr, CatError> {
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

    fn cartesian(&mut self) -> Result<Expr, CatError> {
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

    fn unary(&mut self) -> Result<Expr, CatError> {
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
    fn app(&mut self) -> Result<Expr, CatError> {
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
    fn simple(&mut self) -> Result<Expr, CatError> {
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
    fn args(&mut self, close: &str) -> Result<Vec<Expr>, CatError> {
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

fn tuple_pat(mut names: Vec<Option<String>>) -> Pat {
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
