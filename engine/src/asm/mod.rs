//! herd's `AArch64`, `RISCV`, `PPC` and `ARM` tests as instruction-level code
//! (`docs/arm-riscv.md`).
//!
//! The front end (`syntax::asm`) lowers the code table of such a test here, not to the native
//! statement AST: an axiomatic engine needs, per instruction, which registers give the address
//! and which the data (address and data dependencies), which instructions branch on which
//! registers (control dependencies, and `ISB`/`fence.i` after them), what kind of access or
//! barrier it is and its ordering annotations (acquire, release, exclusive pairs, AMOs). Every
//! instruction keeps its span; labels are kept as written, branches name them.
//!
//! The rest of the test (name, thread names, locations and their initial values, the final
//! condition) is an ordinary [`crate::ast::Test`] with dialect `AArch64` or `RiscV` and empty
//! thread bodies; [`Code`] travels beside it in [`crate::syntax::Parsed::asm`]. The operational
//! engines do not check such a test ([`crate::ir::Program::lower`] refuses it with
//! [`NOT_AVAILABLE`]); the axiomatic engine ([`crate::axiomatic`]) does.

mod deps;
mod describe;
mod describe_v7;
pub mod regs;
mod types;

pub use deps::Uses;

pub use describe::describe;
pub use regs::register;
pub use types::{CType, Types};

use crate::span::Span;

/// What the operational engines say of an AArch64 or RISC-V test: these are checked by the
/// axiomatic engine ([`crate::axiomatic`]), which `litmus check` and the editor run on them.
pub const NOT_AVAILABLE: &str = "verifying AArch64 and RISC-V tests in the editor is not \
     available yet: `litmus check FILE` checks them against the axiomatic models";

/// The architecture of a [`Code`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arch {
    AArch64,
    RiscV,
    /// POWER (herd's `PPC`): 64-bit registers `r0`..`r31`, condition register field CR0.
    Ppc,
    /// ARMv7 (herd's `ARM`): 32-bit registers `R0`..`R14`, the Z flag.
    Arm,
}

impl Arch {
    /// The architecture of an assembly dialect; `None` for native, x86 and C.
    pub fn of_dialect(d: crate::ast::Dialect) -> Option<Arch> {
        use crate::ast::Dialect;
        match d {
            Dialect::AArch64 => Some(Arch::AArch64),
            Dialect::RiscV => Some(Arch::RiscV),
            Dialect::Ppc => Some(Arch::Ppc),
            Dialect::Arm => Some(Arch::Arm),
            _ => None,
        }
    }

    /// The first word of a test in this dialect, as herd writes it: `AArch64`, `RISCV`,
    /// `PPC`, `ARM`.
    pub fn herd_name(self) -> &'static str {
        match self {
            Arch::AArch64 => "AArch64",
            Arch::RiscV => "RISCV",
            Arch::Ppc => "PPC",
            Arch::Arm => "ARM",
        }
    }

    /// The architecture whose tests begin with `word` (`AArch64`, `RISCV`, `PPC`, `ARM`).
    pub fn from_herd_name(word: &str) -> Option<Arch> {
        [Arch::AArch64, Arch::RiscV, Arch::Ppc, Arch::Arm]
            .into_iter()
            .find(|a| a.herd_name() == word)
    }
}

/// A general-purpose register. AArch64 `Wn` and `Xn` are one register `n` (the width is the
/// access's); `WZR`/`XZR` and RISC-V `x0` (`zero`) read 0 and ignore writes. RISC-V ABI names
/// (`a0`, `t1`, `s0`) are their `xN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reg {
    /// `X0`..`X30` / `W0`..`W30`, `x1`..`x31`.
    R(u8),
    /// `XZR`, `WZR`, `x0`.
    Zero,
    /// AArch64 `SP`/`WSP`.
    Sp,
}

impl Reg {
    /// The register's name as herd prints it in final states: `X3`, `XZR`, `SP` (AArch64),
    /// `x3`, `x0` (RISC-V).
    pub fn key(self, arch: Arch) -> String {
        match (arch, self) {
            (Arch::AArch64, Reg::R(n)) => format!("X{n}"),
            (Arch::AArch64, Reg::Zero) => "XZR".to_string(),
            (_, Reg::Sp) => "SP".to_string(),
            (Arch::RiscV, Reg::R(n)) => format!("x{n}"),
            (Arch::RiscV, Reg::Zero) => "x0".to_string(),
            // POWER's `r0` read as the constant 0 (the base of `lwzx`, `addi`).
            (Arch::Ppc, Reg::R(n)) => format!("r{n}"),
            (Arch::Ppc, Reg::Zero) => "r0".to_string(),
            (Arch::Arm, Reg::R(n)) => format!("R{n}"),
            (Arch::Arm, Reg::Zero) => "R0".to_string(),
        }
    }
}

