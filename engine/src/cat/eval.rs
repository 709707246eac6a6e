//! The interpreter: values are sets and relations over one candidate's events, and also
//! events, pairs, tags, tuples, sets of those, functions (closures) and procedures.

use super::rel::{members, Rel, Set};
use super::{
    BinOp, Binding, CatError, CheckKind, CheckMode, Cond, Expr, FunDef, Pat, Stmt, UnOp, Variant,
};
use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

#[derive(Clone, Debug)]
pub enum Value {
    /// A set of events.
    Set(Set),
    /// A relation over events.
    Rel(Rel),
    /// `0`, `{}`: empty, as a set or a relation as the context needs.
    Empty,
    /// One event (a member of a set, as `match` and `map` see it).
    Event(usize),
    /// One pair of events (a member of a relation).
    Pair(usize, usize),
    /// `'name`
    Tag(Arc<str>),
    Tuple(Arc<Vec<Value>>),
    /// A set of values other than events and pairs (tags, sets, relations, tuples), sorted,
    /// without repeats.
    Values(Arc<Vec<Value>>),
    Fun(Arc<Closure>),
    Proc(Arc<Procedure>),
    /// One of the interpreter's own functions (`domain`, `range`, `linearisations`, ...).
    Builtin(&'static str),
}

/// A function value: its definition and the values of its free names where it was made.
#[derive(Debug)]
pub struct Closure {
    def: Arc<FunDef>,
    captured: Arc<Vec<(String, Value)>>,
    /// For `let rec f x = ... and g y = ...`: the group, so that `f` and `g` see each other.
    group: Option<Arc<RecGroup>>,
}

#[derive(Debug)]
pub struct RecGroup {
    names: Vec<String>,
    defs: Vec<Arc<FunDef>>,
    captured: Arc<Vec<(String, Value)>>,
}

#[derive(Debug)]
pub struct Procedure {
    pat: Pat,
    body: Arc<Vec<Stmt>>,
}

/// The interpreter's own functions, found when no `let` defines the name.
const BUILTINS: [&str; 10] = [
    "domain",
    "range",
    "fencerel",
    "classes-loc",
    "classes",
    "linearisations",
    "different-values",
    "tag2events",
    "tag2set",
    "fail",
];

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
    depth: usize,
    /// Where the stack was when the model started (0: not running).
    stack_base: usize,
}

/// A check that failed: it forbids the candidate (or, for a `flag`, is reported).
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    pub kind: CheckKind,
    /// The check's name (`as name`), or its kind when it has none.
    pub name: String,
    pub negated: bool,
    /// For `acyclic`: a cycle; `irreflexive`: the event related to itself; `empty`: one pair.
    pub events: Vec<usize>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// The first failed check, if any (the candidate is forbidden).
    pub failed: Option<Failure>,
    /// The names of the flags that hold (and of `undefined_unless` checks that fail).
    pub flags: Vec<String>,
}

impl Outcome {
    /// The flags as herd prints them: `Flag data-race`.
    pub fn flag_lines(&self) -> Vec<String> {
        self.flags.iter().map(|f| format!("Flag {f}")).collect()
    }
}

/// How deep function calls may nest before the interpreter gives up with an error.
const MAX_CALL_DEPTH: usize = 10_000;
/// How much stack the model's function calls may take (threads have 2 MiB by default).
const MAX_STACK: usize = 1 << 20;

fn stack_address() -> usize {
    let here = 0u8;
    std::hint::black_box(&here) as *const u8 as usize
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Set(_) => "a set of events",
        Value::Rel(_) => "a relation",
        Value::Empty => "an empty set",
        Value::Event(_) => "an event",
        Value::Pair(..) => "a pair of events",
        Value::Tag(_) => "a tag",
        Value::Tuple(_) => "a tuple",
        Value::Values(_) => "a set of values",
        Value::Fun(_) | Value::Builtin(_) => "a function",
        Value::Proc(_) => "a procedure",
    }
}

