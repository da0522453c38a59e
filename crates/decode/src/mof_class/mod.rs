//! Classic MOF events of user providers (`RegisterTraceGuids` + `TraceEvent`), decoded with
//! the providers' MOF class definitions, as TDH does for `DecodingSourceWbem`.
//!
//! # The classes
//!
//! A provider publishes its event schema as MOF classes derived from `EventTrace`
//! (Learn: "Publishing Your Event Schema", "Event Tracing MOF Qualifiers"):
//!
//! ```text
//! [Dynamic, Guid("{ce5b220d-5ee9-4a7a-b1b9-bc9a2b9b0a46}"), EventVersion(1)]
//! class MyProvider_Request : EventTrace {};
//!
//! [Dynamic, EventType{1, 2}, EventTypeName{"Start", "End"}]
//! class MyProvider_Request_Info : MyProvider_Request
//! {
//!     [WmiDataId(1), read] uint32 Count;
//!     [WmiDataId(2), read, StringTermination("NullTerminated"), format("w")] string Name;
//!     [WmiDataId(3), read, WmiSizeIs("Count")] uint16 Ports[];
//! };
//! ```
//!
//! * an **event class** has a `Guid` qualifier (what the provider sets in
//!   `EVENT_TRACE_HEADER.Guid`) and an optional `EventVersion` (absent, or the highest, on
//!   the newest version of the class);
//! * its **event type classes** derive from it (directly or through classes without a
//!   `Guid`), carry `EventType` (one value or a list: `Class.Type`) and `EventTypeName`
//!   (the names, in the same order), and declare the payload: properties read in
//!   `WmiDataId` order (1, 2, …), each read right after the previous one.
//!
//! A classic record (`EVENT_TRACE_HEADER`: GUID, `Class.Type`, `Class.Version`) is decoded
//! by the event class with its GUID and `EventVersion` equal to `Class.Version` — else the
//! one without `EventVersion` — and by its event type class that lists `Class.Type`, as
//! TDH chooses (KRN-14 for the kernel's own classes).
//!
//! # Property types
//!
//! | MOF | payload | value |
//! |---|---|---|
//! | `sint8`…`uint64` | 1, 2, 4, 8 bytes | the integer ([`Value::U32`]…); `format("x")` shows hex, `format("c")` a character |
//! | `real32`, `real64` | 4, 8 | [`Value::F32`], [`Value::F64`] |
//! | `boolean` | 4 (TDH's BOOLEAN, DEC-09) | [`Value::Bool32`] |
//! | `char16` | 2 | one UTF-16 character; an array of them with `format("s")` is text |
//! | `string` | `StringTermination`: `NullTerminated` (default) ends at a NUL, `Counted` a u16 byte count first, `ReverseCounted` a big-endian one, `NotCounted` to the end of the payload (last property only); `format("w")` UTF-16, otherwise 8-bit (Windows-1252, DEC-12) | [`Value::String`] / [`Value::Ansi`] |
//! | any with `pointer`, or `extension("SizeT")` | 4 or 8 by the writer | [`Value::Pointer`] |
//! | `object` + `extension("Guid")` | 16 | [`Value::Guid`] |
//! | `extension("IPAddr")` / `"IPAddrV4"` | 4, the low byte first (`p1.p2.p3.p4`) | dotted text |
//! | `extension("IPAddrV6")` | 16 | RFC 5952 text |
//! | `extension("Port")` | u16, network byte order | [`Value::U16`] |
//! | `extension("Sid")` | the kernel SID block: a u32 0, or `TOKEN_USER` (two pointers) then the SID | [`Value::Null`] / [`Value::TokenUser`] |
//! | `extension("WmiTime")` | u64, a time stamp in the trace's clock | [`Value::U64`] |
//! | `extension("Variant")` | u32 byte count, then the bytes | [`Value::Binary`] |
//! | `extension("RString")` / `"RWString"` | a NUL-terminated 8-bit / UTF-16 string | text |
//!
//! Arrays: `Name[n]` or `MAX(n)` has `n` elements, `WmiSizeIs("Count")` as many as the
//! earlier property `Count` says, `Name[]` without either runs to the end of the payload (last
//! property only). A `uint8` array is [`Value::Binary`], any other [`Value::Array`].
//! `extension("NoPrint")` properties are read but [`ClassEvent::shown_fields`] leaves them
//! out.
//!
//! # Bounds and errors
//!
//! Files are read up to [`MAX_MOF_BYTES`]; braces nest at most
//! [`MAX_NESTING`](parse::MAX_NESTING) deep in what is skipped; at most
//! [`MAX_CLASSES`](parse::MAX_CLASSES) classes, [`MAX_PROPERTIES`](parse::MAX_PROPERTIES)
//! properties a class, fixed arrays of at most 65,535 elements; an array's element count is
//! checked against the bytes left before anything is made. A syntax error fails the file
//! ([`Error::MofSyntax`], naming the file and line); a class whose payload cannot be described (an
//! unknown type, a `WmiSizeIs` naming no earlier integer property, a missing `WmiDataId`) is
//! kept, says why in a [`Diagnostic`], and decoding its events reports it.
//!
//! Sources: <https://learn.microsoft.com/en-us/windows/win32/etw/event-tracing-mof-qualifiers>,
//! "Publishing Your Event Schema", the `EventTrace` class page; rules KRN-14, EVT-24 (the
//! event type is the opcode), DEC-09, DEC-12.

