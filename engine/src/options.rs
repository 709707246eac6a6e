//! How a check runs: engine choice, bounds, timeout, cancellation and progress.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Which explorer answers a check.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EngineKind {
    /// Maximal causality reduction (spec §5's default): explores one execution per causal state
    /// of the program, choosing each next interleaving by solving the maximal causal model of an
    /// explored trace ([`crate::mcr`]).
    #[default]
    Mcr,
    /// Exhaustive exploration of the operational semantics with state hashing: the reference
    /// oracle MCR is tested against.
    Exhaustive,
    /// Stateless Source-DPOR with sleep sets over chronological traces ([`crate::dpor`]).
    Dpor,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CheckOptions {
    pub engine: EngineKind,
    /// Use the static dependency graph to prune MCR's constraints (`--no-sdg` turns it off).
    pub sdg: bool,
    /// How often a `while` loop may run its body in one execution (default 8).
    pub loop_bound: u32,
    /// Per test and model; exploration then ends incomplete.
    pub timeout: Option<Duration>,
    /// `--first`: stop at the first violation (the report then says `stopped`).
    pub first: bool,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            engine: EngineKind::Mcr,
            sdg: true,
            loop_bound: 8,
            timeout: None,
            first: false,
        }
    }
}

/// Progress of a running exploration, reported now and then through [`Control`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Progress {
    pub executions: u64,
    pub states: u64,
    pub violations: u64,
}

/// What [`Control`] calls with progress.
type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// Cancellation and progress for one check. Cloning shares the cancel flag.
#[derive(Clone, Default)]
pub struct Control {
    cancel: Arc<AtomicBool>,
    progress: Option<ProgressFn>,
}

impl Control {
    pub fn new() -> Control {
        Control::default()
    }
    pub fn with_progress(mut self, f: impl Fn(&Progress) + Send + Sync + 'static) -> Control {
        self.progress = Some(Arc::new(f));
        self
    }
    /// Ask the exploration to stop; it returns a report with `complete: false`.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
    /// The shared flag itself, for callers that keep their own handle.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.cancel.clone()
    }
    pub fn report(&self, p: &Progress) {
        if let Some(f) = &self.progress {
            f(p)
        }
    }
}

impl std::fmt::Debug for Control {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Control").field("cancelled", &self.is_cancelled()).finish()
    }
}
