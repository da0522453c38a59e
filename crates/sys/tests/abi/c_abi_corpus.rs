//! The committed corpus of the `c_abi_args` fuzz target (`tests/corpus/c_abi_args/`) through
//! its body, `etwsim_sys::fuzzing::c_abi_args`, with deterministic mutations of each seed —
//! every prefix, and a fixed set of byte and word changes — in every `cargo test` (issue 33).
//! Nothing may panic, every refusal must be a documented code (the body checks), and no
//! input may allocate more than a fixed machine plus a multiple of its own length.
//!
//! The seeds are built by [`seeds`]: well-formed blobs of each kind and the nasty cases
//! (offsets past the end, counts larger than the blob, sizes that overflow u32 arithmetic,
//! unterminated strings, zero sizes). Regenerate the files after changing it with
//! `ETWSIM_WRITE_CORPUS=1 cargo test -p etwsim-sys --test abi c_abi_corpus::`. The `found_*`
//! files are inputs a libFuzzer run found, kept as they were.

use etwsim_sys::abi::*;
use etwsim_sys::fuzzing::{BASE, Kind, MACHINE_BUFFER_BYTES, c_abi_args};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::mem::{offset_of, size_of};
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------------------
// Allocation accounting: what the calling thread holds, and its peak since the last reset.
// The fuzz body's machine is deterministic, so all its work runs on the calling thread.

struct Counting;

thread_local! {
    static HELD: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded to the system allocator with the same layout; the
// thread-local counters are const-initialised Cells without destructors, so touching them
// allocates nothing (and `try_with` tolerates a thread being torn down).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size() as isize);
        // SAFETY: forwarded contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size() as isize);
        // SAFETY: forwarded contract.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note(-(layout.size() as isize));
        // SAFETY: forwarded contract.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size as isize - layout.size() as isize);
        // SAFETY: forwarded contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn note(delta: isize) {
    let _ = HELD.try_with(|h| {
        let now = h.get() + delta;
        h.set(now);
        let _ = PEAK.try_with(|p| p.set(p.get().max(now)));
    });
}

/// Runs the fuzz body over `input`, returning the most bytes it held at once beyond what
/// the thread held before.
fn run(input: &[u8]) -> usize {
    let base = HELD.with(Cell::get);
    PEAK.with(|p| p.set(base));
    c_abi_args(input);
    (PEAK.with(Cell::get) - base).max(0) as usize
}

/// What any input may hold at once: the machine — its sessions' buffers, at most
/// `MACHINE_BUFFER_BYTES` in all, and 2 MiB of the rest — and a small multiple of the input
/// (a properties block's string space widened to UTF-16 and copied, a filter's copy).
fn allowed(input: &[u8]) -> usize {
    MACHINE_BUFFER_BYTES as usize + (2 << 20) + 16 * input.len()
}

// ---------------------------------------------------------------------------------------
// The seeds.

fn le16(v: u16) -> [u8; 2] {
    v.to_le_bytes()
}
fn le32(v: u32) -> [u8; 4] {
    v.to_le_bytes()
}
fn le64(v: u64) -> [u8; 8] {
    v.to_le_bytes()
}
fn wide(s: &str) -> Vec<u8> {
    s.encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect()
}
fn put(b: &mut Vec<u8>, at: usize, v: &[u8]) {
    if b.len() < at + v.len() {
        b.resize(at + v.len(), 0);
    }
    b[at..at + v.len()].copy_from_slice(v);
}
fn seed(kind: Kind, body: &[u8]) -> Vec<u8> {
    let mut v = vec![kind as u8];
    v.extend_from_slice(body);
    v
}

/// An `EVENT_TRACE_PROPERTIES` block: the structure, `name_bytes` of room for the session
/// name, then `file` (already encoded, with its NUL) if any; `mode` the LogFileMode.
fn props(name_bytes: usize, file: Option<&[u8]>, mode: u32) -> Vec<u8> {
    type P = EVENT_TRACE_PROPERTIES;
    let fixed = size_of::<P>();
    let mut b = vec![0u8; fixed + name_bytes];
    put(
        &mut b,
        offset_of!(P, Wnode.Flags),
        &le32(WNODE_FLAG_TRACED_GUID),
    );
    put(&mut b, offset_of!(P, Wnode.ClientContext), &le32(1));
    put(&mut b, offset_of!(P, LogFileMode), &le32(mode));
    put(&mut b, offset_of!(P, LoggerNameOffset), &le32(fixed as u32));
    if let Some(f) = file {
        put(
            &mut b,
            offset_of!(P, LogFileNameOffset),
            &le32((fixed + name_bytes) as u32),
        );
        b.extend_from_slice(f);
    }
    let size = b.len() as u32;
    put(&mut b, offset_of!(P, Wnode.BufferSize), &le32(size));
    b
}

