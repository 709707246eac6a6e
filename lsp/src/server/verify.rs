//! Verification in the background: one worker thread per job, cancellation, `$/progress`,
//! `litmus/status`; the content-keyed result cache is in `cache.rs`.
//!
//! A job checks one document's AST under the models that the cache cannot answer, one model
//! after another on a dedicated thread (the MCR engine builds its Z3 context on the calling
//! thread), each check inside `catch_unwind`. A newer program (an edit that changes the program
//! tokens, or a new verification) cancels the older job through its [`Control`] at once. Results
//! carry the job id and the program tokens they were computed from: a result whose job is no
//! longer the document's job is dropped (never shown), and spans of a result are moved to the
//! document's current text token by token ([`TokenMap::remap`]).

use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tower_lsp_server::ls_types::notification::Progress as ProgressNotification;
use tower_lsp_server::ls_types::*;

use litmus_engine::ast::Test;
use litmus_engine::report::Violation;
use litmus_engine::{Control, Model};

use super::cache::{adapt, remap_violation};
pub use super::cache::{Cache, CacheEntry};
use super::document::{Job, Outcome};
pub use super::edit::{after_edit, spawn_parse, AfterEdit};
use super::engine::Engine;
use super::queue::Slot;
use super::tokens::TokenMap;
use super::{panic_message, to_proto, Ctx};

pub async fn start(ctx: &Ctx, uri: &Uri) {
    start_with(ctx, uri, true, false).await
}

/// `litmus.verify`: checks again, ignoring the cache.
pub async fn start_forced(ctx: &Ctx, uri: &Uri) {
    start_with(ctx, uri, false, false).await
}

struct Plan {
    job: Job,
    test: Arc<Test>,
    tokens: TokenMap,
    cond_key: String,
    models: Vec<Model>,
    opts: litmus_engine::CheckOptions,
    opts_key: String,
}

/// `unbounded`: for every iteration (`super::unbounded`, never answered from the cache).
pub(super) async fn start_with(ctx: &Ctx, uri: &Uri, use_cache: bool, unbounded: bool) {
    if super::axiom::start(ctx, uri).await {
        return;
    }
    let settings = ctx.settings();
    let opts = settings.check_options();
    let opts_key = format!("{}{opts:?}", if unbounded { "unbounded " } else { "" });
    let mut cancelled_old = false;
    let plan = {
        let mut st = ctx.state();
        let st = &mut *st;
        let Some(d) = st.docs.get_mut(uri) else {
            return;
        };
        if let Some(j) = d.job.take() {
            j.control.cancel();
            cancelled_old = true;
        }
        d.results.retain(|m, _| settings.models.contains(m));
        d.unbounded.clear();
        match d.test.clone() {
            None => None,
            Some(test) => {
                let mut need = Vec::new();
                {
                    let cache = &st.cache;
                    for &m in &settings.models {
                        match cache.get(&d.tokens.key, &opts_key, m).filter(|_| use_cache) {
                            Some(e) => {
                                let o = adapt(&*ctx.shared.engine, d, e);
                                if !matches!(
                                    o,
                                    Outcome::Done {
                                        fresh_condition: true,
                                        ..
                                    }
                                ) {
                                    need.push(m);
                                }
                                d.results.insert(m, o);
                            }
                            None => {
                                need.push(m);
                                d.results.insert(m, Outcome::Running);
                            }
                        }
                    }
                }
                if need.is_empty() {
                    None
                } else {
                    let job = Job {
                        id: ctx.shared.next_job.fetch_add(1, Ordering::Relaxed),
                        control: Control::new(),
                        token: None,
                        unbounded,
                    };
                    d.job = Some(job.clone());
                    Some(Plan {
                        job,
                        test,
                        tokens: d.tokens.clone(),
                        cond_key: d.cond_key.clone(),
                        models: need,
                        opts: opts.clone(),
                        opts_key: opts_key.clone(),
                    })
                }
            }
        }
    };
    if cancelled_old {
        ctx.send_status(uri, "cancelled").await;
    }
    ctx.publish(uri).await;
    match plan {
        None => {
            ctx.send_status(uri, "done").await;
            ctx.refresh_views().await;
        }
        Some(plan) => {
            ctx.send_status(uri, "running").await;
            let ctx = ctx.clone();
            let uri = uri.clone();
            tokio::spawn(async move { run_job(ctx, uri, plan).await });
        }
    }
}

