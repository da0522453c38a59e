//! Bytes to text and back: the file encodings of a `.reg` file (REG-03, REG-12).

/// How the text of a `.reg` file was encoded.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Encoding {
    /// UTF-16LE, recognised by its `FF FE` byte-order mark.
    Utf16Le,
    /// The "ANSI" reading of a file whose bytes are valid UTF-8 (with or without a BOM).
    Utf8,
    /// The "ANSI" reading of a file that is not valid UTF-8: Windows-1252.
    Windows1252,
}

impl Encoding {
    /// `true` for the ANSI readings, where string-typed hex data is converted (REG-12).
    pub fn is_ansi(self) -> bool {
        self != Encoding::Utf16Le
    }
}

pub(crate) const UTF16_BOM: [u8; 2] = [0xFF, 0xFE];
pub(crate) const UTF8_BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// Windows-1252 bytes 0x80–0x9F; the five undefined ones map to the C1 control of the same
/// number, as `MultiByteToWideChar` does.
const CP1252_HIGH: [u16; 32] = [
    0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039,
    0x0152, 0x008D, 0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
    0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
];

fn cp1252_char(b: u8) -> char {
    let unit = match b {
        0x80..=0x9F => CP1252_HIGH[usize::from(b - 0x80)],
        _ => u16::from(b),
    };
    char::from_u32(u32::from(unit)).unwrap_or(char::REPLACEMENT_CHARACTER)
}

/// Bytes of the ANSI code page as text: UTF-8 when valid, Windows-1252 otherwise.
pub(crate) fn decode_ansi(bytes: &[u8]) -> (String, Encoding) {
    match std::str::from_utf8(bytes) {
        Ok(s) => (s.to_owned(), Encoding::Utf8),
        Err(_) => (
            bytes.iter().copied().map(cp1252_char).collect(),
            Encoding::Windows1252,
        ),
    }
}

/// UTF-16LE bytes as text (an odd trailing byte is ignored, unpaired surrogates become
/// U+FFFD).
pub(crate) fn decode_utf16le(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    String::from_utf16_lossy(&units)
}

/// Splits text into lines at CR, LF or CRLF (REG-03). A final line end does not start an
/// empty last line.
pub(crate) fn lines(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\r' => {
                out.push(&text[start..i]);
                i += if bytes.get(i + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
                start = i;
            }
            b'\n' => {
                out.push(&text[start..i]);
                i += 1;
                start = i;
            }
            _ => i += 1,
        }
    }
    if start < bytes.len() {
        out.push(&text[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_at_cr_lf_or_crlf() {
        // rule: REG-03
        assert_eq!(lines("a\r\nb\rc\nd"), ["a", "b", "c", "d"]);
        assert_eq!(lines("a\n\nb\r\n"), ["a", "", "b"]);
        assert!(lines("").is_empty());
    }

    #[test]
    fn ansi_is_utf8_when_valid_and_windows_1252_otherwise() {
        assert_eq!(decode_ansi("é".as_bytes()), ("é".into(), Encoding::Utf8));
        assert_eq!(
            decode_ansi(&[0x80, b'a', 0xE9, 0x81]),
            ("€aé\u{81}".into(), Encoding::Windows1252)
        );
        assert_eq!(decode_utf16le(&[0x41, 0, 0x42]), "A");
        assert_eq!(decode_utf16le(&[0x00, 0xD8, 0x41, 0]), "\u{FFFD}A");
    }
}
