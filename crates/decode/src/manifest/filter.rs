//! Payload filters (FLT-18): the pure evaluation of what `TdhCreatePayloadFilter` and
//! `TdhAggregatePayloadFilters` build, against a decoded manifest event's fields.
//!
//! A [`PayloadFilter`] binds up to [`MAX_PAYLOAD_PREDICATES`] predicates to one manifest
//! event (provider, id, version) and says whether any or all of them must hold. Creating it
//! checks what TDH checks: each predicate's field is a top-level field of the event's
//! template, the operator is a documented one (PAYLOADFIELD_INVALID and unknown numbers are
//! refused), integer operators name integer fields and carry numeric values (two for
//! BETWEEN / NOTBETWEEN, comma-separated), string operators name string fields.
//!
//! An [`AggregateFilter`] combines filters of one provider. Simulator choices (the
//! documentation leaves them open): an event no filter is bound to passes; among the filters
//! bound to an event, those flagged match-all must all pass and, if any are not flagged, at
//! least one of those must pass. String comparisons are exact (case-sensitive).
//!
//! A filter keeps the event's template, so it can judge a raw payload on its own
//! ([`AggregateFilter::passes_payload`]) — what the kernel does after an event is written,
//! without the manifest — and travels as bytes ([`AggregateFilter::to_bytes`], the data of an
//! `EVENT_FILTER_DESCRIPTOR` of type PAYLOAD; layout at [`PAYLOAD_FILTER_MAGIC`]), which
//! [`AggregateFilter::parse`] reads back with every check of [`PayloadFilter::new`].

use super::{
    DataDef, EventDef, InType, Item, MAX_PARAM, OutType, Param, Provider, StructDef, Template,
    parse_number,
};
use crate::Error;
use crate::fields::{Field, Value, find};
use etwsim_types::Guid;

/// `MAX_PAYLOAD_PREDICATES`: predicates in one filter.
pub const MAX_PAYLOAD_PREDICATES: usize = 8;

/// `PAYLOAD_OPERATOR`: the comparison of one predicate.
#[doc(alias = "PAYLOAD_OPERATOR")]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PayloadOperator {
    /// `PAYLOADFIELD_EQ` (0): integer equal.
    Eq,
    /// `PAYLOADFIELD_NE` (1): integer not equal.
    Ne,
    /// `PAYLOADFIELD_LE` (2).
    Le,
    /// `PAYLOADFIELD_GT` (3).
    Gt,
    /// `PAYLOADFIELD_LT` (4).
    Lt,
    /// `PAYLOADFIELD_GE` (5).
    Ge,
    /// `PAYLOADFIELD_BETWEEN` (6): `low <= field <= high`, value `"low,high"`.
    Between,
    /// `PAYLOADFIELD_NOTBETWEEN` (7).
    NotBetween,
    /// `PAYLOADFIELD_MODULO` (8): the field is a multiple of the value (periodic sampling).
    Modulo,
    /// `PAYLOADFIELD_CONTAINS` (20): the string field contains the value.
    Contains,
    /// `PAYLOADFIELD_DOESNTCONTAIN` (21).
    DoesntContain,
    /// `PAYLOADFIELD_IS` (30): the field, as text, is the value.
    Is,
    /// `PAYLOADFIELD_ISNOT` (31).
    IsNot,
}

impl PayloadOperator {
    /// `PAYLOADFIELD_INVALID` (32): never accepted.
    pub const INVALID: u16 = 32;

    /// Every operator, in number order.
    pub const ALL: [PayloadOperator; 13] = [
        PayloadOperator::Eq,
        PayloadOperator::Ne,
        PayloadOperator::Le,
        PayloadOperator::Gt,
        PayloadOperator::Lt,
        PayloadOperator::Ge,
        PayloadOperator::Between,
        PayloadOperator::NotBetween,
        PayloadOperator::Modulo,
        PayloadOperator::Contains,
        PayloadOperator::DoesntContain,
        PayloadOperator::Is,
        PayloadOperator::IsNot,
    ];

