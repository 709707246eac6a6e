//! Candidate executions: one path per thread, then every reads-from (a read takes its value
//! from a write of the same address and value, the initial writes included) and every
//! coherence order (per address, the initial write first); each candidate's base sets and
//! relations go to the cat interpreter.

use super::thread::Path;
use super::{Event, Kind};
use crate::cat::rel::{Rel, Set};
use crate::cat::{Env, Value};

/// One candidate: its events (initial writes first) and its rf and co.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub events: Vec<Event>,
    /// (write, read) pairs.
    pub rf: Vec<(usize, usize)>,
    /// Per address, its writes in coherence order (the initial write first).
    pub co: Vec<Vec<usize>>,
    /// The path each thread took (index into its list of paths).
    pub paths: Vec<usize>,
}

/// The candidate-independent part of one combination of paths.
pub struct Skeleton {
    pub events: Vec<Event>,
    pub env: Env,
    /// Per read, the writes it may read from.
    pub sources: Vec<(usize, Vec<usize>)>,
    /// Per address, its initial write and its other writes.
    pub writes: Vec<(usize, Vec<usize>)>,
}

/// A relation among each thread's own events (a dependency, `rmw`), given per path in its
/// own indices, placed at the path's offset among the candidate's `n` events.
pub(super) fn placed<P>(
    n: usize,
    paths: &[&P],
    offsets: &[usize],
    pairs: &dyn Fn(&P) -> &Vec<(usize, usize)>,
) -> Rel {
    let mut r = Rel::empty(n);
    for (p, off) in paths.iter().zip(offsets) {
        for &(a, b) in pairs(p) {
            r.add(a + off, b + off);
        }
    }
    r
}

/// The skeleton of the combination `paths` (one per thread), or `None` if some read has no
/// write to read from, or there are more events than the interpreter takes.
pub fn skeleton(init: &[(i64, i64)], paths: &[&Path]) -> Option<Skeleton> {
    let mut events: Vec<Event> = init
        .iter()
        .map(|&(addr, value)| Event {
            thread: None,
            kind: Kind::W,
            addr,
            value,
            po: 0,
            tags: vec!["IW"],
        })
        .collect();
    let mut offsets = Vec::new();
    for p in paths {
        offsets.push(events.len());
        events.extend(p.events.iter().cloned());
    }
    let n = events.len();
    if n > crate::cat::rel::MAX_EVENTS {
        return None;
    }
    let mut env = Env::new(n);
    let set = |f: &dyn Fn(&Event) -> bool| -> Set {
        events
            .iter()
            .enumerate()
            .filter(|(_, e)| f(e))
            .fold(0, |s, (i, _)| s | 1 << i)
    };
    let r = set(&|e| e.kind == Kind::R);
    let w = set(&|e| e.kind == Kind::W);
    for (name, s) in [
        ("R", r),
        ("W", w),
        ("M", r | w),
        ("F", set(&|e| e.kind == Kind::F)),
    ] {
        env.vars.insert(name.into(), Value::Set(s));
    }
    let mut tags: Vec<&str> = events.iter().flat_map(|e| e.tags.iter().copied()).collect();
    tags.extend(super::KNOWN_TAGS);
    tags.sort();
    tags.dedup();
    for t in tags {
        env.vars
            .insert(t.into(), Value::Set(set(&|e| e.tags.contains(&t))));
    }
    let mut po = Rel::empty(n);
    let (mut loc, mut int, mut id) = (Rel::empty(n), Rel::empty(n), Rel::empty(n));
    for a in 0..n {
        id.add(a, a);
        for b in 0..n {
            let (ea, eb) = (&events[a], &events[b]);
            if ea.kind != Kind::F && eb.kind != Kind::F && ea.addr == eb.addr {
                loc.add(a, b);
            }
            if ea.thread.is_some() && ea.thread == eb.thread {
                int.add(a, b);
                if ea.po < eb.po {
                    po.add(a, b);
                }
            }
        }
    }
    let mut ext = Rel::empty(n);
    for a in 0..n {
        ext.rows[a] = !int.rows[a] & env.universe() & !(1 << a);
    }
    let local = |f: &dyn Fn(&Path) -> &Vec<(usize, usize)>| placed(n, paths, &offsets, f);
    for (name, rel) in [
        ("addr", local(&|p| &p.addr)),
        ("data", local(&|p| &p.data)),
        ("ctrl", local(&|p| &p.ctrl)),
        ("rmw", local(&|p| &p.rmw)),
        ("pick", local(&|p| &p.pick)),
        ("pick-addr", local(&|p| &p.pick_addr)),
        ("pick-data", local(&|p| &p.pick_data)),
        ("pick-ctrl", local(&|p| &p.pick_ctrl)),
        ("po-loc", po.zip(&loc, |x, y| x & y)),
        ("po", po),
        ("loc", loc),
        ("int", int),
        ("ext", ext),
        ("id", id),
    ] {
        env.vars.insert(name.into(), Value::Rel(rel));
    }
    let mut sources = Vec::new();
    for i in 0..n {
        if events[i].kind == Kind::R {
            let s: Vec<usize> = (0..n)
                .filter(|&j| {
                    events[j].kind == Kind::W
                        && events[j].addr == events[i].addr
                        && events[j].value == events[i].value
                })
                .collect();
            if s.is_empty() {
                return None;
            }
            sources.push((i, s));
        }
    }
    let writes = (0..init.len())
        .map(|i| {
            let others = (init.len()..n)
                .filter(|&j| events[j].kind == Kind::W && events[j].addr == events[i].addr)
                .collect();
            (i, others)
        })
        .collect();
    Some(Skeleton {
        events,
        env,
        sources,
        writes,
    })
}

