//! The declared C types of an assembly test's init block (`int x=0xffff;`, `uint64_t 0:X3;`).

use super::Reg;

/// A declared type: its size in bytes and signedness (pointers are 8 unsigned bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CType {
    pub bytes: u8,
    pub signed: bool,
}

impl CType {
    /// herd's type when none is declared: `int`.
    pub const DEFAULT: CType = CType {
        bytes: 4,
        signed: true,
    };

    /// The type named `name` (`int`, `uint64_t`, ...), a pointer when `pointer`.
    pub fn named(name: &str, pointer: bool) -> Option<CType> {
        if pointer {
            return Some(CType {
                bytes: 8,
                signed: false,
            });
        }
        let (bytes, signed) = match name {
            "char" | "int8_t" => (1, true),
            "uint8_t" => (1, false),
            "short" | "int16_t" => (2, true),
            "uint16_t" => (2, false),
            "int" | "int32_t" => (4, true),
            "uint32_t" => (4, false),
            "long" | "int64_t" => (8, true),
            "uint64_t" => (8, false),
            _ => return None,
        };
        Some(CType { bytes, signed })
    }

    /// `v` as a value of this type (truncated, then sign- or zero-extended).
    pub fn normalize(self, v: i64) -> i64 {
        match (self.bytes, self.signed) {
            (1, true) => v as i8 as i64,
            (1, false) => v as u8 as i64,
            (2, true) => v as i16 as i64,
            (2, false) => v as u16 as i64,
            (4, true) => v as i32 as i64,
            (4, false) => v as u32 as i64,
            _ => v,
        }
    }
}

/// The declared types of a test's locations and registers.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Types {
    /// By location (index into [`crate::ast::Test::shared`]).
    pub locations: std::collections::BTreeMap<usize, CType>,
    /// By thread and register.
    pub registers: std::collections::BTreeMap<(usize, Reg), CType>,
}

impl Types {
    /// A location's type ([`CType::DEFAULT`] when not declared).
    pub fn location(&self, loc: usize) -> CType {
        self.locations.get(&loc).copied().unwrap_or(CType::DEFAULT)
    }
    /// A register's type ([`CType::DEFAULT`] when not declared).
    pub fn register(&self, thread: usize, reg: Reg) -> CType {
        self.registers
            .get(&(thread, reg))
            .copied()
            .unwrap_or(CType::DEFAULT)
    }
}
