//! Fence synthesis: a smallest set of fences that makes a program behave under TSO or PSO as
//! it does under SC (every assertion and the condition get their SC verdict), or makes it
//! robust ([`crate::robust`]).
//!
//! - **Candidates** are the places right after a statement that contains a store (a store, or
//!   an `if`/`while` with one inside, at any depth) from which the thread can still reach an
//!   access the model may reorder with that store: a load under TSO, a load or a store under
//!   PSO (later in the same block, after the enclosing statements, or in the next round of an
//!   enclosing loop). A fence right after a store orders it with everything after, so fencing
//!   every candidate makes the model behave as SC: an answer always exists.
//! - **Search**: counterexample-guided. Every candidate is inserted into the text once (native
//!   `fence;`, x86 `MFENCE` on a row of its own) and the program lowered; a candidate set is
//!   checked by turning the other candidates' fences into no-ops. A failed check gives an
//!   execution `E` (a violation, a witness or an attack); the candidates that would make `E`
//!   impossible are exactly those `E` passes while the thread still has buffered stores
//!   (found by replaying `E` with each one added). Every answer must contain one of them, so
//!   the search enumerates sets that meet every such constraint, by size and then in
//!   candidate order (thread, then position in the text), and checks each: the first set
//!   that passes is a smallest one and, among the smallest, the first in that order (the
//!   documented tie-break).
//! - Violations that SC has too are not the fences' business: the goal is SC's verdicts, and
//!   they are listed as what no fence can fix.

use crate::ast::{Dialect, Stmt, StmtKind, Test};
use crate::collect::Collector;
use crate::ir::{reads_memory, InstrKind, Program};
use crate::options::{CheckOptions, Control};
use crate::report::{Action, Model, ModelReport, Schedule, ViolationKind};
use crate::robust::robustness_program;
use crate::semantics::{Choice, State};
use crate::span::Span;
use serde::Serialize;
use std::collections::BTreeSet;
use std::time::Instant;

/// What the fences must achieve.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Goal {
    /// Every assertion and the condition have their SC verdict under the model.
    #[default]
    Verdicts,
    /// The program is robust: every execution is equivalent to an SC one.
    Robust,
}

/// A place a fence may go: right after statement `after` of thread `thread`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Placement {
    pub thread: usize,
    /// The statement the fence follows (original text).
    pub after: Span,
    /// Byte offset in the original text where the fence's text is inserted.
    pub offset: usize,
}

/// A violation (in the original text's positions).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Named {
    pub kind: ViolationKind,
    pub message: String,
    pub span: Span,
}

/// The answer for one program, model and goal.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Synthesis {
    pub model: Model,
    pub goal: Goal,
    /// False when some check stopped early: then nothing is proven.
    pub complete: bool,
    /// A smallest set of fences, in candidate order (empty when none is needed).
    pub fences: Vec<Placement>,
    /// How many candidate places there were.
    pub candidates: usize,
    /// Model violations the fences remove (there under the model, not under SC).
    pub fixed: Vec<Named>,
    /// Violations SC has too: no fence can remove them.
    pub sc_violations: Vec<Named>,
    /// The text with the fences inserted.
    pub text: String,
    /// Candidate sets checked (each by a full check of the fenced program).
    pub checks: u32,
    pub time_ms: f64,
}

/// The candidate places of `test` under `model`, in order (thread, then position).
pub fn candidates(text: &str, test: &Test, model: Model) -> Vec<Placement> {
    let mut out = Vec::new();
    if !model.rules().buffered() {
        return out;
    }
    for (t, th) in test.threads.iter().enumerate() {
        walk(text, test, t, &th.body, false, model, &mut out);
    }
    out.sort_by_key(|p| (p.thread, p.offset));
    out.dedup_by_key(|p| (p.thread, p.offset));
    out
}

