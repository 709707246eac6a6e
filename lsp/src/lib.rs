//! The `litmus` crate as a library, so that the language server can be driven in-process by the
//! tests in `tests/lsp_*.rs`. The binary (`main.rs`) is only its `main`: it dispatches
//! `litmus check` and the other commands to [`cli`] and `litmus lsp` to [`server::run_stdio`]
//! (everything else lives here, so it is compiled once, not again for the binary). [`json`],
//! every JSON shape litmus prints or sends, is shared by the CLI and the server.

pub mod catmodel;
pub mod cli;
pub mod cmodel;
pub mod ctest;
pub mod dialect;
pub mod jobs;
pub mod json;
pub mod limits;
pub mod memory;
pub mod server;
pub mod steps;
