//! The body of the `c_abi_args` fuzz target (`fuzz/fuzz_targets/c_abi_args.rs`), which
//! `tests/abi/c_abi_corpus.rs` also runs over a committed corpus in every `cargo test` (issue
//! 33). Not part of the C ABI.
//!
//! [`c_abi_args`] takes arbitrary bytes: the first picks a [`Kind`] — which caller-described
//! structure the rest is — and the rest goes through the same parsers the exported
//! functions use (the `parse` module), then through the `win32` face and the kernel, on a
//! fresh deterministic machine per input. An address inside the input is
//! [`BASE`] + its offset (0 stays NULL); an address outside it is memory that is not there,
//! which a C caller cannot pass without crashing, so such an input ends there
//! (`ERROR_NOACCESS`).
//!
//! What must hold for any input: nothing panics or hangs; nothing allocates beyond what the
//! input justifies (the machine's session buffers, which a properties block may ask for, are
//! capped at [`MACHINE_BUFFER_BYTES`] in all);
//! every refusal is a code the function's Microsoft page (or the rule the crate cites for it)
//! documents — the `*_CODES` lists below; a properties block comes back byte for byte when
//! nothing changed it, and a refused call leaves it as it was.
//!
//! | first byte % 14 | the rest | calls |
//! |---|---|---|
//! | 0, 1 | `EVENT_TRACE_PROPERTIES` + string space (`W`, `A`) | StartTrace, ControlTrace (QUERY, UPDATE, STOP) |
//! | 2 | an instance name, as UTF-16 and as Latin-1 | StartTrace, EventWriteString |
//! | 3 | `ENABLE_TRACE_PARAMETERS` at [`BASE`], descriptors and filters after it | EnableTraceEx2, then EventWrite through the filters |
//! | 4 | `EVENT_FILTER_DESCRIPTOR` at [`BASE`] and its filter | EnableTraceEx |
//! | 5 | `[UserDataCount u32][mode u32][UserData u64]`, descriptors and blocks | EventWrite, EventWriteTransfer, EventWriteEx |
//! | 6 | `[InformationClass u32]` + the information | EventSetInformation, then EventWrite |
//! | 7 | `EVENT_TRACE_HEADER` at [`BASE`], its data or `MOF_FIELD`s | TraceEvent |
//! | 8, 9 | `EVENT_TRACE_LOGFILEW` / `A` at [`BASE`], names after it | OpenTrace, ProcessTrace, CloseTrace |
//! | 10 | `[HandleCount u32][times u32][HandleArray u64][StartTime i64][EndTime i64]`, handles | ProcessTrace |
//! | 11 | `[InformationClass i32][InformationLength u32]` + the information | TraceSetInformation, TraceQueryInformation |
//! | 12 | `[TraceQueryInfoClass i32]` + `InBuffer` | EnumerateTraceGuidsEx |
//! | 13 | `TRACE_GUID_REGISTRATION`s | RegisterTraceGuids's handle write-back |

use crate::machine::Machine;
use crate::parse::{self, Memory, PROPS_FIXED, PropsBlock};
use crate::strings::{self, Encoding};
use etwsim::win32::{
    EVENT_TRACE_CONTROL_QUERY, EVENT_TRACE_CONTROL_STOP, EVENT_TRACE_CONTROL_UPDATE,
    EventDataDescriptor, EventFilterDescriptor, EventTraceLogfile, EventTraceProperties,
};
use etwsim::{
    EventDescriptor, Guid, Kernel, Keyword, Level, LogFileMode, ProcessSpec, Token, TraceHandle,
    Win32Error,
};

/// The address of an input's first byte (after the kind byte).
pub const BASE: u64 = 0x1_0000;

/// The most buffer memory one session of the fuzz machine may have, as far as lowering its
/// buffer counts goes (SES-59/60: never below 2 buffers of the BufferSize asked for, up to
/// 16 MB each, SES-57).
pub const SESSION_BUFFER_BYTES: u64 = 1 << 20;

/// The most buffer memory all sessions of the fuzz machine together may have: StartTrace
/// refuses a session whose buffers do not fit (`ERROR_NO_SYSTEM_RESOURCES`).
pub const MACHINE_BUFFER_BYTES: u64 = 8 * SESSION_BUFFER_BYTES;