/// What [`each_candidate`] calls with each candidate's rf pairs and co chains.
pub type Visit<'a> = dyn FnMut(&[(usize, usize)], &[Vec<usize>]) -> bool + 'a;

/// Whether `a` is before `b` in program order (same thread).
fn po_before(ev: &[Event], a: usize, b: usize) -> bool {
    ev[a].thread.is_some() && ev[a].thread == ev[b].thread && ev[a].po < ev[b].po
}

/// Whether the candidate is coherent: per address, po-loc, rf, co and fr have no cycle.
fn coherent(ev: &[Event], rf: &[(usize, usize)], co: &[Vec<usize>]) -> bool {
    let n = ev.len();
    let mut r = Rel::empty(n);
    let mut rank = vec![usize::MAX; n];
    for order in co {
        for (i, &w) in order.iter().enumerate() {
            rank[w] = i;
            for &b in &order[i + 1..] {
                r.add(w, b);
            }
        }
    }
    for &(w, rd) in rf {
        r.add(w, rd);
        for order in co {
            if order.contains(&w) {
                order[rank[w] + 1..].iter().for_each(|&b| r.add(rd, b));
            }
        }
    }
    for a in 0..n {
        for b in 0..n {
            if ev[a].kind != Kind::F && ev[a].addr == ev[b].addr && po_before(ev, a, b) {
                r.add(a, b);
            }
        }
    }
    r.cycle().is_none()
}

/// Calls `f` on every (rf, co) of the skeleton; `f` returns false to stop. With `uniproc`
/// (the model requires `acyclic po-loc | rf | co | fr`), the candidates that break it are
/// left out before the model runs: co orders against program order, reads of a later write
/// of their own thread, and any other incoherent candidate. `stop` is polled at each candidate
/// left out (`f` polls it for the others), so a check stops at its deadline however few of
/// the candidates are coherent.
pub fn each_candidate(
    sk: &Skeleton,
    uniproc: bool,
    stop: &dyn Fn() -> bool,
    f: &mut Visit,
) -> bool {
    let ev = &sk.events;
    let sources: Vec<(usize, Vec<usize>)> = sk
        .sources
        .iter()
        .map(|(r, ws)| {
            let ws = ws
                .iter()
                .copied()
                .filter(|&w| !uniproc || !po_before(ev, *r, w))
                .collect();
            (*r, ws)
        })
        .collect();
    if sources.iter().any(|(_, ws)| ws.is_empty()) {
        return true;
    }
    let mut choice = vec![0usize; sources.len()];
    let mut orders: Vec<Vec<Vec<usize>>> = sk
        .writes
        .iter()
        .map(|(init, ws)| {
            permutations(ws)
                .into_iter()
                .filter(|p| {
                    !uniproc
                        || p.iter()
                            .enumerate()
                            .all(|(i, &a)| p[i + 1..].iter().all(|&b| !po_before(ev, b, a)))
                })
                .map(|p| std::iter::once(*init).chain(p).collect())
                .collect()
        })
        .collect();
    orders.iter_mut().for_each(|o| o.sort());
    let mut co_choice = vec![0usize; orders.len()];
    loop {
        let rf: Vec<(usize, usize)> = sources
            .iter()
            .zip(&choice)
            .map(|((r, ws), c)| (ws[*c], *r))
            .collect();
        loop {
            let co: Vec<Vec<usize>> = orders
                .iter()
                .zip(&co_choice)
                .map(|(o, c)| o[*c].clone())
                .collect();
            if uniproc && !coherent(ev, &rf, &co) {
                if stop() {
                    return false;
                }
            } else if !f(&rf, &co) {
                return false;
            }
            if !odometer(&mut co_choice, |i| orders[i].len()) {
                break;
            }
        }
        if !odometer(&mut choice, |i| sources[i].1.len()) {
            return true;
        }
    }
}

/// Advances a mixed-radix counter; false when it wrapped around.
pub fn odometer(c: &mut [usize], radix: impl Fn(usize) -> usize) -> bool {
    for (i, d) in c.iter_mut().enumerate() {
        *d += 1;
        if *d < radix(i) {
            return true;
        }
        *d = 0;
    }
    false
}

fn permutations(v: &[usize]) -> Vec<Vec<usize>> {
    if v.len() <= 1 {
        return vec![v.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..v.len() {
        let mut rest = v.to_vec();
        let x = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, x);
            out.push(p);
        }
    }
    out
}

/// The environment of one candidate: the skeleton's plus rf, co, fr and their internal and
/// external parts.
pub fn candidate_env(sk: &Skeleton, rf: &[(usize, usize)], co: &[Vec<usize>]) -> Env {
    let mut env = sk.env.clone();
    let n = env.n;
    let mut rfr = Rel::empty(n);
    for &(w, r) in rf {
        rfr.add(w, r);
    }
    let mut cor = Rel::empty(n);
    for order in co {
        for (i, &a) in order.iter().enumerate() {
            for &b in &order[i + 1..] {
                cor.add(a, b);
            }
        }
    }
    let fr = rfr.inverse().seq(&cor);
    let get = |name: &str| match env.vars.get(name) {
        Some(Value::Rel(r)) => r.clone(),
        _ => Rel::empty(n),
    };
    let (int, ext) = (get("int"), get("ext"));
    for (name, r) in [("rf", rfr), ("co", cor), ("fr", fr)] {
        env.vars
            .insert(format!("{name}i"), Value::Rel(r.zip(&int, |x, y| x & y)));
        env.vars
            .insert(format!("{name}e"), Value::Rel(r.zip(&ext, |x, y| x & y)));
        env.vars.insert(name.into(), Value::Rel(r));
    }
    env
}
