//! The language server (`litmus lsp`). Placeholder until the server lands.

/// Runs the server on stdin/stdout; returns the process exit code.
pub fn run_stdio() -> i32 {
    eprintln!("litmus lsp: the language server is not built yet");
    2
}
