//! What a record means, for `dump` and `export`: its provider's name, its event's name, its
//! fields and (for manifest events) its message — from whichever description the record
//! has (DEC-01):
//!
//! * `EVENT_HEADER_FLAG_STRING_ONLY`: an `EventWriteString` event (EVT-13, EVT-19), whose
//!   payload is its text: no fields, the text as its message (simulator choice: looked at
//!   before any schema, since such an event has none);
//! * an `EVENT_SCHEMA_TL` item: a TraceLogging event, named by its metadata (DEC-02), its
//!   provider named by the `PROV_TRAITS` item (DEC-04);
//! * a manifest given with `--manifest` that defines the provider GUID (DEC-16…DEC-26):
//!   provider name, event (by id and version), fields rendered with maps and out-types, and
//!   the event's message with its insertions;
//! * a kernel (MOF) class: system and perfinfo records by HookId, classic records and
//!   kernel-class GUIDs by (class, event type, version) (KRN-11…KRN-14); the class name is
//!   the provider name, the event type name the event name;
//! * the `RT_LostEvent` class: loss markers (BUF-14);
//! * a WPP message (`MESSAGE_TRACE_HEADER`, DEC-01) whose format a TMF file given with
//!   `--tmf` has: the component as the provider name, the message name (source file and
//!   line) as the event name, the arguments and TDH's WPP properties (`SequenceNum`,
//!   `FunctionName`, `LevelName`, `FlagsName`) as fields, the text TraceFmt formats as the
//!   message;
//! * a classic event of a class a MOF file given with `--mof` declares (by GUID, event type
//!   and version, before the kernel classes): the event class as the provider name, the
//!   `EventTypeName` as the event name.
//!
//! A record none of them describes, or whose payload does not fit its description, keeps
//! [`Decoded::fields`] empty and says why in [`Decoded::error`] (the decoder's own message,
//! naming the field and payload offset); the dump then shows the payload in hex.
//!
//! Values are kept as the decoder renders them for people ([`Shown`]): integers and floats
//! that render as plain numbers stay numbers, everything with a hint (hex, errors, times,
//! GUIDs, addresses) is its rendered text.

use crate::Failure;
use crate::fmt::{io_reason, printable};
use etwsim::etl::{Record, RecordKind, TraceRecord};
use etwsim::record::{ext_type, header_flags};
use etwsim::{EventRecord, Guid};
use etwsim_decode::manifest::{self, Item, Manifest};
use etwsim_decode::mof;
use etwsim_decode::mof_class::MofClasses;
use etwsim_decode::tracelogging::{EventSchema, OutType, ProviderTraits};
use etwsim_decode::wpp::{Argument, TmfSet, WppMessage};
use etwsim_decode::{Field, Value};
use serde_json::{Map, Number, Value as Json};
use std::fmt::Write as _;
use std::path::PathBuf;

/// One decoded value, as shown.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Shown {
    /// No value (a kernel SID field that was absent).
    Null,
    /// A boolean.
    Bool(bool),
    /// A number that the decoder renders plainly (decimal, no hint).
    Num(Number),
    /// A string field's text: quoted in text output.
    Str(String),
    /// Any other value as the decoder renders it (hex, a GUID, a time, an address…).
    Text(String),
    /// An array.
    List(Vec<Shown>),
    /// A struct: its members in order.
    Map(Vec<(String, Shown)>),
}

/// What a scalar was, for [`Shown::scalar`].
#[derive(Copy, Clone, PartialEq, Eq)]
enum Kind {
    Int,
    Float,
    Bool,
    Str,
    Other,
}

impl Shown {
    /// A scalar from its rendering: a number stays a number only when it renders as one.
    fn scalar(rendered: String, kind: Kind) -> Shown {
        match kind {
            Kind::Str => return Shown::Str(rendered),
            Kind::Int => {
                if let Ok(n) = rendered.parse::<i64>() {
                    return Shown::Num(n.into());
                }
                if let Ok(n) = rendered.parse::<u64>() {
                    return Shown::Num(n.into());
                }
            }
            Kind::Float => {
                if let Some(n) = rendered.parse::<f64>().ok().and_then(Number::from_f64) {
                    return Shown::Num(n);
                }
            }
            Kind::Bool | Kind::Other => {}
        }
        match (kind, rendered.as_str()) {
            (Kind::Int | Kind::Bool, "true") => Shown::Bool(true),
            (Kind::Int | Kind::Bool, "false") => Shown::Bool(false),
            _ => Shown::Text(rendered),
        }
    }

