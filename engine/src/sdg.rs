//! The system dependency graph of a program ([Huang and Huang 2017](docs/papers.md#huang-huang-2017) §3.2-4.2), and the
//! dependences it gives the events of an executed trace.
//!
//! Per thread, over the IR instructions of [`crate::ir`]:
//! - the **control flow graph**, with an extra exit node. Besides jumps, every instruction that
//!   can end its thread's run early has an edge to the exit: a failed `assert` or `assume`, a
//!   runtime error (division by zero, an index out of bounds, an unlock of a mutex not held, a
//!   relock), the loop bound, and the instructions that can wait for good (an `await` whose
//!   condition never holds, a `lock` of a mutex that is never released). So the code after them
//!   depends on whatever decides that they pass (the paper's "Case 4": a call that may crash);
//! - **post-dominators** and, from them, **control dependences** (Ferrante, Ottenstein and
//!   Warren): an instruction is control dependent on a *predicate* (an instruction with two
//!   successors) when one of its branches always leads to it and the other may not;
//! - **data dependences** through registers, by reaching definitions: a use of a register
//!   depends on the definitions (loads, RMWs, assignments) that may reach it.
//!
//! [`Sdg::trace_deps`] maps this onto the events of one trace, as the paper does ("although the
//! dependence graph is statically computed, we only include the statements that do affect the
//! occurrence of a specific event"): it runs each thread's local instructions again along its
//! events, with the values its reads returned, and tracks which read events each register's
//! value came from. An event then depends on
//! - *for its existence* (its control dependences, and the address it accesses): the reads that
//!   flow into the conditions of the predicate instances it is control dependent on (the latest
//!   instance of each, and transitively theirs), and into its array index;
//! - *for its value* (a store, an RMW's operands): the reads that flow into what it writes;
//! - *for its path*: the reads that flow into any condition its thread evaluated before it.
//!
//! MCR uses this to constrain fewer reads (MCR-S+, see [`crate::mcr`]), and to decide which
//! steps after a read given a new value may stay in a query's prefix (its existence, value and
//! path independent of the read); `litmus check --dump-sdg` prints the static graph.

use crate::ast::{BinOp, RmwOp};
use crate::ir::{Access, InstrKind, PExpr, Program, Reg, ThreadCode};
use crate::mcr::trace::{EventKind, Trace};
use std::fmt::Write;

/// The dependence graph of every thread of a program.
pub struct Sdg {
    /// One graph per thread; empty when the graph was not built (see `skipped`).
    pub threads: Vec<ThreadSdg>,
    /// Why the graph was not built, if it was not: a thread above [`MAX_CONTROL_DEPS`] or
    /// [`MAX_REACHING_CELLS`], or the check stopped while building it. Without the graph every
    /// trace's dependences are unknown, and MCR keeps every read constrained (exact, slower).
    pub skipped: Option<String>,
}

/// The most control dependences (instruction, predicate pairs) a thread's graph may have.
/// Their number can be quadratic in the thread's length (code after n asserts depends on all
/// n); above this the graph is skipped.
pub const MAX_CONTROL_DEPS: usize = 4_000_000;
/// The most (instruction x register) cells reaching definitions may track in one thread.
pub const MAX_REACHING_CELLS: usize = 4_000_000;
/// The most bytes the dependences of one trace may take (three bit sets over the trace's events
/// per event, so quadratic in its length); a longer trace gets none.
pub const MAX_TRACE_DEPS_BYTES: usize = 64 << 20;

/// The dependence graph of one thread. Instruction `code.len()` is the exit node.
pub struct ThreadSdg {
    /// Successors of each instruction in the control flow graph.
    pub succ: Vec<Vec<u32>>,
    /// Immediate post-dominator of each instruction (the exit for the last ones).
    pub ipdom: Vec<u32>,
    /// The predicates each instruction is control dependent on.
    pub control: Vec<Vec<u32>>,
    /// For each instruction, the definitions (instruction, register) its uses may read.
    pub data: Vec<Vec<(u32, Reg)>>,
}

