//! One line per supported mnemonic, for the editor's hover.

use super::Arch;

/// A one-line description of a mnemonic of the supported subset (any case; AArch64 `B.EQ`,
/// RISC-V `amoswap.w.aq.rl`), or `None` outside it.
pub fn describe(arch: Arch, mnemonic: &str) -> Option<String> {
    match arch {
        Arch::AArch64 => aarch64(&mnemonic.to_ascii_uppercase()).map(str::to_string),
        Arch::RiscV => riscv(&mnemonic.to_ascii_lowercase()),
        Arch::Ppc => super::describe_v7::ppc(&mnemonic.to_ascii_lowercase()).map(str::to_string),
        Arch::Arm => super::describe_v7::arm(&mnemonic.to_ascii_uppercase()).map(str::to_string),
    }
}

fn aarch64(m: &str) -> Option<&'static str> {
    if let Some(cond) = m.strip_prefix("B.") {
        return super::Cond::parse(cond)
            .map(|_| "branch to the label if the condition holds on the flags the last CMP/ADDS/SUBS/ANDS set");
    }
    Some(match m {
        "LDR" => "load a register from memory",
        "LDRB" => "load a byte, zero-extended",
        "LDRH" => "load a halfword, zero-extended",
        "LDRSB" => "load a byte, sign-extended",
        "LDRSH" => "load a halfword, sign-extended",
        "LDRSW" => "load a word, sign-extended to 64 bits",
        "LDAR" => "load-acquire: no later access is performed before it",
        "LDARB" => "load-acquire of a byte",
        "LDARH" => "load-acquire of a halfword",
        "LDAPR" => "load-acquire (RCpc): like LDAR but may pass an earlier STLR to another location",
        "LDXR" => "load exclusive: opens an exclusive pair with the next STXR",
        "LDAXR" => "load-acquire exclusive: opens an exclusive pair",
        "STR" => "store a register to memory",
        "STRB" => "store a byte",
        "STRH" => "store a halfword",
        "STLR" => "store-release: performed after every earlier access",
        "STLRB" => "store-release of a byte",
        "STLRH" => "store-release of a halfword",
        "STXR" => "store exclusive: writes only if the exclusive pair holds; the status register gets 0 on success, 1 on failure",
        "STLXR" => "store-release exclusive: STXR with release ordering",
        "LDP" => "load a pair of registers from consecutive locations",
        "STP" => "store a pair of registers to consecutive locations",
        "SWP" | "SWPA" | "SWPL" | "SWPAL" => "atomic swap: reads the old value and writes the new one in one step (A: acquire, L: release)",
        "LDADD" | "LDADDA" | "LDADDL" | "LDADDAL" => "atomic add: reads the old value into a register and writes old + value (A: acquire, L: release)",
        "STADD" | "STADDL" => "atomic add without result: writes old + value (L: release)",
        "LDCLR" | "LDCLRA" | "LDCLRL" | "LDCLRAL" => "atomic bit clear: old AND NOT value (A: acquire, L: release)",
        "LDSET" | "LDSETA" | "LDSETL" | "LDSETAL" => "atomic bit set: old OR value (A: acquire, L: release)",
        "LDEOR" | "LDEORA" | "LDEORL" | "LDEORAL" => "atomic exclusive or: old XOR value (A: acquire, L: release)",
        "CAS" | "CASA" | "CASL" | "CASAL" => "compare and swap: writes the new value if memory equals the expected register, which gets the old value (A: acquire, L: release)",
        "CASP" | "CASPA" | "CASPL" | "CASPAL" => "compare and swap a pair of registers",
        "DMB" => "data memory barrier: SY/ISH orders all accesses, LD orders loads before later accesses, ST stores before stores",
        "DSB" => "data synchronisation barrier: at least as strong as DMB with the same option",
        "ISB" => "instruction synchronisation barrier: after a control dependency, orders later loads",
        "MOV" | "MOVZ" => "move a register or an immediate into a register",
        "MOVK" => "move a 16-bit immediate into part of a register, keeping the other bits",
        "MVN" => "move the bitwise NOT of a register",
        "ADD" => "add",
        "ADDS" => "add and set the condition flags",
        "SUB" => "subtract",
        "SUBS" => "subtract and set the condition flags",
        "AND" => "bitwise and",
        "ANDS" => "bitwise and, setting the condition flags",
        "ORR" => "bitwise or",
        "EOR" => "bitwise exclusive or (EOR Wd,Wn,Wn makes a false dependency on Wn)",
        "MUL" => "multiply",
        "MADD" => "multiply-add: the product of two registers plus a third",
        "MNEG" => "multiply-negate: minus the product of two registers",
        "NEG" => "negate",
        "ABS" => "absolute value",
        "BIC" => "bit clear: and with the complement of the second operand",
        "BICS" => "bit clear, setting the condition flags",
        "ORN" => "or with the complement of the second operand",
        "EON" => "exclusive or with the complement of the second operand",
        "SXTW" => "sign-extend the low 32 bits",
        "LDUR" => "load a register (unscaled offset)",
        "STUR" => "store a register (unscaled offset)",
        "CSINV" => "conditional select invert: the first source if the condition holds, else the complement of the second",
        "CSNEG" => "conditional select negate: the first source if the condition holds, else minus the second",
        "CSETM" => "conditional set mask: all ones if the condition holds, else 0",
        "LSL" => "logical shift left",
        "LSR" => "logical shift right",
        "ASR" => "arithmetic shift right",
        "SBFM" => "signed bitfield move",
        "UBFM" => "unsigned bitfield move",
        "CMP" => "compare: sets the condition flags from a - b",
        "CSEL" => "conditional select: the first source if the condition holds, else the second",
        "CSET" => "conditional set: 1 if the condition holds, else 0",
        "CSINC" => "conditional select increment: the first source if the condition holds, else the second plus one",
        "ADR" => "the address of a label",
        "B" => "branch to the label",
        "BL" => "branch to the label, with the return address in X30",
        "BR" => "branch to the address in a register",
        "BLR" => "branch to the address in a register, with the return address in X30",
        "RET" => "return: branch to the address in X30",
        "CBZ" => "branch to the label if the register is zero",
        "CBNZ" => "branch to the label if the register is not zero",
        "TBZ" => "branch to the label if the bit of the register is zero",
        "TBNZ" => "branch to the label if the bit of the register is not zero",
        "NOP" => "no operation",
        _ => return None,
    })
}

