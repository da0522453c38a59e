//! The caller's structures, read from bytes (issue 33).
//!
//! Wherever the C ABI reads a structure whose shape — a size, an offset, a count, a pointer
//! to more — comes from the caller's own bytes, the reading is a safe function here, over
//! `&[u8]`. An exported function turns each pointer argument and the size the API gives it
//! into a slice; what a structure points at in turn is read through a [`Memory`]: the
//! caller's own memory for the exports ([`CallerMemory`], `unsafe` to make), the input
//! itself for the `c_abi_args` fuzz target ([`crate::fuzzing`], where an address is an offset
//! into the input). So the fuzz target runs these very functions over arbitrary bytes.
//!
//! | structure | read by | here |
//! |---|---|---|
//! | `EVENT_TRACE_PROPERTIES` and its string space | StartTrace, ControlTrace, QueryAllTraces | [`PropsBlock`] |
//! | `ENABLE_TRACE_PARAMETERS`, `EVENT_FILTER_DESCRIPTOR`s and their filters | EnableTraceEx2, EnableTraceEx | [`enable_parameters`], [`filter_descriptor`] |
//! | `EVENT_DATA_DESCRIPTOR` arrays and their blocks | EventWrite, EventWriteTransfer, EventWriteEx | [`with_data_descriptors`] |
//! | `EVENT_TRACE_HEADER`, its data or `MOF_FIELD`s, `GuidPtr` | TraceEvent | [`trace_event`] |
//! | `EVENT_TRACE_LOGFILE` and its names | OpenTrace | [`logfile`] |
//! | the handle array | ProcessTrace | [`process_trace_handles`] |
//! | `TRACE_GUID_REGISTRATION` arrays | RegisterTraceGuids | [`set_reg_handles`] |
//! | the group mask | TraceSetInformation | [`system_trace_enable_flags`] |
//! | `InBuffer` | EnumerateTraceGuidsEx | [`enumerate_input`] |
//! | strings | every `W` and `A` function | [`crate::strings::decode`] |
//!
//! Nothing here allocates more than the bytes it was given justify (a filter's copy, the
//! string space widened to UTF-16 units, one entry per descriptor read), and every count is
//! checked before anything it counts is read: at most `MAX_EVENT_FILTERS_COUNT` filter
//! descriptors of at most [`MAX_FILTER_BYTES`] each (FLT-13), 128 data descriptors (EVT-11),
//! `MAX_MOF_FIELDS` MOF fields (EVT-29), 64 ProcessTrace handles (CON-03). The codes are the ones each function documents: `ERROR_INVALID_PARAMETER`,
//! `ERROR_BAD_LENGTH`, `ERROR_INVALID_FLAG_NUMBER`; the face (`etwsim::win32`) checks the
//! rest of each structure (SES-18…SES-21's offsets and sizes, FLT-13's versions, EVT-11/12's
//! blocks). `ERROR_NOACCESS` — what ETW returns for memory it cannot read — comes only from a
//! fuzz input that points outside itself: the caller's memory is readable by contract.
//!
//! The structures are read in native byte order at their x64 offsets (`offset_of!` of the
//! `abi` types); padding is never read.

use crate::abi::*;
use crate::strings::{self, Encoding};
use etwsim::Win32Error;
use etwsim::win32::{
    EVENT_TRACE_PROPERTIES_SIZE, EnableTraceParameters, EventDataDescriptor, EventFilterDescriptor,
    EventTraceProperties, WnodeHeader,
};
use std::marker::PhantomData;
use std::mem::{offset_of, size_of};

pub(crate) const INVALID_PARAMETER: u32 = Win32Error::ERROR_INVALID_PARAMETER.code();
pub(crate) const BAD_LENGTH: u32 = Win32Error::ERROR_BAD_LENGTH.code();
pub(crate) const NOACCESS: u32 = Win32Error::ERROR_NOACCESS.code();

/// The largest filter a descriptor may point at (bytes). Every documented filter is far
/// smaller (the largest, payload and event-name filters, are 4 KB); a larger `Size` is
/// refused before anything is read from `Ptr`.
pub(crate) const MAX_FILTER_BYTES: u32 = 64 * 1024;

/// The most data descriptors an EventWrite takes (EVT-11).
const MAX_DATA_DESCRIPTORS: usize = etwsim::record::MAX_EVENT_DATA_DESCRIPTORS;

/// What a caller's structure points at, read through its addresses.
pub(crate) trait Memory<'a> {
    /// The `len` bytes at `addr` (never 0).
    ///
    /// # Errors
    /// `ERROR_NOACCESS` where there are no such bytes.
    fn bytes(&self, addr: u64, len: usize) -> Result<&'a [u8], u32>;

    /// The string at `addr` (never 0) in `enc`, as [`strings::raw`] delimits it: through its
    /// NUL, or `MAX_STRING_CHARS + 1` characters' worth when none comes within them (or
    /// whatever there is before the memory ends: [`strings::decode`] refuses such a string).
    ///
    /// # Errors
    /// `ERROR_NOACCESS` where there is nothing at `addr`.
    fn string(&self, addr: u64, enc: Encoding) -> Result<&'a [u8], u32>;
}

