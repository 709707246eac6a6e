//! `litmus check --dump-sdg[=dot]`: the graph as text or Graphviz.

use super::Sdg;
use crate::ast::RmwOp;
use crate::ir::{Access, InstrKind, PExpr, Program, Reg, ThreadCode};
use std::fmt::Write;

impl Sdg {
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

pub(super) fn reg_name(th: &ThreadCode, r: Reg) -> String {
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
