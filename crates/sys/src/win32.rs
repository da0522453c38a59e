//! The kernel32/ole32/rpcrt4/advapi32/msvcrt functions an ETW program calls besides ETW
//! (`include/win/windows.h`, `conio.h`), and the UTF-16 `argv` the `wmain` startup uses.
//! Time is the host's; memory is the C heap (so `free`, `HeapFree`, `LocalFree` agree).

use crate::machine::set_last_error;
use std::ffi::{c_int, c_void};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

unsafe extern "C" {
    fn malloc(size: usize) -> *mut c_void;
    fn calloc(n: usize, size: usize) -> *mut c_void;
    fn free(p: *mut c_void);
    fn read(fd: c_int, buf: *mut c_void, n: usize) -> isize;
    fn poll(fds: *mut PollFd, n: u64, timeout: c_int) -> c_int;
    fn isatty(fd: c_int) -> c_int;
    fn gettid() -> c_int;
    fn getpid() -> c_int;
}

#[repr(C)]
struct PollFd {
    fd: c_int,
    events: i16,
    revents: i16,
}

/// Windows's `FILETIME`: 100-ns intervals since 1601-01-01 UTC.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct FileTime {
    /// Low 32 bits.
    pub low: u32,
    /// High 32 bits.
    pub high: u32,
}

/// Windows's `SYSTEMTIME`.
#[repr(C)]
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct SystemTime16 {
    /// 1601–30827.
    pub year: u16,
    /// 1–12.
    pub month: u16,
    /// 0 (Sunday) – 6.
    pub day_of_week: u16,
    /// 1–31.
    pub day: u16,
    /// 0–23.
    pub hour: u16,
    /// 0–59.
    pub minute: u16,
    /// 0–59.
    pub second: u16,
    /// 0–999.
    pub milliseconds: u16,
}

/// Seconds from 1601-01-01 to 1970-01-01.
const EPOCH_DIFF_S: u64 = 11_644_473_600;

fn start() -> Instant {
    static START: OnceLock<Instant> = OnceLock::new();
    *START.get_or_init(Instant::now)
}

/// `Sleep`.
#[unsafe(no_mangle)]
pub extern "C" fn Sleep(ms: u32) {
    std::thread::sleep(Duration::from_millis(u64::from(ms)));
}

/// `GetTickCount64`: milliseconds since the first call of any time function here (the
/// process's boot, for the program).
#[unsafe(no_mangle)]
pub extern "C" fn GetTickCount64() -> u64 {
    start().elapsed().as_millis() as u64
}

/// `GetTickCount`: the low 32 bits of `GetTickCount64`.
#[unsafe(no_mangle)]
pub extern "C" fn GetTickCount() -> u32 {
    GetTickCount64() as u32
}

/// `QueryPerformanceCounter`: 100-ns ticks (frequency 10 MHz, as Windows 10 reports);
/// FALSE (ERROR_NOACCESS) for NULL.
///
/// # Safety
/// `out` NULL or writable for 8 bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn QueryPerformanceCounter(out: *mut i64) -> i32 {
    if out.is_null() {
        set_last_error(998);
        return 0;
    }
    // SAFETY: writable (contract).
    unsafe { *out = (start().elapsed().as_nanos() / 100) as i64 };
    1
}

/// `QueryPerformanceFrequency`: 10,000,000.
///
/// # Safety
/// `out` NULL or writable for 8 bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn QueryPerformanceFrequency(out: *mut i64) -> i32 {
    if out.is_null() {
        set_last_error(998);
        return 0;
    }
    // SAFETY: writable (contract).
    unsafe { *out = 10_000_000 };
    1
}

fn now_filetime() -> u64 {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    (d.as_secs() + EPOCH_DIFF_S) * 10_000_000 + u64::from(d.subsec_nanos() / 100)
}

