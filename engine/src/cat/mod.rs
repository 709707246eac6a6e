//! The cat language (herd's language for axiomatic memory models): a parser and an
//! interpreter over one candidate execution at a time. The language as supported is
//! documented in `docs/cat.md`; the engine's use of it in `docs/design/axiomatic.md`.
//!
//! - [`parse_file`] / [`Model::parse`]: herd's grammar (`let`, `let rec`, functions and
//!   `fun`, `match` on tags and sets, `try`, `if` on variants, tuples, set literals, tags,
//!   `enum`, `instructions`, `procedure`/`call`, `forall`, `with x from e`, `include`, checks
//!   with `flag`/`undefined_unless`/`assert`, `~` and `as`), with herd's precedence. Errors
//!   carry the file and byte offset; bad input never panics.
//! - [`Model::run`] / [`Model::run_all`]: values are event sets and relations (bit sets,
//!   [`rel`]), events, pairs, tags, tuples, sets of values, closures and procedures; the model
//!   runs once per choice of each `with`. The caller supplies the candidate's sets and
//!   relations in [`Env::vars`], the enabled variants in [`Env::variants`].
//! - [`LIBRARY`]: the project's own `stdlib.cat` (the prelude of every model), `cross.cat`,
//!   `cos-opt.cat` and `cos.cat` (MIT), found by `include` before the caller's files.

mod builtin;
mod cross;
mod eval;
mod lex;
mod names;
mod outcome;
pub mod outline;
mod parse;
mod parse_stmt;
mod prune;
pub mod rel;
mod run;
mod value;

pub use eval::{tag_set_name, Env, Failure, Outcome, Value, UNDEF_FLAG};
pub use outline::{outline, Def, DefKind, Outline, TokenKind, Use};
pub use value::{evaluate, named_values, Named};

/// The functions the interpreter has built in (`docs/cat.md`).
pub const BUILTIN_FUNCTIONS: [&str; 11] = [
    "cross-unions",
    "fold",
    "domain",
    "range",
    "fencerel",
    "classes-loc",
    "classes",
    "linearisations",
    "different-values",
    "tag2events",
    "tag2set",
];

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

/// A binary operator of the cat language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `|`
    Union,
    /// `++`: add an element to a set (`e ++ S`); on two sets, their union.
    Add,
    /// `;`
    Seq,
    /// `\`
    Diff,
    /// `&`
    Inter,
    /// `*` between two operands: the cartesian product of two sets.
    Cart,
}

/// A unary operator of the cat language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `^-1`
    Inverse,
    /// postfix `+`
    Plus,
    /// postfix `*`
    Star,
    /// postfix `?`
    Opt,
    /// prefix `~`
    Compl,
    /// `[S]`
    Ident,
}

/// A pattern that binds a function's argument: one name (`_` binds nothing) or a tuple.
#[derive(Clone, Debug, PartialEq)]
pub enum Pat {
    Var(Option<String>),
    Tuple(Vec<Option<String>>),
}

impl Pat {
    fn names(&self) -> Vec<&str> {
        match self {
            Pat::Var(v) => v.iter().map(String::as_str).collect(),
            Pat::Tuple(vs) => vs.iter().flatten().map(String::as_str).collect(),
        }
    }
}

/// A function body with its parameter pattern and its free names (computed once).
#[derive(Debug, PartialEq)]
pub struct FunDef {
    pub pat: Pat,
    pub body: Expr,
    /// The names the body uses that the pattern does not bind: what a closure captures.
    pub free: Vec<String>,
}

/// `let` bindings: a pattern (a name, or a tuple `let (a, b) = ...`) and its expression.
pub type Binding = (Pat, Expr);

