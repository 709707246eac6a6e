//! Running a model's statements: checks, flags, procedures, `forall`, and one run per choice
//! of each `with x from e`.

use super::cross::{self, Rest};
use super::eval::*;
use super::prune;
use super::{CatError, CheckKind, CheckMode, Expr, Pat, Stmt};
use std::sync::Arc;

/// One way through the model: its outcome and, when it took a choice (`with`), its own
/// environment (`None`: the caller's, as the model left it).
pub(super) type Branch = (Outcome, Option<Env>);

pub(super) enum Flow {
    Go,
    Stop,
}

/// Runs the model; `stop` is asked before each choice of a `with` (a model choosing among
/// thousands of coherence orders takes long on one candidate), and a stopped run ends with
/// the error [`cross::STOPPED`].
pub(super) fn run(
    prelude: &[Stmt],
    stmts: &[Stmt],
    env: &mut Env,
    stop: &dyn Fn() -> bool,
) -> Result<Vec<Branch>, CatError> {
    let base = env.stack_base;
    if base == 0 {
        env.stack_base = stack_address();
    }
    let r = run_model(prelude, stmts, env, stop);
    env.stack_base = base;
    let mut r = r?;
    for (_, e) in r.iter_mut() {
        if let Some(e) = e {
            e.stack_base = 0;
        }
    }
    Ok(r)
}

fn run_model(
    prelude: &[Stmt],
    stmts: &[Stmt],
    env: &mut Env,
    stop: &dyn Fn() -> bool,
) -> Result<Vec<Branch>, CatError> {
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
                if let Some(f) = &mut out.failed {
                    f.file.get_or_insert_with(|| "stdlib.cat".into());
                }
            }
        }
    }
    let mut results = Vec::new();
    let mut origin = None;
    exec(vec![stmts], env, out, &mut results, &mut origin, stop).map_err(|mut e| {
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
    stop: &dyn Fn() -> bool,
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
                    env.lazy_cross = true;
                    let v = env.eval(e);
                    env.lazy_cross = false;
                    let v = v?;
                    if let Value::Cross(c) = &v {
                        if c.size(0) > 0 {
                            stack.push(&block[i + 1..]);
                            let w = With {
                                x,
                                stack: &stack,
                                out: &out,
                                stop,
                            };
                            let mut rest = Leaves {
                                w: &w,
                                env: &*env,
                                origin: &*origin,
                            };
                            return cross::run(c, &mut rest, results);
                        }
                    }
                    let choices = env.elements(v, *at)?;
                    if choices.is_empty() {
                        out.failed = Some(Failure {
                            kind: CheckKind::Empty,
                            name: format!("no choice for `{x}`"),
                            negated: true,
                            events: Vec::new(),
                            at: *at,
                            file: origin.clone(),
                        });
                        results.push((out, None));
                        return Ok(());
                    }
                    stack.push(&block[i + 1..]);
                    let w = With {
                        x,
                        stack: &stack,
                        out: &out,
                        stop,
                    };
                    w.run(&choices, env, results, origin)?;
                    return Ok(());
                }
                s => {
                    if let Flow::Stop = step(s, env, &mut out)? {
                        if let Some(f) = &mut out.failed {
                            f.file = origin.clone();
                        }
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

/// The rest of the model after a `with x from e`, to run once per choice.
struct With<'s, 'a> {
    x: &'s str,
    stack: &'s [&'a [Stmt]],
    out: &'s Outcome,
    stop: &'s dyn Fn() -> bool,
}

impl<'a> With<'_, 'a> {
    /// Runs the choices in order; a group of them that fails a check that only grows with
    /// `x` on the pairs they share is forbidden as a whole: only its first member runs
    /// ([`super::prune`]).
    fn run(
        &self,
        choices: &[Value],
        env: &Env,
        results: &mut Vec<Branch>,
        origin: &Option<Arc<str>>,
    ) -> Result<(), CatError> {
        if env.prune && choices.len() >= prune::GROUP {
            if let Some(common) = prune::intersection(choices, env.n) {
                let mut e2 = env.clone();
                e2.vars.insert(self.x.to_string(), common);
                if prune::fails_on_every_member(self.stack, &mut e2, self.x) {
                    let start = results.len();
                    self.run(&choices[..1], env, results, origin)?;
                    // the others fail too: the first one's failure stands for them
                    if let Some(b) = results.get_mut(start) {
                        b.0.pruned += (choices.len() - 1) as u64;
                    }
                    return Ok(());
                }
                let (a, b) = choices.split_at(choices.len() / 2);
                self.run(a, env, results, origin)?;
                return self.run(b, env, results, origin);
            }
        }
        for c in choices {
            self.leaf(c.clone(), env, results, origin)?;
        }
        Ok(())
    }

    /// The rest of the model with `x` bound to `c`.
    fn leaf(
        &self,
        c: Value,
        env: &Env,
        results: &mut Vec<Branch>,
        origin: &Option<Arc<str>>,
    ) -> Result<(), CatError> {
        if (self.stop)() {
            return Err(CatError::at(0, cross::STOPPED));
        }
        let mut e2 = env.clone();
        e2.vars.insert(self.x.to_string(), c);
        let start = results.len();
        let mut o = origin.clone();
        exec(
            self.stack.to_vec(),
            &mut e2,
            self.out.clone(),
            results,
            &mut o,
            self.stop,
        )
        .map_err(|mut e| {
            if e.file.is_none() {
                e.file = o.map(|o| o.to_string());
            }
            e
        })?;
        if env.keep {
            if let Some(r) = results[start..].iter_mut().find(|r| r.1.is_none()) {
                r.1 = Some(e2);
            }
        }
        Ok(())
    }
}

/// A `with` over a product ([`cross`]): its leaves and groups.
struct Leaves<'w, 's, 'a, 'e> {
    w: &'w With<'s, 'a>,
    env: &'e Env,
    origin: &'e Option<Arc<str>>,
}

impl Rest for Leaves<'_, '_, '_, '_> {
    fn leaf(&mut self, choice: Value, results: &mut Vec<Branch>) -> Result<(), CatError> {
        self.w.leaf(choice, self.env, results, self.origin)
    }
    fn fails_on_all(&mut self, common: Value) -> bool {
        let mut e2 = self.env.clone();
        e2.vars.insert(self.w.x.to_string(), common);
        prune::fails_on_every_member(self.w.stack, &mut e2, self.w.x)
    }
    fn env(&self) -> &Env {
        self.env
    }
    fn stopped(&self) -> bool {
        (self.w.stop)()
    }
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
pub(super) fn step(s: &Stmt, env: &mut Env, out: &mut Outcome) -> Result<Flow, CatError> {
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
                // herd: a failed `undefined_unless` marks the candidate undefined, printed
                // `Flag *undef*` whatever the check's name (and `Undef` for the test).
                CheckMode::UndefinedUnless
                    if !holds && !out.flags.iter().any(|f| f == UNDEF_FLAG) =>
                {
                    out.flags.push(UNDEF_FLAG.to_string());
                }
                CheckMode::Check | CheckMode::Assert if !holds => {
                    out.failed = Some(Failure {
                        kind: *kind,
                        name: label,
                        negated: *negated,
                        events: witness.unwrap_or_default(),
                        at: *at,
                        file: None,
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
                    at: *at,
                    file: None,
                });
                // located at the call (in the file being run; the procedure's body may come
                // from another)
                f.at = *at;
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
