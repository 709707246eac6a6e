//! One meaning of a verdict, rendered the same wherever it is shown: the per-model lenses and
//! their tooltips, the hover, `litmus/status` (the status bar and its tooltip) and Neovim.
//!
//! - A target *fails* (✗) when some execution violates it: an assertion, a `forall` or
//!   `~exists` condition, or (for the whole test) also a runtime error or a deadlock.
//! - An `exists` condition is a question, answered as herd7 does: `Ok` (some execution reaches
//!   the state; its witness opens from the lens) or `No` (no execution does). `No` is an answer,
//!   not a failure: it never makes the test fail, as for `litmus check`'s exit status.
//! - Implied verdicts: every SC execution is a TSO execution and every TSO execution a PSO
//!   execution, so a violation (or an `exists` witness) found under a stronger model holds under
//!   every weaker one, and a complete pass (or a complete `No`) under a weaker model holds under
//!   every stronger one. A model whose own check did not settle it (incomplete, still running,
//!   cancelled) shows the implied verdict and says where it comes from: `TSO ✗ (implied by SC)`.

use std::collections::BTreeMap;

use litmus_engine::ast::{Quantifier, Test};
use litmus_engine::report::{Violation, ViolationKind};
use litmus_engine::Model;

use super::document::Outcome;
use super::target::{overlaps, Target};

/// What is known of one target under one model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Complete, and nothing violates it.
    Holds,
    /// A violation was found (also while the check still explores: it stays one).
    Fails,
    /// `exists`: some execution reaches the state (herd's `Ok`).
    Observed,
    /// `exists`: no execution reaches the state (herd's `No`): an answer, not a failure.
    NotObserved,
    /// The exploration stopped early (a limit, a cancel) without settling it.
    Incomplete,
    /// Still checking.
    Running,
    /// The check crashed (an internal error).
    Crashed,
    /// Not checked yet.
    NotVerified,
}

impl Mark {
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Holds => "✓",
            Mark::Fails => "✗",
            Mark::Observed => "Ok",
            Mark::NotObserved => "No",
            Mark::Incomplete => "?",
            Mark::Running => "…",
            Mark::Crashed => "⚠",
            Mark::NotVerified => "–",
        }
    }

    /// One sentence for a tooltip.
    pub fn words(self) -> &'static str {
        match self {
            Mark::Holds => "holds: every execution was explored and none violates it",
            Mark::Fails => "fails: an execution violates it (click for the counterexample)",
            Mark::Observed => {
                "Ok: some execution reaches the `exists` state (click for the witness)"
            }
            Mark::NotObserved => {
                "No: no execution reaches the `exists` state — an answer, not a failure"
            }
            Mark::Incomplete => {
                "? incomplete: the exploration stopped early (time, memory or loop bound, or cancelled) without settling it"
            }
            Mark::Running => "… still checking",
            Mark::Crashed => "⚠ the check failed with an internal error",
            Mark::NotVerified => "– not verified yet (save, or run Litmus: Verify Now)",
        }
    }

    /// Settled by the model's own check.
    fn settled(self) -> bool {
        matches!(
            self,
            Mark::Holds | Mark::Fails | Mark::Observed | Mark::NotObserved
        )
    }

    /// Shown by one execution: carries over to every weaker model.
    fn found(self) -> bool {
        matches!(self, Mark::Fails | Mark::Observed)
    }

    /// `litmus/status`'s word for the whole test.
    pub fn status_word(self) -> &'static str {
        match self {
            Mark::Fails => "fails",
            Mark::Holds | Mark::Observed | Mark::NotObserved => "holds",
            Mark::Running => "running",
            Mark::Incomplete | Mark::Crashed | Mark::NotVerified => "incomplete",
        }
    }
}

/// The legend of every symbol, for tooltips and the hover.
pub const LEGEND: &str = "✓ holds · ✗ fails · Ok / No: the `exists` state is reached / never \
     reached (herd's answer; No is not a failure) · ? incomplete · … checking · ⚠ internal \
     error · – not verified · (implied by SC): every SC execution is a TSO and a PSO execution";

/// A model's verdict on a target: its mark, and the model it was implied by (when its own
/// check did not settle it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub model: Model,
    pub mark: Mark,
    pub implied_by: Option<Model>,
    /// The check that settled it (the model's own, or the implying model's) explored every
    /// execution within the loop bound, and a loop reached the bound: what holds, holds up to
    /// the bound (the lens above the test says `✓ up to N iterations`).
    pub bounded: bool,
}

