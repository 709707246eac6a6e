//! The server against a hostile client (issue 26), through the real binary on stdin/stdout:
//! random byte streams and settings never crash it, it keeps answering well-formed requests
//! after garbage, and it exits soon after stdin closes whatever is pending; heavy documents stop
//! at the memory budget and queued documents say so in `litmus/status`.

#[path = "cli_support/reproducers.rs"]
#[allow(dead_code)]
mod reproducers;

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use serde_json::{json, Value};

struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: mpsc::Receiver<Value>,
}

fn frame(v: &Value) -> Vec<u8> {
    let body = v.to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

impl Server {
    fn start() -> Server {
        Server::start_with(Command::new(env!("CARGO_BIN_EXE_litmus")))
    }

    /// The server with `RLIMIT_DATA` (soft and hard) at `bytes`.
    fn start_with_data_limit(bytes: u64) -> Server {
        use std::os::unix::process::CommandExt;
        let mut c = Command::new(env!("CARGO_BIN_EXE_litmus"));
        // SAFETY: between fork and exec the closure only calls `setrlimit` (async-signal-safe).
        unsafe {
            c.pre_exec(move || {
                let r = libc::rlimit {
                    rlim_cur: bytes,
                    rlim_max: bytes,
                };
                match libc::setrlimit(libc::RLIMIT_DATA, &r) {
                    0 => Ok(()),
                    _ => Err(std::io::Error::last_os_error()),
                }
            });
        }
        Server::start_with(c)
    }

    fn start_with(mut command: Command) -> Server {
        let mut child = command
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
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
                if r.read_exact(&mut body).is_err() {
                    return;
                }
                let v: Value = serde_json::from_slice(&body).expect("the server writes JSON");
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        Server { child, stdin, rx }
    }

    fn write(&mut self, bytes: &[u8]) {
        // The server may have closed its end already: that shows in what it answers.
        let _ = self.stdin.as_mut().unwrap().write_all(bytes);
        let _ = self.stdin.as_mut().unwrap().flush();
    }

    /// Waits for the answer to request `id` (answering the server's own requests with `null`
    /// unless `answer_server` is false).
    fn answer(&mut self, id: i64, answer_server: bool) -> Option<Value> {
        let end = Instant::now() + Duration::from_secs(10);
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            let v = self.rx.recv_timeout(left).ok()?;
            if v.get("method").is_some() && v.get("id").is_some() {
                if answer_server {
                    let reply = json!({"jsonrpc": "2.0", "id": v["id"], "result": null});
                    self.write(&frame(&reply));
                }
                continue;
            }
            if v["id"] == id {
                return Some(v);
            }
        }
        None
    }

    /// Every message until `done` says enough (server requests answered with `null`); panics
    /// after `secs` seconds.
    fn until(&mut self, secs: u64, mut done: impl FnMut(&[Value]) -> bool) -> Vec<Value> {
        let end = Instant::now() + Duration::from_secs(secs);
        let mut seen = Vec::new();
        while !done(&seen) {
            let left = end
                .checked_duration_since(Instant::now())
                .unwrap_or_default();
            let v = self
                .rx
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("timed out; saw {seen:#?}"));
            if v.get("method").is_some() && v.get("id").is_some() {
                self.write(&frame(
                    &json!({"jsonrpc": "2.0", "id": v["id"], "result": null}),
                ));
            }
            seen.push(v);
        }
        seen
    }

    fn open(&mut self, uri: &str, text: &str) {
        self.write(&frame(
            &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": uri, "languageId": "litmus", "version": 1, "text": text}}}),
        ));
    }

    fn initialize(&mut self, options: Value) {
        let caps =
            json!({"window": {"workDoneProgress": true}, "workspace": {"configuration": true}});
        self.write(&frame(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"capabilities": caps, "initializationOptions": options}}),
        ));
        assert!(self.answer(1, true).unwrap().get("result").is_some());
        self.write(&frame(
            &json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        ));
    }

    /// Closes stdin and waits for the process; its exit status and how long it took.
    fn close(mut self) -> (Option<i32>, Duration) {
        drop(self.stdin.take());
        let t = Instant::now();
        loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                return (st.code(), t.elapsed());
            }
            if t.elapsed() > Duration::from_secs(20) {
                let _ = self.child.kill();
                return (None, t.elapsed());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn hover(id: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": {
        "textDocument": {"uri": "file:///none.litmus"}, "position": {"line": 0, "character": 0}}})
}

