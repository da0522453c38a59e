//! Instrumentation manifests (DEC-16…DEC-26): load one with [`load_manifest`], find an event
//! by (provider, id, version), decode its payload into named fields and encode fields into a
//! payload ([`Provider::encode`], the decoder's inverse), render its values and its message,
//! turn keyword names into MatchAny / MatchAll masks, and filter events on their payload
//! ([`filter`]).
//!
//! # Map
//!
//! | item | Windows name | what it is |
//! |---|---|---|
//! | [`Manifest`], [`Provider`] | `instrumentationManifest`, `provider` | the providers of one manifest file |
//! | [`EventDef`] | `event` | id, version, level, task, opcode, keywords, channel, template, message |
//! | [`Template`], [`Item`], [`DataDef`], [`StructDef`], [`Param`] | `template`, `data`, `struct`, `count`/`length` | the payload layout (DEC-17) |
//! | [`InType`], [`OutType`] | TDH_INTYPE / TDH_OUTTYPE | wire and display types (DEC-18, DEC-19) |
//! | [`MapDef`] | `valueMap`, `bitMap` | value names (DEC-24) |
//! | [`KeywordFilter`] | MatchAnyKeyword / MatchAllKeyword | keyword names → masks (FLT-04) |
//! | [`filter::PayloadFilter`], [`filter::AggregateFilter`] | `TdhCreatePayloadFilter`, `TdhAggregatePayloadFilters` | payload filters (FLT-18) |
//!
//! The loader uses `roxmltree`; names are matched by local name, so the usual default
//! namespace and `win:`/`xs:` prefixes need no declaration handling, and `<instrumentation>`
//! is found wherever it sits under the root (`instrumentationManifest`, or the `assembly` of
//! a Windows component manifest). Diagnostics and errors carry the XML line and the element.
//! Messages (`$(string.Id)`) are resolved against the `en-US` string table when there is
//! one, else the first.
//!
//! # Errors, diagnostics and limits
//!
//! The loader is forgiving, as TDH and TraceEvent are: it keeps whatever it can use. An
//! element it cannot use (an unknown `inType`, a `win:Binary` without a length, a keyword
//! mask of two bits…) is left out with what depends on it — that template, event, map or
//! keyword — and a [`Severity::Error`] diagnostic says where and why; an event whose
//! template was left out stays known, and decoding its payload says why it cannot
//! ([`Error::NoTemplate`]). [`Severity::Warning`] diagnostics say how the rest was read
//! (a name it refers to but does not define, a known alias such as `win:Always`). The table
//! of what costs what is in the loader's source (`load.rs`).
//!
//! Refused with an error: text that is not well-formed XML, a document with no
//! `<instrumentation>` (not a manifest), and ambiguity — a template `tid`, an event (value,
//! version) or a provider GUID defined twice ([`Error::Manifest`] names both places).
//! What bad input may cost is bounded by the input: [`read_manifest_file`] reads at most
//! [`MAX_MANIFEST_BYTES`]; elements nest at most [`MAX_XML_DEPTH`] deep (checked before the
//! parser) in at most [`MAX_XML_NODES`] nodes; fixed counts and lengths are at most
//! [`MAX_PARAM`]; resolved messages copy at most a few times the text; at most
//! [`MAX_DIAGNOSTICS`] diagnostics are kept; and decoding a payload makes values only as its
//! bytes pay for them (the value budget of [`Template::decode`]).
//!
//! ```
//! use etwsim_decode::manifest::load_manifest;
//!
//! # fn main() -> Result<(), etwsim_decode::Error> {
//! let xml = r#"<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
//!  <instrumentation><events>
//!   <provider name="Demo" guid="{3e4f2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b}" symbol="DEMO">
//!    <keywords><keyword name="Read" mask="0x1"/><keyword name="Local" mask="0x2"/></keywords>
//!    <templates><template tid="T"><data name="Size" inType="win:UInt32"/></template></templates>
//!    <events><event value="1" version="0" level="win:Informational" keywords="Read Local"
//!            template="T" message="$(string.Read)"/></events>
//!   </provider>
//!  </events></instrumentation>
//!  <localization><resources culture="en-US"><stringTable>
//!   <string id="Read" value="read %1 bytes"/>
//!  </stringTable></resources></localization>
//! </instrumentationManifest>"#;
//! let manifest = load_manifest(xml.as_bytes())?;
//! let provider = &manifest.providers[0];
//! let event = provider.event(1, 0).unwrap();
//! assert_eq!(event.keywords, 0x3);
//! let fields = provider.decode(event, &512u32.to_le_bytes(), 8)?;
//! assert_eq!(provider.format_message(event, &fields).as_deref(), Some("read 512 bytes"));
//! let local_reads = provider.keyword_filter(&["Read", "Local"], &["Read", "Local"])?;
//! assert!(local_reads.passes(0x3) && !local_reads.passes(0x1));
//! # Ok(()) }
//! ```

