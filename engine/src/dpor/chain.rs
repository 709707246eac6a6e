//! Whether a write can be followed, in happens-before, by a write of another cell: the split
//! of a spin iteration of several loads (`docs/design/dpor.md#spin-loops`). An iteration that
//! loads `a` and later `b` differs from the same iteration run whole only when, between the
//! two loads, a write of `a` comes before (causally) a write of `b` that the second load
//! reads. [`Dpor::splittable`] over-approximates that from a state: which processes can
//! still write `a`, which can then have an event after that write in happens-before, and
//! which cells they can write.

use super::explore::Dpor;
use crate::ir::{Access, InstrKind, Program};
use crate::semantics::State;

/// A set of small numbers (cells, mutexes) as a bit set.
#[derive(Clone, Default, PartialEq, Eq)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }
    fn insert(&mut self, i: u32) -> bool {
        let (w, b) = (i as usize / 64, 1u64 << (i % 64));
        let new = self.0[w] & b == 0;
        self.0[w] |= b;
        new
    }
    fn contains(&self, i: u32) -> bool {
        self.0[i as usize / 64] & (1u64 << (i % 64)) != 0
    }
    /// Adds `o`; whether anything was new.
    fn union(&mut self, o: &Bits) -> bool {
        let mut grew = false;
        for (x, y) in self.0.iter_mut().zip(&o.0) {
            grew |= *y & !*x != 0;
            *x |= y;
        }
        grew
    }
    fn meets(&self, o: &Bits) -> bool {
        self.0.iter().zip(&o.0).any(|(x, y)| x & y != 0)
    }
}

/// What a thread can still do from a pc (itself included), over every path of its code.
#[derive(Clone, PartialEq, Eq)]
struct Ahead {
    /// Cells it may load, store or RMW.
    access: Bits,
    /// Cells it may store or RMW.
    write: Bits,
    mutexes: Bits,
    /// A fence, RMW, lock or unlock: a step that waits for its buffers (after their flushes).
    barrier: bool,
    /// An `await`: woken by any change of memory, its next step comes after that change.
    awaits: bool,
}

/// Per thread and pc, what the thread can still do ([`Ahead`]), for [`Dpor::chain`].
pub(super) struct Reach {
    ahead: Vec<Vec<Ahead>>,
    /// Per thread and pc, the pcs it can go to next.
    succ: Vec<Vec<Vec<usize>>>,
    /// Per thread and pc, the cells the instruction there may write.
    writes: Vec<Vec<Bits>>,
}

impl Ahead {
    fn add(&mut self, o: &Ahead) {
        self.access.union(&o.access);
        self.write.union(&o.write);
        self.mutexes.union(&o.mutexes);
        self.barrier |= o.barrier;
        self.awaits |= o.awaits;
    }
}

fn cells_of(p: &Program, acc: &Access) -> std::ops::Range<u32> {
    let v = &p.vars[acc.var as usize];
    v.base..v.base + v.cells()
}

impl Reach {
    pub(super) fn of(p: &Program) -> Reach {
        let (nc, nm) = (p.cells.len(), p.mutexes.len());
        let empty = Ahead {
            access: Bits::new(nc),
            write: Bits::new(nc),
            mutexes: Bits::new(nm),
            barrier: false,
            awaits: false,
        };
        let mut succs = Vec::new();
        let mut writes = Vec::new();
        let ahead = p
            .threads
            .iter()
            .map(|t| {
                let n = t.code.len();
                let mut own = vec![empty.clone(); n + 1];
                let mut succ: Vec<Vec<usize>> = Vec::with_capacity(n);
                for (pc, ins) in t.code.iter().enumerate() {
                    let a = &mut own[pc];
                    let mut next = vec![pc + 1];
                    match &ins.kind {
                        InstrKind::Load { loc, .. } => cells_of(p, loc).for_each(|c| {
                            a.access.insert(c);
                        }),
                        InstrKind::Store { loc, .. } | InstrKind::Rmw { loc, .. } => {
                            for c in cells_of(p, loc) {
                                a.access.insert(c);
                                a.write.insert(c);
                            }
                            a.barrier |= matches!(ins.kind, InstrKind::Rmw { .. });
                        }
                        InstrKind::Fence => a.barrier = true,
                        InstrKind::Lock(m) | InstrKind::Unlock(m) => {
                            a.mutexes.insert(*m);
                            a.barrier = true;
                        }
                        InstrKind::Jump(target) => next = vec![*target as usize],
                        InstrKind::JumpIf { target, .. } => next.push(*target as usize),
                        InstrKind::AwaitCheck { retry, .. } => {
                            a.awaits = true;
                            next.push(*retry as usize);
                        }
                        _ => {}
                    }
                    succ.push(next);
                }
                // Backwards to a fixed point: what is ahead of a pc is what it does and what
                // is ahead of its successors (loops go round until nothing grows).
                let mut all = own.clone();
                loop {
                    let mut grew = false;
                    for pc in (0..n).rev() {
                        for &s in &succ[pc] {
                            if s == pc || s > n {
                                continue;
                            }
                            let (lo, hi) = all.split_at_mut(pc.max(s));
                            let (me, other) = if pc < s {
                                (&mut lo[pc], &hi[0])
                            } else {
                                (&mut hi[0], &lo[s])
                            };
                            grew |= me.access.union(&other.access);
                            grew |= me.write.union(&other.write);
                            grew |= me.mutexes.union(&other.mutexes);
                            if (other.barrier && !me.barrier) || (other.awaits && !me.awaits) {
                                me.barrier |= other.barrier;
                                me.awaits |= other.awaits;
                                grew = true;
                            }
                        }
                    }
                    if !grew {
                        break;
                    }
                }
                writes.push(own.iter().map(|a| a.write.clone()).collect());
                succs.push(succ);
                all
            })
            .collect();
        Reach {
            ahead,
            succ: succs,
            writes,
        }
    }
}