/// `GetSystemTimeAsFileTime` (NULL is ignored; Windows would fault).
///
/// # Safety
/// `out` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GetSystemTimeAsFileTime(out: *mut FileTime) {
    if out.is_null() {
        return;
    }
    let t = now_filetime();
    // SAFETY: writable (contract).
    unsafe {
        *out = FileTime {
            low: t as u32,
            high: (t >> 32) as u32,
        }
    };
}

/// Days from 1601-01-01 to a civil date (proleptic Gregorian).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 584_694 // 0000-03-01 based → 1601-01-01 based
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 584_694;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

fn filetime_to_system(t: u64) -> Option<SystemTime16> {
    if t >= 0x8000_0000_0000_0000 {
        return None;
    }
    let ms_total = t / 10_000;
    let days = (ms_total / 86_400_000) as i64;
    let ms = ms_total % 86_400_000;
    let (y, m, d) = civil_from_days(days);
    Some(SystemTime16 {
        year: u16::try_from(y).ok()?,
        month: m as u16,
        day_of_week: ((days + 1) % 7) as u16, // 1601-01-01 was a Monday
        day: d as u16,
        hour: (ms / 3_600_000) as u16,
        minute: (ms / 60_000 % 60) as u16,
        second: (ms / 1000 % 60) as u16,
        milliseconds: (ms % 1000) as u16,
    })
}

/// `FileTimeToSystemTime`: FALSE with ERROR_INVALID_PARAMETER for NULL or a time at or
/// above 0x8000000000000000.
///
/// # Safety
/// Pointers NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn FileTimeToSystemTime(ft: *const FileTime, st: *mut SystemTime16) -> i32 {
    if ft.is_null() || st.is_null() {
        set_last_error(87);
        return 0;
    }
    // SAFETY: readable (contract).
    let ft = unsafe { *ft };
    match filetime_to_system(u64::from(ft.high) << 32 | u64::from(ft.low)) {
        Some(s) => {
            // SAFETY: writable (contract).
            unsafe { *st = s };
            1
        }
        None => {
            set_last_error(87);
            0
        }
    }
}

/// `SystemTimeToFileTime` (`wDayOfWeek` ignored): FALSE with ERROR_INVALID_PARAMETER for
/// NULL or a field out of range.
///
/// # Safety
/// Pointers NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn SystemTimeToFileTime(st: *const SystemTime16, ft: *mut FileTime) -> i32 {
    if st.is_null() || ft.is_null() {
        set_last_error(87);
        return 0;
    }
    // SAFETY: readable (contract).
    let s = unsafe { *st };
    let leap = |y: u16| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let mdays = [
        31,
        if leap(s.year) { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1601..=30827).contains(&s.year)
        || !(1..=12).contains(&s.month)
        || s.day == 0
        || s.day > mdays[usize::from(s.month - 1)]
        || s.hour > 23
        || s.minute > 59
        || s.second > 59
        || s.milliseconds > 999
    {
        set_last_error(87);
        return 0;
    }
    let days = days_from_civil(i64::from(s.year), i64::from(s.month), i64::from(s.day)) as u64;
    let ms = ((days * 24 + u64::from(s.hour)) * 60 + u64::from(s.minute)) * 60_000
        + u64::from(s.second) * 1000
        + u64::from(s.milliseconds);
    let t = ms * 10_000;
    // SAFETY: writable (contract).
    unsafe {
        *ft = FileTime {
            low: t as u32,
            high: (t >> 32) as u32,
        }
    };
    1
}

/// `GetSystemTime` (UTC; NULL is ignored).
///
/// # Safety
/// `st` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GetSystemTime(st: *mut SystemTime16) {
    if let (false, Some(s)) = (st.is_null(), filetime_to_system(now_filetime())) {
        // SAFETY: writable (contract).
        unsafe { *st = s };
    }
}

/// `GetCurrentProcessId`: the OS process's id.
#[unsafe(no_mangle)]
pub extern "C" fn GetCurrentProcessId() -> u32 {
    // SAFETY: no arguments.
    unsafe { getpid() as u32 }
}