enum Msg {
    Progress(Model, litmus_engine::Progress),
    /// A violation found while the model's check still explores.
    Found(Model, Violation),
    Done(Model, Result<super::unbounded::Checked, String>),
    /// A worker returned (sent last), with its place: freed after the job's progress ends, so
    /// the client sees a job end before the one taking its place begins.
    Exit(Option<Slot>),
}

/// Sends [`Msg::Exit`] with the worker's place when its `run` returns, however it returns.
struct ExitGuard(tokio::sync::mpsc::UnboundedSender<Msg>, Option<Slot>);

impl Drop for ExitGuard {
    fn drop(&mut self) {
        let _ = self.0.send(Msg::Exit(self.1.take()));
    }
}

async fn run_job(ctx: Ctx, uri: Uri, plan: Plan) {
    let Plan {
        job,
        test,
        tokens,
        cond_key,
        models,
        opts,
        opts_key,
    } = plan;
    // Wait for a place in the queue (see `queue`); a job cancelled meanwhile never runs.
    let settings = ctx.settings();
    let limit = settings
        .max_jobs
        .unwrap_or_else(super::queue::default_limit);
    let slot = ctx
        .shared
        .queue
        .acquire(job.id, limit, &job.control, ctx.send_status(&uri, "queued"))
        .await;
    if slot.is_some() && !job.control.is_cancelled() {
        ctx.send_status(&uri, "running").await;
    }
    // The progress token, if the client can show progress.
    let mut token = None;
    if ctx.caps().work_done_progress {
        let t = format!("litmus/verify/{}", job.id);
        if ctx
            .client
            .create_work_done_progress(NumberOrString::String(t.clone()))
            .await
            .is_ok()
        {
            token = Some(t);
        }
    }
    {
        let mut st = ctx.state();
        match st
            .docs
            .get_mut(&uri)
            .and_then(|d| d.job.as_mut())
            .filter(|j| j.id == job.id)
        {
            Some(j) => j.token = token.clone(),
            None => return, // superseded or closed while we asked for a token
        }
    }
    let model_list = models
        .iter()
        .map(|m| m.label())
        .collect::<Vec<_>>()
        .join(", ");
    if let Some(t) = &token {
        let begin = to_proto::progress_begin(
            t,
            format!("Verifying {}", test.name.text),
            model_list.clone(),
        );
        ctx.client
            .send_notification::<ProgressNotification>(begin)
            .await;
    }

    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Msg>();
    let control = job
        .control
        .clone()
        .with_memory_budget(crate::memory::budget(
            settings.max_memory,
            "set by litmus.maxMemory",
        ))
        .with_workers(ctx.shared.queue.workers(limit));
    // One worker thread per place held: the job's own, and for its other models the places
    // free right now (never one a waiting job could have): models run in parallel when
    // `maxJobs` and the queue allow, else one after another.
    let mut slots = Vec::new();
    if let Some(s) = slot.filter(|_| !job.control.is_cancelled()) {
        slots.push(s);
        slots.extend(
            ctx.shared
                .queue
                .try_more(limit, models.len().saturating_sub(1)),
        );
    }
    let pending = Arc::new(Mutex::new(
        models.iter().copied().collect::<VecDeque<Model>>(),
    ));
    let (mut started, mut spawn_error) = (0, None);
    for (i, slot) in slots.into_iter().enumerate() {
        let w = Worker {
            tx: tx.clone(),
            engine: ctx.shared.engine.clone(),
            test: test.clone(),
            opts: opts.clone(),
            control: control.clone(),
            pending: pending.clone(),
            unbounded: job.unbounded,
        };
        let spawned = std::thread::Builder::new()
            .name(format!("litmus-check-{}-{i}", job.id))
            .spawn(move || w.run(slot));
        match spawned {
            Ok(_) => started += 1,
            Err(e) => spawn_error = Some(e),
        }
    }
    drop(tx);
    if let (0, Some(e)) = (started, spawn_error) {
        let mut st = ctx.state();
        if let Some(d) = st.docs.get_mut(&uri) {
            for m in &models {
                d.results.insert(
                    *m,
                    Outcome::Crashed(format!("cannot start a worker thread: {e}")),
                );
            }
        }
    }

    let total = models.len();
    let mut done = 0;
    // Until every worker has said it returned: not until the channel closes, since clones of
    // the job's `Control` (whose callbacks hold senders) may outlive the check a moment, in
    // what an engine frees in the background.
    let mut exited = 0;
    let mut places = Vec::new();
    while exited < started {
        let Some(msg) = rx.recv().await else { break };
        match msg {
            Msg::Exit(place) => {
                exited += 1;
                places.extend(place);
            }
            Msg::Progress(m, p) => {
                if let Some(t) = &token {
                    let report = to_proto::progress_report(
                        t,
                        format!(
                            "{}: {} executions, {} states",
                            m.label(),
                            p.executions,
                            p.states
                        ),
                        (done * 100 / total) as u32,
                    );
                    ctx.client
                        .send_notification::<ProgressNotification>(report)
                        .await;
                }
            }
            Msg::Found(m, v) => {
                if model_found(&ctx, &uri, &job, &tokens, m, v) {
                    ctx.publish(&uri).await;
                    ctx.send_status(&uri, "running").await;
                    ctx.refresh_views().await;
                }
            }
            Msg::Done(m, r) => {
                done += 1;
                let shown = model_done(&ctx, &uri, &job, &tokens, (&cond_key, &opts_key), m, r);
                if shown {
                    ctx.publish(&uri).await;
                    ctx.send_status(&uri, "running").await;
                }
                if let Some(t) = &token {
                    let report = to_proto::progress_report(
                        t,
                        format!("{} done ({done}/{total})", m.label()),
                        (done * 100 / total) as u32,
                    );
                    ctx.client
                        .send_notification::<ProgressNotification>(report)
                        .await;
                }
            }
        }
    }

    // Every worker is finished.
    let cancelled = job.control.is_cancelled();
    let current = {
        let mut st = ctx.state();
        match st.docs.get_mut(&uri) {
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
    if let Some(t) = &token {
        let msg = if cancelled { "cancelled" } else { "done" };
        ctx.client
            .send_notification::<ProgressNotification>(to_proto::progress_end(t, msg))
            .await;
    }
    drop(places);
    if current {
        if cancelled {
            ctx.publish(&uri).await;
        }
        ctx.send_status(&uri, if cancelled { "cancelled" } else { "done" })
            .await;
        ctx.refresh_views().await;
    }
}

/// What a worker thread needs: it checks the job's models one at a time until none is left.
struct Worker {
    tx: tokio::sync::mpsc::UnboundedSender<Msg>,
    engine: Arc<dyn Engine>,
    test: Arc<Test>,
    opts: litmus_engine::CheckOptions,
    control: Control,
    pending: Arc<Mutex<VecDeque<Model>>>,
    unbounded: bool,
}

impl Worker {
    /// Runs on its own thread, holding its place in the queue until it returns.
    fn run(self, slot: Slot) {
        let _exit = ExitGuard(self.tx.clone(), Some(slot));
        loop {
            if self.control.is_cancelled() {
                break;
            }
            let next = self
                .pending
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .pop_front();
            let Some(m) = next else { break };
            let last = Arc::new(Mutex::new(Instant::now()));
            let (txp, txf) = (self.tx.clone(), self.tx.clone());
            let ctl = self
                .control
                .clone()
                .with_progress(move |p| {
                    let mut l = last.lock().unwrap_or_else(|e| e.into_inner());
                    if l.elapsed() >= Duration::from_millis(50) {
                        *l = Instant::now();
                        let _ = txp.send(Msg::Progress(m, p.clone()));
                    }
                })
                .with_on_violation(move |v| {
                    let _ = txf.send(Msg::Found(m, v.clone()));
                });
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let (e, o) = (&*self.engine, (&self.opts, &ctl));
                super::unbounded::check(e, &self.test, m, o, self.unbounded)
            }))
            .map_err(|e| panic_message(&*e));
            if self.tx.send(Msg::Done(m, r)).is_err() {
                break;
            }
        }
    }
}