impl Verdict {
    /// `TSO ✗`, `TSO ✗ (implied by SC)`, `SC No`.
    pub fn title(&self) -> String {
        match self.implied_by {
            Some(by) => format!(
                "{} {} (implied by {})",
                self.model.label(),
                self.mark.symbol(),
                by.label()
            ),
            None => format!("{} {}", self.model.label(), self.mark.symbol()),
        }
    }

    /// `TSO: fails: … (implied by SC: every SC execution is a TSO execution)`.
    pub fn line(&self) -> String {
        let words = match self.mark {
            Mark::Holds if self.bounded => {
                "holds up to the loop bound: every execution within the loop bound was explored \
                 and none violates it (a loop reached the bound)"
            }
            Mark::NotObserved if self.bounded => {
                "No: no execution within the loop bound reaches the `exists` state (a loop \
                 reached the bound)"
            }
            m => m.words(),
        };
        let mut s = format!("{}: {}", self.model.label(), words);
        if let Some(by) = self.implied_by {
            s += &format!(
                " — implied by {by}: every {by} execution is a {m} execution{own}",
                by = by.label(),
                m = self.model.label(),
                own = match self.mark {
                    Mark::Fails | Mark::Observed => "",
                    _ => ", so what holds under it holds here",
                }
            );
        }
        s
    }
}

/// Executions of `strong` are executions of `weak` (SC ⊆ TSO ⊆ PSO).
pub fn within(strong: Model, weak: Model) -> bool {
    strong <= weak
}

fn is_exists(test: &Test) -> bool {
    test.condition
        .as_ref()
        .is_some_and(|c| c.quantifier == Quantifier::Exists)
}

/// Whether `target` is violated by one of these violations (the condition's own verdict
/// aside).
fn violated(target: Target, violations: &[Violation]) -> bool {
    match target {
        Target::Test => !violations.is_empty(),
        Target::Assert(s) => violations
            .iter()
            .any(|v| v.kind == ViolationKind::Assert && overlaps(v.span, s)),
        Target::Condition => violations
            .iter()
            .any(|v| v.kind == ViolationKind::Condition),
    }
}

/// The model's own mark for `target`, from its outcome alone.
pub fn own(test: &Test, target: Target, o: Option<&Outcome>) -> Mark {
    let Some(o) = o else { return Mark::NotVerified };
    let exists = target == Target::Condition && is_exists(test);
    match o {
        Outcome::Waiting | Outcome::Running => Mark::Running,
        Outcome::Crashed(_) => Mark::Crashed,
        Outcome::Exploring(vs) if !exists && violated(target, vs) => Mark::Fails,
        Outcome::Exploring(_) => Mark::Running,
        Outcome::Cancelled(vs) if !exists && violated(target, vs) => Mark::Fails,
        Outcome::Cancelled(_) => Mark::Incomplete,
        Outcome::Done { report, .. } => {
            let cond = report.condition.as_ref();
            if exists {
                match cond {
                    Some(c) if c.verdict() == Some(true) => Mark::Observed,
                    Some(_) if report.complete => Mark::NotObserved,
                    _ => Mark::Incomplete,
                }
            } else if violated(target, &report.violations)
                || (target == Target::Condition && cond.is_some_and(|c| c.verdict() == Some(false)))
            {
                Mark::Fails
            } else if report.complete {
                Mark::Holds
            } else {
                Mark::Incomplete
            }
        }
    }
}

/// The verdict of `target` under each of `models`, implied verdicts filled in from every model
/// with a result (shown or not).
pub fn verdicts(
    test: &Test,
    target: Target,
    models: &[Model],
    results: &BTreeMap<Model, Outcome>,
) -> Vec<Verdict> {
    let owns: Vec<(Model, Mark)> = results
        .iter()
        .map(|(m, o)| (*m, own(test, target, Some(o))))
        .collect();
    models
        .iter()
        .map(|&m| {
            let mark = own(test, target, results.get(&m));
            if mark.settled() {
                return Verdict {
                    model: m,
                    mark,
                    implied_by: None,
                    bounded: cut(results.get(&m)),
                };
            }
            // Found under a stronger model; else settled for every execution of a weaker one.
            let by = owns
                .iter()
                .find(|(a, k)| *a != m && k.found() && within(*a, m))
                .or_else(|| {
                    owns.iter()
                        .find(|(b, k)| *b != m && k.settled() && !k.found() && within(m, *b))
                });
            match by {
                Some((a, k)) => Verdict {
                    model: m,
                    mark: *k,
                    implied_by: Some(*a),
                    bounded: cut(results.get(a)),
                },
                None => Verdict {
                    model: m,
                    mark,
                    implied_by: None,
                    bounded: false,
                },
            }
        })
        .collect()
}

