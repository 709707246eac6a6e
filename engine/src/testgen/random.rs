//! The random program generator: seeded small programs over every construct of the native
//! language (`docs/reference.md#native`), in proportions a [`GenConfig`] sets. Every sweep of
//! the engines against the reference explorer draws its programs here; [`super::coverage`]
//! says which constructs a program has.

use super::config::GenConfig;
use super::{Builder, Rng};
use crate::ast::*;

mod loops;

/// A random program of the plain setting ([`GenConfig::plain`]).
pub fn random_test(seed: u64) -> Test {
    random_test_with(seed, GenConfig::plain())
}

/// A random program drawn as `cfg` says; the same seed and setting give the same program.
pub fn random_test_with(seed: u64, cfg: GenConfig) -> Test {
    let mut g = Gen {
        rng: Rng::new(seed),
        b: Builder::new(),
        cfg,
        nvars: 0,
        array: None,
        mutexes: Vec::new(),
        regs: Vec::new(),
    };
    g.nvars = 2 + g.rng.below(2) as usize;
    let names = ["x", "y", "z"];
    let mut shared = Vec::new();
    for name in names.iter().take(g.nvars) {
        let init = if g.rng.chance(10) { 1 } else { 0 };
        shared.push(g.b.shared(name, init));
    }
    if cfg.arrays {
        let init = if g.rng.chance(20) {
            vec![1, 0]
        } else {
            vec![0, 0]
        };
        shared.push(g.b.array("a", init));
        g.array = Some(g.nvars);
    }
    if cfg.mutexes > 0 && g.rng.chance(cfg.mutex_chance) {
        let n = if cfg.mutexes >= 2 && g.rng.chance(85) {
            2
        } else {
            1
        };
        g.mutexes = ["m", "n"][..n].iter().map(|m| g.b.name(m)).collect();
    }
    let (lo, hi) = cfg.threads;
    let nthreads = lo + g.rng.below((hi.saturating_sub(lo) + 1) as u64) as usize;
    let max_stmts = if nthreads >= 4 {
        cfg.stmts - 1
    } else {
        cfg.stmts
    }
    .max(1);
    let mut threads = Vec::new();
    let mut regs_of = Vec::new();
    for t in 0..nthreads {
        g.regs.clear();
        let n = 1 + g.rng.below(max_stmts as u64) as usize;
        let mut body = Vec::new();
        for _ in 0..n {
            body.extend(g.stmt(2, false));
        }
        threads.push(g.b.thread(&format!("P{t}"), body));
        regs_of.push(std::mem::take(&mut g.regs));
    }
    let condition = g
        .rng
        .chance(cfg.condition_chance)
        .then(|| g.condition(&regs_of));
    let mutexes = std::mem::take(&mut g.mutexes);
    g.b.test(&format!("Rand{seed}"), shared, mutexes, threads, condition)
}

struct Gen {
    rng: Rng,
    b: Builder,
    cfg: GenConfig,
    /// Scalars `x`, `y`, `z` are shared declarations `0..nvars`.
    nvars: usize,
    /// The declaration index of the array `a[2]`.
    array: Option<usize>,
    mutexes: Vec<Name>,
    /// The current thread's registers so far.
    regs: Vec<String>,
}

#[derive(Clone, Copy)]
enum Kind {
    Store,
    Load,
    Fence,
    Rmw,
    Lock,
    Await,
    Assume,
    Assert,
    Branch,
    WhileReg,
    WhileMem,
    WhileSpin,
}

