//! Instrumentation manifests (DEC-16…DEC-26): load one with [`load_manifest`], find an event
//! by (provider, id, version), decode its payload into named fields, render its values and
//! its message, turn keyword names into MatchAny / MatchAll masks, and filter events on their
//! payload ([`filter`]).
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
//! namespace and `win:`/`xs:` prefixes need no declaration handling. Errors carry the XML
//! line and the element. Messages (`$(string.Id)`) are resolved against the `en-US` string
//! table when there is one, else the first.
//!
//! # Errors, diagnostics and limits
//!
//! A manifest that cannot be read one way is refused with a [`DecodeError::Manifest`] naming
//! the line and element (and, for a template `tid`, an event (value, version) or a provider
//! GUID defined twice, the other place); one that can be read one way loads, and
//! [`Manifest::diagnostics`] says how it was read (a map, level, task, opcode, keyword or
//! channel it refers to but does not define). What bad input may cost is bounded by the
//! input: [`read_manifest_file`] reads at most [`MAX_MANIFEST_BYTES`]; elements nest at
//! most [`MAX_XML_DEPTH`] deep (checked before the parser) in at most [`MAX_XML_NODES`]
//! nodes; fixed counts and lengths are at most [`MAX_PARAM`]; resolved messages copy at most
//! a few times the text; and decoding a payload makes values only as its bytes pay for them
//! (the value budget of [`Template::decode`]).
//!
//! ```
//! use etwsim_decode::manifest::load_manifest;
//!
//! # fn main() -> Result<(), etwsim_decode::DecodeError> {
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
pub mod filter;
mod render;
mod types;
mod xml_depth;

pub use render::format_message;
pub use types::{InType, OutType};

