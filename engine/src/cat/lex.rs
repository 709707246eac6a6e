//! The cat language's tokens: names as herd's, tags, strings, symbols; comments skipped.

use super::CatError;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Id(String),
    Str(String),
    Tag(String),
    Sym(&'static str),
}

pub(super) const SYMS: [&str; 25] = [
    "^-1", "||", "&&", "->", "++", "|", ";", "\\", "&", "*", "+", "?", "~", "(", ")", "[", "]",
    "=", ",", "{", "}", "^", "0", "_", "-1",
];

pub(super) const KEYWORDS: [&str; 37] = [
    "let",
    "rec",
    "and",
    "when",
    "acyclic",
    "irreflexive",
    "show",
    "unshow",
    "empty",
    "subset",
    "as",
    "fun",
    "in",
    "undefined_unless",
    "flag",
    "assert",
    "include",
    "variant",
    "begin",
    "end",
    "procedure",
    "call",
    "enum",
    "debug",
    "match",
    "with",
    "forall",
    "from",
    "do",
    "try",
    "if",
    "then",
    "else",
    "catdep",
    "instructions",
    "default",
    "not",
];

pub(super) fn name_len(src: &str, i: usize) -> usize {
    // herd's names: `_`? letter (letter | digit | `_` | `.` | `-`)* `'`?
    let b = src.as_bytes();
    let mut j = i;
    if b.get(j) == Some(&b'_') {
        j += 1;
    }
    if !b.get(j).is_some_and(|c| c.is_ascii_alphabetic()) {
        return 0;
    }
    while j < b.len()
        && (b[j].is_ascii_alphanumeric() || b"_.-".contains(&b[j]))
        && !(b[j] == b'-' && src[j..].starts_with("->"))
    {
        j += 1;
    }
    if b.get(j) == Some(&b'\'') {
        j += 1;
    }
    j - i
}

pub(super) fn lex(src: &str) -> Result<Vec<(Tok, usize)>, CatError> {
    let b = src.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if src[i..].starts_with("(*") {
            let start = i;
            let mut depth = 0;
            // by bytes: a comment may hold any text (`é` is two bytes)
            while i < b.len() {
                if b[i..].starts_with(b"(*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*)") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            if depth != 0 {
                return Err(CatError::at(start, "unterminated comment"));
            }
        } else if src[i..].starts_with("//") || c == b'#' {
            i = src[i..].find('\n').map_or(b.len(), |k| i + k);
        } else if c == b'"' {
            let end = src[i + 1..]
                .find('"')
                .ok_or_else(|| CatError::at(i, "unterminated string"))?;
            out.push((Tok::Str(src[i + 1..i + 1 + end].to_string()), i));
            i += end + 2;
        } else if c == b'\'' {
            let n = name_len(src, i + 1);
            if n == 0 {
                return Err(CatError::at(i, "expected a tag name after `'`"));
            }
            out.push((Tok::Tag(src[i + 1..i + 1 + n].to_string()), i));
            i += 1 + n;
        } else if let n @ 1.. = name_len(src, i) {
            out.push((Tok::Id(src[i..i + n].to_string()), i));
            i += n;
        } else if c.is_ascii_digit() && c != b'0' {
            // Not herd's, but the project's models have always accepted names like `1x`.
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b"_.-".contains(&b[i])) {
                i += 1;
            }
            out.push((Tok::Id(src[start..i].to_string()), start));
        } else if let Some(s) = SYMS.iter().find(|s| src[i..].starts_with(**s)) {
            out.push((Tok::Sym(s), i));
            i += s.len();
        } else {
            let ch = src[i..].chars().next().unwrap_or('?');
            return Err(CatError::at(i, &format!("unexpected `{ch}`")));
        }
    }
    Ok(out)
}

pub(super) fn is_kw(s: &str) -> bool {
    KEYWORDS.contains(&s)
}
