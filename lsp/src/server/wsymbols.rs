//! `workspace/symbol`, a function of the [`State`]: the tests (their `litmus NAME` / herd's
//! name), threads, locations and mutexes of the open documents, and the tests of the
//! workspace's `.litmus` files (their name, read from the file's header line; at most
//! [`MAX_FILES`] files, found under the workspace folders). A symbol matches when the query's
//! characters appear in its name in order, ignoring case (as editors filter).

use std::path::{Path, PathBuf};

use tower_lsp_server::ls_types::*;

use super::catdoc::{path_of, uri_of};
use super::position::Conv;
use super::state::State;

/// The most workspace files read for one request.
pub const MAX_FILES: usize = 5000;

#[allow(deprecated)] // SymbolInformation::deprecated: the field every client still reads
fn info(
    name: &str,
    kind: SymbolKind,
    location: Location,
    container: Option<&str>,
) -> SymbolInformation {
    SymbolInformation {
        name: name.to_string(),
        kind,
        tags: None,
        deprecated: None,
        location,
        container_name: container.map(str::to_string),
    }
}

/// The open documents' symbols matching `query`, and the paths of the open documents (under
/// the state lock: no I/O).
pub fn open_symbols(st: &State, query: &str) -> (Vec<SymbolInformation>, Vec<PathBuf>) {
    let mut out = vec![];
    let mut uris: Vec<&Uri> = st.docs.keys().collect();
    uris.sort_by_key(|u| u.as_str().to_string());
    for uri in &uris {
        let d = &st.docs[*uri];
        let Some(test) = d.test.as_deref() else {
            continue;
        };
        let conv = Conv {
            rope: &d.rope,
            enc: st.enc,
            uri,
        };
        let name = test.name.text.as_str();
        out.push(info(
            name,
            SymbolKind::MODULE,
            conv.location(test.name.span),
            None,
        ));
        for th in &test.threads {
            out.push(info(
                &th.name.text,
                SymbolKind::FUNCTION,
                conv.location(th.name.span),
                Some(name),
            ));
        }
        for sd in &test.shared {
            out.push(info(
                &sd.name.text,
                SymbolKind::VARIABLE,
                conv.location(sd.name.span),
                Some(name),
            ));
        }
        for m in &test.mutexes {
            out.push(info(
                &m.text,
                SymbolKind::CONSTANT,
                conv.location(m.span),
                Some(name),
            ));
        }
    }
    out.retain(|s| matches(&s.name, query));
    let open: Vec<PathBuf> = uris.iter().filter_map(|u| path_of(u)).collect();
    (out, open)
}

/// The tests of the workspace's files that are not open (`open`), matching `query`: reads the
/// files (off the state lock, on a blocking thread).
pub fn file_symbols(open: &[PathBuf], roots: &[PathBuf], query: &str) -> Vec<SymbolInformation> {
    let mut out = vec![];
    for file in litmus_files(roots) {
        if open.contains(&file) {
            continue;
        }
        let Some((name, line, col)) = header_name(&file) else {
            continue;
        };
        let Some(uri) = uri_of(&file) else { continue };
        let at = Position::new(line, col);
        let end = Position::new(line, col + name.len() as u32);
        out.push(info(
            &name,
            SymbolKind::MODULE,
            Location::new(uri, Range::new(at, end)),
            None,
        ));
    }
    out.retain(|s| matches(&s.name, query));
    out
}

/// Whether `query`'s characters appear in `name` in order, ignoring case.
fn matches(name: &str, query: &str) -> bool {
    let mut it = name.chars().flat_map(char::to_lowercase);
    query
        .chars()
        .flat_map(char::to_lowercase)
        .all(|q| it.any(|c| c == q))
}

/// The `.litmus` files under the folders, sorted, at most [`MAX_FILES`].
fn litmus_files(roots: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = vec![];
    let mut stack: Vec<PathBuf> = roots.to_vec();
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        entries.sort();
        for p in entries {
            let hidden = p
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if hidden || p.ends_with("target") || p.ends_with("node_modules") {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "litmus") {
                out.push(p);
                if out.len() >= MAX_FILES {
                    return out;
                }
            }
        }
    }
    out.sort();
    out
}

/// The test's name in a file's header line (`litmus NAME`, `X86 NAME`, ...): the first line
/// that is not blank or a comment, its second word; with its line and column.
fn header_name(p: &Path) -> Option<(String, u32, u32)> {
    let text = std::fs::read_to_string(p).ok()?;
    let mut in_comment = false;
    for (i, line) in text.lines().enumerate().take(200) {
        let l = line.trim();
        if in_comment {
            in_comment = !l.contains("*)") && !l.contains("*/");
            continue;
        }
        if l.is_empty() || l.starts_with("//") {
            continue;
        }
        if l.starts_with("(*") || l.starts_with("/*") {
            in_comment = !l.contains("*)") && !l.contains("*/");
            continue;
        }
        let mut words = l.split_whitespace();
        words.next()?;
        let name = words.next()?.trim_matches('"');
        let col = line.find(name)? as u32;
        return Some((name.to_string(), i as u32, col));
    }
    None
}
