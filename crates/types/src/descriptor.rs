//! The fields of `EVENT_DESCRIPTOR`: level, keyword, opcode, task, channel.
//!
//! ETW leaves these wire values open (providers define their own levels 16–255, opcodes
//! 10–239, tasks and keyword bits 0–47), so each is an open newtype with the `winmeta.h`
//! constants (rules FLT-03, FLT-08, EVT-24, EVT-25).

use std::fmt;
use std::ops::{BitAnd, BitOr, BitOrAssign, Not};

/// Event severity (`UCHAR Level`); lower is more severe (FLT-01, FLT-03).
#[doc(alias = "TRACE_LEVEL_INFORMATION")]
#[doc(alias = "WINEVENT_LEVEL_INFO")]
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Level(pub u8);

impl Level {
    /// 0, `WINEVENT_LEVEL_LOG_ALWAYS`: bypasses level filtering. As a *session* level, 0 means
    /// "no level filtering" (FLT-02). Legacy name `TRACE_LEVEL_NONE`.
    pub const LOG_ALWAYS: Level = Level(0);
    /// 1, `WINEVENT_LEVEL_CRITICAL` (legacy `TRACE_LEVEL_FATAL`).
    pub const CRITICAL: Level = Level(1);
    /// 2, `WINEVENT_LEVEL_ERROR`.
    pub const ERROR: Level = Level(2);
    /// 3, `WINEVENT_LEVEL_WARNING`.
    pub const WARNING: Level = Level(3);
    /// 4, `WINEVENT_LEVEL_INFO`.
    pub const INFORMATION: Level = Level(4);
    /// 5, `WINEVENT_LEVEL_VERBOSE`.
    pub const VERBOSE: Level = Level(5);
    /// `EVENT_MIN_LEVEL` (0).
    pub const MIN: Level = Level(0);
    /// `EVENT_MAX_LEVEL` (0xFF).
    pub const MAX: Level = Level(0xff);

    /// The name `winmeta.h` gives the value, if any (`"win:Warning"`-style without the prefix).
    pub fn name(self) -> Option<&'static str> {
        Some(match self.0 {
            0 => "LogAlways",
            1 => "Critical",
            2 => "Error",
            3 => "Warning",
            4 => "Informational",
            5 => "Verbose",
            6..=15 => "Reserved",
            _ => return None,
        })
    }

    /// `true` for 6–15, which winmeta.h reserves (`WINEVENT_LEVEL_RESERVED_6`…`15`).
    pub fn is_reserved(self) -> bool {
        (6..=15).contains(&self.0)
    }

    /// `true` for 16–255, the range a manifest may define (FLT-03).
    pub fn is_provider_defined(self) -> bool {
        self.0 >= 16
    }
}

impl fmt::Debug for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "Level({}:{n})", self.0),
            None => write!(f, "Level({})", self.0),
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

/// A 64-bit keyword mask (`ULONGLONG Keyword`, MatchAnyKeyword, MatchAllKeyword).
///
/// Bits 0–47 belong to the provider, bits 48–63 to Microsoft (FLT-08); ETW's filtering treats
/// them all alike.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Keyword(pub u64);

impl Keyword {
    /// 0: "no keyword" on an event, `WINEVT_KEYWORD_ANY` as a MatchAnyKeyword.
    pub const NONE: Keyword = Keyword(0);
    /// All 64 bits.
    pub const ALL: Keyword = Keyword(u64::MAX);
    /// Bits 0–47, which belong to the provider.
    pub const PROVIDER_MASK: Keyword = Keyword(0x0000_FFFF_FFFF_FFFF);
    /// Bits 48–63, which Microsoft defines.
    pub const RESERVED_MASK: Keyword = Keyword(0xFFFF_0000_0000_0000);
    /// `WINEVENT_KEYWORD_RESPONSE_TIME` (bit 48).
    pub const RESPONSE_TIME: Keyword = Keyword(0x0001_0000_0000_0000);
    /// `WINEVENT_KEYWORD_WDI_DIAG` (bit 50).
    pub const WDI_DIAG: Keyword = Keyword(0x0004_0000_0000_0000);
    /// `WINEVENT_KEYWORD_SQM` (bit 51).
    pub const SQM: Keyword = Keyword(0x0008_0000_0000_0000);
    /// `WINEVENT_KEYWORD_AUDIT_FAILURE` (bit 52).
    pub const AUDIT_FAILURE: Keyword = Keyword(0x0010_0000_0000_0000);
    /// `WINEVENT_KEYWORD_AUDIT_SUCCESS` (bit 53).
    pub const AUDIT_SUCCESS: Keyword = Keyword(0x0020_0000_0000_0000);
    /// `WINEVENT_KEYWORD_CORRELATION_HINT` (bit 54).
    pub const CORRELATION_HINT: Keyword = Keyword(0x0040_0000_0000_0000);
    /// `WINEVENT_KEYWORD_EVENTLOG_CLASSIC` (bit 55).
    pub const EVENTLOG_CLASSIC: Keyword = Keyword(0x0080_0000_0000_0000);

    /// `true` when no bit is set.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// `true` when `self` has every bit of `other`.
    pub const fn contains(self, other: Keyword) -> bool {
        self.0 & other.0 == other.0
    }

    /// `true` when `self` and `other` share a bit.
    pub const fn intersects(self, other: Keyword) -> bool {
        self.0 & other.0 != 0
    }
}

impl fmt::Debug for Keyword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Keyword({:#x})", self.0)
    }
}