/// Access or operation width in bits (8, 16, 32, 64).
pub type Width = u8;

/// A register or immediate operand of an arithmetic instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    Reg(Reg),
    Imm(i64),
    /// `X1, LSL #2`, `X1, asr #2`, `W2, SXTW`: a register shifted or extended.
    Shifted {
        reg: Reg,
        shift: Shift,
        amount: u8,
    },
}

impl Operand {
    /// The register this operand reads, if any.
    pub fn reg(self) -> Option<Reg> {
        match self {
            Operand::Reg(r) | Operand::Shifted { reg: r, .. } => Some(r),
            Operand::Imm(_) => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shift {
    Lsl,
    Lsr,
    Asr,
    /// `SXTW`: sign-extend the low 32 bits.
    Sxtw,
    /// `UXTW`: zero-extend the low 32 bits.
    Uxtw,
}

/// A memory operand: `[X1]`, `[X1,X2,SXTW]`, `[X1,#8]!`, `[X1],#8`, `0(x6)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Address {
    pub base: Reg,
    /// Added to the base: nothing (`Imm(0)`), an immediate, or a (shifted) register.
    pub offset: Operand,
    pub writeback: Writeback,
}

impl Address {
    /// The registers the address is computed from (an address dependency's sources).
    pub fn regs(&self) -> Vec<Reg> {
        let mut v = vec![self.base];
        v.extend(self.offset.reg());
        v
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Writeback {
    None,
    /// `[X1,#8]!`: the base is updated before the access.
    Pre,
    /// `[X1],#8`: the base is updated by this amount after the access.
    Post(i64),
}

/// Ordering annotations of an access: AArch64 `LDAR`/`LDAPR`/`STLR`, the `A`/`L` of
/// `CASAL`/`SWPL`/`LDADDA`, RISC-V `.aq`/`.rl`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Ordering {
    /// Acquire (`LDAR`, `.aq`).
    pub acquire: bool,
    /// Acquire-PC, the weaker AArch64 `LDAPR`.
    pub acquire_pc: bool,
    /// Release (`STLR`, `.rl`).
    pub release: bool,
}

/// The operation of a read-modify-write (AArch64 `SWP`/`LDADD`/`STADD`/`CAS`, RISC-V `amo*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AmoOp {
    Swap,
    Add,
    And,
    Or,
    Xor,
    /// AArch64 `LDCLR`: `old & !value`.
    Clear,
    Max,
    Min,
    MaxU,
    MinU,
}

/// An arithmetic or logical operation (`dst = a op b`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AluOp {
    /// `MOV`, `MOVZ`, `li`, `mv`: `dst = a`.
    Mov,
    /// `MOVK Wd,#imm,LSL #s`: insert 16 bits at `s`, keeping the rest of `dst` (reads `dst`).
    MovK,
    /// `MVN`: `dst = !a`.
    Not,
    /// `NEG`: `dst = -a`.
    Neg,
    /// `ABS`: `dst = |a|`.
    Abs,
    /// `BIC`, `BICS`: `a & !b`.
    AndNot,
    /// `ORN`: `a | !b`.
    OrNot,
    /// `EON`: `a ^ !b`.
    XorNot,
    /// `MADD d,a,b,c`: `a * b + c`; `MNEG d,a,b`: `-(a * b)` (args `a`, `b`, and `#0` with
    /// `negate`).
    MulAdd {
        negate: bool,
    },
    Add,
    Sub,
    And,
    Or,
    Xor,
    Mul,
    Lsl,
    Lsr,
    Asr,
    /// `sext.w`, `SXTW`: sign-extend the low 32 bits.
    SignExtend32,
    /// `UBFM`/`SBFM Xd,Xn,#immr,#imms` (unsigned or signed bitfield move); `b`, `c` are the
    /// two immediates.
    Bitfield {
        signed: bool,
    },
}

/// An AArch64 condition code (`EQ`, `NE`, ...), for `B.cond`, `CSEL`, `CSET`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cond {
    Eq,
    Ne,
    Cs,
    Cc,
    Mi,
    Pl,
    Vs,
    Vc,
    Hi,
    Ls,
    Ge,
    Lt,
    Gt,
    Le,
    Al,
}