    /// The value in JSON: numbers and booleans as such, texts as strings, arrays and structs
    /// as arrays and objects.
    pub(crate) fn to_json(&self) -> Json {
        match self {
            Shown::Null => Json::Null,
            Shown::Bool(b) => Json::Bool(*b),
            Shown::Num(n) => Json::Number(n.clone()),
            Shown::Str(s) | Shown::Text(s) => Json::String(s.clone()),
            Shown::List(items) => Json::Array(items.iter().map(Shown::to_json).collect()),
            Shown::Map(members) => Json::Object(fields_json(members)),
        }
    }

    /// The value for people: strings quoted, control characters escaped.
    fn write_text(&self, out: &mut String) {
        match self {
            Shown::Null => out.push_str("null"),
            Shown::Bool(b) => {
                let _ = write!(out, "{b}");
            }
            Shown::Num(n) => {
                let _ = write!(out, "{n}");
            }
            Shown::Str(s) => {
                let _ = write!(out, "{s:?}");
            }
            Shown::Text(s) => out.push_str(&printable(s)),
            Shown::List(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    item.write_text(out);
                }
                out.push(']');
            }
            Shown::Map(members) => {
                out.push('{');
                write_fields(members, out);
                out.push('}');
            }
        }
    }
}

/// Fields as a JSON object, in order.
pub(crate) fn fields_json(fields: &[(String, Shown)]) -> Map<String, Json> {
    fields
        .iter()
        .map(|(name, value)| (name.clone(), value.to_json()))
        .collect()
}

/// Fields for people: `name=value, name="text"`.
pub(crate) fn fields_text(fields: &[(String, Shown)]) -> String {
    let mut out = String::new();
    write_fields(fields, &mut out);
    out
}

fn write_fields(fields: &[(String, Shown)], out: &mut String) {
    for (i, (name, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&printable(name));
        out.push('=');
        value.write_text(out);
    }
}

/// Where a record's meaning came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// Its `EVENT_SCHEMA_TL` item.
    TraceLogging,
    /// A manifest given with `--manifest`.
    Manifest,
    /// `EVENT_HEADER_FLAG_STRING_ONLY`: the payload is the text (`EventWriteString`).
    StringOnly,
    /// The kernel (MOF) class table.
    Kernel,
    /// An `RT_LostEvent` marker.
    Lost,
    /// A WPP message and its TMF format.
    Wpp,
    /// A classic event and its class in a MOF file.
    MofClass,
    /// Nothing describes it.
    None,
}

/// What a record means.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Decoded {
    /// What described it.
    pub(crate) source: Source,
    /// The provider's name: TraceLogging traits, the manifest's provider, the kernel class.
    pub(crate) provider_name: Option<String>,
    /// The event's name: TraceLogging metadata, the manifest event's symbol (or task and
    /// opcode names), the kernel event type.
    pub(crate) event_name: Option<String>,
    /// The fields, when the payload was decoded.
    pub(crate) fields: Option<Vec<(String, Shown)>>,
    /// A manifest event's message with its insertions filled in (DEC-26), or the text of an
    /// `EventWriteString` event (EVT-13).
    pub(crate) message: Option<String>,
    /// Why the payload was not decoded.
    pub(crate) error: Option<String>,
}

impl Decoded {
    fn new(source: Source) -> Decoded {
        Decoded {
            source,
            provider_name: None,
            event_name: None,
            fields: None,
            message: None,
            error: None,
        }
    }

    /// `true` for an `RT_LostEvent` marker (BUF-14).
    pub(crate) fn is_lost(&self) -> bool {
        self.source == Source::Lost
    }

