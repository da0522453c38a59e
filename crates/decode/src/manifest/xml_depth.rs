//! A linear pre-scan of manifest text that bounds element nesting before the XML parser
//! sees it: `roxmltree` recurses once per level, so text nested tens of thousands deep (a
//! few hundred KB) would overflow the stack inside it.
//!
//! The scan reads markup as XML does: `<!-- … -->` comments, `<![CDATA[ … ]]>` sections,
//! `<? … ?>` processing instructions and other `<! … >` declarations open nothing; a start
//! tag (`<name …>`, its quoted attribute values skipped, so a `>` or `/` inside one ends
//! nothing) opens a level unless it closes itself (`/>`); an end tag closes one. Text
//! between tags holds no `<` in well-formed XML. Text that is not well-formed may be counted
//! differently from how the parser reads it, but the parser stops at the first such place,
//! so it never nests deeper than the scan counted up to there.

use crate::Error;

/// Refuses `text` whose elements nest deeper than `limit` (the root element is depth 1),
/// naming the line and column of the first start tag past it.
pub(super) fn check(text: &str, limit: usize) -> Result<(), Error> {
    let b = text.as_bytes();
    let mut pos = Position::default();
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(lt) = find(b, i, b"<") {
        pos.advance(b, i, lt);
        let rest = &b[lt..];
        let end = if rest.starts_with(b"<!--") {
            after(b, lt + 4, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            after(b, lt + 9, b"]]>")
        } else if rest.starts_with(b"<?") {
            after(b, lt + 2, b"?>")
        } else if rest.starts_with(b"<!") {
            declaration_end(b, lt + 2)
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            after(b, lt + 2, b">")
        } else {
            let (end, self_closing) = tag_end(b, lt + 1);
            if !self_closing {
                depth += 1;
                if depth > limit {
                    return Err(Error::Xml {
                        line: pos.line,
                        column: pos.column(text, lt),
                        message: format!(
                            "elements nest deeper than {limit} levels (a manifest nests fewer \
                             than 20)"
                        ),
                    });
                }
            }
            end
        };
        pos.advance(b, lt, end);
        i = end;
    }
    Ok(())
}

/// The line being scanned and where it starts.
struct Position {
    line: u32,
    line_start: usize,
}

impl Default for Position {
    fn default() -> Position {
        Position {
            line: 1,
            line_start: 0,
        }
    }
}

impl Position {
    /// Counts the line feeds of `b[from..to]`.
    fn advance(&mut self, b: &[u8], from: usize, to: usize) {
        for (k, &c) in b[from..to].iter().enumerate() {
            if c == b'\n' {
                self.line = self.line.saturating_add(1);
                self.line_start = from + k + 1;
            }
        }
    }

    /// The 1-based column (in characters) of byte `at` on the current line.
    fn column(&self, text: &str, at: usize) -> u32 {
        let chars = text
            .get(self.line_start..at)
            .map_or(0, |s| s.chars().count());
        u32::try_from(chars + 1).unwrap_or(u32::MAX)
    }
}

/// The index of the first `needle` at or after `from`.
fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|k| from + k)
}

/// The index just past the first `needle` at or after `from`; the end of the text if none.
fn after(b: &[u8], from: usize, needle: &[u8]) -> usize {
    find(b, from, needle).map_or(b.len(), |k| k + needle.len())
}

/// From just inside a start tag: the index past its `>` (quoted values skipped) and whether
/// it closes itself.
fn tag_end(b: &[u8], from: usize) -> (usize, bool) {
    let mut k = from;
    while k < b.len() {
        match b[k] {
            q @ (b'"' | b'\'') => k = after(b, k + 1, &[q]),
            b'>' => return (k + 1, b[k - 1] == b'/'),
            _ => k += 1,
        }
    }
    (b.len(), false)
}

/// From just inside `<!`: the index past the declaration's `>`, quoted text and a `[…]`
/// internal subset skipped.
fn declaration_end(b: &[u8], from: usize) -> usize {
    let mut k = from;
    let mut brackets = 0usize;
    while k < b.len() {
        match b[k] {
            q @ (b'"' | b'\'') => {
                k = after(b, k + 1, &[q]);
                continue;
            }
            b'[' => brackets += 1,
            b']' => brackets = brackets.saturating_sub(1),
            b'>' if brackets == 0 => return k + 1,
            _ => {}
        }
        k += 1;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_error(text: &str, limit: usize) -> Option<(u32, u32)> {
        match check(text, limit) {
            Ok(()) => None,
            Err(Error::Xml { line, column, .. }) => Some((line, column)),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn counts_start_and_end_tags() {
        assert_eq!(depth_error("<a><b><c/></b><b></b></a>", 2), None);
        assert_eq!(depth_error("<a><b><c></c></b></a>", 2), Some((1, 7)));
        assert_eq!(depth_error("<a>\n  <b>\n   <é/><c>", 2), Some((3, 8)));
    }

    #[test]
    fn skips_what_opens_nothing() {
        let cases = [
            "<a><!-- <b><b><b> --></a>",
            "<a><![CDATA[<b><b><b>]]></a>",
            "<?xml version=\"1.0\"?><a><?pi <b><b> ?></a>",
            "<!DOCTYPE a [<!ENTITY x \"<b>\"> ]><a></a>",
            "<a x=\"/>\" y='>'><b z=\"a>b\"/></a>",
            "<a x = \"1\" />",
        ];
        for text in cases {
            assert_eq!(depth_error(text, 1), None, "{text}");
        }
        // Unterminated constructs end the scan quietly: the parser reports them.
        for text in ["<a><!-- <b>", "<a><![CDATA[", "<a x=\"", "<a", "<!DOCTYPE"] {
            assert_eq!(depth_error(text, 1), None, "{text}");
        }
    }
}
