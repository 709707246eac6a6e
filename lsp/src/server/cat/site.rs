//! From a test's axiomatic answer to the check that forbids it (`docs/models.md#from-a-test-to-the-check`):
//! the engine gives the failed check's byte offset and file (`cat::Failure::at`, `file`); here
//! they become a file URI and a range. A built-in model has no file of the user's: its check is
//! in the server's written-out copy ([`super::index::library_dir`], read-only for rename), the
//! same folder that holds the library files a model includes.

use std::path::PathBuf;
use std::sync::Arc;

use ropey::Rope;
use tower_lsp_server::ls_types::Range;

use super::index::library_dir;
use crate::catmodel::load::find_include;
use crate::json::axsite::{AxLocation, ModelFiles};
use crate::json::axview::AxView;
use crate::server::catdoc::uri_of;
use crate::server::position::{position, Encoding};

/// The file a check is in: `file` as the engine names it (`None`: the model's own text).
pub fn file_of(files: &ModelFiles, file: Option<&str>) -> Option<PathBuf> {
    match (files, file) {
        (_, Some(f)) if litmus_engine::cat::library_file(f).is_some() => {
            Some(library_dir()?.join(f))
        }
        (ModelFiles::Builtin(name), None) => Some(library_dir()?.join(name)),
        (ModelFiles::Builtin(_), Some(_)) => None,
        (ModelFiles::Files { cat, .. }, None) => Some(cat.clone()),
        (ModelFiles::Files { cat, bell, include }, Some(f)) => {
            if let Some(b) = bell
                .as_ref()
                .filter(|b| b.file_name().is_some_and(|n| n == f))
            {
                return Some(b.clone());
            }
            let dir = cat.parent().map(PathBuf::from).unwrap_or_default();
            let more: Vec<PathBuf> = bell
                .iter()
                .filter_map(|b| b.parent())
                .map(PathBuf::from)
                .chain(include.iter().cloned())
                .collect();
            find_include(f, &dir, &more)
        }
    }
}

/// The range of the statement at byte `at` of `text`: from it to the end of its line.
pub fn statement_range(text: &str, at: usize, enc: Encoding) -> Range {
    let at = at.min(text.len());
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let end = at + text[at..end].trim_end().len();
    let rope = Rope::from_str(text);
    Range::new(
        position(&rope, enc, at as u32),
        position(&rope, enc, end as u32),
    )
}

/// The location of the check at `site` in the model `files`, if its file can be read.
pub fn locate(
    files: &ModelFiles,
    site: &(usize, Option<Arc<str>>),
    enc: Encoding,
) -> Option<AxLocation> {
    let path = file_of(files, site.1.as_deref())?;
    let text = std::fs::read_to_string(&path).ok()?;
    Some(AxLocation {
        uri: uri_of(&path)?.as_str().to_string(),
        range: statement_range(&text, site.0, enc),
    })
}

/// Fills in the location of the view's failed check (a forbidden execution's).
pub fn fill(view: &mut AxView, enc: Encoding) {
    let Some(files) = view.files.clone() else {
        return;
    };
    if let Some(c) = view.execution.as_mut().and_then(|x| x.check.as_mut()) {
        c.location = locate(&files, &c.site, enc);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_statement_range_is_its_first_line() {
        let text = "let a = po\nacyclic a | rf as ob   \n(* c *)\n";
        let r = statement_range(text, 11, Encoding::Utf16);
        assert_eq!((r.start.line, r.start.character), (1, 0));
        assert_eq!((r.end.line, r.end.character), (1, 20));
    }

    #[test]
    fn a_built_in_models_check_is_in_the_written_out_copy() {
        let files = ModelFiles::Builtin("aarch64.cat");
        let p = file_of(&files, None).expect("the library folder is written");
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            litmus_engine::axiomatic::AARCH64_CAT
        );
        let lib = file_of(&files, Some("cross.cat")).unwrap();
        assert_eq!(lib.parent(), p.parent());
        assert_eq!(file_of(&files, Some("mine.cat")), None);
    }
}
