//! The dialects litmus checks and the models each is checked under: one table, read by
//! `litmus check` (every file of a run answered by its dialect's models, `docs/reference.md#check`)
//! and the language server (which models a document's verdicts are under).
//!
//! Native and herd's x86 tests are checked operationally under SC, TSO and PSO
//! ([`Models::Operational`]); herd's AArch64, RISC-V, POWER and ARMv7 tests axiomatically
//! under the project's `aarch64.cat`, `riscv.cat`, `ppc.cat` and `arm.cat` ([`Models::Axiomatic`], an [`AxModel`] each). A new
//! dialect checked by the axiomatic engine is one [`AxModel`] (its key, its name, the function
//! that checks a loaded test and renders herd's block) and one arm of [`models`]; its results
//! then appear everywhere the others' do (text, `-q`, the JSON document, `--shard`/`merge`,
//! the editor). herd's C tests are one too ([`C`]): checked under the model read from the
//! user's files (`crate::ctest`, found by the caller and passed in [`Loaded::cmodel`]), their
//! answer judged against the test's `Result:` header ([`Answer::c`]).

use std::collections::BTreeMap;

use litmus_engine::asm::Code;
use litmus_engine::ast::{Dialect, Test};
use litmus_engine::axiomatic::{self, AxError, Report};
use litmus_engine::cat::Model as Cat;
use litmus_engine::{WorkerSlot, Workers};

use crate::ctest::{CAnswer, CModel};

/// What a dialect's check reads of one loaded test.
pub struct Loaded<'a> {
    pub test: &'a Test,
    pub text: &'a str,
    /// The code of an AArch64 or RISC-V test (a new dialect adds its code beside it).
    pub asm: Option<&'a Code>,
    /// The source of a C test, and the model it is checked under (or why there is none).
    pub c: Option<&'a litmus_engine::c::Source>,
    pub cmodel: Option<&'a Result<CModel, String>>,
    /// How many threads a C test's check may use ([`borrow_free`]; 1: the caller's alone).
    pub jobs: usize,
}

/// The slots of the process's worker budget that no worker holds now, borrowed for one C
/// check's extra threads (given back when dropped). Every running worker of the CLI's run or
/// the server's pool holds a slot of its own, so a check gets the cores the others leave:
/// one big file checked alone gets them all, many files checked at once share them, and the
/// threads never outnumber the budget (`-j`, `litmus.maxJobs`).
pub fn borrow_free(workers: Option<&Workers>) -> Vec<WorkerSlot> {
    workers.map_or_else(Vec::new, |w| {
        std::iter::from_fn(|| w.try_acquire()).collect()
    })
}

/// An axiomatic check's answer: the report, herd's block as herd7 prints it, and the names
/// of the addresses its executions touch (`x`, `a[1]`), for the text and JSON renderings.
pub struct Answer {
    pub report: Report,
    pub block: String,
    pub locs: BTreeMap<i64, String>,
    /// A C test's model, herd's states and the judgement against its `Result:` header.
    pub c: Option<CAnswer>,
}

impl Answer {
    /// The location at `addr` as the test names it (the address in hexadecimal otherwise).
    pub fn loc(&self, addr: i64) -> String {
        self.locs
            .get(&addr)
            .cloned()
            .unwrap_or_else(|| format!("{addr:#x}"))
    }
}

/// Checks a loaded test under a user's cat model (`--cat`), or under the project's model for
/// its dialect when `None`; `stop` is polled as the candidates are enumerated.
pub type AxCheck = fn(&Loaded, Option<&Cat>, &dyn Fn() -> bool) -> Result<Answer, AxError>;

/// One model of the axiomatic engine.
pub struct AxModel {
    /// Its key: in `--model`, as the JSON document's `results` key, in `-q` lines.
    pub key: &'static str,
    /// Its name in herd's block and the editor (`aarch64.cat (litmus)`).
    pub name: &'static str,
    pub check: AxCheck,
}

