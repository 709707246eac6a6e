//! A changed test under both models (`docs/models.md#what-a-change-changes`): each entry of
//! `litmus/modelChanges` says how to ask for the test's axiomatic view under the model as it
//! was (`before`) and as saved (`after`): `litmus/axiomaticUnder {uri, model, which}`. The
//! recheck keeps the two models it compared (`catdoc::Store::compared`); the request checks the test under
//! the one asked for and answers the view `litmus/axiomatic` answers (the witness or the
//! forbidding execution), the check located in the saved model's file for `after` (the model as
//! it was has no file: no location).

use serde::Deserialize;
use serde_json::{json, Value};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::Uri;

use crate::json::axsite::ModelFiles;
use crate::json::axview::AxView;
use crate::server::catdoc::path_of;
use crate::server::ctx::Ctx;
use crate::server::util::lock;

pub const METHOD: &str = "litmus/axiomaticUnder";

#[derive(Deserialize)]
pub struct UnderParams {
    pub uri: Uri,
    /// The model's URI, as the entry of `litmus/modelChanges` gives it.
    pub model: String,
    /// `before` or `after`.
    pub which: String,
}

/// What an entry of `litmus/modelChanges` carries to open its test under each model.
pub fn views(test_uri: Option<&str>, model_uri: Option<&str>) -> Value {
    let under = |which: &str| json!({"method": METHOD, "params": {"uri": test_uri, "model": model_uri, "which": which}});
    json!({"before": under("before"), "after": under("after")})
}

/// `litmus/axiomaticUnder`: the view of the test at `uri` under the model asked for.
pub async fn request(ctx: &Ctx, p: UnderParams) -> Result<Option<AxView>> {
    let after = match p.which.as_str() {
        "before" => false,
        "after" => true,
        w => {
            return Err(Error::invalid_params(format!(
                "`which` is `before` or `after`, not {w:?}"
            )))
        }
    };
    let (path, model) = {
        let compared = lock(&ctx.shared.cat.compared);
        let Some((path, before, now)) = compared.get(&p.model) else {
            return Err(Error::invalid_params(format!(
                "no recheck compared the model {} (save it first)",
                p.model
            )));
        };
        (
            path.clone(),
            if after { now.clone() } else { before.clone() },
        )
    };
    let open = ctx.state().docs.get(&p.uri).map(|d| d.text.clone());
    let text = match open {
        Some(t) => t.to_string(),
        None => {
            let file = path_of(&p.uri).ok_or_else(|| Error::invalid_params("not a file URI"))?;
            std::fs::read_to_string(&file)
                .map_err(|e| Error::invalid_params(format!("{}: {e}", file.display())))?
        }
    };
    let enc = ctx.state().enc;
    let uri = p.uri.as_str().to_string();
    let view = tokio::task::spawn_blocking(move || {
        let parsed = litmus_engine::syntax::parse(&text);
        let (Some(test), Some(code)) = (parsed.test, parsed.asm) else {
            return Err("not an AArch64, RISC-V, POWER or ARMv7 test that parses (an x86 test's verdict has no execution graph)".to_string());
        };
        let r = litmus_engine::axiomatic::check(&test, &code, &model, &|| false)
            .map_err(|e| e.to_string())?;
        let file = path.file_name().map_or(String::new(), |n| n.to_string_lossy().into_owned());
        let name = format!("{file} ({})", if after { "as saved" } else { "as it was" });
        let mut v = AxView::new(&uri, &name, &test, &code, &text, &r);
        if after {
            v.files = Some(ModelFiles::Files { cat: path, bell: None });
            super::site::fill(&mut v, enc);
        }
        Ok(v)
    })
    .await
    .map_err(|_| Error::internal_error())?;
    view.map(Some).map_err(Error::invalid_params)
}
