//! A guard in front of tower-lsp-server's transport: its framed reader stops the connection at
//! the first frame that is not a JSON-RPC message (the codec's error ends the stream). Here every
//! incoming frame is read first; a frame that is not JSON, or not a JSON-RPC request,
//! notification or response, is answered with a JSON-RPC error (`-32700` parse error or
//! `-32600` invalid request, id `null` or the message's id) and never reaches the server.
//! Outgoing frames from the server and these errors are written whole, one after the other.

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Reads one frame body; `Ok(None)` at end of input.
async fn read_frame<R: AsyncRead + Unpin>(
    r: &mut BufReader<R>,
) -> std::io::Result<Option<Vec<u8>>> {
    let mut len: Option<usize> = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).await? == 0 {
            return Ok(None);
        }
        let line = line.trim_end_matches(['\r', '\n']);
        if line.is_empty() {
            if len.is_some() {
                break;
            }
            continue; // stray blank line between frames
        }
        if let Some((k, v)) = line.split_once(':') {
            if k.trim().eq_ignore_ascii_case("content-length") {
                len = v.trim().parse().ok();
            }
        }
    }
    let mut buf = vec![0; len.unwrap_or(0)];
    r.read_exact(&mut buf).await?;
    Ok(Some(buf))
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
    let mut r = BufReader::new(input);
    while let Ok(Some(body)) = read_frame(&mut r).await {
        match check_frame(&body) {
            None => {
                if to_server.write_all(&frame(&body)).await.is_err()
                    || to_server.flush().await.is_err()
                {
                    break;
                }
            }
            Some(e) => {
                let _ = errors.send(serde_json::to_vec(&e).unwrap_or_default());
            }
        }
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
    let mut r = BufReader::new(from_server);
    let mut errors_open = true;
    loop {
        let body = tokio::select! {
            f = read_frame(&mut r) => match f {
                Ok(Some(b)) => b,
                _ => break,
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

/// Serves the language server with `engine` on `input`/`output` through the guard.
pub async fn serve<I, O>(engine: std::sync::Arc<dyn super::engine::Engine>, input: I, output: O)
where
    I: AsyncRead + Unpin + Send + 'static,
    O: AsyncWrite + Unpin + Send + 'static,
{
    let (service, socket) = super::service(engine);
    let (server_in, filtered) = tokio::io::duplex(1 << 20);
    let (server_out, merged) = tokio::io::duplex(1 << 20);
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(filter_input(input, filtered, tx));
    let out = tokio::spawn(merge_output(merged, output, rx));
    tower_lsp_server::Server::new(server_in, server_out, socket)
        .serve(service)
        .await;
    let _ = out.await;
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
}