/// The calling program's memory, as Microsoft's contract for the function being called
/// describes it.
pub(crate) struct CallerMemory<'a>(PhantomData<&'a [u8]>);

impl CallerMemory<'_> {
    /// The caller's memory for the duration of one exported call.
    ///
    /// # Safety
    /// Every address and length the parsers of this module ask for — those the caller's
    /// structures give, each checked against its limit first — is readable, and unchanged, for
    /// `'a`, as Microsoft's contract for the exported function says: `Ptr` covering `Size`,
    /// arrays holding the entries their counts announce, strings NUL-terminated.
    pub(crate) unsafe fn new() -> Self {
        CallerMemory(PhantomData)
    }
}

impl<'a> Memory<'a> for CallerMemory<'a> {
    fn bytes(&self, addr: u64, len: usize) -> Result<&'a [u8], u32> {
        if len > isize::MAX as usize {
            return Err(NOACCESS); // no allocation is that large (from_raw_parts's limit)
        }
        let p = std::ptr::with_exposed_provenance::<u8>(addr as usize);
        // SAFETY: `CallerMemory::new`'s contract: the parsers ask only for the bytes the
        // caller's structures declare, which are readable and unchanged for 'a; u8 has no
        // alignment; `len` ≤ isize::MAX.
        Ok(unsafe { std::slice::from_raw_parts(p, len) })
    }

    fn string(&self, addr: u64, enc: Encoding) -> Result<&'a [u8], u32> {
        let p = std::ptr::with_exposed_provenance::<u8>(addr as usize);
        // SAFETY: `CallerMemory::new`'s contract: a string the caller's structure points at
        // is NUL-terminated (or longer than any string read), unchanged for 'a.
        Ok(unsafe { strings::raw(p, enc) })
    }
}

/// `N` bytes of `b` at `at`, which the caller's fixed-size array always holds.
fn field<const N: usize>(b: &[u8], at: usize) -> [u8; N] {
    b[at..at + N]
        .try_into()
        .expect("a field inside its structure")
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_ne_bytes(field(b, at))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_ne_bytes(field(b, at))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_ne_bytes(field(b, at))
}

fn put_u32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_ne_bytes());
}

fn put_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_ne_bytes());
}

/// A `GUID` (16 bytes) at `at`.
fn guid_at(b: &[u8], at: usize) -> etwsim::Guid {
    GUID {
        data1: u32_at(b, at),
        data2: u16_at(b, at + 4),
        data3: u16_at(b, at + 6),
        data4: field(b, at + 8),
    }
    .into()
}

fn put_guid(b: &mut [u8], at: usize, g: etwsim::Guid) {
    let g = GUID::from(g);
    put_u32(b, at, g.data1);
    b[at + 4..at + 6].copy_from_slice(&g.data2.to_ne_bytes());
    b[at + 6..at + 8].copy_from_slice(&g.data3.to_ne_bytes());
    b[at + 8..at + 16].copy_from_slice(&g.data4);
}

/// The fixed part of an `EVENT_TRACE_PROPERTIES`.
pub(crate) const PROPS_FIXED: usize = size_of::<EVENT_TRACE_PROPERTIES>();

const _: () = assert!(PROPS_FIXED == EVENT_TRACE_PROPERTIES_SIZE as usize);

