//! Command-line syntax (`docs/reference.md#check`), declared with clap's derive API.
//!
//! clap reports a bad option or value itself and exits with status 2, which is the status the
//! spec gives to bad options; `--help` and `--version` exit 0.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};
use litmus_engine::{CheckOptions, EngineChoice, Model, ENGINES};

const CHECK_EXAMPLES: &str = "\
Examples:
  litmus check examples/sb.litmus
      SB under SC, TSO and PSO, herd7-style, with schedules for every violation
  litmus check --model tso --json examples/*.litmus
      one JSON document (version 2) for several files, TSO only (other dialects refused)
  litmus check --engine exhaustive --loop-bound 4 --timeout 10 examples/dekker.litmus
      the reference explorer, loops unrolled at most 4 times, at most 10 s per model
  litmus check -q -j 4 catalogue/*.litmus
      a catalogue, four files at a time, one line per test and model, in argument order
  litmus check --json --shard 2/8 catalogue/*.litmus > part2.json; litmus merge part*.json
      the second of eight shards (files 2, 10, 18, ...); merge prints the unsharded document

Exit status:
  0  every assertion and condition holds in every model checked
  1  a violation (failed assert, forall/~exists that does not hold, runtime error, deadlock)
  2  unreadable input, a syntax or name error (that file is not checked; the others are), or bad options
  3  exploration was incomplete (timeout, Ctrl-C, memory budget) and found no violation
  141  stdout was closed early (`litmus check ... | head`): the rest is not printed";

/// A checker for litmus tests: native and x86 under the SC, TSO and PSO memory models,
/// AArch64 and RISC-V under their architectures' axiomatic models.
#[derive(Debug, Parser)]
#[command(
    name = "litmus",
    version,
    propagate_version = true,
    arg_required_else_help = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check litmus tests under each memory model and report states, verdicts and violations.
    #[command(after_help = CHECK_EXAMPLES)]
    Check(CheckArgs),
    /// Propose the fewest fences that make TSO/PSO give SC's verdicts (or make it robust).
    #[command(after_help = super::fences::EXAMPLES)]
    Fences(super::fences::FencesArgs),
    /// Combine the JSON documents of `litmus check --json --shard K/N` runs into the document
    /// of the unsharded run (files in argument order); exit status as `litmus check`'s.
    #[command(after_help = MERGE_EXAMPLES)]
    Merge(MergeArgs),
    /// Compare two cat models over AArch64, RISC-V and x86 tests: the tests whose verdicts differ.
    #[command(after_help = super::diff::EXAMPLES)]
    Diff(super::diff::DiffArgs),
    /// List, print or write out the built-in cat models and library files.
    #[command(after_help = super::model::EXAMPLES)]
    Model(super::model::ModelArgs),
    /// Run the language server on standard input and output.
    Lsp(LspArgs),
}

const MERGE_EXAMPLES: &str = "\
Examples:
  for k in 1 2 3; do litmus check --json --shard $k/3 tests/*.litmus > shard$k.json; done
  litmus merge shard1.json shard2.json shard3.json > all.json
      the same document as `litmus check --json tests/*.litmus`, timings aside

Exit status: 2 if a document is unreadable, not a shard's, or the shards do not make up one
run (each K of 1..N exactly once, the same N and file count); otherwise that of the unsharded
run: 2 if a file had an error, else 1 if a violation, else 3 if incomplete, else 0.";

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shards' JSON documents, in any order (`-` reads standard input).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Litmus test files (`-` reads standard input).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Models to check, comma separated: sc, tso, pso (native and x86 tests), aarch64,
    /// riscv, ppc, arm (AArch64, RISC-V, POWER and ARMv7 tests). Each file is checked under the listed models of its
    /// dialect; a file of a dialect none is listed for is refused. Default: every model of
    /// each file's dialect.
    #[arg(
        long,
        value_name = "MODELS",
        value_delimiter = ',',
        value_parser = parse_model_key
    )]
    pub model: Vec<String>,

    /// Print one JSON document (version 2) instead of text.
    #[arg(long)]
    pub json: bool,

    /// Exploration engine: DPOR and the reference explorer (and MCR where a thread loops
    /// without awaiting under PSO) as a deterministic portfolio (default), maximal causality
    /// reduction, the reference explorer, or stateless DPOR over chronological traces.
    #[arg(long, value_enum, value_name = "ENGINE", default_value_t = Engine(EngineChoice::Auto))]
    pub engine: Engine,

    /// How many checks to run at once, one check being one model of one file (default: one
    /// per core). Output stays in argument order, identical to `-j 1`. A run of C tests alone
    /// checks them one after another, each on N threads.
    #[arg(short = 'j', long = "jobs", value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub jobs: Option<u32>,

    /// Check only the K-th, (K+N)-th, (K+2N)-th ... files (K from 1 to N); `litmus merge`
    /// combines the shards' JSON documents.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub shard: Option<(usize, usize)>,

    /// MCR without the static dependency graph pruning.
    #[arg(long)]
    pub no_sdg: bool,

    /// Print each test's static dependency graph (control and data dependences per thread,
    /// as `text` or Graphviz `dot`: `--dump-sdg=dot`) instead of checking it.
    #[arg(long, value_enum, value_name = "FORMAT", num_args = 0..=1, require_equals = true, default_missing_value = "text", conflicts_with = "json")]
    pub dump_sdg: Option<SdgFormat>,

    /// AArch64 and RISC-V tests: check against this cat model (herd's language) in place of
    /// the project's own model for the architecture; `include "f"` reads `f` beside it. A
    /// native or x86 file in the run is refused (they are checked operationally).
    /// C tests: the model to check them under (with `--bell` and `--macros`).
    #[arg(long, value_name = "FILE")]
    pub cat: Option<PathBuf>,

    /// C tests: herd's `-conf` file (`linux-kernel.cfg`): its `macros`, `bell`, `model` and
    /// `variant` lines, paths relative to the file's folder. Without `--conf` or `--cat`,
    /// `tools/memory-model/linux-kernel.cfg` or `linux-kernel.cfg` is looked for in the
    /// test's folder and the folders above it.
    #[arg(long, value_name = "FILE")]
    pub conf: Option<PathBuf>,

    /// C tests, with `--cat`: the bell file run before the model (herd's `-bell`).
    #[arg(long, value_name = "FILE", requires = "cat")]
    pub bell: Option<PathBuf>,

    /// C tests, with `--cat`: the `.def` file that defines the macros (herd's `-macros`).
    #[arg(long, value_name = "FILE", requires = "cat")]
    pub macros: Option<PathBuf>,

    /// C tests: a variant the model tests (`if "lkmmv2"`), added to the `.cfg` file's.
    #[arg(long, value_name = "NAME")]
    pub variant: Vec<String>,

    /// herd's C tests: which executions to examine. `true`: only those relevant to the
    /// condition (herd7's `-speedcheck true`: exact verdict, the counts theirs alone);
    /// `false`: every one; `auto`: every one unless there are more than 32,768
    /// combinations of thread paths or a full count needs more than 50,000 model runs.
    #[arg(long, value_enum, value_name = "WHEN", default_value = "auto")]
    pub speedcheck: Speedcheck,

    /// Print each violation's and witness's execution as a graph of events (po, rf, co, fr)
    /// in place of its schedule: `--graph dot`, one Graphviz digraph each. Text output only.
    #[arg(long, value_enum, value_name = "FORMAT", conflicts_with_all = ["json", "quiet"])]
    pub graph: Option<GraphFormat>,

    /// How often a `while` loop may run its body in one execution.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub loop_bound: u32,

    /// Stop each model at its first violation and report it (exit 1, `"stopped":
    /// "first-violation"` in JSON).
    #[arg(long)]
    pub first: bool,

    /// Time limit per test and model; exploration then ends incomplete (exit 3).
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    pub timeout: Option<Duration>,

    // The help names the default this process would take and why (`memory::describe_default`).
    #[arg(long, value_name = "MIB", value_parser = parse_max_memory, help = max_memory_help())]
    pub max_memory: Option<u64>,

    /// When to use colours in text output and diagnostics.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,

    /// Print one summary line per test and model instead of herd's block and schedules.
    #[arg(short, long, conflicts_with = "json")]
    pub quiet: bool,

    /// Also decide robustness under TSO and PSO: is every execution equivalent to an SC one?
    /// A program that is not robust makes the exit status 1.
    #[arg(long)]
    pub robust: bool,

    /// Answer for every number of loop iterations instead of up to `--loop-bound`: per
    /// model, the test holds for every iteration, a violation (its schedule replays with the
    /// loop bound printed), or unknown with the reason.
    #[arg(long)]
    pub unbounded: bool,
}

impl CheckArgs {
    /// The options given that only the operational models take (`--robust`, `--unbounded`,
    /// `--engine`): an axiomatically checked file says they have no effect on it.
    pub fn operational_only(&self) -> Vec<String> {
        let mut given = Vec::new();
        if self.robust {
            given.push("--robust".to_string());
        }
        if self.unbounded {
            given.push("--unbounded".to_string());
        }
        if self.engine.kind() != EngineChoice::Auto {
            given.push(format!("--engine {}", self.engine.kind().key()));
        }
        given
    }

    /// The operational models to check, each once, in the canonical order SC, TSO, PSO:
    /// those `--model` lists, or all three without `--model`.
    pub fn models(&self) -> Vec<Model> {
        let mut models: Vec<Model> = if self.model.is_empty() {
            vec![Model::Sc, Model::Tso, Model::Pso]
        } else {
            self.model.iter().filter_map(|k| Model::parse(k)).collect()
        };
        models.sort();
        models.dedup();
        models
    }

    /// Whether the model of key `key` is to be checked (every model without `--model`).
    pub fn wants(&self, key: &str) -> bool {
        self.model.is_empty() || self.model.iter().any(|k| k == key)
    }

    pub fn check_options(&self) -> CheckOptions {
        CheckOptions {
            engine: self.engine.kind(),
            sdg: !self.no_sdg,
            loop_bound: self.loop_bound,
            timeout: self.timeout,
            first: self.first,
        }
    }
}

#[derive(Debug, Args)]
pub struct LspArgs {
    /// Use standard input and output (the only transport; accepted because editors pass it).
    #[arg(long)]
    pub stdio: bool,
}

/// An engine on the command line: the names and help lines of the engine's one table
/// ([`litmus_engine::ENGINES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Engine(pub EngineChoice);

impl Engine {
    const ALL: [Engine; ENGINES.len()] = [
        Engine(ENGINES[0].1),
        Engine(ENGINES[1].1),
        Engine(ENGINES[2].1),
        Engine(ENGINES[3].1),
    ];
    pub fn kind(self) -> EngineChoice {
        self.0
    }
}

impl ValueEnum for Engine {
    fn value_variants<'a>() -> &'a [Self] {
        &Engine::ALL
    }
    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        let (name, _, help) = ENGINES.iter().find(|e| e.1 == self.0)?;
        Some(clap::builder::PossibleValue::new(*name).help(*help))
    }
}

/// `--speedcheck`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Speedcheck {
    Auto,
    True,
    False,
}

impl Speedcheck {
    pub fn explore(self) -> litmus_engine::axiomatic::Explore {
        use litmus_engine::axiomatic::Explore;
        match self {
            Speedcheck::Auto => Explore::Auto,
            Speedcheck::True => Explore::Relevant,
            Speedcheck::False => Explore::Full,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SdgFormat {
    /// One line per instruction: successors, control and data dependences.
    Text,
    /// A Graphviz digraph (`dot -Tsvg`).
    Dot,
}

/// `--graph`: how an execution graph is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    /// A Graphviz digraph (`dot -Tsvg`).
    Dot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    /// Colour when writing to a terminal and `NO_COLOR` is not set.
    Auto,
    Always,
    Never,
}

fn parse_model_key(s: &str) -> Result<String, String> {
    let k = s.trim().to_ascii_lowercase();
    if crate::dialect::is_model(&k) {
        Ok(k)
    } else {
        Err(format!(
            "unknown model `{s}` (expected sc, tso, pso, aarch64, riscv, ppc or arm)"
        ))
    }
}

/// `K/N` with 1 <= K <= N.
fn parse_shard(s: &str) -> Result<(usize, usize), String> {
    let bad = || format!("`{s}` is not a shard K/N with 1 <= K <= N (e.g. 2/8)");
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let k: usize = k.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    if k == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

fn parse_timeout(s: &str) -> Result<Duration, String> {
    let secs: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds (e.g. 10 or 0.5)"))?;
    if !secs.is_finite() || secs < 0.0 {
        return Err(format!("`{s}` is not a non-negative number of seconds"));
    }
    if secs > MAX_TIMEOUT_SECS {
        return Err(format!(
            "`{s}` seconds is too long (at most {MAX_TIMEOUT_SECS}, a year)"
        ));
    }
    Duration::try_from_secs_f64(secs).map_err(|_| format!("`{s}` seconds is too long"))
}

/// The longest `--timeout` accepted: a year.
pub const MAX_TIMEOUT_SECS: f64 = 365.0 * 24.0 * 3600.0;

/// The help of `--max-memory`, with this process's default and where it comes from.
fn max_memory_help() -> String {
    format!(
        "Memory budget for the whole run in MiB, shared by every file and model: a check that \
         reaches it stops, incomplete (exit 3), with what it found. Default: half the smallest \
         of physical memory, the process's cgroup limit, RLIMIT_AS and RLIMIT_DATA, at most \
         8 GiB; here {}",
        crate::memory::describe_default()
    )
}

fn parse_max_memory(s: &str) -> Result<u64, String> {
    use crate::memory::{MAX_MIB, MIN_MIB};
    let n: u64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a whole number of MiB (e.g. 4096)"))?;
    if !(MIN_MIB..=MAX_MIB).contains(&n) {
        return Err(format!(
            "`{s}` MiB is out of range ({MIN_MIB} to {MAX_MIB})"
        ));
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn command_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn models_are_deduplicated_in_canonical_order() {
        let cli = Cli::try_parse_from(["litmus", "check", "--model", "pso,sc,tso,sc", "a.litmus"])
            .unwrap();
        let Command::Check(args) = cli.command else {
            panic!("not check")
        };
        assert_eq!(args.models(), vec![Model::Sc, Model::Tso, Model::Pso]);
        assert!(!args.wants("aarch64"));
        let cli = Cli::try_parse_from(["litmus", "check", "--model", "riscv", "a.litmus"]).unwrap();
        let Command::Check(args) = cli.command else {
            panic!("not check")
        };
        assert!(args.models().is_empty());
        assert!(args.wants("riscv") && !args.wants("sc"));
        assert!(Cli::try_parse_from(["litmus", "check", "--model", "armv9", "a.litmus"]).is_err());
    }

    #[test]
    fn timeout_accepts_fractions_and_rejects_garbage() {
        assert_eq!(parse_timeout("0.5"), Ok(Duration::from_millis(500)));
        assert!(parse_timeout("-1").is_err());
        assert!(parse_timeout("soon").is_err());
        assert!(parse_timeout("inf").is_err());
        assert!(parse_timeout("1e19").is_err());
        assert!(parse_max_memory("0").is_err());
        assert!(parse_max_memory("18446744073709551615").is_err());
        assert_eq!(parse_max_memory("512"), Ok(512));
    }

    #[test]
    fn auto_is_the_default_engine() {
        let cli = Cli::try_parse_from(["litmus", "check", "a.litmus"]).unwrap();
        let Command::Check(args) = cli.command else {
            panic!("not check")
        };
        let opts = args.check_options();
        assert_eq!(opts.engine, EngineChoice::Auto);
        assert!(opts.sdg);
        assert_eq!((args.jobs, args.shard), (None, None));
    }

    #[test]
    fn shards_are_k_of_n() {
        assert_eq!(parse_shard("2/8"), Ok((2, 8)));
        assert_eq!(parse_shard("1/1"), Ok((1, 1)));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "-1/2"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
        assert!(Cli::try_parse_from(["litmus", "check", "-j", "0", "a.litmus"]).is_err());
    }

    #[test]
    fn options_map_to_check_options() {
        let cli = Cli::try_parse_from([
            "litmus",
            "check",
            "--engine",
            "exhaustive",
            "--no-sdg",
            "--loop-bound",
            "3",
            "--timeout",
            "2",
            "a.litmus",
        ])
        .unwrap();
        let Command::Check(args) = cli.command else {
            panic!("not check")
        };
        let opts = args.check_options();
        assert_eq!(opts.engine, litmus_engine::EngineKind::Exhaustive.into());
        assert!(!opts.sdg);
        assert_eq!(opts.loop_bound, 3);
        assert_eq!(opts.timeout, Some(Duration::from_secs(2)));
    }
}
