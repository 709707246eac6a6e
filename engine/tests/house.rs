//! The rules of the house that the compiler does not check (ARCHITECTURE.md): no import cycle
//! among the modules of `engine/src` (a module being a file or folder directly under it) nor
//! among those of `engine/src/syntax`, nor among those of `lsp/src`, `lsp/src/server` and
//! `lsp/src/server/cat`, no
//! Rust file over 600 lines in `engine/src` and `lsp/src`, and no
//! `clippy::too_many_arguments` allowed there. Reads the sources; takes milliseconds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("a source folder") {
            let p = e.expect("an entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The code of a file without comments and without its `#[cfg(test)] mod tests` (tests may
/// reach across the crate).
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The identifiers right after each `crate::` in `code`, and inside `crate::{...}` groups.
fn crate_paths(code: &str) -> BTreeSet<String> {
    paths_after(code, "crate::")
}

/// The identifiers right after each `prefix` in `code`, and inside `prefix{...}` groups.
fn paths_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for (i, _) in code.match_indices(prefix) {
        // `super::` inside `super::super::` is not a path of its own.
        if i >= 2 && &code[i - 2..i] == "::" {
            continue;
        }
        let rest = &code[i + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for part in group[..end].split(',') {
                out.insert(ident(part.trim()));
            }
        } else {
            out.insert(ident(rest));
        }
    }
    out
}

/// The module of `dir` that file `p` belongs to: the first path component under `dir`, a file's
/// name without `.rs` or a folder's name.
fn top_module(dir: &Path, p: &Path) -> String {
    let rel = p.strip_prefix(dir).expect("a file under the folder");
    let first = rel.components().next().expect("a component");
    first
        .as_os_str()
        .to_string_lossy()
        .trim_end_matches(".rs")
        .to_string()
}