    /// The operator's number.
    pub const fn code(self) -> u16 {
        match self {
            PayloadOperator::Eq => 0,
            PayloadOperator::Ne => 1,
            PayloadOperator::Le => 2,
            PayloadOperator::Gt => 3,
            PayloadOperator::Lt => 4,
            PayloadOperator::Ge => 5,
            PayloadOperator::Between => 6,
            PayloadOperator::NotBetween => 7,
            PayloadOperator::Modulo => 8,
            PayloadOperator::Contains => 20,
            PayloadOperator::DoesntContain => 21,
            PayloadOperator::Is => 30,
            PayloadOperator::IsNot => 31,
        }
    }

    fn is_integer(self) -> bool {
        self.code() <= 8
    }
}

impl TryFrom<u16> for PayloadOperator {
    type Error = Error;

    /// # Errors
    /// [`Error::Filter`] for PAYLOADFIELD_INVALID (32) and numbers no operator has.
    fn try_from(code: u16) -> Result<PayloadOperator, Error> {
        PayloadOperator::ALL
            .into_iter()
            .find(|op| op.code() == code)
            .ok_or_else(|| {
                Error::Filter(format!("CompareOp {code} is not a valid payload operator"))
            })
    }
}

/// `PAYLOAD_FILTER_PREDICATE`: field name, operator, value text.
#[doc(alias = "PAYLOAD_FILTER_PREDICATE")]
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Predicate {
    /// `FieldName`: a top-level field of the event's template.
    pub field: String,
    /// `CompareOp`.
    pub op: PayloadOperator,
    /// `Value`: one number, two comma-separated numbers, or text.
    pub value: String,
}

