//! Checking a C test under a cat model (the Linux kernel's, read from the user's files, or
//! any other): the value domain, every candidate ([`super::cexec`]), every choice the model
//! makes (`Model::outcomes`), and herd's summary: final states as herd writes them, positive
//! and negative counts, flags, a witness or the check that forbids.

use super::ccombos::for_each_combo;
use super::cexec::{c_candidate_env, c_skeleton, finals_coherent, values_grounded};
use super::cthread::{c_paths, CCtx, CEvent, CPath};
use super::exec::odometer;
use super::tally::Tally;
use super::AxError;
use crate::ast::{BinOp, Expr, ExprKind, Quantifier, Test, UnOp};
use crate::c::source::SExpr;
use crate::c::{Program, Source};
use crate::cat::{Failure, Model};
use std::collections::{BTreeMap, BTreeSet};

/// The address of location `i` (index into `Test::shared`).
pub fn c_address(i: usize) -> i64 {
    (i as i64 + 1) << 32
}

/// A candidate with what the model said of it.
#[derive(Clone, Debug, PartialEq)]
pub struct CExecution {
    pub events: Vec<CEvent>,
    pub rf: Vec<(usize, usize)>,
    /// The check that forbids it (`None`: allowed).
    pub failure: Option<Failure>,
    /// Its named sets and relations (`crate::cat::named_values`) from the model run again.
    pub values: Vec<(String, crate::cat::Named)>,
}

/// herd's answer for a C test.
#[derive(Clone, Debug, PartialEq)]
pub struct CReport {
    pub quantifier: Quantifier,
    /// herd's `Ok`.
    pub ok: bool,
    pub positive: u64,
    pub negative: u64,
    /// The final states as herd writes them (`0:r0=1; [x]=y;`), in herd's order.
    pub states: Vec<String>,
    /// The flags raised by allowed executions (`data-race`).
    pub flags: Vec<String>,
    /// Candidates given to the model.
    pub candidates: u64,
    pub witness: Option<CExecution>,
    pub forbidden: Option<CExecution>,
    /// Only the executions relevant to the condition were examined (herd's `-speedcheck
    /// true`): those that satisfy it (`exists`, `~exists`) or violate it (`forall`). The
    /// verdict is exact; the counts, states and flags are those executions' alone.
    pub partial: bool,
    /// Model runs not made: choices of a `with` that a check forbids as a group
    /// ([`crate::cat::Model::prune`]). They change nothing else in the report.
    pub pruned: u64,
}

/// Which executions [`check_c_with`] examines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Explore {
    /// Every execution, unless there are more than [`FULL_COMBOS`] combinations of one
    /// path per thread: then only the relevant ones.
    Auto,
    /// Every execution (herd's default).
    Full,
    /// Only the executions relevant to the condition (herd's `-speedcheck true`).
    Relevant,
}

/// Above this many combinations of thread paths, [`Explore::Auto`] examines only the
/// relevant executions: each combination costs a model run or more, about a millisecond
/// for a kernel test of 8 threads, so a full count would take more than half a minute.
pub const FULL_COMBOS: u64 = 32_768;

/// Above this many model runs (a run of the model on one candidate and one choice of its
/// `with`s; those pruned as a group not counted), [`Explore::Auto`] starts again examining
/// only the relevant executions: a spin-lock emulation's candidates have thousands of
/// coherence orders each, and past this number a full count takes more than a few seconds.
pub const FULL_RUNS: u64 = 50_000;

/// The error that stops a full count past [`FULL_RUNS`].
const OVER: &str = "over the full count's budget of model runs";

/// A value no write is known to write: a read's value that herd leaves symbolic (herd
/// writes it `S8`, `S23`, ...). Not an address (see [`c_address`]).
pub const SYMBOLIC: i64 = 0x5e5e_0000_5e5e;

/// The most values the engine tries for one location.
const MAX_VALUES: usize = 64;

struct Cx<'a> {
    test: &'a Test,
}