mod lex;
pub mod parse;

use crate::Error;
use crate::fields::{Field, TokenUser, Value};
use crate::wire::Cursor;
use etwsim_types::Guid;
use parse::{ClassDecl, PropDecl, QValue, Quals};
use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

/// The largest MOF file read: 16 MiB.
pub const MAX_MOF_BYTES: u64 = 16 << 20;

/// The largest fixed array (`Name[n]`, `MAX(n)`): TDH counts in 16 bits.
pub const MAX_FIXED_COUNT: u64 = u16::MAX as u64;

/// A class this reader keeps but cannot (fully) use, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file.
    pub file: Arc<str>,
    /// The 1-based line.
    pub line: u32,
    /// What, and what it costs.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

/// How a string property ends (`StringTermination`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Termination {
    /// `NullTerminated` (the default).
    Null,
    /// `Counted`: a u16 byte count first.
    Counted,
    /// `ReverseCounted`: a big-endian u16 byte count first.
    ReverseCounted,
    /// `NotCounted`: to the end of the payload.
    NotCounted,
}

/// The wire type of one property element.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PropType {
    /// `sint8`…`uint64`.
    Int {
        /// 1, 2, 4 or 8.
        size: u8,
        /// `sintN`.
        signed: bool,
    },
    /// `real32` / `real64`.
    Float {
        /// 4 or 8.
        size: u8,
    },
    /// `boolean`: 4 bytes.
    Bool,
    /// `char16`: one UTF-16 code unit.
    Char16,
    /// A fixed number of characters shown as text (`char16 Name[n]`, `uint8 Name[n]` with
    /// `format("s")`).
    CharString {
        /// UTF-16 (`char16`) or 8-bit.
        wide: bool,
    },
    /// `string`.
    Str {
        /// `format("w")`: UTF-16.
        wide: bool,
        /// `StringTermination`.
        term: Termination,
    },
    /// `pointer`, `extension("SizeT")`.
    Pointer,
    /// `extension("Guid")`.
    Guid,
    /// `extension("IPAddr")` / `"IPAddrV4"`.
    IpV4,
    /// `extension("IPAddrV6")`.
    IpV6,
    /// `extension("Port")`.
    Port,
    /// `extension("Sid")`.
    Sid,
    /// `extension("WmiTime")`.
    WmiTime,
    /// `extension("Variant")`.
    Variant,
}

impl PropType {
    /// Bytes an element takes at least.
    fn min_size(self, pointer_size: u8) -> usize {
        match self {
            PropType::Int { size, .. } | PropType::Float { size } => usize::from(size),
            PropType::Bool | PropType::IpV4 | PropType::Sid | PropType::Variant => 4,
            PropType::Char16 | PropType::Port => 2,
            PropType::CharString { .. } => 1,
            PropType::Str { term, wide } => match term {
                Termination::Null => 1 + usize::from(wide),
                Termination::NotCounted => 0,
                _ => 2,
            },
            PropType::Pointer => usize::from(pointer_size),
            PropType::Guid | PropType::IpV6 => 16,
            PropType::WmiTime => 8,
        }
    }
}

/// How many elements a property has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Count {
    /// One value.
    One,
    /// A fixed number (`Name[n]`, `MAX(n)`).
    Fixed(u16),
    /// As many as the earlier property at this position (in the layout) says
    /// (`WmiSizeIs`).
    SizeIs(usize),
    /// To the end of the payload (`Name[]`, last property only).
    ToEnd,
}

