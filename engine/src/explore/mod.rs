//! The exhaustive reference explorer (`--engine exhaustive`), the oracle every other engine is
//! tested against. It feeds [`crate::collect::Collector`] like the other explorers.

pub mod exhaustive;
