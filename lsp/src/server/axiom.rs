//! herd's AArch64 and RISC-V tests in the editor (`docs/design/lsp.md#axiomatic-tests`): on
//! open and save (where SC/TSO/PSO tests start their checks, `verify::start`) the axiomatic
//! engine checks the document against the project's model for its architecture, as a job like
//! the others: through [`super::engine::Engine::axiomatic`], on a blocking thread after a place
//! in the queue, cancelled by the next check, a close or shutdown. Its answer is kept on the
//! document for the program it was computed from and shown as a diagnostic at the condition,
//! a lens above it, a hover on it, and the `litmus/axiomatic` reply (the graph of the witness or
//! of the forbidding cycle, `crate::json::axview`).

use std::sync::Arc;

use serde::Deserialize;
use tower_lsp_server::ls_types::*;

use litmus_engine::ast::{Quantifier, Test};
use litmus_engine::{Diagnostic as EDiag, Severity, Span};

use super::document::AxState;
use super::document::Document;
use super::engine::AxFail;
use super::state::Snapshot;
use super::verdict::StatusBody;
use crate::json::axsite::AxLocation;
use crate::json::axview::AxView;

pub const METHOD: &str = "litmus/axiomatic";

/// Whether `test` is herd's AArch64, RISC-V, POWER, ARMv7 or C (checked here, not by the
/// operational engines; C tests under the user's model, `super::cdoc`).
pub fn is_asm(test: &Test) -> bool {
    test.dialect.is_asm() || is_c(test)
}

pub(super) fn is_c(test: &Test) -> bool {
    test.dialect == litmus_engine::ast::Dialect::C
}

/// The key of the program a result belongs to: the program tokens and the condition.
pub(super) fn key(d: &Document) -> String {
    format!("{}\n{}", d.tokens.key, d.cond_key)
}

/// The answer shown for the document's current program, if any.
pub fn current(d: &Document) -> Option<&std::result::Result<Arc<AxView>, AxFail>> {
    match &d.axiom {
        Some(AxState::Done { key: k, answer }) if *k == key(d) => Some(answer),
        _ => None,
    }
}

/// Where the check that forbids the shown execution is, and its words (`acyclic ob`), for the
/// diagnostic's related information.
pub fn check_location(d: &Document) -> Option<(&AxLocation, String)> {
    let c = current(d)?
        .as_ref()
        .ok()?
        .execution
        .as_ref()?
        .check
        .as_ref()?;
    Some((c.location.as_ref()?, format!("{} {}", c.kind, c.name)))
}

/// The hover's link to a check: `[aarch64.cat:45](file:///…#L45)`.
fn check_link(l: &AxLocation) -> String {
    let file = l.uri.rsplit('/').next().unwrap_or("model");
    let line = l.range.start.line + 1;
    format!("[{file}:{line}]({}#L{line})", l.uri)
}

pub(super) fn running(d: &Document) -> bool {
    matches!(&d.axiom, Some(AxState::Running(j)) if j.key == key(d))
}

/// Where the verdict is shown: the condition, else the test's name.
fn anchor(test: &Test) -> Span {
    test.condition.as_ref().map_or(test.name.span, |c| c.span)
}

/// The verdict as a diagnostic at the condition: information for an answered `exists` or a
/// `~exists`/`forall` that holds, an error for one that does not, a warning when the test
/// cannot be checked.
pub fn diagnostics(d: &Document) -> Vec<EDiag> {
    let Some(test) = d.test.as_deref().filter(|t| is_asm(t)) else {
        return vec![];
    };
    match current(d) {
        None => vec![],
        Some(Err(f)) => vec![EDiag::warning(
            f.span.unwrap_or(anchor(test)),
            format!("cannot check with the axiomatic engine: {}", f.message),
        )],
        Some(Ok(v)) => {
            let failed = v.failed();
            let mut message = v.headline();
            if let Some(c) = v.cycle_line() {
                message += &format!("; forbidden by {c}");
            }
            let mut diag = EDiag::warning(anchor(test), message);
            diag.severity = if !failed {
                Severity::Info
            } else if v.judgement.is_some() {
                // a C test whose answer disagrees with its `Result:` header: on the header
                diag.span = v
                    .judgement
                    .as_ref()
                    .and_then(|j| j.header)
                    .unwrap_or(diag.span);
                Severity::Warning
            } else {
                Severity::Error
            };
            vec![diag]
        }
    }
}