/// The reads the events of one trace depend on (see the module doc), as bit sets over the
/// trace's event indices: only earlier reads of the same thread ever appear.
pub struct TraceDeps {
    /// Per event: the reads deciding that it happens, and where (control and address).
    pub exist: Vec<Vec<u64>>,
    /// Per event: the reads flowing into the value it writes (stores, RMWs).
    pub value: Vec<Vec<u64>>,
    /// Per event: the reads flowing into any condition its thread evaluated before it (a
    /// branch, an `assert`, `assume` or `await` check, an operation that can fail). An event
    /// whose existence does not depend on a read may still come after a different path when
    /// the read changes (an `if` whose other branch has a step of its own): it is reached the
    /// same way, with the same steps before it, only if no read in this set changes.
    pub path: Vec<Vec<u64>>,
}

/// Whether bit `i` of the bit set `set` is on.
pub fn has(set: &[u64], i: usize) -> bool {
    set.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
}

/// The members of the bit set `set` below `n`.
pub fn members(set: &[u64], n: usize) -> impl Iterator<Item = usize> + '_ {
    (0..n).filter(move |&i| has(set, i))
}

fn insert(set: &mut [u64], i: usize) {
    set[i / 64] |= 1 << (i % 64);
}

fn exit_of(code: &[crate::ir::Instr]) -> u32 {
    code.len() as u32
}

/// Whether evaluating `e` can fail (division or remainder).
fn can_fail(e: &PExpr) -> bool {
    match e {
        PExpr::Int(_) | PExpr::Reg(_) => false,
        PExpr::Unary(_, a) => can_fail(a),
        PExpr::Binary(op, a, b) => {
            matches!(op, BinOp::Div | BinOp::Rem) || can_fail(a) || can_fail(b)
        }
    }
}

fn regs_of(e: &PExpr, out: &mut Vec<Reg>) {
    match e {
        PExpr::Int(_) => {}
        PExpr::Reg(r) => out.push(*r),
        PExpr::Unary(_, a) => regs_of(a, out),
        PExpr::Binary(_, a, b) => {
            regs_of(a, out);
            regs_of(b, out);
        }
    }
}

fn access_regs(a: &Access, out: &mut Vec<Reg>) {
    if let Some(i) = &a.index {
        regs_of(i, out);
    }
}

/// The registers an instruction reads: (for its existence: conditions, addresses, what may
/// fail), (for the value it writes).
fn uses(k: &InstrKind) -> (Vec<Reg>, Vec<Reg>) {
    let (mut exist, mut value) = (Vec::new(), Vec::new());
    match k {
        InstrKind::Load { loc, .. } => access_regs(loc, &mut exist),
        InstrKind::Store { loc, value: v } => {
            access_regs(loc, &mut exist);
            regs_of(v, &mut value);
            if can_fail(v) {
                regs_of(v, &mut exist);
            }
        }
        InstrKind::Rmw { loc, args, .. } => {
            access_regs(loc, &mut exist);
            for a in args {
                regs_of(a, &mut value);
                if can_fail(a) {
                    regs_of(a, &mut exist);
                }
            }
        }
        InstrKind::Assign { value: v, .. } => {
            regs_of(v, &mut value);
            if can_fail(v) {
                regs_of(v, &mut exist);
            }
        }
        InstrKind::JumpIf { cond, .. }
        | InstrKind::AwaitCheck { cond, .. }
        | InstrKind::Assert(cond)
        | InstrKind::Assume(cond) => regs_of(cond, &mut exist),
        _ => {}
    }
    (exist, value)
}

/// The register an instruction defines.
fn def(k: &InstrKind) -> Option<Reg> {
    match k {
        InstrKind::Load { dst, .. } | InstrKind::Assign { dst, .. } => Some(*dst),
        InstrKind::Rmw { dst, .. } => *dst,
        _ => None,
    }
}

/// Whether an instruction may end its thread's run (fault, block for good, loop bound).
fn may_stop(k: &InstrKind) -> bool {
    match k {
        InstrKind::Load { loc, .. } => loc.index.is_some(),
        InstrKind::Store { loc, value } => loc.index.is_some() || can_fail(value),
        InstrKind::Rmw { loc, args, .. } => loc.index.is_some() || args.iter().any(can_fail),
        InstrKind::Assign { value, .. } => can_fail(value),
        InstrKind::JumpIf { cond, .. } => can_fail(cond),
        InstrKind::Lock(_)
        | InstrKind::Unlock(_)
        | InstrKind::Assert(_)
        | InstrKind::Assume(_)
        | InstrKind::AwaitCheck { .. }
        | InstrKind::LoopIter(_) => true,
        InstrKind::Fence | InstrKind::Jump(_) | InstrKind::AwaitBegin | InstrKind::LoopEnter(_) => {
            false
        }
    }
}

