//! Lowering of herd7's x86 dialects to the same AST as the native dialect: `X86` (Intel
//! operand order, `docs/reference.md#x86`: `MOV [x],$1`) and `X86_64` (AT&T: `movq $1,(x)`, `movq (y),%rax`).
//!
//! - Each column of the code table is a thread named `P<i>` (its span: the header cell).
//! - Registers: in `X86` upper-cased as written (`eax` and `EAX` are one register, reported
//!   `P0:EAX`); in `X86_64` lower-cased and named by their 64-bit register (`%eax`, `%ax`,
//!   `%al` and `%rax` are `rax`, as herd prints `0:rax`). Values are 64-bit integers.
//! - Every location mentioned anywhere (init block, instructions, `locations`, condition) is a
//!   `SharedDecl` in order of first mention, initialised to 0 unless the init block says
//!   otherwise; `0:EAX=2` / `P0:EAX=2` become the thread's `reg_init`. `X86_64`'s typed
//!   declarations (`uint64_t x;`, `int8_t y=1;`, `uint64_t 0:rax;`) give a location its size.
//! - Instructions (any case, in Intel order here; AT&T operands are reversed first, and a size
//!   suffix `b/w/l/q` is accepted on every mnemonic): `MOV` (store, load, register move),
//!   `MFENCE`, `XCHG` (atomic), `LOCK`-prefixed `ADD/SUB/INC/DEC/AND/OR/XOR/XADD/CMPXCHG` on
//!   memory (atomic: an RMW, which drains the store buffer), `ADD/SUB/AND/OR/XOR/INC/DEC` on
//!   memory without `LOCK` (a load, then a store: not atomic), register arithmetic
//!   (`ADD/SUB/INC/DEC/AND/OR/XOR/SHL/SHR/NEG`, with a register or memory source), `CMP`/`TEST`
//!   and `JE/JZ/JNE/JNZ/JL/JLE/JG/JGE/JMP` to labels (`L0:`), `RET` (the end of the thread),
//!   `NOP`/`NOPL`/`ENDBR64`/`PAUSE`/`LFENCE` (no effect on the memory model). A statement's
//!   span is its cell.
//! - Jumps become structured control flow: a forward conditional jump over a block is an `if`,
//!   with an `else` when the block ends in a forward `JMP` over a second block; a backward
//!   conditional jump to a label is a loop (`do { body } while (cond)`), bounded by
//!   `--loop-bound` like `while`. Other shapes are reported, not approximated.
//! - Access sizes (from the mnemonic's suffix, a register operand's width, or the declaration)
//!   must agree per location: mixed-size accesses get a diagnostic at the access.
//! - Metadata lines, `<< >>` blocks and the `with` trailer are ignored; `final P;` means
//!   `exists P`. `locations [...]` declares its locations; [`herd_locations`] lists them.
//!
//! Code map: this file reads the table (header row, init block, code rows, condition);
//! `locations.rs` names registers and locations and reads the init block; `operands.rs` reads
//! operands and builds the expressions instructions share; `instructions.rs` reads each
//! instruction and `classes.rs` lowers it by class (moves, read-modify-writes, arithmetic,
//! comparisons, jumps); `control.rs` turns labels and jumps into structured statements.

mod classes;
mod control;
mod instructions;
mod locations;
mod operands;

use super::expr::{Scope, Sym, ThreadInfo};
use super::registers::register_key;
use super::shared::{lower_condition, lower_header, Front, LowerFn, Lowered};
use super::{children_by_field, field, span, Src};
use crate::ast::{Dialect, Name, SharedDecl, Test, Thread};
use crate::diag::Diagnostic;
use crate::span::Span;
use control::{Item, END};
use operands::Flags;
use std::collections::{BTreeSet, HashMap};
use tree_sitter::{Node, Tree};

