//! The cat language (herd's language for axiomatic memory models): a parser and an
//! interpreter over one candidate execution at a time (`docs/design/axiomatic.md`).
//!
//! A model is a list of statements: `let` (functions too: `let f(s) = ...`), `let rec ... and
//! ...` (least fixed point), `include "file"`, and checks `acyclic r`, `irreflexive r`,
//! `empty r`, optionally negated (`~empty`), named (`as name`) and `flag`ged (a flag does not
//! forbid: it is reported). Expressions: names, `0`, `r | s`, `r & s`, `r \ s`, `r ; s`,
//! `S * T` (cartesian product of sets), `r^-1`, `r+`, `r*`, `r?`, `~r`, `[S]`, applications
//! `f(e, ...)` with the built-ins `domain`, `range`, `fencerel`; `show`/`unshow` are read and
//! ignored.

mod eval;
mod parse;
pub mod rel;

pub use eval::{Env, Failure, Outcome, Value};

/// A cat file that does not parse, or uses something the interpreter does not have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CatError {
    /// Byte offset into the file's text.
    pub offset: usize,
    pub message: String,
    /// The included file the error is in (`None`: the model's own text).
    pub file: Option<String>,
}

impl CatError {
    pub fn at(offset: usize, message: &str) -> CatError {
        CatError {
            offset,
            message: message.to_string(),
            file: None,
        }
    }
}

impl std::fmt::Display for CatError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.file {
            Some(file) => write!(f, "{file}: byte {}: {}", self.offset, self.message),
            None => write!(f, "byte {}: {}", self.offset, self.message),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckKind {
    Acyclic,
    Irreflexive,
    Empty,
}

impl CheckKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckKind::Acyclic => "acyclic",
            CheckKind::Irreflexive => "irreflexive",
            CheckKind::Empty => "empty",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Var(String, usize),
    Empty,
    Union(Box<Expr>, Box<Expr>),
    Inter(Box<Expr>, Box<Expr>),
    Diff(Box<Expr>, Box<Expr>),
    Seq(Box<Expr>, Box<Expr>),
    Cart(Box<Expr>, Box<Expr>),
    Inverse(Box<Expr>),
    Plus(Box<Expr>),
    Star(Box<Expr>),
    Opt(Box<Expr>),
    Compl(Box<Expr>),
    /// `[S]`
    Ident(Box<Expr>),
    App(String, Vec<Expr>, usize),
    /// A function value: `let f(a, b) = body`.
    Fun(Vec<String>, Box<Expr>),
    LetIn(String, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Let(Vec<(String, Option<Vec<String>>, Expr)>),
    LetRec(Vec<(String, Expr)>),
    Check {
        kind: CheckKind,
        negated: bool,
        flag: bool,
        expr: Expr,
        name: Option<String>,
        at: usize,
    },
    Include(String, usize),
    Show,
}

/// A parsed model with its includes resolved.
#[derive(Clone, Debug)]
pub struct Model {
    pub stmts: Vec<Stmt>,
}

/// Files herd's models include whose definitions the interpreter has built in (`fencerel`)
/// or does not need (`cos.cat` computes `co` candidates, which the engine enumerates).
const BUILT_IN_INCLUDES: [&str; 3] = ["stdlib.cat", "cos.cat", "filters.cat"];

impl Model {
    /// Parses `src`; `include "f"` asks `resolve(f)` for the text of `f` (`None`: not
    /// found, an error unless `f` is one of the files the interpreter has built in).
    pub fn parse(src: &str, resolve: &dyn Fn(&str) -> Option<String>) -> Result<Model, CatError> {
        let mut stmts = Vec::new();
        Self::parse_into(src, resolve, &mut stmts, 0)?;
        Ok(Model { stmts })
    }

    fn parse_into(
        src: &str,
        resolve: &dyn Fn(&str) -> Option<String>,
        out: &mut Vec<Stmt>,
        depth: usize,
    ) -> Result<(), CatError> {
        for s in parse::parse(src)? {
            match s {
                Stmt::Include(file, at) => {
                    if depth > 8 {
                        return Err(CatError::at(at, "includes nested too deeply"));
                    }
                    match resolve(&file) {
                        Some(text) => {
                            Self::parse_into(&text, resolve, out, depth + 1).map_err(|mut e| {
                                e.file.get_or_insert(file.clone());
                                e
                            })?
                        }
                        None if BUILT_IN_INCLUDES.contains(&file.as_str()) => {}
                        None => return Err(CatError::at(at, &format!("cannot include `{file}`"))),
                    }
                }
                s => out.push(s),
            }
        }
        Ok(())
    }

    /// Whether the model checks `acyclic po-loc | rf | co | fr` (in any order) unflagged, so
    /// that candidates breaking it may be left out before it runs (herd's uniproc pruning).
    pub fn requires_uniproc(&self) -> bool {
        fn names(e: &Expr, out: &mut Vec<String>) -> bool {
            match e {
                Expr::Union(a, b) => names(a, out) && names(b, out),
                Expr::Var(n, _) => {
                    out.push(n.clone());
                    true
                }
                _ => false,
            }
        }
        self.stmts.iter().any(|s| match s {
            Stmt::Check {
                kind: CheckKind::Acyclic,
                negated: false,
                flag: false,
                expr,
                ..
            } => {
                let mut v = Vec::new();
                names(expr, &mut v) && {
                    v.sort();
                    v == ["co", "fr", "po-loc", "rf"]
                }
            }
            _ => false,
        })
    }

    /// Evaluates the model on one candidate whose base sets and relations are in `env`.
    pub fn run(&self, env: &mut Env) -> Result<Outcome, CatError> {
        eval::run(&self.stmts, env)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_precedence_and_postfix_star() {
        let m = Model::parse("\"M\" let a = po ; rf* | W * R \\ co & fr", &|_| None).unwrap();
        let Stmt::Let(b) = &m.stmts[0] else { panic!() };
        assert!(matches!(b[0].2, Expr::Union(..)), "{:?}", b[0].2);
        let Expr::Union(l, r) = &b[0].2 else { panic!() };
        assert!(matches!(**l, Expr::Seq(_, ref s) if matches!(**s, Expr::Star(_))));
        assert!(
            matches!(**r, Expr::Diff(ref c, _) if matches!(**c, Expr::Cart(..))),
            "{r:?}"
        );
        assert!(Model::parse("let x = (po", &|_| None).is_err());
        assert!(Model::parse("include \"other.cat\"", &|_| None).is_err());
        assert!(Model::parse("include \"stdlib.cat\"", &|_| None).is_ok());
    }
}
