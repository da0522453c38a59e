//! Format strings as TraceFmt reads them: `%N!spec!` positional inserts (FormatMessage
//! style, the spec a printf conversion), `%0` (the prefix), `%1`…`%9` (the header items
//! TraceFmt provides: `%1` the component, `%2` the message name, `%3` the thread id, `%4` the
//! time, `%7` the sequence number, `%8` the process id, `%9` the CPU), `%10` onwards the
//! message's arguments, `%%` a percent sign, and the names WPP leaves in the string for the
//! formatter: `%!FUNC!`, `%!LEVEL!`, `%!FLAGS!`, `%!COMPNAME!`, `%!FILE!`, `%!LINE!`.
//!
//! A format string is compiled once, when its TMF file is read; formatting an
//! event walks the pieces. Widths and precisions are capped at [`MAX_WIDTH`], and a
//! formatted message at [`MAX_TEXT`] bytes, so no format string can make a message larger
//! than that, whatever it repeats.

use std::fmt::Write as _;

/// The largest width or precision a specification may ask for; larger ones are read as
/// this.
pub const MAX_WIDTH: usize = 1024;

/// The most bytes a formatted message may have; the rest is cut and ends with `…`.
pub const MAX_TEXT: usize = 1 << 20;

/// A name WPP leaves in the format string for the formatter to fill.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ext {
    /// `%!FUNC!`: the function (`FUNC=` of the TMF line).
    Func,
    /// `%!LEVEL!`: the level's name (`LEVEL=`).
    Level,
    /// `%!FLAGS!`: the flags' names (`FLAGS=`).
    Flags,
    /// `%!COMPNAME!`: the component (the GUID line's name).
    CompName,
    /// `%!FILE!`: the source file (`SRC=`).
    File,
    /// `%!LINE!`: the source line (the digits ending the message name).
    Line,
}

/// One piece of a compiled format string.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Piece {
    /// Text shown as it is.
    Text(String),
    /// `%N` or `%N!spec!`.
    Insert { index: u16, spec: Spec },
    /// `%!NAME!`.
    Ext(Ext),
}

/// A compiled format string.
#[derive(Clone, Debug, PartialEq, Default)]
pub(crate) struct Compiled {
    pub(crate) pieces: Vec<Piece>,
}

impl Compiled {
    /// Compiles `text`. Never fails: what is not an insert is text.
    pub(crate) fn new(text: &str) -> Compiled {
        let mut pieces = Vec::new();
        let mut lit = String::new();
        let b = text.as_bytes();
        let mut i = 0;
        let mut start = 0;
        while i < b.len() {
            if b[i] != b'%' {
                i += 1;
                continue;
            }
            lit.push_str(&text[start..i]);
            let rest = &text[i + 1..];
            let (consumed, piece) = insert(rest);
            match piece {
                Some(Piece::Text(t)) => lit.push_str(&t),
                Some(p) => {
                    if !lit.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut lit)));
                    }
                    pieces.push(p);
                }
                None => lit.push('%'),
            }
            i += 1 + consumed;
            start = i;
        }
        lit.push_str(&text[start..]);
        if !lit.is_empty() {
            pieces.push(Piece::Text(lit));
        }
        Compiled { pieces }
    }
}