fn walk(
    text: &str,
    test: &Test,
    t: usize,
    body: &[Stmt],
    after: bool,
    model: Model,
    out: &mut Vec<Placement>,
) {
    for (i, s) in body.iter().enumerate() {
        let later = after || body[i + 1..].iter().any(|x| access(x, model));
        let next_fence = matches!(body.get(i + 1).map(|x| &x.kind), Some(StmtKind::Fence));
        if later && !next_fence && has_store(s) {
            out.push(Placement {
                thread: t,
                after: s.span,
                offset: insertion_offset(text, test, s),
            });
        }
        match &s.kind {
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => {
                walk(text, test, t, then_body, later, model, out);
                walk(text, test, t, else_body, later, model, out);
            }
            StmtKind::While { body, .. } => walk(text, test, t, body, true, model, out),
            _ => {}
        }
    }
}

fn has_store(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Store { .. } => true,
        StmtKind::If {
            then_body,
            else_body,
            ..
        } => then_body.iter().chain(else_body).any(has_store),
        StmtKind::While { body, .. } => body.iter().any(has_store),
        _ => false,
    }
}

/// Whether `s` may perform an access the model can reorder with an earlier store.
fn access(s: &Stmt, model: Model) -> bool {
    match &s.kind {
        StmtKind::Store { loc, value } => {
            model.rules().stores_reorder()
                || reads_memory(value)
                || loc.index.as_ref().is_some_and(|e| reads_memory(e))
        }
        StmtKind::Assign { value, .. } => reads_memory(value),
        StmtKind::Assert(e) | StmtKind::Assume(e) | StmtKind::Await(e) => reads_memory(e),
        StmtKind::If {
            cond,
            then_body,
            else_body,
        } => reads_memory(cond) || then_body.iter().chain(else_body).any(|x| access(x, model)),
        StmtKind::While { cond, body } => {
            reads_memory(cond) || body.iter().any(|x| access(x, model))
        }
        // Atomics, locks and fences drain the buffers first: nothing to reorder.
        StmtKind::Rmw { .. }
        | StmtKind::Lock { .. }
        | StmtKind::Unlock { .. }
        | StmtKind::Fence => false,
    }
}

/// Where a fence after `s` is inserted: the end of the statement (native), the end of its
/// row (x86).
fn insertion_offset(text: &str, test: &Test, s: &Stmt) -> usize {
    let end = (s.span.end as usize).min(text.len());
    match test.dialect {
        Dialect::Native => end,
        Dialect::X86 | Dialect::X86_64 | Dialect::AArch64 | Dialect::RiscV => {
            text[end..].find('\n').map_or(text.len(), |i| end + i)
        }
    }
}

/// `text` with a fence at each of `places` (any order), and the byte offset of each fence
/// keyword in the new text (in the order of `places`).
pub fn insert(text: &str, test: &Test, places: &[Placement]) -> (String, Vec<usize>) {
    let mut order: Vec<usize> = (0..places.len()).collect();
    order.sort_by_key(|&i| (places[i].offset, places[i].thread));
    let mut out = String::with_capacity(text.len() + 16 * places.len());
    let mut starts = vec![0; places.len()];
    let mut at = 0;
    let mut k = 0;
    while k < order.len() {
        let off = places[order[k]].offset;
        out.push_str(&text[at..off]);
        at = off;
        match test.dialect {
            Dialect::Native => {
                let p = &places[order[k]];
                let line_start = text[..p.after.start as usize]
                    .rfind('\n')
                    .map_or(0, |i| i + 1);
                let indent: String = text[line_start..]
                    .chars()
                    .take_while(|c| *c == ' ' || *c == '\t')
                    .collect();
                let rest = &text[off..];
                let rest_line = &rest[..rest.find('\n').unwrap_or(rest.len())];
                let alone = rest_line.trim().is_empty() || rest_line.trim().starts_with("//");
                if alone {
                    out.push('\n');
                    out.push_str(&indent);
                } else {
                    out.push(' ');
                }
                starts[order[k]] = out.len();
                out.push_str("fence;");
                k += 1;
            }
            Dialect::X86 | Dialect::X86_64 | Dialect::AArch64 | Dialect::RiscV => {
                // One new row after the store's row holding every fence placed there, each in
                // its thread's column, padded to the row's column widths.
                let line_start = text[..off].rfind('\n').map_or(0, |i| i + 1);
                let row = &text[line_start..off];
                let body = row.trim_end().trim_end_matches(';');
                let cells: Vec<&str> = body.split('|').collect();
                let mut group = vec![];
                while k < order.len() && places[order[k]].offset == off {
                    group.push(order[k]);
                    k += 1;
                }
                out.push('\n');
                for (c, cell) in cells.iter().enumerate() {
                    if c > 0 {
                        out.push('|');
                    }
                    let w = cell.chars().count();
                    match group.iter().find(|&&i| places[i].thread == c) {
                        Some(&i) => {
                            let lead = cell.len() - cell.trim_start().len();
                            let lead = lead.clamp(1, w.max(1));
                            out.push_str(&" ".repeat(lead));
                            starts[i] = out.len();
                            // herd's `X86` writes it in capitals, `X86_64` (AT&T) in lower case; both six bytes.
                            out.push_str(if test.dialect == Dialect::X86_64 {
                                "mfence"
                            } else {
                                "MFENCE"
                            });
                            out.push_str(&" ".repeat(w.saturating_sub(lead + 6)));
                        }
                        None => out.push_str(&" ".repeat(w)),
                    }
                }
                out.push_str(&row[body.len()..]);
            }
        }
    }
    out.push_str(&text[at..]);
    (out, starts)
}

