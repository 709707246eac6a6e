//! The interpreter: values are sets and relations over one candidate's events, and also
//! events, pairs, tags, tuples, sets of those, functions (closures) and procedures.

use super::cross::forced;
use super::rel::{members, Rel, Set};
use super::{BinOp, Binding, CatError, Cond, Expr, FunDef, Pat, UnOp, Variant};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use super::builtin::BUILTINS;
pub use super::outcome::{Failure, Outcome};
pub use super::value::*;

/// The names in scope: the candidate's base sets and relations, then the model's `let`s.
#[derive(Clone, Debug)]
pub struct Env {
    /// The number of events.
    pub n: usize,
    pub vars: HashMap<String, Value>,
    /// The variants the caller enables (herd's `-variant`, a `.cfg` file's `variant`), which
    /// `if "name"` tests.
    pub variants: BTreeSet<String>,
    /// Each event's value where known (for `different-values`); events past the end have none.
    pub values: Vec<Option<i64>>,
    pub(super) depth: usize,
    /// Where the stack was when the model started (0: not running).
    pub(super) stack_base: usize,
    /// Whether a group of choices of a `with` that a check forbids as a whole runs as one
    /// ([`super::prune`]; on by default, off to compare).
    pub(super) prune: bool,
    /// Whether each choice's own environment is kept ([`super::Model::run`] returns the
    /// chosen one; [`super::Model::run_all`] none).
    pub(super) keep: bool,
    /// Up while a `with`'s expression is evaluated: `cross-unions` then keeps its product
    /// unbuilt ([`super::cross`]).
    pub(super) lazy_cross: bool,
}

/// How deep function calls may nest before the interpreter gives up with an error.
pub(super) const MAX_CALL_DEPTH: usize = 10_000;
/// How much stack the model's function calls may take (threads have 2 MiB by default).
pub(super) const MAX_STACK: usize = 1 << 20;

pub(super) fn stack_address() -> usize {
    let here = 0u8;
    std::hint::black_box(&here) as *const u8 as usize
}

impl Env {
    pub fn new(n: usize) -> Env {
        Env {
            n,
            vars: HashMap::new(),
            variants: BTreeSet::new(),
            values: Vec::new(),
            depth: 0,
            stack_base: 0,
            prune: true,
            keep: true,
            lazy_cross: false,
        }
    }
    pub fn universe(&self) -> Set {
        if self.n == 128 {
            u128::MAX
        } else {
            (1u128 << self.n) - 1
        }
    }
    pub(super) fn as_rel(&self, v: Value, at: usize) -> Result<Rel, CatError> {
        match v {
            Value::Rel(r) => Ok(r),
            Value::Empty => Ok(Rel::empty(self.n)),
            Value::Pair(a, b) => {
                let mut r = Rel::empty(self.n);
                r.add(a, b);
                Ok(r)
            }
            v => Err(CatError::at(
                at,
                &format!("expected a relation, found {}", kind_name(&v)),
            )),
        }
    }
    pub(super) fn as_set(&self, v: Value, at: usize) -> Result<Set, CatError> {
        match v {
            Value::Set(s) => Ok(s),
            Value::Empty => Ok(0),
            Value::Event(e) => Ok(1 << e),
            v => Err(CatError::at(
                at,
                &format!("expected a set of events, found {}", kind_name(&v)),
            )),
        }
    }
    pub(super) fn rel(&mut self, e: &Expr) -> Result<Rel, CatError> {
        let v = self.eval(e)?;
        self.as_rel(v, pos(e))
    }
    pub(super) fn set(&mut self, e: &Expr) -> Result<Set, CatError> {
        let v = self.eval(e)?;
        self.as_set(v, pos(e))
    }

