//! The answers for a cat file, as protocol values: pure functions of an [`Index`], the file
//! and the position encoding.

use std::collections::HashMap;
use std::sync::Arc;

use litmus_engine::cat::{DefKind, TokenKind};
use litmus_engine::Span;
use tower_lsp_server::ls_types::*;

use super::index::{engine_supplies, in_library, read_only, File, Index, Target};
use crate::server::position::{self, Encoding};

fn range(f: &File, enc: Encoding, s: Span) -> Range {
    position::range(&f.rope, enc, s)
}

fn location(f: &File, enc: Encoding, s: Span) -> Location {
    Location::new(f.uri.clone(), range(f, enc, s))
}

/// Where an LSP position is, as a byte offset of `f`.
pub fn offset(f: &File, enc: Encoding, pos: Position) -> usize {
    position::offset(&f.rope, enc, pos)
}

fn diag(f: &File, enc: Encoding, s: Span, sev: DiagnosticSeverity, msg: String) -> Diagnostic {
    Diagnostic {
        range: range(f, enc, s),
        severity: Some(sev),
        source: Some("litmus".into()),
        message: crate::server::plain::plain(&msg),
        ..Default::default()
    }
}

/// A one-character span at `at` (for an error at a point).
fn point(text: &str, at: usize) -> Span {
    let at = at.min(text.len());
    let end = text[at..].chars().next().map_or(at, |c| at + c.len_utf8());
    Span::new(at, end)
}

/// Parse errors, includes that are missing or do not parse, and names defined nowhere.
pub fn diagnostics(ix: &Index, f: &Arc<File>, enc: Encoding) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if let Some(e) = &f.outline.error {
        let s = point(&f.text, e.offset);
        out.push(diag(
            f,
            enc,
            s,
            DiagnosticSeverity::ERROR,
            e.message.clone(),
        ));
    }
    for (name, s) in &f.outline.includes {
        if name == "stdlib.cat" && ix.include_path(f, name).is_none() {
            continue;
        }
        let Some(g) = ix.include(f, name) else {
            let msg = format!(
                "cannot include `{name}`: not in this file's folder, the include path (`litmus.includePath`), the workspace folders or litmus's library"
            );
            out.push(diag(f, enc, *s, DiagnosticSeverity::ERROR, msg));
            continue;
        };
        if let Some(e) = &g.outline.error {
            let pos = litmus_engine::LineIndex::new(&g.text).line_col(e.offset as u32);
            let msg = format!("`{name}`:{}:{}: {}", pos.line, pos.col, e.message);
            out.push(diag(f, enc, *s, DiagnosticSeverity::ERROR, msg));
        }
        if let Some(lib) = litmus_engine::cat::library_file(name) {
            if !in_library(&g.path) && g.text.as_str() != lib {
                let msg = format!(
                    "checks use litmus's own `{name}`, not this copy ({}), which differs from it",
                    g.path.display()
                );
                out.push(diag(f, enc, *s, DiagnosticSeverity::WARNING, msg));
            }
        }
    }
    for u in &f.outline.uses {
        if u.guarded {
            continue;
        }
        if let Target::Unknown = ix.resolve_use(f, u) {
            let msg = format!(
                "unknown name `{}`: not defined in this file, the files it includes or litmus's \
                 stdlib.cat, and not one the engine supplies",
                u.name
            );
            out.push(diag(f, enc, u.span, DiagnosticSeverity::WARNING, msg));
        }
    }
    out
}

pub fn definition(ix: &Index, f: &Arc<File>, enc: Encoding, at: usize) -> Option<Location> {
    if let Some((name, _)) = f
        .outline
        .includes
        .iter()
        .find(|(_, s)| s.start as usize <= at && at <= s.end as usize)
    {
        let g = ix.include(f, name)?;
        return Some(Location::new(g.uri.clone(), Range::default()));
    }
    match ix.at(f, at)?.1 {
        Target::Def(g, k) => Some(location(&g, enc, g.outline.defs[k].span)),
        _ => None,
    }
}

/// A name in a file.
type Occurrence = (Arc<File>, Span);

/// Every use of what the name at `at` refers to (its definition too if `decl`), by file.
fn occurrences(
    ix: &Index,
    f: &Arc<File>,
    at: usize,
    decl: bool,
) -> Option<(Target, Vec<Occurrence>)> {
    let (_, target) = ix.at(f, at)?;
    let key = target.key()?;
    let Target::Def(home, k) = &target else {
        return None;
    };
    let mut out = Vec::new();
    if decl {
        out.push((home.clone(), home.outline.defs[*k].span));
    }
    let files = if home.outline.defs[*k].is_local() {
        vec![home.clone()]
    } else {
        ix.related(&[f.clone(), home.clone()])
    };
    for g in files {
        for u in &g.outline.uses {
            if u.name == home.outline.defs[*k].name
                && ix.resolve_use(&g, u).key() == Some(key.clone())
            {
                out.push((g.clone(), u.span));
            }
        }
    }
    Some((target, out))
}

