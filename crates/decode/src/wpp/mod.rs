//! WPP: trace messages (`TraceMessage`, TMF-based WPP) decoded and formatted with their TMF
//! descriptions, as TraceFmt does off Windows.
//!
//! # The parts
//!
//! | item | Windows name | what it is |
//! |---|---|---|
//! | [`TmfSet`] | a TMF search path (`TRACE_FORMAT_SEARCH_PATH`, TraceFmt `-p`, `-tmf`) | the message formats of TMF files and folders, keyed by (message GUID, message number) |
//! | [`MessageFormat`], [`ArgDef`] | a `#typev` entry and its `{ … }` list | one message: name, number, format string, level, flags, function, arguments |
//! | [`ItemType`] | `ItemLong`, `ItemWString`, `ItemNTSTATUS`… | one argument's layout and display |
//! | [`WppMessage`] | a `MESSAGE_TRACE_HEADER` record | the header fields and argument bytes of one message |
//! | [`DecodedMessage`], [`Argument`] | TDH's `DecodingSourceWPP`, `TdhGetWppMessage` | the arguments and the formatted text |
//!
//! # The record (`etl-format.md` §4, rule EVT-19, EVT-29)
//!
//! `TraceMessage(LoggerHandle, MessageFlags, MessageGuid, MessageNumber, …)` writes a
//! `MESSAGE_TRACE_HEADER`: u16 Size, u8 0, u8 0x90 (TRACE_HEADER_FLAG | TRACE_MESSAGE), u16
//! MessageNumber, u16 OptionFlags, then — in this order, each only when its flag is set —
//! u32 sequence number (`TRACE_MESSAGE_SEQUENCE` 0x01, numbered from 1 per session or across
//! sessions, SES-45), the 16-byte message GUID (`TRACE_MESSAGE_GUID` 0x02) or a u32 component
//! id (`TRACE_MESSAGE_COMPONENTID` 0x04, exclusive with the GUID), an i64 time stamp
//! (`TRACE_MESSAGE_TIMESTAMP` 0x08), u32 thread id and u32 process id
//! (`TRACE_MESSAGE_SYSTEMINFO` 0x20); then the arguments, each as many bytes as the caller
//! passed, back to back (`TRACE_MESSAGE_POINTER32/64` 0x40/0x80 give the writer's pointer
//! size). The `.etl` reader hands such a record out as an `etwsim_etl::TraceRecord` with its
//! [`MessageInfo`](etwsim_etl::MessageInfo); [`WppMessage::from_record`] takes it from there.
//! A message with a component id is looked up under the GUID whose first 32 bits are the id
//! and the rest zero (as TraceFmt's library copied it into the GUID; observed in source).
//!
//! # Formatting (TraceFmt)
//!
//! The text is the format string with its inserts filled ([`format`](mod@format) module docs): `%10!d!`
//! and the like with the arguments by their insert numbers, `%!FUNC!`, `%!LEVEL!`,
//! `%!FLAGS!` with the `#typev` line's annotations, `%!COMPNAME!`, `%!FILE!`, `%!LINE!` with
//! the GUID line's component and source file and the line the message name ends with. The
//! special formats of WPP reach a TMF as an `%N!s!` insert of a special item type —
//! `%!STATUS!` as `ItemNTSTATUS`, `%!HRESULT!` as `ItemHRESULT`, `%!WINERROR!` as
//! `ItemWINERROR`, `%!GUID!` as `ItemGuid`, `%!IPADDR!` as `ItemIPAddr`, `%!PORT!` as
//! `ItemPort`, `%!bool!` as `ItemListLong(false,true)`, `%!BOOLEAN!` as
//! `ItemListByte(FALSE,TRUE)`, `%!TIME!` as `ItemTimestamp` — and are shown by their item
//! type ([`status`] for the status codes). `%0`, TraceFmt's prefix, is left out of
//! [`DecodedMessage::text`]; [`DecodedMessage::line`] puts TraceFmt's standard prefix
//! `[%9!d!]%8!04X!.%3!04X!::%4!s! [%1!s!]` (`… %7!08x! [%1!s!]` with a sequence number) in
//! front, as TraceFmt prints a line. An insert with no value shows `<NoValue>`, as TraceFmt
//! does. Times are shown in UTC (TraceFmt uses the local time zone).
//!
//! # Example
//!
//! ```
//! use etwsim_decode::wpp::{TmfSet, WppMessage};
//! use etwsim_types::Guid;
//!
//! let tmf = br#"1606d1a7-1682-57d1-65f7-36693800e096 tracedrv // SRC=tracedrv.c MJ= MN=
//! #typev tracedrv_c272 11 "%0Hello, %10!d! %11!s!" // LEVEL=TRACE_LEVEL_NONE FLAGS=FLAG_ONE FUNC=TracedrvDispatchDeviceControl
//! {
//! i, ItemLong -- 10
//! "Hi", ItemString -- 11
//! }
//! "#;
//! let set = TmfSet::from_text(tmf, "tracedrv.tmf");
//! let mut args = 1i32.to_le_bytes().to_vec();
//! args.extend_from_slice(b"Hi\0");
//! let message = WppMessage {
//!     guid: Some("1606d1a7-1682-57d1-65f7-36693800e096".parse::<Guid>().unwrap()),
//!     number: 11,
//!     ..WppMessage::new(&args)
//! };
//! let decoded = set.decode(&message).unwrap();
//! assert_eq!(decoded.text, "Hello, 1 Hi");
//! assert_eq!(decoded.format.function.as_deref(), Some("TracedrvDispatchDeviceControl"));
//! ```
//!
//! Rules: DEC-01 (routing: a record with the TRACE_MESSAGE flag is WPP), EVT-19, EVT-29,
//! SES-45. Sources: Learn's TraceMessage, "Trace Message Format File", "What are the WPP
//! extended format specification strings", PROPERTY_DATA_DESCRIPTOR (the WPP property names);
//! the WDK's `defaultwpp.ini` (item types); TraceFmt's formatting library (observed in
//! source).

