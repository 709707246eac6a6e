//! The cat language's statements (and the model header, variants and tags), for the parser
//! of `parse.rs`.

use super::lex::{is_kw, Tok};
use super::parse::{tuple_pat, P};
use super::{CatError, CheckKind, CheckMode, Pat, Stmt, Variant};
use std::sync::Arc;

impl P {
    pub(super) fn header(&mut self) {
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

    pub(super) fn starts_stmt(&self) -> bool {
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

    pub(super) fn stmts_until_end(&mut self) -> Result<Vec<Stmt>, CatError> {
        let mut out = Vec::new();
        while self.starts_stmt() {
            out.push(self.stmt()?);
            out.extend(self.pending.take());
        }
        Ok(out)
    }

    pub(super) fn stmt(&mut self) -> Result<Stmt, CatError> {
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

    pub(super) fn tag(&mut self) -> Result<String, CatError> {
        match self.peek().cloned() {
            Some(Tok::Tag(t)) => {
                self.pos += 1;
                Ok(t)
            }
            _ => Err(self.err(&format!("expected a tag such as `'a`{}", self.found()))),
        }
    }

    pub(super) fn variant(&mut self) -> Result<Variant, CatError> {
        let mut v = self.variant_and()?;
        while self.eat_sym("||") {
            v = Variant::Or(Box::new(v), Box::new(self.variant_and()?));
        }
        Ok(v)
    }
    pub(super) fn variant_and(&mut self) -> Result<Variant, CatError> {
        let mut v = self.variant_atom()?;
        while self.eat_sym("&&") {
            v = Variant::And(Box::new(v), Box::new(self.variant_atom()?));
        }
        Ok(v)
    }
    pub(super) fn variant_atom(&mut self) -> Result<Variant, CatError> {
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
    pub(super) fn starts_variant(&self) -> bool {
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
}
