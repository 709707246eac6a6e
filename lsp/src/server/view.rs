//! What the user sees, computed from the AST and the per-model outcomes of one document:
//! verification diagnostics, code lenses, hovers, inlay hints and the schedule for
//! `litmus.showSchedule`. Spans only (byte offsets): [`super::to_proto`] makes LSP types of them.

use std::collections::BTreeMap;

use litmus_engine::ast::{Stmt, StmtKind, Test};
use litmus_engine::report::{Schedule, ViolationKind};
use litmus_engine::{Diagnostic, Model, Severity, Span};

use super::document::Outcome;
pub use super::target::{overlaps, target_at, Target};
use crate::steps as schedule;

/// A violation or witness of one model.
#[derive(Clone, Debug)]
pub struct Finding<'a> {
    pub model: Model,
    /// `assert`, `condition`, `error`, `deadlock` or `witness`.
    pub kind: &'static str,
    pub span: Span,
    pub message: &'a str,
    pub schedule: &'a Schedule,
}

pub fn kind_key(k: ViolationKind) -> &'static str {
    match k {
        ViolationKind::Assert => "assert",
        ViolationKind::Condition => "condition",
        ViolationKind::Error => "error",
        ViolationKind::Deadlock => "deadlock",
    }
}

/// All findings in model order, violations before witnesses (violations of a check still
/// exploring included: the first ones it found).
pub fn findings<'a>(test: &Test, results: &'a BTreeMap<Model, Outcome>) -> Vec<Finding<'a>> {
    let mut out = Vec::new();
    for (m, o) in results {
        {
            for v in o.violations() {
                out.push(Finding {
                    model: *m,
                    kind: kind_key(v.kind),
                    span: v.span,
                    message: &v.message,
                    schedule: &v.schedule,
                });
            }
        }
    }
    for (m, o) in results {
        if let Outcome::Done { report: r, .. } = o {
            if let (Some(w), Some(c)) = (&r.witness, &test.condition) {
                out.push(Finding {
                    model: *m,
                    kind: "witness",
                    span: c.span,
                    message: "",
                    schedule: w,
                });
            }
        }
    }
    out
}

fn join_models(ms: &[Model]) -> String {
    let l: Vec<&str> = ms.iter().map(|m| m.label()).collect();
    match l.len() {
        0 => String::new(),
        1 => l[0].to_string(),
        n => format!("{} and {}", l[..n - 1].join(", "), l[n - 1]),
    }
}

/// Schedules with more steps than this have their related information folded ...
const RELATED_MAX: usize = 12;
/// ... to the first `RELATED_HEAD` and the last `RELATED_TAIL` steps and one entry between.
const RELATED_HEAD: usize = 6;
const RELATED_TAIL: usize = 5;

