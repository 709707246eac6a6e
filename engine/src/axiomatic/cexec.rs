//! Candidate executions of a C test: one path per thread ([`super::cthread`]), every
//! reads-from, and per observed location every choice of its final write (herd's
//! `fold_mem_finals`); each candidate's base sets and relations go to the model, which
//! chooses the coherence order itself (`with co from ...`, from the host's `co0`: per
//! location the initial write first and the final write last). Candidates that uniproc
//! forbids whatever the model chooses (a read of a later write of its own thread, of a
//! write its own thread overwrote before it, a final write its own thread overwrites) are
//! not built.

use super::cthread::{CEvent, CKind, CPath};
use crate::cat::rel::{Rel, Set};
use crate::cat::{tag_set_name, Env, Value};
use std::collections::BTreeSet;

/// Sets herd's C front end always defines (empty when no event is one).
pub const C_SETS: [&str; 6] = ["LKR", "LKW", "UL", "LF", "RL", "RU"];

/// The part of a candidate fixed by one path per thread.
pub struct CSkeleton {
    pub events: Vec<CEvent>,
    pub env: Env,
    /// Per read (`R` or `U`), the writes it may read from.
    pub sources: Vec<(usize, Vec<usize>)>,
    /// Per location (by its initial write): its other writes.
    pub writes: Vec<(usize, Vec<usize>)>,
    /// Per observed location (by its initial write): the writes that may be its final one.
    pub finals: Vec<(usize, Vec<usize>)>,
}

fn same_thread(ev: &[CEvent], a: usize, b: usize) -> bool {
    ev[a].thread.is_some() && ev[a].thread == ev[b].thread
}

fn po_before(ev: &[CEvent], a: usize, b: usize) -> bool {
    same_thread(ev, a, b) && ev[a].po < ev[b].po
}

