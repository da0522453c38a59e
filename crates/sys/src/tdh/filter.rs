//! The payload-filter functions, on the `win32` face's (`etwsim::win32::tdh`): a single
//! filter is the face's handle, returned as the `PVOID` TDH allocates; an aggregate's bytes
//! are allocated here and freed by TdhCleanupPayloadEventFilterDescriptor.

use super::{INVALID_PARAMETER, PAYLOAD_FILTER_PREDICATE, items};
use crate::abi::{EVENT_DESCRIPTOR, EVENT_FILTER_DESCRIPTOR, GUID};
use crate::ffi_guard;
use crate::machine::machine;
use etwsim::decode::manifest::filter::MAX_PAYLOAD_PREDICATES;
use etwsim::win32::{EventFilterDescriptor, PayloadFilterPredicate};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::ffi::c_void;

/// Aggregates handed out, by address: freed by cleanup.
static AGGREGATES: Mutex<Option<HashMap<u64, Box<[u8]>>>> = Mutex::new(None);

/// The most predicates one filter may have (`MAX_PAYLOAD_PREDICATES`).
const MAX_PREDICATES: u32 = MAX_PAYLOAD_PREDICATES as u32;
/// The most filters one aggregate may have: as many as a payload filter descriptor holds.
const MAX_FILTERS: u32 = 64;

/// `TdhCreatePayloadFilter(ProviderGuid, EventDescriptor, EventMatchANY,
/// PayloadPredicateCount, PayloadPredicates, PayloadFilter)`: a filter on the payload of one
/// event of a manifest installed on the machine. `ERROR_INVALID_PARAMETER` for NULL
/// pointers, a count of 0 or over 8, an unknown operator; `ERROR_NOT_FOUND` for a provider or
/// event no installed manifest has (the face's codes).
///
/// # Safety
/// Microsoft's contract.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhCreatePayloadFilter(
    providerguid: *const GUID,
    eventdescriptor: *const EVENT_DESCRIPTOR,
    eventmatchany: bool,
    payloadpredicatecount: u32,
    payloadpredicates: *const PAYLOAD_FILTER_PREDICATE,
    payloadfilter: *mut *mut c_void,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        let m = match machine() {
            Ok(m) => m,
            Err(e) => return e,
        };
        if providerguid.is_null()
            || eventdescriptor.is_null()
            || payloadfilter.is_null()
            || payloadpredicatecount == 0
            || payloadpredicatecount > MAX_PREDICATES
        {
            return INVALID_PARAMETER;
        }
        // SAFETY: contract.
        let Some(preds) = (unsafe { items(payloadpredicates, payloadpredicatecount) }) else {
            return INVALID_PARAMETER;
        };
        let mut texts = Vec::with_capacity(preds.len());
        for p in preds {
            // SAFETY: NULL or NUL-terminated strings (contract).
            let (f, v) = unsafe {
                (
                    super::wide_name(p.FieldName as u64),
                    super::wide_name(p.Value as u64),
                )
            };
            texts.push((f, p.CompareOp, v));
        }
        let predicates: Vec<PayloadFilterPredicate<'_>> = texts
            .iter()
            .map(|(f, op, v)| PayloadFilterPredicate {
                field_name: f.as_deref(),
                compare_op: *op,
                value: v.as_deref(),
            })
            .collect();
        // SAFETY: readable (contract).
        let (g, d) = unsafe {
            (
                providerguid.read_unaligned(),
                eventdescriptor.read_unaligned(),
            )
        };
        let guid: etwsim::Guid = g.into();
        let desc: etwsim::EventDescriptor = (&d).into();
        let mut handle = 0u64;
        let code = m.win32.tdh_create_payload_filter(
            Some(&guid),
            Some(&desc),
            eventmatchany,
            payloadpredicatecount,
            Some(&predicates),
            Some(&mut handle),
        );
        if code == 0 {
            // SAFETY: writable (contract).
            unsafe { payloadfilter.write_unaligned(handle as *mut c_void) };
        }
        code
    })
}

