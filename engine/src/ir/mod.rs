//! The program IR: each thread of an [`ast::Test`] lowered to a flat sequence of instructions
//! over numbered registers, with shared locations numbered as cells.
//!
//! Lowering rules (`docs/reference.md#native`):
//! - Shared cells are numbered in declaration order: `x` → cell 0, `a[0..3]` → cells 1..4. An
//!   array index is an expression evaluated when the access runs (out of bounds → runtime error).
//! - Every occurrence of a shared location in an expression is one [`InstrKind::Load`] into a
//!   temporary register, left to right; what remains is a pure expression ([`PExpr`]) over
//!   registers. `&&` / `||` whose right side reads memory become conditional jumps, so those
//!   reads happen only when needed; pure right sides short-circuit inside [`PExpr::eval`].
//! - `while` becomes `LoopEnter; head: cond; JumpIf(!cond → exit); LoopIter; body; Jump head;
//!   exit: LoopEnter` where `LoopIter` counts iterations and cuts the execution once the body
//!   would run more than the loop bound.
//! - `await(e)` becomes `start: AwaitBegin; loads of e; AwaitCheck(e, retry: start)`; the
//!   semantics parks a thread whose check fails until memory changes (see
//!   [`crate::semantics`]).
//!
//! Registers `0..named` are the thread's registers as the user named them (reported in final
//! states); the rest are statement-local temporaries, zeroed when their statement completes so
//! that equal states compare equal.
//!
//! Code map: this file defines the IR and how its expressions evaluate; `lower.rs` lowers an
//! [`ast::Test`] to it.

pub mod live;
mod lower;
pub mod spin;

pub use lower::LowerError;

use crate::ast::{self, BinOp, ExprKind, RmwOp, UnOp};
use crate::span::Span;

/// A register number, local to its thread.
pub type Reg = u32;

/// A pure expression over registers (no memory access).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PExpr {
    Int(i64),
    Reg(Reg),
    Unary(UnOp, Box<PExpr>),
    Binary(BinOp, Box<PExpr>, Box<PExpr>),
}

/// A runtime error raised by evaluating a pure expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalError {
    DivByZero,
}

impl PExpr {
    /// Evaluates with C semantics on wrapping 64-bit integers; `&&`/`||` short-circuit.
    pub fn eval(&self, regs: &[i64]) -> Result<i64, EvalError> {
        Ok(match self {
            PExpr::Int(v) => *v,
            PExpr::Reg(r) => regs.get(*r as usize).copied().unwrap_or(0),
            PExpr::Unary(op, e) => {
                let v = e.eval(regs)?;
                match op {
                    UnOp::Neg => v.wrapping_neg(),
                    UnOp::Not => (v == 0) as i64,
                }
            }
            PExpr::Binary(op, a, b) => {
                let x = a.eval(regs)?;
                match op {
                    BinOp::And => return Ok((x != 0 && b.eval(regs)? != 0) as i64),
                    BinOp::Or => return Ok((x != 0 || b.eval(regs)? != 0) as i64),
                    BinOp::Implies => return Ok((x == 0 || b.eval(regs)? != 0) as i64),
                    _ => {}
                }
                let y = b.eval(regs)?;
                binop(*op, x, y)?
            }
        })
    }
}

/// A strict binary operator on two values (`&&`, `||`, `=>` included, without short-circuit).
pub fn binop(op: BinOp, x: i64, y: i64) -> Result<i64, EvalError> {
    Ok(match op {
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Div => {
            if y == 0 {
                return Err(EvalError::DivByZero);
            }
            x.wrapping_div(y)
        }
        BinOp::Rem => {
            if y == 0 {
                return Err(EvalError::DivByZero);
            }
            x.wrapping_rem(y)
        }
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Lt => (x < y) as i64,
        BinOp::Le => (x <= y) as i64,
        BinOp::Gt => (x > y) as i64,
        BinOp::Ge => (x >= y) as i64,
        BinOp::Eq => (x == y) as i64,
        BinOp::Ne => (x != y) as i64,
        BinOp::And => (x != 0 && y != 0) as i64,
        BinOp::Or => (x != 0 || y != 0) as i64,
        BinOp::Implies => (x == 0 || y != 0) as i64,
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        BinOp::Shl => x.wrapping_shl(y as u32),
        BinOp::Shr => ((x as u64).wrapping_shr(y as u32)) as i64,
    })
}