/// What the rest of an input is, by its first byte (modulo [`Kind::COUNT`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// `EVENT_TRACE_PROPERTIES` and its string space, for StartTraceW / ControlTraceW.
    PropertiesW = 0,
    /// The same for the `A` forms.
    PropertiesA,
    /// An instance name (StartTrace) and event string (EventWriteString).
    InstanceName,
    /// `ENABLE_TRACE_PARAMETERS` for EnableTraceEx2.
    EnableParameters,
    /// One `EVENT_FILTER_DESCRIPTOR` for EnableTraceEx.
    FilterDescriptor,
    /// `EVENT_DATA_DESCRIPTOR`s for the EventWrite family.
    EventData,
    /// EventSetInformation's class and data.
    EventInformation,
    /// `EVENT_TRACE_HEADER` for TraceEvent.
    TraceEvent,
    /// `EVENT_TRACE_LOGFILEW` for OpenTraceW.
    LogfileW,
    /// `EVENT_TRACE_LOGFILEA` for OpenTraceA.
    LogfileA,
    /// ProcessTrace's handle array and times.
    ProcessTrace,
    /// TraceSetInformation / TraceQueryInformation.
    TraceInformation,
    /// EnumerateTraceGuidsEx.
    EnumerateGuids,
    /// `TRACE_GUID_REGISTRATION`s for RegisterTraceGuids.
    GuidRegistrations,
}

impl Kind {
    /// How many kinds there are.
    pub const COUNT: u8 = 14;

    /// Every kind, in byte order.
    pub const ALL: [Kind; Kind::COUNT as usize] = [
        Kind::PropertiesW,
        Kind::PropertiesA,
        Kind::InstanceName,
        Kind::EnableParameters,
        Kind::FilterDescriptor,
        Kind::EventData,
        Kind::EventInformation,
        Kind::TraceEvent,
        Kind::LogfileW,
        Kind::LogfileA,
        Kind::ProcessTrace,
        Kind::TraceInformation,
        Kind::EnumerateGuids,
        Kind::GuidRegistrations,
    ];

    /// The kind the first byte of an input picks.
    pub fn of(byte: u8) -> Kind {
        Kind::ALL[usize::from(byte % Kind::COUNT)]
    }
}

// Win32 codes (winerror.h), short names for the tables below.
const OK: u32 = Win32Error::ERROR_SUCCESS.code();
const PATH_NOT_FOUND: u32 = Win32Error::ERROR_PATH_NOT_FOUND.code();
const ACCESS_DENIED: u32 = Win32Error::ERROR_ACCESS_DENIED.code();
const INVALID_HANDLE: u32 = Win32Error::ERROR_INVALID_HANDLE.code();
const NOT_ENOUGH_MEMORY: u32 = Win32Error::ERROR_NOT_ENOUGH_MEMORY.code();
const OUTOFMEMORY: u32 = Win32Error::ERROR_OUTOFMEMORY.code();
const BAD_LENGTH: u32 = Win32Error::ERROR_BAD_LENGTH.code();
const NOT_SUPPORTED: u32 = Win32Error::ERROR_NOT_SUPPORTED.code();
const INVALID_PARAMETER: u32 = Win32Error::ERROR_INVALID_PARAMETER.code();
const DISK_FULL: u32 = Win32Error::ERROR_DISK_FULL.code();
const INSUFFICIENT_BUFFER: u32 = Win32Error::ERROR_INSUFFICIENT_BUFFER.code();
const BAD_PATHNAME: u32 = Win32Error::ERROR_BAD_PATHNAME.code();
const ALREADY_EXISTS: u32 = Win32Error::ERROR_ALREADY_EXISTS.code();
const INVALID_FLAG_NUMBER: u32 = Win32Error::ERROR_INVALID_FLAG_NUMBER.code();
const MORE_DATA: u32 = Win32Error::ERROR_MORE_DATA.code();
const ARITHMETIC_OVERFLOW: u32 = Win32Error::ERROR_ARITHMETIC_OVERFLOW.code();
const NOACCESS: u32 = Win32Error::ERROR_NOACCESS.code();
const CANCELLED: u32 = Win32Error::ERROR_CANCELLED.code();
const NO_SYSTEM_RESOURCES: u32 = Win32Error::ERROR_NO_SYSTEM_RESOURCES.code();
const INVALID_TIME: u32 = Win32Error::ERROR_INVALID_TIME.code();
const WMI_GUID_NOT_FOUND: u32 = Win32Error::ERROR_WMI_GUID_NOT_FOUND.code();
const WMI_INSTANCE_NOT_FOUND: u32 = Win32Error::ERROR_WMI_INSTANCE_NOT_FOUND.code();

