//! The cat language's syntax: a lexer and a recursive-descent parser to [`Stmt`]s.
//!
//! Precedence, loosest first (as herd's): `|`, `++`, `;`, `\`, `&`, `*` (cartesian product),
//! prefix `~`, postfix `^-1`, `+`, `*`, `?`. A `*` is postfix when what follows cannot start
//! an expression.

use super::{CatError, CheckKind, Expr, Stmt};

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Id(String),
    Str(String),
    Sym(&'static str),
}

const SYMS: [&str; 20] = [
    "^-1", "++", "|", ";", "\\", "&", "*", "+", "?", "~", "(", ")", "[", "]", "=", ",", "{", "}",
    "^", "0",
];

fn lex(src: &str) -> Result<Vec<(Tok, usize)>, CatError> {
    let b = src.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if src[i..].starts_with("(*") {
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
                return Err(CatError::at(i, "unterminated comment"));
            }
        } else if c == b'"' {
            let end = src[i + 1..]
                .find('"')
                .ok_or_else(|| CatError::at(i, "unterminated string"))?;
            out.push((Tok::Str(src[i + 1..i + 1 + end].to_string()), i));
            i += end + 2;
        } else if c.is_ascii_alphabetic() || c == b'_' || (c.is_ascii_digit() && c != b'0') {
            let start = i;
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || b"_.-".contains(&b[i]))
                && !(b[i] == b'-' && src[i..].starts_with("->"))
            {
                i += 1;
            }
            out.push((Tok::Id(src[start..i].to_string()), start));
        } else if let Some(s) = SYMS.iter().find(|s| src[i..].starts_with(**s)) {
            out.push((Tok::Sym(s), i));
            i += s.len();
        } else {
            return Err(CatError::at(i, &format!("unexpected `{}`", c as char)));
        }
    }
    Ok(out)
}

struct P {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    end: usize,
}

const KEYWORDS: [&str; 16] = [
    "let",
    "rec",
    "and",
    "in",
    "as",
    "acyclic",
    "irreflexive",
    "empty",
    "flag",
    "include",
    "show",
    "unshow",
    "procedure",
    "call",
    "enum",
    "with",
];

