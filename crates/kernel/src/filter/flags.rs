//! How a system logger chooses kernel events: `EnableFlags` (KRN-09), the
//! `PERFINFO_GROUPMASK` of TraceSetInformation (KRN-06, KRN-07), the reserved extension bits
//! (KRN-08) and the Windows 11 System Providers' keywords (KRN-03…KRN-05).

use crate::{Error, Result};
use etwsim_types::Guid;

/// `EVENT_TRACE_FLAG_*`: the `EnableFlags` bits of a system logger (KRN-09).
#[allow(missing_docs)] // each constant is its Windows name; KRN-09 says what it produces
pub mod event_trace_flag {
    pub const PROCESS: u32 = 0x0000_0001;
    pub const THREAD: u32 = 0x0000_0002;
    pub const IMAGE_LOAD: u32 = 0x0000_0004;
    pub const PROCESS_COUNTERS: u32 = 0x0000_0008;
    pub const CSWITCH: u32 = 0x0000_0010;
    pub const DPC: u32 = 0x0000_0020;
    pub const INTERRUPT: u32 = 0x0000_0040;
    pub const SYSTEMCALL: u32 = 0x0000_0080;
    pub const DISK_IO: u32 = 0x0000_0100;
    pub const DISK_FILE_IO: u32 = 0x0000_0200;
    pub const DISK_IO_INIT: u32 = 0x0000_0400;
    pub const DISPATCHER: u32 = 0x0000_0800;
    pub const MEMORY_PAGE_FAULTS: u32 = 0x0000_1000;
    pub const MEMORY_HARD_FAULTS: u32 = 0x0000_2000;
    pub const VIRTUAL_ALLOC: u32 = 0x0000_4000;
    pub const VAMAP: u32 = 0x0000_8000;
    pub const NETWORK_TCPIP: u32 = 0x0001_0000;
    pub const REGISTRY: u32 = 0x0002_0000;
    pub const DBGPRINT: u32 = 0x0004_0000;
    pub const JOB: u32 = 0x0008_0000;
    pub const ALPC: u32 = 0x0010_0000;
    pub const SPLIT_IO: u32 = 0x0020_0000;
    pub const DEBUG_EVENTS: u32 = 0x0040_0000;
    pub const DRIVER: u32 = 0x0080_0000;
    pub const PROFILE: u32 = 0x0100_0000;
    pub const FILE_IO: u32 = 0x0200_0000;
    pub const FILE_IO_INIT: u32 = 0x0400_0000;
    pub const NO_SYSCONFIG: u32 = 0x1000_0000;
    pub const ENABLE_RESERVE: u32 = 0x2000_0000;
    pub const FORWARD_WMI: u32 = 0x4000_0000;
    pub const EXTENSION: u32 = 0x8000_0000;
}

/// `PERF_*` group constants beyond word 0 that KRN-07 names: the word index in bits 29–31, the
/// bit below.
#[allow(missing_docs)]
pub mod perf_group {
    pub const PROFILE: u32 = 0x2000_0002;
    pub const CONTEXT_SWITCH: u32 = 0x2000_0004;
    pub const DRIVERS: u32 = 0x2000_0010;
    pub const DPC: u32 = 0x2000_0080;
    pub const DISPATCHER: u32 = 0x2000_0200;
    pub const INTERRUPT: u32 = 0x2000_4000;
    pub const VIRTUAL_ALLOC: u32 = 0x2000_8000;
    pub const SYSCALL: u32 = 0x4000_0040;
}

use event_trace_flag as f;

/// KRN-07: EnableFlags bits with an "equivalent" group beyond word 0.
const EQUIVALENTS: [(u32, u32); 8] = [
    (f::PROFILE, perf_group::PROFILE),
    (f::CSWITCH, perf_group::CONTEXT_SWITCH),
    (f::DRIVER, perf_group::DRIVERS),
    (f::DPC, perf_group::DPC),
    (f::DISPATCHER, perf_group::DISPATCHER),
    (f::INTERRUPT, perf_group::INTERRUPT),
    (f::VIRTUAL_ALLOC, perf_group::VIRTUAL_ALLOC),
    (f::SYSTEMCALL, perf_group::SYSCALL),
];

