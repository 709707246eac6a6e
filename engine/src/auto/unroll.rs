//! The instructions a thread runs, alone, with its loops unrolled (issue 58): what
//! [`super::lean`] estimates a looping program's work from ([`super::lean_unrolled`]).
//!
//! Each thread is walked on its own: registers hold what the walk can know (their initial
//! values, assignments of known values; a load or an RMW gives an unknown value), a branch
//! on a known value goes its way, one on an unknown value falls through (the `then` arm, or
//! into a loop's body), and what either arm of it assigns is unknown after it (so a flag such
//! as Lamport's `done`, set in some arms of a wait, makes its loop one on memory). A loop whose exit was decided on an unknown value runs
//! [`UNKNOWN_ROUNDS`] times; every loop at most `loop_bound` times (the engines cut there
//! too); an `await` passes on its first round. So the counted loops of the held-out family
//! (`i = 0; while (i < 3) { ...; i = i + 1; }`) run their real trip counts, and a wait on
//! memory counts one or two rounds. The walk visits at most [`MAX_STEPS`] instructions a
//! thread.

use crate::ir::live::regs_of;
use crate::ir::{InstrKind, PExpr, Program};

/// Rounds of a loop whose exit depends on memory.
pub const UNKNOWN_ROUNDS: u32 = 1;

/// The walk's length limit per thread.
pub const MAX_STEPS: usize = 20_000;

/// A value the walk knows, or `None`.
fn value(e: &PExpr, regs: &[Option<i64>]) -> Option<i64> {
    let mut used = vec![];
    regs_of(e, &mut used);
    if used
        .iter()
        .any(|&r| regs.get(r as usize).copied().flatten().is_none())
    {
        return None;
    }
    let concrete: Vec<i64> = regs.iter().map(|v| v.unwrap_or(0)).collect();
    e.eval(&concrete).ok()
}

/// Per thread, the instructions it runs alone, in order, loops unrolled.
pub fn unrolled(program: &Program, loop_bound: u32) -> Vec<Vec<&InstrKind>> {
    program
        .threads
        .iter()
        .map(|th| {
            let code = &th.code;
            let mut regs: Vec<Option<i64>> = (0..th.n_regs as usize)
                .map(|r| th.reg_init.get(r).copied())
                .collect();
            let mut walk = Walk {
                rounds: vec![0; code.len()],
                unknown: vec![false; code.len()],
                bound: loop_bound.max(1),
            };
            let mut out = vec![];
            // Instructions before this one lie in an arm of a branch on an unknown value: what
            // they assign is unknown after the join.
            let mut unknown_until = 0usize;
            let mut pc = 0usize;
            let mut steps = 0;
            while pc < code.len() && steps < MAX_STEPS {
                steps += 1;
                let kind = &code[pc].kind;
                if kind.is_visible() {
                    out.push(kind);
                }
                let mut next = pc + 1;
                match kind {
                    InstrKind::Load { dst, .. } => set(&mut regs, *dst, None),
                    InstrKind::Rmw { dst: Some(d), .. } => set(&mut regs, *d, None),
                    InstrKind::Assign { dst, value: v } => {
                        let x = value(v, &regs).filter(|_| pc >= unknown_until);
                        set(&mut regs, *dst, x);
                    }
                    InstrKind::JumpIf { cond, target, when } => {
                        let t = *target as usize;
                        let c = value(cond, &regs);
                        walk.unknown[pc] = c.is_none();
                        let taken = match c {
                            Some(c) => (c != 0) == *when,
                            // Unknown: a forward branch falls through, a backward one loops.
                            None => {
                                unknown_until = unknown_until.max(t);
                                t <= pc
                            }
                        };
                        if taken {
                            next = if t <= pc { walk.back(t, pc, code) } else { t };
                        }
                    }
                    InstrKind::Jump(target) => {
                        let t = *target as usize;
                        // The `else` arm of a branch on an unknown value: what it would have
                        // assigned is unknown.
                        if t > pc && pc < unknown_until {
                            for ins in &code[pc + 1..t] {
                                if let Some(r) = ins.kind.def() {
                                    set(&mut regs, r, None);
                                }
                            }
                        }
                        next = if t <= pc { walk.back(t, pc, code) } else { t };
                    }
                    _ => {}
                }
                pc = next;
            }
            out
        })
        .collect()
}

