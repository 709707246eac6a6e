//! The memory models, one file each, behind one trait: [`MemoryModel`].
//!
//! Every model litmus knows is a *store-buffer machine*: memory, per-thread registers, and per
//! thread zero or more FIFO store buffers. A model says only how stores are buffered; every
//! engine, the interpreter, `replay` and the analyses derive all they need from that:
//!
//! - **operationally** ([`crate::semantics`]): a store enters buffer
//!   [`MemoryModel::buffer_of`] of its thread (or memory at once when there is none); a load
//!   reads its thread's newest buffered store to the cell, else memory (store forwarding,
//!   [`MemoryModel::forwards`]); a flush moves the oldest entry of one buffer to memory; a
//!   fence, RMW, `lock` or `unlock` waits until all of its thread's buffers are empty;
//! - **as orders** over an execution: must-happen-before for MCR's encoder, causal search and
//!   pre-check ([`MemoryModel::must_happen_before`]: program order, a store's issue before its
//!   flush, flushes of one buffer in FIFO order, a thread's flushes before its next barrier),
//!   and the processes DPOR's happens-before on chronological traces is built over (threads,
//!   then buffers: [`MemoryModel::processes`], [`MemoryModel::process_of`]).
//!
//! Adding a model of this family means adding one file with an implementation of the four
//! required methods, a variant of [`Model`] and its arm in [`Model::rules`].

mod pso;
mod sc;
mod tso;

pub use pso::Pso;
pub use sc::Sc;
pub use tso::Tso;

use crate::report::Model;

/// What an event does, as far as the model's orders are concerned (the analyses map their own
/// events to this).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// A store's issue (its thread's step).
    Issue { cell: u32 },
    /// A buffered store reaching memory; `store` is the index of its issue, if known.
    Flush { cell: u32, store: Option<usize> },
    /// A thread step that waits for the thread's buffers to be empty (fence, RMW, lock, unlock).
    Barrier,
    /// Any other step of a thread.
    Other,
}

/// One memory model: how its stores are buffered (required), and the rules every engine derives
/// from that (provided).
pub trait MemoryModel: Sync {
    /// The store buffers each thread has, for a program with `cells` shared cells.
    fn buffers(&self, cells: usize) -> usize;

    /// The buffer (index into the thread's [`MemoryModel::buffers`]) a store to `cell` enters;
    /// `None`: the store writes memory at once.
    fn buffer_of(&self, cell: u32) -> Option<usize>;

    /// The `cell` a [`crate::semantics::Choice::Flush`] names when it flushes the buffer holding a store to `cell`
    /// (`None` where a thread's buffer is named by the thread alone).
    fn flush_cell(&self, cell: u32) -> Option<u32>;

    /// The buffer a [`crate::semantics::Choice::Flush`] naming `cell` flushes; `None` when no flush of this model
    /// names it that way.
    fn flush_buffer(&self, cell: Option<u32>) -> Option<usize>;

    /// Whether stores are buffered at all (otherwise a store is also its publication).
    fn buffered(&self) -> bool {
        self.buffer_of(0).is_some()
    }

    /// Whether a store's issue writes memory (its own publication): no buffers.
    fn store_publishes(&self) -> bool {
        !self.buffered()
    }

    /// A load reads its thread's newest buffered store to its cell while it is buffered (store
    /// forwarding), so a load may read from a store *issue*, not only from a publication.
    fn forwards(&self) -> bool {
        self.buffered()
    }

    /// Whether a fence, RMW, `lock` or `unlock` has buffers to wait for.
    fn barriers_drain(&self) -> bool {
        self.buffered()
    }

    /// Whether a thread's stores to different cells may reach memory out of issue order (they
    /// go through different FIFOs).
    fn stores_reorder(&self) -> bool {
        self.buffered() && self.fifo(0) != self.fifo(1)
    }

    /// The FIFO a store to `cell` goes through: flushes of one thread with the same key publish
    /// in issue order.
    fn fifo(&self, cell: u32) -> usize {
        self.buffer_of(cell).unwrap_or(0)
    }

    /// DPOR's processes for `threads` threads and `cells` cells: each thread, then each buffer.
    fn processes(&self, threads: usize, cells: usize) -> usize {
        threads + threads * self.buffers(cells)
    }

    /// The process of the buffer a flush of `thread` naming `cell` empties (thread `t` is
    /// process `t`; [`MemoryModel::processes`]' numbering).
    fn buffer_process(
        &self,
        threads: usize,
        cells: usize,
        thread: usize,
        cell: Option<u32>,
    ) -> usize {
        threads + thread * self.buffers(cells) + self.flush_buffer(cell).unwrap_or(0)
    }

