//! Reading a `.reg` file into a [`Registry`] (REG-03 … REG-13, REG-20).

use std::fmt;

use super::text::{self, Encoding, UTF8_BOM, UTF16_BOM};
use crate::error::{Error, quote};
use crate::key::{ROOTS, Registry, parse_path};
use crate::value::{Value, ValueType, utf16_with_nul};

/// What to do with a UTF-8 byte-order mark in front of the header.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum Utf8Bom {
    /// Skip it and read the file as UTF-8 (the default: what people expect of a text file).
    #[default]
    Accept,
    /// Refuse the file, as Wine's regedit does (the BOM spoils the header, REG-04).
    Refuse,
}

/// How [`Registry::import_reg_with`] reads a file.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
#[non_exhaustive]
pub struct ImportOptions {
    /// What a UTF-8 byte-order mark does.
    pub utf8_bom: Utf8Bom,
    /// Fail on the first line that is not imported as written (any [`Issue`] whose outcome is
    /// not [`Outcome::Kept`]), leaving the registry untouched. Off by default: errors are
    /// local (REG-13).
    pub strict: bool,
}

impl ImportOptions {
    /// The default options with `strict` on.
    pub fn strict() -> ImportOptions {
        ImportOptions {
            strict: true,
            ..ImportOptions::default()
        }
    }

    /// These options with `utf8_bom` set.
    pub fn with_utf8_bom(self, utf8_bom: Utf8Bom) -> ImportOptions {
        ImportOptions { utf8_bom, ..self }
    }
}

/// The header line a file started with (REG-04).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Header {
    /// `Windows Registry Editor Version 5.00`.
    Version5,
    /// `REGEDIT4`.
    Regedit4,
    /// Another line starting with `REGEDIT` (`REGEDIT 4`…): accepted, but nothing imported.
    Unsupported,
}

/// What became of a line an [`Issue`] is about.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Outcome {
    /// The line was not imported; nothing was written (REG-13). For a line inside a hex
    /// continuation, the whole value was dropped.
    Skipped,
    /// A key line with a bad path: there is no current key, and value lines are dropped until
    /// the next valid key line (REG-06).
    NoCurrentKey,
    /// The line was imported with a change (an unknown escape `\x` kept as `x`, REG-09).
    Kept,
}

/// A problem with one line of a `.reg` file.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Issue {
    /// 1-based line number.
    pub line: usize,
    /// What the grammar wanted.
    pub expected: &'static str,
    /// The text found (shortened).
    pub found: String,
    /// What became of the line.
    pub outcome: Outcome,
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.outcome {
            Outcome::Skipped => "skipped",
            Outcome::NoCurrentKey => "no current key",
            Outcome::Kept => "kept",
        };
        write!(
            f,
            "line {}: expected {}, found {:?} ({what})",
            self.line, self.expected, self.found
        )
    }
}

/// What an import did.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ImportReport {
    /// How the file was encoded.
    pub encoding: Encoding,
    /// Its header.
    pub header: Header,
    /// Every line that was not imported exactly as written, in file order.
    pub issues: Vec<Issue>,
}

impl ImportReport {
    /// `false` when the header said nothing is to be imported ([`Header::Unsupported`]).
    pub fn imported(&self) -> bool {
        self.header != Header::Unsupported
    }
}

const HEADER_5: &str = "Windows Registry Editor Version 5.00";
const HEADER_4: &str = "REGEDIT4";

fn trim_start(s: &str) -> &str {
    s.trim_start_matches([' ', '\t'])
}

fn trim_end(s: &str) -> &str {
    s.trim_end_matches([' ', '\t'])
}

/// `true` when only spaces/tabs, optionally followed by a `;` comment, remain.
fn rest_is_empty(s: &str) -> bool {
    let s = trim_start(s);
    s.is_empty() || s.starts_with(';')
}

fn hex_digits(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_hexdigit).count()
}

/// A rejected piece of a line: where, what was expected, what was there.
struct Reject {
    line: usize,
    expected: &'static str,
    found: String,
}