impl Cond {
    /// `EQ`, `ne`, `HS` (= `CS`), `LO` (= `CC`), ... (any case).
    pub fn parse(text: &str) -> Option<Cond> {
        Some(match text.to_ascii_uppercase().as_str() {
            "EQ" => Cond::Eq,
            "NE" => Cond::Ne,
            "CS" | "HS" => Cond::Cs,
            "CC" | "LO" => Cond::Cc,
            "MI" => Cond::Mi,
            "PL" => Cond::Pl,
            "VS" => Cond::Vs,
            "VC" => Cond::Vc,
            "HI" => Cond::Hi,
            "LS" => Cond::Ls,
            "GE" => Cond::Ge,
            "LT" => Cond::Lt,
            "GT" => Cond::Gt,
            "LE" => Cond::Le,
            "AL" => Cond::Al,
            _ => return None,
        })
    }
}

/// What decides whether a branch is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BranchCond {
    /// `B`, `BL`, `BR`, `RET`, RISC-V `j`.
    Always,
    /// `CBZ Wn` (`zero: true`) / `CBNZ Wn`.
    Zero { reg: Reg, zero: bool },
    /// `TBZ Xn,#bit` (`zero: true`) / `TBNZ`.
    Bit { reg: Reg, bit: u8, zero: bool },
    /// `B.cond`: the flags the last `CMP`/`ADDS`/`SUBS`/`ANDS` set.
    Flags(Cond),
    /// RISC-V `beq`/`bne`/`blt`/`bge`/`bltu`/`bgeu a,b`.
    Compare { op: CompareOp, a: Reg, b: Reg },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Ge,
    LtU,
    GeU,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A label of the same thread (checked to exist).
    Label(String),
    /// `BR Xn`, `BLR Xn`, `RET` (X30): an address held in a register.
    Register(Reg),
}

/// A barrier's strength: AArch64 `DMB`/`DSB` options, RISC-V `fence` sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Barrier {
    /// AArch64 `DMB opt` (`dsb: false`) or `DSB opt`: `SY`/`ISH`/`OSH`/`NSH` orders all
    /// accesses (`Full`), `LD` loads before all accesses, `ST` stores before stores.
    Dmb { dsb: bool, kind: DmbKind },
    /// AArch64 `ISB`: with a control dependency, orders the reads after it.
    Isb,
    /// RISC-V `fence pred,succ` over `r`/`w` (`i`/`o` are kept as written: device I/O).
    Fence { pred: Accesses, succ: Accesses },
    /// RISC-V `fence.tso`.
    FenceTso,
    /// RISC-V `fence.i` (herd's analogue of `ISB`).
    FenceI,
    /// POWER's `sync`, `lwsync`, `eieio`, `isync`.
    Power(PowerFence),
}

/// A POWER barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PowerFence {
    /// `sync` (`hwsync`): orders every pair and is cumulative.
    Sync,
    /// `lwsync`: orders every pair but a write before a read.
    Lwsync,
    /// `eieio`: orders writes before writes.
    Eieio,
    /// `isync`: with a control dependency, orders the accesses after it.
    Isync,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DmbKind {
    Full,
    Ld,
    St,
}

/// A RISC-V fence's access set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Accesses {
    pub r: bool,
    pub w: bool,
    pub i: bool,
    pub o: bool,
}

/// What a conditional select does to its second operand when the condition fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Otherwise {
    /// `CSEL`: `b`.
    Value,
    /// `CSINC`: `b + 1`.
    Increment,
    /// `CSINV`: `!b`.
    Invert,
    /// `CSNEG`: `-b`.
    Negate,
}