pub mod format;
pub mod item;
pub mod status;
pub mod tmf;

pub use item::ItemType;

use crate::Error;
use crate::fields::Value;
use crate::wire::Cursor;
use etwsim_types::Guid;
use format::{Compiled, Ext, Piece, Spec};
use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The largest TMF file read: 16 MiB (real ones are a few KB; a driver's, a few hundred).
pub const MAX_TMF_BYTES: u64 = 16 << 20;

/// The most `.tmf` files read from one folder.
pub const MAX_TMF_FILES: usize = 100_000;

/// The most diagnostics a [`TmfSet`] keeps; it counts the others.
pub const MAX_DIAGNOSTICS: usize = 1000;

/// What an insert without a value shows (TraceFmt's `<NoValue>`).
pub const NO_VALUE: &str = "<NoValue>";

/// One argument of a message format: `expression, ItemType -- N`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgDef {
    /// The source expression the value came from (`ioctlCount`, `"Hi"`): its name.
    pub name: String,
    /// Its type.
    pub item: ItemType,
    /// Its insert number in the format string (`%10`: 10).
    pub index: u16,
}

/// One message of a TMF file (a `#typev` entry).
#[derive(Clone, Debug, PartialEq)]
pub struct MessageFormat {
    /// The message GUID (the GUID line's).
    pub guid: Guid,
    /// The component (the name after the GUID; TraceFmt's `%1`, the provider name shown).
    pub component: Arc<str>,
    /// The source file (`SRC=` of the GUID line).
    pub source_file: Option<Arc<str>>,
    /// The message's name: the source file and line (`tracedrv_c272`; TDH's GuidTypeName).
    pub name: String,
    /// The message number.
    pub number: u16,
    /// The format string as the TMF has it.
    pub format: String,
    /// `LEVEL=` (`TRACE_LEVEL_ERROR`).
    pub level: Option<String>,
    /// `FLAGS=` (`FLAG_ONE`).
    pub flags: Option<String>,
    /// `FUNC=` (the C function).
    pub function: Option<String>,
    /// The source line: the digits the name ends with.
    pub source_line: Option<u32>,
    /// The arguments, in payload order.
    pub args: Vec<ArgDef>,
    /// The TMF file it came from.
    pub tmf_file: Arc<str>,
    /// Its `#typev` line there.
    pub tmf_line: u32,
    compiled: Compiled,
}

