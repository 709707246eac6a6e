//! Fence synthesis: a smallest set of fences that makes a program behave under TSO or PSO as
//! it does under SC (every assertion and the condition get their SC verdict), or makes it
//! robust ([`crate::robust`]). Three pieces:
//!
//! - **Candidates** (this file): the places right after a statement that contains a store (a
//!   store, or an `if`/`while` with one inside, at any depth) from which the thread can still
//!   reach an access the model may reorder with that store: a load under TSO, a load or a
//!   store under PSO (later in the same block, after the enclosing statements, or in the next
//!   round of an enclosing loop). A fence right after a store orders it with everything after,
//!   so fencing every candidate makes the model behave as SC: an answer always exists.
//! - **The fenced program** ([`ir`]): the test's AST with a fence statement after every
//!   candidate, lowered once; a candidate set is the program with the other candidates'
//!   fence instructions switched off (made no-op jumps). Positions stay the original text's:
//!   nothing is edited or reparsed.
//! - **Search** ([`search`]): counterexample-guided. A failed check gives an execution `E` (a
//!   violation, a witness or an attack); the candidates that would make `E` impossible are
//!   exactly those `E` passes while the thread still has buffered stores (found by replaying
//!   `E` with each one switched on). Every answer must contain one of them, so the search
//!   enumerates sets that meet every such constraint, by size and then in candidate order
//!   (thread, then position in the text), and checks each through the engine interface: the
//!   first set that passes is a smallest one and, among the smallest, the first in that order
//!   (the documented tie-break). One deadline bounds the whole search.
//!
//! Violations that SC has too are not the fences' business: the goal is SC's verdicts, and
//! they are listed as what no fence can fix. The text of the answer (per dialect) is the front
//! end's, [`crate::syntax::fences`].

mod ir;
mod search;

pub use crate::syntax::fences::Placement;
pub use search::synthesize;

use crate::ast::{Stmt, StmtKind, Test};
use crate::ir::reads_memory;
use crate::report::{Model, ViolationKind};
use crate::span::Span;
use serde::Serialize;

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

/// Where a candidate's statement is in its thread's AST: indices into nested bodies,
/// alternating with the branch taken into a compound statement (0 `then`, 1 `else`, 2 a
/// loop's body); the last index is the statement's.
type Path = Vec<usize>;

/// A candidate place and its statement's path.
#[derive(Clone, Debug)]
struct Candidate {
    place: Placement,
    path: Path,
}

/// The candidate places of `test` (parsed from `text`) under `model`, in order (thread, then
/// position).
pub fn candidates(text: &str, test: &Test, model: Model) -> Vec<Placement> {
    candidates_with_paths(text, test, model)
        .into_iter()
        .map(|c| c.place)
        .collect()
}

fn candidates_with_paths(text: &str, test: &Test, model: Model) -> Vec<Candidate> {
    let mut out = Vec::new();
    if !model.rules().buffered() {
        return out;
    }
    for (t, th) in test.threads.iter().enumerate() {
        let mut w = Walk {
            text,
            test,
            thread: t,
            model,
            path: vec![],
            out: &mut out,
        };
        w.body(&th.body, false);
    }
    // Two statements of a thread can end at one place (x86: one row); the first in walk
    // order (the enclosing one) keeps it.
    out.sort_by_key(|c| (c.place.thread, c.place.offset));
    out.dedup_by_key(|c| (c.place.thread, c.place.offset));
    out
}

struct Walk<'a> {
    text: &'a str,
    test: &'a Test,
    thread: usize,
    model: Model,
    path: Path,
    out: &'a mut Vec<Candidate>,
}

impl Walk<'_> {
    fn body(&mut self, body: &[Stmt], after: bool) {
        for (i, s) in body.iter().enumerate() {
            let later = after || body[i + 1..].iter().any(|x| access(x, self.model));
            let next_fence = matches!(body.get(i + 1).map(|x| &x.kind), Some(StmtKind::Fence));
            self.path.push(i);
            if later && !next_fence && has_store(s) {
                let offset =
                    crate::syntax::fences::insertion_offset(self.text, self.test.dialect, s.span);
                self.out.push(Candidate {
                    place: Placement {
                        thread: self.thread,
                        after: s.span,
                        offset,
                    },
                    path: self.path.clone(),
                });
            }
            match &s.kind {
                StmtKind::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    self.nested(0, then_body, later);
                    self.nested(1, else_body, later);
                }
                StmtKind::While { body, .. } => self.nested(2, body, true),
                _ => {}
            }
            self.path.pop();
        }
    }

    fn nested(&mut self, branch: usize, body: &[Stmt], after: bool) {
        self.path.push(branch);
        self.body(body, after);
        self.path.pop();
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
