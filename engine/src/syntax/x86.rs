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

use super::expr::{parse_int, Scope, Sym, ThreadInfo};
use super::native::{lower_condition, lower_header};
use super::{children_by_field, field, span, Src};
use crate::ast::{
    BinOp, Dialect, Expr, ExprKind, LocRef, Name, RmwOp, SharedDecl, Stmt, StmtKind, Test, Thread,
    UnOp,
};
use crate::diag::Diagnostic;
use crate::span::Span;
use std::collections::{BTreeSet, HashMap};
use tree_sitter::{Node, Tree};

const SUPPORTED: &str =
    "supported: MOV, MFENCE, XCHG, LOCK ADD/SUB/INC/DEC/AND/OR/XOR/XADD/CMPXCHG, \
ADD, SUB, INC, DEC, NEG, AND, OR, XOR, SHL, SHR, CMP, TEST, JE/JNE/JL/JLE/JG/JGE/JMP, RET, NOP, ENDBR64";

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

/// A register's name as it appears in final states: upper case in `X86` (`EAX`), and in
/// `X86_64` the lower-case 64-bit register a name is part of (`%eax`, `%ax`, `%al` → `rax`).
pub(crate) fn register_key(dialect: Dialect, written: &str) -> String {
    let w = written.trim_start_matches('%');
    if dialect != Dialect::X86_64 {
        return w.to_ascii_uppercase();
    }
    let lower = w.to_ascii_lowercase();
    reg64(&lower).map(|(n, _)| n).unwrap_or(lower)
}

/// `(64-bit name, width in bits)` of an x86-64 register name (lower case).
fn reg64(r: &str) -> Option<(String, u32)> {
    const LEGACY: [(&str, &str, &str, &str, &str); 8] = [
        ("rax", "eax", "ax", "al", "ah"),
        ("rbx", "ebx", "bx", "bl", "bh"),
        ("rcx", "ecx", "cx", "cl", "ch"),
        ("rdx", "edx", "dx", "dl", "dh"),
        ("rsi", "esi", "si", "sil", ""),
        ("rdi", "edi", "di", "dil", ""),
        ("rbp", "ebp", "bp", "bpl", ""),
        ("rsp", "esp", "sp", "spl", ""),
    ];
    for (q, l, w, b, h) in LEGACY {
        let width = if r == q {
            64
        } else if r == l {
            32
        } else if r == w {
            16
        } else if r == b || (!h.is_empty() && r == h) {
            8
        } else {
            continue;
        };
        return Some((q.to_string(), width));
    }
    // r8 .. r15 and their r8d / r8w / r8b parts.
    let rest = r.strip_prefix('r')?;
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    let n: u32 = digits.parse().ok()?;
    if !(8..=15).contains(&n) {
        return None;
    }
    let width = match &rest[digits.len()..] {
        "" => 64,
        "d" => 32,
        "w" => 16,
        "b" => 8,
        _ => return None,
    };
    Some((format!("r{n}"), width))
}

/// The width in bits of a register as written (`EAX` 32, `%al` 8), if it is an x86 register.
fn register_width(written: &str) -> Option<u32> {
    reg64(&written.trim_start_matches('%').to_ascii_lowercase()).map(|(_, w)| w)
}

