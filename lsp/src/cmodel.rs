//! The model a C test is checked under (`crate::ctest`, `docs/reference.md#c`): herd's `-conf`
//! file, or `--cat` with `--bell` and `--macros`, or the `linux-kernel.cfg` found above a test
//! in a kernel tree, or for a C11 test the project's RC11; read once per run ([`Models`]).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use litmus_engine::axiomatic;
use litmus_engine::c::Defs;
use litmus_engine::cat::Model;

use crate::catmodel::ModelFiles;

/// A model ready to check C tests: the cat model (bell first), the `.def` macros, the
/// variants, and how to name it.
pub struct CModel {
    pub model: Model,
    pub defs: Defs,
    pub variants: BTreeSet<String>,
    pub name: String,
    /// Its files, for the location of a check (`crate::json::axsite`, the server's `cat::site`).
    pub files: ModelFiles,
}

/// What a missing model error says.
pub fn missing(test: &Path) -> String {
    format!(
        "no memory model for the C test {}: checking it needs the model's files \
         (`linux-kernel.cfg`, `.bell`, `.cat`, `.def` and `lock.cat`), from a Linux kernel \
         tree's `tools/memory-model/` (or herdtools7's `herd/libdir/` for the standard \
         library). Pass `--conf PATH/linux-kernel.cfg`, or `--cat FILE` with `--bell` and \
         `--macros`, or put the test in a kernel tree (`tools/memory-model/linux-kernel.cfg` \
         is looked for in the folders above it). (A C11 test, one using `memory_order_*`, \
         is checked under the built-in RC11 model when no model is named or found.)",
        test.display()
    )
}

/// The `.cfg` file for a test when no option names a model: the first
/// `tools/memory-model/linux-kernel.cfg` or `linux-kernel.cfg` in its folder or above.
pub fn find_cfg(test: &Path) -> Option<PathBuf> {
    let start = std::fs::canonicalize(test).ok()?;
    for dir in start.ancestors().skip(1) {
        for cand in [
            dir.join("tools/memory-model/linux-kernel.cfg"),
            dir.join("linux-kernel.cfg"),
        ] {
            if cand.is_file() {
                return Some(cand);
            }
        }
    }
    None
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Reads files named by `include` from `dirs`, in order.
fn resolver(dirs: Vec<PathBuf>) -> impl Fn(&str) -> Option<String> {
    move |f: &str| {
        dirs.iter()
            .find_map(|d| std::fs::read_to_string(d.join(f)).ok())
    }
}

/// The model of these files; an `include` is looked for in the cat file's folder, the bell
/// file's, then `include` (the language server's `litmus.includePath`).
fn load(
    (cat, bell, macros): (&Path, Option<&Path>, Option<&Path>),
    variants: BTreeSet<String>,
    name: String,
    include: &[PathBuf],
) -> Result<CModel, String> {
    let mut dirs = vec![cat.parent().map(Path::to_path_buf).unwrap_or_default()];
    if let Some(b) = bell.and_then(Path::parent) {
        dirs.push(b.to_path_buf());
    }
    dirs.extend(include.iter().cloned());
    let resolve = resolver(dirs);
    let cat_text = read(cat)?;
    let model = match bell {
        Some(b) => {
            let bell_name = b
                .file_name()
                .map_or("bell".into(), |n| n.to_string_lossy().to_string());
            Model::parse_with_bell(&bell_name, &read(b)?, &cat_text, &resolve)
        }
        None => Model::parse(&cat_text, &resolve),
    }
    .map_err(|e| format!("{}: cat model: {e}", cat.display()))?;
    let defs = match macros {
        Some(m) => {
            let file = m.display().to_string();
            Defs::parse(&file, &read(m)?).map_err(|e| format!("{file}: {e}"))?
        }
        None => Defs::parse("(no macros)", "").map_err(|e| e.to_string())?,
    };
    Ok(CModel {
        model,
        defs,
        variants,
        name,
        files: ModelFiles::Files {
            cat: cat.to_path_buf(),
            bell: bell.map(Path::to_path_buf),
            include: include.to_vec(),
        },
    })
}

/// Reads herd's `-conf` file: its `macros`, `bell`, `model` and `variant` lines (other
/// lines, the graph settings, are herd's own and ignored); `include`: folders for the model's
/// includes after its own.
pub fn from_cfg(cfg: &Path, extra: &[String], include: &[PathBuf]) -> Result<CModel, String> {
    let text = read(cfg)?;
    let dir = cfg.parent().map(Path::to_path_buf).unwrap_or_default();
    let (mut cat, mut bell, mut macros) = (None, None, None);
    let mut variants: BTreeSet<String> = extra.iter().cloned().collect();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("").trim();
        let Some((key, value)) = line.split_once(char::is_whitespace) else {
            continue;
        };
        let value = value.trim();
        match key {
            "model" => cat = Some(dir.join(value)),
            "bell" => bell = Some(dir.join(value)),
            "macros" => macros = Some(dir.join(value)),
            "variant" => variants.extend(
                value
                    .split(',')
                    .map(|v| v.trim().to_string())
                    .filter(|v| !v.is_empty()),
            ),
            _ => {}
        }
    }
    let cat = cat.ok_or_else(|| format!("{}: no `model` line", cfg.display()))?;
    load(
        (&cat, bell.as_deref(), macros.as_deref()),
        variants,
        cfg.display().to_string(),
        include,
    )
}

