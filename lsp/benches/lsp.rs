//! Language server latencies over `examples/`, in-process (the real server and engine over
//! `tokio::io::duplex`, the same harness as the tests). Prints a markdown table; the committed
//! copy is `docs/bench-lsp.md`. Run: `cargo bench -p litmus --bench lsp`.
//!
//! - save → verification: `litmus.verify` (cache bypassed) until `litmus/status` `done`, i.e. the
//!   verification diagnostics have been published (all three models, default settings);
//! - cached save: a whitespace edit then save, answered from the content-keyed cache;
//! - change → syntax diagnostics: a full-text change until `publishDiagnostics` of that version
//!   (includes the 15 ms debounce);
//! - hover while exploring: hover round trips while a (hooked, never-ending) exploration of the
//!   same document runs on its worker thread.

#[path = "../tests/lsp_harness/mod.rs"]
mod lsp_harness;

use std::time::{Duration, Instant};

use lsp_harness::*;
use serde_json::json;

const RUNS: usize = 5;

fn stats(mut v: Vec<Duration>) -> String {
    v.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    format!("{:.1} / {:.1}", ms(v[v.len() / 2]), ms(v[v.len() - 1]))
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("examples/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "litmus"))
        .collect();
    files.sort();
    println!("| example | save → verification (ms, median / max) | cached save | change → syntax diagnostics | hover while exploring |");
    println!("|---|---|---|---|---|");
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let uri = format!("file:///bench/{name}");
        let mut h = Harness::default_with(hooked(), json!({})).await;
        h.open(&uri, 1, &text).await;
        h.status(&uri, "done").await;

        let mut verify = Vec::new();
        for _ in 0..RUNS {
            let t = Instant::now();
            h.request(
                "workspace/executeCommand",
                json!({"command": "litmus.verify", "arguments": [uri]}),
            )
            .await;
            h.status(&uri, "done").await;
            verify.push(t.elapsed());
        }

        let mut cached = Vec::new();
        let mut syntax = Vec::new();
        let mut version = 1;
        for i in 0..RUNS {
            version += 1;
            let edited = format!("{text}{}", " ".repeat(i + 1));
            let t = Instant::now();
            h.change_full(&uri, version, &edited).await;
            h.diagnostics(&uri, version as i64).await;
            syntax.push(t.elapsed());
            let t = Instant::now();
            h.save(&uri).await;
            h.status(&uri, "done").await;
            cached.push(t.elapsed());
        }

        // A never-ending exploration of the same program (the hooked engine's `Slow` tests).
        let slow: String = text
            .lines()
            .map(
                |l| match (l.strip_prefix("litmus "), l.strip_prefix("X86 ")) {
                    (Some(rest), _) => format!("litmus Slow{rest}\n"),
                    (_, Some(rest)) => format!("X86 Slow{rest}\n"),
                    _ => format!("{l}\n"),
                },
            )
            .collect();
        version += 1;
        h.change_full(&uri, version, &slow).await;
        h.save(&uri).await;
        h.status(&uri, "running").await;
        let test_line = slow
            .lines()
            .position(|l| l.starts_with("litmus") || l.starts_with("X86"))
            .unwrap_or(0) as u32;
        let mut hover = Vec::new();
        for _ in 0..RUNS * 4 {
            let t = Instant::now();
            h.request(
                "textDocument/hover",
                json!({"textDocument": {"uri": uri}, "position": pos(test_line, 8)}),
            )
            .await;
            hover.push(t.elapsed());
        }
        h.close(&uri).await;
        println!(
            "| {name} | {} | {} | {} | {} |",
            stats(verify),
            stats(cached),
            stats(syntax),
            stats(hover)
        );
    }
    // Let cancelled workers wind down before the process exits.
    tokio::time::sleep(Duration::from_millis(100)).await;
}
