//! An in-process LSP client for the server tests: the real server (`litmus::server::backend::service`)
//! served over `tokio::io::duplex`, JSON-RPC framed by hand, server→client requests answered
//! (configuration, progress creation, refreshes) and every notification logged.

#![allow(dead_code)]

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream, WriteHalf};
use tokio::sync::{oneshot, Mutex, Notify};

use litmus::server::engine::Engine;

mod fixtures;
mod hooks;

// Each test file uses some of these (the harness is compiled into each one).
#[allow(unused_imports)]
pub use fixtures::*;
#[allow(unused_imports)]
pub use hooks::*;

pub const TIMEOUT: Duration = Duration::from_secs(60);

type Writer = Arc<Mutex<WriteHalf<DuplexStream>>>;

#[derive(Default)]
struct Shared {
    pending: HashMap<i64, oneshot::Sender<Value>>,
    /// Every notification and server request, in arrival order.
    log: Vec<Value>,
    /// What to answer to `workspace/configuration`.
    config: Value,
    /// ... for an item with this `scopeUri` (a workspace folder's own settings).
    scoped: HashMap<String, Value>,
    /// Whether to answer `window/workDoneProgress/create` with an error.
    refuse_progress: bool,
}

pub struct Harness {
    writer: Writer,
    shared: Arc<std::sync::Mutex<Shared>>,
    notify: Arc<Notify>,
    next_id: i64,
    /// Index into the log up to which `next_*` helpers have consumed messages.
    pub cursor: usize,
}

async fn write_msg(w: &Writer, v: &Value) {
    let body = serde_json::to_string(v).unwrap();
    let mut w = w.lock().await;
    w.write_all(format!("Content-Length: {}\r\n\r\n{}", body.len(), body).as_bytes())
        .await
        .unwrap();
    w.flush().await.unwrap();
}

impl Harness {
    /// Starts the server with `engine` and performs `initialize`/`initialized` with the given
    /// client capabilities and initialization options.
    pub async fn start(
        engine: Arc<dyn Engine>,
        capabilities: Value,
        init_options: Value,
    ) -> Harness {
        Harness::start_in(engine, capabilities, init_options, Value::Null).await
    }

    /// [`Harness::start`] with a workspace folder (`rootUri`; null for none).
    pub async fn start_in(
        engine: Arc<dyn Engine>,
        capabilities: Value,
        init_options: Value,
        root_uri: Value,
    ) -> Harness {
        let params = json!({"rootUri": root_uri});
        Harness::start_with(engine, capabilities, init_options, params).await
    }

    /// [`Harness::start`] with several workspace folders (`workspaceFolders`, by URI).
    pub async fn start_folders(
        engine: Arc<dyn Engine>,
        capabilities: Value,
        folders: &[String],
    ) -> Harness {
        let folders: Vec<Value> = folders
            .iter()
            .map(|u| json!({"uri": u, "name": u.rsplit('/').next().unwrap_or(u)}))
            .collect();
        let params = json!({"rootUri": folders[0]["uri"], "workspaceFolders": folders});
        Harness::start_with(engine, capabilities, json!({}), params).await
    }

