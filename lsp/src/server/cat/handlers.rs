//! The handlers for cat files, called by [`crate::server::backend`] for a URI that
//! [`is_cat`](super::is_cat): documents kept in the [`Store`](super::Store), answers computed
//! by [`features`](super::features) under the store's lock (never across an `.await`).

use std::sync::Arc;

use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use super::features;
use super::index::{File, Index, Target};
use crate::server::catdoc::{path_of, CatDoc};
use crate::server::ctx::Ctx;
use crate::server::position::{self, Encoding};
use crate::server::util::lock;

/// The command that writes out a built-in model: arguments `[name, folder]`; answers the paths
/// written.
pub const WRITE_MODEL: &str = "litmus.writeModel";

/// Adds what the cat side serves to the server's capabilities: rename, the write-out command.
pub fn capabilities(r: &mut InitializeResult) {
    r.capabilities.rename_provider = Some(OneOf::Right(RenameOptions {
        prepare_provider: Some(true),
        work_done_progress_options: Default::default(),
    }));
    if let Some(c) = &mut r.capabilities.execute_command_provider {
        c.commands.push(WRITE_MODEL.into());
    }
}

/// Remembers the workspace folders (where includes and tests are looked for).
#[allow(deprecated)] // root_uri: the fallback of clients without workspace folders
pub fn initialize(ctx: &Ctx, p: &InitializeParams) {
    let mut roots: Vec<_> = p
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|w| path_of(&w.uri))
        .collect();
    if roots.is_empty() {
        roots.extend(p.root_uri.as_ref().and_then(path_of));
    }
    *lock(&ctx.shared.cat.roots) = roots;
    if let Some(v) = &p.initialization_options {
        super::settings::pushed(ctx, v);
    }
    super::settings::keep_pushed_include_paths(ctx);
}

fn enc(ctx: &Ctx) -> Encoding {
    ctx.state().enc
}

/// Runs `f` on the open document `uri` with an index of the files around it.
fn with<T>(
    ctx: &Ctx,
    uri: &Uri,
    f: impl FnOnce(&Index, &Arc<File>, Encoding) -> Option<T>,
) -> Result<Option<T>> {
    let enc = enc(ctx);
    let store = &ctx.shared.cat;
    let search = store.search(path_of(uri).as_deref());
    let docs = lock(&store.docs);
    let ix = Index::new(&docs, &search);
    let Some(file) = ix.doc(uri) else {
        return Ok(None);
    };
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(&ix, &file, enc))).map_err(|e| {
        let mut err = Error::internal_error();
        err.message = format!(
            "internal error: {}",
            crate::server::util::panic_message(&*e)
        )
        .into();
        err
    })
}

async fn publish(ctx: &Ctx, uri: &Uri) {
    let version = lock(&ctx.shared.cat.docs).get(uri).map(|d| d.version);
    let diags = with(ctx, uri, |ix, f, enc| {
        Some(features::diagnostics(ix, f, enc))
    });
    if let Ok(Some(d)) = diags {
        ctx.client
            .publish_diagnostics(uri.clone(), d, version)
            .await;
    }
}

/// Republishes every open cat file (one changed, and others may include it).
async fn publish_all(ctx: &Ctx) {
    let uris: Vec<Uri> = lock(&ctx.shared.cat.docs).keys().cloned().collect();
    for u in uris {
        publish(ctx, &u).await;
    }
}

/// Asks every workspace folder's `litmus.includePath` again (the client is initialized, or its
/// configuration changed) and publishes the open cat files' diagnostics with it.
pub async fn settings_changed(ctx: &Ctx) {
    super::settings::fetch_include_paths(ctx).await;
    publish_all(ctx).await;
}

pub async fn did_open(ctx: &Ctx, p: DidOpenTextDocumentParams) {
    let uri = p.text_document.uri;
    lock(&ctx.shared.cat.saved)
        .entry(uri.clone())
        .or_insert_with(|| p.text_document.text.clone());
    let doc = CatDoc::new(p.text_document.text, p.text_document.version);
    lock(&ctx.shared.cat.docs).insert(uri, doc);
    publish_all(ctx).await;
}

pub async fn did_change(ctx: &Ctx, p: DidChangeTextDocumentParams) {
    let uri = p.text_document.uri;
    let enc = enc(ctx);
    {
        let mut docs = lock(&ctx.shared.cat.docs);
        let Some(d) = docs.get_mut(&uri) else { return };
        if p.text_document.version <= d.version {
            return;
        }
        let mut rope = d.rope.clone();
        for ch in &p.content_changes {
            match ch.range {
                None => rope = ropey::Rope::from_str(&ch.text),
                Some(r) => {
                    let start = position::offset(&rope, enc, r.start);
                    let end = position::offset(&rope, enc, r.end).max(start);
                    let (sc, ec) = (rope.byte_to_char(start), rope.byte_to_char(end));
                    rope.remove(sc..ec);
                    rope.insert(sc, &ch.text);
                }
            }
        }
        *d = CatDoc::new(rope.to_string(), p.text_document.version);
    }
    publish_all(ctx).await;
}

