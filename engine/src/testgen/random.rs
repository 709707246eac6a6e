//! Seeded random tests: small programs over a few locations, registers and threads, and
//! the shapes of the classic relaxed-memory tests (SB, MP, R, S, 2+2W) for robustness and fences.

use super::{Builder, Rng};
use crate::ast::*;

/// What [`random_test_with`] may generate beyond the basics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GenConfig {
    /// `await(x == v)` statements (may deadlock).
    pub awaits: bool,
    /// An array `a[2]` indexed by registers (may go out of bounds), and divisions by
    /// registers (may divide by zero).
    pub arrays: bool,
}

impl GenConfig {
    /// Everything on.
    pub fn all() -> GenConfig {
        GenConfig {
            awaits: true,
            arrays: true,
        }
    }
}

/// A random small well-formed test: 2-4 threads over 2-3 locations with stores, loads,
/// fences, RMWs, branches, assertions and occasionally a lock, an `assume` or a loop.
pub fn random_test(seed: u64) -> Test {
    random_test_with(seed, GenConfig::default())
}

/// [`random_test`] with optional awaits, arrays and divisions.
pub fn random_test_with(seed: u64, cfg: GenConfig) -> Test {
    let mut rng = Rng::new(seed);
    let mut b = Builder::new();
    let nvars = 2 + rng.below(2) as usize;
    let names = ["x", "y", "z"];
    let mut shared: Vec<SharedDecl> = (0..nvars).map(|i| b.shared(names[i], 0)).collect();
    if cfg.arrays {
        shared.push(b.array("a", vec![0, 0]));
    }
    let ctx = Ctx {
        nvars,
        array: cfg.arrays.then_some(nvars),
        awaits: cfg.awaits,
    };
    let use_mutex = rng.chance(15);
    let mutexes = if use_mutex { vec![b.name("m")] } else { vec![] };
    let nthreads = 2 + rng.below(3) as usize;
    // Keep the state space small enough for the exhaustive oracle.
    let max_stmts = if nthreads >= 4 { 3 } else { 4 };
    let mut threads = Vec::new();
    let mut regs_of: Vec<Vec<String>> = Vec::new();
    for t in 0..nthreads {
        let mut regs: Vec<String> = Vec::new();
        let n = 1 + rng.below(max_stmts) as usize;
        let mut body = Vec::new();
        for _ in 0..n {
            body.push(random_stmt(&mut rng, &mut b, &ctx, &mut regs, &mutexes, 1));
        }
        threads.push(b.thread(&format!("P{t}"), body));
        regs_of.push(regs);
    }
    // Condition over a few registers and locations.
    let condition = if rng.chance(85) {
        let mut atoms = Vec::new();
        for (t, regs) in regs_of.iter().enumerate() {
            if let Some(r) = regs.first() {
                if rng.chance(70) {
                    let lhs = b.treg(t, r);
                    let v = b.int(rng.below(3) as i64);
                    atoms.push(b.bin(BinOp::Eq, lhs, v));
                }
            }
        }
        if atoms.is_empty() || rng.chance(30) {
            let var = rng.below(nvars as u64) as usize;
            let lhs = b.load(var);
            let v = b.int(rng.below(3) as i64);
            atoms.push(b.bin(BinOp::Eq, lhs, v));
        }
        let mut e = atoms.remove(0);
        for a in atoms {
            let op = if rng.chance(75) {
                BinOp::And
            } else {
                BinOp::Or
            };
            e = b.bin(op, e, a);
        }
        let q = match rng.below(3) {
            0 => Quantifier::Exists,
            1 => Quantifier::Forall,
            _ => Quantifier::NotExists,
        };
        Some(b.condition(q, e))
    } else {
        None
    };
    b.test(&format!("Rand{seed}"), shared, mutexes, threads, condition)
}

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
        let first = if rng.chance(80) { t % nvars } else { rng.below(nvars as u64) as usize };
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
                b.stmt(StmtKind::If { cond, then_body: vec![s], else_body: vec![] })
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
    b.test(&format!("Relaxed{seed}"), shared, vec![], threads, Some(condition))
}

fn small_value(rng: &mut Rng, b: &mut Builder, regs: &[String]) -> Expr {
    if !regs.is_empty() && rng.chance(25) {
        let r = &regs[rng.below(regs.len() as u64) as usize];
        let e = b.reg(r);
        let one = b.int(1);
        b.bin(BinOp::Add, e, one)
    } else {
        b.int(1 + rng.below(2) as i64)
    }
}

fn new_reg(regs: &mut Vec<String>) -> String {
    let r = format!("r{}", regs.len());
    regs.push(r.clone());
    r
}

struct Ctx {
    nvars: usize,
    /// Index of the array `a[2]` in the shared declarations, if any.
    array: Option<usize>,
    awaits: bool,
}

