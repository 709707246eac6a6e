//! Pruning a model's choices: `with x from S` runs the rest of the model once per member of
//! `S` (herd's way of choosing a coherence order, `lock.cat`'s lock matches, ...), and for a
//! kernel test with a spin-lock emulation that is millions of runs. Most of them fail a check
//! that only grows with `x`: `empty rmw & (fre ; coe) as atomic` fails for every coherence
//! order that puts a write between an update and the write it reads, whatever the order of
//! the other writes.
//!
//! So a group of members is first run as one: `x` is bound to their intersection, the pairs
//! every member has, and the rest of the model runs on it. A check whose value can only grow
//! as `x` grows ([`Mono::Up`]: built from `x` by `|`, `&`, `;`, `*`, `+`, `^-1`, `[..]`, the
//! left of `\`, functions whose bodies are so) and that fails on the intersection fails on
//! every member, so the group is forbidden. Its first member is still run alone, so that
//! the first forbidden execution, its failed check and everything a caller keeps of it are
//! exactly those of a run without pruning; the others, forbidden, are not run. A group that
//! is not pruned is halved. Nothing is assumed of the model: every check is classified from
//! its text, and anything the classification does not know (a `match`, an `if`, a function
//! it cannot see into, a second `with`) is treated as able to go either way.

use super::eval::{Env, Outcome};
use super::rel::Rel;
use super::run::{step, Flow};
use super::value::Value;
use super::{BinOp, CheckMode, Expr, FunDef, Pat, Stmt, UnOp};
use std::collections::BTreeMap;
use std::sync::Arc;

/// How a value depends on the chosen `x`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mono {
    /// Not at all.
    Const,
    /// It can only grow as `x` grows.
    Up,
    /// It can only shrink as `x` grows.
    Down,
    /// Either way.
    Any,
}

use Mono::*;

impl Mono {
    fn flip(self) -> Mono {
        match self {
            Up => Down,
            Down => Up,
            m => m,
        }
    }

    /// Of a value built from two values each monotone in its operand the same way.
    fn join(self, o: Mono) -> Mono {
        match (self, o) {
            (Const, m) | (m, Const) => m,
            (a, b) if a == b => a,
            _ => Any,
        }
    }
}

/// What the classification knows of a name bound after the `with`.
#[derive(Clone, Debug)]
enum Entry {
    M(Mono),
    /// A function defined after the `with`, with what was known where it was defined.
    Fun(Arc<FunDef>, Arc<Names>),
}

type Names = BTreeMap<String, Entry>;

/// The fewest members a group must have to be run as one.
pub(super) const GROUP: usize = 8;

/// The intersection of the members when every one is a relation.
pub(super) fn intersection(choices: &[Value], n: usize) -> Option<Value> {
    let mut acc: Option<Rel> = None;
    for c in choices {
        let r = match c {
            Value::Rel(r) => r,
            Value::Empty => return Some(Value::Empty),
            _ => return None,
        };
        acc = Some(match acc {
            None => r.clone(),
            Some(a) if a.n() == r.n() => a.zip(r, |x, y| x & y),
            Some(_) => return None,
        });
    }
    acc.filter(|r| r.n() == n).map(Value::Rel)
}

/// Runs the rest of the model (`stack`, the last block first) with `env`'s `x` bound to a
/// part of every member of a group; whether a check that only grows with `x` fails on it
/// (then it fails on every member).
pub(super) fn fails_on_every_member(stack: &[&[Stmt]], env: &mut Env, x: &str) -> bool {
    let mut names = Names::new();
    names.insert(x.to_string(), Entry::M(Up));
    let mut stack = stack.to_vec();
    let mut out = Outcome::default();
    'blocks: while let Some(block) = stack.pop() {
        for (i, s) in block.iter().enumerate() {
            match s {
                Stmt::Let(binds, _) => {
                    let entries: Vec<Entry> =
                        binds.iter().map(|(_, e)| entry(e, &names, env)).collect();
                    if step(s, env, &mut out).is_err() {
                        return false;
                    }
                    for ((p, _), en) in binds.iter().zip(entries) {
                        bind(&mut names, p, en);
                    }
                }
                Stmt::LetRec(binds, _) => {
                    let m = rec_mono(binds, &names, env);
                    if step(s, env, &mut out).is_err() {
                        return false;
                    }
                    for (p, _) in binds {
                        bind(&mut names, p, Entry::M(m));
                    }
                }
                Stmt::Check {
                    negated,
                    mode,
                    expr,
                    ..
                } => {
                    if !matches!(mode, CheckMode::Check | CheckMode::Assert) {
                        continue;
                    }
                    let m = Cx::top(env).mono(expr, &names);
                    let grows = m == Const || m == if *negated { Down } else { Up };
                    let mut o = Outcome::default();
                    match step(s, env, &mut o) {
                        Ok(Flow::Stop) if grows => return true,
                        Ok(_) => {}
                        Err(_) => return false,
                    }
                }
                Stmt::IfVariant(v, a, b, _) => {
                    stack.push(&block[i + 1..]);
                    stack.push(if env.variant(v) { a } else { b });
                    continue 'blocks;
                }
                // procedures and `forall` bind nothing that outlives them
                Stmt::Call(..) | Stmt::Forall(..) => {}
                Stmt::WithFrom(..) | Stmt::Match(..) => return false,
                Stmt::Include(..)
                | Stmt::Show
                | Stmt::Origin(_)
                | Stmt::Enum(..)
                | Stmt::Events(..)
                | Stmt::Procedure(..) => {
                    if step(s, env, &mut out).is_err() {
                        return false;
                    }
                }
            }
        }
    }
    false
}

