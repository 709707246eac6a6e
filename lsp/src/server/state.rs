//! The server's state (`docs/design/lsp.md#layers`): the documents, the settings, the
//! client's capabilities, the cache, behind one lock (`ctx::Shared::state`), and the
//! [`Snapshot`] a request reads. No channel, no client: the layers above plan checks, run the
//! loop and talk to the client.

use std::collections::HashMap;

use tower_lsp_server::ls_types::Uri;

use super::cache::Cache;
use super::config::Settings;
use super::document::Document;
use super::engine::Engine;
use super::position::{Conv, Encoding};

/// What the client said it can do.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClientCaps {
    pub work_done_progress: bool,
    pub configuration: bool,
    pub code_lens_refresh: bool,
    pub inlay_hint_refresh: bool,
}

/// Everything that changes while the server runs, behind the one lock (`ctx::Shared::state`).
pub struct State {
    pub docs: HashMap<Uri, Document>,
    pub settings: Settings,
    pub enc: Encoding,
    pub caps: ClientCaps,
    pub cache: Cache,
    /// What was wrong with `initializationOptions`, shown after `initialized`.
    pub init_warnings: Vec<String>,
}

/// What a request handler sees: one document, the settings and the engine (for replaying a
/// schedule), borrowed under the state lock. Request functions are pure functions of it.
pub struct Snapshot<'a> {
    pub doc: &'a Document,
    pub conv: Conv<'a>,
    pub settings: &'a Settings,
    pub engine: &'a dyn Engine,
}
