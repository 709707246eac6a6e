//! Cat models as files (issue 55, `docs/models.md`): loading a model with its includes from
//! disk ([`load`]), comparing two models' verdicts over a set of tests ([`diff`], shared by
//! `litmus diff` and the language server's recheck on save), and the built-in models and
//! library files written out ([`builtin`]).

pub mod builtin;
pub mod diff;
pub mod load;
