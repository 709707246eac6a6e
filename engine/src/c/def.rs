//! herd's macro definition files (`linux-kernel.def`, `c11.def`), read from text the caller
//! gives (the engine does no I/O; the files are the user's, GPL, never bundled).
//!
//! One definition per entry: `NAME(P1,...,Pn) BODY`, where `BODY` is either a block of
//! statements `{ s1; s2; }` (a procedure: `smp_mb() { __fence{MB}; }`) or an expression to
//! the end of its line (`READ_ONCE(X) __load{ONCE}(X)`,
//! `atomic_dec_and_test(X) __atomic_op_return{MB}(X,-,1) == 0`). Bodies use herd's
//! primitives `__name{tag}(args)` (the tag is optional: `__lock(X)`), other macros, C
//! operators, and operators as arguments (`__atomic_op{NORETURN}(X,&~,V)`). Comments are
//! `//` and `/* */` (`(*X` is a dereference: `__store{RELEASE}(*X,V)`).

use super::source::{SExpr, SUnOp};
use super::{BinOp, UnOp};
use crate::ast::Name;
use crate::span::Span;
use std::collections::HashMap;

/// A macro's body.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// `{ __fence{MB}; }`: statements (expressions evaluated in order).
    Block(Vec<SExpr>),
    /// `__load{ONCE}(X)`: a value.
    Expr(SExpr),
}

/// One definition.
#[derive(Clone, Debug, PartialEq)]
pub struct Def {
    pub name: String,
    pub params: Vec<String>,
    pub body: Body,
    /// 1-based line of the definition in its file.
    pub line: usize,
}

/// The definitions of one `.def` file, by name (a later definition of a name replaces an
/// earlier one).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Defs {
    /// The file's name as the caller gives it (for messages: "searched linux-kernel.def").
    pub file: String,
    pub defs: HashMap<String, Def>,
}

/// A syntax error in a `.def` file, with its 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl std::fmt::Display for DefError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

impl Defs {
    /// Parses a `.def` file's text; `file` names it in messages.
    pub fn parse(file: &str, text: &str) -> Result<Defs, DefError> {
        let toks = lex(text)?;
        let mut p = Parser {
            toks: &toks,
            pos: 0,
            text,
            params: Vec::new(),
            depth: 0,
        };
        let mut defs = HashMap::new();
        loop {
            p.skip_newlines();
            if p.pos >= toks.len() {
                break;
            }
            let def = p.definition()?;
            defs.insert(def.name.clone(), def);
        }
        Ok(Defs {
            file: file.to_string(),
            defs,
        })
    }

    pub fn get(&self, name: &str) -> Option<&Def> {
        self.defs.get(name)
    }

