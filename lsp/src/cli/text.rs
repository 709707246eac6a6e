//! Text output: per test and model, herd7's result block, then every violation with its
//! schedule (one step a line, store-buffer flushes as their own steps, as Nidhugg prints
//! `UPDATE` lines), the witness of an `exists` that holds, warnings and a stats line.
//!
//! ```text
//! --- TSO ---
//! Test SB Allowed
//! States 4
//! P0:r0=0; P1:r1=0;
//! ...
//! Ok
//! Witnesses
//! Positive: 1 Negative: 3
//! Condition exists (P0:r0 == 0 && P1:r1 == 0)
//! Observation SB Sometimes 1 3
//! ```
//!
//! Every function here returns a `String`; the driver decides where it goes.

use std::fmt::Write as _;

use litmus_engine::ast::{Quantifier, Test};
use litmus_engine::report::{Action, ConditionResult, ModelReport, Step, ViolationKind};
use litmus_engine::{CheckOptions, LineIndex, Model, ReplayEnd, Span};

use super::args::GraphFormat;
use super::cond;

/// ANSI styling, or none.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    pub color: bool,
}

impl Style {
    fn paint(self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_owned()
        }
    }
    pub fn bold(self, s: &str) -> String {
        self.paint("1", s)
    }
    pub fn green(self, s: &str) -> String {
        self.paint("1;32", s)
    }
    pub fn red(self, s: &str) -> String {
        self.paint("1;31", s)
    }
    pub fn yellow(self, s: &str) -> String {
        self.paint("1;33", s)
    }
    pub fn dim(self, s: &str) -> String {
        self.paint("2", s)
    }
}

/// Everything the renderer needs to know about one file.
pub struct Ctx<'a> {
    /// The path as the user gave it, used in every `file:line:col`.
    pub path: &'a str,
    pub test: &'a Test,
    pub index: &'a LineIndex,
    /// The options the reports were made with (replaying a schedule needs them).
    pub opts: &'a CheckOptions,
    pub style: Style,
    /// herd's `locations [...]`, as state keys (`P0:EAX`, `x`); empty for the native dialect.
    pub locations: &'a [String],
    /// `--graph`: print execution graphs in place of schedules.
    pub graph: Option<GraphFormat>,
}

impl Ctx<'_> {
    /// `path:line:col` of a span's start.
    pub fn pos(&self, span: Span) -> String {
        let lc = self.index.line_col(span.start);
        format!("{}:{}:{}", self.path, lc.line, lc.col)
    }
}

/// The name of thread `i` (`P0`), robust to an index the test does not have.
pub fn thread_name(test: &Test, i: usize) -> String {
    test.threads
        .get(i)
        .map(|t| t.name.text.clone())
        .unwrap_or_else(|| format!("T{i}"))
}

/// `Final state: P0:r0=0; P1:r1=0;`, the (projected) state a schedule ends in, found by
/// replaying it through the engine; a schedule that does not replay is reported, not hidden.
fn reached(ctx: &Ctx, r: &ModelReport, steps: &[Step], keys: &[String]) -> String {
    match litmus_engine::replay(ctx.test, r.model, ctx.opts, steps) {
        Ok(ReplayEnd::Final(state)) => {
            let mut shown = if keys.is_empty() {
                state
            } else {
                state.project(keys)
            };
            // herd's dialects: herd's names (`0:EAX`, `[x]`), as in the block above.
            if ctx.test.dialect.is_herd() {
                for (k, _) in shown.0.iter_mut() {
                    *k = cond::herd_key(ctx.test, k);
                }
            }
            format!("Final state: {}\n", cond::state_line(&shown))
        }
        Ok(_) => String::new(),
        Err(e) => format!(
            "{} this schedule does not replay: {e}\n",
            ctx.style.yellow("warning:")
        ),
    }
}

/// The header line printed before each model's block.
pub fn model_header(ctx: &Ctx, report: &ModelReport) -> String {
    ctx.style.bold(&format!("--- {} ---", report.model.label()))
}

