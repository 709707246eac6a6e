//! The control flow graph of a thread, and the registers each instruction uses and defines.

use crate::ast::BinOp;
use crate::ir::{Access, Instr, InstrKind, PExpr, Reg};

/// Successors of each instruction; `code.len()` is the exit. Besides jumps, an instruction
/// that may end its thread's run (see [`may_stop`]) has an edge to the exit.
pub(super) fn successors(code: &[Instr]) -> Vec<Vec<u32>> {
    let exit = code.len() as u32;
    code.iter()
        .enumerate()
        .map(|(i, ins)| {
            let next = i as u32 + 1;
            let mut s = match &ins.kind {
                InstrKind::Jump(t) => vec![*t],
                InstrKind::JumpIf { target, .. } => vec![next, *target],
                InstrKind::AwaitCheck { retry, .. } => vec![next, *retry],
                _ => vec![next],
            };
            if may_stop(&ins.kind) {
                s.push(exit);
            }
            s.iter_mut().for_each(|x| *x = (*x).min(exit));
            s.sort_unstable();
            s.dedup();
            s
        })
        .collect()
}

/// Whether evaluating `e` can fail (division or remainder).
pub(super) fn can_fail(e: &PExpr) -> bool {
    match e {
        PExpr::Int(_) | PExpr::Reg(_) => false,
        PExpr::Unary(_, a) => can_fail(a),
        PExpr::Binary(op, a, b) => {
            matches!(op, BinOp::Div | BinOp::Rem) || can_fail(a) || can_fail(b)
        }
    }
}

pub(super) use crate::ir::live::regs_of;

pub(super) fn access_regs(a: &Access, out: &mut Vec<Reg>) {
    if let Some(i) = &a.index {
        regs_of(i, out);
    }
}

/// The registers an instruction reads: (for its existence: conditions, addresses, what may
/// fail), (for the value it writes).
pub(super) fn uses(k: &InstrKind) -> (Vec<Reg>, Vec<Reg>) {
    let (mut exist, mut value) = (Vec::new(), Vec::new());
    match k {
        InstrKind::Load { loc, .. } => access_regs(loc, &mut exist),
        InstrKind::Store { loc, value: v } => {
            access_regs(loc, &mut exist);
            regs_of(v, &mut value);
            if can_fail(v) {
                regs_of(v, &mut exist);
            }
        }
        InstrKind::Rmw { loc, args, .. } => {
            access_regs(loc, &mut exist);
            for a in args {
                regs_of(a, &mut value);
                if can_fail(a) {
                    regs_of(a, &mut exist);
                }
            }
        }
        InstrKind::Assign { value: v, .. } => {
            regs_of(v, &mut value);
            if can_fail(v) {
                regs_of(v, &mut exist);
            }
        }
        InstrKind::JumpIf { cond, .. }
        | InstrKind::AwaitCheck { cond, .. }
        | InstrKind::Assert(cond)
        | InstrKind::Assume(cond) => regs_of(cond, &mut exist),
        _ => {}
    }
    (exist, value)
}

/// The register an instruction defines.
pub(super) fn def(k: &InstrKind) -> Option<Reg> {
    k.def()
}

/// Whether an instruction may end its thread's run (fault, block for good, loop bound).
pub(super) fn may_stop(k: &InstrKind) -> bool {
    match k {
        InstrKind::Load { loc, .. } => loc.index.is_some(),
        InstrKind::Store { loc, value } => loc.index.is_some() || can_fail(value),
        InstrKind::Rmw { loc, args, .. } => loc.index.is_some() || args.iter().any(can_fail),
        InstrKind::Assign { value, .. } => can_fail(value),
        InstrKind::JumpIf { cond, .. } => can_fail(cond),
        InstrKind::Lock(_)
        | InstrKind::Unlock(_)
        | InstrKind::Assert(_)
        | InstrKind::Assume(_)
        | InstrKind::AwaitCheck { .. }
        | InstrKind::LoopIter(_) => true,
        InstrKind::Fence | InstrKind::Jump(_) | InstrKind::AwaitBegin | InstrKind::LoopEnter(_) => {
            false
        }
    }
}
