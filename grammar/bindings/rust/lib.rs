//! This crate provides the litmus test language (native and herd dialects) and, as a second
//! language, herd's cat language (memory models: `.cat` and `.bell` files; [`LANGUAGE_CAT`])
//! for the [tree-sitter] parsing library.
//!
//! Typically, you will use the [`LANGUAGE`] constant to add this language to a
//! tree-sitter [`Parser`], and then use the parser to parse some code:
//!
//! ```
//! let code = r#"
//! litmus SB
//! shared x, y;
//! thread P0 { x = 1; r0 = y; }
//! thread P1 { y = 1; r1 = x; }
//! exists (P0:r0 == 0 && P1:r1 == 0)
//! "#;
//! let mut parser = tree_sitter::Parser::new();
//! let language = tree_sitter_litmus::LANGUAGE;
//! parser
//!     .set_language(&language.into())
//!     .expect("Error loading Litmus parser");
//! let tree = parser.parse(code, None).unwrap();
//! assert!(!tree.root_node().has_error());
//! ```
//!
//! [`Parser`]: https://docs.rs/tree-sitter/0.27.1/tree_sitter/struct.Parser.html
//! [tree-sitter]: https://tree-sitter.github.io/

use tree_sitter_language::LanguageFn;

unsafe extern "C" {
    fn tree_sitter_litmus() -> *const ();
    fn tree_sitter_cat() -> *const ();
}

/// The tree-sitter [`LanguageFn`] for this grammar.
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_litmus) };

/// The content of the [`node-types.json`] file for this grammar.
///
/// [`node-types.json`]: https://tree-sitter.github.io/tree-sitter/using-parsers/6-static-node-types
pub const NODE_TYPES: &str = include_str!("../../src/node-types.json");

/// The syntax highlighting query for this grammar.
pub const HIGHLIGHTS_QUERY: &str = include_str!("../../queries/highlights.scm");

#[cfg(with_injections_query)]
/// The language injection query for this grammar.
pub const INJECTIONS_QUERY: &str = include_str!("../../queries/injections.scm");

/// The local variable query for this grammar.
pub const LOCALS_QUERY: &str = include_str!("../../queries/locals.scm");

#[cfg(with_tags_query)]
/// The symbol tagging query for this grammar.
pub const TAGS_QUERY: &str = include_str!("../../queries/tags.scm");

/// The tree-sitter [`LanguageFn`] for herd's cat language (grammar `cat/grammar.js`).
///
/// ```
/// let mut parser = tree_sitter::Parser::new();
/// parser.set_language(&tree_sitter_litmus::LANGUAGE_CAT.into()).unwrap();
/// let tree = parser.parse("\"SC\"\nacyclic po | rf | co | fr as sc\n", None).unwrap();
/// assert!(!tree.root_node().has_error());
/// ```
pub const LANGUAGE_CAT: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_cat) };

/// The content of the cat grammar's `node-types.json`.
pub const CAT_NODE_TYPES: &str = include_str!("../../cat/src/node-types.json");

/// The cat grammar's syntax highlighting query.
pub const CAT_HIGHLIGHTS_QUERY: &str = include_str!("../../cat/queries/highlights.scm");

/// The cat grammar's local variable query (definitions, references, scopes).
pub const CAT_LOCALS_QUERY: &str = include_str!("../../cat/queries/locals.scm");

/// The cat grammar's folding query (`@fold`, as Neovim reads it).
pub const CAT_FOLDS_QUERY: &str = include_str!("../../cat/queries/folds.scm");

#[cfg(test)]
mod tests {
    #[test]
    fn test_can_load_grammar() {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&super::LANGUAGE.into())
            .expect("Error loading Litmus parser");
    }

    #[test]
    fn test_can_load_cat_grammar() {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&super::LANGUAGE_CAT.into())
            .expect("Error loading cat parser");
    }
}