#[test]
fn bad_frames_are_answered_and_the_stream_resynchronises() {
    let mut s = Server::start();
    s.initialize(json!({"litmus": {"timeout": 1e300, "loopBound": -3}}));
    for bad in [
        &b"Content-Length: 18446744073709551615\r\n\r\n"[..],
        b"Content-Length: 1099511627776\r\n\r\n",
        b"Content-Length: -1\r\n\r\n{}",
        b"Content-Length: ten\r\n\r\n{}",
        b"Content-Type: x\r\n\r\n{}",
        b"Content-Length: 3\r\n\r\n{\"jsonrpc\":\"2.0\"}",
        b"\x00\xff garbage\r\n\r\n",
    ] {
        s.write(bad);
        s.write(&frame(&hover(7)));
        let v = s
            .answer(7, true)
            .unwrap_or_else(|| panic!("no answer after {bad:?}"));
        assert!(v.get("result").is_some(), "{v}");
    }
    let (code, _) = s.close();
    assert_eq!(code, Some(0));
}

#[test]
fn stdin_eof_ends_the_server_with_a_server_request_unanswered() {
    let mut s = Server::start();
    s.initialize(json!({}));
    // `initialized` makes the server ask for the configuration: never answered here.
    s.write(&frame(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": "file:///a.litmus", "languageId": "litmus", "version": 1,
        "text": "litmus A\nshared x = 0;\nthread P0 { x = 1; }\n"}}}),
    ));
    let (code, took) = s.close();
    assert_eq!(code, Some(0));
    assert!(took < Duration::from_secs(5), "took {took:?}");
}

fn garbage() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        // Random bytes that cannot start a header (a header is tested on its own above).
        proptest::collection::vec(any::<u8>(), 0..200).prop_filter("no header", |b| {
            !String::from_utf8_lossy(b)
                .to_ascii_lowercase()
                .contains("content-length")
        }),
        // A frame with a random body.
        "[ -~]{0,80}".prop_map(|b| format!("Content-Length: {}\r\n\r\n{b}", b.len()).into_bytes()),
        // A frame whose length is off by a little either way.
        ("[ -~]{0,80}", -20i64..20).prop_map(|(b, d)| {
            format!("Content-Length: {}\r\n\r\n{b}", (b.len() as i64 + d).max(0)).into_bytes()
        }),
        // Headers that are wrong.
        prop_oneof![
            Just(b"Content-Length: \r\n\r\n".to_vec()),
            Just(b"Content-Length: 99999999999999999999\r\n\r\n".to_vec()),
            Just(b"Content-Length: 4294967296\r\n\r\n".to_vec()),
            Just(b"X: y\r\n\r\n".to_vec()),
        ],
    ];
    proptest::collection::vec(piece, 0..6).prop_map(|v| v.concat())
}

fn settings() -> impl Strategy<Value = Value> {
    let value = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| json!(f)),
        Just(json!(1e300)),
        Just(json!(-1)),
        "[a-z]{0,6}".prop_map(Value::from),
        Just(json!(["sc", "bogus"])),
        Just(json!([])),
        Just(json!({})),
    ];
    let key = prop_oneof![
        Just("timeout"),
        Just("loopBound"),
        Just("models"),
        Just("engine"),
        Just("maxMemory"),
        Just("maxJobs"),
        Just("verifyOnSave"),
        Just("verifyOnChange"),
        Just("other"),
    ];
    proptest::collection::vec((key, value), 0..5).prop_map(|kv| {
        let o: serde_json::Map<String, Value> =
            kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
        json!({"litmus": o})
    })
}