/// `GetCurrentThreadId`: the OS thread's id.
#[unsafe(no_mangle)]
pub extern "C" fn GetCurrentThreadId() -> u32 {
    // SAFETY: no arguments.
    unsafe { gettid() as u32 }
}

/// The one heap `GetProcessHeap` returns.
static PROCESS_HEAP: u8 = 0;

/// `GetProcessHeap`.
#[unsafe(no_mangle)]
pub extern "C" fn GetProcessHeap() -> *mut c_void {
    (&raw const PROCESS_HEAP).cast_mut().cast()
}

fn alloc(bytes: usize, zero: bool) -> *mut c_void {
    let n = bytes.max(1);
    // SAFETY: plain allocation.
    let p = unsafe { if zero { calloc(1, n) } else { malloc(n) } };
    if p.is_null() {
        set_last_error(8);
    }
    p
}

/// `HeapAlloc` on the process heap (HEAP_ZERO_MEMORY zeroes); NULL for another heap
/// (ERROR_INVALID_HANDLE) or no memory.
#[unsafe(no_mangle)]
pub extern "C" fn HeapAlloc(heap: *mut c_void, flags: u32, bytes: usize) -> *mut c_void {
    if heap != GetProcessHeap() {
        set_last_error(6);
        return std::ptr::null_mut();
    }
    alloc(bytes, flags & 8 != 0)
}

/// `HeapFree`: TRUE for NULL; FALSE (ERROR_INVALID_HANDLE) for another heap.
///
/// # Safety
/// `mem` NULL or from HeapAlloc/LocalAlloc/GlobalAlloc/malloc, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn HeapFree(heap: *mut c_void, _flags: u32, mem: *mut c_void) -> i32 {
    if heap != GetProcessHeap() {
        set_last_error(6);
        return 0;
    }
    // SAFETY: contract.
    unsafe { free(mem) };
    1
}

/// `LocalAlloc` (LMEM_FIXED; LMEM_ZEROINIT zeroes; LMEM_MOVEABLE is refused with
/// ERROR_INVALID_PARAMETER).
#[unsafe(no_mangle)]
pub extern "C" fn LocalAlloc(flags: u32, bytes: usize) -> *mut c_void {
    if flags & 0x2 != 0 {
        set_last_error(87);
        return std::ptr::null_mut();
    }
    alloc(bytes, flags & 0x40 != 0)
}

/// `LocalFree`: NULL on success.
///
/// # Safety
/// As `HeapFree`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn LocalFree(mem: *mut c_void) -> *mut c_void {
    // SAFETY: contract.
    unsafe { free(mem) };
    std::ptr::null_mut()
}

/// `GlobalAlloc` (as `LocalAlloc`).
#[unsafe(no_mangle)]
pub extern "C" fn GlobalAlloc(flags: u32, bytes: usize) -> *mut c_void {
    LocalAlloc(flags, bytes)
}

/// `GlobalFree`: NULL on success.
///
/// # Safety
/// As `HeapFree`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GlobalFree(mem: *mut c_void) -> *mut c_void {
    // SAFETY: contract.
    unsafe { LocalFree(mem) }
}

/// The system messages of the Win32 codes etwsim's functions return (`Win32Error`'s table).
fn message(code: u32) -> Option<&'static str> {
    etwsim::Win32Error(code).message()
}

/// `FormatMessage`'s body: the message (with Windows's trailing CRLF) as units.
fn format_message(flags: u32, id: u32) -> Option<Vec<u16>> {
    const FROM_SYSTEM: u32 = 0x1000;
    const OTHER_SOURCES: u32 = 0x400 | 0x800;
    if flags & FROM_SYSTEM == 0 || flags & OTHER_SOURCES != 0 {
        set_last_error(87);
        return None;
    }
    let Some(m) = message(id) else {
        set_last_error(317); // ERROR_MR_MID_NOT_FOUND
        return None;
    };
    let mut v: Vec<u16> = m.encode_utf16().collect();
    if flags & 0xff == 0 {
        v.extend([13, 10]);
    }
    Some(v)
}