/// herd's block, violations, witness, warnings and stats for one model.
pub fn model_block(ctx: &Ctx, r: &ModelReport) -> String {
    let mut out = String::new();
    let test = ctx.test;
    let _ = writeln!(out, "{}", model_header(ctx, r));
    let keys = cond::observed_keys(test, &r.states);
    if test.dialect.is_herd() {
        out.push_str(&herd_block(ctx, r));
    } else {
        native_block(ctx, r, &keys, &mut out);
    }
    violations_and_stats(ctx, r, &keys, &mut out);
    out
}

/// herd's block for a test in one of herd's dialects, line for line as herd7 prints it (apart
/// from its `Time` and `Hash` lines): the states over the condition's locations and the
/// `locations [...]` ones, sorted as herd sorts them, with herd's names (`0:EAX`, `[x]` in
/// `X86_64`), and the witness counts of the condition's proposition (for `~exists p`, herd
/// counts the states satisfying `~p` as positive; `Observation` counts `p`).
pub fn herd_block(ctx: &Ctx, r: &ModelReport) -> String {
    let mut out = String::new();
    let st = ctx.style;
    let test = ctx.test;
    let name = &test.name.text;
    let (keys, states) = cond::herd_states(test, &r.states, ctx.locations);
    let display: Vec<String> = keys.iter().map(|k| cond::herd_key(test, k)).collect();
    let write_states = |out: &mut String| {
        let _ = writeln!(out, "States {}", states.len());
        for s in &states {
            let mut line = String::new();
            for (i, (_, v)) in s.0.iter().enumerate() {
                if i > 0 {
                    line.push(' ');
                }
                let _ = write!(line, "{}={v};", display[i]);
            }
            let _ = writeln!(out, "{line}");
        }
    };
    let (Some(c), Some(res)) = (&test.condition, &r.condition) else {
        let _ = writeln!(out, "Test {name}");
        write_states(&mut out);
        return out;
    };
    let kind = match c.quantifier {
        Quantifier::Exists => "Allowed",
        Quantifier::NotExists => "Forbidden",
        Quantifier::Forall => "Required",
    };
    let _ = writeln!(out, "Test {name} {kind}");
    write_states(&mut out);
    let sat = states
        .iter()
        .filter(|s| litmus_engine::condition::satisfies(test, s) == Some(true))
        .count();
    let unsat = states.len() - sat;
    let _ = writeln!(out, "{}", verdict_word(st, res));
    let _ = writeln!(out, "Witnesses");
    let (pos, neg) = if c.quantifier == Quantifier::NotExists {
        (unsat, sat)
    } else {
        (sat, unsat)
    };
    let _ = writeln!(out, "Positive: {pos} Negative: {neg}");
    let printed = cond::print_condition(test).unwrap_or_default();
    let _ = writeln!(out, "Condition {} ({printed})", c.quantifier.as_str());
    let obs = litmus_engine::report::observation(sat as u64, unsat as u64, r.complete);
    let _ = writeln!(out, "Observation {name} {obs} {sat} {unsat}");
    out
}

/// herd's verdict line in three values (`docs/reference.md#verdicts`): `Ok` or `No` when the
/// condition is decided, `Unknown` when a stopped check has not decided it (herd has no third
/// word: it always runs to the end).
pub fn verdict_word(st: Style, res: &ConditionResult) -> String {
    match res.verdict() {
        Some(true) => st.green("Ok"),
        Some(false) => st.red("No"),
        None => st.yellow("Unknown"),
    }
}

