//! Conversions from the server's values (engine spans, diagnostics, views) to LSP types. The only
//! place that builds protocol values: diagnostics, lenses, hovers, hints, symbols, the
//! schedule and status JSON, progress, capabilities.

use ropey::Rope;
use serde_json::{json, Value};
use tower_lsp_server::ls_types as lsp;

use litmus_engine::{Diagnostic, Model, Severity, Span};

use super::plain::plain;
use super::position::{self, Encoding};
use super::symbols::{Occurrence, Sym};
use super::view::ScheduleView;

pub use super::position::Conv;

/// Protocol values of the views, in the coordinates of one document ([`Conv`] is defined with
/// the positions, `position.rs`, so that the state's [`super::state::Snapshot`] can hold one).
impl Conv<'_> {
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
                message: plain(&r.message),
            })
            .collect();
        lsp::Diagnostic {
            range: self.range(d.span),
            severity: Some(severity),
            source: Some("litmus".into()),
            message: plain(&d.message),
            related_information: (!related.is_empty()).then_some(related),
            ..Default::default()
        }
    }

    /// A lens above the line of `span` with `title` (no command), and a `Show schedule` lens
    /// next to it when there is a schedule.
    pub fn lenses(
        &self,
        span: Span,
        title: Option<String>,
        has_schedule: bool,
    ) -> Vec<lsp::CodeLens> {
        let range = self.range(span);
        let at = lsp::Position::new(range.start.line, 0);
        let lens = |title: String, command: &str, arguments: Option<Vec<Value>>| lsp::CodeLens {
            range: lsp::Range::new(at, at),
            command: Some(lsp::Command {
                title,
                command: command.into(),
                arguments,
            }),
            data: None,
        };
        let mut out: Vec<lsp::CodeLens> = title.map(|t| lens(t, "", None)).into_iter().collect();
        if has_schedule {
            out.push(lens(
                "Show schedule".into(),
                "litmus.showSchedule",
                Some(vec![
                    json!(self.uri.as_str()),
                    json!(range.start.line),
                    json!(range.start.character),
                ]),
            ));
        }
        out
    }

    /// One verdict lens per model above `span`: (title, tooltip, the model whose
    /// counterexample it opens with `litmus.showSchedule [uri, line, character, model]`). The
    /// tooltip travels in `data.tooltip` (LSP 3.17's `Command` has no tooltip; the VS Code
    /// extension moves it onto the lens).
    pub fn verdict_lenses(
        &self,
        span: Span,
        marks: &[(String, String, Option<Model>)],
    ) -> Vec<lsp::CodeLens> {
        let range = self.range(span);
        let at = lsp::Position::new(range.start.line, 0);
        marks
            .iter()
            .map(|(title, tooltip, opens)| lsp::CodeLens {
                range: lsp::Range::new(at, at),
                command: Some(lsp::Command {
                    title: title.clone(),
                    command: if opens.is_some() {
                        "litmus.showSchedule".into()
                    } else {
                        String::new()
                    },
                    arguments: opens.map(|m| {
                        vec![
                            json!(self.uri.as_str()),
                            json!(range.start.line),
                            json!(range.start.character),
                            json!(m.key()),
                        ]
                    }),
                }),
                data: Some(json!({ "tooltip": plain(tooltip) })),
            })
            .collect()
    }

    /// An inlay hint `label` after byte offset `off` (a value read in the counterexample).
    pub fn inlay_hint(&self, off: u32, label: String) -> lsp::InlayHint {
        lsp::InlayHint {
            position: self.pos(off),
            label: lsp::InlayHintLabel::String(label),
            kind: None,
            text_edits: None,
            tooltip: Some(lsp::InlayHintTooltip::String(
                "values read here in each counterexample (or witness): its model, #k when a model has several, ×N when the load ran N times".into(),
            )),
            padding_left: Some(true),
            padding_right: None,
            data: None,
        }
    }

    /// A markdown hover over `span`.
    pub fn hover(&self, markdown: String, span: Span) -> lsp::Hover {
        lsp::Hover {
            contents: lsp::HoverContents::Markup(lsp::MarkupContent {
                kind: lsp::MarkupKind::Markdown,
                value: markdown,
            }),
            range: Some(self.range(span)),
        }
    }

    pub fn document_symbol(&self, n: &SymbolNode) -> lsp::DocumentSymbol {
        let children: Vec<lsp::DocumentSymbol> =
            n.children.iter().map(|c| self.document_symbol(c)).collect();
        #[allow(deprecated)]
        lsp::DocumentSymbol {
            name: n.name.clone(),
            detail: n.detail.clone(),
            kind: n.kind,
            tags: None,
            deprecated: None,
            range: self.range(n.span),
            selection_range: self.range(n.selection),
            children: (!children.is_empty()).then_some(children),
        }
    }

    /// A preferred quick fix `title` whose edit inserts each `(offset, text)`.
    pub fn quick_fix(
        &self,
        title: String,
        insertions: &[(usize, String)],
    ) -> lsp::CodeActionOrCommand {
        let edits: Vec<lsp::TextEdit> = insertions
            .iter()
            .map(|(o, s)| lsp::TextEdit {
                range: self.range(Span::new(*o, *o)),
                new_text: s.clone(),
            })
            .collect();
        let changes = std::collections::HashMap::from([(self.uri.clone(), edits)]);
        lsp::CodeActionOrCommand::CodeAction(lsp::CodeAction {
            title,
            kind: Some(lsp::CodeActionKind::QUICKFIX),
            is_preferred: Some(true),
            edit: Some(lsp::WorkspaceEdit {
                changes: Some(changes),
                ..Default::default()
            }),
            ..Default::default()
        })
    }

    pub fn schedule(&self, v: &ScheduleView) -> Value {
        let s = crate::json::trace::Schedule {
            title: v.title.clone(),
            model: v.model.key(),
            kind: v.kind,
            steps: v
                .steps
                .iter()
                .map(|(label, span)| crate::json::trace::ScheduleStep {
                    label: label.clone(),
                    location: crate::json::trace::Location {
                        uri: self.uri.as_str().into(),
                        range: self.range(*span),
                    },
                })
                .collect(),
        };
        serde_json::to_value(s).expect("a schedule serialises (string keys)")
    }
}