    /// The members of a set of any kind, in order.
    pub(super) fn elements(&self, v: Value, at: usize) -> Result<Vec<Value>, CatError> {
        Ok(match forced(v) {
            Value::Empty => Vec::new(),
            Value::Set(s) => members(s).map(Value::Event).collect(),
            Value::Rel(r) => r
                .pairs()
                .into_iter()
                .map(|(a, b)| Value::Pair(a, b))
                .collect(),
            Value::Values(vs) => vs.to_vec(),
            v => {
                return Err(CatError::at(
                    at,
                    &format!("expected a set, found {}", kind_name(&v)),
                ))
            }
        })
    }

    /// `|`, `&`, `\` on two sets of the same kind.
    pub(super) fn setop(
        &self,
        op: BinOp,
        x: Value,
        y: Value,
        at: usize,
    ) -> Result<Value, CatError> {
        let f = |a: Set, b: Set| match op {
            BinOp::Union => a | b,
            BinOp::Inter => a & b,
            _ => a & !b,
        };
        let (x, y) = (forced(x), forced(y));
        if matches!(x, Value::Values(_)) || matches!(y, Value::Values(_)) {
            let (l, r) = (self.elements(x, at)?, self.elements(y, at)?);
            let inr = |v: &Value| r.iter().any(|w| same(v, w));
            return Ok(match op {
                BinOp::Union => values(l.iter().chain(&r).cloned().collect()),
                BinOp::Inter => values(l.iter().filter(|v| inr(v)).cloned().collect()),
                _ => values(l.iter().filter(|v| !inr(v)).cloned().collect()),
            });
        }
        Ok(match (x, y) {
            (Value::Empty, Value::Empty) => Value::Empty,
            (Value::Set(s), y) => Value::Set(f(s, self.as_set(y, at)?)),
            (x, Value::Set(t)) => Value::Set(f(self.as_set(x, at)?, t)),
            (x, y) => {
                let (r, s) = (self.as_rel(x, at)?, self.as_rel(y, at)?);
                Value::Rel(r.zip(&s, f))
            }
        })
    }

    /// `e ++ s`: `s` with the member `e` added.
    pub(super) fn add(&self, e: Value, s: Value, at: usize) -> Result<Value, CatError> {
        Ok(match (forced(e), forced(s)) {
            (Value::Event(x), Value::Empty) => Value::Set(1 << x),
            (Value::Event(x), Value::Set(s)) => Value::Set(s | 1 << x),
            (Value::Pair(a, b), s @ (Value::Empty | Value::Rel(_))) => {
                let mut r = self.as_rel(s, at)?;
                r.add(a, b);
                Value::Rel(r)
            }
            (e, Value::Empty) => values(vec![canon(e)]),
            (e, Value::Values(vs)) => {
                let mut v = vs.to_vec();
                v.push(canon(e));
                values(v)
            }
            (e, s) => {
                return Err(CatError::at(
                    at,
                    &format!("cannot add {} to {}", kind_name(&e), kind_name(&s)),
                ))
            }
        })
    }