/// Writes a message into a caller buffer or a LocalAlloc'ed one; the count, or 0.
///
/// # Safety
/// `buf` writable for `size` units, or (ALLOCATE_BUFFER) a writable pointer slot.
unsafe fn deliver<T: Copy + Default>(units: &[T], flags: u32, buf: *mut c_void, size: u32) -> u32 {
    if buf.is_null() {
        set_last_error(87);
        return 0;
    }
    let n = units.len();
    let unit = std::mem::size_of::<T>();
    if flags & 0x100 != 0 {
        let p = LocalAlloc(0x40, (n.max(size as usize) + 1) * unit).cast::<T>();
        if p.is_null() {
            return 0;
        }
        // SAFETY: `n + 1` units allocated; `buf` is a pointer slot (contract).
        unsafe {
            std::ptr::copy_nonoverlapping(units.as_ptr(), p, n);
            *buf.cast::<*mut T>() = p;
        }
        return n as u32;
    }
    if (size as usize) < n + 1 {
        set_last_error(122);
        return 0;
    }
    // SAFETY: `size ≥ n + 1` units writable (contract).
    unsafe {
        std::ptr::copy_nonoverlapping(units.as_ptr(), buf.cast::<T>(), n);
        *buf.cast::<T>().add(n) = T::default();
    }
    n as u32
}

/// `FormatMessageW` for FORMAT_MESSAGE_FROM_SYSTEM: the messages of the Win32 codes
/// etwsim's functions return (0 with ERROR_MR_MID_NOT_FOUND for other codes; other
/// sources are refused with ERROR_INVALID_PARAMETER); ALLOCATE_BUFFER allocates with
/// LocalAlloc; a small buffer gives 0 and ERROR_INSUFFICIENT_BUFFER.
///
/// # Safety
/// `buf` as the flags say.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn FormatMessageW(
    flags: u32,
    _source: *const c_void,
    id: u32,
    _lang: u32,
    buf: *mut c_void,
    size: u32,
    _args: *mut c_void,
) -> u32 {
    match format_message(flags, id) {
        // SAFETY: contract.
        Some(v) => unsafe { deliver(&v, flags, buf, size) },
        None => 0,
    }
}

/// `FormatMessageA`: as `FormatMessageW`, in bytes.
///
/// # Safety
/// As `FormatMessageW`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn FormatMessageA(
    flags: u32,
    _source: *const c_void,
    id: u32,
    _lang: u32,
    buf: *mut c_void,
    size: u32,
    _args: *mut c_void,
) -> u32 {
    match format_message(flags, id) {
        Some(v) => {
            let b: Vec<u8> = v.iter().map(|&u| u as u8).collect();
            // SAFETY: contract.
            unsafe { deliver(&b, flags, buf, size) }
        }
        None => 0,
    }
}

// ---- GUIDs ----

/// A GUID's fields.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Guid {
    /// Data1.
    pub d1: u32,
    /// Data2.
    pub d2: u16,
    /// Data3.
    pub d3: u16,
    /// Data4.
    pub d4: [u8; 8],
}

fn guid_string(g: &Guid) -> String {
    format!(
        "{{{:08X}-{:04X}-{:04X}-{:02X}{:02X}-{:02X}{:02X}{:02X}{:02X}{:02X}{:02X}}}",
        g.d1, g.d2, g.d3, g.d4[0], g.d4[1], g.d4[2], g.d4[3], g.d4[4], g.d4[5], g.d4[6], g.d4[7]
    )
}

