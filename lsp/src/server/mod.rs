//! The language server (`litmus lsp`; protocol contract and design in `docs/design/lsp.md`).
//!
//! A dispatcher: [`service`] registers every request and notification; [`backend`] holds the
//! thin `LanguageServer` handlers, which take a [`Snapshot`] of one document under the one
//! state lock and call the pure request functions of [`requests`] (snapshot → protocol value),
//! or apply edits and send the main loop commands ([`verify`] plans a check). [`document`]
//! holds a document (rope, tree, AST, results) and applies edits; [`main_loop`], one
//! long-lived task, owns the running checks: it queues their models on the process's pool of
//! workers (`crate::jobs`), hears from the workers through events, and publishes results,
//! progress and status; [`view`] and [`hover`] compute what the user sees
//! from AST + results in byte spans; [`to_proto`] and [`position`] are the only places that
//! build protocol values; [`engine`] is the only place that calls the engine.
//!
//! Architecture invariants: all mutable state sits in one [`State`] behind one lock, never held
//! across an `.await`; edits are applied synchronously in handler order; every verification
//! result carries the job id and program tokens it was computed from and is dropped when the
//! document moved on; engine calls run on worker threads inside `catch_unwind`.

pub mod asm;
pub mod axiom;
pub mod backend;
pub mod cache;
pub mod cat;
pub mod cdoc;
pub mod config;
pub mod document;
pub mod edit;
pub mod engine;
pub mod fences;
pub mod highlight;
pub mod hover;
pub mod main_loop;
pub mod plain;
pub mod position;
pub mod queue;
pub mod relaxed;
pub mod requests;
pub mod results;
pub mod symbols;
pub mod to_proto;
pub mod tokens;
pub mod trace;
pub mod transport;
pub mod unbounded;
pub mod verdict;
pub mod verify;
pub mod view;

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, ClientSocket, LspService};

pub use backend::Backend;
use config::Settings;
use document::Document;
use engine::Engine;
use position::Encoding;
use to_proto::Conv;

/// Runs the server on stdin/stdout; returns the process exit code.
pub fn run_stdio() -> i32 {
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("litmus lsp: cannot start the async runtime: {e}");
            return 1;
        }
    };
    rt.block_on(transport::serve(
        engine::real(),
        tokio::io::stdin(),
        tokio::io::stdout(),
    ));
    // The stdin reader blocks on a thread of its own: do not wait for it (nor for cancelled
    // checks still unwinding) once the client said `exit`.
    rt.shutdown_background();
    0
}

/// The service, for [`run_stdio`] and for in-process tests (which may wrap the engine).
///
/// The dispatch: the standard LSP requests and notifications are the methods of
/// `impl LanguageServer for Backend` ([`backend`]); custom requests and notifications are
/// registered here, one line each: a method name and an `async fn(&Backend, Params) ->
/// Result<R>` (or `-> ()` for a notification). A new request puts its pure part in a module
/// of its own (snapshot → value, see [`requests`]) and its handler next to it.
pub fn service(engine: Arc<dyn Engine>) -> (LspService<Backend>, ClientSocket) {
    LspService::build(move |client| Backend::new(client, engine.clone()))
        .custom_method(
            "window/workDoneProgress/cancel",
            Backend::work_done_progress_cancel,
        )
        .custom_method(trace::METHOD, Backend::trace)
        .custom_method(axiom::METHOD, Backend::axiomatic)
        .finish()
}

/// What the client said it can do.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClientCaps {
    pub work_done_progress: bool,
    pub configuration: bool,
    pub code_lens_refresh: bool,
    pub inlay_hint_refresh: bool,
}

/// Debounce before publishing syntax diagnostics after a change.
pub const SYNTAX_DEBOUNCE: Duration = Duration::from_millis(15);
/// Debounce before verifying after a change (`verifyOnChange`).
pub const VERIFY_DEBOUNCE: Duration = Duration::from_millis(250);

/// Everything that changes while the server runs, behind the one lock ([`Shared::state`]).
pub struct State {
    pub docs: HashMap<Uri, Document>,
    pub settings: Settings,
    pub enc: Encoding,
    pub caps: ClientCaps,
    pub cache: verify::Cache,
    /// What was wrong with `initializationOptions`, shown after `initialized`.
    pub init_warnings: Vec<String>,
}

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
    pub tx: main_loop::Sender,
    /// The open cat and bell files (`cat`).
    pub cat: cat::Store,
    /// The models of herd's C tests, each `.cfg` read once (`cdoc`).
    pub cmodels: crate::ctest::Models,
    /// The main loop's end, until [`Ctx::send`] starts it.
    rx: Mutex<Option<tokio::sync::mpsc::UnboundedReceiver<main_loop::Msg>>>,
}

/// The handle the handlers and background tasks share (cheap to clone).
#[derive(Clone)]
pub struct Ctx {
    pub client: Client,
    pub shared: Arc<Shared>,
}

/// What a request handler sees: one document, the settings and the engine (for replaying a
/// schedule), borrowed under the state lock. Request functions are pure functions of it.
pub struct Snapshot<'a> {
    pub doc: &'a Document,
    pub conv: Conv<'a>,
    pub settings: &'a Settings,
    pub engine: &'a dyn Engine,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

pub(crate) fn panic_message(e: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = e.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = e.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".into()
    }
}

/// Runs a request's computation, turning a panic into an internal error response.
fn guard<T>(f: impl FnOnce() -> T) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|e| {
        let mut err = Error::internal_error();
        err.message = format!("internal error: {}", panic_message(&*e)).into();
        err
    })
}

impl Shared {
    pub fn new(engine: Arc<dyn Engine>) -> Shared {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        Shared {
            engine,
            state: Mutex::new(State {
                docs: HashMap::new(),
                settings: Settings::default(),
                enc: Encoding::Utf16,
                caps: ClientCaps::default(),
                cache: verify::Cache::default(),
                init_warnings: Vec::new(),
            }),
            next_job: AtomicU64::new(1),
            pool: queue::pool(),
            tx,
            cat: cat::Store::default(),
            cmodels: crate::ctest::Models::new(&Default::default()),
            rx: Mutex::new(Some(rx)),
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
    pub fn send(&self, msg: main_loop::Msg) {
        if let Some(rx) = lock(&self.shared.rx).take() {
            tokio::spawn(main_loop::run(self.clone(), rx));
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
        out.extend(axiom::diagnostics(d).iter().map(|x| conv.diagnostic(x)));
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

    async fn fetch_configuration(&self) {
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

fn arg_uri(args: &[Value]) -> Result<Uri> {
    args.first()
        .and_then(Value::as_str)
        .and_then(|s| s.parse::<Uri>().ok())
        .ok_or_else(|| Error::invalid_params("expected a document URI as the first argument"))
}
