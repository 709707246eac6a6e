//! The handle the handlers, the planner, the loop and background tasks share
//! (`docs/design/lsp.md#layers`): the client, the engine, the state behind its lock, the pool,
//! and the main loop's channel; publishing diagnostics and `litmus/status` from the state.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::Client;

use super::config::Settings;
use super::engine::Engine;
use super::msg::Msg;
use super::position::{Conv, Encoding};
use super::state::{ClientCaps, Snapshot, State};
use super::util::{guard, lock};
use super::{axiom, cache, catdoc, msg, queue, results, to_proto, verdict, view};

/// The main loop, as the layer above gives it (`main_loop::run`): started with the first
/// message.
pub type LoopFn =
    fn(Ctx, tokio::sync::mpsc::UnboundedReceiver<Msg>) -> Pin<Box<dyn Future<Output = ()> + Send>>;

/// What handlers and background tasks share: the engine, the state, job ids, the pool, the
/// main loop's channel.
pub struct Shared {
    pub engine: Arc<dyn Engine>,
    pub state: Mutex<State>,
    pub next_job: AtomicU64,
    /// The process's workers: at most `litmus.maxJobs` tasks at once, in the order of
    /// `queue.rs` (its own small lock, taken after the state's, never while waiting).
    pub pool: queue::Pool,
    /// To the main loop (`main_loop.rs`): commands from handlers, events from workers.
    pub tx: msg::Sender,
    /// The open cat and bell files (`cat`).
    pub cat: catdoc::Store,
    /// The models of herd's C tests, each `.cfg` read once (`cdoc`).
    pub cmodels: crate::ctest::Models,
    /// The main loop's end, until [`Ctx::send`] starts it.
    rx: Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<Msg>>>,
    /// The main loop, started by the first [`Ctx::send`].
    run_loop: LoopFn,
}

/// The handle the handlers and background tasks share (cheap to clone).
#[derive(Clone)]
pub struct Ctx {
    pub client: Client,
    pub shared: Arc<Shared>,
}

impl Shared {
    pub fn new(engine: Arc<dyn Engine>, run_loop: LoopFn) -> Shared {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        Shared {
            engine,
            state: Mutex::new(State {
                docs: std::collections::HashMap::new(),
                settings: Settings::default(),
                enc: Encoding::Utf16,
                caps: ClientCaps::default(),
                cache: cache::Cache::default(),
                init_warnings: Vec::new(),
            }),
            next_job: AtomicU64::new(1),
            pool: queue::pool(),
            tx,
            cat: catdoc::Store::default(),
            cmodels: crate::ctest::Models::new(&Default::default()),
            rx: Mutex::new(Some(rx)),
            run_loop,
        }
    }

    /// Cancels every running check and parse (the client is gone).
    pub fn cancel_all(&self) {
        for d in lock(&self.state).docs.values_mut() {
            d.stop_parse();
            d.fences.clear();
            if let Some(j) = &d.job {
                j.cancel();
            }
        }
    }
}

impl Ctx {
    /// Sends the main loop a message, starting the loop on the first.
    pub fn send(&self, msg: Msg) {
        if let Some(rx) = lock(&self.shared.rx).take() {
            tokio::spawn((self.shared.run_loop)(self.clone(), rx));
        }
        let _ = self.shared.tx.send(msg);
    }