/// Offsets in an `EVENT_TRACE_PROPERTIES`.
mod props {
    use super::*;
    type P = EVENT_TRACE_PROPERTIES;
    pub(super) const WNODE_BUFFER_SIZE: usize = offset_of!(P, Wnode.BufferSize);
    pub(super) const PROVIDER_ID: usize = offset_of!(P, Wnode.ProviderId);
    pub(super) const HISTORICAL_CONTEXT: usize = offset_of!(P, Wnode.Anonymous1);
    pub(super) const TIME_STAMP: usize = offset_of!(P, Wnode.Anonymous2);
    pub(super) const GUID: usize = offset_of!(P, Wnode.Guid);
    pub(super) const CLIENT_CONTEXT: usize = offset_of!(P, Wnode.ClientContext);
    pub(super) const FLAGS: usize = offset_of!(P, Wnode.Flags);
    pub(super) const BUFFER_SIZE: usize = offset_of!(P, BufferSize);
    pub(super) const MINIMUM_BUFFERS: usize = offset_of!(P, MinimumBuffers);
    pub(super) const MAXIMUM_BUFFERS: usize = offset_of!(P, MaximumBuffers);
    pub(super) const MAXIMUM_FILE_SIZE: usize = offset_of!(P, MaximumFileSize);
    pub(super) const LOG_FILE_MODE: usize = offset_of!(P, LogFileMode);
    pub(super) const FLUSH_TIMER: usize = offset_of!(P, FlushTimer);
    pub(super) const ENABLE_FLAGS: usize = offset_of!(P, EnableFlags);
    pub(super) const AGE_LIMIT: usize = offset_of!(P, Anonymous);
    pub(super) const NUMBER_OF_BUFFERS: usize = offset_of!(P, NumberOfBuffers);
    pub(super) const FREE_BUFFERS: usize = offset_of!(P, FreeBuffers);
    pub(super) const EVENTS_LOST: usize = offset_of!(P, EventsLost);
    pub(super) const BUFFERS_WRITTEN: usize = offset_of!(P, BuffersWritten);
    pub(super) const LOG_BUFFERS_LOST: usize = offset_of!(P, LogBuffersLost);
    pub(super) const REAL_TIME_BUFFERS_LOST: usize = offset_of!(P, RealTimeBuffersLost);
    pub(super) const LOGGER_THREAD_ID: usize = offset_of!(P, LoggerThreadId);
    pub(super) const LOG_FILE_NAME_OFFSET: usize = offset_of!(P, LogFileNameOffset);
    pub(super) const LOGGER_NAME_OFFSET: usize = offset_of!(P, LoggerNameOffset);
}

/// An `A` form's byte offset as an offset into the widened string space.
fn widen_offset(off: u32) -> u32 {
    if off < EVENT_TRACE_PROPERTIES_SIZE {
        return off; // inside the structure: stays invalid
    }
    let wide =
        u64::from(EVENT_TRACE_PROPERTIES_SIZE) + 2 * u64::from(off - EVENT_TRACE_PROPERTIES_SIZE);
    u32::try_from(wide).unwrap_or(u32::MAX)
}

/// A caller's `EVENT_TRACE_PROPERTIES` block, loaded into the face's mirror: the 120 bytes
/// of the structure and the string space after it.
///
/// The `A` forms widen each byte of the string space to one UTF-16 unit and double the
/// offsets, so every size check the face makes counts the same characters the caller
/// allocated; [`PropsBlock::encode`] narrows each unit again.
pub(crate) struct PropsBlock {
    pub(crate) mirror: EventTraceProperties,
    enc: Encoding,
    /// `Wnode.BufferSize`, `LoggerNameOffset` and `LogFileNameOffset` as the caller gave them.
    size: u32,
    logger_name_offset: u32,
    log_file_name_offset: u32,
    /// Bytes of string space read (and written back).
    tail_bytes: usize,
}

impl PropsBlock {
    /// The bytes of the string space the caller declares after the structure:
    /// `Wnode.BufferSize - 120`, or none for a smaller size.
    pub(crate) fn declared_tail(fixed: &[u8; PROPS_FIXED]) -> usize {
        (u32_at(fixed, props::WNODE_BUFFER_SIZE) as usize).saturating_sub(PROPS_FIXED)
    }

    /// The block whose structure is `fixed`, followed by the string space `tail` — all of
    /// [`PropsBlock::declared_tail`] for a caller's block; for a fuzz input, whatever
    /// follows, and then the face sees a `Wnode.BufferSize` larger than the block
    /// (`ERROR_BAD_LENGTH`, SES-18). Nothing is refused here: the face checks the size and
    /// offsets (SES-18, SES-20).
    pub(crate) fn parse(fixed: &[u8; PROPS_FIXED], tail: &[u8], enc: Encoding) -> PropsBlock {
        use props::*;
        let size = u32_at(fixed, WNODE_BUFFER_SIZE);
        let logger_name_offset = u32_at(fixed, LOGGER_NAME_OFFSET);
        let log_file_name_offset = u32_at(fixed, LOG_FILE_NAME_OFFSET);
        let (units, mirror_size, logger_off, file_off) = match enc {
            Encoding::Wide => (
                tail.chunks(2)
                    .map(|c| u16::from_ne_bytes([c[0], c.get(1).copied().unwrap_or(0)]))
                    .collect(),
                size,
                logger_name_offset,
                log_file_name_offset,
            ),
            Encoding::Ansi => (
                tail.iter().map(|&b| u16::from(b)).collect(),
                if size >= EVENT_TRACE_PROPERTIES_SIZE {
                    widen_offset(size)
                } else {
                    size
                },
                widen_offset(logger_name_offset),
                widen_offset(log_file_name_offset),
            ),
        };
        let mirror = EventTraceProperties {
            wnode: WnodeHeader {
                buffer_size: mirror_size,
                provider_id: u32_at(fixed, PROVIDER_ID),
                historical_context: u64_at(fixed, HISTORICAL_CONTEXT),
                time_stamp: u64_at(fixed, TIME_STAMP) as i64,
                guid: guid_at(fixed, GUID),
                client_context: u32_at(fixed, CLIENT_CONTEXT),
                flags: u32_at(fixed, FLAGS),
            },
            buffer_size: u32_at(fixed, BUFFER_SIZE),
            minimum_buffers: u32_at(fixed, MINIMUM_BUFFERS),
            maximum_buffers: u32_at(fixed, MAXIMUM_BUFFERS),
            maximum_file_size: u32_at(fixed, MAXIMUM_FILE_SIZE),
            log_file_mode: u32_at(fixed, LOG_FILE_MODE),
            flush_timer: u32_at(fixed, FLUSH_TIMER),
            enable_flags: u32_at(fixed, ENABLE_FLAGS),
            age_limit: u32_at(fixed, AGE_LIMIT) as i32,
            number_of_buffers: u32_at(fixed, NUMBER_OF_BUFFERS),
            free_buffers: u32_at(fixed, FREE_BUFFERS),
            events_lost: u32_at(fixed, EVENTS_LOST),
            buffers_written: u32_at(fixed, BUFFERS_WRITTEN),
            log_buffers_lost: u32_at(fixed, LOG_BUFFERS_LOST),
            real_time_buffers_lost: u32_at(fixed, REAL_TIME_BUFFERS_LOST),
            logger_thread_id: u64_at(fixed, LOGGER_THREAD_ID),
            log_file_name_offset: file_off,
            logger_name_offset: logger_off,
            tail: units,
        };
        PropsBlock {
            mirror,
            enc,
            size,
            logger_name_offset,
            log_file_name_offset,
            tail_bytes: tail.len(),
        }
    }