fn with_u32(mut b: Vec<u8>, at: usize, v: u32) -> Vec<u8> {
    put(&mut b, at, &le32(v));
    b
}

/// `ENABLE_TRACE_PARAMETERS` at BASE with `filters` (type, data): the descriptor array right
/// after it, then each filter's data.
fn enable(version: u32, count: u32, filters: &[(u32, Vec<u8>)]) -> Vec<u8> {
    type E = ENABLE_TRACE_PARAMETERS;
    let head = size_of::<E>();
    let array = head;
    let mut data_at = array + 16 * filters.len();
    let mut b = vec![0u8; head];
    put(&mut b, offset_of!(E, Version), &le32(version));
    put(&mut b, offset_of!(E, FilterDescCount), &le32(count));
    if !filters.is_empty() {
        put(
            &mut b,
            offset_of!(E, EnableFilterDesc),
            &le64(BASE + array as u64),
        );
    }
    for (i, (ty, data)) in filters.iter().enumerate() {
        let d = array + 16 * i;
        put(&mut b, d, &le64(BASE + data_at as u64));
        put(&mut b, d + 8, &le32(data.len() as u32));
        put(&mut b, d + 12, &le32(*ty));
        put(&mut b, data_at, data);
        data_at += data.len();
    }
    b
}

/// `EVENT_FILTER_EVENT_ID`: FilterIn, Reserved, Count, the ids.
fn event_ids(filter_in: bool, count: u16, ids: &[u16]) -> Vec<u8> {
    let mut b = vec![u8::from(filter_in), 0];
    b.extend_from_slice(&le16(count));
    for id in ids {
        b.extend_from_slice(&le16(*id));
    }
    b
}

/// `EVENT_FILTER_EVENT_NAME`: keywords, level, FilterIn, NameCount, the UTF-8 names.
fn event_names(count: u16, names: &[&str]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&le64(0));
    b.extend_from_slice(&le64(0));
    b.push(0);
    b.push(1);
    b.extend_from_slice(&le16(count));
    for n in names {
        b.extend_from_slice(n.as_bytes());
        b.push(0);
    }
    b
}

/// `[UserDataCount][mode][UserData = BASE + 16]`, the descriptors, then the blocks.
fn event_data(count: u32, mode: u32, blocks: &[(u8, &[u8])]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&le32(count));
    b.extend_from_slice(&le32(mode));
    b.extend_from_slice(&le64(BASE + 16));
    let mut data_at = 16 + 16 * blocks.len();
    let mut data = Vec::new();
    for (ty, block) in blocks {
        b.extend_from_slice(&le64(BASE + data_at as u64));
        b.extend_from_slice(&le32(block.len() as u32));
        b.extend_from_slice(&le32(u32::from(*ty)));
        data.extend_from_slice(block);
        data_at += block.len();
    }
    b.extend_from_slice(&data);
    b
}

/// TraceLogging event metadata: size, no tags, the name, one UINT32 field.
fn tracelogging_event(name: &str, field: &str) -> Vec<u8> {
    let mut b = vec![0, 0, 0];
    b.extend_from_slice(name.as_bytes());
    b.push(0);
    b.extend_from_slice(field.as_bytes());
    b.push(0);
    b.push(8); // TlgInUINT32
    let n = b.len() as u16;
    b[..2].copy_from_slice(&le16(n));
    b
}

/// Provider traits: total size, the name, one group trait (PRV-34).
fn traits(name: &str) -> Vec<u8> {
    let mut b = vec![0, 0];
    b.extend_from_slice(name.as_bytes());
    b.push(0);
    b.extend_from_slice(&le16(19));
    b.push(1); // EtwProviderTraitTypeGroup
    b.extend_from_slice(&[0x5A; 16]);
    let n = b.len() as u16;
    b[..2].copy_from_slice(&le16(n));
    b
}

/// `EVENT_TRACE_HEADER` at BASE with `flags` and `after` (what `Size` covers after it).
fn trace_header(flags: u32, after: &[u8], size: Option<u16>) -> Vec<u8> {
    type H = EVENT_TRACE_HEADER;
    let mut b = vec![0u8; size_of::<H>()];
    let size = size.unwrap_or((size_of::<H>() + after.len()) as u16);
    put(&mut b, offset_of!(H, Size), &le16(size));
    b[offset_of!(H, Anonymous2)] = 1; // Class.Type
    b[offset_of!(H, Anonymous2) + 1] = 4; // Class.Level
    put(&mut b, offset_of!(H, Anonymous3), &[0x3C; 16]);
    put(
        &mut b,
        offset_of!(H, Anonymous4) + 4,
        &le32(WNODE_FLAG_TRACED_GUID | flags),
    );
    b.extend_from_slice(after);
    b
}

