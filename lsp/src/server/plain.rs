//! The server's wording for clients that show plain text. A leaf: it imports nothing.

/// Text for where clients show plain text (diagnostics in the Problems panel, lens and status
/// tooltips): each `code` span of the server's wording in typographic quotes, “code” (a lone
/// backtick stays). Hovers are Markdown and keep their backticks.
pub fn plain(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(open) = rest.find('`') {
        let Some(len) = rest[open + 1..].find('`') else {
            break;
        };
        out.push_str(&rest[..open]);
        out.push('“');
        out.push_str(&rest[open + 1..open + 1 + len]);
        out.push('”');
        rest = &rest[open + 2 + len..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::plain;

    #[test]
    fn code_spans_become_quotes_and_a_lone_backtick_stays() {
        assert_eq!(
            plain("No: no execution reaches the `exists` state"),
            "No: no execution reaches the “exists” state"
        );
        assert_eq!(plain("`a` and `b == 1`"), "“a” and “b == 1”");
        assert_eq!(plain("no code"), "no code");
        assert_eq!(plain("a ` lone"), "a ` lone");
        assert_eq!(plain("`x` then `y"), "“x” then `y");
    }
}
