//! `--first` keeps the deadline with every engine (issue 39): with `--first` MCR explores under
//! a child control (a stop flag of its own for the first violation), which must still stop at
//! the run's deadline, memory budget and cancel. Each run below cannot finish in a minute at
//! all; the test waits for the process (capped at two minutes, so a hang fails instead of
//! blocking CI) and asserts that it ended incomplete with the timeout warning.

mod cli_support;
use cli_support::*;
use std::process::Stdio;
use std::sync::mpsc;
use std::time::Duration;

/// How long a run may take before the test calls it hung: far above `--timeout 1` plus
/// printing, even on a loaded machine.
const CAP: Duration = Duration::from_secs(120);

/// Runs `litmus ARGS...`, waiting at most [`CAP`] for it to end (then kills it and fails).
fn run_capped(args: &[&str]) -> Run {
    let child = litmus()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("cannot run the litmus binary");
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(CAP) {
        Ok(out) => out.expect("waiting for litmus").into(),
        Err(_) => {
            let _ = std::process::Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            panic!("litmus {args:?} was still running after {CAP:?}: the deadline was lost");
        }
    }
}

/// The reproducer: three threads incrementing one counter three times each, under PSO (MCR
/// with `--first` ran past 40 s with `--timeout 2`).
fn counter(threads: usize, times: usize) -> String {
    let mut s = String::from("litmus Counter\nshared c = 0;\n");
    for t in 0..threads {
        s.push_str(&format!("thread P{t} {{\n"));
        for i in 0..times {
            s.push_str(&format!("  r{i} = c;\n  c = r{i} + 1;\n"));
        }
        s.push_str("}\n");
    }
    s.push_str("exists (c == 1)\n");
    s
}

fn assert_timed_out(r: &Run, what: &str) {
    assert_eq!(r.status, 3, "{what}: {}{}", r.stdout, r.stderr);
    let pso = &r.json()["files"][0]["results"]["pso"];
    assert_eq!(pso["complete"], false, "{what}");
    assert!(pso["stopped"].is_null(), "{what}: no violation stopped it");
    assert!(
        pso["warnings"].to_string().contains("timeout"),
        "{what}: {}",
        pso["warnings"]
    );
}

#[test]
fn first_keeps_the_deadline_with_every_engine() {
    let counter = scratch("first-deadline", "counter.litmus", counter(3, 3).as_bytes());
    let big = scratch("first-deadline", "big.litmus", big_program(6, 8).as_bytes());
    let mut ran = 0;
    for engine in ["mcr", "dpor", "exhaustive", "auto"] {
        for (name, path) in [("counter", &counter), ("big", &big)] {
            // The counter is small enough for the reference explorer, which merges its states.
            if engine == "exhaustive" && name == "counter" {
                continue;
            }
            let args = [
                "check",
                "--json",
                "--model",
                "pso",
                "--engine",
                engine,
                "--timeout",
                "1",
                "--first",
                path,
            ];
            assert_timed_out(&run_capped(&args), &format!("{engine} on {name}"));
            ran += 1;
        }
    }
    println!("{ran} runs with --first stopped at their deadline");
}
