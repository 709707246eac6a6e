//! The hover: what the cursor is on (a table of rules, tried in order) and the markdown shown
//! for it. Pure functions of a [`Snapshot`].

use std::collections::BTreeMap;

use tower_lsp_server::ls_types::{Hover, Position};

use litmus_engine::ast::Test;
use litmus_engine::report::{FinalState, Step};
use litmus_engine::{Model, ModelReport, Span};

use super::document::Outcome;
use super::state::Snapshot;
use super::symbols::{self, Occurrence, Sym};
use super::verdict;
use super::view::{self, findings, overlaps, pick, Target};
use super::{position, relaxed};

/// What a hover rule looks at: the test, its text, the cursor's offset, the symbols.
struct Probe<'a> {
    test: &'a Test,
    text: &'a str,
    off: u32,
    occ: &'a [Occurrence],
}

impl Probe<'_> {
    fn inside(&self, s: Span) -> bool {
        s.start <= self.off && self.off <= s.end
    }
}

/// What a hover is about: the target of its verdicts, its heading, the span it covers.
struct Pick {
    target: Target,
    heading: String,
    span: Span,
}

type Rule = fn(&Probe<'_>) -> Option<Pick>;

/// The hover targets, in order of precedence: the first rule that matches wins.
const RULES: &[Rule] = &[
    on_condition,
    on_assertion,
    on_thread_or_shared,
    on_test_name,
];

fn on_condition(p: &Probe<'_>) -> Option<Pick> {
    let c = p.test.condition.as_ref().filter(|c| p.inside(c.span))?;
    Some(Pick {
        target: Target::Condition,
        heading: format!("{} condition", c.quantifier.as_str()),
        span: c.span,
    })
}

fn on_assertion(p: &Probe<'_>) -> Option<Pick> {
    let a = view::assertions(p.test)
        .into_iter()
        .find(|a| p.inside(*a))?;
    let src = p.text.get(a.range()).unwrap_or("assert").trim();
    Some(Pick {
        target: Target::Assert(a),
        heading: format!("`{src}`"),
        span: a,
    })
}

fn on_thread_or_shared(p: &Probe<'_>) -> Option<Pick> {
    let o = symbols::at(p.occ, p.off)?;
    let heading = match &o.sym {
        Sym::Thread(t) => format!("thread {}", p.test.threads[*t].name.text),
        Sym::Shared(i) => {
            let decl = &p.test.shared[*i];
            let init: Vec<String> = decl.init.iter().map(|v| v.to_string()).collect();
            format!("shared {} (initially {})", decl.name.text, init.join(", "))
        }
        _ => return None,
    };
    Some(Pick {
        target: Target::Test,
        heading,
        span: o.span,
    })
}

fn on_test_name(p: &Probe<'_>) -> Option<Pick> {
    p.inside(p.test.name.span).then(|| Pick {
        target: Target::Test,
        heading: format!("test {}", p.test.name.text),
        span: p.test.name.span,
    })
}

/// `textDocument/hover`: the verdicts of what is under the cursor, a line on its
/// counterexample with links to the trace view (where the schedule is stepped through), the
/// per-model numbers, the fence advice and the legend. Short on purpose: the schedule itself is
/// in the diagnostic and the trace view, not repeated here.
pub fn hover(s: &Snapshot<'_>, pos: Position) -> Option<Hover> {
    let d = s.doc;
    let test = d.test.as_ref()?;
    let occ = symbols::occurrences(test, &d.text);
    let probe = Probe {
        test,
        text: &d.text,
        off: position::offset(&d.rope, s.conv.enc, pos) as u32,
        occ: &occ,
    };
    if let Some(h) = super::axiom::hover(s, probe.off) {
        return Some(h);
    }
    if let Some((md, span)) = super::asm::hover(test, &d.text, probe.off) {
        return Some(s.conv.hover(md, span));
    }
    let p = RULES.iter().find_map(|rule| rule(&probe))?;
    let opts = |m| super::unbounded::replay_options(s.settings, d, m);
    let replay = |m: Model, steps: &[Step]| s.engine.final_state(test, m, &opts(m), steps);
    let (head, models) = markdown(
        test,
        &s.settings.models,
        &d.results,
        p.target,
        &p.heading,
        &replay,
    );
    let mut md = head;
    md += &super::trace::hover_links(test, &d.results, p.target, s.conv.uri);
    md += &models;
    md += &super::unbounded::hover_lines(s);
    md += &relaxed::hover_lines(test, &d.text, &d.results, p.span);
    if d.results.values().next().is_some() {
        md += &format!("\n\n_{}_\n", verdict::LEGEND);
    }
    Some(s.conv.hover(md, p.span))
}

/// Hover markdown for a target, in two parts (the trace links go between them): the heading,
/// the verdicts and one line on the counterexample (or witness) with the final state it
/// reaches; then one list item per model: its verdict, the condition's observation, the
/// numbers and the engine that answered. Lists, not tables: Neovim 0.7 shows tables raw.
/// `final_state` replays a schedule.
pub fn markdown(
    test: &Test,
    models: &[Model],
    results: &BTreeMap<Model, Outcome>,
    target: Target,
    heading: &str,
    final_state: &dyn Fn(Model, &[Step]) -> Option<FinalState>,
) -> (String, String) {
    let mut md = format!("**{heading}**\n\n");
    md += &view::verdict_title(test, target, models, results);
    md += "\n";
    let fs = findings(test, results);
    let chosen = match target {
        Target::Test => pick(&fs, None),
        Target::Assert(s) => fs
            .iter()
            .find(|f| f.kind == "assert" && overlaps(f.span, s)),
        Target::Condition => fs
            .iter()
            .find(|f| f.kind == "condition")
            .or_else(|| fs.iter().find(|f| f.kind == "witness")),
    };
    if let Some(f) = chosen {
        let what = if f.kind == "witness" {
            "Witness"
        } else {
            "Counterexample"
        };
        let o = results.get(&f.model);
        let note = if o.is_some_and(Outcome::running) {
            ", the first found; still exploring"
        } else if matches!(o, Some(Outcome::Cancelled(_))) {
            ", found before the check was cancelled"
        } else {
            ""
        };
        md += &format!(
            "\n**{what} under {}** ({} steps{note})",
            f.model.label(),
            f.schedule.len(),
        );
        if let Some(st) = final_state(f.model, f.schedule) {
            let vals: Vec<String> = st.0.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            md += &format!(", final state `{}`", vals.join(", "));
        }
        md += "\n";
    }
    let mut list = String::from("\n");
    let cond = test
        .condition
        .as_ref()
        .filter(|_| target == Target::Condition);
    for v in verdict::verdicts(test, target, models, results) {
        let m = v.model;
        let mut item = format!("- {}", v.title());
        match results.get(&m) {
            Some(Outcome::Done { report: r, .. }) => {
                if let (Some(c), Some(cr)) = (cond, &r.condition) {
                    let obs = cr.observation(r.complete);
                    item += &format!(
                        ": `{}` {} · Observation {} {obs} {} {}",
                        c.quantifier.as_str(),
                        match cr.verdict() {
                            Some(true) => "holds",
                            Some(false) => "does not hold",
                            None => "not decided",
                        },
                        test.name.text,
                        cr.positive,
                        cr.negative
                    );
                }
                item += &format!(
                    " · {} states, {} executions, complete: {}",
                    r.states.len(),
                    r.stats.executions,
                    completeness(r)
                );
                if let Some(e) = r.stats.engine {
                    item += &format!(" · engine {}", e.key());
                }
            }
            Some(Outcome::Waiting) => item += " · waiting for a worker (`litmus.maxJobs`)",
            Some(Outcome::Running) => item += " · running",
            Some(Outcome::Exploring(_)) => item += " · still exploring",
            Some(Outcome::Cancelled(_)) => item += " · cancelled before the end (incomplete)",
            Some(Outcome::Crashed(e)) => item += &format!(" · internal error: {e}"),
            None => item += " · not verified yet",
        }
        list += &item;
        list += "\n";
    }
    (md, list)
}

/// `yes`, `no`, or `bounded` when the loop bound cut executions short (every execution within
/// the bound was explored, but longer ones were not).
fn completeness(r: &ModelReport) -> &'static str {
    if !r.complete {
        "no"
    } else if r
        .warnings
        .iter()
        .any(|w| w.message.starts_with("loop bound"))
    {
        "bounded (loop bound reached)"
    } else {
        "yes"
    }
}