fn set(regs: &mut [Option<i64>], r: u32, v: Option<i64>) {
    if let Some(slot) = regs.get_mut(r as usize) {
        *slot = v;
    }
}

/// The walk's loop counts.
struct Walk {
    /// Per loop head: rounds so far (reset when an enclosing loop goes round).
    rounds: Vec<u32>,
    /// Per conditional jump: whether its last evaluation was on an unknown value.
    unknown: Vec<bool>,
    bound: u32,
}

impl Walk {
    /// A backward jump from `pc` to `t`: taken while the loop headed at `t` has rounds left
    /// ([`UNKNOWN_ROUNDS`] where one of its exits, or this jump, was last decided on an
    /// unknown value; else the loop bound), else the walk leaves the loop.
    fn back(&mut self, t: usize, pc: usize, code: &[crate::ir::Instr]) -> usize {
        let on_memory = self.unknown[pc] || (t..pc).any(|i| {
            self.unknown[i]
                && matches!(code[i].kind, InstrKind::JumpIf { target, .. } if target as usize > pc)
        });
        let cap = if on_memory {
            UNKNOWN_ROUNDS.min(self.bound)
        } else {
            self.bound
        };
        self.rounds[t] += 1;
        if self.rounds[t] < cap {
            // Loops inside this one start afresh.
            for r in &mut self.rounds[t + 1..=pc] {
                *r = 0;
            }
            t
        } else {
            self.rounds[t] = 0;
            pc + 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::InstrKind;

    /// Per thread: the number of loads and stores the walk runs.
    fn counts(src: &str, bound: u32) -> Vec<(usize, usize)> {
        let t = crate::syntax::parse(src).test.expect("parses");
        let p = Program::lower(&t, bound).expect("lowers");
        unrolled(&p, bound)
            .iter()
            .map(|th| {
                let loads = th
                    .iter()
                    .filter(|k| matches!(k, InstrKind::Load { .. }))
                    .count();
                let stores = th
                    .iter()
                    .filter(|k| matches!(k, InstrKind::Store { .. }))
                    .count();
                (loads, stores)
            })
            .collect()
    }

    #[test]
    fn a_counted_loop_runs_its_trip_count_and_nested_loops_multiply() {
        let src = "litmus L\nshared x = 0;\n\
            thread A { i = 0; while (i < 3) { x = i; i = i + 1; } }\n\
            thread B { i = 0; while (i < 2) { j = 0; while (j < 3) { r = x; j = j + 1; } i = i + 1; } }\n";
        assert_eq!(counts(src, 8), vec![(0, 3), (6, 0)]);
        // The loop bound cuts a longer loop.
        assert_eq!(counts(src, 2)[0], (0, 2));
    }

    #[test]
    fn a_loop_on_memory_runs_one_round_and_a_flag_set_in_an_arm_is_unknown() {
        let src = "litmus L\nshared x = 0, y = 0;\n\
            thread A { while (x != 1) { y = 1; } }\n\
            thread B { done = 0; while (done == 0) { r = x; if (r == 1) { done = 1; } else { y = 2; } } }\n\
            thread C { r = x; if (r == 1) { y = 1; } else { y = 2; } y = 3; }\n";
        // A: one round (its body, not the exit's second load). B: `done`, set in an arm of a
        // branch on memory, is unknown after the first round, so the loop is one on memory
        // from the second and ends there (not at the bound: 8 rounds). C: the `then` arm and
        // what follows.
        assert_eq!(counts(src, 8), vec![(1, 1), (2, 0), (1, 2)]);
    }
}
