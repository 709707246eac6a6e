//! The handlers of the custom requests (registered in [`super::backend::service`]), thin as the
//! standard ones: each reads a [`super::state::Snapshot`] and calls its request's pure
//! function.

use tower_lsp_server::jsonrpc::{Error, Result};

use litmus_engine::report::Model;

use super::axiom::{self, AxParams};
use super::backend::Backend;
use super::trace::{self, TraceParams};
use crate::json::axview::AxView;
use crate::json::trace as out;

impl Backend {
    /// `litmus/trace` (registered in [`super::backend::service`]).
    pub async fn trace(&self, p: TraceParams) -> Result<Option<out::Trace>> {
        let model = match p.model.as_deref() {
            None => None,
            Some(s) => Some(
                Model::parse(s)
                    .ok_or_else(|| Error::invalid_params(format!("unknown model {s:?}")))?,
            ),
        };
        let r = self
            .ctx
            .read(&p.uri, |snap| trace::request(snap, &p, model))?;
        match r {
            None => Ok(None),
            Some(Ok(v)) => Ok(Some(v)),
            Some(Err(e)) => Err(Error::invalid_params(format!(
                "this counterexample no longer replays ({e}); verify again"
            ))),
        }
    }

    /// `litmus/axiomaticUnder {uri, model, which}`: a changed test's view under the model as
    /// it was or as saved (`super::cat::under`).
    pub async fn axiomatic_under(
        &self,
        p: super::cat::under::UnderParams,
    ) -> Result<Option<AxView>> {
        super::cat::under::request(&self.ctx, p).await
    }

    /// `litmus/axiomatic {uri}`: the current answer's [`AxView`], or `null` (not an AArch64 or
    /// RISC-V document, not checked yet, or it could not be checked).
    pub async fn axiomatic(&self, p: AxParams) -> Result<Option<AxView>> {
        super::cat::values::touch(&self.ctx, &p.uri);
        self.ctx
            .read(&p.uri, |snap| match axiom::current(snap.doc) {
                Some(Ok(v)) => Some((**v).clone()),
                _ => None,
            })
    }
}
