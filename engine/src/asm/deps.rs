//! What each instruction reads (as address, data and control inputs) and writes: the
//! dependencies an axiomatic engine follows from loads.

use super::{AluOp, BranchCond, Op, Reg, Target, Writeback};

/// Registers an instruction reads, by the dependency they carry into what it does.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Uses {
    /// Registers that compute an access's address (address dependencies).
    pub address: Vec<Reg>,
    /// Registers whose value is written to memory or into a register (data dependencies).
    pub data: Vec<Reg>,
    /// Registers a branch decides on (control dependencies for everything after it).
    pub control: Vec<Reg>,
    /// Whether it reads the condition flags (`B.cond`, `CSEL`): a dependency on the last
    /// flag-setting instruction.
    pub flags: bool,
}

impl Op {
    /// The registers this instruction reads, by kind of dependency (zero registers left out).
    pub fn uses(&self) -> Uses {
        let mut u = Uses::default();
        match self {
            Op::Load { addr, .. }
            | Op::Pair {
                load: true, addr, ..
            } => {
                u.address = addr.regs();
            }
            Op::Store { src, addr, .. } => {
                u.address = addr.regs();
                u.data.push(*src);
            }
            Op::Pair { regs, addr, .. } => {
                u.address = addr.regs();
                u.data.extend(regs);
            }
            Op::Amo { src, addr, .. } => {
                u.address = addr.regs();
                u.data.push(*src);
            }
            Op::Cas {
                expected,
                new,
                addr,
                ..
            } => {
                u.address = addr.regs();
                u.data.extend([*expected, *new]);
            }
            Op::Barrier(_) | Op::Nop | Op::AddressOf { .. } => {}
            Op::Alu { op, dst, args, .. } => {
                u.data.extend(args.iter().filter_map(|a| a.reg()));
                if *op == AluOp::MovK {
                    u.data.push(*dst);
                }
            }
            Op::Select { a, b, .. } => {
                u.data.extend(a.reg());
                u.data.extend(b.reg());
                u.flags = true;
            }
            Op::Branch { cond, target, .. } => {
                match *cond {
                    BranchCond::Always => {}
                    BranchCond::Zero { reg, .. } | BranchCond::Bit { reg, .. } => {
                        u.control.push(reg)
                    }
                    BranchCond::Flags(_) => u.flags = true,
                    BranchCond::Compare { a, b, .. } => u.control.extend([a, b]),
                }
                if let Target::Register(r) = target {
                    u.control.push(*r);
                }
            }
        }
        for v in [&mut u.address, &mut u.data, &mut u.control] {
            v.retain(|r| *r != Reg::Zero);
        }
        u
    }

    /// The registers this instruction writes (zero registers left out): a load's destination,
    /// an exclusive store's status, an AMO's old value, a written-back base.
    pub fn defs(&self) -> Vec<Reg> {
        let mut d = match self {
            Op::Load { dst, .. } => vec![*dst],
            Op::Store { status, .. } => status.iter().copied().collect(),
            Op::Pair {
                load: true, regs, ..
            } => regs.to_vec(),
            Op::Pair { .. } => vec![],
            Op::Amo { dst, .. } => dst.iter().copied().collect(),
            Op::Cas { expected, .. } => vec![*expected],
            Op::Alu { dst, .. } | Op::Select { dst, .. } | Op::AddressOf { dst, .. } => {
                vec![*dst]
            }
            Op::Branch { link: true, .. } => vec![Reg::R(30)],
            Op::Branch { .. } | Op::Barrier(_) | Op::Nop => vec![],
        };
        let addr = match self {
            Op::Load { addr, .. }
            | Op::Store { addr, .. }
            | Op::Pair { addr, .. }
            | Op::Amo { addr, .. }
            | Op::Cas { addr, .. } => Some(addr),
            _ => None,
        };
        if let Some(a) = addr {
            if a.writeback != Writeback::None {
                d.push(a.base);
            }
        }
        d.retain(|r| *r != Reg::Zero);
        d
    }

    /// Whether it sets the condition flags (`CMP`, `ADDS`, `SUBS`, `ANDS`).
    pub fn sets_flags(&self) -> bool {
        matches!(self, Op::Alu { flags: true, .. })
    }

    /// Whether it reads memory / writes memory (a failed exclusive or CAS may not write).
    pub fn reads_memory(&self) -> bool {
        matches!(
            self,
            Op::Load { .. } | Op::Pair { load: true, .. } | Op::Amo { .. } | Op::Cas { .. }
        )
    }
    pub fn writes_memory(&self) -> bool {
        matches!(
            self,
            Op::Store { .. } | Op::Pair { load: false, .. } | Op::Amo { .. } | Op::Cas { .. }
        )
    }
}
