//! Lowering of herd's `AArch64`, `RISCV`, `PPC` and `ARM` tests (`docs/arm-riscv.md`): the
//! table (header row, init block, code rows, `locations`, condition) to an [`ast::Test`]
//! with empty thread bodies, and the code to [`asm::Code`], instruction by instruction
//! (`aarch64.rs`, `riscv.rs`, `ppc.rs`, `arm.rs`, over the operands read in `operands.rs`).
//!
//! - Each column is a thread `P<i>`; registers are named as herd prints them (`X3` for `W3`
//!   and `X3`, `x10` for `a0`).
//! - Every location mentioned (init block, `0:X1=x`, `locations`, condition) is a
//!   `SharedDecl` in order of first mention, initialised to 0 unless `x=1` says otherwise;
//!   `0:X1=x` makes register `X1` hold the address of `x`.
//! - An instruction outside the supported subset is an error at its mnemonic; an operand of
//!   the wrong kind at the operand. Branch targets must be labels of the same thread.

mod aarch64;
mod arm;
mod init;
mod operands;
mod ppc;
mod riscv;

use super::expr::{ExprLowerer, Mode, Scope, Sym, ThreadInfo};
use super::shared::{lower_condition, lower_header, Front, LowerFn, Lowered};
use super::{children_by_field, field, span, Src};
use crate::asm::{self, register, Arch, Code, Instr, RegInit, ThreadCode, Value};
use crate::ast::{Dialect, Name, SharedDecl, Test, Thread};
use crate::diag::Diagnostic;
use crate::span::Span;
use operands::Opnd;
use std::collections::{BTreeSet, HashMap};
use tree_sitter::Node;

/// The AArch64 and RISC-V dialects' [`Front`].
pub(in crate::syntax) struct Lowering;

impl Front for Lowering {
    const NODE: &'static str = "asm_test";
    const LOWER: LowerFn = lower;
}