    /// Bytes of string space the block was read with (and [`PropsBlock::encode`] writes).
    pub(crate) fn tail_bytes(&self) -> usize {
        self.tail_bytes
    }

    /// Writes the mirror back: every field of the structure into `fixed` (the size and
    /// offsets as the caller gave them) and the string space into `tail` (at most
    /// [`PropsBlock::tail_bytes`] of it). Parsing a block and encoding it unchanged gives the
    /// same bytes back.
    pub(crate) fn encode(&self, fixed: &mut [u8; PROPS_FIXED], tail: &mut [u8]) {
        use props::*;
        let m = &self.mirror;
        let words = [
            (WNODE_BUFFER_SIZE, self.size),
            (PROVIDER_ID, m.wnode.provider_id),
            (CLIENT_CONTEXT, m.wnode.client_context),
            (FLAGS, m.wnode.flags),
            (BUFFER_SIZE, m.buffer_size),
            (MINIMUM_BUFFERS, m.minimum_buffers),
            (MAXIMUM_BUFFERS, m.maximum_buffers),
            (MAXIMUM_FILE_SIZE, m.maximum_file_size),
            (LOG_FILE_MODE, m.log_file_mode),
            (FLUSH_TIMER, m.flush_timer),
            (ENABLE_FLAGS, m.enable_flags),
            (AGE_LIMIT, m.age_limit as u32),
            (NUMBER_OF_BUFFERS, m.number_of_buffers),
            (FREE_BUFFERS, m.free_buffers),
            (EVENTS_LOST, m.events_lost),
            (BUFFERS_WRITTEN, m.buffers_written),
            (LOG_BUFFERS_LOST, m.log_buffers_lost),
            (REAL_TIME_BUFFERS_LOST, m.real_time_buffers_lost),
            (LOG_FILE_NAME_OFFSET, self.log_file_name_offset),
            (LOGGER_NAME_OFFSET, self.logger_name_offset),
        ];
        for (at, v) in words {
            put_u32(fixed, at, v);
        }
        put_u64(fixed, HISTORICAL_CONTEXT, m.wnode.historical_context);
        put_u64(fixed, TIME_STAMP, m.wnode.time_stamp as u64);
        put_u64(fixed, LOGGER_THREAD_ID, m.logger_thread_id);
        put_guid(fixed, GUID, m.wnode.guid);
        let n = tail.len().min(self.tail_bytes);
        match self.enc {
            Encoding::Wide => {
                for (i, b) in m
                    .tail
                    .iter()
                    .flat_map(|u| u.to_ne_bytes())
                    .take(n)
                    .enumerate()
                {
                    tail[i] = b;
                }
            }
            Encoding::Ansi => {
                for (slot, &u) in tail[..n].iter_mut().zip(&m.tail) {
                    *slot = u8::try_from(u).unwrap_or(b'?');
                }
            }
        }
    }
}