/// `StringFromGUID2`: `{XXXXXXXX-…}` and its NUL (39 units) into `buf`; 0 when `cch` is
/// below 39 or a pointer is NULL.
///
/// # Safety
/// `g` NULL or valid; `buf` NULL or writable for `cch` units.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn StringFromGUID2(g: *const Guid, buf: *mut u16, cch: c_int) -> c_int {
    if g.is_null() || buf.is_null() || cch < 39 {
        return 0;
    }
    // SAFETY: readable (contract).
    let s = guid_string(unsafe { &*g });
    for (i, u) in s.encode_utf16().chain([0]).enumerate() {
        // SAFETY: 39 ≤ cch units writable.
        unsafe { *buf.add(i) = u };
    }
    39
}

fn parse_guid(s: &[u16]) -> Option<Guid> {
    let s = String::from_utf16(s).ok()?;
    let b = s.strip_prefix('{')?.strip_suffix('}')?.as_bytes();
    if b.len() != 36 || [8, 13, 18, 23].iter().any(|&i| b[i] != b'-') {
        return None;
    }
    let hex = |r: std::ops::Range<usize>| {
        let t = std::str::from_utf8(&b[r]).ok()?;
        t.bytes()
            .all(|c| c.is_ascii_hexdigit())
            .then(|| u64::from_str_radix(t, 16).ok())?
    };
    let mut d4 = [0u8; 8];
    for (i, o) in [19, 21, 24, 26, 28, 30, 32, 34].iter().enumerate() {
        d4[i] = hex(*o..*o + 2)? as u8;
    }
    Some(Guid {
        d1: hex(0..8)? as u32,
        d2: hex(9..13)? as u16,
        d3: hex(14..18)? as u16,
        d4,
    })
}

/// # Safety
/// `s` NULL or NUL-terminated; `out` NULL or writable.
unsafe fn guid_from(s: *const u16, out: *mut Guid, bad: i32) -> i32 {
    if s.is_null() || out.is_null() {
        return 0x8007_0057u32 as i32; // E_INVALIDARG
    }
    // SAFETY: NUL-terminated (contract); at most 39 units are read.
    let n = unsafe { crate::crt::etwsim_wcsnlen(s, 40) };
    // SAFETY: `n` units readable.
    match parse_guid(unsafe { std::slice::from_raw_parts(s, n) }) {
        Some(g) => {
            // SAFETY: writable (contract).
            unsafe { *out = g };
            0
        }
        None => bad,
    }
}

/// `CLSIDFromString` for the `{…}` form: NOERROR, CO_E_CLASSSTRING for another string
/// (ProgIDs are not looked up: there is no registry of classes), E_INVALIDARG for NULL.
///
/// # Safety
/// `s` NULL or NUL-terminated; `out` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CLSIDFromString(s: *const u16, out: *mut Guid) -> i32 {
    // SAFETY: contract.
    unsafe { guid_from(s, out, 0x8004_01F3u32 as i32) }
}

/// `IIDFromString`: S_OK, or E_INVALIDARG for a string that is not `{…}` or NULL.
///
/// # Safety
/// As `CLSIDFromString`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn IIDFromString(s: *const u16, out: *mut Guid) -> i32 {
    // SAFETY: contract.
    unsafe { guid_from(s, out, 0x8007_0057u32 as i32) }
}

fn random_guid() -> Option<Guid> {
    use std::io::Read;
    let mut b = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .ok()?
        .read_exact(&mut b)
        .ok()?;
    b[6] = (b[6] & 0x0f) | 0x40; // version 4
    b[8] = (b[8] & 0x3f) | 0x80; // RFC 4122 variant
    let mut d4 = [0u8; 8];
    d4.copy_from_slice(&b[8..]);
    Some(Guid {
        d1: u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        d2: u16::from_le_bytes([b[4], b[5]]),
        d3: u16::from_le_bytes([b[6], b[7]]),
        d4,
    })
}

