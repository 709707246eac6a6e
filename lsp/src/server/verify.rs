//! Verification in the background: planning a check, its tasks, and what a model's result does
//! to the document; the main loop (`main_loop.rs`) runs the job (queue, cancellation,
//! `$/progress`, `litmus/status`); the content-keyed result cache is in `cache.rs`.
//!
//! A job checks one document's AST under the models that the cache cannot answer, one task per
//! model on the process's pool of workers (`crate::jobs`), in parallel when `maxJobs` allows,
//! each check inside `catch_unwind`. A newer program (an edit that changes the program
//! tokens, or a new verification) cancels the older job through its [`Control`] at once. Results
//! carry the job id and the program tokens they were computed from: a result whose job is no
//! longer the document's job is dropped (never shown), and spans of a result are moved to the
//! document's current text token by token ([`TokenMap::remap`]).

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tower_lsp_server::ls_types::*;

use litmus_engine::ast::Test;
use litmus_engine::report::Violation;
use litmus_engine::{Control, Model};

use super::cache::{adapt, remap_violation, CacheEntry};
use super::ctx::Ctx;
use super::document::{Checked, Job, OnCancel, Outcome};
use super::engine::Engine;
use super::msg::{Event, Msg, Plan};
use super::util::panic_message;
use crate::jobs::{Kind, Task};

pub async fn start(ctx: &Ctx, uri: &Uri) {
    start_with(ctx, uri, true, false).await
}

/// `litmus.verify`: checks again, ignoring the cache.
pub async fn start_forced(ctx: &Ctx, uri: &Uri) {
    start_with(ctx, uri, false, false).await
}

/// `litmus.verifyUnbounded`, and a save with `litmus.unbounded: "onSave"`: checks the
/// document for every iteration, as a job like the others (the queue, cancellation, progress).
pub async fn start_unbounded(ctx: &Ctx, uri: &Uri) {
    start_with(ctx, uri, false, true).await
}

/// `unbounded`: for every iteration (`super::unbounded`, never answered from the cache).
async fn start_with(ctx: &Ctx, uri: &Uri, use_cache: bool, unbounded: bool) {
    if super::axcheck::start(ctx, uri).await {
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
            j.cancel();
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
                                d.results.insert(m, Outcome::Waiting);
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
                        tx: on_cancel(ctx),
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
    // The main loop shows the cached results and runs the rest.
    ctx.send(Msg::Start {
        uri: uri.clone(),
        plan: plan.map(Box::new),
        cancelled_old,
    });
}

/// The tasks of a job, one per model, for the pool: each checks its model inside
/// `catch_unwind` on a worker thread (the MCR engine builds its Z3 context on the calling
/// thread) and sends the main loop its progress, the violations it finds while exploring, and
/// its result (`None` when the job was cancelled before the model began).
pub(super) fn tasks(ctx: &Ctx, plan: &Plan) -> Vec<Task> {
    let settings = ctx.settings();
    let limit = settings
        .max_jobs
        .unwrap_or_else(super::queue::default_limit);
    ctx.shared.pool.set_limit(limit);
    let control = plan
        .job
        .control
        .clone()
        .with_memory_budget(crate::memory::server_budget(settings.max_memory))
        .with_workers(ctx.shared.pool.workers());
    let check = Arc::new(Check {
        tx: ctx.shared.tx.clone(),
        job: plan.job.id,
        engine: ctx.shared.engine.clone(),
        test: plan.test.clone(),
        opts: plan.opts.clone(),
        control,
        unbounded: plan.job.unbounded,
    });
    let task = |m: Model| -> Task {
        let c = check.clone();
        Box::new(move || c.run(m))
    };
    plan.models.iter().map(|&m| task(m)).collect()
}

/// What a job's tasks share.
struct Check {
    tx: super::msg::Sender,
    job: u64,
    engine: Arc<dyn Engine>,
    test: Arc<Test>,
    opts: litmus_engine::CheckOptions,
    control: Control,
    unbounded: bool,
}

impl Check {
    fn send(&self, kind: Kind<(), Option<Checked>>) {
        let _ = self.tx.send(Msg::Event(Event::new(self.job, kind)));
    }

    /// Checks model `m` on a worker of the pool.
    fn run(&self, m: Model) {
        if self.control.is_cancelled() {
            return self.send(Kind::Done(m, None));
        }
        self.send(Kind::Begun(m));
        let last = Arc::new(Mutex::new(Instant::now()));
        let (txp, txf, job) = (self.tx.clone(), self.tx.clone(), self.job);
        let ctl = self
            .control
            .clone()
            .with_progress(move |p| {
                let mut l = last.lock().unwrap_or_else(|e| e.into_inner());
                if l.elapsed() >= Duration::from_millis(50) {
                    *l = Instant::now();
                    let e = Event::new(job, Kind::Progress(m, p.clone()));
                    let _ = txp.send(Msg::Event(e));
                }
            })
            .with_on_violation(move |v| {
                let _ = txf.send(Msg::Event(Event::new(job, Kind::Found(m, v.clone()))));
            });
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let (e, o) = (&*self.engine, (&self.opts, &ctl));
            super::unbounded::check(e, &self.test, m, o, self.unbounded)
        }));
        match r {
            Ok(c) => self.send(Kind::Done(m, Some(c))),
            Err(e) => self.send(Kind::Failed(Some(m), panic_message(&*e))),
        }
    }
}