    /// [`Harness::start`] with more `initialize` params (`rootUri`, `workspaceFolders`).
    async fn start_with(
        engine: Arc<dyn Engine>,
        capabilities: Value,
        init_options: Value,
        more: Value,
    ) -> Harness {
        let (client_io, server_io) = tokio::io::duplex(1 << 20);
        let (server_read, server_write) = tokio::io::split(server_io);
        tokio::spawn(litmus::server::transport::serve(
            engine,
            server_read,
            server_write,
        ));
        let (client_read, client_write) = tokio::io::split(client_io);
        let writer: Writer = Arc::new(Mutex::new(client_write));
        let shared = Arc::new(std::sync::Mutex::new(Shared {
            config: json!({}),
            ..Default::default()
        }));
        let notify = Arc::new(Notify::new());
        {
            let (writer, shared, notify) = (writer.clone(), shared.clone(), notify.clone());
            tokio::spawn(async move {
                let mut r = BufReader::new(client_read);
                loop {
                    let mut len = 0usize;
                    loop {
                        let mut line = String::new();
                        if r.read_line(&mut line).await.unwrap_or(0) == 0 {
                            return;
                        }
                        let line = line.trim();
                        if line.is_empty() {
                            break;
                        }
                        if let Some(v) = line.strip_prefix("Content-Length: ") {
                            len = v.parse().unwrap();
                        }
                    }
                    let mut buf = vec![0; len];
                    r.read_exact(&mut buf).await.unwrap();
                    let msg: Value = serde_json::from_slice(&buf).unwrap();
                    let method = msg
                        .get("method")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                    match (msg.get("id").cloned(), method) {
                        (Some(id), Some(method)) => {
                            // A request from the server.
                            let reply = {
                                let mut s = shared.lock().unwrap();
                                s.log.push(msg.clone());
                                match method.as_str() {
                                    "workspace/configuration" => {
                                        let items = msg["params"]["items"]
                                            .as_array()
                                            .cloned()
                                            .unwrap_or_default();
                                        let answer: Vec<Value> = items
                                            .iter()
                                            .map(|i| {
                                                let scope = i["scopeUri"].as_str().unwrap_or("");
                                                s.scoped.get(scope).unwrap_or(&s.config).clone()
                                            })
                                            .collect();
                                        json!({"jsonrpc": "2.0", "id": id, "result": answer})
                                    }
                                    "window/workDoneProgress/create" if s.refuse_progress => {
                                        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "no"}})
                                    }
                                    _ => json!({"jsonrpc": "2.0", "id": id, "result": null}),
                                }
                            };
                            write_msg(&writer, &reply).await;
                        }
                        (Some(id), None) => {
                            // A response (an error to an unreadable message has a null id: log it).
                            let tx = id
                                .as_i64()
                                .and_then(|id| shared.lock().unwrap().pending.remove(&id));
                            match tx {
                                Some(tx) => {
                                    let _ = tx.send(msg);
                                }
                                None => shared.lock().unwrap().log.push(msg),
                            }
                        }
                        (None, _) => shared.lock().unwrap().log.push(msg),
                    }
                    notify.notify_waiters();
                }
            });
        }
        let mut h = Harness {
            writer,
            shared,
            notify,
            next_id: 1,
            cursor: 0,
        };
        let init = h
            .request_raw(
                "initialize",
                {
                    let mut p = json!({"processId": null, "capabilities": capabilities, "initializationOptions": init_options});
                    for (k, v) in more.as_object().into_iter().flatten() {
                        p[k] = v.clone();
                    }
                    p
                },
            )
            .await;
        assert!(init.get("result").is_some(), "initialize failed: {init}");
        h.notify("initialized", json!({})).await;
        h
    }

    /// A client with the usual capabilities: progress, configuration, lens/inlay refresh.
    pub async fn default_with(engine: Arc<dyn Engine>, init_options: Value) -> Harness {
        let caps = json!({
            "window": {"workDoneProgress": true},
            "workspace": {"configuration": true, "codeLens": {"refreshSupport": true}, "inlayHint": {"refreshSupport": true}},
        });
        Harness::start(engine, caps, init_options).await
    }

    /// What `workspace/configuration` answers for the folder `scope_uri`.
    pub fn set_config_for(&self, scope_uri: &str, v: Value) {
        self.shared
            .lock()
            .unwrap()
            .scoped
            .insert(scope_uri.to_string(), v);
    }

    pub fn set_config(&self, v: Value) {
        self.shared.lock().unwrap().config = v;
    }
    pub fn refuse_progress(&self) {
        self.shared.lock().unwrap().refuse_progress = true;
    }

    pub async fn send(&self, v: Value) {
        write_msg(&self.writer, &v).await;
    }

    pub async fn send_raw(&self, body: &str) {
        let mut w = self.writer.lock().await;
        w.write_all(format!("Content-Length: {}\r\n\r\n{}", body.len(), body).as_bytes())
            .await
            .unwrap();
        w.flush().await.unwrap();
    }

    /// Sends a request and returns the whole response (`result` or `error`).
    pub async fn request_raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let (tx, rx) = oneshot::channel();
        self.shared.lock().unwrap().pending.insert(id, tx);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        tokio::time::timeout(TIMEOUT, rx)
            .await
            .expect("response timed out")
            .unwrap()
    }

    /// Sends a request and returns at once; the receiver gets the whole response.
    pub async fn request_later(&mut self, method: &str, params: Value) -> oneshot::Receiver<Value> {
        let id = self.next_id;
        self.next_id += 1;
        let (tx, rx) = oneshot::channel();
        self.shared.lock().unwrap().pending.insert(id, tx);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        rx
    }

    /// Sends a request and returns its result, failing on an error response.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let r = self.request_raw(method, params).await;
        assert!(r.get("error").is_none(), "{method} failed: {r}");
        r["result"].clone()
    }

    /// `textDocument/semanticTokens/full` decoded from LSP's relative encoding: per token its
    /// absolute line, column, length, type and modifiers.
    pub async fn semantic_tokens(&mut self, uri: &str) -> Vec<[u64; 5]> {
        let toks = self
            .request(
                "textDocument/semanticTokens/full",
                json!({"textDocument": {"uri": uri}}),
            )
            .await;
        let data: Vec<u64> = toks["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(data.len() % 5, 0, "{toks}");
        let (mut line, mut col) = (0, 0);
        data.chunks(5)
            .map(|t| {
                if t[0] > 0 {
                    col = 0;
                }
                line += t[0];
                col += t[1];
                [line, col, t[2], t[3], t[4]]
            })
            .collect()
    }

    pub async fn notify(&self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// All messages logged so far.
    pub fn log(&self) -> Vec<Value> {
        self.shared.lock().unwrap().log.clone()
    }

    /// Waits for the first logged message after the cursor satisfying `pred`; moves the cursor
    /// past it.
    pub async fn wait_for(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let notified = self.notify.notified();
            {
                let s = self.shared.lock().unwrap();
                if let Some(i) = s.log[self.cursor..].iter().position(&pred) {
                    self.cursor += i + 1;
                    return s.log[self.cursor - 1].clone();
                }
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                let s = self.shared.lock().unwrap();
                panic!(
                    "timed out waiting for {what}; log after cursor: {:#?}",
                    &s.log[self.cursor..]
                );
            }
        }
    }

    /// Waits until every `$/progress` that began has ended: every job that started has
    /// handled its workers' last results (a job ends its progress only after all its workers
    /// returned and their reports went through), so whatever a finished or cancelled check
    /// could publish has been published.
    pub async fn progress_settled(&mut self) {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let notified = self.notify.notified();
            let open: Vec<String> = {
                let s = self.shared.lock().unwrap();
                let mut open = std::collections::BTreeSet::new();
                for m in s.log.iter().filter(|m| m["method"] == "$/progress") {
                    let token = m["params"]["token"].to_string();
                    match m["params"]["value"]["kind"].as_str() {
                        Some("begin") => {
                            open.insert(token);
                        }
                        Some("end") => {
                            open.remove(&token);
                        }
                        _ => {}
                    }
                }
                open.into_iter().collect()
            };
            if open.is_empty() {
                return;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                panic!("timed out waiting for the progress of {open:?} to end");
            }
        }
    }

    pub async fn open(&self, uri: &str, version: i32, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "litmus", "version": version, "text": text}}),
        )
        .await;
    }

    pub async fn change_full(&self, uri: &str, version: i32, text: &str) {
        self.notify("textDocument/didChange", json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]})).await;
    }

    /// A ranged change: (start line, start char, end line, end char, new text).
    pub async fn change(&self, uri: &str, version: i32, edits: &[(u32, u32, u32, u32, &str)]) {
        let changes: Vec<Value> = edits
            .iter()
            .map(|(sl, sc, el, ec, t)| json!({"range": {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}, "text": t}))
            .collect();
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes}),
        )
        .await;
    }

    pub async fn save(&self, uri: &str) {
        self.notify(
            "textDocument/didSave",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    }

    pub async fn close(&self, uri: &str) {
        self.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    }

    /// The next `publishDiagnostics` for `uri` with the given version.
    pub async fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let d = self
            .wait_for(&format!("diagnostics of {uri} v{version}"), |m| {
                m["method"] == "textDocument/publishDiagnostics"
                    && m["params"]["uri"] == uri
                    && m["params"]["version"] == version
            })
            .await;
        d["params"]["diagnostics"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// The next `litmus/status` for `uri` in `state`.
    pub async fn status(&mut self, uri: &str, state: &str) -> Value {
        self.wait_for(&format!("status {state} of {uri}"), |m| {
            m["method"] == "litmus/status"
                && m["params"]["uri"] == uri
                && m["params"]["state"] == state
        })
        .await["params"]
            .clone()
    }

    /// The last `publishDiagnostics` for `uri` logged so far.
    pub fn last_diagnostics(&self, uri: &str) -> Option<Value> {
        self.log()
            .into_iter()
            .rev()
            .find(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri)
            .map(|m| m["params"].clone())
    }
}

/// The titles of a `textDocument/codeLens` answer's lenses, in order.
pub fn lens_titles(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|l| l["command"]["title"].as_str().unwrap().to_string())
        .collect()
}

pub fn pos(line: u32, character: u32) -> Value {
    json!({"line": line, "character": character})
}

/// Line and UTF-16 column of the first occurrence of `needle` in `text` (+ `plus` UTF-16 units).
pub fn find(text: &str, needle: &str) -> (u32, u32) {
    let off = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle:?} not in text"));
    let before = &text[..off];
    let line = before.matches('\n').count() as u32;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = text[line_start..off].encode_utf16().count() as u32;
    (line, col)
}
