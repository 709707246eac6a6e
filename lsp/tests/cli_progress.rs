//! The progress line: on a terminal, a check that runs longer than a second keeps one status
//! line up to date on stderr and erases it when done. A pseudo-terminal comes from util-linux
//! `script`; without it the test says so and checks nothing.

mod cli_support;
use cli_support::*;
use std::process::Command;

#[test]
fn long_checks_show_a_progress_line_on_a_terminal_only() {
    let path = scratch("progress", "big.litmus", big_program(4, 8).as_bytes());
    let bin = env!("CARGO_BIN_EXE_litmus");
    let cmd =
        format!("{bin} check --color never --model pso --engine exhaustive --timeout 2.5 {path}");
    let tty = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output();
    let Ok(tty) = tty else {
        eprintln!("skipping: no `script` command to provide a terminal");
        return;
    };
    let out = String::from_utf8_lossy(&tty.stdout);
    assert_eq!(tty.status.code(), Some(3), "{out}");
    assert!(out.contains("\r\x1b[K"), "no progress line:\n{out:?}");
    assert!(out.contains("big.litmus PSO: "), "{out:?}");
    assert!(out.contains(" executions, "), "{out:?}");

    // Not a terminal: no progress line at all.
    let r = run(&[
        "check",
        "--model",
        "pso",
        "--engine",
        "exhaustive",
        "--timeout",
        "1.5",
        &path,
    ]);
    assert_eq!(r.status, 3);
    assert!(!r.stderr.contains("executions,"), "{}", r.stderr);
    assert!(!r.stderr.contains('\r'), "{}", r.stderr);
}