impl P {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
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
            Err(self.err(&format!("expected `{s}`")))
        }
    }
    fn err(&self, msg: &str) -> CatError {
        CatError::at(self.offset(), msg)
    }
    fn ident(&mut self) -> Result<String, CatError> {
        match self.peek() {
            Some(Tok::Id(s)) if !KEYWORDS.contains(&s.as_str()) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => Err(self.err("expected a name")),
        }
    }
    fn starts_expr(&self) -> bool {
        match self.peek() {
            Some(Tok::Id(s)) => !KEYWORDS.contains(&s.as_str()),
            Some(Tok::Sym(s)) => ["(", "[", "~", "0", "{"].contains(s),
            _ => false,
        }
    }

    fn stmts(&mut self) -> Result<Vec<Stmt>, CatError> {
        let mut out = Vec::new();
        // An optional model name, a string or a bare word, before the first statement.
        if let Some(Tok::Str(_)) = self.peek() {
            self.pos += 1;
        } else if let Some(Tok::Id(s)) = self.peek() {
            if !KEYWORDS.contains(&s.as_str()) {
                self.pos += 1;
            }
        }
        while self.pos < self.toks.len() {
            out.push(self.stmt()?);
        }
        Ok(out)
    }

    fn stmt(&mut self) -> Result<Stmt, CatError> {
        let at = self.offset();
        if self.eat_kw("let") {
            if self.eat_kw("rec") {
                let mut binds = vec![self.binding()?];
                while self.eat_kw("and") {
                    binds.push(self.binding()?);
                }
                let binds = binds.into_iter().map(|(n, _, e)| (n, e)).collect();
                return Ok(Stmt::LetRec(binds));
            }
            let mut binds = vec![self.binding()?];
            while self.eat_kw("and") {
                binds.push(self.binding()?);
            }
            return Ok(Stmt::Let(binds));
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
            self.expr()?;
            while self.eat_sym(",") {
                self.expr()?;
            }
            if self.eat_kw("as") {
                self.ident()?;
            }
            return Ok(Stmt::Show);
        }
        let flag = self.eat_kw("flag");
        let negated = self.eat_sym("~");
        let kind = if self.eat_kw("acyclic") {
            CheckKind::Acyclic
        } else if self.eat_kw("irreflexive") {
            CheckKind::Irreflexive
        } else if self.eat_kw("empty") {
            CheckKind::Empty
        } else {
            return Err(self
                .err("expected `let`, `include`, or a check (`acyclic`, `irreflexive`, `empty`)"));
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
            flag,
            expr,
            name,
            at,
        })
    }

    fn binding(&mut self) -> Result<(String, Option<Vec<String>>, Expr), CatError> {
        let name = self.ident()?;
        let params = if self.eat_sym("(") {
            let mut ps = vec![self.ident()?];
            while self.eat_sym(",") {
                ps.push(self.ident()?);
            }
            self.expect_sym(")")?;
            Some(ps)
        } else {
            None
        };
        self.expect_sym("=")?;
        let e = self.expr()?;
        Ok(match params {
            Some(ps) => (name, None, Expr::Fun(ps, Box::new(e))),
            None => (name, None, e),
        })
    }

    fn expr(&mut self) -> Result<Expr, CatError> {
        if self.eat_kw("let") {
            let (n, _, v) = self.binding()?;
            if !self.eat_kw("in") {
                return Err(self.err("expected `in`"));
            }
            let body = self.expr()?;
            return Ok(Expr::LetIn(n, Box::new(v), Box::new(body)));
        }
        self.binary(0)
    }

    fn binary(&mut self, level: usize) -> Result<Expr, CatError> {
        const LEVELS: [&str; 6] = ["|", "++", ";", "\\", "&", "*"];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut lhs = self.binary(level + 1)?;
        loop {
            let op = LEVELS[level];
            if !self.is_sym(op) {
                break;
            }
            if op == "*" {
                // Cartesian only when an operand follows; else it was postfix (handled below).
                let save = self.pos;
                self.pos += 1;
                if !self.starts_expr() {
                    self.pos = save;
                    break;
                }
            } else {
                self.pos += 1;
            }
            let rhs = self.binary(level + 1)?;
            lhs = match op {
                "|" | "++" => Expr::Union(Box::new(lhs), Box::new(rhs)),
                ";" => Expr::Seq(Box::new(lhs), Box::new(rhs)),
                "\\" => Expr::Diff(Box::new(lhs), Box::new(rhs)),
                "&" => Expr::Inter(Box::new(lhs), Box::new(rhs)),
                _ => Expr::Cart(Box::new(lhs), Box::new(rhs)),
            };
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Expr, CatError> {
        if self.eat_sym("~") {
            return Ok(Expr::Compl(Box::new(self.unary()?)));
        }
        let mut e = self.atom()?;
        loop {
            if self.eat_sym("^-1") {
                e = Expr::Inverse(Box::new(e));
            } else if self.eat_sym("+") {
                e = Expr::Plus(Box::new(e));
            } else if self.eat_sym("?") {
                e = Expr::Opt(Box::new(e));
            } else if self.is_sym("*") {
                self.pos += 1;
                if self.starts_expr() {
                    self.pos -= 1;
                    break;
                }
                e = Expr::Star(Box::new(e));
            } else {
                break;
            }
        }
        Ok(e)
    }

    fn atom(&mut self) -> Result<Expr, CatError> {
        if self.eat_sym("0") {
            return Ok(Expr::Empty);
        }
        if self.eat_sym("(") {
            let e = self.expr()?;
            self.expect_sym(")")?;
            return Ok(e);
        }
        if self.eat_sym("[") {
            let e = self.expr()?;
            self.expect_sym("]")?;
            return Ok(Expr::Ident(Box::new(e)));
        }
        if self.eat_sym("{") {
            self.expect_sym("}")?;
            return Ok(Expr::Empty);
        }
        let at = self.offset();
        let name = self.ident()?;
        if self.is_sym("(") {
            self.pos += 1;
            let mut args = vec![self.expr()?];
            while self.eat_sym(",") {
                args.push(self.expr()?);
            }
            self.expect_sym(")")?;
            return Ok(Expr::App(name, args, at));
        }
        Ok(Expr::Var(name, at))
    }
}

/// Parses a cat file.
pub fn parse(src: &str) -> Result<Vec<Stmt>, CatError> {
    let mut p = P {
        toks: lex(src)?,
        pos: 0,
        end: src.len(),
    };
    p.stmts()
}
