//! Where the check behind an axiomatic answer is (`docs/models.md#from-a-test-to-the-check`):
//! the model's files as the view knows them, and the check's location the language server
//! sends with the view (`AxCheck::location`), so that an editor opens the `acyclic`,
//! `irreflexive` or `empty` statement that forbids the state.

use serde::Serialize;
use tower_lsp_server::ls_types::Range;

pub use crate::catmodel::ModelFiles;

/// A check's place in a file: what a client opens.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct AxLocation {
    /// A `file:` URI.
    pub uri: String,
    /// The check's first line, from its keyword (`acyclic`, `flag`, or the `call`).
    pub range: Range,
}