impl Reject {
    fn at(line: usize, expected: &'static str, found: &str) -> Reject {
        Reject {
            line,
            expected,
            found: quote(found),
        }
    }
}

/// What a value line asks for.
enum DataOp {
    Delete,
    Set(Value),
}

pub(crate) fn import(
    reg: &mut Registry,
    bytes: &[u8],
    options: &ImportOptions,
) -> Result<ImportReport, Error> {
    let (text, encoding) = decode(bytes, options.utf8_bom)?;
    let lines = text::lines(&text);
    let first = trim_start(lines.first().copied().unwrap_or_default());
    let header = match first {
        HEADER_5 => Header::Version5,
        HEADER_4 => Header::Regedit4,
        "REGEDIT" => return Err(Error::Windows31Format),
        _ if first.starts_with("REGEDIT") => Header::Unsupported,
        _ => {
            return Err(Error::NotARegistryScript {
                found: quote(first),
            });
        }
    };
    let mut report = ImportReport {
        encoding,
        header,
        issues: Vec::new(),
    };
    if header == Header::Unsupported {
        return Ok(report);
    }
    let mut scratch = options.strict.then(|| reg.clone());
    let mut parser = Parser {
        reg: scratch.as_mut().unwrap_or(reg),
        lines: &lines,
        encoding,
        current: None,
        issues: &mut report.issues,
    };
    let mut i = 1;
    while i < lines.len() {
        i = parser.line(i);
    }
    if let Some(scratch) = scratch {
        if let Some(issue) = report.issues.iter().find(|i| i.outcome != Outcome::Kept) {
            return Err(Error::Syntax {
                line: issue.line,
                expected: issue.expected,
                found: issue.found.clone(),
            });
        }
        *reg = scratch;
    }
    Ok(report)
}

fn decode(bytes: &[u8], bom: Utf8Bom) -> Result<(String, Encoding), Error> {
    if let Some(rest) = bytes.strip_prefix(&UTF16_BOM) {
        return Ok((text::decode_utf16le(rest), Encoding::Utf16Le));
    }
    if let Some(rest) = bytes.strip_prefix(&UTF8_BOM) {
        return match bom {
            Utf8Bom::Accept => Ok(text::decode_ansi(rest)),
            Utf8Bom::Refuse => Err(Error::Utf8BomRefused),
        };
    }
    Ok(text::decode_ansi(bytes))
}

struct Parser<'a, 'r> {
    reg: &'r mut Registry,
    lines: &'a [&'a str],
    encoding: Encoding,
    /// The current key's full path, `None` when value lines have nowhere to go.
    current: Option<String>,
    issues: &'r mut Vec<Issue>,
}

impl Parser<'_, '_> {
    fn issue(&mut self, r: Reject, outcome: Outcome) {
        self.issues.push(Issue {
            line: r.line,
            expected: r.expected,
            found: r.found,
            outcome,
        });
    }

    /// Reads the line at index `i` (and its continuations); returns the index of the next.
    fn line(&mut self, i: usize) -> usize {
        let s = trim_start(self.lines[i]);
        match s.as_bytes().first() {
            Some(b'[') => {
                self.key_line(i + 1, s);
                i + 1
            }
            Some(b'@' | b'"') => self.value_line(i, s),
            None | Some(b';') => i + 1,
            Some(_) => {
                // REG-05: ignored; reported so a strict import can refuse it.
                self.issue(
                    Reject::at(
                        i + 1,
                        "a key line `[…]`, a value line `\"name\"=…` or `@=…`, a `;` comment or a blank line",
                        s,
                    ),
                    Outcome::Skipped,
                );
                i + 1
            }
        }
    }