/// Offsets in an `EVENT_FILTER_DESCRIPTOR` and an `ENABLE_TRACE_PARAMETERS`.
const FILTER_PTR: usize = offset_of!(EVENT_FILTER_DESCRIPTOR, Ptr);
const FILTER_SIZE: usize = offset_of!(EVENT_FILTER_DESCRIPTOR, Size);
const FILTER_TYPE: usize = offset_of!(EVENT_FILTER_DESCRIPTOR, Type);
pub(crate) const FILTER_DESCRIPTOR_SIZE: usize = size_of::<EVENT_FILTER_DESCRIPTOR>();
pub(crate) const ENABLE_PARAMETERS_SIZE: usize = size_of::<ENABLE_TRACE_PARAMETERS>();

/// One `EVENT_FILTER_DESCRIPTOR` as the face's mirror, the `Size` bytes at `Ptr` copied.
///
/// # Errors
/// `ERROR_INVALID_PARAMETER` for a `Size` over [`MAX_FILTER_BYTES`], before `Ptr` is read
/// (the face refuses what the filter type does not allow, FLT-15…FLT-23).
pub(crate) fn filter_descriptor<'a>(
    d: &[u8; FILTER_DESCRIPTOR_SIZE],
    mem: &impl Memory<'a>,
) -> Result<EventFilterDescriptor, u32> {
    let ptr = u64_at(d, FILTER_PTR);
    let size = u32_at(d, FILTER_SIZE);
    if size > MAX_FILTER_BYTES {
        return Err(INVALID_PARAMETER);
    }
    let data = match ptr {
        0 => None,
        p => Some(mem.bytes(p, size as usize)?.to_vec()),
    };
    Ok(EventFilterDescriptor {
        ptr: data,
        size,
        filter_type: u32_at(d, FILTER_TYPE),
    })
}

/// `ENABLE_TRACE_PARAMETERS` as the face's mirror, with the descriptors `EnableFilterDesc`
/// points at: one for version 1, `FilterDescCount` for any other (the face refuses other
/// versions, FLT-13).
///
/// # Errors
/// `ERROR_INVALID_PARAMETER` for more than `MAX_EVENT_FILTERS_COUNT` descriptors (FLT-13)
/// before any is read, or a descriptor [`filter_descriptor`] refuses.
pub(crate) fn enable_parameters<'a>(
    e: &[u8; ENABLE_PARAMETERS_SIZE],
    mem: &impl Memory<'a>,
) -> Result<EnableTraceParameters, u32> {
    type E = ENABLE_TRACE_PARAMETERS;
    let version = u32_at(e, offset_of!(E, Version));
    let descs_at = u64_at(e, offset_of!(E, EnableFilterDesc));
    let filter_desc_count = u32_at(e, offset_of!(E, FilterDescCount));
    let count = if version == ENABLE_TRACE_PARAMETERS_VERSION {
        u32::from(descs_at != 0)
    } else {
        filter_desc_count
    };
    if count > MAX_EVENT_FILTERS_COUNT {
        return Err(INVALID_PARAMETER);
    }
    let descs = if descs_at == 0 || count == 0 {
        None
    } else {
        let array = mem.bytes(descs_at, count as usize * FILTER_DESCRIPTOR_SIZE)?;
        let descs = array
            .chunks_exact(FILTER_DESCRIPTOR_SIZE)
            .map(|d| filter_descriptor(d.try_into().expect("16 bytes"), mem))
            .collect::<Result<Vec<_>, u32>>()?;
        Some(descs)
    };
    Ok(EnableTraceParameters {
        version,
        enable_property: u32_at(e, offset_of!(E, EnableProperty)),
        control_flags: u32_at(e, offset_of!(E, ControlFlags)),
        source_id: guid_at(e, offset_of!(E, SourceId)),
        enable_filter_desc: descs,
        filter_desc_count,
    })
}

pub(crate) const DATA_DESCRIPTOR_SIZE: usize = size_of::<EVENT_DATA_DESCRIPTOR>();

/// Runs `f` with the `UserData` of an EventWrite as the face's descriptors: none for a NULL
/// array or a count of 0; for a count over 128 an empty array, which the face refuses for
/// that count (`ERROR_INVALID_PARAMETER`, EVT-11) without a descriptor being read; else the
/// `count` descriptors at `data`, each borrowing the `Size` bytes at its `Ptr`. Up to 8 are
/// kept on the stack (EventWrite's common case allocates nothing).
///
/// # Errors
/// Only `ERROR_NOACCESS` from `mem`; the face judges the descriptors (EVT-11, EVT-12).
pub(crate) fn with_data_descriptors<'a, R>(
    count: u32,
    data: u64,
    mem: &impl Memory<'a>,
    f: impl FnOnce(Option<&[EventDataDescriptor<'a>]>) -> R,
) -> Result<R, u32> {
    if data == 0 || count == 0 {
        return Ok(f(None));
    }
    let n = count as usize;
    if n > MAX_DATA_DESCRIPTORS {
        return Ok(f(Some(&[])));
    }
    let array = mem.bytes(data, n * DATA_DESCRIPTOR_SIZE)?;
    let read = |d: &[u8]| -> Result<EventDataDescriptor<'a>, u32> {
        type D = EVENT_DATA_DESCRIPTOR;
        let ptr = u64_at(d, offset_of!(D, Ptr));
        let size = u32_at(d, offset_of!(D, Size));
        Ok(EventDataDescriptor {
            ptr: match ptr {
                0 => None,
                p => Some(mem.bytes(p, size as usize)?),
            },
            size,
            reserved: u32_at(d, offset_of!(D, Anonymous)),
        })
    };
    const SMALL: usize = 8;
    let mut descs = array.chunks_exact(DATA_DESCRIPTOR_SIZE);
    if n <= SMALL {
        let mut small = [EventDataDescriptor::default(); SMALL];
        for (slot, d) in small.iter_mut().zip(&mut descs) {
            *slot = read(d)?;
        }
        Ok(f(Some(&small[..n])))
    } else {
        let v = descs.map(read).collect::<Result<Vec<_>, u32>>()?;
        Ok(f(Some(&v)))
    }
}