/// A model's check has a worker: its outcome goes from `Waiting` to `Running`, if the job is
/// still the document's. Returns whether that changed what is shown.
pub(super) fn model_begun(ctx: &Ctx, uri: &Uri, plan: &Plan, m: Model) -> bool {
    let mut st = ctx.state();
    let Some(d) = st.docs.get_mut(uri) else {
        return false;
    };
    if d.job.as_ref().map(|j| j.id) != Some(plan.job.id) {
        return false;
    }
    match d.results.get_mut(&m) {
        Some(o @ Outcome::Waiting) => {
            *o = Outcome::Running;
            true
        }
        _ => false,
    }
}

/// Shows a violation a running check just found, if the job is still the document's: the
/// model's outcome becomes (or grows) `Exploring` until its complete report arrives. Returns
/// whether it is shown.
pub(super) fn model_found(ctx: &Ctx, uri: &Uri, plan: &Plan, m: Model, mut v: Violation) -> bool {
    let (job, tokens) = (&plan.job, &plan.tokens);
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
        Some(Outcome::Waiting | Outcome::Running) | None => {
            d.results.insert(m, Outcome::Exploring(vec![v]));
        }
        Some(_) => return false,
    }
    true
}

/// Records one model's result: caches it (unless the job was cancelled) and shows it if the job
/// is still the document's job. Returns whether it is shown.
pub(super) fn model_done(
    ctx: &Ctx,
    uri: &Uri,
    plan: &Plan,
    m: Model,
    r: Result<Checked, String>,
) -> bool {
    let (job, tokens) = (&plan.job, &plan.tokens);
    let (cond_key, opts_key) = (plan.cond_key.as_str(), plan.opts_key.as_str());
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
    let mut o = match (entry, r) {
        (Some(e), _) => adapt(&*ctx.shared.engine, d, &e),
        (None, Err(msg)) => Outcome::Crashed(msg),
        (None, Ok(_)) => return false,
    };
    if let (Outcome::Done { report, .. }, Some(Outcome::Exploring(shown))) =
        (&mut o, d.results.get(&m))
    {
        keep_shown(report, shown);
    }
    d.results.insert(m, o);
    super::unbounded::record(d, m, u);
    true
}

/// A stopped check's report keeps every violation the editor already showed for it (found
/// while exploring): whatever stopped the check (time, memory), a bug once shown stays shown.
/// The engine's report has them all already (a stopped portfolio reports every member's
/// findings); this holds the promise for any engine the server is given. A complete report is
/// exact and left as it is.
fn keep_shown(report: &mut litmus_engine::ModelReport, shown: &[Violation]) {
    if report.complete {
        return;
    }
    for v in shown {
        if !report
            .violations
            .iter()
            .any(|w| (w.kind, w.span) == (v.kind, v.span))
        {
            report.violations.push(v.clone());
            if v.kind == litmus_engine::report::ViolationKind::Condition {
                if let Some(c) = report
                    .condition
                    .as_mut()
                    .filter(|c| c.kind != litmus_engine::ast::Quantifier::Exists)
                {
                    c.holds = false;
                    c.decided = true;
                }
            }
        }
    }
    report.violations.sort_by_key(|v| (v.span, v.kind));
}

/// What a job's cancel tells the main loop: [`Msg::Cancel`] with its id.
fn on_cancel(ctx: &Ctx) -> OnCancel {
    let tx = ctx.shared.tx.clone();
    OnCancel(Arc::new(move |id| {
        let _ = tx.send(Msg::Cancel(id));
    }))
}
