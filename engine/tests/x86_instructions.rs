//! Every x86 instruction form the two herd dialects (`X86`, `X86_64`) accept, each in a small
//! test whose final states are derived by hand in the comments, under SC and TSO with both
//! engines; and the diagnostics for what is not supported.

use litmus_engine::{check, syntax, CheckOptions, Control, EngineKind, Model};
use std::collections::BTreeSet;

/// The distinct final states of `src` under `model`, projected onto `keys`, as
/// `k=v; k=v;` strings; the same from both engines (asserted).
fn outcomes(src: &str, model: Model, keys: &[&str]) -> BTreeSet<String> {
    let parsed = syntax::parse(src);
    let test = parsed
        .test
        .unwrap_or_else(|| panic!("does not parse: {:?}\n{src}", parsed.diagnostics));
    let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
    let mut per_engine = Vec::new();
    for engine in [EngineKind::Exhaustive, EngineKind::Mcr] {
        let opts = CheckOptions {
            engine: engine.into(),
            ..CheckOptions::default()
        };
        let r = check(&test, model, &opts, &Control::new());
        assert!(
            r.violations
                .iter()
                .all(|v| v.kind != litmus_engine::report::ViolationKind::Error),
            "{:?}",
            r.violations
        );
        let set: BTreeSet<String> = r
            .states
            .iter()
            .map(|s| {
                s.project(&keys)
                    .0
                    .iter()
                    .map(|(k, v)| format!("{k}={v};"))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        per_engine.push(set);
    }
    assert_eq!(per_engine[0], per_engine[1], "engines disagree on\n{src}");
    per_engine.pop().unwrap()
}

fn set(states: &[&str]) -> BTreeSet<String> {
    states.iter().map(|s| s.to_string()).collect()
}

/// Same outcomes under SC and TSO.
fn both(src: &str, keys: &[&str], want: &[&str]) {
    for model in [Model::Sc, Model::Tso] {
        assert_eq!(outcomes(src, model, keys), set(want), "{model:?}\n{src}");
    }
}

fn diagnostics(src: &str) -> Vec<String> {
    let parsed = syntax::parse(src);
    let index = litmus_engine::LineIndex::new(src);
    parsed
        .diagnostics
        .iter()
        .map(|d| {
            let lc = index.line_col(d.span.start);
            format!("{}:{}: {}", lc.line, lc.col, d.message)
        })
        .collect()
}

#[test]
fn locked_read_modify_writes_compute_and_are_atomic() {
    // x: 0 +1 (P0) +1 (P1, INC) = 2 whatever the interleaving; y: 5 -1 -2 = 2;
    // z: 12 & 6 = 4; w: (0 | 1) ^ 3 = 2 (P1 alone, in program order).
    both(
        "X86 LOCKS\n{ x=0; y=5; z=12; w=0; }\n P0 | P1 ;\n LOCK; ADD [x],$1 | LOCK INC [x] ;\n LOCK SUB [y],$2 | LOCK DEC [y] ;\n LOCK AND [z],$6 | LOCK OR [w],$1 ;\n | LOCK XOR [w],$3 ;\nexists (x=2)\n",
        &["x", "y", "z", "w"],
        &["x=2; y=2; z=4; w=2;"],
    );
}

#[test]
fn read_modify_writes_without_lock_are_not_atomic() {
    // `INC [x]` without LOCK is a load and a store: both threads may read 0 and write 1 (a
    // lost update), under SC too; with LOCK x is always 2 (above). `ADD`/`SUB`/`AND`/`OR`/
    // `XOR` likewise: 6 + 4 = 10, then & 12 = 8, | 1 = 9, ^ 3 = 10, - 2 = 8, - 1 = 7.
    both(
        "X86 RACY\n{ x=0; }\n P0 | P1 ;\n INC [x] | INC [x] ;\nexists (x=1)\n",
        &["x"],
        &["x=1;", "x=2;"],
    );
    both(
        "X86_64 RMW\n{ uint64_t y = 6; }\n P0 ;\n addq $4,(y) ;\n andq $12,(y) ;\n orq $1,(y) ;\n xorq $3,(y) ;\n subq $2,(y) ;\n decq (y) ;\nexists ([y]=7)\n",
        &["y"],
        &["y=7;"],
    );
}

#[test]
fn lock_xadd_returns_the_old_value() {
    // P0 adds EBX=3 and gets x's old value: 0 before P1's INC, 1 after; x ends at 4.
    both(
        "X86 XADD\n{ x=0; 0:EBX=3; }\n P0 | P1 ;\n LOCK XADD [x],EBX | LOCK INC [x] ;\nexists (0:EBX=1)\n",
        &["P0:EBX", "x"],
        &["P0:EBX=0; x=4;", "P0:EBX=1; x=4;"],
    );
}

#[test]
fn lock_cmpxchg_compares_with_the_accumulator() {
    // EAX=1 against x: if P1's store came first (x=1) the exchange writes 5 and EAX stays 1;
    // else x=0 ≠ 1: EAX gets 0 and x keeps 0 until P1 writes 1.
    both(
        "X86 CAS\n{ x=0; 0:EAX=1; 0:EBX=5; }\n P0 | P1 ;\n LOCK CMPXCHG [x],EBX | MOV [x],$1 ;\nexists (x=5)\n",
        &["P0:EAX", "x"],
        &["P0:EAX=1; x=5;", "P0:EAX=0; x=1;"],
    );
}

#[test]
fn locked_instructions_drain_the_store_buffer() {
    // SB with a locked add between the store and the load: like MFENCE, 0/0 is forbidden
    // under TSO too; without it (the second test) TSO allows it.
    let sb = |mid: &str| {
        format!("X86 SBL\n{{ x=0; y=0; z=0; }}\n P0 | P1 ;\n MOV [x],$1 | MOV [y],$1 ;\n {mid} | {mid} ;\n MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=0 /\\ 1:EAX=0)\n")
    };
    let keys = ["P0:EAX", "P1:EAX"];
    let three = [
        "P0:EAX=0; P1:EAX=1;",
        "P0:EAX=1; P1:EAX=0;",
        "P0:EAX=1; P1:EAX=1;",
    ];
    for mid in [
        "LOCK ADD [z],$1",
        "LOCK XADD [z],EBX",
        "XCHG [z],EBX",
        "LOCK; INC [z]",
    ] {
        both(&sb(mid), &keys, &three);
    }
    let mut four = three.to_vec();
    four.push("P0:EAX=0; P1:EAX=0;");
    assert_eq!(outcomes(&sb("NOP"), Model::Tso, &keys), set(&four));
    assert_eq!(outcomes(&sb("LFENCE"), Model::Tso, &keys), set(&four));
}

#[test]
fn sized_moves_and_no_ops() {
    // MOVL/MOVB/MOVQ are MOV with a size; NOP, NOPL, ENDBR64, PAUSE do nothing.
    both(
        "X86 SIZED\n{ x=0; y=0; }\n P0 ;\n NOP ;\n MOVL [x],$7 ;\n ENDBR64 ;\n MOVB [y],$2 ;\n PAUSE ;\n MOVL EAX,[x] ;\n MOVB BL,[y] ;\nexists (0:EAX=7)\n",
        &["P0:EAX", "P0:BL", "x", "y"],
        &["P0:EAX=7; P0:BL=2; x=7; y=2;"],
    );
}

#[test]
fn register_arithmetic() {
    // EAX: 6 +4 -1 = 9, INC 10, DEC 9, AND 12 = 8, OR 3 = 11, XOR 1 = 10, SHL 2 = 40,
    // SHR 3 = 5, NEG = -5; EBX: 2 + [x]=3 = 5; ECX XOR ECX = 0.
    both(
        "X86 ARITH\n{ x=3; 0:EAX=6; 0:EBX=2; 0:ECX=9; }\n P0 ;\n ADD EAX,$4 ;\n SUB EAX,$1 ;\n INC EAX ;\n DEC EAX ;\n AND EAX,$12 ;\n OR EAX,$3 ;\n XOR EAX,$1 ;\n SHL EAX,$2 ;\n SHR EAX,$3 ;\n NEG EAX ;\n ADD EBX,[x] ;\n XOR ECX,ECX ;\nexists (0:EAX=-5)\n",
        &["P0:EAX", "P0:EBX", "P0:ECX"],
        &["P0:EAX=-5; P0:EBX=5; P0:ECX=0;"],
    );
}

#[test]
fn compare_and_forward_jumps_are_if_and_if_else() {
    // EAX is 0 or 1 (P1's store). JE skips `MOV EBX,$1` when EAX=1; the JNE / JMP pair is an
    // if-else: ECX=10 when EAX=1, 20 otherwise; JMP over `MOV EDX,$9` makes it dead code.
    both(
        "X86 IFS\n{ x=0; }\n P0 | P1 ;\n MOV EAX,[x] | MOV [x],$1 ;\n CMP EAX,$1 | ;\n JE L1 | ;\n MOV EBX,$1 | ;\n L1: CMP EAX,$1 | ;\n JNE L2 | ;\n MOV ECX,$10 | ;\n JMP L3 | ;\n L2: | ;\n MOV ECX,$20 | ;\n L3: JMP L4 | ;\n MOV EDX,$9 | ;\n L4: | ;\nexists (0:EBX=1)\n",
        &["P0:EAX", "P0:EBX", "P0:ECX", "P0:EDX"],
        &[
            "P0:EAX=0; P0:EBX=1; P0:ECX=20; P0:EDX=0;",
            "P0:EAX=1; P0:EBX=0; P0:ECX=10; P0:EDX=0;",
        ],
    );
}

#[test]
fn signed_conditional_jumps_and_test() {
    // EAX=-2: JL taken (skips EBX=1), JG not (ECX=1), JLE taken, JGE not (EDX... set);
    // TEST EAX,1 gives 0 (even): JZ taken, skipping ESI=1; JNZ not taken: EDI=1.
    both(
        "X86 JCC\n{ 0:EAX=-2; }\n P0 ;\n CMP EAX,$0 ;\n JL A ;\n MOV EBX,$1 ;\n A: CMP EAX,$0 ;\n JG B ;\n MOV ECX,$1 ;\n B: CMP EAX,$-2 ;\n JLE C ;\n MOV EDX,$1 ;\n C: CMP EAX,$-1 ;\n JGE D ;\n MOV EDX,$2 ;\n D: TEST EAX,$1 ;\n JZ E ;\n MOV ESI,$1 ;\n E: TEST EAX,$1 ;\n JNZ F ;\n MOV EDI,$1 ;\n F: NOP ;\nexists (0:EBX=0)\n",
        &["P0:EBX", "P0:ECX", "P0:EDX", "P0:ESI", "P0:EDI"],
        &["P0:EBX=0; P0:ECX=1; P0:EDX=2; P0:ESI=0; P0:EDI=1;"],
    );
}

#[test]
fn backward_jumps_are_bounded_loops() {
    // P0 spins until it sees x=1, then reads y: P1 wrote y before x, so under SC and TSO
    // (stores in order) the spin ends with EBX=1; executions still spinning at the loop bound
    // are cut, with the `while` warning.
    let src = "X86 SPIN\n{ x=0; y=0; }\n P0 | P1 ;\n L0: | MOV [y],$1 ;\n MOV EAX,[x] | MOV [x],$1 ;\n CMP EAX,$1 | ;\n JNE L0 | ;\n MOV EBX,[y] | ;\nexists (0:EBX=0)\n";
    both(src, &["P0:EAX", "P0:EBX"], &["P0:EAX=1; P0:EBX=1;"]);
    let test = syntax::parse(src).test.unwrap();
    let r = check(&test, Model::Tso, &CheckOptions::default(), &Control::new());
    assert!(
        r.warnings.iter().any(|w| w.message.contains("loop bound")),
        "{:?}",
        r.warnings
    );
    // A counting loop: DEC sets the flags JNZ reads; 3 iterations.
    both(
        "X86 COUNT\n{ 0:ECX=3; }\n P0 ;\n L: ADD EAX,$2 ;\n DEC ECX ;\n JNZ L ;\nexists (0:EAX=6)\n",
        &["P0:EAX", "P0:ECX"],
        &["P0:EAX=6; P0:ECX=0;"],
    );
}

#[test]
fn ret_ends_the_thread() {
    // P0 returns after its first store: y is never written; P1's `ret` is its last cell.
    both(
        "X86_64 RET\n{ }\n P0 | P1 ;\n movq $1,(x) | movq (x),%rax ;\n ret | ret ;\n movq $1,(y) | ;\nexists (y=1)\n",
        &["P1:rax", "x", "y"],
        &["P1:rax=0; x=1; y=0;", "P1:rax=1; x=1; y=0;"],
    );
    // `JE L; RET; L: ...` (compilers' early return) is an if/else: EAX=1 goes on to EBX=2,
    // EAX=0 returns.
    both(
        "X86 R2\n{ x=0; }\n P0 | P1 ;\n MOV EAX,[x] | MOV [x],$1 ;\n CMP EAX,$1 | ;\n JE L | ;\n RET | ;\n L: MOV EBX,$2 | ;\nexists (0:EBX=2)\n",
        &["P0:EAX", "P0:EBX"],
        &["P0:EAX=0; P0:EBX=0;", "P0:EAX=1; P0:EBX=2;"],
    );
    // In the middle of a block a jump skips, `RET` is reported.
    let d = diagnostics("X86 R\n{ }\n P0 ;\n CMP EAX,$0 ;\n JE L ;\n RET ;\n MOV EBX,$1 ;\n L: NOP ;\nexists (0:EAX=0)\n");
    assert_eq!(
        d,
        vec!["6:2: `RET` inside a block that a jump skips or repeats is not supported (only at the thread's top level)".to_string()]
    );
}

#[test]
fn x86_64_att_syntax_forms() {
    // rbx=2: XADD gives rbx = 0 (x's old value), x = 2, then +10 = 12; rcx = rbx = 0.
    // P1: eax=1; XCHG with y=3 gives rax=3, y=1; then INC y = 2; rdx reads x: 0, 2 or 12.
    both(
        "X86_64 ATT\n{ uint64_t x; int y = 3; 0:rbx=2; }\n P0 | P1 ;\n lock xaddq %rbx,(x) | movl $1,%eax ;\n movq %rbx,%rcx | xchgl %eax,(y) ;\n lock addq $10,(x) | movq (x),%rdx ;\n mfence | lock incl (y) ;\nexists (0:rcx=0 /\\ 1:rax=3)\n",
        &["P0:rbx", "P0:rcx", "P1:rax", "P1:rdx", "x", "y"],
        &[
            "P0:rbx=0; P0:rcx=0; P1:rax=3; P1:rdx=0; x=12; y=2;",
            "P0:rbx=0; P0:rcx=0; P1:rax=3; P1:rdx=2; x=12; y=2;",
            "P0:rbx=0; P0:rcx=0; P1:rax=3; P1:rdx=12; x=12; y=2;",
        ],
    );
    // lock cmpxchgq compares with rax; decq/subq/andq/orq/xorq; shlq; NOP forms; an 8-bit
    // write keeps rax's upper bits (0x100 | 5 = 261); a 32-bit write zero-extends (-1 → 2^32-1).
    both(
        "X86_64 ATT2\n{ uint64_t x = 4; 0:rax = 4; 0:rbx = 9; 0:rcx = 256; }\n P0 ;\n lock cmpxchgq %rbx,(x) ;\n lock decq (x) ;\n lock orq $16,(x) ;\n lock andq $28,(x) ;\n lock xorq $1,(x) ;\n lock subq $2,(x) ;\n shlq $3,%rbx ;\n nopl %cs:0(%rax,%rax,1) ;\n endbr64 ;\n movb $5,%cl ;\n movl $-1,%edx ;\nexists (0:rbx=72)\n",
        &["P0:rax", "P0:rbx", "P0:rcx", "P0:rdx", "x"],
        // x: 4 = rax → 9; DEC 8; OR 16 = 24; AND 28 = 24; XOR 1 = 25; SUB 2 = 23.
        &["P0:rax=4; P0:rbx=72; P0:rcx=261; P0:rdx=4294967295; x=23;"],
    );
}

#[test]
fn x86_64_typed_declarations_hex_values_and_locations() {
    // `0:rax=1`, `uint64_t 0:rbx;` (0), hex initial value; `int8_t` with byte accesses.
    both(
        "X86_64 DECL\n{ uint64_t x = 0x10; int8_t y = -1; uint64_t 0:rbx; 0:rax = 1; }\n P0 ;\n movq (x),%rcx ;\n movb (y),%dl ;\n movb $3,(y) ;\nlocations [x; y;]\nforall (0:rcx=16)\n",
        &["P0:rax", "P0:rbx", "P0:rcx", "x", "y"],
        &["P0:rax=1; P0:rbx=0; P0:rcx=16; x=16; y=3;"],
    );
}

#[test]
fn unsupported_forms_are_reported_at_their_cell() {
    let d = diagnostics(
        "X86 BAD\n{ x=0; }\n P0 | P1 ;\n CPUID | XADD [x],EAX ;\n LOCK MOV [x],$1 | JE L9 ;\n SFENCE | MOV EAX,$1 ;\nexists (x=1)\n",
    );
    assert_eq!(
        d,
        vec![
            "4:2: unsupported x86 instruction `CPUID`; supported: MOV, MFENCE, XCHG, LOCK ADD/SUB/INC/DEC/AND/OR/XOR/XADD/CMPXCHG, ADD, SUB, INC, DEC, NEG, AND, OR, XOR, SHL, SHR, CMP, TEST, JE/JNE/JL/JLE/JG/JGE/JMP, RET, NOP, ENDBR64".to_string(),
            "4:10: `XADD` on memory needs `LOCK` here (`LOCK XADD`): without it, litmus supports ADD, SUB, INC, DEC, AND, OR, XOR".to_string(),
            "5:2: `LOCK` cannot prefix `MOV` (only read-modify-writes of memory: ADD, SUB, INC, DEC, AND, OR, XOR, XADD, CMPXCHG, XCHG)".to_string(),
            "5:20: `JE` needs a preceding `CMP`, `TEST` or arithmetic instruction in its thread".to_string(),
            "6:2: unsupported x86 instruction `SFENCE`; supported: MOV, MFENCE, XCHG, LOCK ADD/SUB/INC/DEC/AND/OR/XOR/XADD/CMPXCHG, ADD, SUB, INC, DEC, NEG, AND, OR, XOR, SHL, SHR, CMP, TEST, JE/JNE/JL/JLE/JG/JGE/JMP, RET, NOP, ENDBR64".to_string(),
        ]
    );
    // Jumps: an unknown label, a jump into a loop from outside, flags clobbered.
    let d = diagnostics(
        "X86 J\n{ }\n P0 ;\n CMP EAX,$0 ;\n JE NOWHERE ;\n MOV EAX,$1 ;\n CMP EAX,$1 ;\n MOV EAX,$2 ;\n JE L ;\n L: NOP ;\nexists (0:EAX=1)\n",
    );
    assert_eq!(
        d,
        vec![
            "5:2: unknown label `NOWHERE` (or a jump out of its enclosing loop or block)".to_string(),
            "9:2: `JE` reads flags that litmus does not model here (a register the comparison read was written after it); compare with `CMP` right before the jump".to_string(),
        ]
    );
    // X86_64: indexed addresses and addresses as values.
    let d = diagnostics(
        "X86_64 A\n{ uint64_t x; 0:rax = x; }\n P0 ;\n movq 8(%rax,%rbx,8),%rcx ;\nexists (x=0)\n",
    );
    assert_eq!(
        d,
        vec![
            "2:23: unsupported initial value `x`: addresses as values are not supported, only integers".to_string(),
            "4:7: unsupported memory operand `8(%rax,%rbx,8)`: only a location, `(x)`, is supported (no register-based or indexed addresses)".to_string(),
        ]
    );
}

#[test]
fn mixed_size_accesses_are_reported_at_the_access() {
    let d = diagnostics(
        "X86_64 MIX\n{ uint64_t x; int8_t y; }\n P0 | P1 ;\n movq $1,(x) | movl $1,(x) ;\n movb $1,(y) | movw (y),%ax ;\nexists (x=1)\n",
    );
    assert_eq!(
        d,
        vec![
            "4:24: mixed-size accesses are not supported: this access to `x` is 32 bits wide, and `x` is accessed or declared with 64 bits elsewhere".to_string(),
            "5:21: mixed-size accesses are not supported: this access to `y` is 16 bits wide, and `y` is accessed or declared with 8 bits elsewhere".to_string(),
        ]
    );
    // X86: EAX makes a 32-bit access, AL an 8-bit one.
    let d = diagnostics("X86 MIX\n{ x=0; }\n P0 ;\n MOV [x],EAX ;\n MOV AL,[x] ;\nexists (x=1)\n");
    assert_eq!(
        d,
        vec!["5:9: mixed-size accesses are not supported: this access to `x` is 8 bits wide, and `x` is accessed or declared with 32 bits elsewhere".to_string()]
    );
}