/// StartTrace (SES-17…SES-30): its page's list, ERROR_DISK_FULL (SES-27) and
/// ERROR_PATH_NOT_FOUND for a log file in a folder that does not exist (SES-28).
pub const START_TRACE_CODES: &[u32] = &[
    OK,
    PATH_NOT_FOUND,
    BAD_LENGTH,
    INVALID_PARAMETER,
    ALREADY_EXISTS,
    BAD_PATHNAME,
    NO_SYSTEM_RESOURCES,
    ACCESS_DENIED,
    DISK_FULL,
];
/// ControlTrace (SES-72…SES-81), and ERROR_PATH_NOT_FOUND for an UPDATE's new log file in a
/// folder that does not exist (SES-28).
pub const CONTROL_TRACE_CODES: &[u32] = &[
    OK,
    PATH_NOT_FOUND,
    BAD_LENGTH,
    INVALID_PARAMETER,
    BAD_PATHNAME,
    MORE_DATA,
    ACCESS_DENIED,
    WMI_INSTANCE_NOT_FOUND,
    DISK_FULL,
    NO_SYSTEM_RESOURCES,
];
/// EnableTraceEx2 / EnableTraceEx (PRV-17…PRV-29, FLT-13…FLT-25).
pub const ENABLE_TRACE_CODES: &[u32] = &[
    OK,
    INVALID_PARAMETER,
    ACCESS_DENIED,
    NO_SYSTEM_RESOURCES,
    NOT_SUPPORTED,
];
/// EventWrite, EventWriteTransfer, EventWriteEx, EventWriteString (EVT-01…EVT-13), and
/// ERROR_NOACCESS for a NULL `Ptr` with a `Size` (what the kernel's probe of the block
/// returns; the face's choice).
pub const EVENT_WRITE_CODES: &[u32] = &[
    OK,
    INVALID_PARAMETER,
    INVALID_HANDLE,
    ARITHMETIC_OVERFLOW,
    MORE_DATA,
    NOT_ENOUGH_MEMORY,
    NOACCESS,
];
/// EventSetInformation (PRV-34, PRV-35).
pub const EVENT_SET_INFORMATION_CODES: &[u32] = &[OK, INVALID_PARAMETER, NOT_SUPPORTED];
/// TraceEvent (EVT-29).
pub const TRACE_EVENT_CODES: &[u32] = &[
    OK,
    INVALID_FLAG_NUMBER,
    INVALID_HANDLE,
    NOT_ENOUGH_MEMORY,
    OUTOFMEMORY,
    INVALID_PARAMETER,
    MORE_DATA,
];
/// OpenTrace's GetLastError (CON-01), and ERROR_WMI_INSTANCE_NOT_FOUND for a real-time
/// session that is not running: the face's present choice (tests/machine/consumer.rs pins it),
/// though Microsoft's page lists only the other three and CON-03 gives that code to
/// ProcessTrace.
pub const OPEN_TRACE_CODES: &[u32] = &[
    INVALID_PARAMETER,
    BAD_PATHNAME,
    ACCESS_DENIED,
    WMI_INSTANCE_NOT_FOUND,
];
/// ProcessTrace (CON-03).
pub const PROCESS_TRACE_CODES: &[u32] = &[
    OK,
    BAD_LENGTH,
    INVALID_HANDLE,
    INVALID_TIME,
    INVALID_PARAMETER,
    NOACCESS,
    CANCELLED,
    WMI_INSTANCE_NOT_FOUND,
];
/// CloseTrace (CON-07): ERROR_CTX_CLOSE_PENDING is a success.
pub const CLOSE_TRACE_CODES: &[u32] = &[OK, INVALID_HANDLE, 7007];
/// TraceSetInformation / TraceQueryInformation (KRN-06; the class table in `info`).
pub const TRACE_INFORMATION_CODES: &[u32] = &[
    OK,
    BAD_LENGTH,
    INVALID_PARAMETER,
    NOT_SUPPORTED,
    ACCESS_DENIED,
    INVALID_HANDLE,
];
/// EnumerateTraceGuidsEx (PRV-06, PRV-29).
pub const ENUMERATE_CODES: &[u32] = &[
    OK,
    INVALID_PARAMETER,
    INSUFFICIENT_BUFFER,
    NOT_SUPPORTED,
    WMI_GUID_NOT_FOUND,
];

