//! Per thread, the paths through its code (herd's method): each read takes every value its
//! location may hold, each exclusive store may fail, each branch follows the values; a path
//! records its events with their values and the address, data and control dependencies
//! from reads to later events (on AArch64 also the pick dependencies, see [`Taint`]), and
//! the registers at its end.

use super::alu::{alu, holds, nzcv};
use super::tags::barrier_tag;
use super::taint::Taint;
use super::{AxError, Event, Kind};
use crate::asm::{
    AluOp, Arch, BranchCond, CompareOp, Op, Operand, Otherwise, Reg, Shift, Target, ThreadCode,
};
use crate::cat::rel::Set;
use std::collections::{BTreeMap, BTreeSet};

/// How often a path may jump backwards before it is dropped (herd unrolls loops twice).
const UNROLL: usize = 2;

/// One path through a thread's code.
#[derive(Clone, Debug, Default)]
pub struct Path {
    pub events: Vec<Event>,
    /// Dependencies as (from, to) indices into `events`.
    pub addr: Vec<(usize, usize)>,
    pub data: Vec<(usize, usize)>,
    pub ctrl: Vec<(usize, usize)>,
    pub rmw: Vec<(usize, usize)>,
    /// AArch64's pick dependencies (the Arm ARM's): to every access its inputs reach through
    /// registers, memory and picks (`pick`), and through an address, the stored value or a
    /// conditional branch (`pick_addr`, `pick_data`, `pick_ctrl`).
    pub pick: Vec<(usize, usize)>,
    pub pick_addr: Vec<(usize, usize)>,
    pub pick_data: Vec<(usize, usize)>,
    pub pick_ctrl: Vec<(usize, usize)>,
    pub regs: BTreeMap<Reg, i64>,
    /// Per event: its access width in bits (0 for a fence) and its instruction's index.
    pub sizes: Vec<(u8, usize)>,
}

#[derive(Clone, Default)]
pub(super) struct State {
    regs: BTreeMap<Reg, (i64, Taint)>,
    pub(super) flags: (u8, Taint),
    ctrl: Taint,
    /// AArch64: per address, what the thread's last write there carries to a later read of
    /// it (the Arm ARM's local read successor).
    pub(super) mem: BTreeMap<i64, Taint>,
    /// The open exclusive load (event index, address).
    pub(super) reserve: Option<(usize, i64)>,
    /// Per address, the value this thread last wrote there.
    pub(super) last: BTreeMap<i64, i64>,
    pub(super) path: Path,
    pc: usize,
    back_jumps: usize,
}

impl State {
    pub(super) fn get(&self, r: Reg) -> (i64, Taint) {
        if r == Reg::Zero {
            return (0, Taint::NONE);
        }
        self.regs.get(&r).copied().unwrap_or((0, Taint::NONE))
    }
    pub(super) fn set(&mut self, r: Reg, v: (i64, Taint)) {
        if r != Reg::Zero {
            self.regs.insert(r, v);
        }
    }
    pub(super) fn operand(&self, o: Operand) -> (i64, Taint) {
        match o {
            Operand::Imm(i) => (i, Taint::NONE),
            Operand::Reg(r) => self.get(r),
            Operand::Shifted { reg, shift, amount } => {
                let (v, t) = self.get(reg);
                let v = match shift {
                    Shift::Lsl => v.wrapping_shl(amount as u32),
                    Shift::Lsr => ((v as u64) >> amount) as i64,
                    Shift::Asr => v >> amount,
                    Shift::Sxtw => v as i32 as i64,
                    Shift::Uxtw => v as u32 as i64,
                };
                (v, t)
            }
        }
    }
    /// What the thread's last write to `a` carries to a read of it (AArch64; RVWMO's
    /// dependencies go through registers only).
    pub(super) fn carried(&self, arch: Arch, a: i64) -> Taint {
        match arch {
            Arch::AArch64 => self.mem.get(&a).copied().unwrap_or_default(),
            Arch::RiscV | Arch::Ppc | Arch::Arm => Taint::NONE,
        }
    }
    /// The taint of the value read by event `i` with address taint `addr`: on AArch64 the
    /// address and what the write it succeeds carries reach it too.
    pub(super) fn loaded(&self, arch: Arch, i: usize, addr: Taint, carried: Taint) -> Taint {
        match arch {
            Arch::AArch64 => Taint::read(i) | addr | carried,
            Arch::RiscV | Arch::Ppc | Arch::Arm => Taint::read(i),
        }
    }
    /// Adds an event whose address and stored value carry `addr` and `data`; `pick` is what
    /// else reaches it (a CAS's comparison, the write a read succeeds).
    pub(super) fn push(&mut self, mut e: Event, addr: Taint, data: Taint, pick: Set) -> usize {
        let i = self.path.events.len();
        e.po = i;
        self.path.events.push(e);
        self.path.sizes.push((0, self.pc.saturating_sub(1)));
        let p = &mut self.path;
        for (taint, out) in [
            (addr.basic, &mut p.addr),
            (data.basic, &mut p.data),
            (self.ctrl.basic, &mut p.ctrl),
            (addr.pick | data.pick | pick, &mut p.pick),
            (addr.pick, &mut p.pick_addr),
            (data.pick, &mut p.pick_data),
            (self.ctrl.pick, &mut p.pick_ctrl),
        ] {
            out.extend(crate::cat::rel::members(taint).map(|r| (r, i)));
        }
        i
    }
    /// Appends an access of `width` bits (see [`State::push`]).
    pub(super) fn push_sized(
        &mut self,
        e: Event,
        addr: Taint,
        data: Taint,
        pick: Set,
        width: u8,
    ) -> usize {
        if e.kind == Kind::W {
            self.last.insert(e.addr, e.value);
        }
        let i = self.push(e, addr, data, pick);
        self.path.sizes[i].0 = width;
        i
    }
}