pub async fn did_save(ctx: &Ctx, p: DidSaveTextDocumentParams) {
    // a C test's model may include the saved file: read the models again when next needed
    ctx.shared.cmodels.forget();
    super::recheck::start(ctx, &p.text_document.uri).await;
}

pub async fn did_close(ctx: &Ctx, p: DidCloseTextDocumentParams) {
    let uri = p.text_document.uri;
    lock(&ctx.shared.cat.docs).remove(&uri);
    ctx.client.publish_diagnostics(uri, vec![], None).await;
    publish_all(ctx).await;
}

fn at(f: &File, enc: Encoding, pos: Position) -> usize {
    features::offset(f, enc, pos)
}

pub fn hover(ctx: &Ctx, p: HoverParams) -> Result<Option<Hover>> {
    let tp = p.text_document_position_params;
    let found = with(ctx, &tp.text_document.uri, |ix, f, enc| {
        let at = at(f, enc, tp.position);
        // a name of the model (not a local binding): its value in the execution on view
        let name = ix.at(f, at).and_then(|(span, t)| match t {
            Target::Def(g, k) if g.outline.defs[k].is_local() => None,
            Target::Unknown => None,
            _ => Some(f.text[span.range()].to_string()),
        });
        let file = (f.path.clone(), f.text.to_string());
        Some((features::hover(ix, f, enc, at), name, file))
    })?;
    let Some((hover, name, (path, text))) = found else {
        return Ok(None);
    };
    let extra = name.and_then(|n| {
        let view = super::values::active_view(ctx)?;
        let search = ctx.shared.cat.search(Some(&path));
        let own = super::values::evaluated(&view, &path, &text, &search);
        let file = path
            .file_name()
            .map_or(String::new(), |f| f.to_string_lossy().into_owned());
        super::values::paragraph(&view, &n, own.as_deref().map(|v| (file.as_str(), v)))
    });
    Ok(match (hover, extra) {
        (Some(mut h), Some(x)) => {
            if let HoverContents::Markup(m) = &mut h.contents {
                m.value = format!("{x}\n\n---\n\n{}", m.value);
            }
            Some(h)
        }
        (h, _) => h,
    })
}

pub fn definition(ctx: &Ctx, p: GotoDefinitionParams) -> Result<Option<GotoDefinitionResponse>> {
    let tp = p.text_document_position_params;
    with(ctx, &tp.text_document.uri, |ix, f, enc| {
        features::definition(ix, f, enc, at(f, enc, tp.position))
            .map(GotoDefinitionResponse::Scalar)
    })
}

pub fn references(ctx: &Ctx, p: ReferenceParams) -> Result<Option<Vec<Location>>> {
    let tp = p.text_document_position;
    with(ctx, &tp.text_document.uri, |ix, f, enc| {
        features::references(
            ix,
            f,
            enc,
            at(f, enc, tp.position),
            p.context.include_declaration,
        )
    })
}

pub fn symbols(ctx: &Ctx, p: DocumentSymbolParams) -> Result<Option<DocumentSymbolResponse>> {
    with(ctx, &p.text_document.uri, |_, f, enc| {
        Some(DocumentSymbolResponse::Nested(features::symbols(f, enc)))
    })
}

pub fn semantic_tokens(ctx: &Ctx, p: SemanticTokensParams) -> Result<Option<SemanticTokensResult>> {
    with(ctx, &p.text_document.uri, |ix, f, enc| {
        Some(SemanticTokensResult::Tokens(SemanticTokens {
            result_id: None,
            data: features::semantic_tokens(ix, f, enc),
        }))
    })
}

pub fn prepare_rename(
    ctx: &Ctx,
    p: TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>> {
    with(ctx, &p.text_document.uri, |ix, f, enc| {
        features::prepare_rename(ix, f, enc, at(f, enc, p.position))
            .map(PrepareRenameResponse::Range)
    })
}

pub fn rename(ctx: &Ctx, p: RenameParams) -> Result<Option<WorkspaceEdit>> {
    let tp = p.text_document_position;
    let r = with(ctx, &tp.text_document.uri, |ix, f, enc| {
        Some(features::rename(
            ix,
            f,
            enc,
            at(f, enc, tp.position),
            &p.new_name,
        ))
    })?;
    match r {
        None => Ok(None),
        Some(Ok(e)) => Ok(e),
        Some(Err(m)) => Err(Error::invalid_params(m)),
    }
}

/// `litmus.writeModel [name, folder]`: the built-in model and the library files it needs
/// written into the folder; answers the paths.
pub fn write_model(args: &[Value]) -> Result<Option<Value>> {
    let name = args.first().and_then(Value::as_str);
    let dir = args.get(1).and_then(Value::as_str);
    let (Some(name), Some(dir)) = (name, dir) else {
        return Err(Error::invalid_params("expected a model name and a folder"));
    };
    let dir = dir
        .parse::<Uri>()
        .ok()
        .and_then(|u| path_of(&u))
        .unwrap_or_else(|| std::path::PathBuf::from(dir));
    match crate::catmodel::builtin::write(name, &dir, false) {
        Ok(files) => Ok(Some(Value::from(
            files
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>(),
        ))),
        Err(e) => Err(Error::invalid_params(e)),
    }
}
