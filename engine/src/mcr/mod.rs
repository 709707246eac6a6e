//! Maximal causality reduction (MCR) under SC, TSO and PSO, with Z3.
//!
//! Implements `papers/mcr-tso-pso.txt` §2-4 with the corrections described in [`encode`].

pub mod encode;
pub mod trace;
