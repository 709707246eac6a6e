//! What a model change changes (`docs/models.md#what-a-change-changes`): when a cat file is
//! saved, the workspace's AArch64, RISC-V and x86 tests are checked in the background, on every
//! core, under the model as it was when the editor opened the file and as it is now, and the
//! tests whose verdict differs are sent in a `litmus/modelChanges` notification. Per workspace
//! folder, the model is the folder's setting `litmus.modelPath` (asked with the folder's
//! `scopeUri`, relative to it) when it names the saved file or a model that includes it, else
//! the saved file itself; each folder's tests are checked under its own model, its includes
//! looked for through the folder's `litmus.includePath` (`super::settings`). The comparison is
//! `catmodel::diff::compare`, the function behind `litmus diff`, so the two lists agree. A
//! newer save stops an older recheck. The model as it was is written out as read-only files
//! (`super::snapshot`) so that its checks have a place to link to.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use serde_json::{json, Value};
use tower_lsp_server::ls_types::*;

use super::index::Index;
use super::settings;
use crate::catmodel::{diff, load};
use crate::server::catdoc::{path_of, uri_of, Compared};
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

/// One model to recheck: its file, the folders whose tests it checks, and the folders its
/// includes are looked for in after its own (the include path of the first of those workspace
/// folders, then the workspace folders).
struct Group {
    model: PathBuf,
    tests: Vec<PathBuf>,
    search: Vec<PathBuf>,
}

/// The models to recheck when `saved` is saved: per workspace folder its setting, else the
/// saved file; only the models that are the saved file or include it (through the folder's
/// include path too). Without folders, the saved file's folder.
async fn groups(ctx: &Ctx, roots: &[PathBuf], saved: &Path) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    let folders: Vec<Option<&PathBuf>> = if roots.is_empty() {
        vec![None]
    } else {
        roots.iter().map(Some).collect()
    };
    for f in folders {
        let set = settings::of_folder(ctx, f.map(PathBuf::as_path)).await;
        let model = set.model.unwrap_or_else(|| saved.to_path_buf());
        let tests = match f {
            Some(r) => r.clone(),
            None => match saved.parent() {
                Some(p) => p.to_path_buf(),
                None => continue,
            },
        };
        let mut search = set.include;
        search.extend(roots.iter().cloned());
        match out
            .iter_mut()
            .find(|g| g.model == model && g.search == search)
        {
            Some(g) => g.tests.push(tests),
            None => out.push(Group {
                model,
                tests: vec![tests],
                search,
            }),
        }
    }
    let store = &ctx.shared.cat;
    let docs = lock(&store.docs);
    out.retain(|g| {
        let ix = Index::new(&docs, &g.search);
        g.model == saved
            || ix
                .file(&g.model)
                .is_some_and(|m| ix.included(&m).iter().any(|f| f.path == saved))
    });
    out
}

pub async fn start(ctx: &Ctx, uri: &Uri) {
    let store = &ctx.shared.cat;
    let generation = store.generation.fetch_add(1, Ordering::SeqCst) + 1;
    let Some(saved) = path_of(uri) else { return };
    if !saved.extension().is_some_and(|e| e == "cat" || e == "bell") {
        return;
    }
    let roots = lock(&store.roots).clone();
    let (now, baseline) = {
        let docs = lock(&store.docs);
        let now = docs.get(uri).map(|d| d.text.as_str().to_string());
        (now, lock(&store.saved).get(uri).cloned())
    };
    let (Some(now), Some(baseline)) = (now, baseline) else {
        return;
    };
    let groups = groups(ctx, &roots, &saved).await;
    if groups.is_empty() {
        return;
    }
    let ctx2 = ctx.clone();
    let result = tokio::task::spawn_blocking(move || {
        let stop = || ctx2.shared.cat.generation.load(Ordering::SeqCst) != generation;
        let mut all = Vec::new();
        for Group {
            model,
            tests,
            search,
        } in groups
        {
            let text_of = |over: &str| -> Result<Loaded, load::LoadError> {
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
                let (m, read) = load::load_read(&model, &text, &search, &o)?;
                Ok((m, text, read))
            };
            let (before, old_text, old_files) =
                text_of(&baseline).map_err(|e| format!("the model as opened: {e}"))?;
            let (after, _, _) = text_of(&now).map_err(|e| e.to_string())?;
            if let Some(u) = uri_of(&model) {
                let both = Compared {
                    before_file: super::snapshot::write(&model, &old_text, &old_files),
                    path: model.clone(),
                    search: search.clone(),
                    before: Arc::new(before.clone()),
                    after: Arc::new(after.clone()),
                };
                lock(&ctx2.shared.cat.compared).insert(u.as_str().to_string(), both);
            }
            let files: Vec<(String, Result<String, String>)> = tests_under(&tests)
                .into_iter()
                .filter_map(|p| {
                    let t = std::fs::read_to_string(&p).ok()?;
                    Some((p.display().to_string(), Ok(t)))
                })
                .collect();
            let rows = diff::compare(&files, &before, &after, diff::cores(), &stop);
            all.push((model, rows));
        }
        Ok::<_, String>((all, stop()))
    })
    .await;
    let params = match result {
        Err(_) => return,
        Ok(Err(e)) => json!({"model": uri.as_str(), "saved": uri.as_str(), "error": e}),
        Ok(Ok((_, true))) => return,
        Ok(Ok((all, false))) => notification(uri, &all),
    };
    ctx.client.send_notification::<ModelChanges>(params).await;
}

/// A model loaded: it, its text, and the files its includes read (`load::load_read`).
type Loaded = (litmus_engine::cat::Model, String, Vec<load::Read>);

/// The `litmus/modelChanges` params: every model's changed tests, each entry with its model
/// (`model`: the first model, for a client that reads one).
fn notification(saved: &Uri, all: &[(PathBuf, Vec<diff::Row>)]) -> Value {
    let model_uri = |m: &Path| uri_of(m).map(|u| u.as_str().to_string());
    let mut checked = 0;
    let mut changed: Vec<Value> = Vec::new();
    for (model, rows) in all {
        checked += rows
            .iter()
            .filter(|r| matches!(r, diff::Row::Checked { .. }))
            .count();
        changed.extend(rows.iter().filter(|r| r.changed()).filter_map(|r| match r {
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
                "model": model_uri(model),
                "views": super::under::views(
                    uri_of(Path::new(path)).as_ref().map(|u| u.as_str()),
                    model_uri(model).as_deref(),
                ),
            })),
            _ => None,
        }));
    }
    json!({
        "model": all.first().and_then(|(m, _)| model_uri(m)),
        "saved": saved.as_str(),
        "checked": checked,
        "changed": changed,
    })
}
