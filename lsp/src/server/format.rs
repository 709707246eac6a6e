//! `textDocument/formatting`, a pure function of a [`Snapshot`]. The native dialect is
//! re-indented canonically: two spaces per open brace (a line that starts with `}` closes
//! first), no trailing whitespace, at most one blank line in a row, none at the end, one final
//! newline; the text of a block comment keeps its lines. Only whitespace between tokens
//! changes, so the formatted text has the same tokens (the same program) and formatting it
//! again changes nothing. herd's dialects keep their columns: only trailing whitespace goes.
//! A document that does not parse is left alone.

use tower_lsp_server::ls_types::*;

use litmus_engine::ast::Dialect;
use litmus_engine::Span;

use super::state::Snapshot;

pub fn formatting(s: &Snapshot<'_>) -> Option<Vec<TextEdit>> {
    let d = s.doc;
    let test = d.test.as_deref()?;
    if d.syntax
        .iter()
        .any(|x| x.severity == litmus_engine::Severity::Error)
    {
        return Some(vec![]);
    }
    let text = &d.text;
    if test.dialect != Dialect::Native {
        return Some(
            trailing_whitespace(text)
                .into_iter()
                .map(|sp| TextEdit::new(s.conv.range(sp), String::new()))
                .collect(),
        );
    }
    let new = native(text);
    if new == *text {
        return Some(vec![]);
    }
    let whole = Span::new(0, text.len());
    Some(vec![TextEdit::new(s.conv.range(whole), new)])
}

/// The native dialect's canonical layout of `text` (see the module's doc).
pub fn native(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth: usize = 0;
    let mut in_block = false;
    let mut blank = 0;
    for line in text.lines() {
        let trimmed = line.trim();
        if in_block {
            // Inside a block comment: its lines as written, trailing whitespace aside.
            out.push_str(line.trim_end());
            out.push('\n');
            in_block = !closes_block(line);
            blank = 0;
            continue;
        }
        if trimmed.is_empty() {
            blank += 1;
            continue;
        }
        if blank > 0 && !out.is_empty() {
            out.push('\n');
        }
        blank = 0;
        let (opens, closes, leading_closes, block) = braces(trimmed);
        let indent = depth.saturating_sub(leading_closes);
        for _ in 0..indent {
            out.push_str("  ");
        }
        out.push_str(trimmed);
        out.push('\n');
        depth = (depth + opens).saturating_sub(closes);
        in_block = block;
    }
    out
}

/// Whether a line inside a block comment ends it (and no other opens after).
fn closes_block(line: &str) -> bool {
    match line.rfind("*/") {
        Some(i) => !line[i + 2..].contains("/*"),
        None => false,
    }
}

/// A line's braces outside comments: opened, closed, closed before any other character, and
/// whether a block comment is still open at its end.
fn braces(line: &str) -> (usize, usize, usize, bool) {
    let (mut opens, mut closes, mut leading) = (0, 0, 0);
    let mut seen_other = false;
    let b = line.as_bytes();
    let mut i = 0;
    let mut block = false;
    while i < b.len() {
        if block {
            if b[i..].starts_with(b"*/") {
                block = false;
                i += 2;
            } else {
                i += 1;
            }
            continue;
        }
        if b[i..].starts_with(b"//") {
            break;
        }
        if b[i..].starts_with(b"/*") {
            block = true;
            i += 2;
            continue;
        }
        match b[i] {
            b'{' => {
                opens += 1;
                seen_other = true;
            }
            b'}' => {
                if opens > 0 {
                    opens -= 1;
                } else {
                    closes += 1;
                    if !seen_other {
                        leading += 1;
                    }
                }
            }
            b' ' | b'\t' => {}
            _ => seen_other = true,
        }
        i += 1;
    }
    (opens, closes, leading, block)
}

/// The spans of trailing whitespace at each line's end.
pub fn trailing_whitespace(text: &str) -> Vec<Span> {
    let mut out = vec![];
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let kept = body.trim_end_matches([' ', '\t']);
        if kept.len() < body.len() {
            out.push(Span::new(at + kept.len(), at + body.len()));
        }
        at += line.len();
    }
    out
}
