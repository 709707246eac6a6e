//! Time to stop and peak memory on the reproducers of issue 26, through the real `litmus`
//! binary. Prints a markdown table; the committed copy is `docs/bench-limits.md`. Run:
//! `cargo bench -p litmus --bench limits` (builds the release binary first).
//!
//! Per reproducer and model: with `--timeout T`, the wall time past T until the process exits
//! (its report printed); with SIGINT sent after 1 s, the time from the signal to the exit; and
//! with `--max-memory B`, the peak resident set size against B (`VmHWM` polled every 5 ms
//! from `/proc`, so Linux only). The budget counts the heap the binary allocates; resident
//! memory also has code, stacks and freed pages the allocator keeps.
//!
//! Then the server (`litmus lsp`): the time from the client's `didChange` (a new program) or
//! `window/workDoneProgress/cancel` to the end of the running check (its `$/progress` end,
//! sent once every worker thread of the job has returned), one exploration 1 s in.

#[path = "../tests/cli_support/reproducers.rs"]
mod reproducers;

use reproducers::{heavy, straight_line};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const TIMEOUT: f64 = 2.0;
const BUDGET_MIB: u64 = 256;

fn binary() -> std::path::PathBuf {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let st = Command::new(env!("CARGO"))
        .args(["build", "--release", "-p", "litmus", "--bin", "litmus"])
        .current_dir(&root)
        .status()
        .expect("cargo build");
    assert!(st.success());
    root.join("target/release/litmus")
}

