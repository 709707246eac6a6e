//! The dependences of the events of one trace: the thread's local instructions run again
//! along its events ("shadow" run), tracking which reads each register's value comes from.

use super::cfg::uses;
use super::{insert, ThreadSdg};
use crate::ir::{InstrKind, Reg, ThreadCode};
use crate::mcr_trace::Trace;

/// A set of read events of one trace.
pub(super) type Set = Vec<u64>;

fn union(a: &mut Set, b: &Set) {
    for (x, y) in a.iter_mut().zip(b) {
        *x |= *y;
    }
}

/// Runs thread `th`'s local instructions along its events `evs` (indices into `tr`), tracking
/// which read events each register's value comes from and the dependences of each predicate
/// instance, and fills the event's rows of `exist` and `value`. `None` if the events do not
/// follow the code.
pub(super) fn shadow(
    th: &ThreadCode,
    g: &ThreadSdg,
    tr: &Trace,
    evs: &[usize],
    loop_bound: u32,
    words: usize,
    [exist, value, path]: [&mut [Set]; 3],
) -> Option<()> {
    let code = &th.code;
    let named = th.regs.len();
    let mut regs = th.reg_init.clone();
    let mut taint: Vec<Set> = vec![vec![0; words]; th.n_regs as usize];
    // The dependences of the latest instance of each predicate (its condition's reads and its
    // own control dependences).
    let mut last: Vec<Set> = vec![vec![0; words]; code.len()];
    let mut loops = vec![0u32; th.n_loops as usize];
    let mut pc = 0usize;
    // The reads flowing into every condition evaluated so far (see `TraceDeps::path`).
    let mut conds: Set = vec![0; words];
    // Scratch sets, reused: this runs on every trace MCR analyses, and a fresh set per
    // instruction was most of its time.
    let (mut ctrl, mut here, mut tmp): (Set, Set, Set) =
        (vec![0; words], vec![0; words], vec![0; words]);
    // `out` := the union of the taints of `regs_used`.
    let regs_taint = |out: &mut Set, regs_used: &[Reg], taint: &[Set]| {
        out.fill(0);
        for &r in regs_used {
            if let Some(t) = taint.get(r as usize) {
                union(out, t);
            }
        }
    };
    // `out` := the dependences of the latest instances of the predicates `i` depends on.
    let control_of = |out: &mut Set, i: usize, last: &[Set]| {
        out.fill(0);
        for &c in &g.control[i] {
            union(out, &last[c as usize]);
        }
    };
    let clear = |regs: &mut [i64], taint: &mut [Set]| {
        for r in named..regs.len() {
            regs[r] = 0;
            taint[r].iter_mut().for_each(|w| *w = 0);
        }
    };
    for &e in evs {
        let ev = &tr.events[e];
        // Local instructions up to the event's instruction.
        let mut steps = 0usize;
        while pc != ev.pc as usize {
            steps += 1;
            if steps > 1_000_000 || pc >= code.len() {
                return None;
            }
            let ins = &code[pc];
            if ins.kind.is_visible() {
                return None;
            }
            control_of(&mut ctrl, pc, &last);
            let (ex, val) = uses(&ins.kind);
            regs_taint(&mut here, &ex, &taint);
            union(&mut here, &ctrl);
            union(&mut conds, &here);
            last[pc].copy_from_slice(&here);
            let mut next = pc + 1;
            match &ins.kind {
                InstrKind::Assign { dst, value: v } => {
                    let x = v.eval(&regs).ok()?;
                    regs_taint(&mut tmp, &val, &taint);
                    *regs.get_mut(*dst as usize)? = x;
                    taint.get_mut(*dst as usize)?.copy_from_slice(&tmp);
                }
                InstrKind::Jump(t) => next = *t as usize,
                InstrKind::JumpIf { cond, target, when } => {
                    if (cond.eval(&regs).ok()? != 0) == *when {
                        next = *target as usize;
                    }
                }
                InstrKind::Assert(c) | InstrKind::Assume(c) => {
                    if c.eval(&regs).ok()? == 0 {
                        return None;
                    }
                }
                InstrKind::AwaitBegin => {}
                InstrKind::AwaitCheck { cond, retry } => {
                    if cond.eval(&regs).ok()? == 0 {
                        next = *retry as usize;
                        clear(&mut regs, &mut taint);
                    }
                }
                InstrKind::LoopEnter(l) => *loops.get_mut(*l as usize)? = 0,
                InstrKind::LoopIter(l) => {
                    let c = loops.get_mut(*l as usize)?;
                    if *c >= loop_bound {
                        return None;
                    }
                    *c += 1;
                }
                _ => return None,
            }
            // The semantics clears a statement's temporaries after its last instruction whichever
            // way a jump goes (a failed await check cleared them above).
            if ins.clear_temps {
                clear(&mut regs, &mut taint);
            }
            pc = next;
        }
        // The event's own instruction.
        let ins = code.get(pc)?;
        control_of(&mut ctrl, pc, &last);
        let (ex, val) = uses(&ins.kind);
        regs_taint(&mut here, &ex, &taint);
        union(&mut here, &ctrl);
        path[e].copy_from_slice(&conds);
        union(&mut conds, &here);
        exist[e].copy_from_slice(&here);
        regs_taint(&mut value[e], &val, &taint);
        last[pc].copy_from_slice(&here);
        if ev.pending {
            // A lock the thread waits for: it does not run.
            break;
        }
        let read = ev.kind.read().map(|(_, v)| v);
        match (&ins.kind, read) {
            (InstrKind::Load { dst, .. }, Some(v))
            | (InstrKind::Rmw { dst: Some(dst), .. }, Some(v)) => {
                *regs.get_mut(*dst as usize)? = v;
                let t = taint.get_mut(*dst as usize)?;
                t.fill(0);
                insert(t, e);
            }
            (InstrKind::Rmw { dst: None, .. }, Some(_)) => {}
            (k, None)
                if k.is_visible()
                    && !matches!(k, InstrKind::Load { .. } | InstrKind::Rmw { .. }) => {}
            _ => return None,
        }
        if ins.clear_temps {
            clear(&mut regs, &mut taint);
        }
        pc += 1;
    }
    Some(())
}
