//! The AArch64 model's dependencies and orders that the conformance sample touches only in
//! passing, each on a small test written for it: pick dependencies (`CSEL`, `CAS`),
//! dependencies through memory, atomic-ordered-before and DSB. The expected verdicts are
//! herd7 7.57's with its own `aarch64.cat` (run on these texts on 2026-11-27), not this
//! engine's. A few milliseconds.

use litmus_engine::asm::Arch;
use litmus_engine::axiomatic::{self, builtin_model};
use litmus_engine::syntax;

/// (herd7 says `Ok`, the test).
const CASES: &[(bool, &str)] = &[
    // CSEL on a loaded value gives a later load its address: a pick dependency, which does not
    // order a read.
    (
        true,
        r"AArch64 MP+rel+pick-addr
{
0:X1=y; 0:X3=x;
1:X1=y; 1:X3=x;
}
 P0           | P1                  ;
 MOV W0,#1    | LDR W0,[X1]         ;
 STR W0,[X3]  | CMP W0,#1           ;
 MOV W2,#1    | CSEL W2,WZR,WZR,EQ  ;
 STLR W2,[X1] | LDR W4,[X3,W2,SXTW] ;
exists (1:X0=1 /\ 1:X4=0)
",
    ),
    // The same followed by an ISB: a pick address dependency orders what follows the ISB.
    (
        false,
        r"AArch64 MP+rel+pick-addr-isb
{
0:X1=y; 0:X3=x;
1:X1=y; 1:X3=x; 1:X5=z;
}
 P0           | P1                  ;
 MOV W0,#1    | LDR W0,[X1]         ;
 STR W0,[X3]  | CMP W0,#1           ;
 MOV W2,#1    | CSEL W2,WZR,WZR,EQ  ;
 STLR W2,[X1] | LDR W6,[X5,W2,SXTW] ;
              | ISB                 ;
              | LDR W4,[X3]         ;
exists (1:X0=1 /\ 1:X4=0)
",
    ),
    // CSEL on a loaded value gives a store its value: a pick dependency orders a write.
    (
        false,
        r"AArch64 LB+pick-data+rel
{
0:X1=x; 0:X3=y; 0:X4=1;
1:X1=y; 1:X3=x;
}
 P0                | P1           ;
 LDR W0,[X1]       | LDR W0,[X1]  ;
 CMP W0,#1         | MOV W2,#1    ;
 CSEL W2,W4,W4,EQ  | STLR W2,[X3] ;
 STR W2,[X3]       |              ;
exists (0:X0=1 /\ 1:X0=1)
",
    ),
    // A picked value stored and loaded again reaches an address by a pick only: no order.
    (
        true,
        r"AArch64 MP+rel+pick-lrs-addr
{
0:X1=y; 0:X3=x;
1:X1=y; 1:X3=x; 1:X5=z;
}
 P0           | P1                  ;
 MOV W0,#1    | LDR W0,[X1]         ;
 STR W0,[X3]  | CMP W0,#1           ;
 MOV W2,#1    | CSEL W7,WZR,WZR,EQ  ;
 STLR W2,[X1] | STR W7,[X5]         ;
              | LDR W6,[X5]         ;
              | EOR W2,W6,W6        ;
              | LDR W4,[X3,W2,SXTW] ;
exists (1:X0=1 /\ 1:X4=0)
",
    ),
    // A value stored and loaded again (the load is the store's local read successor) carries its
    // dependency on to an address.
    (
        false,
        r"AArch64 MP+rel+data-lrs-addr
{
0:X1=y; 0:X3=x;
1:X1=y; 1:X3=x; 1:X5=z;
}
 P0           | P1                  ;
 MOV W0,#1    | LDR W0,[X1]         ;
 STR W0,[X3]  | STR W0,[X5]         ;
 MOV W2,#1    | LDR W6,[X5]         ;
 STLR W2,[X1] | EOR W2,W6,W6        ;
              | LDR W4,[X3,W2,SXTW] ;
exists (1:X0=1 /\ 1:X4=0)
",
    ),
    // A successful CAS may give Rs the value it read: no dependency from the load that set Rs.
    (
        true,
        r"AArch64 LB+rel+CAS-Rs-addr
{
z=1;
0:X1=x; 0:X3=y;
1:X1=y; 1:X3=x; 1:X5=z;
}
 P0           | P1                  ;
 LDR W0,[X1]  | LDR W0,[X1]         ;
 MOV W2,#1    | MOV W6,W0           ;
 STLR W2,[X3] | CAS W6,WZR,[X5]     ;
              | EOR W2,W6,W6        ;
              | MOV W7,#1           ;
              | STR W7,[X3,W2,SXTW] ;
exists (0:X0=1 /\ 1:X0=1)
",
    ),
    // An atomic's write is not ordered before a later load-acquire of its location, only its
    // read.
    (
        true,
        r"AArch64 MP+rel+ctrl-swp-ldar
{
0:X1=y; 0:X3=x;
1:X1=y; 1:X3=x; 1:X5=z;
}
 P0           | P1               ;
 MOV W0,#1    | LDR W0,[X1]      ;
 STR W0,[X3]  | CBZ W0,L0        ;
 MOV W2,#1    | L0:              ;
 STLR W2,[X1] | MOV W7,#2        ;
              | SWP W7,W8,[X5]   ;
              | LDAR W6,[X5]     ;
              | LDR W4,[X3]      ;
exists (1:X0=1 /\ 1:X4=0)
",
    ),
    // The same with the atomic's address depending on the first load: its read is ordered, and
    // so the acquire.
    (
        false,
        r"AArch64 MP+rel+addr-swp-ldar
{
0:X1=y; 0:X3=x;
1:X1=y; 1:X3=x; 1:X5=z;
}
 P0           | P1                  ;
 MOV W0,#1    | LDR W0,[X1]         ;
 STR W0,[X3]  | EOR W9,W0,W0        ;
 MOV W2,#1    | MOV W7,#2           ;
 STLR W2,[X1] | ADD X10,X5,W9,SXTW ;
              | SWP W7,W8,[X10]   ;
              | LDAR W6,[X5]        ;
              | LDR W4,[X3]         ;
exists (1:X0=1 /\ 1:X4=0)
",
    ),
    // DSB ST orders a write before a later read.
    (
        false,
        r"AArch64 SB+dsb.sts
{
0:X1=x; 0:X2=y;
1:X1=y; 1:X2=x;
}
 P0          | P1          ;
 MOV W0,#1   | MOV W0,#1   ;
 STR W0,[X1] | STR W0,[X1] ;
 DSB ST      | DSB ST      ;
 LDR W3,[X2] | LDR W3,[X2] ;
exists (0:X3=0 /\ 1:X3=0)
",
    ),
    // DMB ST does not.
    (
        true,
        r"AArch64 SB+dmb.sts
{
0:X1=x; 0:X2=y;
1:X1=y; 1:X2=x;
}
 P0          | P1          ;
 MOV W0,#1   | MOV W0,#1   ;
 STR W0,[X1] | STR W0,[X1] ;
 DMB ST      | DMB ST      ;
 LDR W3,[X2] | LDR W3,[X2] ;
exists (0:X3=0 /\ 1:X3=0)
",
    ),
];

#[test]
fn aarch64_dependencies_and_orders_agree_with_herd7() {
    let model = builtin_model(Arch::AArch64);
    let mut wrong = Vec::new();
    for (herd_ok, src) in CASES {
        let p = syntax::parse(src);
        let (Some(test), Some(code)) = (&p.test, &p.asm) else {
            panic!("does not parse: {src}");
        };
        let rep = axiomatic::check(test, code, &model, &|| false).expect("checks");
        println!("{}: herd7 {herd_ok}, litmus {}", test.name.text, rep.ok);
        if rep.ok != *herd_ok {
            wrong.push(test.name.text.clone());
        }
        // A forbidden state is one some candidate reaches (the test is not vacuous).
        if !herd_ok && rep.forbidden.is_none() {
            wrong.push(format!(
                "{}: no candidate reaches the state",
                test.name.text
            ));
        }
    }
    println!("{} tests", CASES.len());
    assert!(wrong.is_empty(), "disagree with herd7: {wrong:?}");
}