/// Something the TMF reader noticed: a message it left out, a line it did not understand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file.
    pub file: Arc<str>,
    /// The 1-based line.
    pub line: u32,
    /// What, and what it cost.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// The message formats of a set of TMF files (a TMF search path).
#[derive(Clone, Debug, Default)]
pub struct TmfSet {
    messages: HashMap<(Guid, u16), MessageFormat>,
    diagnostics: Vec<Diagnostic>,
    more_diagnostics: usize,
    files: usize,
}

impl TmfSet {
    /// An empty set.
    pub fn new() -> TmfSet {
        TmfSet::default()
    }

    /// The messages of one TMF file's bytes, `file` naming it in diagnostics.
    pub fn from_text(bytes: &[u8], file: &str) -> TmfSet {
        let mut set = TmfSet::new();
        set.add_text(bytes, file);
        set
    }

    /// Reads a TMF file, or every `*.tmf` file of a folder (not its subfolders, in name
    /// order), as TraceFmt's `-p` / `-tmf` take them.
    ///
    /// # Errors
    /// The path's I/O errors; a folder with more than [`MAX_TMF_FILES`] TMF files; a file
    /// larger than [`MAX_TMF_BYTES`] ([`std::io::ErrorKind::FileTooLarge`]). Each names the
    /// file.
    pub fn load(path: &Path) -> std::io::Result<TmfSet> {
        let mut set = TmfSet::new();
        set.add_path(path)?;
        Ok(set)
    }

    /// Adds a TMF file or folder ([`load`](Self::load)).
    ///
    /// # Errors
    /// As [`load`](Self::load).
    pub fn add_path(&mut self, path: &Path) -> std::io::Result<()> {
        let named = |e: std::io::Error, p: &Path| {
            std::io::Error::new(e.kind(), format!("{}: {}", p.display(), e))
        };
        if std::fs::metadata(path)
            .map_err(|e| named(e, path))?
            .is_dir()
        {
            let mut files = Vec::new();
            for entry in std::fs::read_dir(path).map_err(|e| named(e, path))? {
                let p = entry.map_err(|e| named(e, path))?.path();
                let tmf = p.extension().is_some_and(|x| x.eq_ignore_ascii_case("tmf"));
                if tmf && p.is_file() {
                    if files.len() == MAX_TMF_FILES {
                        return Err(std::io::Error::other(format!(
                            "{}: more than {MAX_TMF_FILES} TMF files",
                            path.display()
                        )));
                    }
                    files.push(p);
                }
            }
            files.sort();
            for p in files {
                let bytes = read_capped(&p).map_err(|e| named(e, &p))?;
                self.add_text(&bytes, &p.display().to_string());
            }
        } else {
            let bytes = read_capped(path).map_err(|e| named(e, path))?;
            self.add_text(&bytes, &path.display().to_string());
        }
        Ok(())
    }

    /// Adds the messages of one TMF file's bytes. A message already known (same GUID and
    /// number) keeps its first format; the later one is a diagnostic.
    pub fn add_text(&mut self, bytes: &[u8], file: &str) {
        let text = tmf::text_of(bytes);
        let file: Arc<str> = Arc::from(file);
        let mut found = Vec::new();
        let mut diags = Vec::new();
        tmf::parse(&text, &file, &mut found, &mut |d| diags.push(d));
        for d in diags {
            self.note(d);
        }
        for m in found {
            let key = (m.guid, m.number);
            if let Some(first) = self.messages.get(&key) {
                let d = Diagnostic {
                    file: m.tmf_file.clone(),
                    line: m.tmf_line,
                    message: format!(
                        "message {} of {} is defined again (first at {}:{}, which is kept)",
                        m.number, m.guid, first.tmf_file, first.tmf_line
                    ),
                };
                self.note(d);
                continue;
            }
            self.messages.insert(key, m);
        }
        self.files += 1;
    }

