//! The paths of one thread of a C test ([`crate::c::Program`]) as herd's C semantics builds
//! them (`herd/CSem.ml`): every read takes every value its location may hold, `if`/`else`
//! follow the values, the read-modify-writes are a read and a write joined by `rmw` (C11's
//! are one event, both a read and a write), the lock primitives are lock events, and the
//! dependencies go through registers and locals: `addr` from a read to an access whose
//! address it computes, `data` to a write whose value it computes, `ctrl` to every event
//! inside a branch on it (not after the `if`, as herd does).

use super::AxError;
use crate::c::{Annot, BinOp, Expr, Program, Stmt, UnOp};
use std::collections::{BTreeMap, BTreeSet};

/// What an event of a C execution is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CKind {
    /// A read (also `srcu_read_lock`'s event is not one: see `Srcu`).
    R,
    W,
    /// A C11 read-modify-write: one event, both a read and a write.
    U,
    F,
    /// A lock event (`LKR`, `LKW`, `UL`, `LF`, `RL`, `RU`: its tag says which): a memory
    /// event in neither `R` nor `W` (`lock.cat` puts them there).
    Lock,
    /// An SRCU event (`synchronize_srcu`'s `Sync-srcu`; `srcu_read_lock` and
    /// `srcu_read_unlock` are a read and a write tagged `srcu-lock`, `srcu-unlock`, as the
    /// `.def` file says): not a memory event, but at a location.
    Srcu,
}

/// One event of a C execution.
#[derive(Clone, Debug, PartialEq)]
pub struct CEvent {
    /// `None` for an initial write.
    pub thread: Option<usize>,
    pub kind: CKind,
    /// The location's address (0 for a fence).
    pub addr: i64,
    /// The value read (`R`, `U`) or carried (`Srcu`).
    pub read: i64,
    /// The value written (`W`, `U`, initial writes).
    pub write: i64,
    /// Position in its thread's program order.
    pub po: usize,
    /// The annotation's tags as the model names them (`ONCE`, `MB`, `rcu-lock`, `LKW`,
    /// `ACQ`, ...).
    pub tags: Vec<String>,
    /// Made by an atomic read-modify-write (herd's `RMW` set; a failed `cmpxchg` too).
    pub atomic: bool,
}

impl CEvent {
    pub fn reads(&self) -> bool {
        matches!(self.kind, CKind::R | CKind::U)
    }
    pub fn writes(&self) -> bool {
        matches!(self.kind, CKind::W | CKind::U)
    }
}

/// One path through a thread: its events in program order, its dependencies and `rmw`
/// pairs (indices into `events`), and the final values of its variables.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct CPath {
    pub events: Vec<CEvent>,
    pub addr: Vec<(usize, usize)>,
    pub data: Vec<(usize, usize)>,
    pub ctrl: Vec<(usize, usize)>,
    pub rmw: Vec<(usize, usize)>,
    pub vars: BTreeMap<String, i64>,
    /// It accesses an address that is not a location: no candidate takes it.
    pub bad: bool,
}

/// The reads a value depends on (indices into the thread's events).
pub(super) type Taint = u128;

/// The most events one thread may have.
const MAX_THREAD_EVENTS: usize = 128;
/// How many times a `while` loop's body runs at most (herd's `-unroll` default for C).
pub const UNROLL: usize = 2;

#[derive(Clone, Debug, Default)]
pub(super) struct St {
    pub(super) path: CPath,
    vars: BTreeMap<String, (i64, Taint)>,
    /// The reads every branch so far depended on.
    ctrl: Taint,
    /// It accessed an address that is not a location.
    bad: bool,
}

/// What a thread's paths are built from.
pub struct CCtx<'a> {
    pub thread: usize,
    /// The values each address may hold.
    pub domain: &'a BTreeMap<i64, BTreeSet<i64>>,
    /// The address of each location by name.
    pub locations: &'a BTreeMap<String, i64>,
    /// The initial values of the thread's variables (its parameters among them).
    pub init: BTreeMap<String, i64>,
}