/// One property of an event type class, in `WmiDataId` order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Property {
    /// Its name.
    pub name: String,
    /// `WmiDataId`.
    pub data_id: u32,
    /// Its element type.
    pub ty: PropType,
    /// How many elements.
    pub count: Count,
    /// `format("x")`: shown in hex.
    pub hex: bool,
    /// `format("c")`: shown as a character.
    pub char: bool,
    /// `extension("NoPrint")`.
    pub no_print: bool,
}

impl Property {
    /// The value as a consumer shows it: `format("x")` in hex, `format("c")` as a
    /// character, everything else as [`Value`]'s invariant rendering (DEC-28).
    pub fn render(&self, value: &Value) -> String {
        match value {
            Value::Array(items) => {
                let inner: Vec<String> = items.iter().map(|v| self.render(v)).collect();
                format!("[{}]", inner.join(", "))
            }
            v if self.hex => match (v.as_i128(), self.ty) {
                (Some(i), PropType::Int { size, .. }) => {
                    let bits = u32::from(size) * 8;
                    let mask = if bits >= 64 {
                        u64::MAX
                    } else {
                        (1u64 << bits) - 1
                    };
                    format!("{:#x}", (i as u64) & mask)
                }
                (Some(i), _) => format!("{:#x}", i as u64),
                (None, _) => v.to_string(),
            },
            v if self.char => match v.as_i128().and_then(|i| char::from_u32(i as u32)) {
                Some(c) => c.to_string(),
                None => v.to_string(),
            },
            v => v.to_string(),
        }
    }
}

/// An event type class: the event types it covers and its payload layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeClass {
    /// The class name.
    pub name: String,
    /// (event type, name) pairs from `EventType` / `EventTypeName`.
    pub event_types: Vec<(u8, Option<String>)>,
    /// The layout, or why there is none.
    pub layout: Result<Vec<Property>, String>,
    /// Where it was declared.
    pub file: Arc<str>,
    /// Its line.
    pub line: u32,
}

impl TypeClass {
    /// The name of event type `t`: its `EventTypeName`, else the class name.
    pub fn event_name(&self, t: u8) -> String {
        self.event_types
            .iter()
            .find(|(k, _)| *k == t)
            .and_then(|(_, n)| n.clone())
            .unwrap_or_else(|| self.name.clone())
    }
}

/// An event class: a `Guid` class (one version) and its event type classes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventClass {
    /// The class name (the provider's name as shown).
    pub name: String,
    /// `Guid`.
    pub guid: Guid,
    /// `EventVersion`; `None` for the newest version.
    pub version: Option<u8>,
    /// Its event type classes.
    pub types: Vec<TypeClass>,
}

/// The classes of one or more MOF files.
#[derive(Clone, Debug, Default)]
pub struct MofClasses {
    classes: Vec<EventClass>,
    by_guid: HashMap<Guid, Vec<usize>>,
    diagnostics: Vec<Diagnostic>,
}

/// A decoded classic event.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassEvent<'c> {
    /// The event class.
    pub class: &'c EventClass,
    /// The event type class.
    pub type_class: &'c TypeClass,
    /// The event's name (`EventTypeName`).
    pub event_name: String,
    /// The values, in `WmiDataId` order, NoPrint ones included.
    pub fields: Vec<Field>,
    /// Payload bytes after the last property.
    pub trailing: usize,
}

impl ClassEvent<'_> {
    /// The fields a consumer prints (NoPrint left out), each rendered with its property's
    /// format ([`Property::render`]): (name, value, text).
    pub fn shown_fields(&self) -> Vec<(&Field, String)> {
        let layout = self.type_class.layout.as_deref().unwrap_or(&[]);
        self.fields
            .iter()
            .zip(layout)
            .filter(|(_, p)| !p.no_print)
            .map(|(f, p)| (f, p.render(&f.value)))
            .collect()
    }

    /// The value of field `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        crate::fields::find(&self.fields, name)
    }
}

impl MofClasses {
    /// No classes.
    pub fn new() -> MofClasses {
        MofClasses::default()
    }

    /// The classes of one MOF file's bytes (UTF-8, or UTF-16LE with its BOM), `file`
    /// naming it in errors.
    ///
    /// # Errors
    /// [`Error::MofSyntax`] for a syntax error.
    pub fn from_text(bytes: &[u8], file: &str) -> Result<MofClasses, Error> {
        let mut c = MofClasses::new();
        c.add_text(bytes, file)?;
        Ok(c)
    }