    fn note(&mut self, d: Diagnostic) {
        if self.diagnostics.len() < MAX_DIAGNOSTICS {
            self.diagnostics.push(d);
        } else {
            self.more_diagnostics += 1;
        }
    }

    /// What the reader noticed (at most [`MAX_DIAGNOSTICS`]), in reading order.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Diagnostics not kept beyond [`MAX_DIAGNOSTICS`].
    pub fn diagnostics_not_kept(&self) -> usize {
        self.more_diagnostics
    }

    /// Number of messages.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Whether there are no messages.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }

    /// Number of files read.
    pub fn files(&self) -> usize {
        self.files
    }

    /// The format of message `number` of `guid`.
    pub fn message(&self, guid: Guid, number: u16) -> Option<&MessageFormat> {
        self.messages.get(&(guid, number))
    }

    /// The messages, in no particular order.
    pub fn messages(&self) -> impl Iterator<Item = &MessageFormat> {
        self.messages.values()
    }

    /// Decodes and formats `message` (module docs).
    ///
    /// # Errors
    /// [`Error::WppNoGuid`] for a message with neither GUID nor component id;
    /// [`Error::WppNoFormat`] when no TMF describes it; [`Error::WppArgument`] when an
    /// argument does not fit the payload (naming it, its insert number and offset) or has a
    /// type this decoder does not know.
    pub fn decode<'t>(&'t self, message: &WppMessage<'_>) -> Result<DecodedMessage<'t>, Error> {
        let guid = message.lookup_guid().ok_or(Error::WppNoGuid)?;
        let format = self
            .message(guid, message.number)
            .ok_or(Error::WppNoFormat {
                guid,
                number: message.number,
            })?;
        let args = read_args(format, message)?;
        let header = Header::of(message);
        let mut text = String::with_capacity(format.format.len() + 16);
        render(&mut text, &format.compiled, format, &args, &header);
        Ok(DecodedMessage {
            format,
            args,
            text,
            header,
        })
    }
}

/// A file's bytes, at most [`MAX_TMF_BYTES`].
fn read_capped(path: &Path) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_TMF_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_TMF_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!(
                "larger than the {} MiB a TMF file may be",
                MAX_TMF_BYTES >> 20
            ),
        ));
    }
    Ok(bytes)
}

/// One WPP message as read from a `MESSAGE_TRACE_HEADER` record (module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct WppMessage<'a> {
    /// The message GUID (`TRACE_MESSAGE_GUID`).
    pub guid: Option<Guid>,
    /// The component id (`TRACE_MESSAGE_COMPONENTID`).
    pub component_id: Option<u32>,
    /// The message number.
    pub number: u16,
    /// The sequence number (`TRACE_MESSAGE_SEQUENCE`).
    pub sequence: Option<u32>,
    /// The thread id (`TRACE_MESSAGE_SYSTEMINFO`).
    pub thread_id: Option<u32>,
    /// The process id (`TRACE_MESSAGE_SYSTEMINFO`).
    pub process_id: Option<u32>,
    /// The time stamp as a FILETIME, for `%4` (`None` when the record has none, or its
    /// clock cannot be converted).
    pub timestamp: Option<i64>,
    /// The processor of the buffer it was in (`%9`).
    pub cpu: u16,
    /// The writer's pointer size (4 or 8), for `ItemPtr`.
    pub pointer_size: u8,
    /// The argument bytes.
    pub args: &'a [u8],
}

