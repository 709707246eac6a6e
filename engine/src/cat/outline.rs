//! What an editor needs of one cat or bell file, its `include`s not followed: every token
//! (comments included) classified, the file's definitions with their documentation comments,
//! every use of a name with the local binding it refers to (if any), the `include`s, the named
//! checks, and the first error. The editor resolves a use that no local binding takes against
//! the file's definitions, then its includes, then the standard library ([`Outline::global`]).
//!
//! Rules (`docs/cat.md#in-the-editor`): a definition is a statement-level `let`/`let rec` binding
//! (also inside `if`, `match` and `forall` statements), `procedure`, `enum`, `instructions`
//! or `default`, or `with x from`; everything else that binds a name is local: function
//! parameters (`let f(x)`, `fun x ->`, `procedure p(x)`), `let ... in`, `forall x`, `x ++ rest`
//! in a `match` on a set. A local's scope runs from its binding to the end of the top-level
//! statement that holds it. A file that does not parse still gets its tokens, and the
//! definitions and uses found before the error.

use super::lex::{is_kw, lex, name_len, Tok};
use super::{parse, CatError, Stmt};
use crate::span::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Keyword,
    /// A name: see [`Outline::defs`] and [`Outline::uses`] for what it is.
    Name,
    Tag,
    Str,
    Comment,
    /// `0` (the empty set).
    Number,
    Operator,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefKind {
    /// A set or relation (`let x = e`).
    Let,
    /// A function (`let f(x) = e`, `let f x = e`, `let f = fun x -> e`).
    Function,
    Procedure,
    /// `enum Name = 'a || 'b`.
    Enum,
    /// `instructions X[...]`, `default X[...]`.
    Events,
    /// `with x from e`.
    Choice,
    /// A local binding (parameter, `let ... in`, `forall x`, a `match` pattern).
    Local,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Def {
    pub name: String,
    /// The name where it is bound.
    pub span: Span,
    pub kind: DefKind,
    /// The whole statement (for a hover): from its keyword to the start of the next one.
    pub stmt: Span,
    /// The `(* ... *)` just above the statement, without its delimiters.
    pub doc: Option<String>,
    /// `let rec`: the definition is in scope in its own statement.
    pub rec: bool,
}

impl Def {
    pub fn is_local(&self) -> bool {
        self.kind == DefKind::Local
    }
}

/// One use of a name.
#[derive(Clone, Debug, PartialEq)]
pub struct Use {
    pub name: String,
    pub span: Span,
    /// The local binding it refers to (an index of [`Outline::defs`]).
    pub local: Option<usize>,
    /// Inside `try ... with`: a use that may fail on purpose.
    pub guarded: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outline {
    pub tokens: Vec<(Span, TokenKind)>,
    /// Definitions and local bindings, in text order.
    pub defs: Vec<Def>,
    pub uses: Vec<Use>,
    /// `include "file"`: the file name and the span of the string.
    pub includes: Vec<(String, Span)>,
    /// Checks, with their name if they have one (`as name`): the keyword's span and the
    /// statement's.
    pub checks: Vec<(String, Option<String>, Span, Span)>,
    /// The first error (lexing or parsing).
    pub error: Option<CatError>,
    /// Where each top-level statement starts.
    stmt_starts: Vec<usize>,
}

const STMT_KWS: [&str; 16] = [
    "let",
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
    "enum",
    "instructions",
];

/// Whether a token can end an expression (so that a `let` after it starts a statement).
fn ends_expr(t: &Tok) -> bool {
    match t {
        Tok::Id(s) => !is_kw(s) || s == "end",
        Tok::Tag(_) | Tok::Str(_) => true,
        Tok::Sym(s) => [")", "]", "}", "0", "_", "+", "*", "?", "^-1", "-1"].contains(s),
    }
}

/// The statement-level `let`s (their offsets) and the top-level statements' starts.
fn statement_offsets(stmts: &[Stmt], top: bool, lets: &mut Vec<usize>, starts: &mut Vec<usize>) {
    for s in stmts {
        let at = match s {
            Stmt::Let(_, at) | Stmt::LetRec(_, at) => {
                lets.push(*at);
                Some(*at)
            }
            Stmt::Check { at, .. }
            | Stmt::Include(_, at)
            | Stmt::Enum(_, _, at)
            | Stmt::Events(_, _, at)
            | Stmt::Procedure(_, _, _, at)
            | Stmt::Call(_, _, _, at)
            | Stmt::WithFrom(_, _, at) => Some(*at),
            Stmt::Forall(_, _, body, at) => {
                statement_offsets(body, false, lets, starts);
                Some(*at)
            }
            Stmt::IfVariant(_, a, b, at) => {
                statement_offsets(a, false, lets, starts);
                statement_offsets(b, false, lets, starts);
                Some(*at)
            }
            Stmt::Match(_, clauses, default, at) => {
                for (_, b) in clauses {
                    statement_offsets(b, false, lets, starts);
                }
                if let Some(b) = default {
                    statement_offsets(b, false, lets, starts);
                }
                Some(*at)
            }
            Stmt::Show | Stmt::Origin(_) => None,
        };
        if let (true, Some(at)) = (top, at) {
            starts.push(at);
        }
    }
}

/// The tokens of `src` up to its first lexing error, and the error.
fn tokens(src: &str) -> (Vec<(Tok, usize)>, Option<CatError>) {
    match lex(src) {
        Ok(t) => (t, None),
        Err(e) => {
            let mut cut = e.offset.min(src.len());
            while !src.is_char_boundary(cut) {
                cut -= 1;
            }
            (lex(&src[..cut]).unwrap_or_default(), Some(e))
        }
    }
}

fn tok_len(src: &str, t: &Tok, at: usize) -> usize {
    match t {
        Tok::Id(s) => s.len(),
        Tok::Str(s) => s.len() + 2,
        Tok::Tag(s) => s.len() + 1,
        Tok::Sym(s) => {
            // `-1` after `^` is lexed as its own symbol; names are measured from the text.
            let n = name_len(src, at);
            if n > 0 {
                n
            } else {
                s.len()
            }
        }
    }
}

/// The comment that ends just before `at` (only white space between), without `(*`, `*)`.
fn doc_before(src: &str, comments: &[Span], at: usize) -> Option<String> {
    let c = comments.iter().rev().find(|c| (c.end as usize) <= at)?;
    let between = &src[c.end as usize..at];
    if !between.trim().is_empty() || between.matches('\n').count() > 1 {
        return None;
    }
    let text = &src[c.start as usize..c.end as usize];
    let inner = text
        .strip_prefix("(*")
        .and_then(|t| t.strip_suffix("*)"))
        .unwrap_or(text);
    Some(inner.trim().to_string())
}

/// Records a binding: (definitions, binder marks, token, kind, statement offset, `rec`).
type Push<'a> = dyn FnMut(&mut Vec<Def>, &mut Vec<bool>, usize, DefKind, usize, bool) + 'a;

/// Analyses one file.
pub fn outline(src: &str) -> Outline {
    let (toks, lex_err) = tokens(src);
    let parsed = parse::parse(src);
    let mut out = Outline {
        error: lex_err.or_else(|| parsed.as_ref().err().cloned()),
        ..Outline::default()
    };
    let (mut lets, mut starts) = (Vec::new(), Vec::new());
    if let Ok(stmts) = &parsed {
        statement_offsets(stmts, true, &mut lets, &mut starts);
    }
    let parse_ok = parsed.is_ok();

    // Tokens, with the comments in the gaps between them.
    let mut comments = Vec::new();
    let mut last = 0;
    let gap = |from: usize, to: usize, comments: &mut Vec<Span>| {
        let mut i = from;
        let b = src.as_bytes();
        while i < to {
            if src[i..to].starts_with("(*") {
                let mut depth = 0;
                let start = i;
                while i < to {
                    if src[i..to].starts_with("(*") {
                        depth += 1;
                        i += 2;
                    } else if src[i..to].starts_with("*)") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                comments.push(Span::new(start, i));
            } else if src[i..to].starts_with("//") || b[i] == b'#' {
                let end = src[i..to].find('\n').map_or(to, |k| i + k);
                comments.push(Span::new(i, end));
                i = end;
            } else {
                i += 1;
            }
        }
    };
    let mut spans = Vec::with_capacity(toks.len());
    for (t, at) in &toks {
        gap(last, *at, &mut comments);
        let end = at + tok_len(src, t, *at);
        spans.push(Span::new(*at, end));
        last = end;
    }
    gap(last, src.len(), &mut comments);

    // Statement starts when the file did not parse: statement keywords after an expression.
    if !parse_ok {
        for (i, (t, at)) in toks.iter().enumerate() {
            if let Tok::Id(s) = t {
                let after_expr = i == 0 || ends_expr(&toks[i - 1].0);
                if STMT_KWS.contains(&s.as_str()) && (s != "let" || after_expr) {
                    starts.push(*at);
                    if s == "let" {
                        lets.push(*at);
                    }
                }
            }
        }
    }
    starts.sort_unstable();
    let stmt_end = |at: usize| -> usize {
        starts
            .iter()
            .find(|s| **s > at)
            .copied()
            .unwrap_or(src.len())
    };
    // Any statement's start, nested ones included (where a definition's text ends).
    let mut any: Vec<usize> = starts.iter().chain(&lets).copied().collect();
    any.sort_unstable();
    let next_any =
        |at: usize| -> usize { any.iter().find(|s| **s > at).copied().unwrap_or(src.len()) };
    let stmt_start = |at: usize| -> usize {
        starts
            .iter()
            .rev()
            .find(|s| **s <= at)
            .copied()
            .unwrap_or(0)
    };

    let mut binder = vec![false; toks.len()];
    let name_at = |i: usize| -> Option<&str> {
        match toks.get(i).map(|t| &t.0) {
            Some(Tok::Id(s)) if !is_kw(s) => Some(s),
            _ => None,
        }
    };
    let sym_at =
        |i: usize, s: &str| matches!(toks.get(i).map(|t| &t.0), Some(Tok::Sym(x)) if *x == s);
    let kw_at = |i: usize, k: &str| matches!(toks.get(i).map(|t| &t.0), Some(Tok::Id(x)) if x == k);
    let mut defs: Vec<Def> = Vec::new();
    let mut push =
        |defs: &mut Vec<Def>, binder: &mut Vec<bool>, i: usize, kind, stmt_at: usize, rec| {
            if let Some(n) = name_at(i) {
                binder[i] = true;
                let s0 = stmt_start(stmt_at).max(if kind == DefKind::Local { 0 } else { stmt_at });
                defs.push(Def {
                    name: n.to_string(),
                    span: spans[i],
                    kind,
                    stmt: Span::new(s0, next_any(stmt_at).max(s0)),
                    doc: if kind == DefKind::Local {
                        None
                    } else {
                        doc_before(src, &comments, stmt_at)
                    },
                    rec,
                });
            }
        };
    // A binding's head at token `i`.
    let binding = |defs: &mut Vec<Def>,
                   binder: &mut Vec<bool>,
                   push: &mut Push,
                   i: usize,
                   global: bool,
                   at: usize,
                   rec: bool| {
        let kind = |k| if global { k } else { DefKind::Local };
        if sym_at(i, "(") {
            let mut j = i + 1;
            while j < toks.len() && !sym_at(j, ")") {
                push(defs, binder, j, kind(DefKind::Let), at, rec);
                j += 1;
            }
            return;
        }
        if sym_at(i + 1, "(") {
            push(defs, binder, i, kind(DefKind::Function), at, rec);
            let mut j = i + 2;
            while j < toks.len() && !sym_at(j, ")") {
                push(defs, binder, j, DefKind::Local, at, false);
                j += 1;
            }
        } else if name_at(i + 1).is_some() && sym_at(i + 2, "=") {
            push(defs, binder, i, kind(DefKind::Function), at, rec);
            push(defs, binder, i + 1, DefKind::Local, at, false);
        } else {
            let fun = sym_at(i + 1, "=") && kw_at(i + 2, "fun");
            push(
                defs,
                binder,
                i,
                kind(if fun { DefKind::Function } else { DefKind::Let }),
                at,
                rec,
            );
            let mut j = i + 1;
            while sym_at(j, ",") {
                push(defs, binder, j + 1, kind(DefKind::Let), at, rec);
                j += 2;
            }
        }
    };
    // The `let`s whose `and`s are still to come: (global, rec, statement offset).
    let mut open: Vec<(bool, bool, usize)> = Vec::new();
    // Open `try`s (true) and `match`es (false), each closed by its `with`.
    let mut try_depth: Vec<bool> = Vec::new();
    let mut guarded = vec![false; toks.len()];
    for i in 0..toks.len() {
        let at = toks[i].1;
        guarded[i] = try_depth.contains(&true);
        let Tok::Id(word) = &toks[i].0 else { continue };
        match word.as_str() {
            "let" => {
                let global = lets.contains(&at);
                if global {
                    open.clear();
                }
                let rec = kw_at(i + 1, "rec");
                let head = i + 1 + rec as usize;
                open.push((global, rec, at));
                binding(&mut defs, &mut binder, &mut push, head, global, at, rec);
            }
            "and" => {
                if let Some(&(global, rec, stmt)) = open.last() {
                    let doc_at = if global { at } else { stmt };
                    let n = defs.len();
                    binding(&mut defs, &mut binder, &mut push, i + 1, global, stmt, rec);
                    if global {
                        for d in &mut defs[n..] {
                            if !d.is_local() {
                                d.doc = doc_before(src, &comments, doc_at);
                            }
                        }
                    }
                }
            }
            "in" => {
                if open.last().is_some_and(|o| !o.0) {
                    open.pop();
                }
            }
            "fun" => {
                let mut j = i + 1;
                if sym_at(j, "(") {
                    j += 1;
                    while j < toks.len() && !sym_at(j, ")") {
                        push(&mut defs, &mut binder, j, DefKind::Local, at, false);
                        j += 1;
                    }
                } else {
                    push(&mut defs, &mut binder, j, DefKind::Local, at, false);
                }
            }
            "procedure" => {
                let n = i + 1 + kw_at(i + 1, "rec") as usize;
                push(&mut defs, &mut binder, n, DefKind::Procedure, at, false);
                let mut j = n + 1;
                if sym_at(j, "(") {
                    j += 1;
                    while j < toks.len() && !sym_at(j, ")") {
                        push(&mut defs, &mut binder, j, DefKind::Local, at, false);
                        j += 1;
                    }
                } else {
                    push(&mut defs, &mut binder, j, DefKind::Local, at, false);
                }
            }
            "enum" => push(&mut defs, &mut binder, i + 1, DefKind::Enum, at, false),
            "instructions" | "default" => {
                push(&mut defs, &mut binder, i + 1, DefKind::Events, at, false)
            }
            "with" if kw_at(i + 2, "from") => {
                push(&mut defs, &mut binder, i + 1, DefKind::Choice, at, false)
            }
            "with" => {
                try_depth.pop();
            }
            "try" => try_depth.push(true),
            "match" => try_depth.push(false),
            "forall" => push(&mut defs, &mut binder, i + 1, DefKind::Local, at, false),
            "acyclic" | "irreflexive" | "empty" => {
                // `as name` at the end of the check: the next `as` before the next statement.
                let end = stmt_end(at);
                let name = (i + 1..toks.len())
                    .take_while(|j| toks[*j].1 < end)
                    .find(|j| kw_at(*j, "as"))
                    .and_then(|j| name_at(j + 1).map(|n| (j + 1, n.to_string())));
                if let Some((j, _)) = &name {
                    binder[*j] = true;
                }
                out.checks.push((
                    word.clone(),
                    name.map(|n| n.1),
                    spans[i],
                    Span::new(at, end),
                ));
            }
            "include" => {
                if let Some((Tok::Str(f), _)) = toks.get(i + 1) {
                    out.includes.push((f.clone(), spans[i + 1]));
                }
            }
            _ => {
                // `x ++ rest ->` in a `match` on a set.
                if !is_kw(word)
                    && sym_at(i + 1, "++")
                    && name_at(i + 2).is_some()
                    && sym_at(i + 3, "->")
                {
                    push(&mut defs, &mut binder, i, DefKind::Local, at, false);
                    push(&mut defs, &mut binder, i + 2, DefKind::Local, at, false);
                }
            }
        }
    }
    // `call p(...) as name` names the check: not a use.
    for i in 0..toks.len() {
        if kw_at(i, "as") && name_at(i + 1).is_some() {
            binder[i + 1] = true;
        }
    }

    // herd's title (`parse::header`): up to two words or strings first, not uses.
    let title = |t: &Tok| matches!(t, Tok::Str(_)) || matches!(t, Tok::Id(s) if !is_kw(s));
    let n = toks.iter().take(2).take_while(|(t, _)| title(t)).count();
    binder[..n].fill(true);
    // Uses: a name that binds nothing, resolved to the latest local binding in scope.
    for (i, (t, at)) in toks.iter().enumerate() {
        let kind = match t {
            Tok::Id(s) if is_kw(s) => TokenKind::Keyword,
            Tok::Id(_) => TokenKind::Name,
            Tok::Tag(_) => TokenKind::Tag,
            Tok::Str(_) => TokenKind::Str,
            Tok::Sym("0") => TokenKind::Number,
            Tok::Sym(_) => TokenKind::Operator,
        };
        out.tokens.push((spans[i], kind));
        let Tok::Id(name) = t else { continue };
        if is_kw(name) || binder[i] {
            continue;
        }
        let end_of = |d: &Def| stmt_end(d.span.start as usize);
        let local = defs
            .iter()
            .enumerate()
            .rev()
            .find(|(_, d)| {
                d.is_local() && d.name == *name && (d.span.start as usize) < *at && *at < end_of(d)
            })
            .map(|(k, _)| k);
        out.uses.push(Use {
            name: name.clone(),
            span: spans[i],
            local,
            guarded: guarded[i],
        });
    }
    for c in comments {
        out.tokens.push((c, TokenKind::Comment));
    }
    out.tokens.sort_by_key(|t| t.0.start);
    out.defs = defs;
    out.stmt_starts = starts;
    out
}

impl Outline {
    /// The top-level statement that holds offset `at` starts here.
    pub fn stmt_start(&self, at: usize) -> usize {
        self.stmt_starts
            .iter()
            .rev()
            .find(|s| **s <= at)
            .copied()
            .unwrap_or(0)
    }

    /// The file's definition of `name` that a use at `at` sees (`None`: look in the includes
    /// before `at`, then the standard library): the last one in an earlier statement (or in
    /// the same one for `let rec`); else, for a use in a function, one further down.
    pub fn global(&self, name: &str, at: usize) -> Option<usize> {
        let here = self.stmt_start(at);
        let mut found = None;
        for (k, d) in self.defs.iter().enumerate() {
            if d.is_local() || d.name != name {
                continue;
            }
            let start = self.stmt_start(d.span.start as usize);
            if start < here || (start == here && d.rec) {
                found = Some(k);
            }
        }
        found
    }

    /// The last definition of `name` in the file (what a file that includes it sees).
    pub fn exported(&self, name: &str) -> Option<usize> {
        self.defs
            .iter()
            .rposition(|d| !d.is_local() && d.name == name)
    }

    /// A definition of `name` anywhere further down than `at` (a function may use a name
    /// defined after it: it is looked up when the function runs).
    pub fn later(&self, name: &str, at: usize) -> Option<usize> {
        self.defs
            .iter()
            .position(|d| !d.is_local() && d.name == name && d.span.start as usize > at)
    }

    /// The includes that come before offset `at`, nearest first.
    pub fn includes_before(&self, at: usize) -> impl Iterator<Item = &(String, Span)> {
        self.includes
            .iter()
            .rev()
            .filter(move |(_, s)| (s.start as usize) < at)
    }
}
