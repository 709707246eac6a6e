//! The hover: what the cursor is on (a table of rules, tried in order) and the markdown shown
//! for it. Pure functions of a [`Snapshot`].

use std::collections::BTreeMap;

use tower_lsp_server::ls_types::{Hover, Position};

use litmus_engine::ast::Test;
use litmus_engine::report::{FinalState, Step};
use litmus_engine::{Model, ModelReport, Span};

use super::document::Outcome;
use super::symbols::{self, Occurrence, Sym};
use super::view::{self, findings, mark, overlaps, pick, Target};
use super::{fences, position, schedule, Snapshot};

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

/// `textDocument/hover`: the verdicts of what is under the cursor, with its counterexample.
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
    if let Some((md, span)) = super::asm::hover(test, &d.text, probe.off) {
        return Some(s.conv.hover(md, span));
    }
    let p = RULES.iter().find_map(|rule| rule(&probe))?;
    let opts = s.settings.check_options();
    let replay = |m: Model, steps: &[Step]| s.engine.final_state(test, m, &opts, steps);
    let mut md = markdown(
        test,
        &d.text,
        &s.settings.models,
        &d.results,
        p.target,
        &p.heading,
        &replay,
    );
    md += &super::trace::hover_links(test, &d.results, p.target, s.conv.uri);
    md += &fences::hover_lines(test, &d.text, &d.results, p.span);
    Some(s.conv.hover(md, p.span))
}

/// Hover markdown for a target: the verdicts, the counterexample (or witness) as a thread
/// table (long ones folded) with the final state it reaches, the condition per model (a
/// paragraph each), then the per-model numbers. `final_state` replays a schedule.
pub fn markdown(
    test: &Test,
    text: &str,
    models: &[Model],
    results: &BTreeMap<Model, Outcome>,
    target: Target,
    heading: &str,
    final_state: &dyn Fn(Model, &[Step]) -> Option<FinalState>,
) -> String {
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
        let exploring = results.get(&f.model).is_some_and(Outcome::running);
        md += &format!(
            "\n**{what} under {}** ({} steps{})\n\n",
            f.model.label(),
            f.schedule.len(),
            if exploring {
                ", the first found; still exploring"
            } else {
                ""
            }
        );
        md += &schedule::markdown_table(test, text, f.schedule);
        if let Some(st) = final_state(f.model, f.schedule) {
            let vals: Vec<String> = st.0.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            md += &format!("\nFinal state: `{}`\n", vals.join(", "));
        }
    }
    if let (Target::Condition, Some(c)) = (target, &test.condition) {
        for m in models {
            if let Some(Outcome::Done { report: r, .. }) = results.get(m) {
                if let Some(cr) = &r.condition {
                    let obs = match (cr.positive, cr.negative) {
                        (0, _) => "Never",
                        (_, 0) => "Always",
                        _ => "Sometimes",
                    };
                    md += &format!(
                        "\n{}: `{}` {} · Observation {} {} {} {}\n",
                        m.label(),
                        c.quantifier.as_str(),
                        if cr.holds { "holds" } else { "does not hold" },
                        test.name.text,
                        obs,
                        cr.positive,
                        cr.negative
                    );
                }
            }
        }
    }
    md += "\n| model | verdict | states | positive | negative | executions | complete |\n|---|---|---|---|---|---|---|\n";
    for m in models {
        let mark = mark(test, target, results.get(m));
        match results.get(m) {
            Some(Outcome::Done { report: r, .. }) => {
                let (p, n) = r.condition.as_ref().map_or(("–".into(), "–".into()), |c| {
                    (c.positive.to_string(), c.negative.to_string())
                });
                md += &format!(
                    "| {} | {} | {} | {} | {} | {} | {} |\n",
                    m.label(),
                    mark,
                    r.states.len(),
                    p,
                    n,
                    r.stats.executions,
                    completeness(r)
                );
            }
            Some(Outcome::Running) => md += &format!("| {} | running | | | | | |\n", m.label()),
            Some(Outcome::Exploring(_)) => {
                md += &format!(
                    "| {} | {mark} (still exploring) | | | | | no |\n",
                    m.label()
                )
            }
            Some(Outcome::Crashed(e)) => {
                md += &format!(
                    "| {} | internal error: {} | | | | | |\n",
                    m.label(),
                    e.replace('|', "\\|")
                )
            }
            None => md += &format!("| {} | not verified yet | | | | | |\n", m.label()),
        }
    }
    md
}

/// The `complete` column: `yes`, `no`, or `bounded` when the loop bound cut executions short
/// (every execution within the bound was explored, but longer ones were not).
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
