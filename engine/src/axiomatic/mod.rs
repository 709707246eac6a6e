//! The axiomatic engine for herd's AArch64, RISC-V, POWER and ARMv7 tests
//! (`docs/design/axiomatic.md`): candidate executions built herd's way ([`thread`], [`exec`])
//! and judged by a cat model ([`crate::cat`]); the project's own models are [`AARCH64_CAT`],
//! [`RISCV_CAT`], [`PPC_CAT`] and [`ARM_CAT`] (and [`RC11_CAT`] for herd's C tests with C11
//! atomics, which the C engine runs). The
//! same engine checks lowered programs (herd's x86 tests) against [`SC_CAT`] and
//! [`X86TSO_CAT`] ([`program`]), to compare with the operational engines.

mod access;
mod alu;
pub mod ccheck;
pub mod ccombos;
mod cenum;
pub mod cexec;
mod crmw;
pub mod cthread;
pub mod exec;
mod outcome;
pub mod program;
mod tags;
mod taint;
mod tally;
pub mod thread;

pub use ccheck::{
    c_address, check_c, check_c_jobs, check_c_with, CExecution, CReport, CRun, Explore,
    FULL_COMBOS, FULL_RUNS,
};
pub use cthread::{CEvent, CKind};
pub use outcome::{address, check, location_name, Execution, Observed, Report};
pub use program::{check_program, ProgramReport};

use crate::asm::Arch;
use crate::cat::{CatError, Model};
use crate::span::Span;

/// The project's AArch64 model, written from the Arm ARM's memory model chapter.
pub const AARCH64_CAT: &str = include_str!("aarch64.cat");
/// The project's RISC-V model (RVWMO with its preserved program order rules).
pub const RISCV_CAT: &str = include_str!("riscv.cat");
/// The project's POWER model, from "Herding cats" (Alglave, Maranget, Tautschnig, 2014).
pub const PPC_CAT: &str = include_str!("ppc.cat");
/// The project's ARMv7 model, from "Herding cats" as POWER's with ARM's barriers.
pub const ARM_CAT: &str = include_str!("arm.cat");
/// The project's SC model: no cycle in `po | rf | co | fr`, RMWs atomic.
pub const SC_CAT: &str = include_str!("sc.cat");
/// The project's x86-TSO model (Owens, Sarkar and Sewell's axiomatic x86-TSO).
pub const X86TSO_CAT: &str = include_str!("x86tso.cat");

/// The project's RC11 model (Lahav et al., "Repairing Sequential Consistency in C/C++11",
/// PLDI 2017), for herd's C tests with C11 atomics (`memory_order_*`): [`rc11_model`].
pub const RC11_CAT: &str = include_str!("rc11.cat");

/// The event sets of the C11 memory orders, as herd's C front end names them
/// ([`crate::c::MemoryOrder::tag`]), which [`RC11_CAT`] reads: a front end defines each (empty
/// when no event has that order).
pub const C11_ORDER_SETS: [&str; 6] = ["RLX", "CON", "ACQ", "REL", "ACQ_REL", "SC"];

/// Event sets always defined (empty when no event has the tag), so that a model may name
/// them whatever the test uses.
pub const KNOWN_TAGS: [&str; 39] = [
    "SYNC",
    "LWSYNC",
    "EIEIO",
    "ISYNC",
    "MFENCE",
    "NoRet",
    "IW",
    "A",
    "Q",
    "L",
    "X",
    "AQ",
    "RL",
    "AMO",
    "ISB",
    "DMB.SY",
    "DMB.LD",
    "DMB.ST",
    "DSB.SY",
    "DSB.LD",
    "DSB.ST",
    "Fence.tso",
    "Fence.i",
    "Fence.r.r",
    "Fence.r.w",
    "Fence.r.rw",
    "Fence.w.r",
    "Fence.w.w",
    "Fence.w.rw",
    "Fence.rw.r",
    "Fence.rw.w",
    "Fence.rw.rw",
    "Fence.0.0",
    "Fence.0.r",
    "Fence.0.w",
    "Fence.0.rw",
    "Fence.r.0",
    "Fence.w.0",
    "Fence.rw.0",
];

/// The sets and relations the engine gives every candidate besides [`KNOWN_TAGS`] and the
/// sets of the tags its events carry (`exec.rs`): what a model may use without defining it.
pub const SUPPLIED: [&str; 27] = [
    "R",
    "W",
    "M",
    "F",
    "addr",
    "data",
    "ctrl",
    "rmw",
    "pick",
    "pick-addr",
    "pick-data",
    "pick-ctrl",
    "po-loc",
    "po",
    "loc",
    "int",
    "ext",
    "id",
    "rf",
    "rfi",
    "rfe",
    "co",
    "coi",
    "coe",
    "fr",
    "fri",
    "fre",
];

/// The project's model for `arch`.
pub fn builtin_model(arch: Arch) -> Model {
    let src = match arch {
        Arch::AArch64 => AARCH64_CAT,
        Arch::RiscV => RISCV_CAT,
        Arch::Ppc => PPC_CAT,
        Arch::Arm => ARM_CAT,
    };
    Model::parse(src, &|_| None).expect("the built-in models parse (tested)")
}

/// The project's RC11 model ([`RC11_CAT`]), the default for C tests that use `memory_order_*`.
pub fn rc11_model() -> Model {
    Model::parse(RC11_CAT, &|_| None).expect("the built-in models parse (tested)")
}

/// The name under which the project's model for `arch` is reported: `ppc.cat (litmus)`.
pub fn builtin_model_name(arch: Arch) -> &'static str {
    match arch {
        Arch::AArch64 => "aarch64.cat (litmus)",
        Arch::RiscV => "riscv.cat (litmus)",
        Arch::Ppc => "ppc.cat (litmus)",
        Arch::Arm => "arm.cat (litmus)",
    }
}

/// The project's cat model for an operational memory model, for [`check_program`]: SC and
/// x86-TSO (`None` for PSO, which has no cat model here).
pub fn operational_model(m: crate::Model) -> Option<Model> {
    let src = match m {
        crate::Model::Sc => SC_CAT,
        crate::Model::Tso => X86TSO_CAT,
        crate::Model::Pso => return None,
    };
    Some(Model::parse(src, &|_| None).expect("the built-in models parse (tested)"))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Kind {
    R,
    W,
    F,
}

/// One event of a candidate execution.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Event {
    /// `None` for an initial write.
    pub thread: Option<usize>,
    pub kind: Kind,
    /// The address accessed (0 for a fence).
    pub addr: i64,
    pub value: i64,
    /// Position in its thread's program order.
    pub po: usize,
    /// The sets it belongs to besides R/W/F: `A`, `L`, `X`, `AQ`, `RL`, `AMO`, `DMB.SY`, ...
    pub tags: Vec<&'static str>,
}

/// A test the engine cannot check (something it does not support, or a model error).
#[derive(Clone, Debug, PartialEq)]
pub struct AxError {
    pub span: Option<Span>,
    pub message: String,
}

impl AxError {
    pub fn new(m: &str) -> AxError {
        AxError {
            span: None,
            message: m.to_string(),
        }
    }
    pub fn at(span: Span, m: &str) -> AxError {
        AxError {
            span: Some(span),
            message: m.to_string(),
        }
    }
}

impl From<CatError> for AxError {
    fn from(e: CatError) -> AxError {
        AxError::new(&format!("cat model: {e}"))
    }
}

impl std::fmt::Display for AxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
