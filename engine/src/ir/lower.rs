//! Lowering an [`ast::Test`] to a [`Program`]: cells numbered, each thread's registers named,
//! statements flattened to instructions (the rules are in the parent module's doc).

use super::{
    reads_memory, Access, Instr, InstrKind, PExpr, Program, Reg, ThreadCode, Var, MAX_CELLS,
};
use crate::ast::{self, BinOp, ExprKind, RmwOp, StmtKind, UnOp};
use crate::span::Span;
use std::collections::HashMap;

impl Program {
    /// Lowers a test. Fails only on an AST that breaks the front end's guarantees (an index
    /// out of range, a `P0:r` reference inside a thread).
    pub fn lower(test: &ast::Test, loop_bound: u32) -> Result<Program, String> {
        Program::lower_with(test, loop_bound, &|| false).map_err(|e| e.to_string())
    }

    /// [`Program::lower`], polling `stop` every [`crate::control::POLL_EVERY`] statements
    /// (a thread may have hundreds of thousands): [`LowerError::Stopped`] once it says stop.
    pub fn lower_with(
        test: &ast::Test,
        loop_bound: u32,
        stop: &dyn Fn() -> bool,
    ) -> Result<Program, LowerError> {
        lower_program(test, loop_bound, stop, false)
    }

    /// [`Program::lower_with`] with side-effect-free loop iterations ended by `assume(false)`
    /// (`super::spin`): the same final states and faults, spin loops cost the same at every loop
    /// bound. Registers are numbered as in [`Program::lower_with`]. `Ok(None)`: no loop of the
    /// test has a side-effect-free path, the program would be [`Program::lower_with`]'s.
    pub fn lower_spins(
        test: &ast::Test,
        loop_bound: u32,
        stop: &dyn Fn() -> bool,
    ) -> Result<Option<Program>, LowerError> {
        if test
            .threads
            .iter()
            .all(|th| super::spin::reduce_block(&th.body).is_none())
        {
            return Ok(None);
        }
        lower_program(test, loop_bound, stop, true).map(Some)
    }
}

fn lower_program(
    test: &ast::Test,
    loop_bound: u32,
    stop: &dyn Fn() -> bool,
    spins: bool,
) -> Result<Program, LowerError> {
    if test.dialect == ast::Dialect::C {
        // The code is in `c::Source`, not the thread bodies: not an empty program either.
        return Err(LowerError::Invalid(crate::c::NOT_AVAILABLE.to_string()));
    }
    if test.dialect.is_asm() {
        // The code is not in the thread bodies: an empty program would be a wrong answer.
        return Err(LowerError::Invalid(crate::asm::NOT_AVAILABLE.to_string()));
    }
    let total: u64 = test.shared.iter().map(|d| d.cells() as u64).sum();
    if total > MAX_CELLS {
        return Err(LowerError::Invalid(format!(
            "{total} shared cells is more than the checker handles ({MAX_CELLS})"
        )));
    }
    let mut vars = Vec::new();
    let mut cells = Vec::new();
    let mut init = Vec::new();
    for d in &test.shared {
        let base = cells.len() as u32;
        match d.size {
            None => cells.push(d.name.text.clone()),
            Some(n) => {
                for i in 0..n {
                    cells.push(format!("{}[{}]", d.name.text, i));
                }
            }
        }
        for i in 0..d.cells() as usize {
            init.push(d.init.get(i).copied().unwrap_or(0));
        }
        vars.push(Var {
            name: d.name.text.clone(),
            base,
            size: d.size,
        });
    }
    let mut threads = Vec::new();
    let mut polls = 0u32;
    let mut stop = || {
        polls = polls.wrapping_add(1);
        polls.is_multiple_of(crate::control::POLL_EVERY) && stop()
    };
    for (ti, th) in test.threads.iter().enumerate() {
        threads.push(lower_thread(test, ti, th, spins, &mut stop)?);
    }
    Ok(Program {
        name: test.name.text.clone(),
        vars,
        cells,
        init,
        mutexes: test.mutexes.iter().map(|m| m.text.clone()).collect(),
        threads,
        loop_bound,
    })
}

/// Why [`Program::lower_with`] gave no program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LowerError {
    /// The AST breaks the front end's guarantees (the message says how).
    Invalid(String),
    /// The caller's stop check said stop (cancel, deadline, memory budget).
    Stopped,
}

impl std::fmt::Display for LowerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LowerError::Invalid(m) => f.write_str(m),
            LowerError::Stopped => f.write_str("stopped before the program was lowered"),
        }
    }
}

