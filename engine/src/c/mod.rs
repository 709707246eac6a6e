//! herd's `C` dialect (the Linux kernel's and C11 litmus tests) as the axiomatic engine will
//! run it: per thread, statements whose memory operations are herd's primitives
//! (`__load{ONCE}`, `__store{RELEASE}`, `__fence{mb}`, `__xchg{mb}`, `__cmpxchg`, the atomic
//! operations, locks, SRCU) with their annotation, or the C11 operations tagged by their
//! memory order. The parallel of [`crate::asm::Code`] for AArch64 and RISC-V.
//!
//! Three steps, so that the engine does no I/O and an editor gets syntax errors without a
//! model: the front end (`syntax::c`) reads a test to [`Source`] (C expressions as written,
//! macros as calls); [`def::Defs::parse`] reads the model's `.def` file, given as text;
//! [`lower`] expands every call through the `.def` file (and C11's built-in
//! `atomic_*_explicit` forms) to a [`Program`], with an error at the call for anything
//! unknown. Design: `docs/design/front-end.md#herds-c-dialect`.

pub mod def;
mod lower;
mod ops;
pub mod source;

pub use def::{DefError, Defs};
pub use lower::{lower, MAX_EXPANSION_DEPTH};
pub use source::{Expected, Source};

use crate::ast::Name;
use crate::span::Span;

/// What the operational engines (a mixed run of `litmus check`, the editor) say of a C test.
pub const NOT_AVAILABLE: &str = "checking herd's C tests (the Linux kernel's and C11) here is \
     not available yet: `litmus check` answers them, with the axiomatic engine under the \
     user's model, when every file of the run is a C test";

/// A C11 memory order (`memory_order_acquire`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryOrder {
    Relaxed,
    Consume,
    Acquire,
    Release,
    AcqRel,
    SeqCst,
}

impl MemoryOrder {
    /// `memory_order_acquire` → `Acquire`.
    pub fn from_name(name: &str) -> Option<MemoryOrder> {
        Some(match name.strip_prefix("memory_order_")? {
            "relaxed" => MemoryOrder::Relaxed,
            "consume" => MemoryOrder::Consume,
            "acquire" => MemoryOrder::Acquire,
            "release" => MemoryOrder::Release,
            "acq_rel" => MemoryOrder::AcqRel,
            "seq_cst" => MemoryOrder::SeqCst,
            _ => return None,
        })
    }
    /// herd's name of the order as a cat tag (`rc11.cat`'s `ACQ`, `REL`, ...).
    pub fn tag(self) -> &'static str {
        match self {
            MemoryOrder::Relaxed => "RLX",
            MemoryOrder::Consume => "CON",
            MemoryOrder::Acquire => "ACQ",
            MemoryOrder::Release => "REL",
            MemoryOrder::AcqRel => "ACQ_REL",
            MemoryOrder::SeqCst => "SC",
        }
    }
}

/// The annotation of a memory operation: a kernel tag from the `.def` file (`ONCE`,
/// `RELEASE`, `MB`, `rmb`, `rcu-lock`, ...), a C11 memory order, or none (a plain C access,
/// `*x = 1`, `r = *x`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Annot {
    Plain,
    Tag(String),
    Order(MemoryOrder),
}

/// A binary operator of C (and of the atomic operations: `__atomic_op(X,&~,V)` is
/// [`BinOp::AndNot`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    AndNot,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LogicalAnd,
    LogicalOr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Not,
    BitNot,
}

/// What a read-modify-write returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Returns {
    /// `__atomic_op` (`atomic_add`): nothing.
    Nothing,
    /// `__atomic_op_return` (`atomic_add_return`): the new value.
    New,
    /// `__atomic_fetch_op` (`atomic_fetch_add`, C11's `atomic_fetch_add_explicit`): the old one.
    Old,
}

