//! The `litmus` command: `litmus check FILE...` checks litmus tests (see `cli`), `litmus lsp`
//! runs the language server on stdin/stdout (see `server`). Both live in the library
//! (`lib.rs`); this is only the entry point and the counting allocator.

use litmus::{cli, limits, memory, server};

/// Counts allocations so that every check can stop at the memory budget (`memory`).
#[global_allocator]
static ALLOC: memory::Counting = memory::Counting;

use clap::Parser;
use cli::args::{Cli, Command};

fn main() {
    // The default memory budget reads what the process has mapped: before any thread starts.
    memory::default_budget();
    memory::server_default();
    limits::one_arena_under_rlimits();
    // clap exits by itself: status 2 for bad options, 0 for --help and --version.
    let cli = Cli::parse();
    let status = match cli.command {
        Command::Check(args) => cli::check(args),
        Command::Fences(args) => cli::fences::run(args),
        Command::Merge(args) => cli::merge::run(args),
        Command::Diff(args) => cli::diff::run(args),
        Command::Model(args) => cli::model::run(args),
        Command::Lsp(_) => server::run_stdio(),
    };
    std::process::exit(status);
}
