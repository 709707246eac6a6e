//! The fence quick fix: on a violation that a relaxed model (TSO, PSO) has and SC has not
//! ([`super::relaxed::relaxed_only`]), `textDocument/codeAction` offers a preferred quick fix
//! "Insert N fences so that TSO behaves as SC" whose edit inserts exactly the fences
//! `litmus fences` proposes (goal: SC's verdicts).
//!
//! The synthesis is a job like a check: it runs through the server's engine
//! ([`super::engine::Engine::fences`]) with the user's settings (engine, loop bound, memory
//! budget; the timeout, capped at [`LIMIT`], bounds the whole search), waits for a place in the
//! job queue (`litmus.maxJobs`), and is cancelled with the document: every change of its text,
//! closing it or shutdown drops the document's [`FenceFix`]es, which cancels a running one.
//! Its answer is kept on the document per model until the text changes, since clients ask for
//! code actions on every cursor move; a request while the job runs waits for the same job.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use litmus_engine::ast::Test;
use litmus_engine::{Control, Model};

use super::ctx::Ctx;
use super::document::{FenceFix, FenceJob, Insertions};
use super::relaxed::relaxed_only;

/// The longest a quick fix's search may take (the user's `litmus.timeout` when shorter): a
/// code action is interactive.
pub const LIMIT: Duration = Duration::from_secs(10);

/// What a request waits on: the answer, or a job to wait for.
enum Pending {
    Known(Option<Insertions>),
    Wait(tokio::sync::watch::Receiver<Option<Option<Insertions>>>),
}

/// `textDocument/codeAction`: the fence quick fix per relaxed model whose violation touches
/// the requested range.
pub async fn code_actions(ctx: &Ctx, p: CodeActionParams) -> Result<Option<CodeActionResponse>> {
    let uri = p.text_document.uri.clone();
    let pending: Option<(i32, Vec<(Model, Pending)>)> = {
        let mut st = ctx.state();
        let enc = st.enc;
        let Some(d) = st.docs.get_mut(&uri) else {
            return Ok(None);
        };
        let models = {
            let conv = super::to_proto::Conv {
                rope: &d.rope,
                enc,
                uri: &uri,
            };
            let mut models: Vec<Model> = relaxed_only(&d.results)
                .into_iter()
                .filter(|(_, v)| {
                    let r = conv.range(v.span);
                    r.start <= p.range.end && p.range.start <= r.end
                })
                .map(|(m, _)| m)
                .collect();
            models.dedup();
            models
        };
        match d.test.clone().filter(|_| !models.is_empty()) {
            None => None,
            Some(test) => {
                let mut out = Vec::new();
                for m in models {
                    let pending = match d.fences.get(&m) {
                        Some(FenceFix::Done(ins)) => Pending::Known(ins.clone()),
                        Some(FenceFix::Running(j)) => Pending::Wait(j.done.clone()),
                        None => {
                            let (job, rx) = start(ctx, &uri, d.text.clone(), test.clone(), m);
                            d.fences.insert(m, FenceFix::Running(job));
                            Pending::Wait(rx)
                        }
                    };
                    out.push((m, pending));
                }
                Some((d.version, out))
            }
        }
    };
    let Some((version, pending)) = pending else {
        return Ok(None);
    };
    let mut actions = Vec::new();
    for (m, pending) in pending {
        let ins = match pending {
            Pending::Known(ins) => ins,
            // Closed without an answer: cancelled with the document.
            Pending::Wait(mut rx) => match rx.wait_for(|v| v.is_some()).await {
                Ok(v) => v.clone().flatten(),
                Err(_) => None,
            },
        };
        let Some(ins) = ins else { continue };
        let action = ctx.read(&uri, |s| {
            let (d, conv) = (s.doc, s.conv);
            if d.version != version {
                return None;
            }
            let n = ins
                .iter()
                .map(|(_, s)| s.matches("fence").count() + s.matches("MFENCE").count())
                .sum::<usize>();
            let title = format!(
                "Insert {n} fence{} so that {} behaves as SC",
                if n == 1 { "" } else { "s" },
                m.label()
            );
            Some(conv.quick_fix(title, &ins))
        })?;
        actions.extend(action);
    }
    Ok((!actions.is_empty()).then_some(actions))
}

/// Starts the quick fix's job for `model` on `text` (called under the state lock; the job
/// itself waits for its place in the queue off it).
fn start(
    ctx: &Ctx,
    uri: &Uri,
    text: String,
    test: Arc<Test>,
    model: Model,
) -> (
    FenceJob,
    tokio::sync::watch::Receiver<Option<Option<Insertions>>>,
) {
    let id = ctx.shared.next_job.fetch_add(1, Ordering::Relaxed);
    let control = Control::new();
    let (tx, rx) = tokio::sync::watch::channel(None);
    let job = FenceJob {
        id,
        control: control.clone(),
        done: rx.clone(),
    };
    let (ctx, uri) = (ctx.clone(), uri.clone());
    tokio::spawn(async move {
        let answer = run(&ctx, id, &control, text, test, model).await;
        // A cancelled job's answer is not one: `tx` closes without it.
        let Some(ins) = answer.filter(|_| !control.is_cancelled()) else {
            return;
        };
        if let Some(d) = ctx.state().docs.get_mut(&uri) {
            if matches!(d.fences.get(&model), Some(FenceFix::Running(j)) if j.id == id) {
                d.fences.insert(model, FenceFix::Done(ins.clone()));
            }
        }
        let _ = tx.send(Some(ins));
    });
    (job, rx)
}

/// Runs the quick fix's job once it has its place in the queue: `None` if it was cancelled
/// first (or its thread failed), else the answer.
async fn run(
    ctx: &Ctx,
    id: u64,
    control: &Control,
    text: String,
    test: Arc<Test>,
    model: Model,
) -> Option<Option<Insertions>> {
    let settings = ctx.settings();
    let limit = settings
        .max_jobs
        .unwrap_or_else(super::queue::default_limit);
    ctx.shared.pool.set_limit(limit);
    let mut opts = settings.check_options();
    opts.timeout = Some(opts.timeout.map_or(LIMIT, |t| t.min(LIMIT)));
    let ctl = control
        .clone()
        .with_memory_budget(crate::memory::server_budget(settings.max_memory));
    let engine = ctx.shared.engine.clone();
    let ctl = ctl.with_workers(ctx.shared.pool.workers());
    super::queue::run_one(&ctx.shared.pool, id, control, async {}, move || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            engine.fences(&text, &test, model, &opts, &ctl)
        }))
        .unwrap_or(None)
    })
    .await
}