/// Lowers an `asm_test` node; `None` when lowering stopped early or the header is unusable.
fn lower(src: &Src<'_>, node: Node, diags: &mut Vec<Diagnostic>) -> Option<Lowered> {
    let word = field(node, "header")
        .and_then(|h| field(h, "dialect"))
        .map(|d| src.text(d))
        .unwrap_or("AArch64");
    let (dialect, arch) = match word {
        "RISCV" => (Dialect::RiscV, Arch::RiscV),
        "PPC" => (Dialect::Ppc, Arch::Ppc),
        "ARM" => (Dialect::Arm, Arch::Arm),
        _ => (Dialect::AArch64, Arch::AArch64),
    };
    let (name, description) = lower_header(src, node);
    let (symbolic, symbolic_users) = symbolic_registers(src, node, arch);
    let mut l = Lower {
        src,
        diags,
        arch,
        shared: Vec::new(),
        by_name: HashMap::new(),
        address_atoms: Vec::new(),
        types: asm::Types::default(),
        symbolic,
        symbolic_users,
    };

    let mut threads: Vec<Thread> = Vec::new();
    if let Some(row) = field(node, "threads") {
        for (i, cell) in children_by_field(row, "thread").into_iter().enumerate() {
            let written = src.text(cell);
            let expected = format!("P{i}");
            if !written.eq_ignore_ascii_case(&expected) {
                l.error(span(cell), format!("thread columns are named P0, P1, ... in order: expected `{expected}`, found `{written}`"));
            }
            threads.push(Thread {
                name: Name {
                    text: expected,
                    span: span(cell),
                },
                reg_init: Vec::new(),
                body: Vec::new(),
                span: span(cell),
            });
        }
    }

    let mut regs: Vec<BTreeSet<String>> = vec![BTreeSet::new(); threads.len()];
    let mut init = Vec::new();
    let mut memory_init = Vec::new();
    if let Some(block) = field(node, "init") {
        for entry in children_by_field(block, "entry") {
            if src.should_stop() {
                return None;
            }
            l.init_entry(entry, &threads, &mut init, &mut memory_init);
        }
    }

    // Code rows: each column's cells in order.
    let mut cells: Vec<Vec<Node>> = vec![Vec::new(); threads.len()];
    for row in children_by_field(node, "row") {
        if src.should_stop() {
            return None;
        }
        let mut column = 0usize;
        let mut cursor = row.walk();
        for child in row.children(&mut cursor) {
            if child.kind() == "|" {
                column += 1;
            } else if child.kind() == "asm_instruction" {
                match cells.get_mut(column) {
                    Some(c) => c.push(child),
                    None => l.error(
                        span(child),
                        format!(
                            "this cell is in column {} but the table has {} thread columns",
                            column + 1,
                            threads.len()
                        ),
                    ),
                }
            }
        }
    }
    let mut code = Vec::new();
    for (t, column) in cells.into_iter().enumerate() {
        let mut tc = ThreadCode::default();
        let mut branches: Vec<(String, Span)> = Vec::new();
        for cell in column {
            if src.should_stop() {
                return None;
            }
            l.cell(cell, &mut tc, &mut branches);
        }
        for (label, at) in branches {
            if !tc.labels.iter().any(|(l, _)| *l == label) {
                l.error(
                    at,
                    format!("no label `{label}` in thread P{t}: a branch goes to a label of its own thread"),
                );
            }
        }
        for i in &tc.instrs {
            let u = i.op.uses();
            for r in u
                .address
                .iter()
                .chain(&u.data)
                .chain(&u.control)
                .chain(&i.op.defs())
            {
                regs[t].insert(r.key(arch));
            }
        }
        code.push(tc);
    }
    for ri in &init {
        let ri: &RegInit = ri;
        regs[ri.thread].insert(ri.reg.key(arch));
        if let Value::Int(v) = ri.value {
            let t = &mut threads[ri.thread];
            let key = ri.reg.key(arch);
            t.reg_init.retain(|(n, _)| n.text != key);
            if v != 0 {
                t.reg_init.push((
                    Name {
                        text: key,
                        span: ri.span,
                    },
                    v,
                ));
            }
        }
    }

    for clause in children_by_field(node, "locations") {
        l.mention_all(clause);
    }
    let cond = field(node, "condition");
    let filter = field(node, "filter").and_then(|f| field(f, "expression"));
    for e in cond
        .and_then(|c| field(c, "expression"))
        .into_iter()
        .chain(filter)
    {
        l.mention_all(e);
        l.address_comparisons(e);
    }
    let infos: Vec<ThreadInfo> = threads
        .iter()
        .zip(regs)
        .map(|(t, regs)| ThreadInfo {
            name: t.name.text.clone(),
            regs,
        })
        .collect();
    let before = l.diags.len();
    let scope = Scope {
        shared: &l.shared,
        by_name: &l.by_name,
    };
    // An expression of the condition, the filter or `locations`, lowered against the threads.
    let in_condition = |diags: &mut Vec<Diagnostic>, node: Node| {
        ExprLowerer {
            src,
            scope: &scope,
            diags,
            dialect,
            mode: Mode::Condition(&infos),
        }
        .lower(node, 0)
    };
    let condition = cond.and_then(|c| lower_condition(src, &scope, l.diags, dialect, c, &infos));
    let filter = filter.map(|f| in_condition(l.diags, f));
    // `locations [x; 0:X2;]`: shown among the final states, as herd does (an item that does
    // not lower, such as an array's bare name, is left out).
    let mut shown = Vec::new();
    for clause in children_by_field(node, "locations") {
        let mut cursor = clause.walk();
        let items: Vec<Node> = clause.named_children(&mut cursor).collect();
        for item in items {
            let before = l.diags.len();
            let e = in_condition(l.diags, item);
            if l.diags.len() == before {
                shown.push(e);
            } else {
                l.diags.truncate(before);
            }
        }
    }
    // An address atom naming an array (`0:X2=x` with `x[2]`) is not a read of `x`: what the
    // condition's lowering says about reading it does not apply.
    let atoms = &l.address_atoms;
    let mut k = 0;
    l.diags.retain(|d| {
        k += 1;
        k <= before || !atoms.contains(&d.span)
    });
    let test = Test {
        dialect,
        name,
        description,
        shared: l.shared,
        mutexes: Vec::new(),
        threads,
        condition,
        span: span(node),
    };
    Some((
        test,
        Some(Code {
            arch,
            init,
            memory_init,
            threads: code,
            filter,
            address_atoms: l.address_atoms,
            types: l.types,
            shown,
        }),
    ))
}