impl<'a> WppMessage<'a> {
    /// A message with only its arguments (no GUID, number 0, 64-bit pointers): fill the rest
    /// with struct update syntax.
    pub fn new(args: &'a [u8]) -> WppMessage<'a> {
        WppMessage {
            guid: None,
            component_id: None,
            number: 0,
            sequence: None,
            thread_id: None,
            process_id: None,
            timestamp: None,
            cpu: 0,
            pointer_size: 8,
            args,
        }
    }

    /// The message a `MESSAGE_TRACE_HEADER` record carries; `None` for any other record.
    /// The pointer size comes from the record's POINTER32/64 flag, else
    /// `default_pointer_size` (the log file's). The time stamp is the record's as it is:
    /// set [`timestamp`](Self::timestamp) to a FILETIME, or `None`, as the file's clock says.
    pub fn from_record(r: &'a etwsim_etl::TraceRecord, default_pointer_size: u8) -> Option<Self> {
        if r.kind() != Some(etwsim_etl::RecordKind::Message) {
            return None;
        }
        let m = r.message.unwrap_or_default();
        let guid_flag = m.option_flags & etwsim_etl::message_flags::GUID != 0;
        Some(WppMessage {
            guid: if m.component_id.is_none() && guid_flag {
                r.guid
            } else {
                None
            },
            component_id: m.component_id,
            number: r.hook_id,
            sequence: m.sequence,
            thread_id: r.thread_id,
            process_id: r.process_id,
            timestamp: r.timestamp,
            cpu: r.buffer_context.processor_index,
            pointer_size: r.pointer_size().unwrap_or(default_pointer_size),
            args: &r.payload,
        })
    }

    /// The GUID the TMF set knows the message by: its GUID, or its component id as the first
    /// 32 bits of a GUID.
    pub fn lookup_guid(&self) -> Option<Guid> {
        self.guid.or_else(|| {
            self.component_id
                .map(|c| Guid::from_fields(c, 0, 0, [0; 8]))
        })
    }
}

/// One decoded argument.
#[derive(Clone, Debug, PartialEq)]
pub struct Argument<'t> {
    /// Its definition (name, type, insert number).
    pub def: &'t ArgDef,
    /// The value as the payload held it.
    pub value: Value,
    /// The writer's pointer size (4 or 8), for `%p`.
    pub pointer_size: u8,
}

impl Argument<'_> {
    /// The value as TraceFmt shows it with `%s` (status codes with their names, addresses
    /// dotted, list items by name, times in UTC…).
    pub fn shown(&self) -> String {
        let mut s = String::new();
        write_arg(&mut s, self, &Spec::default(), self.pointer_size);
        s
    }
}

/// The header items a message's text may insert (`%3`, `%4`, `%7`, `%8`, `%9`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Header {
    /// `%7`: the sequence number.
    pub sequence: Option<u32>,
    /// `%3`: the thread id.
    pub thread_id: Option<u32>,
    /// `%8`: the process id.
    pub process_id: Option<u32>,
    /// `%4`: the time stamp (FILETIME).
    pub timestamp: Option<i64>,
    /// `%9`: the processor.
    pub cpu: u16,
}

impl Header {
    fn of(m: &WppMessage<'_>) -> Header {
        Header {
            sequence: m.sequence,
            thread_id: m.thread_id,
            process_id: m.process_id,
            timestamp: m.timestamp,
            cpu: m.cpu,
        }
    }
}

/// A decoded message.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodedMessage<'t> {
    /// Its format (component, name, function, level, flags…).
    pub format: &'t MessageFormat,
    /// The arguments, in payload order.
    pub args: Vec<Argument<'t>>,
    /// The formatted message, without TraceFmt's prefix (TDH's FormattedString).
    pub text: String,
    /// The header items.
    pub header: Header,
}

