//! A dialect-agnostic lexer used for the verification cache key and for remapping positions.
//!
//! The cache is keyed by the *token stream* of the program (everything but comments, whitespace
//! and the final condition), so an edit to whitespace or comments, or to the final condition
//! only, finds the results of an earlier check. Those results hold byte spans into the text they
//! were computed from; since the program tokens are identical, token `i` of the old text is token
//! `i` of the new one, and [`TokenMap::remap`] moves every span by its token (see
//! `docs/design/lsp.md`, "Cache and positions").

use litmus_engine::Span;

/// What a token is, as far as the server cares (semantic tokens and the cache key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokKind {
    Ident,
    Number,
    Str,
    Punct,
    Comment,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokKind,
    pub span: Span,
}

/// Splits `text` into tokens; comments are returned as tokens of kind [`TokKind::Comment`].
/// Knows `// ..`, `/* .. */` (native) and `(* .. *)` (x86) comments and `"..."` strings.
pub fn lex(text: &str) -> Vec<Token> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let kind = if c.is_ascii_whitespace() {
            i += 1;
            continue;
        } else if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            TokKind::Comment
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i = find_close(b, i + 2, b"*/");
            TokKind::Comment
        } else if c == b'(' && b.get(i + 1) == Some(&b'*') {
            i = find_close(b, i + 2, b"*)");
            TokKind::Comment
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                i += 1;
            }
            i = (i + 1).min(b.len());
            TokKind::Str
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            TokKind::Ident
        } else if c.is_ascii_digit() {
            while i < b.len() && b[i].is_ascii_alphanumeric() {
                i += 1;
            }
            TokKind::Number
        } else {
            // One character (possibly multi-byte).
            i += text[i..].chars().next().map_or(1, char::len_utf8);
            TokKind::Punct
        };
        out.push(Token {
            kind,
            span: Span::new(start, i),
        });
    }
    out
}

fn find_close(b: &[u8], mut i: usize, close: &[u8]) -> usize {
    while i < b.len() {
        if b[i..].starts_with(close) {
            return i + close.len();
        }
        i += 1;
    }
    b.len()
}

/// The program tokens of a text (no comments, nothing inside `exclude`), with the cache key they
/// make.
#[derive(Clone, Debug)]
pub struct TokenMap {
    /// Spans of the program tokens in the text they came from.
    pub spans: Vec<Span>,
    /// The token texts joined by `\u{1}`: equal keys mean equal token streams.
    pub key: String,
}

impl TokenMap {
    /// `exclude` is the final condition's span: its tokens are not part of the program key.
    pub fn new(text: &str, exclude: Option<Span>) -> TokenMap {
        let mut spans = Vec::new();
        let mut key = String::new();
        for t in lex(text) {
            if t.kind == TokKind::Comment {
                continue;
            }
            if let Some(ex) = exclude {
                if t.span.start >= ex.start && t.span.end <= ex.end {
                    continue;
                }
            }
            key.push_str(&text[t.span.range()]);
            key.push('\u{1}');
            spans.push(t.span);
        }
        TokenMap { spans, key }
    }

    /// Moves byte offset `off` of the old text (`self`) to the new text (`new`), token by token.
    /// An offset inside token `i` keeps its distance from that token's start; an offset between
    /// tokens sticks to the start of the next token (or the end of the previous one at the end).
    pub fn remap_offset(&self, new: &TokenMap, off: u32) -> u32 {
        let i = self.spans.partition_point(|s| s.end <= off);
        if let (Some(o), Some(n)) = (self.spans.get(i), new.spans.get(i)) {
            if off >= o.start {
                return n.start + (off - o.start);
            }
            // In the gap before token i: if it ends a token, keep to that end.
            if i > 0 && self.spans[i - 1].end == off {
                return new.spans[i - 1].end;
            }
            return n.start;
        }
        match new.spans.last() {
            Some(n) if !self.spans.is_empty() => n.end,
            _ => off,
        }
    }

    pub fn remap(&self, new: &TokenMap, span: Span) -> Span {
        let start = self.remap_offset(new, span.start);
        // An end offset is the end of the token before it, not the start of the next one.
        let end = if span.end > span.start {
            let i = self.spans.partition_point(|s| s.end < span.end);
            match (self.spans.get(i), new.spans.get(i)) {
                (Some(o), Some(n)) if span.end >= o.start => n.start + (span.end - o.start),
                _ => self.remap_offset(new, span.end),
            }
        } else {
            start
        };
        Span {
            start,
            end: end.max(start),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(src: &str) -> Vec<&str> {
        lex(src).iter().map(|t| &src[t.span.range()]).collect()
    }

    #[test]
    fn lexes_both_dialects_and_comments() {
        assert_eq!(
            texts("x = 1; // c\n/* d */ r0=y;"),
            ["x", "=", "1", ";", "// c", "/* d */", "r0", "=", "y", ";"]
        );
        assert_eq!(
            texts("MOV [x],$1 (* c *)"),
            ["MOV", "[", "x", "]", ",", "$", "1", "(* c *)"]
        );
        assert_eq!(texts("litmus SB \"a b\""), ["litmus", "SB", "\"a b\""]);
    }

    #[test]
    fn key_ignores_whitespace_comments_and_condition() {
        let a = "thread P0 { x = 1; }\nexists (x == 1)";
        let b = "// hi\nthread   P0 {\n  x = 1; /* c */ }\nexists (x == 2)";
        let ca = a.find("exists").unwrap();
        let cb = b.find("exists").unwrap();
        let ka = TokenMap::new(a, Some(Span::new(ca, a.len())));
        let kb = TokenMap::new(b, Some(Span::new(cb, b.len())));
        assert_eq!(ka.key, kb.key);
        assert_ne!(TokenMap::new(a, None).key, TokenMap::new(b, None).key);
    }

    #[test]
    fn remaps_spans_token_by_token() {
        let a = "thread P0 { x = 1; }";
        let b = "/* é */ thread P0 {\n    x  =  1;\n}";
        let (ka, kb) = (TokenMap::new(a, None), TokenMap::new(b, None));
        // `x = 1;` in a is 12..18; in b it is `x  =  1;`.
        let s = ka.remap(&kb, Span::new(12, 18));
        assert_eq!(&b[s.range()], "x  =  1;");
        let s = ka.remap(&kb, Span::new(12, 13));
        assert_eq!(&b[s.range()], "x");
        let s = ka.remap(&kb, Span::new(0, a.len()));
        assert_eq!(&b[s.range()], &b[b.find("thread").unwrap()..]);
    }
}
