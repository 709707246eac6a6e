//! `litmus/trace`: one model's counterexample (or witness) as the trace view shows it, and the
//! per-model verdict lenses that open it.
//!
//! Request `litmus/trace {uri, model?, violation?, position?}` → `null` when the document has nothing to
//! show, else
//! `{uri, test, model, index, kind, title, message, choices: [{model, index, kind, title}],
//!   threads, locations, initial, rows: [{thread, action, loc, value, buffered, label, cell,
//!   text, range, after}], end, graph: {threads, nodes, edges: [{from, to, kind, explains}], waits:
//!   [{thread, waits, mutex, holder, lock}]}}` (`explains`: the edge is on a cycle; `waits`: a
//!   deadlock's wait-for relation)
//! where a snapshot (`initial`, `after`) is `{memory: [[loc, v]], buffers: [[{loc, value,
//! range}]] (per thread, oldest first), registers: [[[reg, v]]] (per thread)}`. `model` (`sc`,
//! `tso`, `pso`) defaults to the first model with something to show, `violation` (an index into
//! that model's findings: violations first, then the witness) to the finding nearest
//! `position` (an LSP position), else 0. The trace is computed by
//! replaying the stored schedule ([`super::engine::Engine::trace`]); a schedule that no longer
//! replays (the settings changed since the check) is an error naming the step.

use serde::Deserialize;
use serde_json::json;
use tower_lsp_server::ls_types::{Position, Uri};

use litmus_engine::ast::Test;
use litmus_engine::graph::Graph;
use litmus_engine::report::Model;
use litmus_engine::trace::{Snapshot, Trace, TraceEnd};
use litmus_engine::Span;

use crate::json::trace as out;

use super::document::Outcome;
use super::position::Conv;
use super::verdict::{self, Mark};
use super::view::{self, Finding, Target};
use crate::steps as schedule;
use std::collections::BTreeMap;

/// Parameters of `litmus/trace`.
#[derive(Debug, Deserialize)]
pub struct TraceParams {
    pub uri: Uri,
    /// `sc`, `tso` or `pso`; the first model with a counterexample when absent.
    #[serde(default)]
    pub model: Option<String>,
    /// Index among the model's findings (violations, then the witness).
    #[serde(default)]
    pub violation: Option<usize>,
    /// Without `violation`: the model's finding at or nearest this position (as
    /// `litmus.showSchedule` picks); without either, the model's first.
    #[serde(default)]
    pub position: Option<Position>,
}

pub const METHOD: &str = "litmus/trace";

/// What a finding is, for people.
fn kind_words(kind: &str) -> &'static str {
    match kind {
        "assert" => "assertion failure",
        "condition" => "condition violation",
        "error" => "runtime error",
        "deadlock" => "deadlock",
        _ => "witness",
    }
}

/// The findings of one model, in the order `violation` indexes them.
fn of_model<'a>(fs: &'a [Finding<'a>], m: Model) -> Vec<&'a Finding<'a>> {
    fs.iter().filter(|f| f.model == m).collect()
}

fn finding_title(text: &str, f: &Finding) -> String {
    let src = text
        .get(f.span.range())
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let src: String = if src.chars().count() > 48 {
        src.chars().take(47).collect::<String>() + "…"
    } else {
        src
    };
    // Assertions and conditions are told apart by their text (their messages are alike);
    // runtime errors and deadlocks by what happened.
    let what = match f.kind {
        "error" | "deadlock" if !f.message.is_empty() => f.message,
        _ => &src,
    };
    format!("{} {}: {what}", f.model.label(), kind_words(f.kind))
}

fn snapshot(conv: &Conv, s: &Snapshot) -> out::Snapshot {
    out::Snapshot {
        memory: s.memory.clone(),
        buffers: s
            .buffers
            .iter()
            .map(|b| {
                b.iter()
                    .map(|p| out::Pending {
                        loc: p.loc.clone(),
                        value: p.value,
                        range: conv.range(p.span),
                    })
                    .collect()
            })
            .collect(),
        registers: s.registers.clone(),
    }
}

fn end(conv: &Conv, e: &TraceEnd) -> out::End {
    match e {
        TraceEnd::Final { state } => out::End::Final {
            state: state.0.clone(),
        },
        TraceEnd::Violation {
            kind,
            message,
            span,
        } => out::End::Violation {
            kind: view::kind_key(*kind),
            message: message.clone(),
            range: conv.range(*span),
        },
        TraceEnd::Blocked { reason, span } => out::End::Blocked {
            reason: reason.clone(),
            range: conv.range(*span),
        },
        TraceEnd::Running => out::End::Running,
    }
}

