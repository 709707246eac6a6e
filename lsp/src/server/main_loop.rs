//! The server's one loop (rust-analyzer's main loop is the model): one long-lived task that
//! owns the running checks and consumes every message about them, in order.
//!
//! Who sends what:
//! - handlers send commands: [`Msg::Start`] a check planned under the state lock
//!   (`verify::start_with`: the loop shows the cached results and runs the rest), [`Msg::Cancel`] through [`Job::cancel`] (an edit of the program, a
//!   newer check, `didClose`, `litmus.cancel`, the client's progress cancel, shutdown);
//! - the task that asks the client for a `$/progress` token sends [`Msg::Token`];
//! - the workers of the pool (`crate::jobs`) send [`Msg::Event`]: a job started, a model's
//!   progress, a violation found while it explores, a model's result or its panic.
//!
//! The loop queues a job's models on the pool (`queue.rs` orders them), and does everything
//! the user sees of a check: `litmus/status`, `$/progress` begin, reports and end, the
//! diagnostics of a model's result (`verify::model_found`, `verify::model_done`), the cache,
//! the end of a job (its results marked cancelled, refreshes). A job ends when every one of
//! its tasks has sent its result or was taken out of the queue by a cancel; its `$/progress`
//! ends before the next job on the same worker begins, since that worker sends the next job's
//! start after the last result, on the same channel.

use std::collections::HashMap;

use tokio::sync::mpsc::UnboundedReceiver;
use tower_lsp_server::ls_types::notification::Progress as ProgressNotification;
use tower_lsp_server::ls_types::{NumberOrString, Uri};

use crate::jobs::Kind;

use super::ctx::Ctx;
use super::document::{Checked, Outcome};
use super::msg::{Event, Msg, Plan};
use super::{to_proto, verify};

/// A check the loop owns.
struct Running {
    uri: Uri,
    plan: Box<Plan>,
    token: Option<String>,
    /// Its models were queued on the pool.
    submitted: bool,
    /// It had to wait for a worker (`litmus/status` said `queued`).
    queued: bool,
    /// Its `$/progress` began.
    begun: bool,
    /// Models with a result.
    done: usize,
    /// Tasks queued and not accounted for (a result, or taken out by a cancel).
    left: usize,
}

/// The loop: runs until the server's runtime ends.
pub async fn run(ctx: Ctx, mut rx: UnboundedReceiver<Msg>) {
    let mut jobs: HashMap<u64, Running> = HashMap::new();
    while let Some(msg) = rx.recv().await {
        match msg {
            Msg::Start {
                uri,
                plan,
                cancelled_old,
            } => {
                if cancelled_old {
                    ctx.send_status(&uri, "cancelled").await;
                }
                ctx.publish(&uri).await;
                let Some(plan) = plan else {
                    ctx.send_status(&uri, "done").await;
                    refresh(&ctx);
                    continue;
                };
                ctx.send_status(&uri, "running").await;
                let id = plan.job.id;
                let mut r = Running {
                    uri,
                    plan,
                    token: None,
                    submitted: false,
                    queued: false,
                    begun: false,
                    done: 0,
                    left: 0,
                };
                if r.plan.job.control.is_cancelled() {
                    finish(&ctx, r).await;
                } else if ctx.caps().work_done_progress {
                    // Asked off the loop; the answer comes back as `Msg::Token`.
                    let (c, tx) = (ctx.clone(), ctx.shared.tx.clone());
                    tokio::spawn(async move {
                        let t = format!("litmus/verify/{id}");
                        let token = NumberOrString::String(t.clone());
                        let ok = c.client.create_work_done_progress(token).await.is_ok();
                        let _ = tx.send(Msg::Token(id, ok.then_some(t)));
                    });
                    jobs.insert(id, r);
                } else {
                    submit(&ctx, &mut r).await;
                    jobs.insert(id, r);
                }
            }
            Msg::Token(id, token) => {
                let Some(mut r) = jobs.remove(&id) else {
                    continue;
                };
                if r.plan.job.control.is_cancelled() {
                    finish(&ctx, r).await;
                    continue;
                }
                if let Some(j) = ctx
                    .state()
                    .docs
                    .get_mut(&r.uri)
                    .and_then(|d| d.job.as_mut())
                    .filter(|j| j.id == id)
                {
                    j.token = token.clone();
                }
                r.token = token;
                submit(&ctx, &mut r).await;
                jobs.insert(id, r);
            }
            Msg::Cancel(id) => {
                let Some(r) = jobs.get_mut(&id) else {
                    continue;
                };
                if r.submitted {
                    r.left -= ctx.shared.pool.with(|q| q.cancel(id));
                }
                if !r.submitted || r.left == 0 {
                    let r = jobs.remove(&id).expect("present");
                    finish(&ctx, r).await;
                }
            }
            Msg::Event(e) => {
                let Some(r) = jobs.get_mut(&e.job) else {
                    continue;
                };
                if event(&ctx, r, e.kind).await {
                    let r = jobs.remove(&e.job).expect("present");
                    finish(&ctx, r).await;
                }
            }
        }
    }
}

