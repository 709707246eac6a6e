//! herd's C tests in the editor (`docs/editors.md#c-tests`): checked on open and save like the
//! AArch64 and RISC-V tests (`super::axiom`, the same job, state and views), under the model
//! the CLI would find (`crate::ctest`): the `.cfg` the setting `litmus.modelPath` names (a
//! `.cfg` file, or a folder holding `linux-kernel.cfg` or `tools/memory-model/linux-kernel.cfg`;
//! the one setting for every model, `docs/models.md`), else `tools/memory-model/linux-kernel.cfg`
//! or `linux-kernel.cfg` in the document's folder or above it (a kernel tree, no setting
//! needed). The answer is herd's block and observation judged against the test's `Result:`
//! header; with no model found, one warning on the test's first line says which files were
//! looked for, where they come from, and the setting.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::engine::AxFail;
use litmus_engine::Workers;

use crate::ctest::Models;
use crate::dialect::{self, Loaded};
use crate::json::axview::{AxView, CParts};

/// The `.cfg` file the setting names, if it names one (a `.cat` file is the cat editor's model,
/// not a C test's).
pub fn setting_cfg(setting: Option<&Path>) -> Option<PathBuf> {
    let p = setting?;
    if p.is_dir() {
        return [
            p.join("linux-kernel.cfg"),
            p.join("tools/memory-model/linux-kernel.cfg"),
        ]
        .into_iter()
        .find(|c| c.is_file());
    }
    (p.extension().is_some_and(|e| e == "cfg")).then(|| p.to_path_buf())
}

/// Checks the C test `text` (the document at `path`, `None` when it is not a file) under its
/// model (`setting`: the `.cfg` or folder `litmus.modelPath` names, and the folders of
/// `litmus.includePath` for the model's includes), on this thread and the `workers` slots no
/// job holds; `stop` cancels it.
pub fn check(
    workers: Option<&Workers>,
    models: &Models,
    (setting, include): (Option<PathBuf>, &[PathBuf]),
    path: Option<PathBuf>,
    text: &str,
    uri: &str,
    stop: &dyn Fn() -> bool,
) -> Result<Arc<AxView>, AxFail> {
    let p = litmus_engine::syntax::parse(text);
    let (Some(test), Some(src)) = (p.test, p.c) else {
        return Err(AxFail {
            message: "the test does not parse".into(),
            span: None,
        });
    };
    let top = Some(test.name.span);
    let found = match (setting_cfg(setting.as_deref()), &path) {
        (Some(cfg), _) => models.for_cfg_in(&cfg, include),
        (None, Some(path)) => models.for_test_in(path, src.uses_c11(), include),
        (None, None) => models.fallback(Path::new(uri), src.uses_c11()),
    };
    let m = match &*found {
        Ok(m) => m,
        Err(e) => {
            let mut message = e.clone();
            if e.starts_with("no memory model") {
                message += ", or set `litmus.modelPath` to the model's `linux-kernel.cfg` \
                            (or the folder holding it)";
            }
            return Err(AxFail { message, span: top });
        }
    };
    let extra = dialect::borrow_free(workers);
    let loaded = Loaded {
        test: &test,
        text,
        asm: None,
        c: Some(&src),
        cmodel: Some(&*found),
        jobs: 1 + extra.len(),
    };
    let a = (dialect::C.check)(&loaded, None, stop).map_err(|e| AxFail {
        message: e.message,
        span: e.span,
    })?;
    let c = a.c.as_ref().ok_or_else(|| AxFail {
        message: "no judgement".into(),
        span: None,
    })?;
    let threads = src.threads.iter().map(|t| t.name.text.clone()).collect();
    let parts = CParts {
        report: &a.report,
        threads,
        locs: &a.locs,
        block: &a.block,
        c,
    };
    let mut view = AxView::c(uri, &m.name, &test, text, parts);
    view.files = Some(m.files.clone());
    Ok(Arc::new(view))
}
