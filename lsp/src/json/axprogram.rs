//! The `litmus/axiomatic` view of a lowered program's check (`axiomatic::check_program`: an x86
//! test, `X86` or `X86_64`, under `sc.cat`, `x86tso.cat` or a user's model): the same reply as
//! an AArch64 test's ([`AxView`]), its events' locations named by the program's cells, herd's
//! block written from the program's final states (every named register, then every cell).

use std::fmt::Write as _;

use litmus_engine::ast::{Dialect, Quantifier, Test};
use litmus_engine::axiomatic::ProgramReport;
use litmus_engine::ir::Program;

use super::axview::{condition_text, graph, verdict_word, AxView};

/// herd's block of a program's answer.
fn block(test: &Test, text: &str, r: &ProgramReport, ok: bool) -> Vec<String> {
    let name = &test.name.text;
    let quantifier = test.condition.as_ref().map(|c| c.quantifier);
    let kind = match quantifier {
        Some(Quantifier::NotExists) => "Forbidden",
        Some(Quantifier::Forall) => "Required",
        _ => "Allowed",
    };
    let mut out = vec![
        format!("Test {name} {kind}"),
        format!("States {}", r.states.len()),
    ];
    for s in &r.states {
        let mut line = String::new();
        for (k, v) in &s.0 {
            let _ = write!(line, "{k}={v}; ");
        }
        out.push(line.trim_end().to_string());
    }
    out.push(if ok { "Ok" } else { "No" }.into());
    out.push("Witnesses".into());
    out.push(format!("Positive: {} Negative: {}", r.positive, r.negative));
    out.push(format!("Condition {}", condition_text(test, text)));
    let obs = match (r.positive, r.negative) {
        (0, _) => "Never",
        (_, 0) => "Always",
        _ => "Sometimes",
    };
    out.push(format!(
        "Observation {name} {obs} {} {}",
        r.positive, r.negative
    ));
    out
}

impl AxView {
    /// The view of `program` (lowered from `test`, the text `text`) checked under `model`
    /// (`r`); `None` when the test has no final condition.
    pub fn program(
        uri: &str,
        model: &str,
        test: &Test,
        program: &Program,
        text: &str,
        r: &ProgramReport,
    ) -> Option<AxView> {
        let c = r.condition.as_ref()?;
        let loc = |a: i64| {
            usize::try_from(a)
                .ok()
                .and_then(|a| program.cells.get(a))
                .cloned()
                .unwrap_or_else(|| format!("{a:#x}"))
        };
        let threads: Vec<String> = test.threads.iter().map(|t| t.name.text.clone()).collect();
        let execution = match (&r.witness, &r.forbidden) {
            (Some(w), _) => Some(graph(threads, &loc, w, "witness")),
            (None, Some(f)) => Some(graph(threads, &loc, f, "forbidden")),
            _ => None,
        };
        let mut view = AxView {
            uri: uri.into(),
            test: test.name.text.clone(),
            arch: if test.dialect == Dialect::X86_64 {
                "X86_64"
            } else {
                "X86"
            },
            model: model.into(),
            condition: condition_text(test, text),
            quantifier: c.kind.as_str(),
            herd: if c.holds { "Ok" } else { "No" },
            verdict: verdict_word(r.positive),
            positive: r.positive,
            negative: r.negative,
            block: block(test, text, r, c.holds),
            execution,
            text: vec![],
            judgement: None,
            files: None,
        };
        view.text = view.words();
        Some(view)
    }
}
