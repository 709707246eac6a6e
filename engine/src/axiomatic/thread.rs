//! Per thread, the paths through its code (herd's method): each read takes every value its
//! location may hold, each exclusive store may fail, each branch follows the values; a path
//! records its events with their values and the address, data and control dependencies
//! from reads to later events (on AArch64 also the pick dependencies, see [`Taint`]), and
//! the registers at its end.

use super::alu::{alu, amo, holds, nzcv};
use super::tags::{barrier_tag, tag_ord};
use super::taint::Taint;
use super::{AxError, Event, Kind};
use crate::asm::{
    AluOp, AmoOp, Arch, BranchCond, CompareOp, Op, Operand, Otherwise, Reg, Shift, Target,
    ThreadCode, Writeback,
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
}

#[derive(Clone, Default)]
struct State {
    regs: BTreeMap<Reg, (i64, Taint)>,
    flags: (u8, Taint),
    ctrl: Taint,
    /// AArch64: per address, what the thread's last write there carries to a later read of
    /// it (the Arm ARM's local read successor).
    mem: BTreeMap<i64, Taint>,
    /// The open exclusive load (event index, address).
    reserve: Option<(usize, i64)>,
    path: Path,
    pc: usize,
    back_jumps: usize,
}

impl State {
    fn get(&self, r: Reg) -> (i64, Taint) {
        if r == Reg::Zero {
            return (0, Taint::NONE);
        }
        self.regs.get(&r).copied().unwrap_or((0, Taint::NONE))
    }
    fn set(&mut self, r: Reg, v: (i64, Taint)) {
        if r != Reg::Zero {
            self.regs.insert(r, v);
        }
    }
    fn operand(&self, o: Operand) -> (i64, Taint) {
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
    fn carried(&self, arch: Arch, a: i64) -> Taint {
        match arch {
            Arch::AArch64 => self.mem.get(&a).copied().unwrap_or_default(),
            Arch::RiscV => Taint::NONE,
        }
    }
    /// The taint of the value read by event `i` with address taint `addr`: on AArch64 the
    /// address and what the write it succeeds carries reach it too.
    fn loaded(&self, arch: Arch, i: usize, addr: Taint, carried: Taint) -> Taint {
        match arch {
            Arch::AArch64 => Taint::read(i) | addr | carried,
            Arch::RiscV => Taint::read(i),
        }
    }
    /// Adds an event whose address and stored value carry `addr` and `data`; `pick` is what
    /// else reaches it (a CAS's comparison, the write a read succeeds).
    fn push(&mut self, mut e: Event, addr: Taint, data: Taint, pick: Set) -> usize {
        let i = self.path.events.len();
        e.po = i;
        self.path.events.push(e);
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
}

/// The context a thread runs in.
pub struct Ctx<'a> {
    pub arch: Arch,
    pub thread: usize,
    pub code: &'a ThreadCode,
    /// Per address, the values a read there may return.
    pub domain: &'a BTreeMap<i64, BTreeSet<i64>>,
    pub init: BTreeMap<Reg, i64>,
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

fn mask(arch: Arch, width: u8, v: i64) -> i64 {
    match (width, arch) {
        // herd prints a 32-bit value as a signed one on both architectures.
        (32, _) => v as i32 as i64,
        (16, _) => v as u16 as i64,
        (8, _) => v as u8 as i64,
        _ => v,
    }
}

fn event(ctx: &Ctx, kind: Kind, addr: i64, value: i64) -> Event {
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
    let address = |st: &State, a: &crate::asm::Address| {
        let (b, tb) = st.get(a.base);
        let (o, to) = st.operand(a.offset);
        match a.writeback {
            Writeback::Post(_) => (b, tb),
            _ => (b.wrapping_add(o), tb | to),
        }
    };
    let writeback = |st: &mut State, a: &crate::asm::Address| {
        let (b, tb) = st.get(a.base);
        match a.writeback {
            Writeback::Pre => {
                let (o, to) = st.operand(a.offset);
                st.set(a.base, (b.wrapping_add(o), tb | to));
            }
            Writeback::Post(k) => st.set(a.base, (b.wrapping_add(k), tb)),
            Writeback::None => {}
        }
    };
    let domain = |a: i64| -> Result<Vec<i64>, AxError> {
        ctx.domain
            .get(&a)
            .map(|s| s.iter().copied().collect())
            .ok_or_else(|| err("accesses an address that is not a location of the test"))
    };
    // Forks the state for every value but the first; returns the first.
    let choose = |st: &State, work: &mut Vec<State>, vals: &[i64], f: &dyn Fn(&mut State, i64)| {
        for v in vals.iter().skip(1).rev() {
            let mut s = st.clone();
            f(&mut s, *v);
            work.push(s);
        }
        vals[0]
    };
    match &ins.op {
        Op::Load {
            dst,
            addr,
            width,
            signed: _,
            ord,
            exclusive,
        } => {
            let (a, ta) = address(st, addr);
            let vals = domain(a)?;
            let (ord, exclusive, dst, width) = (*ord, *exclusive, *dst, *width);
            let arch = ctx.arch;
            let run = move |s: &mut State, v: i64| {
                let mut e = event(ctx, Kind::R, a, v);
                tag_ord(&mut e, arch, ord, exclusive);
                let carried = s.carried(arch, a);
                let i = s.push(e, ta, Taint::NONE, carried.pick);
                s.set(dst, (mask(arch, width, v), s.loaded(arch, i, ta, carried)));
                if exclusive {
                    s.reserve = Some((i, a));
                }
                writeback(s, addr);
            };
            let v = choose(st, work, &vals, &run);
            run(st, v);
        }
        Op::Store {
            src,
            addr,
            width,
            ord,
            status,
        } => {
            let (a, ta) = address(st, addr);
            let (v, tv) = st.get(*src);
            let v = mask(ctx.arch, *width, v);
            if let Some(status) = status {
                // May fail (no write); succeeds only after an exclusive load of the address.
                let mut failed = st.clone();
                failed.set(*status, (1, Taint::NONE));
                failed.reserve = None;
                writeback(&mut failed, addr);
                work.push(failed);
                let Some((lx, la)) = st.reserve.take() else {
                    return Ok(false);
                };
                if la != a {
                    return Ok(false);
                }
                let mut e = event(ctx, Kind::W, a, v);
                tag_ord(&mut e, ctx.arch, *ord, true);
                let i = st.push(e, ta, tv, 0);
                st.path.rmw.push((lx, i));
                // RVWMO: sc writes its rd, so what is computed from it depends on the sc.
                let dep = if ctx.arch == Arch::RiscV {
                    Taint::read(i)
                } else {
                    Taint::NONE
                };
                st.set(*status, (0, dep));
            } else {
                let mut e = event(ctx, Kind::W, a, v);
                tag_ord(&mut e, ctx.arch, *ord, false);
                st.push(e, ta, tv, 0);
            }
            st.mem.insert(a, ta | tv);
            writeback(st, addr);
        }
        Op::Pair { .. } => {
            return Err(err(
                "pairs (LDP/STP) are not supported by the axiomatic engine yet",
            ))
        }
        Op::Amo {
            op,
            dst,
            src,
            addr,
            width,
            ord,
        } => {
            let (a, ta) = address(st, addr);
            let (s, ts) = st.get(*src);
            let vals = domain(a)?;
            let (op, dst, ord, width, arch) = (*op, *dst, *ord, *width, ctx.arch);
            let run = move |st: &mut State, old: i64| {
                let new = mask(arch, width, amo(op, old, s));
                // RISC-V: the AMO is one memory operation, both its events carry its
                // annotations; AArch64: the read is the acquire, the write the release.
                let (rord, word) = match arch {
                    Arch::RiscV => (ord, ord),
                    // Arm: an atomic whose result goes to the zero register does not acquire.
                    Arch::AArch64 if matches!(dst, None | Some(Reg::Zero)) => (
                        crate::asm::Ordering::default(),
                        crate::asm::Ordering {
                            acquire: false,
                            acquire_pc: false,
                            ..ord
                        },
                    ),
                    Arch::AArch64 => (
                        crate::asm::Ordering {
                            release: false,
                            ..ord
                        },
                        crate::asm::Ordering {
                            acquire: false,
                            acquire_pc: false,
                            ..ord
                        },
                    ),
                };
                let mut r = event(ctx, Kind::R, a, old);
                r.tags.push("AMO");
                tag_ord(&mut r, arch, rord, false);
                if arch == Arch::AArch64 && matches!(dst, None | Some(Reg::Zero)) {
                    r.tags.push("NoRet");
                }
                let carried = st.carried(arch, a);
                let ri = st.push(r, ta, Taint::NONE, carried.pick);
                let loaded = st.loaded(arch, ri, ta, carried);
                let mut w = event(ctx, Kind::W, a, new);
                w.tags.push("AMO");
                tag_ord(&mut w, arch, word, false);
                // The written value is computed from the read's, except for a swap (the pair
                // itself is one instruction: no dependency between them).
                let from_read = if op == AmoOp::Swap { ts } else { ts | loaded };
                let wi = st.push(w, ta, ts, from_read.pick & !(1 << ri));
                st.path.rmw.push((ri, wi));
                st.mem.insert(a, ta | from_read);
                if let Some(d) = dst {
                    st.set(d, (mask(arch, width, old), loaded));
                }
                writeback(st, addr);
            };
            let v = choose(st, work, &vals, &run);
            run(st, v);
        }
        Op::Cas {
            expected,
            new,
            addr,
            width,
            ord,
            pair,
        } => {
            if *pair {
                return Err(err("CASP is not supported by the axiomatic engine yet"));
            }
            let (a, ta) = address(st, addr);
            let (e, te) = st.get(*expected);
            let (n, tn) = st.get(*new);
            let (expected, ord, width, arch) = (*expected, *ord, *width, ctx.arch);
            // Each value read; a success twice: `expected` receives the value read or,
            // equal to it, its own (herd's two CAS event structures, which depend on
            // different reads; the Arm ARM leaves the choice open).
            let mut choices = Vec::new();
            for v in domain(a)? {
                choices.push((v, false));
                if mask(arch, width, v) == mask(arch, width, e) {
                    choices.push((v, true));
                }
            }
            let codes: Vec<i64> = (0..choices.len() as i64).collect();
            let run = move |st: &mut State, code: i64| {
                let (old, keeps) = choices[code as usize];
                let mut r = event(ctx, Kind::R, a, old);
                // Arm: a CAS whose result goes to the zero register does not acquire.
                let racq = if expected == Reg::Zero {
                    r.tags.push("NoRet");
                    crate::asm::Ordering::default()
                } else {
                    crate::asm::Ordering {
                        release: false,
                        ..ord
                    }
                };
                tag_ord(&mut r, arch, racq, false);
                let carried = st.carried(arch, a);
                let ri = st.push(r, ta, Taint::NONE, carried.pick);
                let loaded = st.loaded(arch, ri, ta, carried);
                // The comparison of the read with `expected` picks whether to write.
                let compared = (te | loaded).picked();
                if mask(arch, width, old) == mask(arch, width, e) {
                    let mut w = event(ctx, Kind::W, a, mask(arch, width, n));
                    tag_ord(
                        &mut w,
                        arch,
                        crate::asm::Ordering {
                            acquire: false,
                            acquire_pc: false,
                            ..ord
                        },
                        false,
                    );
                    // The read and its write are one instruction: no pick from one to the
                    // other, but what the write carries to a later read includes it.
                    let pick = compared.pick & !(1 << ri);
                    let wi = st.push(w, ta, tn, pick);
                    st.path.rmw.push((ri, wi));
                    st.mem.insert(a, ta | tn | compared);
                }
                let got = if keeps { te | compared } else { loaded };
                st.set(expected, (mask(arch, width, old), got));
            };
            let v = choose(st, work, &codes, &run);
            run(st, v);
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
            let vals: Vec<(i64, Taint)> = args.iter().map(|a| st.operand(*a)).collect();
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
            let v = alu(*op, st.get(*dst).0, arg(0), arg(1), arg(2));
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
            st.set(*dst, (v, t | st.flags.1.picked()));
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