impl ThreadSdg {
    /// The thread's graph, or why it was not built.
    fn new(th: &ThreadCode, stop: &mut dyn FnMut() -> bool) -> Result<ThreadSdg, String> {
        let code = &th.code;
        let n = code.len();
        let exit = exit_of(code);
        let mut succ: Vec<Vec<u32>> = Vec::with_capacity(n);
        for (i, ins) in code.iter().enumerate() {
            let next = i as u32 + 1;
            let mut s = match &ins.kind {
                InstrKind::Jump(t) => vec![*t],
                InstrKind::JumpIf { target, .. } => vec![next, *target],
                InstrKind::AwaitCheck { retry, .. } => vec![next, *retry],
                _ => vec![next],
            };
            if may_stop(&ins.kind) {
                s.push(exit);
            }
            s.iter_mut().for_each(|x| *x = (*x).min(exit));
            s.sort_unstable();
            s.dedup();
            succ.push(s);
        }
        let stopped = || "the check stopped".to_string();
        let ipdom = post_dominators(&succ, n, stop).ok_or_else(stopped)?;
        // Control dependence: for an edge a -> b where b does not post-dominate a, every node on
        // the post-dominator tree path from b up to (not including) ipdom(a) depends on a.
        let mut control: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut total = 0usize;
        for a in 0..n {
            if succ[a].len() < 2 {
                continue;
            }
            if a % 256 == 0 && stop() {
                return Err(stopped());
            }
            for &b in &succ[a] {
                let mut x = b;
                let end = ipdom[a];
                let mut guard = 0;
                while x != end && (x as usize) < n && guard <= n {
                    // `a` grows in this loop, so a repeat can only be the last entry.
                    if control[x as usize].last() != Some(&(a as u32)) {
                        control[x as usize].push(a as u32);
                        total += 1;
                        if total > MAX_CONTROL_DEPS {
                            return Err(format!(
                                "more than {MAX_CONTROL_DEPS} control dependences in one thread"
                            ));
                        }
                    }
                    x = ipdom[x as usize];
                    guard += 1;
                }
            }
        }
        control.iter_mut().for_each(|c| c.sort_unstable());
        let cells = (n + 1).saturating_mul(th.n_regs as usize);
        if cells > MAX_REACHING_CELLS {
            return Err(format!(
                "{n} instructions x {} registers in one thread, above {MAX_REACHING_CELLS}",
                th.n_regs
            ));
        }
        let data = reaching_uses(code, &succ, th, stop).ok_or_else(stopped)?;
        Ok(ThreadSdg { succ, ipdom, control, data })
    }
}