impl Gen {
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.rng.below(xs.len() as u64) as usize]
    }

    fn kind(&mut self, depth: u32, in_lock: bool) -> Kind {
        let w = self.cfg.weights;
        let nested = depth > 0;
        let table = [
            (Kind::Store, w.store),
            (Kind::Load, w.load),
            (Kind::Fence, w.fence),
            (Kind::Rmw, w.rmw),
            (
                Kind::Lock,
                if self.mutexes.is_empty() || in_lock || !nested {
                    0
                } else {
                    w.lock
                },
            ),
            (Kind::Await, w.await_),
            (Kind::Assume, w.assume),
            (Kind::Assert, w.assert),
            (Kind::Branch, if nested { w.branch } else { 0 }),
            (
                Kind::WhileReg,
                if nested && !in_lock { w.while_reg } else { 0 },
            ),
            (
                Kind::WhileMem,
                if nested && !in_lock { w.while_mem } else { 0 },
            ),
            (
                Kind::WhileSpin,
                if nested && !in_lock { w.while_spin } else { 0 },
            ),
        ];
        let total: u64 = table.iter().map(|(_, w)| w).sum();
        let mut x = self.rng.below(total.max(1));
        for (k, w) in table {
            if x < w {
                return k;
            }
            x -= w;
        }
        Kind::Store
    }

    /// One statement (a lock block is several), `depth` levels of nesting left.
    fn stmt(&mut self, depth: u32, in_lock: bool) -> Vec<Stmt> {
        match self.kind(depth, in_lock) {
            Kind::Store => vec![self.store()],
            Kind::Load => vec![self.load()],
            Kind::Fence => vec![self.b.stmt(StmtKind::Fence)],
            Kind::Rmw => vec![self.rmw()],
            Kind::Lock => self.lock_block(depth),
            Kind::Await => {
                let c = self.memory_cond(true);
                vec![self.b.stmt(StmtKind::Await(c))]
            }
            Kind::Assume => {
                let c = self.check_cond(3);
                vec![self.b.stmt(StmtKind::Assume(c))]
            }
            Kind::Assert => {
                let c = self.check_cond(3);
                vec![self.b.stmt(StmtKind::Assert(c))]
            }
            Kind::Branch => vec![self.branch(depth, in_lock)],
            Kind::WhileReg => vec![self.while_reg(depth)],
            Kind::WhileMem => vec![self.while_mem(depth)],
            Kind::WhileSpin => self.while_spin(depth),
        }
    }

    fn new_reg(&mut self) -> String {
        let r = format!("r{}", self.regs.len());
        self.regs.push(r.clone());
        r
    }

    /// A register to assign: a new one, or now and then one assigned before.
    fn dest(&mut self) -> String {
        if !self.regs.is_empty() && self.rng.chance(20) {
            let i = self.rng.below(self.regs.len() as u64) as usize;
            self.regs[i].clone()
        } else {
            self.new_reg()
        }
    }

    fn some_reg(&mut self) -> Option<String> {
        if self.regs.is_empty() {
            None
        } else {
            let i = self.rng.below(self.regs.len() as u64) as usize;
            Some(self.regs[i].clone())
        }
    }

    fn small(&mut self) -> Expr {
        let v = 1 + self.rng.below(2) as i64;
        self.b.int(v)
    }

    /// A value to store or to give an RMW: mostly 1 or 2, else register arithmetic with any
    /// of the language's operators.
    fn value(&mut self) -> Expr {
        match self.some_reg() {
            Some(r) if self.rng.chance(30) => self.reg_expr(&r),
            _ => self.small(),
        }
    }

    /// `r + 1`, `r * 2`, `r - 1`, `-r`, `!r`, `r % 2`, `r == 1`, `r < 2`, `r && 1`, ...
    fn reg_expr(&mut self, r: &str) -> Expr {
        let e = self.b.reg(r);
        let k = self.rng.below(12);
        if k == 0 {
            return self.b.neg(e);
        }
        if k == 1 {
            return self.b.not(e);
        }
        let op = self.pick(&[
            BinOp::Add,
            BinOp::Mul,
            BinOp::Sub,
            BinOp::Rem,
            BinOp::Eq,
            BinOp::Ne,
            BinOp::Lt,
            BinOp::Le,
            BinOp::Gt,
            BinOp::Ge,
            BinOp::And,
            BinOp::Or,
        ]);
        let v = if matches!(op, BinOp::Rem | BinOp::Mul) {
            2
        } else {
            1
        };
        let v = self.b.int(v);
        self.b.bin(op, e, v)
    }

    fn scalar(&mut self) -> usize {
        self.rng.below(self.nvars as u64) as usize
    }

    /// A location: a scalar, or an element of `a[2]` at a constant index (or, with errors, a
    /// register's value, which may be out of bounds).
    fn location(&mut self, array_chance: u64) -> LocRef {
        if let Some(arr) = self.array {
            if self.rng.chance(array_chance) {
                let ix = match self.some_reg() {
                    Some(r) if self.cfg.errors && self.rng.chance(40) => self.b.reg(&r),
                    _ => {
                        let i = self.rng.below(2) as i64;
                        self.b.int(i)
                    }
                };
                return self.b.loc_at(arr, ix);
            }
        }
        let v = self.scalar();
        self.b.loc(v)
    }

    fn load_expr(&mut self, array_chance: u64) -> Expr {
        let l = self.location(array_chance);
        self.b.load_loc(l)
    }

    fn store(&mut self) -> Stmt {
        let loc = self.location(20);
        let value = self.value();
        self.b.stmt(StmtKind::Store { loc, value })
    }

    fn load(&mut self) -> Stmt {
        let value = match self.rng.below(20) {
            // Two loads in one expression, one of them perhaps short-circuited away.
            0..=2 => {
                let a = self.load_expr(10);
                let c = self.load_expr(10);
                let op = self.pick(&[BinOp::Add, BinOp::And, BinOp::Or, BinOp::Eq]);
                self.b.bin(op, a, c)
            }
            3 if self.cfg.errors && !self.regs.is_empty() => {
                let r = self.some_reg().unwrap_or_default();
                let (two, d) = (self.b.int(2), self.b.reg(&r));
                let op = self.pick(&[BinOp::Div, BinOp::Rem]);
                self.b.bin(op, two, d)
            }
            4 if !self.regs.is_empty() => {
                let r = self.some_reg().unwrap_or_default();
                self.reg_expr(&r)
            }
            _ => self.load_expr(20),
        };
        let r = self.dest();
        self.b.assign(&r, value)
    }

    fn rmw(&mut self) -> Stmt {
        let op = self.pick(&[RmwOp::Xchg, RmwOp::Cas, RmwOp::FetchAdd]);
        let loc = self.location(15);
        let args = match op {
            RmwOp::Cas => {
                let old = self.rng.below(2) as i64;
                vec![self.b.int(old), self.value()]
            }
            _ => vec![self.value()],
        };
        let dest = self.rng.chance(75).then(|| self.dest());
        let dest = dest.map(|d| self.b.name(&d));
        self.b.stmt(StmtKind::Rmw {
            dest,
            op,
            loc,
            args,
        })
    }

    /// `lock(m); [lock(n);] 1-2 statements; unlock(..); [unlock(..);]`: one mutex or both, in
    /// either order, released in either order; now and then a mutex is kept (the thread ends
    /// holding it), and with errors locked twice or unlocked unheld.
    fn lock_block(&mut self, depth: u32) -> Vec<Stmt> {
        let both = if self.cfg.mutex_chance == 100 { 85 } else { 65 };
        let mut held: Vec<usize> = if self.mutexes.len() == 2 && self.rng.chance(both) {
            if self.rng.chance(50) {
                vec![0, 1]
            } else {
                vec![1, 0]
            }
        } else {
            vec![self.rng.below(self.mutexes.len() as u64) as usize]
        };
        let mut out: Vec<Stmt> = Vec::new();
        for &m in &held {
            out.push(self.b.lock(m, &self.mutexes));
        }
        if self.cfg.errors && self.rng.chance(4) {
            out.push(self.b.lock(held[0], &self.mutexes));
        }
        for _ in 0..1 + self.rng.below(2) {
            out.extend(self.stmt(depth.saturating_sub(1), true));
        }
        if self.rng.chance(75) {
            held.reverse();
        }
        if self.rng.chance(5) {
            held.pop();
        }
        for &m in &held {
            out.push(self.b.unlock(m, &self.mutexes));
        }
        if self.cfg.errors && self.rng.chance(4) {
            let m = self.rng.below(self.mutexes.len() as u64) as usize;
            out.push(self.b.unlock(m, &self.mutexes));
        }
        out
    }

    /// A condition over memory: `x == 1`, `x >= 1`, `a[0] != 0`, `x == 1 || y == 2`, ...
    fn memory_cond(&mut self, satisfiable: bool) -> Expr {
        let l = self.load_expr(15);
        let v = if satisfiable {
            self.small()
        } else {
            self.b.int(0)
        };
        let op = self.pick(&[BinOp::Eq, BinOp::Eq, BinOp::Ge, BinOp::Ne, BinOp::Gt]);
        let op = if satisfiable && op == BinOp::Ne {
            BinOp::Eq
        } else {
            op
        };
        let c = self.b.bin(op, l, v);
        if self.rng.chance(15) {
            let l2 = self.load_expr(0);
            let v2 = self.small();
            let c2 = self.b.bin(BinOp::Eq, l2, v2);
            let op = self.pick(&[BinOp::Or, BinOp::And]);
            self.b.bin(op, c, c2)
        } else {
            c
        }
    }

    /// The condition of an `assert` or `assume`: over a register (`r != 1`, `r0 + r1 < 3`) or
    /// over memory.
    fn check_cond(&mut self, values: u64) -> Expr {
        match self.some_reg() {
            Some(r) if self.rng.chance(75) => {
                let mut e = self.b.reg(&r);
                if self.regs.len() > 1 && self.rng.chance(20) {
                    let r2 = self.some_reg().unwrap_or_default();
                    let e2 = self.b.reg(&r2);
                    e = self.b.bin(BinOp::Add, e, e2);
                }
                let v = self.rng.below(values) as i64;
                let v = self.b.int(v);
                let op = self.pick(&[BinOp::Ne, BinOp::Ne, BinOp::Eq, BinOp::Lt, BinOp::Le]);
                self.b.bin(op, e, v)
            }
            _ => {
                let l = self.load_expr(15);
                let v = self.rng.below(values) as i64;
                let v = self.b.int(v);
                self.b.bin(BinOp::Ne, l, v)
            }
        }
    }

    fn branch(&mut self, depth: u32, in_lock: bool) -> Stmt {
        let cond = match self.some_reg() {
            Some(r) if self.rng.chance(60) => {
                let e = self.b.reg(&r);
                let v = self.rng.below(2) as i64;
                let v = self.b.int(v);
                let op = self.pick(&[BinOp::Eq, BinOp::Ne, BinOp::Gt]);
                self.b.bin(op, e, v)
            }
            _ => self.memory_cond(false),
        };
        let then_body = self.stmt(depth - 1, in_lock);
        let else_body = match self.rng.below(10) {
            0..=3 => self.stmt(depth - 1, in_lock),
            4 => vec![self.branch(1, in_lock)],
            _ => vec![],
        };
        self.b.stmt(StmtKind::If {
            cond,
            then_body,
            else_body,
        })
    }

    /// The final condition: `exists`, `~exists` or `forall` over 1-3 atoms (registers of any
    /// thread, scalars, array elements, a sum of two registers) joined by `&&` and `||`,
    /// compared with any comparison, sometimes negated.
    fn condition(&mut self, regs_of: &[Vec<String>]) -> Condition {
        let n = 1 + self.rng.below(3);
        let mut atoms = Vec::new();
        for _ in 0..n {
            let with_regs: Vec<usize> = (0..regs_of.len())
                .filter(|&t| !regs_of[t].is_empty())
                .collect();
            let lhs = match self.rng.below(10) {
                0..=5 if !with_regs.is_empty() => {
                    let t = self.pick(&with_regs);
                    let r = pick_name(&mut self.rng, &regs_of[t]);
                    let e = self.b.treg(t, &r);
                    if with_regs.len() > 1 && self.rng.chance(15) {
                        let t2 = self.pick(&with_regs);
                        let r2 = pick_name(&mut self.rng, &regs_of[t2]);
                        let e2 = self.b.treg(t2, &r2);
                        self.b.bin(BinOp::Add, e, e2)
                    } else {
                        e
                    }
                }
                6 if self.array.is_some() => {
                    let i = self.rng.below(2) as i64;
                    let ix = self.b.int(i);
                    self.b.load_at(self.array.unwrap_or(0), ix)
                }
                _ => {
                    let v = self.scalar();
                    self.b.load(v)
                }
            };
            let v = self.rng.below(3) as i64;
            let v = self.b.int(v);
            let op = if self.rng.chance(70) {
                BinOp::Eq
            } else {
                self.pick(&[BinOp::Ne, BinOp::Lt, BinOp::Le, BinOp::Gt, BinOp::Ge])
            };
            atoms.push(self.b.bin(op, lhs, v));
        }
        let mut e = atoms.remove(0);
        for a in atoms {
            let op = if self.rng.chance(70) {
                BinOp::And
            } else {
                BinOp::Or
            };
            e = self.b.bin(op, e, a);
        }
        if self.rng.chance(12) {
            e = self.b.not(e);
        }
        let q = self.pick(&[
            Quantifier::Exists,
            Quantifier::Forall,
            Quantifier::NotExists,
        ]);
        self.b.condition(q, e)
    }
}

fn pick_name(rng: &mut Rng, names: &[String]) -> String {
    names[rng.below(names.len() as u64) as usize].clone()
}