pub(crate) const TRACE_HEADER_SIZE: usize = size_of::<EVENT_TRACE_HEADER>();

/// What TraceEvent reads from an `EVENT_TRACE_HEADER` and what follows it.
pub(crate) struct ClassicArgs<'a> {
    pub(crate) class_type: u8,
    pub(crate) class_level: u8,
    pub(crate) class_version: u16,
    pub(crate) guid: etwsim::Guid,
    /// The data: the `Size - 48` bytes after the header, or the blocks of its `MOF_FIELD`s.
    pub(crate) blocks: Vec<&'a [u8]>,
}

/// The classic event whose `EVENT_TRACE_HEADER` is at `header` (EVT-29): `Class.Type`,
/// `Class.Level`, `Class.Version`, the event class GUID — `Guid`, or the GUID at `GuidPtr`
/// with WNODE_FLAG_USE_GUID_PTR — and the data: the `Size - 48` bytes after the header, or,
/// with WNODE_FLAG_USE_MOF_PTR, the blocks of the `(Size - 48) / 16` `MOF_FIELD`s there.
///
/// # Errors
/// `ERROR_INVALID_PARAMETER` for a `Size` below 48, a NULL `GuidPtr`, a MOF array that is not
/// whole `MOF_FIELD`s or holds more than `MAX_MOF_FIELDS`, or a NULL `DataPtr` with a
/// length; `ERROR_INVALID_FLAG_NUMBER` without WNODE_FLAG_TRACED_GUID — in that order.
pub(crate) fn trace_event<'a>(header: u64, mem: &impl Memory<'a>) -> Result<ClassicArgs<'a>, u32> {
    type H = EVENT_TRACE_HEADER;
    let h = mem.bytes(header, TRACE_HEADER_SIZE)?;
    let size = usize::from(u16_at(h, offset_of!(H, Size)));
    if size < TRACE_HEADER_SIZE {
        return Err(INVALID_PARAMETER);
    }
    let flags = u32_at(
        h,
        offset_of!(H, Anonymous4) + offset_of!(EVENT_TRACE_HEADER_3_1, Flags),
    );
    if flags & WNODE_FLAG_TRACED_GUID == 0 {
        return Err(Win32Error::ERROR_INVALID_FLAG_NUMBER.code());
    }
    let guid_at_ = offset_of!(H, Anonymous3);
    let guid = if flags & WNODE_FLAG_USE_GUID_PTR != 0 {
        match u64_at(h, guid_at_) {
            0 => return Err(INVALID_PARAMETER),
            p => guid_at(mem.bytes(p, size_of::<GUID>())?, 0),
        }
    } else {
        guid_at(h, guid_at_)
    };
    let after = &mem.bytes(header, size)?[TRACE_HEADER_SIZE..];
    let class = offset_of!(H, Anonymous2);
    type C = EVENT_TRACE_HEADER_1_0;
    Ok(ClassicArgs {
        class_type: h[class + offset_of!(C, Type)],
        class_level: h[class + offset_of!(C, Level)],
        class_version: u16_at(h, class + offset_of!(C, Version)),
        guid,
        blocks: classic_data(flags, after, mem)?,
    })
}

/// The data blocks of a classic event whose header is followed by `after`: `after` itself,
/// or with WNODE_FLAG_USE_MOF_PTR the blocks of the `MOF_FIELD` array it holds.
fn classic_data<'a>(
    flags: u32,
    after: &'a [u8],
    mem: &impl Memory<'a>,
) -> Result<Vec<&'a [u8]>, u32> {
    if flags & WNODE_FLAG_USE_MOF_PTR == 0 {
        return Ok(vec![after]);
    }
    const FIELD: usize = size_of::<MOF_FIELD>();
    if after.len() % FIELD != 0 || after.len() / FIELD > MAX_MOF_FIELDS as usize {
        return Err(INVALID_PARAMETER);
    }
    after
        .chunks_exact(FIELD)
        .map(|f| {
            let ptr = u64_at(f, offset_of!(MOF_FIELD, DataPtr));
            let len = u32_at(f, offset_of!(MOF_FIELD, Length)) as usize;
            match (ptr, len) {
                (_, 0) => Ok(&[][..]),
                (0, _) => Err(INVALID_PARAMETER),
                (p, n) => mem.bytes(p, n),
            }
        })
        .collect()
}