/// The fences of `places` as pure insertions into `text`: (byte offset, inserted text), by
/// offset; applying them all gives [`insert`]'s text (for an editor's text edits).
pub fn insertions(text: &str, test: &Test, places: &[Placement]) -> Vec<(usize, String)> {
    let mut offsets: Vec<usize> = places.iter().map(|p| p.offset).collect();
    offsets.sort_unstable();
    offsets.dedup();
    offsets
        .into_iter()
        .map(|o| {
            let group: Vec<Placement> = places.iter().filter(|p| p.offset == o).cloned().collect();
            let (new, _) = insert(text, test, &group);
            let added = new.len() - text.len();
            (o, new[o..o + added].to_string())
        })
        .collect()
}

/// The program with every candidate fenced, and how to switch candidates off.
struct AllFenced {
    test: Test,
    program: Program,
    /// Per candidate: (thread, pc) of its fence.
    pcs: Vec<(usize, usize)>,
    /// Per candidate, sorted by new offset: (offset in the fenced text, bytes inserted before
    /// and including this one), to map positions back.
    shifts: Vec<(usize, usize)>,
}

impl AllFenced {
    fn variant(&self, on: &BTreeSet<usize>) -> Program {
        let mut p = self.program.clone();
        for (i, &(t, pc)) in self.pcs.iter().enumerate() {
            if !on.contains(&i) {
                p.threads[t].code[pc].kind = InstrKind::Jump(pc as u32 + 1);
            }
        }
        p
    }

    /// An offset of the fenced text in the original text.
    fn back(&self, off: usize) -> usize {
        let mut sub = 0;
        for &(start, total) in &self.shifts {
            if start <= off {
                sub = total;
            }
        }
        off.saturating_sub(sub)
    }

    fn back_span(&self, s: Span) -> Span {
        Span::new(self.back(s.start as usize), self.back(s.end as usize))
    }
}

/// What one check of a candidate set found.
enum Outcome {
    Pass,
    /// An execution the fences must break (choices from the initial state).
    Fail(Vec<Choice>),
    Incomplete,
}

