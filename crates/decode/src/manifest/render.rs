//! Rendering decoded manifest values for people (DEC-24, DEC-27, DEC-28) and event messages
//! with `%n` insertions (DEC-26).

use super::{DataDef, EventDef, InType, Item, MapKind, OutType, Provider};
use crate::fields::{Field, Value, windows_1252};
use std::fmt::Write as _;
use std::net::{Ipv4Addr, Ipv6Addr};

impl Provider {
    /// Renders one value of field `def` (DEC-24 maps first, then the out-type hints of
    /// DEC-27, then the invariant defaults of DEC-28). Arrays render as `[a, b]`, structs as
    /// `{name: value, …}`.
    pub fn render(&self, def: &DataDef, value: &Value) -> String {
        match value {
            Value::Array(items) => {
                let parts: Vec<String> = items.iter().map(|v| self.render(def, v)).collect();
                format!("[{}]", parts.join(", "))
            }
            v => self.render_one(def, v),
        }
    }

    fn render_one(&self, def: &DataDef, value: &Value) -> String {
        if let (Some(map), Some(n)) = (
            def.map.as_deref().and_then(|m| self.map(m)),
            value.as_i128(),
        ) {
            let n = n as u64;
            return match map.kind {
                MapKind::Value => map
                    .entries
                    .iter()
                    .find(|(v, _)| *v == n)
                    .map_or_else(|| n.to_string(), |(_, s)| s.clone()),
                MapKind::Bits => {
                    let mut names = Vec::new();
                    let mut rest = n;
                    for (bit, text) in &map.entries {
                        if *bit != 0 && n & bit == *bit {
                            names.push(text.clone());
                            rest &= !bit;
                        }
                    }
                    if rest != 0 || names.is_empty() {
                        names.push(format!("{rest:#x}"));
                    }
                    names.join("|")
                }
            };
        }
        render_hinted(def.in_type, def.out_type, value)
    }

    /// The event's message with its `%n` insertions filled from `fields` (DEC-26): `%1` is the
    /// first top-level template item. `None` when the event has no message.
    pub fn format_message(&self, event: &EventDef, fields: &[Field]) -> Option<String> {
        let text = event.message.as_deref()?;
        let items = self.template_of(event).map_or(&[][..], |t| &t.items[..]);
        let args: Vec<String> = fields
            .iter()
            .zip(items)
            .map(|(f, item)| match item {
                Item::Data(d) => self.render(d, &f.value),
                Item::Struct(_) => f.value.to_string(),
            })
            .collect();
        Some(format_message(text, &args))
    }
}

fn hex(value: &Value) -> Option<(u64, usize)> {
    Some(match *value {
        Value::I8(v) => (u64::from(v as u8), 2),
        Value::U8(v) => (v.into(), 2),
        Value::I16(v) => (u64::from(v as u16), 4),
        Value::U16(v) => (v.into(), 4),
        Value::I32(v) => (u64::from(v as u32), 8),
        Value::U32(v) => (v.into(), 8),
        Value::I64(v) => (v as u64, 16),
        Value::U64(v) | Value::Pointer(v) => (v, 16),
        _ => return None,
    })
}

/// A value with its in-type and out-type hints (DEC-20, DEC-27, DEC-28).
fn render_hinted(in_type: InType, out: Option<OutType>, value: &Value) -> String {
    let Some(out) = out else {
        return match (in_type, value) {
            (InType::HEX_INT32 | InType::HEX_INT64, v) => {
                hex(v).map_or_else(|| v.to_string(), |(n, w)| format!("0x{n:0w$X}"))
            }
            (_, Value::Pointer(p)) => format!("{p:#x}"),
            (_, v) => v.to_string(),
        };
    };
    match (out, value) {
        (OutType::STRING, Value::U8(b)) => char::from(*b).to_string(),
        (OutType::STRING, Value::I8(b)) => char::from(*b as u8).to_string(),
        (OutType::STRING, Value::U16(u)) => {
            char::from_u32((*u).into()).map_or_else(|| u.to_string(), String::from)
        }
        (OutType::HEX_INT8 | OutType::HEX_INT16 | OutType::HEX_INT32 | OutType::HEX_INT64, v) => {
            hex(v).map_or_else(|| v.to_string(), |(n, w)| format!("0x{n:0w$X}"))
        }
        (OutType::BOOLEAN, v) => match v.as_i128() {
            Some(n) => (if n != 0 { "true" } else { "false" }).to_owned(),
            None => v.to_string(),
        },
        (OutType::IPV4, Value::U32(a)) => Ipv4Addr::from(a.to_le_bytes()).to_string(),
        (OutType::IPV6, Value::Binary(b)) => match <[u8; 16]>::try_from(b.as_slice()) {
            Ok(a) => Ipv6Addr::from(a).to_string(),
            Err(_) => value.to_string(),
        },
        (OutType::SOCKET_ADDRESS, Value::Binary(b)) => {
            socket_address(b).unwrap_or_else(|| value.to_string())
        }
        (OutType::ERROR_CODE | OutType::WIN32_ERROR, v) => {
            hex(v).map_or_else(|| v.to_string(), |(n, _)| format!("{n:#x}"))
        }
        (OutType::NTSTATUS | OutType::HRESULT, v) => {
            hex(v).map_or_else(|| v.to_string(), |(n, _)| format!("0x{:08X}", n as u32))
        }
        (OutType::CODE_POINTER, v) => {
            hex(v).map_or_else(|| v.to_string(), |(n, _)| format!("0x{n:08x}"))
        }
        (OutType::UTF8 | OutType::JSON | OutType::XML, Value::Ansi(b)) => {
            String::from_utf8_lossy(b).into_owned()
        }
        (_, Value::Ansi(b)) => windows_1252(b),
        (_, Value::Pointer(p)) => format!("{p:#x}"),
        (_, v) => v.to_string(),
    }
}

