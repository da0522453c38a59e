//! The `.reg` file format, both ways (REG-03 … REG-13).
//!
//! [`import`](crate::Registry::import_reg) follows Wine's regedit importer, which is
//! conformance-tested against Windows (the grammar of `shared/spec/etw-rules.md` §12.2):
//!
//! * **Encoding** (REG-03): `FF FE` first → UTF-16LE; anything else is the "ANSI code page",
//!   which here is UTF-8 when the bytes are valid UTF-8 and Windows-1252 otherwise (a
//!   simulator has no code page; those two cover what people write). A UTF-8 byte-order mark
//!   is skipped by default; [`Utf8Bom::Refuse`] reproduces Wine, where it spoils the header
//!   (REG-04, uncertain for Windows). Lines end at CR, LF or CRLF.
//! * **Header** (REG-04): the first line, after spaces/tabs, is exactly
//!   `Windows Registry Editor Version 5.00` or `REGEDIT4`.
//! * **Lines** (REG-05 … REG-11): `[ROOT\path]`, `[-ROOT\path]`, `"name"=data`, `@=data`,
//!   `"name"=-`; data `"text"`, `dword:`, `hex:`, `hex(N):` with `\` continuations.
//! * **Errors are local** (REG-13): a bad line is skipped and reported in
//!   [`ImportReport::issues`] with its 1-based line number and what was expected; the rest of
//!   the file is imported. [`ImportOptions::strict`] turns the first skipped line into an
//!   [`Error::Syntax`](crate::Error::Syntax) and leaves the registry untouched.
//!
//! Choices where the grammar is silent (all lenient, none loses data that Wine keeps): a `,`
//! ending a hex line without `\` ends the list; spaces/tabs may follow `hex:`; a continuation
//! line that does not start with a hex digit drops the value *and is then read as a line of
//! its own*; an odd trailing byte in a UTF-16 file is ignored.
//!
//! [`export`](crate::Registry::export_reg) writes the "Version 5.00" format, UTF-16LE with a
//! BOM (or UTF-8 without one, as [`ExportOptions::encoding`] says), CRLF line ends, every key
//! parents first, hex lists wrapped at 80 columns the way regedit does. Importing what it
//! writes gives back an equal [`Registry`](crate::Registry) — see
//! [`Registry::export_reg`](crate::Registry::export_reg) for the one kind of value a `.reg`
//! file cannot carry.

mod export;
mod import;
mod text;

pub use export::{ExportEncoding, ExportOptions};
pub use import::{Header, ImportOptions, ImportReport, Issue, Outcome, Utf8Bom};
pub use text::Encoding;