/// A condition of `if ... then ... else`.
#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    /// A variant, as the caller enables them (`if "lkmmv2"`, `not`, `&&`, `||`).
    Variant(Variant),
    Eq(Box<Expr>, Box<Expr>),
    Subset(Box<Expr>, Box<Expr>),
    In(Box<Expr>, Box<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Variant {
    Name(String),
    Not(Box<Variant>),
    And(Box<Variant>, Box<Variant>),
    Or(Box<Variant>, Box<Variant>),
}

/// The second clause of a `match` on a set: `e ++ rest -> body`.
#[derive(Clone, Debug, PartialEq)]
pub struct EltClause {
    pub elt: Option<String>,
    pub rest: Option<String>,
    pub body: Box<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Var(String, usize),
    /// `0`, `{}`
    Empty,
    /// `_`: every event.
    Universe,
    /// `'name`
    Tag(String, usize),
    /// `{a, b}`
    Set(Vec<Expr>, usize),
    /// `(a, b)`, `()`
    Tuple(Vec<Expr>, usize),
    Bin(BinOp, Box<Expr>, Box<Expr>, usize),
    Un(UnOp, Box<Expr>, usize),
    /// `f arg` (`f(a, b)` applies `f` to a tuple).
    App(Box<Expr>, Box<Expr>, usize),
    /// `fun x -> e`, `let f(x) = e`.
    Fun(std::sync::Arc<FunDef>),
    Let(Vec<Binding>, Box<Expr>),
    LetRec(Vec<Binding>, Box<Expr>),
    Try(Box<Expr>, Box<Expr>),
    If(Box<Cond>, Box<Expr>, Box<Expr>),
    /// `match e with 'a -> e1 || _ -> e2 end`
    Match(Box<Expr>, Vec<(String, Expr)>, Option<Box<Expr>>, usize),
    /// `match s with {} -> e1 || x ++ rest -> e2 end`
    MatchSet(Box<Expr>, Box<Expr>, EltClause, usize),
}

/// What a check does when it fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckMode {
    /// Forbids the candidate.
    Check,
    /// `flag`: reported (when it *holds*), never forbids.
    Flag,
    /// `undefined_unless`: when it fails, the candidate is undefined: reported as herd's
    /// flag [`UNDEF_FLAG`] (`*undef*`), whatever the check's name.
    UndefinedUnless,
    /// `assert`: like a check.
    Assert,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Let(Vec<Binding>, usize),
    LetRec(Vec<Binding>, usize),
    Check {
        kind: CheckKind,
        negated: bool,
        mode: CheckMode,
        expr: Expr,
        name: Option<String>,
        at: usize,
    },
    Include(String, usize),
    /// `show`, `unshow`, `debug`: display directives, nothing to check.
    Show,
    /// `enum Name = 'a || 'b`
    Enum(String, Vec<String>, usize),
    /// `instructions R[Accesses]` (`default` too): declares an event class and its tags.
    Events(String, Vec<Expr>, usize),
    Procedure(String, Pat, std::sync::Arc<Vec<Stmt>>, usize),
    Call(String, Expr, Option<String>, usize),
    Forall(String, Expr, Vec<Stmt>, usize),
    /// `with x from e`: the rest of the model runs once per member of `e`.
    WithFrom(String, Expr, usize),
    IfVariant(Variant, Vec<Stmt>, Vec<Stmt>, usize),
    Match(Expr, Vec<(String, Vec<Stmt>)>, Option<Vec<Stmt>>, usize),
    /// The statements that follow come from this included file (`None`: the model's own
    /// text); for errors found while the model runs.
    Origin(Option<std::sync::Arc<str>>),
}

/// A parsed model with its includes resolved.
#[derive(Clone, Debug)]
pub struct Model {
    /// The project's `stdlib.cat`, in scope before every model as herd's is.
    pub prelude: Vec<Stmt>,
    pub stmts: Vec<Stmt>,
    /// Whether a group of choices of a `with` that a check forbids as a whole is run as
    /// one ([`prune`]): on by default; off only to compare.
    pub prune: bool,
}

/// The project's cat standard library (MIT, written from herd's manual): file name and text.
/// `include` finds these before asking the caller for a file.
pub const LIBRARY: [(&str, &str); 4] = [
    ("stdlib.cat", include_str!("lib/stdlib.cat")),
    ("cross.cat", include_str!("lib/cross.cat")),
    ("cos-opt.cat", include_str!("lib/cos-opt.cat")),
    ("cos.cat", include_str!("lib/cos.cat")),
];

/// Files herd's models include that the interpreter does without when the caller has none
/// (`filters.cat` only defines aliases).
const OPTIONAL_INCLUDES: [&str; 1] = ["filters.cat"];

/// The text of one of the project's library files.
pub fn library_file(name: &str) -> Option<&'static str> {
    LIBRARY.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// Parses one cat or bell file's statements without resolving its `include`s (for tools that
/// look at one file, such as an editor).
pub fn parse_file(src: &str) -> Result<Vec<Stmt>, CatError> {
    parse::parse(src)
}

thread_local! {
    /// The library's `stdlib.cat`, parsed once per thread (it has no `include`).
    static STDLIB: std::cell::OnceCell<Result<Vec<Stmt>, CatError>> =
        const { std::cell::OnceCell::new() };
}