pub fn references(
    ix: &Index,
    f: &Arc<File>,
    enc: Encoding,
    at: usize,
    decl: bool,
) -> Option<Vec<Location>> {
    let (_, occ) = occurrences(ix, f, at, decl)?;
    Some(occ.iter().map(|(g, s)| location(g, enc, *s)).collect())
}

fn valid_name(n: &str) -> bool {
    let b = n.as_bytes();
    let body = b.strip_prefix(b"_").unwrap_or(b);
    let body = body.strip_suffix(b"'").unwrap_or(body);
    body.first().is_some_and(u8::is_ascii_alphabetic)
        && body
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || b"_.-".contains(c))
        && !n.contains("->")
        && !litmus_engine::cat::outline(n)
            .tokens
            .iter()
            .any(|t| t.1 == TokenKind::Keyword)
}

/// The range of a name that can be renamed: a definition in a file of the user's (not the
/// library's) or a local binding.
pub fn prepare_rename(ix: &Index, f: &Arc<File>, enc: Encoding, at: usize) -> Option<Range> {
    let (span, target) = ix.at(f, at)?;
    match target {
        Target::Def(g, _) if !read_only(&g.path) => Some(range(f, enc, span)),
        _ => None,
    }
}

pub fn rename(
    ix: &Index,
    f: &Arc<File>,
    enc: Encoding,
    at: usize,
    new: &str,
) -> Result<Option<WorkspaceEdit>, String> {
    if !valid_name(new) {
        return Err(format!("`{new}` is not a cat name"));
    }
    let Some((target, occ)) = occurrences(ix, f, at, true) else {
        return Ok(None);
    };
    if let Target::Def(g, _) = &target {
        if read_only(&g.path) {
            return Err(
                "a definition of litmus's library (or of a model as it was) cannot be renamed"
                    .into(),
            );
        }
    }
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for (g, s) in occ {
        changes
            .entry(g.uri.clone())
            .or_default()
            .push(TextEdit::new(range(&g, enc, s), new.to_string()));
    }
    Ok(Some(WorkspaceEdit {
        changes: Some(changes),
        ..Default::default()
    }))
}

fn kind_word(k: DefKind) -> &'static str {
    match k {
        DefKind::Let => "set or relation",
        DefKind::Function => "function",
        DefKind::Procedure => "procedure",
        DefKind::Enum => "enumeration",
        DefKind::Events => "event class",
        DefKind::Choice => "choice (`with ... from`)",
        DefKind::Local => "local binding",
    }
}

pub fn hover(ix: &Index, f: &Arc<File>, enc: Encoding, at: usize) -> Option<Hover> {
    let (span, target) = ix.at(f, at)?;
    let value = match target {
        Target::Def(g, k) => {
            let d = &g.outline.defs[k];
            let text = if d.is_local() {
                String::new()
            } else {
                let t = g.text[d.stmt.range()].trim_end();
                let lines: Vec<&str> = t.lines().take(12).collect();
                let more = if t.lines().count() > 12 { "\n..." } else { "" };
                format!("```cat\n{}{more}\n```\n", lines.join("\n"))
            };
            let line = litmus_engine::LineIndex::new(&g.text)
                .line_col(d.span.start)
                .line;
            let file = g
                .path
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned());
            let whence = if in_library(&g.path) {
                format!("{file}:{line} (litmus's library)")
            } else {
                format!("{file}:{line}")
            };
            let doc = d.doc.as_ref().map_or(String::new(), |c| format!("\n{c}\n"));
            format!(
                "{text}{doc}\n*{}* `{}`, {whence}",
                kind_word(d.kind),
                d.name
            )
        }
        Target::Engine => {
            let name = &f.text[span.range()];
            if litmus_engine::cat::BUILTIN_FUNCTIONS.contains(&name) {
                format!("`{name}`: a function built into litmus's cat interpreter (docs/cat.md)")
            } else {
                format!("`{name}`: supplied by litmus's axiomatic engine for each candidate execution (docs/cat.md)")
            }
        }
        Target::Unknown => return None,
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(range(f, enc, span)),
    })
}