/// The files a model is named by (`--conf`, or `--cat` with `--bell` and `--macros`, and
/// `--variant`), when a run names one.
#[derive(Clone, Debug, Default)]
pub struct Named {
    pub conf: Option<PathBuf>,
    pub cat: Option<PathBuf>,
    pub bell: Option<PathBuf>,
    pub macros: Option<PathBuf>,
    pub variant: Vec<String>,
}

/// The model `named` names, if it names one.
pub fn from_named(named: &Named) -> Option<Result<CModel, String>> {
    if let Some(cfg) = &named.conf {
        return Some(from_cfg(cfg, &named.variant, &[]));
    }
    let cat = named.cat.as_ref()?;
    Some(load(
        (cat, named.bell.as_deref(), named.macros.as_deref()),
        named.variant.iter().cloned().collect(),
        cat.display().to_string(),
        &[],
    ))
}

/// How the built-in RC11 model is named in the output.
pub const RC11_NAME: &str = "rc11.cat (built in, for C11 tests)";

/// The project's RC11 model (`engine/src/axiomatic/rc11.cat`), for C11 tests: no macros (the
/// C11 forms are built in), no variants.
fn rc11() -> Result<CModel, String> {
    Ok(CModel {
        model: axiomatic::rc11_model(),
        defs: Defs::parse("(no macros)", "").map_err(|e| e.to_string())?,
        variants: BTreeSet::new(),
        name: RC11_NAME.to_string(),
        files: ModelFiles::Builtin("rc11.cat"),
    })
}

/// A model, or why there is none (its message says where model files come from).
pub type Found = Arc<Result<CModel, String>>;

/// The models of a run or a session: the one the options name, else per test the one found
/// above it, each `.cfg` read once.
pub struct Models {
    named: Option<Found>,
    variant: Vec<String>,
    /// By `.cfg` file and include path.
    found: Mutex<HashMap<(PathBuf, Vec<PathBuf>), Found>>,
    rc11: OnceLock<Found>,
}

impl Models {
    pub fn new(named: &Named) -> Models {
        Models {
            named: from_named(named).map(Arc::new),
            variant: named.variant.clone(),
            found: Mutex::default(),
            rc11: OnceLock::new(),
        }
    }

    /// The model the options name, if they name one.
    pub fn named(&self) -> Option<&Found> {
        self.named.as_ref()
    }

    /// The model of the C test at `test`; `c11`: the test uses C11's forms
    /// (`litmus_engine::c::Source::uses_c11`), and is checked under RC11 when no model is
    /// named or found.
    pub fn for_test(&self, test: &Path, c11: bool) -> Found {
        self.for_test_in(test, c11, &[])
    }

    /// [`Models::for_test`], a found model's includes looked for in `include` too.
    pub fn for_test_in(&self, test: &Path, c11: bool, include: &[PathBuf]) -> Found {
        if let Some(m) = &self.named {
            return m.clone();
        }
        match find_cfg(test) {
            Some(cfg) => self.for_cfg_in(&cfg, include),
            None => self.fallback(test, c11),
        }
    }

    /// The model of a C test for which no model is named or found: RC11 for a C11 test, else
    /// the error saying where the model files come from.
    pub fn fallback(&self, test: &Path, c11: bool) -> Found {
        if c11 {
            self.rc11.get_or_init(|| Arc::new(rc11())).clone()
        } else {
            Arc::new(Err(missing(test)))
        }
    }

    /// The model of herd's `-conf` file `cfg`, its includes looked for in `include` after its own folders.
    pub fn for_cfg_in(&self, cfg: &Path, include: &[PathBuf]) -> Found {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        found
            .entry((cfg.to_path_buf(), include.to_vec()))
            .or_insert_with(|| Arc::new(from_cfg(cfg, &self.variant, include)))
            .clone()
    }

    /// Forgets the models read (the server, when a model file changes).
    pub fn forget(&self) {
        self.found.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cfg_models_include_is_looked_for_on_the_include_path_too() {
        let d = std::env::temp_dir().join(format!("litmus-cmodel-include-{}", std::process::id()));
        let (model, lib) = (d.join("model"), d.join("lib"));
        std::fs::create_dir_all(&model).unwrap();
        std::fs::create_dir_all(&lib).unwrap();
        let cfg = model.join("m.cfg");
        std::fs::write(&cfg, "model m.cat\n").unwrap();
        std::fs::write(
            model.join("m.cat"),
            "include \"mine.cat\"\nacyclic r as a\n",
        )
        .unwrap();
        std::fs::write(lib.join("mine.cat"), "let r = po\n").unwrap();
        let err = from_cfg(&cfg, &[], &[])
            .err()
            .expect("mine.cat is not beside m.cat");
        assert!(err.contains("mine.cat"), "{err}");
        let m = from_cfg(&cfg, &[], std::slice::from_ref(&lib)).expect("found on the path");
        assert_eq!(
            m.files,
            ModelFiles::Files {
                cat: model.join("m.cat"),
                bell: None,
                include: vec![lib.clone()],
            }
        );
        let models = Models::new(&Named::default());
        let found = models.for_cfg_in(&cfg, std::slice::from_ref(&lib));
        assert!(found.is_ok());
        assert!(
            models.for_cfg_in(&cfg, &[]).is_err(),
            "another include path, another model"
        );
        let _ = std::fs::remove_dir_all(&d);
    }
}
