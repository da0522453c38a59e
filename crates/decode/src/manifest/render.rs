//! Rendering decoded manifest values for people (DEC-24, DEC-27, DEC-28) and event messages
//! with `%n` insertions (DEC-26).

use super::{DataDef, EventDef, Item, MapKind, Provider};
use crate::value::{Field, Hint, Value};
use std::fmt::Write as _;

impl Provider {
    /// Renders one value of field `def` (DEC-24 maps first, then the out-type hints of
    /// DEC-27, then the invariant defaults of DEC-28: the crate's one renderer with
    /// [`Hint::Manifest`]). Arrays render as `[a, b]`, structs as `{name: value, …}`.
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
        value.render(Hint::Manifest {
            in_type: def.in_type,
            out_type: def.out_type,
        })
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