/// For each edge, whether it lies on a cycle (its target reaches its source). A violation that
/// SC does not have comes from such a cycle of po, rf, co and fr (herd's picture of a non-SC
/// execution): these edges explain it, and the trace view draws them first.
fn on_cycle(g: &Graph) -> Vec<bool> {
    let n = g.nodes.len();
    let mut adj = vec![Vec::new(); n];
    for e in &g.edges {
        if e.from < n && e.to < n {
            adj[e.from].push(e.to);
        }
    }
    let mut reach: Vec<Option<Vec<bool>>> = vec![None; n];
    g.edges
        .iter()
        .map(|e| {
            if e.from >= n || e.to >= n {
                return false;
            }
            let r = reach[e.to].get_or_insert_with(|| {
                let mut seen = vec![false; n];
                let mut stack = vec![e.to];
                while let Some(v) = stack.pop() {
                    for &w in &adj[v] {
                        if !seen[w] {
                            seen[w] = true;
                            stack.push(w);
                        }
                    }
                }
                seen
            });
            r[e.from]
        })
        .collect()
}

/// A deadlock's wait-for relation: each waiting thread, the mutex it waits for and the thread
/// holding it (its last `lock` of that mutex not followed by an `unlock`). The waits are read
/// from the engine's message (`P0 waits for mutex b, P1 waits for mutex a`).
fn waits(g: &Graph, message: &str) -> Vec<out::Wait> {
    use litmus_engine::graph::NodeKind;
    let holder = |m: &str| {
        let mut h = None;
        let mut nodes: Vec<_> = g
            .nodes
            .iter()
            .filter(|n| n.loc.as_deref() == Some(m))
            .collect();
        nodes.sort_by_key(|n| n.step);
        for n in nodes {
            match n.kind {
                NodeKind::Lock => h = Some(n),
                NodeKind::Unlock => h = None,
                _ => {}
            }
        }
        h
    };
    message
        .split(", ")
        .filter_map(|part| {
            let (name, rest) = part.split_once(' ')?;
            let thread = g.threads.iter().position(|t| t == name)?;
            let (what, mutex) = match rest.strip_prefix("waits for mutex ") {
                Some(m) => ("mutex", Some(m.trim())),
                None => ("await", None),
            };
            let held = mutex.and_then(holder);
            Some(out::Wait {
                thread,
                waits: what,
                mutex: mutex.map(String::from),
                holder: held.and_then(|n| n.thread),
                lock: held.map(|n| n.id),
            })
        })
        .collect()
}

fn graph(conv: &Conv, g: &Graph, end: &TraceEnd) -> out::Graph {
    let cycle = on_cycle(g);
    let waits = match end {
        TraceEnd::Violation {
            kind: litmus_engine::report::ViolationKind::Deadlock,
            message,
            ..
        } => waits(g, message),
        _ => vec![],
    };
    out::Graph {
        waits,
        threads: g.threads.clone(),
        nodes: g
            .nodes
            .iter()
            .map(|n| out::Node {
                id: n.id,
                name: n.name.clone(),
                kind: n.kind,
                thread: n.thread,
                loc: n.loc.clone(),
                value: n.value,
                label: n.label.clone(),
                pending: n.pending,
                step: n.step,
                range: n.span.map(|s| conv.range(s)),
            })
            .collect(),
        edges: g
            .edges
            .iter()
            .zip(cycle)
            .map(|(e, c)| out::Edge {
                from: e.from,
                to: e.to,
                kind: e.kind.key(),
                explains: c,
            })
            .collect(),
    }
}

/// The reply of `litmus/trace` for a computed trace: every step's text rendered here
/// ([`schedule::labels`], [`schedule::cell`]), so that every client shows the same words.
pub fn reply(
    conv: &Conv,
    test: &Test,
    text: &str,
    fs: &[Finding],
    f: &Finding,
    index: usize,
    t: &Trace,
) -> out::Trace {
    let labels = schedule::labels(test, text, f.schedule);
    let choices = Model::ALL
        .iter()
        .flat_map(|&m| {
            of_model(fs, m)
                .into_iter()
                .enumerate()
                .map(move |(i, g)| (m, i, g))
        })
        .map(|(m, i, g)| out::Choice {
            model: m.key(),
            index: i,
            kind: g.kind.into(),
            title: finding_title(text, g),
        })
        .collect();
    out::Trace {
        uri: conv.uri.as_str().into(),
        test: test.name.text.clone(),
        model: f.model.key(),
        index,
        kind: f.kind.into(),
        title: finding_title(text, f),
        message: f.message.into(),
        range: conv.range(f.span),
        choices,
        threads: t.threads.clone(),
        locations: t.locations.clone(),
        initial: snapshot(conv, &t.initial),
        rows: t
            .rows
            .iter()
            .zip(labels)
            .map(|(r, label)| out::Row {
                thread: r.step.thread,
                action: r.step.action,
                loc: r.step.loc.clone(),
                value: r.step.value,
                buffered: r.step.buffered,
                label,
                cell: schedule::cell(text, &r.step),
                text: schedule::source(text, r.step.span),
                range: conv.range(r.step.span),
                after: snapshot(conv, &r.after),
            })
            .collect(),
        end: end(conv, &t.end),
        graph: graph(conv, &t.graph, &t.end),
    }
}