pub(crate) const LOGFILE_SIZE: usize = size_of::<EVENT_TRACE_LOGFILEW>();

/// What OpenTrace reads from an `EVENT_TRACE_LOGFILE` besides its callbacks.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct LogfileArgs {
    pub(crate) log_file_name: Option<String>,
    pub(crate) logger_name: Option<String>,
    pub(crate) process_trace_mode: u32,
}

/// The names and `ProcessTraceMode` of the `EVENT_TRACE_LOGFILEW` / `A` (one layout) `lf`.
///
/// # Errors
/// `ERROR_INVALID_PARAMETER` for a name longer than any string ETW takes or (`W`) not
/// UTF-16.
pub(crate) fn logfile<'a>(
    lf: &[u8; LOGFILE_SIZE],
    enc: Encoding,
    mem: &impl Memory<'a>,
) -> Result<LogfileArgs, u32> {
    type L = EVENT_TRACE_LOGFILEW;
    let name = |at: usize| -> Result<Option<String>, u32> {
        match u64_at(lf, at) {
            0 => Ok(None),
            p => strings::decode(mem.string(p, enc)?, enc)
                .map(Some)
                .map_err(|()| INVALID_PARAMETER),
        }
    };
    Ok(LogfileArgs {
        log_file_name: name(offset_of!(L, LogFileName))?,
        logger_name: name(offset_of!(L, LoggerName))?,
        process_trace_mode: u32_at(lf, offset_of!(L, Anonymous1)),
    })
}

/// The handles of a ProcessTrace: `None` for a NULL array (the face refuses it), else the
/// `count` handles at `array`.
///
/// # Errors
/// `ERROR_BAD_LENGTH` for a count outside 1..=64 (CON-03), before any handle is read.
pub(crate) fn process_trace_handles<'a>(
    array: u64,
    count: u32,
    mem: &impl Memory<'a>,
) -> Result<Option<Vec<u64>>, u32> {
    if array == 0 {
        return Ok(None);
    }
    if count == 0 || count as usize > etwsim::win32::MAX_PROCESS_TRACE_HANDLES {
        return Err(BAD_LENGTH);
    }
    let bytes = mem.bytes(array, count as usize * size_of::<u64>())?;
    Ok(Some(bytes.chunks_exact(8).map(|h| u64_at(h, 0)).collect()))
}

/// Sets `RegHandle` of every `TRACE_GUID_REGISTRATION` in `entries` (whole entries; a
/// partial one at the end is left alone) to `handle`; their `Guid`s are not read.
pub(crate) fn set_reg_handles(entries: &mut [u8], handle: u64) {
    const ENTRY: usize = size_of::<TRACE_GUID_REGISTRATION>();
    for e in entries.chunks_exact_mut(ENTRY) {
        put_u64(e, offset_of!(TRACE_GUID_REGISTRATION, RegHandle), handle);
    }
}

/// The `PERFINFO_GROUPMASK` words TraceSetInformation(TraceSystemTraceEnableFlagsInfo) was
/// given (KRN-06): `data` is the `InformationLength` bytes at `TraceInformation`, `None` for
/// NULL.
///
/// # Errors
/// `ERROR_INVALID_PARAMETER` for NULL; `ERROR_BAD_LENGTH` for a length that is not 4 to 32
/// bytes in whole ULONGs.
pub(crate) fn system_trace_enable_flags(data: Option<&[u8]>) -> Result<&[u8], u32> {
    let data = data.ok_or(INVALID_PARAMETER)?;
    if !(4..=32).contains(&data.len()) || data.len() % 4 != 0 {
        return Err(BAD_LENGTH);
    }
    Ok(data)
}