/// Panics unless `code` is one `function` documents.
#[track_caller]
fn check(function: &str, code: u32, allowed: &[u32]) {
    assert!(
        allowed.contains(&code),
        "{function} returned {code}, which is not among its documented codes {allowed:?}"
    );
}

/// The input as memory: the byte at offset `i` lives at [`BASE`] + `i`.
struct Blob<'a>(&'a [u8]);

impl Blob<'_> {
    fn offset(&self, addr: u64) -> Result<usize, u32> {
        let off = addr.checked_sub(BASE).ok_or(NOACCESS)?;
        let off = usize::try_from(off).map_err(|_| NOACCESS)?;
        if off > self.0.len() {
            return Err(NOACCESS);
        }
        Ok(off)
    }
}

impl<'a> Memory<'a> for Blob<'a> {
    fn bytes(&self, addr: u64, len: usize) -> Result<&'a [u8], u32> {
        let start = self.offset(addr)?;
        let end = start.checked_add(len).ok_or(NOACCESS)?;
        self.0.get(start..end).ok_or(NOACCESS)
    }

    fn string(&self, addr: u64, _: Encoding) -> Result<&'a [u8], u32> {
        // What there is: a string the input does not terminate is refused by decode.
        Ok(&self.0[self.offset(addr)?..])
    }
}

/// The first `N` bytes of `b`, zero-padded.
fn padded<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    let n = b.len().min(N);
    out[..n].copy_from_slice(&b[..n]);
    out
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(padded(b.get(at..).unwrap_or_default()))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(padded(b.get(at..).unwrap_or_default()))
}

/// The provider every kind that writes events registers.
const PROVIDER: Guid = Guid::from_u128(0x2f1b_5a8e_7c3d_4e9f_a0b1_c2d3_e4f5_0617);

/// A fresh deterministic machine: one administrator process, session buffers capped.
fn machine() -> Machine {
    let kernel = Kernel::builder()
        .deterministic(0x0033)
        .cpus(2)
        .max_session_buffer_bytes(SESSION_BUFFER_BYTES)
        .max_machine_buffer_bytes(MACHINE_BUFFER_BYTES)
        .build()
        .expect("a kernel");
    let process = kernel
        .spawn_process(ProcessSpec::new("fuzz.exe", Token::administrator("fuzz")))
        .expect("a process");
    Machine::new(kernel, process)
}

/// A real-time session started through the face: its handle, or `None` when StartTrace
/// refuses it (with a documented code: an input's own session may have taken the machine's
/// buffer memory).
fn try_realtime(m: &Machine, name: &str) -> Option<u64> {
    let mut props = EventTraceProperties::alloc(None);
    props.log_file_mode = LogFileMode::REAL_TIME.bits();
    let mut handle = 0;
    let code = m
        .win32
        .start_trace(Some(&mut handle), Some(name), Some(&mut props));
    check("StartTrace", code, START_TRACE_CODES);
    (code == OK).then_some(handle)
}

/// A real-time session on a machine nothing else has used yet.
fn realtime(m: &Machine, name: &str) -> u64 {
    try_realtime(m, name).expect("a plain real-time session starts on a fresh machine")
}

/// The enable callback of [`PROVIDER`]: it reads the filter data it is given.
fn on_enable(_: &Guid, _: u32, _: u8, _: u64, _: u64, f: Option<&EventFilterDescriptor>, _: usize) {
    if let Some(f) = f {
        std::hint::black_box(
            f.ptr
                .as_ref()
                .map(|d| d.iter().map(|&b| u64::from(b)).sum::<u64>()),
        );
    }
}

