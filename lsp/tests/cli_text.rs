//! Text output: herd7's block per model, violations and witnesses as schedules, a stats line.
//! Snapshots use `expect-test` (`UPDATE_EXPECT=1 cargo test` rewrites them after a deliberate
//! change); only the measured times are masked.

mod cli_support;
use cli_support::*;
use expect_test::{expect, Expect};

/// Runs `litmus check --color never ARGS` from the workspace root and masks timings.
fn check_text(args: &[&str], status: i32, expected: Expect) {
    let mut all = vec!["check", "--color", "never"];
    all.extend_from_slice(args);
    let r = run(&all);
    assert_eq!(r.status, status, "stderr:\n{}", r.stderr);
    expected.assert_eq(&mask_times(&r.stdout));
}

/// `solver 0.3 ms, time 1.2 ms` → `solver _ ms, time _ ms`.
fn mask_times(s: &str) -> String {
    s.lines()
        .map(|l| {
            if !l.starts_with("Stats: ") {
                return l.to_owned();
            }
            let mut out = String::new();
            for (i, part) in l.split(", ").enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match part.split_once(' ') {
                    Some((w @ ("solver" | "time"), _)) => out.push_str(&format!("{w} _ ms")),
                    _ => out.push_str(part),
                }
            }
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[test]
fn sb_under_every_model() {
    check_text(
        &["--engine", "exhaustive", "examples/sb.litmus"],
        0,
        expect![[r#"
            --- SC ---
            Test SB Allowed
            States 3
            P0:r0=0; P1:r1=1;
            P0:r0=1; P1:r1=0;
            P0:r0=1; P1:r1=1;
            No
            Witnesses
            Positive: 0 Negative: 3
            Condition exists (P0:r0 == 0 && P1:r1 == 0)
            Observation SB Never 0 3
            Stats: 3 executions, 0 blocked, 3 states, 0 queries, 0 constraints, solver _ ms, time _ ms, complete

            --- TSO ---
            Test SB Allowed
            States 4
            P0:r0=0; P1:r1=0;
            P0:r0=0; P1:r1=1;
            P0:r0=1; P1:r1=0;
            P0:r0=1; P1:r1=1;
            Ok
            Witnesses
            Positive: 1 Negative: 3
            Condition exists (P0:r0 == 0 && P1:r1 == 0)
            Observation SB Sometimes 1 3

            Witness (6 steps) reaching a state where the condition holds:
              1. examples/sb.litmus:26:3  P0  store  x = 1  (buffered)          // x = 1;
              2. examples/sb.litmus:27:8  P0  load   y -> 0                     // r0 = y;
              3. examples/sb.litmus:31:3  P1  store  y = 1  (buffered)          // y = 1;
              4. examples/sb.litmus:32:8  P1  load   x -> 0                     // r1 = x;
              5. examples/sb.litmus:26:3  P0  flush  x = 1  (buffer -> memory)  // x = 1;
              6. examples/sb.litmus:31:3  P1  flush  y = 1  (buffer -> memory)  // y = 1;
            Final state: P0:r0=0; P1:r1=0;
            Stats: 4 executions, 0 blocked, 4 states, 0 queries, 0 constraints, solver _ ms, time _ ms, complete

            --- PSO ---
            Test SB Allowed
            States 4
            P0:r0=0; P1:r1=0;
            P0:r0=0; P1:r1=1;
            P0:r0=1; P1:r1=0;
            P0:r0=1; P1:r1=1;
            Ok
            Witnesses
            Positive: 1 Negative: 3
            Condition exists (P0:r0 == 0 && P1:r1 == 0)
            Observation SB Sometimes 1 3

            Witness (6 steps) reaching a state where the condition holds:
              1. examples/sb.litmus:26:3  P0  store  x = 1  (buffered)          // x = 1;
              2. examples/sb.litmus:27:8  P0  load   y -> 0                     // r0 = y;
              3. examples/sb.litmus:31:3  P1  store  y = 1  (buffered)          // y = 1;
              4. examples/sb.litmus:32:8  P1  load   x -> 0                     // r1 = x;
              5. examples/sb.litmus:26:3  P0  flush  x = 1  (buffer -> memory)  // x = 1;
              6. examples/sb.litmus:31:3  P1  flush  y = 1  (buffer -> memory)  // y = 1;
            Final state: P0:r0=0; P1:r1=0;
            Stats: 4 executions, 0 blocked, 4 states, 0 queries, 0 constraints, solver _ ms, time _ ms, complete

        "#]],
    );
}

#[test]
fn dekker_violation_schedule_under_tso() {
    check_text(
        &[
            "--engine",
            "exhaustive",
            "--model",
            "tso",
            "examples/dekker.litmus",
        ],
        1,
        expect![[r#"
            --- TSO ---
            Test Dekker
            States 2
            P0:r0=0; P1:r1=0; flag0=0; flag1=0; turn=0; inside=0;
            P0:r0=0; P1:r1=0; flag0=0; flag1=0; turn=1; inside=0;

            Violation 1/2 (assert): assertion failed at examples/dekker.litmus:43:3
            Schedule (9 steps):
              1. examples/dekker.litmus:31:3   P0  store   flag0 = 1  (buffered)          // flag0 = 1;
              2. examples/dekker.litmus:32:10  P0  load    flag1 -> 0                     // while (flag1 == 1) {
              3. examples/dekker.litmus:50:3   P1  store   flag1 = 1  (buffered)          // flag1 = 1;
              4. examples/dekker.litmus:51:10  P1  load    flag0 -> 0                     // while (flag0 == 1) {
              5. examples/dekker.litmus:31:3   P0  flush   flag0 = 1  (buffer -> memory)  // flag0 = 1;
              6. examples/dekker.litmus:50:3   P1  flush   flag1 = 1  (buffer -> memory)  // flag1 = 1;
              7. examples/dekker.litmus:61:3   P1  rmw     inside (old value 0)           // r1 = fetch_add(inside, 1);
              8. examples/dekker.litmus:42:3   P0  rmw     inside (old value 1)           // r0 = fetch_add(inside, 1);
              9. examples/dekker.litmus:43:3   P0  assert                                 // assert(r0 == 0);

            Violation 2/2 (assert): assertion failed at examples/dekker.litmus:62:3
            Schedule (9 steps):
              1. examples/dekker.litmus:31:3   P0  store   flag0 = 1  (buffered)          // flag0 = 1;
              2. examples/dekker.litmus:32:10  P0  load    flag1 -> 0                     // while (flag1 == 1) {
              3. examples/dekker.litmus:50:3   P1  store   flag1 = 1  (buffered)          // flag1 = 1;
              4. examples/dekker.litmus:51:10  P1  load    flag0 -> 0                     // while (flag0 == 1) {
              5. examples/dekker.litmus:31:3   P0  flush   flag0 = 1  (buffer -> memory)  // flag0 = 1;
              6. examples/dekker.litmus:42:3   P0  rmw     inside (old value 0)           // r0 = fetch_add(inside, 1);
              7. examples/dekker.litmus:50:3   P1  flush   flag1 = 1  (buffer -> memory)  // flag1 = 1;
              8. examples/dekker.litmus:61:3   P1  rmw     inside (old value 1)           // r1 = fetch_add(inside, 1);
              9. examples/dekker.litmus:62:3   P1  assert                                 // assert(r1 == 0);
            Stats: 16 executions, 0 blocked, 2 states, 0 queries, 0 constraints, solver _ ms, time _ ms, complete

        "#]],
    );
}

#[test]
fn x86_condition_is_printed_in_herd_syntax() {
    let r = run(&[
        "check",
        "--color",
        "never",
        "--model",
        "tso",
        "examples/sb-x86.litmus",
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("Condition exists (0:EAX=0 /\\ 1:EAX=0)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("\n0:EAX=0; 1:EAX=0;\n"), "{}", r.stdout);
    assert!(!r.stdout.contains("P0:EAX"), "{}", r.stdout);
    assert!(
        r.stdout.contains("Observation SB Sometimes 1 3"),
        "{}",
        r.stdout
    );
}

#[test]
fn herd_dialects_print_herds_block() {
    // X86: registers `1:EAX`, memory `[x]` (herd7 7.56.3 and later, every dialect), the
    // `locations` added to each state, and for
    // `~exists` herd's witness counts (positive: states where the proposition fails).
    check_text(
        &[
            "--model",
            "tso",
            "--engine",
            "exhaustive",
            "examples/x86-lock-counter.litmus",
        ],
        0,
        expect![[r#"
            --- TSO ---
            Test LockCounter Forbidden
            States 2
            1:EAX=0; [x]=2;
            1:EAX=1; [x]=2;
            Ok
            Witnesses
            Positive: 2 Negative: 0
            Condition ~exists ([x]=1)
            Observation LockCounter Never 0 2
            Stats: 2 executions, 0 blocked, 2 states, 0 queries, 0 constraints, solver _ ms, time _ ms, complete

        "#]],
    );
    // X86_64: registers `0:rax`, memory `[x]`.
    check_text(
        &[
            "--model",
            "sc",
            "--engine",
            "exhaustive",
            "examples/sb-x86_64.litmus",
        ],
        0,
        expect![[r#"
            --- SC ---
            Test SB Allowed
            States 3
            0:rax=0; 1:rax=1; [x]=1; [y]=1;
            0:rax=1; 1:rax=0; [x]=1; [y]=1;
            0:rax=1; 1:rax=1; [x]=1; [y]=1;
            No
            Witnesses
            Positive: 0 Negative: 3
            Condition exists (0:rax=0 /\ 1:rax=0)
            Observation SB Never 0 3
            Stats: 3 executions, 0 blocked, 3 states, 0 queries, 0 constraints, solver _ ms, time _ ms, complete

        "#]],
    );
}

#[test]
fn quiet_prints_one_line_per_model() {
    let r = run(&[
        "check",
        "--color",
        "never",
        "--quiet",
        "examples/sb.litmus",
        "examples/racy-counter.litmus",
    ]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 6, "{}", r.stdout);
    assert_eq!(
        lines[0],
        "examples/sb.litmus SB SC: exists does not hold (0 of 3 states), no violation"
    );
    assert_eq!(
        lines[1],
        "examples/sb.litmus SB TSO: exists holds (1 of 4 states), no violation"
    );
    assert!(
        lines[3].starts_with("examples/racy-counter.litmus RacyCounter SC: forall does not hold"),
        "{}",
        lines[3]
    );
    assert!(lines[3].ends_with("1 violation"), "{}", lines[3]);
}

#[test]
fn quiet_robust_puts_the_verdict_on_the_models_line() {
    let r = run(&[
        "check",
        "--color",
        "never",
        "-q",
        "--robust",
        "examples/sb.litmus",
        "examples/sb-fenced.litmus",
    ]);
    // SB is not robust under TSO: exit 1, as without -q.
    assert_eq!(r.status, 1, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 6, "{}", r.stdout);
    assert_eq!(
        lines[0],
        "examples/sb.litmus SB SC: exists does not hold (0 of 3 states), no violation"
    );
    assert_eq!(
        lines[1],
        "examples/sb.litmus SB TSO: exists holds (1 of 4 states), no violation, not robust"
    );
    assert!(lines[2].ends_with(", not robust"), "{}", lines[2]);
    for l in &lines[4..] {
        assert!(l.ends_with("no violation, robust"), "{l}");
    }
}

#[test]
fn colour_is_off_in_pipes_and_on_when_asked() {
    let plain = run(&["check", "--model", "sc", "examples/sb.litmus"]);
    assert!(!plain.stdout.contains('\x1b'), "{}", plain.stdout);
    let coloured = run(&[
        "check",
        "--color",
        "always",
        "--model",
        "sc",
        "examples/sb.litmus",
    ]);
    assert!(
        coloured.stdout.contains("\x1b[1;31mNo\x1b[0m"),
        "{}",
        coloured.stdout
    );
}

/// The README's example: the default engine (MCR) under TSO.
#[test]
fn sb_under_tso_with_the_default_engine() {
    check_text(
        &["--model", "tso", "examples/sb.litmus"],
        0,
        expect![[r#"
            --- TSO ---
            Test SB Allowed
            States 4
            P0:r0=0; P1:r1=0;
            P0:r0=0; P1:r1=1;
            P0:r0=1; P1:r1=0;
            P0:r0=1; P1:r1=1;
            Ok
            Witnesses
            Positive: 1 Negative: 3
            Condition exists (P0:r0 == 0 && P1:r1 == 0)
            Observation SB Sometimes 1 3

            Witness (6 steps) reaching a state where the condition holds:
              1. examples/sb.litmus:26:3  P0  store  x = 1  (buffered)          // x = 1;
              2. examples/sb.litmus:27:8  P0  load   y -> 0                     // r0 = y;
              3. examples/sb.litmus:31:3  P1  store  y = 1  (buffered)          // y = 1;
              4. examples/sb.litmus:32:8  P1  load   x -> 0                     // r1 = x;
              5. examples/sb.litmus:26:3  P0  flush  x = 1  (buffer -> memory)  // x = 1;
              6. examples/sb.litmus:31:3  P1  flush  y = 1  (buffer -> memory)  // y = 1;
            Final state: P0:r0=0; P1:r1=0;
            Stats: 4 executions, 0 blocked, 4 states, 0 queries, 0 constraints, solver _ ms, time _ ms, complete

        "#]],
    );
}
