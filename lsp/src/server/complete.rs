//! `textDocument/completion`, a pure function of a [`Snapshot`]: keywords, the test's declared
//! names (locations, the current thread's registers, mutexes, threads), herd's asm dialects'
//! instructions and registers, and the condition's syntax. Context-aware where cheap: inside the
//! final condition `P0:r0`-style registers, locations and the condition's operators; inside a
//! native thread's body statements, locations, that thread's registers and mutexes; inside
//! herd's code table instructions and registers; elsewhere the test's keywords.

use std::collections::BTreeSet;

use tower_lsp_server::ls_types::*;

use litmus_engine::asm::{self, Arch};
use litmus_engine::ast::{Dialect, Test};

use super::position;
use super::state::Snapshot;
use super::symbols::{self, Sym};

/// Where the cursor is.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Place {
    /// Outside threads and the condition.
    Top,
    /// In the body of native thread `t`.
    Thread(usize),
    /// In herd's code table (column `t`).
    Code(usize),
    /// In the final condition.
    Condition,
}

pub fn completion(s: &Snapshot<'_>, pos: Position) -> Option<CompletionResponse> {
    let d = s.doc;
    let off = position::offset(&d.rope, s.conv.enc, pos).min(d.text.len());
    let text = &d.text;
    // While a statement is being typed the text does not parse: the test is then read with the
    // cursor's line blanked (same length, so every other span stays where it is).
    let typed = match d.test {
        Some(_) => None,
        None => litmus_engine::syntax::parse(&blank_line(text, off)).test,
    };
    let test = d.test.as_deref().or(typed.as_ref());
    let dialect = test.map(|t| t.dialect).unwrap_or_else(|| dialect_of(text));
    let place = place(text, test, dialect, off);
    let mut out = Items::default();
    match place {
        Place::Top => {
            let words: &[&str] = if dialect == Dialect::Native {
                &[
                    "litmus", "shared", "mutex", "thread", "exists", "forall", "~exists",
                ]
            } else {
                &["exists", "forall", "~exists", "locations", "filter"]
            };
            for w in words {
                out.keyword(w);
            }
        }
        Place::Condition => condition_items(&mut out, text, test, dialect),
        Place::Thread(t) => {
            for w in [
                "if",
                "else",
                "while",
                "fence",
                "lock",
                "unlock",
                "assert",
                "assume",
                "await",
                "fetch_add",
                "xchg",
                "cas",
            ] {
                out.keyword(w);
            }
            if let Some(test) = test {
                locations(&mut out, test);
                for m in &test.mutexes {
                    out.add(&m.text, CompletionItemKind::CONSTANT, "mutex");
                }
                for r in registers_of(test, text, t) {
                    out.add(
                        &r,
                        CompletionItemKind::VARIABLE,
                        &format!("register of {}", thread_name(test, t)),
                    );
                }
            }
        }
        Place::Code(t) => {
            for (m, detail) in instructions(dialect) {
                out.add(&m, CompletionItemKind::KEYWORD, &detail);
            }
            let used = code_registers(text, dialect);
            let mut regs: BTreeSet<String> = used.get(t).cloned().unwrap_or_default();
            regs.extend(dialect_registers(dialect));
            for r in regs {
                out.add(&r, CompletionItemKind::VARIABLE, "register");
            }
            if let Some(test) = test {
                locations(&mut out, test);
            }
        }
    }
    Some(CompletionResponse::Array(out.0))
}

#[derive(Default)]
struct Items(Vec<CompletionItem>);

impl Items {
    fn add(&mut self, label: &str, kind: CompletionItemKind, detail: &str) {
        if self.0.iter().any(|i| i.label == label) {
            return;
        }
        self.0.push(CompletionItem {
            label: label.to_string(),
            kind: Some(kind),
            detail: Some(detail.to_string()),
            ..Default::default()
        });
    }
    fn keyword(&mut self, w: &str) {
        self.add(w, CompletionItemKind::KEYWORD, "keyword");
    }
}

/// `text` with the line of `off` replaced by spaces.
fn blank_line(text: &str, off: usize) -> String {
    let start = text[..off].rfind('\n').map_or(0, |i| i + 1);
    let end = text[off..].find('\n').map_or(text.len(), |i| off + i);
    let mut s = String::with_capacity(text.len());
    s.push_str(&text[..start]);
    for c in text[start..end].chars() {
        // as many bytes as the character had
        s.extend(std::iter::repeat_n(' ', c.len_utf8()));
    }
    s.push_str(&text[end..]);
    s
}