    /// The value of top-level field `name`.
    pub(crate) fn field(&self, name: &str) -> Option<&Shown> {
        self.fields
            .as_ref()?
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v)
    }
}

/// The names of the `RT_LostEvent` class's event types (BUF-14).
fn lost_event_name(opcode: u8) -> String {
    match opcode {
        32 => "RTLostEvent".into(),
        33 => "RTLostBuffer".into(),
        34 => "RTLostFile".into(),
        n => format!("type {n}"),
    }
}

/// The most diagnostics said for one manifest; a line then counts the others.
const MAX_SHOWN_DIAGNOSTICS: usize = 50;

/// The decoders a dump uses: TraceLogging and the kernel classes always, manifests, TMF
/// files and MOF classes as given.
pub(crate) struct Decoder {
    manifests: Vec<Manifest>,
    /// The log file's `PointerSize`, for records whose header does not say.
    pointer_size: u8,
    /// The TMF files given (`--tmf`), when any.
    tmf: Option<TmfSet>,
    /// The MOF classes given (`--mof`).
    mof: MofClasses,
    /// Whether record timestamps are FILETIMEs (for a WPP message's `%4`).
    filetime: bool,
}

/// File names for FileIo events, as TraceEvent resolves them reading a file: FileKey first,
/// then FileObject, with the names the whole file gives (name events and the rundown at its
/// end), so files opened before the session started are named too (KRN-37, KRN-39).
pub(crate) struct FileNames {
    resolver: etwsim_decode::fileio::NameResolver,
}

impl FileNames {
    /// Learns every name `records` gives.
    pub(crate) fn learn<'a>(
        records: impl Iterator<Item = &'a TraceRecord>,
        pointer_size: u8,
    ) -> FileNames {
        let mut resolver =
            etwsim_decode::fileio::NameResolver::new(etwsim_decode::fileio::Policy::File);
        for t in records {
            if let Some(ev) = system_event(t, pointer_size) {
                resolver.observe(&ev, t.timestamp.unwrap_or(0));
            }
        }
        FileNames { resolver }
    }

    /// The name of the file a FileIo operation event (not a name event) names, if known.
    pub(crate) fn name(&self, t: &TraceRecord, pointer_size: u8) -> Option<String> {
        let ev = system_event(t, pointer_size)?;
        if ev.schema.class.name != "FileIo" || ev.get("FileName").is_some() {
            return None;
        }
        let name = self.resolver.name_of(&ev, t.timestamp.unwrap_or(0));
        (!name.is_empty()).then_some(name)
    }
}

/// A kernel system-header record, decoded.
fn system_event(t: &TraceRecord, pointer_size: u8) -> Option<mof::MofEvent> {
    match t.kind() {
        Some(RecordKind::System | RecordKind::CompactSystem | RecordKind::PerfInfo) => {
            let ps = t.pointer_size().unwrap_or(pointer_size);
            mof::decode_system(t.hook_id, t.version, ps, &t.payload).ok()
        }
        _ => None,
    }
}

