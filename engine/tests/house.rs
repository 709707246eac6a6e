//! The rules of the house that the compiler does not check (ARCHITECTURE.md): no import cycle
//! among the modules of `engine/src` (a module being a file or folder directly under it), no
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
    let mut out = BTreeSet::new();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for (i, _) in code.match_indices("crate::") {
        let rest = &code[i + "crate::".len()..];
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

#[test]
fn the_modules_of_the_engine_import_no_cycle() {
    let src = root().join("engine/src");
    // Module of each file: its first path component under `engine/src`.
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let files = rust_files(&src);
    let module = |p: &Path| -> String {
        let rel = p.strip_prefix(&src).expect("under engine/src");
        let first = rel.components().next().expect("a component");
        first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_string()
    };
    let modules: BTreeSet<String> = files.iter().map(|p| module(p)).collect();
    for p in &files {
        let m = module(p);
        if m == "lib" || p.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(p).expect("a source file");
        for dep in crate_paths(&code(&text)) {
            if dep != m && modules.contains(&dep) {
                edges.entry(m.clone()).or_default().insert(dep);
            }
        }
    }
    // A cycle: some module reaches itself. Depth-first from each, reporting the path.
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
    let mut cycles = vec![];
    for m in &modules {
        let mut path = vec![m.clone()];
        if reach(&edges, m, m, &mut BTreeSet::new(), &mut path) {
            cycles.push(path.join(" -> "));
        }
    }
    let n_edges: usize = edges.values().map(|s| s.len()).sum();
    println!("{} modules, {n_edges} imports between them", modules.len());
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
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
