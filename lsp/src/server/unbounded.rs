//! Bounded and unbounded verdicts in the editor (`docs/reference.md#unbounded`): the check
//! for every iteration as a job (`litmus.unbounded: "onSave"`, the `litmus.verifyUnbounded`
//! command), and the lens and hover lines that tell "✓ up to 8 iterations" (a bounded check
//! that the loop bound cut) from "✓ for every iteration" and `unknown` with its reason.
//!
//! A job runs either the bounded check or the unbounded one for every model
//! ([`litmus_engine::unbounded::check`] in place of the bounded check, as `litmus check
//! --unbounded` does); its answers are kept on the document ([`Document::unbounded`]) beside
//! the reports they come with, and dropped with them.

use serde_json::{json, Value};
use tower_lsp_server::ls_types::{self as lsp, Uri};

use litmus_engine::ast::Test;
use litmus_engine::unbounded::{Unbounded, Verdict};
use litmus_engine::{CheckOptions, Control, Model};

use super::config::Settings;
use super::document::{Checked, Document, Outcome};
use super::engine::Engine;
use super::state::Snapshot;
use super::target::Target;
use super::verdict::{own, Mark};

/// The command that checks a document for every iteration.
pub const COMMAND: &str = super::commands::VERIFY_UNBOUNDED;

/// Checks one model on a job's worker thread: bounded, or for every iteration.
pub fn check(
    engine: &dyn Engine,
    test: &Test,
    m: Model,
    (opts, ctl): (&CheckOptions, &Control),
    unbounded: bool,
) -> Checked {
    if unbounded {
        let u = engine.check_unbounded(test, m, opts, ctl);
        (u.report, Some(Box::new(u.unbounded)))
    } else {
        (engine.check(test, m, opts, ctl), None)
    }
}

/// Keeps a model's unbounded answer beside its report (a bounded report has none).
pub fn record(d: &mut Document, m: Model, u: Option<Box<Unbounded>>) {
    match u {
        Some(u) => d.unbounded.insert(m, *u),
        None => d.unbounded.remove(&m),
    };
}

/// The options a model's schedules replay with: a schedule found for every iteration may run
/// a loop more often than the loop bound allows (`Unbounded::loop_bound`).
pub fn replay_options(settings: &Settings, d: &Document, m: Model) -> CheckOptions {
    let mut opts = settings.check_options();
    if let Some(u) = d.unbounded.get(&m) {
        opts.loop_bound = opts.loop_bound.max(u.loop_bound);
    }
    opts
}

/// What is known of a model's verdict beyond the loop bound.
#[derive(Clone, Debug, PartialEq)]
enum Reach {
    /// A bounded check that the loop bound cut: it holds up to `bound` iterations.
    UpTo(Mark, u32),
    /// An unbounded check proved the report exact for every iteration.
    Every(Mark),
    /// An unbounded check found a violation, which replays with this loop bound.
    Violation(u32),
    /// An unbounded check that proved nothing: why.
    Unknown(String),
}

impl Reach {
    fn title(&self) -> String {
        match self {
            Reach::UpTo(m, n) => format!(
                "{} up to {n} iteration{}",
                m.symbol(),
                if *n == 1 { "" } else { "s" }
            ),
            Reach::Every(m) => format!("{} for every iteration", m.symbol()),
            Reach::Violation(n) => format!("✗ from loop bound {n}"),
            Reach::Unknown(_) => "unknown for every iteration".into(),
        }
    }

    fn words(&self) -> String {
        match self {
            Reach::UpTo(_, n) => format!(
                "every execution in which no loop runs more than {n} times was explored, and a \
                 loop reached that bound: longer executions were not (check for every iteration)"
            ),
            Reach::Every(_) => {
                "the results hold for every number of loop iterations (an unbounded check \
                 proved it)"
                    .into()
            }
            Reach::Violation(n) => format!(
                "a violation found by the check for every iteration: it is real, and its \
                 schedule replays with loop bound {n}"
            ),
            Reach::Unknown(why) => format!("unknown: {why}"),
        }
    }
}