/// Each module that reaches itself through `edges`, with the path that does.
fn cycles(modules: &BTreeSet<String>, edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    // Depth-first from each module, reporting the path.
    fn reach(
        edges: &BTreeMap<String, BTreeSet<String>>,
        from: &str,
        to: &str,
        seen: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> bool {
        for next in edges.get(from).into_iter().flatten() {
            path.push(next.clone());
            if next == to || (seen.insert(next.clone()) && reach(edges, next, to, seen, path)) {
                return true;
            }
            path.pop();
        }
        false
    }
    let mut out = vec![];
    for m in modules {
        let mut path = vec![m.clone()];
        if reach(edges, m, m, &mut BTreeSet::new(), &mut path) {
            out.push(path.join(" -> "));
        }
    }
    out
}

#[test]
fn the_modules_of_the_engine_import_no_cycle() {
    top_level_cycles("engine/src", &["lib"]);
}

/// The `litmus` crate's top-level modules (`cli`, `server`, `json`, `steps`, `dialect`,
/// `jobs`, ...) import no cycle either: what the CLI and the server share (`json`, `steps`,
/// `dialect`) never imports either of them.
#[test]
fn the_modules_of_the_binary_import_no_cycle() {
    top_level_cycles("lsp/src", &["lib", "main"]);
}

fn top_level_cycles(dir: &str, roots: &[&str]) {
    let src = root().join(dir);
    // Module of each file: its first path component under `engine/src`.
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let files = rust_files(&src);
    let module = |p: &Path| top_module(&src, p);
    let modules: BTreeSet<String> = files.iter().map(|p| module(p)).collect();
    for p in &files {
        let m = module(p);
        if roots.contains(&m.as_str()) || p.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(p).expect("a source file");
        for dep in crate_paths(&code(&text)) {
            if dep != m && modules.contains(&dep) {
                edges.entry(m.clone()).or_default().insert(dep);
            }
        }
    }
    let cycles = cycles(&modules, &edges);
    let n_edges: usize = edges.values().map(|s| s.len()).sum();
    println!("{} modules, {n_edges} imports between them", modules.len());
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

/// The front end's dialects share code through `syntax`'s common modules (`shared`, `expr`,
/// `registers`), never through each other: no import cycle among the modules directly under
/// `engine/src/syntax` (a file or folder), counting `super::`, `super::super::` and
/// `crate::syntax::` paths.
#[test]
fn the_modules_of_the_front_end_import_no_cycle() {
    let src = root().join("engine/src/syntax");
    let files = rust_files(&src);
    let module = |p: &Path| top_module(&src, p);
    let modules: BTreeSet<String> = files.iter().map(|p| module(p)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in &files {
        let m = module(p);
        if m == "mod" || p.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let rel = p.strip_prefix(&src).expect("under engine/src/syntax");
        // Where `super::` points: `syntax` from `syntax/m.rs` and `syntax/m/mod.rs`, the
        // module itself from its other files (whose `super::super::` is `syntax`).
        let top = rel.components().count() == 1 || p.file_name().is_some_and(|n| n == "mod.rs");
        let text = code(&std::fs::read_to_string(p).expect("a source file"));
        let mut deps = paths_after(&text, "crate::syntax::");
        if top {
            deps.extend(paths_after(&text, "super::"));
        } else {
            deps.extend(paths_after(&text, "super::super::"));
        }
        for dep in deps {
            if dep != m && modules.contains(&dep) {
                edges.entry(m.clone()).or_default().insert(dep);
            }
        }
    }
    let cycles = cycles(&modules, &edges);
    let n_edges: usize = edges.values().map(|s| s.len()).sum();
    println!(
        "syntax: {} modules, {n_edges} imports between them",
        modules.len()
    );
    assert!(
        cycles.is_empty(),
        "import cycles in syntax:\n{}",
        cycles.join("\n")
    );
}

/// The language server's modules go one way (`docs/design/lsp.md#layers`): no import cycle
/// among the modules directly under `lsp/src/server` (a file, or the `cat` folder), counting
/// `super::` paths (and `crate::server::`, `super::super::` from `cat`'s files). `mod.rs` is
/// the root: it declares every module and only re-exports, so a module that names an item of
/// `mod.rs` (`super::Ctx`) imports the root, and that is a cycle too.
#[test]
fn the_modules_of_the_server_import_no_cycle() {
    let src = root().join("lsp/src/server");
    let (modules, edges) = folder_imports(&src, |p, text| {
        let nested = p.parent() != Some(src.as_path());
        let mut deps = paths_after(text, "crate::server::");
        if !nested || p.file_name().is_some_and(|n| n == "mod.rs") {
            deps.extend(paths_after(text, "super::"));
        } else {
            deps.extend(paths_after(text, "super::super::"));
        }
        deps
    });
    layer_report("server", &modules, &edges);
    // Each module imports only from its own layer or those below.
    let layer_of = |m: &str| SERVER_LAYERS.iter().position(|(_, ms)| ms.contains(&m));
    let mut unlisted = vec![];
    let mut upward = vec![];
    for m in &modules {
        let Some(l) = layer_of(m) else {
            if m != "mod" {
                unlisted.push(m.clone());
            }
            continue;
        };
        for dep in edges.get(m).into_iter().flatten() {
            if let Some(k) = layer_of(dep) {
                if k > l {
                    let (from, to) = (SERVER_LAYERS[l].0, SERVER_LAYERS[k].0);
                    upward.push(format!("{m} ({from}) imports {dep} ({to})"));
                }
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "put these modules of lsp/src/server in a layer of SERVER_LAYERS: {unlisted:?}"
    );
    assert!(
        upward.is_empty(),
        "imports up the layers:\n{}",
        upward.join("\n")
    );
}

/// The server's layers, lowest first (`docs/design/lsp.md#layers`): a module imports from its
/// own layer and those below, never above. What reads the state (views, protocol values,
/// requests) knows nothing of the handle, the planner or the loop.
const SERVER_LAYERS: &[(&str, &[&str])] = &[
    (
        "foundations",
        &[
            "util",
            "commands",
            "engine",
            "position",
            "tokens",
            "config",
            "symbols",
            "highlight",
            "asm",
            "queue",
            "cdoc",
            "catdoc",
            "plain",
        ],
    ),
    ("state", &["document", "cache", "state"]),
    (
        "reading the state",
        &[
            "target",
            "verdict",
            "view",
            "relaxed",
            "unbounded",
            "axiom",
            "trace",
            "to_proto",
            "hover",
            "requests",
            "complete",
            "rename",
            "doc_highlight",
            "format",
            "wsymbols",
            "results",
        ],
    ),
    ("the handle", &["msg", "ctx"]),
    ("planning", &["verify", "edit", "axcheck", "fences", "cat"]),
    ("the loop", &["main_loop"]),
    ("handlers", &["backend", "custom", "transport"]),
];

/// The cat files' server (`lsp/src/server/cat`) likewise: no cycle among its modules.
#[test]
fn the_modules_of_the_cat_server_import_no_cycle() {
    let src = root().join("lsp/src/server/cat");
    let (modules, edges) = folder_imports(&src, |_, text| {
        let mut deps = paths_after(text, "crate::server::cat::");
        deps.extend(paths_after(text, "super::"));
        deps
    });
    layer_report("server/cat", &modules, &edges);
}

/// The modules directly under `src` (a file, or a folder) and who imports whom, the paths
/// each file names given by `deps`. `mod.rs` is the root: it declares every module, and a
/// path to an item of the root (not a module) is an import of `mod`.
fn folder_imports(
    src: &Path,
    deps: impl Fn(&Path, &str) -> BTreeSet<String>,
) -> (BTreeSet<String>, BTreeMap<String, BTreeSet<String>>) {
    let files = rust_files(src);
    let module = |p: &Path| top_module(src, p);
    let modules: BTreeSet<String> = files.iter().map(|p| module(p)).collect();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for p in &files {
        let m = module(p);
        if m == "mod" {
            let others = modules.iter().filter(|x| *x != "mod").cloned();
            edges.entry(m).or_default().extend(others);
            continue;
        }
        let text = code(&std::fs::read_to_string(p).expect("a source file"));
        for dep in deps(p, &text) {
            let dep = if modules.contains(&dep) {
                dep
            } else {
                "mod".into()
            };
            if dep != m && !dep.is_empty() {
                edges.entry(m.clone()).or_default().insert(dep);
            }
        }
    }
    (modules, edges)
}

fn layer_report(
    name: &str,
    modules: &BTreeSet<String>,
    edges: &BTreeMap<String, BTreeSet<String>>,
) {
    let cycles = cycles(modules, edges);
    let n_edges: usize = edges.values().map(|s| s.len()).sum();
    println!(
        "{name}: {} modules, {n_edges} imports between them",
        modules.len()
    );
    assert!(
        cycles.is_empty(),
        "import cycles in {name}:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn no_file_is_over_600_lines_and_no_function_takes_too_many_arguments() {
    let mut long = vec![];
    let mut allowed = vec![];
    let mut n = 0;
    for dir in ["engine/src", "lsp/src"] {
        for p in rust_files(&root().join(dir)) {
            let text = std::fs::read_to_string(&p).expect("a source file");
            let lines = text.lines().count();
            n += 1;
            if lines > 600 {
                long.push(format!("{} ({lines} lines)", p.display()));
            }
            if text.contains("too_many_arguments") {
                allowed.push(p.display().to_string());
            }
        }
    }
    println!("{n} files read");
    assert!(long.is_empty(), "over 600 lines: {long:?}");
    assert!(
        allowed.is_empty(),
        "too_many_arguments allowed in {allowed:?}"
    );
}
