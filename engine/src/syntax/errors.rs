//! Syntax errors: one diagnostic per ERROR or MISSING node of the tree.
//!
//! An ERROR node is reported once, at its own range, naming its first token ("unexpected
//! `foo`"); what it contains is not reported again (no cascade). A MISSING node is reported
//! as "expected `;`" at the (empty) position where tree-sitter inserted it. The walk is
//! iterative, so any nesting depth is fine.

use super::{span, Stop};
use crate::diag::Diagnostic;
use crate::span::Span;
use tree_sitter::Node;

/// The syntax diagnostics of the tree under `root` (as far as the walk got, if `stop` said
/// stop: the caller then discards them).
pub(super) fn syntax_errors(text: &str, root: Node, stop: &Stop<'_>) -> Vec<Diagnostic> {
    let mut diags: Vec<Diagnostic> = Vec::new();
    if !root.has_error() {
        return diags;
    }
    let mut cursor = root.walk();
    'walk: loop {
        if stop.poll() {
            break;
        }
        let node = cursor.node();
        let mut descend = node.has_error();
        if node.is_missing() {
            diags.push(missing(node));
            descend = false;
        } else if node.is_error() && !(node == root && contains_error(node)) {
            diags.push(unexpected(text, node));
            descend = false;
        }
        if descend && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    // Two errors that start at the same place are one mistake.
    diags.dedup_by(|b, a| a.span.start == b.span.start);
    diags
}

/// Whether an ERROR node has an ERROR or MISSING node inside it, which says more precisely
/// where parsing went wrong than the outer node (used for a root that is all ERROR).
fn contains_error(node: Node) -> bool {
    let mut cursor = node.walk();
    let found = node
        .children(&mut cursor)
        .any(|c| c.is_error() || c.is_missing() || c.has_error());
    found
}

fn missing(node: Node) -> Diagnostic {
    let kind = node.kind();
    let in_expression = node.parent().is_some_and(|p| {
        p.kind().ends_with("_expression")
            || p.kind().ends_with("_statement")
            || p.kind() == "final_condition"
    });
    let what = match kind {
        "identifier" | "integer" if in_expression => "an expression".to_string(),
        "identifier" => "a name".to_string(),
        "integer" => "a number".to_string(),
        "test_name" => "a test name".to_string(),
        k if node.is_named() => k.replace('_', " "),
        k => format!("`{k}`"),
    };
    Diagnostic::error(span(node), format!("expected {what}"))
}

fn unexpected(text: &str, node: Node) -> Diagnostic {
    let full = span(node);
    // The first leaf inside the ERROR node is the token the parser could not use.
    let mut leaf = node;
    while let Some(child) = leaf.child(0) {
        leaf = child;
    }
    let token = text.get(leaf.byte_range()).unwrap_or("").trim();
    let token = token.lines().next().unwrap_or("");
    let rest = text.get(node.start_byte()..).unwrap_or("");
    if let Some(d) = thread_header(rest, node.start_byte()) {
        return d;
    }
    if let Some(d) = unterminated_row(text, node) {
        return d;
    }
    if node.parent().is_some_and(|p| p.kind() == "fence_statement") {
        return Diagnostic::error(full, "`fence` takes no arguments: write `fence;`");
    }
    if let Some(d) = missing_operand(text, full) {
        return d;
    }
    let message = if let Some(what) = unterminated(rest) {
        what.to_string()
    } else if token.is_empty() {
        if node.start_byte() >= text.trim_end().len() {
            "unexpected end of file".to_string()
        } else {
            "syntax error".to_string()
        }
    } else if token.chars().count() > 30 {
        let short: String = token.chars().take(30).collect();
        format!("unexpected `{short}…`")
    } else {
        format!("unexpected `{token}`")
    };
    // The ERROR node may end with whitespace it swallowed: end at its last visible character,
    // and on its first line (the squiggle marks where the mistake is, not all it swallowed).
    let visible = text.get(full.range()).map_or(0, |s| {
        let s = s.trim_end();
        s.find('\n').map_or(s.len(), |i| s[..i].trim_end().len())
    });
    Diagnostic::error(
        Span::new(full.start as usize, full.start as usize + visible),
        message,
    )
}

/// Binary operators, longest first (so `<=` is found before `<`).
const BINARY_OPS: [&str; 16] = [
    "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "+", "-", "*", "/", "%", "<", ">", "^",
];

