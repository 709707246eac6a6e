//! What a model change changes (`docs/models.md#what-a-change-changes`): when a cat file is
//! saved, the workspace's AArch64, RISC-V and x86 tests are checked in the background, on every
//! core, under the model as it was when the editor opened the file and as it is now, and the
//! tests whose verdict differs are sent in a `litmus/modelChanges` notification. The model is
//! the setting `litmus.modelPath` (relative to the first workspace folder) when it names the
//! saved file or a model that includes it, else the saved file itself. The comparison is
//! `catmodel::diff::compare`, the function behind `litmus diff`, so the two lists agree. A
//! newer save stops an older recheck.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use serde_json::{json, Value};
use tower_lsp_server::ls_types::*;

use super::index::Index;
use crate::catmodel::{diff, load};
use crate::server::catdoc::{path_of, uri_of};
use crate::server::ctx::Ctx;
use crate::server::util::lock;

pub const METHOD: &str = "litmus/modelChanges";

pub enum ModelChanges {}
impl notification::Notification for ModelChanges {
    type Params = Value;
    const METHOD: &'static str = METHOD;
}

/// The `.litmus` files under `roots` (not under `target`, `node_modules` or hidden folders),
/// sorted.
fn tests_under(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo: Vec<PathBuf> = roots.to_vec();
    while let Some(d) = todo.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                if !name.starts_with('.') && name != "target" && name != "node_modules" {
                    todo.push(p);
                }
            } else if name.ends_with(".litmus") {
                out.push(p);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

pub async fn model_path(ctx: &Ctx, roots: &[PathBuf]) -> Option<PathBuf> {
    if !ctx.caps().configuration {
        return None;
    }
    let item = ConfigurationItem {
        scope_uri: None,
        section: Some("litmus".into()),
    };
    let v = ctx.client.configuration(vec![item]).await.ok()?;
    let p = v.first()?.get("modelPath")?.as_str()?;
    if p.is_empty() {
        return None;
    }
    let p = Path::new(p);
    Some(match roots.first() {
        Some(r) if p.is_relative() => r.join(p),
        _ => p.to_path_buf(),
    })
}

pub async fn start(ctx: &Ctx, uri: &Uri) {
    let store = &ctx.shared.cat;
    let generation = store.generation.fetch_add(1, Ordering::SeqCst) + 1;
    let Some(saved) = path_of(uri) else { return };
    let roots = lock(&store.roots).clone();
    let setting = model_path(ctx, &roots).await;
    let model = setting.clone().unwrap_or_else(|| saved.clone());
    let (now, baseline) = {
        let docs = lock(&store.docs);
        let now = docs.get(uri).map(|d| d.text.as_str().to_string());
        (now, lock(&store.saved).get(uri).cloned())
    };
    let (Some(now), Some(baseline)) = (now, baseline) else {
        return;
    };
    // Does the model use the saved file?
    let uses = model == saved || {
        let docs = lock(&store.docs);
        let ix = Index::new(&docs, &roots);
        ix.file(&model)
            .is_some_and(|m| ix.related(&[m]).iter().any(|f| f.path == saved))
    };
    if !uses || !saved.extension().is_some_and(|e| e == "cat" || e == "bell") {
        return;
    }
    let ctx2 = ctx.clone();
    let search = if roots.is_empty() {
        saved.parent().map(Path::to_path_buf).into_iter().collect()
    } else {
        roots.clone()
    };
    let include_path = roots.clone();
    let result = tokio::task::spawn_blocking(move || {
        let stop = || ctx2.shared.cat.generation.load(Ordering::SeqCst) != generation;
        let text_of = |over: &str| -> Result<litmus_engine::cat::Model, load::LoadError> {
            let mut o = HashMap::new();
            o.insert(saved.clone(), over.to_string());
            let text = if model == saved {
                over.to_string()
            } else {
                std::fs::read_to_string(&model).map_err(|e| load::LoadError {
                    path: model.display().to_string(),
                    line: 0,
                    col: 0,
                    message: e.to_string(),
                })?
            };
            load::load_with(&model, &text, &include_path, &o)
        };
        let before = text_of(&baseline).map_err(|e| format!("the model as opened: {e}"))?;
        let after = text_of(&now).map_err(|e| e.to_string())?;
        let files: Vec<(String, Result<String, String>)> = tests_under(&search)
            .into_iter()
            .filter_map(|p| {
                let t = std::fs::read_to_string(&p).ok()?;
                Some((p.display().to_string(), Ok(t)))
            })
            .collect();
        let rows = diff::compare(&files, &before, &after, diff::cores(), &stop);
        Ok::<_, String>((model, rows, stop()))
    })
    .await;
    let params = match result {
        Err(_) => return,
        Ok(Err(e)) => json!({"model": uri.as_str(), "saved": uri.as_str(), "error": e}),
        Ok(Ok((_, _, true))) => return,
        Ok(Ok((model, rows, false))) => {
            let checked = rows
                .iter()
                .filter(|r| matches!(r, diff::Row::Checked { .. }))
                .count();
            let changed: Vec<Value> = rows
                .iter()
                .filter(|r| r.changed())
                .filter_map(|r| match r {
                    diff::Row::Checked {
                        path,
                        name,
                        before,
                        after,
                    } => Some(json!({
                        "uri": uri_of(Path::new(path)).map(|u| u.as_str().to_string()),
                        "file": path,
                        "test": name,
                        "before": before.word(),
                        "after": after.word(),
                    })),
                    _ => None,
                })
                .collect();
            json!({
                "model": uri_of(&model).map(|u| u.as_str().to_string()),
                "saved": uri.as_str(),
                "checked": checked,
                "changed": changed,
            })
        }
    };
    ctx.client.send_notification::<ModelChanges>(params).await;
}
