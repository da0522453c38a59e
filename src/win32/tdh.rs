//! TDH's payload-filter functions (FLT-18): `TdhCreatePayloadFilter`,
//! `TdhDeletePayloadFilter`, `TdhAggregatePayloadFilters`,
//! `TdhCleanupPayloadEventFilterDescriptor`.
//!
//! A single filter is TDH's opaque allocation: here a `PVOID` handle into the process's table
//! of [`PayloadFilter`]s (never 0, never reused). The aggregate is the bytes an
//! `EVENT_FILTER_DESCRIPTOR` of type PAYLOAD points at, ready for EnableTraceEx2. Filters are
//! built against the manifests installed on the kernel ([`Kernel::install_manifest`]).
//!
//! [`Kernel::install_manifest`]: etwsim_kernel::Kernel::install_manifest

use super::{ERROR_SUCCESS, EventFilterDescriptor, Win32};
use etwsim_kernel::{AggregateFilter, EventFilter, PayloadFilter, PayloadOperator, Predicate};
use etwsim_types::{EventDescriptor, Guid, Win32Error};
use parking_lot::Mutex;
use std::collections::HashMap;

/// `PAYLOADFIELD_EQ` (0): integer equal.
pub const PAYLOADFIELD_EQ: u16 = PayloadOperator::Eq.code();
/// `PAYLOADFIELD_NE` (1): integer not equal.
pub const PAYLOADFIELD_NE: u16 = PayloadOperator::Ne.code();
/// `PAYLOADFIELD_LE` (2): integer less than or equal.
pub const PAYLOADFIELD_LE: u16 = PayloadOperator::Le.code();
/// `PAYLOADFIELD_GT` (3): integer greater than.
pub const PAYLOADFIELD_GT: u16 = PayloadOperator::Gt.code();
/// `PAYLOADFIELD_LT` (4): integer less than.
pub const PAYLOADFIELD_LT: u16 = PayloadOperator::Lt.code();
/// `PAYLOADFIELD_GE` (5): integer greater than or equal.
pub const PAYLOADFIELD_GE: u16 = PayloadOperator::Ge.code();
/// `PAYLOADFIELD_BETWEEN` (6): two comma-separated integers, inclusive.
pub const PAYLOADFIELD_BETWEEN: u16 = PayloadOperator::Between.code();
/// `PAYLOADFIELD_NOTBETWEEN` (7).
pub const PAYLOADFIELD_NOTBETWEEN: u16 = PayloadOperator::NotBetween.code();
/// `PAYLOADFIELD_MODULO` (8): the field is a multiple of the value.
pub const PAYLOADFIELD_MODULO: u16 = PayloadOperator::Modulo.code();
/// `PAYLOADFIELD_CONTAINS` (20): the string field contains the value.
pub const PAYLOADFIELD_CONTAINS: u16 = PayloadOperator::Contains.code();
/// `PAYLOADFIELD_DOESNTCONTAIN` (21).
pub const PAYLOADFIELD_DOESNTCONTAIN: u16 = PayloadOperator::DoesntContain.code();
/// `PAYLOADFIELD_IS` (30): the field, as text, is the value.
pub const PAYLOADFIELD_IS: u16 = PayloadOperator::Is.code();
/// `PAYLOADFIELD_ISNOT` (31).
pub const PAYLOADFIELD_ISNOT: u16 = PayloadOperator::IsNot.code();
/// `PAYLOADFIELD_INVALID` (32): never a valid operator.
pub const PAYLOADFIELD_INVALID: u16 = PayloadOperator::INVALID;

/// `PAYLOAD_FILTER_PREDICATE`: `FieldName`, `CompareOp` (a `PAYLOADFIELD_*` value) and
/// `Value`, the value as text (`None` is NULL).
#[doc(alias = "PAYLOAD_FILTER_PREDICATE")]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PayloadFilterPredicate<'a> {
    /// `FieldName`: a top-level field of the event's template.
    pub field_name: Option<&'a str>,
    /// `CompareOp`.
    pub compare_op: u16,
    /// `Value`: one number, `"low,high"` for BETWEEN / NOTBETWEEN, or a string.
    pub value: Option<&'a str>,
}

/// Handles of single payload filters start here (a pointer-looking value; 0 is NULL).
const FIRST_HANDLE: u64 = 0x0000_7F00_0000_1000;
/// Handles are this far apart, as allocations would be.
const HANDLE_STEP: u64 = 0x40;

/// The single payload filters a process holds (TdhCreatePayloadFilter's allocations).
#[derive(Default)]
pub(super) struct PayloadFilters {
    inner: Mutex<(u64, HashMap<u64, PayloadFilter>)>,
}

impl PayloadFilters {
    fn insert(&self, f: PayloadFilter) -> u64 {
        let mut g = self.inner.lock();
        let handle = FIRST_HANDLE + g.0 * HANDLE_STEP;
        g.0 += 1;
        g.1.insert(handle, f);
        handle
    }
}

