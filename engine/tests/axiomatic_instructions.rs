//! The axiomatic engine on one instruction at a time: the pairs `LDP`/`STP`, `CASP`, loads
//! that sign- or zero-extend, cells at their declared type's size, conditions compared at
//! the declared type, addresses in conditions, and the refusal of mixed-size stores. Each
//! expected state is the architecture's (and herd7's where noted); well under a second.

use litmus_engine::axiomatic::{self, builtin_model, Report};
use litmus_engine::syntax;

fn check(src: &str) -> Result<Report, (String, String)> {
    let p = syntax::parse(src);
    let (Some(test), Some(code)) = (&p.test, &p.asm) else {
        panic!("does not parse: {:?}", p.diagnostics);
    };
    let model = builtin_model(code.arch);
    axiomatic::check(test, code, &model, &|| false).map_err(|e| {
        let at = e
            .span
            .map(|s| src[s.range()].to_string())
            .unwrap_or_default();
        (at, e.message)
    })
}

/// The allowed final states, each as herd prints them (`name=value; ...`).
fn states(r: &Report) -> Vec<String> {
    r.states
        .iter()
        .map(|s| {
            r.vars
                .iter()
                .zip(s)
                .map(|(n, v)| format!("{n}={v};"))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

#[test]
fn stp_then_ldp_reads_back_both_cells() {
    // herd's L030: the pair stores to t[0] and t[1] (8 bytes apart), the pair load reads them.
    let r = check(
        "AArch64 L030\n{ uint64_t t[2]; 0:X0=t; uint64_t 0:X3; uint64_t 0:X4; }\n P0 ;\n \
         MOV X1,#1 ;\n MOV X2,#2 ;\n STP X1,X2,[X0] ;\n LDP X3,X4,[X0] ;\n\
         forall 0:X3=1 /\\ 0:X4=2\n",
    )
    .unwrap();
    assert!(r.ok);
    assert_eq!(states(&r), ["0:X3=1; 0:X4=2;"]);
}

#[test]
fn ldp_and_stp_of_w_registers_use_4_byte_cells_and_write_back() {
    // STP W1,W2,[X0,#4]! writes t[1], t[2] and moves X0 to t[1]; LDP W3,W4,[X0,#-4] reads
    // t[0], t[1].
    let r = check(
        "AArch64 LDPW\n{ int t[3]={1,2,3}; 0:X0=t; }\n P0 ;\n MOV W1,#7 ;\n MOV W2,#8 ;\n \
         STP W1,W2,[X0,#4]! ;\n LDP W3,W4,[X0,#-4] ;\n ADD X0,X0,#-4 ;\n\
         forall 0:X3=1 /\\ 0:X4=7 /\\ t[2]=8 /\\ 0:X0=t\n",
    )
    .unwrap();
    assert!(r.ok, "{:?}", states(&r));
}

#[test]
fn stp_writes_are_two_events_another_thread_may_see_apart() {
    // herd7 7.57: States 4, the condition's state reachable (Sometimes 1 3).
    let r = check(
        "AArch64 STP+LDRs\n{ uint64_t t[2]; 0:X0=t; 1:X0=t; uint64_t 1:X3; uint64_t 1:X4; }\n \
         P0 | P1 ;\n MOV X1,#1 | LDR X3,[X0,#8] ;\n MOV X2,#1 | LDR X4,[X0] ;\n \
         STP X1,X2,[X0] | ;\nexists (1:X3=1 /\\ 1:X4=0)\n",
    )
    .unwrap();
    assert!(r.ok);
    assert_eq!(r.states.len(), 4);
    assert_eq!((r.positive, r.negative), (1, 3));
}

#[test]
fn casp_swaps_both_cells_or_neither() {
    // herd's A246, P0's halves: x={0,0} differs from {1,1} (no write); y={0,1} equals it
    // (both cells become 2); likewise with X registers on 8-byte cells.
    let src = "AArch64 A246\n{ int x[2]={0,0}; uint64_t 0:X5=x; int y[2]={0,1}; \
         uint64_t 1:X5=y; int64_t z[2]={0,0}; uint64_t 0:X12=z; int64_t a[2]={0,1}; \
         uint64_t 1:X12=a; }\n P0 | P1 ;\n MOV W6,#1 | MOV W6,#0 ;\n MOV W7,#1 | MOV W7,#1 ;\n \
         MOV W2,#2 | MOV W2,#2 ;\n MOV W3,#2 | MOV W3,#2 ;\n \
         CASP W6,W7,W2,W3,[X5] | CASP W6,W7,W2,W3,[X5] ;\n MOV X10,#1 | MOV X10,#0 ;\n \
         MOV X11,#1 | MOV X11,#1 ;\n MOV X8,#2 | MOV X8,#2 ;\n MOV X9,#2 | MOV X9,#2 ;\n \
         CASP X10,X11,X8,X9,[X12] | CASP X10,X11,X8,X9,[X12] ;\n\
         forall (x[0]=0 /\\ x[1]=0 /\\ y[0]=2 /\\ y[1]=2 /\\ z[0]=0 /\\ z[1]=0 /\\ a[0]=2 \
         /\\ a[1]=2 /\\ 0:X6=0 /\\ 0:X7=0 /\\ 1:X6=0 /\\ 1:X7=1)\n";
    let r = check(src).unwrap();
    assert!(r.ok, "{:?}", states(&r));
}

#[test]
fn casp_races_with_a_store_to_its_second_cell() {
    // herd7 7.57: the same two states (it counts each execution with a CASP twice).
    let r = check(
        "AArch64 CASP3\n{ int64_t x[2]={1,2}; 0:X5=x; 1:X5=x; }\n P0 | P1 ;\n \
         MOV X0,#1 | MOV X1,#5 ;\n MOV X1,#2 | STR X1,[X5,#8] ;\n MOV X2,#3 | ;\n \
         MOV X3,#4 | ;\n CASPAL X0,X1,X2,X3,[X5] | ;\n\
         exists (0:X0=1 /\\ 0:X1=2 /\\ x[0]=3 /\\ x[1]=5)\n",
    )
    .unwrap();
    assert!(r.ok);
    assert_eq!(
        states(&r),
        [
            "0:X0=1; 0:X1=2; x[0]=3; x[1]=5;",
            "0:X0=1; 0:X1=5; x[0]=1; x[1]=5;"
        ]
    );
}

#[test]
fn riscv_narrow_loads_sign_or_zero_extend_the_low_bytes() {
    // herd's A015 and A017 (their .expected in herdtools7 after 7.57): lb of 0xffff is -1,
    // lbu 255; lw of 0xffffffffff is -1, lwu 4294967295. `0:x5=0xffffffff` holds for -1 in
    // an undeclared (`int`) register.
    let r = check(
        "RISCV A015\n{ int x=0xffff; 0:x2=x; }\n P0 ;\n lb x5,0(x2) ;\n lbu x3,0(x2) ;\n\
         forall 0:x5=0xffffffff /\\ 0:x3=0xff\n",
    )
    .unwrap();
    assert!(r.ok);
    assert_eq!(states(&r), ["0:x3=255; 0:x5=-1;"]);
    let r = check(
        "RISCV A017\n{ uint64_t x=0xffffffffff; 0:x2=x; uint64_t 0:x3; uint64_t 0:x5; }\n P0 ;\n \
         lw x5,0(x2) ;\n lwu x3,0(x2) ;\nforall 0:x5=-1 /\\ 0:x3=0xffffffff\n",
    )
    .unwrap();
    assert!(r.ok);
    assert_eq!(states(&r), ["0:x3=4294967295; 0:x5=-1;"]);
    // A 64-bit register compares at 64 bits: -1 is not 0xffffffff there.
    let r =
        check("RISCV T\n{ uint64_t 0:x5; }\n P0 ;\n li x5,-1 ;\nexists 0:x5=0xffffffff\n").unwrap();
    assert!(!r.ok);
}

#[test]
fn aarch64_ldrsb_sign_extends_and_ldrb_zero_extends() {
    let r = check(
        "AArch64 T\n{ 0:X1=x; int64_t 0:X2; int64_t 0:X3; }\n P0 ;\n MOV W0,#255 ;\n \
         STRB W0,[X1] ;\n LDRSB X2,[X1] ;\n LDRB W3,[X1] ;\nforall 0:X2=-1 /\\ 0:X3=255\n",
    )
    .unwrap();
    assert!(r.ok, "{:?}", states(&r));
}

#[test]
fn a_location_on_the_right_of_an_equation_is_its_address() {
    // herd's A024 (7.57: Ok): `sd` stores the address of x into the pointer p.
    let r = check(
        "RISCV A024\n{ int *p; int x; 0:x1=p; 0:x2=x; }\n P0 ;\n sd x2,0(x1) ;\nforall [p]=x\n",
    )
    .unwrap();
    assert!(r.ok);
    // herd's A230: an array's name compared with a register is the array's address.
    let r = check(
        "AArch64 A230\n{ 0:X1=0; 0:X2=x; int64_t x[2]={1,2}; }\n P0 ;\n STR X1,[X2],#8 ;\n \
         STR X1,[X2] ;\n ADD X2,X2,#-8 ;\nforall (x[0]=0 /\\ x[1]=0 /\\ 0:X2=x)\n",
    )
    .unwrap();
    assert!(r.ok);
}

#[test]
fn a_narrow_store_to_a_typed_location_of_one_thread_keeps_the_other_bytes() {
    // herd's A014 (its .expected in herdtools7 after 7.57: [x]=65535; [y]=255;
    // [z]=4294967295): `sw` of -1 writes the low half of the uint64_t z; x and y are
    // undeclared and written at one width only.
    let r = check(
        "RISCV A014\n{ uint64_t z; 0:x1=x; 0:x3=y; 0:x5=z; 0:x2=-1; }\n P0 ;\n sh x2,0(x1) ;\n \
         sb x2,0(x3) ;\n sw x2,0(x5) ;\nforall [x]=65535 /\\ [x]=255 /\\ [z]=4294967295\n",
    )
    .unwrap();
    assert!(!r.ok);
    assert_eq!(states(&r), ["x=65535; z=4294967295;"]);
    // A later narrow store replaces the low byte of the thread's own last value.
    let r = check(
        "AArch64 T\n{ int64_t x=0x1234; 0:X1=x; }\n P0 ;\n MOV W0,#0x56 ;\n STRB W0,[X1] ;\n \
         LDR X2,[X1] ;\n MOV W0,#0x78 ;\n STRH W0,[X1] ;\nforall x=0x78 /\\ 0:X2=0x1256\n",
    )
    .unwrap();
    assert!(r.ok, "{:?}", states(&r));
}

#[test]
fn a_store_narrower_than_its_location_is_refused_at_the_store() {
    // A narrow store to a typed location another thread reads: herd splits it into bytes,
    // which the engine does not model; it says so rather than answer.
    let e = check(
        "RISCV T\n{ uint64_t z; 0:x5=z; 1:x5=z; 0:x2=-1; }\n P0 | P1 ;\n sw x2,0(x5) | \
         ld x6,0(x5) ;\nexists 1:x6=4294967295\n",
    )
    .unwrap_err();
    assert_eq!(e.0, "sw x2,0(x5)");
    assert!(e.1.contains("mixed-size"), "{}", e.1);
    // Undeclared: stores of two widths to one location.
    let e = check(
        "AArch64 T\n{ 0:X1=x; }\n P0 ;\n MOV X0,#-1 ;\n STR X0,[X1] ;\n STRB W0,[X1] ;\n\
         exists x=255\n",
    )
    .unwrap_err();
    assert_eq!(e.0, "STRB W0,[X1]");
    // Wider than a declared type (herd's AArch64.mixed M000: a halfword store into a byte
    // array covers two cells): refused at the access.
    let e = check(
        "AArch64 M000\n{ uint8_t t[4]; 0:X2=t; }\n P0 ;\n MOV W0,#1 ;\n STRB W0,[X2] ;\n \
         MOV W0,#2 ;\n STRH W0,[X2,#2] ;\n LDR W1,[X2] ;\nforall 0:X1=0x20001\n",
    )
    .unwrap_err();
    assert_eq!(e.0, "STRH W0,[X2,#2]");
    assert!(e.1.contains("mixed-size"), "{}", e.1);
    // Inside a cell: refused at the access.
    let e =
        check("AArch64 T\n{ 0:X1=x; }\n P0 ;\n LDRB W0,[X1,#1] ;\nexists 0:X0=0\n").unwrap_err();
    assert_eq!(e.0, "LDRB W0,[X1,#1]");
    assert!(e.1.contains("mixed-size"), "{}", e.1);
}

#[test]
fn amo_add_chains_settle_at_as_many_rounds_as_writes() {
    // The LB+amoadd-data-amoadds shape: each AMO adds to what it read, so iterating the
    // values written never ends; bounded by the writes of an execution, the states are
    // herd7 7.57's (States 3, Never 0 3).
    let r = check(
        "RISCV LB+amoadd-data-amoadds\n{ 0:x3=x; 0:x6=y; 1:x3=y; 1:x6=x; }\n P0 | P1 ;\n \
         ori x2,x0,1 | ori x2,x0,1 ;\n amoadd.w x1,x2,(x3) | amoadd.w x1,x2,(x3) ;\n \
         xor x4,x1,x1 | xor x4,x1,x1 ;\n ori x4,x4,1 | ori x4,x4,1 ;\n \
         amoadd.w x5,x4,(x6) | amoadd.w x5,x4,(x6) ;\n\
         exists (x=2 /\\ y=2 /\\ 0:x1=1 /\\ 0:x5=0 /\\ 1:x1=1 /\\ 1:x5=0)\n",
    )
    .unwrap();
    assert!(!r.ok);
    assert_eq!((r.positive, r.negative), (0, 3));
    assert_eq!(
        states(&r),
        [
            "0:x1=0; 0:x5=0; 1:x1=1; 1:x5=1; x=2; y=2;",
            "0:x1=0; 0:x5=1; 1:x1=0; 1:x5=1; x=2; y=2;",
            "0:x1=1; 0:x5=1; 1:x1=0; 1:x5=0; x=2; y=2;"
        ]
    );
    // herd's A44: an exclusive increment racing with a store (herd7 7.57: z 5 or 6, X3=1 only
    // with z=5).
    let r = check(
        "AArch64 A44\n{ 0:X4=z; int64_t z=2; int64_t 1:X5=5; 1:X6=z }\n P0 | P1 ;\n \
         LDXR X0,[X4] | STR X5,[X6] ;\n ADD X0,X0,#1 | ;\n STXR W3,X0,[X4] | ;\n\
         forall not ((z=3 /\\ 0:X3=1) \\/ (z=6 /\\ 0:X3=1))\n",
    )
    .unwrap();
    assert!(r.ok);
    assert_eq!(states(&r), ["0:X3=0; z=5;", "0:X3=0; z=6;", "0:X3=1; z=5;"]);
}

#[test]
fn locations_are_shown_among_the_final_states() {
    // herd's C-Will02+HEAD: `locations [0:x2;]` adds x2 to herd7 7.57's three states.
    let r = check(
        "RISCV C-Will02+HEAD\n{ ok=1; 0:x6=x; 0:x7=y; 0:x3=z; 1:x6=y; 1:x8=x; 1:x3=z; }\n \
         P0 | P1 ;\n ori x5,x0,1 | ori x1,x0,1 ;\n sw x5,0(x6) | sw x1,0(x3) ;\n \
         ori x8,x0,1 | fence rw,rw ;\n fence rw,rw | lw x7,0(x6) ;\n \
         amoadd.w.aq x9,x5,(x7) | ;\n lw x2,0(x3) | ;\nlocations [0:x2;]\n\
         exists (0:x9=0 /\\ 1:x7=0)\n",
    )
    .unwrap();
    assert_eq!(
        states(&r),
        [
            "0:x2=0; 0:x9=0; 1:x7=1;",
            "0:x2=1; 0:x9=0; 1:x7=0;",
            "0:x2=1; 0:x9=0; 1:x7=1;"
        ]
    );
}

#[test]
fn w_register_shifts_and_bitfield_moves_act_on_32_bits() {
    // herd's A228 and L055 (7.57's .expected: Ok): UBFM/SBFM on W registers move 32-bit
    // fields, SBFM's shifted form sign-extends its field; LSR/ASR of a W register shift
    // in zeros / bit 31.
    let r = check(
        "AArch64 A228\n{ uint32_t 0:X20=0xFFFFFFFF; uint32_t 0:X21=0xFFFFFFFF; \
         int32_t 0:X22=0; int32_t 0:X23=0; uint32_t 0:X19=0x55667788; \
         int32_t 0:X18=0xAA998878; }\n P0 ;\n UBFM W20,W19,#4,#31 ;\n UBFM W21,W19,#24,#7 ;\n \
         SBFM W22,W18,#4,#31 ;\n SBFM W23,W18,#24,#7 ;\n\
         forall (0:X20=0x5566778 /\\ 0:X21=0x8800 /\\ 0:X22=0xFAA99887 /\\ 0:X23=0x7800)\n",
    )
    .unwrap();
    assert!(r.ok, "{:?}", states(&r));
    let r = check(
        "AArch64 L055\n{ uint32_t 0:X0=0xFE; uint32_t 0:X1; uint32_t 0:X2; uint64_t 0:X3=0xFE; \
         uint64_t 0:X4; uint64_t 0:X5; }\n P0 ;\n UBFM W1,W0,#4,#2 ;\n SBFM W2,W0,#4,#2 ;\n \
         UBFM X4,X3,#4,#2 ;\n SBFM X5,X3,#4,#2 ;\nforall 0:X1=0x60000000 /\\ \
         0:X2=0xe0000000 /\\ 0:X4=0x6000000000000000 /\\ 0:X5=0xe000000000000000\n",
    )
    .unwrap();
    assert!(r.ok, "{:?}", states(&r));
    let r = check(
        "AArch64 T\n{ uint32_t 0:X1; int32_t 0:X2; }\n P0 ;\n MOV W0,#-2 ;\n LSR W1,W0,#1 ;\n \
         ASR W2,W0,#1 ;\nforall 0:X1=0x7fffffff /\\ 0:X2=-1\n",
    )
    .unwrap();
    assert!(r.ok, "{:?}", states(&r));
}

#[test]
fn w_results_are_zero_extended_into_x_registers() {
    // herd's A26 and L101 (7.57's .expected: Ok): LDRSB W0 of -1 is -1 in W0 but
    // 4294967295 in X0 (seen through MOV X4,X0 or a 64-bit declared register); LDRSW X
    // sign-extends to 64 bits. L092: NEG and ABS of W registers act on 32 bits.
    let r = check(
        "AArch64 A26\n{ 0:X1=x; int8_t x=-1; int64_t 0:X4; int64_t 0:X6; }\n P0 ;\n \
         LDRSB W0,[X1] ;\n MOV X4,X0 ;\n LDRB W2,[X1] ;\n MOV X6,X2 ;\n\
         forall (0:X0=-1 /\\ 0:X2=255 /\\ 0:X4=4294967295 /\\ 0:X6=255)\n",
    )
    .unwrap();
    assert!(r.ok, "{:?}", states(&r));
    let r = check(
        "AArch64 L101\n{ int64_t x=-7; int16_t y=-7; 0:X0=x; 0:X8=y; int64_t 0:X2=0; \
         int64_t 0:X1; int64_t 0:X3; }\n P0 ;\n LDRSW X1,[X0,X2,LSL 2] ;\n \
         LDRSH W3,[X8,X2,LSL 1] ;\nforall 0:X1=-7 /\\ 0:X3=4294967289\n",
    )
    .unwrap();
    assert!(r.ok, "{:?}", states(&r));
    let r = check(
        "AArch64 L092\n{ 0:X1=6; }\n P0 ;\n NEG W2,W1,LSL 2 ;\n ABS W3,W2 ;\n \
         ADD W4,WZR,W2,ASR #1 ;\nforall 0:X2=-24 /\\ 0:X3=24 /\\ 0:X4=-12\n",
    )
    .unwrap();
    assert!(r.ok, "{:?}", states(&r));
}

#[test]
fn dsb_st_orders_earlier_stores_before_later_loads() {
    // herd's L041 (7.57's .expected: No): no instruction after a DSB executes before it
    // completes, so SB with DSB ST on both sides is forbidden (a DMB ST would not be).
    let sb = |barrier: &str| {
        format!(
            "AArch64 L041\n{{ 0:X1=x; 0:X2=y; 1:X1=y; 1:X2=x; }}\n P0 | P1 ;\n \
             MOV W0,#1 | MOV W0,#1 ;\n STR W0,[X1] | STR W0,[X1] ;\n {barrier} | {barrier} ;\n \
             LDR W3,[X2] | LDR W3,[X2] ;\nexists (0:X3=0 /\\ 1:X3=0)\n"
        )
    };
    assert!(!check(&sb("DSB ST")).unwrap().ok);
    assert!(check(&sb("DMB ST")).unwrap().ok);
}
