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

use super::{EventDef, Item, Provider, parse_number};
use crate::decode_error::DecodeError;
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
    pub fn code(self) -> u16 {
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
    type Error = DecodeError;

    /// # Errors
    /// [`DecodeError::Filter`] for PAYLOADFIELD_INVALID (32) and numbers no operator has.
    fn try_from(code: u16) -> Result<PayloadOperator, DecodeError> {
        PayloadOperator::ALL
            .into_iter()
            .find(|op| op.code() == code)
            .ok_or_else(|| {
                DecodeError::Filter(format!("CompareOp {code} is not a valid payload operator"))
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
    predicates: Vec<Compiled>,
}

fn filter_err(message: impl Into<String>) -> DecodeError {
    DecodeError::Filter(message.into())
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
    /// [`DecodeError::Filter`] for no predicates or more than eight, a field the template
    /// does not have at top level, an integer operator on a non-integer field or with a value
    /// that is not a number (or not two for BETWEEN / NOTBETWEEN, or 0 for MODULO), a string
    /// operator on a non-string field.
    pub fn new(
        provider: &Provider,
        event: &EventDef,
        match_any: bool,
        predicates: &[Predicate],
    ) -> Result<PayloadFilter, DecodeError> {
        if predicates.is_empty() || predicates.len() > MAX_PAYLOAD_PREDICATES {
            return Err(filter_err(format!(
                "{} predicates (1-{MAX_PAYLOAD_PREDICATES} allowed)",
                predicates.len()
            )));
        }
        let items = provider
            .template_of(event)
            .map_or(&[][..], |t| &t.items[..]);
        let compiled = predicates
            .iter()
            .map(|p| {
                let data = items
                    .iter()
                    .find_map(|i| match i {
                        Item::Data(d) if d.name == p.field && d.count.is_none() => Some(d),
                        _ => None,
                    })
                    .ok_or_else(|| {
                        filter_err(format!(
                            "event {} version {} has no top-level field {:?}",
                            event.id, event.version, p.field
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
            })
            .collect::<Result<Vec<_>, DecodeError>>()?;
        Ok(PayloadFilter {
            provider: provider.guid,
            id: event.id,
            version: event.version,
            match_any,
            predicates: compiled,
        })
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
    /// [`DecodeError::Filter`] for no filters or filters of different providers.
    pub fn new(filters: Vec<(PayloadFilter, bool)>) -> Result<AggregateFilter, DecodeError> {
        let provider = filters
            .first()
            .map(|(f, _)| f.provider)
            .ok_or_else(|| filter_err("no filters to aggregate"))?;
        if filters.iter().any(|(f, _)| f.provider != provider) {
            return Err(filter_err("aggregated filters must belong to one provider"));
        }
        Ok(AggregateFilter { provider, filters })
    }

    /// Whether event (`id`, `version`) of `provider` with decoded `fields` passes.
    pub fn passes(&self, provider: Guid, id: u16, version: u8, fields: &[Field]) -> bool {
        if provider != self.provider {
            return true;
        }
        let bound: Vec<&(PayloadFilter, bool)> = self
            .filters
            .iter()
            .filter(|(f, _)| f.applies_to(provider, id, version))
            .collect();
        if bound.is_empty() {
            return true;
        }
        let all_ok = bound
            .iter()
            .filter(|(_, all)| *all)
            .all(|(f, _)| f.matches(fields));
        let any_group: Vec<_> = bound.iter().filter(|(_, all)| !*all).collect();
        let any_ok = any_group.is_empty() || any_group.iter().any(|(f, _)| f.matches(fields));
        all_ok && any_ok
    }
}