/// `SOCKADDR_IN` / `SOCKADDR_IN6` as `address:port` (DEC-27).
fn socket_address(b: &[u8]) -> Option<String> {
    let family = u16::from_le_bytes([*b.first()?, *b.get(1)?]);
    let port = u16::from_be_bytes([*b.get(2)?, *b.get(3)?]);
    match family {
        2 => {
            let a: [u8; 4] = b.get(4..8)?.try_into().ok()?;
            Some(format!("{}:{port}", Ipv4Addr::from(a)))
        }
        23 => {
            let a: [u8; 16] = b.get(8..24)?.try_into().ok()?;
            Some(format!("[{}]:{port}", Ipv6Addr::from(a)))
        }
        _ => None,
    }
}

/// FormatMessage-style insertion (DEC-26): `%1`…`%99` insert `args[n-1]` (an optional
/// `!spec!` after the number is skipped: the argument is already rendered); `%%` → `%`,
/// `%n` → line feed, `%r` → carriage return, `%t` → tab, `% ` and `%b` → space, `%.` → `.`,
/// `%!` → `!`, `%0` ends the message. An insertion past `args` stays as written; `%%n`
/// (parameter strings) is kept as written, since no parameter file is loaded.
pub fn format_message(text: &str, args: &[String]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        if ch != '%' {
            out.push(ch);
            continue;
        }
        match chars.next() {
            None => out.push('%'),
            Some('%') => {
                if chars.peek().is_some_and(char::is_ascii_digit) {
                    out.push_str("%%");
                } else {
                    out.push('%');
                }
            }
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some(' ' | 'b') => out.push(' '),
            Some('.') => out.push('.'),
            Some('!') => out.push('!'),
            Some('0') => break,
            Some(d @ '1'..='9') => {
                let mut n = d.to_digit(10).unwrap_or(0) as usize;
                if let Some(d2) = chars.peek().and_then(|c| c.to_digit(10)) {
                    n = n * 10 + d2 as usize;
                    chars.next();
                }
                // An optional printf-style spec: %1!s!. Found by looking ahead to the next
                // `!` and skipped only when it closes: each character is looked at a bounded
                // number of times, so the work stays linear in the message.
                if chars.peek() == Some(&'!') {
                    let mut ahead = chars.clone();
                    ahead.next();
                    if let Some(end) = ahead.position(|c| c == '!') {
                        for _ in 0..end + 2 {
                            chars.next();
                        }
                    }
                }
                match args.get(n - 1) {
                    Some(a) => out.push_str(a),
                    None => {
                        let _ = write!(out, "%{n}");
                    }
                }
            }
            Some(other) => {
                out.push('%');
                out.push(other);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_widths_follow_the_type() {
        assert_eq!(
            render_hinted(InType::UINT32, Some(OutType::HEX_INT32), &Value::U32(0x1F)),
            "0x0000001F"
        );
        assert_eq!(
            render_hinted(
                InType::UINT32,
                Some(OutType::NTSTATUS),
                &Value::U32(0xC000_0034)
            ),
            "0xC0000034"
        );
        assert_eq!(
            render_hinted(InType::UINT32, Some(OutType::WIN32_ERROR), &Value::U32(5)),
            "0x5"
        );
    }
}