impl Predicate {
    /// A predicate.
    pub fn new(
        field: impl Into<String>,
        op: PayloadOperator,
        value: impl Into<String>,
    ) -> Predicate {
        Predicate {
            field: field.into(),
            op,
            value: value.into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Operand {
    Int(i128),
    Range(i128, i128),
    Text(String),
}

#[derive(Clone, Debug, PartialEq)]
struct Compiled {
    field: String,
    op: PayloadOperator,
    operand: Operand,
}

/// One event's payload filter: what `TdhCreatePayloadFilter` builds.
#[doc(alias = "TdhCreatePayloadFilter")]
#[derive(Clone, Debug, PartialEq)]
pub struct PayloadFilter {
    provider: Guid,
    id: u16,
    version: u8,
    match_any: bool,
    /// The predicates as given (the wire form keeps them).
    given: Vec<Predicate>,
    predicates: Vec<Compiled>,
    /// The event's template: the filter decodes payloads with it, without the manifest.
    template: Option<Template>,
}

fn filter_err(message: impl Into<String>) -> Error {
    Error::Filter(message.into())
}

fn integer(text: &str) -> Option<i128> {
    let t = text.trim();
    match t.strip_prefix('-') {
        Some(rest) => parse_number(rest).map(|v| -i128::from(v)),
        None => parse_number(t).map(i128::from),
    }
}

impl PayloadFilter {
    /// Builds the filter of `event` of `provider`: `match_any` = EventMatchANY (any predicate
    /// suffices) or all must hold.
    ///
    /// # Errors
    /// [`Error::Filter`] for no predicates or more than eight, a template with a fixed
    /// count or length above [`MAX_PARAM`], a field the template does not have at top level, an integer operator on a non-integer field or with a value
    /// that is not a number (or not two for BETWEEN / NOTBETWEEN, or 0 for MODULO), a string
    /// operator on a non-string field.
    pub fn new(
        provider: &Provider,
        event: &EventDef,
        match_any: bool,
        predicates: &[Predicate],
    ) -> Result<PayloadFilter, Error> {
        PayloadFilter::bind(
            provider.guid,
            event.id,
            event.version,
            provider.template_of(event).cloned(),
            match_any,
            predicates,
        )
    }

    /// The checks of [`new`](Self::new) against a template (`None`: an event without
    /// payload fields), and the filter.
    fn bind(
        provider: Guid,
        id: u16,
        version: u8,
        template: Option<Template>,
        match_any: bool,
        predicates: &[Predicate],
    ) -> Result<PayloadFilter, Error> {
        if predicates.is_empty() || predicates.len() > MAX_PAYLOAD_PREDICATES {
            return Err(filter_err(format!(
                "{} predicates (1-{MAX_PAYLOAD_PREDICATES} allowed)",
                predicates.len()
            )));
        }
        let items = template.as_ref().map_or(&[][..], |t| &t.items[..]);
        check_params(items)?;
        let compiled = predicates
            .iter()
            .map(|p| compile(items, id, version, p))
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(PayloadFilter {
            provider,
            id,
            version,
            match_any,
            given: predicates.to_vec(),
            predicates: compiled,
            template,
        })
    }

    /// The provider GUID the filter belongs to.
    pub fn provider(&self) -> Guid {
        self.provider
    }

    /// The event (id, version) the filter is bound to.
    pub fn event(&self) -> (u16, u8) {
        (self.id, self.version)
    }

    /// `EventMatchANY`: any predicate suffices (`true`) or all must hold.
    pub fn match_any(&self) -> bool {
        self.match_any
    }

    /// The predicates, as given.
    pub fn predicates(&self) -> &[Predicate] {
        &self.given
    }

    /// The template the filter decodes payloads with (`None`: the event has no fields).
    pub fn template(&self) -> Option<&Template> {
        self.template.as_ref()
    }

    /// Whether this filter is bound to event (`id`, `version`) of `provider`.
    pub fn applies_to(&self, provider: Guid, id: u16, version: u8) -> bool {
        (self.provider, self.id, self.version) == (provider, id, version)
    }

    /// Whether the decoded `fields` satisfy the filter (any or all predicates). A field
    /// missing from `fields` fails its predicate.
    pub fn matches(&self, fields: &[Field]) -> bool {
        let mut results = self.predicates.iter().map(|p| p.holds(fields));
        if self.match_any {
            results.any(|r| r)
        } else {
            results.all(|r| r)
        }
    }
}

/// Refuses a template whose fixed counts or lengths TDH could not carry (more than
/// [`MAX_PARAM`], DEC-17), as the manifest loader does: the filter decodes payloads with it.
fn check_params(items: &[Item]) -> Result<(), Error> {
    let fixed = |p: &Option<Param>| match p {
        Some(Param::Fixed(n)) if *n > MAX_PARAM => Some(*n),
        _ => None,
    };
    let data = |d: &DataDef, path: String| match fixed(&d.count).or_else(|| fixed(&d.length)) {
        Some(n) => Err(filter_err(format!(
            "template field {path:?} has a fixed count or length of {n}, more than {MAX_PARAM}"
        ))),
        None => Ok(()),
    };
    for item in items {
        match item {
            Item::Data(d) => data(d, d.name.clone())?,
            Item::Struct(s) => {
                if let Some(n) = fixed(&s.count) {
                    return Err(filter_err(format!(
                        "template struct {:?} has a fixed count of {n}, more than {MAX_PARAM}",
                        s.name
                    )));
                }
                for m in &s.members {
                    data(m, format!("{}.{}", s.name, m.name))?;
                }
            }
        }
    }
    Ok(())
}

/// Checks one predicate against the template's top-level items and compiles its operand.
fn compile(items: &[Item], id: u16, version: u8, p: &Predicate) -> Result<Compiled, Error> {
    let data = items
        .iter()
        .find_map(|i| match i {
            Item::Data(d) if d.name == p.field && d.count.is_none() => Some(d),
            _ => None,
        })
        .ok_or_else(|| {
            filter_err(format!(
                "event {id} version {version} has no top-level field {:?}",
                p.field
            ))
        })?;
    let bad_value = || {
        filter_err(format!(
            "{:?}: value {:?} does not suit {:?}",
            p.field, p.value, p.op
        ))
    };
    let operand = if p.op.is_integer() {
        if !data.in_type.is_integer() {
            return Err(filter_err(format!(
                "{:?} is not an integer field; {:?} compares integers",
                p.field, p.op
            )));
        }
        match p.op {
            PayloadOperator::Between | PayloadOperator::NotBetween => {
                let (a, b) = p.value.split_once(',').ok_or_else(bad_value)?;
                Operand::Range(
                    integer(a).ok_or_else(bad_value)?,
                    integer(b).ok_or_else(bad_value)?,
                )
            }
            PayloadOperator::Modulo => match integer(&p.value) {
                Some(0) | None => return Err(bad_value()),
                Some(n) => Operand::Int(n),
            },
            _ => Operand::Int(integer(&p.value).ok_or_else(bad_value)?),
        }
    } else {
        let string_op = matches!(
            p.op,
            PayloadOperator::Contains | PayloadOperator::DoesntContain
        );
        if string_op && !data.in_type.is_string() {
            return Err(filter_err(format!(
                "{:?} is not a string field; {:?} compares strings",
                p.field, p.op
            )));
        }
        Operand::Text(p.value.clone())
    };
    Ok(Compiled {
        field: p.field.clone(),
        op: p.op,
        operand,
    })
}

fn text_of(v: &Value) -> String {
    v.as_text().unwrap_or_else(|| v.to_string())
}

impl Compiled {
    fn holds(&self, fields: &[Field]) -> bool {
        let Some(value) = find(fields, &self.field) else {
            return false;
        };
        use PayloadOperator as Op;
        match (&self.operand, self.op) {
            (Operand::Int(n), op) => {
                let Some(v) = value.as_i128() else {
                    return false;
                };
                match op {
                    Op::Eq => v == *n,
                    Op::Ne => v != *n,
                    Op::Le => v <= *n,
                    Op::Gt => v > *n,
                    Op::Lt => v < *n,
                    Op::Ge => v >= *n,
                    Op::Modulo => v % *n == 0,
                    _ => false,
                }
            }
            (Operand::Range(lo, hi), op) => {
                let Some(v) = value.as_i128() else {
                    return false;
                };
                let inside = *lo <= v && v <= *hi;
                if op == Op::Between { inside } else { !inside }
            }
            (Operand::Text(t), Op::Contains) => {
                value.as_text().is_some_and(|s| s.contains(t.as_str()))
            }
            (Operand::Text(t), Op::DoesntContain) => {
                value.as_text().is_some_and(|s| !s.contains(t.as_str()))
            }
            (Operand::Text(t), Op::Is) => same_text(value, t),
            (Operand::Text(t), Op::IsNot) => !same_text(value, t),
            (Operand::Text(_), _) => false,
        }
    }
}

/// IS / ISNOT: text compared exactly; a GUID also matches its other spellings.
fn same_text(value: &Value, t: &str) -> bool {
    match value {
        Value::Guid(g) => t.parse::<Guid>().is_ok_and(|x| x == *g),
        v => text_of(v) == t,
    }
}

/// Several payload filters of one provider: what `TdhAggregatePayloadFilters` builds.
#[doc(alias = "TdhAggregatePayloadFilters")]
#[derive(Clone, Debug, PartialEq)]
pub struct AggregateFilter {
    provider: Guid,
    filters: Vec<(PayloadFilter, bool)>,
}

impl AggregateFilter {
    /// Combines `filters`, each with its EventMatchALLFlags entry (`true`: this filter must
    /// pass for the events it is bound to).
    ///
    /// # Errors
    /// [`Error::Filter`] for no filters or filters of different providers.
    pub fn new(filters: Vec<(PayloadFilter, bool)>) -> Result<AggregateFilter, Error> {
        let provider = filters
            .first()
            .map(|(f, _)| f.provider)
            .ok_or_else(|| filter_err("no filters to aggregate"))?;
        if filters.iter().any(|(f, _)| f.provider != provider) {
            return Err(filter_err("aggregated filters must belong to one provider"));
        }
        Ok(AggregateFilter { provider, filters })
    }

    /// The provider GUID every filter belongs to.
    pub fn provider(&self) -> Guid {
        self.provider
    }

    /// The filters with their EventMatchALLFlags entries.
    pub fn filters(&self) -> &[(PayloadFilter, bool)] {
        &self.filters
    }

    /// Whether some filter is bound to event (`id`, `version`) of `provider`: only such an
    /// event is decoded and judged.
    pub fn applies_to(&self, provider: Guid, id: u16, version: u8) -> bool {
        self.filters
            .iter()
            .any(|(f, _)| f.applies_to(provider, id, version))
    }

    /// Whether event (`id`, `version`) of `provider` with decoded `fields` passes.
    pub fn passes(&self, provider: Guid, id: u16, version: u8, fields: &[Field]) -> bool {
        self.combine(provider, id, version, |f| f.matches(fields))
    }

    /// Whether event (`id`, `version`) of `provider` with this `payload` passes: what ETW does
    /// after the event is written (FLT-18). The payload is decoded with the filters' own
    /// templates (`pointer_size` 4 or 8 sizes `win:Pointer`), once per distinct template; a
    /// payload the template cannot decode has no fields, so its predicates fail.
    pub fn passes_payload(
        &self,
        provider: Guid,
        id: u16,
        version: u8,
        payload: &[u8],
        pointer_size: u8,
    ) -> bool {
        let mut decoded: Vec<(Option<&Template>, Vec<Field>)> = Vec::new();
        self.combine(provider, id, version, |f| {
            let template = f.template.as_ref();
            let at = match decoded.iter().position(|(t, _)| *t == template) {
                Some(i) => i,
                None => {
                    let fields = template
                        .and_then(|t| t.decode(payload, pointer_size).ok())
                        .unwrap_or_default();
                    decoded.push((template, fields));
                    decoded.len() - 1
                }
            };
            f.matches(&decoded[at].1)
        })
    }

    /// The rule of EventMatchALLFlags over the filters bound to the event: flagged filters
    /// must all match; of the unflagged ones, one must (an event no filter is bound to
    /// passes).
    fn combine<'s>(
        &'s self,
        provider: Guid,
        id: u16,
        version: u8,
        mut matches: impl FnMut(&'s PayloadFilter) -> bool,
    ) -> bool {
        if provider != self.provider {
            return true;
        }
        let mut any_group = false;
        let mut any_ok = false;
        for (f, all) in &self.filters {
            if !f.applies_to(provider, id, version) {
                continue;
            }
            if *all {
                if !matches(f) {
                    return false;
                }
            } else {
                any_group = true;
                any_ok = any_ok || matches(f);
            }
        }
        !any_group || any_ok
    }

    /// The filter's bytes: what `TdhAggregatePayloadFilters` points an
    /// `EVENT_FILTER_DESCRIPTOR` of type PAYLOAD at, and what EnableTraceEx2 reads back with
    /// [`parse`](Self::parse). Windows's layout is opaque (TDH builds it, the kernel reads it);
    /// etwsim's is its own, documented at [`PAYLOAD_FILTER_MAGIC`]. Like Windows's, it carries
    /// what decoding needs — each filter's template — so the kernel evaluates it without the
    /// manifest.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Vec::new();
        w.extend_from_slice(&PAYLOAD_FILTER_MAGIC);
        w.extend_from_slice(&WIRE_VERSION.to_le_bytes());
        put_u16(&mut w, self.filters.len());
        for (f, all) in &self.filters {
            w.push(u8::from(*all));
            let bytes = f.to_bytes();
            put_u16(&mut w, bytes.len());
            w.extend_from_slice(&bytes);
        }
        w
    }

    /// Reads [`to_bytes`](Self::to_bytes)'s form back, checking every filter as
    /// [`PayloadFilter::new`] does against the template it carries.
    ///
    /// # Errors
    /// [`Error::Filter`] for bytes that are not such a filter (wrong magic or version,
    /// truncated, trailing bytes, names that are not UTF-8, an unknown operator…) or whose
    /// filters [`new`](Self::new) or [`PayloadFilter::new`] would refuse. Never panics.
    pub fn parse(bytes: &[u8]) -> Result<AggregateFilter, Error> {
        let mut r = Reader::new(bytes);
        if r.take(4)? != PAYLOAD_FILTER_MAGIC {
            return Err(r.bad("not an etwsim payload filter (magic)"));
        }
        let version = r.u16()?;
        if version != WIRE_VERSION {
            return Err(r.bad(format!(
                "wire version {version}, only {WIRE_VERSION} is known"
            )));
        }
        let count = r.u16()?;
        let mut filters = Vec::with_capacity(usize::from(count).min(64));
        for _ in 0..count {
            let all = r.flag()?;
            let len = usize::from(r.u16()?);
            let at = r.at;
            let f = PayloadFilter::parse(r.take(len)?)
                .map_err(|e| filter_err(format!("filter at byte {at}: {e}")))?;
            filters.push((f, all));
        }
        r.end()?;
        AggregateFilter::new(filters)
    }
}

/// The first four bytes of an aggregated payload filter in etwsim's wire form (the project's
/// own layout; Windows's is opaque). All integers little-endian, strings UTF-8 with a NUL:
///
/// ```text
/// aggregate: "ETPF", u16 version (1), u16 filter count, per filter: u8 EventMatchALL flag,
///            u16 length, the filter
/// filter:    GUID (16, Windows byte order), u16 event id, u8 event version, u8 EventMatchANY,
///            u8 predicate count, per predicate: u16 CompareOp, FieldName, Value;
///            u8 has template, then: tid, u16 item count, the items
/// item:      u8 kind (0 data, 1 struct); data: name, u16 inType, u8 has outType + u16,
///            count, length, u8 has map + name; struct: name, count, u16 member count, members
/// count, length: u8 kind (0 none, 1 fixed + u32, 2 an earlier field's name)
/// ```
pub const PAYLOAD_FILTER_MAGIC: [u8; 4] = *b"ETPF";

const WIRE_VERSION: u16 = 1;

/// A length or count known to fit 16 bits here (the blob is at most 4,096 bytes in use;
/// larger values saturate and fail EnableTraceEx2's size check anyway).
fn put_u16(w: &mut Vec<u8>, n: usize) {
    w.extend_from_slice(&u16::try_from(n).unwrap_or(u16::MAX).to_le_bytes());
}

fn put_str(w: &mut Vec<u8>, s: &str) {
    w.extend_from_slice(s.as_bytes());
    w.push(0);
}

fn put_param(w: &mut Vec<u8>, p: &Option<Param>) {
    match p {
        None => w.push(0),
        Some(Param::Fixed(n)) => {
            w.push(1);
            w.extend_from_slice(&n.to_le_bytes());
        }
        Some(Param::Field(name)) => {
            w.push(2);
            put_str(w, name);
        }
    }
}

fn put_data(w: &mut Vec<u8>, d: &DataDef) {
    put_str(w, &d.name);
    w.extend_from_slice(&d.in_type.0.to_le_bytes());
    match d.out_type {
        None => w.extend_from_slice(&[0, 0, 0]),
        Some(o) => {
            w.push(1);
            w.extend_from_slice(&o.0.to_le_bytes());
        }
    }
    put_param(w, &d.count);
    put_param(w, &d.length);
    match &d.map {
        None => w.push(0),
        Some(m) => {
            w.push(1);
            put_str(w, m);
        }
    }
}

/// Reads etwsim's payload-filter wire form; every failure is a [`Error::Filter`] with
/// the byte offset.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    fn bad(&self, problem: impl std::fmt::Display) -> Error {
        filter_err(format!(
            "malformed payload filter at byte {}: {problem}",
            self.at
        ))
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        match end {
            Some(end) => {
                let s = &self.bytes[self.at..end];
                self.at = end;
                Ok(s)
            }
            None => Err(self.bad(format!(
                "needs {n} bytes, {} left",
                self.bytes.len() - self.at
            ))),
        }
    }

