//! The native dialect's syntax errors: each malformed construct is one diagnostic that names
//! what is missing (`docs/reference.md#native`); the static rules are in `syntax_native.rs`.

mod syntax_support;

use expect_test::expect;
use syntax_support::check;

#[test]
fn missing_semicolon_is_one_diagnostic() {
    check(
        "litmus E\nshared x;\nthread P0 {\n  x = 1\n  r0 = x;\n}\n",
        expect![[r#"
            error 4:8-4:8: expected `;`
              |   x = 1
              |        ^
        "#]],
    );
}

#[test]
fn missing_brace_is_one_diagnostic() {
    check(
        "litmus E\nshared x;\nthread P0 {\n  x = 1;\nthread P1 {\n  r0 = x;\n}\n",
        expect![[r#"
            error 4:9-4:9: expected `}`
              |   x = 1;
              |         ^
        "#]],
    );
}

#[test]
fn unexpected_token() {
    check(
        "litmus E\nthread P0 {\n  foo bar;\n  r0 = 1;\n}\n",
        expect![[r#"
        error 3:3-3:11: unexpected `foo`
          |   foo bar;
          |   ^^^^^^^^
    "#]],
    );
}

#[test]
fn declaration_without_semicolon() {
    check(
        "litmus E\nshared x, y\nmutex m\nthread P0 { x = 1; }\n",
        expect![[r#"
        error 2:12-2:12: expected `;`
          | shared x, y
          |            ^
        error 3:8-3:8: expected `;`
          | mutex m
          |        ^
    "#]],
    );
}

#[test]
fn not_a_test() {
    check(
        "hello world\n",
        expect![[r#"
            error 1:1-1:6: expected a test: `litmus NAME` (native dialect), `X86 NAME`, `X86_64 NAME`, `AArch64 NAME`, `RISCV NAME`, `PPC NAME`, `ARM NAME` or `C NAME` (herd's dialects)
              | hello world
              | ^^^^^
        "#]],
    );
    check(
        "",
        expect![[r#"
            error 1:1-1:1: expected a test: `litmus NAME` (native dialect), `X86 NAME`, `X86_64 NAME`, `AArch64 NAME`, `RISCV NAME`, `PPC NAME`, `ARM NAME` or `C NAME` (herd's dialects)
              | 
              | ^
        "#]],
    );
}

#[test]
fn missing_operand_before_a_parenthesis_without_semicolon() {
    // Typed before the `;` (issue 31): the error names the missing operand at the `)`, one
    // character on one line, not the `=` with a squiggle running onto the next line.
    check(
        "litmus E\nshared turn = 0;\nthread P0 {\n  r5 = (turn + )\n  turn = 1;\n}\n",
        expect![[r#"
            error 4:16-4:17: expected an operand after `+`
              |   r5 = (turn + )
              |                ^
        "#]],
    );
}

#[test]
fn missing_operand_and_parenthesis() {
    check(
        "litmus E\nthread P0 {\n  r0 = 1 +;\n  if (r0 == 1 { r1 = 1; }\n}\n",
        expect![[r#"
        error 3:11-3:11: expected an expression
          |   r0 = 1 +;
          |           ^
        error 4:14-4:14: expected `)`
          |   if (r0 == 1 { r1 = 1; }
          |              ^
    "#]],
    );
}

#[test]
fn unterminated_delimiters() {
    check(
        "litmus E\nthread P0 { } /* never closed\n",
        expect![[r#"
        error 2:15-2:30: unterminated comment: `/*` needs a closing `*/`
          | thread P0 { } /* never closed
          |               ^^^^^^^^^^^^^^^
    "#]],
    );
    check(
        "litmus E \"never closed\nthread P0 { }\n",
        expect![[r#"
        error 1:10-1:23: unterminated string: `"` needs a closing `"` on the same line
          | litmus E "never closed
          |          ^^^^^^^^^^^^^
    "#]],
    );
}

#[test]
fn broken_thread_header_is_one_diagnostic() {
    check(
        "litmus E\nthread { r0 = 1; }\n",
        expect![[r#"
        error 2:8-2:9: expected a thread name: `thread P0 { ... }`
          | thread { r0 = 1; }
          |        ^
    "#]],
    );
    check(
        "litmus E\nthread P0 { r0 = 1; }}\n",
        expect![[r#"
        error 2:22-2:23: unexpected `}`
          | thread P0 { r0 = 1; }}
          |                      ^
    "#]],
    );
    check(
        "litmus E\nthread P0 { r0 = 1; }\nexists (P0:r0 == 1) junk\n",
        expect![[r#"
        error 3:21-3:25: unexpected `junk`
          | exists (P0:r0 == 1) junk
          |                     ^^^^
    "#]],
    );
}

#[test]
fn thread_without_brace() {
    check(
        "litmus E\nthread P0 ( )\n",
        expect![[r#"
        error 2:11-2:12: expected `{` after the thread name: `thread P0 { ... }`
          | thread P0 ( )
          |           ^
    "#]],
    );
}

#[test]
fn missing_parentheses_are_named() {
    check(
        "litmus P\nmutex m;\nthread P0 {\n  if r0 == 1 { r1 = 1; }\n  while r0 < 2 { r0 = r0 + 1; }\n  assert r0 == 2;\n  lock m;\n  unlock(m);\n}\n",
        expect![[r#"
            error 4:6-4:13: `if` needs parentheses: `if (r0 == 1) { ... }`
              |   if r0 == 1 { r1 = 1; }
              |      ^^^^^^^
            error 5:9-5:15: `while` needs parentheses: `while (r0 < 2) { ... }`
              |   while r0 < 2 { r0 = r0 + 1; }
              |         ^^^^^^
            error 6:10-6:17: `assert` needs parentheses: `assert(r0 == 2);`
              |   assert r0 == 2;
              |          ^^^^^^^
            error 7:8-7:9: `lock` needs parentheses: `lock(m);`
              |   lock m;
              |        ^
        "#]],
    );
}

#[test]
fn fence_with_arguments() {
    check(
        "litmus E\nthread P0 { fence(); }\n",
        expect![[r#"
        error 2:18-2:20: `fence` takes no arguments: write `fence;`
          | thread P0 { fence(); }
          |                  ^^
    "#]],
    );
}
