//! The memory instructions of a path ([`super::thread`]): loads, stores, the pairs `LDP`/
//! `STP`, AMOs, `CAS` and `CASP`. A read forks on every value its address may hold; each
//! event records its width (for the mixed-size check in [`super::outcome`]).

use super::tags::tag_ord;
use super::taint::Taint;
use super::thread::{event, mask, Ctx, State};
use super::{AxError, Kind};
use crate::asm::{Address, AmoOp, Arch, Instr, Op, Ordering, Reg, Width, Writeback};

/// The address an access uses and the taint of the registers it is computed from.
fn address(st: &State, a: &Address) -> (i64, Taint) {
    let (b, tb) = st.get(a.base);
    let (o, to) = st.operand(a.offset);
    match a.writeback {
        Writeback::Post(_) => (b, tb),
        _ => (b.wrapping_add(o), tb | to),
    }
}

/// The base register after a pre- or post-indexed access.
fn writeback(st: &mut State, a: &Address) {
    let (b, tb) = st.get(a.base);
    match a.writeback {
        Writeback::Pre => {
            let (o, to) = st.operand(a.offset);
            st.set(a.base, (b.wrapping_add(o), tb | to));
        }
        Writeback::Post(k) => st.set(a.base, (b.wrapping_add(k), tb)),
        Writeback::None => {}
    }
}

/// Forks the state for every choice but the first, which it returns.
fn choose<T: Copy>(st: &State, work: &mut Vec<State>, vals: &[T], f: &dyn Fn(&mut State, T)) -> T {
    for v in vals.iter().skip(1).rev() {
        let mut s = st.clone();
        f(&mut s, *v);
        work.push(s);
    }
    vals[0]
}

/// A loaded value in its register: sign- or zero-extended from `width` bits; an AArch64 `W`
/// destination then keeps the low 32 bits (zero-extended into `X`).
fn extend(arch: Arch, width: Width, signed: bool, reg_width: Width, v: i64) -> i64 {
    let v = match width {
        8 if signed => v as i8 as i64,
        16 if signed => v as i16 as i64,
        32 if signed => v as i32 as i64,
        8 => v as u8 as i64,
        16 => v as u16 as i64,
        32 => v as u32 as i64,
        _ => v,
    };
    if arch == Arch::AArch64 && reg_width == 32 {
        v as u32 as i64
    } else {
        v
    }
}

/// The value a store of `v` (`width` bits) leaves in the cell at `a`: `v` itself, or when the
/// cell has a declared type wider than the store, `v` in its low bytes and the rest of
/// `base` (the value the write replaces; by default the thread's last write there, else the
/// initial value). Exact when no other thread accesses the cell ([`check_sizes`]).
fn widen(ctx: &Ctx, st: &State, a: i64, width: Width, v: i64, base: Option<i64>) -> i64 {
    let v = mask(ctx.arch, width, v);
    match ctx.declared.get(&a) {
        Some(&(bytes, init)) if (width as u32) < 8 * bytes as u32 => {
            let old = base.or(st.last.get(&a).copied()).unwrap_or(init);
            let m = (1i64 << width) - 1;
            (old & !m) | (v & m)
        }
        _ => v,
    }
}

/// The ordering of an atomic's read (acquire only; none for a result discarded into the
/// zero register, on Arm) and of its write (release only).
fn split(arch: Arch, ord: Ordering, discarded: bool) -> (Ordering, Ordering) {
    let write = Ordering {
        acquire: false,
        acquire_pc: false,
        ..ord
    };
    match arch {
        // RISC-V: the AMO is one memory operation, both its events carry its annotations.
        Arch::RiscV | Arch::Ppc | Arch::Arm => (ord, ord),
        Arch::AArch64 if discarded => (Ordering::default(), write),
        Arch::AArch64 => (
            Ordering {
                release: false,
                ..ord
            },
            write,
        ),
    }
}