/// The native dialect's block: herd's shape with the native dialect's own names.
fn native_block(ctx: &Ctx, r: &ModelReport, keys: &[String], out: &mut String) {
    let st = ctx.style;
    let test = ctx.test;
    let name = &test.name.text;
    let states = cond::project(&r.states, keys);
    match (&test.condition, &r.condition) {
        (Some(c), Some(res)) => {
            let kind = match c.quantifier {
                Quantifier::Exists => "Allowed",
                Quantifier::NotExists => "Forbidden",
                Quantifier::Forall => "Required",
            };
            let _ = writeln!(out, "Test {name} {kind}");
            write_states(out, &states);
            let _ = writeln!(out, "{}", verdict_word(st, res));
            let _ = writeln!(out, "Witnesses");
            let _ = writeln!(out, "Positive: {} Negative: {}", res.positive, res.negative);
            let printed = cond::print_condition(test).unwrap_or_default();
            let _ = writeln!(out, "Condition {} ({printed})", c.quantifier.as_str());
            let obs = res.observation(r.complete);
            let _ = writeln!(
                out,
                "Observation {name} {obs} {} {}",
                res.positive, res.negative
            );
        }
        _ => {
            let _ = writeln!(out, "Test {name}");
            write_states(out, &states);
        }
    }
}

/// Violations with their schedules, the witness, warnings and the stats line.
fn violations_and_stats(ctx: &Ctx, r: &ModelReport, keys: &[String], out: &mut String) {
    let st = ctx.style;
    for (i, v) in r.violations.iter().enumerate() {
        let _ = writeln!(out);
        let head = format!(
            "Violation {}/{} ({}):",
            i + 1,
            r.violations.len(),
            kind_name(v.kind)
        );
        let _ = writeln!(
            out,
            "{} {} at {}",
            st.red(&head),
            v.message,
            ctx.pos(v.span)
        );
        let name = format!(
            "{} {} violation {}",
            ctx.test.name.text,
            r.model.label(),
            i + 1
        );
        out.push_str(&schedule_or_graph(ctx, r.model, &v.schedule, &name));
        if v.kind == ViolationKind::Condition {
            out.push_str(&reached(ctx, r, &v.schedule, keys));
        }
    }
    if let (Some(w), Some(res)) = (&r.witness, &r.condition) {
        if res.holds && res.kind == Quantifier::Exists {
            let _ = writeln!(out);
            let _ = writeln!(
                out,
                "Witness ({}) reaching a state where the condition holds:",
                steps_word(w.len())
            );
            if ctx.graph.is_some() {
                let name = format!("{} {} witness", ctx.test.name.text, r.model.label());
                out.push_str(&execution_graph(ctx, r.model, w, &name));
            } else {
                out.push_str(&schedule(ctx, w));
            }
            out.push_str(&reached(ctx, r, w, keys));
        }
    }
    if !r.warnings.is_empty() || !r.complete {
        let _ = writeln!(out);
    }
    for w in &r.warnings {
        let at = w
            .span
            .map(|s| format!(" at {}", ctx.pos(s)))
            .unwrap_or_default();
        let _ = writeln!(out, "{} {}{at}", st.yellow("warning:"), w.message);
    }
    // The engine usually says so itself; say it once.
    let engine_said = r.warnings.iter().any(|w| w.message.contains("incomplete"));
    if !r.complete && !engine_said {
        let _ = writeln!(
            out,
            "{} exploration incomplete (timeout or cancellation): states may be missing and \
             the verdict above may change",
            st.yellow("warning:")
        );
    }
    let _ = writeln!(out, "{}", st.dim(&stats_line(r)));
}

fn steps_word(n: usize) -> String {
    if n == 1 {
        "1 step".to_owned()
    } else {
        format!("{n} steps")
    }
}

fn write_states(out: &mut String, states: &[litmus_engine::report::FinalState]) {
    let _ = writeln!(out, "States {}", states.len());
    for s in states {
        let _ = writeln!(out, "{}", cond::state_line(s));
    }
}

fn kind_name(k: ViolationKind) -> &'static str {
    match k {
        ViolationKind::Assert => "assert",
        ViolationKind::Condition => "condition",
        ViolationKind::Error => "error",
        ViolationKind::Deadlock => "deadlock",
    }
}

