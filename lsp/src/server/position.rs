//! Byte offsets (the engine's [`Span`]s) to LSP positions and back, in the negotiated encoding.
//!
//! LSP positions are `(line, character)` where `character` counts UTF-16 code units by default,
//! or bytes when the client offers `utf-8` in `general.positionEncodings`. The text lives in a
//! [`ropey::Rope`], which converts between bytes, chars and UTF-16 units in O(log n).

use ropey::Rope;
use tower_lsp_server::ls_types::{Position, Range};

use litmus_engine::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Encoding {
    #[default]
    Utf16,
    Utf8,
}

/// A position in `rope` for byte offset `off` (clamped to the text and to a char boundary).
pub fn position(rope: &Rope, enc: Encoding, off: u32) -> Position {
    let off = (off as usize).min(rope.len_bytes());
    // Back to a char boundary.
    let ch = rope.byte_to_char(off);
    let off = rope.char_to_byte(ch);
    let line = rope.byte_to_line(off);
    let line_byte = rope.line_to_byte(line);
    let character = match enc {
        Encoding::Utf8 => off - line_byte,
        Encoding::Utf16 => {
            rope.char_to_utf16_cu(ch) - rope.char_to_utf16_cu(rope.line_to_char(line))
        }
    };
    Position {
        line: line as u32,
        character: character as u32,
    }
}

pub fn range(rope: &Rope, enc: Encoding, span: Span) -> Range {
    Range {
        start: position(rope, enc, span.start),
        end: position(rope, enc, span.end),
    }
}

/// The byte offset of an LSP position; a position past the end of its line clamps to the end of
/// the line (before its newline), a line past the end clamps to the end of the text.
pub fn offset(rope: &Rope, enc: Encoding, pos: Position) -> usize {
    let line = pos.line as usize;
    if line >= rope.len_lines() {
        return rope.len_bytes();
    }
    let line_byte = rope.line_to_byte(line);
    let line_slice = rope.line(line);
    // Length of the line without its line break.
    let mut content = line_slice.len_bytes();
    let mut chars = line_slice.chars_at(line_slice.len_chars());
    while let Some(c) = chars.prev() {
        if c == '\n' || c == '\r' {
            content -= 1;
        } else {
            break;
        }
    }
    let within = match enc {
        Encoding::Utf8 => {
            let b = (pos.character as usize).min(content);
            // Round down to a char boundary.
            let ch = rope.byte_to_char(line_byte + b);
            rope.char_to_byte(ch) - line_byte
        }
        Encoding::Utf16 => {
            let line_char = rope.line_to_char(line);
            let base = rope.char_to_utf16_cu(line_char);
            let target = base + pos.character as usize;
            let end_char = rope.byte_to_char(line_byte + content);
            let max = rope.char_to_utf16_cu(end_char);
            let ch = rope.utf16_cu_to_char(target.min(max));
            rope.char_to_byte(ch) - line_byte
        }
    };
    line_byte + within
}

/// A document's coordinates: byte spans to LSP ranges and locations (the protocol values built
/// from them are in `to_proto.rs`).
#[derive(Clone, Copy)]
pub struct Conv<'a> {
    pub rope: &'a Rope,
    pub enc: Encoding,
    pub uri: &'a tower_lsp_server::ls_types::Uri,
}

impl Conv<'_> {
    pub fn range(&self, s: Span) -> Range {
        range(self.rope, self.enc, s)
    }
    pub fn pos(&self, off: u32) -> Position {
        position(self.rope, self.enc, off)
    }
    pub fn location(&self, s: Span) -> tower_lsp_server::ls_types::Location {
        tower_lsp_server::ls_types::Location {
            uri: self.uri.clone(),
            range: self.range(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_and_utf8_round_trip_after_non_ascii() {
        // 'é' is 2 bytes / 1 UTF-16 unit; '😀' is 4 bytes / 2 UTF-16 units.
        let text = "// é😀\nx = 1;\n";
        let rope = Rope::from_str(text);
        let x_on_line0 = text.find('😀').unwrap() as u32 + 4; // end of line 0 content
        assert_eq!(
            position(&rope, Encoding::Utf16, x_on_line0),
            Position::new(0, 6)
        );
        assert_eq!(
            position(&rope, Encoding::Utf8, x_on_line0),
            Position::new(0, 9)
        );
        assert_eq!(
            offset(&rope, Encoding::Utf16, Position::new(0, 6)),
            x_on_line0 as usize
        );
        assert_eq!(
            offset(&rope, Encoding::Utf8, Position::new(0, 9)),
            x_on_line0 as usize
        );
        // Past the end of a line clamps before the newline; past the end of text clamps to it.
        assert_eq!(
            offset(&rope, Encoding::Utf16, Position::new(1, 99)),
            text.len() - 1
        );
        assert_eq!(
            offset(&rope, Encoding::Utf16, Position::new(9, 0)),
            text.len()
        );
        let s = Span::new(text.find('x').unwrap(), text.find('x').unwrap() + 1);
        assert_eq!(
            range(&rope, Encoding::Utf16, s),
            Range::new(Position::new(1, 0), Position::new(1, 1))
        );
    }
}
