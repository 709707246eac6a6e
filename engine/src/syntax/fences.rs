//! Fences as text, per dialect: where a fence after a statement goes in the source and the
//! text that puts it there. Fence synthesis ([`crate::fences`]) searches on the program IR and
//! never reparses; this is only for its output (the CLI's diff and `--write`, the editor's
//! quick fix).
//!
//! - Native: `fence;` right after the statement, on a line of its own with the statement's
//!   indentation when nothing but a comment follows it on its line, else after it on the same
//!   line.
//! - herd's x86 dialects: one new row after the statement's row holding every fence placed
//!   there, each in its thread's column, padded to the row's column widths; `MFENCE` in `X86`,
//!   `mfence` (AT&T, lower case) in `X86_64`.

use crate::ast::Dialect;
use crate::span::Span;
use serde::Serialize;

/// A place a fence may go: right after statement `after` of thread `thread`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Placement {
    pub thread: usize,
    /// The statement the fence follows (original text).
    pub after: Span,
    /// Byte offset in the original text where the fence's text is inserted.
    pub offset: usize,
}

/// Where a fence after the statement at `after` is inserted: the end of the statement
/// (native), the end of its row (x86).
pub fn insertion_offset(text: &str, dialect: Dialect, after: Span) -> usize {
    let end = (after.end as usize).min(text.len());
    match dialect {
        Dialect::Native => end,
        Dialect::X86
        | Dialect::X86_64
        | Dialect::AArch64
        | Dialect::RiscV
        | Dialect::Ppc
        | Dialect::Arm
        | Dialect::C => text[end..].find('\n').map_or(text.len(), |i| end + i),
    }
}

/// The fence instruction's text in `dialect`.
fn keyword(dialect: Dialect) -> &'static str {
    match dialect {
        Dialect::Native => "fence;",
        // herd's `X86` writes it in capitals, `X86_64` (AT&T) in lower case.
        Dialect::X86_64 => "mfence",
        Dialect::X86 | Dialect::AArch64 | Dialect::RiscV | Dialect::Ppc | Dialect::Arm => "MFENCE",
        Dialect::C => "smp_mb();",
    }
}

/// `text` (written in `dialect`) with a fence at each of `places` (any order).
pub fn insert(text: &str, dialect: Dialect, places: &[Placement]) -> String {
    let mut order: Vec<usize> = (0..places.len()).collect();
    order.sort_by_key(|&i| (places[i].offset, places[i].thread));
    let mut out = String::with_capacity(text.len() + 16 * places.len());
    let mut at = 0;
    let mut k = 0;
    while k < order.len() {
        let off = places[order[k]].offset;
        out.push_str(&text[at..off]);
        at = off;
        match dialect {
            Dialect::Native => {
                native(text, &places[order[k]], &mut out);
                k += 1;
            }
            Dialect::X86
            | Dialect::X86_64
            | Dialect::AArch64
            | Dialect::RiscV
            | Dialect::Ppc
            | Dialect::Arm
            | Dialect::C => {
                let mut group = vec![];
                while k < order.len() && places[order[k]].offset == off {
                    group.push(&places[order[k]]);
                    k += 1;
                }
                row(text, dialect, off, &group, &mut out);
            }
        }
    }
    out.push_str(&text[at..]);
    out
}

/// A native fence after `p`, appended to `out` (which holds the text up to `p.offset`).
fn native(text: &str, p: &Placement, out: &mut String) {
    let line_start = text[..p.after.start as usize]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let indent: String = text[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let rest = &text[p.offset..];
    let rest_line = &rest[..rest.find('\n').unwrap_or(rest.len())];
    let alone = rest_line.trim().is_empty() || rest_line.trim().starts_with("//");
    if alone {
        out.push('\n');
        out.push_str(&indent);
    } else {
        out.push(' ');
    }
    out.push_str(keyword(Dialect::Native));
}

/// One new row after the row ending at `off` holding the fences of `group`, each in its
/// thread's column, padded to the row's column widths, appended to `out`.
fn row(text: &str, dialect: Dialect, off: usize, group: &[&Placement], out: &mut String) {
    let line_start = text[..off].rfind('\n').map_or(0, |i| i + 1);
    let row = &text[line_start..off];
    let body = row.trim_end().trim_end_matches(';');
    let word = keyword(dialect);
    out.push('\n');
    for (c, cell) in body.split('|').enumerate() {
        if c > 0 {
            out.push('|');
        }
        let w = cell.chars().count();
        if group.iter().any(|p| p.thread == c) {
            let lead = cell.len() - cell.trim_start().len();
            let lead = lead.clamp(1, w.max(1));
            out.push_str(&" ".repeat(lead));
            out.push_str(word);
            out.push_str(&" ".repeat(w.saturating_sub(lead + word.chars().count())));
        } else {
            out.push_str(&" ".repeat(w));
        }
    }
    out.push_str(&row[body.len()..]);
}

/// The fences of `places` as pure insertions into `text`: (byte offset, inserted text), by
/// offset; applying them all gives [`insert`]'s text (for an editor's text edits).
pub fn insertions(text: &str, dialect: Dialect, places: &[Placement]) -> Vec<(usize, String)> {
    let mut offsets: Vec<usize> = places.iter().map(|p| p.offset).collect();
    offsets.sort_unstable();
    offsets.dedup();
    offsets
        .into_iter()
        .map(|o| {
            let group: Vec<Placement> = places.iter().filter(|p| p.offset == o).cloned().collect();
            let new = insert(text, dialect, &group);
            let added = new.len() - text.len();
            (o, new[o..o + added].to_string())
        })
        .collect()
}
