//! The generator's loops: over a register, over memory, and spin loops (`ir::spin`, DPOR's
//! run-time spin cut), as more methods of the generator.

use super::*;

impl Gen {
    /// `while (i < n) { <statement>; i = i + 1; }` with `n` from 1 to 3 (past the sweeps'
    /// loop bound of 2 at 3).
    pub(super) fn while_reg(&mut self, depth: u32) -> Stmt {
        let i = self.new_reg();
        let n = 1 + self.rng.below(3) as i64;
        let (ie, ne) = (self.b.reg(&i), self.b.int(n));
        let cond = self.b.bin(BinOp::Lt, ie, ne);
        let mut body = self.stmt(depth - 1, false);
        let (ie, one) = (self.b.reg(&i), self.b.int(1));
        let inc = self.b.bin(BinOp::Add, ie, one);
        body.push(self.b.assign(&i, inc));
        self.b.stmt(StmtKind::While { cond, body })
    }

    /// `while (x == 0) { r = r + 1; }` (a spin, cut at the loop bound unless another thread
    /// writes), `while (x != 1 && i < 2) { <statement>; i = i + 1; }` (ends either way).
    pub(super) fn while_mem(&mut self, depth: u32) -> Stmt {
        let l = self.load_expr(10);
        let v = self.rng.below(2) as i64;
        let v = self.b.int(v);
        let op = self.pick(&[BinOp::Eq, BinOp::Ne]);
        let cond = self.b.bin(op, l, v);
        let i = self.new_reg();
        let inc = |g: &mut Gen| {
            let (ie, one) = (g.b.reg(&i), g.b.int(1));
            let e = g.b.bin(BinOp::Add, ie, one);
            g.b.assign(&i, e)
        };
        if self.rng.chance(50) {
            let body = vec![inc(self)];
            return self.b.stmt(StmtKind::While { cond, body });
        }
        let (ie, two) = (self.b.reg(&i), self.b.int(2));
        let count = self.b.bin(BinOp::Lt, ie, two);
        let cond = self.b.bin(BinOp::And, cond, count);
        let mut body = self.stmt(depth - 1, false);
        body.push(inc(self));
        self.b.stmt(StmtKind::While { cond, body })
    }

    /// A spin loop on memory whose body has side-effect-free ways round (`ir::spin`): up to
    /// three of `assert`/`assume` on registers or memory and `if (<memory>) { <statement> }`,
    /// the last like Dekker's wait (`while (flag == 1) { if (turn != 0) { ... } }`). Half of
    /// them read the flag into a register (`f = x; while (f == v) { ...; f = x; }`, the spin
    /// DPOR finds at run time, `docs/design/dpor.md#spin-loops`), some with a register
    /// reloaded from memory in the body or an inner spin loop, the flag's reload first in the
    /// body or under an `if`, or the first read copied to another register; a third of those
    /// wait on two flags at once (`f = x == 1 && y == 2`).
    pub(super) fn while_spin(&mut self, depth: u32) -> Vec<Stmt> {
        if self.rng.chance(50) {
            // A third of them wait on two flags short-circuited into the register, as
            // Peterson's (`f = x == 1 && y == 1`): an iteration of two loads, which a write of
            // the first flag followed by one of the second (message passing between the two
            // flags) can split (`docs/design/dpor.md#spin-loops`).
            let two = self.rng.chance(33);
            let load = if two {
                let (a, va) = (self.load_expr(0), self.small());
                let (b, vb) = (self.load_expr(0), self.small());
                let (a, b) = (self.b.bin(BinOp::Eq, a, va), self.b.bin(BinOp::Eq, b, vb));
                let op = self.pick(&[BinOp::And, BinOp::And, BinOp::Or]);
                self.b.bin(op, a, b)
            } else {
                self.load_expr(15)
            };
            let f = self.new_reg();
            let mut pre = vec![self.b.assign(&f, load.clone())];
            if self.rng.chance(25) {
                // The first read kept in another register: the loop is not the rotated one
                // (`do f = x; while (...)`), so waiting and reading later differ.
                let g = self.dest();
                let fe = self.b.reg(&f);
                pre.push(self.b.assign(&g, fe));
            }
            let (fe, v) = match two {
                true => (self.b.reg(&f), self.b.int(1)),
                false => (self.b.reg(&f), self.small()),
            };
            let op = match two {
                true => BinOp::Eq,
                false => self.pick(&[BinOp::Eq, BinOp::Eq, BinOp::Ge, BinOp::Ne]),
            };
            let cond = self.b.bin(op, fe, v);
            let mut body = self.spin_body(depth);
            if self.rng.chance(30) {
                let g = self.dest();
                let l = self.load_expr(15);
                body.push(self.b.assign(&g, l));
            }
            if depth > 1 && self.rng.chance(20) {
                body.extend(self.while_spin(depth - 1));
            }
            let reload = self.b.assign(&f, load);
            match self.rng.below(4) {
                // The load first in the body, or only on one branch of an `if`.
                0 => body.insert(0, reload),
                1 => {
                    let c = self.memory_cond(true);
                    body.push(self.b.stmt(StmtKind::If {
                        cond: c,
                        then_body: vec![reload],
                        else_body: vec![],
                    }));
                }
                _ => body.push(reload),
            }
            pre.push(self.b.stmt(StmtKind::While { cond, body }));
            return pre;
        }
        let cond = self.memory_cond(true);
        let body = self.spin_body(depth);
        vec![self.b.stmt(StmtKind::While { cond, body })]
    }

    /// Up to three side-effect-free statements (but for what an `if` guards) of a spin body.
    fn spin_body(&mut self, depth: u32) -> Vec<Stmt> {
        let mut body = Vec::new();
        for _ in 0..self.rng.below(4) {
            let s = match self.rng.below(4) {
                0 => {
                    let c = self.check_cond(3);
                    self.b.stmt(StmtKind::Assert(c))
                }
                1 => {
                    let c = self.memory_cond(true);
                    self.b.stmt(StmtKind::Assume(c))
                }
                _ => {
                    let cond = self.memory_cond(true);
                    let then_body = self.stmt(depth - 1, false);
                    self.b.stmt(StmtKind::If {
                        cond,
                        then_body,
                        else_body: vec![],
                    })
                }
            };
            body.push(s);
        }
        body
    }
}
