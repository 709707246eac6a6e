//! The axiomatic check of herd's AArch64, RISC-V, POWER, ARMv7 and C tests as a job
//! (`docs/design/lsp.md#axiomatic-tests`): started where SC/TSO/PSO tests start their checks
//! (`verify::start_with`), on a blocking thread after a place in the queue, cancelled by the
//! next check, a close or shutdown. What it shows is computed from the answer it keeps on the
//! document (`axiom.rs`).

use std::sync::atomic::Ordering;
use std::sync::Arc;

use tower_lsp_server::ls_types::Uri;

use litmus_engine::Control;

use super::axiom::{is_asm, is_c, key};
use super::ctx::Ctx;
use super::document::{AxJob, AxState};
use super::engine::AxFail;
use crate::json::axsite::ModelFiles;
use crate::json::axview::AxView;

/// Starts the check of an AArch64 or RISC-V document (replacing, so cancelling, a running
/// one). Returns false, doing nothing, for any other document.
pub async fn start(ctx: &Ctx, uri: &Uri) -> bool {
    let (id, control, text, c) = {
        let mut st = ctx.state();
        let Some(d) = st.docs.get_mut(uri) else {
            return false;
        };
        if !d.test.as_deref().is_some_and(is_asm) {
            return false;
        }
        let id = ctx.shared.next_job.fetch_add(1, Ordering::Relaxed);
        let control = Control::new();
        d.axiom = Some(AxState::Running(AxJob {
            id,
            key: key(d),
            control: control.clone(),
        }));
        let c = d.test.as_deref().is_some_and(is_c);
        (id, control, d.text.clone(), c)
    };
    // a C test: the model and include path the settings name, read before the job
    let setting = match c {
        true => {
            let path = super::cat::path_of(uri);
            super::cat::settings::of_file(ctx, path.as_deref()).await
        }
        false => Default::default(),
    };
    let text = (text, c.then_some(setting));
    ctx.publish(uri).await;
    ctx.send_status(uri, "running").await;
    let (ctx, uri) = (ctx.clone(), uri.clone());
    tokio::spawn(async move {
        let Some(answer) = run(&ctx, id, &control, text, uri.as_str()).await else {
            return;
        };
        {
            let mut st = ctx.state();
            let Some(d) = st.docs.get_mut(&uri) else {
                return;
            };
            let key = match &d.axiom {
                Some(AxState::Running(j)) if j.id == id => j.key.clone(),
                _ => return,
            };
            d.axiom = Some(AxState::Done { key, answer });
        }
        ctx.publish(&uri).await;
        ctx.refresh_views().await;
        ctx.send_status(&uri, "done").await;
    });
    true
}

/// The job once it has its place: `None` if it was cancelled.
async fn run(
    ctx: &Ctx,
    id: u64,
    control: &Control,
    (text, c): (String, Option<super::cat::settings::Folder>),
    uri: &str,
) -> Option<std::result::Result<Arc<AxView>, AxFail>> {
    let limit = ctx
        .settings()
        .max_jobs
        .unwrap_or_else(super::queue::default_limit);
    ctx.shared.pool.set_limit(limit);
    let engine = ctx.shared.engine.clone();
    let ctl = control.clone();
    let uri = uri.to_string();
    let shared = ctx.shared.clone();
    let enc = ctx.state().enc;
    let answer = super::queue::run_one(&ctx.shared.pool, id, control, async {}, move || {
        let stop = || ctl.is_cancelled();
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            if let Some(setting) = c {
                let path = uri
                    .parse::<Uri>()
                    .ok()
                    .and_then(|u| super::cat::path_of(&u));
                let models = &shared.cmodels;
                let workers = shared.pool.workers();
                let (text, uri) = (&text, &uri);
                let setting = (setting.model, &setting.include[..]);
                return super::cdoc::check(Some(&workers), models, setting, path, text, uri, &stop)
                    .map(|v| {
                        let mut v = Arc::unwrap_or_clone(v);
                        super::cat::site::fill(&mut v, enc);
                        Arc::new(v)
                    });
            }
            engine.axiomatic(&text, &stop).map(|out| {
                let mut view =
                    AxView::new(&uri, &out.model, &out.test, &out.code, &text, &out.report);
                view.files =
                    crate::catmodel::builtin::file_of(out.code.arch).map(ModelFiles::Builtin);
                super::cat::site::fill(&mut view, enc);
                Arc::new(view)
            })
        }))
        .unwrap_or_else(|e| {
            Err(AxFail {
                message: format!(
                    "the axiomatic check crashed: {}",
                    super::util::panic_message(&*e)
                ),
                span: None,
            })
        })
    })
    .await?;
    (!control.is_cancelled()).then_some(answer)
}
