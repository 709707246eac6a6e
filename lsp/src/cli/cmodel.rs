//! The model a C test is checked under, from the user's files (the kernel's model is
//! GPL-2.0 and never bundled): herd's `-conf` file (`--conf`), `--cat` with `--bell` and
//! `--macros`, or, with neither, `tools/memory-model/linux-kernel.cfg` or `linux-kernel.cfg`
//! found in the test's folder or a folder above it (a kernel tree).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use litmus_engine::c::Defs;
use litmus_engine::cat::Model;

use super::args::CheckArgs;

/// A model ready to check C tests: the cat model (bell first), the `.def` macros, the
/// variants, and how to name it.
pub struct CModel {
    pub model: Model,
    pub defs: Defs,
    pub variants: BTreeSet<String>,
    pub name: String,
}

/// What a missing model error says.
pub fn missing(test: &Path) -> String {
    format!(
        "no memory model for the C test {}: checking it needs the model's files \
         (`linux-kernel.cfg`, `.bell`, `.cat`, `.def` and `lock.cat`), from a Linux kernel \
         tree's `tools/memory-model/` (or herdtools7's `herd/libdir/` for the standard \
         library). Pass `--conf PATH/linux-kernel.cfg`, or `--cat FILE` with `--bell` and \
         `--macros`, or put the test in a kernel tree (`tools/memory-model/linux-kernel.cfg` \
         is looked for in the folders above it)",
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

fn load(
    cat: &Path,
    bell: Option<&Path>,
    macros: Option<&Path>,
    variants: BTreeSet<String>,
    name: String,
) -> Result<CModel, String> {
    let mut dirs = vec![cat.parent().map(Path::to_path_buf).unwrap_or_default()];
    if let Some(b) = bell.and_then(Path::parent) {
        dirs.push(b.to_path_buf());
    }
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
    })
}

/// Reads herd's `-conf` file: its `macros`, `bell`, `model` and `variant` lines (other
/// lines, the graph settings, are herd's own and ignored).
pub fn from_cfg(cfg: &Path, extra: &[String]) -> Result<CModel, String> {
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
        &cat,
        bell.as_deref(),
        macros.as_deref(),
        variants,
        cfg.display().to_string(),
    )
}

/// The model the options name, if they name one (`--conf`, or `--cat` with `--bell` and
/// `--macros`).
pub fn from_args(args: &CheckArgs) -> Option<Result<CModel, String>> {
    if let Some(cfg) = &args.conf {
        return Some(from_cfg(cfg, &args.variant));
    }
    let cat = args.cat.as_ref()?;
    Some(load(
        cat,
        args.bell.as_deref(),
        args.macros.as_deref(),
        args.variant.iter().cloned().collect(),
        cat.display().to_string(),
    ))
}