    fn u8(&mut self) -> Result<u8, Error> {
        Ok(self.take(1)?[0])
    }

    fn flag(&mut self) -> Result<bool, Error> {
        match self.u8()? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(self.bad(format!("flag byte {b}"))),
        }
    }

    fn u16(&mut self) -> Result<u16, Error> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32, Error> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn str(&mut self) -> Result<String, Error> {
        let rest = &self.bytes[self.at..];
        let n = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| self.bad("a string without its NUL"))?;
        let s = std::str::from_utf8(&rest[..n])
            .map_err(|_| self.bad("a string that is not UTF-8"))?
            .to_owned();
        self.at += n + 1;
        Ok(s)
    }

    fn param(&mut self) -> Result<Option<Param>, Error> {
        Ok(match self.u8()? {
            0 => None,
            1 => Some(Param::Fixed(self.u32()?)),
            2 => Some(Param::Field(self.str()?)),
            k => return Err(self.bad(format!("count/length kind {k}"))),
        })
    }

    fn data(&mut self) -> Result<DataDef, Error> {
        let name = self.str()?;
        let in_type = InType(self.u16()?);
        let out_type = self.flag()?;
        let out = self.u16()?;
        Ok(DataDef {
            name,
            in_type,
            out_type: out_type.then_some(OutType(out)),
            count: self.param()?,
            length: self.param()?,
            map: if self.flag()? {
                Some(self.str()?)
            } else {
                None
            },
        })
    }

    fn template(&mut self) -> Result<Template, Error> {
        let tid = self.str()?;
        let count = self.u16()?;
        let mut items = Vec::with_capacity(usize::from(count).min(64));
        for _ in 0..count {
            items.push(match self.u8()? {
                0 => Item::Data(self.data()?),
                1 => {
                    let name = self.str()?;
                    let count = self.param()?;
                    let n = self.u16()?;
                    let members = (0..n).map(|_| self.data()).collect::<Result<_, _>>()?;
                    Item::Struct(StructDef {
                        name,
                        count,
                        members,
                    })
                }
                k => return Err(self.bad(format!("template item kind {k}"))),
            });
        }
        Ok(Template { tid, items })
    }

    fn end(&self) -> Result<(), Error> {
        if self.at == self.bytes.len() {
            Ok(())
        } else {
            Err(self.bad(format!(
                "{} bytes after the end",
                self.bytes.len() - self.at
            )))
        }
    }
}