/// [`PROVIDER`] registered (with [`on_enable`]) and, unless `enabled` is false, enabled at
/// every level and keyword by `session`.
fn provider(m: &Machine, session: u64, enabled: bool) -> u64 {
    let mut reg = 0;
    let code = m
        .win32
        .event_register(Some(&PROVIDER), Some(on_enable), 0, Some(&mut reg));
    assert_eq!(code, OK, "the provider registers");
    if enabled {
        let code =
            m.win32
                .enable_trace_ex2(session, Some(&PROVIDER), 1, 0xff, u64::MAX, 0, 0, None);
        assert_eq!(code, OK, "the session enables the provider");
    }
    reg
}

/// A few events through `reg`: what a session's filters judge.
fn write_some(m: &Machine, reg: u64, payload: &[u8]) {
    let payload = &payload[..payload.len().min(256)];
    for (id, level) in [(1u16, 4u8), (2, 2), (7, 5)] {
        let d = EventDescriptor::new(id, Level(level), Keyword(1));
        let data = [EventDataDescriptor::new(payload)];
        check(
            "EventWrite",
            m.win32.event_write(reg, Some(&d), 1, Some(&data)),
            EVENT_WRITE_CODES,
        );
    }
}

/// Arbitrary bytes through the C ABI's parsers and the functions that take what they read;
/// see the module docs.
///
/// # Panics
/// When a property in the module docs does not hold — a bug, which is what the fuzzer looks
/// for.
pub fn c_abi_args(data: &[u8]) {
    let Some((&kind, rest)) = data.split_first() else {
        return;
    };
    match Kind::of(kind) {
        Kind::PropertiesW => properties(rest, Encoding::Wide),
        Kind::PropertiesA => properties(rest, Encoding::Ansi),
        Kind::InstanceName => instance_name(rest),
        Kind::EnableParameters => enable_parameters(rest),
        Kind::FilterDescriptor => filter_descriptor(rest),
        Kind::EventData => event_data(rest),
        Kind::EventInformation => event_information(rest),
        Kind::TraceEvent => trace_event(rest),
        Kind::LogfileW => logfile(rest, Encoding::Wide),
        Kind::LogfileA => logfile(rest, Encoding::Ansi),
        Kind::ProcessTrace => process_trace(rest),
        Kind::TraceInformation => trace_information(rest),
        Kind::EnumerateGuids => enumerate_guids(rest),
        Kind::GuidRegistrations => guid_registrations(rest),
    }
}

/// The block's bytes as the caller's: the structure (zero-padded) and no more string space
/// than `Wnode.BufferSize` declares.
fn props_block(rest: &[u8], enc: Encoding) -> ([u8; PROPS_FIXED], &[u8], PropsBlock) {
    let fixed: [u8; PROPS_FIXED] = padded(rest);
    let tail = rest.get(PROPS_FIXED..).unwrap_or_default();
    let tail = &tail[..tail.len().min(PropsBlock::declared_tail(&fixed))];
    let block = PropsBlock::parse(&fixed, tail, enc);
    (fixed, tail, block)
}

/// The block encoded back into a copy of its bytes.
fn encoded(
    block: &PropsBlock,
    fixed: &[u8; PROPS_FIXED],
    tail: &[u8],
) -> ([u8; PROPS_FIXED], Vec<u8>) {
    let (mut f, mut t) = (*fixed, tail.to_vec());
    block.encode(&mut f, &mut t);
    (f, t)
}

