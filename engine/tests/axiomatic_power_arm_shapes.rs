//! POWER and ARMv7 on small tests written here, one per ordering the models must get right,
//! with the answers "Herding cats" (Alglave, Maranget, Tautschnig, TOPLAS 2014) and the
//! hardware literature give them: barriers, dependencies (`ctrl` alone does not order two
//! reads; with `isync`/`ISB` it does), cumulativity (`lwsync` orders WRC but not IRIW), and
//! the atomicity of `lwarx`/`stwcx.` and `LDREX`/`STREX` loops. They run without the shared
//! data (`axiomatic_power_arm.rs` has the 636 shared tests). Also: an instruction outside the
//! subset is an error at its mnemonic. A few milliseconds.

use litmus_engine::asm::Arch;
use litmus_engine::axiomatic::{self, builtin_model};
use litmus_engine::syntax;

/// POWER message passing with `lwsync` on the writer and `READER` on the reader (its first
/// load into r1 from y, its second into r5 from x).
fn ppc_mp(name: &str, reader: &[&str]) -> String {
    let mut rows = vec![
        "li r1,1".to_string(),
        "stw r1,0(r2)".into(),
        "lwsync".into(),
        "stw r1,0(r4)".into(),
    ];
    rows.resize(reader.len().max(rows.len()), String::new());
    let mut text = format!("PPC {name}\n{{\n0:r2=x; 0:r4=y;\n1:r2=y; 1:r4=x;\n}}\n P0 | P1 ;\n");
    for (i, w) in rows.iter().enumerate() {
        text.push_str(&format!(
            " {w} | {} ;\n",
            reader.get(i).copied().unwrap_or("")
        ));
    }
    text.push_str("exists (1:r1=1 /\\ 1:r5=0)\n");
    text
}

/// ARMv7 message passing with `DMB` on the writer.
fn arm_mp(name: &str, writer_barrier: &str, reader: &[&str]) -> String {
    let mut rows = vec![
        "MOV R0,#1".to_string(),
        "STR R0,[R2]".into(),
        writer_barrier.into(),
        "STR R0,[R4]".into(),
    ];
    rows.resize(reader.len().max(rows.len()), String::new());
    let mut text = format!("ARM {name}\n{{\n0:R2=x; 0:R4=y;\n1:R2=y; 1:R4=x;\n}}\n P0 | P1 ;\n");
    for (i, w) in rows.iter().enumerate() {
        text.push_str(&format!(
            " {w} | {} ;\n",
            reader.get(i).copied().unwrap_or("")
        ));
    }
    text.push_str("exists (1:R1=1 /\\ 1:R5=0)\n");
    text
}

