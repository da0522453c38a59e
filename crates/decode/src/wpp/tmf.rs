//! The TMF reader: trace message format files as TracePdb and TraceFmt write them.
//!
//! A TMF file is line-oriented text:
//!
//! ```text
//! // PDB:  d:\tracedrv\tracedrv.pdb
//! // PDB:  Last Updated :2005-6-10:21:25:30:0 (UTC) [tracepdb]
//! 1606d1a7-1682-57d1-65f7-36693800e096 tracedrv // SRC=tracedrv.c MJ= MN=
//! #typev tracedrv_c272 11 "%0Hello, %10!d! %11!s!" //   LEVEL=TRACE_LEVEL_NONE FLAGS=FLAG_ONE FUNC=TracedrvDispatchDeviceControl
//! {
//! i, ItemLong -- 10
//! "Hi", ItemString -- 11
//! }
//! ```
//!
//! * `//` lines are comments (the PDB the file came from);
//! * a message GUID line — the GUID, the component's name and, after `//`, `SRC=` (the
//!   source file), `MJ=`, `MN=` — starts the messages of that GUID;
//! * a `#typev` (or older `#type`) line declares one message: its name (the source file and
//!   line, TDH's GuidTypeName), its message number, the format string in quotes (up to the
//!   last quote of the line) and, after `//`, `LEVEL=`, `FLAGS=` and `FUNC=`;
//! * a `{ … }` block lists the message's arguments in payload order, one a line:
//!   `expression, ItemType -- N`, `N` the insert number of the format string (`%N!…!`,
//!   from 10). (The `mof.tpl` form `expression, ItemType // N` is read too.)
//!
//! What cannot be read costs only what depends on it: a malformed message is left out and a
//! [`Diagnostic`] names the file and line; the rest of the file is read.
//! Bounds: files of at most [`MAX_TMF_BYTES`](super::MAX_TMF_BYTES), lines of at most
//! [`MAX_LINE`] bytes, at most [`MAX_ARGS`] arguments a message, at most
//! [`MAX_LIST_NAMES`](super::item::MAX_LIST_NAMES) names a list.
//!
//! Sources: Learn's "Trace Message Format File" and "Example 9: Creating a TMF file"
//! (<https://learn.microsoft.com/en-us/windows-hardware/drivers/devtest/trace-message-format-file>),
//! the WDK's `mof.tpl` template that writes the `#typev` blocks, and TMF files and PDB
//! annotations published with drivers (observed).

use super::format::Compiled;
use super::item::ItemType;
use super::{ArgDef, Diagnostic, MessageFormat};
use etwsim_types::Guid;
use std::sync::Arc;

/// The longest line read; a longer one is left out (with the message it belongs to).
pub const MAX_LINE: usize = 64 * 1024;

/// The most arguments a message may list (TraceFmt's `MAXITEMS`).
pub const MAX_ARGS: usize = 256;

/// The text of a TMF file: UTF-8 (with or without its BOM), UTF-16LE with its BOM, or —
/// when the bytes are not UTF-8 — Windows-1252, as TracePdb writes them.
pub(crate) fn text_of(bytes: &[u8]) -> String {
    if let Some(rest) = bytes.strip_prefix(&[0xFF, 0xFE]) {
        return crate::wire::utf16_lossy(&rest[..rest.len() & !1]);
    }
    let bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_string(),
        Err(_) => crate::fields::windows_1252(bytes),
    }
}

/// The GUID line in force.
struct GuidLine {
    guid: Guid,
    component: Arc<str>,
    source_file: Option<Arc<str>>,
}

