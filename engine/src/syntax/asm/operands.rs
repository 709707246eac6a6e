//! AArch64 and RISC-V operands, read from the tree into a small owned form the instruction
//! tables match on.

use super::super::expr::parse_int;
use super::super::{field, span, Src};
use crate::span::Span;
use std::collections::HashMap;
use tree_sitter::Node;

/// Why an instruction cannot be lowered, and where to say so.
#[derive(Debug)]
pub(crate) enum Error {
    /// At the mnemonic: an instruction outside the subset.
    Mnemonic(String),
    /// At an operand (or another range).
    At(Span, String),
    /// At the whole cell (wrong number of operands).
    Cell(String),
}

#[derive(Clone, Debug)]
pub(crate) struct Opnd {
    pub kind: Kind,
    pub span: Span,
    pub text: String,
}

#[derive(Clone, Debug)]
pub(crate) enum Kind {
    /// A register, label, condition code, barrier option or fence set.
    Name(String),
    /// `#1`, `#-1`, `1`, `-1` (`None`: out of range).
    Imm(Option<i64>),
    /// `[X1]`, `[X1,#8]!`, `[X1,X2,LSL #2]`.
    ArmMem {
        base: Box<Opnd>,
        offset: Option<Box<Opnd>>,
        extend: Option<Box<Opnd>>,
        writeback: bool,
    },
    /// `0(x6)`, `(x6)`.
    RvMem {
        offset: Option<i64>,
        base: Box<Opnd>,
    },
    /// `LSL #2`, `asr #2`.
    Shift { op: String, amount: Option<i64> },
    /// herd's symbolic register `%x0`, before [`resolve`] names the register it is given.
    Symbolic,
    /// Anything the grammar accepts that no table expects.
    Other,
}

/// `o` with each symbolic register (`%x0`, also inside `[R1,%x0]` and `0(%r2)`) replaced
/// by the register `symbolic` gives it.
pub(crate) fn resolve(mut o: Opnd, symbolic: &HashMap<String, String>) -> Opnd {
    let one = |b: Box<Opnd>| Box::new(resolve(*b, symbolic));
    o.kind = match o.kind {
        Kind::Symbolic => match symbolic.get(&o.text) {
            Some(reg) => Kind::Name(reg.clone()),
            None => Kind::Other,
        },
        Kind::ArmMem {
            base,
            offset,
            extend,
            writeback,
        } => Kind::ArmMem {
            base: one(base),
            offset: offset.map(one),
            extend,
            writeback,
        },
        Kind::RvMem { offset, base } => Kind::RvMem {
            offset,
            base: one(base),
        },
        k => k,
    };
    o
}

/// An integer as written (decimal or `0x` hexadecimal), negated if `negative`.
pub(crate) fn int(digits: &str, negative: bool) -> Option<i64> {
    parse_int(digits, negative)
}

fn signed(src: &Src, node: Node) -> Option<i64> {
    let negative = (0..node.child_count())
        .filter_map(|i| node.child(i))
        .any(|c| c.kind() == "-");
    int(src.text(field(node, "value")?), negative)
}

pub(crate) fn read(src: &Src, node: Node) -> Opnd {
    let kind = match node.kind() {
        "identifier" => Kind::Name(src.text(node).to_string()),
        "att_register" => Kind::Symbolic,
        "arm_immediate" | "signed_integer" => Kind::Imm(signed(src, node)),
        "shifted_operand" => Kind::Shift {
            op: field(node, "operator").map_or(String::new(), |o| src.text(o).to_string()),
            amount: field(node, "amount").and_then(|a| signed(src, a)),
        },
        "arm_address" => match field(node, "base") {
            Some(base) => Kind::ArmMem {
                base: Box::new(read(src, base)),
                offset: field(node, "offset").map(|o| Box::new(read(src, o))),
                extend: field(node, "extend").map(|o| Box::new(read(src, o))),
                writeback: field(node, "writeback").is_some(),
            },
            None => Kind::Other,
        },
        "riscv_address" => match field(node, "base") {
            Some(base) => Kind::RvMem {
                offset: match field(node, "offset") {
                    Some(o) => signed(src, o),
                    None => Some(0),
                },
                base: Box::new(read(src, base)),
            },
            None => Kind::Other,
        },
        _ => Kind::Other,
    };
    Opnd {
        kind,
        span: span(node),
        text: src.text(node).to_string(),
    }
}

impl Opnd {
    pub fn name(&self) -> Option<&str> {
        match &self.kind {
            Kind::Name(n) => Some(n),
            _ => None,
        }
    }

    /// The immediate's value, or an error at it.
    pub fn imm(&self) -> Result<i64, Error> {
        match self.kind {
            Kind::Imm(Some(v)) => Ok(v),
            Kind::Imm(None) => {
                Err(self.err("integer literal out of range (values are 64-bit signed)"))
            }
            _ => Err(self.err(format!("expected an immediate, found `{}`", self.text))),
        }
    }

    /// A label name (a branch target).
    pub fn label(&self) -> Result<String, Error> {
        self.name()
            .map(str::to_string)
            .ok_or_else(|| self.err(format!("expected a label, found `{}`", self.text)))
    }

    pub fn err(&self, msg: impl Into<String>) -> Error {
        Error::At(self.span, msg.into())
    }
}

/// `Err` unless there are `n` operands (`form` shows the expected shape).
pub(crate) fn arity(ops: &[Opnd], n: usize, form: &str) -> Result<(), Error> {
    if ops.len() == n {
        Ok(())
    } else {
        Err(Error::Cell(format!(
            "expected {n} operand{}: `{form}`",
            if n == 1 { "" } else { "s" }
        )))
    }
}