    /// Reads a MOF file (at most [`MAX_MOF_BYTES`]).
    ///
    /// # Errors
    /// I/O errors naming the file (a larger file is
    /// [`std::io::ErrorKind::FileTooLarge`]); a [`Error::MofSyntax`] as
    /// [`std::io::ErrorKind::InvalidData`].
    pub fn load(path: &Path) -> std::io::Result<MofClasses> {
        let mut c = MofClasses::new();
        c.add_path(path)?;
        Ok(c)
    }

    /// Adds a MOF file ([`load`](Self::load)).
    ///
    /// # Errors
    /// As [`load`](Self::load).
    pub fn add_path(&mut self, path: &Path) -> std::io::Result<()> {
        let named =
            |e: std::io::Error| std::io::Error::new(e.kind(), format!("{}: {}", path.display(), e));
        let file = std::fs::File::open(path).map_err(named)?;
        let mut bytes = Vec::new();
        file.take(MAX_MOF_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(named)?;
        if bytes.len() as u64 > MAX_MOF_BYTES {
            return Err(std::io::Error::new(
                std::io::ErrorKind::FileTooLarge,
                format!(
                    "{}: larger than the {} MiB a MOF file may be",
                    path.display(),
                    MAX_MOF_BYTES >> 20
                ),
            ));
        }
        self.add_text(&bytes, &path.display().to_string())
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
    }

    /// Adds the classes of one MOF file's bytes.
    ///
    /// # Errors
    /// [`Error::MofSyntax`] for a syntax error; nothing of the file is added then.
    pub fn add_text(&mut self, bytes: &[u8], file: &str) -> Result<(), Error> {
        let file: Arc<str> = Arc::from(file);
        let text = crate::wpp::tmf::text_of(bytes);
        let fail = |(line, message): (u32, String)| Error::MofSyntax {
            file: file.clone(),
            line,
            message,
        };
        let tokens = lex::tokens(&text).map_err(fail)?;
        let decls = parse::classes(&tokens).map_err(fail)?;
        self.build(&decls, &file);
        Ok(())
    }

    /// What the reader noticed: classes kept but not usable, and why.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The event classes, in declaration order.
    pub fn classes(&self) -> &[EventClass] {
        &self.classes
    }

    /// Whether no event class was read.
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    fn build(&mut self, decls: &[ClassDecl], file: &Arc<str>) {
        let first_note = self.diagnostics.len();
        self.build_classes(decls, file);
        // Say them in line order, as the file reads.
        self.diagnostics[first_note..].sort_by_key(|d| d.line);
    }

    fn build_classes(&mut self, decls: &[ClassDecl], file: &Arc<str>) {
        let by_name: HashMap<String, usize> = decls
            .iter()
            .enumerate()
            .map(|(i, d)| (d.name.to_ascii_lowercase(), i))
            .collect();
        let parent = |i: usize| {
            decls[i]
                .parent
                .as_ref()
                .and_then(|p| by_name.get(&p.to_ascii_lowercase()).copied())
        };
        let mut guid_class: HashMap<usize, usize> = HashMap::new(); // decl → self.classes
        for (i, d) in decls.iter().enumerate() {
            let Some(g) = d.quals.get("guid") else {
                continue;
            };
            let guid = g.as_str().and_then(|s| {
                let s = s.trim();
                s.parse::<Guid>()
                    .or_else(|_| format!("{{{s}}}").parse())
                    .ok()
            });
            let Some(guid) = guid else {
                self.note(
                    file,
                    d.line,
                    format!("class {}: Guid {g:?} is not a GUID: left out", d.name),
                );
                continue;
            };
            let version = match d.quals.get("eventversion") {
                None => None,
                Some(v) => match v.as_i64().and_then(|v| u8::try_from(v).ok()) {
                    Some(v) => Some(v),
                    None => {
                        self.note(
                            file,
                            d.line,
                            format!(
                                "class {}: EventVersion {v:?} is not 0 to 255: left out",
                                d.name
                            ),
                        );
                        continue;
                    }
                },
            };
            guid_class.insert(i, self.classes.len());
            self.by_guid
                .entry(guid)
                .or_default()
                .push(self.classes.len());
            self.classes.push(EventClass {
                name: d.name.clone(),
                guid,
                version,
                types: Vec::new(),
            });
        }
        // The properties layouts may hold in all: inheritance copies a class's properties
        // into each class below it, so the copies are bounded by what the file declares.
        let declared: usize = decls.iter().map(|d| d.props.len()).sum();
        let mut budget = declared.saturating_mul(4).saturating_add(65_536);
        for (i, d) in decls.iter().enumerate() {
            let Some(et) = d.quals.get("eventtype") else {
                continue;
            };
            // The nearest class with a Guid: itself or an ancestor; the chain below it.
            let mut chain = vec![i];
            let mut at = i;
            let mut owner = guid_class.get(&i).copied();
            while owner.is_none() {
                match parent(at) {
                    Some(p) if chain.len() <= parse::MAX_NESTING => {
                        if let Some(&c) = guid_class.get(&p) {
                            owner = Some(c);
                        } else {
                            chain.push(p);
                        }
                        at = p;
                    }
                    _ => break,
                }
            }
            let Some(owner) = owner else {
                self.note(
                    file,
                    d.line,
                    format!(
                        "class {}: an event type class with no ancestor that has a Guid: left out",
                        d.name
                    ),
                );
                continue;
            };
            let mut types = Vec::new();
            let names = d.quals.get("eventtypename").map(QValue::items);
            let mut bad = None;
            for (k, v) in et.items().into_iter().enumerate() {
                match v.as_i64().and_then(|v| u8::try_from(v).ok()) {
                    Some(t) => {
                        let name = names
                            .as_ref()
                            .and_then(|n| n.get(k))
                            .and_then(|n| n.as_str())
                            .map(str::to_string);
                        types.push((t, name));
                    }
                    None => bad = Some(format!("{v:?}")),
                }
            }
            if let Some(v) = bad {
                self.note(
                    file,
                    d.line,
                    format!(
                        "class {}: EventType {v} is not 0 to 255: that type left out",
                        d.name
                    ),
                );
            }
            // Properties: the chain from the class below the Guid class down to this one.
            let count: usize = chain.iter().map(|&c| decls[c].props.len()).sum();
            let layout =
                if count > parse::MAX_PROPERTIES {
                    Err(format!(
                        "{count} properties with the inherited ones (at most {})",
                        parse::MAX_PROPERTIES
                    ))
                } else if count > budget {
                    Err("the file's classes inherit more properties than etwsim builds layouts for \
                     (four times those the file declares)"
                    .to_string())
                } else {
                    budget -= count;
                    let props: Vec<&PropDecl> =
                        chain.iter().rev().flat_map(|&c| &decls[c].props).collect();
                    layout(&props)
                };
            if let Err(why) = &layout {
                self.note(
                    file,
                    d.line,
                    format!("class {}: {why}: its events cannot be decoded", d.name),
                );
            }
            self.classes[owner].types.push(TypeClass {
                name: d.name.clone(),
                event_types: types,
                layout,
                file: file.clone(),
                line: d.line,
            });
        }
    }

    fn note(&mut self, file: &Arc<str>, line: u32, message: String) {
        if self.diagnostics.len() < crate::wpp::MAX_DIAGNOSTICS {
            self.diagnostics.push(Diagnostic {
                file: file.clone(),
                line,
                message,
            });
        }
    }

    /// The event class and event type class for (GUID, `Class.Type`, `Class.Version`)
    /// (module docs).
    ///
    /// # Errors
    /// [`Error::NoMofClass`], [`Error::NoMofVersion`], [`Error::NoMofEventType`].
    pub fn find(
        &self,
        guid: Guid,
        event_type: u8,
        version: u8,
    ) -> Result<(&EventClass, &TypeClass), Error> {
        let candidates = self.by_guid.get(&guid).ok_or(Error::NoMofClass { guid })?;
        let of = |want: Option<u8>| {
            candidates
                .iter()
                .map(|&i| &self.classes[i])
                .filter(move |c| c.version == want)
        };
        let mut versions = of(Some(version)).chain(of(None)).peekable();
        let Some(first) = versions.peek().copied() else {
            return Err(Error::NoMofVersion {
                class: self.classes[candidates[0]].name.clone(),
                version,
            });
        };
        for c in versions {
            if let Some(t) = c
                .types
                .iter()
                .find(|t| t.event_types.iter().any(|(k, _)| *k == event_type))
            {
                return Ok((c, t));
            }
        }
        Err(Error::NoMofEventType {
            class: first.name.clone(),
            event_type,
        })
    }

    /// Decodes a classic event: its GUID, `Class.Type`, `Class.Version`, the writer's
    /// pointer size (4 or 8; anything else is read as 8) and payload.
    ///
    /// # Errors
    /// As [`find`](Self::find); [`Error::MofUnusable`] for a class whose layout could not
    /// be built; [`Error::Truncated`] or [`Error::BadValue`] naming the property and
    /// offset where the payload does not fit.
    pub fn decode(
        &self,
        guid: Guid,
        event_type: u8,
        version: u8,
        pointer_size: u8,
        payload: &[u8],
    ) -> Result<ClassEvent<'_>, Error> {
        let (class, type_class) = self.find(guid, event_type, version)?;
        let layout = type_class
            .layout
            .as_ref()
            .map_err(|reason| Error::MofUnusable {
                class: type_class.name.clone(),
                reason: reason.clone(),
            })?;
        let ps = if pointer_size == 4 { 4 } else { 8 };
        let (fields, trailing) = read(layout, ps, payload)?;
        Ok(ClassEvent {
            class,
            type_class,
            event_name: type_class.event_name(event_type),
            fields,
            trailing,
        })
    }
}

