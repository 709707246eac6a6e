//! The `LanguageServer` handlers: thin. A request takes a [`Snapshot`] of its document under
//! the state lock and calls a pure function of [`requests`] (or [`hover`]); a notification
//! applies its change to the [`State`](super::state::State) and starts or cancels checks
//! ([`verify`]). Nothing here builds protocol values ([`to_proto`] does).

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, ClientSocket, LanguageServer, LspService};

use super::ctx::{Ctx, Shared};
use super::document::{Document, Reparse};
use super::engine::Engine;
use super::position::Encoding;
use super::state::{ClientCaps, Snapshot};
use super::to_proto;
use super::util::guard;
use super::{axiom, cat, edit, hover, main_loop, queue, requests, trace, verify};
use super::{complete, doc_highlight, format, rename, wsymbols};

/// The service, for [`run_stdio`] and for in-process tests (which may wrap the engine).
///
/// The dispatch: the standard LSP requests and notifications are the methods of
/// `impl LanguageServer for Backend` (this module); custom requests and notifications are
/// registered here, one line each: a method name and an `async fn(&Backend, Params) ->
/// Result<R>` (or `-> ()` for a notification). A new request puts its pure part in a module
/// of its own (snapshot → value, see `requests.rs`) and its handler next to it.
pub fn service(engine: Arc<dyn Engine>) -> (LspService<Backend>, ClientSocket) {
    LspService::build(move |client| Backend::new(client, engine.clone()))
        .custom_method(
            "window/workDoneProgress/cancel",
            Backend::work_done_progress_cancel,
        )
        .custom_method(trace::METHOD, Backend::trace)
        .custom_method(axiom::METHOD, Backend::axiomatic)
        .custom_method(cat::under::METHOD, Backend::axiomatic_under)
        .finish()
}

/// Debounce before publishing syntax diagnostics after a change.
pub const SYNTAX_DEBOUNCE: Duration = Duration::from_millis(15);
/// Debounce before verifying after a change (`verifyOnChange`).
pub const VERIFY_DEBOUNCE: Duration = Duration::from_millis(250);

pub struct Backend {
    pub(crate) ctx: Ctx,
}

impl Backend {
    pub fn new(client: Client, engine: Arc<dyn Engine>) -> Backend {
        Backend {
            ctx: Ctx {
                client,
                shared: Arc::new(Shared::new(engine, |ctx, rx| {
                    Box::pin(main_loop::run(ctx, rx))
                })),
            },
        }
    }

    /// The state the handlers share.
    pub fn shared(&self) -> Arc<Shared> {
        self.ctx.shared.clone()
    }

    /// `window/workDoneProgress/cancel`: cancels the job that owns the token.
    pub async fn work_done_progress_cancel(&self, params: WorkDoneProgressCancelParams) {
        let token = match &params.token {
            NumberOrString::String(s) => s.clone(),
            NumberOrString::Number(n) => n.to_string(),
        };
        for d in self.ctx.state().docs.values() {
            if let Some(j) = &d.job {
                if j.token.as_deref() == Some(token.as_str()) {
                    j.cancel();
                }
            }
        }
    }

