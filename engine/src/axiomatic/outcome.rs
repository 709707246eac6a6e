//! Checking one test: the value domain, every candidate, the model's verdict on each, and
//! herd's summary (final states, positive and negative counts, a witness or the check that
//! forbids).

use super::exec::{self, candidate_env, each_candidate, Skeleton};
use super::tally::Tally;
use super::thread::{paths, Ctx, Path};
use super::{AxError, Event, Kind};
use crate::asm::{self, Code, Value as Init};
use crate::ast::{BinOp, Expr, ExprKind, Quantifier, Test, UnOp};
use crate::cat::{Failure, Model};
use std::collections::{BTreeMap, BTreeSet};

/// The address of cell `cell` of location `loc` (index into `Test::shared`): locations are
/// 0x10000 bytes apart, a location's cells the size of its declared type apart (herd's
/// `int`, 4 bytes, when none is declared).
pub fn address(code: &Code, loc: usize, cell: usize) -> i64 {
    0x10000 * (loc as i64 + 1) + code.types.location(loc).bytes as i64 * cell as i64
}

/// The name of the location cell at `addr` as the test writes it (`x`, `a[1]`), or the
/// address in hexadecimal.
pub fn location_name(test: &Test, code: &Code, addr: i64) -> String {
    for (i, d) in test.shared.iter().enumerate() {
        for c in 0..d.cells() as usize {
            if address(code, i, c) == addr {
                return if d.is_array() {
                    format!("{}[{c}]", d.name.text)
                } else {
                    d.name.text.clone()
                };
            }
        }
    }
    format!("{addr:#x}")
}

/// A candidate execution with what the model said of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Execution {
    pub events: Vec<Event>,
    pub rf: Vec<(usize, usize)>,
    pub co: Vec<Vec<usize>>,
    /// Final values of the condition's observed registers and locations.
    pub state: Vec<(String, i64)>,
    /// The check that forbids it (`None`: the model allows it).
    pub failure: Option<Failure>,
    /// Its dependencies and exclusive pairs, `(relation, from, to)` with relation `addr`,
    /// `data`, `ctrl` or `rmw` (for the editor's graph; the model reads them from its env).
    pub deps: Vec<(&'static str, usize, usize)>,
    /// Every named set and relation as the model's run on it left them (its base ones and the
    /// model's `let`s; for a forbidden one, those defined before the failing check):
    /// [`crate::cat::named_values`].
    pub values: Vec<(String, crate::cat::Named)>,
    /// Its base sets and relations, before any model ran (for [`crate::cat::evaluate`] under
    /// another model; empty for a C test's).
    pub base: Vec<(String, crate::cat::Named)>,
}

/// An observed register or location as herd7 writes it in a final state
/// ([`Report::herd_states`]; the rules are in `docs/arm-riscv.md#final-states-as-herd-writes-them`).
#[derive(Clone, Debug, PartialEq)]
pub struct Observed {
    /// herd's name without brackets: `0:X0`, `x`, `a[1]`.
    pub name: String,
    /// A location herd writes in brackets (`[x]`): a global location that is not an array
    /// or an array's cell.
    pub bracketed: bool,
    /// The type its values are written at (herd's `int` when none is declared; an array
    /// cell's element type).
    pub ty: asm::CType,
    /// herd's order: registers by thread and register number, then locations by name, then
    /// array cells by name and index.
    order: (u8, usize, u32, String, i64),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub quantifier: Quantifier,
    /// herd's `Ok`: the exists-state is reachable / the ~exists-state is not / forall holds.
    pub ok: bool,
    /// Allowed executions that satisfy / do not satisfy the condition.
    pub positive: u64,
    pub negative: u64,
    /// The observed names (sorted like herd's) and the distinct final states allowed.
    pub vars: Vec<String>,
    pub states: Vec<Vec<i64>>,
    /// Per name of `vars`, how herd writes it and its values.
    pub observed: Vec<Observed>,
    /// Candidates examined.
    pub candidates: u64,
    /// An allowed execution satisfying the condition (the witness of an `exists`, the
    /// counterexample of a `~exists`), or for `forall` one that violates it.
    pub witness: Option<Execution>,
    /// When no allowed execution satisfies an `exists`: a candidate that would, and the
    /// check that forbids it.
    pub forbidden: Option<Execution>,
    /// Flags raised in allowed executions.
    pub flags: Vec<String>,
}

