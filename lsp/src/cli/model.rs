//! `litmus model` (`docs/models.md#litmus-model`): the built-in cat models and library files,
//! listed, printed, or written out as files to start a model of one's own from.

use std::path::PathBuf;

use clap::Args;

use crate::catmodel::builtin;

use super::{err, exit, out};

pub const EXAMPLES: &str = "\
Examples:
  litmus model
      the built-in models and library files
  litmus model aarch64 > mine.cat
      the AArch64 model's text
  litmus model aarch64 --write models/
      models/aarch64.cat and the library files it needs (models/stdlib.cat, ...)

Exit status: 0, or 2 for an unknown name or a file that cannot be written.";

#[derive(Debug, Args)]
pub struct ModelArgs {
    /// A built-in model (aarch64, riscv, ppc, arm, rc11, sc, x86tso) or library file (stdlib.cat, cross.cat,
    /// cos.cat, cos-opt.cat); without it, the list.
    #[arg(value_name = "NAME")]
    pub name: Option<String>,
    /// Write the model and the library files it needs into DIR (created if missing) instead of
    /// printing it.
    #[arg(long, value_name = "DIR")]
    pub write: Option<PathBuf>,
    /// With --write: replace files that exist with other contents.
    #[arg(long, requires = "write")]
    pub force: bool,
}

pub fn run(args: ModelArgs) -> i32 {
    let Some(name) = args.name else {
        let mut s = String::from("models:\n");
        for (n, f, what, _) in builtin::MODELS {
            s += &format!("  {n:<8} {f:<12} {what}\n");
        }
        s += "library (MIT, litmus's own; `include` finds them before any file):\n";
        for (f, _) in litmus_engine::cat::LIBRARY {
            s += &format!("  {f}\n");
        }
        out(&s);
        return exit::OK;
    };
    match args.write {
        None => match builtin::find(&name) {
            Some((_, text)) => {
                out(text);
                exit::OK
            }
            None => {
                err(&format!("litmus: no built-in model or library file `{name}` (`litmus model` lists them)"));
                exit::BAD_INPUT
            }
        },
        Some(dir) => match builtin::write(&name, &dir, args.force) {
            Ok(files) => {
                for f in files {
                    out(&format!("{}\n", f.display()));
                }
                exit::OK
            }
            Err(e) => {
                err(&format!("litmus: {e}"));
                exit::BAD_INPUT
            }
        },
    }
}