    /// Must-happen-before over the events of one execution (`(thread, access)` in execution
    /// order), as `(earlier, later)` pairs, each found at its later event, in order: program
    /// order of each thread's own steps; a store's issue before its flush; flushes of one FIFO
    /// ([`MemoryModel::fifo`]) in order; each flush of a store before its thread's next
    /// barrier. `flush_of[s]` is the flush of the store issued at `s`, if any. Steps of
    /// threads `>= threads` are left out.
    fn must_happen_before(
        &self,
        threads: usize,
        events: &[(usize, Access)],
        flush_of: &[Option<usize>],
    ) -> Vec<(usize, usize)> {
        let mut hb: Vec<(usize, usize)> = Vec::new();
        let mut last_exec: Vec<Option<usize>> = vec![None; threads];
        let mut last_flush: std::collections::HashMap<(usize, usize), usize> = Default::default();
        // Stores of each thread issued since its last barrier.
        let mut stores: Vec<Vec<usize>> = vec![Vec::new(); threads];
        for (i, &(t, access)) in events.iter().enumerate() {
            if let Access::Flush { cell, store } = access {
                if let Some(store) = store.filter(|&s| s < i) {
                    hb.push((store, i));
                }
                let key = (t, self.fifo(cell));
                if let Some(&prev) = last_flush.get(&key) {
                    hb.push((prev, i));
                }
                last_flush.insert(key, i);
                continue;
            }
            if t >= threads {
                continue;
            }
            if let Some(prev) = last_exec[t] {
                hb.push((prev, i));
            }
            last_exec[t] = Some(i);
            if access == Access::Barrier && self.barriers_drain() {
                for &s in &stores[t] {
                    if let Some(f) = flush_of.get(s).copied().flatten() {
                        hb.push((f, i));
                    }
                }
                stores[t].clear();
            }
            if let Access::Issue { .. } = access {
                stores[t].push(i);
            }
        }
        hb
    }
}

impl Model {
    /// The model's rules.
    pub fn rules(self) -> &'static dyn MemoryModel {
        match self {
            Model::Sc => &Sc,
            Model::Tso => &Tso,
            Model::Pso => &Pso,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantics::Choice;

    /// Each model's flush choices name its buffers one to one, both ways, and DPOR's process
    /// numbering gives every thread and buffer a distinct process below `processes`.
    #[test]
    fn flushes_and_processes_name_each_buffer_once() {
        let (threads, cells) = (3, 4u32);
        for m in Model::ALL {
            let r = m.rules();
            let nbuf = r.buffers(cells as usize);
            let mut procs: Vec<usize> = (0..threads).collect();
            for t in 0..threads {
                let mut seen = std::collections::BTreeSet::new();
                for c in 0..cells {
                    let Some(b) = r.buffer_of(c) else {
                        assert_eq!(nbuf, 0, "{m:?}");
                        continue;
                    };
                    assert!(b < nbuf, "{m:?}");
                    let Choice::Flush { cell, .. } = Choice::flush(m, t, c) else {
                        panic!("a flush")
                    };
                    assert_eq!(r.flush_buffer(cell), Some(b), "{m:?} cell {c}");
                    if seen.insert(b) {
                        procs.push(r.buffer_process(threads, cells as usize, t, cell));
                    }
                }
                assert_eq!(seen.len(), nbuf, "{m:?}");
            }
            let n = procs.len();
            procs.sort();
            procs.dedup();
            assert_eq!(procs.len(), n, "{m:?}: processes collide");
            assert_eq!(n, r.processes(threads, cells as usize), "{m:?}");
            assert!(procs.iter().all(|&p| p < n), "{m:?}");
        }
    }

    /// The rules the analyses ask: SC publishes at issue and forwards nothing; TSO forwards
    /// but keeps store order; PSO reorders stores to different cells.
    #[test]
    fn derived_rules_per_model() {
        let row = |m: Model| {
            let r = m.rules();
            (
                r.store_publishes(),
                r.forwards(),
                r.barriers_drain(),
                r.stores_reorder(),
            )
        };
        assert_eq!(row(Model::Sc), (true, false, false, false));
        assert_eq!(row(Model::Tso), (false, true, true, false));
        assert_eq!(row(Model::Pso), (false, true, true, true));
    }

    /// Must-happen-before on SB's shape under TSO with a fence: program order, issue before
    /// flush, and the flush before the thread's fence; under PSO two flushes of one thread to
    /// different cells are not ordered, under TSO they are.
    #[test]
    fn must_happen_before_orders() {
        use Access::*;
        // 0: P0 x=1, 1: P0 y=1, 2: flush x, 3: flush y, 4: P0 fence
        let evs = [
            (0, Issue { cell: 0 }),
            (0, Issue { cell: 1 }),
            (
                0,
                Flush {
                    cell: 0,
                    store: Some(0),
                },
            ),
            (
                0,
                Flush {
                    cell: 1,
                    store: Some(1),
                },
            ),
            (0, Barrier),
        ];
        let flush_of = [Some(2), Some(3), None, None, None];
        let tso = Model::Tso.rules().must_happen_before(1, &evs, &flush_of);
        let pso = Model::Pso.rules().must_happen_before(1, &evs, &flush_of);
        for hb in [&tso, &pso] {
            for pair in [(0, 1), (0, 2), (1, 3), (1, 4), (2, 4), (3, 4)] {
                assert!(hb.contains(&pair), "{pair:?} in {hb:?}");
            }
        }
        assert!(tso.contains(&(2, 3)));
        assert!(!pso.contains(&(2, 3)));
    }
}
