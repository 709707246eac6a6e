//! What an edit does to a document's shown results (kept and moved when the program is the
//! same, dropped and the running check cancelled when it changed), and the deferred parse of
//! a long text off the main loop.

use std::sync::Arc;

use tower_lsp_server::ls_types::Uri;

use super::cache::{reevaluate, remap_report, remap_violation};
use super::ctx::Ctx;
use super::document::{Deferred, Document, Outcome, Reparse};
use super::engine::Engine;
use super::verify::start;

/// What an edit did to the shown results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterEdit {
    /// Same program: kept (moved, the condition re-evaluated).
    Kept,
    /// The program changed: dropped.
    Dropped,
    /// The program changed: dropped, and the running check cancelled.
    Cancelled,
}

/// After an edit was applied: reparses, then keeps the shown results if the program is the
/// same (moving their spans, re-evaluating a changed condition), else drops them and cancels
/// the running job. A long text's parse is handed back to run off the main loop
/// ([`spawn_parse`]); its results are dropped meanwhile, as for a changed program.
pub fn after_edit(engine: &dyn Engine, d: &mut Document) -> (AfterEdit, Option<Deferred>) {
    let old_tokens = d.tokens.clone();
    let old_cond = d.cond_key.clone();
    let (changed, deferred) = match d.reparse(engine) {
        Reparse::Done(changed) => (changed, None),
        Reparse::Deferred(p) => (true, Some(p)),
    };
    if changed {
        let had_results = !d.results.is_empty();
        d.results.clear();
        d.unbounded.clear();
        d.program_version = d.version;
        if let Some(j) = d.job.take() {
            j.cancel();
            return (AfterEdit::Cancelled, deferred);
        }
        let e = if had_results {
            AfterEdit::Dropped
        } else {
            AfterEdit::Kept
        };
        return (e, deferred);
    }
    let cond_changed = old_cond != d.cond_key;
    let test = d.test.clone();
    for o in d.results.values_mut() {
        if let Outcome::Exploring(vs) | Outcome::Cancelled(vs) = o {
            for v in vs {
                remap_violation(v, &old_tokens, &d.tokens);
            }
        }
        if let Outcome::Done {
            report,
            fresh_condition,
        } = o
        {
            **report = remap_report(report, &old_tokens, &d.tokens);
            if cond_changed {
                if let Some(t) = &test {
                    reevaluate(engine, t, report);
                }
                *fresh_condition = false;
            }
        }
    }
    (AfterEdit::Kept, None)
}

/// Runs a deferred parse on a blocking thread, then (if the document is still at that text)
/// installs it, publishes its diagnostics and, when `verify` (an open, or `verifyOnChange`
/// for an edit), starts checking it. A parse told to stop, or finished for a text the document
/// has left, is dropped on that thread (freeing a huge tree takes a while).
pub fn spawn_parse(ctx: &Ctx, uri: &Uri, p: Deferred, verify_open: bool) {
    let ctx = ctx.clone();
    let uri = uri.clone();
    tokio::spawn(async move {
        let c = ctx.clone();
        let u = uri.clone();
        let installed = tokio::task::spawn_blocking(move || {
            let out = p.run(&*c.shared.engine)?;
            let mut st = c.state();
            let d = st.docs.get_mut(&u)?;
            let current = d.version == p.version
                && d.parsing.as_ref().is_some_and(|s| Arc::ptr_eq(s, &p.stop));
            if !current {
                drop(st);
                drop(out);
                return None;
            }
            d.install(out);
            Some(())
        })
        .await;
        if !matches!(installed, Ok(Some(()))) {
            return;
        }
        ctx.publish(&uri).await;
        ctx.refresh_views().await;
        if verify_open || ctx.settings().verify_on_change {
            start(&ctx, &uri).await;
        }
    });
}
