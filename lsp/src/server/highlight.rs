//! Semantic tokens from the grammar's highlights query (`grammar/queries/highlights.scm`), the
//! one list of what is a keyword, a builtin, a number, a comment or a string in every dialect,
//! which Neovim's tree-sitter highlighting and the VS Code extension's TextMate grammar follow
//! too. Names the front end resolved (shared locations, registers, threads, mutexes) take
//! their kind from the AST's occurrences instead, which know what the query cannot (a name
//! declared `shared` used in a thread body).

use std::sync::OnceLock;
use tree_sitter::{Parser, Query, QueryCursor, StreamingIterator};

use litmus_engine::Span;

/// The token type (an index into `to_proto::TOKEN_TYPES`) of a highlights capture, if the
/// editor colours it: keywords, control keywords, builtins (`fence`, mnemonics) and
/// `true`/`false` as keywords; numbers; comments (herd's `(* *)` blocks and metadata
/// included); strings; the test's name; registers written as such (`0:X1`, AArch64 and
/// RISC-V operands); shared locations written in addresses. Operators, punctuation, labels
/// and attributes are left to the client's syntax colouring.
fn token_type(capture: &str) -> Option<u32> {
    Some(match capture {
        "keyword" | "keyword.control" | "function.builtin" | "constant.builtin" => 0,
        "number" => 1,
        "comment" => 2,
        "string" => 3,
        "variable" => 4,
        "variable.parameter" => 5,
        "type" => 6,
        "title" => 7,
        _ => return None,
    })
}

/// The compiled highlights query (compiled once per process; a query is immutable and `Sync`).
fn query() -> Option<&'static Query> {
    static Q: OnceLock<Option<Query>> = OnceLock::new();
    Q.get_or_init(|| {
        let lang = tree_sitter_litmus::LANGUAGE.into();
        Query::new(&lang, tree_sitter_litmus::HIGHLIGHTS_QUERY).ok()
    })
    .as_ref()
}

/// The highlighted spans of `text` with their token types, in text order, without overlaps
/// (the first capture of a span wins, as in the query's own precedence: earlier patterns
/// first).
pub fn captures(text: &str) -> Vec<(Span, u32)> {
    let Some(query) = query() else {
        return Vec::new();
    };
    let mut parser = Parser::new();
    if parser
        .set_language(&tree_sitter_litmus::LANGUAGE.into())
        .is_err()
    {
        return Vec::new();
    }
    let Some(tree) = parser.parse(text, None) else {
        return Vec::new();
    };
    let names = query.capture_names();
    let mut found: Vec<(Span, usize, u32)> = Vec::new();
    let mut cursor = QueryCursor::new();
    let mut it = cursor.captures(query, tree.root_node(), text.as_bytes());
    while let Some((m, i)) = it.next() {
        let c = m.captures()[*i];
        let Some(ty) = token_type(names[c.index as usize]) else {
            continue;
        };
        let r = c.node.byte_range();
        if r.is_empty() {
            continue;
        }
        found.push((Span::new(r.start, r.end), m.pattern_index, ty));
    }
    // Text order; of captures of one span, the earliest pattern; then drop what overlaps a
    // span already taken (a herd block captured whole before the words inside it).
    found.sort_by_key(|(s, p, _)| (s.start, std::cmp::Reverse(s.end), *p));
    let mut out: Vec<(Span, u32)> = Vec::new();
    for (s, _, ty) in found {
        if out.last().is_some_and(|(prev, _)| s.start < prev.end) {
            continue;
        }
        out.push((s, ty));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(&str, u32)> {
        captures(text)
            .into_iter()
            .map(|(s, t)| (&text[s.range()], t))
            .collect()
    }

    #[test]
    fn the_query_compiles_and_colours_every_dialect() {
        let native = "litmus SB\nshared x = 0;\nthread P0 { x = 1; fence; r0 = x; }\n\
                      exists (P0:r0 == 0) // done\n";
        let k = kinds(native);
        assert!(k.contains(&("litmus", 0)), "{k:?}");
        assert!(k.contains(&("SB", 7)), "{k:?}");
        assert!(k.contains(&("fence", 0)), "{k:?}");
        assert!(k.contains(&("exists", 0)), "{k:?}");
        assert!(k.contains(&("// done", 2)), "{k:?}");
        assert!(k.iter().any(|&(w, t)| w == "1" && t == 1), "{k:?}");
        let x86 =
            "X86 SB\n{ x=0; }\n P0          ;\n MOV [x],$1  ;\n MFENCE      ;\nexists (0:EAX=0)\n";
        let k = kinds(x86);
        assert!(k.contains(&("X86", 0)), "{k:?}");
        assert!(k.contains(&("MFENCE", 0)), "{k:?}");
        assert!(k.contains(&("MOV", 0)), "{k:?}");
        let arm = "AArch64 MP\n{ 0:X1=x; }\n P0          ;\n LDAR W0,[X1] ;\nexists (0:X0=1)\n";
        let k = kinds(arm);
        assert!(k.contains(&("AArch64", 0)), "{k:?}");
        assert!(k.contains(&("LDAR", 0)), "{k:?}");
    }

    #[test]
    fn spans_are_ordered_and_never_overlap() {
        let text =
            "X86 T\n\"a string\"\n(* a (* herd *) block *)\n{ x=0; }\n P0 ;\n MOV [x],$1 ;\n\
                    exists (x=1)\n";
        let c = captures(text);
        assert!(!c.is_empty());
        for w in c.windows(2) {
            assert!(w[0].0.end <= w[1].0.start, "{c:?}");
        }
    }
}