    pub fn eval(&mut self, e: &Expr) -> Result<Value, CatError> {
        Ok(match e {
            Expr::Var(name, at) => self.lookup(name, *at)?,
            Expr::Empty => Value::Empty,
            Expr::Universe => Value::Set(self.universe()),
            Expr::Tag(t, _) => Value::Tag(t.as_str().into()),
            Expr::Set(items, at) => {
                let mut s = Value::Empty;
                for i in items.iter().rev() {
                    let v = self.eval(i)?;
                    s = self.add(v, s, *at)?;
                }
                s
            }
            Expr::Tuple(items, _) => Value::Tuple(Arc::new(
                items
                    .iter()
                    .map(|i| self.eval(i))
                    .collect::<Result<_, _>>()?,
            )),
            Expr::Bin(op, a, b, at) => {
                let x = self.eval(a)?;
                let y = self.eval(b)?;
                match op {
                    BinOp::Union | BinOp::Inter | BinOp::Diff => self.setop(*op, x, y, *at)?,
                    BinOp::Add => self.add(x, y, *at)?,
                    BinOp::Seq => {
                        let (r, s) = (self.as_rel(x, pos(a))?, self.as_rel(y, pos(b))?);
                        Value::Rel(r.seq(&s))
                    }
                    BinOp::Cart => {
                        let (s, t) = (self.as_set(x, pos(a))?, self.as_set(y, pos(b))?);
                        Value::Rel(Rel::cartesian(s, t, self.n))
                    }
                }
            }
            Expr::Un(op, a, _) => match op {
                UnOp::Inverse => Value::Rel(self.rel(a)?.inverse()),
                UnOp::Plus => Value::Rel(self.rel(a)?.plus()),
                UnOp::Star => Value::Rel(self.rel(a)?.plus().with_identity()),
                UnOp::Opt => Value::Rel(self.rel(a)?.with_identity()),
                UnOp::Compl => match self.eval(a)? {
                    Value::Set(s) => Value::Set(!s & self.universe()),
                    Value::Empty => Value::Set(self.universe()),
                    v => {
                        let u = self.universe();
                        let r = self.as_rel(v, pos(a))?;
                        Value::Rel(Rel {
                            rows: r.rows.iter().map(|x| !x & u).collect(),
                        })
                    }
                },
                UnOp::Ident => {
                    let s = self.set(a)?;
                    Value::Rel(Rel::identity(s, self.n))
                }
            },
            Expr::Fun(def) => Value::Fun(Arc::new(Closure {
                def: def.clone(),
                captured: Arc::new(self.capture(&def.free)),
                group: None,
            })),
            Expr::Let(binds, body) => {
                let vals = binds
                    .iter()
                    .map(|(_, v)| self.eval(v))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut saved = Vec::new();
                for ((p, _), v) in binds.iter().zip(vals) {
                    self.bind(p, v, pos(body), &mut saved)?;
                }
                let r = self.eval(body);
                self.restore(saved);
                r?
            }
            Expr::LetRec(binds, body) => {
                let mut saved = Vec::new();
                let r = self
                    .let_rec(binds, &mut saved, pos(body))
                    .and_then(|_| self.eval(body));
                self.restore(saved);
                r?
            }
            Expr::Try(a, b) => {
                let depth = self.depth;
                match self.eval(a) {
                    Ok(v) => v,
                    Err(_) => {
                        self.depth = depth;
                        self.eval(b)?
                    }
                }
            }
            Expr::If(c, a, b) => {
                if self.cond(c)? {
                    self.eval(a)?
                } else {
                    self.eval(b)?
                }
            }
            Expr::Match(e, clauses, default, at) => {
                let v = self.eval(e)?;
                let Value::Tag(t) = v else {
                    return Err(CatError::at(
                        *at,
                        &format!("`match` on tags found {}", kind_name(&v)),
                    ));
                };
                match clauses.iter().find(|(c, _)| **c == *t) {
                    Some((_, body)) => self.eval(body)?,
                    None => match default {
                        Some(d) => self.eval(d)?,
                        None => {
                            return Err(CatError::at(*at, &format!("no clause matches `'{t}`")))
                        }
                    },
                }
            }
            Expr::MatchSet(e, empty, elt, at) => {
                let v = self.eval(e)?;
                let (first, rest) = match canon(forced(v)) {
                    Value::Empty => return self.eval(empty),
                    Value::Set(s) => {
                        let i = s.trailing_zeros() as usize;
                        (Value::Event(i), Value::Set(s & !(1 << i)))
                    }
                    Value::Rel(mut r) => {
                        let (a, b) = r.pairs()[0];
                        r.rows[a] &= !(1 << b);
                        (Value::Pair(a, b), canon(Value::Rel(r)))
                    }
                    Value::Values(vs) => (vs[0].clone(), values(vs[1..].to_vec())),
                    v => {
                        return Err(CatError::at(
                            *at,
                            &format!("`match` on a set found {}", kind_name(&v)),
                        ))
                    }
                };
                let mut saved = Vec::new();
                self.bind(&Pat::Var(elt.elt.clone()), first, *at, &mut saved)?;
                self.bind(&Pat::Var(elt.rest.clone()), rest, *at, &mut saved)?;
                let r = self.eval(&elt.body);
                self.restore(saved);
                r?
            }
            Expr::App(f, arg, at) => {
                let fv = self.eval(f)?;
                let av = self.eval(arg)?;
                self.apply(fv, av, *at, f)?
            }
        })
    }