/// The dialect a header's first word names.
fn dialect_of(src: &Src, node: Node) -> Dialect {
    let word = field(node, "header")
        .and_then(|h| field(h, "dialect"))
        .map(|d| src.text(d))
        .unwrap_or("X86");
    if word == "X86_64" {
        Dialect::X86_64
    } else {
        Dialect::X86
    }
}
/// The state keys (`P0:EAX`, `x`) a test's `locations [...]` clauses list, in order, as the
/// engine names them in final states; herd adds them to every printed state. Empty for the
/// native dialect.
pub fn herd_locations(text: &str, tree: &Tree) -> Vec<String> {
    let never = || false;
    let stop = super::Stop::new(&never);
    let src = Src::new(text, &stop);
    let root = tree.root_node();
    let Some(node) = (0..root.named_child_count())
        .filter_map(|i| root.named_child(i as u32))
        .find(|n| n.kind() == "x86_test")
    else {
        return Vec::new();
    };
    let dialect = dialect_of(&src, node);
    let mut keys: Vec<String> = Vec::new();
    for clause in children_by_field(node, "locations") {
        let mut cursor = clause.walk();
        for item in clause.named_children(&mut cursor) {
            let key = match item.kind() {
                "identifier" => src.text(item).to_string(),
                "memory_operand" => match field(item, "location") {
                    Some(id) => src.text(id).to_string(),
                    None => continue,
                },
                "thread_register" => {
                    let (Some(t), Some(r)) = (field(item, "thread"), field(item, "register"))
                    else {
                        continue;
                    };
                    let t = src.text(t);
                    let digits = t.strip_prefix(['P', 'p']).unwrap_or(t);
                    format!("P{digits}:{}", register_key(dialect, src.text(r)))
                }
                _ => continue,
            };
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    keys
}

/// Lowers an x86 test; stops early (with a partial result the caller discards) once
/// `src.should_stop()` says so.
/// The x86 dialects' [`Front`].
pub(in crate::syntax) struct Lowering;

impl Front for Lowering {
    const NODE: &'static str = "x86_test";
    const LOWER: LowerFn = lower;
}

fn lower(src: &Src<'_>, node: Node, diags: &mut Vec<Diagnostic>) -> Option<Lowered> {
    let dialect = dialect_of(src, node);
    let mut l = X86 {
        src,
        diags,
        dialect,
        shared: Vec::new(),
        by_name: HashMap::new(),
        sizes: HashMap::new(),
    };

    let (name, description) = lower_header(src, node);

    // Threads from the header row.
    let mut threads: Vec<Thread> = Vec::new();
    if let Some(row) = field(node, "threads") {
        for (i, cell) in children_by_field(row, "thread").into_iter().enumerate() {
            let written = src.text(cell);
            let expected = format!("P{i}");
            if !written.eq_ignore_ascii_case(&expected) {
                l.diags.push(Diagnostic::error(
                    span(cell),
                    format!("thread columns are named P0, P1, ... in order: expected `{expected}`, found `{written}`"),
                ));
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
    if threads.is_empty() && field(node, "threads").is_some() {
        l.diags.push(Diagnostic::error(
            span(node),
            "the code table needs at least one thread column `P0 ;`",
        ));
    }

    // Init block: locations first (they come first in mention order), registers.
    let mut regs: Vec<BTreeSet<String>> = vec![BTreeSet::new(); threads.len()];
    let mut reg_inits: Vec<(usize, Name, i64)> = Vec::new();
    if let Some(init) = field(node, "init") {
        for entry in children_by_field(init, "entry") {
            if src.should_stop() {
                return None;
            }
            l.init_entry(entry, &threads, &mut regs, &mut reg_inits);
        }
    }

    // Code rows: each column's cells in order.
    let mut cells: Vec<Vec<Node>> = vec![Vec::new(); threads.len()];
    for row in children_by_field(node, "row") {
        let mut column = 0usize;
        let mut cursor = row.walk();
        if src.should_stop() {
            return None;
        }
        for child in row.children(&mut cursor) {
            if child.kind() == "|" {
                column += 1;
                continue;
            }
            if child.kind() != "x86_instruction" {
                continue;
            }
            if column >= threads.len() {
                l.diags.push(Diagnostic::error(
                    span(child),
                    format!(
                        "this cell is in column {} but the table has {} thread columns",
                        column + 1,
                        threads.len()
                    ),
                ));
                continue;
            }
            cells[column].push(child);
        }
    }
    for (t, column) in cells.into_iter().enumerate() {
        let mut flat = Vec::new();
        let mut flags = Flags::None;
        for cell in column {
            if src.should_stop() {
                return None;
            }
            l.instruction(cell, &mut regs[t], &mut flags, &mut flat);
        }
        // `RET` jumps here: the end of the thread.
        flat.push(Item::Label(Name {
            text: END.to_string(),
            span: threads[t].span,
        }));
        threads[t].body = l.structure(&flat);
    }
    // `reg_init` holds the non-zero values (ast::Thread's contract); a register initialised
    // to 0 still counts as used by its thread.
    for (ti, name, v) in reg_inits {
        regs[ti].insert(name.text.clone());
        let t = &mut threads[ti];
        t.reg_init.retain(|(n, _)| n.text != name.text);
        if v != 0 {
            t.reg_init.push((name, v));
        }
    }

    // Locations named only in `locations [..]` or the condition are still locations (herd
    // shows them in the final states); in text order.
    for clause in children_by_field(node, "locations") {
        l.mention_in_condition(clause);
    }
    let cond = field(node, "condition");
    if let Some(c) = cond.and_then(|c| field(c, "expression")) {
        l.mention_in_condition(c);
    }
    let infos: Vec<ThreadInfo> = threads
        .iter()
        .zip(regs)
        .map(|(t, regs)| ThreadInfo {
            name: t.name.text.clone(),
            regs,
        })
        .collect();
    let condition = cond.and_then(|c| {
        let scope = Scope {
            shared: &l.shared,
            by_name: &l.by_name,
        };
        lower_condition(src, &scope, l.diags, dialect, c, &infos)
    });

    Some((
        Test {
            dialect,
            name,
            description,
            shared: l.shared,
            mutexes: Vec::new(),
            threads,
            condition,
            span: span(node),
        },
        None,
    ))
}

struct X86<'s, 'd> {
    src: &'s Src<'s>,
    diags: &'d mut Vec<Diagnostic>,
    dialect: Dialect,
    shared: Vec<SharedDecl>,
    by_name: HashMap<String, Sym>,
    /// The access size of each location (by index) and where it was fixed.
    sizes: HashMap<usize, (u32, Span)>,
}
impl X86<'_, '_> {
    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, msg));
    }

    fn reg_name(&self, node: Node) -> Name {
        let mut name = self.src.name(node);
        name.text = register_key(self.dialect, &name.text);
        name
    }
}
