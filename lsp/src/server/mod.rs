//! The language server (`litmus lsp`; protocol contract and design in `docs/design/lsp.md`).
//!
//! Layers that import one way (`docs/design/lsp.md#layers`, checked by
//! `engine/tests/house.rs`), lowest first: foundations ([`util`], [`engine`], [`position`],
//! [`tokens`], [`config`], ...); the state ([`document`], [`cache`], [`state`]: documents,
//! results, settings, no channel); what reads the state ([`view`], [`verdict`], [`hover`],
//! [`requests`], [`to_proto`], ...: pure functions of a [`state::Snapshot`]); the handle
//! ([`ctx`]: the client, the state's lock, the pool, the main loop's channel; [`msg`] what the
//! loop hears); planning ([`verify`], [`edit`], [`axcheck`], [`fences`], [`cat`]); the loop
//! ([`main_loop`], which owns the running checks); the handlers ([`backend`]: `service`
//! registers every request, thin `LanguageServer` methods; [`custom`]; [`transport`]). This
//! file declares them and nothing any of them imports.
//!
//! Architecture invariants: all mutable state sits in one [`state::State`] behind one lock,
//! never held across an `.await`; edits are applied synchronously in handler order; every
//! verification result carries the job id and program tokens it was computed from and is
//! dropped when the document moved on; engine calls run on worker threads inside
//! `catch_unwind`.

pub mod asm;
pub mod axcheck;
pub mod axiom;
pub mod backend;
pub mod cache;
pub mod cat;
pub mod catdoc;
pub mod cdoc;
pub mod commands;
pub mod complete;
pub mod config;
pub mod ctx;
pub mod custom;
pub mod doc_highlight;
pub mod document;
pub mod edit;
pub mod engine;
pub mod fences;
pub mod format;
pub mod highlight;
pub mod hover;
pub mod main_loop;
pub mod msg;
pub mod plain;
pub mod position;
pub mod queue;
pub mod relaxed;
pub mod rename;
pub mod requests;
pub mod results;
pub mod state;
pub mod symbols;
pub mod target;
pub mod to_proto;
pub mod tokens;
pub mod trace;
pub mod transport;
pub mod unbounded;
pub mod util;
pub mod verdict;
pub mod verify;
pub mod view;
pub mod wsymbols;

/// Runs the server on stdin/stdout; returns the process exit code.
pub fn run_stdio() -> i32 {
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("litmus lsp: cannot start the async runtime: {e}");
            return 1;
        }
    };
    rt.block_on(transport::serve(
        engine::real(),
        tokio::io::stdin(),
        tokio::io::stdout(),
    ));
    // The stdin reader blocks on a thread of its own: do not wait for it (nor for cancelled
    // checks still unwinding) once the client said `exit`.
    rt.shutdown_background();
    0
}