/// A value as the condition compares it: a number, or an address.
impl Cx<'_> {
    fn loc_of(&self, v: i64) -> Option<&str> {
        let i = (v >> 32) - 1;
        if v & 0xffff_ffff != 0 || i < 0 {
            return None;
        }
        self.test
            .shared
            .get(i as usize)
            .map(|d| d.name.text.as_str())
    }

    /// A value of a final state as herd sorts and writes it: herd's unsolved symbol first
    /// (`S`), then numbers, then addresses by the location's name.
    fn state_value(&self, v: i64) -> (u8, String, i64) {
        match (self.loc_of(v), v) {
            (_, SYMBOLIC) => (0, String::new(), v),
            (None, _) => (1, String::new(), v),
            (Some(n), _) => (2, n.to_string(), v),
        }
    }

    /// Evaluates the condition; a location on the right of a comparison is its address.
    fn eval(
        &self,
        e: &Expr,
        regs: &[&BTreeMap<String, i64>],
        mem: &BTreeMap<i64, i64>,
        addr: bool,
    ) -> i64 {
        match &e.kind {
            ExprKind::Int(i) => *i,
            ExprKind::Reg(_) => 0,
            ExprKind::ThreadReg { thread, reg } => regs
                .get(*thread)
                .and_then(|m| m.get(&reg.text).copied())
                .unwrap_or(0),
            ExprKind::Load(l) => {
                let a = c_address(l.var);
                if addr {
                    a
                } else {
                    mem.get(&a).copied().unwrap_or(0)
                }
            }
            ExprKind::Unary(UnOp::Not, a) => (self.eval(a, regs, mem, false) == 0) as i64,
            ExprKind::Unary(UnOp::Neg, a) => self.eval(a, regs, mem, false).wrapping_neg(),
            ExprKind::Binary(op, a, b) => {
                let t = |c: bool| c as i64;
                let x = self.eval(a, regs, mem, false);
                match op {
                    BinOp::And => return t(x != 0 && self.eval(b, regs, mem, false) != 0),
                    BinOp::Or => return t(x != 0 || self.eval(b, regs, mem, false) != 0),
                    BinOp::Implies => return t(x == 0 || self.eval(b, regs, mem, false) != 0),
                    _ => {}
                }
                let cmp = matches!(op, BinOp::Eq | BinOp::Ne);
                let y = self.eval(b, regs, mem, cmp);
                match op {
                    BinOp::Eq => t(x == y),
                    BinOp::Ne => t(x != y),
                    BinOp::Lt => t(x < y),
                    BinOp::Le => t(x <= y),
                    BinOp::Gt => t(x > y),
                    BinOp::Ge => t(x >= y),
                    BinOp::Add => x.wrapping_add(y),
                    BinOp::Sub => x.wrapping_sub(y),
                    BinOp::Mul => x.wrapping_mul(y),
                    _ => 0,
                }
            }
        }
    }

    /// The observed registers and locations: `(order key, herd's name, expression)`.
    fn atoms(&self, e: &Expr, right: bool, out: &mut BTreeMap<(u8, usize, String), Expr>) {
        match &e.kind {
            ExprKind::ThreadReg { thread, reg } => {
                out.insert((0, *thread, reg.text.clone()), e.clone());
            }
            ExprKind::Load(l) if !right => {
                let name = self.test.shared[l.var].name.text.clone();
                out.insert((1, 0, name), e.clone());
            }
            ExprKind::Unary(_, a) => self.atoms(a, false, out),
            ExprKind::Binary(op, a, b) => {
                self.atoms(a, false, out);
                self.atoms(b, matches!(op, BinOp::Eq | BinOp::Ne), out);
            }
            _ => {}
        }
    }
}

/// Per location its initial value, the locations' addresses by name, per thread its
/// registers' initial values.
type Initial = (Vec<i64>, BTreeMap<String, i64>, Vec<BTreeMap<String, i64>>);

/// Initial values: per location its value (an address for `int *p = &y` or `p = y`).
fn initial(test: &Test, src: &Source) -> Initial {
    let locations: BTreeMap<String, i64> = test
        .shared
        .iter()
        .enumerate()
        .map(|(i, d)| (d.name.text.clone(), c_address(i)))
        .collect();
    let mut values: Vec<i64> = test
        .shared
        .iter()
        .map(|d| d.init.first().copied().unwrap_or(0))
        .collect();
    let mut regs: Vec<BTreeMap<String, i64>> = vec![BTreeMap::new(); test.threads.len()];
    for (t, th) in test.threads.iter().enumerate() {
        for (n, v) in &th.reg_init {
            regs[t].insert(n.text.clone(), *v);
        }
    }
    for e in &src.init {
        let target = match &e.value {
            Some(SExpr::Ident(n)) => locations.get(&n.text),
            Some(SExpr::Unary(crate::c::source::SUnOp::AddrOf, x, _)) => match &**x {
                SExpr::Ident(n) => locations.get(&n.text),
                _ => None,
            },
            _ => None,
        };
        let Some(&a) = target else { continue };
        match &e.thread {
            None => {
                if let Some(i) = test.shared.iter().position(|d| d.name.text == e.name.text) {
                    values[i] = a;
                }
            }
            Some(t) => {
                let idx = test
                    .threads
                    .iter()
                    .position(|th| th.name.text.eq_ignore_ascii_case(t))
                    .or_else(|| t.parse().ok());
                if let Some(r) = idx.and_then(|i| regs.get_mut(i)) {
                    r.insert(e.name.text.clone(), a);
                }
            }
        }
    }
    (values, locations, regs)
}