/// Whether a model's result is a complete bounded check that a loop bound cut (a loop reached
/// the bound: `collect.rs`'s warning). A check for every iteration that proved its answer has
/// no such warning (its search has no loop counters, or no loop bound cut the bounded check).
fn cut(o: Option<&Outcome>) -> bool {
    matches!(o, Some(Outcome::Done { report, .. })
        if report.complete
            && report
                .warnings
                .iter()
                .any(|w| w.span.is_some() && w.message.starts_with("loop bound ")))
}

/// The tooltip of a target's lenses and of the status bar: one line per model, then the legend.
pub fn tooltip(test: &Test, target: Target, vs: &[Verdict]) -> String {
    let mut lines: Vec<String> = vs.iter().map(Verdict::line).collect();
    if target == Target::Test && is_exists(test) {
        lines.push(
            "An `exists` condition is a question: its answer (Ok / No) is on its own lens and \
             does not make the test fail."
                .into(),
        );
    }
    lines.push(String::new());
    lines.push(LEGEND.into());
    lines.join("\n")
}

/// The `exists` answer per model (`ok`, `no`, or `unknown`), for `litmus/status`.
pub fn exists_answers(
    test: &Test,
    models: &[Model],
    results: &BTreeMap<Model, Outcome>,
) -> Option<BTreeMap<&'static str, &'static str>> {
    if !is_exists(test) {
        return None;
    }
    Some(
        verdicts(test, Target::Condition, models, results)
            .into_iter()
            .filter(|v| results.contains_key(&v.model) || v.implied_by.is_some())
            .map(|v| {
                let a = match v.mark {
                    Mark::Observed => "ok",
                    Mark::NotObserved => "no",
                    _ => "unknown",
                };
                (v.model.key(), a)
            })
            .collect(),
    )
}

/// What `litmus/status` says of a document besides its state (built into JSON by
/// [`super::to_proto::status`]).
pub struct StatusBody {
    /// Per model with a result, by its key (`sc`, `aarch64`: `crate::dialect`): `holds`,
    /// `fails`, `incomplete` or `running` for the whole test (implied verdicts included).
    pub verdicts: Vec<(&'static str, &'static str)>,
    /// The models whose verdict is implied, and by which model.
    pub implied: Vec<(&'static str, &'static str)>,
    /// The `exists` answers, when the test has an `exists` condition.
    pub exists: Option<BTreeMap<&'static str, &'static str>>,
    /// The status bar's tooltip: one line per model, the `exists` answers, the legend.
    pub tooltip: String,
    /// Why nothing can be verified: the first syntax or semantic error (`line 3: …`).
    pub problem: Option<String>,
    /// A model's check stopped at a limit: `memory` (the memory budget) or `time` (the
    /// timeout); the tooltip says which model and the budget.
    pub limit: Option<&'static str>,
}

/// The first model whose check stopped at the memory budget or the timeout: `memory` or
/// `time`, and the tooltip's line (the report's own warning, which names the budget).
fn stopped_at_limit(results: &BTreeMap<Model, Outcome>) -> Option<(&'static str, String)> {
    results.iter().find_map(|(m, o)| {
        let Outcome::Done { report, .. } = o else {
            return None;
        };
        if report.complete {
            return None;
        }
        report.warnings.iter().find_map(|w| {
            let kind = if w.message.contains("the memory budget of")
                && w.message.contains("was reached")
            {
                "memory"
            } else if w.message.starts_with("exploration stopped early (timeout)") {
                "time"
            } else {
                return None;
            };
            Some((
                kind,
                format!("{} stopped at its {} limit: {}", m.label(), kind, w.message),
            ))
        })
    })
}