mod decode;
mod encode;
pub mod filter;
mod load;
mod render;
mod types;
mod xml_depth;

pub use load::{MAX_DIAGNOSTICS, load_manifest, read_manifest_file};
pub use render::format_message;
pub use types::{InType, OutType};

use crate::Error;
use etwsim_types::{Channel, EventDescriptor, Guid, Keyword, Level, Opcode, Task};
use std::fmt;
use types::{WIN_CHANNELS, WIN_KEYWORDS, WIN_LEVELS, WIN_OPCODES, WIN_TASKS, win_lookup};

/// The largest file [`read_manifest_file`] reads: 64 MiB. The largest real manifests are a
/// few MB; the cap keeps `/dev/zero` or a huge file from being read whole.
pub const MAX_MANIFEST_BYTES: u64 = 64 << 20;

/// How deep elements may nest in a manifest, the root element counting as 1: 256. Real
/// manifests nest fewer than 20 deep; the XML parser recurses once per level, so deeper text
/// is refused by a linear scan before it reaches the parser (see [`Manifest::parse`]).
pub const MAX_XML_DEPTH: usize = 256;

/// The most XML nodes (elements, text, comments…) a manifest may have: 1,048,576, the
/// parser's `nodes_limit`. A 64 MiB manifest of real content has well under a million.
pub const MAX_XML_NODES: u32 = 1 << 20;

/// The largest fixed `count` or `length` a manifest may give: TDH carries counts and lengths
/// in 16 bits (PropertyParamFixedCount / PropertyParamFixedLength, DEC-17), as it does those
/// taken from a field.
pub const MAX_PARAM: u32 = u16::MAX as u32;

/// Resolved messages (`$(string.Id)`) may copy at most this many times the manifest's text,
/// plus [`MESSAGE_SLACK`] bytes: one long string referenced by every event could otherwise
/// turn a few hundred KB of text into GBs of copies. Real manifests copy about once.
const MESSAGE_FACTOR: usize = 8;
/// See [`MESSAGE_FACTOR`].
const MESSAGE_SLACK: usize = 1 << 20;

/// The providers of one instrumentation manifest, and what the loader noticed about it
/// ([`diagnostics`](Self::diagnostics)).
#[doc(alias = "instrumentationManifest")]
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Manifest {
    /// Every `provider` element, in document order.
    pub providers: Vec<Provider>,
    diagnostics: Vec<Diagnostic>,
}

/// How much a [`Diagnostic`] costs the manifest.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Severity {
    /// The manifest can still be read one way, and was: a reference to a map the manifest
    /// does not define leaves the field a plain number; one to an undefined level, task,
    /// opcode, keyword or channel leaves that part of the event unnamed (0 in its
    /// [`EventDef`], the record's own number when shown); an unknown `outType` shows the
    /// field by its `inType`; a name spelled as real manifests spell it (`win:Always`,
    /// `UInt32`) is read as the winmeta name.
    Warning,
    /// The element could not be used and was left out, with what depends on it: a template
    /// (its events' payloads cannot be decoded), an event, a map or map entry, a level, task,
    /// opcode, keyword or channel, a provider. The rest of the manifest is kept.
    Error,
}

/// Something the loader noticed about a manifest that did not stop it: where (line and
/// element) and what. Shown as `LINE: <element>: message`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Diagnostic {
    /// 1-based line of the element.
    pub line: u32,
    /// The element's name (`data`, `event`).
    pub element: String,
    /// What is wrong, and how the manifest was read despite it.
    pub message: String,
    /// What it cost.
    pub severity: Severity,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: <{}>: {}", self.line, self.element, self.message)
    }
}

