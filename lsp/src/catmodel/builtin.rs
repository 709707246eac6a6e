//! The built-in models and the project's cat library as files (`litmus model`, the editor's
//! "Write out a built-in model" command): a model is written with the library files it needs:
//! `stdlib.cat` (in scope in every model, as herd's is) and the files its `include`s name.

use std::path::{Path, PathBuf};

use litmus_engine::axiomatic::{
    AARCH64_CAT, ARM_CAT, PPC_CAT, RC11_CAT, RISCV_CAT, SC_CAT, X86TSO_CAT,
};
use litmus_engine::cat::{library_file, LIBRARY};

/// The built-in models: name, file name, what it is, text.
pub const MODELS: [(&str, &str, &str, &str); 7] = [
    (
        "aarch64",
        "aarch64.cat",
        "AArch64 (the Arm ARM's memory model)",
        AARCH64_CAT,
    ),
    ("riscv", "riscv.cat", "RISC-V (RVWMO)", RISCV_CAT),
    ("ppc", "ppc.cat", "POWER (\"Herding cats\")", PPC_CAT),
    ("arm", "arm.cat", "ARMv7 (\"Herding cats\")", ARM_CAT),
    (
        "rc11",
        "rc11.cat",
        "RC11 (C11 atomics, Lahav et al. PLDI 2017)",
        RC11_CAT,
    ),
    (
        "sc",
        "sc.cat",
        "sequential consistency (x86 tests' axiomatic check)",
        SC_CAT,
    ),
    (
        "x86tso",
        "x86tso.cat",
        "x86-TSO (x86 tests' axiomatic check)",
        X86TSO_CAT,
    ),
];

/// A built-in model or library file by name (`aarch64`, `aarch64.cat`, `stdlib.cat`,
/// `stdlib`): its file name and text.
pub fn find(name: &str) -> Option<(&'static str, &'static str)> {
    let stem = name.strip_suffix(".cat").unwrap_or(name);
    MODELS
        .iter()
        .find(|m| m.0 == stem)
        .map(|m| (m.1, m.3))
        .or_else(|| {
            LIBRARY
                .iter()
                .find(|(f, _)| f.strip_suffix(".cat") == Some(stem))
                .map(|(f, t)| (*f, *t))
        })
}

/// The file name of the project's model for `arch` (`aarch64.cat`), which the axiomatic
/// check of its tests runs.
pub fn file_of(arch: litmus_engine::asm::Arch) -> Option<&'static str> {
    use litmus_engine::asm::Arch;
    let key = match arch {
        Arch::AArch64 => "aarch64",
        Arch::RiscV => "riscv",
        Arch::Ppc => "ppc",
        Arch::Arm => "arm",
    };
    MODELS.iter().find(|m| m.0 == key).map(|m| m.1)
}

/// The file names of the library files `text` needs: `stdlib.cat` first, then what it
/// includes (and they include), each once.
pub fn needs(text: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = vec!["stdlib.cat"];
    let mut todo = vec![text.to_string()];
    while let Some(t) = todo.pop() {
        for (f, _) in litmus_engine::cat::outline(&t).includes {
            if let Some((name, lib)) = LIBRARY.iter().find(|(n, _)| *n == f) {
                if !out.contains(name) {
                    out.push(name);
                    todo.push(lib.to_string());
                }
            }
        }
    }
    out
}

/// Writes `name` (a model or a library file) and the library files it needs into `dir`
/// (created if missing). A file already there with other contents is left alone and is an
/// error unless `force`. Returns the files written or already identical.
pub fn write(name: &str, dir: &Path, force: bool) -> Result<Vec<PathBuf>, String> {
    let (file, text) = find(name).ok_or_else(|| {
        format!(
            "no built-in model or library file `{name}` (models: {}; library: {})",
            MODELS.map(|m| m.0).join(", "),
            LIBRARY.map(|l| l.0).join(", ")
        )
    })?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut files = vec![(file, text)];
    for lib in needs(text) {
        if lib != file {
            files.push((lib, library_file(lib).unwrap_or_default()));
        }
    }
    // Every conflict is found before anything is written.
    for (f, t) in &files {
        let p = dir.join(f);
        match std::fs::read_to_string(&p) {
            Ok(old) if old != *t && !force => {
                return Err(format!(
                    "{} exists with other contents (use --force to replace it)",
                    p.display()
                ))
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (f, t) in &files {
        let p = dir.join(f);
        if std::fs::read_to_string(&p).ok().as_deref() != Some(*t) {
            std::fs::write(&p, t).map_err(|e| format!("{}: {e}", p.display()))?;
        }
        out.push(p);
    }
    Ok(out)
}