/// Every path of thread `t` of `prog`.
pub fn c_paths(cx: &CCtx, prog: &Program) -> Result<Vec<CPath>, AxError> {
    let t = &prog.threads[cx.thread];
    let mut st = St::default();
    for (k, v) in &cx.init {
        st.vars.insert(k.clone(), (*v, 0));
    }
    let ends = cx.block(&t.body, vec![st])?;
    Ok(ends
        .into_iter()
        .map(|mut s| {
            s.path.bad = s.bad;
            s.path.vars = s.vars.iter().map(|(k, (v, _))| (k.clone(), *v)).collect();
            s.path
        })
        .collect())
}

pub(super) fn tags_of(a: &Annot) -> Vec<String> {
    match a {
        Annot::Plain => Vec::new(),
        Annot::Tag(t) => vec![t.clone()],
        Annot::Order(o) => vec![o.tag().to_string()],
    }
}

pub(super) fn bit(i: usize) -> Taint {
    1 << i
}

fn pairs(from: Taint, to: usize, out: &mut Vec<(usize, usize)>) {
    for a in crate::cat::rel::members(from) {
        out.push((a, to));
    }
}

pub fn binop(op: BinOp, x: i64, y: i64) -> i64 {
    let t = |c: bool| c as i64;
    match op {
        BinOp::Add => x.wrapping_add(y),
        BinOp::Sub => x.wrapping_sub(y),
        BinOp::Mul => x.wrapping_mul(y),
        BinOp::Div => x.checked_div(y).unwrap_or(0),
        BinOp::Rem => x.checked_rem(y).unwrap_or(0),
        BinOp::And => x & y,
        BinOp::Or => x | y,
        BinOp::Xor => x ^ y,
        BinOp::AndNot => x & !y,
        BinOp::Shl => x.wrapping_shl(y as u32),
        BinOp::Shr => x.wrapping_shr(y as u32),
        BinOp::Eq => t(x == y),
        BinOp::Ne => t(x != y),
        BinOp::Lt => t(x < y),
        BinOp::Le => t(x <= y),
        BinOp::Gt => t(x > y),
        BinOp::Ge => t(x >= y),
        BinOp::LogicalAnd => t(x != 0 && y != 0),
        BinOp::LogicalOr => t(x != 0 || y != 0),
    }
}

pub(super) type Alts = Vec<(St, i64, Taint)>;

