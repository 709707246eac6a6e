//! `litmus check` on herd's C tests (the Linux kernel's and C11, `docs/reference.md#c`): when
//! every file of the run is one, each is checked by the axiomatic engine under the model the
//! options name or the one found above the test ([`super::cmodel`]), printed as herd prints
//! it, followed by one line comparing the answer with the test's `Result:` header as the
//! kernel's `judgelitmus.sh` does. Exit status: 2 when a file does not parse or cannot be
//! checked (no model found among them), else 1 when some answer disagrees with its header,
//! else 0. A run that mixes them with other tests (or `--json`) checks the others and says
//! that checking these is not available in such a run.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use litmus_engine::ast::{Quantifier, Test};
use litmus_engine::axiomatic::{check_c_with, CReport};
use litmus_engine::c::source::{Expected, Outcome};

use super::args::CheckArgs;
use super::cmodel::{self, CModel};
use super::{err, exit, out};

fn is_c(text: &str) -> bool {
    super::first_word(text) == "C"
}

/// herd's observation from the counts.
fn observation(r: &CReport) -> &'static str {
    match (r.positive, r.negative) {
        (0, _) => "Never",
        (_, 0) => "Always",
        _ => "Sometimes",
    }
}

/// The answer against the `Result:` header, as `judgelitmus.sh` judges it: `Ok(line)` when
/// they agree, `Err(line)` when not.
pub fn judge(expected: &Expected, r: &CReport) -> Result<String, String> {
    let obs = observation(r);
    let race = r.flags.iter().any(|f| f == "data-race");
    // Only the relevant executions examined (`CReport::partial`): what they tell is whether
    // some execution satisfies the condition (`exists`) or violates it (`forall`).
    let some = |never: bool| match r.quantifier {
        Quantifier::Forall => !never || r.negative > 0,
        _ => (r.positive > 0) != never,
    };
    let (want, outcome_ok) = match &expected.outcome {
        Outcome::Never if r.partial => ("Never".to_string(), some(true)),
        Outcome::Sometimes if r.partial => ("Sometimes".to_string(), some(false)),
        Outcome::Always if r.partial => ("Always".to_string(), {
            match r.quantifier {
                Quantifier::Forall => r.negative == 0,
                _ => r.positive > 0,
            }
        }),
        Outcome::Never => ("Never".to_string(), obs == "Never"),
        Outcome::Sometimes => ("Sometimes".to_string(), obs == "Sometimes"),
        Outcome::Always => ("Always".to_string(), obs == "Always"),
        Outcome::Maybe => ("Maybe".to_string(), true),
        // herd writes a test no execution of which completes as `Never 0 0`
        Outcome::Deadlock => ("DEADLOCK".to_string(), r.positive == 0 && r.negative == 0),
        Outcome::Other(s) => (s.clone(), false),
    };
    let header = format!(
        "Result: {want}{}",
        if expected.datarace { " DATARACE" } else { "" }
    );
    let got = format!(
        "{obs} {} {}{}",
        r.positive,
        r.negative,
        if race { " with Flag data-race" } else { "" }
    );
    // a partial run sees the flags of the relevant executions alone
    let race_ok = expected.datarace == race
        || expected.outcome == Outcome::Maybe
        || (r.partial && expected.datarace);
    let got = if r.partial {
        format!("{got} (relevant executions only)")
    } else {
        got
    };
    if outcome_ok && race_ok {
        Ok(format!("agrees with its header `{header}`: {got}"))
    } else {
        Err(format!("DISAGREES with its header `{header}`: {got}"))
    }
}

/// herd's block for a C test.
fn block(test: &Test, text: &str, r: &CReport) -> String {
    let mut s = String::new();
    let name = &test.name.text;
    let kind = match r.quantifier {
        Quantifier::Exists => "Allowed",
        Quantifier::NotExists => "Forbidden",
        Quantifier::Forall => "Required",
    };
    let _ = writeln!(s, "Test {name} {kind}");
    let _ = writeln!(s, "States {}", r.states.len());
    for line in &r.states {
        let _ = writeln!(s, "{line}");
    }
    let _ = writeln!(s, "{}", if r.ok { "Ok" } else { "No" });
    let _ = writeln!(s, "Witnesses");
    let _ = writeln!(s, "Positive: {} Negative: {}", r.positive, r.negative);
    for f in &r.flags {
        let _ = writeln!(s, "Flag {f}");
    }
    let cond = test.condition.as_ref().map_or("", |c| {
        text.get(c.span.start as usize..c.span.end as usize)
            .unwrap_or("")
    });
    let cond = cond.split_whitespace().collect::<Vec<_>>().join(" ");
    let _ = writeln!(s, "Condition {cond}");
    let _ = writeln!(
        s,
        "Observation {name} {} {} {}",
        observation(r),
        r.positive,
        r.negative
    );
    if r.partial {
        let _ = writeln!(
            s,
            "Speedcheck: only the executions relevant to the condition were examined, as \
             herd7 -speedcheck true does (by default when a test has more than {} \
             combinations of thread paths); the verdict is exact, the counts, states and \
             flags are theirs alone; `--speedcheck false` examines every execution",
            litmus_engine::axiomatic::FULL_COMBOS
        );
    }
    s
}

