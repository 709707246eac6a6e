//! A changed test under both models (`docs/models.md#what-a-change-changes`): each entry of
//! `litmus/modelChanges` says how to ask for the test's axiomatic view under the model as it
//! was (`before`) and as saved (`after`): `litmus/axiomaticUnder {uri, model, which}`. The
//! recheck keeps the two models it compared (`catdoc::Store::compared`); the request checks the test under
//! the one asked for and answers the view `litmus/axiomatic` answers (the witness or the
//! forbidding execution), for an x86 test that of its lowered program's check (as `litmus diff`
//! checks it), the check located in the saved model's file for `after` and in the snapshot of
//! the model as it was for `before` (`super::snapshot`).

use serde::Deserialize;
use serde_json::{json, Value};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::Uri;

use litmus_engine::cat::Model;

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
    let (path, model, files) = {
        let compared = lock(&ctx.shared.cat.compared);
        let Some(c) = compared.get(&p.model) else {
            return Err(Error::invalid_params(format!(
                "no recheck compared the model {} (save it first)",
                p.model
            )));
        };
        // the check's file: the saved model (its includes as the recheck found them), or the
        // snapshot of the model as it was (its includes beside it)
        let files = match after {
            true => Some(ModelFiles::Files {
                cat: c.path.clone(),
                bell: None,
                include: c.search.clone(),
            }),
            false => c.before_file.clone().map(|cat| ModelFiles::Files {
                cat,
                bell: None,
                include: vec![],
            }),
        };
        let model = if after { &c.after } else { &c.before };
        (c.path.clone(), model.clone(), files)
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
        let file = path
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        let name = format!("{file} ({})", if after { "as saved" } else { "as it was" });
        let mut v = view(&uri, &name, &text, &model)?;
        v.files = files;
        super::site::fill(&mut v, enc);
        Ok::<_, String>(v)
    })
    .await
    .map_err(|_| Error::internal_error())?;
    view.map(Some).map_err(Error::invalid_params)
}

/// The view of the test `text` under `model` (named `name`): an AArch64, RISC-V, POWER or
/// ARMv7 test by the axiomatic engine, an x86 test by the program check (its lowered program,
/// as `litmus diff` checks it).
fn view(uri: &str, name: &str, text: &str, model: &Model) -> std::result::Result<AxView, String> {
    use litmus_engine::ast::Dialect;
    let parsed = litmus_engine::syntax::parse(text);
    let Some(test) = parsed.test else {
        return Err("the test does not parse".into());
    };
    if let Some(code) = parsed.asm {
        let r = litmus_engine::axiomatic::check(&test, &code, model, &|| false)
            .map_err(|e| e.to_string())?;
        return Ok(AxView::new(uri, name, &test, &code, text, &r));
    }
    if !matches!(test.dialect, Dialect::X86 | Dialect::X86_64) {
        return Err("not an AArch64, RISC-V, POWER, ARMv7 or x86 test".into());
    }
    let bound = litmus_engine::CheckOptions::default().loop_bound;
    let program = litmus_engine::ir::Program::lower(&test, bound)
        .map_err(|e| format!("cannot lower the test: {e}"))?;
    let r = litmus_engine::axiomatic::check_program(&test, &program, model, &|| false)
        .map_err(|e| e.to_string())?;
    AxView::program(uri, name, &test, &program, text, &r)
        .ok_or_else(|| "the test has no final condition".to_string())
}