fn rank(v: &Value) -> u8 {
    match v {
        Value::Empty => 0,
        Value::Event(_) => 1,
        Value::Pair(..) => 2,
        Value::Tag(_) => 3,
        Value::Set(_) => 4,
        Value::Rel(_) => 5,
        Value::Tuple(_) => 6,
        Value::Values(_) => 7,
        Value::Fun(_) => 8,
        Value::Proc(_) => 9,
        Value::Builtin(_) => 10,
    }
}

/// Empty sets and relations are all [`Value::Empty`], so that sets of values compare them equal.
fn canon(v: Value) -> Value {
    match v {
        Value::Set(0) => Value::Empty,
        Value::Rel(r) if r.is_empty() => Value::Empty,
        Value::Values(vs) if vs.is_empty() => Value::Empty,
        v => v,
    }
}

/// A total order on values (functions by identity), for sets of values.
fn compare(a: &Value, b: &Value) -> Ordering {
    match (a, b) {
        (Value::Event(x), Value::Event(y)) => x.cmp(y),
        (Value::Pair(a1, b1), Value::Pair(a2, b2)) => (a1, b1).cmp(&(a2, b2)),
        (Value::Tag(x), Value::Tag(y)) => x.cmp(y),
        (Value::Set(x), Value::Set(y)) => x.cmp(y),
        (Value::Rel(x), Value::Rel(y)) => x.rows.cmp(&y.rows),
        (Value::Tuple(x), Value::Tuple(y)) | (Value::Values(x), Value::Values(y)) => {
            for (p, q) in x.iter().zip(y.iter()) {
                match compare(p, q) {
                    Ordering::Equal => {}
                    o => return o,
                }
            }
            x.len().cmp(&y.len())
        }
        (Value::Fun(x), Value::Fun(y)) => Arc::as_ptr(x).cmp(&Arc::as_ptr(y)),
        (Value::Proc(x), Value::Proc(y)) => Arc::as_ptr(x).cmp(&Arc::as_ptr(y)),
        (Value::Builtin(x), Value::Builtin(y)) => x.cmp(y),
        _ => rank(a).cmp(&rank(b)),
    }
}

fn same(a: &Value, b: &Value) -> bool {
    compare(&canon(a.clone()), &canon(b.clone())) == Ordering::Equal
}

fn values(mut vs: Vec<Value>) -> Value {
    vs.sort_by(compare);
    vs.dedup_by(|a, b| compare(a, b) == Ordering::Equal);
    if vs.is_empty() {
        Value::Empty
    } else {
        Value::Values(Arc::new(vs))
    }
}

