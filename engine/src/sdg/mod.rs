//! The system dependency graph of a program ([Huang and Huang 2017](docs/papers.md#huang-huang-2017) §3.2-4.2), and the
//! dependences it gives the events of an executed trace.
//!
//! Per thread, over the IR instructions of [`crate::ir`]:
//! - the **control flow graph**, with an extra exit node. Besides jumps, every instruction that
//!   can end its thread's run early has an edge to the exit: a failed `assert` or `assume`, a
//!   runtime error (division by zero, an index out of bounds, an unlock of a mutex not held, a
//!   relock), the loop bound, and the instructions that can wait for good (an `await` whose
//!   condition never holds, a `lock` of a mutex that is never released). So the code after them
//!   depends on whatever decides that they pass (the paper's "Case 4": a call that may crash);
//! - **post-dominators** and, from them, **control dependences** (Ferrante, Ottenstein and
//!   Warren): an instruction is control dependent on a *predicate* (an instruction with two
//!   successors) when one of its branches always leads to it and the other may not;
//! - **data dependences** through registers, by reaching definitions: a use of a register
//!   depends on the definitions (loads, RMWs, assignments) that may reach it.
//!
//! [`Sdg::trace_deps`] maps this onto the events of one trace, as the paper does ("although the
//! dependence graph is statically computed, we only include the statements that do affect the
//! occurrence of a specific event"): it runs each thread's local instructions again along its
//! events, with the values its reads returned, and tracks which read events each register's
//! value came from. An event then depends on
//! - *for its existence* (its control dependences, and the address it accesses): the reads that
//!   flow into the conditions of the predicate instances it is control dependent on (the latest
//!   instance of each, and transitively theirs), and into its array index;
//! - *for its value* (a store, an RMW's operands): the reads that flow into what it writes;
//! - *for its path*: the reads that flow into any condition its thread evaluated before it.
//!
//! MCR uses this to constrain fewer reads (MCR-S+, see [`crate::mcr`]), and to decide which
//! steps after a read given a new value may stay in a query's prefix (its existence, value and
//! path independent of the read); `litmus check --dump-sdg` prints the static graph.

//!
//! The files: [`cfg`] (the flow graph and what each instruction uses and defines),
//! [`dominators`] (post-dominators, dominators and dominance frontiers), [`reaching`] (sparse
//! reaching definitions), [`trace`] (the dependences of a trace's events) and [`dump`]
//! (`--dump-sdg`).

mod cfg;
mod dominators;
mod dump;
mod reaching;
#[cfg(test)]
mod tests;
mod trace;

use crate::ir::{Program, Reg, ThreadCode};
use crate::mcr::trace::{EventKind, Trace};

/// The dependence graph of every thread of a program.
pub struct Sdg {
    /// One graph per thread; empty when the graph was not built (see `skipped`).
    pub threads: Vec<ThreadSdg>,
    /// Why the graph was not built, if it was not: a thread above [`MAX_CONTROL_DEPS`] or
    /// [`MAX_MERGE_DEFS`], or the check stopped while building it. Without the graph every
    /// trace's dependences are unknown, and MCR keeps every read constrained (exact, slower).
    pub skipped: Option<String>,
}

/// The most control dependences (instruction, predicate pairs) a thread's graph may have.
/// Computing them is linear in their number, but that number can be quadratic in the thread's
/// length in the worst case; above this the graph is skipped.
pub const MAX_CONTROL_DEPS: usize = 4_000_000;
pub use reaching::MAX_MERGE_DEFS;
/// Why the graph was not built when the check stopped while building it.
const STOPPED: &str = "the check stopped";
/// The most bytes the dependences of one trace may take (three bit sets over the trace's events
/// per event, so quadratic in its length); a longer trace gets none.
pub const MAX_TRACE_DEPS_BYTES: usize = 64 << 20;

/// The dependence graph of one thread. Instruction `code.len()` is the exit node.
pub struct ThreadSdg {
    /// Successors of each instruction in the control flow graph.
    pub succ: Vec<Vec<u32>>,
    /// Immediate post-dominator of each instruction (the exit for the last ones).
    pub ipdom: Vec<u32>,
    /// The predicates each instruction is control dependent on.
    pub control: Vec<Vec<u32>>,
    /// For each instruction, the definitions (instruction, register) its uses may read.
    pub data: Vec<Vec<(u32, Reg)>>,
}

