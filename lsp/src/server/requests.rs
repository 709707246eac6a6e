//! The requests, as pure functions of a [`Snapshot`] (one document, the settings) to protocol
//! values: code lenses, the schedule of `litmus.showSchedule`, inlay hints, document symbols,
//! definition, references and semantic tokens. The hover is in [`super::hover`]. What to show
//! comes from [`view`] and [`symbols`] (byte spans); the protocol values from [`to_proto`].

use serde_json::Value;
use tower_lsp_server::ls_types::*;

use super::state::Snapshot;
use super::to_proto::{self, SymbolNode};
use super::{position, symbols, trace, view};
use litmus_engine::Model;

/// The verdict lenses above the test, each assertion and the final condition: one per model
/// (each ✗ opens that model's counterexample), a note naming the models still exploring, and
/// `Show schedule` when there is a schedule. Before any model has a result, one lens says so.
pub fn code_lenses(s: &Snapshot<'_>) -> Option<Vec<CodeLens>> {
    if let Some(l) = super::axiom::lenses(s) {
        return Some(l);
    }
    let d = s.doc;
    let test = d.test.as_ref()?;
    let models = &s.settings.models;
    let verified = models.iter().any(|m| d.results.contains_key(m));
    let lenses = view::lenses(test, models, &d.results);
    Some(
        lenses
            .into_iter()
            .flat_map(|(span, title, has_schedule)| {
                if !verified {
                    return s.conv.lenses(span, Some(title), has_schedule);
                }
                let target = view::target_at(test, span);
                let marks = trace::verdict_marks(test, target, models, &d.results);
                let mut out = s.conv.verdict_lenses(span, &marks);
                out.extend(s.conv.lenses(
                    span,
                    view::exploring_note(models, &d.results),
                    has_schedule,
                ));
                if span == test.name.span {
                    out.extend(super::unbounded::lenses(s));
                }
                out
            })
            .collect(),
    )
}

/// `litmus.showSchedule [uri, line, character] | [uri]`: the schedule nearest the position (or
/// the first violation, else a witness), or `None`.
pub fn show_schedule(
    s: &Snapshot<'_>,
    at: Option<Position>,
    model: Option<Model>,
) -> Option<Value> {
    let d = s.doc;
    let test = d.test.as_ref()?;
    let off = at.map(|p| position::offset(&d.rope, s.conv.enc, p) as u32);
    let v = view::schedule_view(test, &d.text, &d.results, off, model)?;
    Some(s.conv.schedule(&v))
}

/// The values read in the shown counterexample, within `range`.
pub fn inlay_hints(s: &Snapshot<'_>, range: Range) -> Option<Vec<InlayHint>> {
    let d = s.doc;
    let test = d.test.as_ref()?;
    Some(
        view::inlay_hints(test, &d.text, &d.results)
            .into_iter()
            .map(|(off, label)| s.conv.inlay_hint(off, label))
            .filter(|h| h.position >= range.start && h.position <= range.end)
            .collect(),
    )
}

/// The test, its shared variables, mutexes, threads and final condition.
pub fn document_symbols(s: &Snapshot<'_>) -> Option<DocumentSymbolResponse> {
    let d = s.doc;
    let test = d.test.as_ref()?;
    let mut children = Vec::new();
    for v in &test.shared {
        let name = symbols::name_span(&d.text, v.name.span, &v.name.text);
        children.push(SymbolNode::leaf(
            &v.name.text,
            "shared",
            SymbolKind::VARIABLE,
            v.span.cover(name),
            name,
        ));
    }
    for m in &test.mutexes {
        children.push(SymbolNode::leaf(
            &m.text,
            "mutex",
            SymbolKind::OBJECT,
            m.span,
            m.span,
        ));
    }
    for t in &test.threads {
        let name = symbols::name_span(&d.text, t.name.span, &t.name.text);
        children.push(SymbolNode::leaf(
            &t.name.text,
            "thread",
            SymbolKind::FUNCTION,
            t.span.cover(name),
            name,
        ));
    }
    if let Some(c) = &test.condition {
        children.push(SymbolNode::leaf(
            c.quantifier.as_str(),
            "final condition",
            SymbolKind::BOOLEAN,
            c.span,
            c.span,
        ));
    }
    let name = symbols::name_span(&d.text, test.name.span, &test.name.text);
    let top = SymbolNode {
        name: test.name.text.clone(),
        detail: test.description.clone(),
        kind: SymbolKind::MODULE,
        span: test.span.cover(name),
        selection: name,
        children,
    };
    Some(DocumentSymbolResponse::Nested(vec![s
        .conv
        .document_symbol(&top)]))
}

/// Where the variable, register, mutex or thread at `pos` is defined.
pub fn definition(s: &Snapshot<'_>, pos: Position) -> Option<GotoDefinitionResponse> {
    let d = s.doc;
    let test = d.test.as_ref()?;
    let occ = symbols::occurrences(test, &d.text);
    let off = position::offset(&d.rope, s.conv.enc, pos) as u32;
    let o = symbols::at(&occ, off)?;
    let def = symbols::definition(&occ, &o.sym)?;
    Some(GotoDefinitionResponse::Scalar(s.conv.location(def.span)))
}

/// Every occurrence of the symbol at `pos` (its definition only if `include_decl`).
pub fn references(s: &Snapshot<'_>, pos: Position, include_decl: bool) -> Option<Vec<Location>> {
    let d = s.doc;
    let test = d.test.as_ref()?;
    let occ = symbols::occurrences(test, &d.text);
    let off = position::offset(&d.rope, s.conv.enc, pos) as u32;
    let sym = symbols::at(&occ, off)?.sym.clone();
    let def = symbols::definition(&occ, &sym).map(|o| o.span);
    Some(
        occ.iter()
            .filter(|o| o.sym == sym && (include_decl || Some(o.span) != def))
            .map(|o| s.conv.location(o.span))
            .collect(),
    )
}

/// Semantic tokens of the whole document (also when it does not parse).
pub fn semantic_tokens(s: &Snapshot<'_>) -> Option<SemanticTokensResult> {
    let d = s.doc;
    let occ = d
        .test
        .as_ref()
        .map(|t| symbols::occurrences(t, &d.text))
        .unwrap_or_default();
    let data = to_proto::semantic_tokens(&d.text, &d.rope, s.conv.enc, &occ);
    Some(to_proto::semantic_tokens_result(data))
}
