//! The model as it was, as files (`docs/models.md#what-a-change-changes`): the recheck compares
//! the model as the editor first opened it with the model as saved, and the first exists only
//! in the server's memory. So that a check of the model as it was has a place to link to, the
//! recheck writes its text and the files its includes read, as they were read, under the
//! server's written-out library folder: `before/HASH/aarch64.cat` and beside it each included
//! file under the name its `include` gives (where the check's file, as the engine names it, is
//! found again: `super::site::file_of`). The hash is of the model's path and every text, so two
//! models, or two baselines of one, never share a folder, and a folder once written never
//! changes. The files are made read-only, and the server renames nothing there
//! (`super::index::read_only`).

use std::hash::{Hash, Hasher};
use std::path::{Component, Path, PathBuf};

use super::index::{library_dir, write_whole};
use crate::catmodel::load::Read;

/// Writes the model at `model` as it was (`text`, and the files it read) and returns the
/// snapshot of the model's file; `None` if it cannot be written.
pub fn write(model: &Path, text: &str, read: &[Read]) -> Option<PathBuf> {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    model.hash(&mut h);
    text.hash(&mut h);
    for r in read {
        (&r.name, &r.text).hash(&mut h);
    }
    let dir = library_dir()?
        .join("before")
        .join(format!("{:016x}", h.finish()));
    let name = model.file_name()?;
    let mut files: Vec<(PathBuf, &str)> = vec![(dir.join(name), text)];
    for r in read {
        // a name that would leave the folder is not written (its check has no place then)
        let plain = Path::new(&r.name)
            .components()
            .all(|c| matches!(c, Component::Normal(_)));
        if plain {
            files.push((dir.join(&r.name), &r.text));
        }
    }
    for (p, t) in &files {
        if std::fs::read_to_string(p).ok().as_deref() == Some(*t) {
            continue;
        }
        // a reader (another server writing the same snapshot) never sees half a file
        std::fs::create_dir_all(p.parent()?).ok()?;
        write_whole(p, t, true)?;
    }
    Some(files.swap_remove(0).0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_holds_the_model_and_its_includes_as_they_were_read() {
        let model = Path::new("/nowhere/snapshot-test/mine.cat");
        let text = format!("include \"sub.cat\"\n(* {} *)\n", std::process::id());
        let read = vec![
            Read {
                name: "sub.cat".into(),
                path: "/nowhere/snapshot-test/sub.cat".into(),
                text: "let a = po\n".into(),
            },
            Read {
                name: "../escape.cat".into(),
                path: "/nowhere/escape.cat".into(),
                text: "let b = po\n".into(),
            },
        ];
        let p = write(model, &text, &read).expect("written");
        assert!(p.starts_with(library_dir().unwrap().join("before")));
        assert_eq!(p.file_name().unwrap(), "mine.cat");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), text);
        let dir = p.parent().unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("sub.cat")).unwrap(),
            "let a = po\n"
        );
        assert!(!dir.join("../escape.cat").exists());
        assert!(std::fs::metadata(&p).unwrap().permissions().readonly());
        // the same model and texts: the same files; another text: another folder
        assert_eq!(write(model, &text, &read), Some(p.clone()));
        let q = write(model, &format!("{text} "), &read).unwrap();
        assert_ne!(q.parent(), p.parent());
        for f in [&p, &q] {
            let _ = std::fs::remove_dir_all(f.parent().unwrap());
        }
    }
}
