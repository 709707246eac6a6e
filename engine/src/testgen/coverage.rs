//! Which constructs of the native language a program has, for the generator's coverage
//! table (`engine/tests/generator.rs`).

use crate::ast::*;
use std::collections::BTreeSet;

/// One construct of the native language (`docs/reference.md#native`), as the coverage table
/// counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Construct {
    Threads2,
    Threads3,
    Threads4,
    StoreScalar,
    StoreArray,
    LoadScalar,
    LoadArray,
    /// Two loads in one expression (`x + y`, `x && y`).
    TwoLoads,
    /// An array index that is a register (may be out of bounds).
    IndexRegister,
    Fence,
    Xchg,
    Cas,
    FetchAdd,
    /// An RMW without a destination register (`fetch_add(x, 1);`).
    RmwBare,
    RmwArray,
    Lock,
    Unlock,
    /// A thread holding two mutexes at once.
    TwoMutexes,
    /// Two threads taking the same two mutexes in opposite orders.
    LockInversion,
    Await,
    Assume,
    Assert,
    If,
    IfElse,
    ElseIf,
    WhileRegister,
    WhileMemory,
    /// A register assigned twice.
    RegisterReused,
    /// Division or remainder by a register.
    DivisionByRegister,
    Neg,
    Not,
    Arithmetic,
    Comparison,
    Logical,
    Exists,
    NotExists,
    Forall,
    CondRegister,
    CondScalar,
    CondArray,
    CondAnd,
    CondOr,
    CondNot,
    /// A comparison other than `==` in the condition.
    CondCompare,
    NonZeroInit,
}

impl Construct {
    pub const ALL: [Construct; 45] = [
        Construct::Threads2,
        Construct::Threads3,
        Construct::Threads4,
        Construct::StoreScalar,
        Construct::StoreArray,
        Construct::LoadScalar,
        Construct::LoadArray,
        Construct::TwoLoads,
        Construct::IndexRegister,
        Construct::Fence,
        Construct::Xchg,
        Construct::Cas,
        Construct::FetchAdd,
        Construct::RmwBare,
        Construct::RmwArray,
        Construct::Lock,
        Construct::Unlock,
        Construct::TwoMutexes,
        Construct::LockInversion,
        Construct::Await,
        Construct::Assume,
        Construct::Assert,
        Construct::If,
        Construct::IfElse,
        Construct::ElseIf,
        Construct::WhileRegister,
        Construct::WhileMemory,
        Construct::RegisterReused,
        Construct::DivisionByRegister,
        Construct::Neg,
        Construct::Not,
        Construct::Arithmetic,
        Construct::Comparison,
        Construct::Logical,
        Construct::Exists,
        Construct::NotExists,
        Construct::Forall,
        Construct::CondRegister,
        Construct::CondScalar,
        Construct::CondArray,
        Construct::CondAnd,
        Construct::CondOr,
        Construct::CondNot,
        Construct::CondCompare,
        Construct::NonZeroInit,
    ];
}

/// The constructs `test` has.
pub fn constructs(test: &Test) -> BTreeSet<Construct> {
    let mut c = Walk::default();
    match test.threads.len() {
        2 => c.out.insert(Construct::Threads2),
        3 => c.out.insert(Construct::Threads3),
        _ => c.out.insert(Construct::Threads4),
    };
    if test.shared.iter().any(|d| d.init.iter().any(|&v| v != 0)) {
        c.out.insert(Construct::NonZeroInit);
    }
    // Ordered pairs (first, second) of mutexes some thread holds together.
    let mut orders: Vec<BTreeSet<(usize, usize)>> = Vec::new();
    for th in &test.threads {
        c.held.clear();
        c.assigned.clear();
        c.orders.clear();
        c.stmts(test, &th.body, false);
        orders.push(std::mem::take(&mut c.orders));
    }
    for (i, a) in orders.iter().enumerate() {
        for b in &orders[i + 1..] {
            if a.iter().any(|&(m, n)| b.contains(&(n, m))) {
                c.out.insert(Construct::LockInversion);
            }
        }
    }
    if let Some(cond) = &test.condition {
        c.out.insert(match cond.quantifier {
            Quantifier::Exists => Construct::Exists,
            Quantifier::NotExists => Construct::NotExists,
            Quantifier::Forall => Construct::Forall,
        });
        c.cond_expr(test, &cond.expr);
    }
    c.out
}

#[derive(Default)]
struct Walk {
    out: BTreeSet<Construct>,
    /// Mutexes the current thread holds (in straight-line order, as written).
    held: Vec<usize>,
    orders: BTreeSet<(usize, usize)>,
    assigned: BTreeSet<String>,
}

impl Walk {
    fn assign(&mut self, r: &str) {
        if !self.assigned.insert(r.to_string()) {
            self.out.insert(Construct::RegisterReused);
        }
    }