struct Cx<'a> {
    test: &'a Test,
    code: &'a Code,
}

impl Cx<'_> {
    fn eval(&self, e: &Expr, regs: &[&BTreeMap<asm::Reg, i64>], mem: &BTreeMap<i64, i64>) -> i64 {
        match &e.kind {
            ExprKind::Int(i) => *i,
            ExprKind::Reg(_) => 0,
            ExprKind::ThreadReg { thread, reg } => asm::register(self.code.arch, &reg.text)
                .and_then(|r| {
                    let v = regs.get(*thread).and_then(|m| m.get(&r).copied())?;
                    Some(self.code.types.register(*thread, r).normalize(v))
                })
                .unwrap_or(0),
            ExprKind::Load(l) => {
                let cell = l.index.as_ref().map_or(0, |i| self.eval(i, regs, mem)) as usize;
                if self.code.address_atoms.contains(&l.span) {
                    address(self.code, l.var, cell)
                } else {
                    let v = mem.get(&address(self.code, l.var, cell));
                    self.code
                        .types
                        .location(l.var)
                        .normalize(v.copied().unwrap_or(0))
                }
            }
            ExprKind::Unary(UnOp::Not, a) => (self.eval(a, regs, mem) == 0) as i64,
            ExprKind::Unary(UnOp::Neg, a) => self.eval(a, regs, mem).wrapping_neg(),
            ExprKind::Binary(op, a, b) => {
                let x = self.eval(a, regs, mem);
                let t = |c: bool| c as i64;
                match op {
                    BinOp::And => t(x != 0 && self.eval(b, regs, mem) != 0),
                    BinOp::Or => t(x != 0 || self.eval(b, regs, mem) != 0),
                    BinOp::Implies => t(x == 0 || self.eval(b, regs, mem) != 0),
                    _ => {
                        let y = self.eval(b, regs, mem);
                        // herd compares an observed value and a constant at the value's
                        // declared type: `0:x5=0xffffffff` holds for -1 in an `int`.
                        let ty = self.observed_type(a).or(self.observed_type(b));
                        let (x, y) = match (op, ty) {
                            (BinOp::Eq | BinOp::Ne, Some(ty)) => (ty.normalize(x), ty.normalize(y)),
                            _ => (x, y),
                        };
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
                            BinOp::BitAnd => x & y,
                            BinOp::BitOr => x | y,
                            BinOp::BitXor => x ^ y,
                            _ => 0,
                        }
                    }
                }
            }
        }
    }

    /// The declared type of an observed register or location (`None` for anything else).
    fn observed_type(&self, e: &Expr) -> Option<asm::CType> {
        match &e.kind {
            ExprKind::ThreadReg { thread, reg } => asm::register(self.code.arch, &reg.text)
                .map(|r| self.code.types.register(*thread, r)),
            ExprKind::Load(l) if !self.code.address_atoms.contains(&l.span) => {
                Some(self.code.types.location(l.var))
            }
            _ => None,
        }
    }

    /// How herd writes the observed atom `key` read by `e` ([`Cx::atoms`]).
    fn observed(&self, key: &str, e: &Expr) -> Observed {
        let arch = self.code.arch;
        match &e.kind {
            ExprKind::ThreadReg { thread, reg } => {
                let r = asm::register(arch, &reg.text);
                // herd's register order: the zero register first, then by number.
                let rank = match r {
                    Some(asm::Reg::Zero) => 0,
                    Some(asm::Reg::R(n)) => 1 + n as u32,
                    _ => u32::MAX,
                };
                Observed {
                    name: key.to_string(),
                    bracketed: false,
                    ty: r.map_or(asm::CType::DEFAULT, |r| {
                        self.code.types.register(*thread, r)
                    }),
                    order: (0, *thread, rank, String::new(), 0),
                }
            }
            ExprKind::Load(l) => {
                let d = &self.test.shared[l.var];
                let ty = self.code.types.location(l.var);
                match &l.index {
                    // herd's `Deref`: after every plain name, unbracketed.
                    Some(i) => Observed {
                        name: key.to_string(),
                        bracketed: false,
                        ty,
                        order: (
                            2,
                            0,
                            0,
                            d.name.text.clone(),
                            self.eval(i, &[], &BTreeMap::new()),
                        ),
                    },
                    None => Observed {
                        name: key.to_string(),
                        bracketed: !d.is_array(),
                        ty,
                        order: (1, 0, 0, d.name.text.clone(), 0),
                    },
                }
            }
            _ => Observed {
                name: key.to_string(),
                bracketed: false,
                ty: asm::CType::DEFAULT,
                order: (3, 0, 0, key.to_string(), 0),
            },
        }
    }

    /// The observed atoms of the condition: herd's names and expressions that read them.
    fn atoms(&self, e: &Expr, out: &mut BTreeMap<String, Expr>) {
        match &e.kind {
            ExprKind::ThreadReg { thread, reg } => {
                let key = asm::register(self.code.arch, &reg.text)
                    .map_or(reg.text.clone(), |r| r.key(self.code.arch));
                out.insert(format!("{thread}:{key}"), e.clone());
            }
            ExprKind::Load(l) if !self.code.address_atoms.contains(&l.span) => {
                let name = &self.test.shared[l.var].name.text;
                let key = match &l.index {
                    Some(i) => format!("{name}[{}]", self.eval(i, &[], &BTreeMap::new())),
                    None => name.clone(),
                };
                out.insert(key, e.clone());
            }
            ExprKind::Unary(_, a) => self.atoms(a, out),
            ExprKind::Binary(_, a, b) => {
                self.atoms(a, out);
                self.atoms(b, out);
            }
            _ => {}
        }
    }
}

