//! What the main loop hears (`docs/design/lsp.md#one-loop-issue-40`): the planner's
//! [`Plan`]s and cancels, the client's progress tokens, the workers' events. Below the loop and
//! the planner, so that they share these types without importing each other.

use std::sync::Arc;

use tokio::sync::mpsc::UnboundedSender;
use tower_lsp_server::ls_types::Uri;

use litmus_engine::ast::Test;
use litmus_engine::Model;

use super::document::{Checked, Job};
use super::tokens::TokenMap;

/// What a worker sends about a check: `Done` carries `None` for a model skipped because the
/// job was cancelled before it began.
pub type Event = crate::jobs::Event<(), Option<Checked>>;

/// Everything the loop consumes.
pub enum Msg {
    /// Show a document's results after a new check was planned (under the state lock: the
    /// cache answered what it could, the older job was cancelled, `cancelled_old`), and run
    /// the rest, if any (`plan`).
    Start {
        uri: Uri,
        plan: Option<Box<Plan>>,
        cancelled_old: bool,
    },
    /// The `$/progress` token the client created for job `id` (`None`: refused, or the
    /// client cannot show progress).
    Token(u64, Option<String>),
    /// Job `id` was cancelled (its `Control` already says so): take its models out of the
    /// queue, and end it if none runs.
    Cancel(u64),
    /// What a worker says.
    Event(Event),
}

pub type Sender = UnboundedSender<Msg>;

/// A check to run: the document's job, what it checks, and the keys its results are cached
/// and judged stale by.
pub struct Plan {
    pub job: Job,
    pub test: Arc<Test>,
    pub tokens: TokenMap,
    pub cond_key: String,
    pub models: Vec<Model>,
    pub opts: litmus_engine::CheckOptions,
    pub opts_key: String,
}