    /// Several files searched in order (`linux-kernel.def` then the C11 file): the first
    /// definition of a name wins.
    pub fn merged(files: &[Defs]) -> Defs {
        let mut out = Defs {
            file: files
                .iter()
                .map(|d| d.file.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            defs: HashMap::new(),
        };
        for f in files {
            for (k, v) in &f.defs {
                out.defs.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        out
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// `__load{ONCE}`: a primitive with its tag.
    Prim(String, Option<String>),
    Int(i64),
    Punct(&'static str),
    Newline,
}

struct Token {
    tok: Tok,
    start: usize,
    end: usize,
}

const PUNCTS: [&str; 30] = [
    "&~", "==", "!=", "<=", ">=", "<<", ">>", "&&", "||", "->", "{", "}", "(", ")", ",", ";", "*",
    "&", "|", "^", "~", "+", "-", "!", "<", ">", "=", "/", "%", "?",
];

fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn error(text: &str, at: usize, message: impl Into<String>) -> DefError {
    let (line, col) = line_col(text, at);
    DefError {
        line,
        col,
        message: message.into(),
    }
}

fn lex(text: &str) -> Result<Vec<Token>, DefError> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            out.push(Token {
                tok: Tok::Newline,
                start: i,
                end: i + 1,
            });
            i += 1;
        } else if c.is_ascii_whitespace() {
            i += 1;
        } else if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(b.len(), |n| i + n);
        } else if text[i..].starts_with("/*") {
            match text[i + 2..].find("*/") {
                Some(n) => i += 2 + n + 2,
                None => return Err(error(text, i, "comment not closed")),
            }
        } else if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = text[start..i].to_string();
            if word.starts_with("__") {
                let tag = if b.get(i) == Some(&b'{') {
                    let Some(n) = text[i..].find('}') else {
                        return Err(error(text, i, "tag not closed: expected `}`"));
                    };
                    let tag = text[i + 1..i + n].trim().to_string();
                    i += n + 1;
                    Some(tag)
                } else {
                    None
                };
                out.push(Token {
                    tok: Tok::Prim(word, tag),
                    start,
                    end: i,
                });
            } else {
                out.push(Token {
                    tok: Tok::Ident(word),
                    start,
                    end: i,
                });
            }
        } else if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let s = &text[start..i];
            let v = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
                i64::from_str_radix(h, 16)
            } else {
                s.parse()
            };
            let v = v.map_err(|_| error(text, start, format!("bad number `{s}`")))?;
            out.push(Token {
                tok: Tok::Int(v),
                start,
                end: i,
            });
        } else {
            let Some(p) = PUNCTS.iter().find(|p| text[i..].starts_with(**p)) else {
                let ch = text[i..].chars().next().unwrap_or(' ');
                return Err(error(text, i, format!("unexpected `{ch}`")));
            };
            out.push(Token {
                tok: Tok::Punct(p),
                start: i,
                end: i + p.len(),
            });
            i += p.len();
        }
    }
    Ok(out)
}

/// Deepest nesting of a body's expressions.
const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    toks: &'a [Token],
    pos: usize,
    text: &'a str,
    params: Vec<String>,
    depth: usize,
}

fn binop(p: &str) -> Option<(BinOp, u8)> {
    Some(match p {
        "||" => (BinOp::LogicalOr, 1),
        "&&" => (BinOp::LogicalAnd, 2),
        "|" => (BinOp::Or, 3),
        "^" => (BinOp::Xor, 4),
        "&" => (BinOp::And, 5),
        "==" => (BinOp::Eq, 6),
        "!=" => (BinOp::Ne, 6),
        "<" => (BinOp::Lt, 7),
        "<=" => (BinOp::Le, 7),
        ">" => (BinOp::Gt, 7),
        ">=" => (BinOp::Ge, 7),
        "<<" => (BinOp::Shl, 8),
        ">>" => (BinOp::Shr, 8),
        "+" => (BinOp::Add, 9),
        "-" => (BinOp::Sub, 9),
        "*" => (BinOp::Mul, 10),
        "/" => (BinOp::Div, 10),
        "%" => (BinOp::Rem, 10),
        _ => return None,
    })
}