fn riscv(m: &str) -> Option<String> {
    let mut parts = m.split('.');
    let base = parts.next()?;
    let rest: Vec<&str> = parts.collect();
    let (size, ord): (Option<&str>, Vec<&str>) = match base {
        b if b.starts_with("amo") || b == "lr" || b == "sc" => {
            let (s, o) = rest.split_first()?;
            (Some(*s), o.to_vec())
        }
        _ => (None, rest),
    };
    let size_word = match size {
        None => "",
        Some("w") => " (word)",
        Some("d") => " (doubleword)",
        Some(_) => return None,
    };
    let mut annot = String::new();
    for o in &ord {
        match *o {
            "aq" if !annot.contains("acquire") => annot.push_str(", acquire"),
            "rl" if !annot.contains("release") => annot.push_str(", release"),
            _ if base == "fence" || base == "sext" => {}
            _ => return None,
        }
    }
    let text = match (base, ord.as_slice()) {
        ("fence", []) => "fence pred,succ: orders the earlier accesses in pred (r, w) before the later ones in succ",
        ("fence", ["i"]) => "fence.i: instruction fence (after a control dependency, orders later loads, like ISB)",
        ("fence", ["tso"]) => "fence.tso: orders loads before later accesses and stores before later stores",
        ("fence", _) => return None,
        ("lb", _) => "load a byte, sign-extended",
        ("lbu", _) => "load a byte, zero-extended",
        ("lh", _) => "load a halfword, sign-extended",
        ("lhu", _) => "load a halfword, zero-extended",
        ("lw", _) => "load a word, sign-extended",
        ("lwu", _) => "load a word, zero-extended",
        ("ld", _) => "load a doubleword",
        ("sb", _) => "store a byte",
        ("sh", _) => "store a halfword",
        ("sw", _) => "store a word",
        ("sd", _) => "store a doubleword",
        ("lr", _) => "load-reserved: opens a reservation for the next sc",
        ("sc", _) => "store-conditional: writes only if the reservation holds; the destination gets 0 on success, 1 on failure",
        ("amoswap", _) => "atomic swap: the old value into rd, the source written",
        ("amoadd", _) => "atomic add: the old value into rd, old + source written",
        ("amoand", _) => "atomic and: the old value into rd, old AND source written",
        ("amoor", _) => "atomic or: the old value into rd, old OR source written",
        ("amoxor", _) => "atomic exclusive or: the old value into rd, old XOR source written",
        ("amomax", _) => "atomic signed maximum",
        ("amomin", _) => "atomic signed minimum",
        ("amomaxu", _) => "atomic unsigned maximum",
        ("amominu", _) => "atomic unsigned minimum",
        ("add", []) => "add",
        ("addi", []) => "add an immediate",
        ("addw", []) => "add, 32-bit result sign-extended",
        ("addiw", []) => "add an immediate, 32-bit result sign-extended",
        ("sub", []) => "subtract",
        ("subw", []) => "subtract, 32-bit result sign-extended",
        ("and", []) => "bitwise and",
        ("andi", []) => "bitwise and with an immediate",
        ("or", []) => "bitwise or",
        ("ori", []) => "bitwise or with an immediate (ori rd,x0,imm loads a constant)",
        ("xor", []) => "bitwise exclusive or (xor rd,rs,rs makes a false dependency on rs)",
        ("xori", []) => "bitwise exclusive or with an immediate",
        ("sll" | "slli", []) => "logical shift left",
        ("srl" | "srli", []) => "logical shift right",
        ("sra" | "srai", []) => "arithmetic shift right",
        ("mul", []) => "multiply",
        ("li", []) => "load an immediate into a register",
        ("lui", []) => "load an immediate into the upper 20 bits",
        ("mv", []) => "copy a register",
        ("sext", ["w"]) => "sign-extend the low 32 bits",
        ("beq", []) => "branch to the label if the registers are equal",
        ("bne", []) => "branch to the label if the registers differ",
        ("blt", []) => "branch to the label if less than (signed)",
        ("bge", []) => "branch to the label if greater or equal (signed)",
        ("bltu", []) => "branch to the label if less than (unsigned)",
        ("bgeu", []) => "branch to the label if greater or equal (unsigned)",
        ("beqz", []) => "branch to the label if the register is zero",
        ("bnez", []) => "branch to the label if the register is not zero",
        ("j", []) => "jump to the label",
        ("nop", []) => "no operation",
        _ => return None,
    };
    let is_mem = matches!(
        base,
        "lb" | "lbu" | "lh" | "lhu" | "lw" | "lwu" | "ld" | "sb" | "sh" | "sw" | "sd"
    );
    if !(annot.is_empty() || is_mem || size.is_some()) {
        return None;
    }
    Some(format!("{text}{size_word}{annot}"))
}