/// `Name` for the tag `'name`: herd's set of the events that carry a tag.
pub fn tag_set_name(tag: &str) -> String {
    let mut c = tag.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
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
        }
    }
    pub fn universe(&self) -> Set {
        if self.n == 128 {
            u128::MAX
        } else {
            (1u128 << self.n) - 1
        }
    }
    fn as_rel(&self, v: Value, at: usize) -> Result<Rel, CatError> {
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
    fn as_set(&self, v: Value, at: usize) -> Result<Set, CatError> {
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
    fn rel(&mut self, e: &Expr) -> Result<Rel, CatError> {
        let v = self.eval(e)?;
        self.as_rel(v, pos(e))
    }
    fn set(&mut self, e: &Expr) -> Result<Set, CatError> {
        let v = self.eval(e)?;
        self.as_set(v, pos(e))
    }

    /// The members of a set of any kind, in order.
    fn elements(&self, v: Value, at: usize) -> Result<Vec<Value>, CatError> {
        Ok(match v {
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
    fn setop(&self, op: BinOp, x: Value, y: Value, at: usize) -> Result<Value, CatError> {
        let f = |a: Set, b: Set| match op {
            BinOp::Union => a | b,
            BinOp::Inter => a & b,
            _ => a & !b,
        };
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
    fn add(&self, e: Value, s: Value, at: usize) -> Result<Value, CatError> {
        Ok(match (e, s) {
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
                let (first, rest) = match canon(v) {
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

    fn lookup(&self, name: &str, at: usize) -> Result<Value, CatError> {
        if let Some(v) = self.vars.get(name) {
            return Ok(v.clone());
        }
        if let Some(b) = BUILTINS.iter().find(|b| **b == name) {
            return Ok(Value::Builtin(b));
        }
        Err(CatError::at(at, &format!("unknown name `{name}`")))
    }

    fn capture(&self, free: &[String]) -> Vec<(String, Value)> {
        free.iter()
            .filter_map(|n| self.vars.get(n).map(|v| (n.clone(), v.clone())))
            .collect()
    }

    fn restore(&mut self, saved: Vec<(String, Option<Value>)>) {
        for (n, old) in saved.into_iter().rev() {
            match old {
                Some(v) => self.vars.insert(n, v),
                None => self.vars.remove(&n),
            };
        }
    }

    fn set_var(&mut self, name: &str, v: Value, saved: &mut Vec<(String, Option<Value>)>) {
        let old = self.vars.insert(name.to_string(), v);
        saved.push((name.to_string(), old));
    }

    /// Binds a pattern to a value, remembering the old values in `saved`.
    fn bind(
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
    fn let_rec(
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
        for _round in 0..=self.n * self.n + 1 {
            let vals = binds
                .iter()
                .map(|(_, e)| self.eval(e))
                .collect::<Result<Vec<_>, _>>()?;
            let mut changed = false;
            for (n, v) in names.iter().zip(vals) {
                changed |= !same(&self.vars[n], &v);
                self.vars.insert(n.clone(), v);
            }
            if !changed {
                break;
            }
        }
        Ok(())
    }

    fn cond(&mut self, c: &Cond) -> Result<bool, CatError> {
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

    fn variant(&self, v: &Variant) -> bool {
        match v {
            Variant::Name(n) => self.variants.contains(n),
            Variant::Not(a) => !self.variant(a),
            Variant::And(a, b) => self.variant(a) && self.variant(b),
            Variant::Or(a, b) => self.variant(a) || self.variant(b),
        }
    }

    fn apply(&mut self, f: Value, arg: Value, at: usize, fe: &Expr) -> Result<Value, CatError> {
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

    fn args(&self, arg: Value, k: usize, f: &str, at: usize) -> Result<Vec<Value>, CatError> {
        match arg {
            Value::Tuple(items) if items.len() == k => Ok(items.to_vec()),
            v if k == 1 => Ok(vec![v]),
            _ => Err(CatError::at(at, &format!("`{f}` takes {k} arguments"))),
        }
    }

    fn builtin(&mut self, b: &str, arg: Value, at: usize) -> Result<Value, CatError> {
        match b {
            "domain" => Ok(Value::Set(self.as_rel(arg, at)?.domain())),
            "range" => Ok(Value::Set(self.as_rel(arg, at)?.range())),
            "fencerel" => {
                // (po & (_ * S)); po
                let s = self.as_set(arg, at)?;
                let po = self.as_rel(self.lookup("po", at)?, at)?;
                let before = po.zip(&Rel::cartesian(self.universe(), s, self.n), |x, y| x & y);
                Ok(Value::Rel(before.seq(&po)))
            }
            "classes-loc" => {
                let s = self.as_set(arg, at)?;
                let loc = self.as_rel(self.lookup("loc", at)?, at)?;
                Ok(self.classes(s, &loc))
            }
            "classes" => {
                let r = self.as_rel(arg, at)?;
                let s = r.domain();
                Ok(self.classes(s, &r))
            }
            "linearisations" => {
                let a = self.args(arg, 2, b, at)?;
                let s = self.as_set(a[0].clone(), at)?;
                let r = self.as_rel(a[1].clone(), at)?;
                Ok(values(linearisations(s, &r, self.n)))
            }
            "different-values" => {
                let r = self.as_rel(arg, at)?;
                let val = |e: usize| self.values.get(e).copied().flatten();
                let mut out = Rel::empty(self.n);
                for (a, b) in r.pairs() {
                    if let (Some(x), Some(y)) = (val(a), val(b)) {
                        if x != y {
                            out.add(a, b);
                        }
                    }
                }
                Ok(Value::Rel(out))
            }
            "tag2events" | "tag2set" => match arg {
                Value::Tag(t) => self.lookup(&tag_set_name(&t), at),
                v => Err(CatError::at(
                    at,
                    &format!("`{b}` takes a tag, found {}", kind_name(&v)),
                )),
            },
            _ => Err(CatError::at(at, "`fail` called")),
        }
    }

    /// The classes of `s` under the equivalence `r`, as a set of sets.
    fn classes(&self, s: Set, r: &Rel) -> Value {
        let mut left = s;
        let mut out = Vec::new();
        while left != 0 {
            let e = left.trailing_zeros() as usize;
            let class = (r.rows[e] | 1 << e) & s;
            out.push(Value::Set(class));
            left &= !class;
        }
        values(out)
    }
}

fn group_fun(g: &Arc<RecGroup>, i: usize) -> Value {
    Value::Fun(Arc::new(Closure {
        def: g.defs[i].clone(),
        captured: g.captured.clone(),
        group: Some(g.clone()),
    }))
}

/// Every strict total order of `s` that contains `r` restricted to `s` (transitively closed).
fn linearisations(s: Set, r: &Rel, n: usize) -> Vec<Value> {
    let evs: Vec<usize> = members(s).collect();
    let mut out = Vec::new();
    let mut order = Vec::new();
    fn go(
        evs: &[usize],
        left: Set,
        r: &Rel,
        n: usize,
        order: &mut Vec<usize>,
        out: &mut Vec<Value>,
    ) {
        if left == 0 {
            let mut t = Rel::empty(n);
            for (i, &a) in order.iter().enumerate() {
                for &b in &order[i + 1..] {
                    t.add(a, b);
                }
            }
            out.push(canon(Value::Rel(t)));
            return;
        }
        for &e in evs {
            // e may come next when nothing left (other than e) must precede it
            let preds = (0..n).filter(|&p| r.has(p, e) && p != e);
            if left >> e & 1 == 1 && preds.clone().all(|p| left >> p & 1 == 0) {
                order.push(e);
                go(evs, left & !(1 << e), r, n, order, out);
                order.pop();
            }
        }
    }
    let restricted = Rel {
        rows: r
            .rows
            .iter()
            .enumerate()
            .map(|(i, row)| if s >> i & 1 == 1 { row & s } else { 0 })
            .collect(),
    };
    go(&evs, s, &restricted, n, &mut order, &mut out);
    out
}

fn pos(e: &Expr) -> usize {
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

/// One way through the model: its outcome and, when it took a choice (`with`), its own
/// environment (`None`: the caller's, as the model left it).
pub(super) type Branch = (Outcome, Option<Env>);

enum Flow {
    Go,
    Stop,
}

pub(super) fn run(
    prelude: &[Stmt],
    stmts: &[Stmt],
    env: &mut Env,
) -> Result<Vec<Branch>, CatError> {
    let base = env.stack_base;
    if base == 0 {
        env.stack_base = stack_address();
    }
    let r = run_model(prelude, stmts, env);
    env.stack_base = base;
    let mut r = r?;
    for (_, e) in r.iter_mut() {
        if let Some(e) = e {
            e.stack_base = 0;
        }
    }
    Ok(r)
}

fn run_model(prelude: &[Stmt], stmts: &[Stmt], env: &mut Env) -> Result<Vec<Branch>, CatError> {
    let mut out = Outcome::default();
    for s in prelude {
        match s {
            // The caller's own values come first; a definition the candidate lacks the base
            // sets for stays undefined (an error only if the model uses it).
            Stmt::Let(binds, _) => {
                for (p, e) in binds {
                    if let Pat::Var(Some(n)) = p {
                        if env.vars.contains_key(n) {
                            continue;
                        }
                    }
                    if let Ok(v) = env.eval(e) {
                        env.bind(p, v, 0, &mut Vec::new())?;
                    }
                }
            }
            s => {
                step(s, env, &mut out)?;
            }
        }
    }
    let mut results = Vec::new();
    let mut origin = None;
    exec(vec![stmts], env, out, &mut results, &mut origin).map_err(|mut e| {
        if e.file.is_none() {
            e.file = origin.map(|o| o.to_string());
        }
        e
    })?;
    Ok(results)
}

/// Runs the blocks (the last one first), branching at `with`.
/// `origin` is the file of the statement being run (for the error, if one is found).
fn exec(
    mut stack: Vec<&[Stmt]>,
    env: &mut Env,
    mut out: Outcome,
    results: &mut Vec<Branch>,
    origin: &mut Option<Arc<str>>,
) -> Result<(), CatError> {
    'blocks: while let Some(block) = stack.pop() {
        for (i, s) in block.iter().enumerate() {
            match s {
                Stmt::Origin(o) => *origin = o.clone(),
                Stmt::IfVariant(v, a, b, _) => {
                    stack.push(&block[i + 1..]);
                    stack.push(if env.variant(v) { a } else { b });
                    continue 'blocks;
                }
                Stmt::Match(e, clauses, default, at) => {
                    let chosen = match_clause(env, e, clauses, default.as_deref(), *at)?;
                    stack.push(&block[i + 1..]);
                    stack.push(chosen);
                    continue 'blocks;
                }
                Stmt::WithFrom(x, e, at) => {
                    let v = env.eval(e)?;
                    let choices = env.elements(v, *at)?;
                    if choices.is_empty() {
                        out.failed = Some(Failure {
                            kind: CheckKind::Empty,
                            name: format!("no choice for `{x}`"),
                            negated: true,
                            events: Vec::new(),
                        });
                        results.push((out, None));
                        return Ok(());
                    }
                    stack.push(&block[i + 1..]);
                    for c in choices {
                        let mut e2 = env.clone();
                        e2.vars.insert(x.clone(), c);
                        let start = results.len();
                        let mut o = origin.clone();
                        exec(stack.clone(), &mut e2, out.clone(), results, &mut o).map_err(
                            |mut e| {
                                if e.file.is_none() {
                                    e.file = o.map(|o| o.to_string());
                                }
                                e
                            },
                        )?;
                        if let Some(r) = results[start..].iter_mut().find(|r| r.1.is_none()) {
                            r.1 = Some(e2);
                        }
                    }
                    return Ok(());
                }
                s => {
                    if let Flow::Stop = step(s, env, &mut out)? {
                        results.push((out, None));
                        return Ok(());
                    }
                }
            }
        }
    }
    results.push((out, None));
    Ok(())
}

fn match_clause<'a>(
    env: &mut Env,
    e: &Expr,
    clauses: &'a [(String, Vec<Stmt>)],
    default: Option<&'a [Stmt]>,
    at: usize,
) -> Result<&'a [Stmt], CatError> {
    let v = env.eval(e)?;
    let Value::Tag(t) = v else {
        return Err(CatError::at(
            at,
            &format!("`match` on tags found {}", kind_name(&v)),
        ));
    };
    match clauses.iter().find(|(c, _)| **c == *t) {
        Some((_, body)) => Ok(body),
        None => default.ok_or_else(|| CatError::at(at, &format!("no clause matches `'{t}`"))),
    }
}

/// Runs statements that cannot branch (a procedure's body, `forall`'s).
fn exec_flat(stmts: &[Stmt], env: &mut Env, out: &mut Outcome) -> Result<Flow, CatError> {
    for s in stmts {
        if let Flow::Stop = step(s, env, out)? {
            return Ok(Flow::Stop);
        }
    }
    Ok(Flow::Go)
}

/// One statement; `Stop` when a check forbids the candidate.
fn step(s: &Stmt, env: &mut Env, out: &mut Outcome) -> Result<Flow, CatError> {
    match s {
        Stmt::Let(binds, at) => {
            let vals = binds
                .iter()
                .map(|(_, e)| env.eval(e))
                .collect::<Result<Vec<_>, _>>()?;
            for ((p, _), v) in binds.iter().zip(vals) {
                match p {
                    Pat::Var(Some(n)) => {
                        env.vars.insert(n.clone(), v);
                    }
                    p => env.bind(p, v, *at, &mut Vec::new())?,
                }
            }
        }
        Stmt::LetRec(binds, at) => env.let_rec(binds, &mut Vec::new(), *at)?,
        Stmt::Check {
            kind,
            negated,
            mode,
            expr,
            name,
            at,
        } => {
            let v = env.eval(expr)?;
            let witness = match (kind, v) {
                (CheckKind::Empty, Value::Set(s)) => {
                    (s != 0).then(|| vec![s.trailing_zeros() as usize])
                }
                (CheckKind::Empty, Value::Values(vs)) => (!vs.is_empty()).then(Vec::new),
                (CheckKind::Empty, Value::Event(e)) => Some(vec![e]),
                (_, v) => {
                    let r = env.as_rel(v, pos(expr).max(*at))?;
                    match kind {
                        CheckKind::Acyclic => r.cycle(),
                        CheckKind::Irreflexive => r.irreflexive().map(|e| vec![e]),
                        CheckKind::Empty => r.pairs().first().map(|&(a, b)| vec![a, b]),
                    }
                }
            };
            let holds = witness.is_none() != *negated;
            let label = name.clone().unwrap_or_else(|| kind.as_str().to_string());
            match mode {
                // herd: `flag ~empty r as name` raises `name` when `r` is not empty.
                CheckMode::Flag if holds => out.flags.push(label),
                CheckMode::UndefinedUnless if !holds => out.flags.push(label),
                CheckMode::Check | CheckMode::Assert if !holds => {
                    out.failed = Some(Failure {
                        kind: *kind,
                        name: label,
                        negated: *negated,
                        events: witness.unwrap_or_default(),
                    });
                    return Ok(Flow::Stop);
                }
                _ => {}
            }
        }
        Stmt::Include(..) | Stmt::Show | Stmt::Origin(_) => {}
        Stmt::Enum(name, tags, _) => {
            for t in tags {
                let set = tag_set_name(t);
                env.vars.entry(set).or_insert(Value::Set(0));
            }
            let v = values(tags.iter().map(|t| Value::Tag(t.as_str().into())).collect());
            env.vars.insert(name.clone(), v);
        }
        Stmt::Events(name, args, _) => {
            for a in args {
                env.eval(a)?;
            }
            if !env.vars.contains_key(name) {
                env.vars.insert(name.clone(), Value::Set(0));
            }
        }
        Stmt::Procedure(name, pat, body, _) => {
            let p = Procedure {
                pat: pat.clone(),
                body: body.clone(),
            };
            env.vars.insert(name.clone(), Value::Proc(Arc::new(p)));
        }
        Stmt::Call(name, arg, as_name, at) => {
            let Value::Proc(p) = env.lookup(name, *at)? else {
                return Err(CatError::at(*at, &format!("`{name}` is not a procedure")));
            };
            let a = env.eval(arg)?;
            let snapshot = env.vars.clone();
            let r = env.bind(&p.pat, a, *at, &mut Vec::new()).and_then(|_| {
                let mut inner = Outcome::default();
                let flow = exec_flat(&p.body, env, &mut inner)?;
                Ok((flow, inner))
            });
            env.vars = snapshot;
            let (flow, inner) = r?;
            out.flags.extend(inner.flags);
            if let Flow::Stop = flow {
                let mut f = inner.failed.unwrap_or(Failure {
                    kind: CheckKind::Empty,
                    name: name.clone(),
                    negated: false,
                    events: Vec::new(),
                });
                if let Some(n) = as_name {
                    f.name = n.clone();
                }
                out.failed = Some(f);
                return Ok(Flow::Stop);
            }
        }
        Stmt::Forall(x, e, body, at) => {
            let v = env.eval(e)?;
            for c in env.elements(v, *at)? {
                let snapshot = env.vars.clone();
                env.vars.insert(x.clone(), c);
                let r = exec_flat(body, env, out);
                env.vars = snapshot;
                if let Flow::Stop = r? {
                    return Ok(Flow::Stop);
                }
            }
        }
        Stmt::WithFrom(_, _, at) => {
            return Err(CatError::at(
                *at,
                "`with ... from` inside a procedure or `forall` is not supported",
            ))
        }
        Stmt::IfVariant(v, a, b, _) => {
            let body = if env.variant(v) { a } else { b };
            return exec_flat(body, env, out);
        }
        Stmt::Match(e, clauses, default, at) => {
            let body = match_clause(env, e, clauses, default.as_deref(), *at)?;
            return exec_flat(body, env, out);
        }
    }
    Ok(Flow::Go)
}