/// Where a write of the split cell can come from: a thread's later store or RMW, or a
/// store in a buffer, whose later entries come after it.
#[derive(Clone, Copy)]
enum Writer {
    Thread(usize),
    Buffer,
}

impl Dpor<'_, '_, '_> {
    /// Whether thread `t`'s spin iteration, run whole from `state`, could be split: a write of
    /// the cell `a` it loads (before its last load) can still come, by another thread or any
    /// buffer, and a write of one of the cells it loads after `a` (`later`) can come after
    /// that write in happens-before (the same write, when `a` is among them).
    pub(super) fn splittable(&mut self, state: &State, t: usize, a: u32, later: &[u32]) -> bool {
        let reach = self.reach.get_or_insert_with(|| Reach::of(self.program));
        let mut writers = Vec::new();
        for q in 0..state.threads.len() {
            if q != t && ahead(reach, state, q).write.contains(a) {
                writers.push(Writer::Thread(q));
            }
            if state.buffers[q]
                .iter()
                .any(|b| b.iter().any(|e| e.cell == a))
            {
                writers.push(Writer::Buffer);
            }
        }
        if writers.is_empty() {
            return false;
        }
        if later.contains(&a) {
            return true;
        }
        let reach = self.reach.as_ref().expect("made above");
        let p = self.program;
        writers
            .into_iter()
            .any(|w| chain(p, reach, state, t, w, a, later))
    }
}

fn ahead<'r>(reach: &'r Reach, state: &State, q: usize) -> &'r Ahead {
    let pc = state.threads[q].pc as usize;
    let code = &reach.ahead[q];
    &code[pc.min(code.len() - 1)]
}

/// Whether, from `state`, after a write of `a` by `w`, a write of one of the cells `later`
/// can still come after it in happens-before, through any process but thread `t` (which runs
/// only its spin iteration meanwhile). Over-approximated: a thread is after the write once it
/// can touch a cell or mutex that something after the write touched (a load or write of a
/// cell orders it with the writes of that cell), or can `await` (a change of any cell may
/// wake it), and brings along what it can still do, its
/// later stores included; a buffered store is after the write once its cell is touched after
/// it (or, under TSO, an older store of its buffer is), and brings along its thread if the
/// thread can still wait for its buffers (a fence, RMW, lock or unlock).
fn chain(
    p: &Program,
    reach: &Reach,
    state: &State,
    t: usize,
    w: Writer,
    a: u32,
    later: &[u32],
) -> bool {
    let nc = p.cells.len();
    let mut cells = Bits::new(nc);
    let mut writes = Bits::new(nc);
    let mut mutexes = Bits::new(p.mutexes.len());
    cells.insert(a);
    let n = state.threads.len();
    let mut after = vec![false; n];
    let mut done = vec![false; n];
    // What each thread can still do; for a thread that writes `a`, only what it can do after
    // such a write (what comes before it in program order is not after it).
    let mut view: Vec<&Ahead> = (0..n).map(|q| ahead(reach, state, q)).collect();
    let post;
    // A buffered store of `a` needs nothing more: the entries from the first one of `a` on
    // are after it (below, `a` being touched after the write).
    if let Writer::Thread(q) = w {
        post = after_writes(reach, state, q, a);
        view[q] = &post;
        after[q] = true;
    }
    loop {
        let mut grew = false;
        for q in (0..n).filter(|&q| q != t) {
            let ah = view[q];
            if !after[q] && (ah.awaits || ah.access.meets(&cells) || ah.mutexes.meets(&mutexes)) {
                after[q] = true;
            }
            if after[q] && !done[q] {
                done[q] = true;
                grew = true;
                cells.union(&ah.access);
                writes.union(&ah.write);
                mutexes.union(&ah.mutexes);
            }
        }
        for (q, bufs) in state.buffers.iter().enumerate() {
            for buf in bufs.iter() {
                // Entries of one buffer are flushed in order: once one is after the write,
                // so are the rest (under PSO a buffer holds one cell, so this adds nothing).
                let mut tainted = false;
                for e in buf.iter() {
                    tainted |= cells.contains(e.cell);
                    if tainted {
                        grew |= cells.insert(e.cell);
                        grew |= writes.insert(e.cell);
                        if q != t && !after[q] && view[q].barrier {
                            after[q] = true;
                            grew = true;
                        }
                    }
                }
            }
        }
        if !grew {
            break;
        }
    }
    later.iter().any(|&b| writes.contains(b))
}

/// What thread `q` can do after a write of `a` it can still make from `state`: the union of
/// what is ahead of each such store or RMW's successors.
fn after_writes(reach: &Reach, state: &State, q: usize, a: u32) -> Ahead {
    let succ = &reach.succ[q];
    let n = succ.len();
    let mut out = reach.ahead[q][n].clone();
    let mut seen = vec![false; n + 1];
    let mut stack = vec![state.threads[q].pc as usize];
    while let Some(pc) = stack.pop() {
        if pc >= n || std::mem::replace(&mut seen[pc], true) {
            continue;
        }
        if reach.writes[q][pc].contains(a) {
            for &s in &succ[pc] {
                out.add(&reach.ahead[q][s.min(n)]);
            }
        }
        stack.extend(succ[pc].iter().copied());
    }
    out
}
