//! The axiomatic engine on a lowered program ([`crate::ir::Program`]): herd's `X86`/`X86_64`
//! tests (and native ones without locks, awaits or assertions) checked against a cat model,
//! with the final states the operational engines report, so that the two semantics check each
//! other (`engine/tests/axiomatic_x86.rs`).
//!
//! Per thread, the paths through its IR: a load forks on every value its cell may hold, an
//! RMW is a read and (unless a `cas` fails) a write joined by `rmw`, both tagged `X` (x86's
//! locked instructions; a failed `cas` leaves its read alone, still `X`), a fence is an `F`
//! event tagged `MFENCE`. A path that passes the loop bound or a false `assume` is dropped,
//! as the operational engines drop such executions. Cells are addresses `0..cells`.

use super::exec::{self, candidate_env, each_candidate};
use super::thread::Path;
use super::{AxError, Event, Execution, Kind};
use crate::ast::{self, Quantifier};
use crate::cat::{Failure, Model};
use crate::ir::{InstrKind, Program};
use crate::report::{ConditionResult, FinalState};
use std::collections::{BTreeMap, BTreeSet};

/// What the axiomatic engine says of a program under one model.
#[derive(Clone, Debug, PartialEq)]
pub struct ProgramReport {
    /// The final states of the allowed executions (every named register, then every cell,
    /// as [`crate::ModelReport::states`]), sorted.
    pub states: Vec<FinalState>,
    /// The condition's verdict over `states` (`None` without a condition).
    pub condition: Option<ConditionResult>,
    /// Candidates examined.
    pub candidates: u64,
    /// Allowed executions whose final state satisfies / does not satisfy the condition's
    /// expression (herd's `Positive` and `Negative`; both 0 without a condition).
    pub positive: u64,
    pub negative: u64,
    /// An allowed execution whose final state satisfies the condition (falsifies it, for
    /// `forall`).
    pub witness: Option<Execution>,
    /// When no allowed execution reaches the condition's state: a candidate that does and
    /// the check that forbids it.
    pub forbidden: Option<Execution>,
}

/// One path with the thread's named registers at its end.
struct IrPath {
    path: Path,
    regs: Vec<i64>,
}

#[derive(Clone)]
struct St {
    regs: Vec<i64>,
    loops: Vec<u32>,
    pc: usize,
    path: Path,
}

fn unsupported(p: &Program, t: usize, pc: usize, what: &str) -> AxError {
    AxError::at(
        p.threads[t].code[pc].span,
        &format!("{what} are not supported by the axiomatic engine"),
    )
}