impl From<String> for LowerError {
    fn from(m: String) -> LowerError {
        LowerError::Invalid(m)
    }
}

/// A thread's register names in order of first mention, with an index by name (a thread may
/// name tens of thousands of registers: a linear search per mention would be quadratic).
#[derive(Default)]
struct RegNames {
    names: Vec<String>,
    index: HashMap<String, Reg>,
}

impl RegNames {
    fn push_unique(&mut self, s: &str) {
        if !self.index.contains_key(s) {
            self.index.insert(s.to_string(), self.names.len() as Reg);
            self.names.push(s.to_string());
        }
    }
    fn position(&self, s: &str) -> Option<usize> {
        self.index.get(s).map(|&r| r as usize)
    }
}

/// How many temporaries (loads) the left operand of a binary operator may hold before they are
/// folded into one ([`Lowerer::expr`]).
const FOLD_AFTER: u32 = 8;

struct Lowerer<'a, 's> {
    test: &'a ast::Test,
    regs: RegNames,
    stop: &'s mut dyn FnMut() -> bool,
    named: u32,
    next_temp: u32,
    max_temp: u32,
    code: Vec<Instr>,
    n_loops: u32,
}

fn collect_regs_expr(e: &ast::Expr, out: &mut RegNames) {
    match &e.kind {
        ExprKind::Int(_) | ExprKind::ThreadReg { .. } => {}
        ExprKind::Reg(n) => out.push_unique(&n.text),
        ExprKind::Load(l) => {
            if let Some(i) = &l.index {
                collect_regs_expr(i, out)
            }
        }
        ExprKind::Unary(_, a) => collect_regs_expr(a, out),
        ExprKind::Binary(_, a, b) => {
            collect_regs_expr(a, out);
            collect_regs_expr(b, out);
        }
    }
}

fn collect_regs(body: &[ast::Stmt], out: &mut RegNames) {
    for s in body {
        match &s.kind {
            StmtKind::Store { loc, value } => {
                if let Some(i) = &loc.index {
                    collect_regs_expr(i, out)
                }
                collect_regs_expr(value, out);
            }
            StmtKind::Assign { reg, value } => {
                collect_regs_expr(value, out);
                out.push_unique(&reg.text);
            }
            StmtKind::Fence | StmtKind::Lock { .. } | StmtKind::Unlock { .. } => {}
            StmtKind::Rmw {
                dest, loc, args, ..
            } => {
                if let Some(i) = &loc.index {
                    collect_regs_expr(i, out)
                }
                for a in args {
                    collect_regs_expr(a, out)
                }
                if let Some(d) = dest {
                    out.push_unique(&d.text)
                }
            }
            StmtKind::Assert(e) | StmtKind::Assume(e) | StmtKind::Await(e) => {
                collect_regs_expr(e, out)
            }
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => {
                collect_regs_expr(cond, out);
                collect_regs(then_body, out);
                collect_regs(else_body, out);
            }
            StmtKind::While { cond, body } => {
                collect_regs_expr(cond, out);
                collect_regs(body, out);
            }
        }
    }
}

fn collect_cond_regs(e: &ast::Expr, thread: usize, out: &mut RegNames) {
    match &e.kind {
        ExprKind::ThreadReg { thread: t, reg } if *t == thread => out.push_unique(&reg.text),
        ExprKind::Unary(_, a) => collect_cond_regs(a, thread, out),
        ExprKind::Binary(_, a, b) => {
            collect_cond_regs(a, thread, out);
            collect_cond_regs(b, thread, out);
        }
        ExprKind::Load(l) => {
            if let Some(i) = &l.index {
                collect_cond_regs(i, thread, out)
            }
        }
        _ => {}
    }
}

fn lower_thread(
    test: &ast::Test,
    ti: usize,
    th: &ast::Thread,
    spins: bool,
    stop: &mut dyn FnMut() -> bool,
) -> Result<ThreadCode, LowerError> {
    let mut regs = RegNames::default();
    for (n, _) in &th.reg_init {
        regs.push_unique(&n.text);
    }
    collect_regs(&th.body, &mut regs);
    if let Some(c) = &test.condition {
        collect_cond_regs(&c.expr, ti, &mut regs);
    }
    let named = regs.names.len() as u32;
    let mut l = Lowerer {
        test,
        regs,
        stop,
        named,
        next_temp: named,
        max_temp: named,
        code: Vec::new(),
        n_loops: 0,
    };
    // Registers are named from the original body above; the reduced one only copies statements.
    let reduced = if spins {
        super::spin::reduce_block(&th.body)
    } else {
        None
    };
    l.block(reduced.as_deref().unwrap_or(&th.body))?;
    let n_regs = l.max_temp;
    let mut reg_init = vec![0; n_regs as usize];
    for (n, v) in &th.reg_init {
        if let Some(i) = l.regs.position(&n.text) {
            reg_init[i] = *v;
        }
    }
    Ok(ThreadCode {
        name: th.name.text.clone(),
        regs: l.regs.names,
        n_regs,
        reg_init,
        code: l.code,
        n_loops: l.n_loops,
        span: th.span,
    })
}