/// The model's reach, when there is something to say: a bounded ✓ (or `exists` No) that the
/// loop bound cut, or any answer of an unbounded check. A bounded ✗ or witness needs no
/// qualifier (a violation at any bound is one for every iteration), nor a bounded check that
/// no loop bound cut (it explored every execution).
fn reach(test: &Test, settings: &Settings, d: &Document, m: Model) -> Option<Reach> {
    let o = d.results.get(&m)?;
    let Outcome::Done { report, .. } = o else {
        return None;
    };
    let mark = own(test, Target::Test, Some(o));
    let mark = match (mark, &test.condition) {
        (Mark::Holds, Some(_)) => own(test, Target::Condition, Some(o)),
        _ => mark,
    };
    match d.unbounded.get(&m) {
        Some(u) => Some(match u.verdict {
            Verdict::EveryIteration => Reach::Every(mark),
            // The smallest loop bound its schedules replay with, as `litmus check --unbounded`
            // prints it (0: the violation needs no iteration of any loop).
            Verdict::Violation => Reach::Violation(u.loop_bound),
            // A search that `Control` stopped (a timeout, the memory budget) gives no reason
            // of its own: its report's warning says why.
            Verdict::Unknown => Reach::Unknown(
                u.reason
                    .clone()
                    .or_else(|| report.warnings.last().map(|w| w.message.clone()))
                    .unwrap_or_else(|| "the search did not finish".into()),
            ),
        }),
        None => {
            let cut = report
                .warnings
                .iter()
                .any(|w| w.message.starts_with("loop bound"));
            let holds = matches!(mark, Mark::Holds | Mark::NotObserved);
            (cut && report.complete && holds).then_some(Reach::UpTo(mark, settings.loop_bound))
        }
    }
}

/// The models' reaches, equal ones grouped in model order: `(reach, models)`.
fn grouped(s: &Snapshot<'_>) -> Vec<(Reach, Vec<Model>)> {
    let Some(test) = s.doc.test.as_deref() else {
        return vec![];
    };
    let mut out: Vec<(Reach, Vec<Model>)> = vec![];
    for &m in &s.settings.models {
        let Some(r) = reach(test, s.settings, s.doc, m) else {
            continue;
        };
        match out.iter_mut().find(|(q, _)| *q == r) {
            Some((_, ms)) => ms.push(m),
            None => out.push((r, vec![m])),
        }
    }
    out
}

fn labels(ms: &[Model]) -> String {
    ms.iter().map(|m| m.label()).collect::<Vec<_>>().join(", ")
}

fn command_args(uri: &Uri) -> Vec<Value> {
    vec![json!(uri.as_str())]
}

/// The lenses above the test's name: one per distinct reach (`✓ up to 8 iterations (SC,
/// TSO)`, `✓ for every iteration (SC)`, `unknown for every iteration (PSO)`, each with its
/// tooltip in `data.tooltip`), and `check for every iteration` (the command) when a bounded
/// check was cut by the loop bound.
pub fn lenses(s: &Snapshot<'_>) -> Vec<lsp::CodeLens> {
    let Some(test) = s.doc.test.as_deref() else {
        return vec![];
    };
    let groups = grouped(s);
    let range = s.conv.range(test.name.span);
    let at = lsp::Position::new(range.start.line, 0);
    let lens = |title: String, command: &str, arguments, tooltip: Option<String>| lsp::CodeLens {
        range: lsp::Range::new(at, at),
        command: Some(lsp::Command {
            title,
            command: command.into(),
            arguments,
        }),
        data: tooltip.map(|t| json!({ "tooltip": t })),
    };
    let mut out: Vec<lsp::CodeLens> = groups
        .iter()
        .map(|(r, ms)| {
            let tip = super::plain::plain(&format!("{}: {}", labels(ms), r.words()));
            lens(
                format!("{} ({})", r.title(), labels(ms)),
                "",
                None,
                Some(tip),
            )
        })
        .collect();
    if groups.iter().any(|(r, _)| matches!(r, Reach::UpTo(..))) {
        out.push(lens(
            "check for every iteration".into(),
            COMMAND,
            Some(command_args(s.conv.uri)),
            None,
        ));
    }
    out
}

/// The hover's lines on iterations: one per distinct reach, with its meaning, and a link that
/// checks for every iteration when a bounded check was cut. Empty when there is nothing to say.
pub fn hover_lines(s: &Snapshot<'_>) -> String {
    let groups = grouped(s);
    if groups.is_empty() {
        return String::new();
    }
    let mut md = String::from("\n**Loop iterations**\n\n");
    for (r, ms) in &groups {
        md += &format!("- {}: {} — {}\n", labels(ms), r.title(), r.words());
    }
    if groups.iter().any(|(r, _)| matches!(r, Reach::UpTo(..))) {
        let args = Value::Array(command_args(s.conv.uri)).to_string();
        let enc: String = args
            .bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    (b as char).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect();
        md += &format!("\n[Check for every iteration](command:{COMMAND}?{enc})\n");
    }
    md
}
