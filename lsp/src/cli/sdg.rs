//! `litmus check --dump-sdg`: each test's static dependence graph instead of a check.

use std::io::Write;

use super::args::{self, CheckArgs};
use super::{bad_files_note, diagnostics_text, err, exit, load, out, FileRun};

/// `--dump-sdg`: every file's static dependence graph instead of a check.
pub fn dump(
    args: &CheckArgs,
    positions: &[usize],
    ctl: &litmus_engine::Control,
    opts: &litmus_engine::CheckOptions,
    format: args::SdgFormat,
    color_err: bool,
) -> i32 {
    let files: Vec<FileRun> = positions
        .iter()
        .map(|&i| load(&args.files[i - 1], ctl, opts))
        .collect();
    for f in files.iter().filter(|_| !args.json) {
        let d = diagnostics_text(f, &f.diagnostics, color_err);
        if !d.is_empty() {
            let mut e = std::io::stderr().lock();
            let _ = e.write_all(d.as_bytes()).and_then(|_| e.flush());
        }
    }
    let bad = files.iter().filter(|f| f.has_errors()).count();
    if bad > 0 && !args.json {
        bad_files_note(bad, files.len());
    }
    for (fi, f) in files.iter().enumerate() {
        let (Some(test), Some(index)) = (&f.test, &f.index) else {
            continue;
        };
        let program = match litmus_engine::ir::Program::lower(test, opts.loop_bound) {
            Ok(p) => p,
            Err(e) => {
                err(&format!("litmus: {}: cannot lower: {e}", f.path));
                return exit::BAD_INPUT;
            }
        };
        let sdg = litmus_engine::sdg::Sdg::new(&program);
        if fi > 0 {
            out("\n");
        }
        out(&match format {
            args::SdgFormat::Text => {
                format!("# {}\n{}", f.path, sdg.dump_text(&program, index))
            }
            args::SdgFormat::Dot => sdg.dump_dot(&program),
        });
    }
    if bad > 0 {
        exit::BAD_INPUT
    } else {
        exit::OK
    }
}