impl Win32 {
    /// `TdhCreatePayloadFilter(ProviderGuid, EventDescriptor, EventMatchANY,
    /// PayloadPredicateCount, PayloadPredicates, PayloadFilter)`: a filter on the payload of
    /// one event of an installed manifest provider; `*payload_filter` receives its handle.
    ///
    /// Returns `ERROR_INVALID_PARAMETER` for a NULL GUID, descriptor, predicate array, field
    /// name, value or output, a count of 0 or more than 8, an unknown `CompareOp`
    /// (`PAYLOADFIELD_INVALID` included); otherwise
    /// [`Kernel::create_payload_filter`](etwsim_kernel::Kernel::create_payload_filter)'s codes
    /// (`ERROR_NOT_FOUND`, `ERROR_INVALID_PARAMETER`, `ERROR_INSUFFICIENT_BUFFER`). Nothing
    /// is allocated on failure.
    pub fn tdh_create_payload_filter(
        &self,
        provider_guid: Option<&Guid>,
        event_descriptor: Option<&EventDescriptor>,
        event_match_any: bool,
        payload_predicate_count: u32,
        payload_predicates: Option<&[PayloadFilterPredicate<'_>]>,
        payload_filter: Option<&mut u64>,
    ) -> u32 {
        let invalid = Win32Error::ERROR_INVALID_PARAMETER.code();
        let (Some(guid), Some(desc), Some(out)) = (provider_guid, event_descriptor, payload_filter)
        else {
            return invalid;
        };
        let Some(preds) =
            payload_predicates.and_then(|p| p.get(..payload_predicate_count as usize))
        else {
            return invalid;
        };
        let mut predicates = Vec::with_capacity(preds.len());
        for p in preds {
            let (Some(field), Some(value)) = (p.field_name, p.value) else {
                return invalid;
            };
            let Ok(op) = PayloadOperator::try_from(p.compare_op) else {
                return invalid;
            };
            predicates.push(Predicate::new(field, op, value));
        }
        match self
            .kernel()
            .create_payload_filter(*guid, desc, event_match_any, &predicates)
        {
            Ok(f) => {
                *out = self.payload_filters.insert(f);
                ERROR_SUCCESS
            }
            Err(e) => e.win32_code().code(),
        }
    }

    /// `TdhDeletePayloadFilter(PayloadFilter)`: frees a filter of
    /// [`tdh_create_payload_filter`](Self::tdh_create_payload_filter) and sets the handle to
    /// 0. A NULL pointer or a handle this process does not hold is `ERROR_INVALID_PARAMETER`.
    pub fn tdh_delete_payload_filter(&self, payload_filter: Option<&mut u64>) -> u32 {
        let Some(h) = payload_filter else {
            return Win32Error::ERROR_INVALID_PARAMETER.code();
        };
        if self.payload_filters.inner.lock().1.remove(h).is_none() {
            return Win32Error::ERROR_INVALID_PARAMETER.code();
        }
        *h = 0;
        ERROR_SUCCESS
    }

    /// `TdhAggregatePayloadFilters(PayloadFilterCount, PayloadFilterPtrs, EventMatchALLFlags,
    /// EventFilterDescriptor)`: the filters (handles of
    /// [`tdh_create_payload_filter`](Self::tdh_create_payload_filter)) of one provider as one
    /// `EVENT_FILTER_DESCRIPTOR` of type PAYLOAD for EnableTraceEx2. `EventMatchALLFlags` may
    /// be NULL (every flag FALSE): among the filters bound to one event, the flagged ones
    /// must all pass and, if there are unflagged ones, one of them must.
    ///
    /// Returns `ERROR_INVALID_PARAMETER` for a count of 0, a NULL or short array, a handle
    /// this process does not hold, filters of different providers or a NULL output. The
    /// single filters stay allocated. An aggregate over 4,096 bytes is made; EnableTraceEx2
    /// refuses it (FLT-18).
    pub fn tdh_aggregate_payload_filters(
        &self,
        payload_filter_count: u32,
        payload_filter_ptrs: Option<&[u64]>,
        event_match_all_flags: Option<&[bool]>,
        event_filter_descriptor: Option<&mut EventFilterDescriptor>,
    ) -> u32 {
        let invalid = Win32Error::ERROR_INVALID_PARAMETER.code();
        let n = payload_filter_count as usize;
        let (Some(handles), Some(out)) = (
            payload_filter_ptrs.and_then(|p| p.get(..n)),
            event_filter_descriptor,
        ) else {
            return invalid;
        };
        let flags = match event_match_all_flags {
            None => vec![false; n],
            Some(f) => match f.get(..n) {
                Some(f) => f.to_vec(),
                None => return invalid,
            },
        };
        let held = self.payload_filters.inner.lock();
        let Some(filters) = handles
            .iter()
            .zip(flags)
            .map(|(h, all)| held.1.get(h).map(|f| (f.clone(), all)))
            .collect::<Option<Vec<_>>>()
        else {
            return invalid;
        };
        drop(held);
        match AggregateFilter::new(filters) {
            Ok(a) => {
                *out = EventFilterDescriptor::from_filter(&EventFilter::payload(&a));
                ERROR_SUCCESS
            }
            Err(_) => invalid,
        }
    }

    /// `TdhCleanupPayloadEventFilterDescriptor(EventFilterDescriptor)`: frees the aggregate
    /// of [`tdh_aggregate_payload_filters`](Self::tdh_aggregate_payload_filters) and
    /// re-initialises the descriptor (NULL `Ptr`, `Size` and `Type` 0). A NULL pointer or a
    /// descriptor that holds no payload filter is `ERROR_INVALID_PARAMETER`.
    pub fn tdh_cleanup_payload_event_filter_descriptor(
        &self,
        event_filter_descriptor: Option<&mut EventFilterDescriptor>,
    ) -> u32 {
        match event_filter_descriptor {
            Some(d) if d.filter_type == etwsim_types::FilterType::PAYLOAD.0 && d.ptr.is_some() => {
                *d = EventFilterDescriptor::default();
                ERROR_SUCCESS
            }
            _ => Win32Error::ERROR_INVALID_PARAMETER.code(),
        }
    }
}
