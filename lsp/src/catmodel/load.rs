//! A cat model read from disk. `include "f"` takes `f` from the project's library first (as the
//! engine does, [`litmus_engine::cat::LIBRARY`]), else from the including model's folder, else
//! from each folder of the include path in order.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use litmus_engine::cat::Model;
use litmus_engine::LineIndex;

/// A model that cannot be read or does not parse: where, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    pub path: String,
    /// 1-based, 0 when the file could not be read.
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.path, self.message)
        } else {
            write!(
                f,
                "{}:{}:{}: {}",
                self.path, self.line, self.col, self.message
            )
        }
    }
}

/// Where `include "name"` of a file in `dir` is found on disk (`None`: nowhere; the
/// library's files are not looked for here).
pub fn find_include(name: &str, dir: &Path, path: &[PathBuf]) -> Option<PathBuf> {
    std::iter::once(dir)
        .chain(path.iter().map(PathBuf::as_path))
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Reads and parses the model at `path`; `include_path` are further folders for its includes.
pub fn load(path: &Path, include_path: &[PathBuf]) -> Result<Model, LoadError> {
    let text = std::fs::read_to_string(path).map_err(|e| LoadError {
        path: path.display().to_string(),
        line: 0,
        col: 0,
        message: e.to_string(),
    })?;
    load_text(path, &text, include_path)
}

/// Parses `text` as the model at `path` (an editor's unsaved text, say).
pub fn load_text(path: &Path, text: &str, include_path: &[PathBuf]) -> Result<Model, LoadError> {
    load_with(path, text, include_path, &HashMap::new())
}

/// [`load_text`], with the text of some included files given (`overrides`, by path) rather
/// than read from disk: the language server's model as it was before an edit.
pub fn load_with(
    path: &Path,
    text: &str,
    include_path: &[PathBuf],
    overrides: &HashMap<PathBuf, String>,
) -> Result<Model, LoadError> {
    load_read(path, text, include_path, overrides).map(|(m, _)| m)
}

/// An included file as [`load_read`] read it: the name the `include` gives, where it was
/// found, its text (the library's files are not read: the engine has them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Read {
    pub name: String,
    pub path: PathBuf,
    pub text: String,
}

/// [`load_with`], and the files its includes read, sorted by name.
pub fn load_read(
    path: &Path,
    text: &str,
    include_path: &[PathBuf],
    overrides: &HashMap<PathBuf, String>,
) -> Result<(Model, Vec<Read>), LoadError> {
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let seen: RefCell<HashMap<String, (PathBuf, String)>> = RefCell::default();
    let resolve = |f: &str| {
        let p = find_include(f, &dir, include_path)?;
        let t = match overrides.get(&p) {
            Some(t) => t.clone(),
            None => std::fs::read_to_string(&p).ok()?,
        };
        seen.borrow_mut().insert(f.to_string(), (p, t.clone()));
        Some(t)
    };
    let model = Model::parse(text, &resolve).map_err(|e| {
        let seen = seen.borrow();
        let (p, t) = match e.file.as_deref().and_then(|f| {
            seen.get(f)
                .map(|(p, t)| (p.display().to_string(), t.as_str()))
                .or_else(|| {
                    litmus_engine::cat::library_file(f)
                        .map(|t| (format!("{f} (litmus's library)"), t))
                })
        }) {
            Some(x) => x,
            None => (path.display().to_string(), text),
        };
        let pos = LineIndex::new(t).line_col(e.offset.min(t.len()) as u32);
        LoadError {
            path: p,
            line: pos.line as usize,
            col: pos.col as usize,
            message: e.message,
        }
    })?;
    let mut read: Vec<Read> = seen
        .into_inner()
        .into_iter()
        .map(|(name, (path, text))| Read { name, path, text })
        .collect();
    read.sort_by(|a, b| a.name.cmp(&b.name));
    Ok((model, read))
}
