//! Where the check behind an axiomatic answer is (`docs/models.md#from-a-test-to-the-check`):
//! the model's files as the view knows them, and the check's location the language server
//! sends with the view (`AxCheck::location`), so that an editor opens the `acyclic`,
//! `irreflexive` or `empty` statement that forbids the state.

use std::path::PathBuf;

use serde::Serialize;
use tower_lsp_server::ls_types::Range;

/// The files of the model a view's test was checked under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelFiles {
    /// A built-in model, by its file name (`aarch64.cat`, `rc11.cat`): no file on disk.
    Builtin(&'static str),
    /// A model read from files: its cat file and bell file (a C test's `.cfg`).
    Files { cat: PathBuf, bell: Option<PathBuf> },
}

/// A check's place in a file: what a client opens.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct AxLocation {
    /// A `file:` URI.
    pub uri: String,
    /// The check's first line, from its keyword (`acyclic`, `flag`, or the `call`).
    pub range: Range,
}