/// Reads `text` (from `file`) into messages and diagnostics.
pub(crate) fn parse(
    text: &str,
    file: &Arc<str>,
    out: &mut Vec<MessageFormat>,
    diag: &mut dyn FnMut(Diagnostic),
) {
    let mut current: Option<GuidLine> = None;
    let mut open: Option<(MessageFormat, bool)> = None; // (message, inside its `{ }`)
    let say = |diag: &mut dyn FnMut(Diagnostic), line: u32, message: String| {
        diag(Diagnostic {
            file: file.clone(),
            line,
            message,
        })
    };
    let mut lines = text.split('\n').enumerate().peekable();
    while let Some((n, raw)) = lines.next() {
        let line_no = u32::try_from(n + 1).unwrap_or(u32::MAX);
        if raw.len() > MAX_LINE {
            say(
                diag,
                line_no,
                format!(
                    "a line of {} bytes (at most {MAX_LINE} are read): left out{}",
                    raw.len(),
                    if matches!(open, Some((_, true))) {
                        ", with its message"
                    } else {
                        ""
                    }
                ),
            );
            match open.take() {
                // An argument line: the message cannot be read; skip the rest of its block.
                Some((_, true)) => skip_block(&mut lines),
                Some((m, false)) => out.push(m),
                None => {}
            }
            continue;
        }
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some((mut m, inside)) = open.take() {
            if inside {
                if line.starts_with('}') {
                    out.push(m);
                    continue;
                }
                if line.starts_with("#type") {
                    say(
                        diag,
                        m.tmf_line,
                        format!(
                            "message {} ({}): its argument list has no closing `}}`",
                            m.number, m.name
                        ),
                    );
                    out.push(m);
                    // Read this line as a new message, below.
                } else {
                    if m.args.len() >= MAX_ARGS {
                        say(
                            diag,
                            line_no,
                            format!(
                                "message {} ({}): more than {MAX_ARGS} arguments: left out",
                                m.number, m.name
                            ),
                        );
                        skip_block(&mut lines);
                        continue;
                    }
                    match arg_line(line, m.args.len()) {
                        Ok(a) => {
                            m.args.push(a);
                            open = Some((m, true));
                        }
                        Err(why) => {
                            say(
                                diag,
                                line_no,
                                format!("message {} ({}): {why}: left out", m.number, m.name),
                            );
                            skip_block(&mut lines);
                        }
                    }
                    continue;
                }
            } else if line.starts_with('{') {
                open = Some((m, true));
                continue;
            } else {
                // A message without an argument block.
                out.push(m);
            }
        }
        if line.starts_with("//") || line == "TMF:" || line == "PUBLIC_TMF:" {
            continue;
        }
        if let Some(rest) = line
            .strip_prefix("#typev")
            .or_else(|| line.strip_prefix("#type"))
        {
            let Some(g) = &current else {
                say(
                    diag,
                    line_no,
                    "a #typev line before any message GUID line: left out".into(),
                );
                continue;
            };
            match type_line(rest) {
                Ok((name, number, format, notes)) => {
                    let source_line = trailing_number(&name);
                    let compiled = Compiled::new(&format);
                    open = Some((
                        MessageFormat {
                            guid: g.guid,
                            component: g.component.clone(),
                            source_file: g.source_file.clone(),
                            name,
                            number,
                            format,
                            level: notes.level,
                            flags: notes.flags,
                            function: notes.function,
                            source_line,
                            args: Vec::new(),
                            tmf_file: file.clone(),
                            tmf_line: line_no,
                            compiled,
                        },
                        false,
                    ));
                }
                Err(why) => say(diag, line_no, format!("#typev: {why}: left out")),
            }
            continue;
        }
        if let Some(g) = guid_line(line) {
            current = Some(g);
            continue;
        }
        if line.starts_with('{') || line.starts_with('}') {
            say(
                diag,
                line_no,
                "an argument block without its #typev line: ignored".into(),
            );
            if line.starts_with('{') {
                skip_block(&mut lines);
            }
            continue;
        }
        say(
            diag,
            line_no,
            format!(
                "not a TMF line (a GUID line, #typev, an argument block or a comment): {:?}",
                line.chars().take(60).collect::<String>()
            ),
        );
    }
    if let Some((m, inside)) = open {
        if inside {
            say(
                diag,
                m.tmf_line,
                format!(
                    "message {} ({}): its argument list has no closing `}}`",
                    m.number, m.name
                ),
            );
        }
        out.push(m);
    }
}

/// Skips lines to the end of the current `{ }` block (the `}` line included).
fn skip_block<'a>(lines: &mut std::iter::Peekable<impl Iterator<Item = (usize, &'a str)>>) {
    while let Some((_, l)) = lines.peek() {
        let t = l.trim();
        if t.starts_with("#type") {
            return;
        }
        lines.next();
        if t.starts_with('}') {
            return;
        }
    }
}

/// `GUID name // SRC=file MJ= MN=`.
fn guid_line(line: &str) -> Option<GuidLine> {
    let (head, notes) = match line.find("//") {
        Some(at) => (&line[..at], &line[at + 2..]),
        None => (line, ""),
    };
    let mut words = head.split_whitespace();
    let guid: Guid = words.next()?.parse().ok()?;
    let component: String = words.collect::<Vec<_>>().join(" ");
    let source_file = notes
        .split_whitespace()
        .find_map(|w| w.strip_prefix("SRC="))
        .filter(|s| !s.is_empty())
        .map(Arc::from);
    Some(GuidLine {
        guid,
        component: Arc::from(component),
        source_file,
    })
}