fn properties(rest: &[u8], enc: Encoding) {
    let (fixed, tail, mut block) = props_block(rest, enc);
    assert_eq!(
        encoded(&block, &fixed, tail),
        (fixed, tail.to_vec()),
        "a properties block encodes back to its bytes"
    );
    let m = machine();
    let as_read = block.mirror.clone();
    let mut handle = 0;
    let code = m.win32.start_trace(
        Some(&mut handle),
        Some("etwsim fuzz"),
        Some(&mut block.mirror),
    );
    check("StartTrace", code, START_TRACE_CODES);
    if code != OK {
        assert_eq!(
            block.mirror, as_read,
            "a refused StartTrace changes nothing"
        );
    } else {
        let (f, t) = encoded(&block, &fixed, tail);
        assert_eq!(f[..4], fixed[..4], "Wnode.BufferSize stays the caller's");
        assert_eq!(f[112..], fixed[112..], "the offsets stay the caller's");
        assert_eq!(t.len(), tail.len());
        for control in [EVENT_TRACE_CONTROL_QUERY, EVENT_TRACE_CONTROL_UPDATE] {
            let code = m
                .win32
                .control_trace(handle, None, Some(&mut block.mirror), control);
            check("ControlTrace", code, CONTROL_TRACE_CODES);
        }
    }
    // The same block given to another session's ControlTrace.
    if let Some(other) = try_realtime(&m, "etwsim fuzz other") {
        let (_, _, mut again) = props_block(rest, enc);
        for control in [
            EVENT_TRACE_CONTROL_QUERY,
            EVENT_TRACE_CONTROL_UPDATE,
            EVENT_TRACE_CONTROL_STOP,
        ] {
            let code = m
                .win32
                .control_trace(other, None, Some(&mut again.mirror), control);
            check("ControlTrace", code, CONTROL_TRACE_CODES);
        }
    }
    if code == OK {
        let mut props = EventTraceProperties::alloc(None);
        let code = m
            .win32
            .control_trace(handle, None, Some(&mut props), EVENT_TRACE_CONTROL_STOP);
        check("ControlTrace", code, CONTROL_TRACE_CODES);
    }
}

fn instance_name(rest: &[u8]) {
    let m = machine();
    let session = realtime(&m, "etwsim fuzz");
    let reg = provider(&m, session, true);
    for enc in [Encoding::Wide, Encoding::Ansi] {
        let Ok(name) = strings::decode(rest, enc) else {
            continue; // StartTrace: ERROR_INVALID_PARAMETER before anything else
        };
        let mut props = EventTraceProperties::alloc(None);
        props.log_file_mode = LogFileMode::REAL_TIME.bits();
        let mut handle = 0;
        let code = m
            .win32
            .start_trace(Some(&mut handle), Some(&name), Some(&mut props));
        check("StartTrace", code, START_TRACE_CODES);
        if code == OK {
            let code =
                m.win32
                    .control_trace(handle, None, Some(&mut props), EVENT_TRACE_CONTROL_STOP);
            check("ControlTrace", code, CONTROL_TRACE_CODES);
        }
    }
    if let Some(units) = strings::wide_units(rest) {
        let text = String::from_utf16_lossy(&units);
        let code = m.win32.event_write_string(reg, 4, 1, Some(&text));
        check("EventWriteString", code, EVENT_WRITE_CODES);
    }
}

fn enable_parameters(rest: &[u8]) {
    let e: [u8; parse::ENABLE_PARAMETERS_SIZE] = padded(rest);
    let params = match parse::enable_parameters(&e, &Blob(rest)) {
        Ok(p) => p,
        Err(NOACCESS) => return,
        Err(code) => return check("EnableTraceEx2", code, ENABLE_TRACE_CODES),
    };
    let m = machine();
    let session = realtime(&m, "etwsim fuzz");
    let reg = provider(&m, session, false);
    let code = m.win32.enable_trace_ex2(
        session,
        Some(&PROVIDER),
        1,
        5,
        u64::MAX,
        0,
        0,
        Some(&params),
    );
    check("EnableTraceEx2", code, ENABLE_TRACE_CODES);
    write_some(&m, reg, rest);
}

fn filter_descriptor(rest: &[u8]) {
    let d: [u8; parse::FILTER_DESCRIPTOR_SIZE] = padded(rest);
    let desc = match parse::filter_descriptor(&d, &Blob(rest)) {
        Ok(d) => d,
        Err(NOACCESS) => return,
        Err(code) => return check("EnableTraceEx", code, ENABLE_TRACE_CODES),
    };
    let m = machine();
    let session = realtime(&m, "etwsim fuzz");
    let reg = provider(&m, session, false);
    let code = m.win32.enable_trace_ex(
        Some(&PROVIDER),
        None,
        session,
        1,
        5,
        u64::MAX,
        0,
        0,
        Some(&desc),
    );
    check("EnableTraceEx", code, ENABLE_TRACE_CODES);
    write_some(&m, reg, rest);
}