/// Shows a violation a running check just found, if the job is still the document's: the
/// model's outcome becomes (or grows) `Exploring` until its complete report arrives. Returns
/// whether it is shown.
fn model_found(
    ctx: &Ctx,
    uri: &Uri,
    job: &Job,
    tokens: &TokenMap,
    m: Model,
    mut v: Violation,
) -> bool {
    if job.control.is_cancelled() {
        return false;
    }
    let mut st = ctx.state();
    let Some(d) = st.docs.get_mut(uri) else {
        return false;
    };
    if d.job.as_ref().map(|j| j.id) != Some(job.id) || d.tokens.key != tokens.key {
        return false;
    }
    remap_violation(&mut v, tokens, &d.tokens);
    // A condition found violated while exploring is reported where the execution ended; the
    // complete report puts it on the condition: so does the first found, so it does not move.
    if v.kind == litmus_engine::report::ViolationKind::Condition {
        if let Some(c) = d.test.as_ref().and_then(|t| t.condition.as_ref()) {
            v.span = c.span;
        }
    }
    match d.results.get_mut(&m) {
        Some(Outcome::Exploring(vs)) => {
            if vs.iter().any(|w| (w.kind, w.span) == (v.kind, v.span)) {
                return false;
            }
            vs.push(v);
        }
        Some(Outcome::Running) | None => {
            d.results.insert(m, Outcome::Exploring(vec![v]));
        }
        Some(_) => return false,
    }
    true
}