/// Checks a C test (`test` and `src` from the front end, `prog` its macros expanded) under
/// `model` with `variants` enabled, as [`Explore::Auto`] says. `stop` is polled between
/// candidates.
pub fn check_c(
    test: &Test,
    src: &Source,
    prog: &Program,
    model: &Model,
    variants: &BTreeSet<String>,
    stop: &dyn Fn() -> bool,
) -> Result<CReport, AxError> {
    check_c_with(test, src, prog, model, variants, Explore::Auto, stop)
}

/// [`check_c`], examining the executions `explore` says.
pub fn check_c_with(
    test: &Test,
    src: &Source,
    prog: &Program,
    model: &Model,
    variants: &BTreeSet<String>,
    explore: Explore,
    stop: &dyn Fn() -> bool,
) -> Result<CReport, AxError> {
    // no condition: herd asks whether any execution completes (`exists (true)`)
    let always = crate::ast::Condition {
        quantifier: Quantifier::Exists,
        expr: Expr {
            kind: ExprKind::Int(1),
            span: test.span,
        },
        span: test.span,
    };
    let cond = test.condition.as_ref().unwrap_or(&always);
    let cx = Cx { test };
    let (init_values, locations, regs) = initial(test, src);
    let mut atoms = BTreeMap::new();
    cx.atoms(&cond.expr, false, &mut atoms);
    for e in &src.shown {
        cx.atoms(e, false, &mut atoms);
    }
    let mut observed_locs = atoms.clone();
    if let Some(f) = &src.filter {
        cx.atoms(f, false, &mut observed_locs);
    }
    let observed: BTreeSet<i64> = observed_locs
        .values()
        .filter_map(|e| match &e.kind {
            ExprKind::Load(l) => Some(c_address(l.var)),
            _ => None,
        })
        .collect();
    let init: Vec<(i64, i64, bool)> = init_values
        .iter()
        .enumerate()
        .map(|(i, &v)| (c_address(i), v, observed.contains(&c_address(i))))
        .collect();
    let mut domain: BTreeMap<i64, BTreeSet<i64>> = init
        .iter()
        .map(|&(a, v, _)| (a, BTreeSet::from([v])))
        .collect();
    let mut all: Vec<Vec<CPath>>;
    let mut rounds = 0;
    let mut last = false;
    loop {
        // While the domain grows, every read may also take a value no write is known to
        // write (herd's unsolved symbolic value), so that what a branch not taken by the
        // known values writes is found; the last round takes the domain as it is.
        let with_sym: BTreeMap<i64, BTreeSet<i64>> = domain
            .iter()
            .map(|(a, d)| {
                let mut d = d.clone();
                if !last {
                    d.insert(SYMBOLIC);
                }
                (*a, d)
            })
            .collect();
        all = Vec::new();
        for t in 0..prog.threads.len() {
            let mut vars = regs.get(t).cloned().unwrap_or_default();
            for p in &prog.threads[t].params {
                if let Some(a) = locations.get(&p.name.text) {
                    vars.insert(p.name.text.clone(), *a);
                }
            }
            let cx = CCtx {
                thread: t,
                domain: &with_sym,
                locations: &locations,
                init: vars,
            };
            all.push(c_paths(&cx, prog)?);
        }
        let most: usize = all
            .iter()
            .map(|ps| {
                ps.iter()
                    .map(|p| p.events.iter().filter(|e| e.writes()).count())
                    .max()
                    .unwrap_or(0)
            })
            .sum();
        if last {
            break;
        }
        if rounds >= most {
            last = true;
            continue;
        }
        let mut grown = false;
        for e in all.iter().flatten().flat_map(|p| &p.events) {
            if e.writes() {
                if let Some(d) = domain.get_mut(&e.addr) {
                    grown |= d.insert(e.write);
                }
            }
        }
        rounds += 1;
        if !grown {
            last = true;
        }
        if domain.values().any(|d| d.len() > MAX_VALUES) {
            return Err(AxError::new(&format!(
                "unknown: more than {MAX_VALUES} values for one location (the engine's bound)"
            )));
        }
    }
    for ps in &mut all {
        ps.retain(|p| !p.bad);
    }
    // Executions the filter drops are not counted: a path that fails a part of the filter
    // about its own thread's registers alone takes part in none.
    let mut parts = Vec::new();
    if let Some(f) = &src.filter {
        conjuncts(f, true, &mut parts);
    }
    keep_paths(&cx, &mut all, &parts);
    let partial = match explore {
        Explore::Full => false,
        Explore::Relevant => true,
        Explore::Auto => {
            let mut n = 0u64;
            for_each_combo(&init, &all, &mut |_: &[usize]| {
                n += 1;
                if n > FULL_COMBOS {
                    Err(())
                } else {
                    Ok(())
                }
            })
            .is_err()
        }
    };
    // the relevant executions satisfy the condition (`exists`, `~exists`) or violate it
    let relevant = cond.quantifier != Quantifier::Forall;
    if partial {
        let mut parts = Vec::new();
        conjuncts(&cond.expr, relevant, &mut parts);
        keep_paths(&cx, &mut all, &parts);
    }
    let keys: Vec<(u8, usize, String)> = atoms.keys().cloned().collect();
    let mut rep = CReport {
        quantifier: cond.quantifier,
        ok: false,
        positive: 0,
        negative: 0,
        states: Vec::new(),
        flags: Vec::new(),
        candidates: 0,
        witness: None,
        forbidden: None,
        partial,
        pruned: 0,
    };
    let mut states: BTreeSet<Vec<(u8, String, i64)>> = BTreeSet::new();
    let mut flags = BTreeSet::new();
    let mut tally = Tally::new();
    if all.iter().any(|p| p.is_empty()) {
        // a thread with no complete path (every path cut by the loop bound): no execution
        rep.ok = cond.quantifier != Quantifier::Exists;
        return Ok(rep);
    }
    let (mut made, mut over) = (0u64, false);
    let r = for_each_combo(&init, &all, &mut |choice: &[usize]| {
        let chosen: Vec<&CPath> = all.iter().zip(choice).map(|(p, c)| &p[*c]).collect();
        if let Some(sk) = c_skeleton(&init, &chosen, variants) {
            let tregs: Vec<&BTreeMap<String, i64>> = chosen.iter().map(|p| &p.vars).collect();
            let mut rc = vec![0usize; sk.sources.len()];
            loop {
                let rf: Vec<(usize, usize)> = sk
                    .sources
                    .iter()
                    .zip(&rc)
                    .map(|((r, ws), c)| (ws[*c], *r))
                    .collect();
                let mut fc = vec![0usize; sk.finals.len()];
                let grounded = values_grounded(&sk, &rf, SYMBOLIC);
                loop {
                    if stop() {
                        return Err(AxError::new("stopped"));
                    }
                    let fw: Vec<usize> = sk
                        .finals
                        .iter()
                        .zip(&fc)
                        .map(|((_, ws), c)| ws[*c])
                        .collect();
                    if grounded && finals_coherent(&sk, &rf, &fw) {
                        let mem: BTreeMap<i64, i64> = fw
                            .iter()
                            .map(|&f| (sk.events[f].addr, sk.events[f].write))
                            .collect();
                        let keep = src
                            .filter
                            .as_ref()
                            .is_none_or(|f| cx.eval(f, &tregs, &mem, false) != 0);
                        let sat = cx.eval(&cond.expr, &tregs, &mem, false) != 0;
                        if keep && (!partial || sat == relevant) {
                            rep.candidates += 1;
                            let env = c_candidate_env(&sk, &rf, &fw);
                            let runs = model.outcomes(&env)?;
                            made += runs.iter().filter(|o| !o.pruned).count() as u64;
                            if explore == Explore::Auto && !partial && made > FULL_RUNS {
                                over = true;
                                return Err(AxError::new(OVER));
                            }
                            let exe = |failure| CExecution {
                                events: sk.events.clone(),
                                rf: rf.clone(),
                                failure,
                                values: crate::cat::named_values(&{
                                    let mut e = env.clone();
                                    model
                                        .run(&mut e)
                                        .map_or_else(|_| crate::cat::Env::new(0), |_| e)
                                }),
                            };
                            for out in runs {
                                rep.pruned += out.pruned as u64;
                                if tally.run(out.failed, sat, cond.quantifier, &exe) {
                                    flags.extend(out.flags);
                                    let st = keys
                                        .iter()
                                        .map(|k| {
                                            let v = cx.eval(&atoms[k], &tregs, &mem, false);
                                            cx.state_value(v)
                                        })
                                        .collect();
                                    states.insert(st);
                                }
                            }
                        }
                    }
                    if !odometer(&mut fc, |i| sk.finals[i].1.len()) {
                        break;
                    }
                }
                if !odometer(&mut rc, |i| sk.sources[i].1.len()) {
                    break;
                }
            }
        }
        Ok(())
    });
    if over {
        // too many model runs for a full count: the relevant executions only
        return check_c_with(test, src, prog, model, variants, Explore::Relevant, stop);
    }
    r?;
    rep.states = states
        .into_iter()
        .map(|st| {
            keys.iter()
                .zip(st)
                .map(|(k, (rank, name, v))| {
                    let value = match rank {
                        0 => "S".to_string(),
                        1 => v.to_string(),
                        _ => name,
                    };
                    match k.0 {
                        0 => format!("{}:{}={value};", k.1, k.2),
                        _ => format!("[{}]={value};", k.2),
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    rep.flags = flags.into_iter().collect();
    rep.ok = tally.verdict(cond.quantifier);
    (rep.positive, rep.negative) = (tally.positive, tally.negative);
    (rep.witness, rep.forbidden) = (tally.witness, tally.forbidden);
    Ok(rep)
}

/// The parts of `e` that must hold (`positive`) or fail (not) for `e` to hold (or fail):
/// its conjuncts, looking through `~`, `\\/` under a negation and `=>`.
fn conjuncts(e: &Expr, positive: bool, out: &mut Vec<(Expr, bool)>) {
    match &e.kind {
        ExprKind::Binary(BinOp::And, a, b) if positive => {
            conjuncts(a, true, out);
            conjuncts(b, true, out);
        }
        ExprKind::Binary(BinOp::Or, a, b) if !positive => {
            conjuncts(a, false, out);
            conjuncts(b, false, out);
        }
        ExprKind::Binary(BinOp::Implies, a, b) if !positive => {
            conjuncts(a, true, out);
            conjuncts(b, false, out);
        }
        ExprKind::Unary(UnOp::Not, a) => conjuncts(a, !positive, out),
        _ => out.push((e.clone(), positive)),
    }
}

/// The one thread whose registers `e` reads, if it reads no location and no other
/// thread's registers.
fn one_thread(e: &Expr) -> Option<usize> {
    fn walk(e: &Expr, t: &mut Option<usize>, ok: &mut bool) {
        match &e.kind {
            ExprKind::ThreadReg { thread, .. } => match t {
                Some(u) if *u != *thread => *ok = false,
                _ => *t = Some(*thread),
            },
            ExprKind::Load(_) => *ok = false,
            ExprKind::Unary(_, a) => walk(a, t, ok),
            ExprKind::Binary(_, a, b) => {
                walk(a, t, ok);
                walk(b, t, ok);
            }
            _ => {}
        }
    }
    let (mut t, mut ok) = (None, true);
    walk(e, &mut t, &mut ok);
    t.filter(|_| ok)
}

/// Drops the paths that make some part of `parts` about their own thread alone come out
/// the wrong way (evaluated as the condition is, on the path's final registers).
fn keep_paths(cx: &Cx, all: &mut [Vec<CPath>], parts: &[(Expr, bool)]) {
    let none = BTreeMap::new();
    let mem = BTreeMap::new();
    for (e, want) in parts {
        let Some(t) = one_thread(e) else { continue };
        let Some(ps) = all.get_mut(t) else { continue };
        ps.retain(|p| {
            let mut regs: Vec<&BTreeMap<String, i64>> = vec![&none; t + 1];
            regs[t] = &p.vars;
            (cx.eval(e, &regs, &mem, false) != 0) == *want
        });
    }
}