fn init_value(code: &Code, v: &Init) -> Result<i64, AxError> {
    match v {
        Init::Int(i) => Ok(*i),
        Init::Address(l) => Ok(address(code, *l, 0)),
        Init::Label { .. } => Err(AxError::new(
            "label addresses in the initial state are not supported by the axiomatic engine yet",
        )),
    }
}

/// Checks `test` (with its `code`) against `model`. `stop` is polled between candidates.
pub fn check(
    test: &Test,
    code: &Code,
    model: &Model,
    stop: &dyn Fn() -> bool,
) -> Result<Report, AxError> {
    let cond = test
        .condition
        .as_ref()
        .ok_or_else(|| AxError::new("the test has no final condition"))?;
    let cx = Cx { test, code };
    // Initial memory: one write per cell.
    let mut init: Vec<(i64, i64)> = Vec::new();
    for (i, s) in test.shared.iter().enumerate() {
        for (c, v) in s.init.iter().enumerate() {
            init.push((address(code, i, c), *v));
        }
    }
    for (loc, v) in &code.memory_init {
        let a = address(code, *loc, 0);
        let v = init_value(code, v)?;
        init.iter_mut().filter(|x| x.0 == a).for_each(|x| x.1 = v);
    }
    let mut regs: Vec<BTreeMap<asm::Reg, i64>> = vec![BTreeMap::new(); code.threads.len()];
    for ri in &code.init {
        if let Some(m) = regs.get_mut(ri.thread) {
            m.insert(ri.reg, init_value(code, &ri.value)?);
        }
    }
    // The values each location may hold: every value some path writes, iterated from the
    // initial values. A value an execution reads comes from a chain of writes each computed
    // from the one before (no value out of thin air: the models order dependencies and rf),
    // and a chain has at most as many writes as an execution: after that many rounds the
    // domain holds every value an execution can read, even where the iteration would go on
    // (an AMO adding to what it read: herd solves such values symbolically).
    let mut domain: BTreeMap<i64, BTreeSet<i64>> = init
        .iter()
        .map(|&(a, v)| (a, BTreeSet::from([v])))
        .collect();
    let declared: BTreeMap<i64, (u8, i64)> = init
        .iter()
        .filter_map(|&(a, v)| {
            let loc = (a / 0x10000 - 1) as usize;
            code.types.locations.get(&loc).map(|t| (a, (t.bytes, v)))
        })
        .collect();
    let mut all: Vec<Vec<Path>>;
    let mut rounds = 0;
    loop {
        all = Vec::new();
        for (t, tc) in code.threads.iter().enumerate() {
            let ctx = Ctx {
                arch: code.arch,
                thread: t,
                code: tc,
                domain: &domain,
                init: regs[t].clone(),
                declared: &declared,
            };
            all.push(paths(&ctx)?);
        }
        if rounds >= most_writes(&all) {
            break;
        }
        let mut grown = false;
        for e in all.iter().flatten().flat_map(|p| &p.events) {
            if e.kind == Kind::W {
                let d = domain
                    .get_mut(&e.addr)
                    .ok_or_else(|| AxError::new("a store to an address that is not a location"))?;
                grown |= d.insert(e.value);
            }
        }
        rounds += 1;
        if !grown {
            break;
        }
        if domain.values().any(|d| d.len() > MAX_VALUES) {
            return Err(AxError::new(&format!(
                "unknown: more than {MAX_VALUES} values for one location (the engine's bound)"
            )));
        }
    }
    let cells: Vec<(i64, i64, Option<u8>)> = init
        .iter()
        .map(|&(a, v)| (a, v, declared.get(&a).map(|d| d.0)))
        .collect();
    super::access::check_sizes(code, &cells, &all, model.requires_uniproc())?;
    let mut atoms = BTreeMap::new();
    cx.atoms(&cond.expr, &mut atoms);
    for e in &code.shown {
        cx.atoms(e, &mut atoms);
    }
    let vars: Vec<String> = atoms.keys().cloned().collect();
    let observed = atoms.iter().map(|(k, e)| cx.observed(k, e)).collect();
    let mut rep = Report {
        quantifier: cond.quantifier,
        ok: false,
        positive: 0,
        negative: 0,
        vars,
        states: Vec::new(),
        observed,
        candidates: 0,
        witness: None,
        forbidden: None,
        flags: Vec::new(),
    };
    let mut states = BTreeSet::new();
    let mut flags = BTreeSet::new();
    let mut tally = Tally::new();
    let mut choice = vec![0usize; all.len()];
    if all.iter().any(|p| p.is_empty()) {
        return Err(AxError::new("a thread has no complete path"));
    }
    let mut err = None;
    let uniproc = model.requires_uniproc();
    loop {
        let chosen: Vec<&Path> = all.iter().zip(&choice).map(|(p, c)| &p[*c]).collect();
        if let Some(sk) = exec::skeleton(&init, &chosen) {
            let tregs: Vec<&BTreeMap<asm::Reg, i64>> = chosen.iter().map(|p| &p.regs).collect();
            each_candidate(&sk, uniproc, stop, &mut |rf, co| {
                if stop() {
                    return false;
                }
                rep.candidates += 1;
                let mem: BTreeMap<i64, i64> = co
                    .iter()
                    .map(|o| {
                        (
                            sk.events[o[0]].addr,
                            sk.events[*o.last().unwrap_or(&o[0])].value,
                        )
                    })
                    .collect();
                if let Some(f) = &code.filter {
                    if cx.eval(f, &tregs, &mem) == 0 {
                        return true;
                    }
                }
                let mut env = candidate_env(&sk, rf, co);
                let out = match model.run(&mut env) {
                    Ok(o) => o,
                    Err(e) => {
                        err = Some(e);
                        return false;
                    }
                };
                let sat = cx.eval(&cond.expr, &tregs, &mem) != 0;
                let state = || -> Vec<(String, i64)> {
                    atoms
                        .iter()
                        .map(|(k, e)| (k.clone(), cx.eval(e, &tregs, &mem)))
                        .collect()
                };
                let exe = |failure| Execution {
                    events: sk.events.clone(),
                    rf: rf.to_vec(),
                    co: co.to_vec(),
                    state: state(),
                    failure,
                    deps: deps(&sk),
                    values: crate::cat::named_values(&env),
                    base: crate::cat::named_values(&candidate_env(&sk, rf, co)),
                };
                if tally.run(out.failed, sat, cond.quantifier, exe) {
                    flags.extend(out.flags);
                    states.insert(state().into_iter().map(|(_, v)| v).collect::<Vec<_>>());
                }
                true
            });
            if let Some(e) = err.take() {
                return Err(e.into());
            }
            let _: &Skeleton = &sk;
        }
        if stop() {
            return Err(AxError::new("stopped"));
        }
        if !exec::odometer(&mut choice, |i| all[i].len()) {
            break;
        }
    }
    rep.states = states.into_iter().collect();
    rep.flags = flags.into_iter().collect();
    rep.ok = tally.verdict(cond.quantifier);
    (rep.positive, rep.negative) = (tally.positive, tally.negative);
    (rep.witness, rep.forbidden) = (tally.witness, tally.forbidden);
    Ok(rep)
}