fn cases() -> u32 {
    if std::env::var("LITMUS_FULL_TESTS").is_ok_and(|v| v == "1") {
        100
    } else {
        24
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_and_settings_never_stop_the_server(init in settings(), change in settings(), junk in garbage()) {
        let mut s = Server::start();
        s.initialize(init);
        s.write(&frame(&json!({"jsonrpc": "2.0", "method": "workspace/didChangeConfiguration",
            "params": {"settings": change}})));
        s.write(&junk);
        // Blank lines end whatever header the junk left open and fill whatever length a frame
        // claimed beyond its body (at most 20 here); then a well-formed request.
        s.write(&b"\r\n".repeat(32));
        s.write(&frame(&hover(1000)));
        let v = s.answer(1000, true);
        prop_assert!(v.is_some_and(|v| v.get("result").is_some()), "no answer after {:?}", String::from_utf8_lossy(&junk));
        let (code, _) = s.close();
        prop_assert_eq!(code, Some(0));
    }
}

#[test]
fn edits_past_the_end_are_clamped_not_dropped() {
    // LSP 3.17: a position past the end of a line is the line's end, a line past the end of
    // the text is its end. The edit applies there, so client and server texts agree.
    let mut s = Server::start();
    s.initialize(json!({}));
    let uri = "file:///clamp.litmus";
    s.write(&frame(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
        "textDocument": {"uri": uri, "languageId": "litmus", "version": 1,
        "text": "litmus A\nshared x = 0;\nthread P0 { x = 1; }\n"}}}),
    ));
    let far = json!({"line": 4000, "character": 99999});
    s.write(&frame(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"range": {"start": far, "end": far}, "text": "exists (x == 1)\n"}]}}),
    ));
    let line_end = json!({"line": 2, "character": 500});
    s.write(&frame(
        &json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": uri, "version": 3},
        "contentChanges": [{"range": {"start": line_end, "end": line_end}, "text": " // end"}]}}),
    ));
    s.write(&frame(
        &json!({"jsonrpc": "2.0", "id": 5, "method": "textDocument/documentSymbol",
        "params": {"textDocument": {"uri": uri}}}),
    ));
    let v = s.answer(5, true).unwrap();
    let text = v["result"].to_string();
    assert!(text.contains("\"exists\""), "{v}");
    let (code, _) = s.close();
    assert_eq!(code, Some(0));
}

/// The last `litmus/status` of each document, by uri.
fn last_status(seen: &[Value]) -> std::collections::BTreeMap<String, Value> {
    seen.iter()
        .filter(|m| m["method"] == "litmus/status")
        .map(|m| {
            (
                m["params"]["uri"].as_str().unwrap().to_string(),
                m["params"].clone(),
            )
        })
        .collect()
}

#[test]
fn three_heavy_documents_stop_at_the_memory_budget_and_the_server_answers() {
    // Issue 26: with the reference explorer, three of these crashed the server (SIGABRT).
    let mut s = Server::start();
    s.initialize(json!({"engine": "exhaustive", "models": ["pso"], "maxMemory": 48, "maxJobs": 3}));
    let uris: Vec<String> = (0..3).map(|i| format!("file:///heavy{i}.litmus")).collect();
    for u in &uris {
        s.open(u, &reproducers::heavy());
    }
    let seen = s.until(120, |seen| {
        let st = last_status(seen);
        uris.iter()
            .all(|u| st.get(u).is_some_and(|v| v["state"] == "done"))
    });
    for u in &uris {
        assert_eq!(
            last_status(&seen)[u]["verdicts"],
            json!({"pso": "incomplete"}),
            "{u}"
        );
        let diags = seen
            .iter()
            .rfind(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == *u)
            .unwrap();
        let warned = diags["params"]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| {
                d["severity"] == 2
                    && d["message"]
                        .as_str()
                        .unwrap()
                        .contains("memory budget of 48 MiB")
            });
        assert_eq!(warned.count(), 1, "{diags}");
    }
    s.write(&frame(&hover(77)));
    assert!(s
        .answer(77, true)
        .is_some_and(|v| v.get("result").is_some()));
    let (code, _) = s.close();
    assert_eq!(code, Some(0));
}