/// `Stats: 4 executions, 0 blocked, 4 states, 14 queries, 0 constraints, solver 0.1 ms,
/// time 1.2 ms, complete`
pub fn stats_line(r: &ModelReport) -> String {
    let s = &r.stats;
    format!(
        "Stats: {} executions, {} blocked, {} states, {} queries, {} constraints, solver {:.1} ms, \
         time {:.1} ms, {}",
        s.executions,
        s.blocked,
        s.states,
        s.queries,
        s.constraints,
        s.solver_ms,
        s.time_ms,
        match (r.complete, s.explored) {
            (true, _) => "complete".to_string(),
            (false, 0) => "incomplete".to_string(),
            (false, n) => format!("incomplete after {n} explored states"),
        }
    )
}

fn action_name(a: Action) -> &'static str {
    match a {
        Action::Load => "load",
        Action::Store => "store",
        Action::Flush => "flush",
        Action::Fence => "fence",
        Action::Lock => "lock",
        Action::Unlock => "unlock",
        Action::Rmw => "rmw",
        Action::Assert => "assert",
        Action::Assume => "assume",
        Action::Await => "await",
        Action::Branch => "branch",
        Action::Local => "local",
    }
}

/// What a step did to its location: `x = 1 (buffered)`, `y -> 0`, `x = 1 (buffer -> memory)`.
fn step_effect(s: &Step) -> String {
    let loc = s.loc.as_deref().unwrap_or("");
    let val = s.value.map(|v| v.to_string());
    match (s.action, val) {
        (Action::Store, Some(v)) => {
            format!(
                "{loc} = {v}{}",
                if s.buffered { "  (buffered)" } else { "" }
            )
        }
        (Action::Flush, Some(v)) => format!("{loc} = {v}  (buffer -> memory)"),
        (Action::Load, Some(v)) => {
            format!(
                "{loc} -> {v}{}",
                if s.buffered {
                    "  (from own buffer)"
                } else {
                    ""
                }
            )
        }
        (Action::Rmw, Some(v)) => format!("{loc} (old value {v})"),
        (_, Some(v)) if !loc.is_empty() => format!("{loc} {v}"),
        (_, Some(v)) => v,
        (_, None) => loc.to_owned(),
    }
}

/// A violation's `Schedule (N steps):` and its steps, or with `--graph` its execution graph.
fn schedule_or_graph(ctx: &Ctx, model: Model, steps: &[Step], name: &str) -> String {
    match ctx.graph {
        None => format!(
            "Schedule ({}):\n{}",
            steps_word(steps.len()),
            schedule(ctx, steps)
        ),
        Some(_) => format!(
            "Execution graph ({}):\n{}",
            steps_word(steps.len()),
            execution_graph(ctx, model, steps, name)
        ),
    }
}

/// The execution of `steps` as a Graphviz digraph named `name` (`--graph dot`), built by
/// replaying the schedule; a schedule that does not replay is reported, not hidden.
fn execution_graph(ctx: &Ctx, model: Model, steps: &[Step], name: &str) -> String {
    match litmus_engine::trace::trace(ctx.test, model, ctx.opts, steps) {
        Ok(t) => litmus_engine::graph::to_dot(&t.graph, name, name),
        Err(e) => format!(
            "{} this schedule does not replay: {e}\n",
            ctx.style.yellow("warning:")
        ),
    }
}