    /// `[ROOT\path]` or `[-ROOT\path]` (REG-06).
    fn key_line(&mut self, line: usize, s: &str) {
        let inner = &s[1..];
        if inner.starts_with([' ', '\t']) {
            let r = Reject::at(line, "a key path right after `[`", s);
            return self.issue(r, Outcome::Skipped);
        }
        let Some(close) = inner.rfind(']') else {
            let r = Reject::at(line, "a `]` closing the key path", s);
            return self.issue(r, Outcome::Skipped);
        };
        let path = &inner[..close];
        self.current = None;
        if let Some(victim) = path.strip_prefix('-') {
            let result = parse_path(victim, false).map_err(|e| match e {
                Error::BadKeyPath { expected, .. } => expected,
                _ => "a key path",
            });
            if let Err(expected) = result.and_then(|p| self.reg.delete_parsed(&p)) {
                self.issue(Reject::at(line, expected, victim), Outcome::NoCurrentKey);
            }
            return;
        }
        let created = parse_path(path, false).and_then(|p| {
            self.reg.create_parsed(&p)?;
            let mut full = ROOTS[p.root].to_owned();
            for name in &p.names {
                full.push('\\');
                full.push_str(name);
            }
            Ok(full)
        });
        match created {
            Ok(full) => self.current = Some(full),
            Err(e) => {
                let expected = match e {
                    Error::BadKeyPath { expected, .. } => expected,
                    _ => "a key path",
                };
                self.issue(Reject::at(line, expected, path), Outcome::NoCurrentKey);
            }
        }
    }

    /// `"name"=data` or `@=data` (REG-07), starting at line index `i`; returns the next index.
    fn value_line(&mut self, i: usize, s: &str) -> usize {
        let line = i + 1;
        let (name, rest) = match self.value_name(line, s) {
            Ok(x) => x,
            Err(r) => {
                self.issue(r, Outcome::Skipped);
                return i + 1;
            }
        };
        let Some(data) = trim_start(rest).strip_prefix('=') else {
            let r = Reject::at(line, "`=` after the value name", rest);
            self.issue(r, Outcome::Skipped);
            return i + 1;
        };
        let data = trim_end(trim_start(data));
        let (op, next) = self.data(i, data);
        let op = match op {
            Ok(op) => op,
            Err(r) => {
                self.issue(r, Outcome::Skipped);
                return next;
            }
        };
        let Some(path) = self.current.clone() else {
            let r = Reject::at(line, "a valid key line before the value", s);
            self.issue(r, Outcome::Skipped);
            return next;
        };
        let written = match self.reg.create_key(&path) {
            Ok(key) => match op {
                DataOp::Delete => {
                    key.delete_value(&name);
                    Ok(())
                }
                DataOp::Set(v) => key.set_value(&name, v),
            },
            Err(e) => Err(e),
        };
        if let Err(e) = written {
            let expected = match e {
                Error::BadValueName { expected, .. } | Error::BadKeyPath { expected, .. } => {
                    expected
                }
                _ => "a value the registry can store",
            };
            self.issue(Reject::at(line, expected, &name), Outcome::Skipped);
        }
        next
    }

