//! A client's end of `litmus lsp` on stdin/stdout: framing what is sent, and a thread that reads
//! the server's frames. Shared by the tests that run the real binary (`lsp_limits.rs`) and the
//! benchmark `lsp/benches/limits.rs` (which includes this file by path).

use std::io::{BufRead, BufReader, Read};
use std::process::ChildStdout;
use std::sync::mpsc;

use serde_json::Value;

/// `v` as one LSP frame (`Content-Length` header, then the JSON body).
pub fn frame(v: &Value) -> Vec<u8> {
    let body = v.to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

/// The messages the server writes to `stdout`, one JSON value each, read by a thread of their
/// own until the stream ends or the receiver is dropped.
pub fn messages(stdout: ChildStdout) -> mpsc::Receiver<Value> {
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
                    len = v.trim().parse().expect("a length");
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
    rx
}