/// What follows a `%`: bytes consumed and the piece (`None`: the `%` is text).
fn insert(rest: &str) -> (usize, Option<Piece>) {
    let b = rest.as_bytes();
    match b.first() {
        Some(b'%') => (1, Some(Piece::Text("%".into()))),
        Some(b'!') => match rest[1..].find('!') {
            Some(end) => {
                let name = &rest[1..1 + end];
                let ext = match name.to_ascii_uppercase().as_str() {
                    "FUNC" => Some(Ext::Func),
                    "LEVEL" => Some(Ext::Level),
                    "FLAGS" | "KEYWORDS" => Some(Ext::Flags),
                    "COMPNAME" => Some(Ext::CompName),
                    "FILE" => Some(Ext::File),
                    "LINE" => Some(Ext::Line),
                    _ => None,
                };
                match ext {
                    Some(e) => (end + 2, Some(Piece::Ext(e))),
                    None => (0, None),
                }
            }
            None => (0, None),
        },
        Some(b'0') => {
            let (used, spec) = spec_after(&rest[1..]);
            (
                1 + used,
                Some(Piece::Insert {
                    index: 0,
                    spec: spec.unwrap_or_default(),
                }),
            )
        }
        Some(d) if d.is_ascii_digit() => {
            let digits = b.iter().take(5).take_while(|c| c.is_ascii_digit()).count();
            let Ok(index) = rest[..digits].parse::<u16>() else {
                return (0, None);
            };
            let (used, spec) = spec_after(&rest[digits..]);
            (
                digits + used,
                Some(Piece::Insert {
                    index,
                    spec: spec.unwrap_or_default(),
                }),
            )
        }
        _ => (0, None),
    }
}

/// `!spec!` right after an insert's number, if there is one: bytes consumed and the spec.
fn spec_after(rest: &str) -> (usize, Option<Spec>) {
    let Some(inner) = rest.strip_prefix('!') else {
        return (0, None);
    };
    match inner.find('!') {
        Some(end) => (end + 2, Some(Spec::parse(&inner[..end]))),
        None => (0, None),
    }
}

/// A printf conversion specification: flags, width, precision, length (ignored: the item
/// type says how many bytes the value has) and conversion.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
    /// The conversion character; `s` for a word that is not a printf specification (a WPP
    /// type name such as `STATUS`).
    pub(crate) conv: u8,
}

impl Default for Spec {
    fn default() -> Spec {
        Spec {
            left: false,
            plus: false,
            space: false,
            alt: false,
            zero: false,
            width: 0,
            precision: None,
            conv: b's',
        }
    }
}

impl Spec {
    pub(crate) fn parse(text: &str) -> Spec {
        let mut s = Spec::default();
        let b = text.as_bytes();
        let mut i = 0;
        while let Some(&c) = b.get(i) {
            match c {
                b'-' => s.left = true,
                b'+' => s.plus = true,
                b' ' => s.space = true,
                b'#' => s.alt = true,
                b'0' => s.zero = true,
                _ => break,
            }
            i += 1;
        }
        let number = |i: &mut usize| {
            let mut n = 0usize;
            while let Some(d) = b.get(*i).filter(|c| c.is_ascii_digit()) {
                n = (n * 10 + usize::from(d - b'0')).min(MAX_WIDTH);
                *i += 1;
            }
            n
        };
        s.width = number(&mut i);
        if b.get(i) == Some(&b'.') {
            i += 1;
            s.precision = Some(number(&mut i));
        }
        // Length modifiers: h, hh, l, ll, L, w, z, j, t, q, I, I32, I64.
        while let Some(&c) = b.get(i) {
            match c {
                b'h' | b'l' | b'L' | b'w' | b'z' | b'j' | b't' | b'q' => i += 1,
                b'I' => {
                    i += 1;
                    if text[i..].starts_with("64") || text[i..].starts_with("32") {
                        i += 2;
                    }
                }
                _ => break,
            }
        }
        s.conv = match (b.get(i), i + 1 == b.len()) {
            (Some(&c), true) if b"diuxXocCsSpeEfgGaAZ".contains(&c) => c,
            _ => b's',
        };
        s
    }

    /// Whether the conversion shows an integer as a number.
    pub(crate) fn is_numeric(&self) -> bool {
        matches!(self.conv, b'd' | b'i' | b'u' | b'x' | b'X' | b'o' | b'p')
    }