/// `CoCreateGuid`: a random (version 4) GUID; E_INVALIDARG for NULL.
///
/// # Safety
/// `out` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CoCreateGuid(out: *mut Guid) -> i32 {
    if out.is_null() {
        return 0x8007_0057u32 as i32;
    }
    match random_guid() {
        Some(g) => {
            // SAFETY: writable (contract).
            unsafe { *out = g };
            0
        }
        None => 0x8000_4005u32 as i32, // E_FAIL
    }
}

/// `UuidCreate`: RPC_S_OK, or RPC_S_INVALID_ARG (87) for NULL.
///
/// # Safety
/// `out` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn UuidCreate(out: *mut Guid) -> i32 {
    // SAFETY: contract.
    if unsafe { CoCreateGuid(out) } == 0 {
        0
    } else {
        87
    }
}

/// `ConvertSidToStringSidW`: `S-R-A-S1-…` in a LocalAlloc'ed string; FALSE with
/// ERROR_INVALID_SID for a revision other than 1 or more than 15 sub-authorities,
/// ERROR_INVALID_PARAMETER for NULL.
///
/// # Safety
/// `sid` NULL or a SID (8 bytes + 4 per sub-authority); `out` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ConvertSidToStringSidW(sid: *const u8, out: *mut *mut u16) -> i32 {
    if sid.is_null() || out.is_null() {
        set_last_error(87);
        return 0;
    }
    // SAFETY: the 8-byte header is readable (contract).
    let count = usize::from(unsafe { *sid.add(1) });
    if count > etwsim::Sid::MAX_SUB_AUTHORITIES {
        set_last_error(etwsim::Win32Error::ERROR_INVALID_SID.code());
        return 0;
    }
    // SAFETY: the SID is 8 bytes and 4 per sub-authority, all readable (contract).
    let bytes = unsafe { std::slice::from_raw_parts(sid, 8 + 4 * count) };
    let Ok((sid, _)) = etwsim::Sid::read(bytes) else {
        set_last_error(etwsim::Win32Error::ERROR_INVALID_SID.code()); // a revision other than 1
        return 0;
    };
    let s = sid.to_string();
    let units: Vec<u16> = s.encode_utf16().chain([0]).collect();
    let p = LocalAlloc(0, units.len() * 2).cast::<u16>();
    if p.is_null() {
        return 0;
    }
    // SAFETY: allocated for `units.len()`; `out` writable.
    unsafe {
        std::ptr::copy_nonoverlapping(units.as_ptr(), p, units.len());
        *out = p;
    }
    1
}

// ---- the command line and wmain's argv ----

/// The program's arguments as NUL-terminated UTF-16 (built once; lives until exit).
struct WideArgs {
    _storage: Vec<Vec<u16>>,
    ptrs: Vec<*mut u16>,
    line: Vec<u16>,
}
// SAFETY: built once and never mutated; the pointers point into `_storage`.
unsafe impl Send for WideArgs {}
// SAFETY: as above.
unsafe impl Sync for WideArgs {}

fn wide_args() -> &'static WideArgs {
    static ARGS: OnceLock<WideArgs> = OnceLock::new();
    ARGS.get_or_init(|| {
        let args: Vec<String> = std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let mut storage: Vec<Vec<u16>> = args
            .iter()
            .map(|a| a.encode_utf16().chain([0]).collect())
            .collect();
        let mut ptrs: Vec<*mut u16> = storage.iter_mut().map(|v| v.as_mut_ptr()).collect();
        ptrs.push(std::ptr::null_mut());
        let line = args.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ");
        WideArgs {
            _storage: storage,
            ptrs,
            line: line.encode_utf16().chain([0]).collect(),
        }
    })
}

/// An argument as Windows's command-line rules read it back.
fn quote(a: &str) -> String {
    if !a.is_empty() && !a.contains([' ', '\t', '"']) {
        return a.to_owned();
    }
    let mut s = String::from("\"");
    let mut bs = 0;
    for c in a.chars() {
        match c {
            '\\' => bs += 1,
            '"' => {
                s += &"\\".repeat(bs * 2 + 1);
                s.push('"');
                bs = 0;
            }
            _ => {
                s += &"\\".repeat(bs);
                s.push(c);
                bs = 0;
            }
        }
    }
    s += &"\\".repeat(bs * 2);
    s.push('"');
    s
}

