//! The one place the server calls the engine: parsing, checking (bounded, and for every
//! iteration), condition re-evaluation, the fence quick fix's synthesis, and the axiomatic
//! check of AArch64 and RISC-V tests.
//!
//! The server talks to the engine through the [`Engine`] trait so that in-process tests can wrap
//! the real engine (to make a check slow, or panic) without the engine knowing anything of it.

use std::sync::Arc;

use litmus_engine::asm::Code;
use litmus_engine::ast::Test;
use litmus_engine::axiomatic;
use litmus_engine::fences::{synthesize, Goal};
use litmus_engine::report::{ConditionResult, FinalState, Step};
use litmus_engine::syntax::fences::insertions;
use litmus_engine::trace::Trace;
use litmus_engine::unbounded::UnboundedReport;
use litmus_engine::{CheckOptions, Control, Diagnostic, Model, ModelReport};

/// What parsing one text gives the server.
pub struct ParseOut {
    /// The syntax tree, handed back for the next incremental reparse.
    pub tree: Option<tree_sitter::Tree>,
    /// `None` iff there is an error diagnostic.
    pub test: Option<Test>,
    pub diagnostics: Vec<Diagnostic>,
}

impl From<litmus_engine::syntax::Parsed> for ParseOut {
    fn from(p: litmus_engine::syntax::Parsed) -> ParseOut {
        ParseOut {
            tree: Some(p.tree),
            test: p.test,
            diagnostics: p.diagnostics,
        }
    }
}

pub trait Engine: Send + Sync + 'static {
    /// Parses `text`; `old` is the previous tree, already edited to match `text`.
    fn parse(&self, text: &str, old: Option<&tree_sitter::Tree>) -> ParseOut;
    /// [`Engine::parse`], giving up (`None`) soon after `stop` returns true (a newer edit, a
    /// close or shutdown). The default cannot stop: it parses to the end.
    fn parse_with(
        &self,
        text: &str,
        old: Option<&tree_sitter::Tree>,
        stop: &dyn Fn() -> bool,
    ) -> Option<ParseOut> {
        if stop() {
            return None;
        }
        Some(self.parse(text, old))
    }
    /// Checks `test` under `model` (called on a worker thread, never on the async runtime).
    fn check(&self, test: &Test, model: Model, opts: &CheckOptions, ctl: &Control) -> ModelReport;
    /// Checks `test` under `model` for every number of loop iterations (on a worker thread,
    /// like [`Engine::check`]; `docs/reference.md#unbounded`).
    fn check_unbounded(
        &self,
        test: &Test,
        model: Model,
        opts: &CheckOptions,
        ctl: &Control,
    ) -> UnboundedReport {
        litmus_engine::unbounded::check(test, model, opts, ctl)
    }
    /// The final condition re-evaluated over cached final states.
    fn evaluate_condition(&self, test: &Test, states: &[FinalState]) -> Option<ConditionResult>;
    /// The fence quick fix for `model` (called on a worker thread): the fences `litmus fences`
    /// proposes (goal: SC's verdicts, [`litmus_engine::fences`]) as pure insertions into
    /// `text`, or `None` when none is needed or the search did not finish (`ctl` stopped it,
    /// or `opts.timeout`, which bounds the whole search).
    fn fences(
        &self,
        text: &str,
        test: &Test,
        model: Model,
        opts: &CheckOptions,
        ctl: &Control,
    ) -> Option<Vec<(usize, String)>> {
        let s = synthesize(text, test, model, Goal::Verdicts, opts, ctl).ok()?;
        (s.complete && !s.fences.is_empty()).then(|| insertions(text, test.dialect, &s.fences))
    }
    /// The final state a schedule reaches when replayed, if it ends in one (the hover's
    /// falsifying final state). Linear in the schedule: cheap enough for a request.
    fn final_state(
        &self,
        test: &Test,
        model: Model,
        opts: &CheckOptions,
        schedule: &[Step],
    ) -> Option<FinalState> {
        match litmus_engine::replay(test, model, opts, schedule) {
            Ok(litmus_engine::ReplayEnd::Final(fs)) => Some(fs),
            _ => None,
        }
    }
    /// The trace view of a reported schedule (replayed; an error names the step that does not
    /// replay).
    fn trace(
        &self,
        test: &Test,
        model: Model,
        opts: &CheckOptions,
        schedule: &[Step],
    ) -> Result<Trace, String> {
        litmus_engine::trace::trace(test, model, opts, schedule)
    }
    /// Checks an AArch64 or RISC-V test with the axiomatic engine under the project's model
    /// for its architecture (called on a worker thread; `stop` cancels it).
    fn axiomatic(&self, text: &str, stop: &dyn Fn() -> bool) -> Result<AxOut, AxFail> {
        let p = litmus_engine::syntax::parse(text);
        let (Some(test), Some(code)) = (p.test, p.asm) else {
            return Err(AxFail {
                message: "the test does not parse".into(),
                span: None,
            });
        };
        let model = axiomatic::builtin_model(code.arch);
        let model_name = axiomatic::builtin_model_name(code.arch);
        match axiomatic::check(&test, &code, &model, stop) {
            Ok(report) => Ok(AxOut {
                test,
                code,
                report,
                model: model_name.into(),
            }),
            Err(e) => Err(AxFail {
                message: e.message,
                span: e.span,
            }),
        }
    }
}

/// An axiomatic check's answer: the test and code it checked, the report, the model's name.
pub struct AxOut {
    pub test: Test,
    pub code: Code,
    pub report: axiomatic::Report,
    pub model: String,
}

/// A test the axiomatic engine could not check (or a stopped check), with where, if known.
#[derive(Clone, Debug)]
pub struct AxFail {
    pub message: String,
    pub span: Option<litmus_engine::Span>,
}

/// The real engine (`litmus_engine`).
pub struct RealEngine;

impl Engine for RealEngine {
    fn parse(&self, text: &str, old: Option<&tree_sitter::Tree>) -> ParseOut {
        litmus_engine::syntax::parse_incremental(text, old).into()
    }
    fn parse_with(
        &self,
        text: &str,
        old: Option<&tree_sitter::Tree>,
        stop: &dyn Fn() -> bool,
    ) -> Option<ParseOut> {
        litmus_engine::syntax::parse_with(text, old, stop).map(ParseOut::from)
    }
    fn check(&self, test: &Test, model: Model, opts: &CheckOptions, ctl: &Control) -> ModelReport {
        litmus_engine::check(test, model, opts, ctl)
    }
    fn evaluate_condition(&self, test: &Test, states: &[FinalState]) -> Option<ConditionResult> {
        litmus_engine::evaluate_condition(test, states)
    }
}

pub fn real() -> Arc<dyn Engine> {
    Arc::new(RealEngine)
}