    fn loc(&mut self, test: &Test, l: &LocRef, store: bool) {
        let array = test.shared.get(l.var).is_some_and(|d| d.is_array());
        self.out.insert(match (store, array) {
            (true, false) => Construct::StoreScalar,
            (true, true) => Construct::StoreArray,
            (false, false) => Construct::LoadScalar,
            (false, true) => Construct::LoadArray,
        });
        if let Some(ix) = &l.index {
            if !matches!(ix.kind, ExprKind::Int(_)) {
                self.out.insert(Construct::IndexRegister);
            }
            self.expr(test, ix);
        }
    }

    /// A thread's expression; returns how many loads it has.
    fn expr(&mut self, test: &Test, e: &Expr) -> usize {
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Reg(_) | ExprKind::ThreadReg { .. } => 0,
            ExprKind::Load(l) => {
                self.loc(test, l, false);
                1
            }
            ExprKind::Unary(op, a) => {
                self.out.insert(if *op == UnOp::Neg {
                    Construct::Neg
                } else {
                    Construct::Not
                });
                self.expr(test, a)
            }
            ExprKind::Binary(op, a, b) => {
                self.op(*op);
                if matches!(op, BinOp::Div | BinOp::Rem) && !matches!(b.kind, ExprKind::Int(_)) {
                    self.out.insert(Construct::DivisionByRegister);
                }
                let n = self.expr(test, a) + self.expr(test, b);
                if n >= 2 {
                    self.out.insert(Construct::TwoLoads);
                }
                n
            }
        }
    }

    fn op(&mut self, op: BinOp) {
        self.out.insert(match op {
            BinOp::And | BinOp::Or | BinOp::Implies => Construct::Logical,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
                Construct::Comparison
            }
            _ => Construct::Arithmetic,
        });
    }

    fn stmts(&mut self, test: &Test, body: &[Stmt], in_else: bool) {
        for s in body {
            self.stmt(test, s, in_else && body.len() == 1);
        }
    }

    fn stmt(&mut self, test: &Test, s: &Stmt, sole_else: bool) {
        match &s.kind {
            StmtKind::Store { loc, value } => {
                self.loc(test, loc, true);
                self.expr(test, value);
            }
            StmtKind::Assign { reg, value } => {
                self.assign(&reg.text);
                self.expr(test, value);
            }
            StmtKind::Fence => {
                self.out.insert(Construct::Fence);
            }
            StmtKind::Lock { mutex, .. } => {
                self.out.insert(Construct::Lock);
                for &h in &self.held {
                    self.out.insert(Construct::TwoMutexes);
                    self.orders.insert((h, *mutex));
                }
                self.held.push(*mutex);
            }
            StmtKind::Unlock { mutex, .. } => {
                self.out.insert(Construct::Unlock);
                self.held.retain(|h| h != mutex);
            }
            StmtKind::Rmw {
                dest,
                op,
                loc,
                args,
            } => {
                self.out.insert(match op {
                    RmwOp::Xchg => Construct::Xchg,
                    RmwOp::Cas => Construct::Cas,
                    _ => Construct::FetchAdd,
                });
                match dest {
                    Some(d) => self.assign(&d.text),
                    None => {
                        self.out.insert(Construct::RmwBare);
                    }
                }
                if test.shared.get(loc.var).is_some_and(|d| d.is_array()) {
                    self.out.insert(Construct::RmwArray);
                }
                self.loc(test, loc, true);
                for a in args {
                    self.expr(test, a);
                }
            }
            StmtKind::Assert(e) | StmtKind::Assume(e) | StmtKind::Await(e) => {
                self.out.insert(match &s.kind {
                    StmtKind::Assert(_) => Construct::Assert,
                    StmtKind::Assume(_) => Construct::Assume,
                    _ => Construct::Await,
                });
                self.expr(test, e);
            }
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => {
                self.out.insert(if sole_else {
                    Construct::ElseIf
                } else if else_body.is_empty() {
                    Construct::If
                } else {
                    Construct::IfElse
                });
                self.expr(test, cond);
                self.stmts(test, then_body, false);
                self.stmts(test, else_body, true);
            }
            StmtKind::While { cond, body } => {
                let loads = self.expr(test, cond);
                self.out.insert(if loads > 0 {
                    Construct::WhileMemory
                } else {
                    Construct::WhileRegister
                });
                self.stmts(test, body, false);
            }
        }
    }

    fn cond_expr(&mut self, test: &Test, e: &Expr) {
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Reg(_) => {}
            ExprKind::ThreadReg { .. } => {
                self.out.insert(Construct::CondRegister);
            }
            ExprKind::Load(l) => {
                let array = test.shared.get(l.var).is_some_and(|d| d.is_array());
                self.out.insert(if array {
                    Construct::CondArray
                } else {
                    Construct::CondScalar
                });
            }
            ExprKind::Unary(op, a) => {
                if *op == UnOp::Not {
                    self.out.insert(Construct::CondNot);
                }
                self.cond_expr(test, a);
            }
            ExprKind::Binary(op, a, b) => {
                match op {
                    BinOp::And => self.out.insert(Construct::CondAnd),
                    BinOp::Or => self.out.insert(Construct::CondOr),
                    BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Ne => {
                        self.out.insert(Construct::CondCompare)
                    }
                    _ => false,
                };
                self.cond_expr(test, a);
                self.cond_expr(test, b);
            }
        }
    }
}
