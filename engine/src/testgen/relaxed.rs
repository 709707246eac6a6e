//! Programs shaped like the classic relaxed-memory tests (SB, MP, R, S, 2+2W) for robustness
//! and fence synthesis: conditions that only TSO or PSO reach.

use super::{Builder, Rng};
use crate::ast::*;

/// A random program shaped like the classic relaxed-memory tests (SB, MP, R, S, 2+2W and
/// their mixes): 2-3 threads of stores of 1 or 2 and loads into registers, over 2-3
/// locations, now and then inside an `if` or followed by a fence, with a condition over every
/// register asking for early values (mostly 0). Many of these conditions name a state only
/// TSO or PSO reaches, which is what robustness and fence synthesis are about.
pub fn relaxed_test(seed: u64) -> Test {
    let mut rng = Rng::new(seed ^ 0x5eed_f00d);
    let mut b = Builder::new();
    let nvars = 2 + rng.below(2) as usize;
    let names = ["x", "y", "z"];
    let shared: Vec<SharedDecl> = (0..nvars).map(|i| b.shared(names[i], 0)).collect();
    let nthreads = if rng.chance(70) { 2 } else { 3 };
    let mut threads = Vec::new();
    let mut regs_of: Vec<Vec<String>> = Vec::new();
    for t in 0..nthreads {
        let mut regs: Vec<String> = Vec::new();
        let n = 2 + rng.below(2) as usize;
        let mut body = Vec::new();
        // Start with a store more often than not: store-then-load is what TSO relaxes.
        let first = if rng.chance(80) {
            t % nvars
        } else {
            rng.below(nvars as u64) as usize
        };
        for i in 0..n {
            let var = if i == 0 {
                first
            } else if rng.chance(85) {
                // Mostly another thread's location: the SB / MP / R shapes.
                (first + 1 + rng.below(nvars as u64 - 1) as usize) % nvars
            } else {
                rng.below(nvars as u64) as usize
            };
            let s = if (i == 0 && rng.chance(85)) || (i > 0 && rng.chance(35)) {
                let v = b.int(1);
                b.store(var, v)
            } else {
                let e = b.load(var);
                let r = format!("r{}", regs.len());
                regs.push(r.clone());
                b.assign(&r, e)
            };
            let s = if rng.chance(12) {
                let cond = b.int(1);
                b.stmt(StmtKind::If {
                    cond,
                    then_body: vec![s],
                    else_body: vec![],
                })
            } else {
                s
            };
            body.push(s);
            if i + 1 < n && rng.chance(6) {
                body.push(b.stmt(StmtKind::Fence));
            }
        }
        threads.push(b.thread(&format!("P{t}"), body));
        regs_of.push(regs);
    }
    let mut atoms = Vec::new();
    for (t, regs) in regs_of.iter().enumerate() {
        for r in regs {
            if !rng.chance(65) {
                continue;
            }
            let lhs = b.treg(t, r);
            let v = b.int(if rng.chance(85) { 0 } else { 1 });
            atoms.push(b.bin(BinOp::Eq, lhs, v));
        }
    }
    if atoms.is_empty() || rng.chance(20) {
        let var = rng.below(nvars as u64) as usize;
        let lhs = b.load(var);
        let v = b.int(1);
        atoms.push(b.bin(BinOp::Eq, lhs, v));
    }
    let mut e = atoms.remove(0);
    for a in atoms {
        e = b.bin(BinOp::And, e, a);
    }
    let condition = match rng.below(10) {
        0..=4 => b.condition(Quantifier::Exists, e),
        5..=7 => b.condition(Quantifier::NotExists, e),
        _ => {
            let e = b.not(e);
            b.condition(Quantifier::Forall, e)
        }
    };
    b.test(
        &format!("Relaxed{seed}"),
        shared,
        vec![],
        threads,
        Some(condition),
    )
}