/// The dialect the first word names, for a text that does not parse.
fn dialect_of(text: &str) -> Dialect {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("//") && !l.starts_with("(*"))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or("");
    match first {
        "X86" => Dialect::X86,
        "X86_64" => Dialect::X86_64,
        "AArch64" => Dialect::AArch64,
        "RISCV" => Dialect::RiscV,
        "PPC" => Dialect::Ppc,
        "ARM" => Dialect::Arm,
        "C" => Dialect::C,
        _ => Dialect::Native,
    }
}

/// The start of the final condition: the test's, else the last line that begins with a
/// quantifier.
fn condition_start(text: &str, test: Option<&Test>) -> Option<usize> {
    if let Some(c) = test.and_then(|t| t.condition.as_ref()) {
        return Some(c.span.start as usize);
    }
    let mut at = 0;
    let mut found = None;
    for line in text.split_inclusive('\n') {
        let l = line.trim_start();
        if [
            "exists",
            "~exists",
            "forall",
            "final",
            "filter",
            "locations",
        ]
        .iter()
        .any(|k| l.starts_with(k))
        {
            found.get_or_insert(at + line.len() - l.len());
        }
        at += line.len();
    }
    found
}

fn place(text: &str, test: Option<&Test>, dialect: Dialect, off: usize) -> Place {
    if condition_start(text, test).is_some_and(|c| off >= c) {
        return Place::Condition;
    }
    let before = &text[..off];
    if dialect == Dialect::Native {
        if let Some(test) = test {
            let inside =
                |sp: litmus_engine::Span| sp.start as usize <= off && off <= sp.end as usize;
            return match test.threads.iter().position(|th| inside(th.span)) {
                Some(t) => Place::Thread(t),
                None => Place::Top,
            };
        }
        // Inside braces: the thread whose header is the last before the cursor.
        let depth = before.matches('{').count() as i64 - before.matches('}').count() as i64;
        if depth > 0 {
            let t = before.matches("thread ").count();
            return Place::Thread(t.saturating_sub(1));
        }
        return Place::Top;
    }
    if dialect == Dialect::C {
        return Place::Top;
    }
    // herd: after the init block `{ ... }`, a line with `|` or `;` is the code table.
    let init_closed = before.find('}').is_some();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start
        ..text[line_start..]
            .find('\n')
            .map_or(text.len(), |i| line_start + i)];
    if init_closed && (line.contains('|') || line.trim_end().ends_with(';')) {
        return Place::Code(text[line_start..off].matches('|').count());
    }
    Place::Top
}

fn locations(out: &mut Items, test: &Test) {
    for sd in &test.shared {
        out.add(
            &sd.name.text,
            CompletionItemKind::VARIABLE,
            "shared location",
        );
    }
}

fn thread_name(test: &Test, t: usize) -> String {
    test.threads
        .get(t)
        .map_or_else(|| format!("P{t}"), |th| th.name.text.clone())
}

/// The registers thread `t` uses (the AST's names).
fn registers_of(test: &Test, text: &str, t: usize) -> BTreeSet<String> {
    symbols::occurrences(test, text)
        .into_iter()
        .filter_map(|o| match o.sym {
            Sym::Reg(u, name) if u == t => Some(name),
            _ => None,
        })
        .collect()
}

fn condition_items(out: &mut Items, text: &str, test: Option<&Test>, dialect: Dialect) {
    let Some(test) = test else {
        for w in ["exists", "forall", "~exists"] {
            out.keyword(w);
        }
        return;
    };
    for w in ["exists", "forall", "~exists"] {
        out.keyword(w);
    }
    // Each thread's registers, as the condition names them: `P0:r0` natively, `0:EAX` in herd's.
    let asm_regs = code_registers(text, dialect);
    for (t, th) in test.threads.iter().enumerate() {
        let mut regs = registers_of(test, text, t);
        regs.extend(asm_regs.get(t).cloned().unwrap_or_default());
        for r in regs {
            let label = match dialect {
                Dialect::Native => format!("{}:{r}", th.name.text),
                _ => format!("{t}:{r}"),
            };
            out.add(
                &label,
                CompletionItemKind::VARIABLE,
                &format!("register of {}", th.name.text),
            );
        }
    }
    locations(out, test);
    let ops: &[(&str, &str)] = match dialect {
        Dialect::Native => &[
            ("&&", "and"),
            ("||", "or"),
            ("==", "equals"),
            ("!=", "differs"),
        ],
        _ => &[("/\\", "and"), ("\\/", "or"), ("~", "not"), ("=", "equals")],
    };
    for (op, words) in ops {
        out.add(op, CompletionItemKind::OPERATOR, words);
    }
}

fn arch(dialect: Dialect) -> Option<Arch> {
    Arch::of_dialect(dialect)
}