/// The layout of `props` (declaration order; sorted by `WmiDataId`).
fn layout(props: &[&PropDecl]) -> Result<Vec<Property>, String> {
    let mut with_ids = Vec::with_capacity(props.len());
    for p in props {
        let id = match p.quals.get("wmidataid") {
            Some(v) => v
                .as_i64()
                .and_then(|v| u32::try_from(v).ok())
                .ok_or_else(|| format!("property {}: WmiDataId {v:?} is not a number", p.name))?,
            None => {
                return Err(format!(
                    "property {} (line {}) has no WmiDataId",
                    p.name, p.line
                ));
            }
        };
        with_ids.push((id, *p));
    }
    with_ids.sort_by_key(|(id, _)| *id);
    if let Some(w) = with_ids.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(format!(
            "properties {} and {} have the same WmiDataId {}",
            w[0].1.name, w[1].1.name, w[0].0
        ));
    }
    let mut out: Vec<Property> = Vec::with_capacity(with_ids.len());
    let mut names: HashMap<String, usize> = HashMap::with_capacity(with_ids.len());
    let n = with_ids.len();
    for (k, (id, p)) in with_ids.into_iter().enumerate() {
        let last = k + 1 == n;
        let prop = property(p, id, &out, &names, last)
            .map_err(|why| format!("property {} (line {}): {why}", p.name, p.line))?;
        names
            .entry(p.name.to_ascii_lowercase())
            .or_insert(out.len());
        out.push(prop);
    }
    Ok(out)
}