/// `MOF_FIELD`s whose blocks follow the array that itself follows the 48-byte header.
fn mof_fields(blocks: &[&[u8]]) -> (Vec<u8>, Vec<u8>) {
    let mut fields = Vec::new();
    let mut data = Vec::new();
    let mut at = 48 + 16 * blocks.len();
    for block in blocks {
        fields.extend_from_slice(&le64(BASE + at as u64));
        fields.extend_from_slice(&le32(block.len() as u32));
        fields.extend_from_slice(&le32(0));
        data.extend_from_slice(block);
        at += block.len();
    }
    (fields, data)
}

/// `EVENT_TRACE_LOGFILE` at BASE with the given names (encoded, NUL included) after it.
fn logfile(file: Option<&[u8]>, logger: Option<&[u8]>, mode: u32) -> Vec<u8> {
    type L = EVENT_TRACE_LOGFILEW;
    let mut b = vec![0u8; size_of::<L>()];
    put(&mut b, offset_of!(L, Anonymous1), &le32(mode));
    put(&mut b, offset_of!(L, Anonymous2), &le64(0x1234)); // a callback (never called)
    for (at, name) in [
        (offset_of!(L, LogFileName), file),
        (offset_of!(L, LoggerName), logger),
    ] {
        if let Some(n) = name {
            let addr = BASE + b.len() as u64;
            put(&mut b, at, &le64(addr));
            b.extend_from_slice(n);
        }
    }
    b
}

/// `[HandleCount][times][HandleArray = BASE + 32][StartTime][EndTime]` and the handles.
fn process_trace(count: u32, times: u32, start: i64, end: i64, handles: &[u64]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&le32(count));
    b.extend_from_slice(&le32(times));
    b.extend_from_slice(&le64(BASE + 32));
    b.extend_from_slice(&le64(start as u64));
    b.extend_from_slice(&le64(end as u64));
    for h in handles {
        b.extend_from_slice(&le64(*h));
    }
    b
}

fn class_and(class: u32, rest: &[u8]) -> Vec<u8> {
    let mut b = le32(class).to_vec();
    b.extend_from_slice(rest);
    b
}