impl<'a> Parser<'a> {
    /// The next token, skipping newlines unless `newlines`.
    fn peek_nl(&self, newlines: bool) -> Option<&'a Token> {
        self.toks
            .get(self.pos..)
            .unwrap_or_default()
            .iter()
            .find(|t| newlines || t.tok != Tok::Newline)
    }
    fn peek(&self) -> Option<&'a Token> {
        self.peek_nl(false)
    }
    fn skip_newlines(&mut self) {
        while self
            .toks
            .get(self.pos)
            .is_some_and(|t| t.tok == Tok::Newline)
        {
            self.pos += 1;
        }
    }
    fn next(&mut self) -> Option<&'a Token> {
        self.skip_newlines();
        let t = self.toks.get(self.pos);
        self.pos += 1;
        t
    }
    fn here(&self) -> usize {
        self.peek().map_or(self.text.len(), |t| t.start)
    }
    fn err(&self, message: impl Into<String>) -> DefError {
        error(self.text, self.here(), message)
    }
    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Token { tok: Tok::Punct(q), .. }) if *q == p)
    }
    fn expect(&mut self, p: &str) -> Result<(), DefError> {
        if self.is_punct(p) {
            self.next();
            Ok(())
        } else {
            Err(self.err(format!("expected `{p}`")))
        }
    }

    fn definition(&mut self) -> Result<Def, DefError> {
        self.skip_newlines();
        let Some(t) = self.next() else {
            return Err(self.err("expected a definition"));
        };
        let name = match &t.tok {
            Tok::Ident(n) => n.clone(),
            _ => return Err(error(self.text, t.start, "expected a macro name")),
        };
        let line = line_col(self.text, t.start).0;
        self.expect("(")?;
        let mut params = Vec::new();
        if !self.is_punct(")") {
            loop {
                match self.next() {
                    Some(Token {
                        tok: Tok::Ident(p), ..
                    }) => params.push(p.clone()),
                    _ => return Err(self.err("expected a parameter name")),
                }
                if self.is_punct(",") {
                    self.next();
                } else {
                    break;
                }
            }
        }
        self.expect(")")?;
        self.params = params.clone();
        let body = if self.is_punct("{") {
            self.next();
            let mut stmts = Vec::new();
            loop {
                if self.is_punct("}") {
                    self.next();
                    break;
                }
                if self.is_punct(";") {
                    self.next();
                    continue;
                }
                if self.peek().is_none() {
                    return Err(self.err(format!("`{name}`: expected `}}`")));
                }
                stmts.push(self.expr(0)?);
            }
            Body::Block(stmts)
        } else {
            let e = self.expr(0)?;
            // An expression body ends with its line.
            if let Some(t) = self.peek_nl(true) {
                if t.tok != Tok::Newline {
                    return Err(error(
                        self.text,
                        t.start,
                        format!("`{name}`: expected the end of the line after its body"),
                    ));
                }
            }
            Body::Expr(e)
        };
        Ok(Def {
            name,
            params,
            body,
            line,
        })
    }

    fn span(&self, start: usize) -> Span {
        let end = self.toks[..self.pos.min(self.toks.len())]
            .last()
            .map_or(start, |t| t.end);
        Span::new(start, end.max(start))
    }

    /// An expression whose binary operators bind tighter than `min`. Newlines end it except
    /// inside parentheses (where `args` skips them).
    fn expr(&mut self, min: u8) -> Result<SExpr, DefError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("expression nested too deeply"));
        }
        let start = self.here();
        let mut left = self.unary()?;
        while let Some(Token {
            tok: Tok::Punct(p), ..
        }) = self.peek_nl(true)
        {
            let Some((op, prec)) = binop(p) else { break };
            if prec <= min {
                break;
            }
            self.next();
            let right = self.expr(prec)?;
            left = SExpr::Binary(op, Box::new(left), Box::new(right), self.span(start));
        }
        self.depth -= 1;
        Ok(left)
    }

    fn unary(&mut self) -> Result<SExpr, DefError> {
        let start = self.here();
        let Some(t) = self.next() else {
            return Err(self.err("expected an expression"));
        };
        let op = match &t.tok {
            Tok::Punct("-") => Some(SUnOp::Op(UnOp::Neg)),
            Tok::Punct("!") => Some(SUnOp::Op(UnOp::Not)),
            Tok::Punct("~") => Some(SUnOp::Op(UnOp::BitNot)),
            Tok::Punct("*") => Some(SUnOp::Deref),
            Tok::Punct("&") => Some(SUnOp::AddrOf),
            _ => None,
        };
        if let Some(op) = op {
            // An operator alone as an argument: `(X,-,V)`, `(X,&,V)`.
            if self.is_punct(",") || self.is_punct(")") {
                let bin = match op {
                    SUnOp::Op(UnOp::Neg) => BinOp::Sub,
                    SUnOp::Deref => BinOp::Mul,
                    SUnOp::AddrOf => BinOp::And,
                    _ => return Err(error(self.text, t.start, "expected an operand")),
                };
                return Ok(SExpr::Op(bin, self.span(start)));
            }
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(self.err("expression nested too deeply"));
            }
            let e = self.unary()?;
            self.depth -= 1;
            return Ok(SExpr::Unary(op, Box::new(e), self.span(start)));
        }
        match &t.tok {
            Tok::Int(v) => Ok(SExpr::Int(*v, self.span(start))),
            Tok::Punct("(") => {
                let e = self.expr(0)?;
                self.expect(")")?;
                Ok(e)
            }
            // Operators as arguments: `+`, `|`, `^`, `&~`.
            Tok::Punct(p) if self.is_punct(",") || self.is_punct(")") => {
                let op = match *p {
                    "&~" => BinOp::AndNot,
                    _ => match binop(p) {
                        Some((op, _)) => op,
                        None => return Err(error(self.text, t.start, format!("unexpected `{p}`"))),
                    },
                };
                Ok(SExpr::Op(op, self.span(start)))
            }
            Tok::Prim(name, tag) => {
                // `__fence{MB}` takes no arguments and has no parentheses.
                let args = if self.is_punct("(") {
                    self.args()?
                } else {
                    Vec::new()
                };
                Ok(SExpr::Prim {
                    name: name.clone(),
                    tag: tag.clone(),
                    args,
                    span: self.span(start),
                })
            }
            Tok::Ident(name) => {
                if self.is_punct("(") {
                    let args = self.args()?;
                    return Ok(SExpr::Call {
                        name: Name {
                            text: name.clone(),
                            span: Span::new(t.start, t.end),
                        },
                        args,
                        span: self.span(start),
                    });
                }
                if let Some(i) = self.params.iter().position(|p| p == name) {
                    return Ok(SExpr::Param(i, Span::new(t.start, t.end)));
                }
                Ok(SExpr::Ident(Name {
                    text: name.clone(),
                    span: Span::new(t.start, t.end),
                }))
            }
            Tok::Punct(p) => Err(error(self.text, t.start, format!("unexpected `{p}`"))),
            Tok::Newline => Err(error(self.text, t.start, "expected an expression")),
        }
    }

    fn args(&mut self) -> Result<Vec<SExpr>, DefError> {
        self.expect("(")?;
        let mut args = Vec::new();
        if self.is_punct(")") {
            self.next();
            return Ok(args);
        }
        loop {
            args.push(self.expr(0)?);
            if self.is_punct(",") {
                self.next();
            } else {
                break;
            }
        }
        self.expect(")")?;
        Ok(args)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_procedures_expressions_and_operator_arguments() {
        let text = "// c\nREAD_ONCE(X) __load{ONCE}(X)\nsmp_mb() { __fence{MB}; }\n\
                    atomic_andnot(V,X) { __atomic_op{NORETURN}(X,&~,V); }\n\
                    atomic_dec_and_test(X)  __atomic_op_return{MB}(X,-,1) == 0\n\
                    spin_lock(X) { __lock(X); }\n";
        let d = Defs::parse("k.def", text).unwrap();
        assert_eq!(d.defs.len(), 5);
        let r = d.get("READ_ONCE").unwrap();
        assert_eq!(r.params, vec!["X"]);
        assert!(
            matches!(&r.body, Body::Expr(SExpr::Prim { name, tag: Some(t), args, .. })
            if name == "__load" && t == "ONCE" && matches!(args[..], [SExpr::Param(0, _)]))
        );
        let a = d.get("atomic_andnot").unwrap();
        let Body::Block(b) = &a.body else { panic!() };
        assert!(
            matches!(&b[0], SExpr::Prim { args, .. } if matches!(args[1], SExpr::Op(BinOp::AndNot, _)))
        );
        let t = d.get("atomic_dec_and_test").unwrap();
        assert!(matches!(&t.body, Body::Expr(SExpr::Binary(BinOp::Eq, ..))));
        assert!(
            matches!(&d.get("spin_lock").unwrap().body, Body::Block(b) if matches!(&b[0], SExpr::Prim { tag: None, .. }))
        );
    }

    #[test]
    fn errors_have_positions() {
        let e = Defs::parse("k.def", "READ_ONCE(X) __load{ONCE}(X\nfoo(").unwrap_err();
        assert_eq!(e.line, 2);
        let e = Defs::parse("k.def", "smp_mb() { __fence{MB};").unwrap_err();
        assert!(e.message.contains("expected `}`"), "{e}");
        let e = Defs::parse("k.def", "a(X) X $").unwrap_err();
        assert_eq!((e.line, e.col), (1, 8));
    }
}