    pub(super) fn lookup(&self, name: &str, at: usize) -> Result<Value, CatError> {
        if let Some(v) = self.vars.get(name) {
            return Ok(v.clone());
        }
        if let Some(b) = BUILTINS.iter().find(|b| **b == name) {
            return Ok(Value::Builtin(b));
        }
        Err(CatError::at(at, &format!("unknown name `{name}`")))
    }

    pub(super) fn capture(&self, free: &[String]) -> Vec<(String, Value)> {
        free.iter()
            .filter_map(|n| self.vars.get(n).map(|v| (n.clone(), v.clone())))
            .collect()
    }

    pub(super) fn restore(&mut self, saved: Vec<(String, Option<Value>)>) {
        for (n, old) in saved.into_iter().rev() {
            match old {
                Some(v) => self.vars.insert(n, v),
                None => self.vars.remove(&n),
            };
        }
    }

    pub(super) fn set_var(
        &mut self,
        name: &str,
        v: Value,
        saved: &mut Vec<(String, Option<Value>)>,
    ) {
        let old = self.vars.insert(name.to_string(), v);
        saved.push((name.to_string(), old));
    }

    /// Binds a pattern to a value, remembering the old values in `saved`.
    pub(super) fn bind(
        &mut self,
        p: &Pat,
        v: Value,
        at: usize,
        saved: &mut Vec<(String, Option<Value>)>,
    ) -> Result<(), CatError> {
        match p {
            Pat::Var(None) => Ok(()),
            Pat::Var(Some(n)) => {
                self.set_var(n, v, saved);
                Ok(())
            }
            Pat::Tuple(names) => match v {
                Value::Tuple(items) if items.len() == names.len() => {
                    for (n, v) in names.iter().zip(items.iter()) {
                        if let Some(n) = n {
                            self.set_var(n, v.clone(), saved);
                        }
                    }
                    Ok(())
                }
                v => Err(CatError::at(
                    at,
                    &format!(
                        "expected a tuple of {} values, found {}",
                        names.len(),
                        kind_name(&v)
                    ),
                )),
            },
        }
    }

    /// `let rec`: mutually recursive functions, or else the least fixed point of relations.
    pub(super) fn let_rec(
        &mut self,
        binds: &[Binding],
        saved: &mut Vec<(String, Option<Value>)>,
        at: usize,
    ) -> Result<(), CatError> {
        let mut names = Vec::new();
        for (p, _) in binds {
            match p {
                Pat::Var(Some(n)) => names.push(n.clone()),
                _ => return Err(CatError::at(at, "`let rec` binds names, not tuples")),
            }
        }
        let funs: Vec<Option<&Arc<FunDef>>> = binds
            .iter()
            .map(|(_, e)| match e {
                Expr::Fun(d) => Some(d),
                _ => None,
            })
            .collect();
        if funs.iter().all(Option::is_some) {
            let mut free: Vec<String> = funs
                .iter()
                .flatten()
                .flat_map(|d| d.free.iter().cloned())
                .filter(|n| !names.contains(n))
                .collect();
            free.sort();
            free.dedup();
            let group = Arc::new(RecGroup {
                names: names.clone(),
                defs: funs.into_iter().flatten().cloned().collect(),
                captured: Arc::new(self.capture(&free)),
            });
            for (i, n) in names.iter().enumerate() {
                let f = group_fun(&group, i);
                self.set_var(n, f, saved);
            }
            return Ok(());
        }
        if funs.iter().any(Option::is_some) {
            return Err(CatError::at(
                at,
                "`let rec` mixes functions with sets or relations",
            ));
        }
        for n in &names {
            self.set_var(n, Value::Empty, saved);
        }
        // As herd does (`fix_step`): each round evaluates the bindings in order, each seeing
        // the values of those before it in this round. For the non-monotone definitions of
        // the kernel's bell file (`rcu-rscs`, matched by `\`) this order decides the
        // result: evaluated all at once from the last round's values, two critical sections
        // in a row would match the first lock with the second unlock.
        for _round in 0..=self.n * self.n + 1 {
            let mut changed = false;
            for (n, (_, e)) in names.iter().zip(binds) {
                let v = self.eval(e)?;
                changed |= !same(&self.vars[n], &v);
                self.vars.insert(n.clone(), v);
            }
            if !changed {
                break;
            }
        }
        Ok(())
    }