/// `litmus/status {uri, version, state, verdicts, implied, exists?, tooltip, problem?,
/// queued}` (see [`super::verdict::status_body`]).
pub fn status(
    uri: &lsp::Uri,
    version: i32,
    state: &str,
    body: &super::verdict::StatusBody,
    queued: usize,
) -> Value {
    let verdicts: serde_json::Map<String, Value> = body
        .verdicts
        .iter()
        .map(|(m, v)| (m.to_string(), Value::from(*v)))
        .collect();
    let implied: serde_json::Map<String, Value> = body
        .implied
        .iter()
        .map(|(m, by)| (m.to_string(), Value::from(*by)))
        .collect();
    let mut v = json!({
        "uri": uri.as_str(), "version": version, "state": state, "verdicts": verdicts,
        "implied": implied, "tooltip": plain(&body.tooltip), "queued": queued,
    });
    if let Some(e) = &body.exists {
        v["exists"] = json!(e);
    }
    if let Some(p) = &body.problem {
        v["problem"] = json!(plain(p));
    }
    if let Some(l) = body.limit {
        v["limit"] = json!(l);
    }
    v
}

/// A document symbol in byte spans (see [`Conv::document_symbol`]).
pub struct SymbolNode {
    pub name: String,
    pub detail: Option<String>,
    pub kind: lsp::SymbolKind,
    pub span: Span,
    pub selection: Span,
    pub children: Vec<SymbolNode>,
}

impl SymbolNode {
    pub fn leaf(
        name: &str,
        detail: &str,
        kind: lsp::SymbolKind,
        span: Span,
        selection: Span,
    ) -> SymbolNode {
        SymbolNode {
            name: name.into(),
            detail: Some(detail.into()),
            kind,
            span,
            selection,
            children: vec![],
        }
    }
}

/// A diagnostic at the start of the document for an internal error of the server.
pub fn internal_error(message: String) -> lsp::Diagnostic {
    lsp::Diagnostic::new_simple(lsp::Range::default(), message)
}

/// The `workspace/configuration` item the server asks for: the `litmus` section.
pub fn config_item() -> lsp::ConfigurationItem {
    lsp::ConfigurationItem {
        scope_uri: None,
        section: Some("litmus".into()),
    }
}

pub fn semantic_tokens_result(data: Vec<lsp::SemanticToken>) -> lsp::SemanticTokensResult {
    lsp::SemanticTokensResult::Tokens(lsp::SemanticTokens {
        result_id: None,
        data,
    })
}