#[allow(deprecated)] // DocumentSymbol::deprecated must be given
pub fn symbols(f: &File, enc: Encoding) -> Vec<DocumentSymbol> {
    let mut out: Vec<(u32, DocumentSymbol)> = Vec::new();
    let sym = |name: String, detail: &str, kind, full: Span, sel: Span| DocumentSymbol {
        name,
        detail: Some(detail.to_string()),
        kind,
        tags: None,
        deprecated: None,
        range: range(f, enc, full.cover(sel)),
        selection_range: range(f, enc, sel),
        children: None,
    };
    for d in f.outline.defs.iter().filter(|d| !d.is_local()) {
        let kind = match d.kind {
            DefKind::Function | DefKind::Procedure => SymbolKind::FUNCTION,
            DefKind::Enum => SymbolKind::ENUM,
            DefKind::Events => SymbolKind::CLASS,
            _ => SymbolKind::VARIABLE,
        };
        let full = Span::new(d.stmt.start as usize, d.stmt.end as usize);
        let full = Span::new(full.start as usize, trim_end(&f.text, full));
        out.push((
            d.span.start,
            sym(d.name.clone(), kind_word(d.kind), kind, full, d.span),
        ));
    }
    for (kw, name, kspan, stmt) in &f.outline.checks {
        let label = match name {
            Some(n) => format!("{kw} {n}"),
            None => kw.clone(),
        };
        let full = Span::new(stmt.start as usize, trim_end(&f.text, *stmt));
        out.push((
            kspan.start,
            sym(label, "check", SymbolKind::EVENT, full, *kspan),
        ));
    }
    out.sort_by_key(|s| s.0);
    out.into_iter().map(|s| s.1).collect()
}

/// The end of `s` without trailing white space and comments' lines.
fn trim_end(text: &str, s: Span) -> usize {
    s.start as usize + text[s.range()].trim_end().len()
}

/// Semantic tokens (the server's legend, `to_proto::TOKEN_TYPES`): keywords, `0`, comments,
/// strings, names (functions, locals as parameters), tags as types; definitions marked.
pub fn semantic_tokens(ix: &Index, f: &Arc<File>, enc: Encoding) -> Vec<SemanticToken> {
    let rope = &f.rope;
    let defs: HashMap<u32, DefKind> = f
        .outline
        .defs
        .iter()
        .map(|d| (d.span.start, d.kind))
        .collect();
    let uses: HashMap<u32, &litmus_engine::cat::Use> =
        f.outline.uses.iter().map(|u| (u.span.start, u)).collect();
    let mut toks: Vec<(Span, u32, u32)> = Vec::new();
    for (s, k) in &f.outline.tokens {
        let (ty, m) = match k {
            TokenKind::Keyword => (0, 0),
            TokenKind::Number => (1, 0),
            TokenKind::Comment => (2, 0),
            TokenKind::Str => (3, 0),
            TokenKind::Tag => (8, 0),
            TokenKind::Operator => continue,
            TokenKind::Name => {
                let fun = |k: DefKind| matches!(k, DefKind::Function | DefKind::Procedure);
                if let Some(k) = defs.get(&s.start) {
                    let ty = if *k == DefKind::Local {
                        5
                    } else if fun(*k) {
                        6
                    } else {
                        4
                    };
                    (ty, 1)
                } else if let Some(u) = uses.get(&s.start) {
                    match ix.resolve_use(f, u) {
                        Target::Def(g, k) if g.outline.defs[k].is_local() => (5, 0),
                        Target::Def(g, k) if fun(g.outline.defs[k].kind) => (6, 0),
                        Target::Engine
                            if engine_supplies(&u.name)
                                && litmus_engine::cat::BUILTIN_FUNCTIONS
                                    .contains(&u.name.as_str()) =>
                        {
                            (6, 0)
                        }
                        _ => (4, 0),
                    }
                } else {
                    (4, 0)
                }
            }
        };
        toks.push((*s, ty, m));
    }
    // One token per line (a comment may span several).
    let mut out = Vec::new();
    let (mut line, mut col) = (0u32, 0u32);
    for (s, ty, m) in toks {
        let mut start = s.start as usize;
        while start < s.end as usize {
            let l = rope.byte_to_line(start);
            let line_end = if l + 1 < rope.len_lines() {
                rope.line_to_byte(l + 1)
            } else {
                rope.len_bytes()
            };
            let end = (s.end as usize).min(line_end);
            let a = position::position(rope, enc, start as u32);
            let b = position::position(rope, enc, end as u32);
            let len = if b.line == a.line {
                b.character - a.character
            } else {
                position::position(rope, enc, (line_end.saturating_sub(1)) as u32)
                    .character
                    .saturating_sub(a.character)
            };
            if len > 0 {
                let dl = a.line - line;
                let dc = if dl == 0 {
                    a.character - col
                } else {
                    a.character
                };
                out.push(SemanticToken {
                    delta_line: dl,
                    delta_start: dc,
                    length: len,
                    token_type: ty,
                    token_modifiers_bitset: m,
                });
                (line, col) = (a.line, a.character);
            }
            start = end.max(start + 1);
            while start < s.end as usize && !f.text.is_char_boundary(start) {
                start += 1;
            }
        }
    }
    out
}
