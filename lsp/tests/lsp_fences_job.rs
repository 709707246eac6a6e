//! The fence quick fix is a job like a check: it runs with the user's settings (engine, loop
//! bound), is cancelled with the document (an edit, a close), and its answer is kept for the
//! document's text. An engine wrapper reports each synthesis it is asked for and, when told
//! to, holds it until its control says stop; the tests wait on those events, never on time.

mod lsp_harness;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use litmus::server::engine::{Engine, ParseOut, RealEngine};
use litmus_engine::ast::Test;
use litmus_engine::report::{ConditionResult, FinalState};
use litmus_engine::{
    CheckOptions, Control, EngineChoice, EngineKind, Model, ModelReport, StopReason,
};
use lsp_harness::*;
use serde_json::{json, Value};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

const U: &str = "file:///t/sb_job.litmus";
const SB: &str = "litmus SB\nshared x = 0, y = 0;\nthread P0 {\n  x = 1;\n  r0 = y;\n}\nthread P1 {\n  y = 1;\n  r1 = x;\n}\n~exists (P0:r0 == 0 && P1:r1 == 0)\n";

#[derive(Debug, PartialEq)]
enum Event {
    /// A synthesis started: the engine and loop bound it was given.
    Started(Model, EngineChoice, u32),
    /// A held synthesis returned: why its control said stop.
    Stopped(Option<StopReason>),
}

/// The real engine, reporting every fence synthesis; with `hold` set, a synthesis runs until
/// its control says stop and answers nothing.
struct FenceHook {
    events: Mutex<UnboundedSender<Event>>,
    hold: AtomicBool,
}

impl Engine for FenceHook {
    fn parse(&self, text: &str, old: Option<&tree_sitter::Tree>) -> ParseOut {
        RealEngine.parse(text, old)
    }
    fn check(&self, test: &Test, model: Model, opts: &CheckOptions, ctl: &Control) -> ModelReport {
        RealEngine.check(test, model, opts, ctl)
    }
    fn evaluate_condition(&self, test: &Test, states: &[FinalState]) -> Option<ConditionResult> {
        RealEngine.evaluate_condition(test, states)
    }
    fn fences(
        &self,
        text: &str,
        test: &Test,
        model: Model,
        opts: &CheckOptions,
        ctl: &Control,
    ) -> Option<Vec<(usize, String)>> {
        let send = |e| {
            let _ = self.events.lock().unwrap().send(e);
        };
        send(Event::Started(model, opts.engine, opts.loop_bound));
        if !self.hold.load(Ordering::SeqCst) {
            return RealEngine.fences(text, test, model, opts, ctl);
        }
        // Polls the control as an engine does; the test waits for the event this sends.
        while !ctl.should_stop() {
            std::thread::sleep(Duration::from_millis(2));
        }
        send(Event::Stopped(ctl.stop_reason()));
        None
    }
}

fn hook(hold: bool) -> (Arc<FenceHook>, UnboundedReceiver<Event>) {
    let (tx, rx) = unbounded_channel();
    let e = FenceHook {
        events: Mutex::new(tx),
        hold: AtomicBool::new(hold),
    };
    (Arc::new(e), rx)
}

async fn next(rx: &mut UnboundedReceiver<Event>) -> Event {
    tokio::time::timeout(TIMEOUT, rx.recv())
        .await
        .expect("an engine event in time")
        .expect("the engine is alive")
}

/// The code action request over the whole violation (the final condition).
fn actions_params() -> Value {
    let (l, c) = find(SB, "~exists");
    json!({"textDocument": {"uri": U}, "range": {"start": pos(l, c), "end": pos(l, c)}, "context": {"diagnostics": []}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_fix_is_cancelled_with_the_document() {
    let (engine, mut events) = hook(true);
    let mut h = Harness::default_with(engine.clone(), json!({"models": ["sc", "tso"]})).await;
    h.open(U, 1, SB).await;
    h.status(U, "done").await;

    // An edit cancels the running synthesis; the request gets no quick fix.
    let pending = h
        .request_later("textDocument/codeAction", actions_params())
        .await;
    assert!(matches!(
        next(&mut events).await,
        Event::Started(Model::Tso, ..)
    ));
    h.change_full(U, 2, &format!("{SB}\n")).await;
    assert_eq!(
        next(&mut events).await,
        Event::Stopped(Some(StopReason::Cancelled))
    );
    let r = tokio::time::timeout(TIMEOUT, pending)
        .await
        .unwrap()
        .unwrap();
    assert!(r["result"].is_null(), "{r}");

    // So does closing the document (the edit kept the results: the same program).
    let pending = h
        .request_later("textDocument/codeAction", actions_params())
        .await;
    assert!(matches!(
        next(&mut events).await,
        Event::Started(Model::Tso, ..)
    ));
    h.close(U).await;
    assert_eq!(
        next(&mut events).await,
        Event::Stopped(Some(StopReason::Cancelled))
    );
    let r = tokio::time::timeout(TIMEOUT, pending)
        .await
        .unwrap()
        .unwrap();
    assert!(r["result"].is_null(), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_fix_uses_the_users_engine_and_keeps_its_answer() {
    let (engine, mut events) = hook(false);
    let mut h = Harness::default_with(
        engine.clone(),
        json!({"models": ["sc", "tso"], "engine": "dpor", "loopBound": 3}),
    )
    .await;
    h.open(U, 1, SB).await;
    h.status(U, "done").await;
    let actions = h.request("textDocument/codeAction", actions_params()).await;
    assert_eq!(
        next(&mut events).await,
        Event::Started(Model::Tso, EngineChoice::Fixed(EngineKind::Dpor), 3)
    );
    let titles: Vec<&str> = actions
        .as_array()
        .expect("code actions")
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Insert 2 fences so that TSO behaves as SC"]);

    // Asked again for the same text: the kept answer, no second synthesis.
    let again = h.request("textDocument/codeAction", actions_params()).await;
    assert_eq!(again, actions);
    assert!(events.try_recv().is_err(), "a second synthesis started");
}
