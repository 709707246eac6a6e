//! Random small litmus tests for property testing (MCR vs exhaustive, replay), an AST builder
//! for tests written in Rust, and a printer to native source (`docs/reference.md#native`).
//!
//! Not part of the product API: `#[doc(hidden)]`. Generation is seeded and deterministic.
//! Generated spans are synthetic (distinct, increasing) unless the printed source is parsed.
//!
//! Code map: this file has the PRNG and the AST builder; `random.rs` is the one random program
//! generator (every construct of the native language), `config.rs` its named settings; `relaxed.rs`
//! draws SB/MP-shaped programs for robustness and fences; `coverage.rs` says which constructs
//! a program has; `shrink.rs` minimises a program while a property holds; `print.rs` prints
//! tests as source.

mod config;
mod coverage;
mod print;
mod random;
mod relaxed;
mod shrink;

pub use config::{GenConfig, Weights};
pub use coverage::{constructs, Construct};
pub use print::print;
pub use random::{random_test, random_test_with};
pub use relaxed::relaxed_test;
pub use shrink::shrink;

use crate::ast::*;
use crate::span::Span;

/// A small deterministic PRNG (SplitMix64), so the engine needs no `rand` dependency.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// True with probability `p` percent.
    pub fn chance(&mut self, p: u64) -> bool {
        self.below(100) < p
    }
}

/// Builds AST nodes with distinct synthetic spans.
#[derive(Default)]
pub struct Builder {
    next: u32,
}