impl Report {
    /// The final states as herd7 writes them after `States N`, one line each (`0:X0=1;
    /// [x]=2;`), in herd's order: the names ordered as herd orders them, global locations in
    /// brackets (herd7 7.56.3 and later; `brackets: false` writes them as older herd7s and
    /// `herd7 -brackets false` do), values at their type (a `uint64_t` or pointer unsigned),
    /// an address as the location's name (`x`, `x+4` inside it).
    pub fn herd_states(&self, test: &Test, code: &Code, brackets: bool) -> Vec<String> {
        let mut idx: Vec<usize> = (0..self.observed.len()).collect();
        idx.sort_by(|&a, &b| self.observed[a].order.cmp(&self.observed[b].order));
        let mut lines: Vec<(Vec<(bool, i64)>, String)> = self
            .states
            .iter()
            .map(|st| {
                let mut key = Vec::new();
                let mut line = Vec::new();
                for &i in &idx {
                    let o = &self.observed[i];
                    let v = st.get(i).copied().unwrap_or(0);
                    let addr = address_of(test, code, v);
                    key.push((addr.is_some(), v));
                    let value = addr.unwrap_or_else(|| herd_scalar(o.ty, v));
                    if brackets && o.bracketed {
                        line.push(format!("[{}]={value};", o.name));
                    } else {
                        line.push(format!("{}={value};", o.name));
                    }
                }
                (key, line.join(" "))
            })
            .collect();
        // herd orders states by their values in that order, numbers before addresses.
        lines.sort();
        lines.into_iter().map(|(_, l)| l).collect()
    }
}