fn qual_str<'q>(q: &'q Quals, name: &str) -> Option<&'q str> {
    q.get(name).and_then(QValue::as_str)
}

/// One property's type and count.
fn property(
    p: &PropDecl,
    data_id: u32,
    before: &[Property],
    names: &HashMap<String, usize>,
    last: bool,
) -> Result<Property, String> {
    let q = &p.quals;
    let format = qual_str(q, "format").map(str::to_ascii_lowercase);
    let ext = qual_str(q, "extension").map(str::to_ascii_lowercase);
    let ty_name = p.ty.to_ascii_lowercase();
    let no_print = ext.as_deref() == Some("noprint");
    let int = |size: u8, signed: bool| PropType::Int { size, signed };
    let mut ty = if q.has("pointer") || ext.as_deref() == Some("sizet") {
        PropType::Pointer
    } else {
        match ext.as_deref().filter(|e| *e != "noprint") {
            Some("guid") => PropType::Guid,
            Some("ipaddr" | "ipaddrv4") => PropType::IpV4,
            Some("ipaddrv6") => PropType::IpV6,
            Some("port") => PropType::Port,
            Some("sid") => PropType::Sid,
            Some("wmitime") => PropType::WmiTime,
            Some("variant") => PropType::Variant,
            Some("rstring") => PropType::Str {
                wide: false,
                term: Termination::Null,
            },
            Some("rwstring") => PropType::Str {
                wide: true,
                term: Termination::Null,
            },
            Some(other) if ty_name == "object" => {
                return Err(format!("extension {other:?} is not one this decoder knows"));
            }
            _ => match ty_name.as_str() {
                "sint8" => int(1, true),
                "uint8" => int(1, false),
                "sint16" => int(2, true),
                "uint16" => int(2, false),
                "sint32" => int(4, true),
                "uint32" => int(4, false),
                "sint64" => int(8, true),
                "uint64" => int(8, false),
                "real32" => PropType::Float { size: 4 },
                "real64" => PropType::Float { size: 8 },
                "boolean" => PropType::Bool,
                "char16" => PropType::Char16,
                "string" => {
                    let term = match qual_str(q, "stringtermination").map(str::to_ascii_lowercase) {
                        None => Termination::Null,
                        Some(t) => match t.as_str() {
                            "nullterminated" => Termination::Null,
                            "counted" => Termination::Counted,
                            "reversecounted" => Termination::ReverseCounted,
                            "notcounted" => Termination::NotCounted,
                            _ => {
                                return Err(format!(
                                    "StringTermination {t:?} is not one of NullTerminated, Counted, ReverseCounted, NotCounted"
                                ));
                            }
                        },
                    };
                    PropType::Str {
                        wide: format.as_deref() == Some("w"),
                        term,
                    }
                }
                "object" => {
                    return Err("an object property needs an extension (Guid, Sid, IPAddr…)".into());
                }
                other => return Err(format!("type {other:?} is not one this decoder knows")),
            },
        }
    };
    let max = q.get("max").and_then(QValue::as_i64);
    let count = match (p.array, qual_str(q, "wmisizeis")) {
        (None, _) => Count::One,
        (Some(_), Some(size_is)) => {
            let at = *names
                .get(&size_is.to_ascii_lowercase())
                .ok_or_else(|| format!("WmiSizeIs({size_is:?}) names no earlier property"))?;
            if !matches!(before[at].ty, PropType::Int { .. }) || before[at].count != Count::One {
                return Err(format!(
                    "WmiSizeIs({size_is:?}) names a property that is not one integer"
                ));
            }
            Count::SizeIs(at)
        }
        (Some(Some(n)), None) => Count::Fixed(fixed(n)?),
        (Some(None), None) => {
            match max {
                Some(n) => Count::Fixed(fixed(
                    u64::try_from(n).map_err(|_| format!("MAX({n}) is negative"))?,
                )?),
                None if last => Count::ToEnd,
                None => return Err(
                    "an array without a size (`[n]`, MAX(n) or WmiSizeIs) before the last property"
                        .into(),
                ),
            }
        }
    };
    if matches!(
        ty,
        PropType::Str {
            term: Termination::NotCounted,
            ..
        }
    ) && (!last || count != Count::One)
    {
        return Err("a NotCounted string must be the last property, and not an array".into());
    }
    if count != Count::One && format.as_deref() == Some("s") {
        ty = match ty {
            PropType::Char16 => PropType::CharString { wide: true },
            PropType::Int { size: 1, .. } => PropType::CharString { wide: false },
            t => t,
        };
    }
    if ty == PropType::Char16 && count != Count::One && format.as_deref() != Some("s") {
        // A char16 array is text in practice (TDH shows it so).
        ty = PropType::CharString { wide: true };
    }
    Ok(Property {
        name: p.name.clone(),
        data_id,
        ty,
        count,
        hex: format.as_deref() == Some("x"),
        char: format.as_deref() == Some("c"),
        no_print,
    })
}

