//! `litmus check` on herd's RISC-V and AArch64 tests (`docs/arm-riscv.md#checking`): herd's
//! block, the forbidding check and its cycle or a witness, the exit status, `--json`, and
//! `--cat FILE` with a user's model. The expected verdicts are the architectures' (RVWMO and
//! Arm forbid MP with a full fence and a dependency; both allow SB without fences; SC forbids
//! SB). Under a second.

mod cli_support;
use cli_support::*;

const MP_FENCE_ADDR: &str = "RISCV MP+fence+addr
{
0:x5=1; 0:x6=x; 0:x7=y;
1:x6=y; 1:x9=x;
}
 P0          | P1             ;
 sw x5,0(x6) | lw x5,0(x6)    ;
 fence rw,rw | xor x7,x5,x5   ;
 sw x5,0(x7) | add x10,x9,x7  ;
             | lw x8,0(x10)   ;
exists (1:x5=1 /\\ 1:x8=0)
";

const SB: &str = "AArch64 SB
{
0:X1=x; 0:X3=y;
1:X1=y; 1:X3=x;
}
 P0          | P1          ;
 MOV W0,#1   | MOV W0,#1   ;
 STR W0,[X1] | STR W0,[X1] ;
 LDR W2,[X3] | LDR W2,[X3] ;
~exists (0:X2=0 /\\ 1:X2=0)
";

#[test]
fn a_forbidden_exists_shows_the_check_and_its_cycle() {
    let f = scratch("cli_axiomatic", "mp.litmus", MP_FENCE_ADDR.as_bytes());
    let r = run(&["check", &f]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    for line in [
        "Test MP+fence+addr Allowed",
        "States 3",
        "\nNo\n",
        "Positive: 0 Negative: 3",
        "Condition exists (1:x5=1 /\\ 1:x8=0)",
        "Observation MP+fence+addr Never 0 3",
        "fail `Model` (acyclic)",
        "cycle: ",
    ] {
        assert!(r.stdout.contains(line), "missing {line:?} in\n{}", r.stdout);
    }
}

#[test]
fn a_reachable_not_exists_is_a_violation_with_its_execution() {
    let f = scratch("cli_axiomatic", "sb.litmus", SB.as_bytes());
    let r = run(&["check", &f]);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("Test SB Forbidden"), "{}", r.stdout);
    assert!(r.stdout.contains("\nNo\n"), "{}", r.stdout);
    assert!(
        r.stdout.contains("Violation (an allowed execution"),
        "{}",
        r.stdout
    );
    let j = run(&["check", "--json", &f]).json();
    let r = &j["files"][0]["results"]["aarch64"];
    assert_eq!(r["condition"]["holds"], false);
    assert_eq!(r["condition"]["positive"], 1);
    assert_eq!(r["states"].as_array().map(Vec::len), Some(4));
    assert_eq!(r["violations"][0]["kind"], "condition");
}

#[test]
fn a_users_cat_model_replaces_the_architectures() {
    let f = scratch("cli_axiomatic", "sb2.litmus", SB.as_bytes());
    let cat = scratch(
        "cli_axiomatic",
        "sc.cat",
        b"\"SC\"\ninclude \"stdlib.cat\"\nacyclic po | rf | co | fr as sc\n",
    );
    let r = run(&["check", "--cat", &cat, &f]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("\nOk\n"), "{}", r.stdout);
    let bad = scratch("cli_axiomatic", "bad.cat", b"acyclic po | (rf\n");
    let r = run(&["check", "--cat", &bad, &f]);
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("cat model"), "{}", r.stderr);
    // An x86 test with `--cat`: refused, not checked as if the option were not there.
    let x86 = scratch(
        "cli_axiomatic",
        "sb-x86.litmus",
        b"X86 SB\n{ x=0; y=0; }\n P0          | P1          ;\n MOV [x],$1  | MOV [y],$1  ;\n MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=0 /\\ 1:EAX=0)\n",
    );
    let r = run(&["check", "--cat", &cat, &x86]);
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(r.stderr.contains("--cat applies to"), "{}", r.stderr);
}

#[test]
fn an_error_in_an_arm_test_is_reported_at_its_line_and_column() {
    // `LineIndex` counts from 1: the position was one line and one column past the error.
    let f = scratch(
        "cli_axiomatic",
        "bad.litmus",
        b"AArch64 T\n{ 0:X1=x; }\n P0 ;\n FOO X0,[X1] ;\nexists (0:X0=1)\n",
    );
    let r = run(&["check", &f]);
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    // As every dialect's diagnostics: the message, then the file, line and column.
    assert!(
        r.stderr
            .contains("error: `FOO` is outside the supported AArch64 subset")
            && r.stderr.contains("bad.litmus:4:2\n"),
        "{}",
        r.stderr
    );
}