/// The status of a document's test (`None` when it does not parse: then `problem` says why).
pub fn status_body(
    test: Option<&Test>,
    problem: Option<String>,
    results: &BTreeMap<Model, Outcome>,
) -> StatusBody {
    let Some(test) = test else {
        return StatusBody {
            verdicts: vec![],
            implied: vec![],
            exists: None,
            tooltip: problem.clone().unwrap_or_default(),
            problem,
            limit: None,
        };
    };
    let models: Vec<Model> = results.keys().copied().collect();
    let vs = verdicts(test, Target::Test, &models, results);
    let mut tooltip = tooltip(test, Target::Test, &vs);
    if is_exists(test) {
        let answers: Vec<String> = verdicts(test, Target::Condition, &models, results)
            .iter()
            .map(|v| format!("`exists` under {}", v.title()))
            .collect();
        if !answers.is_empty() {
            let legend = tooltip.rfind("\n\n").unwrap_or(tooltip.len());
            tooltip.insert_str(legend, &format!("\n{}", answers.join(" · ")));
        }
    }
    let limit = stopped_at_limit(results);
    if let Some((_, line)) = &limit {
        let legend = tooltip.rfind("\n\n").unwrap_or(tooltip.len());
        tooltip.insert_str(legend, &format!("\n{line}"));
    }
    StatusBody {
        limit: limit.map(|(k, _)| k),
        verdicts: vs
            .iter()
            .map(|v| (v.model.key(), v.mark.status_word()))
            .collect(),
        implied: vs
            .iter()
            .filter_map(|v| v.implied_by.map(|b| (v.model.key(), b.key())))
            .collect(),
        exists: exists_answers(test, &models, results),
        tooltip,
        problem,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use litmus_engine::report::Violation;

    fn test(cond: &str) -> Test {
        let src = format!(
            "litmus T\nshared x = 0;\nthread P0 {{ x = 1; r0 = x; assert(r0 == 1); }}\n{cond}\n"
        );
        litmus_engine::syntax::parse(&src).test.expect("parses")
    }

    fn found() -> Outcome {
        Outcome::Exploring(vec![Violation {
            kind: ViolationKind::Assert,
            message: "assertion failed".into(),
            span: view::assertions(&test("exists (x == 1)"))[0],
            schedule: Default::default(),
        }])
    }

    use super::super::view;

    #[test]
    fn a_failure_under_sc_is_one_under_tso_and_pso_when_they_did_not_settle_it() {
        let t = test("exists (x == 1)");
        let results = BTreeMap::from([
            (Model::Sc, found()),
            (Model::Tso, Outcome::Cancelled(vec![])),
            (Model::Pso, Outcome::Running),
        ]);
        let vs = verdicts(&t, Target::Test, &Model::ALL, &results);
        let titles: Vec<String> = vs.iter().map(Verdict::title).collect();
        assert_eq!(
            titles,
            ["SC ✗", "TSO ✗ (implied by SC)", "PSO ✗ (implied by SC)"]
        );
        assert!(vs[1]
            .line()
            .contains("every SC execution is a TSO execution"));
        // A model with nothing settled anywhere keeps its own mark.
        let only = BTreeMap::from([(Model::Tso, Outcome::Cancelled(vec![]))]);
        let vs = verdicts(&t, Target::Test, &[Model::Sc, Model::Tso], &only);
        assert_eq!(vs[0].mark, Mark::NotVerified);
        assert_eq!(vs[1].mark, Mark::Incomplete);
        assert_eq!(vs[1].implied_by, None);
        // A failure under PSO implies nothing about the stronger models.
        let pso = BTreeMap::from([(Model::Sc, Outcome::Running), (Model::Pso, found())]);
        let vs = verdicts(&t, Target::Test, &[Model::Sc, Model::Pso], &pso);
        assert_eq!(vs[0].mark, Mark::Running);
    }

    #[test]
    fn an_exists_is_answered_not_failed_and_the_legend_names_every_mark() {
        let t = test("exists (x == 1)");
        let results = BTreeMap::from([(Model::Sc, Outcome::Running)]);
        assert_eq!(
            own(&t, Target::Condition, results.get(&Model::Sc)),
            Mark::Running
        );
        for m in [
            Mark::Holds,
            Mark::Fails,
            Mark::Observed,
            Mark::NotObserved,
            Mark::Incomplete,
            Mark::Running,
            Mark::Crashed,
            Mark::NotVerified,
        ] {
            assert!(LEGEND.contains(m.symbol()), "{m:?} missing from the legend");
            assert!(m.words().len() > 10);
        }
        assert_eq!(Mark::NotObserved.status_word(), "holds");
    }
}