fn event_data(rest: &[u8]) {
    let (count, mode, array) = (u32_at(rest, 0), u32_at(rest, 4), u64_at(rest, 8));
    let m = machine();
    let session = realtime(&m, "etwsim fuzz");
    let reg = provider(&m, session, true);
    if mode & 1 != 0 {
        // EventProviderUseDescriptorType: the Type bytes count (EVT-12).
        let code = m.win32.event_set_information(reg, 3, Some(&[1]), 1);
        check("EventSetInformation", code, EVENT_SET_INFORMATION_CODES);
    }
    let d = EventDescriptor::new(3, Level(4), Keyword(1));
    let activity = Guid::from_u128(u128::from(mode));
    let written =
        parse::with_data_descriptors(count, array, &Blob(rest), |data| match mode >> 1 & 3 {
            0 => m.win32.event_write(reg, Some(&d), count, data),
            1 => m
                .win32
                .event_write_transfer(reg, Some(&d), Some(&activity), None, count, data),
            _ => m.win32.event_write_ex(
                reg,
                Some(&d),
                u64::from(mode >> 8),
                0,
                None,
                Some(&activity),
                count,
                data,
            ),
        });
    match written {
        Ok(code) => check("EventWrite", code, EVENT_WRITE_CODES),
        Err(code) => assert_eq!(code, NOACCESS),
    }
}

fn event_information(rest: &[u8]) {
    let class = u32_at(rest, 0);
    let info = rest.get(4..).unwrap_or_default();
    let m = machine();
    let session = realtime(&m, "etwsim fuzz");
    let reg = provider(&m, session, true);
    let code = m
        .win32
        .event_set_information(reg, class, Some(info), info.len() as u32);
    check("EventSetInformation", code, EVENT_SET_INFORMATION_CODES);
    let d = EventDescriptor::new(4, Level(4), Keyword(1));
    let typed = [
        EventDataDescriptor::typed(info, 2), // provider metadata
        EventDataDescriptor::new(b"payload"),
    ];
    for data in [&typed[1..], &typed[..]] {
        let code = m
            .win32
            .event_write(reg, Some(&d), data.len() as u32, Some(data));
        check("EventWrite", code, EVENT_WRITE_CODES);
    }
}

fn trace_event(rest: &[u8]) {
    let args = match parse::trace_event(BASE, &Blob(rest)) {
        Ok(a) => a,
        Err(NOACCESS) => return,
        Err(code) => return check("TraceEvent", code, TRACE_EVENT_CODES),
    };
    let m = machine();
    let session = realtime(&m, "etwsim fuzz");
    let event = etwsim::ClassicEvent {
        class_type: args.class_type,
        class_level: args.class_level,
        class_version: args.class_version,
        guid: args.guid,
        data: &args.blocks,
    };
    let code = match m.process.trace_event(TraceHandle(session), &event) {
        Ok(()) => OK,
        Err(e) => e.win32_code().code(),
    };
    check("TraceEvent", code, TRACE_EVENT_CODES);
}

fn logfile(rest: &[u8], enc: Encoding) {
    let lf: [u8; parse::LOGFILE_SIZE] = padded(rest);
    let args = match parse::logfile(&lf, enc, &Blob(rest)) {
        Ok(a) => a,
        Err(NOACCESS) => return,
        Err(code) => return check("OpenTrace", code, OPEN_TRACE_CODES),
    };
    let m = machine();
    let _session = realtime(&m, "etwsim fuzz");
    let mut face = EventTraceLogfile {
        log_file_name: args.log_file_name,
        logger_name: args.logger_name,
        process_trace_mode: args.process_trace_mode,
        event_record_callback: Some(Box::new(|r| {
            std::hint::black_box(r);
        })),
        buffer_callback: Some(Box::new(|_| true)),
        logfile_header: None,
    };
    let handle = m.win32.open_trace(Some(&mut face));
    if handle == etwsim::win32::INVALID_PROCESSTRACE_HANDLE {
        return check("OpenTrace", m.win32.last_error(), OPEN_TRACE_CODES);
    }
    check(
        "ProcessTrace",
        m.win32.process_trace(Some(&[handle]), None, None),
        PROCESS_TRACE_CODES,
    );
    check("CloseTrace", m.win32.close_trace(handle), CLOSE_TRACE_CODES);
}

