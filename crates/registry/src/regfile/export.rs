//! Writing a [`Registry`] as a "Version 5.00" `.reg` file.

use std::fmt::Write as _;

use super::text::UTF16_BOM;
use crate::key::Registry;
use crate::value::{Value, ValueType, utf16_units};

/// The encoding [`Registry::export_reg_with`] writes.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum ExportEncoding {
    /// UTF-16LE with a BOM, as regedit writes "Version 5.00" files (REG-03).
    #[default]
    Utf16Le,
    /// UTF-8 without a BOM (readable by Wine's importer, which an UTF-8 BOM defeats).
    Utf8,
}

/// How [`Registry::export_reg_with`] writes.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
#[non_exhaustive]
pub struct ExportOptions {
    /// The file encoding.
    pub encoding: ExportEncoding,
}

impl ExportOptions {
    /// UTF-8 without a BOM.
    pub fn utf8() -> ExportOptions {
        ExportOptions {
            encoding: ExportEncoding::Utf8,
        }
    }
}

/// Where regedit wraps hex lists: a line never passes this column before its `\`.
const WRAP: usize = 76;

fn quote_into(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// The text of a REG_SZ that a quoted string gives back exactly: UTF-16 ending in its only
/// NUL.
fn quotable(v: &Value) -> Option<String> {
    let units = utf16_units(v.data())?;
    let (last, body) = units.split_last()?;
    if *last != 0 || body.contains(&0) {
        return None;
    }
    String::from_utf16(body).ok()
}

/// The bytes a hex list carries for `v` in a file of this encoding: string types are text of
/// the file's encoding (REG-12).
fn hex_bytes(v: &Value, encoding: ExportEncoding) -> Vec<u8> {
    if encoding == ExportEncoding::Utf8 && v.ty().is_string() {
        if let Some(text) = utf16_units(v.data()).and_then(|u| String::from_utf16(&u).ok()) {
            return text.into_bytes();
        }
    }
    v.data().to_vec()
}

fn value_into(out: &mut String, name: &str, v: &Value, encoding: ExportEncoding) {
    let start = out.len();
    if name.is_empty() {
        out.push('@');
    } else {
        quote_into(out, name);
    }
    out.push('=');
    if v.ty() == ValueType::SZ {
        if let Some(text) = quotable(v) {
            quote_into(out, &text);
            out.push_str("\r\n");
            return;
        }
    }
    if let Some(d) = v.to_dword() {
        let _ = write!(out, "dword:{d:08x}\r\n");
        return;
    }
    if v.ty() == ValueType::BINARY {
        out.push_str("hex:");
    } else {
        let _ = write!(out, "hex({:x}):", v.ty().0);
    }
    let mut column = out[start..].chars().count();
    let bytes = hex_bytes(v, encoding);
    for (i, b) in bytes.iter().enumerate() {
        let _ = write!(out, "{b:02x}");
        column += 2;
        if i + 1 < bytes.len() {
            out.push(',');
            column += 1;
            if column > WRAP {
                out.push_str("\\\r\n  ");
                column = 2;
            }
        }
    }
    out.push_str("\r\n");
}

impl Registry {
    /// The registry as the text of a "Version 5.00" `.reg` file (CRLF line ends): every key,
    /// parents first, each with its values in order; the roots only when they hold values.
    pub fn export_reg_text(&self) -> String {
        self.export_text(ExportEncoding::Utf16Le)
    }

    fn export_text(&self, encoding: ExportEncoding) -> String {
        let mut out = String::from("Windows Registry Editor Version 5.00\r\n\r\n");
        for (path, key) in self.walk() {
            let is_root = !path.contains('\\');
            if is_root && key.values().next().is_none() {
                continue;
            }
            let _ = write!(out, "[{path}]\r\n");
            for (name, v) in key.values() {
                value_into(&mut out, name, v, encoding);
            }
            out.push_str("\r\n");
        }
        out
    }

    /// The registry as a `.reg` file: UTF-16LE with a BOM, as regedit writes it.
    ///
    /// [`Registry::import_reg`] of the result gives back an equal registry, with one
    /// exception a `.reg` file cannot avoid: data of a string type (REG_SZ, REG_EXPAND_SZ,
    /// REG_MULTI_SZ) that is not empty and does not end in a NUL gains one on import
    /// (REG-12) — as it would going through regedit. Everything else, unknown types,
    /// odd-length strings and all, comes back byte for byte.
    pub fn export_reg(&self) -> Vec<u8> {
        self.export_reg_with(&ExportOptions::default())
    }

    /// [`Registry::export_reg`] with options. In UTF-8, string-typed hex data is written as
    /// UTF-8 text (the importer converts it back, REG-12), so data of those types that is not
    /// valid UTF-16 cannot come back exactly; it is written as raw bytes.
    pub fn export_reg_with(&self, options: &ExportOptions) -> Vec<u8> {
        let text = self.export_text(options.encoding);
        match options.encoding {
            ExportEncoding::Utf8 => text.into_bytes(),
            ExportEncoding::Utf16Le => {
                let mut out = UTF16_BOM.to_vec();
                out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_the_regedit_shape() {
        let mut reg = Registry::new();
        let k = r"HKLM\SYSTEM\CurrentControlSet\Control\WMI\Autologger\Demo";
        reg.set_value(k, "Start", Value::dword(1)).unwrap();
        reg.set_value(k, "Guid", Value::sz("{a\"b\\c}")).unwrap();
        reg.set_value(k, "", Value::sz("default")).unwrap();
        reg.set_value(k, "Any", Value::qword(0xff)).unwrap();
        reg.set_value(k, "Big", Value::binary(vec![0xab; 40]))
            .unwrap();
        let text = reg.export_reg_text();
        assert!(text.starts_with(
            "Windows Registry Editor Version 5.00\r\n\r\n[HKEY_LOCAL_MACHINE\\SYSTEM]\r\n"
        ));
        assert!(text.contains(
            "[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\WMI\\Autologger\\Demo]\r\n\"Start\"=dword:00000001\r\n\"Guid\"=\"{a\\\"b\\\\c}\"\r\n@=\"default\"\r\n\"Any\"=hex(b):ff,00,00,00,00,00,00,00\r\n\"Big\"=hex:ab,"
        ));
        for line in text.lines() {
            assert!(line.len() <= 80, "{line:?}");
        }
        let bin = text
            .lines()
            .skip_while(|l| !l.starts_with("\"Big\""))
            .take(2);
        let bin: Vec<&str> = bin.collect();
        assert!(bin[0].ends_with(",\\"), "{bin:?}");
        assert!(bin[1].starts_with("  ab,"), "{bin:?}");
        assert_eq!(&reg.export_reg()[..2], &UTF16_BOM);
    }
}