impl Lowerer<'_, '_> {
    fn pc(&self) -> u32 {
        self.code.len() as u32
    }

    fn emit(&mut self, kind: InstrKind, span: Span, clear_temps: bool) -> usize {
        self.code.push(Instr {
            kind,
            span,
            clear_temps,
        });
        self.code.len() - 1
    }

    fn patch(&mut self, at: usize, to: u32) {
        match &mut self.code[at].kind {
            InstrKind::Jump(t) => *t = to,
            InstrKind::JumpIf { target, .. } => *target = to,
            _ => {}
        }
    }

    fn temp(&mut self) -> Reg {
        let t = self.next_temp;
        self.next_temp += 1;
        self.max_temp = self.max_temp.max(self.next_temp);
        t
    }

    fn reg(&self, name: &ast::Name) -> Reg {
        self.regs.position(&name.text).unwrap_or(0) as Reg
    }

    fn block(&mut self, body: &[ast::Stmt]) -> Result<(), LowerError> {
        for s in body {
            if (self.stop)() {
                return Err(LowerError::Stopped);
            }
            self.stmt(s)?;
        }
        Ok(())
    }

    fn access(&mut self, loc: &ast::LocRef) -> Result<Access, String> {
        if loc.var >= self.test.shared.len() {
            return Err(format!("location #{} is not declared", loc.var));
        }
        let index = match &loc.index {
            Some(i) => Some(self.expr(i)?),
            None => None,
        };
        Ok(Access {
            var: loc.var as u32,
            index,
        })
    }

    fn mutex(&self, m: usize) -> Result<u32, String> {
        if m >= self.test.mutexes.len() {
            return Err(format!("mutex #{m} is not declared"));
        }
        Ok(m as u32)
    }

    fn stmt(&mut self, s: &ast::Stmt) -> Result<(), LowerError> {
        self.next_temp = self.named;
        match &s.kind {
            StmtKind::Store { loc, value } => {
                let loc = self.access(loc)?;
                let value = self.expr(value)?;
                self.emit(InstrKind::Store { loc, value }, s.span, true);
            }
            StmtKind::Assign { reg, value } => {
                let value = self.expr(value)?;
                let dst = self.reg(reg);
                self.emit(InstrKind::Assign { dst, value }, s.span, true);
            }
            StmtKind::Fence => {
                self.emit(InstrKind::Fence, s.span, true);
            }
            StmtKind::Lock { mutex, .. } => {
                let m = self.mutex(*mutex)?;
                self.emit(InstrKind::Lock(m), s.span, true);
            }
            StmtKind::Unlock { mutex, .. } => {
                let m = self.mutex(*mutex)?;
                self.emit(InstrKind::Unlock(m), s.span, true);
            }
            StmtKind::Rmw {
                dest,
                op,
                loc,
                args,
            } => {
                let loc = self.access(loc)?;
                let mut pargs = Vec::new();
                for a in args {
                    pargs.push(self.expr(a)?);
                }
                let want = if *op == RmwOp::Cas { 2 } else { 1 };
                pargs.resize(want, PExpr::Int(0));
                let dst = dest.as_ref().map(|d| self.reg(d));
                self.emit(
                    InstrKind::Rmw {
                        dst,
                        op: *op,
                        loc,
                        args: pargs,
                    },
                    s.span,
                    true,
                );
            }
            StmtKind::Assert(e) => {
                let c = self.expr(e)?;
                self.emit(InstrKind::Assert(c), s.span, true);
            }
            StmtKind::Assume(e) => {
                let c = self.expr(e)?;
                self.emit(InstrKind::Assume(c), s.span, true);
            }
            StmtKind::Await(e) => {
                let retry = self.pc();
                self.emit(InstrKind::AwaitBegin, s.span, false);
                let cond = self.expr(e)?;
                self.emit(InstrKind::AwaitCheck { cond, retry }, s.span, true);
            }
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => {
                let c = self.expr(cond)?;
                let j = self.emit(
                    InstrKind::JumpIf {
                        cond: c,
                        target: 0,
                        when: false,
                    },
                    cond.span,
                    true,
                );
                self.block(then_body)?;
                if else_body.is_empty() {
                    let end = self.pc();
                    self.patch(j, end);
                } else {
                    let k = self.emit(InstrKind::Jump(0), s.span, false);
                    let els = self.pc();
                    self.patch(j, els);
                    self.block(else_body)?;
                    let end = self.pc();
                    self.patch(k, end);
                }
            }
            StmtKind::While { cond, body } => {
                let id = self.n_loops;
                self.n_loops += 1;
                self.emit(InstrKind::LoopEnter(id), s.span, false);
                let head = self.pc();
                self.next_temp = self.named;
                let c = self.expr(cond)?;
                let j = self.emit(
                    InstrKind::JumpIf {
                        cond: c,
                        target: 0,
                        when: false,
                    },
                    cond.span,
                    true,
                );
                self.emit(InstrKind::LoopIter(id), s.span, false);
                self.block(body)?;
                self.emit(InstrKind::Jump(head), s.span, false);
                let exit = self.pc();
                self.patch(j, exit);
                self.emit(InstrKind::LoopEnter(id), s.span, false);
            }
        }
        Ok(())
    }