/// One step a line: number, `file:line:col`, thread, action, effect, and the source text.
pub fn schedule(ctx: &Ctx, steps: &[Step]) -> String {
    let rows: Vec<[String; 5]> = steps
        .iter()
        .map(|s| {
            [
                ctx.pos(s.span),
                thread_name(ctx.test, s.thread),
                action_name(s.action).to_owned(),
                step_effect(s),
                source_snippet(ctx, s.span),
            ]
        })
        .collect();
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
    let (w0, w1, w2, w3) = (width(0), width(1), width(2), width(3));
    let num_w = steps.len().to_string().len();
    let mut out = String::new();
    for (n, r) in rows.iter().enumerate() {
        let line = format!(
            "  {:>num_w$}. {:<w0$}  {:<w1$}  {:<w2$}  {:<w3$}  {}",
            n + 1,
            r[0],
            r[1],
            r[2],
            r[3],
            ctx.style.dim(&format!("// {}", r[4])),
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// The source line a span starts on, trimmed and shortened.
fn source_snippet(ctx: &Ctx, span: Span) -> String {
    let line = ctx.index.line_col(span.start).line;
    let text = ctx.index.line_text(line).trim();
    if text.chars().count() > 40 {
        let cut: String = text.chars().take(37).collect();
        format!("{cut}...")
    } else {
        text.to_owned()
    }
}

/// The condition's verdict with herd's counts, for the summary line: `exists holds (1 of 4
/// states)`, `forall does not hold (...)`, and for a stopped check that has not decided it
/// `forall not decided (3 states seen)`.
pub fn condition_summary(st: Style, c: &ConditionResult) -> String {
    match c.verdict() {
        Some(holds) => format!(
            "{} {} ({} of {} states)",
            c.kind.as_str(),
            if holds { "holds" } else { "does not hold" },
            c.positive,
            c.positive + c.negative
        ),
        None => st.yellow(&format!(
            "{} not decided ({} states seen)",
            c.kind.as_str(),
            c.positive + c.negative
        )),
    }
}

/// `--quiet`: one line per test and model.
pub fn summary_line(ctx: &Ctx, r: &ModelReport) -> String {
    let st = ctx.style;
    let mut parts = Vec::new();
    if let Some(c) = &r.condition {
        parts.push(condition_summary(st, c));
    }
    parts.push(match r.violations.len() {
        0 => "no violation".to_owned(),
        1 => st.red("1 violation"),
        n => st.red(&format!("{n} violations")),
    });
    if r.stopped.is_some() {
        parts.push(st.yellow("stopped at the first violation"));
    } else if !r.complete {
        parts.push(st.yellow("incomplete"));
    }
    format!(
        "{} {} {}: {}",
        ctx.path,
        ctx.test.name.text,
        r.model.label(),
        parts.join(", ")
    )
}

/// `-q --robust`: the robustness verdict as a part of the model's summary line.
pub fn robust_summary(ctx: &Ctx, r: &litmus_engine::robust::Robustness) -> String {
    let st = ctx.style;
    if r.attack.is_some() {
        st.red("not robust")
    } else if r.complete {
        "robust".to_owned()
    } else {
        st.yellow("robustness unknown (search incomplete)")
    }
}

/// `--robust`: one line with the verdict, and for a program that is not robust the delayed
/// store, what it was delayed past, and the attack's schedule.
pub fn robust_block(
    ctx: &Ctx,
    model: litmus_engine::Model,
    r: &litmus_engine::robust::Robustness,
) -> String {
    let st = ctx.style;
    let mut out = String::new();
    let Some(a) = &r.attack else {
        let what = if r.complete {
            st.green("yes")
        } else {
            st.yellow("unknown (search incomplete)")
        };
        let _ = writeln!(
            out,
            "\nRobust under {}: {what} ({} states searched)",
            model.label(),
            r.states
        );
        return out;
    };
    let past: Vec<String> = a
        .past
        .iter()
        .map(|s| {
            format!(
                "{} {} at {}",
                action_name(s.action),
                s.loc.as_deref().unwrap_or("?"),
                ctx.pos(s.span)
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "\nRobust under {}: {}: {}'s store to {} at {} is delayed past its {}; {}'s {} of {} at {} comes before it reaches memory",
        model.label(),
        st.red("no"),
        thread_name(ctx.test, a.thread),
        a.store.loc.as_deref().unwrap_or("?"),
        ctx.pos(a.store.span),
        if past.is_empty() { "later accesses".to_owned() } else { past.join(", ") },
        thread_name(ctx.test, a.conflict.thread),
        action_name(a.conflict.action),
        a.conflict.loc.as_deref().unwrap_or("?"),
        ctx.pos(a.conflict.span),
    );
    let _ = writeln!(
        out,
        "Attack ({}), a cycle no SC execution has:",
        steps_word(a.schedule.len())
    );
    out.push_str(&schedule(ctx, &a.schedule));
    out
}