impl Builder {
    pub fn new() -> Builder {
        Builder { next: 0 }
    }
    pub fn span(&mut self) -> Span {
        self.next += 10;
        Span {
            start: self.next,
            end: self.next + 5,
        }
    }
    pub fn name(&mut self, s: &str) -> Name {
        Name {
            text: s.to_string(),
            span: self.span(),
        }
    }
    fn expr(&mut self, kind: ExprKind) -> Expr {
        Expr {
            kind,
            span: self.span(),
        }
    }
    pub fn int(&mut self, v: i64) -> Expr {
        self.expr(ExprKind::Int(v))
    }
    pub fn reg(&mut self, r: &str) -> Expr {
        let n = self.name(r);
        self.expr(ExprKind::Reg(n))
    }
    pub fn loc(&mut self, var: usize) -> LocRef {
        LocRef {
            var,
            index: None,
            span: self.span(),
        }
    }
    pub fn loc_at(&mut self, var: usize, index: Expr) -> LocRef {
        LocRef {
            var,
            index: Some(Box::new(index)),
            span: self.span(),
        }
    }
    pub fn load(&mut self, var: usize) -> Expr {
        let l = self.loc(var);
        self.expr(ExprKind::Load(l))
    }
    pub fn load_at(&mut self, var: usize, index: Expr) -> Expr {
        let l = self.loc_at(var, index);
        self.expr(ExprKind::Load(l))
    }
    pub fn treg(&mut self, thread: usize, r: &str) -> Expr {
        let reg = self.name(r);
        self.expr(ExprKind::ThreadReg { thread, reg })
    }
    pub fn bin(&mut self, op: BinOp, a: Expr, b: Expr) -> Expr {
        self.expr(ExprKind::Binary(op, Box::new(a), Box::new(b)))
    }
    pub fn not(&mut self, a: Expr) -> Expr {
        self.expr(ExprKind::Unary(UnOp::Not, Box::new(a)))
    }
    pub fn neg(&mut self, a: Expr) -> Expr {
        self.expr(ExprKind::Unary(UnOp::Neg, Box::new(a)))
    }
    pub fn load_loc(&mut self, l: LocRef) -> Expr {
        self.expr(ExprKind::Load(l))
    }
    pub fn stmt(&mut self, kind: StmtKind) -> Stmt {
        Stmt {
            kind,
            span: self.span(),
        }
    }
    pub fn store(&mut self, var: usize, value: Expr) -> Stmt {
        let loc = self.loc(var);
        self.stmt(StmtKind::Store { loc, value })
    }
    pub fn assign(&mut self, r: &str, value: Expr) -> Stmt {
        let reg = self.name(r);
        self.stmt(StmtKind::Assign { reg, value })
    }
    pub fn rmw(&mut self, dest: Option<&str>, op: RmwOp, var: usize, args: Vec<Expr>) -> Stmt {
        let dest = dest.map(|d| self.name(d));
        let loc = self.loc(var);
        self.stmt(StmtKind::Rmw {
            dest,
            op,
            loc,
            args,
        })
    }
    pub fn lock(&mut self, m: usize, test_mutexes: &[Name]) -> Stmt {
        let name = test_mutexes[m].clone();
        self.stmt(StmtKind::Lock { mutex: m, name })
    }
    pub fn unlock(&mut self, m: usize, test_mutexes: &[Name]) -> Stmt {
        let name = test_mutexes[m].clone();
        self.stmt(StmtKind::Unlock { mutex: m, name })
    }
    pub fn shared(&mut self, name: &str, init: i64) -> SharedDecl {
        SharedDecl {
            name: self.name(name),
            size: None,
            init: vec![init],
            span: self.span(),
        }
    }
    pub fn array(&mut self, name: &str, init: Vec<i64>) -> SharedDecl {
        SharedDecl {
            name: self.name(name),
            size: Some(init.len() as u32),
            init,
            span: self.span(),
        }
    }
    pub fn thread(&mut self, name: &str, body: Vec<Stmt>) -> Thread {
        Thread {
            name: self.name(name),
            reg_init: vec![],
            body,
            span: self.span(),
        }
    }
    pub fn condition(&mut self, quantifier: Quantifier, expr: Expr) -> Condition {
        Condition {
            quantifier,
            expr,
            span: self.span(),
        }
    }
    pub fn test(
        &mut self,
        name: &str,
        shared: Vec<SharedDecl>,
        mutexes: Vec<Name>,
        threads: Vec<Thread>,
        condition: Option<Condition>,
    ) -> Test {
        Test {
            dialect: Dialect::Native,
            name: self.name(name),
            description: None,
            shared,
            mutexes,
            threads,
            condition,
            span: Span {
                start: 0,
                end: self.next + 100,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{check, syntax, CheckOptions, Control, EngineKind, Model};

    #[test]
    fn printed_random_tests_parse_back_to_the_same_behaviour() {
        let opts = CheckOptions {
            engine: EngineKind::Exhaustive.into(),
            ..CheckOptions::default()
        };
        let ctl = Control::new();
        for seed in 0..150 {
            let test = if seed % 2 == 0 {
                random_test(seed)
            } else {
                random_test_with(seed, GenConfig::all())
            };
            let src = print(&test);
            let parsed = syntax::parse(&src);
            let back = parsed
                .test
                .unwrap_or_else(|| panic!("seed {seed}: {:?}\n{src}", parsed.diagnostics));
            assert_eq!(back.threads.len(), test.threads.len());
            for m in [Model::Tso, Model::Pso] {
                let a = check(&test, m, &opts, &ctl);
                let b = check(&back, m, &opts, &ctl);
                assert_eq!(a.states, b.states, "seed {seed} {m:?}\n{src}");
                assert_eq!(a.condition, b.condition, "seed {seed} {m:?}");
                let kinds = |r: &crate::ModelReport| {
                    let mut k: Vec<_> = r.violations.iter().map(|v| v.kind).collect();
                    k.sort();
                    k
                };
                assert_eq!(kinds(&a), kinds(&b), "seed {seed} {m:?}");
            }
        }
    }

    #[test]
    fn generation_is_deterministic_and_varied() {
        assert_eq!(random_test(7), random_test(7));
        let srcs: std::collections::BTreeSet<String> =
            (0..50).map(|s| print(&random_test(s))).collect();
        assert!(srcs.len() > 45);
    }
}