/// Immediate post-dominators, rooted at the exit node `n`: Cooper, Harvey and Kennedy's
/// "simple, fast dominance algorithm" on the reversed graph (near-linear on the structured
/// flow graphs the IR makes; the bit-set data flow it replaces was quadratic in time and
/// memory). A node that cannot reach the exit gets the exit. `None` if `stop` says stop.
fn post_dominators(succ: &[Vec<u32>], n: usize, stop: &mut dyn FnMut() -> bool) -> Option<Vec<u32>> {
    const UNDEF: u32 = u32::MAX;
    // Predecessors in the original graph = successors in the reversed one.
    let mut pred: Vec<Vec<u32>> = vec![Vec::new(); n + 1];
    for (i, ss) in succ.iter().enumerate() {
        for &s in ss {
            pred[s as usize].push(i as u32);
        }
    }
    // Post-order of the reversed graph from the exit (iterative depth-first search).
    let mut order: Vec<u32> = Vec::with_capacity(n + 1);
    let mut po = vec![UNDEF; n + 1];
    let mut seen = vec![false; n + 1];
    let mut stack: Vec<(u32, usize)> = vec![(n as u32, 0)];
    seen[n] = true;
    while let Some((v, k)) = stack.last_mut() {
        let v = *v;
        if let Some(&w) = pred[v as usize].get(*k) {
            *k += 1;
            if !seen[w as usize] {
                seen[w as usize] = true;
                stack.push((w, 0));
            }
        } else {
            po[v as usize] = order.len() as u32;
            order.push(v);
            stack.pop();
        }
    }
    let mut idom = vec![UNDEF; n + 1];
    idom[n] = n as u32;
    let intersect = |idom: &[u32], mut a: u32, mut b: u32| {
        while a != b {
            while po[a as usize] < po[b as usize] {
                a = idom[a as usize];
            }
            while po[b as usize] < po[a as usize] {
                b = idom[b as usize];
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        if stop() {
            return None;
        }
        // Reverse post-order, the root (last in post-order) excluded.
        for &v in order.iter().rev().skip(1) {
            let mut new = UNDEF;
            // The "predecessors" of `v` in the reversed graph: its successors.
            for &s in &succ[v as usize] {
                if idom[s as usize] == UNDEF {
                    continue;
                }
                new = if new == UNDEF { s } else { intersect(&idom, s, new) };
            }
            if new != UNDEF && idom[v as usize] != new {
                idom[v as usize] = new;
                changed = true;
            }
        }
    }
    Some((0..n).map(|i| if idom[i] == UNDEF { n as u32 } else { idom[i] }).collect())
}

/// Reaching definitions: for each instruction, the (definition, register) pairs its uses read.
fn reaching_uses(
    code: &[crate::ir::Instr],
    succ: &[Vec<u32>],
    th: &ThreadCode,
    stop: &mut dyn FnMut() -> bool,
) -> Option<Vec<Vec<(u32, Reg)>>> {
    let n = code.len();
    let nregs = th.n_regs as usize;
    // Per instruction and register: the definitions reaching its entry (sets of instruction
    // indices; `n` stands for the initial value).
    let mut ins: Vec<Vec<Vec<u32>>> = vec![vec![Vec::new(); nregs]; n + 1];
    ins[0].iter_mut().for_each(|defs| *defs = vec![n as u32]);
    let mut changed = true;
    while changed {
        changed = false;
        for i in 0..n {
            if i % 256 == 0 && stop() {
                return None;
            }
            let mut out = ins[i].clone();
            if let Some(d) = def(&code[i].kind) {
                if let Some(o) = out.get_mut(d as usize) {
                    *o = vec![i as u32];
                }
            }
            if code[i].clear_temps {
                for o in out.iter_mut().skip(th.regs.len()) {
                    o.clear();
                }
            }
            for &s in &succ[i] {
                let s = s as usize;
                for r in 0..nregs {
                    for &d in &out[r] {
                        if !ins[s][r].contains(&d) {
                            ins[s][r].push(d);
                            changed = true;
                        }
                    }
                }
            }
        }
    }
    let out = (0..n)
        .map(|i| {
            let (a, b) = uses(&code[i].kind);
            let mut regs: Vec<Reg> = a.into_iter().chain(b).collect();
            regs.sort_unstable();
            regs.dedup();
            let mut out: Vec<(u32, Reg)> = regs
                .into_iter()
                .flat_map(|r| {
                    ins[i]
                        .get(r as usize)
                        .cloned()
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|&d| (d as usize) < n)
                        .map(move |d| (d, r))
                })
                .collect();
            out.sort_unstable();
            out
        })
        .collect();
    Some(out)
}

impl Sdg {
    pub fn new(p: &Program) -> Sdg {
        Sdg::with_control(p, &crate::options::Control::new())
    }

    /// The graph, built while `ctl` says go on; skipped (see [`Sdg::skipped`]) when a thread is
    /// too large or the check stops meanwhile.
    pub fn with_control(p: &Program, ctl: &crate::options::Control) -> Sdg {
        let mut stop = || ctl.should_stop();
        let mut threads = Vec::with_capacity(p.threads.len());
        for (t, th) in p.threads.iter().enumerate() {
            match ThreadSdg::new(th, &mut stop) {
                Ok(g) => threads.push(g),
                Err(why) => {
                    return Sdg {
                        threads: Vec::new(),
                        skipped: Some(format!("thread {t}: {why}")),
                    }
                }
            }
        }
        Sdg { threads, skipped: None }
    }

    /// The dependences of the events of `tr` (a trace of `p`), or `None` if a thread's events do
    /// not follow its code (then nothing may be relaxed).
    pub fn trace_deps(&self, p: &Program, tr: &Trace) -> Option<TraceDeps> {
        let n = tr.events.len();
        let words = n.div_ceil(64).max(1);
        if n.saturating_mul(words).saturating_mul(3 * 8) > MAX_TRACE_DEPS_BYTES {
            return None;
        }
        let mut exist = vec![vec![0u64; words]; n];
        let mut value = vec![vec![0u64; words]; n];
        let mut path = vec![vec![0u64; words]; n];
        for (t, th) in p.threads.iter().enumerate() {
            let g = self.threads.get(t)?;
            let evs: Vec<usize> = (0..n)
                .filter(|&i| {
                    tr.events[i].thread == t && !matches!(tr.events[i].kind, EventKind::Flush { .. })
                })
                .collect();
            shadow(
                th,
                g,
                tr,
                &evs,
                p.loop_bound,
                words,
                [&mut exist, &mut value, &mut path],
            )?;
        }
        Some(TraceDeps { exist, value, path })
    }

    /// A text dump: per thread, each instruction with its successors, the predicates it is
    /// control dependent on, and the definitions its uses read.
    pub fn dump_text(&self, p: &Program, lines: &crate::span::LineIndex) -> String {
        let mut out = String::new();
        for (t, (th, g)) in p.threads.iter().zip(&self.threads).enumerate() {
            let _ = writeln!(out, "thread {} (#{t}):", th.name);
            for (i, ins) in th.code.iter().enumerate() {
                let text = instr_text(th, &ins.kind, p);
                let line = lines.line_col(ins.span.start).line;
                let succ: Vec<String> = g.succ[i].iter().map(|&s| label(s, th)).collect();
                let _ = write!(
                    out,
                    "  {i:>3}  {text:<28} line {line:<4} -> {}",
                    succ.join(", ")
                );
                if !g.control[i].is_empty() {
                    let c: Vec<String> = g.control[i].iter().map(|c| c.to_string()).collect();
                    let _ = write!(out, "   control: {}", c.join(", "));
                }
                if !g.data[i].is_empty() {
                    let d: Vec<String> = g.data[i]
                        .iter()
                        .map(|(d, r)| format!("{d} ({})", reg_name(th, *r)))
                        .collect();
                    let _ = write!(out, "   data: {}", d.join(", "));
                }
                out.push('\n');
            }
        }
        out
    }

    /// A Graphviz dump: one cluster per thread, control dependences solid, data dependences
    /// dashed and labelled with the register.
    pub fn dump_dot(&self, p: &Program) -> String {
        let mut out = String::from("digraph sdg {\n  node [shape=box, fontname=monospace];\n");
        for (t, (th, g)) in p.threads.iter().zip(&self.threads).enumerate() {
            let _ = writeln!(
                out,
                "  subgraph cluster_{t} {{\n    label=\"{}\";",
                escape(&th.name)
            );
            for (i, ins) in th.code.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "    t{t}_{i} [label=\"{i}: {}\"];",
                    escape(&instr_text(th, &ins.kind, p))
                );
            }
            let _ = writeln!(out, "    t{t}_exit [label=\"exit\", shape=oval];\n  }}");
            for i in 0..th.code.len() {
                for &c in &g.control[i] {
                    let _ = writeln!(out, "  t{t}_{c} -> t{t}_{i};");
                }
                for &(d, r) in &g.data[i] {
                    let _ = writeln!(
                        out,
                        "  t{t}_{d} -> t{t}_{i} [style=dashed, label=\"{}\"];",
                        escape(&reg_name(th, r))
                    );
                }
            }
        }
        out.push_str("}\n");
        out
    }
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn label(s: u32, th: &ThreadCode) -> String {
    if s as usize >= th.code.len() {
        "exit".to_string()
    } else {
        s.to_string()
    }
}