/// Queues a job's models on the pool.
async fn submit(ctx: &Ctx, r: &mut Running) {
    let id = r.plan.job.id;
    let tx = ctx.shared.tx.clone();
    let tasks = verify::tasks(ctx, &r.plan);
    r.left = tasks.len();
    r.submitted = true;
    let on_start = Box::new(move || {
        let _ = tx.send(Msg::Event(Event::new(id, Kind::Started(()))));
    });
    let waits = ctx.shared.pool.with(|q| {
        q.push(id, on_start, tasks);
        q.is_waiting(id)
    });
    if waits {
        r.queued = true;
        ctx.send_status(&r.uri, "queued").await;
    }
}

/// Handles a worker's event; returns whether the job is over.
async fn event(ctx: &Ctx, r: &mut Running, kind: Kind<(), Option<Checked>>) -> bool {
    let total = r.plan.models.len();
    let report = |t: &String, msg: String, done: usize| {
        to_proto::progress_report(t, msg, (done * 100 / total.max(1)) as u32)
    };
    let (m, result) = match kind {
        Kind::Started(()) => {
            r.begun = true;
            if r.queued && !r.plan.job.control.is_cancelled() {
                ctx.send_status(&r.uri, "running").await;
            }
            if let Some(t) = &r.token {
                let list = r.plan.models.iter().map(|m| m.label());
                let list = list.collect::<Vec<_>>().join(", ");
                let title = format!("Verifying {}", r.plan.test.name.text);
                let begin = to_proto::progress_begin(t, title, list);
                ctx.client
                    .send_notification::<ProgressNotification>(begin)
                    .await;
            }
            return false;
        }
        Kind::Begun(m) => {
            if verify::model_begun(ctx, &r.uri, &r.plan, m) {
                refresh(ctx);
            }
            return false;
        }
        Kind::Progress(m, p) => {
            if let Some(t) = r.token.as_ref().filter(|_| r.begun) {
                let msg = format!(
                    "{}: {} executions, {} states",
                    m.label(),
                    p.executions,
                    p.states
                );
                let n = report(t, msg, r.done);
                ctx.client
                    .send_notification::<ProgressNotification>(n)
                    .await;
            }
            return false;
        }
        Kind::Found(m, v) => {
            if verify::model_found(ctx, &r.uri, &r.plan, m, v) {
                ctx.publish(&r.uri).await;
                ctx.send_status(&r.uri, "running").await;
                refresh(ctx);
            }
            return false;
        }
        Kind::Done(m, Some(c)) => (m, Ok(c)),
        Kind::Failed(Some(m), msg) => (m, Err(msg)),
        // A model skipped after a cancel.
        Kind::Done(_, None) | Kind::Failed(None, _) => {
            r.left -= 1;
            return r.left == 0;
        }
    };
    r.left -= 1;
    r.done += 1;
    if verify::model_done(ctx, &r.uri, &r.plan, m, result) {
        ctx.publish(&r.uri).await;
        ctx.send_status(&r.uri, "running").await;
    }
    if let Some(t) = &r.token {
        let msg = format!("{} done ({}/{total})", m.label(), r.done);
        let n = report(t, msg, r.done);
        ctx.client
            .send_notification::<ProgressNotification>(n)
            .await;
    }
    r.left == 0
}

/// A job is over: it leaves the document, its running models become cancelled if it was, its
/// progress ends, and the document's status says so.
async fn finish(ctx: &Ctx, r: Running) {
    let job = &r.plan.job;
    let cancelled = job.control.is_cancelled();
    let current = {
        let mut st = ctx.state();
        match st.docs.get_mut(&r.uri) {
            Some(d) if d.job.as_ref().is_some_and(|j| j.id == job.id) => {
                d.job = None;
                if cancelled {
                    // What was found stays, marked incomplete (as the CLI keeps it on Ctrl-C).
                    for o in d.results.values_mut() {
                        if o.running() {
                            *o = Outcome::Cancelled(o.violations().to_vec());
                        }
                    }
                }
                true
            }
            _ => false,
        }
    };
    if let Some(t) = r.token.as_ref().filter(|_| r.begun) {
        let msg = if cancelled { "cancelled" } else { "done" };
        ctx.client
            .send_notification::<ProgressNotification>(to_proto::progress_end(t, msg))
            .await;
    }
    if current {
        if cancelled {
            ctx.publish(&r.uri).await;
        }
        let state = if cancelled { "cancelled" } else { "done" };
        ctx.send_status(&r.uri, state).await;
        refresh(ctx);
    }
}

/// Asks the client to refresh lenses and hints, off the loop (a request waits for its answer).
fn refresh(ctx: &Ctx) {
    let ctx = ctx.clone();
    tokio::spawn(async move { ctx.refresh_views().await });
}