    /// The state, locked. Never hold it across an `.await`.
    pub fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.shared.state)
    }
    pub fn settings(&self) -> Settings {
        self.state().settings.clone()
    }
    pub fn caps(&self) -> ClientCaps {
        self.state().caps
    }
    /// The current version of a document, if it is open.
    pub fn version(&self, uri: &Uri) -> Option<i32> {
        self.state().docs.get(uri).map(|d| d.version)
    }

    /// Runs `f` on a snapshot of the document at `uri` (under the lock; `f` must not block);
    /// a panic in `f` becomes an internal error response.
    pub fn read<T>(
        &self,
        uri: &Uri,
        f: impl FnOnce(&Snapshot<'_>) -> Option<T>,
    ) -> Result<Option<T>> {
        let st = self.state();
        let Some(doc) = st.docs.get(uri) else {
            return Ok(None);
        };
        let snap = Snapshot {
            doc,
            conv: Conv {
                rope: &doc.rope,
                enc: st.enc,
                uri,
            },
            settings: &st.settings,
            engine: &*self.shared.engine,
        };
        guard(|| f(&snap))
    }

    /// All diagnostics of a document (syntax + verification) as LSP values, with its version.
    pub fn diagnostics_of(&self, uri: &Uri) -> Option<(Vec<Diagnostic>, i32)> {
        let st = self.state();
        let d = st.docs.get(uri)?;
        let conv = Conv {
            rope: &d.rope,
            enc: st.enc,
            uri,
        };
        let mut out: Vec<Diagnostic> = d.syntax.iter().map(|x| conv.diagnostic(x)).collect();
        if let Some(t) = &d.test {
            match guard(|| view::diagnostics(t, &d.text, &d.results)) {
                Ok(ds) => out.extend(ds.iter().map(|x| conv.diagnostic(x))),
                Err(e) => out.push(to_proto::internal_error(e.message.to_string())),
            }
        }
        let mut ax: Vec<Diagnostic> = axiom::diagnostics(d)
            .iter()
            .map(|x| conv.diagnostic(x))
            .collect();
        // the check that forbids the state: where it is in the model's file
        if let (Some((l, what)), Some(x)) = (axiom::check_location(d), ax.first_mut()) {
            if let Ok(uri) = l.uri.parse::<Uri>() {
                let info = DiagnosticRelatedInformation {
                    location: Location::new(uri, l.range),
                    message: format!("the check `{what}`"),
                };
                x.related_information
                    .get_or_insert_with(Vec::new)
                    .push(info);
            }
        }
        out.extend(ax);
        Some((out, d.version))
    }

    pub async fn publish(&self, uri: &Uri) {
        if let Some((diags, version)) = self.diagnostics_of(uri) {
            self.client
                .publish_diagnostics(uri.clone(), diags, Some(version))
                .await;
        }
    }

    /// Sends `litmus/status` for a document: `state` and the verdicts shown now.
    pub async fn send_status(&self, uri: &Uri, state: &str) {
        let (v, results) = {
            let st = self.state();
            let Some(d) = st.docs.get(uri) else { return };
            // How many checks wait for a place (`queue`), this one included when "queued".
            let queued = self.shared.pool.with(|q| q.waiting().len());
            let problem = d
                .syntax
                .iter()
                .find(|x| x.severity == litmus_engine::Severity::Error)
                .map(|x| {
                    let line = d
                        .rope
                        .byte_to_line((x.span.start as usize).min(d.rope.len_bytes()));
                    format!("line {}: {}", line + 1, x.message)
                });
            // herd's AArch64 and RISC-V tests: their own model's verdict (`axiom::status_body`).
            let body = axiom::status_body(d, problem.clone())
                .unwrap_or_else(|| verdict::status_body(d.test.as_deref(), problem, &d.results));
            let results = results::params(uri, d, state);
            (
                to_proto::status(uri, d.version, state, &body, queued),
                results,
            )
        };
        self.client.send_notification::<StatusNotification>(v).await;
        if let Some(r) = results {
            // a finished check, for the client's Testing items and results view
            self.client
                .send_notification::<results::ResultsNotification>(r)
                .await;
        }
    }

    /// Asks the client to re-request lenses and inlay hints, if it can.
    pub async fn refresh_views(&self) {
        let caps = self.caps();
        if caps.code_lens_refresh {
            let _ = self.client.code_lens_refresh().await;
        }
        if caps.inlay_hint_refresh {
            let _ = self.client.inlay_hint_refresh().await;
        }
    }

    /// Merges a settings object into the state; returns what was wrong with it.
    pub fn merge_settings(&self, v: &Value) -> Vec<String> {
        self.state().settings.merge(v)
    }

    pub(crate) async fn fetch_configuration(&self) {
        if !self.caps().configuration {
            return;
        }
        if let Ok(vals) = self
            .client
            .configuration(vec![to_proto::config_item()])
            .await
        {
            if let Some(v) = vals.first() {
                let warnings = self.merge_settings(v);
                self.warn_settings(warnings).await;
            }
        }
    }

    /// Shows what was wrong with the settings (`window/showMessage`, warning).
    pub async fn warn_settings(&self, warnings: Vec<String>) {
        for w in warnings {
            self.client.show_message(MessageType::WARNING, w).await;
        }
    }
}

/// `litmus/status` (protocol contract).
pub enum StatusNotification {}
impl notification::Notification for StatusNotification {
    type Params = Value;
    const METHOD: &'static str = "litmus/status";
}