fn reg_name(th: &ThreadCode, r: Reg) -> String {
    th.regs
        .get(r as usize)
        .cloned()
        .unwrap_or_else(|| format!("t{r}"))
}

fn pexpr_text(th: &ThreadCode, e: &PExpr) -> String {
    match e {
        PExpr::Int(v) => v.to_string(),
        PExpr::Reg(r) => reg_name(th, *r),
        PExpr::Unary(op, a) => format!(
            "{}{}",
            if *op == crate::ast::UnOp::Neg {
                "-"
            } else {
                "!"
            },
            pexpr_text(th, a)
        ),
        PExpr::Binary(op, a, b) => format!(
            "({} {} {})",
            pexpr_text(th, a),
            op.symbol(),
            pexpr_text(th, b)
        ),
    }
}

fn access_text(th: &ThreadCode, a: &Access, p: &Program) -> String {
    let name = p.vars.get(a.var as usize).map_or("?", |v| v.name.as_str());
    match &a.index {
        Some(i) => format!("{name}[{}]", pexpr_text(th, i)),
        None => name.to_string(),
    }
}

fn instr_text(th: &ThreadCode, k: &InstrKind, p: &Program) -> String {
    let mutex = |m: &u32| p.mutexes.get(*m as usize).cloned().unwrap_or_default();
    match k {
        InstrKind::Load { dst, loc } => {
            format!("{} = load {}", reg_name(th, *dst), access_text(th, loc, p))
        }
        InstrKind::Store { loc, value } => format!(
            "store {} = {}",
            access_text(th, loc, p),
            pexpr_text(th, value)
        ),
        InstrKind::Fence => "fence".to_string(),
        InstrKind::Lock(m) => format!("lock {}", mutex(m)),
        InstrKind::Unlock(m) => format!("unlock {}", mutex(m)),
        InstrKind::Rmw { dst, op, loc, args } => {
            let name = match op {
                RmwOp::Xchg => "xchg",
                RmwOp::Cas => "cas",
                RmwOp::FetchAdd => "fetch_add",
                RmwOp::FetchAnd => "fetch_and",
                RmwOp::FetchOr => "fetch_or",
                RmwOp::FetchXor => "fetch_xor",
            };
            let args: Vec<String> = args.iter().map(|a| pexpr_text(th, a)).collect();
            let call = format!("{name}({}, {})", access_text(th, loc, p), args.join(", "));
            match dst {
                Some(d) => format!("{} = {call}", reg_name(th, *d)),
                None => call,
            }
        }
        InstrKind::Assign { dst, value } => {
            format!("{} = {}", reg_name(th, *dst), pexpr_text(th, value))
        }
        InstrKind::Jump(t) => format!("jump {t}"),
        InstrKind::JumpIf { cond, target, when } => {
            format!(
                "if {}{} jump {target}",
                if *when { "" } else { "!" },
                pexpr_text(th, cond)
            )
        }
        InstrKind::Assert(c) => format!("assert {}", pexpr_text(th, c)),
        InstrKind::Assume(c) => format!("assume {}", pexpr_text(th, c)),
        InstrKind::AwaitBegin => "await begin".to_string(),
        InstrKind::AwaitCheck { cond, retry } => {
            format!("await {} else {retry}", pexpr_text(th, cond))
        }
        InstrKind::LoopEnter(l) => format!("loop {l} enter"),
        InstrKind::LoopIter(l) => format!("loop {l} iteration"),
    }
}

