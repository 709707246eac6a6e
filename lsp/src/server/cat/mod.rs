//! The language server for cat and bell files (issue 55, `docs/models.md#in-the-editor`):
//! diagnostics (parse errors, includes not found, unknown names), go to definition and find
//! references across `include`d files and the project's library, hover with a definition and
//! its comment, document symbols, semantic tokens, rename, and the recheck of the workspace's
//! tests when a model is saved.
//!
//! Kept apart from the litmus documents: [`Store`] (`super::catdoc`, in `super::ctx::Shared`) holds the open cat
//! files; the handlers of [`super::backend`] hand a request over here when its URI ends in
//! `.cat` or `.bell` ([`is_cat`]). The engine's `cat::outline` analyses one file; [`index`]
//! follows includes (open documents first, then disk); [`features`] answers requests;
//! [`recheck`] compares verdicts on save (`catmodel::diff`, as `litmus diff`).

pub mod features;
pub mod handlers;
pub mod index;
pub mod recheck;
pub mod settings;
pub mod site;
pub mod snapshot;
pub mod under;
pub mod values;

pub use super::catdoc::{is_cat, path_of};
pub use handlers::*;
