//! One line per supported POWER and ARMv7 mnemonic, for the editor's hover.

/// A POWER mnemonic (lower case).
pub(super) fn ppc(m: &str) -> Option<&'static str> {
    Some(match m {
        "lwz" => "load a word (zero-extended): lwz rD,d(rA)",
        "lbz" => "load a byte (zero-extended)",
        "lhz" => "load a halfword (zero-extended)",
        "ld" => "load a doubleword",
        "lwzx" | "lbzx" | "lhzx" | "ldx" => "indexed load: the address is (rA|0) + rB",
        "stw" => "store a word: stw rS,d(rA)",
        "stb" => "store a byte",
        "sth" => "store a halfword",
        "std" => "store a doubleword",
        "stwx" | "stbx" | "sthx" | "stdx" => "indexed store: the address is (rA|0) + rB",
        "lwarx" | "ldarx" => "load and reserve: opens a reservation for the next stwcx.",
        "stwcx." | "stdcx." => {
            "store conditional: writes only if the reservation holds; CR0.EQ says whether it did"
        }
        "sync" | "hwsync" => "heavyweight barrier: orders every pair of accesses, cumulatively",
        "lwsync" => "lightweight barrier: orders every pair but a store before a load",
        "eieio" => "orders stores before stores",
        "isync" => "after a control dependency, orders the accesses that follow",
        "cmpw" | "cmpwi" => "compare words (signed) into CR0",
        "cmpd" | "cmpdi" => "compare doublewords (signed) into CR0",
        "b" => "branch to the label",
        "beq" => "branch to the label if CR0.EQ",
        "bne" => "branch to the label unless CR0.EQ",
        "blt" => "branch to the label if CR0.LT",
        "bge" => "branch to the label unless CR0.LT",
        "bgt" => "branch to the label if CR0.GT",
        "ble" => "branch to the label unless CR0.GT",
        "li" => "load an immediate",
        "lis" => "load an immediate shifted left by 16",
        "mr" => "copy a register",
        "addi" => "add an immediate (addi rD,r0,k loads k)",
        "ori" => "or with an immediate",
        "xori" => "exclusive or with an immediate",
        "andi." => "and with an immediate, setting CR0",
        "mulli" => "multiply by an immediate",
        "add" | "add." => "add",
        "sub" | "sub." => "subtract: rA - rB",
        "subf" | "subf." => "subtract from: rB - rA",
        "and" | "and." => "bitwise and",
        "or" | "or." => "bitwise or",
        "xor" | "xor." => "exclusive or (xor rD,rS,rS makes a false dependency on rS)",
        "mullw" | "mulld" => "multiply",
        "nop" => "no operation",
        _ => return None,
    })
}

/// An ARMv7 mnemonic (upper case).
pub(super) fn arm(m: &str) -> Option<&'static str> {
    Some(match m {
        "LDR" => "load a register: LDR Rt,[Rn], [Rn,Rm] or [Rn,#k]",
        "STR" => "store a register: STR Rt,[Rn], [Rn,Rm] or [Rn,#k]",
        "LDREX" => "load exclusive: opens an exclusive pair with the next STREX",
        "STREX" => {
            "store exclusive: writes only if the pair holds; Rd gets 0 on success, 1 on failure"
        }
        "DMB" => {
            "data memory barrier (SY, ISH, ...: every pair; ST, ISHST, ...: stores before stores)"
        }
        "DSB" => "data synchronization barrier, ordering as DMB",
        "ISB" => "after a control dependency, orders the accesses that follow",
        "CMP" => "compare: sets Z when the operands are equal",
        "TEQ" => "test equivalence: sets Z when the operands are equal",
        "B" => "branch to the label",
        "BEQ" => "branch to the label if Z is set",
        "BNE" => "branch to the label if Z is clear",
        "MOV" | "MOVW" => "copy a register or an immediate",
        "ADD" | "ADDS" => "add (the S form sets Z)",
        "SUB" | "SUBS" => "subtract (the S form sets Z)",
        "AND" | "ANDS" => "bitwise and (the S form sets Z)",
        "ORR" | "ORRS" => "bitwise or (the S form sets Z)",
        "EOR" | "EORS" | "XOR" => "exclusive or (EOR Rd,Rs,Rs makes a false dependency on Rs)",
        "NOP" => "no operation",
        _ => return None,
    })
}