fn bind(names: &mut Names, p: &Pat, e: Entry) {
    match p {
        Pat::Var(Some(n)) => {
            names.insert(n.clone(), e);
        }
        Pat::Var(None) => {}
        Pat::Tuple(ns) => {
            for n in ns.iter().flatten() {
                names.insert(n.clone(), Entry::M(Any));
            }
        }
    }
}

fn entry(e: &Expr, names: &Names, env: &mut Env) -> Entry {
    match e {
        Expr::Fun(def) => Entry::Fun(def.clone(), Arc::new(names.clone())),
        e => Entry::M(Cx::top(env).mono(e, names)),
    }
}

/// A `let rec` of relations: its least fixed point grows with `x` when every body does,
/// taking the group's names as growing.
fn rec_mono(binds: &[(Pat, Expr)], names: &Names, env: &mut Env) -> Mono {
    if binds.iter().any(|(_, e)| matches!(e, Expr::Fun(_))) {
        return Any;
    }
    let mut cx = Cx {
        env,
        depth: 1,
        scope: None,
        top: false,
    };
    for assume in [Const, Up] {
        let mut inner = names.clone();
        for (p, _) in binds {
            bind(&mut inner, p, Entry::M(assume));
        }
        let m = binds
            .iter()
            .map(|(_, e)| cx.mono(e, &inner))
            .fold(Const, Mono::join);
        if m == Const && assume == Const {
            return Const;
        }
        if assume == Up && matches!(m, Const | Up) {
            return Up;
        }
    }
    Any
}

struct Cx<'a> {
    env: &'a mut Env,
    depth: usize,
    /// Inside a function defined before the `with`: the values it captured (the names its
    /// body calls are these, not the model's current ones).
    scope: Option<Arc<Vec<(String, Value)>>>,
    /// At the model's top level, where a name's value in `env` is its value (not inside a
    /// function or `let`, whose names may shadow it).
    top: bool,
}

impl<'a> Cx<'a> {
    /// At the model's top level.
    fn top(env: &'a mut Env) -> Self {
        Cx {
            env,
            depth: 0,
            scope: None,
            top: true,
        }
    }