/// Runs a memory instruction. Returns false when the path is dropped.
pub(super) fn step(
    ctx: &Ctx,
    st: &mut State,
    work: &mut Vec<State>,
    ins: &Instr,
) -> Result<bool, AxError> {
    let err = |m: &str| AxError::at(ins.span, &format!("{}: {m}", ins.mnemonic));
    let domain =
        |a: i64| -> Result<Vec<i64>, AxError> {
            ctx.domain.get(&a).map(|s| s.iter().copied().collect()).ok_or_else(|| {
            err("accesses an address that is not the start of a location's cell (mixed-size \
                 accesses inside a location are not supported by the axiomatic engine)")
        })
        };
    let arch = ctx.arch;
    match &ins.op {
        Op::Load {
            dst,
            addr,
            width,
            signed,
            reg_width,
            ord,
            exclusive,
        } => {
            let (a, ta) = address(st, addr);
            let vals = domain(a)?;
            let (ord, exclusive, dst, width, signed) = (*ord, *exclusive, *dst, *width, *signed);
            let reg_width = *reg_width;
            let run = move |s: &mut State, v: i64| {
                let mut e = event(ctx, Kind::R, a, v);
                tag_ord(&mut e, arch, ord, exclusive);
                let carried = s.carried(arch, a);
                let i = s.push_sized(e, ta, Taint::NONE, carried.pick, width);
                let loaded = s.loaded(arch, i, ta, carried);
                s.set(dst, (extend(arch, width, signed, reg_width, v), loaded));
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
            domain(a)?;
            let (v, tv) = st.get(*src);
            let v = widen(ctx, st, a, *width, v, None);
            if let Some(status) = status {
                // May fail (no write); succeeds only after an exclusive load of the address.
                let mut failed = st.clone();
                failed.set(*status, (1, Taint::NONE));
                failed.reserve = None;
                // POWER's `stwcx.` reports in CR0: EQ on success, clear on failure.
                if arch == Arch::Ppc {
                    failed.flags = (0, Taint::NONE);
                    st.flags = (4, Taint::NONE);
                }
                writeback(&mut failed, addr);
                work.push(failed);
                let Some((lx, la)) = st.reserve.take() else {
                    return Ok(false);
                };
                if la != a {
                    return Ok(false);
                }
                let mut e = event(ctx, Kind::W, a, v);
                tag_ord(&mut e, arch, *ord, true);
                let i = st.push_sized(e, ta, tv, 0, *width);
                st.path.rmw.push((lx, i));
                // RISC-V: a successful sc's rd depends on its write (what is computed from
                // it depends on the sc, rules 9-13 of RVWMO start at any memory operation)
                // and on its address register, as herd has it by default; not on the stored
                // value. A failed sc's rd is a constant.
                let dep = if arch == Arch::RiscV {
                    Taint::read(i) | ta
                } else {
                    Taint::NONE
                };
                st.set(*status, (0, dep));
            } else {
                let mut e = event(ctx, Kind::W, a, v);
                tag_ord(&mut e, arch, *ord, false);
                st.push_sized(e, ta, tv, 0, *width);
            }
            st.mem.insert(a, ta | tv);
            writeback(st, addr);
        }
        Op::Pair {
            load,
            regs,
            addr,
            width,
        } => {
            // Two accesses of `width` at consecutive addresses, the first register's first.
            let (a, ta) = address(st, addr);
            let b = a + *width as i64 / 8;
            let (regs, width) = (*regs, *width);
            if *load {
                let pairs: Vec<(i64, i64)> = domain(a)?
                    .into_iter()
                    .flat_map(|x| domain(b).into_iter().flatten().map(move |y| (x, y)))
                    .collect();
                domain(b)?;
                let run = move |s: &mut State, (x, y): (i64, i64)| {
                    let (ca, cb) = (s.carried(arch, a), s.carried(arch, b));
                    let i =
                        s.push_sized(event(ctx, Kind::R, a, x), ta, Taint::NONE, ca.pick, width);
                    let j =
                        s.push_sized(event(ctx, Kind::R, b, y), ta, Taint::NONE, cb.pick, width);
                    let (li, lj) = (s.loaded(arch, i, ta, ca), s.loaded(arch, j, ta, cb));
                    s.set(regs[0], (extend(arch, width, false, width, x), li));
                    s.set(regs[1], (extend(arch, width, false, width, y), lj));
                    writeback(s, addr);
                };
                let v = choose(st, work, &pairs, &run);
                run(st, v);
            } else {
                domain(a)?;
                domain(b)?;
                for (r, at) in regs.iter().zip([a, b]) {
                    let (v, tv) = st.get(*r);
                    let v = widen(ctx, st, at, width, v, None);
                    st.push_sized(event(ctx, Kind::W, at, v), ta, tv, 0, width);
                    st.mem.insert(at, ta | tv);
                }
                writeback(st, addr);
            }
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
            let (op, dst, width) = (*op, *dst, *width);
            // Arm: an atomic whose result goes to the zero register does not acquire.
            let (rord, word) = split(arch, *ord, matches!(dst, None | Some(Reg::Zero)));
            let run = move |st: &mut State, old: i64| {
                // At the access's width (a signed maximum of W values compares them as 32-bit).
                let sext = |v: i64| extend(Arch::RiscV, width, true, 64, v);
                let low = super::alu::amo(op, sext(old), sext(s));
                let new = widen(ctx, st, a, width, low, Some(old));
                let mut r = event(ctx, Kind::R, a, old);
                r.tags.push("AMO");
                tag_ord(&mut r, arch, rord, false);
                if arch == Arch::AArch64 && matches!(dst, None | Some(Reg::Zero)) {
                    r.tags.push("NoRet");
                }
                let carried = st.carried(arch, a);
                let ri = st.push_sized(r, ta, Taint::NONE, carried.pick, width);
                let loaded = st.loaded(arch, ri, ta, carried);
                let mut w = event(ctx, Kind::W, a, new);
                w.tags.push("AMO");
                tag_ord(&mut w, arch, word, false);
                // The written value is computed from the read's, except for a swap (the pair
                // itself is one instruction: no dependency between them).
                let from_read = if op == AmoOp::Swap { ts } else { ts | loaded };
                let wi = st.push_sized(w, ta, ts, from_read.pick & !(1 << ri), width);
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
            let (a, ta) = address(st, addr);
            let (width, expected, new) = (*width, *expected, *new);
            // CASP compares and swaps two consecutive registers with two consecutive cells.
            let n = if *pair { 2 } else { 1 };
            let next = |r: Reg, k: usize| match r {
                Reg::R(i) if k == 1 => Reg::R(i + 1),
                r => r,
            };
            let at: Vec<i64> = (0..n).map(|k| a + k as i64 * width as i64 / 8).collect();
            let exp: Vec<(i64, Taint)> = (0..n).map(|k| st.get(next(expected, k))).collect();
            let nw: Vec<(i64, Taint)> = (0..n).map(|k| st.get(next(new, k))).collect();
            let mut olds: Vec<Vec<i64>> = vec![vec![]];
            for &x in &at {
                let d = domain(x)?;
                olds = olds
                    .iter()
                    .flat_map(|o| d.iter().map(move |v| [o.clone(), vec![*v]].concat()))
                    .collect();
            }
            let equal = |old: &[i64]| {
                (0..n).all(|k| mask(arch, width, old[k]) == mask(arch, width, exp[k].0))
            };
            // Each value read; a success twice: `expected` receives the value read or, equal
            // to it, its own (herd's two CAS event structures, which depend on different
            // reads; the Arm ARM leaves the choice open).
            let mut choices: Vec<(usize, bool)> = Vec::new();
            for (c, old) in olds.iter().enumerate() {
                choices.push((c, false));
                if equal(old) {
                    choices.push((c, true));
                }
            }
            // Arm: a CAS whose result goes to the zero register does not acquire.
            let discarded = expected == Reg::Zero;
            let (rord, word) = split(arch, *ord, discarded);
            let run = |st: &mut State, (c, keeps): (usize, bool)| {
                let old = &olds[c];
                let mut reads = Vec::new();
                let mut loads = Vec::new();
                for (k, &x) in at.iter().enumerate() {
                    let mut r = event(ctx, Kind::R, x, old[k]);
                    if discarded {
                        r.tags.push("NoRet");
                    }
                    tag_ord(&mut r, arch, rord, false);
                    let carried = st.carried(arch, x);
                    let ri = st.push_sized(r, ta, Taint::NONE, carried.pick, width);
                    loads.push(st.loaded(arch, ri, ta, carried));
                    reads.push(ri);
                }
                // The comparison of the reads with `expected` picks whether to write.
                let compared = (0..n)
                    .fold(Taint::NONE, |t, k| t | exp[k].1 | loads[k])
                    .picked();
                let own: crate::cat::rel::Set = reads.iter().fold(0, |m, ri| m | 1 << ri);
                if equal(old) {
                    for (k, &x) in at.iter().enumerate() {
                        let v = widen(ctx, st, x, width, nw[k].0, Some(old[k]));
                        let mut w = event(ctx, Kind::W, x, v);
                        tag_ord(&mut w, arch, word, false);
                        // The reads and their writes are one instruction: no pick from one to
                        // the other, but what a write carries to a later read includes it.
                        let wi = st.push_sized(w, ta, nw[k].1, compared.pick & !own, width);
                        st.path.rmw.push((reads[k], wi));
                        st.mem.insert(x, ta | nw[k].1 | compared);
                    }
                }
                for k in 0..n {
                    let got = if keeps { exp[k].1 | compared } else { loads[k] };
                    st.set(next(expected, k), (mask(arch, width, old[k]), got));
                }
            };
            let c = choose(st, work, &choices, &run);
            run(st, c);
        }
        _ => return Err(err("not a memory instruction")),
    }
    Ok(true)
}

/// herd reads a test without mixed sizes as one value per location cell, and so does the
/// engine. A store narrower than its cell changes part of a value (herd's mixed-size mode
/// splits accesses into bytes): the engine models it only where that is exact, a cell with a
/// declared type that no other thread accesses, under a model that requires coherence (the
/// store then replaces the low bytes of the thread's last value, [`widen`]); anywhere else
/// the test is refused at the store, never answered wrongly. A cell's size is its declared
/// type's, or for an undeclared location the widest store to it (herd's `int` when the
/// initial value does not fit). A narrower load reads the low bytes of the one write it
/// reads from, exact when every store covers the whole cell.
pub(super) fn check_sizes(
    code: &crate::asm::Code,
    cells: &[(i64, i64, Option<u8>)],
    all: &[Vec<super::thread::Path>],
    uniproc: bool,
) -> Result<(), AxError> {
    use std::collections::{BTreeMap, BTreeSet};
    let mut unit: BTreeMap<i64, (u8, bool)> = BTreeMap::new();
    for &(a, init, declared) in cells {
        let threads: BTreeSet<usize> = all
            .iter()
            .enumerate()
            .filter(|(_, ps)| {
                ps.iter()
                    .any(|p| p.events.iter().any(|e| e.addr == a && e.kind != Kind::F))
            })
            .map(|(t, _)| t)
            .collect();
        let u = match declared {
            Some(b) => (b, uniproc && threads.len() <= 1),
            None => {
                let widest = all
                    .iter()
                    .flatten()
                    .flat_map(|p| p.events.iter().zip(&p.sizes))
                    .filter(|(e, _)| e.kind == Kind::W && e.addr == a)
                    .map(|(_, s)| s.0 / 8)
                    .max()
                    .unwrap_or(8);
                let fits = |b: u8| {
                    let bits = 8 * b as u32;
                    b >= 8 || (init >> (bits - 1)) == 0 || (init >> (bits - 1)) == -1
                };
                (if fits(widest) { widest } else { widest.max(4) }, false)
            }
        };
        unit.insert(a, u);
    }
    for (t, paths) in all.iter().enumerate() {
        for p in paths {
            for (e, &(bits, instr)) in p.events.iter().zip(&p.sizes) {
                let Some(&(u, merged)) = unit.get(&e.addr) else {
                    continue;
                };
                // Wider than a declared type: the access covers the next cells too.
                let declared = cells.iter().any(|c| c.0 == e.addr && c.2.is_some());
                if declared && bits / 8 > u {
                    let ins = &code.threads[t].instrs[instr];
                    return Err(AxError::at(
                        ins.span,
                        &format!(
                            "{}: a {bits}-bit access to a {}-bit location: mixed-size accesses \
                             wider than a declared type are not supported by the axiomatic \
                             engine",
                            ins.mnemonic,
                            u as u32 * 8
                        ),
                    ));
                }
                if e.kind == Kind::W && bits > 0 && bits / 8 < u && !merged {
                    let ins = &code.threads[t].instrs[instr];
                    return Err(AxError::at(
                        ins.span,
                        &format!(
                            "{}: a {bits}-bit store to a {}-bit location: mixed-size accesses are \
                             modelled only on a location of declared type that one thread \
                             accesses",
                            ins.mnemonic,
                            u as u32 * 8
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}
