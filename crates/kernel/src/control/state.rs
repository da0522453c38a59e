//! The kernel's tables under one lock ([`State`]): the session table (`control::session`),
//! the GUID table (`control::provider`), the process table (`machine::process`) and the GUID
//! security descriptors (`control::security`), each owned by its module, and the generator
//! that makes GUIDs reproducible. `api::kernel` holds it in a mutex (its locking notes).

use crate::control::provider::GuidTable;
use crate::control::security::SecurityTable;
use crate::control::session::SessionTable;
use crate::machine::process::ProcessTable;
use etwsim_types::Guid;

/// SplitMix64: a tiny, well-known generator; seeded, it makes GUIDs reproducible.
#[derive(Clone, Debug)]
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    pub(in crate::control) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A random RFC 4122 version-4 GUID.
    pub(in crate::control) fn next_guid(&mut self) -> Guid {
        let v = (u128::from(self.next_u64()) << 64) | u128::from(self.next_u64());
        let v = (v & !(0xF << 76)) | (0x4 << 76); // version 4
        let v = (v & !(0x3 << 62)) | (0x2 << 62); // RFC 4122 variant
        Guid::from_u128(v)
    }
}

/// The kernel's tables. See `api::kernel`'s module docs for who may hold the lock and when.
pub(crate) struct State {
    /// The logger array and the system-logger slots.
    pub(crate) sessions: SessionTable,
    /// `ETW_GUID_ENTRY` table and provider groups.
    pub(crate) providers: GuidTable,
    /// Every process ever started.
    pub(crate) processes: ProcessTable,
    /// GUID security descriptors (`…\WMI\Security`, SEC-08).
    pub(crate) security: SecurityTable,
    pub(crate) rng: SplitMix64,
}

impl State {
    pub(crate) fn new(max_loggers: u32, disk_free: u64, seed: u64) -> State {
        State {
            sessions: SessionTable::new(max_loggers, disk_free),
            providers: GuidTable::default(),
            processes: ProcessTable::default(),
            security: SecurityTable::default(),
            rng: SplitMix64(seed),
        }
    }
}