impl CCtx<'_> {
    /// Adds an event (its `addr` and `ctrl` dependencies with it); its index.
    pub(super) fn push(
        &self,
        st: &mut St,
        kind: CKind,
        addr: i64,
        tags: Vec<String>,
        at: Taint,
    ) -> Result<usize, AxError> {
        let i = st.path.events.len();
        if i >= MAX_THREAD_EVENTS {
            return Err(AxError::new(&format!(
                "a thread has more than {MAX_THREAD_EVENTS} events (the engine's bound)"
            )));
        }
        st.path.events.push(CEvent {
            thread: Some(self.thread),
            kind,
            addr,
            read: 0,
            write: 0,
            po: i,
            tags,
            atomic: false,
        });
        pairs(at, i, &mut st.path.addr);
        pairs(st.ctrl, i, &mut st.path.ctrl);
        if kind != CKind::F && !self.domain.contains_key(&addr) {
            st.bad = true;
        }
        Ok(i)
    }

    /// The values `addr` may hold; when it is not a location (a pointer read from memory
    /// that an incoherent candidate left at 0), 0: the path is marked bad, its writes
    /// count for the domain but no candidate takes it.
    fn values(&self, addr: i64) -> Result<Vec<i64>, AxError> {
        Ok(self
            .domain
            .get(&addr)
            .map_or_else(|| vec![0], |d| d.iter().copied().collect()))
    }

    fn block(&self, stmts: &[Stmt], mut sts: Vec<St>) -> Result<Vec<St>, AxError> {
        for s in stmts {
            let mut next = Vec::new();
            for st in sts {
                self.stmt(s, st, &mut next)?;
            }
            sts = next;
        }
        Ok(sts)
    }

    fn stmt(&self, s: &Stmt, st: St, out: &mut Vec<St>) -> Result<(), AxError> {
        match s {
            Stmt::Local { name, value } => match value {
                None => {
                    let mut st = st;
                    st.vars.entry(name.text.clone()).or_insert((0, 0));
                    out.push(st);
                }
                Some(e) => {
                    for (mut st, v, t) in self.eval(e, st)? {
                        st.vars.insert(name.text.clone(), (v, t));
                        out.push(st);
                    }
                }
            },
            Stmt::Assign { name, value } => {
                for (mut st, v, t) in self.eval(value, st)? {
                    st.vars.insert(name.text.clone(), (v, t));
                    out.push(st);
                }
            }
            Stmt::Store {
                annot, addr, value, ..
            } => {
                for (st, a, at) in self.eval(addr, st)? {
                    for (mut st, v, vt) in self.eval(value, st)? {
                        self.write(&mut st, a, at, tags_of(annot), (v, vt), false)?;
                        out.push(st);
                    }
                }
            }
            Stmt::Fence { annot, .. } => {
                let mut st = st;
                self.push(&mut st, CKind::F, 0, tags_of(annot), 0)?;
                out.push(st);
            }
            Stmt::Lock { addr, .. } => {
                for (mut st, a, at) in self.eval(addr, st)? {
                    self.push(&mut st, CKind::Lock, a, vec!["LKR".into()], at)?;
                    self.push(&mut st, CKind::Lock, a, vec!["LKW".into()], at)?;
                    out.push(st);
                }
            }
            Stmt::Unlock { addr, .. } => {
                for (mut st, a, at) in self.eval(addr, st)? {
                    self.push(&mut st, CKind::Lock, a, vec!["UL".into()], at)?;
                    out.push(st);
                }
            }
            Stmt::Srcu { tag, addr, .. } => {
                for (mut st, a, _) in self.eval(addr, st)? {
                    self.push(&mut st, CKind::Srcu, a, vec![tag.clone()], 0)?;
                    out.push(st);
                }
            }
            Stmt::Eval(e) => {
                out.extend(self.eval(e, st)?.into_iter().map(|x| x.0));
            }
            Stmt::If {
                cond,
                then,
                otherwise,
            } => {
                for (mut st, v, t) in self.eval(cond, st)? {
                    // herd's control dependency covers the branches, not what follows
                    let before = st.ctrl;
                    st.ctrl |= t;
                    let body = if v != 0 { then } else { otherwise };
                    out.extend(self.block(body, vec![st])?.into_iter().map(|mut s| {
                        s.ctrl = before;
                        s
                    }));
                }
            }
            Stmt::While { cond, body } => {
                let before = st.ctrl;
                let mut live = vec![st];
                for round in 0..=UNROLL {
                    let mut cont = Vec::new();
                    for st in live {
                        for (mut st, v, t) in self.eval(cond, st)? {
                            st.ctrl |= t;
                            if v == 0 {
                                st.ctrl = before;
                                out.push(st);
                            } else if round < UNROLL {
                                cont.push(st);
                            }
                            // past the bound: herd's cut-off, the path is dropped
                        }
                    }
                    live = self.block(body, cont)?;
                }
            }
        }
        Ok(())
    }

    /// A read event of every value `a` may hold.
    pub(super) fn reads(
        &self,
        st: St,
        a: i64,
        at: Taint,
        tags: Vec<String>,
        atomic: bool,
    ) -> Result<Vec<(St, usize)>, AxError> {
        let mut out = Vec::new();
        for v in self.values(a)? {
            let mut st = st.clone();
            let i = self.push(&mut st, CKind::R, a, tags.clone(), at)?;
            let e = &mut st.path.events[i];
            e.read = v;
            e.atomic = atomic;
            out.push((st, i));
        }
        Ok(out)
    }

    /// A write of `v` (depending on the reads `vt`) to `a` (depending on `at`).
    pub(super) fn write(
        &self,
        st: &mut St,
        a: i64,
        at: Taint,
        tags: Vec<String>,
        (v, vt): (i64, Taint),
        atomic: bool,
    ) -> Result<usize, AxError> {
        let i = self.push(st, CKind::W, a, tags, at)?;
        let e = &mut st.path.events[i];
        e.write = v;
        e.atomic = atomic;
        pairs(vt, i, &mut st.path.data);
        Ok(i)
    }

    /// A C11 read-modify-write: one event reading every value `a` may hold that `ok`
    /// accepts, writing what `new` makes of it.
    pub(super) fn update(
        &self,
        st: St,
        a: i64,
        at: Taint,
        tags: Vec<String>,
        ok: &dyn Fn(i64) -> bool,
        (new, vt): (&dyn Fn(i64) -> i64, Taint),
    ) -> Result<Vec<(St, usize)>, AxError> {
        let mut out = Vec::new();
        for v in self.values(a)?.into_iter().filter(|v| ok(*v)) {
            let mut st = st.clone();
            let i = self.push(&mut st, CKind::U, a, tags.clone(), at)?;
            let e = &mut st.path.events[i];
            e.read = v;
            e.write = new(v);
            e.atomic = true;
            pairs(vt, i, &mut st.path.data);
            out.push((st, i));
        }
        Ok(out)
    }

    pub(super) fn eval(&self, e: &Expr, st: St) -> Result<Alts, AxError> {
        Ok(match e {
            Expr::Int(v, _) => vec![(st, *v, 0)],
            Expr::Var(n) => {
                let (v, t) = match st.vars.get(&n.text) {
                    Some(x) => *x,
                    None => (self.locations.get(&n.text).copied().unwrap_or(0), 0),
                };
                vec![(st, v, t)]
            }
            Expr::AddrOf(n) => {
                let a = self.locations.get(&n.text).copied().ok_or_else(|| {
                    AxError::at(n.span, &format!("`{}` is not a location", n.text))
                })?;
                vec![(st, a, 0)]
            }
            Expr::Unary(op, x) => self
                .eval(x, st)?
                .into_iter()
                .map(|(s, v, t)| {
                    let v = match op {
                        UnOp::Neg => v.wrapping_neg(),
                        UnOp::Not => (v == 0) as i64,
                        UnOp::BitNot => !v,
                    };
                    (s, v, t)
                })
                .collect(),
            Expr::Binary(op, a, b) => {
                let mut out = Vec::new();
                for (s, x, tx) in self.eval(a, st)? {
                    for (s, y, ty) in self.eval(b, s)? {
                        out.push((s, binop(*op, x, y), tx | ty));
                    }
                }
                out
            }
            Expr::Cond(c, a, b) => {
                let mut out = Vec::new();
                for (s, v, t) in self.eval(c, st)? {
                    let branch = if v != 0 { a } else { b };
                    for (s, x, tx) in self.eval(branch, s)? {
                        out.push((s, x, tx | t));
                    }
                }
                out
            }
            Expr::Load { annot, addr, .. } => {
                let mut out = Vec::new();
                for (st, a, at) in self.eval(addr, st)? {
                    let tags = tags_of(annot);
                    for (st, i) in self.reads(st, a, at, tags, false)? {
                        let v = st.path.events[i].read;
                        out.push((st, v, bit(i)));
                    }
                }
                out
            }
            _ => self.eval_rmw(e, st)?,
        })
    }
}