/// The size in bits of a declared C type (`uint64_t`, `int`, `char`).
fn type_width(t: &str) -> Option<u32> {
    Some(match t {
        "int8_t" | "uint8_t" | "char" => 8,
        "int16_t" | "uint16_t" | "short" => 16,
        "int32_t" | "uint32_t" | "int" => 32,
        "int64_t" | "uint64_t" | "long" => 64,
        _ => return None,
    })
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
pub(super) fn lower(src: &Src<'_>, node: Node, diags: &mut Vec<Diagnostic>) -> Option<Test> {
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

    Some(Test {
        dialect,
        name,
        description,
        shared: l.shared,
        mutexes: Vec::new(),
        threads,
        condition,
        span: span(node),
    })
}

/// `0` or `P0` (any case) → 0, if within `n` threads.
fn thread_index(text: &str, n: usize) -> Option<usize> {
    let digits = text.strip_prefix(['P', 'p']).unwrap_or(text);
    digits.parse::<usize>().ok().filter(|&i| i < n)
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

/// One operand of an instruction.
#[derive(Clone)]
enum Operand {
    Mem(LocRef),
    Reg(Name, Option<u32>),
    Imm(i64, Span),
    Label(Name),
}

/// What the flags hold, for a conditional jump: the comparison `a ? b` of the last `CMP` (or
/// `result ? 0` after arithmetic), with the registers it reads so that a later write to one
/// of them makes the flags unusable here.
#[derive(Clone)]
enum Flags {
    None,
    Cmp {
        a: Expr,
        b: Expr,
        regs: Vec<String>,
    },
    /// Set by an instruction whose flags litmus does not model (`CMPXCHG`, `XADD`, ...).
    Unknown(&'static str),
}

/// One instruction lowered, before jumps are structured.
enum Item {
    Stmt(Stmt),
    Label(Name),
    /// `cond == None`: `JMP`.
    Jump {
        cond: Option<Expr>,
        target: Name,
        span: Span,
    },
}

fn int(v: i64, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Int(v),
        span,
    }
}

fn bin(op: BinOp, a: Expr, b: Expr, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        span,
    }
}

/// The value of 64-bit register `r` after writing `v` to its low `bits` bits (x86-64: a 32-bit
/// write zero-extends, an 8- or 16-bit one keeps the upper bits).
fn part_write(r: &Name, v: Expr, bits: u32, span: Span) -> Expr {
    let mask = (1i64 << bits) - 1;
    let low = bin(BinOp::BitAnd, v, int(mask, span), span);
    if bits >= 32 {
        return low;
    }
    let high = bin(BinOp::BitAnd, reg_expr(r), int(!mask, span), span);
    bin(BinOp::BitOr, high, low, span)
}

fn not(e: Expr) -> Expr {
    let span = e.span;
    Expr {
        kind: ExprKind::Unary(UnOp::Not, Box::new(e)),
        span,
    }
}

fn reg_expr(n: &Name) -> Expr {
    Expr {
        kind: ExprKind::Reg(n.clone()),
        span: n.span,
    }
}

/// The registers an expression reads.
fn regs_of(e: &Expr, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Reg(n) => out.push(n.text.clone()),
        ExprKind::Unary(_, a) => regs_of(a, out),
        ExprKind::Binary(_, a, b) => {
            regs_of(a, out);
            regs_of(b, out);
        }
        _ => {}
    }
}

/// Mnemonics litmus knows, without a size suffix.
const MNEMONICS: &[&str] = &[
    "MOV", "MFENCE", "XCHG", "ADD", "SUB", "INC", "DEC", "NEG", "AND", "OR", "XOR", "SHL", "SAL",
    "SHR", "XADD", "CMPXCHG", "CMP", "TEST", "JE", "JZ", "JNE", "JNZ", "JL", "JLE", "JG", "JGE",
    "JMP", "NOP", "ENDBR64", "PAUSE", "LFENCE", "RET",
];

/// The label `RET` jumps to: the end of the thread (not a name a test can write).
const END: &str = "<end>";

/// `MOVQ` → (`MOV`, 64); `SHL` stays `SHL`; unknown mnemonics are returned whole.
fn split_size(m: &str) -> (String, Option<u32>) {
    if MNEMONICS.contains(&m) {
        return (m.to_string(), None);
    }
    let size = match m.chars().last() {
        Some('B') => 8,
        Some('W') => 16,
        Some('L') => 32,
        Some('Q') => 64,
        _ => return (m.to_string(), None),
    };
    let stem = &m[..m.len() - 1];
    if MNEMONICS.contains(&stem) {
        // `NOPL`/`NOPW` take a memory operand only to fill space: no access, no size.
        let size = (stem != "NOP").then_some(size);
        (stem.to_string(), size)
    } else {
        (m.to_string(), None)
    }
}

impl X86<'_, '_> {
    /// The location named by identifier `id`, declared on first mention.
    fn mention(&mut self, id: Node) -> usize {
        let text = self.src.text(id);
        if let Some(Sym::Shared(i)) = self.by_name.get(text) {
            return *i;
        }
        let i = self.shared.len();
        self.by_name.insert(text.to_string(), Sym::Shared(i));
        self.shared.push(SharedDecl {
            name: self.src.name(id),
            size: None,
            init: vec![0],
            span: span(id),
        });
        i
    }

