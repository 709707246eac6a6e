//! A guard in front of tower-lsp-server's transport: its framed reader stops the connection at
//! the first frame that is not a JSON-RPC message (the codec's error ends the stream). Here every
//! incoming byte is framed first, by [`Framer`], which survives any byte stream:
//!
//! - a frame that is not JSON, or not a JSON-RPC request, notification or response, is answered
//!   with a JSON-RPC error (`-32700` parse error or `-32600` invalid request, id `null` or the
//!   message's id) and never reaches the server;
//! - a bad header (missing, negative, non-numeric or absurd `Content-Length`, bytes that are not
//!   a header, a header line longer than [`MAX_HEADER_LINE`]) is answered with one `-32700`
//!   error, and the stream resynchronises on the next `Content-Length:` wherever it appears,
//!   mid-line included (so a too-short length costs the frame it cut, and a too-long one the
//!   frame it swallowed only up to the next header inside it);
//! - a length above [`MAX_FRAME`] is refused before anything is allocated for it.
//!
//! Outgoing frames from the server and these errors are written whole, one after the other.
//! When the input ends, the server gets [`EOF_GRACE`] to finish, then [`serve`] returns
//! whatever is pending (a server-to-client request the client will never answer, say).

use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The largest frame body accepted (bytes); a longer `Content-Length` is refused unread.
pub const MAX_FRAME: usize = 64 << 20;
/// The longest header line kept; longer ones are junk.
pub const MAX_HEADER_LINE: usize = 8 << 10;
/// How long the server may take to finish once its input ended.
pub const EOF_GRACE: Duration = Duration::from_millis(500);

const CONTENT_LENGTH: &[u8] = b"content-length:";

/// One thing read from the input.
#[derive(Debug, PartialEq)]
pub enum Frame {
    /// A frame's body (not yet checked to be JSON-RPC).
    Body(Vec<u8>),
    /// Bytes that could not be framed, and why.
    Bad(String),
}