/// The annotations after a `#typev` line's format string.
#[derive(Default)]
struct Notes {
    level: Option<String>,
    flags: Option<String>,
    function: Option<String>,
}

/// `name number "format" // LEVEL=… FLAGS=… FUNC=…` (after `#typev`).
fn type_line(rest: &str) -> Result<(String, u16, String, Notes), String> {
    let open = rest
        .find('"')
        .ok_or("no format string (a quoted string after the message number)")?;
    let close = rest.rfind('"').unwrap_or(open);
    if close == open {
        return Err("the format string has no closing quote".into());
    }
    let mut words = rest[..open].split_whitespace();
    let name = words.next().ok_or("no message name")?.to_string();
    let number = words.next().ok_or("no message number")?;
    let number = super::item::parse_number(number)
        .and_then(|n| u16::try_from(n).ok())
        .ok_or_else(|| format!("message number {number:?} is not a number of 0 to 65535"))?;
    let format = rest[open + 1..close].to_string();
    let tail = rest[close + 1..].trim_start();
    let tail = tail.strip_prefix("//").unwrap_or(tail);
    let mut notes = Notes::default();
    for word in tail.split_whitespace() {
        let Some((key, value)) = word.split_once('=') else {
            continue;
        };
        let value = (!value.is_empty()).then(|| value.to_string());
        match key.to_ascii_uppercase().as_str() {
            "LEVEL" => notes.level = value,
            "FLAGS" => notes.flags = value,
            "FUNC" => notes.function = value,
            _ => {}
        }
    }
    Ok((name, number, format, notes))
}

/// The digits that end a message name (`tracedrv_c272` → 272): the source line.
fn trailing_number(name: &str) -> Option<u32> {
    let digits = name
        .bytes()
        .rev()
        .take_while(u8::is_ascii_digit)
        .count()
        .min(9);
    (digits > 0).then(|| name[name.len() - digits..].parse().ok())?
}

/// `expression, ItemType -- N` (or `// N`): the argument at position `position`.
fn arg_line(line: &str, position: usize) -> Result<ArgDef, String> {
    let (body, index) = match line.rfind("--").or_else(|| line.rfind("//")) {
        Some(at) => {
            let n = line[at + 2..].trim();
            let digits: String = n.chars().take_while(char::is_ascii_digit).collect();
            let index = digits
                .parse::<u16>()
                .map_err(|_| format!("argument insert number {n:?} is not a number"))?;
            (&line[..at], index)
        }
        None => (line, u16::try_from(position + 10).unwrap_or(u16::MAX)),
    };
    let body = body.trim();
    let split = type_comma(body).ok_or_else(|| {
        format!(
            "argument line {:?} has no `expression, ItemType`",
            body.chars().take(60).collect::<String>()
        )
    })?;
    let name = body[..split].trim().to_string();
    let item = ItemType::parse(&body[split + 1..])?;
    Ok(ArgDef { name, item, index })
}

/// The comma before the item type: the last one outside parentheses and quotes followed by
/// `Item…`, else the last one outside them.
fn type_comma(body: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quoted = false;
    let mut escaped = false;
    let mut last = None;
    let mut last_item = None;
    for (i, c) in body.char_indices() {
        if quoted {
            match (escaped, c) {
                (false, '\\') => escaped = true,
                (false, '"') => quoted = false,
                _ => escaped = false,
            }
            continue;
        }
        match c {
            '"' => quoted = true,
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                last = Some(i);
                if body[i + 1..].trim_start().starts_with("Item") {
                    last_item = Some(i);
                }
            }
            _ => {}
        }
    }
    last_item.or(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_lines_split_at_the_type() {
        let a = arg_line("min(a, b), ItemLong -- 10", 0).unwrap();
        assert_eq!((a.name.as_str(), a.index), ("min(a, b)", 10));
        let a = arg_line("\"a, b\", ItemListByte(x,y) -- 12", 0).unwrap();
        assert_eq!(a.name, "\"a, b\"");
        assert!(matches!(a.item, ItemType::List { size: 1, .. }));
        let a = arg_line("  Arg.Name, ItemPtr // 11", 0).unwrap();
        assert_eq!((a.item, a.index), (ItemType::Ptr, 11));
        assert!(arg_line("nothing here -- 10", 0).is_err());
        assert_eq!(trailing_number("tracedrv_c272"), Some(272));
        assert_eq!(trailing_number("name"), None);
    }
}