/// The class of one instruction and its operands as register expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// `LDR`, `LDAR`, `LDAPR`, `LDXR`, `LDAXR`, `lw`, `lw.aq`, `lr.w`.
    Load {
        dst: Reg,
        addr: Address,
        width: Width,
        /// `LDRSW`, `LDRSB`, `lb`, `lh`, `lw` (RV64): sign-extends.
        signed: bool,
        /// The destination register's width: AArch64 `W` 32 (the value is zero-extended
        /// into the `X` register), else 64.
        reg_width: Width,
        ord: Ordering,
        /// `LDXR`, `lr.w`: opens an exclusive pair.
        exclusive: bool,
    },
    /// `STR`, `STLR`, `sw`, `sw.rl`; `STXR`/`STLXR`/`sc.w` with a `status` register (0 when
    /// the store happens, 1 when it fails).
    Store {
        src: Reg,
        addr: Address,
        width: Width,
        ord: Ordering,
        status: Option<Reg>,
    },
    /// `LDP`/`STP`: two registers, consecutive locations (`load` says which).
    Pair {
        load: bool,
        regs: [Reg; 2],
        addr: Address,
        width: Width,
    },
    /// `SWP`, `LDADD`, `STADD` (no `dst`), `amoswap.w`, `amoadd.w`: one atomic read and write;
    /// `dst` receives the old value (`None` for `STADD` or when it is `XZR`/`x0` and the
    /// instruction is a store-only form).
    Amo {
        op: AmoOp,
        dst: Option<Reg>,
        src: Reg,
        addr: Address,
        width: Width,
        ord: Ordering,
    },
    /// `CAS Ws,Wt,[Xn]` (`CASA`, `CASL`, `CASAL`): compares with `expected`, writes `new` if
    /// equal; `expected` receives the old value. `CASP` is the pair form (`pair: true`).
    Cas {
        expected: Reg,
        new: Reg,
        addr: Address,
        width: Width,
        ord: Ordering,
        pair: bool,
    },
    Barrier(Barrier),
    /// Arithmetic and moves; `flags` when it sets the condition flags (`ADDS`, `SUBS`,
    /// `ANDS`; `CMP a,b` is `SUBS XZR,a,b`).
    Alu {
        op: AluOp,
        dst: Reg,
        args: Vec<Operand>,
        width: Width,
        flags: bool,
    },
    /// `CSEL d,a,b,cond`: `a` if the condition holds, else `b` changed by `otherwise`
    /// (`CSINC`, `CSINV`, `CSNEG`); `CSET d,cond` is `a` = 1, `b` = 0, `CSETM` `a` = -1.
    Select {
        dst: Reg,
        a: Operand,
        b: Operand,
        cond: Cond,
        otherwise: Otherwise,
        /// 32 for `W` registers, 64 for `X`.
        width: Width,
    },
    /// `ADR Xd,label`: the address of a label.
    AddressOf {
        dst: Reg,
        label: String,
    },
    /// `B`, `B.cond`, `CBZ`, `CBNZ`, `TBZ`, `TBNZ`, `BL`, `BR`, `BLR`, `RET`, `beq`, `bne`, `j`.
    Branch {
        cond: BranchCond,
        target: Target,
        /// `BL`/`BLR`: writes the return address into X30.
        link: bool,
    },
    Nop,
}

/// One instruction of a thread.
#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    pub op: Op,
    /// The mnemonic as the architecture spells it (`LDAR`, `amoswap.w.aq.rl`), for messages.
    pub mnemonic: String,
    /// The cell (label included).
    pub span: Span,
}

/// A thread's code: its instructions in order and its labels (each naming the index of the
/// instruction it precedes; `instrs.len()` for a label at the end).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ThreadCode {
    pub instrs: Vec<Instr>,
    pub labels: Vec<(String, usize)>,
}

/// An initial register value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    /// The address of a location (index into [`crate::ast::Test::shared`]): `0:X1=x`.
    Address(usize),
    /// The address of a thread's label: `0:X1=P1:L0`.
    Label {
        thread: usize,
        label: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct RegInit {
    pub thread: usize,
    pub reg: Reg,
    pub value: Value,
    pub span: Span,
}

/// The code of an AArch64 or RISC-V test.
#[derive(Clone, Debug, PartialEq)]
pub struct Code {
    pub arch: Arch,
    /// Register initial values from the init block (registers not named start at 0).
    pub init: Vec<RegInit>,
    /// Locations whose initial value is an address (`int *p=&x;`, `p=x`), by index into
    /// [`crate::ast::Test::shared`]; the others' values are in `SharedDecl::init`.
    pub memory_init: Vec<(usize, Value)>,
    /// One per thread column, in the order of [`crate::ast::Test::threads`].
    pub threads: Vec<ThreadCode>,
    /// herd's `filter c`: only executions whose final state satisfies `c` count.
    pub filter: Option<crate::ast::Expr>,
    /// The spans of the location names in the condition and filter that stand for the
    /// location's *address*, not its value: `x` in `1:X0=x` (a register compared with a
    /// location). The AST's condition reads them as loads of `x`; the engine must read them
    /// as addresses.
    pub address_atoms: Vec<Span>,
    /// The declared C types of the init block (`int x=0xffff;`, `uint64_t 0:X3;`,
    /// `int *p;`): a location's cell size and how herd compares a value with a constant.
    pub types: Types,
    /// `locations [x; 0:X2;]`: observed in the final states beside the condition's names.
    pub shown: Vec<crate::ast::Expr>,
}
