//! The language server (`litmus lsp`, spec §5; protocol contract in `docs/notes/lsp.md`).
//!
//! Code map: [`document`] holds a document (rope, tree, AST, results) and applies edits;
//! [`verify`] runs checks on worker threads with cancellation, progress and the content-keyed
//! cache; [`view`] computes what the user sees from AST + results; [`to_proto`] and
//! [`position`] are the only places that build protocol values; [`engine`] is the only place
//! that calls the engine.
//!
//! Architecture invariants: no map guard is held across an `.await`; edits are applied
//! synchronously in handler order; every verification result carries the job id and program
//! tokens it was computed from and is dropped when the document moved on; engine calls run on
//! worker threads inside `catch_unwind`.

pub mod config;
pub mod document;
pub mod engine;
pub mod fences;
pub mod position;
pub mod queue;
pub mod schedule;
pub mod symbols;
pub mod to_proto;
pub mod tokens;
pub mod trace;
pub mod transport;
pub mod verify;
pub mod view;

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde_json::{json, Value};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, ClientSocket, LanguageServer, LspService};

use config::Settings;
use document::Document;
use engine::Engine;
use position::Encoding;
use to_proto::Conv;
use view::Target;

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
pub fn service(engine: Arc<dyn Engine>) -> (LspService<Backend>, ClientSocket) {
    LspService::build(move |client| Backend::new(client, engine.clone()))
        .custom_method(
            "window/workDoneProgress/cancel",
            Backend::work_done_progress_cancel,
        )
        .custom_method(trace::METHOD, Backend::trace)
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

/// The state shared by handlers and background tasks.
pub struct Inner {
    pub engine: Arc<dyn Engine>,
    pub docs: Mutex<HashMap<Uri, Document>>,
    pub settings: Mutex<Settings>,
    pub enc: Mutex<Encoding>,
    pub caps: Mutex<ClientCaps>,
    pub cache: Mutex<verify::Cache>,
    pub next_job: AtomicU64,
    /// What was wrong with `initializationOptions`, shown after `initialized`.
    pub init_warnings: Mutex<Vec<String>>,
    /// At most `litmus.maxJobs` checks at once, the newest first.
    pub queue: queue::Queue,
}

/// The handle the handlers and background tasks share (cheap to clone).
#[derive(Clone)]
pub struct Ctx {
    pub client: Client,
    pub inner: Arc<Inner>,
}

pub struct Backend {
    ctx: Ctx,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
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

impl Inner {
    /// Cancels every running check (the client is gone).
    pub fn cancel_all(&self) {
        for d in lock(&self.docs).values() {
            if let Some(j) = &d.job {
                j.control.cancel();
            }
        }
    }
}

impl Ctx {
    pub fn docs(&self) -> MutexGuard<'_, HashMap<Uri, Document>> {
        lock(&self.inner.docs)
    }
    pub fn settings(&self) -> Settings {
        lock(&self.inner.settings).clone()
    }
    pub fn enc(&self) -> Encoding {
        *lock(&self.inner.enc)
    }
    pub fn caps(&self) -> ClientCaps {
        *lock(&self.inner.caps)
    }

    /// All diagnostics of a document (syntax + verification) as LSP values, with its version.
    pub fn diagnostics_of(&self, uri: &Uri) -> Option<(Vec<Diagnostic>, i32)> {
        let enc = self.enc();
        let docs = self.docs();
        let d = docs.get(uri)?;
        let conv = Conv {
            rope: &d.rope,
            enc,
            uri,
        };
        let mut out: Vec<Diagnostic> = d.syntax.iter().map(|x| conv.diagnostic(x)).collect();
        if let Some(t) = &d.test {
            let r = guard(|| view::diagnostics(t, &d.text, &d.results));
            match r {
                Ok(ds) => out.extend(ds.iter().map(|x| conv.diagnostic(x))),
                Err(e) => out.push(Diagnostic::new_simple(
                    Range::default(),
                    e.message.to_string(),
                )),
            }
        }
        Some((out, d.version))
    }

    pub async fn publish(&self, uri: &Uri) {
        if let Some((diags, version)) = self.diagnostics_of(uri) {
            self.client
                .publish_diagnostics(uri.clone(), diags, Some(version))
                .await;
        }
    }

    pub async fn send_status(&self, uri: &Uri, state: &str) {
        let v = {
            let docs = self.docs();
            let Some(d) = docs.get(uri) else { return };
            let mut v = to_proto::status(uri, d.version, state, &d.results);
            // How many checks wait for a place (`queue`), this one included when "queued".
            v["queued"] = self.inner.queue.waiting().len().into();
            v
        };
        self.client.send_notification::<StatusNotification>(v).await;
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

    async fn fetch_configuration(&self) {
        if !self.caps().configuration {
            return;
        }
        let item = ConfigurationItem {
            scope_uri: None,
            section: Some("litmus".into()),
        };
        if let Ok(vals) = self.client.configuration(vec![item]).await {
            if let Some(v) = vals.first() {
                let warnings = lock(&self.inner.settings).merge(v);
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

impl Backend {
    pub fn new(client: Client, engine: Arc<dyn Engine>) -> Backend {
        let inner = Inner {
            engine,
            docs: Mutex::new(HashMap::new()),
            settings: Mutex::new(Settings::default()),
            enc: Mutex::new(Encoding::Utf16),
            caps: Mutex::new(ClientCaps::default()),
            cache: Mutex::new(verify::Cache::default()),
            next_job: AtomicU64::new(1),
            init_warnings: Mutex::new(Vec::new()),
            queue: queue::Queue::default(),
        };
        Backend {
            ctx: Ctx {
                client,
                inner: Arc::new(inner),
            },
        }
    }

    /// The state the handlers share.
    pub fn shared(&self) -> Arc<Inner> {
        self.ctx.inner.clone()
    }

    pub async fn work_done_progress_cancel(&self, params: WorkDoneProgressCancelParams) {
        let token = match &params.token {
            NumberOrString::String(s) => s.clone(),
            NumberOrString::Number(n) => n.to_string(),
        };
        let docs = self.ctx.docs();
        for d in docs.values() {
            if let Some(j) = &d.job {
                if j.token.as_deref() == Some(token.as_str()) {
                    j.control.cancel();
                }
            }
        }
    }

    /// Runs `f` on the document at `uri` (under the lock; `f` must not block).
    fn with_doc<T>(
        &self,
        uri: &Uri,
        f: impl FnOnce(&Document, Conv<'_>) -> Option<T>,
    ) -> Result<Option<T>> {
        let enc = self.ctx.enc();
        let docs = self.ctx.docs();
        let Some(d) = docs.get(uri) else {
            return Ok(None);
        };
        guard(|| {
            f(
                d,
                Conv {
                    rope: &d.rope,
                    enc,
                    uri,
                },
            )
        })
    }
}

fn arg_uri(args: &[Value]) -> Result<Uri> {
    args.first()
        .and_then(Value::as_str)
        .and_then(|s| s.parse::<Uri>().ok())
        .ok_or_else(|| Error::invalid_params("expected a document URI as the first argument"))
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let caps = &params.capabilities;
        let utf8 = caps
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref())
            .is_some_and(|e| e.contains(&PositionEncodingKind::UTF8));
        *lock(&self.ctx.inner.enc) = if utf8 {
            Encoding::Utf8
        } else {
            Encoding::Utf16
        };
        let ws = caps.workspace.as_ref();
        *lock(&self.ctx.inner.caps) = ClientCaps {
            work_done_progress: caps
                .window
                .as_ref()
                .and_then(|w| w.work_done_progress)
                .unwrap_or(false),
            configuration: ws.and_then(|w| w.configuration).unwrap_or(false),
            code_lens_refresh: ws
                .and_then(|w| w.code_lens.as_ref())
                .and_then(|c| c.refresh_support)
                .unwrap_or(false),
            inlay_hint_refresh: ws
                .and_then(|w| w.inlay_hint.as_ref())
                .and_then(|c| c.refresh_support)
                .unwrap_or(false),
        };
        if let Some(opts) = &params.initialization_options {
            let warnings = lock(&self.ctx.inner.settings).merge(opts);
            // Shown once the client is initialized (no notification may precede the answer).
            lock(&self.ctx.inner.init_warnings).extend(warnings);
        }
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(if utf8 {
                    PositionEncodingKind::UTF8
                } else {
                    PositionEncodingKind::UTF16
                }),
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                            include_text: Some(false),
                        })),
                        ..Default::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
                code_lens_provider: Some(CodeLensOptions {
                    resolve_provider: Some(false),
                }),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec!["litmus.verify".into(), "litmus.showSchedule".into()],
                    ..Default::default()
                }),
                inlay_hint_provider: Some(OneOf::Left(true)),
                document_symbol_provider: Some(OneOf::Left(true)),
                definition_provider: Some(OneOf::Left(true)),
                references_provider: Some(OneOf::Left(true)),
                semantic_tokens_provider: Some(
                    SemanticTokensServerCapabilities::SemanticTokensOptions(
                        SemanticTokensOptions {
                            legend: to_proto::legend(),
                            full: Some(SemanticTokensFullOptions::Bool(true)),
                            range: Some(false),
                            ..Default::default()
                        },
                    ),
                ),
                ..Default::default()
            },
            server_info: Some(ServerInfo {
                name: "litmus".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            ..Default::default()
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        let warnings = std::mem::take(&mut *lock(&self.ctx.inner.init_warnings));
        self.ctx.warn_settings(warnings).await;
        self.ctx.fetch_configuration().await;
    }

    async fn shutdown(&self) -> Result<()> {
        for d in self.ctx.docs().values() {
            if let Some(j) = &d.job {
                j.control.cancel();
            }
        }
        Ok(())
    }

    async fn did_open(&self, p: DidOpenTextDocumentParams) {
        let uri = p.text_document.uri;
        {
            let doc = Document::new(
                &*self.ctx.inner.engine,
                p.text_document.text,
                p.text_document.version,
            );
            if let Some(old) = self.ctx.docs().insert(uri.clone(), doc) {
                if let Some(j) = old.job {
                    j.control.cancel();
                }
            }
        }
        self.ctx.publish(&uri).await;
        verify::start(&self.ctx, &uri).await;
    }

    async fn did_change(&self, p: DidChangeTextDocumentParams) {
        let uri = p.text_document.uri;
        let version = p.text_document.version;
        let enc = self.ctx.enc();
        let cancelled = {
            let mut docs = self.ctx.docs();
            let Some(d) = docs.get_mut(&uri) else { return };
            if version <= d.version {
                // An out-of-date change (the client resent or reordered): ignore it.
                return;
            }
            for ch in &p.content_changes {
                d.apply(enc, ch);
            }
            d.version = version;
            verify::after_edit(&self.ctx.inner, d)
        };
        if cancelled {
            self.ctx.send_status(&uri, "cancelled").await;
        }
        let ctx = self.ctx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(SYNTAX_DEBOUNCE).await;
            let current = ctx.docs().get(&uri).map(|d| d.version) == Some(version);
            if current {
                ctx.publish(&uri).await;
                ctx.refresh_views().await;
            }
            if ctx.settings().verify_on_change {
                tokio::time::sleep(VERIFY_DEBOUNCE).await;
                if ctx.docs().get(&uri).map(|d| d.version) == Some(version) {
                    verify::start(&ctx, &uri).await;
                }
            }
        });
    }

    async fn did_save(&self, p: DidSaveTextDocumentParams) {
        if self.ctx.settings().verify_on_save {
            verify::start(&self.ctx, &p.text_document.uri).await;
        }
    }

    async fn did_close(&self, p: DidCloseTextDocumentParams) {
        let uri = p.text_document.uri;
        let removed = self.ctx.docs().remove(&uri);
        if let Some(d) = removed {
            if let Some(j) = d.job {
                j.control.cancel();
            }
        }
        self.ctx.client.publish_diagnostics(uri, vec![], None).await;
    }

    async fn did_change_configuration(&self, p: DidChangeConfigurationParams) {
        let has_section = p.settings.get("litmus").is_some()
            || p.settings
                .as_object()
                .is_some_and(|o| o.keys().any(|k| k.starts_with("litmus.")));
        if has_section {
            let warnings = lock(&self.ctx.inner.settings).merge(&p.settings);
            self.ctx.warn_settings(warnings).await;
        } else {
            self.ctx.fetch_configuration().await;
        }
        let limit = self.ctx.settings().max_jobs.unwrap_or_else(queue::default_limit);
        self.ctx.inner.queue.refill(limit);
        let uris: Vec<Uri> = self.ctx.docs().keys().cloned().collect();
        for u in uris {
            verify::start(&self.ctx, &u).await;
        }
    }

    async fn hover(&self, p: HoverParams) -> Result<Option<Hover>> {
        let uri = &p.text_document_position_params.text_document.uri;
        let pos = p.text_document_position_params.position;
        let models = self.ctx.settings().models;
        self.with_doc(uri, |d, conv| {
            let test = d.test.as_ref()?;
            let off = position::offset(&d.rope, conv.enc, pos) as u32;
            let inside = |s: litmus_engine::Span| s.start <= off && off <= s.end;
            let occ = symbols::occurrences(test, &d.text);
            let (target, heading, span) =
                if let Some(c) = test.condition.as_ref().filter(|c| inside(c.span)) {
                    (
                        Target::Condition,
                        format!("{} {}", c.quantifier.as_str(), "condition"),
                        c.span,
                    )
                } else if let Some(a) = view::assertions(test).into_iter().find(|a| inside(*a)) {
                    let src = d.text.get(a.range()).unwrap_or("assert").trim().to_string();
                    (Target::Assert(a), format!("`{src}`"), a)
                } else if let Some(o) = symbols::at(&occ, off) {
                    match &o.sym {
                        symbols::Sym::Thread(t) => (
                            Target::Test,
                            format!("thread {}", test.threads[*t].name.text),
                            o.span,
                        ),
                        symbols::Sym::Shared(i) => {
                            let decl = &test.shared[*i];
                            let init = decl
                                .init
                                .iter()
                                .map(|v| v.to_string())
                                .collect::<Vec<_>>()
                                .join(", ");
                            (
                                Target::Test,
                                format!("shared {} (initially {init})", decl.name.text),
                                o.span,
                            )
                        }
                        _ => return None,
                    }
                } else if inside(test.name.span) {
                    (
                        Target::Test,
                        format!("test {}", test.name.text),
                        test.name.span,
                    )
                } else {
                    return None;
                };
            let mut md = view::hover(test, &d.text, &models, &d.results, target, &heading);
            md += &trace::hover_links(test, &d.results, target, uri);
            md += &fences::hover_lines(test, &d.text, &d.results, span);
            Some(Hover {
                contents: HoverContents::Markup(MarkupContent {
                    kind: MarkupKind::Markdown,
                    value: md,
                }),
                range: Some(conv.range(span)),
            })
        })
    }

    async fn code_action(&self, p: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        fences::code_actions(self, p).await
    }

    async fn code_lens(&self, p: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let uri = p.text_document.uri;
        let models = self.ctx.settings().models;
        self.with_doc(&uri, |d, conv| {
            let test = d.test.as_ref()?;
            let mut out = Vec::new();
            for (span, _title, has_schedule) in view::lenses(test, &models, &d.results) {
                let range = conv.range(span);
                let line_start = Range::new(
                    Position::new(range.start.line, 0),
                    Position::new(range.start.line, 0),
                );
                // One lens per model: each ✗ opens that model's counterexample.
                let target = view::target_at(test, span);
                out.extend(trace::verdict_lenses(
                    test, target, &models, &d.results, &uri, range,
                ));
                if has_schedule {
                    out.push(CodeLens {
                        range: line_start,
                        command: Some(Command {
                            title: "Show schedule".into(),
                            command: "litmus.showSchedule".into(),
                            arguments: Some(vec![
                                json!(uri.as_str()),
                                json!(range.start.line),
                                json!(range.start.character),
                            ]),
                        }),
                        data: None,
                    });
                }
            }
            Some(out)
        })
    }

    async fn execute_command(&self, p: ExecuteCommandParams) -> Result<Option<Value>> {
        match p.command.as_str() {
            "litmus.verify" => {
                let uri = arg_uri(&p.arguments)?;
                verify::start_forced(&self.ctx, &uri).await;
                Ok(None)
            }
            "litmus.showSchedule" => {
                let uri = arg_uri(&p.arguments)?;
                let line = p.arguments.get(1).and_then(Value::as_u64);
                let ch = p.arguments.get(2).and_then(Value::as_u64);
                let model = p
                    .arguments
                    .get(3)
                    .and_then(Value::as_str)
                    .and_then(litmus_engine::Model::parse);
                let r = self.with_doc(&uri, |d, conv| {
                    let test = d.test.as_ref()?;
                    let off = match (line, ch) {
                        (Some(l), Some(c)) => Some(position::offset(
                            &d.rope,
                            conv.enc,
                            Position::new(l as u32, c as u32),
                        ) as u32),
                        _ => None,
                    };
                    let v = view::schedule_view(test, &d.text, &d.results, off, model)?;
                    Some(conv.schedule(&v))
                })?;
                Ok(Some(r.unwrap_or(Value::Null)))
            }
            other => Err(Error::invalid_params(format!("unknown command {other}"))),
        }
    }

    async fn inlay_hint(&self, p: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        let range = p.range;
        self.with_doc(&p.text_document.uri, |d, conv| {
            let test = d.test.as_ref()?;
            let hints = view::inlay_hints(test, &d.text, &d.results)
                .into_iter()
                .map(|(off, label)| InlayHint {
                    position: conv.pos(off),
                    label: InlayHintLabel::String(label),
                    kind: None,
                    text_edits: None,
                    tooltip: Some(InlayHintTooltip::String(
                        "value read in the shown counterexample".into(),
                    )),
                    padding_left: Some(true),
                    padding_right: None,
                    data: None,
                })
                .filter(|h| h.position >= range.start && h.position <= range.end)
                .collect();
            Some(hints)
        })
    }

    async fn document_symbol(
        &self,
        p: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        self.with_doc(&p.text_document.uri, |d, conv| {
            let test = d.test.as_ref()?;
            #[allow(deprecated)]
            let sym = |name: String,
                       detail: Option<String>,
                       kind: SymbolKind,
                       span,
                       sel,
                       children: Vec<DocumentSymbol>| DocumentSymbol {
                name,
                detail,
                kind,
                tags: None,
                deprecated: None,
                range: conv.range(span),
                selection_range: conv.range(sel),
                children: (!children.is_empty()).then_some(children),
            };
            let mut children = Vec::new();
            for s in &test.shared {
                let name = symbols::name_span(&d.text, s.name.span, &s.name.text);
                children.push(sym(
                    s.name.text.clone(),
                    Some("shared".into()),
                    SymbolKind::VARIABLE,
                    s.span.cover(name),
                    name,
                    vec![],
                ));
            }
            for m in &test.mutexes {
                children.push(sym(
                    m.text.clone(),
                    Some("mutex".into()),
                    SymbolKind::OBJECT,
                    m.span,
                    m.span,
                    vec![],
                ));
            }
            for t in &test.threads {
                let name = symbols::name_span(&d.text, t.name.span, &t.name.text);
                children.push(sym(
                    t.name.text.clone(),
                    Some("thread".into()),
                    SymbolKind::FUNCTION,
                    t.span.cover(name),
                    name,
                    vec![],
                ));
            }
            if let Some(c) = &test.condition {
                children.push(sym(
                    c.quantifier.as_str().into(),
                    Some("final condition".into()),
                    SymbolKind::BOOLEAN,
                    c.span,
                    c.span,
                    vec![],
                ));
            }
            let name = symbols::name_span(&d.text, test.name.span, &test.name.text);
            let top = sym(
                test.name.text.clone(),
                test.description.clone(),
                SymbolKind::MODULE,
                test.span.cover(name),
                name,
                children,
            );
            Some(DocumentSymbolResponse::Nested(vec![top]))
        })
    }

    async fn goto_definition(
        &self,
        p: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let pos = p.text_document_position_params.position;
        self.with_doc(
            &p.text_document_position_params.text_document.uri,
            |d, conv| {
                let test = d.test.as_ref()?;
                let occ = symbols::occurrences(test, &d.text);
                let off = position::offset(&d.rope, conv.enc, pos) as u32;
                let o = symbols::at(&occ, off)?;
                let def = symbols::definition(&occ, &o.sym)?;
                Some(GotoDefinitionResponse::Scalar(conv.location(def.span)))
            },
        )
    }

    async fn references(&self, p: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let pos = p.text_document_position.position;
        let include_decl = p.context.include_declaration;
        self.with_doc(&p.text_document_position.text_document.uri, |d, conv| {
            let test = d.test.as_ref()?;
            let occ = symbols::occurrences(test, &d.text);
            let off = position::offset(&d.rope, conv.enc, pos) as u32;
            let sym = symbols::at(&occ, off)?.sym.clone();
            let def = symbols::definition(&occ, &sym).map(|o| o.span);
            Some(
                occ.iter()
                    .filter(|o| o.sym == sym && (include_decl || Some(o.span) != def))
                    .map(|o| conv.location(o.span))
                    .collect(),
            )
        })
    }

    async fn semantic_tokens_full(
        &self,
        p: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        self.with_doc(&p.text_document.uri, |d, conv| {
            let occ = d
                .test
                .as_ref()
                .map(|t| symbols::occurrences(t, &d.text))
                .unwrap_or_default();
            let data =
                to_proto::semantic_tokens(&d.text, &d.rope, conv.enc, d.test.as_deref(), &occ);
            Some(SemanticTokensResult::Tokens(SemanticTokens {
                result_id: None,
                data,
            }))
        })
    }
}