/// Runs the binary; returns (wall time, peak RSS in MiB, whether the signal was sent).
/// `sigint_after`: send SIGINT then, and measure from the signal.
fn measure(
    bin: &std::path::Path,
    args: &[&str],
    sigint_after: Option<Duration>,
) -> (Duration, f64, bool) {
    let mut child = Command::new(bin)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let start = Instant::now();
    let mut signalled: Option<Instant> = None;
    let mut peak_kb = 0u64;
    loop {
        if let Ok(s) = std::fs::read_to_string(&status) {
            if let Some(kb) = s
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            {
                peak_kb = peak_kb.max(kb);
            }
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if let (Some(after), None) = (sigint_after, signalled) {
            if start.elapsed() >= after {
                let _ = Command::new("kill")
                    .args(["-INT", &child.id().to_string()])
                    .status();
                signalled = Some(Instant::now());
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    (
        signalled.unwrap_or(start).elapsed(),
        peak_kb as f64 / 1024.0,
        signalled.is_some(),
    )
}

fn main() {
    // `-- server-parse`: only the server's parse table, optionally against another binary
    // (`LITMUS_BENCH_BIN`, e.g. an older build, for a before/after).
    if std::env::args().any(|a| a == "server-parse") {
        let bin = std::env::var_os("LITMUS_BENCH_BIN")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(binary);
        server_parse_table(&bin);
        return;
    }
    let bin = binary();
    let dir = std::env::temp_dir().join("litmus-bench-limits");
    std::fs::create_dir_all(&dir).unwrap();
    let threads: String = (0..10_000)
        .map(|t| format!("thread P{t} {{ x = {t}; }}\n"))
        .collect();
    let locs: Vec<String> = (0..800).map(|i| format!("v{i} = 0")).collect();
    let stores: String = (0..800).map(|i| format!("v{i} = 1; ")).collect();
    let tso_loop = || "litmus L\nshared x = 0;\nthread P0 { while (1) { x = 1; } }\n".to_string();
    let cases: Vec<(&str, String, &[&str])> = vec![
        (
            "20,000 statements",
            straight_line(20_000, 50),
            &["--model", "sc"],
        ),
        (
            "10,000 registers",
            straight_line(10_000, 10_000),
            &["--model", "sc"],
        ),
        // Bound 10,000 now ends in a tenth of a second: a million meets the deadline.
        (
            "TSO `while (1) { x = 1; }`, bound 1,000,000, auto (answers with DPOR)",
            tso_loop(),
            &["--model", "tso", "--loop-bound", "1000000"],
        ),
        (
            "the same, DPOR",
            tso_loop(),
            &[
                "--model",
                "tso",
                "--loop-bound",
                "1000000",
                "--engine",
                "dpor",
            ],
        ),
        (
            "the same, MCR",
            tso_loop(),
            &[
                "--model",
                "tso",
                "--loop-bound",
                "1000000",
                "--engine",
                "mcr",
            ],
        ),
        (
            "the same, exhaustive",
            tso_loop(),
            &[
                "--model",
                "tso",
                "--loop-bound",
                "1000000",
                "--engine",
                "exhaustive",
            ],
        ),
        (
            "6 threads x 6 operations, auto",
            heavy(),
            &["--model", "pso"],
        ),
        (
            "6 threads x 6 operations, MCR",
            heavy(),
            &["--model", "pso", "--engine", "mcr"],
        ),
        (
            "6 threads x 6 operations, exhaustive",
            heavy(),
            &["--model", "pso", "--engine", "exhaustive"],
        ),
        (
            "10,000 threads",
            format!("litmus T\nshared x = 0;\n{threads}"),
            &["--model", "sc"],
        ),
        (
            "PSO, 800 locations",
            format!(
                "litmus P\nshared {};\nthread P0 {{ {stores}}}\n",
                locs.join(", ")
            ),
            &["--model", "pso"],
        ),
    ];
    // Each time is the median of RUNS runs (the machine is shared; one run can be off by
    // tens of ms); the peak RSS of the timed run shows what the process has to give back to
    // the kernel on exit, which is part of the time past the deadline.
    const RUNS: usize = 3;
    let median = |mut v: Vec<(f64, f64, bool)>| {
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
        v[v.len() / 2]
    };
    println!("| reproducer | past `--timeout {TIMEOUT}` (s) | peak RSS of that run (MiB) | after SIGINT (s) | peak RSS, `--max-memory {BUDGET_MIB}` (MiB) |");
    println!("|---|---|---|---|---|");
    for (name, text, extra) in cases {
        let f = dir.join("case.litmus");
        std::fs::write(&f, text).unwrap();
        let f = f.display().to_string();
        let t = TIMEOUT.to_string();
        let b = BUDGET_MIB.to_string();
        let mut args = vec!["check", "-q"];
        args.extend_from_slice(extra);
        let mut timed = args.clone();
        timed.extend(["--timeout", &t, &f]);
        let run = |a: &[&str], int: Option<Duration>| {
            let (d, peak, sent) = measure(&bin, a, int);
            (d.as_secs_f64(), peak, sent)
        };
        let (took, timed_peak, _) = median((0..RUNS).map(|_| run(&timed, None)).collect());
        let past = took - TIMEOUT;
        let mut plain = args.clone();
        plain.push(&f);
        let (after_int, _, sent) = median(
            (0..RUNS)
                .map(|_| run(&plain, Some(Duration::from_secs(1))))
                .collect(),
        );
        let mut budget = args.clone();
        budget.extend(["--max-memory", &b, "--timeout", "10", &f]);
        let (_, peak, _) = run(&budget, None);
        let int = if sent {
            format!("{after_int:.3}")
        } else {
            format!("ended first ({after_int:.2} s)")
        };
        println!(
            "| {name} | {} | {timed_peak:.0} | {int} | {peak:.0} |",
            if past < 0.0 {
                format!("ended first ({took:.2} s)")
            } else {
                format!("{past:.3}")
            },
        );
    }
    println!();
    println!("| server: cancel of a running check | engine | job ended after (s) |");
    println!("|---|---|---|");
    let heavy_pso = Doc {
        name: "6 threads x 6 operations, PSO",
        text: heavy(),
        model: "pso",
        loop_bound: None,
        edit: ("x0 = 1", "x0 = 7"),
    };
    let tso_loop = Doc {
        name: "TSO loop, bound 1,000,000",
        text: tso_loop(),
        model: "tso",
        loop_bound: Some(1_000_000),
        edit: ("x = 1", "x = 2"),
    };
    for (doc, engines) in [
        (&heavy_pso, &["exhaustive", "mcr", "auto"][..]),
        (&tso_loop, &["auto"][..]),
    ] {
        for &engine in engines {
            for how in ["didChange", "workDoneProgress/cancel"] {
                let mut t: Vec<f64> = (0..3)
                    .map(|_| server_cancel(&bin, doc, engine, how).as_secs_f64())
                    .collect();
                t.sort_by(f64::total_cmp);
                println!("| {}: `{how}` | {engine} | {:.3} |", doc.name, t[1]);
            }
        }
    }
    println!();
    server_parse_table(&bin);
}

/// The server's parse: a 750,000-statement document opened, and 0.2 s later (its parse
/// running) a `didChange` to a small program; the time from that change to the small
/// program's diagnostics, and to an answer about another document sent with it.
fn server_parse_table(bin: &std::path::Path) {
    println!("| server: while a 750,000-statement document parses | (s) |");
    println!("|---|---|");
    let mut change = Vec::new();
    let mut other = Vec::new();
    for _ in 0..3 {
        let (c, o) = server_parse(bin);
        change.push(c.as_secs_f64());
        other.push(o.as_secs_f64());
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.total_cmp(b));
        v[v.len() / 2]
    };
    println!(
        "| `didChange` to a small program -> its diagnostics (median of 3) | {:.3} |",
        med(&mut change)
    );
    println!(
        "| `documentSymbol` of another open document -> answer (median of 3) | {:.3} |",
        med(&mut other)
    );
}

fn server_parse(bin: &std::path::Path) -> (Duration, Duration) {
    let (mut child, mut stdin, rx) = start_server(bin);
    let mut send = |v: Value| {
        stdin.write_all(&frame(&v)).unwrap();
        stdin.flush().unwrap();
    };
    let small = "litmus SB\nshared x = 0, y = 0;\nthread P0 { x = 1; r0 = y; }\nthread P1 { y = 1; r1 = x; }\nexists (P0:r0 == 0 && P1:r1 == 0)\n";
    let opts = json!({"litmus": {"models": ["sc"]}});
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}, "initializationOptions": opts}}),
    );
    let (huge, other) = ("file:///bench/huge.litmus", "file:///bench/other.litmus");
    let wait = |pred: &dyn Fn(&Value) -> bool| loop {
        let v = rx
            .recv_timeout(Duration::from_secs(120))
            .expect("the server answers");
        if pred(&v) {
            return;
        }
    };
    wait(&|v| v["id"] == 1);
    send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
    send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": other, "languageId": "litmus", "version": 1, "text": small}}}),
    );
    wait(&|v| v["method"] == "textDocument/publishDiagnostics" && v["params"]["uri"] == other);
    send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": huge, "languageId": "litmus", "version": 1, "text": straight_line(750_000, 50)}}}),
    );
    std::thread::sleep(Duration::from_millis(200));
    let t0 = Instant::now();
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": other}}}),
    );
    send(
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": huge, "version": 2}, "contentChanges": [{"text": small}]}}),
    );
    let (mut answered, mut published) = (None, None);
    while answered.is_none() || published.is_none() {
        let v = rx
            .recv_timeout(Duration::from_secs(120))
            .expect("the server answers");
        if v["id"] == 2 && v.get("result").is_some() {
            answered = Some(t0.elapsed());
        }
        if v["method"] == "textDocument/publishDiagnostics"
            && v["params"]["uri"] == huge
            && v["params"]["version"] == 2
        {
            published = Some(t0.elapsed());
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    (published.unwrap(), answered.unwrap())
}

/// Starts `litmus lsp`: the child, its stdin, and the messages it sends, one JSON value each
/// (a thread reads the `Content-Length` frames).
fn start_server(
    bin: &std::path::Path,
) -> (
    std::process::Child,
    std::process::ChildStdin,
    mpsc::Receiver<Value>,
) {
    let mut child = Command::new(bin)
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        let mut r = BufReader::new(stdout);
        loop {
            let mut len = 0usize;
            loop {
                let mut line = String::new();
                if r.read_line(&mut line).unwrap_or(0) == 0 {
                    return;
                }
                let line = line.trim();
                if line.is_empty() {
                    break;
                }
                if let Some(v) = line.strip_prefix("Content-Length:") {
                    len = v.trim().parse().unwrap();
                }
            }
            let mut body = vec![0; len];
            if r.read_exact(&mut body).is_err()
                || tx.send(serde_json::from_slice(&body).unwrap()).is_err()
            {
                return;
            }
        }
    });
    (child, stdin, rx)
}