/// The prelude's statements that define a name the model uses, directly or through another
/// kept definition: a model that uses none of the library costs nothing per candidate.
fn prune_prelude(prelude: &[Stmt], stmts: &[Stmt]) -> Vec<Stmt> {
    let mut used = Vec::new();
    names::names_used(stmts, &mut used);
    let mut used: std::collections::HashSet<String> = used.into_iter().collect();
    let mut keep = vec![false; prelude.len()];
    for (i, s) in prelude.iter().enumerate().rev() {
        let defines: Vec<&str> = match s {
            Stmt::Let(b, _) | Stmt::LetRec(b, _) => b.iter().flat_map(|(p, _)| p.names()).collect(),
            Stmt::Procedure(n, ..) => vec![n.as_str()],
            _ => Vec::new(),
        };
        if defines.iter().any(|n| used.contains(*n)) {
            keep[i] = true;
            let mut more = Vec::new();
            names::names_used(std::slice::from_ref(s), &mut more);
            used.extend(more);
        }
    }
    prelude
        .iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(s, _)| s.clone())
        .collect()
}

impl Model {
    /// Parses `src`; `include "f"` takes `f` from the project's library ([`LIBRARY`]) or else
    /// asks `resolve(f)` for its text (`None`: not found, an error).
    pub fn parse(src: &str, resolve: &dyn Fn(&str) -> Option<String>) -> Result<Model, CatError> {
        let mut stmts = Vec::new();
        Self::parse_into(src, resolve, &mut stmts, 0)?;
        let prelude = STDLIB.with(|lib| -> Result<Vec<Stmt>, CatError> {
            let lib = lib.get_or_init(|| {
                let stdlib = library_file("stdlib.cat").unwrap_or_default();
                parse::parse(stdlib).map_err(|mut e| {
                    e.file = Some("stdlib.cat".into());
                    e
                })
            });
            Ok(prune_prelude(lib.as_ref().map_err(Clone::clone)?, &stmts))
        })?;
        Ok(Model {
            prelude,
            stmts,
            prune: true,
        })
    }

