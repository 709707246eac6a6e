//! The typed, name-resolved AST of one litmus test, shared by both dialects.
//!
//! The front end ([`crate::syntax`]) builds it from the tree-sitter tree; it has already
//! resolved every identifier (a shared location, a mutex or a register), checked the static
//! rules of `docs/reference.md#native` and reported their diagnostics. The engine lowers it to its program IR
//! ([`crate::ir`]). Every node keeps the [`Span`] of the source it came from so that schedules
//! and diagnostics point back at it (for the x86 dialect: the cell of the instruction).

use crate::span::Span;

/// Which surface syntax the test was written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// `litmus NAME ...`
    Native,
    /// `X86 NAME ...` (herd7 format, `docs/reference.md#x86`)
    X86,
    /// `X86_64 NAME ...` (herd7's AT&T-syntax format: `movq $1,(x)`)
    X86_64,
    /// `AArch64 NAME ...` (herd7 format, `docs/arm-riscv.md`): the code is in
    /// [`crate::asm::Code`], the thread bodies here are empty.
    AArch64,
    /// `RISCV NAME ...` (herd7 format, `docs/arm-riscv.md`), as `AArch64`.
    RiscV,
    /// `PPC NAME ...` (herd7's POWER format, `docs/arm-riscv.md`), as `AArch64`.
    Ppc,
    /// `ARM NAME ...` (herd7's ARMv7 format, `docs/arm-riscv.md`), as `AArch64`.
    Arm,
    /// `C NAME ...` (herd7's C dialect: the Linux kernel's and C11 tests,
    /// `docs/reference.md#c`): the code is in [`crate::c::Source`], the thread bodies here
    /// are empty.
    C,
}

impl Dialect {
    /// One of herd's dialects (`X86`, `X86_64`, `AArch64`, `RISCV`): herd's condition syntax
    /// and output.
    pub fn is_herd(self) -> bool {
        self != Dialect::Native
    }

    /// `AArch64`, `RISCV`, `PPC` or `ARM`: code in [`crate::asm::Code`], not in the thread
    /// bodies.
    pub fn is_asm(self) -> bool {
        matches!(
            self,
            Dialect::AArch64 | Dialect::RiscV | Dialect::Ppc | Dialect::Arm
        )
    }
}

/// A name with the span of one of its occurrences.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Name {
    pub text: String,
    pub span: Span,
}

/// One test.
#[derive(Clone, Debug, PartialEq)]
pub struct Test {
    pub dialect: Dialect,
    /// The test name (`SB`, `SB+mfences`).
    pub name: Name,
    /// The optional description string (native) or doc string (x86), without quotes.
    pub description: Option<String>,
    /// Shared locations in declaration order (x86: in order of first mention).
    pub shared: Vec<SharedDecl>,
    /// Mutexes in declaration order.
    pub mutexes: Vec<Name>,
    /// Threads in source order; a thread's index here is its identity everywhere.
    pub threads: Vec<Thread>,
    pub condition: Option<Condition>,
    /// The span of the whole test.
    pub span: Span,
}

/// `shared x = 1` or `shared a[3] = {1, 2, 3}`.
#[derive(Clone, Debug, PartialEq)]
pub struct SharedDecl {
    pub name: Name,
    /// `None` for a scalar, `Some(n)` for an array of `n` cells.
    pub size: Option<u32>,
    /// Initial values: one for a scalar, `size` for an array (defaults already filled in).
    pub init: Vec<i64>,
    /// Span of the whole declarator.
    pub span: Span,
}