/// (allowed, test).
fn cases() -> Vec<(bool, String)> {
    let po = ["lwz r1,0(r2)", "lwz r5,0(r4)"];
    let addr = ["lwz r1,0(r2)", "xor r3,r1,r1", "lwzx r5,r3,r4"];
    let ctrl = [
        "lwz r1,0(r2)",
        "cmpw r1,r1",
        "beq L0",
        "L0:",
        "lwz r5,0(r4)",
    ];
    let ctrlisync = [
        "lwz r1,0(r2)",
        "cmpw r1,r1",
        "beq L0",
        "L0:",
        "isync",
        "lwz r5,0(r4)",
    ];
    let arm_addr = ["LDR R1,[R2]", "EOR R3,R1,R1", "LDR R5,[R3,R4]"];
    let arm_ctrl = ["LDR R1,[R2]", "CMP R1,R1", "BNE L0", "L0:", "LDR R5,[R4]"];
    let arm_ctrlisb = [
        "LDR R1,[R2]",
        "CMP R1,R1",
        "BNE L0",
        "L0:",
        "ISB",
        "LDR R5,[R4]",
    ];
    vec![
        (true, ppc_mp("MP+lwsync+po", &po)),
        (false, ppc_mp("MP+lwsync+addr", &addr)),
        (true, ppc_mp("MP+lwsync+ctrl", &ctrl)),
        (false, ppc_mp("MP+lwsync+ctrlisync", &ctrlisync)),
        (false, arm_mp("MP+dmb+addr", "DMB", &arm_addr)),
        (false, arm_mp("MP+dmb.st+addr", "DMB ST", &arm_addr)),
        (true, arm_mp("MP+dmb+ctrl", "DMB", &arm_ctrl)),
        (false, arm_mp("MP+dmb+ctrlisb", "DMB", &arm_ctrlisb)),
        (true, arm_mp("MP+po+addr", "NOP", &arm_addr)),
        (
            true,
            "PPC SB+lwsyncs
{ 0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x; }
 P0           | P1           ;
 li r1,1      | li r1,1      ;
 stw r1,0(r2) | stw r1,0(r2) ;
 lwsync       | lwsync       ;
 lwz r3,0(r4) | lwz r3,0(r4) ;
exists (0:r3=0 /\\ 1:r3=0)
"
            .into(),
        ),
        (
            false,
            "PPC SB+syncs
{ 0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x; }
 P0           | P1           ;
 li r1,1      | li r1,1      ;
 stw r1,0(r2) | stw r1,0(r2) ;
 sync         | sync         ;
 lwz r3,0(r4) | lwz r3,0(r4) ;
exists (0:r3=0 /\\ 1:r3=0)
"
            .into(),
        ),
        // herd's `d,rA` form of a D-form access, as the herding-cats archive writes it.
        (
            false,
            "PPC SB+syncs-dform
{ 0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x; }
 P0          | P1          ;
 li r1,1     | li r1,1     ;
 stw r1,0,r2 | stw r1,0,r2 ;
 sync        | sync        ;
 lwz r3,0,r4 | lwz r3,0,r4 ;
exists (0:r3=0 /\\ 1:r3=0)
"
            .into(),
        ),
        (
            true,
            "ARM SB+dmb.sts
{ 0:R2=x; 0:R4=y; 1:R2=y; 1:R4=x; }
 P0          | P1          ;
 MOV R1,#1   | MOV R1,#1   ;
 STR R1,[R2] | STR R1,[R2] ;
 DMB ST      | DMB ST      ;
 LDR R3,[R4] | LDR R3,[R4] ;
exists (0:R3=0 /\\ 1:R3=0)
"
            .into(),
        ),
        // Cumulativity: lwsync orders what P1 read before its write (WRC)...
        (
            false,
            "PPC WRC+lwsync+addr
{ 0:r2=x; 1:r2=x; 1:r4=y; 2:r2=y; 2:r4=x; }
 P0           | P1           | P2            ;
 li r1,1      | lwz r1,0(r2) | lwz r1,0(r2)  ;
 stw r1,0(r2) | lwsync       | xor r3,r1,r1  ;
              | li r3,1      | lwzx r5,r3,r4 ;
              | stw r3,0(r4) |               ;
exists (1:r1=1 /\\ 2:r1=1 /\\ 2:r5=0)
"
            .into(),
        ),
        // ... but not two independent writes seen in opposite orders (IRIW): that needs sync.
        (
            true,
            "PPC IRIW+lwsyncs
{ 0:r2=x; 1:r2=x; 1:r4=y; 2:r2=y; 3:r2=y; 3:r4=x; }
 P0           | P1           | P2           | P3           ;
 li r1,1      | lwz r1,0(r2) | li r1,1      | lwz r1,0(r2) ;
 stw r1,0(r2) | lwsync       | stw r1,0(r2) | lwsync       ;
              | lwz r3,0(r4) |              | lwz r3,0(r4) ;
exists (1:r1=1 /\\ 1:r3=0 /\\ 3:r1=1 /\\ 3:r3=0)
"
            .into(),
        ),
        (
            false,
            "PPC IRIW+syncs
{ 0:r2=x; 1:r2=x; 1:r4=y; 2:r2=y; 3:r2=y; 3:r4=x; }
 P0           | P1           | P2           | P3           ;
 li r1,1      | lwz r1,0(r2) | li r1,1      | lwz r1,0(r2) ;
 stw r1,0(r2) | sync         | stw r1,0(r2) | sync         ;
              | lwz r3,0(r4) |              | lwz r3,0(r4) ;
exists (1:r1=1 /\\ 1:r3=0 /\\ 3:r1=1 /\\ 3:r3=0)
"
            .into(),
        ),
        // Two atomic increments by reservation loops: no increment is lost.
        (
            false,
            "PPC INC+lwarx-stwcx
{ 0:r2=x; 1:r2=x; }
 P0              | P1              ;
 L0:             | L1:             ;
 lwarx r1,r0,r2  | lwarx r1,r0,r2  ;
 addi r1,r1,1    | addi r1,r1,1    ;
 stwcx. r1,r0,r2 | stwcx. r1,r0,r2 ;
 bne L0          | bne L1          ;
exists (x=1)
"
            .into(),
        ),
        (
            false,
            "ARM INC+ldrex-strex
{ 0:R2=x; 1:R2=x; }
 P0               | P1               ;
 L0:              | L1:              ;
 LDREX R1,[R2]    | LDREX R1,[R2]    ;
 ADD R1,R1,#1     | ADD R1,R1,#1     ;
 STREX R3,R1,[R2] | STREX R3,R1,[R2] ;
 CMP R3,#0        | CMP R3,#0        ;
 BNE L0           | BNE L1           ;
exists (x=1)
"
            .into(),
        ),
        // The increments do happen: both succeed in some execution.
        (
            true,
            "PPC INC2+lwarx-stwcx
{ 0:r2=x; 1:r2=x; }
 P0              | P1              ;
 L0:             | L1:             ;
 lwarx r1,r0,r2  | lwarx r1,r0,r2  ;
 addi r1,r1,1    | addi r1,r1,1    ;
 stwcx. r1,r0,r2 | stwcx. r1,r0,r2 ;
 bne L0          | bne L1          ;
exists (x=2)
"
            .into(),
        ),
    ]
}

