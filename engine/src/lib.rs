//! The litmus engine: front end, program IR, memory-model semantics, exploration and reports.
//!
//! Architecture invariant: this crate knows nothing of LSP and does no I/O. It takes source
//! text and options, and returns values: `(T, Vec<Diagnostic>)` from analyses, a
//! [`report::ModelReport`] from a check. A violation is a result, never an error; no input
//! makes it panic.

pub mod asm;
pub mod ast;
pub mod axiomatic;
pub mod c;
pub mod cat;
pub mod diag;
pub mod mcr;
pub mod report;
pub mod span;
pub mod syntax;

pub use diag::{Diagnostic, Severity};
pub use report::{Model, ModelReport};
pub use span::{LineIndex, Span};
pub mod control;
pub mod cputime;
pub mod options;

pub use control::{Control, MemoryBudget, Progress, StopReason, WorkerSlot, Workers};
pub use options::{CheckOptions, EngineChoice, EngineKind, ENGINES};

pub mod auto;
pub mod check;
pub mod collect;
pub mod condition;
pub mod dpor;
pub mod engine;
pub mod explore;
pub mod fences;
pub mod finals;
pub mod graph;
pub mod ids;
pub mod ir;
#[doc(hidden)]
pub mod mcr_trace;
pub mod merge;
pub mod model;
pub mod replay;
pub mod robust;
pub mod sdg;
pub mod semantics;
pub mod solver_watch;
pub mod trace;
pub mod unbounded;

pub use check::{check, robustness};
pub use collect::human_bytes;
pub use condition::evaluate_condition;
pub use replay::{replay, ReplayEnd};
#[doc(hidden)]
pub mod testgen;