    fn pad(&self, out: &mut String, body: &str, zero_from: Option<usize>) {
        let len = body.chars().count();
        if len >= self.width {
            out.push_str(body);
            return;
        }
        let fill = self.width - len;
        if self.left {
            out.push_str(body);
            out.extend(std::iter::repeat_n(' ', fill));
        } else if let Some(at) = zero_from {
            out.push_str(&body[..at]);
            out.extend(std::iter::repeat_n('0', fill));
            out.push_str(&body[at..]);
        } else {
            out.extend(std::iter::repeat_n(' ', fill));
            out.push_str(body);
        }
    }

    /// Writes text (`%s`), cut to the precision.
    pub(crate) fn write_str(&self, out: &mut String, text: &str) {
        match self.precision {
            Some(p) => {
                let cut: String = text.chars().take(p).collect();
                self.pad(out, &cut, None);
            }
            None => self.pad(out, text, None),
        }
    }

    /// Writes an integer of `bits` bits: `value` as the item holds it (sign-extended when
    /// signed).
    pub(crate) fn write_int(&self, out: &mut String, value: i128, bits: u32, signed: bool) {
        let mask = if bits >= 128 {
            u128::MAX
        } else {
            (1u128 << bits) - 1
        };
        let unsigned = (value as u128) & mask;
        let as_signed = if bits == 0 || bits >= 128 {
            value
        } else if unsigned >> (bits - 1) & 1 == 1 {
            unsigned as i128 - (1i128 << bits)
        } else {
            unsigned as i128
        };
        let mut prefix = String::new();
        let digits = match self.conv {
            b'd' | b'i' => {
                if as_signed < 0 {
                    prefix.push('-');
                }
                as_signed.unsigned_abs().to_string()
            }
            b'u' => unsigned.to_string(),
            b'x' => {
                if self.alt && unsigned != 0 {
                    prefix.push_str("0x");
                }
                format!("{unsigned:x}")
            }
            b'X' => {
                if self.alt && unsigned != 0 {
                    prefix.push_str("0X");
                }
                format!("{unsigned:X}")
            }
            b'o' => {
                if self.alt && unsigned != 0 {
                    prefix.push('0');
                }
                format!("{unsigned:o}")
            }
            b'p' => {
                let width = (bits as usize).div_ceil(4);
                format!("{unsigned:0width$X}")
            }
            b'c' | b'C' => {
                let c = char::from_u32(unsigned as u32).unwrap_or(char::REPLACEMENT_CHARACTER);
                return self.write_str(out, c.encode_utf8(&mut [0; 4]));
            }
            _ if signed => {
                if as_signed < 0 {
                    prefix.push('-');
                }
                as_signed.unsigned_abs().to_string()
            }
            _ => unsigned.to_string(),
        };
        if prefix.is_empty() && matches!(self.conv, b'd' | b'i') {
            if self.plus {
                prefix.push('+');
            } else if self.space {
                prefix.push(' ');
            }
        }
        let digits = match self.precision {
            Some(0) if digits == "0" => String::new(),
            Some(p) if digits.len() < p => {
                let mut d = "0".repeat(p - digits.len());
                d.push_str(&digits);
                d
            }
            _ => digits,
        };
        let zero_from =
            (self.zero && !self.left && self.precision.is_none()).then_some(prefix.len());
        prefix.push_str(&digits);
        self.pad(out, &prefix, zero_from);
    }

    /// Writes a double (`%f`, `%e`, `%g`; `%s` as `%g`).
    pub(crate) fn write_f64(&self, out: &mut String, v: f64) {
        let mut body = String::new();
        if v.is_nan() {
            body.push_str("nan");
        } else if v.is_infinite() {
            body.push_str(if v < 0.0 { "-inf" } else { "inf" });
        } else {
            let p = self.precision.unwrap_or(6);
            match self.conv {
                b'f' => {
                    let _ = write!(body, "{v:.p$}");
                }
                b'e' | b'E' => body = c_exp(v, p, self.conv == b'E'),
                _ => body = c_general(v, p, self.alt),
            }
            if !body.starts_with('-') {
                if self.plus {
                    body.insert(0, '+');
                } else if self.space {
                    body.insert(0, ' ');
                }
            }
        }
        let sign = usize::from(body.starts_with(['-', '+', ' ']));
        let zero_from = (self.zero && !self.left && v.is_finite()).then_some(sign);
        self.pad(out, &body, zero_from);
    }
}

