//! `litmus check` on herd's C tests (the Linux kernel's and C11, `docs/reference.md#c`): when
//! every file of the run is one, each is read (syntax errors as for any test) and the run says
//! that checking them is not available yet, with the test's `Result:` header; exit status 2
//! (nothing was checked). A run that mixes them with other tests (or `--json`) checks the
//! others, and says the same of these under each model.

use litmus_engine::c::source::Outcome;

use super::args::CheckArgs;
use super::{err, exit, out};

fn is_c(text: &str) -> bool {
    super::first_word(text) == "C"
}

/// Reports on the files when every one is a C test; `None` otherwise.
pub fn run(args: &CheckArgs) -> Option<i32> {
    // `--json`: the usual document, each model saying it cannot check these.
    if args.json {
        return None;
    }
    let texts = super::read_if_every(&args.files, is_c)?;
    for (f, text) in args.files.iter().zip(&texts) {
        let path = f.display().to_string();
        let p = litmus_engine::syntax::parse(text);
        let (Some(test), Some(src)) = (&p.test, &p.c) else {
            let index = litmus_engine::LineIndex::new(text);
            for d in p.diagnostics.iter().filter(|d| d.is_error()) {
                let pos = index.line_col(d.span.start);
                err(&format!(
                    "{path}:{}:{}: error: {}",
                    pos.line, pos.col, d.message
                ));
            }
            continue;
        };
        let expected = match src.expected.as_ref().map(|e| (&e.outcome, e.datarace)) {
            None => String::new(),
            Some((o, race)) => {
                let o = match o {
                    Outcome::Never => "Never".to_string(),
                    Outcome::Sometimes => "Sometimes".to_string(),
                    Outcome::Always => "Always".to_string(),
                    Outcome::Maybe => "Maybe".to_string(),
                    Outcome::Deadlock => "DEADLOCK".to_string(),
                    Outcome::Other(s) => s.clone(),
                };
                format!(
                    "; its header expects `Result: {o}{}`",
                    if race { " DATARACE" } else { "" }
                )
            }
        };
        let n = test.threads.len();
        out(&format!(
            "{path}: C test {} ({n} thread{}) read{expected}\n",
            test.name.text,
            if n == 1 { "" } else { "s" }
        ));
    }
    err(&format!("litmus: {}", litmus_engine::c::NOT_AVAILABLE));
    Some(exit::BAD_INPUT)
}