/// Every complete path through thread `t`.
fn ir_paths(
    p: &Program,
    t: usize,
    domain: &BTreeMap<i64, BTreeSet<i64>>,
) -> Result<Vec<IrPath>, AxError> {
    let th = &p.threads[t];
    let named = th.regs.len();
    let start = St {
        regs: th.reg_init.clone(),
        loops: vec![0; th.n_loops as usize],
        pc: 0,
        path: Path::default(),
    };
    let mut out = Vec::new();
    let mut work = vec![start];
    let ev = |kind, addr, value| Event {
        thread: Some(t),
        kind,
        addr,
        value,
        po: 0,
        tags: Vec::new(),
    };
    let push = |st: &mut St, mut e: Event| -> usize {
        let i = st.path.events.len();
        e.po = i;
        st.path.events.push(e);
        i
    };
    'paths: while let Some(mut st) = work.pop() {
        while let Some(ins) = th.code.get(st.pc) {
            let pc = st.pc;
            let fault = |m: &str| AxError::at(ins.span, &format!("{m} (axiomatic engine)"));
            let eval = |e: &crate::ir::PExpr, regs: &[i64]| {
                e.eval(regs).map_err(|_| fault("division by zero"))
            };
            let cell = |st: &St, acc| p.resolve(acc, &st.regs).map(|c| c as i64);
            let values = |a: i64| -> Vec<i64> {
                domain
                    .get(&a)
                    .map(|d| d.iter().copied().collect())
                    .unwrap_or_default()
            };
            st.pc += 1;
            match &ins.kind {
                InstrKind::Load { dst, loc } => {
                    let a = cell(&st, loc).map_err(|m| fault(&m))?;
                    let vals = values(a);
                    for (k, v) in vals.iter().enumerate().rev() {
                        let mut s = if k == 0 {
                            std::mem::replace(&mut st, St::empty())
                        } else {
                            st.clone()
                        };
                        push(&mut s, ev(Kind::R, a, *v));
                        s.regs[*dst as usize] = *v;
                        s.after(ins.clear_temps, named);
                        work.push(s);
                    }
                    continue 'paths;
                }
                InstrKind::Store { loc, value } => {
                    let a = cell(&st, loc).map_err(|m| fault(&m))?;
                    let v = eval(value, &st.regs)?;
                    push(&mut st, ev(Kind::W, a, v));
                }
                InstrKind::Fence => {
                    let mut e = ev(Kind::F, -1, 0);
                    e.tags.push("MFENCE");
                    push(&mut st, e);
                }
                InstrKind::Rmw { dst, op, loc, args } => {
                    let a = cell(&st, loc).map_err(|m| fault(&m))?;
                    let args = args
                        .iter()
                        .map(|x| eval(x, &st.regs))
                        .collect::<Result<Vec<i64>, _>>()?;
                    for (k, old) in values(a).iter().enumerate().rev() {
                        let mut s = if k == 0 {
                            std::mem::replace(&mut st, St::empty())
                        } else {
                            st.clone()
                        };
                        let mut r = ev(Kind::R, a, *old);
                        r.tags.push("X");
                        let ri = push(&mut s, r);
                        if let Some(new) = op.write(*old, &args) {
                            let mut w = ev(Kind::W, a, new);
                            w.tags.push("X");
                            let wi = push(&mut s, w);
                            s.path.rmw.push((ri, wi));
                        }
                        if let Some(d) = dst {
                            s.regs[*d as usize] = *old;
                        }
                        s.after(ins.clear_temps, named);
                        work.push(s);
                    }
                    continue 'paths;
                }
                InstrKind::Assign { dst, value } => {
                    let v = eval(value, &st.regs)?;
                    st.regs[*dst as usize] = v;
                }
                InstrKind::Jump(to) => st.pc = *to as usize,
                InstrKind::JumpIf { cond, target, when } => {
                    if (eval(cond, &st.regs)? != 0) == *when {
                        st.pc = *target as usize;
                    }
                }
                InstrKind::Assume(c) => {
                    if eval(c, &st.regs)? == 0 {
                        continue 'paths;
                    }
                }
                InstrKind::LoopEnter(l) => st.loops[*l as usize] = 0,
                InstrKind::LoopIter(l) => {
                    let c = &mut st.loops[*l as usize];
                    if *c >= p.loop_bound {
                        continue 'paths;
                    }
                    *c += 1;
                }
                InstrKind::Lock(_) | InstrKind::Unlock(_) => {
                    return Err(unsupported(p, t, pc, "mutexes"))
                }
                InstrKind::AwaitBegin | InstrKind::AwaitCheck { .. } => {
                    return Err(unsupported(p, t, pc, "awaits"))
                }
                InstrKind::Assert(_) => return Err(unsupported(p, t, pc, "assertions")),
            }
            st.after(ins.clear_temps, named);
        }
        st.regs.truncate(named);
        out.push(IrPath {
            path: st.path,
            regs: st.regs,
        });
        if out.len() > 100_000 {
            return Err(AxError::new("too many paths through one thread"));
        }
    }
    Ok(out)
}

impl St {
    fn empty() -> St {
        St {
            regs: Vec::new(),
            loops: Vec::new(),
            pc: 0,
            path: Path::default(),
        }
    }
    fn after(&mut self, clear_temps: bool, named: usize) {
        if clear_temps {
            self.regs.iter_mut().skip(named).for_each(|r| *r = 0);
        }
    }
}

