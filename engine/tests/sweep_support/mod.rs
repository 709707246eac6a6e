//! The one comparison of an engine's report with the reference explorer's, shared by every
//! sweep (`sweep.rs`, `regressions.rs`, `generator.rs`): final states, violations by kind and
//! position, the condition verdict, loop-bound warnings (DPOR's may be fewer: `ir::spin`), every schedule replaying to what it
//! claims; with `--first`, a first violation reported iff the reference has one, and it
//! replays. Also the shrinking of a disagreement and the outcome tally the sweeps print.
#![allow(dead_code)]

use litmus_engine::ast::Test;
use litmus_engine::condition::{falsifies, satisfies};
use litmus_engine::report::{ModelReport, Stopped, ViolationKind};
use litmus_engine::testgen::{print, shrink};
use litmus_engine::{
    check, replay, CheckOptions, Control, EngineChoice, EngineKind, Model, ReplayEnd, Span,
};
use std::collections::BTreeSet;

/// The loop bound of every sweep: small, so loops hit it.
pub const LOOP_BOUND: u32 = 2;

pub fn options(engine: EngineChoice, first: bool) -> CheckOptions {
    CheckOptions {
        engine,
        loop_bound: LOOP_BOUND,
        first,
        ..CheckOptions::default()
    }
}

/// The reference explorer's report.
pub fn reference(test: &Test, model: Model) -> ModelReport {
    check(
        test,
        model,
        &options(EngineKind::Exhaustive.into(), false),
        &Control::new(),
    )
}

/// One engine's report, with or without `--first`.
pub fn run(test: &Test, model: Model, engine: EngineChoice, first: bool) -> ModelReport {
    check(test, model, &options(engine, first), &Control::new())
}

/// What a report's executions end in, for the tables the sweeps print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Outcome {
    /// Some final state.
    Final,
    Deadlock,
    Assert,
    /// A runtime error (division by zero, index out of bounds, lock misuse).
    Error,
    /// A `forall` or `~exists` that does not hold.
    Condition,
    /// An execution discarded at a false `assume` or the loop bound.
    Blocked,
    LoopBound,
}

impl Outcome {
    pub const ALL: [Outcome; 7] = [
        Outcome::Final,
        Outcome::Deadlock,
        Outcome::Assert,
        Outcome::Error,
        Outcome::Condition,
        Outcome::Blocked,
        Outcome::LoopBound,
    ];
}

pub fn outcomes(r: &ModelReport) -> BTreeSet<Outcome> {
    let mut out = BTreeSet::new();
    if !r.states.is_empty() {
        out.insert(Outcome::Final);
    }
    for v in &r.violations {
        out.insert(match v.kind {
            ViolationKind::Deadlock => Outcome::Deadlock,
            ViolationKind::Assert => Outcome::Assert,
            ViolationKind::Error => Outcome::Error,
            ViolationKind::Condition => Outcome::Condition,
        });
    }
    if r.stats.blocked > 0 {
        out.insert(Outcome::Blocked);
    }
    if !loop_bound_warnings(r).is_empty() {
        out.insert(Outcome::LoopBound);
    }
    out
}

fn loop_bound_warnings(r: &ModelReport) -> BTreeSet<Option<Span>> {
    r.warnings
        .iter()
        .filter(|w| w.message.contains("loop bound"))
        .map(|w| w.span)
        .collect()
}

fn violations(r: &ModelReport) -> BTreeSet<(ViolationKind, Span)> {
    r.violations.iter().map(|v| (v.kind, v.span)).collect()
}

/// Every violation's schedule and the witness replay to what the report says.
pub fn schedules_replay(test: &Test, model: Model, r: &ModelReport) -> Result<(), String> {
    let opts = options(EngineKind::Exhaustive.into(), false);
    for v in &r.violations {
        match replay(test, model, &opts, &v.schedule)? {
            ReplayEnd::Violation { kind, span, .. } if kind == v.kind && span == v.span => {}
            ReplayEnd::Final(s) if v.kind == ViolationKind::Condition => {
                let q = test.condition.as_ref().map(|c| c.quantifier);
                let falsified =
                    q.is_some_and(|q| satisfies(test, &s).is_some_and(|sat| falsifies(q, sat)));
                if !falsified || !r.states.contains(&s) {
                    return Err(format!("the condition violation replays to {s:?}, not a reported state falsifying it"));
                }
            }
            other => return Err(format!("{:?} at {:?} replays to {other:?}", v.kind, v.span)),
        }
    }
    if let Some(w) = &r.witness {
        match replay(test, model, &opts, w)? {
            ReplayEnd::Final(s) if r.states.contains(&s) && satisfies(test, &s) == Some(true) => {}
            other => return Err(format!("the witness replays to {other:?}")),
        }
    }
    Ok(())
}