/// The context a thread runs in.
pub struct Ctx<'a> {
    pub arch: Arch,
    pub thread: usize,
    pub code: &'a ThreadCode,
    /// Per address, the values a read there may return.
    pub domain: &'a BTreeMap<i64, BTreeSet<i64>>,
    pub init: BTreeMap<Reg, i64>,
    /// The cells of locations with a declared type: their size in bytes and initial value
    /// (a store narrower than the cell keeps the other bytes of the thread's last value).
    pub declared: &'a BTreeMap<i64, (u8, i64)>,
}

/// Every path through the thread (each a complete run).
pub fn paths(ctx: &Ctx) -> Result<Vec<Path>, AxError> {
    let mut st = State::default();
    for (r, v) in &ctx.init {
        st.set(*r, (*v, Taint::NONE));
    }
    let mut out = Vec::new();
    let mut work = vec![st];
    while let Some(mut st) = work.pop() {
        loop {
            if st.pc >= ctx.code.instrs.len() {
                st.path.regs = st.regs.iter().map(|(r, (v, _))| (*r, *v)).collect();
                out.push(st.path);
                break;
            }
            if !step(ctx, &mut st, &mut work)? {
                break;
            }
        }
        if out.len() > 100_000 {
            return Err(AxError::new("too many paths through one thread"));
        }
    }
    Ok(out)
}

pub(super) fn mask(arch: Arch, width: u8, v: i64) -> i64 {
    match (width, arch) {
        // An AArch64 `W` result is zero-extended into its `X` register; RV64's 32-bit
        // operations sign-extend. (A condition compares at the declared type, herd's `int`
        // when none: -1 either way.)
        (32, Arch::AArch64) => v as u32 as i64,
        // ARMv7's registers are 32 bits; POWER's `cmpw` compares at 32 bits.
        (32, Arch::RiscV | Arch::Arm | Arch::Ppc) => v as i32 as i64,
        (16, _) => v as u16 as i64,
        (8, _) => v as u8 as i64,
        _ => v,
    }
}

pub(super) fn event(ctx: &Ctx, kind: Kind, addr: i64, value: i64) -> Event {
    Event {
        thread: Some(ctx.thread),
        kind,
        addr,
        value,
        po: 0,
        tags: Vec::new(),
    }
}

