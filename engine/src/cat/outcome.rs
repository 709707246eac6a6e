//! What one run of a model says of a candidate: the check that forbids it, the flags it
//! raises.

use super::CheckKind;
use std::sync::Arc;

/// A check that failed: it forbids the candidate (or, for a `flag`, is reported).
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub kind: CheckKind,
    /// The check's name (`as name`), or its kind when it has none.
    pub name: String,
    pub negated: bool,
    /// For `acyclic`: a cycle; `irreflexive`: the event related to itself; `empty`: one pair.
    pub events: Vec<usize>,
    /// Where the check is: the byte offset of its statement (`acyclic ...`, `flag ...`; for a
    /// failure inside a procedure, the `call`; for a `with` with no choice, the `with`) ...
    pub at: usize,
    /// ... in this file: `None` for the model's own text, else the included file (or bell
    /// file) as the model names it (`Stmt::Origin`).
    pub file: Option<Arc<str>>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// The first failed check, if any (the candidate is forbidden).
    pub failed: Option<Failure>,
    /// The names of the flags that hold, and [`super::UNDEF_FLAG`] when an `undefined_unless`
    /// check fails.
    pub flags: Vec<String>,
    /// How many further choices this (forbidden) outcome stands for: the other members of a
    /// group of choices that a check forbids as a whole, not run ([`super::prune`]).
    pub pruned: u64,
}

impl Outcome {
    /// The flags as herd prints them: `Flag data-race`.
    pub fn flag_lines(&self) -> Vec<String> {
        self.flags.iter().map(|f| format!("Flag {f}")).collect()
    }
}
