//! A cheap, sound pre-check of new-value queries. Most queries of a trace are unsatisfiable
//! for reasons visible on orderings alone: the source write comes after the read in program
//! order, a read the prefix must keep has no write left that could give it its value, a spin
//! loop's earlier read already saw the write that the target would have to come before, a final
//! value's write is followed by another write to the cell in program order... Deciding those
//! without Z3 saves most solver calls on spin loops.
//!
//! The check reasons on a subset of the query's constraints — must-happen-before, the events
//! forced into the prefix (the committed events, the target, its source) and out of it (the
//! target's first later step that depends on its value, and what must follow it), and data
//! validity of the reads forced into the prefix — and derives orderings from them (a read
//! with a single possible source comes after it; other writes to the cell come before that
//! source or after the read). It answers "impossible" only on a cycle in those orderings, an
//! event both in and out of the prefix, or a read with no possible source, each of which makes
//! the full query unsatisfiable too; so it never changes what Z3 would answer, only skips the
//! call. Await retries and lock mutual exclusion are left to the solver. The work per query is
//! bounded (a few rounds of closure over bitsets of the trace's events); running out of rounds
//! means "possible".

use super::{Encoder, Target};
use crate::ids::EventId;
use crate::mcr::trace::EventKind;

/// Rounds of derivation before giving up (answering "possible").
const MAX_ROUNDS: usize = 6;

/// Orderings between a trace's events: must-happen-before plus derived edges, with the
/// transitive closure as ancestor bitsets. The must-happen-before part is the same for every
/// query of a trace: the encoder builds it once ([`Encoder::hb_order`]) and each query clones it.
#[derive(Clone)]
pub(super) struct Order {
    n: usize,
    words: usize,
    /// Direct predecessors (must-happen-before and derived).
    preds: Vec<Vec<usize>>,
    /// Row `b` (`words` words from `b * words`) has bit `a` when `a` must come before `b`.
    anc: Vec<u64>,
    /// Edges were added since the closure was computed.
    dirty: bool,
}

impl Order {
    fn new(preds: &[Vec<usize>]) -> Order {
        let n = preds.len();
        let words = n.div_ceil(64).max(1);
        Order {
            n,
            words,
            preds: preds.to_vec(),
            anc: Vec::new(),
            dirty: true,
        }
    }

    fn add(&mut self, a: usize, b: usize) -> bool {
        if a >= self.n || b >= self.n {
            return false;
        }
        if !self.preds[b].contains(&a) {
            self.preds[b].push(a);
            self.dirty = true;
            return true;
        }
        false
    }

    /// Recomputes the closure if edges were added; `false` on a cycle.
    fn close(&mut self) -> bool {
        if !self.dirty {
            return true;
        }
        let (n, words) = (self.n, self.words);
        // Successors in one array (`start[a]..start[a + 1]`), fewer allocations than a `Vec`
        // per event: the closure is recomputed on most queries.
        let mut indeg = vec![0usize; n];
        let mut start = vec![0usize; n + 1];
        for (b, ps) in self.preds.iter().enumerate() {
            for &a in ps {
                if a == b {
                    return false;
                }
                indeg[b] += 1;
                start[a + 1] += 1;
            }
        }
        for a in 0..n {
            start[a + 1] += start[a];
        }
        let mut fill = start.clone();
        let mut succs = vec![0usize; start[n]];
        for (b, ps) in self.preds.iter().enumerate() {
            for &a in ps {
                succs[fill[a]] = b;
                fill[a] += 1;
            }
        }
        let mut ready: Vec<usize> = (0..n).filter(|&i| indeg[i] == 0).collect();
        let mut anc = std::mem::take(&mut self.anc);
        anc.clear();
        anc.resize(n * words, 0);
        let mut done = 0;
        while let Some(a) = ready.pop() {
            done += 1;
            for &p in &self.preds[a] {
                anc[a * words + p / 64] |= 1 << (p % 64);
                for w in 0..words {
                    anc[a * words + w] |= anc[p * words + w];
                }
            }
            for &b in &succs[start[a]..start[a + 1]] {
                indeg[b] -= 1;
                if indeg[b] == 0 {
                    ready.push(b);
                }
            }
        }
        self.anc = anc;
        self.dirty = false;
        done == n
    }

    /// `a` must come before `b`.
    fn before(&self, a: usize, b: usize) -> bool {
        a < self.n && b < self.n && self.anc[b * self.words + a / 64] >> (a % 64) & 1 == 1
    }

    /// Adds `i` and everything before it to `set`.
    fn with_ancestors(&self, i: usize, set: &mut [bool]) {
        if i >= self.n {
            return;
        }
        set[i] = true;
        let row = &self.anc[i * self.words..(i + 1) * self.words];
        for (j, s) in set.iter_mut().enumerate() {
            if row[j / 64] >> (j % 64) & 1 == 1 {
                *s = true;
            }
        }
    }
}