impl fmt::Display for Keyword {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

impl BitOr for Keyword {
    type Output = Keyword;
    fn bitor(self, rhs: Keyword) -> Keyword {
        Keyword(self.0 | rhs.0)
    }
}

impl BitOrAssign for Keyword {
    fn bitor_assign(&mut self, rhs: Keyword) {
        self.0 |= rhs.0;
    }
}

impl BitAnd for Keyword {
    type Output = Keyword;
    fn bitand(self, rhs: Keyword) -> Keyword {
        Keyword(self.0 & rhs.0)
    }
}

impl Not for Keyword {
    type Output = Keyword;
    fn not(self) -> Keyword {
        Keyword(!self.0)
    }
}

/// The event's operation within its task (`UCHAR Opcode`, EVT-24).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Debug)]
pub struct Opcode(pub u8);

impl Opcode {
    /// 0, `WINEVENT_OPCODE_INFO`.
    pub const INFO: Opcode = Opcode(0);
    /// 1, `WINEVENT_OPCODE_START`: begins an activity.
    pub const START: Opcode = Opcode(1);
    /// 2, `WINEVENT_OPCODE_STOP` (`EVENT_TRACE_TYPE_END`).
    pub const STOP: Opcode = Opcode(2);
    /// 3, `WINEVENT_OPCODE_DC_START`: rundown at session start.
    pub const DC_START: Opcode = Opcode(3);
    /// 4, `WINEVENT_OPCODE_DC_STOP` (`EVENT_TRACE_TYPE_DC_END`).
    pub const DC_STOP: Opcode = Opcode(4);
    /// 5, `WINEVENT_OPCODE_EXTENSION`.
    pub const EXTENSION: Opcode = Opcode(5);
    /// 6, `WINEVENT_OPCODE_REPLY`.
    pub const REPLY: Opcode = Opcode(6);
    /// 7, `WINEVENT_OPCODE_RESUME` (`EVENT_TRACE_TYPE_DEQUEUE`).
    pub const RESUME: Opcode = Opcode(7);
    /// 8, `WINEVENT_OPCODE_SUSPEND` (`EVENT_TRACE_TYPE_CHECKPOINT`).
    pub const SUSPEND: Opcode = Opcode(8);
    /// 9, `WINEVENT_OPCODE_SEND`.
    pub const SEND: Opcode = Opcode(9);
    /// 240, `WINEVENT_OPCODE_RECEIVE`.
    pub const RECEIVE: Opcode = Opcode(0xF0);

    /// `true` for 10–239, the range providers define (a manifest may use up to 228 of them).
    pub fn is_provider_defined(self) -> bool {
        (10..=239).contains(&self.0)
    }

    /// `true` for 241–255, which winmeta.h reserves.
    pub fn is_reserved(self) -> bool {
        self.0 >= 241
    }
}

/// The event's task (`USHORT Task`); 0 means "no task" (EVT-26).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Debug)]
pub struct Task(pub u16);

impl Task {
    /// 0, `WINEVENT_TASK_NONE`.
    pub const NONE: Task = Task(0);
}

/// The event's channel (`UCHAR Channel`, EVT-25).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Debug)]
pub struct Channel(pub u8);

impl Channel {
    /// 0, `WINEVENT_CHANNEL_CLASSIC_TRACE`: ordinary manifest events.
    pub const CLASSIC_TRACE: Channel = Channel(0);
    /// 8, `WINEVENT_CHANNEL_GLOBAL_SYSTEM`.
    pub const GLOBAL_SYSTEM: Channel = Channel(8);
    /// 9, `WINEVENT_CHANNEL_GLOBAL_APPLICATION`.
    pub const GLOBAL_APPLICATION: Channel = Channel(9);
    /// 10, `WINEVENT_CHANNEL_GLOBAL_SECURITY`.
    pub const GLOBAL_SECURITY: Channel = Channel(10);
    /// 11, `WINEVENT_CHANNEL_TRACELOGGING`: the default for TraceLogging events.
    pub const TRACELOGGING: Channel = Channel(11);
    /// 12, `WINEVENT_CHANNEL_PROVIDERMETADATA`.
    pub const PROVIDER_METADATA: Channel = Channel(12);

    /// `true` below 16: values Microsoft reserves and the runtime may treat specially.
    pub fn is_reserved(self) -> bool {
        self.0 < 16
    }
}

/// `EVENT_DESCRIPTOR`: the static description of one event.
///
/// Laid out as the C structure is (`repr(C)`, 16 bytes): its first eight bytes are then the
/// eight bytes of an `EVENT_HEADER`'s descriptor part, which the write path reads as one word.
#[doc(alias = "EVENT_DESCRIPTOR")]
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, Debug)]
#[repr(C)]
pub struct EventDescriptor {
    /// `Id`: identifies a manifest event within its provider (with `version`).
    pub id: u16,
    /// `Version`.
    pub version: u8,
    /// `Channel`.
    pub channel: Channel,
    /// `Level`.
    pub level: Level,
    /// `Opcode`.
    pub opcode: Opcode,
    /// `Task`.
    pub task: Task,
    /// `Keyword`.
    pub keyword: Keyword,
}

impl EventDescriptor {
    /// A descriptor with the given id, level and keyword; everything else 0.
    pub const fn new(id: u16, level: Level, keyword: Keyword) -> EventDescriptor {
        EventDescriptor {
            id,
            version: 0,
            channel: Channel(0),
            level,
            opcode: Opcode(0),
            task: Task(0),
            keyword,
        }
    }

    /// With `version`.
    pub const fn with_version(mut self, version: u8) -> Self {
        self.version = version;
        self
    }

    /// With `channel`.
    pub const fn with_channel(mut self, channel: Channel) -> Self {
        self.channel = channel;
        self
    }

    /// With `opcode`.
    pub const fn with_opcode(mut self, opcode: Opcode) -> Self {
        self.opcode = opcode;
        self
    }

    /// With `task`.
    pub const fn with_task(mut self, task: Task) -> Self {
        self.task = task;
        self
    }
}