fn process_trace(rest: &[u8]) {
    let (count, times, array) = (u32_at(rest, 0), u32_at(rest, 4), u64_at(rest, 8));
    let start = (times & 1 != 0).then(|| u64_at(rest, 16) as i64);
    let end = (times & 2 != 0).then(|| u64_at(rest, 24) as i64);
    let handles = match parse::process_trace_handles(array, count, &Blob(rest)) {
        Ok(h) => h,
        Err(NOACCESS) => return,
        Err(code) => return check("ProcessTrace", code, PROCESS_TRACE_CODES),
    };
    let m = machine();
    let _session = realtime(&m, "etwsim fuzz");
    // One open real-time handle: the first the process hands out (0x10000).
    let mut face = EventTraceLogfile {
        logger_name: Some("etwsim fuzz".to_owned()),
        process_trace_mode: etwsim::win32::PROCESS_TRACE_MODE_REAL_TIME,
        ..EventTraceLogfile::default()
    };
    let open = m.win32.open_trace(Some(&mut face));
    let code = m.win32.process_trace(handles.as_deref(), start, end);
    check("ProcessTrace", code, PROCESS_TRACE_CODES);
    check("CloseTrace", m.win32.close_trace(open), CLOSE_TRACE_CODES);
}

fn trace_information(rest: &[u8]) {
    let (class, length) = (u32_at(rest, 0) as i32, u32_at(rest, 4));
    let info = rest.get(8..).unwrap_or_default();
    let m = machine();
    let kernel_logger = {
        let mut props = EventTraceProperties::alloc(None);
        props.log_file_mode = LogFileMode::REAL_TIME.bits();
        props.wnode.guid = Guid::SYSTEM_TRACE_CONTROL;
        let mut handle = 0;
        let code = m.win32.start_trace(
            Some(&mut handle),
            Some(etwsim::KERNEL_LOGGER_NAME),
            Some(&mut props),
        );
        assert_eq!(code, OK, "the NT Kernel Logger starts");
        handle
    };
    let plain = realtime(&m, "etwsim fuzz");
    for session in [kernel_logger, plain, 0] {
        let code = crate::info::set_information(&m, session, class, Some(info));
        check("TraceSetInformation", code, TRACE_INFORMATION_CODES);
        for length in [Some(length), None] {
            let answer = crate::info::query_information(&m, session, class, length);
            check(
                "TraceQueryInformation",
                answer.code,
                TRACE_INFORMATION_CODES,
            );
            if answer.code == OK {
                assert!(
                    answer.data.len() <= length.unwrap_or(0) as usize,
                    "fits the buffer"
                );
            }
        }
    }
}

fn enumerate_guids(rest: &[u8]) {
    let class = u32_at(rest, 0) as i32;
    let input = rest.get(4..).unwrap_or_default();
    let m = machine();
    let session = realtime(&m, "etwsim fuzz");
    let _reg = provider(&m, session, true);
    let code = match crate::info::enumerate(&m, class, Some(input)) {
        Ok(_) => OK,
        Err(code) => code,
    };
    check("EnumerateTraceGuidsEx", code, ENUMERATE_CODES);
}

fn guid_registrations(rest: &[u8]) {
    let handle = 0x7C1A_0000_0000_0001;
    let mut entries = rest.to_vec();
    parse::set_reg_handles(&mut entries, handle);
    let whole = rest.len() / 16 * 16;
    for (new, old) in entries[..whole].chunks_exact(16).zip(rest.chunks_exact(16)) {
        assert_eq!(new[..8], old[..8], "an entry's Guid pointer is left alone");
        assert_eq!(
            new[8..],
            handle.to_ne_bytes(),
            "an entry's RegHandle is set"
        );
    }
    assert_eq!(
        entries[whole..],
        rest[whole..],
        "a partial entry is left alone"
    );
}
