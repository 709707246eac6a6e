//! Names across files: a use resolves to its local binding, else to the file's own definition
//! before it, else to the last definition in the files included before it (nearest include
//! first, and what they include), else to the project's `stdlib.cat`, else to a definition
//! further down the file, else to what the engine supplies. An `include "f"` is looked for in
//! the including file's folder, then the folders of the setting `litmus.includePath`, then the
//! workspace folders (the index's `search`, `catdoc::Store::search`), then the project's
//! library (written once per version to a folder under the temporary directory, so that an
//! editor can open it). Open documents are read from the editor, other files from disk.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use litmus_engine::cat::{outline, Outline, Use};
use tower_lsp_server::ls_types::Uri;

use crate::server::catdoc::{path_of, uri_of, CatDoc};

/// One file: open in the editor or read from disk.
pub struct File {
    pub path: PathBuf,
    pub uri: Uri,
    pub text: Arc<String>,
    /// The text as a rope, for positions.
    pub rope: ropey::Rope,
    pub outline: Arc<Outline>,
}

/// What a name refers to.
#[derive(Clone)]
pub enum Target {
    /// A definition or local binding: the file and an index of its outline's `defs`.
    Def(Arc<File>, usize),
    /// A set, relation or function the engine supplies.
    Engine,
    Unknown,
}

impl Target {
    /// The definition's file path and name offset (what two uses share when they mean it).
    pub fn key(&self) -> Option<(PathBuf, u32)> {
        match self {
            Target::Def(f, k) => Some((f.path.clone(), f.outline.defs[*k].span.start)),
            _ => None,
        }
    }
}

/// The project's library and built-in models written out, for navigation (a library
/// definition, the check behind a built-in model's answer): its folder (None if it cannot be
/// written).
pub fn library_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir =
            std::env::temp_dir().join(format!("litmus-cat-library-{}", env!("CARGO_PKG_VERSION")));
        std::fs::create_dir_all(&dir).ok()?;
        let models = crate::catmodel::builtin::MODELS.map(|m| (m.1, m.3));
        for (name, text) in litmus_engine::cat::LIBRARY.into_iter().chain(models) {
            let p = dir.join(name);
            if std::fs::read_to_string(&p).ok().as_deref() != Some(text) {
                write_whole(&p, text, false)?;
            }
        }
        Some(dir)
    })
    .as_deref()
}

/// Writes `text` to `p` aside and renames it in (read-only first if asked): several servers
/// (editor windows, or tests run one process each) share the library folder, and none may read
/// a half-written file. `None` if it cannot be written.
pub fn write_whole(p: &Path, text: &str, read_only: bool) -> Option<()> {
    let tmp = p.with_extension(format!("tmp-{}", std::process::id()));
    std::fs::write(&tmp, text).ok()?;
    if read_only {
        if let Ok(m) = std::fs::metadata(&tmp) {
            let mut perm = m.permissions();
            perm.set_readonly(true);
            let _ = std::fs::set_permissions(&tmp, perm);
        }
    }
    std::fs::rename(&tmp, p).ok()
}

/// Whether `path` is one of the written-out library files.
pub fn in_library(path: &Path) -> bool {
    library_dir().is_some_and(|d| path.parent() == Some(d))
}

/// Whether `path` is a file the server wrote (the library, the built-in models, a model as it
/// was: `super::snapshot`), which it never renames in.
pub fn read_only(path: &Path) -> bool {
    library_dir().is_some_and(|d| path.starts_with(d))
}

pub fn engine_supplies(name: &str) -> bool {
    // (`FW`, the final writes, and C11's order sets are supplied to the C11 models: rc11.cat,
    // stdlib.cat's `co0`)
    name == "FW"
        || litmus_engine::axiomatic::C11_ORDER_SETS.contains(&name)
        || litmus_engine::axiomatic::SUPPLIED.contains(&name)
        || litmus_engine::axiomatic::KNOWN_TAGS.contains(&name)
        || litmus_engine::cat::BUILTIN_FUNCTIONS.contains(&name)
}

/// The files of one request, read once each.
pub struct Index<'a> {
    open: &'a HashMap<Uri, CatDoc>,
    /// Where an include is looked for after the including file's folder.
    search: &'a [PathBuf],
    cache: RefCell<HashMap<PathBuf, Option<Arc<File>>>>,
}

