//! Store buffers: FIFOs of buffered stores.

use super::WriteId;
use crate::span::Span;

/// A buffered store.
#[derive(Clone, Debug)]
pub struct BufEntry {
    pub cell: u32,
    pub value: i64,
    pub write: WriteId,
    pub span: Span,
    pub po: u32,
}