/// The seeds, by file name.
fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    type P = EVENT_TRACE_PROPERTIES;
    let fixed = size_of::<P>();
    let wnode_size = offset_of!(P, Wnode.BufferSize);
    let logger_off = offset_of!(P, LoggerNameOffset);
    let file_off = offset_of!(P, LogFileNameOffset);
    let file_w = props(
        128,
        Some(&wide("fuzz.etl")),
        EVENT_TRACE_FILE_MODE_SEQUENTIAL,
    );
    let rt_w = props(64, None, EVENT_TRACE_REAL_TIME_MODE);
    let file_a = props(64, Some(b"fuzz_a.etl\0"), EVENT_TRACE_FILE_MODE_SEQUENTIAL);
    let rt_a = props(32, None, EVENT_TRACE_REAL_TIME_MODE);
    let unterminated_w = {
        let mut b = props(
            128,
            Some(&wide("fuzz.etl")),
            EVENT_TRACE_FILE_MODE_SEQUENTIAL,
        );
        let n = b.len();
        b[n - 2..].copy_from_slice(&le16(u16::from(b'x'))); // the NUL becomes a letter
        b
    };
    let unterminated_a = {
        let mut b = file_a.clone();
        let n = b.len();
        b[n - 1] = b'x';
        b
    };
    let filters = vec![
        (EVENT_FILTER_TYPE_EVENT_ID, event_ids(true, 2, &[1, 7])),
        (
            EVENT_FILTER_TYPE_PID,
            [1u32, 4].iter().flat_map(|p| le32(*p)).collect(),
        ),
        (
            EVENT_FILTER_TYPE_EXECUTABLE_NAME,
            wide("fuzz.exe;other.exe"),
        ),
        (
            EVENT_FILTER_TYPE_EVENT_NAME,
            event_names(2, &["Ev", "Other"]),
        ),
        (EVENT_FILTER_TYPE_STACKWALK, event_ids(false, 1, &[2])),
    ];
    let pid = (EVENT_FILTER_TYPE_PID, le32(1).to_vec());
    let tl = tracelogging_event("Ev", "f");
    let te_inline = trace_header(0, b"inline", None);
    let guid_ptr = {
        // GuidPtr points at a GUID right after the data.
        let mut b = trace_header(WNODE_FLAG_USE_GUID_PTR, b"ptr", None);
        let at = BASE + b.len() as u64;
        put(
            &mut b,
            offset_of!(EVENT_TRACE_HEADER, Anonymous3),
            &le64(at),
        );
        b.extend_from_slice(&[0x9D; 16]);
        b
    };
    let mof = {
        let (fields, data) = mof_fields(&[&le32(7), b"", b"MOF!"]);
        let mut b = trace_header(WNODE_FLAG_USE_MOF_PTR, &fields, None);
        b.extend_from_slice(&data);
        b
    };
    let mof_17 = {
        let blocks: Vec<&[u8]> = vec![b"x"; 17];
        let (fields, data) = mof_fields(&blocks);
        let mut b = trace_header(WNODE_FLAG_USE_MOF_PTR, &fields, None);
        b.extend_from_slice(&data);
        b
    };
    let mof_null = {
        let mut fields = le64(0).to_vec();
        fields.extend_from_slice(&le32(4));
        fields.extend_from_slice(&le32(0));
        trace_header(WNODE_FLAG_USE_MOF_PTR, &fields, None)
    };
    let rt_mode = PROCESS_TRACE_MODE_REAL_TIME | PROCESS_TRACE_MODE_EVENT_RECORD;
    let provider_guid = 0x2f1b_5a8e_7c3d_4e9f_a0b1_c2d3_e4f5_0617u128;
    let guid_bytes: Vec<u8> = {
        let g = GUID::from_u128(provider_guid);
        let mut b = le32(g.data1).to_vec();
        b.extend_from_slice(&le16(g.data2));
        b.extend_from_slice(&le16(g.data3));
        b.extend_from_slice(&g.data4);
        b
    };
    vec![
        // StartTrace / ControlTrace, W.
        ("props_w_file", seed(Kind::PropertiesW, &file_w)),
        ("props_w_realtime", seed(Kind::PropertiesW, &rt_w)),
        (
            "props_w_buffersize_zero",
            seed(Kind::PropertiesW, &with_u32(rt_w.clone(), wnode_size, 0)),
        ),
        (
            "props_w_buffersize_below_struct",
            seed(Kind::PropertiesW, &with_u32(rt_w.clone(), wnode_size, 119)),
        ),
        (
            "props_w_buffersize_past_block",
            seed(
                Kind::PropertiesW,
                &with_u32(rt_w.clone(), wnode_size, u32::MAX),
            ),
        ),
        (
            "props_w_offset_past_end",
            seed(
                Kind::PropertiesW,
                &with_u32(file_w.clone(), file_off, file_w.len() as u32 + 2),
            ),
        ),
        (
            "props_w_offset_overflow",
            seed(
                Kind::PropertiesW,
                &with_u32(rt_w.clone(), logger_off, u32::MAX - 1),
            ),
        ),
        (
            "props_w_offset_inside_struct",
            seed(Kind::PropertiesW, &with_u32(rt_w.clone(), logger_off, 1)),
        ),
        (
            "props_w_offset_odd",
            seed(
                Kind::PropertiesW,
                &with_u32(file_w.clone(), file_off, (fixed + 129) as u32),
            ),
        ),
        (
            "props_w_offsets_overlap",
            seed(
                Kind::PropertiesW,
                &with_u32(file_w.clone(), logger_off, (fixed + 128) as u32),
            ),
        ),
        (
            "props_w_name_does_not_fit",
            seed(
                Kind::PropertiesW,
                &props(4, None, EVENT_TRACE_REAL_TIME_MODE),
            ),
        ),
        (
            "props_w_unterminated_file",
            seed(Kind::PropertiesW, &unterminated_w),
        ),
        (
            "props_w_buffers_4mb",
            seed(
                Kind::PropertiesW,
                &with_u32(rt_w.clone(), offset_of!(P, BufferSize), 4096),
            ),
        ),
        (
            "props_w_buffers_16mb",
            seed(
                Kind::PropertiesW,
                &with_u32(rt_w.clone(), offset_of!(P, BufferSize), 16384),
            ),
        ),
        (
            "props_w_buffers_huge",
            seed(
                Kind::PropertiesW,
                &with_u32(
                    with_u32(rt_w.clone(), offset_of!(P, BufferSize), u32::MAX),
                    offset_of!(P, MaximumBuffers),
                    u32::MAX,
                ),
            ),
        ),
        (
            "props_w_no_traced_guid",
            seed(
                Kind::PropertiesW,
                &with_u32(rt_w.clone(), offset_of!(P, Wnode.Flags), 0),
            ),
        ),
        // The A forms: offsets widened (an offset near u32::MAX must not wrap).
        ("props_a_file", seed(Kind::PropertiesA, &file_a)),
        ("props_a_realtime", seed(Kind::PropertiesA, &rt_a)),
        (
            "props_a_offset_overflow",
            seed(
                Kind::PropertiesA,
                &with_u32(file_a.clone(), file_off, 0x8000_0000),
            ),
        ),
        (
            "props_a_buffersize_overflow",
            seed(
                Kind::PropertiesA,
                &with_u32(rt_a.clone(), wnode_size, u32::MAX),
            ),
        ),
        (
            "props_a_unterminated_file",
            seed(Kind::PropertiesA, &unterminated_a),
        ),
        // Instance names.
        (
            "name_plain",
            seed(Kind::InstanceName, &wide("etwsim fuzz name")),
        ),
        ("name_empty", seed(Kind::InstanceName, &[0, 0])),
        ("name_unterminated", seed(Kind::InstanceName, b"abcdefg")),
        (
            "name_unpaired_surrogate",
            seed(Kind::InstanceName, &[0x00, 0xD8, 0x41, 0x00, 0, 0]),
        ),
        // EnableTraceEx2.
        (
            "enable_v2_filters",
            seed(
                Kind::EnableParameters,
                &enable(2, filters.len() as u32, &filters),
            ),
        ),
        (
            "enable_v1_one_filter",
            seed(
                Kind::EnableParameters,
                &enable(1, 0, std::slice::from_ref(&pid)),
            ),
        ),
        (
            "enable_no_filters",
            seed(Kind::EnableParameters, &enable(2, 0, &[])),
        ),
        (
            "enable_count_over_max",
            seed(Kind::EnableParameters, &enable(2, 14, &filters)),
        ),
        (
            "enable_count_huge",
            seed(Kind::EnableParameters, &enable(2, u32::MAX, &filters)),
        ),
        (
            "enable_count_past_array",
            seed(
                Kind::EnableParameters,
                &enable(2, 13, std::slice::from_ref(&pid)),
            ),
        ),
        (
            "enable_event_id_count_past_data",
            seed(
                Kind::EnableParameters,
                &enable(
                    2,
                    1,
                    &[(EVENT_FILTER_TYPE_EVENT_ID, event_ids(true, u16::MAX, &[1]))],
                ),
            ),
        ),
        (
            "enable_event_name_count_past_data",
            seed(
                Kind::EnableParameters,
                &enable(
                    2,
                    1,
                    &[(EVENT_FILTER_TYPE_EVENT_NAME, event_names(u16::MAX, &["Ev"]))],
                ),
            ),
        ),
        (
            "enable_unterminated_exe_name",
            seed(
                Kind::EnableParameters,
                &enable(
                    2,
                    1,
                    &[(EVENT_FILTER_TYPE_EXECUTABLE_NAME, b"f\0u\0z\0z\0".to_vec())],
                ),
            ),
        ),
        (
            "enable_zero_size_filters",
            seed(
                Kind::EnableParameters,
                &enable(
                    2,
                    2,
                    &[
                        (EVENT_FILTER_TYPE_PID, vec![]),
                        (EVENT_FILTER_TYPE_PAYLOAD, vec![]),
                    ],
                ),
            ),
        ),
        (
            "enable_payload_garbage",
            seed(
                Kind::EnableParameters,
                &enable(2, 1, &[(EVENT_FILTER_TYPE_PAYLOAD, vec![0xFF; 40])]),
            ),
        ),
        (
            "enable_filter_size_over",
            seed(
                Kind::EnableParameters,
                &with_u32(enable(2, 1, std::slice::from_ref(&pid)), 48 + 8, 0x1_0001),
            ),
        ),
        // EnableTraceEx.
        (
            "filter_pid",
            seed(
                Kind::FilterDescriptor,
                &enable(2, 1, std::slice::from_ref(&pid))[48..]
                    .iter()
                    .copied()
                    .enumerate()
                    .map(|(i, b)| if i < 8 { le64(BASE + 16)[i] } else { b })
                    .collect::<Vec<_>>(),
            ),
        ),
        (
            "filter_stackwalk_level_kw",
            seed(Kind::FilterDescriptor, &{
                let mut b = le64(BASE + 16).to_vec();
                b.extend_from_slice(&le32(24));
                b.extend_from_slice(&le32(EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW));
                b.extend_from_slice(&[1; 24]);
                b
            }),
        ),
        (
            "filter_size_past_data",
            seed(Kind::FilterDescriptor, &{
                let mut b = le64(BASE + 16).to_vec();
                b.extend_from_slice(&le32(u32::MAX));
                b.extend_from_slice(&le32(EVENT_FILTER_TYPE_PID));
                b.extend_from_slice(&le32(1));
                b
            }),
        ),
        // The EventWrite family.
        (
            "data_two_blocks",
            seed(
                Kind::EventData,
                &event_data(2, 0, &[(0, b"abc"), (0, &le32(7))]),
            ),
        ),
        (
            "data_tracelogging",
            seed(
                Kind::EventData,
                &event_data(
                    3,
                    1 | 2,
                    &[(1, &tl), (2, &traits("FuzzProvider")), (0, &le32(7))],
                ),
            ),
        ),
        (
            "data_ex_filtered",
            seed(Kind::EventData, &event_data(1, 4 | 0x100, &[(0, b"x")])),
        ),
        (
            "data_count_over_128",
            seed(
                Kind::EventData,
                &event_data(129, 0, &[(0u8, &b""[..]); 129]),
            ),
        ),
        (
            "data_count_huge",
            seed(
                Kind::EventData,
                &event_data(u32::MAX, 0, &[(0, b"a"), (0, b"b")]),
            ),
        ),
        (
            "data_block_size_past_data",
            seed(
                Kind::EventData,
                &with_u32(event_data(1, 0, &[(0, b"abcd")]), 16 + 8, u32::MAX),
            ),
        ),
        (
            "data_reserved_bits",
            seed(
                Kind::EventData,
                &event_data(1, 1, &[(0, b"abcd")])
                    .into_iter()
                    .enumerate()
                    .map(|(i, b)| if i == 16 + 13 { 1 } else { b })
                    .collect::<Vec<_>>(),
            ),
        ),
        (
            "data_timestamp_wrong_size",
            seed(
                Kind::EventData,
                &event_data(2, 1, &[(3, b"1234"), (0, b"x")]),
            ),
        ),
        (
            "data_two_metadata",
            seed(Kind::EventData, &event_data(2, 1, &[(1, &tl), (1, &tl)])),
        ),
        (
            "data_null_array",
            seed(
                Kind::EventData,
                &with_u32(with_u32(event_data(1, 0, &[(0, b"a")]), 8, 0), 12, 0),
            ),
        ),
        // EventSetInformation.
        (
            "info_traits",
            seed(
                Kind::EventInformation,
                &class_and(2, &traits("FuzzProvider")),
            ),
        ),
        (
            "info_use_descriptor_type",
            seed(Kind::EventInformation, &class_and(3, &[1])),
        ),
        (
            "info_traits_size_past_data",
            seed(
                Kind::EventInformation,
                &class_and(2, &{
                    let mut t = traits("FuzzProvider");
                    t[..2].copy_from_slice(&le16(u16::MAX));
                    t
                }),
            ),
        ),
        (
            "info_traits_unterminated_name",
            seed(
                Kind::EventInformation,
                &class_and(2, &[9, 0, b'a', b'b', b'c', b'd', b'e', b'f', b'g']),
            ),
        ),
        (
            "info_traits_empty",
            seed(Kind::EventInformation, &class_and(2, &[])),
        ),
        (
            "info_unknown_class",
            seed(Kind::EventInformation, &class_and(99, &[1, 2, 3])),
        ),
        // TraceEvent.
        ("classic_inline", seed(Kind::TraceEvent, &te_inline)),
        ("classic_guid_ptr", seed(Kind::TraceEvent, &guid_ptr)),
        ("classic_mof_fields", seed(Kind::TraceEvent, &mof)),
        (
            "classic_size_below_header",
            seed(Kind::TraceEvent, &trace_header(0, b"", Some(47))),
        ),
        (
            "classic_size_past_data",
            seed(Kind::TraceEvent, &trace_header(0, b"abc", Some(u16::MAX))),
        ),
        ("classic_mof_17_fields", seed(Kind::TraceEvent, &mof_17)),
        (
            "classic_mof_partial_field",
            seed(
                Kind::TraceEvent,
                &trace_header(WNODE_FLAG_USE_MOF_PTR, &[0; 20], None),
            ),
        ),
        ("classic_mof_null_data", seed(Kind::TraceEvent, &mof_null)),
        (
            "classic_null_guid_ptr",
            seed(
                Kind::TraceEvent,
                &trace_header(WNODE_FLAG_USE_GUID_PTR, b"", None)
                    .into_iter()
                    .enumerate()
                    .map(|(i, b)| if (24..32).contains(&i) { 0 } else { b })
                    .collect::<Vec<_>>(),
            ),
        ),
        (
            "classic_no_traced_guid",
            seed(Kind::TraceEvent, &with_u32(te_inline.clone(), 44, 0)),
        ),
        // OpenTrace.
        (
            "logfile_w_realtime",
            seed(
                Kind::LogfileW,
                &logfile(None, Some(&wide("etwsim fuzz")), rt_mode),
            ),
        ),
        (
            "logfile_w_file",
            seed(
                Kind::LogfileW,
                &logfile(
                    Some(&wide("fuzz.etl")),
                    None,
                    PROCESS_TRACE_MODE_EVENT_RECORD,
                ),
            ),
        ),
        (
            "logfile_w_both",
            seed(
                Kind::LogfileW,
                &logfile(Some(&wide("fuzz.etl")), Some(&wide("etwsim fuzz")), rt_mode),
            ),
        ),
        (
            "logfile_w_unterminated",
            seed(Kind::LogfileW, &logfile(None, Some(b"e\0t\0w"), rt_mode)),
        ),
        (
            "logfile_w_unknown_session",
            seed(
                Kind::LogfileW,
                &logfile(None, Some(&wide("nobody")), rt_mode),
            ),
        ),
        (
            "logfile_a_realtime",
            seed(
                Kind::LogfileA,
                &logfile(None, Some(b"etwsim fuzz\0"), rt_mode),
            ),
        ),
        (
            "logfile_a_file",
            seed(Kind::LogfileA, &logfile(Some(b"fuzz.etl\0"), None, 0)),
        ),
        // ProcessTrace.
        (
            "process_one_handle",
            seed(Kind::ProcessTrace, &process_trace(1, 0, 0, 0, &[0x1_0000])),
        ),
        (
            "process_times_reversed",
            seed(
                Kind::ProcessTrace,
                &process_trace(1, 3, 200, 100, &[0x1_0000]),
            ),
        ),
        (
            "process_unknown_handle",
            seed(
                Kind::ProcessTrace,
                &process_trace(2, 0, 0, 0, &[0x1_0000, 77]),
            ),
        ),
        (
            "process_count_65",
            seed(Kind::ProcessTrace, &process_trace(65, 0, 0, 0, &[0x1_0000])),
        ),
        (
            "process_count_zero",
            seed(Kind::ProcessTrace, &process_trace(0, 0, 0, 0, &[])),
        ),
        (
            "process_count_past_array",
            seed(Kind::ProcessTrace, &process_trace(64, 0, 0, 0, &[0x1_0000])),
        ),
        // TraceSetInformation / TraceQueryInformation.
        (
            "trace_info_group_mask",
            seed(
                Kind::TraceInformation,
                &class_and(
                    4,
                    &[&le32(32)[..], &le32(0x0000_0003), &le32(0x20)].concat(),
                ),
            ),
        ),
        (
            "trace_info_bad_length",
            seed(
                Kind::TraceInformation,
                &class_and(4, &[&le32(3)[..], &[1, 2, 3, 4, 5]].concat()),
            ),
        ),
        (
            "trace_info_empty",
            seed(Kind::TraceInformation, &class_and(4, &le32(0))),
        ),
        (
            "trace_info_max_loggers",
            seed(Kind::TraceInformation, &class_and(19, &le32(4))),
        ),
        (
            "trace_info_unknown_class",
            seed(Kind::TraceInformation, &class_and(99, &le32(4))),
        ),
        (
            "trace_info_negative_class",
            seed(Kind::TraceInformation, &class_and(u32::MAX, &le32(4))),
        ),
        // EnumerateTraceGuidsEx.
        ("guids_list", seed(Kind::EnumerateGuids, &class_and(0, &[]))),
        (
            "guids_info",
            seed(Kind::EnumerateGuids, &class_and(1, &guid_bytes)),
        ),
        (
            "guids_info_short",
            seed(Kind::EnumerateGuids, &class_and(1, &guid_bytes[..15])),
        ),
        (
            "guids_process",
            seed(Kind::EnumerateGuids, &class_and(2, &[])),
        ),
        (
            "guids_unknown_class",
            seed(Kind::EnumerateGuids, &class_and(77, &[])),
        ),
        // RegisterTraceGuids.
        (
            "registrations_two",
            seed(Kind::GuidRegistrations, &[0x11; 32]),
        ),
        (
            "registrations_partial",
            seed(Kind::GuidRegistrations, &[0x22; 21]),
        ),
    ]
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/c_abi_args")
}