impl Decoder {
    /// Loads the manifests; `pointer_size` is the file header's. A manifest file is read up
    /// to its cap ([`manifest::MAX_MANIFEST_BYTES`]); what the loader noticed without
    /// refusing it ([`Manifest::diagnostics`]: what it left out, and how it read the rest) is
    /// said once on stderr, each as `etwsim: warning: FILE:LINE: <element>: message`, at most
    /// [`MAX_SHOWN_DIAGNOSTICS`] per manifest and then a count of the others.
    pub(crate) fn new(manifests: &[PathBuf], pointer_size: u32) -> Result<Decoder, Failure> {
        let mut warned = std::collections::HashSet::new();
        let manifests = manifests
            .iter()
            .map(|path| {
                let bytes = manifest::read_manifest_file(path).map_err(|e| {
                    Failure::failed(if e.kind() == std::io::ErrorKind::FileTooLarge {
                        e.to_string()
                    } else {
                        format!("cannot read manifest {}: {}", path.display(), io_reason(&e))
                    })
                })?;
                let m = manifest::load_manifest(&bytes).map_err(|e| {
                    Failure::failed(format!("cannot use manifest {}: {e}", path.display()))
                })?;
                let mut shown = 0;
                for d in m.diagnostics() {
                    let line = format!("etwsim: warning: {}:{d}", path.display());
                    if !warned.insert(line.clone()) {
                        continue;
                    }
                    shown += 1;
                    if shown <= MAX_SHOWN_DIAGNOSTICS {
                        eprintln!("{line}");
                    }
                }
                if shown > MAX_SHOWN_DIAGNOSTICS {
                    eprintln!(
                        "etwsim: warning: {}: {} more diagnostics not shown",
                        path.display(),
                        shown - MAX_SHOWN_DIAGNOSTICS
                    );
                }
                Ok::<_, Failure>(m)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Decoder {
            manifests,
            pointer_size: if pointer_size == 4 { 4 } else { 8 },
            tmf: None,
            mof: MofClasses::new(),
            filetime: true,
        })
    }

    /// Adds the TMF files and folders (`--tmf`) and MOF files (`--mof`) to decode WPP
    /// messages and classic events with; `filetime`: the records' timestamps are FILETIMEs.
    /// What the readers noticed is said once on stderr, as for manifests.
    pub(crate) fn with_classic(
        mut self,
        tmf: &[PathBuf],
        mof: &[PathBuf],
        filetime: bool,
    ) -> Result<Decoder, Failure> {
        self.filetime = filetime;
        if !tmf.is_empty() {
            let mut set = TmfSet::new();
            for path in tmf {
                set.add_path(path)
                    .map_err(|e| Failure::failed(format!("cannot read TMF {}", named(path, &e))))?;
            }
            let lines: Vec<String> = set.diagnostics().iter().map(|d| d.to_string()).collect();
            warn_all(&lines, set.diagnostics_not_kept(), "the TMF files");
            self.tmf = Some(set);
        }
        for path in mof {
            self.mof
                .add_path(path)
                .map_err(|e| Failure::failed(format!("cannot use MOF file {}", named(path, &e))))?;
        }
        let lines: Vec<String> = self
            .mof
            .diagnostics()
            .iter()
            .map(|d| d.to_string())
            .collect();
        warn_all(&lines, 0, "the MOF files");
        Ok(self)
    }

    /// The manifest provider with GUID `guid`, from the first manifest that has it.
    fn manifest_provider(&self, guid: Guid) -> Option<&manifest::Provider> {
        self.manifests.iter().find_map(|m| m.provider(guid))
    }

    /// What `record` means.
    pub(crate) fn decode(&self, record: &Record) -> Decoded {
        match record {
            Record::Event(e) => self.event(e),
            Record::Trace(t) => self.trace(t),
        }
    }

    /// What `record` means, with the file name of a FileIo event from `names` (the field
    /// `FileName (resolved)`: the payload has only the FileObject and FileKey).
    pub(crate) fn decode_with_names(&self, record: &Record, names: Option<&FileNames>) -> Decoded {
        let mut out = self.decode(record);
        if let (Record::Trace(t), Some(names)) = (record, names) {
            if let (Some(fields), Some(name)) =
                (out.fields.as_mut(), names.name(t, self.pointer_size))
            {
                fields.push(("FileName (resolved)".into(), Shown::scalar(name, Kind::Str)));
            }
        }
        out
    }

    /// The pointer size records without their own default to.
    pub(crate) fn pointer_size(&self) -> u8 {
        self.pointer_size
    }

    fn event(&self, e: &EventRecord) -> Decoded {
        let h = &e.header;
        let d = &h.descriptor;
        if h.provider_id == Guid::RT_LOST_EVENT {
            return lost(d.opcode.0);
        }
        let item = |t: u16| {
            e.extended_data
                .iter()
                .find(|i| i.ext_type == t)
                .map(|i| i.data.as_slice())
        };
        let traits = item(ext_type::PROV_TRAITS).map(ProviderTraits::parse);
        let manifest = self.manifest_provider(h.provider_id);
        let pointer_size: u8 = if h.flags & header_flags::HEADER_32_BIT != 0 {
            4
        } else {
            8
        };
        if h.flags & header_flags::STRING_ONLY != 0 {
            // EventWriteString (EVT-13): no schema, the payload is the text.
            let mut out = Decoded::new(Source::StringOnly);
            out.provider_name = match &traits {
                Some(Ok(t)) => Some(t.name.clone()),
                _ => manifest.map(|p| p.name.clone()),
            };
            out.fields = Some(Vec::new());
            out.message = Some(etwsim_decode::fields::string_only_text(&e.user_data));
            return out;
        }
        if let Some(schema) = item(ext_type::EVENT_SCHEMA_TL) {
            let mut out = Decoded::new(Source::TraceLogging);
            out.provider_name = match &traits {
                Some(Ok(t)) => Some(t.name.clone()),
                _ => manifest.map(|p| p.name.clone()),
            };
            let decoded = EventSchema::parse(schema).and_then(|s| {
                out.event_name = Some(s.name.clone());
                s.decode_payload_with(&e.user_data, usize::from(pointer_size))
            });
            match (decoded, traits) {
                (Ok(event), None | Some(Ok(_))) => {
                    out.fields = Some(event.fields.iter().map(tl_field).collect());
                }
                (Ok(_), Some(Err(t))) => out.error = Some(t.to_string()),
                (Err(err), _) => out.error = Some(err.to_string()),
            }
            return out;
        }
        if let Some(provider) = manifest {
            return manifest_event(provider, e, pointer_size);
        }
        if mof::class_by_guid(h.provider_id).is_some() {
            // A kernel event as ProcessTrace presents it (KRN-13): class GUID, event type as
            // the opcode, the header version.
            return kernel(
                mof::decode_mof(
                    h.provider_id,
                    d.opcode.0,
                    d.version,
                    pointer_size,
                    &e.user_data,
                ),
                mof::class_by_guid(h.provider_id),
                d.opcode.0,
            );
        }
        let mut out = Decoded::new(Source::None);
        out.provider_name = match traits {
            Some(Ok(t)) => Some(t.name),
            _ => None,
        };
        out.error = Some(if out.provider_name.is_some() {
            "no TraceLogging metadata on this event, and no manifest given for its provider \
             (--manifest FILE)"
                .into()
        } else {
            "no TraceLogging metadata, no manifest given for this provider (--manifest FILE), \
             and not a kernel class"
                .into()
        });
        out
    }

    fn trace(&self, t: &TraceRecord) -> Decoded {
        let pointer_size = t.pointer_size().unwrap_or(self.pointer_size);
        match t.kind() {
            Some(RecordKind::System | RecordKind::CompactSystem | RecordKind::PerfInfo) => {
                let class = mof::class_for_hook(t.hook_id);
                kernel(
                    mof::decode_system(t.hook_id, t.version, pointer_size, &t.payload),
                    class.map(|(c, _)| c),
                    t.event_type(),
                )
            }
            Some(RecordKind::Classic | RecordKind::InstanceGuid) => match t.guid {
                Some(g) if g == Guid::RT_LOST_EVENT => lost(t.event_type()),
                Some(g) if self.mof.find(g, t.event_type(), t.version as u8).is_ok() => {
                    mof_class_event(&self.mof, t, g, pointer_size)
                }
                Some(g) if mof::class_by_guid(g).is_some() => kernel(
                    mof::decode_mof(g, t.event_type(), t.version as u8, pointer_size, &t.payload),
                    mof::class_by_guid(g),
                    t.event_type(),
                ),
                Some(g) if self.mof.classes().iter().any(|c| c.guid == g) => {
                    // The class is known, not this version or event type: say which.
                    mof_class_event(&self.mof, t, g, pointer_size)
                }
                _ => {
                    let mut out = Decoded::new(Source::None);
                    out.error = Some(
                        "a classic (MOF) event of a class neither etwsim's kernel table nor a \
                         MOF file given (--mof FILE) declares"
                            .into(),
                    );
                    out
                }
            },
            Some(RecordKind::Message) => match &self.tmf {
                Some(set) => wpp_message(set, t, pointer_size, self.filetime),
                None => {
                    let mut out = Decoded::new(Source::None);
                    out.error = Some(
                        "a WPP message: its format is in TMF files (--tmf FILE or FOLDER)".into(),
                    );
                    out
                }
            },
            _ => {
                let mut out = Decoded::new(Source::None);
                out.error = Some(format!("header type {:#04x} has no decoder", t.header_type));
                out
            }
        }
    }
}

/// An error of a TMF or MOF reader for people: the readers' own errors already name the
/// file (and line); the system's are said as the other commands say them.
fn named(path: &std::path::Path, e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::NotFound | K::PermissionDenied | K::IsADirectory | K::NotADirectory => {
            format!("{}: {}", path.display(), io_reason(e))
        }
        _ => e.to_string(),
    }
}