/// The input of EnumerateTraceGuidsEx: a provider GUID for TraceGuidQueryInfo, nothing for
/// other classes. `data` is the `InBufferSize` bytes at `InBuffer`, `None` for NULL.
///
/// # Errors
/// `ERROR_INVALID_PARAMETER` for TraceGuidQueryInfo without exactly 16 bytes (PRV-29).
pub(crate) fn enumerate_input(
    class: TRACE_QUERY_INFO_CLASS,
    data: Option<&[u8]>,
) -> Result<Option<etwsim::Guid>, u32> {
    if class != TraceGuidQueryInfo {
        return Ok(None);
    }
    match data {
        Some(g) if g.len() == size_of::<GUID>() => Ok(Some(guid_at(g, 0))),
        _ => Err(INVALID_PARAMETER),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fuzz-style memory: addresses are offsets into `0`.
    struct Blob<'a>(&'a [u8]);

    impl<'a> Memory<'a> for Blob<'a> {
        fn bytes(&self, addr: u64, len: usize) -> Result<&'a [u8], u32> {
            let start = usize::try_from(addr).map_err(|_| NOACCESS)?;
            let end = start.checked_add(len).ok_or(NOACCESS)?;
            self.0.get(start..end).ok_or(NOACCESS)
        }
        fn string(&self, addr: u64, _: Encoding) -> Result<&'a [u8], u32> {
            let start = usize::try_from(addr).map_err(|_| NOACCESS)?;
            self.0.get(start..).ok_or(NOACCESS)
        }
    }

    #[test]
    fn a_properties_block_encodes_back_to_its_bytes() {
        let mut bytes: Vec<u8> = (0..=255u8).cycle().take(PROPS_FIXED + 37).collect();
        put_u32(
            &mut bytes,
            props::WNODE_BUFFER_SIZE,
            (PROPS_FIXED + 37) as u32,
        );
        for enc in [Encoding::Wide, Encoding::Ansi] {
            let (fixed, tail) = bytes.split_at(PROPS_FIXED);
            let b = PropsBlock::parse(fixed.try_into().unwrap(), tail, enc);
            let mut again = vec![0u8; bytes.len()];
            let (f, t) = again.split_at_mut(PROPS_FIXED);
            b.encode(f.try_into().unwrap(), t);
            assert_eq!(again, bytes, "{enc:?}");
        }
    }

    #[test]
    fn counts_are_checked_before_what_they_count_is_read() {
        // rule: FLT-13
        let mut e = [0u8; ENABLE_PARAMETERS_SIZE];
        put_u32(&mut e, 0, ENABLE_TRACE_PARAMETERS_VERSION_2);
        put_u64(
            &mut e,
            offset_of!(ENABLE_TRACE_PARAMETERS, EnableFilterDesc),
            1 << 40,
        );
        put_u32(
            &mut e,
            offset_of!(ENABLE_TRACE_PARAMETERS, FilterDescCount),
            14,
        );
        assert_eq!(
            enable_parameters(&e, &Blob(&[])).unwrap_err(),
            INVALID_PARAMETER
        );
        put_u32(
            &mut e,
            offset_of!(ENABLE_TRACE_PARAMETERS, FilterDescCount),
            13,
        );
        assert_eq!(enable_parameters(&e, &Blob(&[])).unwrap_err(), NOACCESS);
        // rule: CON-03
        assert_eq!(process_trace_handles(8, 65, &Blob(&[])), Err(BAD_LENGTH));
        assert_eq!(process_trace_handles(8, 0, &Blob(&[])), Err(BAD_LENGTH));
        assert_eq!(process_trace_handles(0, 65, &Blob(&[])), Ok(None));
        let mut d = [0u8; FILTER_DESCRIPTOR_SIZE];
        put_u64(&mut d, FILTER_PTR, 1 << 40);
        put_u32(&mut d, FILTER_SIZE, MAX_FILTER_BYTES + 1);
        assert_eq!(filter_descriptor(&d, &Blob(&[])), Err(INVALID_PARAMETER));
    }

    #[test]
    fn an_oversized_data_count_reads_no_descriptor() {
        // rule: EVT-11
        // Two empty descriptors at 16 where the count says more than 128: the face gets none
        // (and refuses the count), and nothing past the two is read.
        let mem = vec![0u8; 16 + 2 * DATA_DESCRIPTOR_SIZE];
        let len = |d: Option<&[EventDataDescriptor<'_>]>| d.map(<[_]>::len);
        for count in [129, 200, u32::MAX] {
            assert_eq!(
                with_data_descriptors(count, 16, &Blob(&mem), len),
                Ok(Some(0))
            );
        }
        assert_eq!(with_data_descriptors(2, 16, &Blob(&mem), len), Ok(Some(2)));
        assert_eq!(
            with_data_descriptors(3, 16, &Blob(&mem), len),
            Err(NOACCESS)
        );
        assert_eq!(with_data_descriptors(2, 0, &Blob(&mem), len), Ok(None));
    }

    #[test]
    fn the_guid_registration_entries_get_the_handle_and_keep_their_guids() {
        let mut e = vec![0xAAu8; 2 * 16 + 5];
        set_reg_handles(&mut e, 0x0102_0304_0506_0708);
        for entry in e.chunks_exact(16) {
            assert_eq!(entry[..8], [0xAA; 8]);
            assert_eq!(u64_at(entry, 8), 0x0102_0304_0506_0708);
        }
        assert_eq!(e[32..], [0xAA; 5]);
    }
}
