//! Helpers shared by the crate's tests: a serialised, deterministic machine and C-shaped
//! buffers built as a C caller would build them.
#![allow(clippy::type_complexity)] // tests record tuples of what C callbacks saw
#![allow(dead_code, unreachable_pub)]

use etwsim_sys::abi::*;
use std::sync::{Mutex, MutexGuard, Once};

static LOCK: Mutex<()> = Mutex::new(());
static INIT: Once = Once::new();

/// Every test of a binary shares one machine: they run one at a time, on a deterministic
/// machine (no logger threads), so a kernel snapshot changes only through the calls a test
/// makes.
pub fn setup() -> MutexGuard<'static, ()> {
    INIT.call_once(|| {
        assert_eq!(etwsim_sys::etwsim_set_deterministic(7), 0);
    });
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

pub const OK: u32 = 0;
pub const INVALID_HANDLE: u32 = 6;
pub const BAD_LENGTH: u32 = 24;
pub const NOT_SUPPORTED: u32 = 50;
pub const INVALID_PARAMETER: u32 = 87;
pub const INSUFFICIENT_BUFFER: u32 = 122;
pub const BAD_PATHNAME: u32 = 161;
pub const INVALID_FLAG_NUMBER: u32 = 186;
pub const MORE_DATA: u32 = 234;
pub const CANCELLED: u32 = 1223;
pub const INVALID_TIME: u32 = 1901;
pub const WMI_GUID_NOT_FOUND: u32 = 4200;
pub const WMI_INSTANCE_NOT_FOUND: u32 = 4201;

/// `s` as UTF-16 with a NUL.
pub fn wide(s: &str) -> Vec<u16> {
    s.encode_utf16().chain(std::iter::once(0)).collect()
}

/// A GUID unique to a test.
pub fn guid(n: u128) -> GUID {
    GUID::from_u128(0x5e55_0000_0000_4000_8000_0000_0000_0000 | n)
}

/// The simulated machine's tables.
pub fn snapshot() -> etwsim::KernelSnapshot {
    etwsim_sys::kernel().snapshot()
}

/// An `EVENT_TRACE_PROPERTIES` block as Microsoft's samples allocate it: the structure, then
/// room for the session name, then (if any) the log file name, 8-byte aligned.
pub struct PropsBuf {
    buf: Vec<u64>,
}

pub const PROPS_SIZE: usize = std::mem::size_of::<EVENT_TRACE_PROPERTIES>();

impl PropsBuf {
    /// `name_units` UTF-16 units of room for the session name; the log file name after it.
    pub fn new(name_units: usize, log_file: Option<&str>) -> PropsBuf {
        let file = log_file.map(wide).unwrap_or_default();
        let size = PROPS_SIZE + 2 * name_units + 2 * file.len();
        let mut p = PropsBuf {
            buf: vec![0; size.div_ceil(8)],
        };
        let props = p.props_mut();
        props.Wnode.BufferSize = size as u32;
        props.Wnode.Flags = WNODE_FLAG_TRACED_GUID;
        props.Wnode.ClientContext = 1;
        props.LoggerNameOffset = PROPS_SIZE as u32;
        if !file.is_empty() {
            let off = PROPS_SIZE + 2 * name_units;
            props.LogFileNameOffset = off as u32;
            p.bytes_mut()[off..off + 2 * file.len()].copy_from_slice(
                &file
                    .iter()
                    .flat_map(|u| u.to_le_bytes())
                    .collect::<Vec<_>>(),
            );
        } else {
            p.props_mut().LogFileMode = EVENT_TRACE_REAL_TIME_MODE;
        }
        p
    }

    /// Room for 1,024 characters, real time.
    pub fn realtime() -> PropsBuf {
        PropsBuf::new(1025, None)
    }

    pub fn ptr(&mut self) -> *mut EVENT_TRACE_PROPERTIES {
        self.buf.as_mut_ptr().cast()
    }

    pub fn props(&self) -> &EVENT_TRACE_PROPERTIES {
        // SAFETY: the buffer is 8-aligned and at least a structure long, and every bit
        // pattern is a valid EVENT_TRACE_PROPERTIES (integers, a raw pointer, unions).
        unsafe { &*self.buf.as_ptr().cast::<EVENT_TRACE_PROPERTIES>() }
    }

    pub fn props_mut(&mut self) -> &mut EVENT_TRACE_PROPERTIES {
        // SAFETY: as in `props`, and the borrow is exclusive.
        unsafe { &mut *self.buf.as_mut_ptr().cast::<EVENT_TRACE_PROPERTIES>() }
    }

    pub fn bytes(&self) -> Vec<u8> {
        self.buf.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let len = self.buf.len() * 8;
        // SAFETY: the Vec's buffer holds `len` initialised bytes; u8 has no alignment.
        unsafe { std::slice::from_raw_parts_mut(self.buf.as_mut_ptr().cast::<u8>(), len) }
    }

    /// The NUL-terminated UTF-16 string at `offset`.
    pub fn string_at(&self, offset: u32) -> String {
        let bytes = self.bytes();
        let units: Vec<u16> = bytes[offset as usize..]
            .chunks(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .take_while(|&u| u != 0)
            .collect();
        String::from_utf16_lossy(&units)
    }

    pub fn handle(&self) -> u64 {
        // SAFETY: every bit pattern is a valid u64.
        unsafe { self.props().Wnode.Anonymous1.HistoricalContext }
    }
}

/// StartTraceW on a real-time session called `name`; its handle.
pub fn start_realtime(name: &str) -> (u64, PropsBuf) {
    let mut p = PropsBuf::realtime();
    let mut h = CONTROLTRACE_HANDLE::default();
    let n = wide(name);
    // SAFETY: valid out pointer, NUL-terminated name, a block of Wnode.BufferSize bytes.
    let code = unsafe { etwsim_sys::StartTraceW(&mut h, n.as_ptr(), p.ptr()) };
    assert_eq!(code, OK, "StartTraceW({name})");
    (h.Value, p)
}

/// ControlTraceW(STOP) by handle.
pub fn stop(handle: u64) -> u32 {
    let mut p = PropsBuf::realtime();
    // SAFETY: a valid properties block, no name.
    unsafe {
        etwsim_sys::ControlTraceW(
            CONTROLTRACE_HANDLE { Value: handle },
            std::ptr::null(),
            p.ptr(),
            EVENT_TRACE_CONTROL_STOP,
        )
    }
}

/// EventRegister without a callback.
pub fn register(g: &GUID) -> REGHANDLE {
    let mut h: REGHANDLE = 0;
    assert_eq!(
        // SAFETY: valid GUID and out pointer.
        unsafe { etwsim_sys::EventRegister(g, None, std::ptr::null(), &mut h) },
        OK
    );
    h
}

/// EnableTraceEx2(ENABLE) with a level and MatchAnyKeyword, no parameters.
pub fn enable(session: u64, g: &GUID, level: u8, any: u64) -> u32 {
    // SAFETY: a valid GUID, no parameters.
    unsafe {
        etwsim_sys::EnableTraceEx2(
            CONTROLTRACE_HANDLE { Value: session },
            g,
            EVENT_CONTROL_CODE_ENABLE_PROVIDER,
            level,
            any,
            0,
            0,
            std::ptr::null(),
        )
    }
}