impl Manifest {
    /// What the loader noticed without refusing the manifest (DEC-16…DEC-24), in the order
    /// it read the elements: what it left out ([`Severity::Error`]) and how it read the rest
    /// ([`Severity::Warning`]). Empty for a clean manifest; at most [`MAX_DIAGNOSTICS`] (and
    /// one more counting those not kept).
    ///
    /// Where a manifest cannot be read one way — a template `tid`, an event (value,
    /// version) or a provider GUID defined twice — [`load_manifest`] refuses it instead.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// The provider with GUID `guid`.
    pub fn provider(&self, guid: Guid) -> Option<&Provider> {
        self.providers.iter().find(|p| p.guid == guid)
    }

    /// The provider named `name`.
    pub fn provider_named(&self, name: &str) -> Option<&Provider> {
        self.providers.iter().find(|p| p.name == name)
    }
}

/// One `provider` and everything it defines (DEC-16).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Provider {
    /// `name`.
    pub name: String,
    /// `guid`.
    pub guid: Guid,
    /// `symbol`.
    pub symbol: Option<String>,
    /// `message`, resolved.
    pub message: Option<String>,
    /// `channels/channel` and `channels/importChannel`.
    pub channels: Vec<ChannelDef>,
    /// `levels/level`.
    pub levels: Vec<NamedValue<u8>>,
    /// `tasks/task`.
    pub tasks: Vec<TaskDef>,
    /// `opcodes/opcode` (provider-wide).
    pub opcodes: Vec<NamedValue<u8>>,
    /// `keywords/keyword`.
    pub keywords: Vec<NamedValue<u64>>,
    /// `maps/valueMap` and `maps/bitMap`.
    pub maps: Vec<MapDef>,
    /// `templates/template`.
    pub templates: Vec<Template>,
    /// `events/event`.
    pub events: Vec<EventDef>,
    /// The templates the loader left out, by `tid`, each with the [`Severity::Error`]
    /// diagnostic that says why: the payloads of events naming them cannot be decoded.
    pub left_out_templates: Vec<(String, Diagnostic)>,
}

/// A named value of a provider: a level, opcode or keyword (its mask).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedValue<T> {
    /// `name`.
    pub name: String,
    /// `value` (levels, opcodes) or `mask` (keywords).
    pub value: T,
    /// `symbol`.
    pub symbol: Option<String>,
    /// `message`, resolved.
    pub message: Option<String>,
}

impl<T> NamedValue<T> {
    /// The display name (DEC-25): the message if there is one, else the name.
    pub fn display_name(&self) -> &str {
        self.message.as_deref().unwrap_or(&self.name)
    }
}

/// A `channel` or `importChannel`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelDef {
    /// `name`.
    pub name: String,
    /// `chid`: what events refer to (defaults to the name).
    pub chid: String,
    /// `value`; for an imported or winmeta channel without one, its winmeta value
    /// (DEC-21); otherwise 16 + its position among such channels (simulator choice).
    pub value: u8,
    /// `type` (Admin, Operational, Analytic, Debug).
    pub kind: Option<String>,
    /// `symbol`.
    pub symbol: Option<String>,
    /// `enabled`.
    pub enabled: bool,
    /// `message`, resolved.
    pub message: Option<String>,
}

/// A `task`, with its task-scoped opcodes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskDef {
    /// `name`.
    pub name: String,
    /// `value`.
    pub value: u16,
    /// `symbol`.
    pub symbol: Option<String>,
    /// `eventGUID`.
    pub event_guid: Option<Guid>,
    /// `message`, resolved.
    pub message: Option<String>,
    /// `opcodes/opcode` under the task.
    pub opcodes: Vec<NamedValue<u8>>,
}

/// Whether a map names values or bits.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum MapKind {
    /// `valueMap`: one entry per value.
    Value,
    /// `bitMap`: one entry per bit.
    Bits,
}

/// A `valueMap` or `bitMap` (DEC-24).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapDef {
    /// `name`.
    pub name: String,
    /// Which kind.
    pub kind: MapKind,
    /// `map` entries: value and resolved message (its `value` text when it has none).
    pub entries: Vec<(u64, String)>,
}

/// A `template`: the payload fields of the events that use it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Template {
    /// `tid`.
    pub tid: String,
    /// `data` and `struct` children, in order.
    pub items: Vec<Item>,
}

/// One top-level template item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    /// A `data` element.
    Data(DataDef),
    /// A `struct` element.
    Struct(StructDef),
}

impl Item {
    /// The item's name.
    pub fn name(&self) -> &str {
        match self {
            Item::Data(d) => &d.name,
            Item::Struct(s) => &s.name,
        }
    }
}