impl<'a> Index<'a> {
    pub fn new(open: &'a HashMap<Uri, CatDoc>, search: &'a [PathBuf]) -> Index<'a> {
        Index {
            open,
            search,
            cache: RefCell::default(),
        }
    }

    /// An open document.
    pub fn doc(&self, uri: &Uri) -> Option<Arc<File>> {
        let d = self.open.get(uri)?;
        let path = path_of(uri).unwrap_or_else(|| PathBuf::from(uri.as_str()));
        let f = Arc::new(File {
            path: path.clone(),
            uri: uri.clone(),
            text: d.text.clone(),
            rope: d.rope.clone(),
            outline: d.outline.clone(),
        });
        self.cache.borrow_mut().insert(path, Some(f.clone()));
        Some(f)
    }

    /// The file at `path`: the editor's text if it is open, else the disk's.
    pub fn file(&self, path: &Path) -> Option<Arc<File>> {
        if let Some(f) = self.cache.borrow().get(path) {
            return f.clone();
        }
        let uri = uri_of(path)?;
        let f = match self.open.get(&uri) {
            Some(_) => self.doc(&uri),
            None => std::fs::read_to_string(path).ok().map(|text| {
                Arc::new(File {
                    path: path.to_path_buf(),
                    uri,
                    outline: Arc::new(outline(&text)),
                    rope: ropey::Rope::from_str(&text),
                    text: Arc::new(text),
                })
            }),
        };
        self.cache
            .borrow_mut()
            .insert(path.to_path_buf(), f.clone());
        f
    }

    /// Where `include "name"` of `from` is: its folder, the search folders, the library.
    pub fn include_path(&self, from: &File, name: &str) -> Option<PathBuf> {
        let dir = from
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        crate::catmodel::load::find_include(name, &dir, self.search).or_else(|| {
            litmus_engine::cat::library_file(name)?;
            Some(library_dir()?.join(name))
        })
    }

    pub fn include(&self, from: &File, name: &str) -> Option<Arc<File>> {
        self.file(&self.include_path(from, name)?)
    }

    fn stdlib(&self) -> Option<Arc<File>> {
        self.file(&library_dir()?.join("stdlib.cat"))
    }

    /// The last definition of `name` in `f` or what it includes.
    fn exported(&self, f: &Arc<File>, name: &str, depth: usize) -> Option<(Arc<File>, usize)> {
        if let Some(k) = f.outline.exported(name) {
            return Some((f.clone(), k));
        }
        if depth > 8 {
            return None;
        }
        for (inc, _) in f.outline.includes.iter().rev() {
            if let Some(g) = self.include(f, inc) {
                if let Some(x) = self.exported(&g, name, depth + 1) {
                    return Some(x);
                }
            }
        }
        None
    }

    /// What the name `name` used at offset `at` of `f` refers to.
    pub fn resolve(&self, f: &Arc<File>, name: &str, at: usize, local: Option<usize>) -> Target {
        if let Some(k) = local {
            return Target::Def(f.clone(), k);
        }
        if let Some(k) = f.outline.global(name, at) {
            return Target::Def(f.clone(), k);
        }
        for (inc, _) in f.outline.includes_before(at) {
            if let Some(g) = self.include(f, inc) {
                if let Some((g, k)) = self.exported(&g, name, 1) {
                    return Target::Def(g, k);
                }
            }
        }
        if let Some(s) = self.stdlib() {
            if s.path != f.path {
                if let Some(k) = s.outline.exported(name) {
                    return Target::Def(s, k);
                }
            }
        }
        if let Some(k) = f.outline.later(name, at) {
            return Target::Def(f.clone(), k);
        }
        if engine_supplies(name) {
            Target::Engine
        } else {
            Target::Unknown
        }
    }

    pub fn resolve_use(&self, f: &Arc<File>, u: &Use) -> Target {
        self.resolve(f, &u.name, u.span.start as usize, u.local)
    }

    /// What the name at offset `at` of `f` is: a use (resolved) or a definition (itself).
    pub fn at(&self, f: &Arc<File>, at: usize) -> Option<(litmus_engine::Span, Target)> {
        let inside = |s: &litmus_engine::Span| s.start as usize <= at && at <= s.end as usize;
        if let Some(u) = f.outline.uses.iter().find(|u| inside(&u.span)) {
            return Some((u.span, self.resolve_use(f, u)));
        }
        let k = f.outline.defs.iter().position(|d| inside(&d.span))?;
        Some((f.outline.defs[k].span, Target::Def(f.clone(), k)))
    }

    /// Every file a request about references looks at: the open documents, what they include
    /// (transitively), and `extra`.
    pub fn related(&self, extra: &[Arc<File>]) -> Vec<Arc<File>> {
        let mut todo: Vec<Arc<File>> = extra.to_vec();
        todo.extend(self.open.keys().filter_map(|u| self.doc(u)));
        self.closure(todo)
    }

    /// `f` and every file it includes (transitively): what a model is made of.
    pub fn included(&self, f: &Arc<File>) -> Vec<Arc<File>> {
        self.closure(vec![f.clone()])
    }

    fn closure(&self, mut todo: Vec<Arc<File>>) -> Vec<Arc<File>> {
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        while let Some(f) = todo.pop() {
            if out.len() >= 500 || !seen.insert(f.path.clone()) {
                continue;
            }
            for (inc, _) in &f.outline.includes {
                if let Some(g) = self.include(&f, inc) {
                    todo.push(g);
                }
            }
            out.push(f);
        }
        out
    }
}