#[test]
fn twenty_heavy_documents_under_rlimit_data_stop_at_the_default_budget() {
    // Issue 39: under a 4 GB address-space limit the server with 20 heavy documents open died
    // (SIGABRT): its default budget ignored the process's limits. Now it is half of what the
    // limit leaves, every document ends incomplete with the budget's warning naming the limit,
    // and the server goes on answering. (A data limit, small, so the budget is reached fast.
    // Before the allocator kept one arena under a limit, this aborted: each job's thread kept
    // what the last job on it freed, `limits::one_arena_under_rlimits`.)
    let mut s = Server::start_with_data_limit(128 << 20);
    s.initialize(json!({"engine": "exhaustive", "models": ["pso"]}));
    let uris: Vec<String> = (0..20)
        .map(|i| format!("file:///rl{i:02}.litmus"))
        .collect();
    for (i, u) in uris.iter().enumerate() {
        // Twenty different documents (the cache would answer copies from one check).
        s.open(
            u,
            &reproducers::heavy().replacen("x0 = 0", &format!("x0 = {}", 100 + i), 1),
        );
    }
    let seen = s.until(300, |seen| {
        let st = last_status(seen);
        uris.iter()
            .all(|u| st.get(u).is_some_and(|v| v["state"] == "done"))
    });
    for u in &uris {
        let diags = seen
            .iter()
            .rfind(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == *u)
            .unwrap();
        let budget = diags["params"]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| {
                let m = d["message"].as_str().unwrap();
                m.contains("the memory budget of") && m.contains("(half of RLIMIT_DATA 128 MiB")
            });
        assert!(budget, "{u}: no budget warning naming the limit: {diags}");
        assert_eq!(
            last_status(&seen)[u]["verdicts"],
            json!({"pso": "incomplete"}),
            "{u}"
        );
    }
    s.write(&frame(&hover(79)));
    assert!(s
        .answer(79, true)
        .is_some_and(|v| v.get("result").is_some()));
    let (code, _) = s.close();
    assert_eq!(code, Some(0));
}

#[test]
fn twenty_documents_with_one_job_at_a_time_show_queued() {
    let mut s = Server::start();
    s.initialize(json!({"engine": "exhaustive", "models": ["pso"], "maxMemory": 64, "maxJobs": 1}));
    let uris: Vec<String> = (0..20).map(|i| format!("file:///q{i:02}.litmus")).collect();
    for u in &uris {
        s.open(u, &reproducers::heavy());
    }
    let queued = |seen: &[Value]| -> std::collections::BTreeSet<String> {
        seen.iter()
            .filter(|m| m["method"] == "litmus/status" && m["params"]["state"] == "queued")
            .map(|m| m["params"]["uri"].as_str().unwrap().to_string())
            .collect()
    };
    // One document runs; the 19 others wait for the one place. Which one runs first depends
    // on how fast the opens arrive (the most recently opened goes first), so only the counts
    // are asserted: 19 waiting at once, and every document but one has waited.
    let most = |seen: &[Value]| {
        seen.iter()
            .filter(|m| m["method"] == "litmus/status")
            .filter_map(|m| m["params"]["queued"].as_u64())
            .max()
    };
    // (The count can reach 19 before the last documents' own `queued` statuses arrive.)
    let seen = s.until(60, |seen| {
        most(seen) == Some(19) && queued(seen).len() >= 19
    });
    assert_eq!(most(&seen), Some(19));
    assert!(queued(&seen).len() >= 19, "{:?}", queued(&seen));
    for u in &uris {
        s.write(&frame(
            &json!({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {
            "textDocument": {"uri": u}}}),
        ));
    }
    s.write(&frame(&hover(78)));
    assert!(s
        .answer(78, true)
        .is_some_and(|v| v.get("result").is_some()));
    let (code, _) = s.close();
    assert_eq!(code, Some(0));
}
