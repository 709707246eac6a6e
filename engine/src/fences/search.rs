//! The counterexample-guided search for a smallest fence set (see [`super`]): checks through
//! the engine interface with the caller's options under one control and one deadline for the
//! whole search, constraints from failing executions, and sets enumerated by size and then in
//! candidate order.

use super::ir::AllFenced;
use super::{candidates_with_paths, Goal, Named, Synthesis};
use crate::ast::Test;
use crate::control::Control;
use crate::engine::Task;
use crate::ir::Program;
use crate::options::CheckOptions;
use crate::report::{Action, Model, ModelReport, Schedule, Violation, ViolationKind};
use crate::semantics::{Choice, State};
use crate::span::Span;
use std::collections::BTreeSet;
use std::time::Instant;

/// What one check of a candidate set found.
enum Outcome {
    Pass,
    /// An execution the fences must break (choices from the initial state).
    Fail(Vec<Choice>),
    Incomplete,
}

/// Synthesises fences for `test` (parsed from `text`) under `model`, checking with the engine
/// `opts.engine` names. `opts.timeout` bounds the whole search (counted from the call), as do
/// `ctl`'s cancel, deadline and memory budget.
pub fn synthesize(
    text: &str,
    test: &Test,
    model: Model,
    goal: Goal,
    opts: &CheckOptions,
    ctl: &Control,
) -> Result<Synthesis, String> {
    let start = Instant::now();
    let cands = candidates_with_paths(text, test, model);
    let all = AllFenced::new(test, &cands, opts.loop_bound)?;
    // One deadline for the search: the checks inherit it and start no timeout of their own.
    // Every execution counts (never `--first`): each answer must break all of them.
    let ctl = &ctl.for_check(opts);
    let opts = &CheckOptions {
        first: false,
        timeout: None,
        ..opts.clone()
    };
    let run = |p: &Program, m: Model| -> ModelReport {
        // `auto` runs its first candidate alone, on this thread.
        let kind = crate::check::single(opts.engine, p, m, opts);
        let task = Task::new(&all.test, p, m, opts);
        let mut r = crate::engine::engine(kind).check(&task, &ctl.child());
        // As the search reports its checks: time from its start, no engine named.
        r.stats.time_ms = start.elapsed().as_secs_f64() * 1000.0;
        r.stats.engine = None;
        r
    };
    let none = BTreeSet::new();
    let sc = run(&all.variant(&none), Model::Sc);
    let key = |r: &ModelReport| -> BTreeSet<(ViolationKind, Span)> {
        r.violations.iter().map(|v| (v.kind, v.span)).collect()
    };
    let sc_keys = key(&sc);
    let mut out = Synthesis {
        model,
        goal,
        complete: sc.complete,
        fences: vec![],
        candidates: cands.len(),
        fixed: vec![],
        sc_violations: sc.violations.iter().map(named).collect(),
        text: text.to_string(),
        checks: 0,
        time_ms: 0.0,
    };
    if !sc.complete {
        out.time_ms = start.elapsed().as_secs_f64() * 1e3;
        return Ok(out);
    }
    let sc_holds = sc.condition.as_ref().map(|c| c.holds);
    let mut first_report: Option<ModelReport> = None;
    let mut check = |on: &BTreeSet<usize>| -> Outcome {
        let p = all.variant(on);
        let schedule: Option<Schedule> = match goal {
            Goal::Robust => {
                let task = Task::new(&all.test, &p, model, opts);
                let r = crate::check::chosen(opts.engine).robustness(&task, &ctl.child());
                // An attack found is real, even in a search that stopped: only its absence
                // needs the search to end.
                if !r.complete && r.attack.is_none() {
                    return Outcome::Incomplete;
                }
                r.attack.map(|a| a.schedule)
            }
            Goal::Verdicts => {
                let r = run(&p, model);
                let bad = r
                    .violations
                    .iter()
                    .find(|v| !sc_keys.contains(&(v.kind, v.span)))
                    .map(|v| v.schedule.clone());
                let bad = bad.or_else(|| {
                    let holds = r.condition.as_ref().map(|c| c.holds);
                    (holds != sc_holds).then(|| r.witness.clone()).flatten()
                });
                // A new violation (or a witness) found before a stop is real: the candidate set
                // fails; without one, a stopped check proves nothing.
                if !r.complete && bad.is_none() {
                    return Outcome::Incomplete;
                }
                if first_report.is_none() && r.complete {
                    first_report = Some(r);
                }
                bad
            }
        };
        match schedule {
            None => Outcome::Pass,
            Some(s) => Outcome::Fail(choices(&p, model, &s)),
        }
    };
    // Constraint of a failing execution: the candidates that break it.
    let breaks = |on: &BTreeSet<usize>, e: &[Choice]| -> BTreeSet<usize> {
        (0..all.pcs.len())
            .filter(|i| !on.contains(i))
            .filter(|&i| {
                let mut with = on.clone();
                with.insert(i);
                blocked(&all.variant(&with), model, e, all.pcs[i])
            })
            .collect()
    };
    let n = all.pcs.len();
    let mut constraints: Vec<BTreeSet<usize>> = Vec::new();
    let mut found: Option<BTreeSet<usize>> = None;
    'sizes: for k in 0..=n {
        let mut combo: Vec<usize> = (0..k).collect();
        loop {
            let set: BTreeSet<usize> = combo.iter().copied().collect();
            if constraints.iter().all(|c| !c.is_disjoint(&set)) {
                out.checks += 1;
                match check(&set) {
                    Outcome::Pass => {
                        found = Some(set);
                        break 'sizes;
                    }
                    Outcome::Incomplete => {
                        out.complete = false;
                        break 'sizes;
                    }
                    Outcome::Fail(e) => {
                        let c = breaks(&set, &e);
                        if c.is_empty() {
                            // No candidate breaks it: the candidates are incomplete (a bug).
                            return Err("no fence placement removes a violation".into());
                        }
                        constraints.push(c);
                        continue;
                    }
                }
            }
            if !next_combo(&mut combo, n) {
                break;
            }
        }
    }
    if let Some(set) = found {
        out.fences = set.iter().map(|&i| cands[i].place.clone()).collect();
        out.text = crate::syntax::fences::insert(text, test.dialect, &out.fences);
        if let Some(r) = first_report {
            out.fixed = r
                .violations
                .iter()
                .filter(|v| !sc_keys.contains(&(v.kind, v.span)))
                .map(named)
                .collect();
            if r.condition.as_ref().map(|c| c.holds) != sc_holds
                && !out.fixed.iter().any(|v| v.kind == ViolationKind::Condition)
            {
                if let Some(c) = &test.condition {
                    out.fixed.push(Named {
                        kind: ViolationKind::Condition,
                        message: "the condition's verdict differs from SC's".to_string(),
                        span: c.span,
                    });
                }
            }
        }
    }
    out.time_ms = start.elapsed().as_secs_f64() * 1e3;
    Ok(out)
}