/// Synthesises fences for `test` (parsed from `text`) under `model`.
pub fn synthesize(
    text: &str,
    test: &Test,
    model: Model,
    goal: Goal,
    opts: &CheckOptions,
    ctl: &Control,
) -> Result<Synthesis, String> {
    let start = Instant::now();
    let cands = candidates(text, test, model);
    let (all_text, starts) = insert(text, test, &cands);
    let parsed = crate::syntax::parse(&all_text);
    let all_test = parsed
        .test
        .ok_or_else(|| "the program with fences inserted does not parse".to_string())?;
    let program = Program::lower(&all_test, opts.loop_bound)?;
    let mut pcs = Vec::new();
    for &s in &starts {
        let found = program.threads.iter().enumerate().find_map(|(t, th)| {
            th.code
                .iter()
                .position(|i| i.kind == InstrKind::Fence && i.span.start as usize == s)
                .map(|pc| (t, pc))
        });
        pcs.push(found.ok_or("a candidate fence was not found in the program")?);
    }
    let mut shifts: Vec<(usize, usize)> = Vec::new();
    {
        let mut order: Vec<usize> = (0..cands.len()).collect();
        order.sort_by_key(|&i| starts[i]);
        let mut total = 0;
        let mut last_off = None;
        for i in order {
            // Bytes inserted at this place: up to the next original character.
            let orig = cands[i].offset;
            if last_off == Some(orig) && test.dialect != Dialect::Native {
                continue;
            }
            last_off = Some(orig);
            let inserted = starts[i] + 6 - (orig + total);
            let inserted = match test.dialect {
                Dialect::Native => inserted,
                // A whole row: up to the original row's end of line.
                Dialect::X86 | Dialect::X86_64 | Dialect::AArch64 | Dialect::RiscV => {
                    let tail = &all_text[starts[i]..];
                    let eol = tail.find('\n').unwrap_or(tail.len());
                    starts[i] + eol - (orig + total)
                }
            };
            total += inserted;
            shifts.push((orig + total - inserted, total));
        }
    }
    let all = AllFenced {
        test: all_test,
        program,
        pcs,
        shifts,
    };
    let run = |on: &BTreeSet<usize>, m: Model| -> ModelReport {
        let p = all.variant(on);
        let mut col = Collector::new(&all.test, &p, m);
        // Each check gets the timeout afresh (and cancel and the memory budget).
        crate::check::explore_with(&p, m, opts, &ctl.for_check(opts), &mut col);
        col.finish(start.elapsed())
    };
    let none = BTreeSet::new();
    let sc = run(&none, Model::Sc);
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
        sc_violations: sc
            .violations
            .iter()
            .map(|v| Named {
                kind: v.kind,
                message: v.message.clone(),
                span: all.back_span(v.span),
            })
            .collect(),
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
                let r = robustness_program(&p, model, opts, ctl);
                if !r.complete {
                    return Outcome::Incomplete;
                }
                r.attack.map(|a| a.schedule)
            }
            Goal::Verdicts => {
                let r = run(on, model);
                if !r.complete {
                    return Outcome::Incomplete;
                }
                let bad = r
                    .violations
                    .iter()
                    .find(|v| !sc_keys.contains(&(v.kind, v.span)))
                    .map(|v| v.schedule.clone());
                let bad = bad.or_else(|| {
                    let holds = r.condition.as_ref().map(|c| c.holds);
                    (holds != sc_holds).then(|| r.witness.clone()).flatten()
                });
                if first_report.is_none() {
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
        out.fences = set.iter().map(|&i| cands[i].clone()).collect();
        out.text = insert(text, test, &out.fences).0;
        if let Some(r) = first_report {
            out.fixed = r
                .violations
                .iter()
                .filter(|v| !sc_keys.contains(&(v.kind, v.span)))
                .map(|v| Named {
                    kind: v.kind,
                    message: v.message.clone(),
                    span: all.back_span(v.span),
                })
                .collect();
            if r.condition.as_ref().map(|c| c.holds) != sc_holds
                && !out.fixed.iter().any(|v| v.kind == ViolationKind::Condition)
            {
                if let Some(c) = &test.condition {
                    out.fixed.push(Named {
                        kind: ViolationKind::Condition,
                        message: format!("the condition's verdict differs from SC's"),
                        span: c.span,
                    });
                }
            }
        }
    }
    out.time_ms = start.elapsed().as_secs_f64() * 1e3;
    Ok(out)
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