/// Says `lines` once on stderr, each as `etwsim: warning: FILE:LINE: message`, at most
/// [`MAX_SHOWN_DIAGNOSTICS`], then a count of the others.
fn warn_all(lines: &[String], not_kept: usize, what: &str) {
    for line in lines.iter().take(MAX_SHOWN_DIAGNOSTICS) {
        eprintln!("etwsim: warning: {line}");
    }
    let more = lines.len().saturating_sub(MAX_SHOWN_DIAGNOSTICS) + not_kept;
    if more > 0 {
        eprintln!("etwsim: warning: {what}: {more} more diagnostics not shown");
    }
}

/// A WPP message decoded and formatted with the TMF files given.
fn wpp_message(set: &TmfSet, t: &TraceRecord, pointer_size: u8, filetime: bool) -> Decoded {
    let mut out = Decoded::new(Source::Wpp);
    let Some(mut message) = WppMessage::from_record(t, pointer_size) else {
        out.error = Some("not a WPP message".into());
        return out;
    };
    if !filetime {
        message.timestamp = None;
    }
    if let Some(guid) = message.lookup_guid() {
        if let Some(format) = set.message(guid, message.number) {
            out.provider_name = Some(format.component.to_string());
            out.event_name = Some(format.name.clone());
        }
    }
    match set.decode(&message) {
        Ok(d) => {
            let mut fields: Vec<(String, Shown)> = d
                .args
                .iter()
                .map(|a| (a.def.name.clone(), wpp_value(a)))
                .collect();
            let f = d.format;
            if let Some(seq) = d.header.sequence {
                fields.push(("SequenceNum".into(), Shown::Num(seq.into())));
            }
            for (name, value) in [
                ("FunctionName", &f.function),
                ("LevelName", &f.level),
                ("FlagsName", &f.flags),
            ] {
                if let Some(v) = value {
                    fields.push((name.into(), Shown::Str(v.clone())));
                }
            }
            out.fields = Some(fields);
            out.message = Some(d.text);
        }
        Err(e) => out.error = Some(e.to_string()),
    }
    out
}