fn named(v: &Violation) -> Named {
    Named {
        kind: v.kind,
        message: v.message.clone(),
        span: v.span,
    }
}

/// The next `k`-subset of `0..n` in lexicographic order.
fn next_combo(c: &mut [usize], n: usize) -> bool {
    let k = c.len();
    for i in (0..k).rev() {
        if c[i] < n - k + i {
            c[i] += 1;
            for j in i + 1..k {
                c[j] = c[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

/// The scheduler choices of a schedule.
fn choices(p: &Program, model: Model, s: &Schedule) -> Vec<Choice> {
    s.iter()
        .map(|step| match step.action {
            Action::Flush => {
                let cell = step
                    .loc
                    .as_ref()
                    .and_then(|l| p.cells.iter().position(|c| c == l))
                    .unwrap_or(0) as u32;
                Choice::flush(model, step.thread, cell)
            }
            _ => Choice::Exec(step.thread),
        })
        .collect()
}

/// Whether the execution `e` (choices of a program without the fence at `at`) is impossible
/// in `p`, which has it: the thread reaches the fence with stores still buffered before its
/// next step.
fn blocked(p: &Program, model: Model, e: &[Choice], at: (usize, usize)) -> bool {
    let mut s = State::initial(p, model);
    for &c in e {
        if let Choice::Exec(t) = c {
            if t == at.0 && s.threads[t].pc as usize == at.1 {
                if s.buffers[t].iter().any(|b| !b.is_empty()) {
                    return true;
                }
                if s.try_step(p, Choice::Exec(t)).is_none() {
                    return true;
                }
            }
        }
        if s.try_step(p, c).is_none() {
            return true;
        }
    }
    false
}