/// Where `needle` (lower case ASCII) starts in `hay`, ignoring ASCII case.
fn find_ci(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

/// Frames an input byte stream, resynchronising after anything malformed (see the module doc).
pub struct Framer<R> {
    r: BufReader<R>,
    /// Bytes already read but not yet framed (the rest of a too-long frame).
    pending: Vec<u8>,
    /// Frames found, not yet returned.
    out: std::collections::VecDeque<Frame>,
    /// Skipping what follows a bad frame up to the next header (already answered once).
    skipping: bool,
}

impl<R: AsyncRead + Unpin> Framer<R> {
    pub fn new(r: R) -> Framer<R> {
        Framer {
            r: BufReader::new(r),
            pending: Vec::new(),
            out: Default::default(),
            skipping: false,
        }
    }

    /// One line (with its `\n`), at most `MAX_HEADER_LINE + 1` bytes kept; `None` at the end
    /// of input. The second value says the line was too long (the rest was skipped).
    async fn line(&mut self) -> std::io::Result<Option<(Vec<u8>, bool)>> {
        if self.pending.is_empty() {
            return self.raw_line().await;
        }
        match self.pending.iter().position(|&b| b == b'\n') {
            Some(i) => {
                let rest = self.pending.split_off(i + 1);
                let line = std::mem::replace(&mut self.pending, rest);
                let long = line.len() > MAX_HEADER_LINE + 1;
                Ok(Some((line, long)))
            }
            None => {
                // A partial line: complete it from the input.
                let mut line = std::mem::take(&mut self.pending);
                let mut long = line.len() > MAX_HEADER_LINE;
                if let Some((more, l)) = self.raw_line().await? {
                    long |= l;
                    line.extend_from_slice(&more);
                }
                Ok(Some((line, long)))
            }
        }
    }

    async fn raw_line(&mut self) -> std::io::Result<Option<(Vec<u8>, bool)>> {
        let mut line = Vec::new();
        let mut long = false;
        loop {
            let buf = self.r.fill_buf().await?;
            if buf.is_empty() {
                return Ok((!line.is_empty()).then_some((line, long)));
            }
            let (take, done) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            let room = (MAX_HEADER_LINE + 1).saturating_sub(line.len());
            if take > room {
                long = true;
            }
            line.extend_from_slice(&buf[..take.min(room)]);
            self.r.consume(take);
            if done {
                return Ok(Some((line, long)));
            }
        }
    }

    /// Reads `len` bytes (fewer at the end of input), the pending bytes first.
    async fn body(&mut self, len: usize) -> std::io::Result<Vec<u8>> {
        let from_pending = len.min(self.pending.len());
        let rest = self.pending.split_off(from_pending);
        let mut body = std::mem::replace(&mut self.pending, rest);
        let mut r = (&mut self.r).take((len - from_pending) as u64);
        r.read_to_end(&mut body).await?;
        Ok(body)
    }

    /// The next frame or complaint; `None` at the end of input (or on a read error).
    pub async fn next(&mut self) -> Option<Frame> {
        loop {
            if let Some(f) = self.out.pop_front() {
                return Some(f);
            }
            match self.read_one().await {
                Ok(true) => {}
                Ok(false) | Err(_) => return self.out.pop_front(),
            }
        }
    }

    /// Reads up to one frame into `out`; false at the end of input.
    async fn read_one(&mut self) -> std::io::Result<bool> {
        // What is wrong with the bytes before the current header, if anything.
        let mut junk = false;
        let mut len: Option<Result<usize, String>> = None;
        let mut header_lines = 0;
        loop {
            let Some((line, long)) = self.line().await? else {
                if junk || header_lines > 0 {
                    self.out
                        .push_back(Frame::Bad("input ended inside a header".into()));
                }
                return Ok(false);
            };
            let mut text: &[u8] = &line;
            while let [rest @ .., b'\n' | b'\r'] = text {
                text = rest;
            }
            if long {
                junk = true;
                len = None;
                header_lines = 0;
                continue;
            }
            if text.is_empty() {
                if header_lines == 0 {
                    continue; // a stray blank line between frames (or after junk)
                }
                break;
            }
            if let Some(at) = find_ci(text, CONTENT_LENGTH) {
                if at > 0 || header_lines > 0 && len.is_some() {
                    // Bytes before this header (the tail of a cut frame, say) are junk.
                    junk = true;
                }
                if junk && !self.skipping {
                    self.out.push_back(Frame::Bad(
                        "bytes that are not a frame were skipped up to the next Content-Length header".into(),
                    ));
                }
                junk = false;
                let v = String::from_utf8_lossy(&text[at + CONTENT_LENGTH.len()..]);
                let v = v.trim();
                len = Some(match v.parse::<u64>() {
                    Ok(n) if n <= MAX_FRAME as u64 => Ok(n as usize),
                    Ok(n) => Err(format!(
                        "Content-Length {n} refused: frames may have at most {MAX_FRAME} bytes"
                    )),
                    Err(_) => Err(format!("bad Content-Length `{v}`")),
                });
                header_lines = 1;
                continue;
            }
            let is_header = text.iter().position(|&b| b == b':').is_some_and(|c| {
                c > 0
                    && text[..c]
                        .iter()
                        .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
            });
            if is_header && (header_lines > 0 || !junk) {
                header_lines += 1; // Content-Type or another header: ignored
            } else {
                junk = true;
                len = None;
                header_lines = 0;
            }
        }
        if junk && !self.skipping {
            self.out
                .push_back(Frame::Bad("bytes that are not a frame were skipped".into()));
        }
        self.skipping = false;
        match len {
            None => {
                self.out
                    .push_back(Frame::Bad("a header without Content-Length".into()));
                self.skipping = true;
                Ok(true)
            }
            Some(Err(e)) => {
                // The body's length is unknown: skip to the next header.
                self.out.push_back(Frame::Bad(e));
                self.skipping = true;
                Ok(true)
            }
            Some(Ok(n)) => {
                let body = self.body(n).await?;
                let short = body.len() < n;
                // A too-long length swallowed the next frame's header: keep what follows it.
                if serde_json::from_slice::<serde::de::IgnoredAny>(&body).is_err() {
                    // What follows a cut frame is the rest of it: skip it quietly.
                    self.skipping = true;
                    if let Some(at) = find_ci(&body, CONTENT_LENGTH) {
                        let mut rest = body[at..].to_vec();
                        rest.extend_from_slice(&self.pending);
                        self.pending = rest;
                        self.out.push_back(Frame::Body(body[..at].to_vec()));
                        return Ok(true);
                    }
                }
                self.out.push_back(Frame::Body(body));
                Ok(!short)
            }
        }
    }
}

pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

/// The error to answer for a frame that must not reach the server, if any.
pub fn check_frame(body: &[u8]) -> Option<Value> {
    let err = |id: Value, code: i64, message: &str| {
        Some(json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}))
    };
    let v: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => return err(Value::Null, -32700, &format!("Parse error: {e}")),
    };
    let Some(o) = v.as_object() else {
        return err(Value::Null, -32600, "Invalid request: not an object");
    };
    let id = o.get("id").cloned();
    let id_ok = id
        .as_ref()
        .is_none_or(|i| i.is_string() || i.is_i64() || i.is_u64());
    let method_ok = o.get("method").is_some_and(Value::is_string);
    let params_ok = o
        .get("params")
        .is_none_or(|p| p.is_object() || p.is_array() || p.is_null());
    let is_response = id.is_some()
        && !o.contains_key("method")
        && (o.contains_key("result") || o.contains_key("error"));
    if o.get("jsonrpc") != Some(&json!("2.0"))
        || !id_ok
        || !(is_response || (method_ok && params_ok))
    {
        let id = id.filter(|_| id_ok).unwrap_or(Value::Null);
        return err(id, -32600, "Invalid request");
    }
    None
}

