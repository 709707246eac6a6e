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
        expect![[r#""#]],
    );
}

#[test]
fn dekker_violation_schedule_under_tso() {
    check_text(
        &["--engine", "exhaustive", "--model", "tso", "examples/dekker.litmus"],
        1,
        expect![[r#""#]],
    );
}

#[test]
fn x86_condition_is_printed_in_herd_syntax() {
    let r = run(&["check", "--color", "never", "--model", "tso", "examples/sb-x86.litmus"]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(r.stdout.contains("Condition exists (0:EAX=0 /\\ 1:EAX=0)"), "{}", r.stdout);
    assert!(r.stdout.contains("P0:EAX=0; P1:EAX=0;"), "{}", r.stdout);
    assert!(r.stdout.contains("Observation SB Sometimes 1 3"), "{}", r.stdout);
}

#[test]
fn quiet_prints_one_line_per_model() {
    let r = run(&["check", "--color", "never", "--quiet", "examples/sb.litmus", "examples/racy-counter.litmus"]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(lines.len(), 6, "{}", r.stdout);
    assert_eq!(lines[0], "examples/sb.litmus SB SC: exists does not hold (0 of 3 states), no violation");
    assert_eq!(lines[1], "examples/sb.litmus SB TSO: exists holds (1 of 4 states), no violation");
    assert!(lines[3].starts_with("examples/racy-counter.litmus RacyCounter SC: forall does not hold"), "{}", lines[3]);
    assert!(lines[3].ends_with("1 violation"), "{}", lines[3]);
}

#[test]
fn colour_is_off_in_pipes_and_on_when_asked() {
    let plain = run(&["check", "--model", "sc", "examples/sb.litmus"]);
    assert!(!plain.stdout.contains('\x1b'), "{}", plain.stdout);
    let coloured = run(&["check", "--color", "always", "--model", "sc", "examples/sb.litmus"]);
    assert!(coloured.stdout.contains("\x1b[1;31mNo\x1b[0m"), "{}", coloured.stdout);
}