impl DecodedMessage<'_> {
    /// The line TraceFmt prints: its standard prefix, then the message (module docs).
    pub fn line(&self) -> String {
        static PLAIN: OnceLock<Compiled> = OnceLock::new();
        static SEQ: OnceLock<Compiled> = OnceLock::new();
        let prefix = if self.header.sequence.is_some() {
            SEQ.get_or_init(|| Compiled::new("[%9!d!]%8!04X!.%3!04X!::%4!s! %7!08x! [%1!s!]"))
        } else {
            PLAIN.get_or_init(|| Compiled::new("[%9!d!]%8!04X!.%3!04X!::%4!s! [%1!s!]"))
        };
        let mut out = String::new();
        render(&mut out, prefix, self.format, &self.args, &self.header);
        out.push_str(&self.text);
        out
    }

    /// The argument with insert number `index`.
    pub fn arg(&self, index: u16) -> Option<&Argument<'_>> {
        self.args.iter().find(|a| a.def.index == index)
    }
}

/// Reads every argument of `format` from the message's payload.
fn read_args<'t>(
    format: &'t MessageFormat,
    message: &WppMessage<'_>,
) -> Result<Vec<Argument<'t>>, Error> {
    let pointer_size = if message.pointer_size == 4 { 4 } else { 8 };
    let Ok(mut c) = Cursor::new(message.args, pointer_size) else {
        return Ok(Vec::new()); // unreachable: 4 or 8
    };
    let mut out = Vec::with_capacity(format.args.len());
    let n = format.args.len();
    for (i, def) in format.args.iter().enumerate() {
        let value = read_value(&mut c, def, i + 1 == n).map_err(|error| Error::WppArgument {
            name: def.name.clone(),
            index: def.index,
            error: Box::new(error),
        })?;
        out.push(Argument {
            def,
            value,
            pointer_size,
        });
    }
    Ok(out)
}

fn read_value(c: &mut Cursor<'_>, def: &ArgDef, last: bool) -> Result<Value, Error> {
    let name = def.name.as_str();
    let u32_of = |c: &mut Cursor<'_>| c.u32(name);
    Ok(match &def.item {
        ItemType::Char => Value::I8(i8::from_le_bytes(c.array(name)?)),
        ItemType::UChar => Value::U8(c.array::<1>(name)?[0]),
        ItemType::Short => Value::I16(i16::from_le_bytes(c.array(name)?)),
        ItemType::UShort => Value::U16(c.u16(name)?),
        ItemType::Long => Value::I32(i32::from_le_bytes(c.array(name)?)),
        ItemType::ULong | ItemType::NtStatus | ItemType::WinError | ItemType::Ndis => {
            Value::U32(u32_of(c)?)
        }
        ItemType::HResult => Value::I32(i32::from_le_bytes(c.array(name)?)),
        ItemType::LongLong | ItemType::LongLongHex | ItemType::TimeDelta => {
            Value::I64(i64::from_le_bytes(c.array(name)?))
        }
        ItemType::ULongLong => Value::U64(u64::from_le_bytes(c.array(name)?)),
        ItemType::Double => Value::F64(f64::from_le_bytes(c.array(name)?)),
        ItemType::Ptr => Value::Pointer(c.pointer(name)?),
        ItemType::String => Value::Ansi(c.ansiz(name, last)?),
        ItemType::WString => Value::String(c.utf16z(name, last)?),
        ItemType::PString => {
            let n = usize::from(c.u16(name)?);
            Value::Ansi(c.take(name, n)?.to_vec())
        }
        ItemType::PWString => {
            let n = usize::from(c.u16(name)?);
            let bytes = c.take(name, n)?;
            Value::String(crate::wire::utf16_lossy(&bytes[..n & !1]))
        }
        ItemType::HexDump => {
            let n = usize::from(c.u16(name)?);
            Value::Binary(c.take(name, n)?.to_vec())
        }
        ItemType::Guid => Value::Guid(Guid::from_bytes_le(c.array(name)?)),
        ItemType::Sid => {
            let at = c.offset;
            c.sid(name)?;
            Value::Sid(c.bytes[at..c.offset].to_vec())
        }
        ItemType::IpAddr => {
            Value::String(std::net::Ipv4Addr::from(c.array::<4>(name)?).to_string())
        }
        ItemType::IpV6Addr => {
            Value::String(std::net::Ipv6Addr::from(c.array::<16>(name)?).to_string())
        }
        ItemType::Port => Value::U16(u16::from_be_bytes(c.array(name)?)),
        ItemType::Timestamp => Value::FileTime(i64::from_le_bytes(c.array(name)?)),
        ItemType::Char4 => Value::Ansi(c.array::<4>(name)?.to_vec()),
        ItemType::List { size, .. } | ItemType::Set { size, .. } => match size {
            1 => Value::U8(c.array::<1>(name)?[0]),
            2 => Value::U16(c.u16(name)?),
            _ => Value::U32(u32_of(c)?),
        },
        ItemType::Enum { .. } => Value::U32(u32_of(c)?),
        ItemType::Unknown(t) => {
            return Err(c.bad(
                name,
                c.offset,
                format!("item type {t:?} is not one this decoder knows; its size is unknown"),
            ));
        }
    })
}

