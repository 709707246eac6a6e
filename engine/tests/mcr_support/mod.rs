//! Shared helpers of the MCR tests: run both explorers on an AST, a small AST builder, and a
//! seeded generator of small random litmus programs (stores, loads, fences, RMWs, branches,
//! assertions, assumptions, locks, awaits and bounded loops over 2-3 locations).
#![allow(dead_code)]

use litmus_engine::ast::*;
use litmus_engine::collect::Collector;
use litmus_engine::ir::Program;
use litmus_engine::mcr::{self, McrStats, Tuning};
use litmus_engine::report::{Model, ModelReport};
use litmus_engine::span::Span;
use litmus_engine::{check, CheckOptions, Control, EngineKind};
use std::time::Instant;

/// Every program of the corpus `tests/litmus/*.litmus`, parsed, with its path, in file order.
pub fn corpus() -> Vec<(std::path::PathBuf, Test)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/litmus");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/litmus")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.retain(|p| p.extension().is_some_and(|x| x == "litmus"));
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let test =
                litmus_engine::syntax::parse(&std::fs::read_to_string(&f).expect("readable"))
                    .test
                    .expect("corpus parses");
            (f, test)
        })
        .collect()
}

/// The exhaustive reference report (loop bound 2).
pub fn exhaustive(test: &Test, model: Model) -> ModelReport {
    let opts = CheckOptions {
        engine: EngineKind::Exhaustive.into(),
        loop_bound: 2,
        ..CheckOptions::default()
    };
    check(test, model, &opts, &Control::new())
}

/// The exhaustive reference report with the default options.
pub fn exhaustive_with_default_bound(test: &Test, model: Model) -> ModelReport {
    let opts = CheckOptions {
        engine: EngineKind::Exhaustive.into(),
        ..CheckOptions::default()
    };
    check(test, model, &opts, &Control::new())
}

/// The MCR report and MCR's own counters with the default options.
pub fn mcr_run_default_bound(test: &Test, model: Model) -> (ModelReport, McrStats) {
    mcr_run_opts(test, model, Tuning::default(), &CheckOptions::default())
}

/// The MCR report and MCR's own counters with the default options and a timeout.
pub fn mcr_run_with_timeout(
    test: &Test,
    model: Model,
    timeout: std::time::Duration,
) -> (ModelReport, McrStats) {
    let opts = CheckOptions {
        timeout: Some(timeout),
        ..CheckOptions::default()
    };
    mcr_run_opts(test, model, Tuning::default(), &opts)
}

/// The MCR report and MCR's own counters (loop bound 2).
pub fn mcr_run(test: &Test, model: Model, tuning: Tuning) -> (ModelReport, McrStats) {
    let opts = CheckOptions {
        engine: EngineKind::Mcr.into(),
        loop_bound: 2,
        ..CheckOptions::default()
    };
    mcr_run_opts(test, model, tuning, &opts)
}

/// MCR with `opts`; with `MCR_NOSDG` set, without the static dependency graph (to compare).
pub fn mcr_run_opts(
    test: &Test,
    model: Model,
    tuning: Tuning,
    opts: &CheckOptions,
) -> (ModelReport, McrStats) {
    let mut opts = opts.clone();
    if std::env::var("MCR_NOSDG").is_ok() {
        opts.sdg = false;
    }
    let start = Instant::now();
    let program = Program::lower(test, opts.loop_bound).expect("lowers");
    let mut col = Collector::new(test, &program, model);
    let ctl = Control::new();
    let stats = mcr::explore_with(&program, model, &opts, &ctl, tuning, &mut |ex| {
        col.end(ex.state, ex.events)
    });
    col.stats.constraints += stats.constraints;
    col.stats.solver_ms += stats.solver_ms;
    col.complete &= stats.complete;
    (col.finish(start.elapsed()), stats)
}