    /// The value name and what follows it.
    fn value_name<'s>(&mut self, line: usize, s: &'s str) -> Result<(String, &'s str), Reject> {
        if let Some(rest) = s.strip_prefix('@') {
            return if trim_start(rest).starts_with('=') {
                Ok((String::new(), rest))
            } else {
                Err(Reject::at(line, "`=` right after `@`", s))
            };
        }
        let quoted = s.strip_prefix('"').unwrap_or(s);
        self.quoted(line, quoted)
    }

    /// A quoted string after its opening `"` (REG-09): the text and what follows the closing
    /// quote.
    fn quoted<'s>(&mut self, line: usize, s: &'s str) -> Result<(String, &'s str), Reject> {
        let mut out = String::new();
        let mut chars = s.char_indices();
        while let Some((at, c)) = chars.next() {
            match c {
                '"' => return Ok((out, &s[at + 1..])),
                '\\' => match chars.next() {
                    None => {
                        return Err(Reject::at(line, "an escaped character after `\\`", s));
                    }
                    Some((_, '0')) => {
                        return Err(Reject::at(
                            line,
                            "one of the escapes \\\\ \\\" \\n \\r (\\0 is not allowed)",
                            &s[at..],
                        ));
                    }
                    Some((_, '\\')) => out.push('\\'),
                    Some((_, '"')) => out.push('"'),
                    Some((_, 'n')) => out.push('\n'),
                    Some((_, 'r')) => out.push('\r'),
                    Some((next, other)) => {
                        out.push(other);
                        let r = Reject::at(
                            line,
                            "one of the escapes \\\\ \\\" \\n \\r",
                            &s[at..next + other.len_utf8()],
                        );
                        self.issue(r, Outcome::Kept);
                    }
                },
                c => out.push(c),
            }
        }
        Err(Reject::at(line, "a closing `\"`", s))
    }

    /// The data after `=` (trimmed), starting at line index `i`: the operation, or the
    /// rejection, and the index of the next line to read.
    fn data(&mut self, i: usize, d: &str) -> (Result<DataOp, Reject>, usize) {
        let line = i + 1;
        if let Some(rest) = d.strip_prefix('-') {
            let op = if rest_is_empty(rest) {
                Ok(DataOp::Delete)
            } else {
                Err(Reject::at(line, "only a `;` comment after `=-`", d))
            };
            return (op, i + 1);
        }
        if let Some(rest) = d.strip_prefix('"') {
            let op = self.quoted(line, rest).and_then(|(text, after)| {
                if rest_is_empty(after) {
                    Ok(DataOp::Set(Value::sz(&text)))
                } else {
                    Err(Reject::at(
                        line,
                        "only spaces or a `;` comment after the closing `\"`",
                        after,
                    ))
                }
            });
            return (op, i + 1);
        }
        if let Some(rest) = d.strip_prefix("dword:") {
            return (
                dword(line, rest).map(|v| DataOp::Set(Value::dword(v))),
                i + 1,
            );
        }
        let (ty, list) = if let Some(rest) = d.strip_prefix("hex:") {
            (ValueType::BINARY, rest)
        } else if let Some(rest) = d.strip_prefix("hex(") {
            match hex_type(rest) {
                Some(x) => x,
                None => {
                    let r = Reject::at(
                        line,
                        "a type number in hexadecimal without 0x, then `):` (hex(N):)",
                        d,
                    );
                    return (Err(r), i + 1);
                }
            }
        } else {
            let r = Reject::at(
                line,
                "a data type: \"text\", dword:, hex: or hex(N):, or - to delete",
                d,
            );
            return (Err(r), i + 1);
        };
        let (bytes, next) = self.hex_list(i, list);
        let op = bytes.map(|b| DataOp::Set(Value::new(ty, self.typed_bytes(ty, b))));
        (op, next)
    }

    /// Hex data of a string type as UTF-16 with a terminating NUL (REG-12).
    fn typed_bytes(&self, ty: ValueType, bytes: Vec<u8>) -> Vec<u8> {
        if !ty.is_string() || bytes.is_empty() {
            return bytes;
        }
        let mut data = if self.encoding.is_ansi() {
            let (text, _) = text::decode_ansi(&bytes);
            let mut d = utf16_with_nul(&text);
            d.truncate(d.len() - 2);
            d
        } else {
            bytes
        };
        if !data.ends_with(&[0, 0]) {
            data.extend([0, 0]);
        }
        data
    }

    /// A comma-separated hex byte list starting on line index `i`, with `\` continuations
    /// (REG-11). Returns the bytes (or the rejection) and the index of the next line to read.
    fn hex_list(&self, i: usize, first: &str) -> (Result<Vec<u8>, Reject>, usize) {
        let mut bytes = Vec::new();
        let mut at = i;
        let mut s = first;
        let mut after_comma = false;
        loop {
            s = trim_start(s);
            if s.is_empty() || s.starts_with(';') {
                return (Ok(bytes), at + 1);
            }
            if let Some(tail) = s.strip_prefix('\\') {
                if !after_comma {
                    let r = Reject::at(at + 1, "a hexadecimal byte before `\\`", s);
                    return (Err(r), at + 1);
                }
                if !rest_is_empty(tail) {
                    let r = Reject::at(at + 1, "only spaces or a `;` comment after `\\`", tail);
                    return (Err(r), at + 1);
                }
                // The next line that is neither blank nor a comment continues the list.
                loop {
                    at += 1;
                    let Some(next) = self.lines.get(at) else {
                        // End of file inside a continuation: keep what was read.
                        return (Ok(bytes), at);
                    };
                    if !rest_is_empty(next) {
                        break;
                    }
                }
                let t = trim_start(self.lines[at]);
                if hex_digits(t) == 0 {
                    // Drop the value; the line is then read as a line of its own.
                    let r = Reject::at(at + 1, "a hexadecimal byte continuing the list", t);
                    return (Err(r), at);
                }
                s = t;
                after_comma = false;
                continue;
            }
            let n = hex_digits(s);
            let value = s[..n]
                .bytes()
                .try_fold(0u32, |acc, d| {
                    let digit = char::from(d).to_digit(16)?;
                    acc.checked_mul(16)?.checked_add(digit)
                })
                .filter(|v| *v <= 0xFF);
            let Some(byte) = value.and_then(|v| u8::try_from(v).ok()).filter(|_| n > 0) else {
                let r = Reject::at(at + 1, "a hexadecimal byte 00 to ff", s);
                return (Err(r), at + 1);
            };
            bytes.push(byte);
            s = &s[n..];
            if rest_is_empty(s) {
                return (Ok(bytes), at + 1);
            }
            match s.strip_prefix(',') {
                Some(rest) => {
                    s = rest;
                    after_comma = true;
                }
                None => {
                    let r = Reject::at(at + 1, "`,` between bytes", s);
                    return (Err(r), at + 1);
                }
            }
        }
    }
}