fn fixed(n: u64) -> Result<u16, String> {
    if n > MAX_FIXED_COUNT {
        return Err(format!(
            "an array of {n} elements (at most {MAX_FIXED_COUNT})"
        ));
    }
    Ok(n as u16)
}

/// Reads `layout` from `payload`: the fields and the bytes left.
fn read(layout: &[Property], ps: u8, payload: &[u8]) -> Result<(Vec<Field>, usize), Error> {
    let mut c = Cursor::new(payload, ps)?;
    let mut fields: Vec<Field> = Vec::with_capacity(layout.len());
    let n = layout.len();
    for (k, p) in layout.iter().enumerate() {
        let last = k + 1 == n;
        let name = p.name.as_str();
        let count = match &p.count {
            Count::One => None,
            Count::Fixed(n) => Some(usize::from(*n)),
            Count::SizeIs(at) => {
                let v = fields.get(*at).and_then(|f| f.value.as_i128()).unwrap_or(0);
                Some(
                    usize::try_from(v)
                        .map_err(|_| c.bad(name, c.offset, format!("a count of {v}")))?,
                )
            }
            Count::ToEnd => {
                let min = p.ty.min_size(ps).max(1);
                Some(c.left() / min)
            }
        };
        let value = match count {
            None => element(&mut c, p, last)?,
            Some(k) if matches!(p.ty, PropType::CharString { .. }) => {
                let wide = matches!(p.ty, PropType::CharString { wide: true });
                let bytes = c.take(name, k.saturating_mul(if wide { 2 } else { 1 }))?;
                if wide {
                    let units = bytes.chunks_exact(2).take_while(|u| u != &[0, 0]).count();
                    Value::String(crate::wire::utf16_lossy(&bytes[..units * 2]))
                } else {
                    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                    Value::Ansi(bytes[..end].to_vec())
                }
            }
            Some(k)
                if matches!(
                    p.ty,
                    PropType::Int {
                        size: 1,
                        signed: false
                    }
                ) =>
            {
                Value::Binary(c.take(name, k)?.to_vec())
            }
            Some(k) => {
                let min = p.ty.min_size(ps).max(1);
                if k > c.left() / min {
                    return Err(Error::Truncated {
                        field: name.into(),
                        offset: c.offset,
                        needed: k.saturating_mul(min),
                        available: c.left(),
                    });
                }
                let mut items = Vec::with_capacity(k);
                for i in 0..k {
                    items.push(element(&mut c, p, last && i + 1 == k)?);
                }
                Value::Array(items)
            }
        };
        fields.push(Field::new(p.name.clone(), value));
    }
    Ok((fields, c.left()))
}

