//! Live registers: per thread and pc, the registers the thread may still read before it
//! writes them again. A search whose states are compared (the unbounded SC search) sets the
//! dead ones to 0, so two states that differ only in a value no future step reads are one
//! state (Trencher's SC checker does the same; see `docs/design/unbounded.md`).
//!
//! Every register is live at the end of a thread: final states report them all.

use super::{Access, InstrKind, PExpr, Program, Reg};

/// The registers `e` reads, appended to `out`.
pub fn regs_of(e: &PExpr, out: &mut Vec<Reg>) {
    match e {
        PExpr::Int(_) => {}
        PExpr::Reg(r) => out.push(*r),
        PExpr::Unary(_, a) => regs_of(a, out),
        PExpr::Binary(_, a, b) => {
            regs_of(a, out);
            regs_of(b, out);
        }
    }
}

fn access_regs(a: &Access, out: &mut Vec<Reg>) {
    if let Some(i) = &a.index {
        regs_of(i, out);
    }
}

impl InstrKind {
    /// The register the instruction writes, if any.
    pub fn def(&self) -> Option<Reg> {
        match self {
            InstrKind::Load { dst, .. } | InstrKind::Assign { dst, .. } => Some(*dst),
            InstrKind::Rmw { dst, .. } => *dst,
            _ => None,
        }
    }

    /// Every register the instruction reads (addresses, values, conditions), appended to
    /// `out`.
    pub fn reads(&self, out: &mut Vec<Reg>) {
        match self {
            InstrKind::Load { loc, .. } => access_regs(loc, out),
            InstrKind::Store { loc, value } => {
                access_regs(loc, out);
                regs_of(value, out);
            }
            InstrKind::Rmw { loc, args, .. } => {
                access_regs(loc, out);
                args.iter().for_each(|a| regs_of(a, out));
            }
            InstrKind::Assign { value, .. } => regs_of(value, out),
            InstrKind::JumpIf { cond, .. }
            | InstrKind::AwaitCheck { cond, .. }
            | InstrKind::Assert(cond)
            | InstrKind::Assume(cond) => regs_of(cond, out),
            InstrKind::Fence
            | InstrKind::Lock(_)
            | InstrKind::Unlock(_)
            | InstrKind::Jump(_)
            | InstrKind::AwaitBegin
            | InstrKind::LoopEnter(_)
            | InstrKind::LoopIter(_) => {}
        }
    }

    /// The pcs control may go to from `pc` (a `pc` equal to the code's length is the thread's
    /// end). A conditional jump on a constant has its one edge.
    fn successors(&self, pc: usize) -> Vec<usize> {
        match self {
            InstrKind::Jump(t) => vec![*t as usize],
            InstrKind::JumpIf {
                cond: PExpr::Int(c),
                target,
                when,
            } => {
                if (*c != 0) == *when {
                    vec![*target as usize]
                } else {
                    vec![pc + 1]
                }
            }
            InstrKind::JumpIf { target, .. } => vec![pc + 1, *target as usize],
            InstrKind::AwaitCheck { retry, .. } => vec![pc + 1, *retry as usize],
            _ => vec![pc + 1],
        }
    }
}

/// Per thread, per pc (the code's length included, the end), the registers dead there.
pub fn dead_registers(p: &Program) -> Vec<Vec<Vec<Reg>>> {
    p.threads
        .iter()
        .map(|t| {
            let (n, nregs) = (t.code.len(), t.reg_init.len());
            // live[pc][r]; at the end every register is live.
            let mut live = vec![vec![false; nregs]; n + 1];
            live[n] = vec![true; nregs];
            let succ: Vec<Vec<usize>> = t
                .code
                .iter()
                .enumerate()
                .map(|(pc, i)| {
                    let mut s = i.kind.successors(pc);
                    s.retain(|&q| q <= n);
                    s
                })
                .collect();
            let mut reads = Vec::new();
            let mut changed = true;
            while changed {
                changed = false;
                for pc in (0..n).rev() {
                    let mut now = vec![false; nregs];
                    for &q in &succ[pc] {
                        for (r, l) in live[q].iter().enumerate() {
                            now[r] |= *l;
                        }
                    }
                    let kind = &t.code[pc].kind;
                    if let Some(d) = kind.def().filter(|&d| (d as usize) < nregs) {
                        now[d as usize] = false;
                    }
                    reads.clear();
                    kind.reads(&mut reads);
                    for &r in reads.iter().filter(|&&r| (r as usize) < nregs) {
                        now[r as usize] = true;
                    }
                    if now != live[pc] {
                        live[pc] = now;
                        changed = true;
                    }
                }
            }
            live.iter()
                .map(|l| (0..nregs as Reg).filter(|&r| !l[r as usize]).collect())
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dead(src: &str) -> (Program, Vec<Vec<Vec<Reg>>>) {
        let t = crate::syntax::parse(src).test.expect("parses");
        let p = Program::lower(&t, 4).expect("lowers");
        let d = dead_registers(&p);
        (p, d)
    }

    #[test]
    fn a_register_is_dead_after_its_last_read_and_live_at_the_end() {
        let (p, d) = dead(
            "litmus L
shared x = 0, y = 0;
thread P0 { r = x; if (r == 1) { y = 1; } r = 0; x = 2; }",
        );
        let code = &p.threads[0].code;
        let store_x2 = code
            .iter()
            .position(|i| {
                matches!(
                    &i.kind,
                    InstrKind::Store {
                        value: PExpr::Int(2),
                        ..
                    }
                )
            })
            .unwrap();
        let store_y = code
            .iter()
            .position(|i| {
                matches!(
                    &i.kind,
                    InstrKind::Store {
                        value: PExpr::Int(1),
                        ..
                    }
                )
            })
            .unwrap();
        // After the test of `r` and before `r = 0`, `r` is dead; after `r = 0` it is live
        // again (the end reports it).
        assert!(d[0][store_y].contains(&0), "{:?}", d[0]);
        assert!(!d[0][store_x2].contains(&0), "{:?}", d[0]);
        assert!(d[0][code.len()].is_empty());
    }

    #[test]
    fn an_endless_loop_has_no_exit_edge() {
        let (p, d) = dead(
            "litmus E
shared x = 0;
thread P0 { while (1) { r = x; if (r == 1) { x = 0; } } }",
        );
        let code = &p.threads[0].code;
        let store = code
            .iter()
            .position(|i| matches!(i.kind, InstrKind::Store { .. }))
            .unwrap();
        // The loop never ends, so `r` is never read again after its test.
        assert!(d[0][store].contains(&0), "{:?}", d[0]);
    }
}
