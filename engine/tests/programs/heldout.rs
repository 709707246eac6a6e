//! The held-out family of the `auto` benchmark (issue 58): seeded random programs in the shape
//! of JMCR's and the examples (register loops around locked sections, stores, checked
//! loads, RMWs and awaits, 2-3 threads), drawn by a generator of their own that neither the
//! portfolio's weights nor its plan were fitted on. Shared by the engine benchmark
//! (`engine/benches/engines/heldout.rs`) and `engine/tests/auto.rs`, which include this file
//! by path.
#![allow(dead_code)]

use litmus_engine::testgen::Rng;

/// The generator's state for one program.
struct Draw {
    rng: Rng,
    vars: Vec<&'static str>,
    mutex: bool,
    /// Registers of the current thread so far.
    regs: usize,
    /// Loop counters of the current thread so far.
    loops: usize,
    out: String,
}

impl Draw {
    fn var(&mut self) -> &'static str {
        self.vars[self.rng.below(self.vars.len() as u64) as usize]
    }
    fn reg(&mut self) -> String {
        self.regs += 1;
        format!("r{}", self.regs - 1)
    }
    /// A register assigned before, if any.
    fn old_reg(&mut self) -> Option<String> {
        (self.regs > 0).then(|| format!("r{}", self.rng.below(self.regs as u64)))
    }
    fn value(&mut self) -> String {
        match self.old_reg() {
            Some(r) if self.rng.chance(30) => format!("{r} + 1"),
            _ => format!("{}", self.rng.below(4)),
        }
    }
    fn line(&mut self, indent: usize, s: &str) {
        self.out += &"  ".repeat(indent);
        self.out += s;
        self.out += "\n";
    }
    /// One statement; `depth` bounds nesting, `in_lock` keeps locks and awaits out of a
    /// locked section.
    fn stmt(&mut self, indent: usize, depth: u32, in_lock: bool) {
        let k = self.rng.below(100);
        match k {
            0..=27 => {
                let (x, v) = (self.var(), self.value());
                self.line(indent, &format!("{x} = {v};"));
            }
            28..=49 => {
                let x = self.var();
                let r = self.reg();
                self.line(indent, &format!("{r} = {x};"));
            }
            50..=61 if depth > 0 => {
                let x = self.var();
                let (op, v) = match self.rng.below(3) {
                    0 => (">", 0),
                    1 => ("==", 1 + self.rng.below(2)),
                    _ => ("!=", self.rng.below(2)),
                };
                self.line(indent, &format!("if ({x} {op} {v}) {{"));
                self.stmt(indent + 1, depth - 1, in_lock);
                if self.rng.chance(40) {
                    self.stmt(indent + 1, depth - 1, in_lock);
                }
                if self.rng.chance(40) {
                    self.line(indent, "} else {");
                    self.stmt(indent + 1, depth - 1, in_lock);
                }
                self.line(indent, "}");
            }
            62..=75 if depth > 0 && self.mutex && !in_lock => {
                self.line(indent, "lock(l);");
                for _ in 0..1 + self.rng.below(2) {
                    self.stmt(indent + 1, depth - 1, true);
                }
                self.line(indent, "unlock(l);");
            }
            76..=83 => {
                let x = self.var();
                let r = self.reg();
                let rmw = match self.rng.below(3) {
                    0 => format!("fetch_add({x}, 1)"),
                    1 => format!("cas({x}, 0, {})", 1 + self.rng.below(2)),
                    _ => format!("xchg({x}, {})", 1 + self.rng.below(2)),
                };
                self.line(indent, &format!("{r} = {rmw};"));
            }
            84..=89 if !in_lock => {
                let x = self.var();
                let v = self.rng.below(3);
                self.line(indent, &format!("await({x} == {v});"));
            }
            90..=95 => match self.old_reg() {
                Some(r) => {
                    let v = self.rng.below(3);
                    self.line(indent, &format!("assert({r} != {v});"));
                }
                None => self.line(indent, "fence;"),
            },
            _ => self.line(indent, "fence;"),
        }
    }
    /// A top-level item: a register loop of 1-3 rounds around 1-3 statements, or a statement.
    fn item(&mut self) {
        if self.rng.chance(55) {
            let i = format!("i{}", self.loops);
            self.loops += 1;
            let n = 1 + self.rng.below(3);
            self.line(1, &format!("{i} = 0;"));
            self.line(1, &format!("while ({i} < {n}) {{"));
            for _ in 0..1 + self.rng.below(3) {
                self.stmt(2, 2, false);
            }
            self.line(2, &format!("{i} = {i} + 1;"));
            self.line(1, "}");
        } else {
            self.stmt(1, 2, false);
        }
    }
}

/// The held-out program of `seed`: 2-3 threads over two or three shared locations, a mutex in
/// three programs of five, each thread 1-3 items (a register loop of 1-3 rounds or a
/// statement: stores, loads, `if`s on memory, locked sections, RMWs, awaits, assertions,
/// fences). The same seed gives the same program.
pub fn heldout(seed: u64) -> String {
    let mut rng = Rng::new(seed ^ 0x005e_ed58);
    let nvars = 2 + rng.below(2) as usize;
    let mutex = rng.chance(60);
    let mut d = Draw {
        rng,
        vars: ["x", "y", "z"][..nvars].to_vec(),
        mutex,
        regs: 0,
        loops: 0,
        out: String::new(),
    };
    let decl: Vec<String> = d.vars.iter().map(|v| format!("{v} = 0")).collect();
    d.out += &format!("litmus Heldout{seed}\nshared {};\n", decl.join(", "));
    if mutex {
        d.out += "mutex l;\n";
    }
    let threads = 2 + d.rng.below(2);
    for t in 0..threads {
        d.regs = 0;
        d.loops = 0;
        d.out += &format!("thread T{t} {{\n");
        for _ in 0..1 + d.rng.below(3) {
            d.item();
        }
        d.out += "}\n";
    }
    d.out
}