/// `$/progress` begin, report and end for a job's token.
pub fn progress_begin(token: &str, title: String, message: String) -> lsp::ProgressParams {
    progress(
        token,
        lsp::WorkDoneProgress::Begin(lsp::WorkDoneProgressBegin {
            title,
            cancellable: Some(true),
            message: Some(message),
            percentage: Some(0),
        }),
    )
}
pub fn progress_report(token: &str, message: String, percentage: u32) -> lsp::ProgressParams {
    progress(
        token,
        lsp::WorkDoneProgress::Report(lsp::WorkDoneProgressReport {
            cancellable: Some(true),
            message: Some(message),
            percentage: Some(percentage),
        }),
    )
}
pub fn progress_end(token: &str, message: &str) -> lsp::ProgressParams {
    progress(
        token,
        lsp::WorkDoneProgress::End(lsp::WorkDoneProgressEnd {
            message: Some(message.into()),
        }),
    )
}
fn progress(token: &str, p: lsp::WorkDoneProgress) -> lsp::ProgressParams {
    lsp::ProgressParams {
        token: lsp::NumberOrString::String(token.into()),
        value: lsp::ProgressParamsValue::WorkDone(p),
    }
}

/// The answer to `initialize`: the server's capabilities (UTF-8 positions if the client
/// offered them, else UTF-16).
pub fn initialize_result(utf8: bool) -> lsp::InitializeResult {
    use lsp::*;
    InitializeResult {
        capabilities: ServerCapabilities {
            position_encoding: Some(if utf8 {
                PositionEncodingKind::UTF8
            } else {
                PositionEncodingKind::UTF16
            }),
            text_document_sync: Some(TextDocumentSyncCapability::Options(
                TextDocumentSyncOptions {
                    open_close: Some(true),
                    change: Some(TextDocumentSyncKind::INCREMENTAL),
                    save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                        include_text: Some(false),
                    })),
                    ..Default::default()
                },
            )),
            hover_provider: Some(HoverProviderCapability::Simple(true)),
            code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
            code_lens_provider: Some(CodeLensOptions {
                resolve_provider: Some(false),
            }),
            execute_command_provider: Some(ExecuteCommandOptions {
                commands: vec![
                    "litmus.verify".into(),
                    "litmus.showSchedule".into(),
                    "litmus.cancel".into(),
                    super::commands::VERIFY_UNBOUNDED.into(),
                ],
                ..Default::default()
            }),
            inlay_hint_provider: Some(OneOf::Left(true)),
            document_symbol_provider: Some(OneOf::Left(true)),
            definition_provider: Some(OneOf::Left(true)),
            references_provider: Some(OneOf::Left(true)),
            completion_provider: Some(CompletionOptions {
                trigger_characters: Some(vec![":".into()]),
                ..Default::default()
            }),
            document_highlight_provider: Some(OneOf::Left(true)),
            document_formatting_provider: Some(OneOf::Left(true)),
            workspace_symbol_provider: Some(OneOf::Left(true)),
            rename_provider: Some(OneOf::Right(RenameOptions {
                prepare_provider: Some(true),
                work_done_progress_options: Default::default(),
            })),
            semantic_tokens_provider: Some(
                SemanticTokensServerCapabilities::SemanticTokensOptions(SemanticTokensOptions {
                    legend: legend(),
                    full: Some(SemanticTokensFullOptions::Bool(true)),
                    range: Some(false),
                    ..Default::default()
                }),
            ),
            ..Default::default()
        },
        server_info: Some(ServerInfo {
            name: "litmus".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
        ..Default::default()
    }
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

/// Semantic tokens: what the grammar's highlights query colours ([`super::highlight`]), with
/// names classified by what the AST says they are (shared location, register, thread, mutex)
/// where the front end resolved them.
pub fn semantic_tokens(
    text: &str,
    rope: &Rope,
    enc: Encoding,
    occ: &[Occurrence],
) -> Vec<lsp::SemanticToken> {
    let mut toks: Vec<(Span, u32, u32)> = occ
        .iter()
        .map(|o| {
            let ty = match o.sym {
                Sym::Shared(_) => 4,
                Sym::Reg(..) => 5,
                Sym::Thread(_) => 6,
                Sym::Mutex(_) => 8,
            };
            (o.span, ty, o.decl as u32)
        })
        .collect();
    toks.sort_by_key(|t| t.0.start);
    toks.dedup_by_key(|t| t.0);
    let resolved = toks.clone();
    for (span, ty) in super::highlight::captures(text) {
        // `resolved` is sorted and disjoint, so its ends are sorted too.
        let i = resolved.partition_point(|o| o.0.end <= span.start);
        if resolved.get(i).is_none_or(|o| o.0.start >= span.end) {
            toks.push((span, ty, 0));
        }
    }
    toks.sort_by_key(|t| t.0.start);
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
