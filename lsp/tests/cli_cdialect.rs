//! `litmus check` on herd's C tests (`docs/reference.md#c`): read, with their `Result:` header,
//! and reported as not checkable yet (exit 2); a syntax error is reported at its position.

mod cli_support;
use cli_support::*;

const MP: &str = "C MP\n(* Result: Never DATARACE *)\n{ x = 0; }\n\
                  P0(int *x, int *y)\n{\n\tWRITE_ONCE(*x, 1);\n\tsmp_store_release(y, 1);\n}\n\n\
                  P1(int *x, int *y)\n{\n\tint r0 = smp_load_acquire(y);\n\tr1 = READ_ONCE(*x);\n}\n\n\
                  exists (1:r0=1 /\\ 1:r1=0)\n";

#[test]
fn a_c_test_is_read_and_said_not_checkable_yet() {
    let f = scratch("cdialect", "mp.litmus", MP.as_bytes());
    let r = run(&["check", &f]);
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("C test MP (2 threads) read; its header expects `Result: Never DATARACE`"),
        "{}",
        r.stdout
    );
    assert!(r.stderr.contains("not available yet"), "{}", r.stderr);
}

#[test]
fn a_c_syntax_error_has_its_position() {
    let f = scratch(
        "cdialect",
        "bad.litmus",
        b"C bad\n{}\nP0(int *x) { r0 = ; }\n",
    );
    let r = run(&["check", &f]);
    assert_eq!(r.status, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("bad.litmus:3:"), "{}", r.stderr);
    assert!(!r.stdout.contains("C test bad"), "{}", r.stdout);
}