/// The registers each column of herd's code table names (column = thread).
fn code_registers(text: &str, dialect: Dialect) -> Vec<BTreeSet<String>> {
    let mut out: Vec<BTreeSet<String>> = vec![];
    let Some(body) = text.find('}').map(|i| &text[i + 1..]) else {
        return out;
    };
    for line in body.lines() {
        let l = line.trim();
        if !l.ends_with(';') || l.starts_with("exists") || l.starts_with("forall") {
            continue;
        }
        for (t, cell) in l.trim_end_matches(';').split('|').enumerate() {
            if out.len() <= t {
                out.push(BTreeSet::new());
            }
            for w in cell.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '%')) {
                if is_register(dialect, w) {
                    out[t].insert(w.to_string());
                }
            }
        }
    }
    out
}

fn is_register(dialect: Dialect, w: &str) -> bool {
    if w.is_empty() || w.starts_with(|c: char| c.is_ascii_digit()) {
        return false;
    }
    match arch(dialect) {
        Some(a) => asm::register(a, w).is_some(),
        None => X86_REGS.contains(&w.trim_start_matches('%')),
    }
}

const X86_REGS: &[&str] = &[
    "EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "RAX", "RBX", "RCX", "RDX", "RSI", "RDI", "eax",
    "ebx", "ecx", "edx", "esi", "edi", "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10",
    "r11",
];

/// The dialect's general registers, as herd writes them.
fn dialect_registers(dialect: Dialect) -> Vec<String> {
    let numbered = |p: &str, n: usize| (0..n).map(|i| format!("{p}{i}")).collect::<Vec<_>>();
    match dialect {
        Dialect::X86 => ["EAX", "EBX", "ECX", "EDX", "ESI", "EDI"]
            .map(String::from)
            .to_vec(),
        Dialect::X86_64 => [
            "%rax", "%rbx", "%rcx", "%rdx", "%eax", "%ebx", "%ecx", "%edx",
        ]
        .map(String::from)
        .to_vec(),
        Dialect::AArch64 => {
            let mut v = numbered("X", 31);
            v.extend(numbered("W", 31));
            v
        }
        Dialect::RiscV => numbered("x", 32),
        Dialect::Ppc => numbered("r", 32),
        Dialect::Arm => numbered("R", 13),
        _ => vec![],
    }
}

/// The dialect's instructions of the supported subset, each with its one-line description
/// when the engine has one (`asm::describe`).
fn instructions(dialect: Dialect) -> Vec<(String, String)> {
    let (arch, list): (Option<Arch>, &[&str]) = match dialect {
        Dialect::X86 => (
            None,
            &["MOV", "MFENCE", "XCHG", "LOCK", "ADD", "INC", "CMPXCHG"],
        ),
        Dialect::X86_64 => (
            None,
            &["movq", "movl", "mfence", "xchgq", "xchgl", "lock", "addq"],
        ),
        Dialect::AArch64 => (
            Some(Arch::AArch64),
            &[
                "LDR", "STR", "LDAR", "STLR", "LDAPR", "LDXR", "STXR", "LDAXR", "STLXR", "DMB",
                "DSB", "ISB", "MOV", "ADD", "SUB", "EOR", "AND", "ORR", "CMP", "CBZ", "CBNZ", "B",
                "SWP", "SWPA", "SWPL", "SWPAL", "LDADD", "LDADDA", "LDADDL", "LDADDAL", "CAS",
                "CASA", "CASL", "CASAL",
            ],
        ),
        Dialect::RiscV => (
            Some(Arch::RiscV),
            &[
                "lw",
                "sw",
                "ld",
                "sd",
                "li",
                "mv",
                "add",
                "addi",
                "xor",
                "and",
                "or",
                "fence",
                "fence.tso",
                "fence.i",
                "lr.w",
                "sc.w",
                "lr.d",
                "sc.d",
                "amoswap.w",
                "amoadd.w",
                "amoor.w",
                "amoswap.d",
                "amoadd.d",
                "beq",
                "bne",
                "j",
            ],
        ),
        Dialect::Ppc => (
            Some(Arch::Ppc),
            &[
                "lwz", "stw", "li", "mr", "add", "addi", "xor", "cmpw", "beq", "bne", "b", "sync",
                "lwsync", "isync", "eieio", "lwarx", "stwcx.",
            ],
        ),
        Dialect::Arm => (
            Some(Arch::Arm),
            &[
                "LDR", "STR", "MOV", "ADD", "EOR", "AND", "CMP", "BEQ", "BNE", "B", "DMB", "DSB",
                "ISB", "LDREX", "STREX",
            ],
        ),
        _ => (None, &[]),
    };
    list.iter()
        .filter_map(|m| match arch {
            Some(a) => asm::describe(a, m).map(|d| (m.to_string(), d)),
            None => Some((m.to_string(), "instruction".to_string())),
        })
        .collect()
}
