//! Helpers shared by the `cli_*` tests: run the real `litmus` binary and look at what it did.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub mod reproducers;

/// The workspace root (where `examples/` lives).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn example(name: &str) -> String {
    root().join("examples").join(name).display().to_string()
}

/// The `litmus` binary, run from the workspace root.
pub fn litmus() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_litmus"));
    c.current_dir(root()).env_remove("NO_COLOR");
    c
}

pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }
}

impl From<Output> for Run {
    fn from(o: Output) -> Run {
        Run {
            status: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

/// Runs `litmus ARGS...` to completion.
pub fn run(args: &[&str]) -> Run {
    litmus()
        .args(args)
        .output()
        .expect("cannot run the litmus binary")
        .into()
}

/// Writes `text` to a fresh file named `name` under the test's scratch directory.
pub fn scratch(test: &str, name: &str, text: &[u8]) -> String {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(test);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// A native test with `threads` threads of `ops` store/load pairs each over four locations:
/// far too many interleavings to explore quickly under PSO.
pub fn big_program(threads: usize, ops: usize) -> String {
    let mut s = String::from("litmus Big\nshared a = 0, b = 0, c = 0, d = 0;\n");
    let locs = ["a", "b", "c", "d"];
    for t in 0..threads {
        s.push_str(&format!("thread P{t} {{\n"));
        for i in 0..ops {
            let w = locs[(t + i) % 4];
            let r = locs[(t + i + 1) % 4];
            s.push_str(&format!("  {w} = {};\n  r{i} = {r};\n", t * 100 + i + 1));
        }
        s.push_str("}\n");
    }
    s.push_str("exists (a == 1)\n");
    s
}
