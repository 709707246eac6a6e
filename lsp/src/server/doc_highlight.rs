//! `textDocument/documentHighlight`, a pure function of a [`Snapshot`]: every use of the
//! location, register, mutex or thread under the cursor, a write (store, assignment, RMW,
//! `lock`/`unlock`) as `WRITE`, a read as `READ`, a declaration as `TEXT`.

use tower_lsp_server::ls_types::*;

use super::position;
use super::state::Snapshot;
use super::symbols;

pub fn highlights(s: &Snapshot<'_>, pos: Position) -> Option<Vec<DocumentHighlight>> {
    let d = s.doc;
    let test = d.test.as_deref()?;
    let occ = symbols::occurrences(test, &d.text);
    let off = position::offset(&d.rope, s.conv.enc, pos) as u32;
    let sym = symbols::at(&occ, off)?.sym.clone();
    Some(
        occ.iter()
            .filter(|o| o.sym == sym)
            .map(|o| DocumentHighlight {
                range: s.conv.range(o.span),
                kind: Some(if o.decl {
                    DocumentHighlightKind::TEXT
                } else if o.write {
                    DocumentHighlightKind::WRITE
                } else {
                    DocumentHighlightKind::READ
                }),
            })
            .collect(),
    )
}