/// The UTF-16 `argv` (NULL-terminated) the `wmain` startup passes: the process's
/// arguments, read as UTF-8 (invalid bytes become U+FFFD).
#[unsafe(no_mangle)]
pub extern "C" fn etwsim_wide_argv() -> *const *mut u16 {
    wide_args().ptrs.as_ptr()
}

/// `GetCommandLineW`: the arguments, quoted as Windows's rules read them back.
#[unsafe(no_mangle)]
pub extern "C" fn GetCommandLineW() -> *const u16 {
    wide_args().line.as_ptr()
}

/// Splits a command line by Windows's rules (CommandLineToArgvW's: the first argument
/// ends at whitespace or its closing quote; then backslashes escape only before quotes).
fn split_cmdline(s: &[u16]) -> Vec<Vec<u16>> {
    let (q, bsl, sp, tab) = (u16::from(b'"'), u16::from(b'\\'), 32u16, 9u16);
    let mut out = Vec::new();
    let mut i = 0;
    // The program name.
    let mut first = Vec::new();
    if s.first() == Some(&q) {
        i = 1;
        while i < s.len() && s[i] != q {
            first.push(s[i]);
            i += 1;
        }
        i += 1;
    } else {
        while i < s.len() && s[i] != sp && s[i] != tab {
            first.push(s[i]);
            i += 1;
        }
    }
    out.push(first);
    loop {
        while i < s.len() && (s[i] == sp || s[i] == tab) {
            i += 1;
        }
        if i >= s.len() {
            break;
        }
        let mut arg = Vec::new();
        let mut inq = false;
        while i < s.len() && (inq || (s[i] != sp && s[i] != tab)) {
            if s[i] == bsl {
                let mut n = 0;
                while i < s.len() && s[i] == bsl {
                    n += 1;
                    i += 1;
                }
                if i < s.len() && s[i] == q {
                    arg.extend(std::iter::repeat_n(bsl, n / 2));
                    if n % 2 == 1 {
                        arg.push(q);
                        i += 1;
                    }
                } else {
                    arg.extend(std::iter::repeat_n(bsl, n));
                }
                continue;
            }
            if s[i] == q {
                if inq && s.get(i + 1) == Some(&q) {
                    arg.push(q);
                    i += 2;
                    continue;
                }
                inq = !inq;
                i += 1;
                continue;
            }
            arg.push(s[i]);
            i += 1;
        }
        out.push(arg);
    }
    out
}

/// `CommandLineToArgvW`: one LocalAlloc'ed block (pointers, then the strings) to free
/// with LocalFree; an empty line gives the program's own path. NULL (ERROR_INVALID_PARAMETER)
/// for a NULL count.
///
/// # Safety
/// `line` NULL or NUL-terminated; `argc` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn CommandLineToArgvW(line: *const u16, argc: *mut c_int) -> *mut *mut u16 {
    if argc.is_null() {
        set_last_error(87);
        return std::ptr::null_mut();
    }
    // SAFETY: NUL-terminated (contract).
    let text = if line.is_null() {
        &[][..]
    } else {
        // SAFETY: the block holds the pointer array and every string with its NUL.
        unsafe { std::slice::from_raw_parts(line, crate::crt::etwsim_wcslen(line)) }
    };
    let args = if text.is_empty() {
        let exe = std::env::current_exe()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        vec![exe.encode_utf16().collect()]
    } else {
        split_cmdline(text)
    };
    let ptr_bytes = (args.len() + 1) * std::mem::size_of::<*mut u16>();
    let str_units: usize = args.iter().map(|a| a.len() + 1).sum();
    let block = LocalAlloc(0, ptr_bytes + str_units * 2);
    if block.is_null() {
        return std::ptr::null_mut();
    }
    let ptrs = block.cast::<*mut u16>();
    // SAFETY: the block holds the pointer array and then every string with its NUL.
    unsafe {
        let mut at = block.cast::<u8>().add(ptr_bytes).cast::<u16>();
        for (k, a) in args.iter().enumerate() {
            *ptrs.add(k) = at;
            std::ptr::copy_nonoverlapping(a.as_ptr(), at, a.len());
            *at.add(a.len()) = 0;
            at = at.add(a.len() + 1);
        }
        *ptrs.add(args.len()) = std::ptr::null_mut();
        *argc = args.len() as c_int;
    }
    ptrs
}

