//! Small helpers every layer of the server uses: a lock that survives a poisoned mutex, a
//! panic's message, a computation whose panic becomes an internal error response.

use std::sync::{Mutex, MutexGuard};

use tower_lsp_server::jsonrpc::{Error, Result};

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

pub(crate) fn panic_message(e: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = e.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = e.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".into()
    }
}

/// Runs a request's computation, turning a panic into an internal error response.
pub(crate) fn guard<T>(f: impl FnOnce() -> T) -> Result<T> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|e| {
        let mut err = Error::internal_error();
        err.message = format!("internal error: {}", panic_message(&*e)).into();
        err
    })
}