/// Records one model's result: caches it (unless the job was cancelled) and shows it if the job
/// is still the document's job. Returns whether it is shown.
fn model_done(
    ctx: &Ctx,
    uri: &Uri,
    job: &Job,
    tokens: &TokenMap,
    (cond_key, opts_key): (&str, &str),
    m: Model,
    r: Result<super::unbounded::Checked, String>,
) -> bool {
    if job.control.is_cancelled() {
        return false;
    }
    let (r, u) = r.map_or_else(|e| (Err(e), None), |(r, u)| (Ok(r), u));
    let entry = r.as_ref().ok().map(|report| CacheEntry {
        tokens: tokens.clone(),
        cond_key: cond_key.to_string(),
        report: report.clone(),
    });
    let mut st = ctx.state();
    let st = &mut *st;
    if let Some(e) = &entry {
        st.cache.insert(opts_key, m, e.clone());
    }
    let Some(d) = st.docs.get_mut(uri) else {
        return false;
    };
    if d.job.as_ref().map(|j| j.id) != Some(job.id) || d.tokens.key != tokens.key {
        return false; // stale: a newer job or program owns this document now
    }
    let o = match (entry, r) {
        (Some(e), _) => adapt(&*ctx.shared.engine, d, &e),
        (None, Err(msg)) => Outcome::Crashed(msg),
        (None, Ok(_)) => return false,
    };
    d.results.insert(m, o);
    super::unbounded::record(d, m, u);
    true
}