/// The MCR tuning, with `MCR_NOPRUNE` / `MCR_NOPRUNE_RUNS` / `MCR_NOMERGE` / `MCR_NOCANON` /
/// `MCR_ALLTARGETS` /
/// `MCR_NOPREFILTER` turning reductions off (to compare), `MCR_NOSEARCH` sending every query
/// to Z3, `MCR_SEARCH_BUDGET` setting the trace-local search's budget, `MCR_PER_QUERY` giving
/// each Z3 query a formula with only its own validity, `MCR_Z3SEED` seeding Z3 (other
/// models, other seeds: completeness must not change), and `MCR_WITNESS=n` taking the seeds of
/// satisfiable Z3 queries from the causal search with budget `n`.
pub fn tuning_from_env() -> Tuning {
    Tuning {
        prune_states: std::env::var("MCR_NOPRUNE").is_err(),
        prune_runs: std::env::var("MCR_NOPRUNE_RUNS").is_err(),
        merge_runs: std::env::var("MCR_NOMERGE").is_err(),
        canonical_seeds: std::env::var("MCR_NOCANON").is_err(),
        only_new_targets: std::env::var("MCR_ALLTARGETS").is_err(),
        prefilter: std::env::var("MCR_NOPREFILTER").is_err(),
        check_prefilter: false,
        solver_seed: std::env::var("MCR_Z3SEED")
            .ok()
            .and_then(|s| s.parse().ok()),
        search_budget: if std::env::var("MCR_NOSEARCH").is_ok() {
            0
        } else {
            std::env::var("MCR_SEARCH_BUDGET")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(mcr::SEARCH_BUDGET)
        },
        check_search: false,
        witness_budget: std::env::var("MCR_WITNESS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0),
        per_query: std::env::var("MCR_PER_QUERY").is_ok(),
        bare_solve: false,
        paired_solve: false,
    }
}

/// What must agree between the engines: states, (kind, span) of violations, the verdict.
pub fn verdict(r: &ModelReport) -> String {
    let mut v: Vec<String> = r
        .violations
        .iter()
        .map(|v| format!("{:?}@{:?}", v.kind, v.span))
        .collect();
    v.sort();
    format!(
        "states={:?}\nviolations={:?}\ncondition={:?}\ncomplete={}",
        r.states, v, r.condition, r.complete
    )
}

/// A tiny deterministic RNG (xorshift64*), so the generated programs are reproducible.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Builds AST nodes with fresh, distinct spans.
pub struct B {
    pos: usize,
}

impl B {
    pub fn new() -> B {
        B { pos: 0 }
    }
    pub fn span(&mut self) -> Span {
        self.pos += 3;
        Span::new(self.pos - 3, self.pos - 1)
    }
    pub fn name(&mut self, s: &str) -> Name {
        Name {
            text: s.to_string(),
            span: self.span(),
        }
    }
    pub fn int(&mut self, v: i64) -> Expr {
        Expr {
            kind: ExprKind::Int(v),
            span: self.span(),
        }
    }
    pub fn reg(&mut self, r: &str) -> Expr {
        let n = self.name(r);
        Expr {
            kind: ExprKind::Reg(n),
            span: self.span(),
        }
    }
    pub fn loc(&mut self, var: usize) -> LocRef {
        LocRef {
            var,
            index: None,
            span: self.span(),
        }
    }
    pub fn load(&mut self, var: usize) -> Expr {
        let l = self.loc(var);
        Expr {
            kind: ExprKind::Load(l),
            span: self.span(),
        }
    }
    pub fn bin(&mut self, op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr {
            kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
            span: self.span(),
        }
    }
    pub fn tr(&mut self, t: usize, r: &str) -> Expr {
        let n = self.name(r);
        Expr {
            kind: ExprKind::ThreadReg { thread: t, reg: n },
            span: self.span(),
        }
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
    pub fn rmw(&mut self, r: Option<&str>, op: RmwOp, var: usize, args: Vec<Expr>) -> Stmt {
        let dest = r.map(|r| self.name(r));
        let loc = self.loc(var);
        self.stmt(StmtKind::Rmw {
            dest,
            op,
            loc,
            args,
        })
    }
    pub fn thread(&mut self, name: &str, body: Vec<Stmt>) -> Thread {
        let name = self.name(name);
        Thread {
            name,
            reg_init: vec![],
            body,
            span: self.span(),
        }
    }
    pub fn test(
        &mut self,
        shared: &[(&str, i64)],
        mutexes: &[&str],
        threads: Vec<Thread>,
        condition: Option<(Quantifier, Expr)>,
    ) -> Test {
        let shared = shared
            .iter()
            .map(|&(n, v)| {
                let name = self.name(n);
                SharedDecl {
                    name,
                    size: None,
                    init: vec![v],
                    span: self.span(),
                }
            })
            .collect();
        let mutexes = mutexes.iter().map(|m| self.name(m)).collect();
        let condition = condition.map(|(quantifier, expr)| Condition {
            quantifier,
            expr,
            span: self.span(),
        });
        Test {
            dialect: Dialect::Native,
            name: self.name("T"),
            description: None,
            shared,
            mutexes,
            threads,
            condition,
            span: self.span(),
        }
    }
}

const REGS: [&str; 2] = ["r0", "r1"];

/// A random small program: 2-3 threads of 1-4 statements over 2-3 locations.
pub fn random_test(seed: u64) -> Test {
    let mut g = Rng::new(seed);
    let mut b = B::new();
    let nvars = 2 + g.below(2) as usize;
    let with_mutex = g.chance(15);
    let nthreads = 2 + g.below(2) as usize;
    let mut threads = Vec::new();
    for t in 0..nthreads {
        let n = 1 + g.below(4) as usize;
        let mut body = Vec::new();
        for _ in 0..n {
            body.extend(random_stmt(&mut g, &mut b, nvars, with_mutex, 2));
        }
        threads.push(b.thread(&format!("P{t}"), body));
    }
    let cond = if g.chance(60) {
        let q = match g.below(3) {
            0 => Quantifier::Exists,
            1 => Quantifier::Forall,
            _ => Quantifier::NotExists,
        };
        let t = g.below(nthreads as u64) as usize;
        let lhs = b.tr(t, REGS[g.below(2) as usize]);
        let v = b.int(g.below(3) as i64);
        let a = b.bin(BinOp::Eq, lhs, v);
        let var = g.below(nvars as u64) as usize;
        let m = b.load(var);
        let w = b.int(g.below(3) as i64);
        let c = b.bin(BinOp::Eq, m, w);
        Some((
            q,
            b.bin(if g.chance(50) { BinOp::And } else { BinOp::Or }, a, c),
        ))
    } else {
        None
    };
    let names = ["x", "y", "z"];
    let shared: Vec<(&str, i64)> = (0..nvars)
        .map(|i| (names[i], if g.chance(10) { 1 } else { 0 }))
        .collect();
    let mutexes: &[&str] = if with_mutex { &["m"] } else { &[] };
    b.test(&shared, mutexes, threads, cond)
}

fn random_value(g: &mut Rng, b: &mut B) -> Expr {
    if g.chance(25) {
        let r = b.reg(REGS[g.below(2) as usize]);
        let one = b.int(1);
        b.bin(BinOp::Add, r, one)
    } else {
        b.int(1 + g.below(2) as i64)
    }
}

fn random_stmt(g: &mut Rng, b: &mut B, nvars: usize, mutex: bool, depth: u32) -> Vec<Stmt> {
    let var = g.below(nvars as u64) as usize;
    let r = REGS[g.below(2) as usize];
    match g.below(100) {
        0..=29 => {
            let v = random_value(g, b);
            vec![b.store(var, v)]
        }
        30..=54 => {
            let e = if g.chance(15) {
                let other = (var + 1) % nvars;
                let a = b.load(var);
                let c = b.load(other);
                b.bin(BinOp::Add, a, c)
            } else {
                b.load(var)
            };
            vec![b.assign(r, e)]
        }
        55..=61 => vec![b.stmt(StmtKind::Fence)],
        62..=69 => {
            let op = match g.below(3) {
                0 => RmwOp::Xchg,
                1 => RmwOp::Cas,
                _ => RmwOp::FetchAdd,
            };
            let args = match op {
                RmwOp::Cas => vec![b.int(g.below(2) as i64), b.int(1 + g.below(2) as i64)],
                _ => vec![b.int(1 + g.below(2) as i64)],
            };
            let dest = g.chance(70).then_some(r);
            vec![b.rmw(dest, op, var, args)]
        }
        70..=79 if depth > 0 => {
            let lhs = b.reg(r);
            let v = b.int(g.below(2) as i64);
            let cond = b.bin(BinOp::Eq, lhs, v);
            let then_body = random_stmt(g, b, nvars, mutex, depth - 1);
            let else_body = if g.chance(40) {
                random_stmt(g, b, nvars, mutex, depth - 1)
            } else {
                vec![]
            };
            vec![b.stmt(StmtKind::If {
                cond,
                then_body,
                else_body,
            })]
        }
        80..=85 => {
            let lhs = b.reg(r);
            let v = b.int(g.below(3) as i64);
            let cond = b.bin(BinOp::Ne, lhs, v);
            vec![b.stmt(StmtKind::Assert(cond))]
        }
        86..=87 => {
            let lhs = b.reg(r);
            let v = b.int(g.below(2) as i64);
            let cond = b.bin(BinOp::Ne, lhs, v);
            vec![b.stmt(StmtKind::Assume(cond))]
        }
        88..=90 => {
            let l = b.load(var);
            let v = b.int(1 + g.below(2) as i64);
            let cond = b.bin(if g.chance(50) { BinOp::Eq } else { BinOp::Ge }, l, v);
            vec![b.stmt(StmtKind::Await(cond))]
        }
        91..=94 if mutex => {
            let name = b.name("m");
            let lock = b.stmt(StmtKind::Lock { mutex: 0, name });
            let mut inner = random_stmt(g, b, nvars, false, 0);
            let name = b.name("m");
            let unlock = b.stmt(StmtKind::Unlock { mutex: 0, name });
            let mut out = vec![lock];
            out.append(&mut inner);
            if !g.chance(5) {
                out.push(unlock);
            }
            out
        }
        95..=99 if depth > 1 => {
            // while (x == 0) { r = r + 1; } style spin with the loop bound.
            let l = b.load(var);
            let z = b.int(0);
            let cond = b.bin(BinOp::Eq, l, z);
            let rr = b.reg(r);
            let one = b.int(1);
            let inc = b.bin(BinOp::Add, rr, one);
            let body = vec![b.assign(r, inc)];
            vec![b.stmt(StmtKind::While { cond, body })]
        }
        _ => {
            let e = b.load(var);
            vec![b.assign(r, e)]
        }
    }
}

/// The test as native-dialect source (for failure messages).
pub fn show(t: &Test) -> String {
    fn e(t: &Test, x: &Expr) -> String {
        match &x.kind {
            ExprKind::Int(v) => v.to_string(),
            ExprKind::Reg(n) => n.text.clone(),
            ExprKind::Load(l) => t.shared[l.var].name.text.clone(),
            ExprKind::ThreadReg { thread, reg } => {
                format!("{}:{}", t.threads[*thread].name.text, reg.text)
            }
            ExprKind::Unary(op, a) => format!("{op:?}({})", e(t, a)),
            ExprKind::Binary(op, a, b) => format!("({} {op:?} {})", e(t, a), e(t, b)),
        }
    }
    fn st(t: &Test, s: &Stmt, ind: usize, out: &mut String) {
        let pad = " ".repeat(ind);
        let line = match &s.kind {
            StmtKind::Store { loc, value } => {
                format!("{} = {};", t.shared[loc.var].name.text, e(t, value))
            }
            StmtKind::Assign { reg, value } => format!("{} = {};", reg.text, e(t, value)),
            StmtKind::Fence => "fence;".into(),
            StmtKind::Lock { .. } => "lock(m);".into(),
            StmtKind::Unlock { .. } => "unlock(m);".into(),
            StmtKind::Rmw {
                dest,
                op,
                loc,
                args,
            } => format!(
                "{} = {op:?}({}, {});",
                dest.as_ref().map(|d| d.text.as_str()).unwrap_or("_"),
                t.shared[loc.var].name.text,
                args.iter().map(|a| e(t, a)).collect::<Vec<_>>().join(", ")
            ),
            StmtKind::Assert(c) => format!("assert({});", e(t, c)),
            StmtKind::Assume(c) => format!("assume({});", e(t, c)),
            StmtKind::Await(c) => format!("await({});", e(t, c)),
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => {
                out.push_str(&format!("{pad}if ({}) {{\n", e(t, cond)));
                for s in then_body {
                    st(t, s, ind + 2, out);
                }
                out.push_str(&format!("{pad}}} else {{\n"));
                for s in else_body {
                    st(t, s, ind + 2, out);
                }
                out.push_str(&format!("{pad}}}\n"));
                return;
            }
            StmtKind::While { cond, body } => {
                out.push_str(&format!("{pad}while ({}) {{\n", e(t, cond)));
                for s in body {
                    st(t, s, ind + 2, out);
                }
                out.push_str(&format!("{pad}}}\n"));
                return;
            }
        };
        out.push_str(&format!("{pad}{line} @{}\n", s.span.start));
    }
    let mut out = String::new();
    for d in &t.shared {
        out.push_str(&format!("shared {} = {};\n", d.name.text, d.init[0]));
    }
    for th in &t.threads {
        out.push_str(&format!("thread {} {{\n", th.name.text));
        for s in &th.body {
            st(t, s, 2, &mut out);
        }
        out.push_str("}\n");
    }
    if let Some(c) = &t.condition {
        out.push_str(&format!("{} {}\n", c.quantifier.as_str(), e(t, &c.expr)));
    }
    out
}
