//! The interpreter's values: event sets and relations, events, pairs, tags, tuples, sets of
//! values, closures and procedures, with the order that sets of values are kept in.

use super::rel::{Rel, Set};
use super::{FunDef, Pat, Stmt};
use std::cmp::Ordering;
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
    /// A set of values not built yet: every union of one member of each part, which a `with`
    /// chooses from as a tree ([`super::cross`]); anything else builds it first.
    Cross(Arc<super::cross::Cross>),
    Fun(Arc<Closure>),
    Proc(Arc<Procedure>),
    /// One of the interpreter's own functions (`domain`, `range`, `linearisations`, ...).
    Builtin(&'static str),
}

/// A function value: its definition and the values of its free names where it was made.
#[derive(Debug)]
pub struct Closure {
    pub(super) def: Arc<FunDef>,
    pub(super) captured: Arc<Vec<(String, Value)>>,
    /// For `let rec f x = ... and g y = ...`: the group, so that `f` and `g` see each other.
    pub(super) group: Option<Arc<RecGroup>>,
}

#[derive(Debug)]
pub struct RecGroup {
    pub(super) names: Vec<String>,
    pub(super) defs: Vec<Arc<FunDef>>,
    pub(super) captured: Arc<Vec<(String, Value)>>,
}

#[derive(Debug)]
pub struct Procedure {
    pub(super) pat: Pat,
    pub(super) body: Arc<Vec<Stmt>>,
}

pub(super) fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Set(_) => "a set of events",
        Value::Rel(_) => "a relation",
        Value::Empty => "an empty set",
        Value::Event(_) => "an event",
        Value::Pair(..) => "a pair of events",
        Value::Tag(_) => "a tag",
        Value::Tuple(_) => "a tuple",
        Value::Values(_) | Value::Cross(_) => "a set of values",
        Value::Fun(_) | Value::Builtin(_) => "a function",
        Value::Proc(_) => "a procedure",
    }
}

pub(super) fn rank(v: &Value) -> u8 {
    match v {
        Value::Empty => 0,
        Value::Event(_) => 1,
        Value::Pair(..) => 2,
        Value::Tag(_) => 3,
        Value::Set(_) => 4,
        Value::Rel(_) => 5,
        Value::Tuple(_) => 6,
        Value::Values(_) | Value::Cross(_) => 7,
        Value::Fun(_) => 8,
        Value::Proc(_) => 9,
        Value::Builtin(_) => 10,
    }
}

/// Empty sets and relations are all [`Value::Empty`], so that sets of values compare them equal.
pub(super) fn canon(v: Value) -> Value {
    match v {
        Value::Set(0) => Value::Empty,
        Value::Rel(r) if r.is_empty() => Value::Empty,
        Value::Values(vs) if vs.is_empty() => Value::Empty,
        v => v,
    }
}

/// A total order on values (functions by identity), for sets of values.
pub(super) fn compare(a: &Value, b: &Value) -> Ordering {
    if let (Value::Cross(_), _) | (_, Value::Cross(_)) = (a, b) {
        let f = |v: &Value| super::cross::forced(v.clone());
        return compare(&f(a), &f(b));
    }
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

pub(super) fn same(a: &Value, b: &Value) -> bool {
    compare(&canon(a.clone()), &canon(b.clone())) == Ordering::Equal
}

pub(super) fn values(mut vs: Vec<Value>) -> Value {
    vs.sort_by(compare);
    vs.dedup_by(|a, b| compare(a, b) == Ordering::Equal);
    if vs.is_empty() {
        Value::Empty
    } else {
        Value::Values(Arc::new(vs))
    }
}

/// The flag herd raises when an `undefined_unless` check fails (`Flag *undef*`; herd then
/// prints `Undef` where it prints `Ok` or `No`).
pub const UNDEF_FLAG: &str = "*undef*";

/// `Name` for the tag `'name`: herd's set of the events that carry a tag.
pub fn tag_set_name(tag: &str) -> String {
    let mut c = tag.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

pub(super) fn group_fun(g: &Arc<RecGroup>, i: usize) -> Value {
    Value::Fun(Arc::new(Closure {
        def: g.defs[i].clone(),
        captured: g.captured.clone(),
        group: Some(g.clone()),
    }))
}

/// A named set or relation's value on one candidate, as a reader sees it (the editor's hover
/// on a relation name shows the pairs of the execution on view).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Named {
    /// The events of a set, in order.
    Set(Vec<usize>),
    /// The pairs of a relation, in order (`0`, `{}`: no pair).
    Rel(Vec<(usize, usize)>),
}

/// Every name in `env` bound to a set of events or a relation (the candidate's base sets and
/// relations and the model's `let`s as the run left them), sorted by name; functions, tags
/// and other values are left out.
pub fn named_values(env: &super::Env) -> Vec<(String, Named)> {
    let mut out: Vec<(String, Named)> = env
        .vars
        .iter()
        .filter_map(|(k, v)| {
            let named = match v {
                Value::Set(s) => Named::Set(super::rel::members(*s).collect()),
                Value::Rel(r) => Named::Rel(r.pairs()),
                Value::Empty => Named::Rel(Vec::new()),
                _ => return None,
            };
            Some((k.clone(), named))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Runs `model` on the candidate of `n` events whose base sets and relations are `base` (as
/// [`named_values`] gave them before a run): every named value the run leaves, or the model's
/// error. For an editor evaluating the model being edited on the execution on view.
pub fn evaluate(
    model: &super::Model,
    n: usize,
    base: &[(String, Named)],
) -> Result<Vec<(String, Named)>, super::CatError> {
    let mut env = super::Env::new(n);
    for (k, v) in base {
        let v = match v {
            Named::Set(es) => Value::Set(es.iter().filter(|&&e| e < n).fold(0, |s, e| s | 1 << e)),
            Named::Rel(ps) => {
                let mut r = Rel::empty(n);
                for &(a, b) in ps.iter().filter(|(a, b)| *a < n && *b < n) {
                    r.add(a, b);
                }
                Value::Rel(r)
            }
        };
        env.vars.insert(k.clone(), v);
    }
    model.run(&mut env)?;
    Ok(named_values(&env))
}
