//! The interpreter: values are sets and relations over one candidate's events.

use super::rel::{Rel, Set};
use super::{CatError, CheckKind, Expr, Stmt};
use std::collections::HashMap;
use std::rc::Rc;

#[derive(Clone, Debug)]
pub enum Value {
    Set(Set),
    Rel(Rel),
    /// `0`, `{}`: empty, as a set or a relation as the context needs.
    Empty,
    Fun(Rc<(Vec<String>, Expr)>),
}

/// The names in scope: the candidate's base sets and relations, then the model's `let`s.
#[derive(Clone, Debug)]
pub struct Env {
    /// The number of events.
    pub n: usize,
    pub vars: HashMap<String, Value>,
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
    /// The names of the flags that hold.
    pub flags: Vec<String>,
}

impl Env {
    pub fn new(n: usize) -> Env {
        Env {
            n,
            vars: HashMap::new(),
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
            Value::Set(_) => Err(CatError::at(at, "expected a relation, found a set")),
            Value::Fun(_) => Err(CatError::at(at, "expected a relation, found a function")),
        }
    }
    fn as_set(&self, v: Value, at: usize) -> Result<Set, CatError> {
        match v {
            Value::Set(s) => Ok(s),
            Value::Empty => Ok(0),
            Value::Rel(_) => Err(CatError::at(at, "expected a set, found a relation")),
            Value::Fun(_) => Err(CatError::at(at, "expected a set, found a function")),
        }
    }

    fn binop(
        &mut self,
        a: &Expr,
        b: &Expr,
        fs: fn(Set, Set) -> Set,
        fr: fn(Set, Set) -> Set,
    ) -> Result<Value, CatError> {
        let (x, y) = (self.eval(a)?, self.eval(b)?);
        let at = pos(a);
        Ok(match (x, y) {
            (Value::Empty, Value::Empty) => Value::Empty,
            (Value::Set(s), y) => Value::Set(fs(s, self.as_set(y, at)?)),
            (x, Value::Set(t)) => Value::Set(fs(self.as_set(x, at)?, t)),
            (x, y) => {
                let (r, s) = (self.as_rel(x, at)?, self.as_rel(y, at)?);
                Value::Rel(r.zip(&s, fr))
            }
        })
    }

    fn rel(&mut self, e: &Expr) -> Result<Rel, CatError> {
        let v = self.eval(e)?;
        self.as_rel(v, pos(e))
    }
    fn set(&mut self, e: &Expr) -> Result<Set, CatError> {
        let v = self.eval(e)?;
        self.as_set(v, pos(e))
    }

    pub fn eval(&mut self, e: &Expr) -> Result<Value, CatError> {
        Ok(match e {
            Expr::Var(name, at) => match name.as_str() {
                "_" => Value::Set(self.universe()),
                _ => self
                    .vars
                    .get(name)
                    .cloned()
                    .ok_or_else(|| CatError::at(*at, &format!("unknown name `{name}`")))?,
            },
            Expr::Empty => Value::Empty,
            Expr::Union(a, b) => self.binop(a, b, |x, y| x | y, |x, y| x | y)?,
            Expr::Inter(a, b) => self.binop(a, b, |x, y| x & y, |x, y| x & y)?,
            Expr::Diff(a, b) => self.binop(a, b, |x, y| x & !y, |x, y| x & !y)?,
            Expr::Seq(a, b) => {
                let (r, s) = (self.rel(a)?, self.rel(b)?);
                Value::Rel(r.seq(&s))
            }
            Expr::Cart(a, b) => {
                let (s, t) = (self.set(a)?, self.set(b)?);
                Value::Rel(Rel::cartesian(s, t, self.n))
            }
            Expr::Inverse(a) => Value::Rel(self.rel(a)?.inverse()),
            Expr::Plus(a) => Value::Rel(self.rel(a)?.plus()),
            Expr::Star(a) => Value::Rel(self.rel(a)?.plus().with_identity()),
            Expr::Opt(a) => Value::Rel(self.rel(a)?.with_identity()),
            Expr::Compl(a) => match self.eval(a)? {
                Value::Set(s) => Value::Set(!s & self.universe()),
                v => {
                    let u = self.universe();
                    let r = self.as_rel(v, pos(a))?;
                    Value::Rel(Rel {
                        rows: r.rows.iter().map(|x| !x & u).collect(),
                    })
                }
            },
            Expr::Ident(a) => {
                let s = self.set(a)?;
                Value::Rel(Rel::identity(s, self.n))
            }
            Expr::Fun(params, body) => Value::Fun(Rc::new((params.clone(), (**body).clone()))),
            Expr::LetIn(name, v, body) => {
                let v = self.eval(v)?;
                let old = self.vars.insert(name.clone(), v);
                let r = self.eval(body);
                restore(&mut self.vars, name, old);
                r?
            }
            Expr::App(f, args, at) => self.apply(f, args, *at)?,
        })
    }