/// Diagnostics of the verification: one per (kind, span) naming the models, the schedule of the
/// first failing model as related information; warnings for bounds, incomplete explorations and
/// crashed checks.
pub fn diagnostics(test: &Test, text: &str, results: &BTreeMap<Model, Outcome>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let all = findings(test, results);
    let mut groups: Vec<(&'static str, Span, Vec<&Finding>)> = Vec::new();
    for f in all.iter().filter(|f| f.kind != "witness") {
        match groups.iter_mut().find(|g| g.0 == f.kind && g.1 == f.span) {
            Some(g) => g.2.push(f),
            None => groups.push((f.kind, f.span, vec![f])),
        }
    }
    for (kind, span, fs) in groups {
        let failing: Vec<Model> = fs.iter().map(|f| f.model).collect();
        let holding: Vec<Model> = results
            .iter()
            .filter(|(m, o)| {
                !failing.contains(m) && matches!(o, Outcome::Done { report, .. } if report.complete)
            })
            .map(|(m, _)| *m)
            .collect();
        let what = match kind {
            "assert" => "assertion fails".to_string(),
            "condition" => {
                let q = test
                    .condition
                    .as_ref()
                    .map_or("condition", |c| c.quantifier.as_str());
                format!("final condition `{q}` does not hold")
            }
            "error" => format!("runtime error ({})", fs[0].message),
            _ => "deadlock".to_string(),
        };
        let mut msg = format!("{what} under {}", join_models(&failing));
        let exploring: Vec<Model> = failing
            .iter()
            .copied()
            .filter(|m| results.get(m).is_some_and(Outcome::running))
            .collect();
        if !exploring.is_empty() {
            msg += &format!(
                " (first found; still exploring {})",
                join_models(&exploring)
            );
        }
        if !holding.is_empty() {
            let verb = if kind == "assert" || kind == "condition" {
                "holds"
            } else {
                "cannot happen"
            };
            msg += &format!("; {verb} under {}", join_models(&holding));
        }
        if kind != "error" && !fs[0].message.is_empty() {
            msg += &format!("\n{}", fs[0].message);
        }
        let mut d = Diagnostic {
            severity: Severity::Error,
            span,
            message: msg,
            related: vec![],
        };
        let f = fs[0];
        let labels = schedule::labels(test, text, f.schedule);
        let n = labels.len();
        // A long schedule is folded to its first and last steps (the Problems panel lists
        // every related entry under the problem); the trace view has every step.
        let folded = |i: usize| n > RELATED_MAX && i >= RELATED_HEAD && i < n - RELATED_TAIL;
        for (i, (s, l)) in f.schedule.iter().zip(labels).enumerate() {
            if folded(i) {
                if i == RELATED_HEAD {
                    let hidden = n - RELATED_HEAD - RELATED_TAIL;
                    d = d.with_related(
                        s.span,
                        format!(
                            "{} steps {}-{}: {hidden} more steps (Litmus: Show Trace View steps through all {n})",
                            f.model.label(),
                            i + 1,
                            n - RELATED_TAIL
                        ),
                    );
                }
                continue;
            }
            d = d.with_related(
                s.span,
                format!("{} step {}/{n}: {l}", f.model.label(), i + 1),
            );
        }
        out.push(d);
    }
    // Warnings: grouped by (message, span) over models; the reason an exploration stopped is
    // said once, naming the setting that bounds it.
    let mut warns: Vec<(String, Option<Span>, Vec<Model>)> = Vec::new();
    for (m, o) in results {
        match o {
            Outcome::Done { report, .. } => {
                for w in &report.warnings {
                    let message = server_wording(&w.message);
                    match warns.iter_mut().find(|x| x.0 == message && x.1 == w.span) {
                        Some(x) => x.2.push(*m),
                        None => warns.push((message, w.span, vec![*m])),
                    }
                }
                let said = report
                    .warnings
                    .iter()
                    .any(|w| w.message.starts_with("exploration stopped"));
                if !report.complete && !said {
                    let msg =
                        "exploration incomplete (stopped early): violations may have been missed"
                            .to_string();
                    match warns.iter_mut().find(|x| x.0 == msg) {
                        Some(x) => x.2.push(*m),
                        None => warns.push((msg, None, vec![*m])),
                    }
                }
            }
            Outcome::Crashed(msg) => out.push(Diagnostic::error(
                test.name.span,
                format!("internal error while checking under {}: {msg}", m.label()),
            )),
            Outcome::Cancelled(_) => {
                let msg = "verification cancelled before the end: results are incomplete \
                           (Litmus: Verify Now checks again)"
                    .to_string();
                match warns.iter_mut().find(|x| x.0 == msg) {
                    Some(x) => x.2.push(*m),
                    None => warns.push((msg, None, vec![*m])),
                }
            }
            Outcome::Waiting | Outcome::Running | Outcome::Exploring(_) => {}
        }
    }
    for (msg, span, ms) in warns {
        out.push(Diagnostic::warning(
            span.unwrap_or(test.name.span),
            format!("{} ({})", msg, join_models(&ms)),
        ));
    }
    out
}

/// An engine warning in the editor's words: a time limit names `litmus.timeout`.
fn server_wording(message: &str) -> String {
    if message.contains("(timeout)") || message.contains("(timeout or cancellation)") {
        "exploration stopped at the time limit (the `litmus.timeout` setting, in seconds; 0 = \
         none): results are incomplete, violations may have been missed"
            .into()
    } else if let Some(bounded) =
        message.strip_suffix(" (`--unbounded` checks every number of iterations)")
    {
        // The CLI's flag means nothing in an editor: name the lens, the command and the setting.
        format!(
            "{bounded} (the lens `check for every iteration` or Litmus: Check for Every \
             Iteration checks every number of iterations; the `litmus.loopBound` setting is the \
             bound)"
        )
    } else {
        message.to_string()
    }
}

/// Assertions of the test with their statement spans.
pub fn assertions(test: &Test) -> Vec<Span> {
    fn walk(body: &[Stmt], out: &mut Vec<Span>) {
        for s in body {
            match &s.kind {
                StmtKind::Assert(_) => out.push(s.span),
                StmtKind::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    walk(then_body, out);
                    walk(else_body, out);
                }
                StmtKind::While { body, .. } => walk(body, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for t in &test.threads {
        walk(&t.body, &mut out);
    }
    out
}

/// `SC ✓ · TSO ✗ · PSO ✗` (see [`super::verdict`]: implied verdicts say so); with the models
/// still to finish named (`· exploring TSO · queued PSO`); `not verified yet` when no model has
/// a result.
pub fn verdict_title(
    test: &Test,
    target: Target,
    models: &[Model],
    results: &BTreeMap<Model, Outcome>,
) -> String {
    if models.iter().all(|m| !results.contains_key(m)) {
        return format!(
            "{}: not verified yet (save to verify)",
            models
                .iter()
                .map(|m| m.label())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let mut title = super::verdict::verdicts(test, target, models, results)
        .iter()
        .map(|v| v.title())
        .collect::<Vec<_>>()
        .join(" · ");
    if let Some(note) = exploring_note(models, results) {
        title += " · ";
        title += &note;
    }
    title
}

/// `exploring SC · queued TSO and PSO` while some models' checks are still to finish (beside
/// the per-model lenses): running ones explore, the others wait for a worker (`maxJobs`).
pub fn exploring_note(models: &[Model], results: &BTreeMap<Model, Outcome>) -> Option<String> {
    let with = |f: fn(&Outcome) -> bool| -> Vec<Model> {
        let ms = models.iter().copied();
        ms.filter(|m| results.get(m).is_some_and(f)).collect()
    };
    let running = with(|o| o.running() && !matches!(o, Outcome::Waiting));
    let waiting = with(|o| matches!(o, Outcome::Waiting));
    let mut parts = Vec::new();
    if !running.is_empty() {
        parts.push(format!("exploring {}", join_models(&running)));
    }
    if !waiting.is_empty() {
        parts.push(format!("queued {}", join_models(&waiting)));
    }
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// Code lenses: (span to sit above, title, whether a schedule exists for "Show schedule").
pub fn lenses(
    test: &Test,
    models: &[Model],
    results: &BTreeMap<Model, Outcome>,
) -> Vec<(Span, String, bool)> {
    let fs = findings(test, results);
    let mut out = vec![(
        test.name.span,
        verdict_title(test, Target::Test, models, results),
        !fs.is_empty(),
    )];
    for a in assertions(test) {
        let has = fs.iter().any(|f| f.kind == "assert" && overlaps(f.span, a));
        out.push((
            a,
            verdict_title(test, Target::Assert(a), models, results),
            has,
        ));
    }
    if let Some(c) = &test.condition {
        let has = fs
            .iter()
            .any(|f| (f.kind == "condition" || f.kind == "witness") && overlaps(f.span, c.span));
        out.push((
            c.span,
            verdict_title(test, Target::Condition, models, results),
            has,
        ));
    }
    out
}

/// The finding at or nearest `off`: one whose span contains it, else the nearest by distance;
/// violations before witnesses. `None` for the whole test: the first violation, else a witness.
pub fn pick<'a>(fs: &'a [Finding<'a>], off: Option<u32>) -> Option<&'a Finding<'a>> {
    let off = match off {
        None => return fs.first(),
        Some(o) => o,
    };
    if let Some(f) = fs.iter().find(|f| f.span.start <= off && off <= f.span.end) {
        return Some(f);
    }
    let dist = |s: Span| {
        if off < s.start {
            s.start - off
        } else {
            off.saturating_sub(s.end)
        }
    };
    fs.iter()
        .min_by_key(|f| (dist(f.span), f.kind == "witness"))
}

/// The schedule for `litmus.showSchedule`: title, model, kind and (label, span) per step.
pub struct ScheduleView {
    pub title: String,
    pub model: Model,
    pub kind: &'static str,
    pub steps: Vec<(String, Span)>,
}

pub fn schedule_view(
    test: &Test,
    text: &str,
    results: &BTreeMap<Model, Outcome>,
    off: Option<u32>,
    model: Option<Model>,
) -> Option<ScheduleView> {
    let mut fs = findings(test, results);
    // A per-model lens asks for that model's counterexample.
    fs.retain(|f| model.is_none_or(|m| f.model == m));
    let f = pick(&fs, off)?;
    let labels = schedule::labels(test, text, f.schedule);
    let what = match f.kind {
        "assert" => "assertion failure",
        "condition" => "condition violation",
        "error" => "runtime error",
        "deadlock" => "deadlock",
        _ => "witness",
    };
    Some(ScheduleView {
        title: format!(
            "{}: {what} under {} ({} steps)",
            test.name.text,
            f.model.label(),
            labels.len()
        ),
        model: f.model,
        kind: f.kind,
        steps: labels
            .into_iter()
            .zip(f.schedule.iter().map(|s| s.span))
            .collect(),
    })
}

/// Inlay hints: at the end of each line with a load, the values read there in the
/// counterexamples (`⇐ x=0 (TSO)`).
///
/// Values come from every violation of every model (or, when nothing is violated, from every
/// witness), each tagged with its model, and with `#k` when the model has several: Dekker's two
/// failing assertions each contribute their own reads. A load run several times in one schedule
/// (a loop) is summarised by its first value (and its last, when they differ) and a count:
/// `⇐ x=0 (×5, SC)`. In herd's x86 dialects the thread columns are left alone: one hint per row,
/// at the end of the line, naming each cell's thread and location (`⇐ P0 y=0, P1 x=0 (TSO)`).
pub fn inlay_hints(
    test: &Test,
    text: &str,
    results: &BTreeMap<Model, Outcome>,
) -> Vec<(u32, String)> {
    let fs = findings(test, results);
    let chosen: Vec<&Finding> = if fs.iter().any(|f| f.kind != "witness") {
        fs.iter().filter(|f| f.kind != "witness").collect()
    } else {
        fs.iter().collect()
    };
    let herd = test.dialect.is_herd();
    // offset -> ((values, runs), tags), in order of first appearance
    let mut at: BTreeMap<u32, Vec<(HintBody, Vec<String>)>> = BTreeMap::new();
    for (i, f) in chosen.iter().enumerate() {
        let of_model = chosen.iter().filter(|g| g.model == f.model).count();
        let tag = if of_model > 1 {
            let k = chosen[..=i].iter().filter(|g| g.model == f.model).count();
            format!("{} #{k}", f.model.label())
        } else {
            f.model.label().to_string()
        };
        for (off, values, runs) in finding_hints(test, text, f.schedule, herd) {
            let body = (values, runs);
            let bodies = at.entry(off).or_default();
            match bodies.iter_mut().find(|(b, _)| *b == body) {
                Some((_, tags)) => tags.push(tag.clone()),
                None => bodies.push((body, vec![tag.clone()])),
            }
        }
    }
    at.into_iter()
        .map(|(off, bodies)| {
            let parts: Vec<String> = bodies
                .into_iter()
                .map(|((values, runs), tags)| {
                    if runs > 1 {
                        format!("{values} (×{runs}, {})", tags.join(", "))
                    } else {
                        format!("{values} ({})", tags.join(", "))
                    }
                })
                .collect();
            (off, format!(" ⇐ {}", parts.join(" · ")))
        })
        .collect()
}

/// A hint's text: the values read and how many times the load ran.
type HintBody = (String, usize);
/// Per location, in order of first read, the values it read.
type LocValues = Vec<(String, Vec<String>)>;

/// The hints of one schedule: (offset, values read, how many times the load ran).
fn finding_hints(
    test: &Test,
    text: &str,
    schedule: &Schedule,
    herd: bool,
) -> Vec<(u32, String, usize)> {
    use litmus_engine::report::Action;
    // (thread, span) -> per location in order of first read, its values
    let mut by_span: Vec<((usize, Span), LocValues)> = Vec::new();
    for s in schedule
        .iter()
        .filter(|s| matches!(s.action, Action::Load | Action::Rmw))
    {
        let loc = s.loc.clone().unwrap_or_default();
        let v = s.value.map_or("?".into(), |v| v.to_string());
        let key = (s.thread, s.span);
        let i = match by_span.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                by_span.push((key, Vec::new()));
                by_span.len() - 1
            }
        };
        let locs = &mut by_span[i].1;
        match locs.iter_mut().find(|(l, _)| *l == loc) {
            Some((_, vs)) => vs.push(v),
            None => locs.push((loc, vec![v])),
        }
    }
    let summary = |vs: &[String]| -> String {
        match (vs.first(), vs.last()) {
            (Some(a), Some(b)) if a != b => format!("{a} … {b}"),
            (Some(a), _) => a.clone(),
            _ => String::new(),
        }
    };
    let mut out: Vec<(u32, String, usize)> = Vec::new();
    for ((thread, sp), locs) in by_span {
        let runs = locs.iter().map(|(_, vs)| vs.len()).max().unwrap_or(1);
        // At the end of the line (never inside an expression), so each value names its
        // location: `⇐ flag1=0 (TSO)`.
        let values = locs
            .iter()
            .map(|(l, vs)| format!("{l}={}", summary(vs)))
            .collect::<Vec<_>>()
            .join(", ");
        let off = line_end(text, sp.start);
        let values = if herd {
            let name = test
                .threads
                .get(thread)
                .map_or_else(|| format!("P{thread}"), |t| t.name.text.clone());
            format!("{name} {values}")
        } else {
            values
        };
        // herd: the cells of one row share the line end
        match out.iter_mut().find(|(o, _, _)| *o == off) {
            Some((_, v, n)) => {
                *v = format!("{v}, {values}");
                *n = (*n).max(runs);
            }
            None => out.push((off, values, runs)),
        }
    }
    out
}

/// The end of the line holding `off`, before trailing white space.
fn line_end(text: &str, off: u32) -> u32 {
    let start = off as usize;
    let rest = text.get(start..).unwrap_or("");
    let line = rest.split('\n').next().unwrap_or("");
    (start + line.trim_end().len()) as u32
}