    /// Parses a model made of a bell file (herd's `-bell`: `enum`s, `instructions`, the
    /// architecture's own sets) and a cat file, run in that order, as herd does with a
    /// `.cfg` file's `bell` and `model`; `bell_name` names the bell file in errors.
    pub fn parse_with_bell(
        bell_name: &str,
        bell: &str,
        cat: &str,
        resolve: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Model, CatError> {
        let mut m = Model::parse(cat, resolve)?;
        let mut stmts = vec![Stmt::Origin(Some(bell_name.into()))];
        Self::parse_into(bell, resolve, &mut stmts, 1).map_err(|mut e| {
            e.file.get_or_insert(bell_name.to_string());
            e
        })?;
        stmts.push(Stmt::Origin(None));
        stmts.append(&mut m.stmts);
        m.stmts = stmts;
        Ok(m)
    }

    fn parse_into(
        src: &str,
        resolve: &dyn Fn(&str) -> Option<String>,
        out: &mut Vec<Stmt>,
        depth: usize,
    ) -> Result<(), CatError> {
        let stmts = parse::parse(src)?;
        let origin = match out.last() {
            Some(Stmt::Origin(o)) => o.clone(),
            _ => None,
        };
        Self::resolve_includes(stmts, resolve, out, depth, &origin)
    }

    fn resolve_includes(
        stmts: Vec<Stmt>,
        resolve: &dyn Fn(&str) -> Option<String>,
        out: &mut Vec<Stmt>,
        depth: usize,
        origin: &Option<std::sync::Arc<str>>,
    ) -> Result<(), CatError> {
        for s in stmts {
            match s {
                // The library's stdlib is the prelude of every model already.
                Stmt::Include(file, _) if file == "stdlib.cat" => {}
                Stmt::Include(file, at) => {
                    if depth > 8 {
                        return Err(CatError::at(at, "includes nested too deeply"));
                    }
                    let text = match library_file(&file) {
                        Some(t) => Some(t.to_string()),
                        None => resolve(&file),
                    };
                    match text {
                        Some(text) => {
                            out.push(Stmt::Origin(Some(file.as_str().into())));
                            Self::parse_into(&text, resolve, out, depth + 1).map_err(|mut e| {
                                e.file.get_or_insert(file.clone());
                                e
                            })?;
                            out.push(Stmt::Origin(origin.clone()));
                        }
                        None if OPTIONAL_INCLUDES.contains(&file.as_str()) => {}
                        None => return Err(CatError::at(at, &format!("cannot include `{file}`"))),
                    }
                }
                Stmt::IfVariant(v, a, b, at) => {
                    let (mut ra, mut rb) = (Vec::new(), Vec::new());
                    Self::resolve_includes(a, resolve, &mut ra, depth, origin)?;
                    Self::resolve_includes(b, resolve, &mut rb, depth, origin)?;
                    out.push(Stmt::IfVariant(v, ra, rb, at));
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
                Expr::Bin(BinOp::Union, a, b, _) => names(a, out) && names(b, out),
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
                mode: CheckMode::Check,
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

    /// Evaluates the model on one candidate whose base sets and relations are in `env`. When
    /// the model chooses (`with x from e`), it runs once per choice as herd does; the outcome is
    /// that of the first allowed choice (its flags the union of every allowed choice's), and
    /// `env` is left as that choice's; if none is allowed, the first choice's failure.
    pub fn run(&self, env: &mut Env) -> Result<Outcome, CatError> {
        (env.prune, env.keep) = (self.prune, true);
        let mut branches = run::run(&self.prelude, &self.stmts, env, &|| false)?;
        let Some(first_ok) = branches.iter().position(|b| b.0.failed.is_none()) else {
            return Ok(branches.into_iter().next().map(|b| b.0).unwrap_or_default());
        };
        let mut flags: Vec<String> = branches
            .iter()
            .filter(|b| b.0.failed.is_none())
            .flat_map(|b| b.0.flags.iter().cloned())
            .collect();
        flags.sort();
        flags.dedup();
        let (mut out, chosen) = branches.swap_remove(first_ok);
        if let Some(e) = chosen {
            *env = e;
        }
        if branches.is_empty() {
            // one branch: keep the flags in the order the model raised them
            return Ok(out);
        }
        out.flags = flags;
        Ok(out)
    }

    /// Evaluates the model on one candidate, every choice of its `with ... from ...`
    /// statements apart: one outcome per choice, in order. A choice of a group that a check
    /// forbids as a whole ([`prune`]) is not run: its outcome is the group's first failure.
    /// `stop` is asked before each choice; a stopped run ends with an error.
    pub fn outcomes(&self, env: &Env, stop: &dyn Fn() -> bool) -> Result<Vec<Outcome>, CatError> {
        let mut start = env.clone();
        (start.prune, start.keep) = (self.prune, false);
        let branches = run::run(&self.prelude, &self.stmts, &mut start, stop)?;
        Ok(branches.into_iter().map(|(o, _)| o).collect())
    }

    /// [`Model::outcomes`] with each choice's final environment (the caller's where the
    /// choice was not run).
    pub fn run_all(&self, env: &Env) -> Result<Vec<(Outcome, Env)>, CatError> {
        let mut start = env.clone();
        (start.prune, start.keep) = (self.prune, true);
        let branches = run::run(&self.prelude, &self.stmts, &mut start, &|| false)?;
        let mut start = Some(start);
        Ok(branches
            .into_iter()
            .map(|(o, e)| {
                let e = e.or_else(|| start.take()).unwrap_or_else(|| env.clone());
                (o, e)
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_precedence_and_postfix_star() {
        let m = Model::parse("\"M\" let a = po ; rf* | W * R \\ co & fr", &|_| None).unwrap();
        let Stmt::Let(b, _) = &m.stmts[0] else {
            panic!()
        };
        let Expr::Bin(BinOp::Union, l, r, _) = &b[0].1 else {
            panic!("{:?}", b[0].1)
        };
        assert!(matches!(**l, Expr::Bin(BinOp::Seq, _, ref s, _)
            if matches!(**s, Expr::Un(UnOp::Star, ..))));
        assert!(
            matches!(**r, Expr::Bin(BinOp::Diff, ref c, _, _)
                if matches!(**c, Expr::Bin(BinOp::Cart, ..))),
            "{r:?}"
        );
        assert!(Model::parse("let x = (po", &|_| None).is_err());
        assert!(Model::parse("include \"other.cat\"", &|_| None).is_err());
        assert!(Model::parse("include \"stdlib.cat\"", &|_| None).is_ok());
    }

    #[test]
    fn models_and_environments_cross_threads() {
        fn shared<T: Send + Sync>() {}
        shared::<Model>();
        shared::<Env>();
        shared::<Value>();
    }

    #[test]
    fn the_prelude_keeps_only_what_the_model_uses() {
        let m = Model::parse("acyclic po | rf", &|_| None).unwrap();
        assert!(m.prelude.is_empty(), "{:?}", m.prelude);
        // `map` (`fold` is built in); nothing else
        let m = Model::parse("let x = map (fun e -> e) M", &|_| None).unwrap();
        let mut defined = Vec::new();
        for s in &m.prelude {
            if let Stmt::Let(b, _) | Stmt::LetRec(b, _) = s {
                defined.extend(b.iter().flat_map(|(p, _)| p.names()));
            }
        }
        assert_eq!(defined, ["map"]);
    }
}