/// A lowered expression. Memory is reached only through [`Expr::Load`] and the
/// read-modify-writes; `addr` is always the pointer expression (`READ_ONCE(*x)` loads from
/// `x`'s value, the location the parameter `x` points to).
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Int(i64, Span),
    /// A register, local or parameter of the thread.
    Var(Name),
    /// `&x`: the address of a location named in the init block or a parameter list.
    AddrOf(Name),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`
    Cond(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A load: `r = *x` (plain), `READ_ONCE(*x)` (`__load{ONCE}`), C11's
    /// `atomic_load_explicit(x, memory_order_acquire)`, `srcu_read_lock` (`__load{srcu-lock}`).
    Load {
        annot: Annot,
        addr: Box<Expr>,
        span: Span,
    },
    /// `__xchg{tag}(X,V)`, C11's `atomic_exchange_explicit`: the old value.
    Xchg {
        annot: Annot,
        addr: Box<Expr>,
        value: Box<Expr>,
        span: Span,
    },
    /// `__cmpxchg{tag}(X,V,W)`: writes `W` if `*X == V`; the old value.
    Cmpxchg {
        annot: Annot,
        addr: Box<Expr>,
        old: Box<Expr>,
        new: Box<Expr>,
        span: Span,
    },
    /// C11's `atomic_compare_exchange_{strong,weak}_explicit(X, E, D, success, failure)`:
    /// compares `*X` with `*E`, writes `D` or stores the value read in `*E`; 1 or 0.
    CompareExchange {
        strong: bool,
        addr: Box<Expr>,
        expected: Box<Expr>,
        desired: Box<Expr>,
        success: MemoryOrder,
        failure: MemoryOrder,
        span: Span,
    },
    /// `__atomic_op{tag}(X,op,V)`, `__atomic_op_return`, `__atomic_fetch_op`, C11's
    /// `atomic_fetch_add_explicit` and friends.
    AtomicOp {
        annot: Annot,
        addr: Box<Expr>,
        op: BinOp,
        value: Box<Expr>,
        returns: Returns,
        span: Span,
    },
    /// `__atomic_add_unless{tag}(X,V,W)`: adds `V` unless `*X == W`; whether it added.
    AddUnless {
        annot: Annot,
        addr: Box<Expr>,
        add: Box<Expr>,
        unless: Box<Expr>,
        span: Span,
    },
    /// `__trylock(X)` (`spin_trylock`): 1 if the lock was taken.
    TryLock {
        addr: Box<Expr>,
        span: Span,
    },
    /// `__islocked(X)` (`spin_is_locked`).
    IsLocked {
        addr: Box<Expr>,
        span: Span,
    },
}

/// A lowered statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `int r0;`, `int r1 = e;` (a local, which the final condition reads as `P:r1`).
    Local {
        name: Name,
        value: Option<Expr>,
    },
    /// `r0 = e` (a register or local).
    Assign {
        name: Name,
        value: Expr,
    },
    /// A store: `*x = 1` (plain), `WRITE_ONCE(*x, 1)` (`__store{ONCE}`),
    /// `smp_store_release`, `atomic_store_explicit(x, 1, memory_order_release)`,
    /// `srcu_read_unlock` (`__store{srcu-unlock}`).
    Store {
        annot: Annot,
        addr: Expr,
        value: Expr,
        span: Span,
    },
    /// `__fence{tag}` (`smp_mb()`, `rcu_read_lock()`, ...) or C11's
    /// `atomic_thread_fence(memory_order_*)`.
    Fence {
        annot: Annot,
        span: Span,
    },
    /// `__lock(X)` (`spin_lock`).
    Lock {
        addr: Expr,
        span: Span,
    },
    /// `__unlock(X)` (`spin_unlock`).
    Unlock {
        addr: Expr,
        span: Span,
    },
    /// `__srcu{tag}(X)` (`synchronize_srcu`).
    Srcu {
        tag: String,
        addr: Expr,
        span: Span,
    },
    /// An expression evaluated for its effects (`xchg(x, 1);`, `atomic_add(1, v);`).
    Eval(Expr),
    If {
        cond: Expr,
        then: Vec<Stmt>,
        otherwise: Vec<Stmt>,
    },
    While {
        cond: Expr,
        body: Vec<Stmt>,
    },
}

/// One thread: its name (`P0`), parameters (pointers to shared locations, by name) and body.
#[derive(Clone, Debug, PartialEq)]
pub struct Thread {
    pub name: Name,
    pub params: Vec<source::Param>,
    pub body: Vec<Stmt>,
}

/// A C test with every macro expanded: what the axiomatic engine will run.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    pub threads: Vec<Thread>,
}