    fn mono(&mut self, e: &Expr, names: &Names) -> Mono {
        match e {
            Expr::Var(n, _) => match names.get(n) {
                Some(Entry::M(m)) => *m,
                Some(Entry::Fun(..)) => Any,
                None => Const,
            },
            Expr::Empty | Expr::Universe | Expr::Tag(..) => Const,
            Expr::Set(es, _) | Expr::Tuple(es, _) => {
                if es.iter().all(|e| self.mono(e, names) == Const) {
                    Const
                } else {
                    Any
                }
            }
            Expr::Bin(op, a, b, _) => {
                let (ma, mb) = (self.mono(a, names), self.mono(b, names));
                let absorbs = matches!(op, BinOp::Seq | BinOp::Inter | BinOp::Cart);
                if absorbs && (self.empty(a, ma) || self.empty(b, mb)) {
                    return Const;
                }
                match op {
                    BinOp::Diff if self.empty(a, ma) => Const,
                    BinOp::Diff => ma.join(mb.flip()),
                    BinOp::Add if ma != Const || mb != Const => Any,
                    _ => ma.join(mb),
                }
            }
            Expr::Un(op, a, _) => {
                let m = self.mono(a, names);
                match op {
                    UnOp::Compl => m.flip(),
                    _ => m,
                }
            }
            Expr::App(f, arg, _) => self.app(f, arg, names),
            Expr::Fun(_) => Any,
            Expr::Let(binds, body) => {
                let mut inner = names.clone();
                let was = std::mem::replace(&mut self.top, false);
                for (p, e) in binds {
                    let en = match e {
                        Expr::Fun(def) => Entry::Fun(def.clone(), Arc::new(names.clone())),
                        e => Entry::M(self.mono(e, names)),
                    };
                    bind(&mut inner, p, en);
                }
                let m = self.mono(body, &inner);
                self.top = was;
                m
            }
            Expr::LetRec(binds, body) => {
                let m = rec_mono(binds, names, self.env);
                let mut inner = names.clone();
                for (p, _) in binds {
                    bind(&mut inner, p, Entry::M(m));
                }
                let was = std::mem::replace(&mut self.top, false);
                let r = self.mono(body, &inner);
                self.top = was;
                r
            }
            Expr::Try(a, b) => {
                let (ma, mb) = (self.mono(a, names), self.mono(b, names));
                if ma == mb {
                    ma
                } else {
                    Any
                }
            }
            Expr::If(..) | Expr::Match(..) | Expr::MatchSet(..) => Any,
        }
    }

    /// Whether `e`, which does not depend on `x`, is empty (so a `;` or `&` with it is too).
    fn empty(&mut self, e: &Expr, m: Mono) -> bool {
        if m != Const || !self.top {
            return false;
        }
        match self.env.eval(e) {
            Ok(Value::Empty) | Ok(Value::Set(0)) => true,
            Ok(Value::Rel(r)) => r.is_empty(),
            _ => false,
        }
    }

    fn app(&mut self, f: &Expr, arg: &Expr, names: &Names) -> Mono {
        if self.depth > 8 {
            return Any;
        }
        let args: Vec<Mono> = match arg {
            Expr::Tuple(es, _) => es.iter().map(|e| self.mono(e, names)).collect(),
            e => vec![self.mono(e, names)],
        };
        let (def, known, scope) = match f {
            Expr::Var(n, _) => match names.get(n) {
                Some(Entry::Fun(def, known)) => {
                    // the closure made by that definition, for the names its body calls
                    let scope = match self.value_of(n) {
                        Some(Value::Fun(c)) if Arc::ptr_eq(&c.def, def) => c.captured.clone(),
                        _ => return Any,
                    };
                    (def.clone(), (**known).clone(), scope)
                }
                Some(Entry::M(_)) => return Any,
                None => match self.value_of(n) {
                    // defined before the `with`: what it captured does not depend on `x`
                    Some(Value::Fun(c)) if c.group.is_none() => {
                        (c.def.clone(), Names::new(), c.captured.clone())
                    }
                    Some(Value::Builtin(b)) => {
                        return match b {
                            "domain" | "range" | "fencerel" => {
                                args.into_iter().fold(Const, Mono::join)
                            }
                            _ if args.iter().all(|m| *m == Const) => Const,
                            _ => Any,
                        }
                    }
                    _ => return Any,
                },
            },
            _ => return Any,
        };
        let mut inner = known;
        match (&def.pat, args.as_slice()) {
            (Pat::Var(n), [m]) => {
                if let Some(n) = n {
                    inner.insert(n.clone(), Entry::M(*m));
                }
            }
            (Pat::Tuple(ns), ms) if ns.len() == ms.len() => {
                for (n, m) in ns.iter().zip(ms) {
                    if let Some(n) = n {
                        inner.insert(n.clone(), Entry::M(*m));
                    }
                }
            }
            _ => return Any,
        }
        let was = std::mem::replace(&mut self.top, false);
        let outer = self.scope.replace(scope);
        self.depth += 1;
        let m = self.mono(&def.body, &inner);
        self.depth -= 1;
        self.scope = outer;
        self.top = was;
        m
    }

    /// A name's value where the expression being classified is evaluated.
    fn value_of(&self, n: &str) -> Option<Value> {
        let found = match &self.scope {
            Some(sc) => sc.iter().find(|(m, _)| m == n).map(|(_, v)| v.clone()),
            None => self.env.vars.get(n).cloned(),
        };
        found.or_else(|| {
            self.env
                .lookup(n, 0)
                .ok()
                .filter(|v| matches!(v, Value::Builtin(_)))
        })
    }
}