/// A WPP argument as shown: text and special formats as TraceFmt shows them, plain numbers
/// as numbers.
fn wpp_value(a: &Argument<'_>) -> Shown {
    use etwsim_decode::wpp::ItemType as I;
    let kind = match (&a.def.item, &a.value) {
        (_, Value::String(_) | Value::Ansi(_)) => Kind::Str,
        (I::Double, _) => Kind::Float,
        (
            I::Char
            | I::UChar
            | I::Short
            | I::UShort
            | I::Long
            | I::ULong
            | I::LongLong
            | I::ULongLong,
            _,
        ) => Kind::Int,
        _ => Kind::Other,
    };
    Shown::scalar(a.shown(), kind)
}

/// A classic event decoded with the MOF classes given.
fn mof_class_event(classes: &MofClasses, t: &TraceRecord, guid: Guid, pointer_size: u8) -> Decoded {
    let mut out = Decoded::new(Source::MofClass);
    let (event_type, version) = (t.event_type(), t.version as u8);
    if let Ok((class, type_class)) = classes.find(guid, event_type, version) {
        out.provider_name = Some(class.name.clone());
        out.event_name = Some(type_class.event_name(event_type));
    } else if let Some(class) = classes.classes().iter().find(|c| c.guid == guid) {
        out.provider_name = Some(class.name.clone());
    }
    match classes.decode(guid, event_type, version, pointer_size, &t.payload) {
        Ok(e) => {
            out.fields = Some(
                e.shown_fields()
                    .into_iter()
                    .map(|(f, text)| {
                        let shown = if text == f.value.to_string() {
                            mof_value(&f.value)
                        } else {
                            Shown::Text(text)
                        };
                        (f.name.clone(), shown)
                    })
                    .collect(),
            );
        }
        Err(e) => out.error = Some(e.to_string()),
    }
    out
}

