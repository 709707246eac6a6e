//! Registers and locations of the x86 dialects: the names final states use, first mention
//! as declaration, access sizes, and the init block.

use super::X86;
use crate::ast::{Dialect, Name, SharedDecl, Thread};
use crate::span::Span;
use crate::syntax::expr::Sym;
use crate::syntax::{field, span};
use std::collections::BTreeSet;
use tree_sitter::Node;

/// A register's name as it appears in final states: upper case in `X86` (`EAX`), and in
/// `X86_64` the lower-case 64-bit register a name is part of (`%eax`, `%ax`, `%al` → `rax`).
pub(crate) fn register_key(dialect: Dialect, written: &str) -> String {
    if let Some(key) = crate::syntax::asm::register_key(dialect, written) {
        return key;
    }
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
pub(super) fn register_width(written: &str) -> Option<u32> {
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
/// `0` or `P0` (any case) → 0, if within `n` threads.
fn thread_index(text: &str, n: usize) -> Option<usize> {
    let digits = text.strip_prefix(['P', 'p']).unwrap_or(text);
    digits.parse::<usize>().ok().filter(|&i| i < n)
}

impl X86<'_, '_> {
    /// The location named by identifier `id`, declared on first mention.
    pub(super) fn mention(&mut self, id: Node) -> usize {
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
    pub(super) fn mention_in_condition(&mut self, node: Node) {
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

    /// Records an access of `bits` to location `var`; a second size is an error here.
    pub(super) fn sized(&mut self, var: usize, bits: Option<u32>, at: Span) {
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

    pub(super) fn init_entry(
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
}