/// How a dialect is checked.
pub enum Models {
    /// By the operational engines, under `sc`, `tso` and `pso`.
    Operational,
    /// By the axiomatic engine, under one cat model.
    Axiomatic(&'static AxModel),
}

pub const AARCH64: AxModel = AxModel {
    key: "aarch64",
    name: "aarch64.cat (litmus)",
    check: check_asm,
};

pub const RISCV: AxModel = AxModel {
    key: "riscv",
    name: "riscv.cat (litmus)",
    check: check_asm,
};

pub const PPC: AxModel = AxModel {
    key: "ppc",
    name: "ppc.cat (litmus)",
    check: check_asm,
};

pub const ARM: AxModel = AxModel {
    key: "arm",
    name: "arm.cat (litmus)",
    check: check_asm,
};

/// herd's C tests (the Linux kernel's and C11), under the model from the user's files.
pub const C: AxModel = AxModel {
    key: "c",
    name: "the kernel's or C11 model",
    check: check_c,
};

/// The operational models' keys, in their order.
pub const OPERATIONAL: [&str; 3] = ["sc", "tso", "pso"];

/// Every axiomatic model, in the order `--help` lists them.
pub const AXIOMATIC: [&AxModel; 5] = [&AARCH64, &RISCV, &PPC, &ARM, &C];

/// How tests of dialect `d` are checked.
pub fn models(d: Dialect) -> Models {
    match d {
        Dialect::Native | Dialect::X86 | Dialect::X86_64 => Models::Operational,
        Dialect::AArch64 => Models::Axiomatic(&AARCH64),
        Dialect::RiscV => Models::Axiomatic(&RISCV),
        Dialect::Ppc => Models::Axiomatic(&PPC),
        Dialect::Arm => Models::Axiomatic(&ARM),
        Dialect::C => Models::Axiomatic(&C),
    }
}

/// The dialect's first word, as tests and messages spell it.
pub fn name(d: Dialect) -> &'static str {
    match d {
        Dialect::Native => "native",
        Dialect::X86 => "X86",
        Dialect::X86_64 => "X86_64",
        Dialect::AArch64 => "AArch64",
        Dialect::RiscV => "RISC-V",
        Dialect::Ppc => "PPC",
        Dialect::Arm => "ARM",
        Dialect::C => "C",
    }
}

/// Whether `key` names a model of some dialect.
pub fn is_model(key: &str) -> bool {
    OPERATIONAL.contains(&key) || AXIOMATIC.iter().any(|m| m.key == key)
}

/// AArch64, RISC-V, POWER and ARMv7: the axiomatic engine on the test's instructions.
fn check_asm(l: &Loaded, user: Option<&Cat>, stop: &dyn Fn() -> bool) -> Result<Answer, AxError> {
    let code = l
        .asm
        .ok_or_else(|| AxError::new("the test has no AArch64, RISC-V, POWER or ARMv7 code"))?;
    let builtin;
    let model = match user {
        Some(m) => m,
        None => {
            builtin = axiomatic::builtin_model(code.arch);
            &builtin
        }
    };
    let report = axiomatic::check(l.test, code, model, stop)?;
    let block = crate::json::axview::block(l.test, code, l.text, &report);
    let mut locs = BTreeMap::new();
    for x in [&report.witness, &report.forbidden].into_iter().flatten() {
        for e in &x.events {
            locs.entry(e.addr)
                .or_insert_with(|| axiomatic::location_name(l.test, code, e.addr));
        }
    }
    Ok(Answer {
        report,
        block,
        locs,
        c: None,
    })
}

/// herd's C tests: the macros expanded by the model's `.def` file, the axiomatic engine under
/// the model's cat files; herd's block, and the answer against the `Result:` header.
fn check_c(l: &Loaded, _: Option<&Cat>, stop: &dyn Fn() -> bool) -> Result<Answer, AxError> {
    let src =
        l.c.ok_or_else(|| AxError::new("the test is not a C test"))?;
    let m = match l.cmodel {
        Some(Ok(m)) => m,
        Some(Err(e)) => return Err(AxError::new(e)),
        None => return Err(AxError::new("no model was looked for")),
    };
    let prog = litmus_engine::c::lower(src, &m.defs).map_err(|diags| match diags.first() {
        Some(d) => AxError::at(d.span, &d.message),
        None => AxError::new("the macros cannot be expanded"),
    })?;
    let run = axiomatic::CRun {
        explore: axiomatic::Explore::Auto,
        jobs: l.jobs,
    };
    let r = axiomatic::check_c_jobs(l.test, src, &prog, &m.model, &m.variants, run, stop)?;
    let block = crate::ctest::block(l.test, l.text, &r);
    let c = CAnswer::new(src.expected.as_ref(), &r);
    let mut locs = BTreeMap::new();
    let mut exe = |x: &Option<_>| {
        x.as_ref()
            .map(|x| crate::ctest::execution(l.test, x, &mut locs))
    };
    let (witness, forbidden) = (exe(&r.witness), exe(&r.forbidden));
    let report = Report {
        quantifier: r.quantifier,
        ok: r.ok,
        positive: r.positive,
        negative: r.negative,
        vars: vec![],
        states: vec![],
        observed: vec![],
        candidates: r.candidates,
        witness,
        forbidden,
        flags: r.flags,
    };
    Ok(Answer {
        report,
        block,
        locs,
        c: Some(c),
    })
}
