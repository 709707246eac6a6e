//! The native dialect: lowering and static diagnostics (`docs/reference.md#native`).

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

#[test]
fn declarations_arrays_and_initialisers() {
    check(
        "litmus D\nshared x = 1, y, flag[2], a[3] = {1, 2, 3}, n = -9223372036854775808, t = true, s[2] = {7,};\nmutex m, k;\nthread P0 { r0 = a[1]; }\n",
        expect![[r#"
            test D (Native)
            shared x = 1
            shared y = 0
            shared flag[2] = {0, 0}
            shared a[3] = {1, 2, 3}
            shared n = -9223372036854775808
            shared t = 1
            shared s[2] = {7, 0}
            mutex m
            mutex k
            thread P0
              r0 := *a[1]
        "#]],
    );
}

#[test]
fn every_statement_lowers() {
    check(
        r#"litmus S
shared x, a[2];
mutex m;
thread P0 {
  x = 1;
  a[r0 + 1] = x;
  r1 = -a[0] * 2 + 3 % 2 - 4 / 1;
  fence;
  lock(m);
  unlock(m);
  r2 = xchg(x, 1);
  r3 = cas(x, 0, r2);
  r4 = fetch_add(a[1], 2);
  xchg(x, 5);
  assert(r2 != 0 || !(r3 <= 1));
  assume(r4 > 0);
  await(x >= 1);
  if (r0 < 1) { r0 = 1; } else if (r0 == 1) { r0 = 2; } else { r0 = 3; }
  while (r5 < 3) { r5 = r5 + 1; }
}
forall (P0:r0 == 1 || a[1] == 2 && true)
"#,
        expect![[r#"
            test S (Native)
            shared x = 0
            shared a[2] = {0, 0}
            mutex m
            thread P0
              x <- 1
              a[(r0 + 1)] <- *x
              r1 := (((-*a[0] * 2) + (3 % 2)) - (4 / 1))
              fence
              lock m
              unlock m
              r2 := xchg(x, 1)
              r3 := cas(x, 0, r2)
              r4 := fetch_add(a[1], 2)
              xchg(x, 5)
              assert ((r2 != 0) || !(r3 <= 1))
              assume (r4 > 0)
              await (*x >= 1)
              if (r0 < 1)
                r0 := 1
              else
                if (r0 == 1)
                  r0 := 2
                else
                  r0 := 3
              while (r5 < 3)
                r5 := (r5 + 1)
            forall ((P0:r0 == 1) || ((*a[1] == 2) && 1))
        "#]],
    );
}

#[test]
fn not_exists_and_herd_thread_numbers() {
    check(
        "litmus N\nshared x;\nthread P0 { r0 = x; }\n~exists (0:r0 == 1 && x == false)\n",
        expect![[r#"
            test N (Native)
            shared x = 0
            thread P0
              r0 := *x
            ~exists ((P0:r0 == 1) && (*x == 0))
        "#]],
    );
}

#[test]
fn unknown_thread_in_condition() {
    check(
        "litmus U\nthread P0 { r0 = 1; }\nthread P1 { r0 = 2; }\nexists (P2:r0 == 1)\n",
        expect![[r#"
            error 4:9-4:11: unknown thread `P2`; the threads are P0, P1
              | exists (P2:r0 == 1)
              |         ^^
        "#]],
    );
}

#[test]
fn register_unused_by_its_thread_is_a_warning() {
    check(
        "litmus W\nthread P0 { r0 = 1; }\nexists (P0:r9 == 0)\n",
        expect![[r#"
        warning 3:12-3:14: thread `P0` never uses register `r9`; its final value is always 0
          | exists (P0:r9 == 0)
          |            ^^
        test W (Native)
        thread P0
          r0 := 1
        exists (P0:r9 == 0)
    "#]],
    );
}

#[test]
fn mutex_misuse() {
    check(
        "litmus M\nshared x;\nmutex m;\nthread P0 {\n  r0 = m + 1;\n  m = 1;\n  lock(x);\n  unlock(q);\n  r1 = xchg(m, 1);\n}\nexists (m == 0)\n",
        expect![[r#"
            error 5:8-5:9: mutex `m` cannot be used as a value; use `lock(m);` and `unlock(m);`
              |   r0 = m + 1;
              |        ^
            error 6:3-6:4: cannot assign to mutex `m`; use `lock(m);` and `unlock(m);`
              |   m = 1;
              |   ^
            error 7:8-7:9: `lock` needs a mutex, and `x` is not one
              |   lock(x);
              |        ^
            error 8:10-8:11: unknown mutex `q`; declare it with `mutex q;`
              |   unlock(q);
              |          ^
            error 9:13-9:14: mutex `m` cannot be the target of `xchg`; use `lock`/`unlock`
              |   r1 = xchg(m, 1);
              |             ^
            error 11:9-11:10: mutex `m` cannot be used as a value; use `lock(m);` and `unlock(m);`
              | exists (m == 0)
              |         ^
        "#]],
    );
}

#[test]
fn array_and_scalar_misuse() {
    check(
        "litmus A\nshared x, a[2];\nthread P0 {\n  r0 = a + 1;\n  r1 = x[0];\n  a = 1;\n  x[1] = 2;\n  r2[0] = 1;\n  r3 = r4[1];\n}\nexists (a[2] == 0 || a[P0:r0] == 1 || a == 1)\n",
        expect![[r#"
            error 4:8-4:9: array `a` needs an index: `a[i]`
              |   r0 = a + 1;
              |        ^
            error 5:8-5:9: `x` is not an array and cannot be indexed
              |   r1 = x[0];
              |        ^
            error 6:3-6:4: array `a` needs an index: `a[i]`
              |   a = 1;
              |   ^
            error 7:3-7:4: `x` is not an array and cannot be indexed
              |   x[1] = 2;
              |   ^
            error 8:3-8:5: `r2` is a register and cannot be indexed; declare an array with `shared r2[N];`
              |   r2[0] = 1;
              |   ^^
            error 9:8-9:10: `r4` is a register and cannot be indexed; declare an array with `shared r4[N];`
              |   r3 = r4[1];
              |        ^^
            error 11:11-11:12: index 2 is out of bounds for `a` (size 2)
              | exists (a[2] == 0 || a[P0:r0] == 1 || a == 1)
              |           ^
            error 11:24-11:29: an index in the final condition must be a constant
              | exists (a[2] == 0 || a[P0:r0] == 1 || a == 1)
              |                        ^^^^^
            error 11:39-11:40: array `a` needs an index: `a[i]`
              | exists (a[2] == 0 || a[P0:r0] == 1 || a == 1)
              |                                       ^
        "#]],
    );
}

#[test]
fn duplicates_point_at_the_first_declaration() {
    check(
        "litmus D\nshared x, y;\nmutex x, m;\nshared m;\nthread P0 { }\nthread P0 { }\n",
        expect![[r#"
            error 3:7-3:8: `x` is already declared
              | mutex x, m;
              |       ^
              = 2:8: first declared here
            error 4:8-4:9: `m` is already declared
              | shared m;
              |        ^
              = 3:10: first declared here
            error 6:8-6:10: duplicate thread `P0`
              | thread P0 { }
              |        ^^
              = 5:8: first declared here
        "#]],
    );
}

#[test]
fn assignment_in_final_condition() {
    check(
        "litmus A\nshared x, y;\nthread P0 { x = 1; }\nexists (x = 1 && y = 0)\n",
        expect![[r#"
            error 4:11-4:12: assignment in final condition; did you mean `==`?
              | exists (x = 1 && y = 0)
              |           ^
            error 4:20-4:21: assignment in final condition; did you mean `==`?
              | exists (x = 1 && y = 0)
              |                    ^
        "#]],
    );
}

#[test]
fn integer_literals_out_of_range() {
    check(
        "litmus I\nshared x = 9223372036854775808;\nthread P0 { r0 = 9223372036854775807; r1 = -9223372036854775809; r2 = 99999999999999999999999; }\n",
        expect![[r#"
            error 2:12-2:31: integer literal out of range (values are 64-bit signed)
              | shared x = 9223372036854775808;
              |            ^^^^^^^^^^^^^^^^^^^
            error 3:44-3:64: integer literal out of range (values are 64-bit signed)
              | thread P0 { r0 = 9223372036854775807; r1 = -9223372036854775809; r2 = 99999999999999999999999; }
              |                                            ^^^^^^^^^^^^^^^^^^^^
            error 3:71-3:94: integer literal out of range (values are 64-bit signed)
              | thread P0 { r0 = 9223372036854775807; r1 = -9223372036854775809; r2 = 99999999999999999999999; }
              |                                                                       ^^^^^^^^^^^^^^^^^^^^^^^
        "#]],
    );
}

#[test]
fn array_sizes_and_initialiser_counts() {
    check(
        "litmus S\nshared a[0], b[2] = {1, 2, 3}, c[1 + 1] = {5}, d = {1}, e[2] = 3, f[r], g[100000], h = 1 / 0, i = x;\nthread P0 { }\n",
        expect![[r#"
            error 2:10-2:11: array size must be at least 1, not 0
              | shared a[0], b[2] = {1, 2, 3}, c[1 + 1] = {5}, d = {1}, e[2] = 3, f[r], g[100000], h = 1 / 0, i = x;
              |          ^
            error 2:28-2:29: too many initialisers: `b` has 2 cells
              | shared a[0], b[2] = {1, 2, 3}, c[1 + 1] = {5}, d = {1}, e[2] = 3, f[r], g[100000], h = 1 / 0, i = x;
              |                            ^
            error 2:52-2:55: `d` is a scalar; a list initialiser needs an array: `d[N] = {...}`
              | shared a[0], b[2] = {1, 2, 3}, c[1 + 1] = {5}, d = {1}, e[2] = 3, f[r], g[100000], h = 1 / 0, i = x;
              |                                                    ^^^
            error 2:64-2:65: an array is initialised with a list: `e[N] = {...}`
              | shared a[0], b[2] = {1, 2, 3}, c[1 + 1] = {5}, d = {1}, e[2] = 3, f[r], g[100000], h = 1 / 0, i = x;
              |                                                                ^
            error 2:69-2:70: an array size must be a constant (literals and operators, no names)
              | shared a[0], b[2] = {1, 2, 3}, c[1 + 1] = {5}, d = {1}, e[2] = 3, f[r], g[100000], h = 1 / 0, i = x;
              |                                                                     ^
            error 2:75-2:81: array size 100000 is too large (at most 65536)
              | shared a[0], b[2] = {1, 2, 3}, c[1 + 1] = {5}, d = {1}, e[2] = 3, f[r], g[100000], h = 1 / 0, i = x;
              |                                                                           ^^^^^^
            error 2:88-2:93: an initial value divides by zero
              | shared a[0], b[2] = {1, 2, 3}, c[1 + 1] = {5}, d = {1}, e[2] = 3, f[r], g[100000], h = 1 / 0, i = x;
              |                                                                                        ^^^^^
            error 2:99-2:100: an initial value must be a constant (literals and operators, no names)
              | shared a[0], b[2] = {1, 2, 3}, c[1 + 1] = {5}, d = {1}, e[2] = 3, f[r], g[100000], h = 1 / 0, i = x;
              |                                                                                                   ^
        "#]],
    );
}

#[test]
fn declarations_after_threads_and_no_threads() {
    check(
        "litmus D\nthread P0 { }\nshared x;\n",
        expect![[r#"
        error 3:1-3:10: declarations must come before the threads
          | shared x;
          | ^^^^^^^^^
          = 2:1: first thread is here
    "#]],
    );
    check(
        "litmus D\nshared x;\nexists (x == 0)\n",
        expect![[r#"
        error 1:1-1:9: a test needs at least one thread: `thread P0 { ... }`
          | litmus D
          | ^^^^^^^^
    "#]],
    );
}

#[test]
fn misplaced_atomics_and_registers() {
    check(
        "litmus M\nshared x;\nthread P0 {\n  r0 = xchg(x, 1) + 1;\n  x = xchg(x, 2);\n  r1 = cas(x, 1);\n  r2 = xchg(r3, 1);\n  r4 = P1:r0;\n  if (fetch_add(x, 1)) { }\n}\nthread P1 { }\n",
        expect![[r#"
            error 4:8-4:18: `xchg` must be a whole statement or the whole right-hand side of a register assignment (`r = xchg(...);`)
              |   r0 = xchg(x, 1) + 1;
              |        ^^^^^^^^^^
            error 5:7-5:17: the result of an atomic goes to a register: `r = ...; x = r;`
              |   x = xchg(x, 2);
              |       ^^^^^^^^^^
            error 6:8-6:17: `cas` takes 3 arguments: `cas(x, expected, new)`
              |   r1 = cas(x, 1);
              |        ^^^^^^^^^
            error 7:13-7:15: `r3` is not a shared location; declare it with `shared r3;`
              |   r2 = xchg(r3, 1);
              |             ^^
            error 8:8-8:13: `P1:r0` names a register in the final state; it can only appear in the final condition
              |   r4 = P1:r0;
              |        ^^^^^
            error 9:7-9:22: `fetch_add` must be a whole statement or the whole right-hand side of a register assignment (`r = fetch_add(...);`)
              |   if (fetch_add(x, 1)) { }
              |       ^^^^^^^^^^^^^^^
        "#]],
    );
}

#[test]
fn x86_syntax_in_the_native_dialect() {
    check(
        "litmus X\nshared x;\nthread P0 { r0 = x; }\nexists (P0:r0 == 1 /\\ [x] == 1 \\/ ~(x <> 0))\n",
        expect![[r#"
            error 4:20-4:22: `/\` is x86 syntax; use `&&`
              | exists (P0:r0 == 1 /\ [x] == 1 \/ ~(x <> 0))
              |                    ^^
            error 4:23-4:26: `[x]` is x86 syntax; write `x`
              | exists (P0:r0 == 1 /\ [x] == 1 \/ ~(x <> 0))
              |                       ^^^
            error 4:32-4:34: `\/` is x86 syntax; use `||`
              | exists (P0:r0 == 1 /\ [x] == 1 \/ ~(x <> 0))
              |                                ^^
            error 4:35-4:36: `~` is x86 syntax; use `!`
              | exists (P0:r0 == 1 /\ [x] == 1 \/ ~(x <> 0))
              |                                   ^
            error 4:39-4:41: `<>` is x86 syntax; use `!=`
              | exists (P0:r0 == 1 /\ [x] == 1 \/ ~(x <> 0))
              |                                       ^^
        "#]],
    );
    check(
        "litmus X\nthread P0 { }\nfinal (P0:r0 == 0)\n",
        expect![[r#"
        error 3:1-3:6: `final` is x86 syntax; use `exists`
          | final (P0:r0 == 0)
          | ^^^^^
        warning 3:11-3:13: thread `P0` never uses register `r0`; its final value is always 0
          | final (P0:r0 == 0)
          |           ^^
    "#]],
    );
}

#[test]
fn deep_nesting_is_reported_not_overflowed() {
    let depth = 5000;
    let src = format!(
        "litmus D\nthread P0 {{ r0 = {}1{}; }}\n",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let parsed = litmus_engine::syntax::parse(&src);
    assert!(parsed.test.is_none());
    assert!(
        parsed
            .diagnostics
            .iter()
            .any(|d| d.message.contains("nested too deeply")),
        "{:?}",
        parsed.diagnostics
    );

    // A chain of a non-associative operator nests one level per term: reported.
    let chain = format!(
        "litmus D\nthread P0 {{ r0 = 1{}; }}\n",
        " - 1".repeat(depth)
    );
    let parsed = litmus_engine::syntax::parse(&chain);
    assert!(parsed
        .diagnostics
        .iter()
        .any(|d| d.message.contains("nested too deeply")));
    // One of an associative operator is balanced (`tests/long_expressions.rs`): accepted.
    let sum = format!(
        "litmus D\nthread P0 {{ r0 = 1{}; }}\n",
        " + 1".repeat(depth)
    );
    let parsed = litmus_engine::syntax::parse(&sum);
    assert!(parsed.test.is_some(), "{:?}", parsed.diagnostics);

    let ifs = format!(
        "litmus D\nthread P0 {{ {} }}\n",
        "if (1) { ".repeat(depth) + &"}".repeat(depth)
    );
    let parsed = litmus_engine::syntax::parse(&ifs);
    assert!(parsed
        .diagnostics
        .iter()
        .any(|d| d.message.contains("nested too deeply")));
}

#[test]
fn comments_are_ignored() {
    check(
        "// c1\nlitmus C /* c2 */ \"d\" // c3\nshared /* c4 */ x;\nthread P0 { x = /* c5 */ 1; // c6\n}\n/* c7 */ exists (x == 1) // c8\n",
        expect![[r#"
            test C (Native) "d"
            shared x = 0
            thread P0
              x <- 1
            exists (*x == 1)
        "#]],
    );
}

#[test]
fn description_escapes() {
    check(
        "litmus D \"say \\\"hi\\\" via C:\\\\tmp and \\n\"\nthread P0 { }\n",
        expect![[r#"
            test D (Native) "say \"hi\" via C:\\tmp and \\n"
            thread P0
        "#]],
    );
}

#[test]
fn a_sum_of_more_than_a_hundred_terms_is_accepted_and_checked() {
    // 300 terms nest 300 levels deep (left-associated): accepted, lowered and evaluated, on a
    // thread with a language server worker's 2 MiB stack.
    let chain = format!(
        "litmus A\nshared x = 0;\nthread P0 {{ r0 = 1{}; }}\nexists (P0:r0 == 300)\n",
        " + 1".repeat(299)
    );
    let r = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let parsed = litmus_engine::syntax::parse(&chain);
            assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
            let test = parsed.test.unwrap();
            litmus_engine::check(
                &test,
                litmus_engine::Model::Sc,
                &litmus_engine::CheckOptions::default(),
                &litmus_engine::Control::new(),
            )
        })
        .unwrap()
        .join()
        .unwrap();
    assert!(r.condition.unwrap().holds);
}
