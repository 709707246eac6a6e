//! A C test as written ([`Source`]): the init block, the threads with their parameters and
//! statements, C expressions with macros as calls ([`SExpr::Call`]), and the `Result:`
//! header comment. `syntax::c` builds it from the tree; the `.def` file's bodies use the same
//! expressions plus herd's primitives ([`SExpr::Prim`]) and macro parameters
//! ([`SExpr::Param`]).

use super::{BinOp, UnOp};
use crate::ast::Name;
use crate::span::Span;

/// A C test as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Source {
    pub init: Vec<InitEntry>,
    pub threads: Vec<SThread>,
    /// The `Result:` header comment, as the kernel's `judgelitmus.sh` reads it.
    pub expected: Option<Expected>,
    /// herd's `filter`: only executions whose final state satisfies it count.
    pub filter: Option<crate::ast::Expr>,
    /// `locations [x; 1:r0;]`: what the final states show besides the condition's.
    pub shown: Vec<crate::ast::Expr>,
}

/// The outcome a test's `Result:` comment announces (`(* Result: Sometimes *)`,
/// ` * Result: Never DATARACE`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The condition's state is never reached (`exists` fails).
    Never,
    Sometimes,
    Always,
    /// Any answer passes.
    Maybe,
    /// `DEADLOCK`: no execution completes, which herd prints as `Never 0 0`.
    Deadlock,
    /// Anything else, as written (`Flag srcu-bad-nesting`).
    Other(String),
}

/// The `Result:` comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    pub outcome: Outcome,
    /// `DATARACE` follows the outcome: the data-race flag is expected to be raised.
    pub datarace: bool,
    /// Where the comment's line is.
    pub span: Span,
}

impl Expected {
    /// The first `Result:` line of `text` in a comment (`(* Result: X *)` or ` * Result: X`),
    /// as `judgelitmus.sh` finds it.
    pub fn find(text: &str) -> Option<Expected> {
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            let t = line.trim_start();
            let rest = t
                .strip_prefix("(*")
                .or_else(|| t.strip_prefix('*'))
                .map(str::trim_start)
                .and_then(|r| r.strip_prefix("Result:"));
            let Some(rest) = rest else { continue };
            let rest = rest.trim().trim_end_matches("*)").trim();
            let mut words = rest.split_whitespace();
            let first = words.next().unwrap_or("");
            let outcome = match first {
                "Never" => Outcome::Never,
                "Sometimes" => Outcome::Sometimes,
                "Always" => Outcome::Always,
                "Maybe" => Outcome::Maybe,
                "DEADLOCK" => Outcome::Deadlock,
                _ => Outcome::Other(rest.to_string()),
            };
            let datarace = rest.split_whitespace().any(|w| w == "DATARACE");
            let end = start + line.trim_end().len();
            return Some(Expected {
                outcome,
                datarace,
                span: Span::new(start + (line.len() - line.trim_start().len()), end),
            });
        }
        None
    }
}

/// `x = 1`, `int *p = &y`, `0:r0 = 0`, `atomic_t v = ATOMIC_INIT(2)`, `[x] = 0`.
#[derive(Clone, Debug, PartialEq)]
pub struct InitEntry {
    /// The type as written (`int`, `atomic_t`), if any.
    pub ty: Option<String>,
    /// `*`s before the name.
    pub pointers: u8,
    /// The location, or the thread and register of `0:r0`.
    pub thread: Option<String>,
    pub name: Name,
    pub value: Option<SExpr>,
    pub span: Span,
}

/// `int *x`: a thread's parameter, a pointer to the shared location of the same name.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub ty: String,
    pub pointers: u8,
    pub name: Name,
}

/// A thread as written.
#[derive(Clone, Debug, PartialEq)]
pub struct SThread {
    pub name: Name,
    pub params: Vec<Param>,
    pub body: Vec<SStmt>,
    pub span: Span,
}

/// A statement as written.
#[derive(Clone, Debug, PartialEq)]
pub enum SStmt {
    /// `int r0;`, `intptr_t r1 = e;` (one per declarator).
    Decl {
        ty: String,
        pointers: u8,
        name: Name,
        value: Option<SExpr>,
    },
    Expr(SExpr),
    If {
        cond: SExpr,
        then: Vec<SStmt>,
        otherwise: Vec<SStmt>,
    },
    While {
        cond: SExpr,
        body: Vec<SStmt>,
    },
    Block(Vec<SStmt>),
}

/// `*e`, `&e` besides C's arithmetic operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SUnOp {
    Op(UnOp),
    Deref,
    AddrOf,
}

/// An expression as written (in a test) or as defined (in a `.def` body).
#[derive(Clone, Debug, PartialEq)]
pub enum SExpr {
    Int(i64, Span),
    Ident(Name),
    Unary(SUnOp, Box<SExpr>, Span),
    Binary(BinOp, Box<SExpr>, Box<SExpr>, Span),
    Cond(Box<SExpr>, Box<SExpr>, Box<SExpr>, Span),
    /// `r = e`, `r += e` (`op` is the compound operator's).
    Assign {
        op: Option<BinOp>,
        left: Box<SExpr>,
        right: Box<SExpr>,
        span: Span,
    },
    /// `READ_ONCE(*x)`: a macro or function call.
    Call {
        name: Name,
        args: Vec<SExpr>,
        span: Span,
    },
    /// `.def` only: herd's primitive `__load{ONCE}(X)`.
    Prim {
        name: String,
        tag: Option<String>,
        args: Vec<SExpr>,
        span: Span,
    },
    /// `.def` only: the macro's `i`-th parameter.
    Param(usize, Span),
    /// `.def` only: an operator given as an argument (`__atomic_op(X,&~,V)`).
    Op(BinOp, Span),
}

impl SExpr {
    pub fn span(&self) -> Span {
        match self {
            SExpr::Int(_, s)
            | SExpr::Unary(_, _, s)
            | SExpr::Binary(_, _, _, s)
            | SExpr::Cond(_, _, _, s)
            | SExpr::Assign { span: s, .. }
            | SExpr::Call { span: s, .. }
            | SExpr::Prim { span: s, .. }
            | SExpr::Param(_, s)
            | SExpr::Op(_, s) => *s,
            SExpr::Ident(n) => n.span,
        }
    }
}