impl SharedDecl {
    pub fn is_array(&self) -> bool {
        self.size.is_some()
    }
    /// Number of cells (1 for a scalar).
    pub fn cells(&self) -> u32 {
        self.size.unwrap_or(1)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Thread {
    /// `P0`; for x86 the column header (`P0`).
    pub name: Name,
    /// Registers with a non-zero initial value (x86 init block `0:EAX=2`); others start at 0.
    pub reg_init: Vec<(Name, i64)>,
    pub body: Vec<Stmt>,
    /// The whole thread (x86: the header cell).
    pub span: Span,
}

/// A shared memory location as written: `x` or `a[e]`.
#[derive(Clone, Debug, PartialEq)]
pub struct LocRef {
    /// Index into [`Test::shared`].
    pub var: usize,
    /// The index expression for an array, `None` for a scalar.
    pub index: Option<Box<Expr>>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RmwOp {
    /// `xchg(x, v)`: args = [v]
    Xchg,
    /// `cas(x, old, new)`: args = [old, new]
    Cas,
    /// `fetch_add(x, v)`: args = [v]
    FetchAdd,
    /// x86 `LOCK AND/OR/XOR [x],v`: args = [v]
    FetchAnd,
    FetchOr,
    FetchXor,
}

impl RmwOp {
    /// What the RMW writes when it reads `old`, given its evaluated arguments (missing ones are
    /// 0); `None` for a `cas` that fails and writes nothing.
    pub fn write(self, old: i64, args: &[i64]) -> Option<i64> {
        let arg = |k: usize| args.get(k).copied().unwrap_or(0);
        match self {
            RmwOp::Xchg => Some(arg(0)),
            RmwOp::FetchAdd => Some(old.wrapping_add(arg(0))),
            RmwOp::FetchAnd => Some(old & arg(0)),
            RmwOp::FetchOr => Some(old | arg(0)),
            RmwOp::FetchXor => Some(old ^ arg(0)),
            RmwOp::Cas => (old == arg(0)).then(|| arg(1)),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `x = e;` / `a[i] = e;`
    Store {
        loc: LocRef,
        value: Expr,
    },
    /// `r = e;` (register assignment)
    Assign {
        reg: Name,
        value: Expr,
    },
    /// `fence;` / `MFENCE`
    Fence,
    /// `lock(m);`, index into [`Test::mutexes`]
    Lock {
        mutex: usize,
        name: Name,
    },
    /// `unlock(m);`
    Unlock {
        mutex: usize,
        name: Name,
    },
    /// `r = xchg(x, e);`, `cas`, `fetch_add`, or the bare form with `dest: None`.
    Rmw {
        dest: Option<Name>,
        op: RmwOp,
        loc: LocRef,
        args: Vec<Expr>,
    },
    Assert(Expr),
    Assume(Expr),
    Await(Expr),
    /// `if (c) {..} else if ..` is nested: `else_body` holds one `If`.
    If {
        cond: Expr,
        then_body: Vec<Stmt>,
        else_body: Vec<Stmt>,
    },
    While {
        cond: Expr,
        body: Vec<Stmt>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Mul,
    Div,
    Rem,
    Add,
    Sub,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
    /// `=>` (x86 conditions only)
    Implies,
    /// Bitwise `&`, `|`, `^` and shifts: only produced by x86 instructions (`AND`, `OR`,
    /// `XOR`, `SHL`, `SHR`); no surface syntax writes them. A shift count is taken modulo 64.
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

impl BinOp {
    /// The operator as the native dialect writes it (`=>` for implication).
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::And => "&&",
            BinOp::Or => "||",
            BinOp::Implies => "=>",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// Integer literal, `true` (1), `false` (0).
    Int(i64),
    /// A register of the current thread (in threads only).
    Reg(Name),
    /// A read of a shared location. In a thread: one load event. In the final condition: the
    /// location's final value (the index must then be a constant expression).
    Load(LocRef),
    /// `P0:r0` in the final condition: `thread` indexes [`Test::threads`].
    ThreadReg {
        thread: usize,
        reg: Name,
    },
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Quantifier {
    /// `exists (c)` (and x86 `final c;`)
    Exists,
    /// `forall (c)`
    Forall,
    /// `~exists (c)`
    NotExists,
}

impl serde::Serialize for Quantifier {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl Quantifier {
    pub fn as_str(self) -> &'static str {
        match self {
            Quantifier::Exists => "exists",
            Quantifier::Forall => "forall",
            Quantifier::NotExists => "~exists",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Condition {
    pub quantifier: Quantifier,
    pub expr: Expr,
    /// The whole condition including the quantifier.
    pub span: Span,
}
