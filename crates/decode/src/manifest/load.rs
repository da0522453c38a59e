//! The manifest loader (DEC-16…DEC-25): reads whatever it can use and leaves out, with a
//! [`Severity::Error`] diagnostic, what it cannot — as TDH and TraceEvent skip what they
//! cannot use and decode the rest.
//!
//! What a bad element costs is what depends on it:
//!
//! | bad element | left out | what else |
//! |---|---|---|
//! | `data` / `struct` (unknown `inType`, `win:Binary` without `length`, a count or length naming no earlier integer field, a missing name…) | its template | the template's events stay known (names, levels, keywords, messages); decoding their payload fails with [`Error::NoTemplate`] naming the diagnostic |
//! | `template` without a `tid` | the template | — |
//! | `event` without a readable `value` or `version` | the event | — |
//! | `event` naming a template the manifest lacks | — | the event is kept; its payload cannot be decoded ([`Error::NoTemplate`]) |
//! | `level`, `task`, `opcode`, `keyword`, `channel` with a bad value, mask or name | that element | events naming it get a warning and keep their numbers |
//! | `valueMap` / `bitMap` without a name, a `map` entry without a value | that map / entry | fields naming the map show numbers |
//! | `provider` without a readable `guid` | the provider | — |
//!
//! Warnings ([`Severity::Warning`]) say how something was read when it can be read one way:
//! references to names the manifest does not define (DEC-21…DEC-24), an unknown `outType`
//! (the field is shown by its `inType`, as TDH does for a combination it does not know), a
//! `$(string.Id)` the string table lacks, and names real manifests spell differently from
//! winmeta (`win:Always` for `win:LogAlways`, `UInt32` or `win:Uint32` for `win:UInt32`),
//! said once per provider and name.
//!
//! Still refused with a [`Error`]: text that is not well-formed XML (or too deep or too
//! big), a document with no `<instrumentation>` element (not a manifest), and ambiguity — a
//! template `tid`, an event (value, version) or a provider GUID defined twice.
//!
//! `<instrumentation>` is found wherever it sits under the root: `instrumentationManifest`,
//! the `assembly` of Windows component manifests, or another wrapper.

use super::types::{
    WIN_CHANNELS, WIN_KEYWORDS, WIN_LEVEL_ALIASES, WIN_LEVELS, WIN_OPCODES, WIN_TASKS, win_lookup,
    win_resolve,
};
use super::{
    ChannelDef, DataDef, Diagnostic, EventDef, InType, Item, MAX_MANIFEST_BYTES, MAX_PARAM,
    MAX_XML_DEPTH, MAX_XML_NODES, MESSAGE_FACTOR, MESSAGE_SLACK, Manifest, MapDef, MapKind,
    NamedValue, OutType, Param, Provider, Severity, StructDef, TaskDef, Template, looks_numeric,
    parse_number, too_wide, xml_depth,
};
use crate::Error;
use etwsim_types::Guid;
use roxmltree::{Document, Node};
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::io::Read as _;
use std::path::Path;

/// The most diagnostics a manifest keeps: 10,000. Past them, one last diagnostic counts
/// those not kept, so a manifest of a million bad elements costs no more than this.
pub const MAX_DIAGNOSTICS: usize = 10_000;

/// The longest name or value quoted in a diagnostic, in characters; longer ones are cut
/// with `…`.
const QUOTE_CHARS: usize = 80;

