//! The native dialect: lowering and static diagnostics (spec §1).

mod syntax_support;

use expect_test::expect;
use syntax_support::check;

#[test]
fn store_buffering_lowers() {
    check(
        r#"// SB
litmus SB "store buffering"

shared x = 0, y = 0;

thread P0 {
  x = 1;
  r0 = y;
}

thread P1 {
  y = 1;
  r1 = x;
}

exists (P0:r0 == 0 && P1:r1 == 0)
"#,
        expect![[r#"
            test SB (Native) "store buffering"
            shared x = 0
            shared y = 0
            thread P0
              x <- 1
              r0 := *y
            thread P1
              y <- 1
              r1 := *x
            exists ((P0:r0 == 0) && (P1:r1 == 0))
        "#]],
    );
}