/// KRN-08: ENABLE_RESERVE, FORWARD_WMI and EXTENSION are reserved; etwsim ignores them.
const RESERVED: u32 = f::ENABLE_RESERVE | f::FORWARD_WMI | f::EXTENSION;

/// `PERFINFO_GROUPMASK`: a system logger's kernel selection, 8 × u32; word 0 is the
/// EnableFlags word (KRN-06, KRN-07).
#[doc(alias = "PERFINFO_GROUPMASK")]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct GroupMask(pub [u32; 8]);

impl GroupMask {
    /// The mask of an `EnableFlags` word: word 0, the reserved bits dropped (KRN-08).
    pub fn from_enable_flags(flags: u32) -> GroupMask {
        let mut m = [0; 8];
        m[0] = flags & !RESERVED;
        GroupMask(m)
    }

    /// The mask TraceSetInformation(TraceSystemTraceEnableFlagsInfo) passes: 4 to 32 bytes,
    /// whole little-endian ULONGs; missing words are 0 (KRN-06, choice).
    ///
    /// # Errors
    /// `ERROR_BAD_LENGTH` for any other length (KRN-06's guess).
    pub fn from_bytes(bytes: &[u8]) -> Result<GroupMask> {
        if bytes.len() < 4 || bytes.len() > 32 || bytes.len() % 4 != 0 {
            return Err(Error::BadLength(format!(
                "a group mask is 4 to 32 bytes in whole ULONGs, not {} bytes",
                bytes.len()
            )));
        }
        let mut m = [0; 8];
        for (w, c) in m.iter_mut().zip(bytes.chunks_exact(4)) {
            *w = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        }
        m[0] &= !RESERVED;
        Ok(GroupMask(m))
    }