// ---- conio ----

/// `_kbhit`: nonzero when a byte is waiting on standard input.
#[unsafe(no_mangle)]
pub extern "C" fn _kbhit() -> c_int {
    let mut p = PollFd {
        fd: 0,
        events: 1,
        revents: 0,
    };
    // SAFETY: one valid pollfd, no wait.
    let r = unsafe { poll(&mut p, 1, 0) };
    c_int::from(r > 0 && p.revents & 1 != 0)
}

/// `_getch`: the next byte of standard input (on a terminal, as the terminal delivers
/// it: after Enter, echoed); -1 (EOF) at end of input.
#[unsafe(no_mangle)]
pub extern "C" fn _getch() -> c_int {
    let mut b = 0u8;
    // SAFETY: reads one byte into `b`.
    let n = unsafe { read(0, (&raw mut b).cast(), 1) };
    // SAFETY: no arguments.
    let _ = unsafe { isatty(0) };
    if n == 1 { c_int::from(b) } else { -1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip() {
        let st = SystemTime16 {
            year: 2024,
            month: 2,
            day_of_week: 4,
            day: 29,
            hour: 13,
            minute: 5,
            second: 9,
            milliseconds: 7,
        };
        let mut ft = FileTime::default();
        // SAFETY: valid pointers.
        assert_eq!(unsafe { SystemTimeToFileTime(&st, &mut ft) }, 1);
        let mut back = SystemTime16::default();
        // SAFETY: valid pointers.
        assert_eq!(unsafe { FileTimeToSystemTime(&ft, &mut back) }, 1);
        assert_eq!(back, st);
        let bad = SystemTime16 {
            month: 2,
            day: 30,
            ..st
        };
        // SAFETY: valid pointers.
        assert_eq!(unsafe { SystemTimeToFileTime(&bad, &mut ft) }, 0);
        // 1601-01-01 00:00 is FILETIME 0.
        assert_eq!(filetime_to_system(0).unwrap().year, 1601);
    }

    #[test]
    fn guids_and_command_lines() {
        let s: Vec<u16> = "{5DD3A0A1-0000-4000-8000-0000000000AB}\0"
            .encode_utf16()
            .collect();
        let mut g = Guid::default();
        // SAFETY: valid pointers.
        assert_eq!(unsafe { CLSIDFromString(s.as_ptr(), &mut g) }, 0);
        let mut out = [0u16; 39];
        // SAFETY: 39 units.
        assert_eq!(unsafe { StringFromGUID2(&g, out.as_mut_ptr(), 39) }, 39);
        assert_eq!(&out[..], &s[..39]);
        // SAFETY: 38 is too small.
        assert_eq!(unsafe { StringFromGUID2(&g, out.as_mut_ptr(), 38) }, 0);
        let line: Vec<u16> = r#"prog.exe "a b" c\"d e\\"#.encode_utf16().collect();
        let args: Vec<String> = split_cmdline(&line)
            .iter()
            .map(|a| String::from_utf16(a).unwrap())
            .collect();
        assert_eq!(args, ["prog.exe", "a b", "c\"d", "e\\\\"]);
    }
}