/// The reads the events of one trace depend on (see the module doc), as bit sets over the
/// trace's event indices: only earlier reads of the same thread ever appear.
pub struct TraceDeps {
    /// Per event: the reads deciding that it happens, and where (control and address).
    pub exist: Vec<Vec<u64>>,
    /// Per event: the reads flowing into the value it writes (stores, RMWs).
    pub value: Vec<Vec<u64>>,
    /// Per event: the reads flowing into any condition its thread evaluated before it (a
    /// branch, an `assert`, `assume` or `await` check, an operation that can fail). An event
    /// whose existence does not depend on a read may still come after a different path when
    /// the read changes (an `if` whose other branch has a step of its own): it is reached the
    /// same way, with the same steps before it, only if no read in this set changes.
    pub path: Vec<Vec<u64>>,
}

/// Whether bit `i` of the bit set `set` is on.
pub fn has(set: &[u64], i: usize) -> bool {
    set.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

/// The members of the bit set `set` below `n`.
pub fn members(set: &[u64], n: usize) -> impl Iterator<Item = usize> + '_ {
    (0..n).filter(move |&i| has(set, i))
}

fn insert(set: &mut [u64], i: usize) {
    set[i / 64] |= 1 << (i % 64);
}

impl ThreadSdg {
    /// The thread's graph, or why it was not built.
    fn new(th: &ThreadCode, stop: &mut dyn FnMut() -> bool) -> Result<ThreadSdg, String> {
        let n = th.code.len();
        let succ = cfg::successors(&th.code);
        let ipdom =
            dominators::post_dominators(&succ, n, stop).ok_or_else(|| STOPPED.to_string())?;
        let control = dominators::control_deps(&succ, &ipdom, MAX_CONTROL_DEPS, stop)?;
        let data = reaching::reaching_uses(&th.code, &succ, th, stop)?;
        Ok(ThreadSdg {
            succ,
            ipdom,
            control,
            data,
        })
    }
}

impl Sdg {
    pub fn new(p: &Program) -> Sdg {
        Sdg::with_control(p, &crate::options::Control::new())
    }

    /// The graph, built while `ctl` says go on; skipped (see [`Sdg::skipped`]) when a thread is
    /// too large or the check stops meanwhile.
    pub fn with_control(p: &Program, ctl: &crate::options::Control) -> Sdg {
        let mut stop = || ctl.should_stop();
        let mut threads = Vec::with_capacity(p.threads.len());
        for (t, th) in p.threads.iter().enumerate() {
            match ThreadSdg::new(th, &mut stop) {
                Ok(g) => threads.push(g),
                Err(why) => {
                    return Sdg {
                        threads: Vec::new(),
                        skipped: Some(format!("thread {t}: {why}")),
                    }
                }
            }
        }
        Sdg {
            threads,
            skipped: None,
        }
    }

    /// The dependences of the events of `tr` (a trace of `p`), or `None` if a thread's events do
    /// not follow its code (then nothing may be relaxed).
    pub fn trace_deps(&self, p: &Program, tr: &Trace) -> Option<TraceDeps> {
        let n = tr.events.len();
        let words = n.div_ceil(64).max(1);
        if n.saturating_mul(words).saturating_mul(3 * 8) > MAX_TRACE_DEPS_BYTES {
            return None;
        }
        let mut exist = vec![vec![0u64; words]; n];
        let mut value = vec![vec![0u64; words]; n];
        let mut path = vec![vec![0u64; words]; n];
        for (t, th) in p.threads.iter().enumerate() {
            let g = self.threads.get(t)?;
            let evs: Vec<usize> = (0..n)
                .filter(|&i| {
                    tr.events[i].thread == t
                        && !matches!(tr.events[i].kind, EventKind::Flush { .. })
                })
                .collect();
            trace::shadow(
                th,
                g,
                tr,
                &evs,
                p.loop_bound,
                words,
                [&mut exist, &mut value, &mut path],
            )?;
        }
        Some(TraceDeps { exist, value, path })
    }
}