/// Every file of the corpus folder (seeds, and anything a fuzzer run left there), sorted.
fn corpus() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(corpus_dir())
        .expect("the corpus folder")
        .map(|e| {
            let path = e.expect("an entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).expect("readable"))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn the_committed_seeds_are_what_the_helper_builds() {
    let dir = corpus_dir();
    let write = std::env::var_os("ETWSIM_WRITE_CORPUS").is_some();
    if write {
        std::fs::create_dir_all(&dir).unwrap();
    }
    let seeds = seeds();
    for (name, bytes) in &seeds {
        let path = dir.join(format!("{name}.bin"));
        if write {
            std::fs::write(&path, bytes).unwrap();
        }
        let committed = std::fs::read(&path).unwrap_or_else(|e| {
            panic!("{}: {e} (ETWSIM_WRITE_CORPUS=1 writes it)", path.display())
        });
        assert_eq!(
            &committed, bytes,
            "{name}: regenerate with ETWSIM_WRITE_CORPUS=1"
        );
    }
    // Every kind has a seed.
    for kind in Kind::ALL {
        assert!(
            seeds.iter().any(|(_, b)| Kind::of(b[0]) == kind),
            "{kind:?} has no seed"
        );
    }
}

/// The mutations of `seed`: every prefix, 64 byte changes and 64 word stamps.
fn mutations(seed: &[u8], state: &mut u64) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = (1..seed.len()).map(|cut| seed[..cut].to_vec()).collect();
    if seed.len() < 2 {
        return out;
    }
    const VALUES: [u8; 6] = [0x00, 0xFF, 0x7F, 0x80, 0x01, 0xFE];
    for _ in 0..64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        let mut m = seed.to_vec();
        // Never the kind byte: a mutation stays within its seed's kind.
        let at = 1 + (*state % (m.len() as u64 - 1)) as usize;
        let v = VALUES[(*state >> 32) as usize % VALUES.len()];
        m[at] = if m[at] == v {
            m[at] ^ (*state >> 40) as u8 | 1
        } else {
            v
        };
        out.push(m);
    }
    // Sizes, counts and offsets that overflow u32 arithmetic, or vanish.
    for (i, word) in [u32::MAX, 0].into_iter().cycle().take(64).enumerate() {
        let at = 1 + 4 * (i / 2);
        if at >= seed.len() {
            break;
        }
        let mut m = seed.to_vec();
        for (k, b) in word.to_le_bytes().iter().enumerate() {
            if let Some(slot) = m.get_mut(at + k) {
                *slot = *b;
            }
        }
        out.push(m);
    }
    out
}