/// A number as herd7 writes it at type `ty`: the value is already normalized to the type
/// (truncated, then sign- or zero-extended); a 64-bit unsigned type (and a pointer) is
/// written unsigned.
fn herd_scalar(ty: asm::CType, v: i64) -> String {
    if ty.bytes == 8 && !ty.signed {
        (v as u64).to_string()
    } else {
        v.to_string()
    }
}

/// The location `v` is the address of, as herd writes a symbolic address: its name, or
/// `name+k` for `k` bytes inside it (an array's cell).
fn address_of(test: &Test, code: &Code, v: i64) -> Option<String> {
    test.shared.iter().enumerate().find_map(|(i, d)| {
        let base = address(code, i, 0);
        let size = code.types.location(i).bytes as i64 * d.cells() as i64;
        match v - base {
            0 => Some(d.name.text.clone()),
            k if k > 0 && k < size => Some(format!("{}+{k}", d.name.text)),
            _ => None,
        }
    })
}

/// The most values the engine tries for one location.
const MAX_VALUES: usize = 64;

/// The most writes one execution can have: per thread, its path with the most writes.
fn most_writes(all: &[Vec<Path>]) -> usize {
    all.iter()
        .map(|ps| {
            ps.iter()
                .map(|p| p.events.iter().filter(|e| e.kind == Kind::W).count())
                .max()
                .unwrap_or(0)
        })
        .sum()
}

/// The skeleton's `addr`, `data`, `ctrl` and `rmw` pairs.
pub(super) fn deps(sk: &Skeleton) -> Vec<(&'static str, usize, usize)> {
    let mut out = Vec::new();
    for name in ["addr", "data", "ctrl", "rmw"] {
        if let Some(crate::cat::Value::Rel(r)) = sk.env.vars.get(name) {
            out.extend(r.pairs().into_iter().map(|(a, b)| (name, a, b)));
        }
    }
    out
}