pub(super) struct Lower<'s, 'd> {
    pub src: &'s Src<'s>,
    pub diags: &'d mut Vec<Diagnostic>,
    pub arch: Arch,
    shared: Vec<SharedDecl>,
    by_name: HashMap<String, Sym>,
    address_atoms: Vec<Span>,
    types: asm::Types,
    /// herd's symbolic registers (`%r`) and the free registers they are given.
    pub symbolic: HashMap<String, String>,
    /// Per symbolic register, the threads whose code uses it.
    pub symbolic_users: HashMap<String, BTreeSet<usize>>,
}

/// herd's symbolic registers (`%symbolic_reg`) are registers the tool allocates, as litmus7
/// does: each name gets a register that no thread using the name names and that no other
/// name of those threads has (from X28/x31/r31/R12 down), written as that register's name.
/// Also returns, per name, the threads (columns) whose code uses it: the init block's
/// `%r=x` sets the register in those threads only (all of them when none uses it).
#[allow(clippy::type_complexity)]
fn symbolic_registers(
    src: &Src,
    node: Node,
    arch: Arch,
) -> (HashMap<String, String>, HashMap<String, BTreeSet<usize>>) {
    // Per column: the symbolic names and the real registers its cells use.
    let mut first: HashMap<String, usize> = HashMap::new();
    let mut users: HashMap<String, BTreeSet<usize>> = HashMap::new();
    let mut used: Vec<BTreeSet<u8>> = Vec::new();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "att_register" {
            let at = first
                .entry(src.text(n).to_string())
                .or_insert(n.start_byte());
            *at = (*at).min(n.start_byte());
            continue;
        }
        if n.kind() == "asm_row" {
            let mut column = 0usize;
            let mut cursor = n.walk();
            for child in n.children(&mut cursor) {
                if child.kind() == "|" {
                    column += 1;
                    continue;
                }
                let mut inner = vec![child];
                while let Some(c) = inner.pop() {
                    if c.kind() == "att_register" {
                        let text = src.text(c).to_string();
                        let at = first.entry(text.clone()).or_insert(c.start_byte());
                        *at = (*at).min(c.start_byte());
                        users.entry(text).or_default().insert(column);
                        continue;
                    }
                    if c.child_count() == 0 {
                        if let Some(asm::Reg::R(r)) = register(arch, src.text(c)) {
                            if used.len() <= column {
                                used.resize(column + 1, BTreeSet::new());
                            }
                            used[column].insert(r);
                        }
                    }
                    let mut cursor = c.walk();
                    inner.extend(c.children(&mut cursor));
                }
            }
            continue;
        }
        let mut cursor = n.walk();
        stack.extend(n.children(&mut cursor));
    }
    // In order of first mention.
    let mut names: Vec<String> = first.keys().cloned().collect();
    names.sort_by_key(|name| (first[name], name.clone()));
    let top = match arch {
        Arch::AArch64 => 28,
        Arch::RiscV | Arch::Ppc => 31,
        Arch::Arm => 12,
    };
    let columns = used.len().max(1);
    let all: BTreeSet<usize> = (0..columns).collect();
    let mut given: Vec<(BTreeSet<usize>, u8)> = Vec::new();
    let mut out = HashMap::new();
    for name in names {
        let threads = users.get(&name).cloned().unwrap_or_else(|| all.clone());
        let free = (1..=top).rev().find(|r| {
            !threads
                .iter()
                .any(|&t| used.get(t).is_some_and(|u| u.contains(r)))
                && !given
                    .iter()
                    .any(|(ts, g)| g == r && !ts.is_disjoint(&threads))
        });
        if let Some(r) = free {
            out.insert(name, asm::Reg::R(r).key(arch));
            given.push((threads, r));
        }
    }
    (out, users)
}