#[test]
fn every_seed_and_its_mutations_go_through_the_fuzz_body() {
    let files = corpus();
    assert!(files.len() >= seeds().len(), "{} files", files.len());
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let (mut inputs, mut peak) = (0usize, 0usize);
    let mut failures: Vec<String> = Vec::new();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {})); // the failures are reported below, once each
    for (name, bytes) in &files {
        for input in std::iter::once(bytes.clone()).chain(mutations(bytes, &mut state)) {
            let outcome = std::panic::catch_unwind(|| run(&input)).map_err(|e| {
                e.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            });
            let problem = match outcome {
                Ok(held) if held <= allowed(&input) => {
                    peak = peak.max(held);
                    None
                }
                Ok(held) => Some(format!("held {held} bytes at once")),
                Err(message) => Some(message),
            };
            if let Some(p) = problem {
                if !failures.iter().any(|f| f.ends_with(&p)) {
                    let hex: String = input.iter().map(|b| format!("{b:02x}")).collect();
                    failures.push(format!("{name}, input {hex}: {p}"));
                }
            }
            inputs += 1;
        }
    }
    std::panic::set_hook(hook);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "{} corpus files, {inputs} inputs in all, at most {peak} bytes held at once",
        files.len()
    );
}

#[test]
fn the_allocation_check_can_fail() {
    // An input that holds more than allowed() must trip the check: the counter sees it.
    let held = {
        let base = HELD.with(Cell::get);
        PEAK.with(|p| p.set(base));
        let big = vec![0u8; allowed(&[]) + 1];
        std::hint::black_box(&big);
        drop(big);
        (PEAK.with(Cell::get) - base) as usize
    };
    assert!(held > allowed(&[]));
}
