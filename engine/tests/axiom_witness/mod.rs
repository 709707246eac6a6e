//! A separate, simple checker of an axiomatic witness, written without the cat interpreter
//! or the engine's relations: the execution is well formed (each read reads a write of its
//! address and value; per address the coherence order starts with the initial write and
//! holds every write once) and satisfies the axiom every model of the project has, per
//! location sequential consistency (no cycle in po-loc, rf, co, fr), checked by brute force.

use litmus_engine::asm::Arch;
use litmus_engine::axiomatic::{Execution, Kind};

#[allow(clippy::needless_range_loop)]
pub fn recheck(_arch: Arch, x: &Execution) -> Result<(), String> {
    let ev = &x.events;
    let n = ev.len();
    for (i, e) in ev.iter().enumerate() {
        if e.kind == Kind::R {
            let srcs: Vec<_> = x.rf.iter().filter(|(_, r)| *r == i).collect();
            let [(w, _)] = srcs[..] else {
                return Err(format!("read {i} has {} rf sources", srcs.len()));
            };
            if ev[*w].kind != Kind::W || ev[*w].addr != e.addr || ev[*w].value != e.value {
                return Err(format!("read {i} reads from {w}, another address or value"));
            }
        }
    }
    let mut order = vec![vec![false; n]; n];
    for chain in &x.co {
        let Some(&first) = chain.first() else {
            return Err("empty coherence chain".into());
        };
        if ev[first].thread.is_some() {
            return Err(format!(
                "coherence of {} does not start with its initial write",
                ev[first].addr
            ));
        }
        let writes = ev
            .iter()
            .filter(|e| e.kind == Kind::W && e.addr == ev[first].addr)
            .count();
        if writes != chain.len() {
            return Err("a coherence chain misses a write".into());
        }
        for (i, &a) in chain.iter().enumerate() {
            for &b in &chain[i + 1..] {
                order[a][b] = true; // co
            }
        }
    }
    let co = order.clone();
    for &(w, r) in &x.rf {
        order[w][r] = true; // rf
        for b in 0..n {
            if co[w][b] {
                order[r][b] = true; // fr
            }
        }
    }
    for a in 0..n {
        for b in 0..n {
            let (ea, eb) = (&ev[a], &ev[b]);
            if ea.kind != Kind::F
                && eb.kind != Kind::F
                && ea.addr == eb.addr
                && ea.thread.is_some()
                && ea.thread == eb.thread
                && ea.po < eb.po
            {
                order[a][b] = true; // po-loc
            }
        }
    }
    for k in 0..n {
        for a in 0..n {
            if order[a][k] {
                for b in 0..n {
                    if order[k][b] {
                        order[a][b] = true;
                    }
                }
            }
        }
    }
    if let Some(a) = (0..n).find(|&a| order[a][a]) {
        return Err(format!("event {a} is on a cycle of po-loc | rf | co | fr"));
    }
    Ok(())
}
