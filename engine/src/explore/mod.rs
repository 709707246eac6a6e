//! The exhaustive reference explorer (`--engine exhaustive`), the oracle every other engine is
//! tested against. It feeds [`crate::collect::Collector`] like the other explorers.

pub mod exhaustive;
pub(crate) mod tree;

/// Re-exported for the explorers: freeing what a stopped exploration built belongs to stopping.
pub(crate) use crate::control::drop_in_background;