/// Loads a manifest from its file bytes: UTF-8 (with or without a byte-order mark) or UTF-16
/// with a byte-order mark, as manifests are often saved.
///
/// The loader keeps whatever it can use: an element it cannot use is left out with what
/// depends on it, and says so in a [`Severity::Error`] diagnostic; how it read the rest is in
/// the [`Severity::Warning`] ones ([`Manifest::diagnostics`]).
///
/// # Errors
/// [`Error::Xml`] for text that is not well-formed XML (or not decodable), nests
/// elements deeper than [`MAX_XML_DEPTH`] or has more than [`MAX_XML_NODES`] nodes;
/// [`Error::Manifest`] naming the line and element for a document with no
/// `<instrumentation>` element (not a manifest) or for an ambiguity: a template `tid`, an
/// event (value, version) or a provider GUID defined twice (the message names the other
/// place).
pub fn load_manifest(bytes: &[u8]) -> Result<Manifest, Error> {
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

fn decode_text(bytes: &[u8]) -> Result<String, Error> {
    let bad = |message: &str| Error::Xml {
        line: 1,
        column: 1,
        message: message.into(),
    };
    let utf16 = |rest: &[u8], le: bool| -> Result<String, Error> {
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
    pub fn parse(xml: &str) -> Result<Manifest, Error> {
        xml_depth::check(xml, MAX_XML_DEPTH)?;
        let options = roxmltree::ParsingOptions {
            allow_dtd: false,
            nodes_limit: MAX_XML_NODES,
        };
        let doc = Document::parse_with_options(xml, options).map_err(|e| {
            let pos = e.pos();
            Error::Xml {
                line: pos.row,
                column: pos.col,
                message: e.to_string(),
            }
        })?;
        let root = doc.root_element();
        let strings = string_table(root);
        let cx = Cx {
            lines: Lines::new(xml),
            strings: &strings,
            diagnostics: RefCell::new(Vec::new()),
            not_kept: Cell::new((0, false)),
            message_budget: Cell::new(
                xml.len()
                    .saturating_mul(MESSAGE_FACTOR)
                    .saturating_add(MESSAGE_SLACK),
            ),
            aliased: RefCell::new(HashSet::new()),
        };
        let instrumentation: Vec<Node<'_, '_>> = root
            .descendants()
            .filter(|n| is(*n, "instrumentation"))
            .collect();
        let groups: Vec<Node<'_, '_>> = if is(root, "events") {
            vec![root]
        } else {
            instrumentation
                .iter()
                .flat_map(|i| children(*i, "events"))
                .collect()
        };
        if instrumentation.is_empty() && groups.is_empty() {
            return Err(cx.refuse(
                root,
                format!(
                    "no <instrumentation> element under <{}>: this is not an instrumentation \
                     manifest",
                    quote_str(root.tag_name().name())
                ),
            ));
        }
        if groups.is_empty() {
            cx.warn(
                instrumentation[0],
                "no <events> element: the manifest defines no event providers".into(),
            );
        }
        let mut providers = Vec::new();
        let mut guids: HashMap<Guid, (u32, String)> = HashMap::new();
        for p in groups.iter().flat_map(|g| children(*g, "provider")) {
            let Some(provider) = cx.provider(p)? else {
                continue;
            };
            if let Some((line, name)) = guids.get(&provider.guid) {
                return Err(cx.refuse(
                    p,
                    format!(
                        "provider GUID {} is already defined by provider {} on line {line}",
                        provider.guid,
                        quote(name)
                    ),
                ));
            }
            guids.insert(provider.guid, (cx.line(p), provider.name.clone()));
            providers.push(provider);
        }
        Ok(Manifest {
            providers,
            diagnostics: cx.finish(),
        })
    }
}

/// Whether `node` is an element named `name` (its local name: namespaces are not checked).
fn is(node: Node<'_, '_>, name: &str) -> bool {
    node.is_element() && node.tag_name().name() == name
}

/// The string table of the `en-US` resources, else the first.
fn string_table(root: Node<'_, '_>) -> HashMap<String, String> {
    let resources: Vec<Node<'_, '_>> = root.descendants().filter(|n| is(*n, "resources")).collect();
    let chosen = resources
        .iter()
        .find(|r| r.attribute("culture") == Some("en-US"))
        .or_else(|| resources.first());
    chosen
        .map(|r| {
            r.descendants()
                .filter(|n| is(*n, "string"))
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

/// Line numbers of byte offsets, from the offsets of the line feeds found once:
/// `roxmltree`'s own `text_pos_at` counts from the start of the text on every call, which
/// made loading quadratic in the manifest.
struct Lines(Vec<usize>);

impl Lines {
    fn new(text: &str) -> Lines {
        Lines(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i)
                .collect(),
        )
    }

    /// The 1-based line of byte offset `pos`.
    fn line(&self, pos: usize) -> u32 {
        u32::try_from(self.0.partition_point(|&nl| nl < pos) + 1).unwrap_or(u32::MAX)
    }
}

fn children<'a, 'input>(
    node: Node<'a, 'input>,
    name: &'static str,
) -> impl Iterator<Item = Node<'a, 'input>> {
    node.children().filter(move |n| is(*n, name))
}

/// The elements `group/item` under `node` (e.g. `keywords/keyword`).
fn grouped<'a, 'input>(
    node: Node<'a, 'input>,
    group: &'static str,
    item: &'static str,
) -> impl Iterator<Item = Node<'a, 'input>> {
    children(node, group).flat_map(move |g| children(g, item))
}

/// `text` in quotes, cut at [`QUOTE_CHARS`] characters: a diagnostic quotes names, and a
/// name may be megabytes long.
fn quote(text: &str) -> String {
    match text.char_indices().nth(QUOTE_CHARS) {
        None => format!("{text:?}"),
        Some((end, _)) => format!("{:?}…", &text[..end]),
    }
}

/// An element name for a message, cut like [`quote`] but not quoted.
fn quote_str(text: &str) -> &str {
    match text.char_indices().nth(QUOTE_CHARS) {
        None => text,
        Some((end, _)) => &text[..end],
    }
}

/// What is wrong with an element, for a diagnostic.
type Why = String;

fn required<'a>(node: Node<'a, '_>, attr: &str) -> Result<&'a str, Why> {
    node.attribute(attr)
        .ok_or_else(|| format!("missing attribute {attr}"))
}

fn number<T: TryFrom<u64>>(node: Node<'_, '_>, attr: &str) -> Result<T, Why> {
    let text = required(node, attr)?;
    match parse_number(text) {
        Some(v) => T::try_from(v).map_err(|_| format!("{attr}={} is out of range", quote(text))),
        None if looks_numeric(text) => {
            Err(format!("{attr}={} does not fit in 64 bits", quote(text)))
        }
        None => Err(format!("{attr}={} is not a number", quote(text))),
    }
}

fn optional_number<T: TryFrom<u64>>(node: Node<'_, '_>, attr: &str) -> Result<Option<T>, Why> {
    match node.attribute(attr) {
        None => Ok(None),
        Some(_) => number(node, attr).map(Some),
    }
}

/// A `count` or `length` attribute: a number (at most [`MAX_PARAM`]) or a field's name.
fn param(node: Node<'_, '_>, attr: &str) -> Result<Option<Param>, Why> {
    let Some(v) = node.attribute(attr) else {
        return Ok(None);
    };
    if !looks_numeric(v) {
        return Ok(Some(Param::Field(v.to_owned())));
    }
    match parse_number(v).and_then(|n| u32::try_from(n).ok()) {
        Some(n) if n <= MAX_PARAM => Ok(Some(Param::Fixed(n))),
        _ => Err(format!(
            "{attr}={} is more than {MAX_PARAM}: TDH counts and lengths are 16-bit (DEC-17)",
            quote(v)
        )),
    }
}

/// A resolved name and, when it was read as another name (an alias), that name.
type Resolved<T> = Option<(T, Option<&'static str>)>;

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

/// An earlier field a `count` or `length` may name: its name, and whether it is an integer
/// with one value.
type Earlier = (String, bool);

struct Cx<'s> {
    lines: Lines,
    strings: &'s HashMap<String, String>,
    /// What the loader noticed, in reading order (at most [`MAX_DIAGNOSTICS`]).
    diagnostics: RefCell<Vec<Diagnostic>>,
    /// Diagnostics past [`MAX_DIAGNOSTICS`]: how many, and whether one was an error.
    not_kept: Cell<(usize, bool)>,
    /// Bytes resolved messages may still copy (see [`MESSAGE_FACTOR`]).
    message_budget: Cell<usize>,
    /// The (attribute, name) aliases already reported for the provider being read.
    aliased: RefCell<HashSet<(&'static str, String)>>,
}

impl Cx<'_> {
    fn line(&self, node: Node<'_, '_>) -> u32 {
        self.lines.line(node.range().start)
    }

    /// A refusal: the manifest cannot be read one way.
    fn refuse(&self, node: Node<'_, '_>, message: String) -> Error {
        Error::Manifest {
            line: self.line(node),
            element: node.tag_name().name().to_owned(),
            message,
        }
    }

    fn note(&self, node: Node<'_, '_>, severity: Severity, message: String) -> Diagnostic {
        let d = Diagnostic {
            line: self.line(node),
            element: quote_str(node.tag_name().name()).to_owned(),
            message,
            severity,
        };
        let mut all = self.diagnostics.borrow_mut();
        if all.len() < MAX_DIAGNOSTICS {
            all.push(d.clone());
        } else {
            let (n, error) = self.not_kept.get();
            self.not_kept
                .set((n + 1, error || severity == Severity::Error));
        }
        d
    }

    /// Records a warning about `node`: it was read one way, and this says how.
    fn warn(&self, node: Node<'_, '_>, message: String) {
        self.note(node, Severity::Warning, message);
    }

    /// Records an error about `node`: it was left out, and this says what that cost.
    fn error(&self, node: Node<'_, '_>, message: String) -> Diagnostic {
        self.note(node, Severity::Error, message)
    }

    /// The diagnostics, with one more counting those past [`MAX_DIAGNOSTICS`].
    fn finish(self) -> Vec<Diagnostic> {
        let mut all = self.diagnostics.into_inner();
        let (n, error) = self.not_kept.get();
        if n > 0 {
            let last = all.last().map_or(1, |d| d.line);
            all.push(Diagnostic {
                line: last,
                element: "instrumentationManifest".into(),
                message: format!(
                    "{n} more diagnostics were not kept (at most {MAX_DIAGNOSTICS} are)"
                ),
                severity: if error {
                    Severity::Error
                } else {
                    Severity::Warning
                },
            });
        }
        all
    }

    /// Says once per provider that `attr` `written` is read as `canonical`.
    fn alias(&self, node: Node<'_, '_>, attr: &'static str, written: &str, canonical: &str) {
        if self.aliased.borrow_mut().insert((attr, written.to_owned())) {
            self.warn(
                node,
                format!(
                    "{attr} {} is read as {canonical} (and so are its other uses in this \
                     provider)",
                    quote(written)
                ),
            );
        }
    }

    /// An event attribute naming a level, task, opcode or channel, as its number: 0 when the
    /// attribute is absent, and 0 with a warning when `lookup` does not know the name.
    fn resolve_attr<T: Default>(
        &self,
        e: Node<'_, '_>,
        attr: &'static str,
        lookup: impl FnOnce(&str) -> Resolved<T>,
    ) -> T {
        let Some(n) = e.attribute(attr) else {
            return T::default();
        };
        match lookup(n) {
            Some((v, alias)) => {
                if let Some(canonical) = alias {
                    self.alias(e, attr, n, canonical);
                }
                v
            }
            None => {
                self.warn(
                    e,
                    format!(
                        "{attr} {} is not defined: the event's {attr} is left unnamed (0 here)",
                        quote(n)
                    ),
                );
                T::default()
            }
        }
    }

    /// A `message` attribute: `$(string.Id)` resolved, other text as is. A string the table
    /// lacks is a warning (no message); one past the copy budget an error (its message left
    /// out).
    fn message(&self, node: Node<'_, '_>, attr: &str) -> Option<String> {
        let text = node.attribute(attr)?;
        let Some(id) = text
            .strip_prefix("$(string.")
            .and_then(|r| r.strip_suffix(')'))
        else {
            return Some(text.to_owned());
        };
        let Some(s) = self.strings.get(id) else {
            self.warn(
                node,
                format!(
                    "no string {} in the string table: the {attr} is left out",
                    quote(id)
                ),
            );
            return None;
        };
        let Some(left) = self.message_budget.get().checked_sub(s.len()) else {
            self.error(
                node,
                format!(
                    "string {} ({} bytes) is used so often that resolved messages would copy \
                     more than {MESSAGE_FACTOR} times the manifest's text: the {attr} is left out",
                    quote(id),
                    s.len()
                ),
            );
            return None;
        };
        self.message_budget.set(left);
        Some(s.clone())
    }

    /// A level, opcode or keyword: `None` (with an error) when its name or value is bad.
    fn named<T: TryFrom<u64>>(
        &self,
        node: Node<'_, '_>,
        attr: &str,
        what: &str,
    ) -> Option<NamedValue<T>> {
        let read = || -> Result<(String, T), Why> {
            Ok((required(node, "name")?.to_owned(), number(node, attr)?))
        };
        match read() {
            Ok((name, value)) => Some(NamedValue {
                name,
                value,
                symbol: node.attribute("symbol").map(str::to_owned),
                message: self.message(node, "message"),
            }),
            Err(why) => {
                self.error(node, format!("{why}: the {what} is left out"));
                None
            }
        }
    }

    /// One `provider`: `None` when it has no usable GUID (an error says so); an error
    /// ([`Error`]) only when the provider cannot be read one way.
    fn provider(&self, p: Node<'_, '_>) -> Result<Option<Provider>, Error> {
        self.aliased.borrow_mut().clear();
        let guid = match required(p, "guid").and_then(|g| {
            g.parse::<Guid>()
                .map_err(|_| format!("guid={} is not a GUID", quote(g)))
        }) {
            Ok(g) => g,
            Err(why) => {
                self.error(p, format!("{why}: the provider is left out"));
                return Ok(None);
            }
        };
        let name = match p.attribute("name") {
            Some(n) => n.to_owned(),
            None => {
                self.warn(
                    p,
                    "missing attribute name: the provider is named by its GUID".into(),
                );
                guid.to_string()
            }
        };
        let mut provider = Provider {
            name,
            guid,
            symbol: p.attribute("symbol").map(str::to_owned),
            message: self.message(p, "message"),
            ..Provider::default()
        };
        for l in grouped(p, "levels", "level") {
            let Some(level) = self.named::<u8>(l, "value", "level") else {
                continue;
            };
            if level.value < 16 {
                self.error(
                    l,
                    format!(
                        "a provider level's value must be 16-255, not {}: the level is left out",
                        level.value
                    ),
                );
                continue;
            }
            provider.levels.push(level);
        }
        for o in grouped(p, "opcodes", "opcode") {
            provider.opcodes.extend(self.named(o, "value", "opcode"));
        }
        for k in grouped(p, "keywords", "keyword") {
            let Some(kw) = self.named::<u64>(k, "mask", "keyword") else {
                continue;
            };
            if kw.value.count_ones() != 1 || kw.value >> 48 != 0 {
                self.error(
                    k,
                    format!(
                        "a keyword mask must be one bit in bits 0-47, not {:#x}: the keyword \
                         is left out",
                        kw.value
                    ),
                );
                continue;
            }
            provider.keywords.push(kw);
        }
        for t in grouped(p, "tasks", "task") {
            let Some(task) = self.named::<u16>(t, "value", "task") else {
                continue;
            };
            let event_guid = t.attribute("eventGUID").and_then(|g| match g.parse() {
                Ok(g) => Some(g),
                Err(_) => {
                    self.warn(
                        t,
                        format!("eventGUID={} is not a GUID: the task has none", quote(g)),
                    );
                    None
                }
            });
            let opcodes = grouped(t, "opcodes", "opcode")
                .filter_map(|o| self.named(o, "value", "opcode"))
                .collect();
            provider.tasks.push(TaskDef {
                name: task.name,
                value: task.value,
                symbol: task.symbol,
                event_guid,
                message: task.message,
                opcodes,
            });
        }
        self.channels(p, &mut provider);
        self.maps(p, &mut provider);
        let map_names: HashSet<&str> = provider.maps.iter().map(|m| m.name.as_str()).collect();
        let mut tids: HashMap<String, u32> = HashMap::new();
        let mut templates = Vec::new();
        let mut left_out = Vec::new();
        for t in grouped(p, "templates", "template") {
            let Some(tid) = t.attribute("tid") else {
                self.error(
                    t,
                    "missing attribute tid: the template is left out (no event can name it)".into(),
                );
                continue;
            };
            if let Some(line) = tids.get(tid) {
                return Err(self.refuse(
                    t,
                    format!(
                        "template tid {} is already defined on line {line}: events using it \
                         could be read either way",
                        quote(tid)
                    ),
                ));
            }
            tids.insert(tid.to_owned(), self.line(t));
            match self.template(t, &map_names) {
                Ok(items) => templates.push(Template {
                    tid: tid.to_owned(),
                    items,
                }),
                Err((node, why)) => {
                    let d = self.error(
                        node,
                        format!(
                            "{why}: template {} is left out, and the payloads of the events \
                             that use it cannot be decoded",
                            quote(tid)
                        ),
                    );
                    left_out.push((tid.to_owned(), d));
                }
            }
        }
        provider.templates = templates;
        provider.left_out_templates = left_out;
        let names = Names::of(&provider);
        let mut ids: HashMap<(u16, u8), u32> = HashMap::new();
        let mut events = Vec::new();
        for e in grouped(p, "events", "event") {
            let event = match self.event(e, &names, &tids) {
                Ok(event) => event,
                Err(why) => {
                    self.error(e, format!("{why}: the event is left out"));
                    continue;
                }
            };
            if let Some(line) = ids.get(&(event.id, event.version)) {
                return Err(self.refuse(
                    e,
                    format!(
                        "event {} version {} is already defined on line {line}: its records \
                         could be read either way",
                        event.id, event.version
                    ),
                ));
            }
            ids.insert((event.id, event.version), self.line(e));
            events.push(event);
        }
        provider.events = events;
        Ok(Some(provider))
    }

    fn channels(&self, p: Node<'_, '_>, provider: &mut Provider) {
        let mut next_value = 16u8;
        for c in children(p, "channels").flat_map(|g| g.children().filter(Node::is_element)) {
            let imported = match c.tag_name().name() {
                "channel" => false,
                "importChannel" => true,
                _ => continue,
            };
            let mut read = || -> Result<(String, u8), Why> {
                let name = required(c, "name")?.to_owned();
                let value = match optional_number::<u8>(c, "value")? {
                    Some(v) => v,
                    None => match win_lookup(WIN_CHANNELS, &name) {
                        Some(v) => v,
                        None if imported => {
                            return Err(format!("unknown imported channel {}", quote(&name)));
                        }
                        None => {
                            let v = next_value;
                            next_value = next_value.saturating_add(1);
                            v
                        }
                    },
                };
                Ok((name, value))
            };
            let (name, value) = match read() {
                Ok(v) => v,
                Err(why) => {
                    self.error(c, format!("{why}: the channel is left out"));
                    continue;
                }
            };
            if provider.channels.len() == 8 {
                self.error(
                    c,
                    "a provider has at most 8 channels (EVT-25): this one is left out".into(),
                );
                continue;
            }
            provider.channels.push(ChannelDef {
                chid: c.attribute("chid").unwrap_or(&name).to_owned(),
                name,
                value,
                kind: c.attribute("type").map(str::to_owned),
                symbol: c.attribute("symbol").map(str::to_owned),
                enabled: c.attribute("enabled") == Some("true"),
                message: self.message(c, "message"),
            });
        }
    }

    fn maps(&self, p: Node<'_, '_>, provider: &mut Provider) {
        for m in children(p, "maps").flat_map(|g| g.children().filter(Node::is_element)) {
            let kind = match m.tag_name().name() {
                "valueMap" => MapKind::Value,
                "bitMap" => MapKind::Bits,
                _ => continue,
            };
            let name = match required(m, "name") {
                Ok(n) => n.to_owned(),
                Err(why) => {
                    self.error(
                        m,
                        format!("{why}: the map is left out (no field can name it)"),
                    );
                    continue;
                }
            };
            let mut entries = Vec::new();
            for e in children(m, "map") {
                match number::<u64>(e, "value") {
                    Ok(value) => {
                        let text = self
                            .message(e, "message")
                            .unwrap_or_else(|| value.to_string());
                        entries.push((value, text));
                    }
                    Err(why) => {
                        self.error(
                            e,
                            format!("{why}: the entry is left out of map {}", quote(&name)),
                        );
                    }
                }
            }
            provider.maps.push(MapDef {
                name,
                kind,
                entries,
            });
        }
    }

    /// A `data` element (a template item or a struct member).
    fn data<'a, 'i>(&self, d: Node<'a, 'i>) -> Result<DataDef, (Node<'a, 'i>, Why)> {
        let name = required(d, "name").map_err(|w| (d, w))?.to_owned();
        let in_name = required(d, "inType").map_err(|w| (d, w))?;
        let in_type = match InType::resolve(in_name) {
            Some((t, alias)) => {
                if let Some(canonical) = alias {
                    self.alias(d, "inType", in_name, canonical);
                }
                t
            }
            None => return Err((d, format!("unknown inType {}", quote(in_name)))),
        };
        let out_type = d
            .attribute("outType")
            .and_then(|o| match OutType::resolve(o) {
                Some((t, alias)) => {
                    if let Some(canonical) = alias {
                        self.alias(d, "outType", o, canonical);
                    }
                    Some(t)
                }
                None => {
                    self.warn(
                        d,
                        format!(
                            "unknown outType {}: field {} is shown as its inType {in_name} shows",
                            quote(o),
                            quote(&name)
                        ),
                    );
                    None
                }
            });
        let length = param(d, "length").map_err(|w| (d, w))?;
        // TDH: a binary without a length is 16 bytes with win:IPv6, otherwise invalid.
        if in_type == InType::BINARY && length.is_none() && out_type != Some(OutType::IPV6) {
            return Err((
                d,
                format!("win:Binary field {} needs a length", quote(&name)),
            ));
        }
        Ok(DataDef {
            name,
            in_type,
            out_type,
            count: param(d, "count").map_err(|w| (d, w))?,
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
                    format!(
                        "map {} is not defined: the field shows as a plain number",
                        quote(m)
                    ),
                );
            }
        }
    }

    /// A `count` or `length` naming a field: it must name an earlier integer field of one of
    /// `scopes` (the struct's own members first, then the template's items), exactly or —
    /// as manifest dumps write names with spaces the fields lost (`SHA1 Hash Size` for
    /// `SHA1HashSize`) — once spaces are ignored; then it is rewritten to that field's name,
    /// with a warning.
    fn check_ref(
        &self,
        node: Node<'_, '_>,
        attr: &'static str,
        p: &mut Option<Param>,
        scopes: &[&[Earlier]],
        whose: &str,
    ) -> Result<(), Why> {
        let Some(Param::Field(f)) = p else {
            return Ok(());
        };
        let found = |eq: &dyn Fn(&str) -> bool| {
            scopes
                .iter()
                .find_map(|s| s.iter().rev().find(|(n, _)| eq(n)))
        };
        let squeezed = |s: &str| s.split_whitespace().collect::<String>();
        let hit = found(&|n| n == f).or_else(|| {
            let want = squeezed(f);
            found(&|n| squeezed(n) == want)
        });
        match hit {
            Some((n, true)) => {
                if n != f {
                    self.warn(
                        node,
                        format!("{attr} {} is read as field {}", quote(f), quote(n)),
                    );
                    *f = n.clone();
                }
                Ok(())
            }
            Some((n, false)) => Err(format!(
                "{attr} {} names field {}, which is not one integer",
                quote(f),
                quote(n)
            )),
            None => Err(format!(
                "{attr} {} names no earlier integer field of {whose}",
                quote(f)
            )),
        }
    }

    /// A template's items, or the element that makes it unusable and why.
    fn template<'a, 'i>(
        &self,
        t: Node<'a, 'i>,
        maps: &HashSet<&str>,
    ) -> Result<Vec<Item>, (Node<'a, 'i>, Why)> {
        let mut items = Vec::new();
        let mut top: Vec<Earlier> = Vec::new();
        for c in t.children().filter(Node::is_element) {
            match c.tag_name().name() {
                "data" => {
                    let mut d = self.data(c)?;
                    self.check_map(c, &d, maps);
                    let whose = "the template";
                    self.check_ref(c, "count", &mut d.count, &[&top], whose)
                        .map_err(|w| (c, w))?;
                    self.check_ref(c, "length", &mut d.length, &[&top], whose)
                        .map_err(|w| (c, w))?;
                    top.push((d.name.clone(), d.in_type.is_integer() && d.count.is_none()));
                    items.push(Item::Data(d));
                }
                "struct" => {
                    let s = self.structure(c, &top, maps)?;
                    top.push((s.name.clone(), false));
                    items.push(Item::Struct(s));
                }
                _ => {}
            }
        }
        Ok(items)
    }

    /// A `struct`: its members may take counts and lengths from earlier members of the same
    /// struct or from earlier template items.
    fn structure<'a, 'i>(
        &self,
        c: Node<'a, 'i>,
        top: &[Earlier],
        maps: &HashSet<&str>,
    ) -> Result<StructDef, (Node<'a, 'i>, Why)> {
        let name = required(c, "name").map_err(|w| (c, w))?.to_owned();
        let mut count = param(c, "count").map_err(|w| (c, w))?;
        self.check_ref(c, "count", &mut count, &[top], "the template")
            .map_err(|w| (c, w))?;
        let mut members = Vec::new();
        let mut own: Vec<Earlier> = Vec::new();
        for m in c.children().filter(Node::is_element) {
            match m.tag_name().name() {
                "data" => {}
                "struct" => {
                    return Err((m, "a struct inside a struct is not supported".into()));
                }
                _ => continue,
            }
            let mut d = self.data(m)?;
            self.check_map(m, &d, maps);
            let whose = "the struct or the template";
            self.check_ref(m, "count", &mut d.count, &[&own, top], whose)
                .map_err(|w| (m, w))?;
            self.check_ref(m, "length", &mut d.length, &[&own, top], whose)
                .map_err(|w| (m, w))?;
            own.push((d.name.clone(), d.in_type.is_integer() && d.count.is_none()));
            members.push(d);
        }
        Ok(StructDef {
            name,
            count,
            members,
        })
    }

    /// One `event`, or why it cannot be read (it is left out).
    fn event(
        &self,
        e: Node<'_, '_>,
        p: &Names<'_>,
        templates: &HashMap<String, u32>,
    ) -> Result<EventDef, Why> {
        let id = number(e, "value")?;
        let version = optional_number(e, "version")?.unwrap_or(0);
        let exact = |v: Option<u8>| v.map(|v| (v, None));
        let level = self.resolve_attr(e, "level", |n| {
            exact(p.levels.get(n).copied())
                .or_else(|| win_resolve(WIN_LEVELS, WIN_LEVEL_ALIASES, n))
        });
        let task = self.resolve_attr(e, "task", |n| {
            p.tasks
                .get(n)
                .map(|v| (*v, None))
                .or_else(|| win_resolve(WIN_TASKS, &[], n))
        });
        let opcode = self.resolve_attr(e, "opcode", |n| {
            exact(
                p.task_opcodes
                    .get(&(task, n))
                    .or_else(|| p.opcodes.get(n))
                    .copied(),
            )
            .or_else(|| win_resolve(WIN_OPCODES, &[], n))
        });
        let channel = self.resolve_attr(e, "channel", |n| exact(p.channels.get(n).copied()));
        let keyword_names: Vec<String> = e
            .attribute("keywords")
            .map(|k| k.split_whitespace().map(str::to_owned).collect())
            .unwrap_or_default();
        let mut keywords = 0;
        for k in &keyword_names {
            let found = p
                .keywords
                .get(k.as_str())
                .map(|m| (*m, None))
                .or_else(|| win_resolve(WIN_KEYWORDS, &[], k));
            match found {
                Some((mask, alias)) => {
                    if let Some(canonical) = alias {
                        self.alias(e, "keyword", k, canonical);
                    }
                    keywords |= mask;
                }
                None => self.warn(
                    e,
                    match too_wide(k) {
                        Some(why) => format!("keyword {why}: it is left out of the event's mask"),
                        None => format!(
                            "keyword {} is not defined: it is left out of the event's mask",
                            quote(k)
                        ),
                    },
                ),
            }
        }
        let template = e.attribute("template").map(str::to_owned);
        if let Some(t) = &template {
            if !templates.contains_key(t) {
                self.error(
                    e,
                    format!(
                        "template {} is not defined: the event is kept, but its payload \
                         cannot be decoded",
                        quote(t)
                    ),
                );
            }
        }
        Ok(EventDef {
            id,
            version,
            level,
            task,
            opcode,
            keywords,
            keyword_names,
            channel,
            template,
            message: self.message(e, "message"),
            symbol: e.attribute("symbol").map(str::to_owned),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_count_line_feeds_before_the_offset() {
        let l = Lines::new("a\nbc\n\nd");
        assert_eq!([0, 1, 2, 4, 5, 6].map(|p| l.line(p)), [1, 1, 2, 2, 3, 4]);
    }

    #[test]
    fn quotes_are_cut() {
        assert_eq!(quote("ab"), "\"ab\"");
        let long = "é".repeat(200);
        let q = quote(&long);
        assert_eq!(q.chars().count(), QUOTE_CHARS + 3);
        assert!(q.ends_with("\"…"));
    }
}
