//! What a check asks for: the engine choice (and the one table of engine names), bounds,
//! timeout and `--first`. How a check stops is [`crate::control`]'s.

use std::time::Duration;

/// One explorer: what answers a check (`stats.engine`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// Maximal causality reduction (the library's default, `docs/reference.md#check`):
    /// explores one execution per causal state of the program, choosing each next
    /// interleaving by solving the maximal causal model of an explored trace ([`crate::mcr`]).
    Mcr,
    /// Exhaustive exploration of the operational semantics with state hashing: the reference
    /// oracle MCR is tested against.
    Exhaustive,
    /// Stateless Source-DPOR with sleep sets over chronological traces ([`crate::dpor`]).
    Dpor,
}

/// Which engine a check asks for: `auto` (a portfolio of explorers, [`crate::auto`]) or one
/// fixed explorer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EngineChoice {
    /// The explorers as a deterministic portfolio ([`crate::auto`]): each runs on a thread of
    /// its own, and the one that finishes with the least weighted work answers (the `litmus`
    /// binary's default).
    Auto,
    /// One explorer.
    Fixed(EngineKind),
}

impl From<EngineKind> for EngineChoice {
    fn from(k: EngineKind) -> EngineChoice {
        EngineChoice::Fixed(k)
    }
}

/// The one table of engine names: the name on the command line, in the server's settings and
/// in JSON (`stats.engine`), the choice, and a line of help.
pub const ENGINES: [(&str, EngineChoice, &str); 4] = [
    (
        "auto",
        EngineChoice::Auto,
        "DPOR and the reference explorer (and MCR where a thread loops without awaiting under \
         PSO) as a deterministic portfolio: the one that finishes with the least work answers \
         (`stats.engine` says which); a stopped check keeps what every member found",
    ),
    (
        "mcr",
        EngineChoice::Fixed(EngineKind::Mcr),
        "Maximal causality reduction: one execution per causal state",
    ),
    (
        "exhaustive",
        EngineChoice::Fixed(EngineKind::Exhaustive),
        "The reference explorer: every interleaving, equal states merged",
    ),
    (
        "dpor",
        EngineChoice::Fixed(EngineKind::Dpor),
        "Stateless Source-DPOR with sleep sets: one execution per equivalence class, or few more",
    ),
];

impl EngineChoice {
    /// The choice named `name` in [`ENGINES`].
    pub fn parse(name: &str) -> Option<EngineChoice> {
        ENGINES.iter().find(|e| e.0 == name).map(|e| e.1)
    }
    /// Its name in [`ENGINES`].
    pub fn key(self) -> &'static str {
        ENGINES.iter().find(|e| e.1 == self).map_or("auto", |e| e.0)
    }
    /// The names, in the table's order.
    pub fn names() -> impl Iterator<Item = &'static str> {
        ENGINES.iter().map(|e| e.0)
    }
}

impl EngineKind {
    /// The name on the command line and in JSON (`stats.engine`).
    pub fn key(self) -> &'static str {
        EngineChoice::Fixed(self).key()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CheckOptions {
    pub engine: EngineChoice,
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
            engine: EngineChoice::Fixed(EngineKind::Mcr),
            sdg: true,
            loop_bound: 8,
            timeout: None,
            first: false,
        }
    }
}