/// C's `%e`: one digit, `.`, `p` digits, `e`, a sign and at least two exponent digits.
fn c_exp(v: f64, p: usize, upper: bool) -> String {
    let s = format!("{v:.p$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let e = if upper { 'E' } else { 'e' };
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}{e}{sign}{:02}", exp.unsigned_abs())
}

/// C's `%g`: `%e` or `%f` by the exponent, trailing zeros removed (unless `#`).
fn c_general(v: f64, p: usize, alt: bool) -> String {
    let p = p.max(1);
    if v == 0.0 {
        return if alt {
            format!("{:.*}", p - 1, 0.0)
        } else {
            "0".into()
        };
    }
    let exp = c_exp(v, p - 1, false);
    let x: i32 = exp
        .rsplit_once('e')
        .and_then(|(_, e)| e.parse().ok())
        .unwrap_or(0);
    let s = if x < -4 || x >= p as i32 {
        exp
    } else {
        let decimals = (p as i32 - 1 - x).max(0) as usize;
        format!("{v:.decimals$}")
    };
    if alt {
        return s;
    }
    let (num, exp) = match s.find('e') {
        Some(at) => (&s[..at], &s[at..]),
        None => (&s[..], ""),
    };
    let num = if num.contains('.') {
        num.trim_end_matches('0').trim_end_matches('.')
    } else {
        num
    };
    format!("{num}{exp}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(spec: &str, v: i128, bits: u32, signed: bool) -> String {
        let mut s = String::new();
        Spec::parse(spec).write_int(&mut s, v, bits, signed);
        s
    }

    #[test]
    fn printf_integers_as_msvc_shows_them() {
        assert_eq!(int("d", -1, 32, true), "-1");
        assert_eq!(int("u", -1, 32, true), "4294967295");
        assert_eq!(int("x", -1, 32, true), "ffffffff");
        assert_eq!(int("08X", 0x2a, 32, false), "0000002A");
        assert_eq!(int("4.4x", 1, 32, false), "0001");
        assert_eq!(int("#x", 255, 32, false), "0xff");
        assert_eq!(int("-5d", 7, 32, true), "7    ");
        assert_eq!(int("+d", 7, 32, true), "+7");
        assert_eq!(int("08I64X", 0x1234, 64, true), "00001234");
        assert_eq!(int("p", 0x1000, 64, false), "0000000000001000");
        assert_eq!(int("04X", 0xE40, 32, false), "0E40");
        assert_eq!(int("c", 0x41, 8, true), "A");
    }

    #[test]
    fn printf_doubles_as_c_shows_them() {
        let f = |spec: &str, v: f64| {
            let mut s = String::new();
            Spec::parse(spec).write_f64(&mut s, v);
            s
        };
        assert_eq!(f("f", 1.5), "1.500000");
        assert_eq!(f(".2f", 2.345), "2.35");
        assert_eq!(f("e", 1234.5), "1.234500e+03");
        assert_eq!(f("g", 0.0001), "0.0001");
        assert_eq!(f("g", 1e-5), "1e-05");
        assert_eq!(f("g", 123456789.0), "1.23457e+08");
        assert_eq!(f("g", 2.5), "2.5");
    }

    #[test]
    fn format_strings_compile_to_pieces() {
        let c = Compiled::new("%0[%!FUNC!]a %10!4.4x! 100%% %11 %!BOGUS! %");
        assert_eq!(c.pieces.len(), 8, "{:?}", c.pieces);
        assert_eq!(
            c.pieces[0],
            Piece::Insert {
                index: 0,
                spec: Spec::default()
            }
        );
        assert_eq!(c.pieces[2], Piece::Ext(Ext::Func));
        assert_eq!(c.pieces[7], Piece::Text(" %!BOGUS! %".into()));
    }
}