impl PayloadFilter {
    /// The filter's bytes: what `TdhCreatePayloadFilter`'s opaque result holds in etwsim
    /// (the layout is at [`PAYLOAD_FILTER_MAGIC`]).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Vec::new();
        w.extend_from_slice(&self.provider.to_bytes_le());
        w.extend_from_slice(&self.id.to_le_bytes());
        w.push(self.version);
        w.push(u8::from(self.match_any));
        w.push(u8::try_from(self.given.len()).unwrap_or(u8::MAX));
        for p in &self.given {
            w.extend_from_slice(&p.op.code().to_le_bytes());
            put_str(&mut w, &p.field);
            put_str(&mut w, &p.value);
        }
        match &self.template {
            None => w.push(0),
            Some(t) => {
                w.push(1);
                put_str(&mut w, &t.tid);
                put_u16(&mut w, t.items.len());
                for item in &t.items {
                    match item {
                        Item::Data(d) => {
                            w.push(0);
                            put_data(&mut w, d);
                        }
                        Item::Struct(st) => {
                            w.push(1);
                            put_str(&mut w, &st.name);
                            put_param(&mut w, &st.count);
                            put_u16(&mut w, st.members.len());
                            for m in &st.members {
                                put_data(&mut w, m);
                            }
                        }
                    }
                }
            }
        }
        w
    }

    /// Reads [`to_bytes`](Self::to_bytes)'s form back, with [`new`](Self::new)'s checks
    /// against the template it carries.
    ///
    /// # Errors
    /// [`Error::Filter`], as [`AggregateFilter::parse`].
    pub fn parse(bytes: &[u8]) -> Result<PayloadFilter, Error> {
        let mut r = Reader::new(bytes);
        let guid: [u8; 16] = r.take(16)?.try_into().map_err(|_| r.bad("GUID"))?;
        let provider = Guid::from_bytes_le(guid);
        let id = r.u16()?;
        let version = r.u8()?;
        let match_any = r.flag()?;
        let n = r.u8()?;
        let mut predicates = Vec::with_capacity(usize::from(n));
        for _ in 0..n {
            let op = PayloadOperator::try_from(r.u16()?)?;
            let field = r.str()?;
            let value = r.str()?;
            predicates.push(Predicate { field, op, value });
        }
        let template = if r.flag()? { Some(r.template()?) } else { None };
        r.end()?;
        PayloadFilter::bind(provider, id, version, template, match_any, &predicates)
    }
}
