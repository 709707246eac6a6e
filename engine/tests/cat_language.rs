//! The cat language (issues 53 and 55): every cat and bell file of herd's library and of the
//! Linux-kernel memory model parses (`../shared`, skipped with a message when absent); each
//! construct evaluated on small hand-built executions; and the kernel's model, read from
//! `../shared`, judging hand-built candidate executions of the classic tests.

use litmus_engine::cat::rel::{Rel, Set};
use litmus_engine::cat::{parse_file, CatError, Env, Model, Outcome, Value};
use std::path::{Path, PathBuf};

fn shared(sub: &str) -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    [
        root.join(format!("../shared/{sub}")),
        root.join(format!("../../shared/{sub}")),
    ]
    .into_iter()
    .find(|d| d.exists())
}

fn cat_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            cat_files(&p, out);
        } else if matches!(p.extension().and_then(|e| e.to_str()), Some("cat" | "bell")) {
            out.push(p);
        }
    }
}

/// Finds an included file in the including file's folder, then in the library's root folder
/// (herd's include path).
fn dir_resolver(dir: PathBuf, root: PathBuf) -> impl Fn(&str) -> Option<String> {
    move |f: &str| {
        std::fs::read_to_string(dir.join(f))
            .or_else(|_| std::fs::read_to_string(root.join(f)))
            .ok()
    }
}

#[test]
fn every_shared_cat_and_bell_file_parses() {
    let mut total = 0;
    for sub in ["cat-corpus/herd-libdir", "conformance/linux/model"] {
        let Some(dir) = shared(sub) else {
            println!("SKIPPED: ../shared/{sub} not found; its cat and bell files were not parsed");
            continue;
        };
        let mut files = Vec::new();
        cat_files(&dir, &mut files);
        assert!(!files.is_empty(), "no cat files under {}", dir.display());
        let mut failures = Vec::new();
        for f in &files {
            let src = std::fs::read_to_string(f).unwrap();
            if let Err(e) = parse_file(&src) {
                failures.push(format!("{}: {e} (near {:?})", f.display(), near(&src, &e)));
                continue;
            }
            // And with its includes, from its own folder (the library first).
            let resolve = dir_resolver(f.parent().unwrap().to_path_buf(), dir.clone());
            if let Err(e) = Model::parse(&src, &resolve) {
                failures.push(format!("{} with includes: {e}", f.display()));
            }
        }
        println!("{sub}: {} cat/bell files parsed", files.len() - failures.len());
        assert!(failures.is_empty(), "{} files fail:\n{}", failures.len(), failures.join("\n"));
        total += files.len();
    }
    println!("parsed {total} files in all");
}

fn near(src: &str, e: &CatError) -> String {
    let s = e.offset.min(src.len());
    src[s..].chars().take(40).collect()
}