impl Lower<'_, '_> {
    pub fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, msg));
    }

    /// The location named `text`, declared on first mention.
    fn mention(&mut self, text: &str, at: Span) -> usize {
        if let Some(Sym::Shared(i)) = self.by_name.get(text) {
            return *i;
        }
        let i = self.shared.len();
        self.by_name.insert(text.to_string(), Sym::Shared(i));
        self.shared.push(SharedDecl {
            name: Name {
                text: text.to_string(),
                span: at,
            },
            size: None,
            init: vec![0],
            span: at,
        });
        i
    }

    /// Declares every identifier outside `0:X1` under `node` as a location.
    fn mention_all(&mut self, node: Node) {
        let src = self.src;
        super::shared::each_location(src, node, |text, at| {
            self.mention(text, at);
        });
    }

    /// `1:X0=x` compares a register with the *address* of `x`: the AST's condition reads `x`
    /// as a load, so the span is kept in [`Code::address_atoms`] for the engine.
    fn address_comparisons(&mut self, node: Node) {
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            if n.kind() == "assignment_expression" || n.kind() == "binary_expression" {
                let (l, r) = (field(n, "left"), field(n, "right"));
                if let (Some(l), Some(r)) = (l, r) {
                    let reg_vs_loc = |a: Node, b: Node| {
                        a.kind() == "thread_register" && b.kind() == "identifier"
                    };
                    if reg_vs_loc(l, r) {
                        self.address_atoms.push(span(r));
                        continue;
                    }
                    if reg_vs_loc(r, l) {
                        self.address_atoms.push(span(l));
                        continue;
                    }
                    // herd reads the right side of `[p]=x`, `p=x`, `a[1]=x` as a value: the
                    // address of `x`.
                    let location = matches!(
                        l.kind(),
                        "identifier" | "memory_operand" | "subscript_expression"
                    );
                    if location && r.kind() == "identifier" {
                        self.address_atoms.push(span(r));
                        continue;
                    }
                }
            }
            let mut cursor = n.walk();
            let children: Vec<Node> = n.named_children(&mut cursor).collect();
            stack.extend(children);
        }
    }

    /// One cell: its label, then its instruction.
    fn cell(&mut self, cell: Node, tc: &mut ThreadCode, branches: &mut Vec<(String, Span)>) {
        if let Some(label) = field(cell, "label").and_then(|l| field(l, "name")) {
            let text = self.src.text(label).to_string();
            if tc.labels.iter().any(|(l, _)| *l == text) {
                self.error(
                    span(label),
                    format!("label `{text}` is defined twice in this thread"),
                );
            } else {
                tc.labels.push((text, tc.instrs.len()));
            }
        }
        let Some(m) = field(cell, "mnemonic") else {
            return;
        };
        let mnemonic = self.src.text(m).to_string();
        let ops: Vec<Opnd> = children_by_field(cell, "operand")
            .into_iter()
            .map(|o| operands::resolve(operands::read(self.src, o), &self.symbolic))
            .collect();
        let result = match self.arch {
            Arch::AArch64 => aarch64::lower(&mnemonic, &ops),
            Arch::RiscV => riscv::lower(&mnemonic, &ops),
            Arch::Ppc => ppc::lower(&mnemonic, &ops),
            Arch::Arm => arm::lower(&mnemonic, &ops),
        };
        match result {
            Ok(op) => {
                if let asm::Op::Branch {
                    target: asm::Target::Label(l),
                    ..
                }
                | asm::Op::AddressOf { label: l, .. } = &op
                {
                    let at = ops.last().map_or(span(m), |o| o.span);
                    branches.push((l.clone(), at));
                }
                tc.instrs.push(Instr {
                    op,
                    mnemonic,
                    span: span(cell),
                });
            }
            Err(operands::Error::Mnemonic(msg)) => self.error(span(m), msg),
            Err(operands::Error::At(at, msg)) => self.error(at, msg),
            Err(operands::Error::Cell(msg)) => self.error(span(cell), msg),
        }
    }
}