/// `TdhDeletePayloadFilter(PayloadFilter)`: frees a filter and sets `*PayloadFilter` to
/// NULL. `ERROR_INVALID_PARAMETER` for NULL or a filter this process does not hold.
///
/// # Safety
/// `PayloadFilter` NULL or readable and writable.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhDeletePayloadFilter(payloadfilter: *mut *mut c_void) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        let m = match machine() {
            Ok(m) => m,
            Err(e) => return e,
        };
        if payloadfilter.is_null() {
            return INVALID_PARAMETER;
        }
        // SAFETY: readable (contract).
        let mut h = unsafe { payloadfilter.read_unaligned() } as u64;
        let code = m.win32.tdh_delete_payload_filter(Some(&mut h));
        if code == 0 {
            // SAFETY: writable (contract).
            unsafe { payloadfilter.write_unaligned(std::ptr::null_mut()) };
        }
        code
    })
}

/// `TdhAggregatePayloadFilters(PayloadFilterCount, PayloadFilterPtrs, EventMatchALLFlags,
/// EventFilterDescriptor)`: the filters of one provider as one `EVENT_FILTER_DESCRIPTOR` of
/// type `EVENT_FILTER_TYPE_PAYLOAD`, whose bytes TdhCleanupPayloadEventFilterDescriptor
/// frees. `ERROR_INVALID_PARAMETER` for a count of 0, NULL pointers, filters not held or of
/// different providers.
///
/// # Safety
/// Microsoft's contract.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhAggregatePayloadFilters(
    payloadfiltercount: u32,
    payloadfilterptrs: *const *const c_void,
    eventmatchallflags: *const bool,
    eventfilterdescriptor: *mut EVENT_FILTER_DESCRIPTOR,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        let m = match machine() {
            Ok(m) => m,
            Err(e) => return e,
        };
        if payloadfiltercount == 0
            || payloadfiltercount > MAX_FILTERS
            || eventfilterdescriptor.is_null()
        {
            return INVALID_PARAMETER;
        }
        // SAFETY: contract.
        let Some(ptrs) = (unsafe { items(payloadfilterptrs, payloadfiltercount) }) else {
            return INVALID_PARAMETER;
        };
        let handles: Vec<u64> = ptrs.iter().map(|p| *p as u64).collect();
        let flags = if eventmatchallflags.is_null() {
            None
        } else {
            // SAFETY: `PayloadFilterCount` readable BOOLEANs (contract), read as bytes.
            let bytes = unsafe {
                std::slice::from_raw_parts(eventmatchallflags.cast::<u8>(), handles.len())
            };
            Some(bytes.iter().map(|&b| b != 0).collect::<Vec<bool>>())
        };
        let mut out = EventFilterDescriptor::default();
        let code = m.win32.tdh_aggregate_payload_filters(
            payloadfiltercount,
            Some(&handles),
            flags.as_deref(),
            Some(&mut out),
        );
        if code != 0 {
            return code;
        }
        let bytes: Box<[u8]> = out.ptr.unwrap_or_default().into_boxed_slice();
        let addr = bytes.as_ptr() as u64;
        let d = EVENT_FILTER_DESCRIPTOR {
            Ptr: addr,
            Size: out.size,
            Type: out.filter_type,
        };
        AGGREGATES
            .lock()
            .get_or_insert_with(HashMap::new)
            .insert(addr, bytes);
        // SAFETY: writable (contract).
        unsafe { eventfilterdescriptor.write_unaligned(d) };
        0
    })
}

/// `TdhCleanupPayloadEventFilterDescriptor(EventFilterDescriptor)`: frees an aggregate of
/// [`TdhAggregatePayloadFilters`] and zeroes the descriptor. `ERROR_INVALID_PARAMETER` for
/// NULL or a descriptor this process did not get from it.
///
/// # Safety
/// `EventFilterDescriptor` NULL or readable and writable.
#[unsafe(no_mangle)]
pub unsafe extern "system" fn TdhCleanupPayloadEventFilterDescriptor(
    eventfilterdescriptor: *mut EVENT_FILTER_DESCRIPTOR,
) -> u32 {
    ffi_guard(INVALID_PARAMETER, || {
        if eventfilterdescriptor.is_null() {
            return INVALID_PARAMETER;
        }
        // SAFETY: readable (contract).
        let d = unsafe { eventfilterdescriptor.read_unaligned() };
        let freed = AGGREGATES
            .lock()
            .as_mut()
            .and_then(|m| m.remove(&d.Ptr))
            .is_some();
        if !freed {
            return INVALID_PARAMETER;
        }
        // SAFETY: writable (contract).
        unsafe { eventfilterdescriptor.write_unaligned(EVENT_FILTER_DESCRIPTOR::default()) };
        0
    })
}