/// A `count` or `length` attribute (DEC-17).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Param {
    /// A number (PropertyParamFixedCount / PropertyParamFixedLength).
    Fixed(u32),
    /// The name of an earlier integer field (PropertyParamCount / PropertyParamLength).
    Field(String),
}

/// A `data` element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataDef {
    /// `name`.
    pub name: String,
    /// `inType`.
    pub in_type: InType,
    /// `outType`, if given.
    pub out_type: Option<OutType>,
    /// `count`: an array of this many values.
    pub count: Option<Param>,
    /// `length`: bytes (binary, ANSI) or characters (UTF-16) of a fixed-length value.
    pub length: Option<Param>,
    /// `map`: the name of a value or bit map.
    pub map: Option<String>,
}

/// A `struct` element: its `data` members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructDef {
    /// `name`.
    pub name: String,
    /// `count`: an array of this many structs.
    pub count: Option<Param>,
    /// Members.
    pub members: Vec<DataDef>,
}

/// An `event` (DEC-16, DEC-17).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventDef {
    /// `value`: the event id.
    pub id: u16,
    /// `version`.
    pub version: u8,
    /// `level`, resolved to its number (0 when absent).
    pub level: u8,
    /// `task`, resolved (0 when absent).
    pub task: u16,
    /// `opcode`, resolved (0 when absent).
    pub opcode: u8,
    /// `keywords`: the OR of the named masks (DEC-23).
    pub keywords: u64,
    /// `keywords` as written.
    pub keyword_names: Vec<String>,
    /// `channel`, resolved to its value (0 when absent).
    pub channel: u8,
    /// `template`: the tid.
    pub template: Option<String>,
    /// `message`, resolved.
    pub message: Option<String>,
    /// `symbol`.
    pub symbol: Option<String>,
}

impl EventDef {
    /// The descriptor the event is written with (`EVENT_DESCRIPTOR`, DEC-17): its id,
    /// version, channel, level, opcode, task and keywords as the manifest resolved them.
    #[doc(alias = "EVENT_DESCRIPTOR")]
    pub fn descriptor(&self) -> EventDescriptor {
        EventDescriptor {
            id: self.id,
            version: self.version,
            channel: Channel(self.channel),
            level: Level(self.level),
            opcode: Opcode(self.opcode),
            task: Task(self.task),
            keyword: Keyword(self.keywords),
        }
    }
}

/// A session's keyword masks (FLT-04): built from names by [`Provider::keyword_filter`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct KeywordFilter {
    /// MatchAnyKeyword.
    pub match_any: u64,
    /// MatchAllKeyword.
    pub match_all: u64,
}

impl KeywordFilter {
    /// Whether an event with `keyword` passes (FLT-04; FLT-05: MatchAny 0 means all, for
    /// manifest providers; FLT-06: MatchAll is ignored when MatchAny is 0).
    pub fn passes(&self, keyword: u64) -> bool {
        if keyword == 0 || self.match_any == 0 {
            return true;
        }
        keyword & self.match_any != 0 && keyword & self.match_all == self.match_all
    }
}

impl Provider {
    /// The event (`id`, `version`) (DEC-17).
    pub fn event(&self, id: u16, version: u8) -> Option<&EventDef> {
        self.events
            .iter()
            .find(|e| e.id == id && e.version == version)
    }

    /// The template `tid`.
    pub fn template(&self, tid: &str) -> Option<&Template> {
        self.templates.iter().find(|t| t.tid == tid)
    }

    /// The template of `event` (`None` when it has none: no payload fields).
    pub fn template_of(&self, event: &EventDef) -> Option<&Template> {
        event.template.as_deref().and_then(|t| self.template(t))
    }

    /// The map named `name`.
    pub fn map(&self, name: &str) -> Option<&MapDef> {
        self.maps.iter().find(|m| m.name == name)
    }

    /// The mask of one keyword name: the provider's own, or a winmeta name (DEC-22).
    pub fn keyword(&self, name: &str) -> Option<u64> {
        self.keywords
            .iter()
            .find(|k| k.name == name)
            .map(|k| k.value)
            .or_else(|| win_lookup(WIN_KEYWORDS, name))
    }

