//! The cat side's settings, per workspace folder (`docs/models.md#model-per-folder`): asked with
//! `workspace/configuration` and the folder's `scopeUri`, so that each folder of a multi-root
//! workspace has its own. `litmus.modelPath`, the model of the folder's tests (asked when it is
//! needed: a save, a C test's check); `litmus.includePath`, the folders an `include` is looked
//! for in after the including file's own (as `litmus diff -I`), kept in the store
//! (`catdoc::Store::include`) since the cat requests that resolve includes answer at once, and
//! asked again when the configuration changes. A relative path is relative to its folder. A
//! client that cannot be asked (no `workspace/configuration`: Neovim 0.7) gives every folder
//! the settings it sent (`initializationOptions`, `workspace/didChangeConfiguration`).

use std::path::{Component, Path, PathBuf};

use serde_json::Value;
use tower_lsp_server::ls_types::ConfigurationItem;

use crate::server::catdoc::{folder_of, uri_of};
use crate::server::ctx::Ctx;
use crate::server::util::lock;

/// One workspace folder's settings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Folder {
    /// `litmus.modelPath`: `None` when unset.
    pub model: Option<PathBuf>,
    /// `litmus.includePath`, in order.
    pub include: Vec<PathBuf>,
}

/// `p` with its `.` and `..` components taken out (without reading the disk), so that a file
/// found through `../lib` is the file a save names.
fn normal(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// The settings in `v` (the `litmus` section) of the folder `folder`: relative paths joined to
/// it. `includePath` is a list of folders (a single string is taken as a list of one); empty
/// strings and other values are left out.
pub fn read(v: &Value, folder: Option<&Path>) -> Folder {
    let abs = |p: &str| {
        let p = Path::new(p);
        normal(&match folder {
            Some(r) if p.is_relative() => r.join(p),
            _ => p.to_path_buf(),
        })
    };
    let model = v
        .get("modelPath")
        .and_then(Value::as_str)
        .filter(|p| !p.is_empty())
        .map(abs);
    let include = match v.get("includePath") {
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        Some(Value::String(s)) => vec![s.as_str()],
        _ => vec![],
    };
    let include = include
        .into_iter()
        .filter(|p| !p.is_empty())
        .map(abs)
        .collect();
    Folder { model, include }
}

/// Keeps the `litmus` settings in `v` (`initializationOptions`: the section itself; a
/// `workspace/didChangeConfiguration`'s `settings`: `{"litmus": {...}}` or dotted keys), for a
/// client that cannot be asked.
pub fn pushed(ctx: &Ctx, v: &Value) {
    let Some(obj) = v.as_object() else { return };
    let mut kept = lock(&ctx.shared.cat.pushed);
    if let Some(Value::Object(inner)) = obj.get("litmus") {
        kept.extend(inner.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    for (k, v) in obj {
        match k.strip_prefix("litmus.") {
            Some(short) => kept.insert(short.to_string(), v.clone()),
            None if k != "litmus" => kept.insert(k.clone(), v.clone()),
            None => None,
        };
    }
}

/// The settings of the workspace folder `folder`: asked, or when the client has no
/// configuration those it sent ([`pushed`]).
pub async fn of_folder(ctx: &Ctx, folder: Option<&Path>) -> Folder {
    if !ctx.caps().configuration {
        let v = Value::Object(lock(&ctx.shared.cat.pushed).clone());
        return read(&v, folder);
    }
    let item = ConfigurationItem {
        scope_uri: folder.and_then(uri_of),
        section: Some("litmus".into()),
    };
    match ctx.client.configuration(vec![item]).await {
        Ok(v) => v.first().map(|v| read(v, folder)).unwrap_or_default(),
        Err(_) => Folder::default(),
    }
}

/// The settings for the file at `path`: its workspace folder's.
pub async fn of_file(ctx: &Ctx, path: Option<&Path>) -> Folder {
    let roots = lock(&ctx.shared.cat.roots).clone();
    of_folder(ctx, folder_of(&roots, path).map(PathBuf::as_path)).await
}

/// The workspace folders, or one `None` without any.
fn folders(roots: &[PathBuf]) -> Vec<Option<&Path>> {
    if roots.is_empty() {
        vec![None]
    } else {
        roots.iter().map(|r| Some(r.as_path())).collect()
    }
}

/// Keeps every workspace folder's `includePath` from the settings the client sent: at
/// `initialize`, before any request, so that a client that cannot be asked has it at once
/// (one that can is asked when initialized, [`fetch_include_paths`]).
pub fn keep_pushed_include_paths(ctx: &Ctx) {
    let roots = lock(&ctx.shared.cat.roots).clone();
    let v = Value::Object(lock(&ctx.shared.cat.pushed).clone());
    let all = folders(&roots)
        .into_iter()
        .map(|f| {
            (
                f.map(Path::to_path_buf).unwrap_or_default(),
                read(&v, f).include,
            )
        })
        .collect();
    *lock(&ctx.shared.cat.include) = all;
}

/// Asks every workspace folder's `litmus.includePath` again and keeps it in the store.
pub async fn fetch_include_paths(ctx: &Ctx) {
    let roots = lock(&ctx.shared.cat.roots).clone();
    let mut all = std::collections::HashMap::new();
    for f in folders(&roots) {
        let s = of_folder(ctx, f).await;
        all.insert(f.map(Path::to_path_buf).unwrap_or_default(), s.include);
    }
    *lock(&ctx.shared.cat.include) = all;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn relative_paths_are_relative_to_the_folder() {
        let f = read(
            &json!({"modelPath": "m/a.cat", "includePath": ["lib", "/abs", "", "./../b/"]}),
            Some(Path::new("/w")),
        );
        assert_eq!(f.model, Some(PathBuf::from("/w/m/a.cat")));
        let want = ["/w/lib", "/abs", "/b"].map(PathBuf::from);
        assert_eq!(f.include, want);
        let one = read(&json!({"includePath": "lib"}), Some(Path::new("/w")));
        assert_eq!(one.include, [PathBuf::from("/w/lib")]);
        assert_eq!(read(&json!({"includePath": 3}), None), Folder::default());
    }
}