    /// The mask as TraceQueryInformation returns it: 32 bytes.
    pub fn to_bytes(&self) -> [u8; 32] {
        let mut out = [0; 32];
        for (c, w) in out.chunks_exact_mut(4).zip(self.0) {
            c.copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// Is group `group` on? A word-0 group is an `EVENT_TRACE_FLAG_*` bit; a `PERF_*` constant
    /// carries its word index in bits 29–31. A group with an equivalent in the other
    /// encoding is on when either is set (KRN-07, choice).
    pub fn is_on(&self, group: u32) -> bool {
        let index = ((group & 0xE000_0000) >> 29) as usize;
        let bit = group & 0x1FFF_FFFF;
        if self.0[index] & bit != 0 {
            return true;
        }
        EQUIVALENTS.iter().any(|&(flag, perf)| {
            (group == flag && self.is_on(perf)) || (group == perf && self.0[0] & flag != 0)
        })
    }

    /// Word 0 with every flag whose equivalent group is set in a later word: what the
    /// event path tests.
    pub fn effective_flags(&self) -> u32 {
        EQUIVALENTS
            .iter()
            .filter(|(_, perf)| self.is_on(*perf))
            .fold(self.0[0], |acc, (flag, _)| acc | flag)
    }

    /// The same mask with `flags` added to word 0.
    pub(crate) fn with_flags(mut self, flags: u32) -> GroupMask {
        self.0[0] |= flags & !RESERVED;
        self
    }
}

/// A Windows 11 System Provider (KRN-03) and how its keywords map to EnableFlags (KRN-04,
/// KRN-05).
#[derive(Debug)]
pub struct SystemProvider {
    /// The `*ProviderGuid` name.
    pub name: &'static str,
    /// Its GUID.
    pub guid: Guid,
    /// (keyword, EnableFlags bits it turns on); keywords not listed turn nothing on here.
    pub keywords: &'static [(u64, u32)],
}

const fn g(s: &str) -> Guid {
    Guid::from_str_const(s)
}

/// SYSTEM_PROCESS_KW_* (KRN-05).
const PROCESS_KEYWORDS: &[(u64, u32)] = &[
    (0x1, f::PROCESS),
    (0x80, f::DEBUG_EVENTS),
    (0x100, f::DBGPRINT),
    (0x200, f::JOB),
    (0x800, f::THREAD),
    (0x1000, f::IMAGE_LOAD),
];

/// SYSTEM_IO_KW_* (KRN-04); DRIVERS also turns on FILENAME.
const IO_KEYWORDS: &[(u64, u32)] = &[
    (0x1, f::DISK_IO),
    (0x2, f::DISK_IO_INIT),
    (0x4, f::DISK_FILE_IO),
    (0x8, f::SPLIT_IO),
    (0x10, f::FILE_IO),
    (0x80, f::DRIVER | f::DISK_FILE_IO),
    (0x200, f::NETWORK_TCPIP),
    (0x400, f::FILE_IO_INIT),
];

macro_rules! providers {
    ($($name:literal $guid:literal $kw:expr;)*) => {
        /// The 17 System Providers of "Well-known names and GUIDs" (KRN-03). Only the process
        /// and I/O providers' keywords map to groups etwsim produces; the others are accepted
        /// and produce nothing.
        pub const SYSTEM_PROVIDERS: &[SystemProvider] = &[
            $(SystemProvider { name: $name, guid: g($guid), keywords: $kw },)*
        ];
    };
}

providers! {
    "SystemAlpcProviderGuid" "fcb9baaf-e529-4980-92e9-ced1a6aadfdf" &[];
    "SystemConfigProviderGuid" "fef3a8b6-318d-4b67-a96a-3b0f6b8f18fe" &[];
    "SystemCpuProviderGuid" "c6c5265f-eae8-4650-aae4-9d48603d8510" &[];
    "SystemHypervisorProviderGuid" "bafa072a-918a-4bed-b622-bc152097098f" &[];
    "SystemInterruptProviderGuid" "d4bbee17-b545-4888-858b-744169015b25" &[];
    "SystemIoProviderGuid" "3d5c43e3-0f1c-4202-b817-174c0070dc79" IO_KEYWORDS;
    "SystemIoFilterProviderGuid" "fbd09363-9e22-4661-b8bf-e7a34b535b8c" &[];
    "SystemLockProviderGuid" "721ddfd3-dacc-4e1e-b26a-a2cb31d4705a" &[];
    "SystemMemoryProviderGuid" "82958ca9-b6cd-47f8-a3a8-03ae85a4bc24" &[];
    "SystemObjectProviderGuid" "febd7460-3d1d-47eb-af49-c9eeb1e146f2" &[];
    "SystemPowerProviderGuid" "c134884a-32d5-4488-80e5-14ed7abb8269" &[];
    "SystemProcessProviderGuid" "151f55dc-467d-471f-83b5-5f889d46ff66" PROCESS_KEYWORDS;
    "SystemProfileProviderGuid" "bfeb0324-1cee-496f-a409-2ac2b48a6322" &[];
    "SystemRegistryProviderGuid" "16156bd9-fab4-4cfa-a232-89d1099058e3" &[];
    "SystemSchedulerProviderGuid" "599a2a76-4d91-4910-9ac7-7d33f2e97a6c" &[];
    "SystemSyscallProviderGuid" "434286f7-6f1b-45bb-b37e-95f623046c7c" &[];
    "SystemTimerProviderGuid" "4f061568-e215-499f-ab2e-eda0ae890a5b" &[];
}

impl SystemProvider {
    /// The System Provider with this GUID.
    pub fn by_guid(guid: Guid) -> Option<&'static SystemProvider> {
        SYSTEM_PROVIDERS.iter().find(|p| p.guid == guid)
    }

    /// The EnableFlags bits `match_any` turns on (0 = every keyword, as for any modern
    /// provider).
    pub fn flags_for(&self, match_any: u64) -> u32 {
        let any = if match_any == 0 { u64::MAX } else { match_any };
        self.keywords
            .iter()
            .filter(|(kw, _)| any & kw != 0)
            .fold(0, |acc, (_, flags)| acc | flags)
    }
}
