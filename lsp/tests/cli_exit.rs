//! Exit statuses (`docs/reference.md#exit-status`): 0 all hold, 1 a violation, 3 incomplete without a violation
//! (timeout or Ctrl-C). Status 2 is covered by cli_options.rs and cli_diagnostics.rs.

mod cli_support;
use cli_support::*;
use std::time::{Duration, Instant};

#[test]
fn holds_everywhere_exits_0() {
    for ex in ["sb.litmus", "locked-counter.litmus"] {
        let r = run(&["check", &example(ex)]);
        assert_eq!(r.status, 0, "{ex}: {}{}", r.stdout, r.stderr);
    }
}

#[test]
fn a_violation_exits_1() {
    let r = run(&["check", &example("racy-counter.litmus")]);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
    // Dekker is correct under SC: checking SC alone finds nothing.
    let r = run(&[
        "check",
        "--model",
        "sc",
        "--engine",
        "exhaustive",
        &example("dekker.litmus"),
    ]);
    assert_eq!(r.status, 0, "{}{}", r.stdout, r.stderr);
    let r = run(&[
        "check",
        "--model",
        "tso",
        "--engine",
        "exhaustive",
        &example("dekker.litmus"),
    ]);
    assert_eq!(r.status, 1, "{}{}", r.stdout, r.stderr);
}

#[test]
fn a_timeout_on_a_big_program_exits_3() {
    let path = scratch("timeout", "big.litmus", big_program(4, 8).as_bytes());
    for engine in ["exhaustive", "mcr"] {
        let start = Instant::now();
        let r = run(&[
            "check",
            "--model",
            "pso",
            "--engine",
            engine,
            "--timeout",
            "0.2",
            "--json",
            &path,
        ]);
        assert_eq!(r.status, 3, "{engine}: {}", r.stderr);
        let pso = &r.json()["files"][0]["results"]["pso"];
        assert_eq!(pso["complete"], false, "{engine}");
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{engine}: the timeout was not honoured"
        );
    }
}

#[test]
fn ctrl_c_cancels_and_exits_3() {
    let path = scratch("cancel", "big.litmus", big_program(4, 8).as_bytes());
    let mut child = litmus()
        .args(["check", "--engine", "exhaustive", "--model", "pso", &path])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Long enough for the process to start and install its handler even on a loaded machine.
    std::thread::sleep(Duration::from_millis(1000));
    let kill = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("litmus did not stop within 30 s of SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let r: Run = child.wait_with_output().unwrap().into();
    assert_eq!(r.status, 3, "stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("interrupted"), "{}", r.stderr);
    assert!(r.stdout.contains("incomplete"), "{}", r.stdout);
}