/// An operator with nothing after it before a `)`, a `;` or the end of the line, in the text an
/// ERROR node swallowed (`r5 = (turn + )`): "expected an operand after `+`" at the `)` (or just
/// after the operator), one character wide.
fn missing_operand(text: &str, full: Span) -> Option<Diagnostic> {
    let src = text.get(full.range())?;
    let bytes = src.as_bytes();
    let mut i = 0;
    while i < src.len() {
        if !src.is_char_boundary(i) {
            i += 1;
            continue;
        }
        // Skip comments and strings: an operator character in them is not an operator.
        let skip = [("//", "\n"), ("/*", "*/"), ("(*", "*)"), ("\"", "\"")]
            .iter()
            .find(|(open, _)| src[i..].starts_with(*open));
        if let Some((open, close)) = skip {
            let from = i + open.len();
            i = src[from..]
                .find(close)
                .map_or(src.len(), |j| from + j + close.len());
            continue;
        }
        let Some(op) = BINARY_OPS.iter().find(|op| src[i..].starts_with(**op)) else {
            i += 1;
            continue;
        };
        let after = i + op.len();
        let gap = src[after..].len() - src[after..].trim_start_matches([' ', '\t']).len();
        let at = after + gap;
        let next = bytes.get(at).copied();
        // `a - -1` and `(-1)` are operands; a `-` right after `(`, `=` or an operator is unary.
        let unary = *op == "-"
            && src[..i]
                .trim_end()
                .ends_with(|c: char| "(=,+-*/%<>&|^!".contains(c));
        if !unary
            && matches!(
                next,
                Some(b')') | Some(b';') | Some(b'\n') | Some(b'\r') | None
            )
        {
            let start = full.start as usize + if next == Some(b')') { at } else { after };
            let end = if next == Some(b')') { start + 1 } else { start };
            return Some(Diagnostic::error(
                Span::new(start, end),
                format!("expected an operand after `{op}`"),
            ));
        }
        i = after;
    }
    None
}

/// A message for an opening delimiter that is never closed, if `rest` starts with one.
fn unterminated(rest: &str) -> Option<&'static str> {
    if rest.starts_with("/*") && !rest.contains("*/") {
        Some("unterminated comment: `/*` needs a closing `*/`")
    } else if rest.starts_with("(*") && !rest.contains("*)") {
        Some("unterminated comment: `(*` needs a closing `*)`")
    } else if rest.starts_with("<<") && !rest.contains(">>") {
        Some("unterminated block: `<<` needs a closing `>>`")
    } else if rest.starts_with('"') && !rest[1..].split('\n').next().unwrap_or("").contains('"') {
        Some("unterminated string: `\"` needs a closing `\"` on the same line")
    } else {
        None
    }
}

/// `thread { ... }` or `thread P0 ( )` at the start of an ERROR: says what a thread header
/// looks like, at the token that is wrong. `None` if the header itself looks fine.
fn thread_header(rest: &str, start: usize) -> Option<Diagnostic> {
    let after = rest.strip_prefix("thread")?;
    if after.starts_with(|c: char| c.is_alphanumeric() || c == '_') {
        return None;
    }
    let after = after.trim_start();
    let at = start + (rest.len() - after.len());
    let word_len = after
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(after.len());
    if word_len == 0 {
        let end = at + after.chars().next().map_or(0, char::len_utf8);
        return Some(Diagnostic::error(
            Span::new(at, end),
            "expected a thread name: `thread P0 { ... }`",
        ));
    }
    let next = after[word_len..].trim_start();
    if next.starts_with('{') {
        return None;
    }
    let at = at + (after.len() - next.len());
    let end = at + next.chars().next().map_or(0, char::len_utf8);
    Some(Diagnostic::error(
        Span::new(at, end),
        "expected `{` after the thread name: `thread P0 { ... }`",
    ))
}

/// An x86 code row without its `;`: the next row's first token is an ERROR at the start of a
/// line. Reported at the end of the row that lacks the `;`.
fn unterminated_row(text: &str, node: Node) -> Option<Diagnostic> {
    let parent = node.parent()?;
    if !parent.kind().starts_with("x86_") {
        return None;
    }
    let before = text.get(..node.start_byte())?;
    let line_start = before.rfind('\n')?;
    if !before[line_start..].trim().is_empty() {
        return None; // the ERROR does not start its line
    }
    let prev = before[..line_start].trim_end();
    if prev.is_empty() || prev.ends_with([';', '{', '}', '|']) {
        return None;
    }
    let at = prev.len();
    Some(Diagnostic::error(
        Span::new(at, at),
        "expected `;`: every row of the code table ends with `;`",
    ))
}
