//! tree-sitter grammar for litmus tests. Placeholder until the grammar lands.