/// A set of read events of one trace.
type Set = Vec<u64>;

fn union(a: &mut Set, b: &Set) {
    for (x, y) in a.iter_mut().zip(b) {
        *x |= *y;
    }
}

/// Runs thread `th`'s local instructions along its events `evs` (indices into `tr`), tracking
/// which read events each register's value comes from and the dependences of each predicate
/// instance, and fills the event's rows of `exist` and `value`. `None` if the events do not
/// follow the code.
#[allow(clippy::too_many_arguments)]
fn shadow(
    th: &ThreadCode,
    g: &ThreadSdg,
    tr: &Trace,
    evs: &[usize],
    loop_bound: u32,
    words: usize,
    [exist, value, path]: [&mut [Set]; 3],
) -> Option<()> {
    let code = &th.code;
    let named = th.regs.len();
    let mut regs = th.reg_init.clone();
    let mut taint: Vec<Set> = vec![vec![0; words]; th.n_regs as usize];
    // The dependences of the latest instance of each predicate (its condition's reads and its
    // own control dependences).
    let mut last: Vec<Set> = vec![vec![0; words]; code.len()];
    let mut loops = vec![0u32; th.n_loops as usize];
    let mut pc = 0usize;
    // The reads flowing into every condition evaluated so far (see `TraceDeps::path`).
    let mut conds: Set = vec![0; words];
    // Scratch sets, reused: this runs on every trace MCR analyses, and a fresh set per
    // instruction was most of its time.
    let (mut ctrl, mut here, mut tmp): (Set, Set, Set) =
        (vec![0; words], vec![0; words], vec![0; words]);
    // `out` := the union of the taints of `regs_used`.
    let regs_taint = |out: &mut Set, regs_used: &[Reg], taint: &[Set]| {
        out.fill(0);
        for &r in regs_used {
            if let Some(t) = taint.get(r as usize) {
                union(out, t);
            }
        }
    };
    // `out` := the dependences of the latest instances of the predicates `i` depends on.
    let control_of = |out: &mut Set, i: usize, last: &[Set]| {
        out.fill(0);
        for &c in &g.control[i] {
            union(out, &last[c as usize]);
        }
    };
    let clear = |regs: &mut [i64], taint: &mut [Set]| {
        for r in named..regs.len() {
            regs[r] = 0;
            taint[r].iter_mut().for_each(|w| *w = 0);
        }
    };
    for &e in evs {
        let ev = &tr.events[e];
        // Local instructions up to the event's instruction.
        let mut steps = 0usize;
        while pc != ev.pc as usize {
            steps += 1;
            if steps > 1_000_000 || pc >= code.len() {
                return None;
            }
            let ins = &code[pc];
            if ins.kind.is_visible() {
                return None;
            }
            control_of(&mut ctrl, pc, &last);
            let (ex, val) = uses(&ins.kind);
            regs_taint(&mut here, &ex, &taint);
            union(&mut here, &ctrl);
            union(&mut conds, &here);
            last[pc].copy_from_slice(&here);
            let mut next = pc + 1;
            match &ins.kind {
                InstrKind::Assign { dst, value: v } => {
                    let x = v.eval(&regs).ok()?;
                    regs_taint(&mut tmp, &val, &taint);
                    *regs.get_mut(*dst as usize)? = x;
                    taint.get_mut(*dst as usize)?.copy_from_slice(&tmp);
                }
                InstrKind::Jump(t) => next = *t as usize,
                InstrKind::JumpIf { cond, target, when } => {
                    if (cond.eval(&regs).ok()? != 0) == *when {
                        next = *target as usize;
                    }
                }
                InstrKind::Assert(c) | InstrKind::Assume(c) => {
                    if c.eval(&regs).ok()? == 0 {
                        return None;
                    }
                }
                InstrKind::AwaitBegin => {}
                InstrKind::AwaitCheck { cond, retry } => {
                    if cond.eval(&regs).ok()? == 0 {
                        next = *retry as usize;
                        clear(&mut regs, &mut taint);
                    }
                }
                InstrKind::LoopEnter(l) => *loops.get_mut(*l as usize)? = 0,
                InstrKind::LoopIter(l) => {
                    let c = loops.get_mut(*l as usize)?;
                    if *c >= loop_bound {
                        return None;
                    }
                    *c += 1;
                }
                _ => return None,
            }
            // The semantics clears a statement's temporaries after its last instruction whichever
            // way a jump goes (a failed await check cleared them above).
            if ins.clear_temps {
                clear(&mut regs, &mut taint);
            }
            pc = next;
        }
        // The event's own instruction.
        let ins = code.get(pc)?;
        control_of(&mut ctrl, pc, &last);
        let (ex, val) = uses(&ins.kind);
        regs_taint(&mut here, &ex, &taint);
        union(&mut here, &ctrl);
        path[e].copy_from_slice(&conds);
        union(&mut conds, &here);
        exist[e].copy_from_slice(&here);
        regs_taint(&mut value[e], &val, &taint);
        last[pc].copy_from_slice(&here);
        if ev.pending {
            // A lock the thread waits for: it does not run.
            break;
        }
        let read = ev.kind.read().map(|(_, v)| v);
        match (&ins.kind, read) {
            (InstrKind::Load { dst, .. }, Some(v))
            | (InstrKind::Rmw { dst: Some(dst), .. }, Some(v)) => {
                *regs.get_mut(*dst as usize)? = v;
                let t = taint.get_mut(*dst as usize)?;
                t.fill(0);
                insert(t, e);
            }
            (InstrKind::Rmw { dst: None, .. }, Some(_)) => {}
            (k, None)
                if k.is_visible()
                    && !matches!(k, InstrKind::Load { .. } | InstrKind::Rmw { .. }) => {}
            _ => return None,
        }
        if ins.clear_temps {
            clear(&mut regs, &mut taint);
        }
        pc += 1;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcr::trace_of;
    use crate::report::Model;

    fn program(src: &str) -> Program {
        let parsed = crate::syntax::parse(src);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        Program::lower(&parsed.test.unwrap(), 8).unwrap()
    }

    /// The trace of the program run thread by thread (the default scheduler), and its
    /// dependences: for each event, (thread, kind, the events it exists by, the events its value
    /// comes from).
    fn deps(src: &str) -> Vec<(usize, String, Vec<usize>, Vec<usize>)> {
        let p = program(src);
        let tr = trace_of(&p, Model::Sc, &[]);
        let d = Sdg::new(&p)
            .trace_deps(&p, &tr)
            .expect("the events follow the code");
        let bits = |s: &Set| members(s, tr.events.len()).collect();
        tr.events
            .iter()
            .enumerate()
            .map(|(i, e)| {
                (
                    e.thread,
                    format!("{:?}", e.kind),
                    bits(&d.exist[i]),
                    bits(&d.value[i]),
                )
            })
            .collect()
    }

    #[test]
    fn a_store_depends_on_the_read_it_writes_and_nothing_else() {
        let d = deps("litmus T shared x = 0, y = 0, z = 0; thread P0 { r1 = x; y = r1; z = 1; }");
        assert_eq!(d[1].2, Vec::<usize>::new(), "y = r1 exists whatever r1 is");
        assert_eq!(d[1].3, vec![0], "y = r1 writes what the load read");
        assert_eq!(
            (d[2].2.clone(), d[2].3.clone()),
            (vec![], vec![]),
            "z = 1 depends on nothing"
        );
    }

    #[test]
    fn a_branch_makes_its_body_depend_on_its_condition() {
        let d = deps("litmus T shared x = 1, y = 0, z = 0; thread P0 { r = x; if (r == 1) { y = 1; } z = 1; }");
        assert_eq!(d[1].2, vec![0], "y = 1 happens because x read 1");
        assert_eq!(d[2].2, Vec::<usize>::new(), "z = 1 happens either way");
    }

    #[test]
    fn a_counter_loop_store_depends_only_on_its_own_iteration() {
        // The paper's Counter: the loop runs on a register, so each store depends only on the
        // load just before it.
        let d = deps("litmus T shared c = 0; thread P0 { i = 0; while (i < 3) { r = c; c = r + 1; i = i + 1; } }");
        let stores: Vec<_> = d
            .iter()
            .enumerate()
            .filter(|(_, e)| e.1.starts_with("Store"))
            .collect();
        assert_eq!(stores.len(), 3);
        for (i, s) in stores {
            assert_eq!(
                s.2,
                Vec::<usize>::new(),
                "store {i} exists whatever was read"
            );
            assert_eq!(
                s.3,
                vec![i - 1],
                "store {i} writes its own iteration's read"
            );
        }
    }

    #[test]
    fn code_after_an_await_or_a_possible_block_depends_on_what_decides_it() {
        let d = deps("litmus T shared x = 1, y = 0; thread P0 { await(x == 1); y = 1; }");
        assert_eq!(
            d[1].2,
            vec![0],
            "y = 1 follows the await's successful round"
        );
        let d = deps("litmus T shared x = 1, z = 0; mutex m; thread P0 { r = x; if (r == 1) { lock(m); } z = 1; }");
        assert_eq!(
            d.last().unwrap().2,
            vec![0],
            "z = 1 needs the lock, which the branch decides, not to block"
        );
    }

    #[test]
    fn an_array_access_depends_on_its_index() {
        let d = deps("litmus T shared i = 1, a[2], y = 0; thread P0 { r = i; a[r] = 5; y = 2; }");
        assert_eq!(
            d[1].2,
            vec![0],
            "where a[r] = 5 writes (and that it does not fault) comes from the read"
        );
        assert_eq!(
            d[2].2,
            vec![0],
            "a possible index error decides whether y = 2 runs"
        );
    }
}