    fn apply(&mut self, f: &str, args: &[Expr], at: usize) -> Result<Value, CatError> {
        let fun = self.vars.get(f).cloned();
        match (fun, f, args) {
            (Some(Value::Fun(fun)), _, _) => {
                let (params, body) = &*fun;
                if params.len() != args.len() {
                    return Err(CatError::at(
                        at,
                        &format!("`{f}` takes {} arguments", params.len()),
                    ));
                }
                let vals = args
                    .iter()
                    .map(|a| self.eval(a))
                    .collect::<Result<Vec<_>, _>>()?;
                let olds: Vec<_> = params
                    .iter()
                    .zip(vals)
                    .map(|(p, v)| (p.clone(), self.vars.insert(p.clone(), v)))
                    .collect();
                let r = self.eval(body);
                for (p, old) in olds.into_iter().rev() {
                    restore(&mut self.vars, &p, old);
                }
                r
            }
            (None, "domain", [a]) => Ok(Value::Set(self.rel(a)?.domain())),
            (None, "range", [a]) => Ok(Value::Set(self.rel(a)?.range())),
            (None, "fencerel", [a]) => {
                // (po & (_ * S)); po
                let s = self.set(a)?;
                let po = self.rel(&Expr::Var("po".into(), at))?;
                let before = po.zip(&Rel::cartesian(self.universe(), s, self.n), |x, y| x & y);
                Ok(Value::Rel(before.seq(&po)))
            }
            _ => Err(CatError::at(at, &format!("unknown function `{f}`"))),
        }
    }
}

fn restore(vars: &mut HashMap<String, Value>, name: &str, old: Option<Value>) {
    match old {
        Some(v) => vars.insert(name.to_string(), v),
        None => vars.remove(name),
    };
}

fn pos(e: &Expr) -> usize {
    match e {
        Expr::Var(_, at) | Expr::App(_, _, at) => *at,
        Expr::Union(a, _)
        | Expr::Inter(a, _)
        | Expr::Diff(a, _)
        | Expr::Seq(a, _)
        | Expr::Cart(a, _)
        | Expr::Inverse(a)
        | Expr::Plus(a)
        | Expr::Star(a)
        | Expr::Opt(a)
        | Expr::Compl(a)
        | Expr::Ident(a)
        | Expr::LetIn(_, a, _) => pos(a),
        Expr::Empty | Expr::Fun(..) => 0,
    }
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Set(x), Value::Set(y)) => x == y,
        (Value::Rel(x), Value::Rel(y)) => x == y,
        (Value::Empty, Value::Empty) => true,
        _ => false,
    }
}

pub(super) fn run(stmts: &[Stmt], env: &mut Env) -> Result<Outcome, CatError> {
    let mut out = Outcome::default();
    for s in stmts {
        match s {
            Stmt::Let(binds) => {
                let vals = binds
                    .iter()
                    .map(|(_, _, e)| env.eval(e))
                    .collect::<Result<Vec<_>, _>>()?;
                for ((n, _, _), v) in binds.iter().zip(vals) {
                    env.vars.insert(n.clone(), v);
                }
            }
            Stmt::LetRec(binds) => {
                for (n, _) in binds {
                    env.vars.insert(n.clone(), Value::Empty);
                }
                for _round in 0..=env.n * env.n + 1 {
                    let vals = binds
                        .iter()
                        .map(|(_, e)| env.eval(e))
                        .collect::<Result<Vec<_>, _>>()?;
                    let mut changed = false;
                    for ((n, _), v) in binds.iter().zip(vals) {
                        changed |= !same(&env.vars[n], &v);
                        env.vars.insert(n.clone(), v);
                    }
                    if !changed {
                        break;
                    }
                }
            }
            Stmt::Check {
                kind,
                negated,
                flag,
                expr,
                name,
                at,
            } => {
                let v = env.eval(expr)?;
                let witness = match (kind, v) {
                    (CheckKind::Empty, Value::Set(s)) => {
                        (s != 0).then(|| vec![s.trailing_zeros() as usize])
                    }
                    (_, v) => {
                        let r = env.as_rel(v, *at)?;
                        match kind {
                            CheckKind::Acyclic => r.cycle(),
                            CheckKind::Irreflexive => r.irreflexive().map(|e| vec![e]),
                            CheckKind::Empty => r.pairs().first().map(|&(a, b)| vec![a, b]),
                        }
                    }
                };
                let holds = witness.is_none() != *negated;
                let label = name.clone().unwrap_or_else(|| kind.as_str().to_string());
                if *flag {
                    // herd: `flag ~empty r as name` raises `name` when `r` is not empty.
                    if holds {
                        out.flags.push(label);
                    }
                } else if !holds && out.failed.is_none() {
                    out.failed = Some(Failure {
                        kind: *kind,
                        name: label,
                        negated: *negated,
                        events: witness.unwrap_or_default(),
                    });
                    return Ok(out);
                }
            }
            Stmt::Include(..) | Stmt::Show => {}
        }
    }
    Ok(out)
}