/// An `RT_LostEvent` marker.
fn lost(opcode: u8) -> Decoded {
    let mut out = Decoded::new(Source::Lost);
    out.provider_name = Some("RT_LostEvent".into());
    out.event_name = Some(lost_event_name(opcode));
    out.fields = Some(Vec::new());
    out
}

/// A kernel (MOF) decode: the class and event type names even when the payload fails.
fn kernel(
    decoded: Result<mof::MofEvent, etwsim_decode::Error>,
    class: Option<&'static mof::MofClass>,
    opcode: u8,
) -> Decoded {
    let mut out = Decoded::new(Source::Kernel);
    out.provider_name = class.map(|c| c.name.to_string());
    out.event_name = class
        .and_then(|c| c.event(opcode))
        .map(|e| e.name.to_string());
    match decoded {
        Ok(event) => {
            out.fields = Some(
                event
                    .fields
                    .iter()
                    .map(|f| (f.name.clone(), mof_value(&f.value)))
                    .collect(),
            );
        }
        Err(e) => out.error = Some(e.to_string()),
    }
    out
}

/// A MOF (or manifest, unhinted) value as shown: its invariant rendering (DEC-28).
fn mof_value(v: &Value) -> Shown {
    match v {
        Value::Null => Shown::Null,
        Value::Array(items) => Shown::List(items.iter().map(mof_value).collect()),
        Value::Struct(members) => Shown::Map(
            members
                .iter()
                .map(|m| (m.name.clone(), mof_value(&m.value)))
                .collect(),
        ),
        v => Shown::scalar(v.to_string(), value_kind(v)),
    }
}

/// What a scalar value is, for how its rendering is kept: text, a float, a boolean, an
/// integer (kept as a number when it renders as one) or something else.
fn value_kind(v: &Value) -> Kind {
    match v {
        Value::String(_) | Value::CountedString(_) | Value::Ansi(_) | Value::CountedAnsi(_) => {
            Kind::Str
        }
        Value::F32(_) | Value::F64(_) => Kind::Float,
        Value::Bool32(_) => Kind::Bool,
        v if v.as_i128().is_some() => Kind::Int,
        _ => Kind::Other,
    }
}

/// A manifest event: the provider, the event by (id, version), its fields and message.
fn manifest_event(provider: &manifest::Provider, e: &EventRecord, pointer_size: u8) -> Decoded {
    let d = &e.header.descriptor;
    let mut out = Decoded::new(Source::Manifest);
    out.provider_name = Some(provider.name.clone());
    let Some(event) = provider.event(d.id, d.version) else {
        out.error = Some(format!(
            "the manifest of {} has no event {} version {}",
            provider.name, d.id, d.version
        ));
        return out;
    };
    out.event_name = event.symbol.clone().or_else(|| {
        (event.task != 0)
            .then(|| provider.task_name(event.task))
            .flatten()
            .map(
                |task| match provider.opcode_name(event.task, event.opcode) {
                    Some(op) if event.opcode != 0 => format!("{task}/{op}"),
                    _ => task,
                },
            )
    });
    match provider.decode(event, &e.user_data, pointer_size) {
        Ok(fields) => {
            let items = provider
                .template_of(event)
                .map_or(&[][..], |t| &t.items[..]);
            out.fields = Some(
                fields
                    .iter()
                    .zip(items)
                    .map(|(f, item)| (f.name.clone(), manifest_value(provider, item, &f.value)))
                    .collect(),
            );
            out.message = provider.format_message(event, &fields);
        }
        Err(err) => out.error = Some(err.to_string()),
    }
    out
}