/// Checks `program` (lowered from `test`) against `model`. `stop` is polled between
/// candidates.
pub fn check_program(
    test: &ast::Test,
    program: &Program,
    model: &Model,
    stop: &dyn Fn() -> bool,
) -> Result<ProgramReport, AxError> {
    // The values each cell may hold: a fixed point over the threads' writes.
    let mut domain: BTreeMap<i64, BTreeSet<i64>> = program
        .init
        .iter()
        .enumerate()
        .map(|(c, v)| (c as i64, BTreeSet::from([*v])))
        .collect();
    let mut all: Vec<Vec<IrPath>>;
    let mut rounds = 0;
    loop {
        all = (0..program.threads.len())
            .map(|t| ir_paths(program, t, &domain))
            .collect::<Result<_, _>>()?;
        let mut grown = false;
        for e in all.iter().flatten().flat_map(|p| &p.path.events) {
            if e.kind == Kind::W {
                grown |= domain.entry(e.addr).or_default().insert(e.value);
            }
        }
        rounds += 1;
        if !grown {
            break;
        }
        if rounds > 8 || domain.values().any(|d| d.len() > 24) {
            return Err(AxError::new(
                "the values written do not settle (a loop that counts?)",
            ));
        }
    }
    // One initial write per cell some path accesses.
    let touched: BTreeSet<i64> = all
        .iter()
        .flatten()
        .flat_map(|p| &p.path.events)
        .filter(|e| e.kind != Kind::F)
        .map(|e| e.addr)
        .collect();
    let init: Vec<(i64, i64)> = touched
        .iter()
        .map(|&a| (a, program.init[a as usize]))
        .collect();
    let longest: usize = all
        .iter()
        .map(|ps| ps.iter().map(|p| p.path.events.len()).max().unwrap_or(0))
        .sum();
    if init.len() + longest > crate::cat::rel::MAX_EVENTS {
        return Err(AxError::new(&format!(
            "more than {} events in an execution, the axiomatic engine's limit",
            crate::cat::rel::MAX_EVENTS
        )));
    }
    let quantifier = test.condition.as_ref().map(|c| c.quantifier);
    let mut states = BTreeSet::new();
    let mut rep = ProgramReport {
        states: Vec::new(),
        condition: None,
        candidates: 0,
        positive: 0,
        negative: 0,
        witness: None,
        forbidden: None,
    };
    let uniproc = model.requires_uniproc();
    let mut choice = vec![0usize; all.len()];
    let mut err = None;
    loop {
        let chosen: Vec<&IrPath> = all.iter().zip(&choice).map(|(p, c)| &p[*c]).collect();
        let paths: Vec<&Path> = chosen.iter().map(|p| &p.path).collect();
        if let Some(sk) = exec::skeleton(&init, &paths) {
            each_candidate(&sk, uniproc, stop, &mut |rf, co| {
                if stop() {
                    return false;
                }
                rep.candidates += 1;
                let mut mem = program.init.clone();
                for o in co {
                    let last = &sk.events[*o.last().unwrap_or(&o[0])];
                    mem[last.addr as usize] = last.value;
                }
                let fs = final_state(program, &chosen, &mem);
                let mut env = candidate_env(&sk, rf, co);
                let out = match model.run(&mut env) {
                    Ok(o) => o,
                    Err(e) => {
                        err = Some(e);
                        return false;
                    }
                };
                let sat = crate::condition::satisfies(test, &fs).unwrap_or(false);
                let exe = |failure: Option<Failure>| Execution {
                    events: sk.events.clone(),
                    rf: rf.to_vec(),
                    co: co.to_vec(),
                    state: fs.0.clone(),
                    failure,
                    deps: super::outcome::deps(&sk),
                    values: crate::cat::named_values(&env),
                    base: crate::cat::named_values(&candidate_env(&sk, rf, co)),
                };
                match (out.failed, quantifier) {
                    (None, q) => {
                        if q.is_some() {
                            match sat {
                                true => rep.positive += 1,
                                false => rep.negative += 1,
                            }
                        }
                        let wanted = q.is_some() && sat != (q == Some(Quantifier::Forall));
                        if wanted && rep.witness.is_none() {
                            rep.witness = Some(exe(None));
                        }
                        states.insert(fs);
                    }
                    (Some(f), Some(q)) => {
                        if sat != (q == Quantifier::Forall) && rep.forbidden.is_none() {
                            rep.forbidden = Some(exe(Some(f)));
                        }
                    }
                    (Some(_), None) => {}
                }
                true
            });
            if let Some(e) = err.take() {
                return Err(e.into());
            }
        }
        if stop() {
            return Err(AxError::new("stopped"));
        }
        if !exec::odometer(&mut choice, |i| all[i].len()) {
            break;
        }
    }
    rep.states = states.into_iter().collect();
    rep.condition = crate::condition::evaluate_condition(test, &rep.states);
    if rep.witness.is_some() {
        rep.forbidden = None;
    }
    Ok(rep)
}

/// The final state as [`crate::semantics`] names it: every named register, then every cell.
fn final_state(p: &Program, paths: &[&IrPath], mem: &[i64]) -> FinalState {
    let mut v = Vec::new();
    for (t, path) in paths.iter().enumerate() {
        for (r, val) in path.regs.iter().enumerate() {
            v.push((p.reg_key(t, r), *val));
        }
    }
    for (c, name) in p.cells.iter().enumerate() {
        v.push((name.clone(), mem[c]));
    }
    FinalState(v)
}