/// Copies frames from `input` to `to_server`, answering bad ones through `errors`.
pub async fn filter_input<R, W>(input: R, mut to_server: W, errors: mpsc::UnboundedSender<Vec<u8>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut framer = Framer::new(input);
    while let Some(f) = framer.next().await {
        let complaint = match f {
            Frame::Body(body) => match check_frame(&body) {
                None => {
                    if to_server.write_all(&frame(&body)).await.is_err()
                        || to_server.flush().await.is_err()
                    {
                        break;
                    }
                    continue;
                }
                Some(e) => e,
            },
            Frame::Bad(why) => json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": {"code": -32700, "message": format!("Parse error: {why}")}
            }),
        };
        let _ = errors.send(serde_json::to_vec(&complaint).unwrap_or_default());
    }
    let _ = to_server.shutdown().await;
}

/// Writes the server's frames and the injected error frames to `output`, each whole.
pub async fn merge_output<R, W>(
    from_server: R,
    mut output: W,
    mut errors: mpsc::UnboundedReceiver<Vec<u8>>,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut r = Framer::new(from_server);
    let mut errors_open = true;
    loop {
        let body = tokio::select! {
            f = r.next() => match f {
                Some(Frame::Body(b)) => b,
                Some(Frame::Bad(_)) => continue,
                None => break,
            },
            e = errors.recv(), if errors_open => match e {
                Some(b) => b,
                None => { errors_open = false; continue; }
            },
        };
        if output.write_all(&frame(&body)).await.is_err() || output.flush().await.is_err() {
            break;
        }
    }
}