/// The skeleton of one combination of paths; `None` when some read has no write to read
/// from, or there are more events than the interpreter takes. `init`: per location, its
/// address, initial value and whether it is observed.
pub fn c_skeleton(
    init: &[(i64, i64, bool)],
    paths: &[&CPath],
    variants: &BTreeSet<String>,
) -> Option<CSkeleton> {
    let mut events: Vec<CEvent> = init
        .iter()
        .map(|&(addr, v, _)| CEvent {
            thread: None,
            kind: CKind::W,
            addr,
            read: 0,
            write: v,
            po: 0,
            tags: vec!["IW".into()],
            atomic: false,
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
    env.variants = variants.clone();
    let set = |f: &dyn Fn(&CEvent) -> bool| -> Set {
        events
            .iter()
            .enumerate()
            .filter(|(_, e)| f(e))
            .fold(0, |s, (i, _)| s | 1 << i)
    };
    let r = set(&|e| e.reads());
    let w = set(&|e| e.writes());
    let lk = set(&|e| e.kind == CKind::Lock);
    for (name, s) in [
        ("R", r),
        ("W", w),
        ("M", r | w | lk),
        ("F", set(&|e| e.kind == CKind::F)),
        ("RMW", set(&|e| e.atomic)),
    ] {
        env.vars.insert(name.into(), Value::Set(s));
    }
    let mut tags: Vec<&str> = events
        .iter()
        .flat_map(|e| e.tags.iter().map(String::as_str))
        .collect();
    tags.sort();
    tags.dedup();
    for t in tags {
        let name = if t == "IW" || C_SETS.contains(&t) {
            t.to_string()
        } else {
            tag_set_name(t)
        };
        env.vars
            .insert(name, Value::Set(set(&|e| e.tags.iter().any(|x| x == t))));
    }
    // and the C11 memory orders' sets (herd's `CAction.arch_sets`), which RC11 reads
    for name in C_SETS.iter().chain(&["IW"]).chain(&super::C11_ORDER_SETS) {
        env.vars.entry(name.to_string()).or_insert(Value::Set(0));
    }
    let mut po = Rel::empty(n);
    let (mut loc, mut int, mut id, mut ext) =
        (Rel::empty(n), Rel::empty(n), Rel::empty(n), Rel::empty(n));
    for a in 0..n {
        id.add(a, a);
        for b in 0..n {
            let (ea, eb) = (&events[a], &events[b]);
            if ea.kind != CKind::F && eb.kind != CKind::F && ea.addr == eb.addr {
                loc.add(a, b);
            }
            if same_thread(&events, a, b) {
                int.add(a, b);
                if ea.po < eb.po {
                    po.add(a, b);
                }
            } else if a != b {
                ext.add(a, b);
            }
        }
    }
    let local =
        |f: &dyn Fn(&CPath) -> &Vec<(usize, usize)>| super::exec::placed(n, paths, &offsets, f);
    for (name, rel) in [
        ("addr", local(&|p| &p.addr)),
        ("data", local(&|p| &p.data)),
        ("ctrl", local(&|p| &p.ctrl)),
        ("rmw", local(&|p| &p.rmw)),
        ("po", po),
        ("loc", loc),
        ("int", int),
        ("ext", ext),
        ("id", id),
    ] {
        env.vars.insert(name.into(), Value::Rel(rel));
    }
    env.values = events
        .iter()
        .map(|e| match e.kind {
            CKind::W => Some(e.write),
            CKind::R | CKind::U | CKind::Srcu => Some(e.read),
            _ => None,
        })
        .collect();
    let is_write = |j: usize, addr: i64| events[j].writes() && events[j].addr == addr;
    let mut sources = Vec::new();
    for i in 0..n {
        if !events[i].reads() {
            continue;
        }
        let a = events[i].addr;
        // the last write of its own thread before it, if any
        let own = (0..n)
            .filter(|&j| j != i && is_write(j, a) && po_before(&events, j, i))
            .max_by_key(|&j| events[j].po);
        let s: Vec<usize> = (0..n)
            .filter(|&j| j != i && is_write(j, a) && events[j].write == events[i].read)
            .filter(|&j| match own {
                Some(o) => j == o || !(same_thread(&events, i, j) || j < init.len()),
                None => !same_thread(&events, i, j),
            })
            .collect();
        if s.is_empty() {
            return None;
        }
        sources.push((i, s));
    }
    let writes: Vec<(usize, Vec<usize>)> = (0..init.len())
        .map(|i| {
            let a = events[i].addr;
            (i, (init.len()..n).filter(|&j| is_write(j, a)).collect())
        })
        .collect();
    let finals = writes
        .iter()
        .filter(|(i, _)| init[*i].2)
        .map(|(i, ws)| {
            if ws.is_empty() {
                return (*i, vec![*i]);
            }
            let last = ws
                .iter()
                .copied()
                .filter(|&w| !ws.iter().any(|&o| po_before(&events, w, o)))
                .collect();
            (*i, last)
        })
        .collect();
    Some(CSkeleton {
        events,
        env,
        sources,
        writes,
        finals,
    })
}

/// The environment of one candidate: the skeleton's with `rf`, `co0` and `FW`.
pub fn c_candidate_env(sk: &CSkeleton, rf: &[(usize, usize)], fw: &[usize]) -> Env {
    let mut env = sk.env.clone();
    let n = env.n;
    let mut rfr = Rel::empty(n);
    for &(w, r) in rf {
        rfr.add(w, r);
    }
    let mut co0 = Rel::empty(n);
    for (i, ws) in &sk.writes {
        for &w in ws {
            co0.add(*i, w);
        }
        if let Some(&f) = fw
            .iter()
            .find(|&&f| sk.events[f].addr == sk.events[*i].addr)
        {
            for &w in ws.iter().filter(|&&w| w != f) {
                co0.add(w, f);
            }
        }
    }
    let fws: Set = fw.iter().fold(0, |s, &f| s | 1 << f);
    env.vars.insert("FW".into(), Value::Set(fws));
    env.vars.insert("rf".into(), Value::Rel(rfr));
    env.vars.insert("co0".into(), Value::Rel(co0));
    env
}

/// Whether every value the candidate's reads take is as herd's solver leaves it: a read
/// whose value only a cycle of reads-from and data dependencies determines (out of thin
/// air) takes herd's unsolved symbol, [`super::ccheck::SYMBOLIC`], and any other read a
/// concrete value.
pub fn values_grounded(sk: &CSkeleton, rf: &[(usize, usize)], symbolic: i64) -> bool {
    let ev = &sk.events;
    let data = match sk.env.vars.get("data") {
        Some(Value::Rel(r)) => r.clone(),
        _ => Rel::empty(ev.len()),
    };
    let inv = data.inverse();
    let src: Vec<(usize, usize)> = rf.iter().map(|&(w, r)| (r, w)).collect();
    let mut grounded: Set = 0;
    loop {
        let mut changed = false;
        for &(r, w) in &src {
            if grounded >> r & 1 == 1 {
                continue;
            }
            let mut deps = inv.rows[w];
            if ev[w].kind == CKind::U {
                deps |= 1 << w;
            }
            if ev[w].thread.is_none() || deps & !grounded == 0 {
                grounded |= 1 << r;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    src.iter()
        .all(|&(r, _)| (grounded >> r & 1 == 1) == (ev[r].read != symbolic))
}

/// Whether the candidate keeps coherence where its own thread decides: a read after the
/// final write in its thread reads it.
pub fn finals_coherent(sk: &CSkeleton, rf: &[(usize, usize)], fw: &[usize]) -> bool {
    let ev = &sk.events;
    rf.iter().all(|&(w, r)| {
        fw.iter()
            .all(|&f| ev[f].addr != ev[r].addr || w == f || !po_before(ev, f, r))
    })
}