fn frame(v: &Value) -> Vec<u8> {
    let body = v.to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// A document for [`server_cancel`]: its text, the one model checked and the loop bound.
struct Doc {
    name: &'static str,
    text: String,
    model: &'static str,
    loop_bound: Option<u64>,
    /// The `didChange`: the first `.0` replaced by `.1`. It must change the program: an edit
    /// that lowers to the same program (a comment) keeps the running check.
    edit: (&'static str, &'static str),
}

/// Starts `litmus lsp`, opens `doc`, and 1 s into its check cancels it `how` (a `didChange`
/// to another program, or `workDoneProgress/cancel`); returns the time until the
/// job's `$/progress` end.
fn server_cancel(bin: &std::path::Path, doc: &Doc, engine: &str, how: &str) -> Duration {
    let (mut child, mut stdin, rx) = start_server(bin);
    let mut send = |v: Value| {
        stdin.write_all(&frame(&v)).unwrap();
        stdin.flush().unwrap();
    };
    let caps = json!({"window": {"workDoneProgress": true}});
    let mut opts = json!({"litmus": {"engine": engine, "models": [doc.model]}});
    if let Some(b) = doc.loop_bound {
        opts["litmus"]["loopBound"] = json!(b);
    }
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": caps, "initializationOptions": opts}}),
    );
    let uri = "file:///bench/heavy.litmus";
    let mut token = Value::Null;
    let mut opened = None;
    let mut cancelled_at = None;
    loop {
        let v = rx
            .recv_timeout(Duration::from_secs(60))
            .expect("the server answers");
        if v["id"] == 1 && v.get("result").is_some() {
            send(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}));
            send(
                json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
                "uri": uri, "languageId": "litmus", "version": 1, "text": doc.text}}}),
            );
            opened = Some(Instant::now());
            continue;
        }
        if v["method"] == "window/workDoneProgress/create" {
            token = v["params"]["token"].clone();
            send(json!({"jsonrpc": "2.0", "id": v["id"], "result": null}));
            continue;
        }
        if v.get("id").is_some() && v.get("method").is_some() {
            send(json!({"jsonrpc": "2.0", "id": v["id"], "result": null}));
            continue;
        }
        if v["method"] != "$/progress" {
            continue;
        }
        match v["params"]["value"]["kind"].as_str() {
            Some("report")
                if cancelled_at.is_none()
                    && opened.is_some_and(|t| t.elapsed() >= Duration::from_secs(1)) =>
            {
                if how == "didChange" {
                    send(
                        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                        "textDocument": {"uri": uri, "version": 2},
                        "contentChanges": [{"text": doc.text.replacen(doc.edit.0, doc.edit.1, 1)}]}}),
                    );
                } else {
                    send(
                        json!({"jsonrpc": "2.0", "method": "window/workDoneProgress/cancel", "params": {"token": token}}),
                    );
                }
                cancelled_at = Some(Instant::now());
            }
            Some("end") => {
                let took = cancelled_at.expect("the check ran for 1 s").elapsed();
                let _ = child.kill();
                let _ = child.wait();
                return took;
            }
            _ => {}
        }
    }
}