/// Checks the files when every one is a C test; `None` otherwise.
pub fn run(args: &CheckArgs) -> Option<i32> {
    // `--json`: the usual document, each model saying it cannot check these.
    if args.json {
        return None;
    }
    let texts = super::read_if_every(&args.files, is_c)?;
    // the model the options name, or per test the one found above it (read once per file)
    let named: Option<Result<CModel, String>> = cmodel::from_args(args);
    if let Some(Err(e)) = &named {
        err(&format!("litmus: {e}"));
        return Some(exit::BAD_INPUT);
    }
    let named = named.and_then(Result::ok);
    let mut found: HashMap<PathBuf, Result<CModel, String>> = HashMap::new();
    let mut status = exit::OK;
    let (mut disagree, mut judged) = (0, 0);
    for (f, text) in args.files.iter().zip(&texts) {
        let path = f.display().to_string();
        let p = litmus_engine::syntax::parse(text);
        let index = litmus_engine::LineIndex::new(text);
        let (Some(test), Some(src)) = (&p.test, &p.c) else {
            for d in p.diagnostics.iter().filter(|d| d.is_error()) {
                let pos = index.line_col(d.span.start);
                err(&format!(
                    "{path}:{}:{}: error: {}",
                    pos.line, pos.col, d.message
                ));
            }
            status = exit::BAD_INPUT;
            continue;
        };
        let m = match &named {
            Some(m) => m,
            None => {
                let Some(cfg) = cmodel::find_cfg(f) else {
                    err(&format!("litmus: {}", cmodel::missing(f)));
                    status = exit::BAD_INPUT;
                    continue;
                };
                let entry = found
                    .entry(cfg.clone())
                    .or_insert_with(|| cmodel::from_cfg(&cfg, &args.variant));
                match entry {
                    Ok(m) => &*m,
                    Err(e) => {
                        err(&format!("litmus: {e}"));
                        status = exit::BAD_INPUT;
                        continue;
                    }
                }
            }
        };
        let prog = match litmus_engine::c::lower(src, &m.defs) {
            Ok(prog) => prog,
            Err(diags) => {
                for d in diags {
                    let pos = index.line_col(d.span.start);
                    err(&format!(
                        "{path}:{}:{}: error: {}",
                        pos.line, pos.col, d.message
                    ));
                }
                status = exit::BAD_INPUT;
                continue;
            }
        };
        let r = match check_c_with(
            test,
            src,
            &prog,
            &m.model,
            &m.variants,
            args.speedcheck.explore(),
            &|| false,
        ) {
            Ok(r) => r,
            Err(e) => {
                let at = e.span.map(|s| {
                    let pos = index.line_col(s.start);
                    format!("{}:{}: ", pos.line, pos.col)
                });
                err(&format!(
                    "litmus: {path}:{}cannot check: {e}",
                    at.unwrap_or_default()
                ));
                status = exit::BAD_INPUT;
                continue;
            }
        };
        let mut s = String::new();
        if args.files.len() > 1 {
            let _ = writeln!(s, "# {path}");
        }
        let _ = writeln!(s, "{path}: model {}", m.name);
        s += &block(test, text, &r);
        match src.expected.as_ref().map(|e| judge(e, &r)) {
            None => {
                let _ = writeln!(s, "{path}: no `Result:` header to compare with");
            }
            Some(Ok(line)) => {
                judged += 1;
                let _ = writeln!(s, "{path}: {line}");
            }
            Some(Err(line)) => {
                judged += 1;
                disagree += 1;
                let _ = writeln!(s, "{path}: {line}");
            }
        }
        s.push('\n');
        out(&s);
    }
    if disagree > 0 {
        out(&format!(
            "litmus: {disagree} of {judged} C tests disagree with their `Result:` header\n"
        ));
        if status == exit::OK {
            status = exit::VIOLATION;
        }
    }
    Some(status)
}
