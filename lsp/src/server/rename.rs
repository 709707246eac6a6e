//! `textDocument/prepareRename` and `textDocument/rename`, pure functions of a [`Snapshot`]: a
//! register (in its thread, and its `P0:r0` uses in the condition), a shared location, a mutex
//! or a thread (its declaration and its `P0:` prefixes in the condition) of the native dialect
//! and herd's, wherever the AST knows the name. Refused with a message on a keyword, a name
//! that is not an identifier, or one that another name of the same scope already has.

use std::collections::HashMap;

use tower_lsp_server::ls_types::*;

use litmus_engine::ast::{Dialect, Expr, ExprKind, Test};
use litmus_engine::Span;

use super::position;
use super::state::Snapshot;
use super::symbols::{self, Occurrence, Sym};

/// Words no name may take: every dialect's keywords (`grammar/queries/highlights.scm`).
const KEYWORDS: &[&str] = &[
    "litmus",
    "shared",
    "mutex",
    "thread",
    "if",
    "else",
    "while",
    "exists",
    "forall",
    "final",
    "locations",
    "filter",
    "with",
    "fence",
    "lock",
    "unlock",
    "assert",
    "assume",
    "await",
    "xchg",
    "cas",
    "fetch_add",
    "struct",
    "volatile",
    "const",
    "unsigned",
    "signed",
    "int",
    "long",
    "char",
    "short",
    "void",
    "not",
    "true",
    "false",
];

/// The name under `pos` and its range, if it can be renamed.
pub fn prepare(
    s: &Snapshot<'_>,
    pos: Position,
) -> std::result::Result<Option<PrepareRenameResponse>, String> {
    let d = s.doc;
    let Some(test) = d.test.as_deref() else {
        return Ok(None);
    };
    let off = position::offset(&d.rope, s.conv.enc, pos) as u32;
    match target(test, &d.text, off) {
        Some((_, o)) => Ok(Some(PrepareRenameResponse::RangeWithPlaceholder {
            range: s.conv.range(o.span),
            placeholder: d.text[o.span.range()].to_string(),
        })),
        None => Err(refusal(&d.text, off)),
    }
}

/// The edits that rename the name under `pos` to `new_name`, or why not.
pub fn rename(
    s: &Snapshot<'_>,
    pos: Position,
    new_name: &str,
) -> std::result::Result<Option<WorkspaceEdit>, String> {
    let d = s.doc;
    let Some(test) = d.test.as_deref() else {
        return Err("the document does not parse: fix it before renaming".into());
    };
    let off = position::offset(&d.rope, s.conv.enc, pos) as u32;
    let Some((occ, o)) = target(test, &d.text, off) else {
        return Err(refusal(&d.text, off));
    };
    check_name(test, &d.text, &occ, &o.sym, new_name)?;
    let mut spans: Vec<Span> = occ
        .iter()
        .filter(|x| x.sym == o.sym)
        .map(|x| x.span)
        .collect();
    if let Sym::Thread(t) = o.sym {
        spans.extend(thread_prefixes(test, &d.text, t));
    }
    spans.sort_by_key(|s| (s.start, s.end));
    spans.dedup();
    let edits = spans
        .into_iter()
        .map(|sp| TextEdit::new(s.conv.range(sp), new_name.to_string()))
        .collect();
    let mut changes = HashMap::new();
    changes.insert(s.conv.uri.clone(), edits);
    Ok(Some(WorkspaceEdit::new(changes)))
}

/// The occurrences of the test and the one under `off`.
fn target(test: &Test, text: &str, off: u32) -> Option<(Vec<Occurrence>, Occurrence)> {
    let occ = symbols::occurrences(test, text);
    let o = symbols::at(&occ, off)?.clone();
    // A thread's name in herd's tables is its column header `P0`: renaming it would not rename
    // the condition's `0:` prefixes, which name threads by number.
    if matches!(o.sym, Sym::Thread(_)) && test.dialect != Dialect::Native {
        return None;
    }
    Some((occ, o))
}

fn word_at(text: &str, off: u32) -> &str {
    let off = (off as usize).min(text.len());
    let w = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let start = text[..off].rfind(|c: char| !w(c)).map_or(0, |i| i + 1);
    let end = text[off..]
        .find(|c: char| !w(c))
        .map_or(text.len(), |i| off + i);
    &text[start..end]
}

fn refusal(text: &str, off: u32) -> String {
    let w = word_at(text, off);
    if KEYWORDS.contains(&w) {
        format!("`{w}` is a keyword: it cannot be renamed")
    } else {
        "nothing to rename here: put the cursor on a location, register, mutex or thread".into()
    }
}

/// Whether `new` may replace the name of `sym`: an identifier, no keyword, and no other name
/// of its scope (the test's locations, mutexes and threads; the thread's registers).
fn check_name(
    test: &Test,
    text: &str,
    occ: &[Occurrence],
    sym: &Sym,
    new: &str,
) -> Result<(), String> {
    let ident = !new.is_empty()
        && new.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !new.starts_with(|c: char| c.is_ascii_digit());
    if !ident {
        return Err(format!(
            "`{new}` is not a name (letters, digits and `_`, not starting with a digit)"
        ));
    }
    if KEYWORDS.contains(&new) {
        return Err(format!("`{new}` is a keyword"));
    }
    let clash = match sym {
        Sym::Reg(t, old) => occ
            .iter()
            .any(|o| matches!(&o.sym, Sym::Reg(u, n) if u == t && n == new && n != old)),
        Sym::Shared(_) | Sym::Mutex(_) => {
            test.shared.iter().any(|d| d.name.text == new)
                || test.mutexes.iter().any(|m| m.text == new)
        }
        Sym::Thread(_) => test.threads.iter().any(|th| th.name.text == new),
    };
    let shadows_location =
        matches!(sym, Sym::Reg(..)) && test.shared.iter().any(|d| d.name.text == new);
    if clash || shadows_location {
        let _ = text;
        return Err(format!(
            "`{new}` is already a name in this test: renaming would merge two names"
        ));
    }
    Ok(())
}

/// The spans of the `P0` in the condition's `P0:r0` for thread `t`.
fn thread_prefixes(test: &Test, text: &str, t: usize) -> Vec<Span> {
    fn walk(e: &Expr, t: usize, name: &str, text: &str, out: &mut Vec<Span>) {
        match &e.kind {
            ExprKind::ThreadReg { thread, .. } if *thread == t => {
                let s = text.get(e.span.range()).unwrap_or("");
                if let Some(i) = s.find(name) {
                    if s[i + name.len()..].trim_start().starts_with(':') {
                        let at = e.span.start as usize + i;
                        out.push(Span::new(at, at + name.len()));
                    }
                }
            }
            ExprKind::Unary(_, a) => walk(a, t, name, text, out),
            ExprKind::Binary(_, a, b) => {
                walk(a, t, name, text, out);
                walk(b, t, name, text, out);
            }
            _ => {}
        }
    }
    let mut out = vec![];
    if let (Some(c), Some(th)) = (&test.condition, test.threads.get(t)) {
        walk(&c.expr, t, &th.name.text, text, &mut out);
    }
    out
}