/// The `litmus/status` body of an AArch64 or RISC-V document (`None` for any other): its
/// model's verdict by the model's key (`aarch64`, `riscv`: `holds`, `fails` for a `~exists` or
/// `forall` that does not hold, `incomplete` when it cannot be checked, `running`), herd's
/// answer to an `exists` (`ok`/`no`), and a tooltip in the lens's words.
pub fn status_body(d: &Document, problem: Option<String>) -> Option<StatusBody> {
    let test = d.test.as_deref().filter(|t| is_asm(t))?;
    let crate::dialect::Models::Axiomatic(model) = crate::dialect::models(test.dialect) else {
        return None;
    };
    let (verdict, exists, line) = match current(d) {
        None if running(d) => ("running", None, format!("{}: checking…", model.name)),
        None => return None,
        Some(Err(f)) => (
            "incomplete",
            Some("unknown"),
            format!("{}: cannot check: {}", model.name, f.message),
        ),
        Some(Ok(v)) => {
            let failed = v.failed();
            let mut line = v.headline();
            if let Some(c) = v.cycle_line() {
                line += &format!("; forbidden by {c}");
            }
            (
                if failed { "fails" } else { "holds" },
                Some(if v.herd == "Ok" { "ok" } else { "no" }),
                line,
            )
        }
    };
    let exists = exists
        .filter(|_| test.condition.as_ref().map(|c| c.quantifier) == Some(Quantifier::Exists))
        .map(|a| [(model.key, a)].into_iter().collect());
    Some(StatusBody {
        verdicts: vec![(model.key, verdict)],
        implied: vec![],
        exists,
        tooltip: if is_c(test) {
            format!(
                "{line}\n\nherd's observation (Never, Sometimes, Always) judged against the test's \
                 `Result:` header as the kernel's judgelitmus.sh does: ✓ agrees, ✗ disagrees."
            )
        } else {
            format!(
                "{line}\n\n{} Ok: the condition's state is allowed, No: it is forbidden (herd's answers); \
                 ✓ nothing fails, ✗ a ~exists or forall does not hold.",
                model.name
            )
        },
        problem,
        limit: None,
    })
}

/// The lens above the condition: `AArch64 No: forbidden (acyclic ob)`, `RISCV Ok: allowed`,
/// opening the graph (`litmus.showAxiomatic [uri]`, a client command) when there is one.
pub fn lenses(s: &Snapshot<'_>) -> Option<Vec<CodeLens>> {
    let d = s.doc;
    let test = d.test.as_deref().filter(|t| is_asm(t))?;
    let title = match current(d) {
        None if running(d) => "checking (axiomatic)…".to_string(),
        None => return Some(vec![]),
        Some(Err(_)) => "cannot check ⚠".to_string(),
        Some(Ok(v)) => lens_title(v),
    };
    let at = s.conv.range(anchor(test)).start;
    let at = Position::new(at.line, 0);
    let graph = matches!(current(d), Some(Ok(v)) if v.execution.is_some());
    let lens = CodeLens {
        range: Range::new(at, at),
        command: Some(Command {
            title,
            command: if graph {
                "litmus.showAxiomatic".into()
            } else {
                String::new()
            },
            arguments: graph.then(|| vec![serde_json::json!(s.conv.uri.as_str())]),
        }),
        data: None,
    };
    Some(vec![lens])
}

pub fn lens_title(v: &AxView) -> String {
    if let Some(j) = &v.judgement {
        let mark = match j.agrees {
            Some(true) => "✓ agrees with its “Result:” header",
            Some(false) => "✗ DISAGREES with its “Result:” header",
            None => "no “Result:” header",
        };
        let (p, n) = (v.positive, v.negative);
        return format!("C {} {p} {n} {mark} · {}", j.observation, v.model);
    }
    let why = v
        .execution
        .as_ref()
        .and_then(|x| x.check.as_ref())
        .map_or(String::new(), |c| format!(" ({} {})", c.kind, c.name));
    format!("{} {}: {}{why} · {}", v.arch, v.herd, v.verdict, v.model)
}

/// The hover on the condition: herd's block, the check and the cycle.
pub fn hover(s: &Snapshot<'_>, off: u32) -> Option<Hover> {
    let d = s.doc;
    let test = d.test.as_deref().filter(|t| is_asm(t))?;
    let span = anchor(test);
    if off < span.start || off > span.end {
        return None;
    }
    let md = match current(d)? {
        Err(f) => format!("**Cannot check** with the axiomatic engine: {}", f.message),
        Ok(v) => {
            let mut md = format!("**{}**\n\n", v.headline());
            if let Some(c) = v.cycle_line() {
                md += &format!("Forbidden by `{c}`");
                let at = v.execution.as_ref().and_then(|x| x.check.as_ref());
                if let Some(l) = at.and_then(|c| c.location.as_ref()) {
                    md += &format!(" (the check: {})", check_link(l));
                }
                md += "\n\n";
            }
            md += &format!("```\n{}\n```\n", v.block.join("\n"));
            if v.execution.is_some() {
                md += &format!(
                    "\n[Show the execution graph](command:litmus.showAxiomatic?{})\n",
                    urlencode(&serde_json::json!([s.conv.uri.as_str()]).to_string())
                );
            }
            md
        }
    };
    Some(s.conv.hover(md, span))
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[derive(Deserialize)]
pub struct AxParams {
    pub uri: Uri,
}