/// Serves the language server with `engine` on `input`/`output` through the guard. Returns
/// when the server ends, or [`EOF_GRACE`] after the input ended, whichever comes first.
pub async fn serve<I, O>(engine: std::sync::Arc<dyn super::engine::Engine>, input: I, output: O)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let (service, socket) = super::backend::service(engine);
    let inner = service.inner().shared();
    let (server_in, filtered) = tokio::io::duplex(1 << 20);
    let (server_out, merged) = tokio::io::duplex(1 << 20);
    let (tx, rx) = mpsc::unbounded_channel();
    let input_done = tokio::spawn(filter_input(input, filtered, tx));
    let out = tokio::spawn(merge_output(merged, output, rx));
    let server = tower_lsp_server::Server::new(server_in, server_out, socket).serve(service);
    tokio::select! {
        _ = server => {
            let _ = tokio::time::timeout(EOF_GRACE, out).await;
        }
        _ = async {
            let _ = input_done.await;
            tokio::time::sleep(EOF_GRACE).await;
        } => {}
    }
    // Whatever still runs has no one to answer to.
    inner.cancel_all();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rejects_what_would_stop_the_transport() {
        assert_eq!(check_frame(b"{nope").unwrap()["error"]["code"], -32700);
        assert_eq!(check_frame(b"[1,2]").unwrap()["error"]["code"], -32600);
        assert_eq!(
            check_frame(br#"{"jsonrpc":"2.0","id":{"a":1},"method":"x"}"#).unwrap()["id"],
            Value::Null
        );
        assert_eq!(
            check_frame(br#"{"jsonrpc":"2.0","id":7}"#).unwrap()["id"],
            7
        );
        assert_eq!(
            check_frame(br#"{"jsonrpc":"2.0","id":7,"method":"m","params":3}"#).unwrap()["id"],
            7
        );
        assert!(check_frame(br#"{"jsonrpc":"2.0","id":7,"method":"m","params":{}}"#).is_none());
        assert!(check_frame(br#"{"jsonrpc":"2.0","method":"m"}"#).is_none());
        assert!(check_frame(br#"{"jsonrpc":"2.0","id":"a","result":null}"#).is_none());
    }

    /// Frames `input` whole.
    fn frames(input: &[u8]) -> Vec<Frame> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut f = Framer::new(input);
            let mut out = Vec::new();
            while let Some(x) = f.next().await {
                out.push(x);
            }
            out
        })
    }

    fn body(s: &str) -> Frame {
        Frame::Body(s.as_bytes().to_vec())
    }

    const GOOD: &str = r#"{"jsonrpc":"2.0","method":"m"}"#;

    fn good() -> String {
        format!("Content-Length: {}\r\n\r\n{GOOD}", GOOD.len())
    }

    #[test]
    fn bad_headers_are_reported_once_and_the_next_frame_is_read() {
        for bad in [
            "Content-Length: -5\r\n\r\n{}",
            "Content-Length: lots\r\n\r\n{}",
            "Content-Type: x\r\n\r\n{}",
            "garbage line\r\nmore garbage\r\n",
            "Content-Length: 18446744073709551615\r\n\r\n{}",
            "Content-Length: 1099511627776\r\n\r\n{}",
            "Content-Length: 99999999999999999999999\r\n\r\n{}",
        ] {
            let got = frames(format!("{bad}{}", good()).as_bytes());
            assert_eq!(got.len(), 2, "{bad:?}: {got:?}");
            assert!(matches!(got[0], Frame::Bad(_)), "{bad:?}: {got:?}");
            assert_eq!(got[1], body(GOOD), "{bad:?}");
        }
    }

    #[test]
    fn wrong_lengths_resynchronise_on_the_next_header() {
        // Too short: the cut frame, then the next one (its tail skipped quietly).
        let short = format!("Content-Length: 10\r\n\r\n{GOOD}{}", good());
        assert_eq!(frames(short.as_bytes()), [body(&GOOD[..10]), body(GOOD)]);
        // Too long: the frame swallows the next header, which is read again.
        let long = format!(
            "Content-Length: {}\r\n\r\n{GOOD}{}",
            GOOD.len() + 20,
            good()
        );
        let got = frames(long.as_bytes());
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[1], body(GOOD));
        // Missing: a header block without a length.
        let missing = format!("Content-Type: a\r\n\r\n{GOOD}{}", good());
        assert_eq!(frames(missing.as_bytes()).last(), Some(&body(GOOD)));
    }

    #[test]
    fn absurd_lengths_are_refused_unread_and_long_lines_skipped() {
        let got = frames(format!("Content-Length: {}\r\n\r\n{}", MAX_FRAME + 1, good()).as_bytes());
        assert!(matches!(&got[0], Frame::Bad(m) if m.contains("refused")));
        let long_line = "x".repeat(3 * MAX_HEADER_LINE);
        let got = frames(format!("{long_line}\r\n{}", good()).as_bytes());
        assert_eq!(got.last(), Some(&body(GOOD)));
        assert_eq!(got.len(), 2);
    }
}
