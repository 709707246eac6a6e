//! The open cat and bell files (`cat/`'s state, kept in [`super::ctx::Shared`]): below the
//! handlers of `cat/` and the server's `Ctx`, so that neither imports the other.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use litmus_engine::cat::Outline;
use ropey::Rope;
use tower_lsp_server::ls_types::Uri;

use super::util::lock;

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

/// The two models a recheck compared (`cat::under`, a changed test's view under either).
pub struct Compared {
    /// The model's file.
    pub path: PathBuf,
    /// The folders its includes were looked for in after its own (`Store::search`).
    pub search: Vec<PathBuf>,
    /// The model as it was, and its snapshot: the file it was written out to, with the files
    /// it included as they were read (`cat::snapshot`; `None` if it could not be written).
    pub before: Arc<litmus_engine::cat::Model>,
    pub before_file: Option<PathBuf>,
    /// The model as saved.
    pub after: Arc<litmus_engine::cat::Model>,
}

/// The open cat files, the workspace folders, and the last model each saved file gave.
#[derive(Default)]
pub struct Store {
    pub docs: Mutex<HashMap<Uri, CatDoc>>,
    pub roots: Mutex<Vec<PathBuf>>,
    /// Each workspace folder's setting `litmus.includePath`, resolved (relative to the folder),
    /// by the folder (the empty path: no folder); asked again when the configuration changes.
    pub include: Mutex<HashMap<PathBuf, Vec<PathBuf>>>,
    /// The `litmus` section as the client sent it (`initializationOptions`, then each
    /// `workspace/didChangeConfiguration` that carries it, merged): the settings of every
    /// folder when the client cannot be asked (no `workspace/configuration`, Neovim 0.7).
    pub pushed: Mutex<serde_json::Map<String, serde_json::Value>>,
    /// What the recheck compares a saved model with: its text when last saved or opened.
    pub saved: Mutex<HashMap<Uri, String>>,
    /// The running recheck's generation: a newer save stops an older one.
    pub generation: std::sync::atomic::AtomicU64,
    /// The most recently active litmus test: whose execution a hover in a cat file shows.
    pub active: Mutex<Option<Uri>>,
    /// The models the last recheck compared, by the model's URI.
    pub compared: Mutex<HashMap<String, Compared>>,
}

impl Store {
    /// The setting `litmus.includePath` of the workspace folder of the file at `path`.
    pub fn include_of(&self, path: Option<&Path>) -> Vec<PathBuf> {
        let roots = lock(&self.roots).clone();
        let folder = folder_of(&roots, path).cloned().unwrap_or_default();
        lock(&self.include)
            .get(&folder)
            .cloned()
            .unwrap_or_default()
    }

    /// The folders an `include` in the file at `path` (or a file it includes) is looked for
    /// in after the including file's own: the include path of `path`'s workspace folder, then
    /// the workspace folders (`docs/models.md`, the order of includes).
    pub fn search(&self, path: Option<&Path>) -> Vec<PathBuf> {
        let mut out = self.include_of(path);
        out.extend(lock(&self.roots).iter().cloned());
        out
    }
}

/// The workspace folder `path` is in (the deepest that holds it), else the first.
pub fn folder_of<'a>(roots: &'a [PathBuf], path: Option<&Path>) -> Option<&'a PathBuf> {
    path.and_then(|p| {
        roots
            .iter()
            .filter(|r| p.starts_with(r))
            .max_by_key(|r| r.components().count())
    })
    .or(roots.first())
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
