//! Conversions from the server's values (engine spans, diagnostics, views) to LSP types. The only
//! place that builds protocol values from engine data.

use ropey::Rope;
use serde_json::{json, Value};
use tower_lsp_server::ls_types as lsp;

use litmus_engine::ast::Test;
use litmus_engine::{Diagnostic, Model, Severity, Span};

use super::document::Outcome;
use super::position::{self, Encoding};
use super::symbols::{Occurrence, Sym};
use super::tokens::{lex, TokKind};
use super::view::ScheduleView;

pub struct Conv<'a> {
    pub rope: &'a Rope,
    pub enc: Encoding,
    pub uri: &'a lsp::Uri,
}

impl Conv<'_> {
    pub fn range(&self, s: Span) -> lsp::Range {
        position::range(self.rope, self.enc, s)
    }
    pub fn pos(&self, off: u32) -> lsp::Position {
        position::position(self.rope, self.enc, off)
    }
    pub fn location(&self, s: Span) -> lsp::Location {
        lsp::Location {
            uri: self.uri.clone(),
            range: self.range(s),
        }
    }

    pub fn diagnostic(&self, d: &Diagnostic) -> lsp::Diagnostic {
        let severity = match d.severity {
            Severity::Error => lsp::DiagnosticSeverity::ERROR,
            Severity::Warning => lsp::DiagnosticSeverity::WARNING,
            Severity::Info => lsp::DiagnosticSeverity::INFORMATION,
        };
        let related: Vec<lsp::DiagnosticRelatedInformation> = d
            .related
            .iter()
            .map(|r| lsp::DiagnosticRelatedInformation {
                location: self.location(r.span),
                message: r.message.clone(),
            })
            .collect();
        lsp::Diagnostic {
            range: self.range(d.span),
            severity: Some(severity),
            source: Some("litmus".into()),
            message: d.message.clone(),
            related_information: (!related.is_empty()).then_some(related),
            ..Default::default()
        }
    }

    pub fn schedule(&self, v: &ScheduleView) -> Value {
        json!({
            "title": v.title,
            "model": v.model.key(),
            "kind": v.kind,
            "steps": v.steps.iter().map(|(label, span)| json!({
                "label": label,
                "location": { "uri": self.uri.as_str(), "range": self.range(*span) },
            })).collect::<Vec<_>>(),
        })
    }
}

/// `litmus/status` verdict of one model.
pub fn verdict(o: &Outcome) -> &'static str {
    match o {
        Outcome::Running => "running",
        Outcome::Crashed(_) => "incomplete",
        Outcome::Done { report, .. } if !report.violations.is_empty() => "fails",
        Outcome::Done { report, .. } if !report.complete => "incomplete",
        Outcome::Done { .. } => "holds",
    }
}

pub fn status(
    uri: &lsp::Uri,
    version: i32,
    state: &str,
    results: &std::collections::BTreeMap<Model, Outcome>,
) -> Value {
    let verdicts: serde_json::Map<String, Value> = results
        .iter()
        .map(|(m, o)| (m.key().to_string(), Value::from(verdict(o))))
        .collect();
    json!({ "uri": uri.as_str(), "version": version, "state": state, "verdicts": verdicts })
}

pub const TOKEN_TYPES: [lsp::SemanticTokenType; 9] = [
    lsp::SemanticTokenType::KEYWORD,
    lsp::SemanticTokenType::NUMBER,
    lsp::SemanticTokenType::COMMENT,
    lsp::SemanticTokenType::STRING,
    lsp::SemanticTokenType::VARIABLE,
    lsp::SemanticTokenType::PARAMETER,
    lsp::SemanticTokenType::FUNCTION,
    lsp::SemanticTokenType::NAMESPACE,
    lsp::SemanticTokenType::TYPE,
];
pub const TOKEN_MODIFIERS: [lsp::SemanticTokenModifier; 1] =
    [lsp::SemanticTokenModifier::DECLARATION];

pub fn legend() -> lsp::SemanticTokensLegend {
    lsp::SemanticTokensLegend {
        token_types: TOKEN_TYPES.to_vec(),
        token_modifiers: TOKEN_MODIFIERS.to_vec(),
    }
}

const KEYWORDS: &[&str] = &[
    "litmus",
    "shared",
    "mutex",
    "thread",
    "fence",
    "lock",
    "unlock",
    "xchg",
    "cas",
    "fetch_add",
    "assert",
    "assume",
    "await",
    "if",
    "else",
    "while",
    "exists",
    "forall",
    "true",
    "false",
    "final",
    "with",
    "not",
    "X86",
    "x86",
];
const X86_OPS: &[&str] = &["mov", "mfence", "xchg"];

/// Semantic tokens: keywords, numbers, comments and strings from the lexer; names classified by
/// what the AST says they are (shared location, register, thread, mutex, test name).
pub fn semantic_tokens(
    text: &str,
    rope: &Rope,
    enc: Encoding,
    test: Option<&Test>,
    occ: &[Occurrence],
) -> Vec<lsp::SemanticToken> {
    let mut toks: Vec<(Span, u32, u32)> = Vec::new();
    for t in lex(text) {
        let s = &text[t.span.range()];
        let ty = match t.kind {
            TokKind::Number => Some(1),
            TokKind::Comment => Some(2),
            TokKind::Str => Some(3),
            TokKind::Ident => {
                if let Some(o) = occ.iter().find(|o| o.span == t.span) {
                    let ty = match o.sym {
                        Sym::Shared(_) => 4,
                        Sym::Reg(..) => 5,
                        Sym::Thread(_) => 6,
                        Sym::Mutex(_) => 8,
                    };
                    toks.push((t.span, ty, o.decl as u32));
                    continue;
                }
                if test.is_some_and(|t2| t2.name.span == t.span) {
                    Some(7)
                } else if KEYWORDS.contains(&s)
                    || X86_OPS.contains(&s.to_ascii_lowercase().as_str())
                {
                    Some(0)
                } else {
                    None
                }
            }
            TokKind::Punct => None,
        };
        if let Some(ty) = ty {
            toks.push((t.span, ty, 0));
        }
    }
    // Encode relative to the previous token, splitting multi-line tokens per line.
    let mut out = Vec::new();
    let (mut pl, mut pc) = (0u32, 0u32);
    for (span, ty, m) in toks {
        let mut start = span.start as usize;
        let end = span.end as usize;
        while start < end {
            let line_end = text[start..end].find('\n').map_or(end, |i| start + i);
            if line_end > start {
                let a = position::position(rope, enc, start as u32);
                let b = position::position(rope, enc, line_end as u32);
                let dl = a.line - pl;
                let dc = if dl == 0 {
                    a.character - pc
                } else {
                    a.character
                };
                out.push(lsp::SemanticToken {
                    delta_line: dl,
                    delta_start: dc,
                    length: b.character - a.character,
                    token_type: ty,
                    token_modifiers_bitset: m,
                });
                pl = a.line;
                pc = a.character;
            }
            start = line_end + 1;
        }
    }
    out
}