/// What kind of difference a comparison found, most telling first (a shrunk program keeps
/// the first kind its original had).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DiffKind {
    MissingState,
    MissingViolation(ViolationKind),
    Replay,
    First,
    Condition,
    ExtraState,
    ExtraViolation(ViolationKind),
    LoopBound,
    Incomplete,
}

/// A difference between an engine's report and the reference's.
#[derive(Clone, Debug)]
pub struct Diff {
    pub kinds: BTreeSet<DiffKind>,
    pub text: String,
}

impl Diff {
    fn one(kind: DiffKind, text: String) -> Diff {
        Diff {
            kinds: [kind].into(),
            text,
        }
    }
    /// The most telling kind.
    pub fn main(&self) -> DiffKind {
        *self.kinds.iter().next().expect("a difference has a kind")
    }
}

/// Whether `got` (an engine's report, `first` as it was run) agrees with the reference
/// report `want`; the difference if not.
pub fn compare(
    test: &Test,
    model: Model,
    want: &ModelReport,
    got: &ModelReport,
    first: bool,
) -> Result<(), Diff> {
    if !want.complete {
        return Err(Diff::one(
            DiffKind::Incomplete,
            "the reference explorer did not finish".into(),
        ));
    }
    schedules_replay(test, model, got).map_err(|e| Diff::one(DiffKind::Replay, e))?;
    if first && !want.violations.is_empty() {
        if got.stopped != Some(Stopped::FirstViolation) || got.violations.len() != 1 {
            let text = format!(
                "--first: the reference has {} violations; the engine stopped {:?} with {}",
                want.violations.len(),
                got.stopped,
                got.violations.len()
            );
            return Err(Diff::one(DiffKind::First, text));
        }
        let v = &got.violations[0];
        if !violations(want).contains(&(v.kind, v.span)) {
            let text = format!(
                "--first: {:?} at {:?} is not a violation of the reference",
                v.kind, v.span
            );
            return Err(Diff::one(DiffKind::First, text));
        }
        return Ok(());
    }
    let mut diff = Vec::new();
    let mut kinds = BTreeSet::new();
    if !got.complete || got.stopped.is_some() {
        kinds.insert(DiffKind::Incomplete);
        diff.push(format!("incomplete (stopped {:?})", got.stopped));
    }
    let missing: Vec<_> = want
        .states
        .iter()
        .filter(|s| !got.states.contains(s))
        .collect();
    let extra: Vec<_> = got
        .states
        .iter()
        .filter(|s| !want.states.contains(s))
        .collect();
    if !missing.is_empty() {
        kinds.insert(DiffKind::MissingState);
    }
    if !extra.is_empty() {
        kinds.insert(DiffKind::ExtraState);
    }
    if !missing.is_empty() || !extra.is_empty() {
        diff.push(format!(
            "final states: missing {missing:?}, extra {extra:?}"
        ));
    }
    let (wv, gv) = (violations(want), violations(got));
    if wv != gv {
        kinds.extend(wv.difference(&gv).map(|v| DiffKind::MissingViolation(v.0)));
        kinds.extend(gv.difference(&wv).map(|v| DiffKind::ExtraViolation(v.0)));
        diff.push(format!(
            "violations: missing {:?}, extra {:?}",
            wv.difference(&gv).collect::<Vec<_>>(),
            gv.difference(&wv).collect::<Vec<_>>()
        ));
    }
    if want.condition != got.condition {
        kinds.insert(DiffKind::Condition);
        diff.push(format!(
            "condition: {:?}, the engine {:?}",
            want.condition, got.condition
        ));
    }
    // DPOR ends side-effect-free loop iterations at an `assume` (`ir::spin`): a loop that only
    // such iterations take round to the bound no longer warns. It never warns where the
    // reference does not.
    let lb_agree = if got.stats.engine == Some(EngineKind::Dpor) {
        loop_bound_warnings(got).is_subset(&loop_bound_warnings(want))
    } else {
        loop_bound_warnings(want) == loop_bound_warnings(got)
    };
    if !lb_agree {
        kinds.insert(DiffKind::LoopBound);
        diff.push(format!(
            "loop-bound warnings: {:?}, the engine {:?}",
            loop_bound_warnings(want),
            loop_bound_warnings(got)
        ));
    }
    if diff.is_empty() {
        Ok(())
    } else {
        Err(Diff {
            kinds,
            text: diff.join("; "),
        })
    }
}