#[test]
fn power_and_armv7_shapes_get_the_papers_answers() {
    let mut wrong = Vec::new();
    for (allowed, text) in cases() {
        let p = syntax::parse(&text);
        let (Some(test), Some(code)) = (&p.test, &p.asm) else {
            panic!("does not parse: {:?}\n{text}", p.diagnostics);
        };
        let arch = code.arch;
        assert!(matches!(arch, Arch::Ppc | Arch::Arm));
        let rep = axiomatic::check(test, code, &builtin_model(arch), &|| false)
            .unwrap_or_else(|e| panic!("{}: {e}", test.name.text));
        if rep.ok != allowed {
            wrong.push(format!(
                "{}: expected {}, litmus {} (positive {}, negative {})",
                test.name.text,
                if allowed { "Ok" } else { "No" },
                if rep.ok { "Ok" } else { "No" },
                rep.positive,
                rep.negative
            ));
        }
        // Every supported mnemonic has a hover line.
        for t in &code.threads {
            for i in &t.instrs {
                assert!(
                    litmus_engine::asm::describe(arch, &i.mnemonic).is_some(),
                    "{} has no description",
                    i.mnemonic
                );
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:?}");
}

#[test]
fn an_instruction_outside_the_subset_is_an_error_at_its_mnemonic() {
    for (text, word, message) in [
        (
            "PPC T\n{ 0:r2=x; }\n P0 ;\n lwz r1,0(r2) ;\n dcbf r0,r2 ;\nexists (x=0)\n",
            "dcbf",
            "`dcbf` is outside the supported POWER subset",
        ),
        (
            "ARM T\n{ 0:R2=x; }\n P0 ;\n LDRD R0,R1,[R2] ;\nexists (x=0)\n",
            "LDRD",
            "`LDRD` is outside the supported ARMv7 subset",
        ),
        (
            "ARM T\n{ 0:R2=x; }\n P0 ;\n MOVEQ R1,#1 ;\nexists (x=0)\n",
            "MOVEQ",
            "`MOVEQ` is outside the supported ARMv7 subset",
        ),
        (
            "ARM T\n{ 0:R2=x; }\n P0 ;\n DMB LD ;\nexists (x=0)\n",
            "LD",
            "expected a barrier option",
        ),
    ] {
        let p = syntax::parse(text);
        assert!(p.test.is_none(), "{text}");
        let d = p
            .diagnostics
            .iter()
            .find(|d| d.message.contains(message))
            .unwrap_or_else(|| panic!("{text}: {:?}", p.diagnostics));
        assert!(
            text[d.span.start as usize..].starts_with(word),
            "{text}: at {:?}: {}",
            d.span,
            d.message
        );
    }
}