    pub(super) fn cond(&mut self, c: &Cond) -> Result<bool, CatError> {
        Ok(match c {
            Cond::Variant(v) => self.variant(v),
            Cond::Eq(a, b) => {
                let (x, y) = (self.eval(a)?, self.eval(b)?);
                same(&x, &y)
            }
            Cond::Subset(a, b) => {
                let (x, y) = (self.eval(a)?, self.eval(b)?);
                let d = self.setop(BinOp::Diff, x, y, pos(a))?;
                matches!(canon(d), Value::Empty)
            }
            Cond::In(a, b) => {
                let (x, y) = (self.eval(a)?, self.eval(b)?);
                let els = self.elements(y, pos(b))?;
                els.iter().any(|w| same(&x, w))
            }
        })
    }

    pub(super) fn variant(&self, v: &Variant) -> bool {
        match v {
            Variant::Name(n) => self.variants.contains(n),
            Variant::Not(a) => !self.variant(a),
            Variant::And(a, b) => self.variant(a) && self.variant(b),
            Variant::Or(a, b) => self.variant(a) || self.variant(b),
        }
    }

    pub(super) fn apply(
        &mut self,
        f: Value,
        arg: Value,
        at: usize,
        fe: &Expr,
    ) -> Result<Value, CatError> {
        match f {
            Value::Fun(c) => {
                let deep =
                    self.stack_base != 0 && self.stack_base.abs_diff(stack_address()) > MAX_STACK;
                if self.depth >= MAX_CALL_DEPTH || deep {
                    return Err(CatError::at(at, "function calls nested too deeply"));
                }
                let mut saved = Vec::new();
                for (n, v) in c.captured.iter() {
                    self.set_var(n, v.clone(), &mut saved);
                }
                if let Some(g) = &c.group {
                    for (i, n) in g.names.iter().enumerate() {
                        let f = group_fun(g, i);
                        self.set_var(n, f, &mut saved);
                    }
                }
                let r = self.bind(&c.def.pat, arg, at, &mut saved).and_then(|_| {
                    self.depth += 1;
                    let r = self.eval(&c.def.body);
                    self.depth -= 1;
                    r
                });
                self.restore(saved);
                r
            }
            Value::Builtin(b) => self.builtin(b, arg, at),
            v => Err(CatError::at(
                at,
                &format!(
                    "`{}` is {}, not a function",
                    match fe {
                        Expr::Var(n, _) => n.as_str(),
                        _ => "this",
                    },
                    kind_name(&v)
                ),
            )),
        }
    }
}

pub(super) fn pos(e: &Expr) -> usize {
    match e {
        Expr::Var(_, at)
        | Expr::Tag(_, at)
        | Expr::Set(_, at)
        | Expr::Tuple(_, at)
        | Expr::Bin(_, _, _, at)
        | Expr::Un(_, _, at)
        | Expr::App(_, _, at)
        | Expr::Match(_, _, _, at)
        | Expr::MatchSet(_, _, _, at) => *at,
        Expr::Let(_, b) | Expr::LetRec(_, b) => pos(b),
        Expr::Try(a, _) | Expr::If(_, a, _) => pos(a),
        Expr::Fun(f) => pos(&f.body),
        Expr::Empty | Expr::Universe => 0,
    }
}