    /// Emits the loads of `e` (left to right) and returns the pure rest.
    fn expr(&mut self, e: &ast::Expr) -> Result<PExpr, String> {
        Ok(match &e.kind {
            ExprKind::Int(v) => PExpr::Int(*v),
            ExprKind::Reg(n) => PExpr::Reg(self.reg(n)),
            ExprKind::ThreadReg { .. } => {
                return Err("a thread:register reference inside a thread".into());
            }
            ExprKind::Load(loc) => {
                let loc = self.access(loc)?;
                let dst = self.temp();
                self.emit(InstrKind::Load { dst, loc }, e.span, false);
                PExpr::Reg(dst)
            }
            ExprKind::Unary(op, a) => PExpr::Unary(*op, Box::new(self.expr(a)?)),
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or | BinOp::Implies), a, b)
                if reads_memory(b) =>
            {
                // Short-circuit with memory reads on the right: t = lhs as bool; skip rhs
                // when it cannot change the result; t = rhs as bool.
                let pa = self.expr(a)?;
                let t = self.temp();
                let lhs = match op {
                    BinOp::Implies => PExpr::Unary(UnOp::Not, Box::new(pa)),
                    _ => pa,
                };
                let as_bool =
                    |p: PExpr| PExpr::Binary(BinOp::Ne, Box::new(p), Box::new(PExpr::Int(0)));
                self.emit(
                    InstrKind::Assign {
                        dst: t,
                        value: as_bool(lhs),
                    },
                    a.span,
                    false,
                );
                let skip_when = !matches!(op, BinOp::And);
                let j = self.emit(
                    InstrKind::JumpIf {
                        cond: PExpr::Reg(t),
                        target: 0,
                        when: skip_when,
                    },
                    a.span,
                    false,
                );
                let pb = self.expr(b)?;
                self.emit(
                    InstrKind::Assign {
                        dst: t,
                        value: as_bool(pb),
                    },
                    b.span,
                    false,
                );
                let end = self.pc();
                self.patch(j, end);
                PExpr::Reg(t)
            }
            ExprKind::Binary(op, a, b) => {
                let mark = self.next_temp;
                let mut pa = self.expr(a)?;
                // A left operand that loaded many values is folded into one temporary before
                // the right side loads: else a statement of n loads keeps n temporaries, every
                // state of the thread carries them all, and an exploration holds n^2 values
                // (3 GB for `r = x + x + ... + x` with 20,000 terms). Folding frees the left
                // side's temporaries for the right side's loads. Up to FOLD_AFTER of them stay
                // unfolded, so ordinary statements lower (and explore) exactly as before.
                if self.next_temp - mark > FOLD_AFTER && reads_memory(b) {
                    self.next_temp = mark;
                    let t = self.temp();
                    self.emit(InstrKind::Assign { dst: t, value: pa }, a.span, false);
                    pa = PExpr::Reg(t);
                }
                // Loads of the right side write fresh temporaries only, so the left operand's
                // registers keep their values until the pure expression is evaluated.
                let pb = self.expr(b)?;
                PExpr::Binary(*op, Box::new(pa), Box::new(pb))
            }
        })
    }
}