    /// Runs a pure request function on a snapshot of the document at `uri`.
    fn read<T>(&self, uri: &Uri, f: impl FnOnce(&Snapshot<'_>) -> Option<T>) -> Result<Option<T>> {
        self.ctx.read(uri, f)
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let caps = &params.capabilities;
        let utf8 = caps
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref())
            .is_some_and(|e| e.contains(&PositionEncodingKind::UTF8));
        let ws = caps.workspace.as_ref();
        let client = ClientCaps {
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
        {
            let mut st = self.ctx.state();
            st.enc = if utf8 {
                Encoding::Utf8
            } else {
                Encoding::Utf16
            };
            st.caps = client;
            if let Some(opts) = &params.initialization_options {
                let warnings = st.settings.merge(opts);
                // Shown once the client is initialized (no notification may precede the answer).
                st.init_warnings.extend(warnings);
            }
        }
        super::cat::initialize(&self.ctx, &params);
        let mut r = to_proto::initialize_result(utf8);
        super::cat::capabilities(&mut r);
        Ok(r)
    }

    async fn initialized(&self, _: InitializedParams) {
        let warnings = std::mem::take(&mut self.ctx.state().init_warnings);
        self.ctx.warn_settings(warnings).await;
        self.ctx.fetch_configuration().await;
        cat::settings_changed(&self.ctx).await;
    }

    async fn shutdown(&self) -> Result<()> {
        self.ctx.shared.cancel_all();
        Ok(())
    }

    async fn did_open(&self, p: DidOpenTextDocumentParams) {
        if cat::is_cat(&p.text_document.uri) {
            return cat::did_open(&self.ctx, p).await;
        }
        let uri = p.text_document.uri;
        cat::values::touch(&self.ctx, &uri);
        let deferred = {
            let mut st = self.ctx.state();
            let doc = Document::new(p.text_document.text, p.text_document.version);
            if let Some(mut old) = st.docs.insert(uri.clone(), doc) {
                old.stop_parse();
                if let Some(j) = old.job {
                    j.cancel();
                }
            }
            let d = st.docs.get_mut(&uri).expect("just inserted");
            match d.reparse(&*self.ctx.shared.engine) {
                Reparse::Done(_) => None,
                Reparse::Deferred(p) => Some(p),
            }
        };
        if let Some(p) = deferred {
            // A long text: parsed off the loop, then published and checked.
            edit::spawn_parse(&self.ctx, &uri, p, true);
            return;
        }
        self.ctx.publish(&uri).await;
        verify::start(&self.ctx, &uri).await;
    }

    async fn did_change(&self, p: DidChangeTextDocumentParams) {
        if cat::is_cat(&p.text_document.uri) {
            return cat::did_change(&self.ctx, p).await;
        }
        let uri = p.text_document.uri;
        cat::values::touch(&self.ctx, &uri);
        let version = p.text_document.version;
        let (edit, deferred) = {
            let mut st = self.ctx.state();
            let enc = st.enc;
            let Some(d) = st.docs.get_mut(&uri) else {
                return;
            };
            if version <= d.version {
                // An out-of-date change (the client resent or reordered): ignore it.
                return;
            }
            for ch in &p.content_changes {
                d.apply(enc, ch);
            }
            d.version = version;
            edit::after_edit(&*self.ctx.shared.engine, d)
        };
        // The status bar follows the lenses: results dropped (and a check cancelled with
        // them) are said at once, as `cancelled` with the verdicts left (none).
        if edit != edit::AfterEdit::Kept {
            self.ctx.send_status(&uri, "cancelled").await;
        }
        if let Some(p) = deferred {
            // A long text: parsed off the loop, then published (and checked).
            edit::spawn_parse(&self.ctx, &uri, p, false);
            return;
        }
        let ctx = self.ctx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(SYNTAX_DEBOUNCE).await;
            if ctx.version(&uri) == Some(version) {
                ctx.publish(&uri).await;
                ctx.refresh_views().await;
            }
            if ctx.settings().verify_on_change {
                tokio::time::sleep(VERIFY_DEBOUNCE).await;
                if ctx.version(&uri) == Some(version) {
                    verify::start(&ctx, &uri).await;
                }
            }
        });
    }

    async fn did_save(&self, p: DidSaveTextDocumentParams) {
        if cat::is_cat(&p.text_document.uri) {
            return cat::did_save(&self.ctx, p).await;
        }
        cat::values::touch(&self.ctx, &p.text_document.uri);
        let s = self.ctx.settings();
        if s.unbounded_on_save {
            verify::start_unbounded(&self.ctx, &p.text_document.uri).await;
        } else if s.verify_on_save {
            verify::start(&self.ctx, &p.text_document.uri).await;
        }
    }

    async fn did_close(&self, p: DidCloseTextDocumentParams) {
        if cat::is_cat(&p.text_document.uri) {
            return cat::did_close(&self.ctx, p).await;
        }
        let uri = p.text_document.uri;
        let removed = self.ctx.state().docs.remove(&uri);
        if let Some(mut d) = removed {
            d.stop_parse();
            if let Some(j) = d.job {
                j.cancel();
            }
        }
        self.ctx.client.publish_diagnostics(uri, vec![], None).await;
    }

    async fn did_change_configuration(&self, p: DidChangeConfigurationParams) {
        cat::settings::pushed(&self.ctx, &p.settings);
        let has_section = p.settings.get("litmus").is_some()
            || p.settings
                .as_object()
                .is_some_and(|o| o.keys().any(|k| k.starts_with("litmus.")));
        if has_section {
            let warnings = self.ctx.merge_settings(&p.settings);
            self.ctx.warn_settings(warnings).await;
        } else {
            self.ctx.fetch_configuration().await;
        }
        let limit = self
            .ctx
            .settings()
            .max_jobs
            .unwrap_or_else(queue::default_limit);
        self.ctx.shared.pool.set_limit(limit);
        cat::settings_changed(&self.ctx).await;
        let uris: Vec<Uri> = self.ctx.state().docs.keys().cloned().collect();
        for u in uris {
            verify::start(&self.ctx, &u).await;
        }
    }

    async fn hover(&self, p: HoverParams) -> Result<Option<Hover>> {
        if cat::is_cat(&p.text_document_position_params.text_document.uri) {
            return cat::hover(&self.ctx, p);
        }
        cat::values::touch(
            &self.ctx,
            &p.text_document_position_params.text_document.uri,
        );
        let pos = p.text_document_position_params.position;
        self.read(&p.text_document_position_params.text_document.uri, |s| {
            hover::hover(s, pos)
        })
    }

    async fn code_action(&self, p: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        super::fences::code_actions(&self.ctx, p).await
    }

    async fn code_lens(&self, p: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        self.read(&p.text_document.uri, requests::code_lenses)
    }

    async fn execute_command(&self, p: ExecuteCommandParams) -> Result<Option<Value>> {
        match p.command.as_str() {
            cat::WRITE_MODEL => cat::write_model(&p.arguments),
            "litmus.verify" => {
                let uri = arg_uri(&p.arguments)?;
                verify::start_forced(&self.ctx, &uri).await;
                Ok(None)
            }
            super::unbounded::COMMAND => {
                let uri = arg_uri(&p.arguments)?;
                verify::start_unbounded(&self.ctx, &uri).await;
                Ok(None)
            }
            "litmus.cancel" => {
                // Stops the document's check; what it found stays, marked incomplete.
                let uri = arg_uri(&p.arguments)?;
                if let Some(j) = self.ctx.state().docs.get(&uri).and_then(|d| d.job.as_ref()) {
                    j.cancel();
                }
                Ok(None)
            }
            "litmus.showSchedule" => {
                let uri = arg_uri(&p.arguments)?;
                let line = p.arguments.get(1).and_then(Value::as_u64);
                let ch = p.arguments.get(2).and_then(Value::as_u64);
                let at = line.zip(ch).map(|(l, c)| Position::new(l as u32, c as u32));
                // A per-model lens names its model: that model's counterexample.
                let model = p
                    .arguments
                    .get(3)
                    .and_then(Value::as_str)
                    .and_then(litmus_engine::Model::parse);
                let r = self.read(&uri, |s| requests::show_schedule(s, at, model))?;
                Ok(Some(r.unwrap_or(Value::Null)))
            }
            other => Err(Error::invalid_params(format!("unknown command {other}"))),
        }
    }

    async fn inlay_hint(&self, p: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        self.read(&p.text_document.uri, |s| requests::inlay_hints(s, p.range))
    }

    async fn document_symbol(
        &self,
        p: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        if cat::is_cat(&p.text_document.uri) {
            return cat::symbols(&self.ctx, p);
        }
        self.read(&p.text_document.uri, requests::document_symbols)
    }

    async fn goto_definition(
        &self,
        p: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        if cat::is_cat(&p.text_document_position_params.text_document.uri) {
            return cat::definition(&self.ctx, p);
        }
        let pos = p.text_document_position_params.position;
        self.read(&p.text_document_position_params.text_document.uri, |s| {
            requests::definition(s, pos)
        })
    }

    async fn references(&self, p: ReferenceParams) -> Result<Option<Vec<Location>>> {
        if cat::is_cat(&p.text_document_position.text_document.uri) {
            return cat::references(&self.ctx, p);
        }
        let pos = p.text_document_position.position;
        let include_decl = p.context.include_declaration;
        self.read(&p.text_document_position.text_document.uri, |s| {
            requests::references(s, pos, include_decl)
        })
    }

    async fn semantic_tokens_full(
        &self,
        p: SemanticTokensParams,
    ) -> Result<Option<SemanticTokensResult>> {
        if cat::is_cat(&p.text_document.uri) {
            return cat::semantic_tokens(&self.ctx, p);
        }
        self.read(&p.text_document.uri, requests::semantic_tokens)
    }

    async fn prepare_rename(
        &self,
        p: TextDocumentPositionParams,
    ) -> Result<Option<PrepareRenameResponse>> {
        if cat::is_cat(&p.text_document.uri) {
            return cat::prepare_rename(&self.ctx, p);
        }
        let r = self.read(&p.text_document.uri, |s| {
            Some(rename::prepare(s, p.position))
        })?;
        refused(r)
    }

    async fn rename(&self, p: RenameParams) -> Result<Option<WorkspaceEdit>> {
        if cat::is_cat(&p.text_document_position.text_document.uri) {
            return cat::rename(&self.ctx, p);
        }
        let tp = &p.text_document_position;
        let r = self.read(&tp.text_document.uri, |s| {
            Some(rename::rename(s, tp.position, &p.new_name))
        })?;
        refused(r)
    }

    async fn completion(&self, p: CompletionParams) -> Result<Option<CompletionResponse>> {
        let tp = &p.text_document_position;
        if cat::is_cat(&tp.text_document.uri) {
            return Ok(None);
        }
        self.read(&tp.text_document.uri, |s| {
            complete::completion(s, tp.position)
        })
    }

    async fn document_highlight(
        &self,
        p: DocumentHighlightParams,
    ) -> Result<Option<Vec<DocumentHighlight>>> {
        let tp = &p.text_document_position_params;
        if cat::is_cat(&tp.text_document.uri) {
            return Ok(None);
        }
        self.read(&tp.text_document.uri, |s| {
            doc_highlight::highlights(s, tp.position)
        })
    }

    async fn formatting(&self, p: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>> {
        if cat::is_cat(&p.text_document.uri) {
            return Ok(None);
        }
        self.read(&p.text_document.uri, format::formatting)
    }

    async fn symbol(&self, p: WorkspaceSymbolParams) -> Result<Option<WorkspaceSymbolResponse>> {
        let roots = crate::server::util::lock(&self.ctx.shared.cat.roots).clone();
        let (mut out, open) = {
            let st = self.ctx.state();
            guard(|| wsymbols::open_symbols(&st, &p.query))?
        };
        let query = p.query.clone();
        let files =
            tokio::task::spawn_blocking(move || wsymbols::file_symbols(&open, &roots, &query))
                .await
                .unwrap_or_default();
        out.extend(files);
        Ok(Some(WorkspaceSymbolResponse::Flat(out)))
    }
}

/// A request's answer, or its refusal as an `invalid params` error with the reason.
fn refused<T>(r: Option<std::result::Result<Option<T>, String>>) -> Result<Option<T>> {
    match r {
        None => Ok(None),
        Some(Ok(v)) => Ok(v),
        Some(Err(m)) => Err(Error::invalid_params(m)),
    }
}

fn arg_uri(args: &[Value]) -> Result<Uri> {
    args.first()
        .and_then(Value::as_str)
        .and_then(|s| s.parse::<Uri>().ok())
        .ok_or_else(|| Error::invalid_params("expected a document URI as the first argument"))
}
