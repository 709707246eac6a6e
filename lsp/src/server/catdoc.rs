//! The open cat and bell files (`cat/`'s state, kept in [`super::ctx::Shared`]): below the
//! handlers of `cat/` and the server's `Ctx`, so that neither imports the other.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use litmus_engine::cat::Outline;
use ropey::Rope;
use tower_lsp_server::ls_types::Uri;

/// One open cat or bell file.
pub struct CatDoc {
    pub text: Arc<String>,
    pub rope: Rope,
    pub version: i32,
    pub outline: Arc<Outline>,
}

impl CatDoc {
    pub fn new(text: String, version: i32) -> CatDoc {
        let outline = Arc::new(litmus_engine::cat::outline(&text));
        CatDoc {
            rope: Rope::from_str(&text),
            text: Arc::new(text),
            version,
            outline,
        }
    }
}

/// The open cat files, the workspace folders, and the last model each saved file gave.
#[derive(Default)]
pub struct Store {
    pub docs: Mutex<HashMap<Uri, CatDoc>>,
    pub roots: Mutex<Vec<PathBuf>>,
    /// What the recheck compares a saved model with: its text when last saved or opened.
    pub saved: Mutex<HashMap<Uri, String>>,
    /// The running recheck's generation: a newer save stops an older one.
    pub generation: std::sync::atomic::AtomicU64,
    /// The most recently active litmus test: whose execution a hover in a cat file shows.
    pub active: Mutex<Option<Uri>>,
    /// The models the last recheck compared, by the model's URI: its path, as it was and as
    /// saved (`cat::under`, a changed test's view under either).
    #[allow(clippy::type_complexity)]
    pub compared: Mutex<
        HashMap<
            String,
            (
                PathBuf,
                Arc<litmus_engine::cat::Model>,
                Arc<litmus_engine::cat::Model>,
            ),
        >,
    >,
}

/// Whether `uri` names a cat or bell file.
pub fn is_cat(uri: &Uri) -> bool {
    let s = uri.as_str();
    s.ends_with(".cat") || s.ends_with(".bell")
}

/// The file path of a `file:` URI.
pub fn path_of(uri: &Uri) -> Option<PathBuf> {
    uri.to_file_path().map(|p| p.into_owned())
}

/// The `file:` URI of a path.
pub fn uri_of(p: &std::path::Path) -> Option<Uri> {
    Uri::from_file_path(p)
}