/// What the pre-check derived for a query it could not reject: orderings every solution obeys.
/// The causal search ([`crate::mcr::search`]) runs an event only after the events it must
/// follow, and never runs an event forced out of the prefix.
pub struct Hints {
    /// Per event: events that must come before it (must-happen-before and derived; their own
    /// predecessors are listed with them, so checking these is enough).
    pub after: Vec<Vec<usize>>,
    /// Per event: it must stay out of the prefix.
    pub out: Vec<bool>,
}

/// The pre-check's answer.
pub enum Precheck {
    /// The query has no solution.
    Impossible,
    /// No contradiction found; what every solution obeys (`None`: nothing derived).
    Possible(Option<Hints>),
}

/// Where a read may take its value from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Src {
    /// The initial value.
    Init,
    /// The publish (flush, SC store or RMW) at this index.
    Mem(usize),
    /// The thread's own buffered store at this index (TSO/PSO).
    Fwd(usize),
}

impl Encoder<'_> {
    /// The closure of the trace's must-happen-before, computed on first use (`None` if it has a
    /// cycle, which a real trace never has).
    fn hb_order(&self) -> Option<&Order> {
        self.hb_order
            .get_or_init(|| {
                let mut ord = Order::new(&self.preds);
                ord.close().then_some(ord)
            })
            .as_ref()
    }

    /// Whether event `a` must happen before event `b` in every order of the trace's events
    /// (the closure of must-happen-before).
    pub(super) fn must_precede(&self, a: usize, b: usize) -> bool {
        self.hb_order().is_some_and(|o| o.before(a, b))
    }

    /// The pre-check of `target` (with the first `keep` events committed): `Impossible` when it
    /// certainly has no solution.
    pub(super) fn precheck_orders(&self, target: &Target, keep: usize) -> Precheck {
        let tr = self.trace;
        let n = tr.events.len();
        if self.preds.len() != n || n == 0 {
            return Precheck::Possible(None);
        }
        let Some(mut ord) = self.hb_order().cloned() else {
            return Precheck::Possible(None);
        };
        let mut inside = vec![false; n];
        let mut out_roots: Vec<usize> = Vec::new();
        let mut free_read = None;
        let mut fixed: Vec<(usize, Src)> = Vec::new();
        if target.event().is_some() {
            inside.iter_mut().take(keep.min(n)).for_each(|x| *x = true);
        }
        match *target {
            Target::Read { event: r, from, .. } => {
                let (r, from) = (r.index(), from.map(EventId::index));
                let Some(_) = tr.events.get(r).and_then(|e| e.kind.read()) else {
                    return Precheck::Possible(None);
                };
                // An RMW given a new value may write another value, which the reads of its cell
                // can then take: the sources below are the trace's writes only.
                if matches!(tr.events[r].kind, EventKind::Rmw { .. }) {
                    return Precheck::Possible(None);
                }
                free_read = Some(r);
                inside[r] = true;
                // The target's thread stops at its first step that depends on the new value.
                out_roots.extend(self.stop_after(r));
                let forwarded = tr.forwarded(from.map(EventId::new));
                let src = match from {
                    Some(s) if forwarded => Src::Fwd(s),
                    Some(p) => Src::Mem(p),
                    None => Src::Init,
                };
                fixed.push((r, src));
            }
            Target::Lock { event, .. } => {
                let event = event.index();
                if event >= n {
                    return Precheck::Possible(None);
                }
                inside[event] = true;
            }
            Target::Final { cell, value } => {
                inside.iter_mut().for_each(|x| *x = true);
                // Each cell up to `cell` ends with a given value: some publish of it with that
                // value is last, after every other publish of the cell.
                for (c, pubs) in self.publishes.iter().enumerate().take(cell as usize + 1) {
                    let want = if c == cell as usize {
                        value
                    } else {
                        pubs.last().map(|&(_, v)| v).unwrap_or(tr.init[c])
                    };
                    let last: Vec<usize> = pubs
                        .iter()
                        .filter(|&&(p, v)| {
                            v == want && !pubs.iter().any(|&(q, _)| q != p && ord.before(p, q))
                        })
                        .map(|&(p, _)| p)
                        .collect();
                    match last.as_slice() {
                        [] if pubs.is_empty() && tr.init.get(c) != Some(&want) => {
                            return Precheck::Impossible
                        }
                        [] if pubs.is_empty() => {}
                        [] => return Precheck::Impossible,
                        [p] => {
                            for &(q, _) in pubs {
                                if q != *p {
                                    ord.add(q, *p);
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        // Pending locks stay out of the prefix unless one is the target.
        out_roots.extend(
            (0..n).filter(|&j| tr.events[j].pending && target.event() != Some(EventId::new(j))),
        );
        let mut out = vec![false; n];
        for _round in 0..MAX_ROUNDS {
            if !ord.close() {
                return Precheck::Impossible;
            }
            // The prefix: what is forced in and everything before it; what is forced out and
            // everything after it.
            let roots: Vec<usize> = (0..n).filter(|&i| inside[i]).collect();
            for i in roots {
                ord.with_ancestors(i, &mut inside);
            }
            out = (0..n)
                .map(|j| out_roots.iter().any(|&o| o == j || ord.before(o, j)))
                .collect();
            if (0..n).any(|i| inside[i] && out[i]) {
                return Precheck::Impossible;
            }
            // Orderings implied by where the reads in the prefix take their values from.
            let mut grew = false;
            for &(x, src) in &fixed {
                grew |= self.order_source(&mut ord, x, src, &mut inside);
            }
            for (x, &ins) in inside.iter().enumerate().take(n) {
                if !ins || Some(x) == free_read || fixed.iter().any(|&(y, _)| y == x) {
                    continue;
                }
                let Some((cell, v)) = tr.events[x].kind.read() else {
                    continue;
                };
                let srcs = self.sources(&ord, x, cell, v, &out);
                match srcs.as_slice() {
                    [] => return Precheck::Impossible,
                    [s] => {
                        fixed.push((x, *s));
                        grew = true;
                    }
                    _ => {}
                }
            }
            if !grew {
                break;
            }
        }
        if !ord.close() {
            return Precheck::Impossible;
        }
        // What must-happen-before does not already say.
        let after = (0..n)
            .map(|b| {
                ord.preds[b]
                    .iter()
                    .copied()
                    .filter(|a| !self.preds[b].contains(a))
                    .collect()
            })
            .collect();
        Precheck::Possible(Some(Hints { after, out }))
    }

    /// Adds the orderings that read `x` taking its value from `src` implies; whether any was new.
    fn order_source(&self, ord: &mut Order, x: usize, src: Src, inside: &mut [bool]) -> bool {
        let tr = self.trace;
        let Some((cell, _)) = tr.events[x].kind.read() else {
            return false;
        };
        let pubs = self
            .publishes
            .get(cell as usize)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let mut grew = false;
        match src {
            Src::Fwd(s) => {
                // Still buffered: the store's flush comes after the read.
                if let Some(f) = self.flush_of.get(s).copied().flatten() {
                    grew |= ord.add(x, f);
                }
            }
            Src::Mem(_) | Src::Init => {
                // Reading memory: the own newest store to the cell is flushed before.
                if let Some(s) = self.own_store[x] {
                    if let Some(f) = self.flush_of[s] {
                        grew |= ord.add(f, x);
                        if !inside[f] {
                            inside[f] = true;
                            grew = true;
                        }
                    }
                }
                match src {
                    Src::Mem(p) => {
                        grew |= ord.add(p, x);
                        if !inside[p] {
                            inside[p] = true;
                            grew = true;
                        }
                        // Every other write to the cell comes before the source or after the read.
                        for &(q, _) in pubs {
                            if q == p || q == x {
                                continue;
                            }
                            if ord.before(p, q) {
                                grew |= ord.add(x, q);
                            } else if ord.before(q, x) {
                                grew |= ord.add(q, p);
                            }
                        }
                    }
                    _ => {
                        for &(q, _) in pubs {
                            if q != x {
                                grew |= ord.add(x, q);
                            }
                        }
                    }
                }
            }
        }
        grew
    }

    /// The possible sources of the value `v` that read `x` of `cell` keeps, given the orderings
    /// so far and the events forced out of the prefix.
    fn sources(&self, ord: &Order, x: usize, cell: u32, v: i64, out: &[bool]) -> Vec<Src> {
        let tr = self.trace;
        let mut found = Vec::new();
        let mut from_memory = true;
        if let Some(s) = self.own_store[x] {
            let sv = match tr.events[s].kind {
                EventKind::Store { value, .. } => Some(value),
                _ => None,
            };
            match self.flush_of[s] {
                None => {
                    from_memory = false;
                    if sv == Some(v) {
                        found.push(Src::Fwd(s));
                    }
                }
                Some(f) => {
                    if sv == Some(v) && !ord.before(f, x) {
                        found.push(Src::Fwd(s));
                    }
                    if ord.before(x, f) || out[f] {
                        from_memory = false;
                    }
                }
            }
        }
        if from_memory {
            let pubs = self
                .publishes
                .get(cell as usize)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            for &(p, pv) in pubs {
                // The scan for an overwriting publish last: most publishes fail the cheap tests.
                if p != x
                    && pv == v
                    && !out[p]
                    && !ord.before(x, p)
                    && !pubs
                        .iter()
                        .any(|&(q, _)| q != p && q != x && ord.before(p, q) && ord.before(q, x))
                {
                    found.push(Src::Mem(p));
                }
            }
            if tr.init.get(cell as usize) == Some(&v)
                && !pubs.iter().any(|&(q, _)| q != x && ord.before(q, x))
            {
                found.push(Src::Init);
            }
        }
        found
    }
}