/// `litmus/trace` on a snapshot of the document (the handler, `custom.rs`, parses the model
/// and turns a schedule that no longer replays into an error): `None` when there is nothing to
/// show.
pub fn request(
    snap: &super::state::Snapshot<'_>,
    p: &TraceParams,
    model: Option<Model>,
) -> Option<std::result::Result<out::Trace, String>> {
    let (d, conv) = (snap.doc, &snap.conv);
    let test = d.test.as_ref()?;
    let fs = view::findings(test, &d.results);
    let m = model.or_else(|| fs.first().map(|f| f.model))?;
    let opts = super::unbounded::replay_options(snap.settings, d, m);
    let mine = of_model(&fs, m);
    let index = match (p.violation, p.position) {
        (Some(i), _) => i,
        (None, Some(pos)) => {
            let off = super::position::offset(&d.rope, conv.enc, pos) as u32;
            let owned: Vec<Finding> = mine.iter().map(|f| (*f).clone()).collect();
            let picked = view::pick(&owned, Some(off))?;
            owned.iter().position(|f| std::ptr::eq(f, picked))?
        }
        (None, None) => 0,
    };
    let f = mine.get(index)?;
    Some(
        snap.engine
            .trace(test, m, &opts, f.schedule)
            .map(|t| reply(conv, test, &d.text, &fs, f, index, &t)),
    )
}

fn overlaps(a: Span, b: Span) -> bool {
    a.start < b.end.max(b.start + 1) && b.start < a.end.max(a.start + 1)
}

/// Whether `f` is about `target` (what the lens there opens).
fn about(f: &Finding, target: Target, test: &Test) -> bool {
    match target {
        Target::Test => true,
        Target::Assert(s) => f.kind == "assert" && overlaps(f.span, s),
        Target::Condition => {
            (f.kind == "condition" || f.kind == "witness")
                && test
                    .condition
                    .as_ref()
                    .is_some_and(|c| overlaps(f.span, c.span))
        }
    }
}

/// The verdict of one target per model (`SC ✓`, `TSO ✗`, `PSO ✗ (implied by SC)`, shown side
/// by side as one lens each, see [`super::verdict`]): the title, its tooltip, and the model
/// whose counterexample or witness about the target the lens opens (`litmus.showSchedule [uri,
/// line, character, model]`, made in [`super::to_proto::Conv::verdict_lenses`]): its own, else
/// that of the model its verdict is implied by.
pub fn verdict_marks(
    test: &Test,
    target: Target,
    models: &[Model],
    results: &BTreeMap<Model, Outcome>,
) -> Vec<(String, String, Option<Model>)> {
    let fs = view::findings(test, results);
    let vs = verdict::verdicts(test, target, models, results);
    let tip = verdict::tooltip(test, target, &vs);
    vs.iter()
        .map(|v| {
            let has = |m: Model| fs.iter().any(|f| f.model == m && about(f, target, test));
            let opens = [Some(v.model), v.implied_by]
                .into_iter()
                .flatten()
                .find(|&m| has(m) && matches!(v.mark, Mark::Fails | Mark::Observed));
            (v.title(), tip.clone(), opens)
        })
        .collect()
}

/// The hover's link to the trace view (`litmus.showTrace [uri, model, index]`) of each model
/// with a counterexample or witness about what the hover is on; empty when there is none.
pub fn hover_links(
    test: &Test,
    results: &BTreeMap<Model, Outcome>,
    target: Target,
    uri: &Uri,
) -> String {
    let fs = view::findings(test, results);
    let mut links = Vec::new();
    for m in Model::ALL {
        let mine = of_model(&fs, m);
        if let Some(i) = mine.iter().position(|f| about(f, target, test)) {
            let args = json!([uri.as_str(), m.key(), i]).to_string();
            let enc: String = args
                .bytes()
                .map(|b| match b {
                    b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                        (b as char).to_string()
                    }
                    _ => format!("%{b:02X}"),
                })
                .collect();
            links.push(format!(
                "[Trace under {}](command:litmus.showTrace?{enc})",
                m.label()
            ));
        }
    }
    if links.is_empty() {
        String::new()
    } else {
        format!("\n\n{}", links.join(" · "))
    }
}
