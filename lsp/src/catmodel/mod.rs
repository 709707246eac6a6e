//! Cat models as files (issue 55, `docs/models.md`): loading a model with its includes from
//! disk ([`load`]), comparing two models' verdicts over a set of tests ([`diff`], shared by
//! `litmus diff` and the language server's recheck on save), and the built-in models and
//! library files written out ([`builtin`]).

use std::path::PathBuf;

pub mod builtin;
pub mod diff;
pub mod load;

/// The files of the model a view's test was checked under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelFiles {
    /// A built-in model, by its file name (`aarch64.cat`, `rc11.cat`): no file on disk.
    Builtin(&'static str),
    /// A model read from files: its cat file and bell file (a C test's `.cfg`), and the
    /// folders its includes were looked for in after the cat and bell files' own (the include
    /// path).
    Files {
        cat: PathBuf,
        bell: Option<PathBuf>,
        include: Vec<PathBuf>,
    },
}