    /// The OR of the masks of `names`.
    ///
    /// # Errors
    /// [`Error::Filter`] naming an unknown keyword (or saying that a number given as
    /// one does not fit in 64 bits).
    pub fn keyword_mask(&self, names: &[&str]) -> Result<u64, Error> {
        names.iter().try_fold(0, |acc, n| {
            self.keyword(n).map(|m| acc | m).ok_or_else(|| {
                Error::Filter(match too_wide(n) {
                    Some(why) => format!("keyword {why}"),
                    None => format!("no keyword named {n:?} in {}", self.name),
                })
            })
        })
    }

    /// MatchAny / MatchAll masks from keyword names: "all reads" is `(["Read"], [])`,
    /// "local reads" `(["Read", "Local"], ["Read", "Local"])`.
    ///
    /// # Errors
    /// As [`keyword_mask`](Self::keyword_mask).
    pub fn keyword_filter(&self, any: &[&str], all: &[&str]) -> Result<KeywordFilter, Error> {
        Ok(KeywordFilter {
            match_any: self.keyword_mask(any)?,
            match_all: self.keyword_mask(all)?,
        })
    }

    /// Display names of the bits of `keyword` (DEC-23): the provider's keywords for bits 0–47,
    /// winmeta names for 48–55, and a hex remainder for bits nobody names.
    pub fn keyword_names(&self, keyword: u64) -> Vec<String> {
        let mut out = Vec::new();
        let mut rest = keyword;
        for bit in 0..64 {
            let m = 1u64 << bit;
            if keyword & m == 0 {
                continue;
            }
            let own = (bit < 48)
                .then(|| self.keywords.iter().find(|k| k.value == m))
                .flatten();
            let name = match own {
                Some(k) => Some(k.display_name().to_owned()),
                None => WIN_KEYWORDS
                    .iter()
                    .find(|(_, v)| *v == m)
                    .map(|(n, _)| (*n).to_owned()),
            };
            if let Some(n) = name {
                out.push(n);
                rest &= !m;
            }
        }
        if rest != 0 {
            out.push(format!("{rest:#x}"));
        }
        out
    }

    /// The display name of a level (DEC-21, DEC-25).
    pub fn level_name(&self, level: u8) -> Option<String> {
        self.levels
            .iter()
            .find(|l| l.value == level)
            .map(|l| l.display_name().to_owned())
            .or_else(|| win_name(WIN_LEVELS, level))
    }

    /// The display name of a task.
    pub fn task_name(&self, task: u16) -> Option<String> {
        self.tasks
            .iter()
            .find(|t| t.value == task)
            .map(|t| t.message.clone().unwrap_or_else(|| t.name.clone()))
            .or_else(|| win_name(WIN_TASKS, task))
    }

    /// The display name of an opcode: the task's own first, then the provider's, then
    /// winmeta.
    pub fn opcode_name(&self, task: u16, opcode: u8) -> Option<String> {
        self.tasks
            .iter()
            .filter(|t| t.value == task)
            .flat_map(|t| &t.opcodes)
            .chain(&self.opcodes)
            .find(|o| o.value == opcode)
            .map(|o| o.display_name().to_owned())
            .or_else(|| win_name(WIN_OPCODES, opcode))
    }

    /// The display name of a channel value.
    pub fn channel_name(&self, channel: u8) -> Option<String> {
        self.channels
            .iter()
            .find(|c| c.value == channel)
            .map(|c| c.message.clone().unwrap_or_else(|| c.name.clone()))
            .or_else(|| {
                WIN_CHANNELS
                    .iter()
                    .find(|(_, v)| *v == channel)
                    .map(|(n, _)| (*n).to_owned())
            })
    }
}

fn win_name<T: PartialEq + Copy>(table: &[(&str, T)], value: T) -> Option<String> {
    table
        .iter()
        .find(|(_, v)| *v == value)
        .map(|(n, _)| (*n).to_owned())
}

/// A decimal or `0x` hexadecimal number.
pub(crate) fn parse_number(text: &str) -> Option<u64> {
    let t = text.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => t.parse().ok(),
    }
}

/// Whether `text` is written as a number (decimal digits, or `0x` and hex digits), whatever
/// its size.
pub(crate) fn looks_numeric(text: &str) -> bool {
    let t = text.trim();
    let (digits, radix) = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None => (t, 10),
    };
    !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix))
}

/// `"…" does not fit in 64 bits` when `text` is written as a number wider than 64 bits.
pub(crate) fn too_wide(text: &str) -> Option<String> {
    (looks_numeric(text) && parse_number(text).is_none())
        .then(|| format!("{text:?} is a number that does not fit in 64 bits"))
}