use crate::decode_error::DecodeError;
use etwsim_types::Guid;
use roxmltree::{Document, Node};
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::Read as _;
use std::path::Path;
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
    /// [`EventDef`], the record's own number when shown).
    Warning,
    /// The element could not be read and was left out, with what depends on it. Today's
    /// loader refuses such a manifest with a [`DecodeError::Manifest`] instead; a forgiving
    /// loader records the problem here and keeps the rest.
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
    /// it read the elements: a manifest that can be read one way loads, and this says how.
    /// Empty for a clean manifest.
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
    /// [`DecodeError::Filter`] naming an unknown keyword (or saying that a number given as
    /// one does not fit in 64 bits).
    pub fn keyword_mask(&self, names: &[&str]) -> Result<u64, DecodeError> {
        names.iter().try_fold(0, |acc, n| {
            self.keyword(n).map(|m| acc | m).ok_or_else(|| {
                DecodeError::Filter(match too_wide(n) {
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
    pub fn keyword_filter(&self, any: &[&str], all: &[&str]) -> Result<KeywordFilter, DecodeError> {
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

/// Loads a manifest from its file bytes: UTF-8 (with or without a byte-order mark) or UTF-16
/// with a byte-order mark, as manifests are often saved.
///
/// What the loader notices without refusing the manifest is in
/// [`Manifest::diagnostics`].
///
/// # Errors
/// [`DecodeError::Xml`] for text that is not well-formed XML (or not decodable), nests
/// elements deeper than [`MAX_XML_DEPTH`] or has more than [`MAX_XML_NODES`] nodes;
/// [`DecodeError::Manifest`] naming the line and element of a rule broken (a missing or bad
/// attribute, an unknown type or template, a `win:Binary` without `length`, a fixed count
/// or length above [`MAX_PARAM`]…) or of an ambiguity: a template `tid`, an event (value,
/// version) or a provider GUID defined twice (the message names the other place).
pub fn load_manifest(bytes: &[u8]) -> Result<Manifest, DecodeError> {
    let text = decode_text(bytes)?;
    Manifest::parse(&text)
}

/// Reads a manifest file's bytes for [`load_manifest`], at most [`MAX_MANIFEST_BYTES`] of
/// them: a larger file (or an endless one, such as `/dev/zero`) is refused without being
/// read whole.
///
/// # Errors
/// The file's own I/O errors; [`std::io::ErrorKind::FileTooLarge`] saying `FILE is larger
/// than the 64 MiB a manifest may be`.
pub fn read_manifest_file(path: &Path) -> std::io::Result<Vec<u8>> {
    let too_large = || {
        std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!(
                "{} is larger than the {} MiB a manifest may be",
                path.display(),
                MAX_MANIFEST_BYTES >> 20
            ),
        )
    };
    let file = std::fs::File::open(path)?;
    if file
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() > MAX_MANIFEST_BYTES)
    {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    file.take(MAX_MANIFEST_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_MANIFEST_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

fn decode_text(bytes: &[u8]) -> Result<String, DecodeError> {
    let bad = |message: &str| DecodeError::Xml {
        line: 1,
        column: 1,
        message: message.into(),
    };
    let utf16 = |rest: &[u8], le: bool| -> Result<String, DecodeError> {
        if rest.len() % 2 != 0 {
            return Err(bad("UTF-16 text with an odd number of bytes"));
        }
        let units = rest.chunks_exact(2).map(|c| {
            if le {
                u16::from_le_bytes([c[0], c[1]])
            } else {
                u16::from_be_bytes([c[0], c[1]])
            }
        });
        char::decode_utf16(units)
            .collect::<Result<String, _>>()
            .map_err(|_| bad("invalid UTF-16 text"))
    };
    match bytes {
        [0xFF, 0xFE, rest @ ..] => utf16(rest, true),
        [0xFE, 0xFF, rest @ ..] => utf16(rest, false),
        [0xEF, 0xBB, 0xBF, rest @ ..] => {
            String::from_utf8(rest.to_vec()).map_err(|_| bad("invalid UTF-8 text"))
        }
        _ => String::from_utf8(bytes.to_vec()).map_err(|_| bad("invalid UTF-8 text")),
    }
}

impl Manifest {
    /// Parses manifest text (see [`load_manifest`]).
    ///
    /// Before the XML parser sees the text, a linear scan counts element nesting (start and
    /// end tags, skipping comments, CDATA, processing instructions, declarations and quoted
    /// attribute values) and refuses text that nests deeper than [`MAX_XML_DEPTH`]: the
    /// parser recurses once per level and would overflow the stack.
    ///
    /// # Errors
    /// As [`load_manifest`].
    pub fn parse(xml: &str) -> Result<Manifest, DecodeError> {
        xml_depth::check(xml, MAX_XML_DEPTH)?;
        let options = roxmltree::ParsingOptions {
            allow_dtd: false,
            nodes_limit: MAX_XML_NODES,
        };
        let doc = Document::parse_with_options(xml, options).map_err(|e| {
            let pos = e.pos();
            DecodeError::Xml {
                line: pos.row,
                column: pos.col,
                message: e.to_string(),
            }
        })?;
        let root = doc.root_element();
        if root.tag_name().name() != "instrumentationManifest" {
            return Err(err_at(
                root,
                "the root element must be instrumentationManifest",
            ));
        }
        let strings = string_table(root);
        let cx = Cx {
            strings: &strings,
            diagnostics: RefCell::new(Vec::new()),
            message_budget: Cell::new(
                xml.len()
                    .saturating_mul(MESSAGE_FACTOR)
                    .saturating_add(MESSAGE_SLACK),
            ),
        };
        let mut providers = Vec::new();
        let mut guids: HashMap<Guid, (u32, String)> = HashMap::new();
        for p in root
            .descendants()
            .filter(|n| n.is_element() && n.tag_name().name() == "provider")
        {
            let provider = cx.provider(p)?;
            if let Some((line, name)) = guids.get(&provider.guid) {
                return Err(err_at(
                    p,
                    format!(
                        "provider GUID {} is already defined by provider {name:?} on line {line}",
                        provider.guid
                    ),
                ));
            }
            guids.insert(provider.guid, (line_of(p), provider.name.clone()));
            providers.push(provider);
        }
        Ok(Manifest {
            providers,
            diagnostics: cx.diagnostics.into_inner(),
        })
    }
}

/// The string table of the `en-US` resources, else the first.
fn string_table(root: Node<'_, '_>) -> HashMap<String, String> {
    let resources: Vec<Node<'_, '_>> = root
        .descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == "resources")
        .collect();
    let chosen = resources
        .iter()
        .find(|r| r.attribute("culture") == Some("en-US"))
        .or_else(|| resources.first());
    chosen
        .map(|r| {
            r.descendants()
                .filter(|n| n.is_element() && n.tag_name().name() == "string")
                .filter_map(|s| {
                    Some((
                        s.attribute("id")?.to_owned(),
                        s.attribute("value")?.to_owned(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn line_of(node: Node<'_, '_>) -> u32 {
    node.document().text_pos_at(node.range().start).row
}

fn err_at(node: Node<'_, '_>, message: impl Into<String>) -> DecodeError {
    DecodeError::Manifest {
        line: line_of(node),
        element: node.tag_name().name().to_owned(),
        message: message.into(),
    }
}

fn children<'a, 'input>(
    node: Node<'a, 'input>,
    name: &'static str,
) -> impl Iterator<Item = Node<'a, 'input>> {
    node.children()
        .filter(move |n| n.is_element() && n.tag_name().name() == name)
}

/// The elements `group/item` under `node` (e.g. `keywords/keyword`).
fn grouped<'a, 'input>(
    node: Node<'a, 'input>,
    group: &'static str,
    item: &'static str,
) -> impl Iterator<Item = Node<'a, 'input>> {
    children(node, group).flat_map(move |g| children(g, item))
}

fn required<'a>(node: Node<'a, '_>, attr: &str) -> Result<&'a str, DecodeError> {
    node.attribute(attr)
        .ok_or_else(|| err_at(node, format!("missing attribute {attr}")))
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
fn looks_numeric(text: &str) -> bool {
    let t = text.trim();
    let (digits, radix) = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None => (t, 10),
    };
    !digits.is_empty() && digits.chars().all(|c| c.is_digit(radix))
}

/// `"…" does not fit in 64 bits` when `text` is written as a number wider than 64 bits.
fn too_wide(text: &str) -> Option<String> {
    (looks_numeric(text) && parse_number(text).is_none())
        .then(|| format!("{text:?} is a number that does not fit in 64 bits"))
}

fn number<T: TryFrom<u64>>(node: Node<'_, '_>, attr: &str) -> Result<T, DecodeError> {
    let text = required(node, attr)?;
    match parse_number(text) {
        Some(v) => {
            T::try_from(v).map_err(|_| err_at(node, format!("{attr}={text:?} is out of range")))
        }
        None if looks_numeric(text) => Err(err_at(
            node,
            format!("{attr}={text:?} does not fit in 64 bits"),
        )),
        None => Err(err_at(node, format!("{attr}={text:?} is not a number"))),
    }
}

fn optional_number<T: TryFrom<u64>>(
    node: Node<'_, '_>,
    attr: &str,
) -> Result<Option<T>, DecodeError> {
    match node.attribute(attr) {
        None => Ok(None),
        Some(_) => number(node, attr).map(Some),
    }
}

/// A `count` or `length` attribute: a number (at most [`MAX_PARAM`]) or a field's name.
fn param(node: Node<'_, '_>, attr: &str) -> Result<Option<Param>, DecodeError> {
    let Some(v) = node.attribute(attr) else {
        return Ok(None);
    };
    if !looks_numeric(v) {
        return Ok(Some(Param::Field(v.to_owned())));
    }
    match parse_number(v).and_then(|n| u32::try_from(n).ok()) {
        Some(n) if n <= MAX_PARAM => Ok(Some(Param::Fixed(n))),
        _ => Err(err_at(
            node,
            format!(
                "{attr}={v:?} is more than {MAX_PARAM}: TDH counts and lengths are 16-bit (DEC-17)"
            ),
        )),
    }
}

/// The names an event may refer to, indexed once per provider so that loading stays linear
/// in the manifest: the first definition of a name wins, as the [`Provider`] lookups do.
struct Names<'p> {
    levels: HashMap<&'p str, u8>,
    tasks: HashMap<&'p str, u16>,
    task_opcodes: HashMap<(u16, &'p str), u8>,
    opcodes: HashMap<&'p str, u8>,
    channels: HashMap<&'p str, u8>,
    keywords: HashMap<&'p str, u64>,
}

impl<'p> Names<'p> {
    fn of(p: &'p Provider) -> Names<'p> {
        let mut n = Names {
            levels: HashMap::new(),
            tasks: HashMap::new(),
            task_opcodes: HashMap::new(),
            opcodes: HashMap::new(),
            channels: HashMap::new(),
            keywords: HashMap::new(),
        };
        for l in &p.levels {
            n.levels.entry(&l.name).or_insert(l.value);
        }
        for t in &p.tasks {
            n.tasks.entry(&t.name).or_insert(t.value);
            for o in &t.opcodes {
                n.task_opcodes.entry((t.value, &o.name)).or_insert(o.value);
            }
        }
        for o in &p.opcodes {
            n.opcodes.entry(&o.name).or_insert(o.value);
        }
        for c in &p.channels {
            n.channels.entry(&c.chid).or_insert(c.value);
            n.channels.entry(&c.name).or_insert(c.value);
        }
        for k in &p.keywords {
            n.keywords.entry(&k.name).or_insert(k.value);
        }
        n
    }
}

struct Cx<'s> {
    strings: &'s HashMap<String, String>,
    /// What the loader noticed, in reading order.
    diagnostics: RefCell<Vec<Diagnostic>>,
    /// Bytes resolved messages may still copy (see [`MESSAGE_FACTOR`]).
    message_budget: Cell<usize>,
}

impl Cx<'_> {
    /// Records a warning about `node`.
    fn warn(&self, node: Node<'_, '_>, message: String) {
        self.diagnostics.borrow_mut().push(Diagnostic {
            line: line_of(node),
            element: node.tag_name().name().to_owned(),
            message,
            severity: Severity::Warning,
        });
    }

    /// An event attribute naming a level, task, opcode or channel, as its number: 0 when the
    /// attribute is absent, and 0 with a warning when `lookup` does not know the name.
    fn resolve_attr<T: Default>(
        &self,
        e: Node<'_, '_>,
        attr: &str,
        lookup: impl FnOnce(&str) -> Option<T>,
    ) -> T {
        let Some(n) = e.attribute(attr) else {
            return T::default();
        };
        lookup(n).unwrap_or_else(|| {
            self.warn(
                e,
                format!("{attr} {n:?} is not defined: the event's {attr} is left unnamed (0 here)"),
            );
            T::default()
        })
    }

    /// A `message` attribute: `$(string.Id)` resolved, other text as is.
    fn message(&self, node: Node<'_, '_>, attr: &str) -> Result<Option<String>, DecodeError> {
        let Some(text) = node.attribute(attr) else {
            return Ok(None);
        };
        match text
            .strip_prefix("$(string.")
            .and_then(|r| r.strip_suffix(')'))
        {
            Some(id) => {
                let s = self
                    .strings
                    .get(id)
                    .ok_or_else(|| err_at(node, format!("no string {id:?} in the string table")))?;
                let Some(left) = self.message_budget.get().checked_sub(s.len()) else {
                    return Err(err_at(
                        node,
                        format!(
                            "string {id:?} ({} bytes) is used so often that resolved messages \
                             would copy more than {MESSAGE_FACTOR} times the manifest's text",
                            s.len()
                        ),
                    ));
                };
                self.message_budget.set(left);
                Ok(Some(s.clone()))
            }
            None => Ok(Some(text.to_owned())),
        }
    }

    fn named<T: TryFrom<u64>>(
        &self,
        node: Node<'_, '_>,
        attr: &str,
    ) -> Result<NamedValue<T>, DecodeError> {
        Ok(NamedValue {
            name: required(node, "name")?.to_owned(),
            value: number(node, attr)?,
            symbol: node.attribute("symbol").map(str::to_owned),
            message: self.message(node, "message")?,
        })
    }

    fn provider(&self, p: Node<'_, '_>) -> Result<Provider, DecodeError> {
        let guid_text = required(p, "guid")?;
        let guid = guid_text
            .parse()
            .map_err(|_| err_at(p, format!("guid={guid_text:?} is not a GUID")))?;
        let mut provider = Provider {
            name: required(p, "name")?.to_owned(),
            guid,
            symbol: p.attribute("symbol").map(str::to_owned),
            message: self.message(p, "message")?,
            ..Provider::default()
        };
        for l in grouped(p, "levels", "level") {
            let level: NamedValue<u8> = self.named(l, "value")?;
            if level.value < 16 {
                return Err(err_at(l, "a provider level's value must be 16-255"));
            }
            provider.levels.push(level);
        }
        for o in grouped(p, "opcodes", "opcode") {
            provider.opcodes.push(self.named(o, "value")?);
        }
        for k in grouped(p, "keywords", "keyword") {
            let kw: NamedValue<u64> = self.named(k, "mask")?;
            if kw.value.count_ones() != 1 || kw.value >> 48 != 0 {
                return Err(err_at(k, "a keyword mask must be one bit in bits 0-47"));
            }
            provider.keywords.push(kw);
        }
        for t in grouped(p, "tasks", "task") {
            let event_guid = match t.attribute("eventGUID") {
                None => None,
                Some(g) => Some(
                    g.parse()
                        .map_err(|_| err_at(t, format!("eventGUID={g:?} is not a GUID")))?,
                ),
            };
            let opcodes = grouped(t, "opcodes", "opcode")
                .map(|o| self.named(o, "value"))
                .collect::<Result<_, _>>()?;
            let task: NamedValue<u16> = self.named(t, "value")?;
            provider.tasks.push(TaskDef {
                name: task.name,
                value: task.value,
                symbol: task.symbol,
                event_guid,
                message: task.message,
                opcodes,
            });
        }
        self.channels(p, &mut provider)?;
        for m in children(p, "maps").flat_map(|g| g.children().filter(Node::is_element)) {
            let kind = match m.tag_name().name() {
                "valueMap" => MapKind::Value,
                "bitMap" => MapKind::Bits,
                _ => continue,
            };
            let entries = children(m, "map")
                .map(|e| {
                    let value: u64 = number(e, "value")?;
                    let text = self
                        .message(e, "message")?
                        .unwrap_or_else(|| value.to_string());
                    Ok((value, text))
                })
                .collect::<Result<_, DecodeError>>()?;
            provider.maps.push(MapDef {
                name: required(m, "name")?.to_owned(),
                kind,
                entries,
            });
        }
        let map_names: HashSet<&str> = provider.maps.iter().map(|m| m.name.as_str()).collect();
        let mut tids: HashMap<String, u32> = HashMap::new();
        let mut templates = Vec::new();
        for t in grouped(p, "templates", "template") {
            let template = self.template(t, &map_names)?;
            if let Some(line) = tids.get(&template.tid) {
                return Err(err_at(
                    t,
                    format!(
                        "template tid {:?} is already defined on line {line}: events using it \
                         could be read either way",
                        template.tid
                    ),
                ));
            }
            tids.insert(template.tid.clone(), line_of(t));
            templates.push(template);
        }
        provider.templates = templates;
        let names = Names::of(&provider);
        let mut ids: HashMap<(u16, u8), u32> = HashMap::new();
        let mut events = Vec::new();
        for e in grouped(p, "events", "event") {
            let event = self.event(e, &names, &tids)?;
            if let Some(line) = ids.get(&(event.id, event.version)) {
                return Err(err_at(
                    e,
                    format!(
                        "event {} version {} is already defined on line {line}: its records \
                         could be read either way",
                        event.id, event.version
                    ),
                ));
            }
            ids.insert((event.id, event.version), line_of(e));
            events.push(event);
        }
        provider.events = events;
        Ok(provider)
    }

    fn channels(&self, p: Node<'_, '_>, provider: &mut Provider) -> Result<(), DecodeError> {
        let mut next_value = 16u8;
        for c in children(p, "channels").flat_map(|g| g.children().filter(Node::is_element)) {
            let imported = match c.tag_name().name() {
                "channel" => false,
                "importChannel" => true,
                _ => continue,
            };
            let name = required(c, "name")?.to_owned();
            let value = match optional_number::<u8>(c, "value")? {
                Some(v) => v,
                None => match win_lookup(WIN_CHANNELS, &name) {
                    Some(v) => v,
                    None if imported => {
                        return Err(err_at(c, format!("unknown imported channel {name:?}")));
                    }
                    None => {
                        let v = next_value;
                        next_value = next_value.saturating_add(1);
                        v
                    }
                },
            };
            provider.channels.push(ChannelDef {
                chid: c.attribute("chid").unwrap_or(&name).to_owned(),
                name,
                value,
                kind: c.attribute("type").map(str::to_owned),
                symbol: c.attribute("symbol").map(str::to_owned),
                enabled: c.attribute("enabled") == Some("true"),
                message: self.message(c, "message")?,
            });
        }
        if provider.channels.len() > 8 {
            return Err(err_at(p, "a provider has at most 8 channels"));
        }
        Ok(())
    }

    fn data(&self, d: Node<'_, '_>) -> Result<DataDef, DecodeError> {
        let in_name = required(d, "inType")?;
        let in_type = InType::from_name(in_name)
            .ok_or_else(|| err_at(d, format!("unknown inType {in_name:?}")))?;
        let out_type = match d.attribute("outType") {
            None => None,
            Some(o) => Some(
                OutType::from_name(o).ok_or_else(|| err_at(d, format!("unknown outType {o:?}")))?,
            ),
        };
        let length = param(d, "length")?;
        if in_type == InType::BINARY && length.is_none() {
            return Err(err_at(d, "win:Binary needs a length"));
        }
        Ok(DataDef {
            name: required(d, "name")?.to_owned(),
            in_type,
            out_type,
            count: param(d, "count")?,
            length,
            map: d.attribute("map").map(str::to_owned),
        })
    }

    /// A warning for a `map` attribute of `d` that names none of `maps`.
    fn check_map(&self, d: Node<'_, '_>, def: &DataDef, maps: &HashSet<&str>) {
        if let Some(m) = &def.map {
            if !maps.contains(m.as_str()) {
                self.warn(
                    d,
                    format!("map {m:?} is not defined: the field shows as a plain number"),
                );
            }
        }
    }

    fn template(&self, t: Node<'_, '_>, maps: &HashSet<&str>) -> Result<Template, DecodeError> {
        let mut items = Vec::new();
        let mut earlier: Vec<(String, bool)> = Vec::new(); // (name, is integer)
        let check_ref = |node: Node<'_, '_>, p: &Option<Param>, earlier: &[(String, bool)]| match p
        {
            Some(Param::Field(f)) if !earlier.iter().any(|(n, int)| n == f && *int) => Err(err_at(
                node,
                format!("count/length {f:?} is not an earlier integer field of the template"),
            )),
            _ => Ok(()),
        };
        for c in t.children().filter(Node::is_element) {
            match c.tag_name().name() {
                "data" => {
                    let d = self.data(c)?;
                    self.check_map(c, &d, maps);
                    check_ref(c, &d.count, &earlier)?;
                    check_ref(c, &d.length, &earlier)?;
                    earlier.push((d.name.clone(), d.in_type.is_integer() && d.count.is_none()));
                    items.push(Item::Data(d));
                }
                "struct" => {
                    let count = param(c, "count")?;
                    check_ref(c, &count, &earlier)?;
                    let members = children(c, "data")
                        .map(|d| self.data(d))
                        .collect::<Result<Vec<_>, _>>()?;
                    for (m, node) in members.iter().zip(children(c, "data")) {
                        if matches!(m.count, Some(Param::Field(_)))
                            || matches!(m.length, Some(Param::Field(_)))
                        {
                            return Err(err_at(
                                node,
                                "struct members take fixed counts and lengths",
                            ));
                        }
                        self.check_map(node, m, maps);
                    }
                    let name = required(c, "name")?.to_owned();
                    earlier.push((name.clone(), false));
                    items.push(Item::Struct(StructDef {
                        name,
                        count,
                        members,
                    }));
                }
                _ => {}
            }
        }
        Ok(Template {
            tid: required(t, "tid")?.to_owned(),
            items,
        })
    }

    fn event(
        &self,
        e: Node<'_, '_>,
        p: &Names<'_>,
        templates: &HashMap<String, u32>,
    ) -> Result<EventDef, DecodeError> {
        let level = self.resolve_attr(e, "level", |n| {
            p.levels
                .get(n)
                .copied()
                .or_else(|| win_lookup(WIN_LEVELS, n))
        });
        let task = self.resolve_attr(e, "task", |n| {
            p.tasks.get(n).copied().or_else(|| win_lookup(WIN_TASKS, n))
        });
        let opcode = self.resolve_attr(e, "opcode", |n| {
            p.task_opcodes
                .get(&(task, n))
                .or_else(|| p.opcodes.get(n))
                .copied()
                .or_else(|| win_lookup(WIN_OPCODES, n))
        });
        let channel = self.resolve_attr(e, "channel", |n| p.channels.get(n).copied());
        let keyword_names: Vec<String> = e
            .attribute("keywords")
            .map(|k| k.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default();
        let mut keywords = 0;
        for k in &keyword_names {
            match p
                .keywords
                .get(k.as_str())
                .copied()
                .or_else(|| win_lookup(WIN_KEYWORDS, k))
            {
                Some(mask) => keywords |= mask,
                None => self.warn(
                    e,
                    match too_wide(k) {
                        Some(why) => format!("keyword {why}: it is left out of the event's mask"),
                        None => format!(
                            "keyword {k:?} is not defined: it is left out of the event's mask"
                        ),
                    },
                ),
            }
        }
        let template = e.attribute("template").map(str::to_owned);
        if let Some(t) = &template {
            if !templates.contains_key(t) {
                return Err(err_at(e, format!("unknown template {t:?}")));
            }
        }
        Ok(EventDef {
            id: number(e, "value")?,
            version: optional_number(e, "version")?.unwrap_or(0),
            level,
            task,
            opcode,
            keywords,
            keyword_names,
            channel,
            template,
            message: self.message(e, "message")?,
            symbol: e.attribute("symbol").map(str::to_owned),
        })
    }
}
