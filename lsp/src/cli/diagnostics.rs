//! Compiler-style rendering of front-end diagnostics with codespan-reporting: the header names
//! `file:line:col`, the source line is shown with a caret under the range, and each related
//! position ("first declared here") is both labelled in the snippet and named as a
//! `file:line:col` note.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity as CsSeverity};
use codespan_reporting::files::SimpleFile;
use codespan_reporting::term::{self, termcolor::Buffer, Config};
use litmus_engine::{Diagnostic, LineIndex, Severity};

/// Renders `diags` (in source order) of the file `path` (whose text `index` holds) as one string.
pub fn render(path: &str, index: &LineIndex, diags: &[Diagnostic], color: bool) -> String {
    let file = SimpleFile::new(path, index.text());
    let config = Config::default();
    let mut buf = if color {
        Buffer::ansi()
    } else {
        Buffer::no_color()
    };
    // In source order, as a reader goes through the file.
    let mut sorted: Vec<&Diagnostic> = diags.iter().collect();
    sorted.sort_by_key(|d| (d.span.start, d.span.end));
    for d in sorted {
        let cs = convert(path, index, d);
        if term::emit_to_write_style(&mut buf, &config, &file, &cs).is_err() {
            // A span outside the text (which the front end never makes): fall back to a line.
            let lc = index.line_col(d.span.start);
            let fallback = format!(
                "{}: {}:{}:{}: {}\n",
                severity_word(d.severity),
                path,
                lc.line,
                lc.col,
                d.message
            );
            let _ = std::io::Write::write_all(&mut buf, fallback.as_bytes());
        }
    }
    String::from_utf8_lossy(buf.as_slice()).into_owned()
}

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A byte range clamped to the text and to char boundaries, so rendering never fails.
fn clamp(index: &LineIndex, span: litmus_engine::Span) -> std::ops::Range<usize> {
    let text = index.text();
    let fix = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let (s, e) = (fix(span.start as usize), fix(span.end as usize));
    s..e.max(s)
}

fn convert(path: &str, index: &LineIndex, d: &Diagnostic) -> CsDiagnostic<()> {
    let severity = match d.severity {
        Severity::Error => CsSeverity::Error,
        Severity::Warning => CsSeverity::Warning,
        Severity::Info => CsSeverity::Note,
    };
    let mut labels = vec![Label::primary((), clamp(index, d.span))];
    let mut notes = Vec::new();
    for r in &d.related {
        labels.push(Label::secondary((), clamp(index, r.span)).with_message(&r.message));
        let lc = index.line_col(r.span.start);
        notes.push(format!("{}: {}:{}:{}", r.message, path, lc.line, lc.col));
    }
    CsDiagnostic::new(severity)
        .with_message(&d.message)
        .with_labels(labels)
        .with_notes(notes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use litmus_engine::Span;

    #[test]
    fn renders_position_source_line_and_caret() {
        let text = "litmus T\nshared x;\nthread P0 {\n  x = 1\n}\n";
        let index = LineIndex::new(text);
        let at = text.find("x = 1").unwrap() + 5;
        let d = Diagnostic::error(Span::new(at, at + 1), "expected `;`")
            .with_related(Span::new(16, 17), "`x` declared here");
        let out = render("t.litmus", &index, &[d], false);
        assert!(out.starts_with("error: expected `;`"), "{out}");
        assert!(out.contains("t.litmus:4:8"), "{out}");
        assert!(out.contains("  x = 1"), "{out}");
        assert!(out.contains('^'), "{out}");
        assert!(out.contains("`x` declared here: t.litmus:2:8"), "{out}");
    }

    #[test]
    fn spans_past_the_end_do_not_fail() {
        let index = LineIndex::new("é");
        let d = Diagnostic::error(Span::new(1, 99), "odd span");
        let out = render("t.litmus", &index, &[d], false);
        assert!(out.contains("odd span"), "{out}");
    }
}