/// Runs `engine` on `test` and compares it with the reference.
pub fn agrees(test: &Test, model: Model, engine: EngineChoice, first: bool) -> Result<(), Diff> {
    let want = reference(test, model);
    let got = run(test, model, engine, first);
    compare(test, model, &want, &got, first)
}

/// One disagreement, with the program shrunk while the engine still disagrees.
pub struct Disagreement {
    pub label: String,
    pub model: Model,
    pub engine: EngineChoice,
    pub first: bool,
    pub kind: DiffKind,
    pub what: String,
    /// Whether `shrunk` was shrunk (else it is the whole program).
    pub was_shrunk: bool,
    pub shrunk: String,
    pub shrunk_what: String,
}

impl std::fmt::Display for Disagreement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let first = if self.first { " --first" } else { "" };
        write!(
            f,
            "{} {} --engine {}{first}: {:?}: {}\nshrunk ({}):\n{}",
            self.label,
            self.model.label(),
            self.engine.key(),
            self.kind,
            self.what,
            self.shrunk_what,
            self.shrunk
        )
    }
}

/// Shrinks `test` while `engine` (with `first`) still disagrees with the reference under
/// `model`; the program printed as native source, and the last difference.
pub fn shrink_disagreement(
    test: &Test,
    model: Model,
    engine: EngineChoice,
    first: bool,
    kind: DiffKind,
) -> (String, String) {
    let small = shrink(test, &mut |t| {
        agrees(t, model, engine, first).is_err_and(|d| d.kinds.contains(&kind))
    });
    // The printed text is what a regression file keeps: its spans are its own.
    let src = print(&small);
    let parsed = litmus_engine::syntax::parse(&src)
        .test
        .expect("a printed program parses");
    let what = agrees(&parsed, model, engine, first)
        .err()
        .map_or_else(|| "(agrees once printed)".into(), |d| d.text);
    (src, what)
}

/// Where a sweep's disagreements go: the first few shrunk (shrinking costs many checks).
pub struct Findings {
    pub list: Vec<Disagreement>,
    pub shrink_limit: usize,
}

impl Findings {
    pub fn new() -> Findings {
        Findings {
            list: Vec::new(),
            shrink_limit: 5,
        }
    }

    pub fn add(
        &mut self,
        label: String,
        test: &Test,
        model: Model,
        engine: EngineChoice,
        first: bool,
        diff: Diff,
    ) {
        // Shrink the first disagreement of each kind (with and without --first), a few in all.
        let new_kind = !self
            .list
            .iter()
            .any(|d| (d.kind, d.first) == (diff.main(), first));
        let was_shrunk = new_kind && self.shrunk().count() < self.shrink_limit;
        let (shrunk, shrunk_what) = if was_shrunk {
            shrink_disagreement(test, model, engine, first, diff.main())
        } else {
            (print(test), diff.text.clone())
        };
        let kind = diff.main();
        self.list.push(Disagreement {
            label,
            model,
            engine,
            first,
            kind,
            what: diff.text,
            was_shrunk,
            shrunk,
            shrunk_what,
        });
    }

    /// The disagreements that were shrunk (the first of each kind).
    pub fn shrunk(&self) -> impl Iterator<Item = &Disagreement> {
        self.list.iter().filter(|d| d.was_shrunk)
    }

    /// Prints the shrunk ones and the count of each kind.
    pub fn print(&self, label: &str) {
        for d in self.shrunk() {
            eprintln!("{d}\n");
        }
        let mut by_kind: std::collections::BTreeMap<(DiffKind, bool), u64> = Default::default();
        for d in &self.list {
            *by_kind.entry((d.kind, d.first)).or_default() += 1;
        }
        eprintln!("{label}: disagreements by (kind, --first): {by_kind:?}");
    }

    /// Prints them and fails if there is any.
    pub fn assert_none(&self, label: &str) {
        self.print(label);
        assert!(
            self.list.is_empty(),
            "{label}: {} disagreements with the reference explorer (the first ones above, shrunk)",
            self.list.len()
        );
    }
}