/// Writes `compiled` with the arguments and header items; `%0`, the prefix, writes nothing
/// (the prefix is [`DecodedMessage::line`]'s).
fn render(
    out: &mut String,
    compiled: &Compiled,
    format: &MessageFormat,
    args: &[Argument<'_>],
    header: &Header,
) {
    for piece in &compiled.pieces {
        if out.len() >= format::MAX_TEXT {
            cut(out);
            return;
        }
        match piece {
            Piece::Text(t) => out.push_str(t),
            Piece::Ext(Ext::Line) => {
                if let Some(l) = format.source_line {
                    let _ = fmt::Write::write_fmt(out, format_args!("{l}"));
                }
            }
            Piece::Ext(e) => out.push_str(match e {
                Ext::Func => format.function.as_deref().unwrap_or(""),
                Ext::Level => format.level.as_deref().unwrap_or(""),
                Ext::Flags => format.flags.as_deref().unwrap_or(""),
                Ext::CompName => &format.component,
                Ext::File | Ext::Line => format.source_file.as_deref().unwrap_or(""),
            }),
            Piece::Insert { index, spec } => {
                if let Some(a) = args.iter().find(|a| a.def.index == *index) {
                    write_arg(out, a, spec, a.pointer_size);
                } else {
                    write_header_item(out, *index, spec, format, header);
                }
            }
        }
    }
    if out.len() > format::MAX_TEXT {
        cut(out);
    }
}

/// Cuts `out` to [`format::MAX_TEXT`] bytes (at a character boundary) and marks the cut.
fn cut(out: &mut String) {
    let mut at = format::MAX_TEXT.min(out.len());
    while !out.is_char_boundary(at) {
        at -= 1;
    }
    out.truncate(at);
    out.push('…');
}

/// `%0`…`%9`, TraceFmt's header items.
fn write_header_item(out: &mut String, index: u16, spec: &Spec, f: &MessageFormat, h: &Header) {
    let int = |out: &mut String, v: Option<u32>| match v {
        Some(v) => spec.write_int(out, i128::from(v), 32, false),
        None => out.push_str(NO_VALUE),
    };
    match index {
        0 => {}
        1 => spec.write_str(out, &f.component),
        2 => spec.write_str(out, &f.name),
        3 => int(out, h.thread_id),
        4 => match h.timestamp {
            Some(t) => spec.write_str(out, &tracefmt_time(t)),
            None => out.push_str(NO_VALUE),
        },
        7 => int(out, h.sequence),
        8 => int(out, h.process_id),
        9 => int(out, Some(u32::from(h.cpu))),
        _ => out.push_str(NO_VALUE),
    }
}

/// A FILETIME as TraceFmt prints times, `MM/DD/YYYY-HH:MM:SS.mmm` (in UTC here).
pub fn tracefmt_time(ft: i64) -> String {
    let iso = etwsim_types::record::filetime_utc(ft);
    // `YYYY-MM-DDTHH:MM:SS.fffffffZ`; a year outside 0–9999 keeps the ISO form.
    let b = iso.as_bytes();
    if iso.len() != 28 || b[4] != b'-' || b[10] != b'T' {
        return iso;
    }
    format!(
        "{}/{}/{}-{}.{}",
        &iso[5..7],
        &iso[8..10],
        &iso[0..4],
        &iso[11..19],
        &iso[20..23]
    )
}

/// A signed count of 100-ns intervals as TraceFmt shows `%!delta!` (`12ms`, `3.250s`,
/// `12:5.001s`, `1:2:3.004s`, `2~1:2:3.004s`).
pub fn time_delta(v: i64) -> String {
    let sign = if v < 0 { "-" } else { "" };
    let mut t = v.unsigned_abs() / 10_000;
    let ms = t % 1000;
    t /= 1000;
    if t == 0 {
        return format!("{sign}{ms}ms");
    }
    let s = t % 60;
    t /= 60;
    let m = t % 60;
    t /= 60;
    if t == 0 {
        return if m <= 10 {
            format!("{sign}{}.{ms:03}s", m * 60 + s)
        } else {
            format!("{sign}{m}:{s}.{ms:03}s")
        };
    }
    let h = t % 24;
    t /= 24;
    if t == 0 {
        format!("{sign}{h}:{m}:{s}.{ms:03}s")
    } else {
        format!("{sign}{t}~{h}:{m}:{s}.{ms:03}s")
    }
}

/// Writes one argument with `spec` (module docs).
fn write_arg(out: &mut String, a: &Argument<'_>, spec: &Spec, pointer_size: u8) {
    let item = &a.def.item;
    let bits = item.fixed_size(pointer_size).map_or(64, |n| (n * 8) as u32);
    let int = a.value.as_i128();
    if let Some(v) = int {
        let numeric = spec.is_numeric() || matches!(spec.conv, b'c' | b'C');
        if item.is_integer() && numeric {
            return spec.write_int(out, v, bits, item.is_signed());
        }
    }
    let text: String = match (item, &a.value) {
        (ItemType::NtStatus, Value::U32(v)) => status::show_ntstatus(*v),
        (ItemType::WinError, Value::U32(v)) => status::show_winerror(*v),
        (ItemType::HResult, Value::I32(v)) => status::show_hresult(*v as u32),
        (ItemType::Ndis, Value::U32(v)) => format!("{v:#010x}"),
        (ItemType::LongLongHex, Value::I64(v)) => format!("{:#x}", *v as u64),
        (ItemType::Timestamp, Value::FileTime(v)) => tracefmt_time(*v),
        (ItemType::TimeDelta, Value::I64(v)) => time_delta(*v),
        (ItemType::Enum { flags: true, .. }, Value::U32(v)) => format!("{v:#x}"),
        (ItemType::Ptr, Value::Pointer(p)) => format!("{p:#x}"),
        (ItemType::List { names, .. }, v) => {
            let n = v.as_i128().unwrap_or(0) as u32;
            match names.iter().find(|(k, _)| *k == n) {
                Some((_, name)) => name.clone(),
                None => format!("!{n:X}!"),
            }
        }
        (ItemType::Set { size, names }, v) => {
            let set = v.as_i128().unwrap_or(0) as u32;
            let mut s = String::from("[");
            for i in 0..u32::from(*size) * 8 {
                if set >> i & 1 == 1 {
                    if s.len() > 1 {
                        s.push(',');
                    }
                    match names.get(i as usize) {
                        Some(name) => s.push_str(name),
                        None => s.push_str(&i.to_string()),
                    }
                }
            }
            s.push(']');
            s
        }
        (ItemType::Double, Value::F64(v)) => return spec.write_f64(out, *v),
        (_, _) if item.is_integer() && int.is_some() => {
            return spec.write_int(out, int.unwrap_or(0), bits, item.is_signed());
        }
        (_, v) => v.to_string(),
    };
    spec.write_str(out, &text);
}