/// `dword:` data (REG-10): spaces/tabs, 1–8 hex digits, then only spaces/tabs or a comment.
fn dword(line: usize, s: &str) -> Result<u32, Reject> {
    let s = trim_start(s);
    let n = hex_digits(s);
    if n == 0 || n > 8 || !rest_is_empty(&s[n..]) {
        return Err(Reject::at(
            line,
            "1 to 8 hexadecimal digits after dword:, then only a `;` comment",
            s,
        ));
    }
    u32::from_str_radix(&s[..n], 16)
        .map_err(|_| Reject::at(line, "1 to 8 hexadecimal digits after dword:", s))
}

/// `N):` after `hex(` (REG-08): the type and the list after the colon.
fn hex_type(s: &str) -> Option<(ValueType, &str)> {
    let n = hex_digits(s);
    if n == 0 || n > 8 {
        return None;
    }
    let rest = s[n..].strip_prefix("):")?;
    let ty = u32::from_str_radix(&s[..n], 16).ok()?;
    Some((ValueType(ty), rest))
}

impl Registry {
    /// Applies a `.reg` file to this registry (`regedit /s file.reg`), with the default
    /// [`ImportOptions`]: later lines and later files override earlier ones, deletions
    /// included (REG-20).
    ///
    /// # Errors
    /// Only for a file that is not a registry script at all (REG-04):
    /// [`Error::NotARegistryScript`], [`Error::Windows31Format`]. Bad lines are skipped and
    /// listed in [`ImportReport::issues`] (REG-13).
    pub fn import_reg(&mut self, bytes: &[u8]) -> Result<ImportReport, Error> {
        import(self, bytes, &ImportOptions::default())
    }

    /// [`Registry::import_reg`] with options.
    ///
    /// # Errors
    /// As [`Registry::import_reg`]; also [`Error::Utf8BomRefused`] with
    /// [`Utf8Bom::Refuse`], and [`Error::Syntax`] for the first skipped line under
    /// [`ImportOptions::strict`] (the registry is then unchanged).
    pub fn import_reg_with(
        &mut self,
        bytes: &[u8],
        options: &ImportOptions,
    ) -> Result<ImportReport, Error> {
        import(self, bytes, options)
    }

    /// A new registry holding one `.reg` file.
    ///
    /// # Errors
    /// As [`Registry::import_reg`].
    pub fn from_reg(bytes: &[u8]) -> Result<(Registry, ImportReport), Error> {
        let mut reg = Registry::new();
        let report = reg.import_reg(bytes)?;
        Ok((reg, report))
    }
}