    /// Declares every location a condition or `locations` clause names (identifiers outside
    /// `P0:EAX`).
    fn mention_in_condition(&mut self, node: Node) {
        // An explicit stack: conditions can be nested arbitrarily deep.
        let mut stack = vec![node];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "thread_register" => {}
                "identifier" => {
                    self.mention(n);
                }
                _ => {
                    let mut cursor = n.walk();
                    let children: Vec<Node> = n.named_children(&mut cursor).collect();
                    stack.extend(children.into_iter().rev());
                }
            }
        }
    }

    fn error(&mut self, span: Span, msg: impl Into<String>) {
        self.diags.push(Diagnostic::error(span, msg));
    }

    fn reg_name(&self, node: Node) -> Name {
        let mut name = self.src.name(node);
        name.text = register_key(self.dialect, &name.text);
        name
    }

    /// Records an access of `bits` to location `var`; a second size is an error here.
    fn sized(&mut self, var: usize, bits: Option<u32>, at: Span) {
        let Some(bits) = bits else { return };
        match self.sizes.get(&var) {
            None => {
                self.sizes.insert(var, (bits, at));
            }
            Some(&(first, _)) if first != bits => {
                let name = self.shared[var].name.text.clone();
                self.error(
                    at,
                    format!(
                        "mixed-size accesses are not supported: this access to `{name}` is \
                         {bits} bits wide, and `{name}` is accessed or declared with {first} \
                         bits elsewhere"
                    ),
                );
            }
            Some(_) => {}
        }
    }

    fn immediate(&mut self, node: Node) -> Option<i64> {
        let value = field(node, "value")?;
        let negative = (0..node.child_count())
            .filter_map(|i| node.child(i))
            .any(|c| c.kind() == "-");
        let v = parse_int(self.src.text(value), negative);
        if v.is_none() {
            self.diags.push(Diagnostic::error(
                span(node),
                "integer literal out of range (values are 64-bit signed)",
            ));
        }
        v
    }

    fn init_entry(
        &mut self,
        entry: Node,
        threads: &[Thread],
        regs: &mut [BTreeSet<String>],
        reg_inits: &mut Vec<(usize, Name, i64)>,
    ) {
        let Some(loc) = field(entry, "location") else {
            return;
        };
        if let Some(size) = field(entry, "size") {
            self.error(
                span(size),
                "arrays are not supported in the x86 dialects (declare one location per cell)",
            );
            return;
        }
        let width = match field(entry, "type") {
            Some(t) => {
                let written = self.src.text(t);
                let w = type_width(written);
                if w.is_none() {
                    self.error(
                        span(t),
                        format!("unsupported type `{written}`; supported: int8_t .. int64_t, uint8_t .. uint64_t, char, short, int, long"),
                    );
                    return;
                }
                w
            }
            None => None,
        };
        let value = field(entry, "value");
        let v = match value {
            None => Some(0),
            Some(value) if value.kind() == "immediate" => self.immediate(value),
            Some(value) if value.kind() == "identifier" => {
                self.error(
                    span(value),
                    format!(
                        "unsupported initial value `{}`: addresses as values are not supported, only integers",
                        self.src.text(value)
                    ),
                );
                None
            }
            Some(value) => {
                self.error(
                    span(value),
                    format!(
                        "unsupported initial value `{}`: only integers",
                        self.src.text(value)
                    ),
                );
                None
            }
        };
        match loc.kind() {
            "thread_register" => {
                let (Some(t), Some(r)) = (field(loc, "thread"), field(loc, "register")) else {
                    return;
                };
                let Some(ti) = thread_index(self.src.text(t), threads.len()) else {
                    self.error(span(t), format!("unknown thread `{}`", self.src.text(t)));
                    return;
                };
                let name = self.reg_name(r);
                regs[ti].insert(name.text.clone());
                if let Some(v) = v {
                    reg_inits.push((ti, name, v));
                }
            }
            _ => {
                let id = if loc.kind() == "memory_operand" {
                    field(loc, "location")
                } else {
                    Some(loc)
                };
                let Some(id) = id else { return };
                let var = self.mention(id);
                if let Some(v) = v {
                    self.shared[var].init = vec![v];
                }
                self.sized(var, width, span(entry));
            }
        }
    }

    fn operand(&mut self, node: Node, regs: &mut BTreeSet<String>) -> Option<Operand> {
        match node.kind() {
            "memory_operand" => {
                let id = field(node, "location")?;
                let var = self.mention(id);
                Some(Operand::Mem(LocRef {
                    var,
                    index: None,
                    span: span(node),
                }))
            }
            "att_memory" => {
                let base = field(node, "base");
                let plain = field(node, "offset").is_none()
                    && field(node, "index").is_none()
                    && field(node, "segment").is_none();
                match base {
                    Some(id) if plain && id.kind() == "identifier" => {
                        let var = self.mention(id);
                        Some(Operand::Mem(LocRef {
                            var,
                            index: None,
                            span: span(node),
                        }))
                    }
                    _ => {
                        self.error(
                            span(node),
                            format!(
                                "unsupported memory operand `{}`: only a location, `(x)`, is supported (no register-based or indexed addresses)",
                                self.src.text(node)
                            ),
                        );
                        None
                    }
                }
            }
            "att_register" => {
                let id = field(node, "name")?;
                let written = self.src.text(id);
                let name = self.reg_name(id);
                regs.insert(name.text.clone());
                Some(Operand::Reg(name, register_width(written)))
            }
            "identifier" if self.dialect == Dialect::X86_64 => {
                Some(Operand::Label(self.src.name(node)))
            }
            "identifier" => {
                let written = self.src.text(node);
                let name = self.reg_name(node);
                regs.insert(name.text.clone());
                Some(Operand::Reg(name, register_width(written)))
            }
            _ => self.immediate(node).map(|v| Operand::Imm(v, span(node))),
        }
    }

    /// Lowers one cell into `out` (nothing for a `NOP`, a label and/or one statement).
    fn instruction(
        &mut self,
        node: Node,
        regs: &mut BTreeSet<String>,
        flags: &mut Flags,
        out: &mut Vec<Item>,
    ) {
        let sp = span(node);
        if let Some(label) = field(node, "label").and_then(|l| field(l, "name")) {
            out.push(Item::Label(self.src.name(label)));
        }
        let Some(mnemonic_node) = field(node, "mnemonic") else {
            return;
        };
        let written = self.src.text(mnemonic_node).to_ascii_uppercase();
        let (mnemonic, suffix) = split_size(&written);
        let locked = field(node, "prefix").is_some();
        // No-ops: their operands (`NOPL %cs:0(%rax,%rax,1)`) only fill space.
        if !locked && matches!(mnemonic.as_str(), "NOP" | "ENDBR64" | "PAUSE" | "LFENCE") {
            return;
        }
        let operand_nodes = children_by_field(node, "operand");
        let mut ops = Vec::new();
        // Labels are only operands of jumps; elsewhere an identifier is a register (X86).
        let is_jump = mnemonic.starts_with('J');
        let mut scratch = BTreeSet::new();
        for o in &operand_nodes {
            let op = if is_jump && o.kind() == "identifier" {
                Some(Operand::Label(self.src.name(*o)))
            } else {
                self.operand(*o, if is_jump { &mut scratch } else { regs })
            };
            match op {
                Some(op) => ops.push(op),
                None => return,
            }
        }
        if self.dialect == Dialect::X86_64 {
            // AT&T: source first, destination last.
            ops.reverse();
        }
        // The access size: the suffix, else a register operand's width.
        let size = suffix.or_else(|| {
            ops.iter().find_map(|o| match o {
                Operand::Reg(_, w) => *w,
                _ => None,
            })
        });
        for o in &ops {
            if let Operand::Mem(loc) = o {
                self.sized(loc.var, size, loc.span);
            }
        }
        let value = |o: &Operand| -> Option<Expr> {
            match o {
                Operand::Mem(loc) => Some(Expr {
                    kind: ExprKind::Load(loc.clone()),
                    span: loc.span,
                }),
                Operand::Reg(r, _) => Some(reg_expr(r)),
                Operand::Imm(v, s) => Some(int(*v, *s)),
                Operand::Label(_) => None,
            }
        };
        let form = self.src.text(node).to_string();
        let stmt = |kind| Some(Item::Stmt(Stmt { kind, span: sp }));
        // A register write: the flags stop describing what they compared if it reads `r`.
        let written_reg = |flags: &mut Flags, r: &Name| {
            if let Flags::Cmp { regs, .. } = flags {
                if regs.contains(&r.text) {
                    *flags = Flags::Unknown("a register the comparison read was written after it");
                }
            }
        };
        let arith = |m: &str| -> Option<BinOp> {
            Some(match m {
                "ADD" => BinOp::Add,
                "SUB" => BinOp::Sub,
                "AND" => BinOp::BitAnd,
                "OR" => BinOp::BitOr,
                "XOR" => BinOp::BitXor,
                "SHL" | "SAL" => BinOp::Shl,
                "SHR" => BinOp::Shr,
                _ => return None,
            })
        };

        let item: Option<Item> = match (mnemonic.as_str(), ops.as_slice()) {
            ("NOP" | "ENDBR64" | "PAUSE" | "LFENCE", _) => None,
            // The end of the thread (herd's compiled tests end each thread with `ret`).
            ("RET", []) => Some(Item::Jump {
                cond: None,
                target: Name {
                    text: END.to_string(),
                    span: sp,
                },
                span: sp,
            }),
            ("MFENCE", []) => stmt(StmtKind::Fence),
            ("MFENCE", _) => {
                self.error(sp, "MFENCE takes no operands");
                return;
            }
            _ if locked
                && !matches!(
                    mnemonic.as_str(),
                    "ADD"
                        | "SUB"
                        | "INC"
                        | "DEC"
                        | "AND"
                        | "OR"
                        | "XOR"
                        | "XADD"
                        | "CMPXCHG"
                        | "XCHG"
                ) =>
            {
                self.error(sp, format!("`LOCK` cannot prefix `{mnemonic}` (only read-modify-writes of memory: ADD, SUB, INC, DEC, AND, OR, XOR, XADD, CMPXCHG, XCHG)"));
                return;
            }
            ("MOV", [Operand::Mem(loc), src @ (Operand::Imm(..) | Operand::Reg(..))]) => {
                stmt(StmtKind::Store {
                    loc: loc.clone(),
                    value: value(src).unwrap(),
                })
            }
            (
                "MOV",
                [Operand::Reg(r, _), src @ (Operand::Mem(_) | Operand::Imm(..) | Operand::Reg(..))],
            ) => {
                written_reg(flags, r);
                regs.insert(r.text.clone());
                stmt(StmtKind::Assign {
                    reg: r.clone(),
                    value: value(src).unwrap(),
                })
            }
            ("MOV", _) => {
                self.error(sp, format!("unsupported MOV operands in `{form}`; supported: a store `MOV [x],$1` / `MOV [x],EAX`, a load `MOV EAX,[x]`, a register move `MOV EAX,$1` / `MOV EAX,EBX` (AT&T order in X86_64)"));
                return;
            }
            ("XCHG", [Operand::Mem(loc), Operand::Reg(r, _)])
            | ("XCHG", [Operand::Reg(r, _), Operand::Mem(loc)]) => {
                *flags = Flags::Unknown("XCHG");
                stmt(StmtKind::Rmw {
                    dest: Some(r.clone()),
                    op: RmwOp::Xchg,
                    loc: loc.clone(),
                    args: vec![reg_expr(r)],
                })
            }
            ("XCHG", _) => {
                self.error(sp, format!("unsupported XCHG operands in `{form}`; supported: a register and a location, `XCHG [x],EAX`"));
                return;
            }
            // Read-modify-writes of memory: atomic with LOCK, not supported without.
            (
                m @ ("ADD" | "SUB" | "AND" | "OR" | "XOR" | "INC" | "DEC" | "XADD" | "CMPXCHG"),
                [Operand::Mem(loc), rest @ ..],
            ) => {
                if !locked {
                    // Without LOCK: a load, then a store of the result (not atomic: another
                    // thread's store may come between), as `x = x + 1` in the native dialect.
                    let op = match (m, rest) {
                        ("INC", []) => Some((BinOp::Add, int(1, sp))),
                        ("DEC", []) => Some((BinOp::Sub, int(1, sp))),
                        (_, [src @ (Operand::Imm(..) | Operand::Reg(..))]) => {
                            arith(m).map(|op| (op, value(src).unwrap()))
                        }
                        _ => None,
                    };
                    let Some((op, v)) = op else {
                        self.error(sp, format!("`{m}` on memory needs `LOCK` here (`LOCK {m}`): without it, litmus supports ADD, SUB, INC, DEC, AND, OR, XOR"));
                        return;
                    };
                    *flags = Flags::Unknown("a read-modify-write of memory");
                    let old = Expr {
                        kind: ExprKind::Load(loc.clone()),
                        span: loc.span,
                    };
                    let item = stmt(StmtKind::Store {
                        loc: loc.clone(),
                        value: bin(op, old, v, sp),
                    });
                    out.extend(item);
                    return;
                }
                let loc = loc.clone();
                *flags = Flags::Unknown("a locked read-modify-write");
                let one = |v: i64| int(v, sp);
                let kind = match (m, rest) {
                    ("INC", []) => Some((None, RmwOp::FetchAdd, vec![one(1)])),
                    ("DEC", []) => Some((None, RmwOp::FetchAdd, vec![one(-1)])),
                    ("ADD", [src @ (Operand::Imm(..) | Operand::Reg(..))]) => {
                        Some((None, RmwOp::FetchAdd, vec![value(src).unwrap()]))
                    }
                    ("SUB", [src @ (Operand::Imm(..) | Operand::Reg(..))]) => {
                        let v = value(src).unwrap();
                        let s = v.span;
                        Some((
                            None,
                            RmwOp::FetchAdd,
                            vec![Expr {
                                kind: ExprKind::Unary(UnOp::Neg, Box::new(v)),
                                span: s,
                            }],
                        ))
                    }
                    ("AND", [src @ (Operand::Imm(..) | Operand::Reg(..))]) => {
                        Some((None, RmwOp::FetchAnd, vec![value(src).unwrap()]))
                    }
                    ("OR", [src @ (Operand::Imm(..) | Operand::Reg(..))]) => {
                        Some((None, RmwOp::FetchOr, vec![value(src).unwrap()]))
                    }
                    ("XOR", [src @ (Operand::Imm(..) | Operand::Reg(..))]) => {
                        Some((None, RmwOp::FetchXor, vec![value(src).unwrap()]))
                    }
                    ("XADD", [Operand::Reg(r, _)]) => {
                        Some((Some(r.clone()), RmwOp::FetchAdd, vec![reg_expr(r)]))
                    }
                    ("CMPXCHG", [Operand::Reg(r, w)]) => {
                        // The accumulator: compared with memory, and receives its old value
                        // (equal to the accumulator when the exchange happens).
                        let acc = self.accumulator(*w, r.span);
                        regs.insert(acc.text.clone());
                        Some((
                            Some(acc.clone()),
                            RmwOp::Cas,
                            vec![reg_expr(&acc), reg_expr(r)],
                        ))
                    }
                    _ => None,
                };
                let Some((dest, op, args)) = kind else {
                    self.error(sp, format!("unsupported `LOCK {m}` operands in `{form}`"));
                    return;
                };
                if let Some(d) = &dest {
                    regs.insert(d.text.clone());
                }
                stmt(StmtKind::Rmw {
                    dest,
                    op,
                    loc,
                    args,
                })
            }
            (m @ ("XADD" | "CMPXCHG"), _) => {
                self.error(
                    sp,
                    format!(
                        "unsupported `{m}` operands in `{form}`; supported: `LOCK {m} [x],EAX`"
                    ),
                );
                return;
            }
            // Register arithmetic.
            (
                m,
                [Operand::Reg(r, _), src @ (Operand::Imm(..) | Operand::Reg(..) | Operand::Mem(_))],
            ) if arith(m).is_some() => {
                let op = arith(m).unwrap();
                written_reg(flags, r);
                regs.insert(r.text.clone());
                let v = bin(op, reg_expr(r), value(src).unwrap(), sp);
                *flags = Flags::Cmp {
                    a: reg_expr(r),
                    b: int(0, sp),
                    regs: vec![r.text.clone()],
                };
                stmt(StmtKind::Assign {
                    reg: r.clone(),
                    value: v,
                })
            }
            (m @ ("INC" | "DEC" | "NEG"), [Operand::Reg(r, _)]) => {
                written_reg(flags, r);
                regs.insert(r.text.clone());
                let v = match m {
                    "INC" => bin(BinOp::Add, reg_expr(r), int(1, sp), sp),
                    "DEC" => bin(BinOp::Sub, reg_expr(r), int(1, sp), sp),
                    _ => Expr {
                        kind: ExprKind::Unary(UnOp::Neg, Box::new(reg_expr(r))),
                        span: sp,
                    },
                };
                *flags = Flags::Cmp {
                    a: reg_expr(r),
                    b: int(0, sp),
                    regs: vec![r.text.clone()],
                };
                stmt(StmtKind::Assign {
                    reg: r.clone(),
                    value: v,
                })
            }
            (
                "CMP" | "TEST",
                [a @ (Operand::Reg(..) | Operand::Imm(..)), b @ (Operand::Reg(..) | Operand::Imm(..))],
            ) => {
                let (a, b) = (value(a).unwrap(), value(b).unwrap());
                let mut rs = Vec::new();
                regs_of(&a, &mut rs);
                regs_of(&b, &mut rs);
                *flags = if mnemonic == "CMP" {
                    Flags::Cmp { a, b, regs: rs }
                } else {
                    Flags::Cmp {
                        a: bin(BinOp::BitAnd, a, b, sp),
                        b: int(0, sp),
                        regs: rs,
                    }
                };
                None
            }
            (m @ ("CMP" | "TEST"), _) => {
                self.error(sp, format!("unsupported `{m}` operands in `{form}`: only registers and immediates are compared (load into a register first)"));
                return;
            }
            (m, [Operand::Label(target)]) if m.starts_with('J') && MNEMONICS.contains(&m) => {
                let cond = if m == "JMP" {
                    None
                } else {
                    let (a, b) = match flags.clone() {
                        Flags::Cmp { a, b, .. } => (a, b),
                        Flags::None => {
                            self.error(sp, format!("`{m}` needs a preceding `CMP`, `TEST` or arithmetic instruction in its thread"));
                            return;
                        }
                        Flags::Unknown(why) => {
                            self.error(sp, format!("`{m}` reads flags that litmus does not model here ({why}); compare with `CMP` right before the jump"));
                            return;
                        }
                    };
                    let op = match m {
                        "JE" | "JZ" => BinOp::Eq,
                        "JNE" | "JNZ" => BinOp::Ne,
                        "JL" => BinOp::Lt,
                        "JLE" => BinOp::Le,
                        "JG" => BinOp::Gt,
                        _ => BinOp::Ge,
                    };
                    Some(bin(op, a, b, sp))
                };
                Some(Item::Jump {
                    cond,
                    target: target.clone(),
                    span: sp,
                })
            }
            (m, _) if m.starts_with('J') && MNEMONICS.contains(&m) => {
                self.error(sp, format!("`{m}` takes one label operand: `{m} L0`"));
                return;
            }
            (m, _) if MNEMONICS.contains(&m) => {
                self.error(sp, format!("unsupported operands for `{m}` in `{form}`"));
                return;
            }
            (other, _) => {
                self.error(
                    sp,
                    format!("unsupported x86 instruction `{other}`; {SUPPORTED}"),
                );
                return;
            }
        };
        let Some(item) = item else { return };
        // X86_64: a write to part of a 64-bit register. A 32-bit write zero-extends; an 8- or
        // 16-bit write keeps the other bits.
        if self.dialect == Dialect::X86_64 {
            let width_of = |r: &Name| {
                ops.iter()
                    .find_map(|o| match o {
                        Operand::Reg(n, w) if n.text == r.text => Some(*w),
                        _ => None,
                    })
                    .flatten()
                    .or(size)
            };
            match &item {
                Item::Stmt(Stmt {
                    kind: StmtKind::Assign { reg, value },
                    span,
                }) if matches!(width_of(reg), Some(w) if w < 64) => {
                    let w = width_of(reg).unwrap_or(64);
                    let value = part_write(reg, value.clone(), w, *span);
                    out.push(Item::Stmt(Stmt {
                        kind: StmtKind::Assign {
                            reg: reg.clone(),
                            value,
                        },
                        span: *span,
                    }));
                    return;
                }
                Item::Stmt(Stmt {
                    kind: StmtKind::Rmw { dest: Some(d), .. },
                    span,
                }) if matches!(width_of(d), Some(w) if w < 64) => {
                    let w = width_of(d).unwrap_or(64);
                    if w < 32 {
                        self.error(*span, format!("{w}-bit registers as the destination of `{mnemonic}` are not supported (use a 32- or 64-bit register)"));
                        return;
                    }
                    let (d, span) = (d.clone(), *span);
                    out.push(item);
                    let value = bin(BinOp::BitAnd, reg_expr(&d), int(0xffff_ffff, span), span);
                    out.push(Item::Stmt(Stmt {
                        kind: StmtKind::Assign { reg: d, value },
                        span,
                    }));
                    return;
                }
                _ => {}
            }
        }
        out.push(item);
    }

    /// `EAX` (X86) or `rax` (X86_64), the register `CMPXCHG` compares with.
    fn accumulator(&self, width: Option<u32>, span: Span) -> Name {
        let text = match (self.dialect, width) {
            (Dialect::X86_64, _) => "rax".to_string(),
            (_, Some(64)) => "RAX".to_string(),
            (_, Some(16)) => "AX".to_string(),
            (_, Some(8)) => "AL".to_string(),
            _ => "EAX".to_string(),
        };
        Name { text, span }
    }

    /// Turns a thread's instructions, labels and jumps into structured statements.
    fn structure(&mut self, items: &[Item]) -> Vec<Stmt> {
        let mut out = Vec::new();
        self.region(items, &mut out, 0);
        out
    }

    fn label_at(items: &[Item], name: &str) -> Option<usize> {
        items
            .iter()
            .position(|i| matches!(i, Item::Label(l) if l.text == name))
    }

    /// Structures `items` (a region: jumps may only target labels inside it) into `out`.
    fn region(&mut self, items: &[Item], out: &mut Vec<Stmt>, depth: usize) {
        if depth > 64 {
            if let Some(sp) = items.iter().find_map(|i| match i {
                Item::Jump { span, .. } => Some(*span),
                _ => None,
            }) {
                self.error(sp, "jumps nested too deeply");
            }
            return;
        }
        let mut i = 0;
        while i < items.len() {
            match &items[i] {
                Item::Stmt(s) => {
                    out.push(s.clone());
                    i += 1;
                }
                Item::Label(l) => {
                    // A loop: the last backward jump to this label closes it.
                    let back = (i + 1..items.len()).rev().find(|&j| {
                        matches!(&items[j], Item::Jump { target, .. } if target.text == l.text)
                    });
                    let Some(j) = back else {
                        i += 1;
                        continue;
                    };
                    let Item::Jump { cond, span, .. } = &items[j] else {
                        unreachable!()
                    };
                    let mut body = Vec::new();
                    self.region(&items[i + 1..j], &mut body, depth + 1);
                    let cond = cond.clone().unwrap_or_else(|| int(1, *span));
                    // do { body } while (cond)
                    out.extend(body.iter().cloned());
                    out.push(Stmt {
                        kind: StmtKind::While { cond, body },
                        span: *span,
                    });
                    i = j + 1;
                }
                Item::Jump { cond, target, span } => {
                    let Some(k) = Self::label_at(&items[i + 1..], &target.text).map(|k| k + i + 1)
                    else {
                        let msg = if target.text == END {
                            "`RET` inside a block that a jump skips or repeats is not supported (only at the thread's top level)".to_string()
                        } else if Self::label_at(items, &target.text).is_some() {
                            format!("unsupported jump to `{}`: a backward jump must close a loop that starts at its label, and jumps may not leave a loop or an `if` block", target.text)
                        } else {
                            format!(
                                "unknown label `{}` (or a jump out of its enclosing loop or block)",
                                target.text
                            )
                        };
                        self.error(*span, msg);
                        return;
                    };
                    match cond {
                        None => {
                            // `JMP` forward: what it skips is dead code.
                            i = k;
                        }
                        Some(c) => {
                            // if (!c) { then } [else { .. }] when `then` ends in `JMP` forward.
                            let mut then = Vec::new();
                            let mut else_body = Vec::new();
                            let mut next = k;
                            let ends_in_jmp = match items.get(k - 1) {
                                Some(Item::Jump {
                                    cond: None,
                                    target: t2,
                                    ..
                                }) if k - 1 > i => {
                                    Self::label_at(&items[k + 1..], &t2.text).map(|m| m + k + 1)
                                }
                                _ => None,
                            };
                            match ends_in_jmp {
                                Some(m) => {
                                    self.region(&items[i + 1..k - 1], &mut then, depth + 1);
                                    self.region(&items[k + 1..m], &mut else_body, depth + 1);
                                    next = m;
                                }
                                None => self.region(&items[i + 1..k], &mut then, depth + 1),
                            }
                            out.push(Stmt {
                                kind: StmtKind::If {
                                    cond: not(c.clone()),
                                    then_body: then,
                                    else_body,
                                },
                                span: *span,
                            });
                            i = next;
                        }
                    }
                }
            }
        }
    }
}