/// A shared location as accessed by an instruction: a variable and, for an array, the index.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    /// Index into [`Program::vars`].
    pub var: u32,
    /// The index expression for an array, `None` for a scalar.
    pub index: Option<PExpr>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum InstrKind {
    // ---- visible instructions: each is one step of a schedule ----
    /// `dst = loc` (one load event).
    Load {
        dst: Reg,
        loc: Access,
    },
    /// `loc = value` (one store event; buffered under TSO/PSO).
    Store {
        loc: Access,
        value: PExpr,
    },
    Fence,
    /// Index into [`Program::mutexes`].
    Lock(u32),
    Unlock(u32),
    /// `dst = op(loc, args...)`, atomic, drains the buffers first.
    Rmw {
        dst: Option<Reg>,
        op: RmwOp,
        loc: Access,
        args: Vec<PExpr>,
    },
    // ---- local instructions: run silently unless they fault ----
    /// `dst = value`.
    Assign {
        dst: Reg,
        value: PExpr,
    },
    Jump(u32),
    /// Jump to `target` when `(cond != 0) == when`.
    JumpIf {
        cond: PExpr,
        target: u32,
        when: bool,
    },
    Assert(PExpr),
    Assume(PExpr),
    /// Starts one evaluation round of an `await`: from here on the semantics notes whether
    /// memory changes before the round's check.
    AwaitBegin,
    /// Continue if `cond` holds; else restart at `retry` (the `AwaitBegin`): at once if memory
    /// changed during the round, otherwise once memory changes (the thread is parked).
    AwaitCheck {
        cond: PExpr,
        retry: u32,
    },
    /// Reset the iteration counter of loop `n`.
    LoopEnter(u32),
    /// Count one iteration of loop `n`; beyond the bound the execution is cut.
    LoopIter(u32),
}

impl InstrKind {
    /// Whether the instruction is a step of its own (accesses memory, a fence, or a mutex).
    pub fn is_visible(&self) -> bool {
        matches!(
            self,
            InstrKind::Load { .. }
                | InstrKind::Store { .. }
                | InstrKind::Fence
                | InstrKind::Lock(_)
                | InstrKind::Unlock(_)
                | InstrKind::Rmw { .. }
        )
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Instr {
    pub kind: InstrKind,
    pub span: Span,
    /// Zero the temporaries after this instruction (it completes a statement).
    pub clear_temps: bool,
}

/// A shared variable: a scalar (one cell) or an array (consecutive cells).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Var {
    pub name: String,
    /// First cell.
    pub base: u32,
    /// `None` for a scalar.
    pub size: Option<u32>,
}

impl Var {
    pub fn cells(&self) -> u32 {
        self.size.unwrap_or(1)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadCode {
    pub name: String,
    /// Names of registers `0..regs.len()` (the user's registers, reported in final states).
    pub regs: Vec<String>,
    /// Total registers including temporaries.
    pub n_regs: u32,
    /// Initial register values (length `n_regs`).
    pub reg_init: Vec<i64>,
    pub code: Vec<Instr>,
    /// Number of `while` loops (iteration counters).
    pub n_loops: u32,
    pub span: Span,
}

/// The most shared cells a program may have (arrays included).
pub const MAX_CELLS: u64 = 1 << 16;

/// A lowered test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    pub name: String,
    pub vars: Vec<Var>,
    /// Name of each cell: `x`, `a[1]`.
    pub cells: Vec<String>,
    /// Initial value of each cell.
    pub init: Vec<i64>,
    pub mutexes: Vec<String>,
    pub threads: Vec<ThreadCode>,
    pub loop_bound: u32,
}

impl Program {
    /// The cell an access denotes given the thread's registers, or a runtime error message.
    pub fn resolve(&self, acc: &Access, regs: &[i64]) -> Result<u32, String> {
        let var = self.vars.get(acc.var as usize).ok_or("unknown location")?;
        match (&acc.index, var.size) {
            (None, _) => Ok(var.base),
            (Some(ix), Some(n)) => {
                let i = ix.eval(regs).map_err(|_| "division by zero".to_string())?;
                if i < 0 || i >= n as i64 {
                    Err(format!("index {i} out of bounds for {}[{n}]", var.name))
                } else {
                    Ok(var.base + i as u32)
                }
            }
            (Some(_), None) => Err(format!("{} is not an array", var.name)),
        }
    }

    /// Final-state key of register `reg` of thread `t`: `P0:r0`.
    pub fn reg_key(&self, t: usize, reg: usize) -> String {
        format!("{}:{}", self.threads[t].name, self.threads[t].regs[reg])
    }
}

/// Whether evaluating `e` in a thread reads shared memory.
pub fn reads_memory(e: &ast::Expr) -> bool {
    match &e.kind {
        ExprKind::Load(_) => true,
        ExprKind::Int(_) | ExprKind::Reg(_) | ExprKind::ThreadReg { .. } => false,
        ExprKind::Unary(_, a) => reads_memory(a),
        ExprKind::Binary(_, a, b) => reads_memory(a) || reads_memory(b),
    }
}
