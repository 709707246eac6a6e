//! Random small litmus tests for property testing (MCR vs exhaustive, replay), an AST builder
//! for tests written in Rust, and a printer to native source (`docs/reference.md#native`).
//!
//! Not part of the product API: `#[doc(hidden)]`. Generation is seeded and deterministic.
//! Generated spans are synthetic (distinct, increasing) unless the printed source is parsed.

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

/// Prints a test as native-dialect source (`docs/reference.md#native`). Expressions are fully parenthesised.
pub fn print(test: &Test) -> String {
    let mut out = format!("litmus {}\n\n", test.name.text);
    if !test.shared.is_empty() {
        let decls: Vec<String> = test
            .shared
            .iter()
            .map(|d| match d.size {
                None => format!("{} = {}", d.name.text, d.init.first().copied().unwrap_or(0)),
                Some(n) => format!(
                    "{}[{}] = {{{}}}",
                    d.name.text,
                    n,
                    d.init
                        .iter()
                        .map(|v| v.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            })
            .collect();
        out += &format!("shared {};\n", decls.join(", "));
    }
    if !test.mutexes.is_empty() {
        let ms: Vec<&str> = test.mutexes.iter().map(|m| m.text.as_str()).collect();
        out += &format!("mutex {};\n", ms.join(", "));
    }
    for th in &test.threads {
        out += &format!("\nthread {} {{\n", th.name.text);
        for s in &th.body {
            print_stmt(test, s, 1, &mut out);
        }
        out += "}\n";
    }
    if let Some(c) = &test.condition {
        out += &format!(
            "\n{} ({})\n",
            c.quantifier.as_str(),
            print_expr(test, &c.expr)
        );
    }
    out
}

fn print_loc(test: &Test, l: &LocRef) -> String {
    let name = test
        .shared
        .get(l.var)
        .map(|d| d.name.text.as_str())
        .unwrap_or("?");
    match &l.index {
        None => name.to_string(),
        Some(i) => format!("{name}[{}]", print_expr(test, i)),
    }
}

fn print_expr(test: &Test, e: &Expr) -> String {
    match &e.kind {
        ExprKind::Int(v) if *v < 0 => format!("(-{})", v.unsigned_abs()),
        ExprKind::Int(v) => v.to_string(),
        ExprKind::Reg(n) => n.text.clone(),
        ExprKind::Load(l) => print_loc(test, l),
        ExprKind::ThreadReg { thread, reg } => format!(
            "{}:{}",
            test.threads
                .get(*thread)
                .map(|t| t.name.text.as_str())
                .unwrap_or("?"),
            reg.text
        ),
        ExprKind::Unary(op, a) => {
            let o = if *op == UnOp::Neg { "-" } else { "!" };
            format!("{o}({})", print_expr(test, a))
        }
        ExprKind::Binary(op, a, b) => {
            if *op == BinOp::Implies {
                return format!("(!({}) || ({}))", print_expr(test, a), print_expr(test, b));
            }
            let o = op.symbol();
            format!("({} {o} {})", print_expr(test, a), print_expr(test, b))
        }
    }
}

fn print_stmt(test: &Test, s: &Stmt, depth: usize, out: &mut String) {
    let ind = "  ".repeat(depth);
    match &s.kind {
        StmtKind::Store { loc, value } => {
            *out += &format!(
                "{ind}{} = {};\n",
                print_loc(test, loc),
                print_expr(test, value)
            )
        }
        StmtKind::Assign { reg, value } => {
            *out += &format!("{ind}{} = {};\n", reg.text, print_expr(test, value))
        }
        StmtKind::Fence => *out += &format!("{ind}fence;\n"),
        StmtKind::Lock { name, .. } => *out += &format!("{ind}lock({});\n", name.text),
        StmtKind::Unlock { name, .. } => *out += &format!("{ind}unlock({});\n", name.text),
        StmtKind::Rmw {
            dest,
            op,
            loc,
            args,
        } => {
            let f = match op {
                RmwOp::Xchg => "xchg",
                RmwOp::Cas => "cas",
                RmwOp::FetchAdd => "fetch_add",
                // x86-only operations (`LOCK AND`, ...), never generated.
                RmwOp::FetchAnd => "fetch_and",
                RmwOp::FetchOr => "fetch_or",
                RmwOp::FetchXor => "fetch_xor",
            };
            let mut a = vec![print_loc(test, loc)];
            a.extend(args.iter().map(|x| print_expr(test, x)));
            let call = format!("{f}({})", a.join(", "));
            match dest {
                Some(d) => *out += &format!("{ind}{} = {call};\n", d.text),
                None => *out += &format!("{ind}{call};\n"),
            }
        }
        StmtKind::Assert(e) => *out += &format!("{ind}assert({});\n", print_expr(test, e)),
        StmtKind::Assume(e) => *out += &format!("{ind}assume({});\n", print_expr(test, e)),
        StmtKind::Await(e) => *out += &format!("{ind}await({});\n", print_expr(test, e)),
        StmtKind::If {
            cond,
            then_body,
            else_body,
        } => {
            *out += &format!("{ind}if ({}) {{\n", print_expr(test, cond));
            for t in then_body {
                print_stmt(test, t, depth + 1, out);
            }
            if else_body.is_empty() {
                *out += &format!("{ind}}}\n");
            } else {
                *out += &format!("{ind}}} else {{\n");
                for t in else_body {
                    print_stmt(test, t, depth + 1, out);
                }
                *out += &format!("{ind}}}\n");
            }
        }
        StmtKind::While { cond, body } => {
            *out += &format!("{ind}while ({}) {{\n", print_expr(test, cond));
            for t in body {
                print_stmt(test, t, depth + 1, out);
            }
            *out += &format!("{ind}}}\n");
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
            engine: EngineKind::Exhaustive,
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