/// Runs one instruction; pushes the other branches of a choice onto `work`. Returns false
/// when the path is dropped.
fn step(ctx: &Ctx, st: &mut State, work: &mut Vec<State>) -> Result<bool, AxError> {
    let ins = &ctx.code.instrs[st.pc];
    let err = |m: &str| AxError::at(ins.span, &format!("{}: {m}", ins.mnemonic));
    st.pc += 1;
    match &ins.op {
        Op::Load { .. } | Op::Store { .. } | Op::Pair { .. } | Op::Amo { .. } | Op::Cas { .. } => {
            return super::access::step(ctx, st, work, ins);
        }
        Op::Barrier(b) => {
            let mut e = event(ctx, Kind::F, 0, 0);
            e.tags.push(barrier_tag(*b));
            st.push(e, Taint::NONE, Taint::NONE, 0);
        }
        Op::Alu {
            op,
            dst,
            args,
            width,
            flags,
        } => {
            let vals: Vec<(i64, Taint)> = args
                .iter()
                .map(|a| match *a {
                    // A shifted W operand shifts its 32 bits.
                    Operand::Shifted {
                        reg,
                        shift: shift @ (Shift::Asr | Shift::Lsr),
                        amount,
                    } if *width == 32 => {
                        let (v, t) = st.get(reg);
                        let v = if shift == Shift::Asr {
                            (v as i32 >> amount) as i64
                        } else {
                            (v as u32 >> amount) as i64
                        };
                        (v, t)
                    }
                    a => st.operand(a),
                })
                .collect();
            let taint = vals.iter().fold(
                if *op == AluOp::MovK {
                    st.get(*dst).1
                } else {
                    Taint::NONE
                },
                |t, v| t | v.1,
            );
            let x: Vec<i64> = vals.iter().map(|v| v.0).collect();
            let arg = |i: usize| x.get(i).copied().unwrap_or(0);
            let bits = if *width == 32 { 32 } else { 64 };
            let v = alu(*op, bits, st.get(*dst).0, arg(0), arg(1), arg(2));
            let v = mask(ctx.arch, *width, v);
            if *flags {
                st.flags = (nzcv(*op, *width, arg(0), arg(1), v), taint);
            }
            st.set(*dst, (v, taint));
        }
        Op::Select {
            dst,
            a,
            b,
            cond,
            otherwise,
            width,
        } => {
            let (av, at) = st.operand(*a);
            let (bv, bt) = st.operand(*b);
            let (v, t) = if holds(*cond, st.flags.0) {
                (av, at)
            } else {
                let v = match otherwise {
                    Otherwise::Value => bv,
                    Otherwise::Increment => bv.wrapping_add(1),
                    Otherwise::Invert => !bv,
                    Otherwise::Negate => bv.wrapping_neg(),
                };
                (v, bt)
            };
            // The flags pick the register: the result depends on the chosen one, and on the
            // flags by a pick only.
            st.set(*dst, (mask(ctx.arch, *width, v), t | st.flags.1.picked()));
        }
        Op::AddressOf { .. } => {
            return Err(err(
                "label addresses are not supported by the axiomatic engine yet",
            ))
        }
        Op::Branch { cond, target, link } => {
            if *link {
                return Err(err("calls are not supported by the axiomatic engine yet"));
            }
            let Target::Label(label) = target else {
                return Err(err(
                    "branches to a register are not supported by the axiomatic engine yet",
                ));
            };
            let (taken, taint) = match *cond {
                BranchCond::Always => (true, Taint::NONE),
                BranchCond::Zero { reg, zero } => {
                    let (v, t) = st.get(reg);
                    ((v == 0) == zero, t)
                }
                BranchCond::Bit { reg, bit, zero } => {
                    let (v, t) = st.get(reg);
                    ((v >> bit & 1 == 0) == zero, t)
                }
                BranchCond::Flags(c) => (holds(c, st.flags.0), st.flags.1),
                BranchCond::Compare { op, a, b } => {
                    let ((x, tx), (y, ty)) = (st.get(a), st.get(b));
                    let t = match op {
                        CompareOp::Eq => x == y,
                        CompareOp::Ne => x != y,
                        CompareOp::Lt => x < y,
                        CompareOp::Ge => x >= y,
                        CompareOp::LtU => (x as u64) < (y as u64),
                        CompareOp::GeU => (x as u64) >= (y as u64),
                    };
                    (t, tx | ty)
                }
            };
            if !matches!(cond, BranchCond::Always) {
                // A control dependency reaches everything after a conditional branch.
                st.ctrl |= taint;
            }
            if taken {
                let to = ctx
                    .code
                    .labels
                    .iter()
                    .find(|(l, _)| l == label)
                    .map(|(_, i)| *i)
                    .ok_or_else(|| err("unknown label"))?;
                if to < st.pc {
                    st.back_jumps += 1;
                    if st.back_jumps > UNROLL {
                        return Ok(false);
                    }
                }
                st.pc = to;
            }
        }
        Op::Nop => {}
    }
    Ok(true)
}