/// One element of `p`.
fn element(c: &mut Cursor<'_>, p: &Property, last: bool) -> Result<Value, Error> {
    let name = p.name.as_str();
    Ok(match p.ty {
        PropType::Int { size, signed } => match (size, signed) {
            (1, true) => Value::I8(i8::from_le_bytes(c.array(name)?)),
            (1, false) => Value::U8(c.array::<1>(name)?[0]),
            (2, true) => Value::I16(i16::from_le_bytes(c.array(name)?)),
            (2, false) => Value::U16(c.u16(name)?),
            (4, true) => Value::I32(i32::from_le_bytes(c.array(name)?)),
            (4, false) => Value::U32(c.u32(name)?),
            (_, true) => Value::I64(i64::from_le_bytes(c.array(name)?)),
            (_, false) => Value::U64(u64::from_le_bytes(c.array(name)?)),
        },
        PropType::Float { size: 4 } => Value::F32(f32::from_le_bytes(c.array(name)?)),
        PropType::Float { .. } => Value::F64(f64::from_le_bytes(c.array(name)?)),
        PropType::Bool => Value::Bool32(c.u32(name)? as i32),
        PropType::Char16 => Value::String(crate::wire::utf16_lossy(c.take(name, 2)?)),
        PropType::CharString { wide } => {
            let bytes = c.take(name, if wide { 2 } else { 1 })?;
            if wide {
                Value::String(crate::wire::utf16_lossy(bytes))
            } else {
                Value::Ansi(bytes.to_vec())
            }
        }
        PropType::Str { wide, term } => match term {
            Termination::Null if wide => Value::String(c.utf16z(name, last)?),
            Termination::Null => Value::Ansi(c.ansiz(name, last)?),
            Termination::NotCounted => {
                let n = c.left();
                text(c.take(name, n)?, wide)
            }
            Termination::Counted | Termination::ReverseCounted => {
                let b = c.array::<2>(name)?;
                let n = if term == Termination::Counted {
                    u16::from_le_bytes(b)
                } else {
                    u16::from_be_bytes(b)
                };
                text(c.take(name, usize::from(n))?, wide)
            }
        },
        PropType::Pointer => Value::Pointer(c.pointer(name)?),
        PropType::Guid => Value::Guid(Guid::from_bytes_le(c.array(name)?)),
        PropType::IpV4 => Value::String(std::net::Ipv4Addr::from(c.array::<4>(name)?).to_string()),
        PropType::IpV6 => Value::String(std::net::Ipv6Addr::from(c.array::<16>(name)?).to_string()),
        PropType::Port => Value::U16(u16::from_be_bytes(c.array(name)?)),
        PropType::WmiTime => Value::U64(u64::from_le_bytes(c.array(name)?)),
        PropType::Variant => {
            let n = c.u32(name)? as usize;
            Value::Binary(c.take(name, n)?.to_vec())
        }
        PropType::Sid => {
            // The kernel SID block (KRN-27): a u32 0, or TOKEN_USER (pointer, attributes,
            // padding to two pointers) then the SID.
            let start = c.offset;
            if c.u32(name)? == 0 {
                return Ok(Value::Null);
            }
            c.offset = start;
            let sid_pointer = c.pointer(name)?;
            let attributes = c.u32(name)?;
            if c.pointer_size == 8 {
                c.take(name, 4)?;
            }
            Value::TokenUser(TokenUser {
                sid_pointer,
                attributes,
                sid: c.sid(name)?,
            })
        }
    })
}

/// Counted or uncounted text: UTF-16 (a last odd byte ignored) or 8-bit.
fn text(bytes: &[u8], wide: bool) -> Value {
    if wide {
        Value::String(crate::wire::utf16_lossy(&bytes[..bytes.len() & !1]))
    } else {
        Value::Ansi(bytes.to_vec())
    }
}