/// A manifest value rendered with its map and out-type (DEC-24, DEC-27).
fn manifest_value(provider: &manifest::Provider, item: &Item, value: &Value) -> Shown {
    match (item, value) {
        (_, Value::Array(items)) => Shown::List(
            items
                .iter()
                .map(|v| manifest_value(provider, item, v))
                .collect(),
        ),
        (Item::Struct(s), Value::Struct(members)) => Shown::Map(
            members
                .iter()
                .zip(&s.members)
                .map(|(m, def)| {
                    let item = Item::Data(def.clone());
                    (m.name.clone(), manifest_value(provider, &item, &m.value))
                })
                .collect(),
        ),
        (Item::Data(def), v) => {
            let kind = if def.in_type.is_string() {
                Kind::Str
            } else {
                value_kind(v)
            };
            Shown::scalar(provider.render(def, v), kind)
        }
        (Item::Struct(_), v) => mof_value(v),
    }
}

/// A TraceLogging field as shown: rendered with its OutType (DEC-27).
fn tl_field(f: &Field) -> (String, Shown) {
    let out = f.def.as_ref().map_or(OutType::DEFAULT, |d| d.out_type);
    (f.name.clone(), tl_value(&f.value, out))
}

fn tl_value(v: &Value, out: OutType) -> Shown {
    match v {
        // An array of 8- or 16-bit characters (OutType STRING) is text, as TDH shows it.
        Value::Array(items)
            if out == OutType::STRING
                && items
                    .iter()
                    .all(|i| matches!(i, Value::I8(_) | Value::U8(_) | Value::U16(_))) =>
        {
            Shown::Str(
                items
                    .iter()
                    .map(|i| i.display_with(out).to_string())
                    .collect(),
            )
        }
        Value::Array(items) => Shown::List(items.iter().map(|v| tl_value(v, out)).collect()),
        Value::Struct(members) => Shown::Map(members.iter().map(tl_field).collect()),
        v => Shown::scalar(v.display_with(out).to_string(), value_kind(v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_stay_numbers_only_when_shown_as_numbers() {
        assert_eq!(Shown::scalar("42".into(), Kind::Int), Shown::Num(42.into()));
        assert_eq!(
            Shown::scalar("18446744073709551615".into(), Kind::Int),
            Shown::Num(u64::MAX.into())
        );
        assert_eq!(
            Shown::scalar("0x0000002A".into(), Kind::Int),
            Shown::Text("0x0000002A".into())
        );
        assert_eq!(
            Shown::scalar("1.1".into(), Kind::Float)
                .to_json()
                .to_string(),
            "1.1"
        );
        assert_eq!(
            Shown::scalar("NaN".into(), Kind::Float),
            Shown::Text("NaN".into())
        );
        assert_eq!(Shown::scalar("true".into(), Kind::Int), Shown::Bool(true));
        assert_eq!(
            Shown::scalar("12".into(), Kind::Str),
            Shown::Str("12".into())
        );
    }

    #[test]
    fn fields_read_as_name_value_pairs() {
        let fields = vec![
            ("Path".to_string(), Shown::Str("C:\\a \"b\"\n".into())),
            ("Size".to_string(), Shown::Num(7.into())),
            (
                "Inner".to_string(),
                Shown::Map(vec![(
                    "Flags".into(),
                    Shown::List(vec![Shown::Num(1.into()), Shown::Text("0x02".into())]),
                )]),
            ),
        ];
        assert_eq!(
            fields_text(&fields),
            r#"Path="C:\\a \"b\"\n", Size=7, Inner={Flags=[1, 0x02]}"#
        );
        assert_eq!(
            Json::Object(fields_json(&fields)).to_string(),
            r#"{"Path":"C:\\a \"b\"\n","Size":7,"Inner":{"Flags":[1,"0x02"]}}"#
        );
    }
}