fn random_stmt(
    rng: &mut Rng,
    b: &mut Builder,
    ctx: &Ctx,
    regs: &mut Vec<String>,
    mutexes: &[Name],
    depth: u32,
) -> Stmt {
    let nvars = ctx.nvars;
    let var = rng.below(nvars as u64) as usize;
    if let Some(arr) = ctx.array {
        if rng.chance(12) {
            // a[i] = v or r = a[i] with i a register (0..) or a literal.
            let ix = if !regs.is_empty() && rng.chance(60) {
                let r = regs[rng.below(regs.len() as u64) as usize].clone();
                b.reg(&r)
            } else {
                b.int(rng.below(2) as i64)
            };
            return if rng.chance(50) {
                let v = small_value(rng, b, regs);
                let loc = b.loc_at(arr, ix);
                b.stmt(StmtKind::Store { loc, value: v })
            } else {
                let e = b.load_at(arr, ix);
                let r = new_reg(regs);
                b.assign(&r, e)
            };
        }
        if !regs.is_empty() && rng.chance(5) {
            // r = 2 / r'
            let r = regs[rng.below(regs.len() as u64) as usize].clone();
            let (two, d) = (b.int(2), b.reg(&r));
            let e = b.bin(BinOp::Div, two, d);
            let dst = new_reg(regs);
            return b.assign(&dst, e);
        }
    }
    if ctx.awaits && rng.chance(6) {
        let l = b.load(var);
        let v = b.int(1 + rng.below(2) as i64);
        let c = b.bin(BinOp::Eq, l, v);
        return b.stmt(StmtKind::Await(c));
    }
    match rng.below(100) {
        0..=34 => {
            let v = small_value(rng, b, regs);
            b.store(var, v)
        }
        35..=64 => {
            let e = b.load(var);
            let r = new_reg(regs);
            b.assign(&r, e)
        }
        65..=71 => b.stmt(StmtKind::Fence),
        72..=79 => {
            let op = match rng.below(3) {
                0 => RmwOp::Xchg,
                1 => RmwOp::Cas,
                _ => RmwOp::FetchAdd,
            };
            let args = match op {
                RmwOp::Cas => vec![b.int(rng.below(2) as i64), b.int(1 + rng.below(2) as i64)],
                _ => vec![b.int(1 + rng.below(2) as i64)],
            };
            let r = new_reg(regs);
            b.rmw(Some(&r), op, var, args)
        }
        80..=88 if depth > 0 => {
            let c = if !regs.is_empty() && rng.chance(60) {
                let r = regs[rng.below(regs.len() as u64) as usize].clone();
                b.reg(&r)
            } else {
                b.load(var)
            };
            let v = b.int(rng.below(2) as i64);
            let cond = b.bin(BinOp::Eq, c, v);
            let then_body = vec![random_stmt(rng, b, ctx, regs, mutexes, depth - 1)];
            let else_body = if rng.chance(40) {
                vec![random_stmt(rng, b, ctx, regs, mutexes, depth - 1)]
            } else {
                vec![]
            };
            b.stmt(StmtKind::If {
                cond,
                then_body,
                else_body,
            })
        }
        89..=93 if !regs.is_empty() => {
            let r = regs[rng.below(regs.len() as u64) as usize].clone();
            let e = b.reg(&r);
            let v = b.int(rng.below(3) as i64);
            let cond = b.bin(BinOp::Ne, e, v);
            if rng.chance(75) {
                b.stmt(StmtKind::Assert(cond))
            } else {
                b.stmt(StmtKind::Assume(cond))
            }
        }
        94..=96 if depth > 0 => {
            // while (x == 0 && i < 2) { i = i + 1; }: a short bounded spin.
            let r = new_reg(regs);
            let l = b.load(var);
            let zero = b.int(0);
            let c1 = b.bin(BinOp::Eq, l, zero);
            let i = b.reg(&r);
            let two = b.int(2);
            let c2 = b.bin(BinOp::Lt, i, two);
            let cond = b.bin(BinOp::And, c1, c2);
            let i2 = b.reg(&r);
            let one = b.int(1);
            let inc = b.bin(BinOp::Add, i2, one);
            let body = vec![b.assign(&r, inc)];
            b.stmt(StmtKind::While { cond, body })
        }
        97..=99 if !mutexes.is_empty() && depth > 0 => {
            // lock(m); <stmt>; unlock(m); as an if(1) block so it stays one statement.
            let inner = random_stmt(rng, b, ctx, regs, mutexes, 0);
            let body = vec![b.lock(0, mutexes), inner, b.unlock(0, mutexes)];
            let cond = b.int(1);
            b.stmt(StmtKind::If {
                cond,
                then_body: body,
                else_body: vec![],
            })
        }
        _ => {
            let v = small_value(rng, b, regs);
            b.store(var, v)
        }
    }
}
