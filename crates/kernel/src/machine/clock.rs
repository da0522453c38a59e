//! Time: the kernel's clock and each session's clock type (SES-64, SES-65).
//!
//! The kernel keeps one time base in 100-ns ticks since its (simulated) boot:
//!
//! * threaded mode — a real monotonic clock (`Instant`), anchored to the real system time at
//!   boot;
//! * deterministic mode — a virtual clock that starts at a fixed instant
//!   ([`DETERMINISTIC_BOOT_FILETIME`], 2026-01-01T00:00:00Z), moves by a fixed tick on every
//!   event written and by `Kernel::advance(d)`, and by nothing else.
//!
//! A session stamps events in its own clock type: QPC at 10 MHz (the frequency Windows 10+
//! reports, so one QPC tick is 100 ns), system time as FILETIME, or CPU cycles at
//! [`CPU_SPEED_MHZ`].

use etwsim_types::ClockType;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// `PerfFreq` of the simulated QPC (10 MHz) and `CpuSpeedInMHz` of the simulated CPUs: the
/// values the record layout and the `.etl` headers use too.
pub use etwsim_types::record::{CPU_SPEED_MHZ, QPC_FREQUENCY};
/// FILETIME of 2026-01-01T00:00:00Z: where deterministic time starts.
pub const DETERMINISTIC_BOOT_FILETIME: i64 = etwsim_types::record::DETERMINISTIC_BOOT_FILETIME;
/// Virtual time an event write takes in deterministic mode: 1 µs.
pub const DEFAULT_EVENT_TICK: u64 = 10;
const FILETIME_UNIX_OFFSET: i64 = 116_444_736_000_000_000;

/// A duration in 100-ns ticks, in 64-bit arithmetic (`as_nanos() / 100` divides a `u128`,
/// which costs a library call on every event).
#[inline]
fn ticks_100ns(d: Duration) -> u64 {
    d.as_secs() * 10_000_000 + u64::from(d.subsec_nanos() / 100)
}

pub(crate) enum Clock {
    Real { origin: Instant, boot_filetime: i64 },
    Virtual { now: AtomicU64, tick: u64 },
}

impl Clock {
    pub(crate) fn real() -> Clock {
        let unix = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or(Duration::ZERO);
        Clock::Real {
            origin: Instant::now(),
            boot_filetime: FILETIME_UNIX_OFFSET + (unix.as_nanos() / 100) as i64,
        }
    }

    pub(crate) fn virtual_clock(tick: u64) -> Clock {
        Clock::Virtual {
            now: AtomicU64::new(0),
            tick,
        }
    }

    /// 100-ns ticks since boot, without moving a virtual clock.
    pub(crate) fn peek(&self) -> u64 {
        match self {
            Clock::Real { origin, .. } => ticks_100ns(origin.elapsed()),
            Clock::Virtual { now, .. } => now.load(Ordering::Relaxed),
        }
    }

    /// 100-ns ticks since boot for an event: a virtual clock moves one tick first.
    #[inline]
    pub(crate) fn event_now(&self) -> u64 {
        match self {
            Clock::Real { origin, .. } => ticks_100ns(origin.elapsed()),
            Clock::Virtual { now, tick } => now.fetch_add(*tick, Ordering::Relaxed) + *tick,
        }
    }

    /// The single-threaded engine's event time (`data/lane.rs`): a virtual clock's word and
    /// the time the next event takes, for the caller to store once the event is written (the
    /// same tick as [`Clock::event_now`], with a load and a store: only the kernel's own OS
    /// thread moves the clock). `None` for a real clock.
    #[inline(always)]
    pub(crate) fn next_event(&self) -> Option<(&AtomicU64, u64)> {
        match self {
            Clock::Real { .. } => None,
            Clock::Virtual { now, tick } => Some((now, now.load(Ordering::Relaxed) + *tick)),
        }
    }

    /// Moves a virtual clock forward; no effect on a real one.
    pub(crate) fn advance(&self, d: Duration) -> u64 {
        match self {
            Clock::Real { .. } => self.peek(),
            Clock::Virtual { now, .. } => {
                let t = ticks_100ns(d);
                now.fetch_add(t, Ordering::Relaxed) + t
            }
        }
    }

    /// FILETIME of boot.
    pub(crate) fn boot_filetime(&self) -> i64 {
        match self {
            Clock::Real { boot_filetime, .. } => *boot_filetime,
            Clock::Virtual { .. } => DETERMINISTIC_BOOT_FILETIME,
        }
    }

    /// A time base value in `clock`'s raw units.
    #[inline]
    pub(crate) fn raw(&self, ticks: u64, clock: ClockType) -> i64 {
        match clock {
            ClockType::Qpc => ticks as i64,
            ClockType::SystemTime => self.boot_filetime() + ticks as i64,
            ClockType::CpuCycle => (ticks * (CPU_SPEED_MHZ / 10)) as i64,
        }
    }
}

/// Converts a raw timestamp of `clock` to FILETIME, as ProcessTrace does unless
/// PROCESS_TRACE_MODE_RAW_TIMESTAMP is set (SES-65): QPC `ts × 10⁷ / PerfFreq`, system time
/// as is, cycles `ts × 10 / CpuSpeedInMHz` — each offset from `boot_filetime`.
pub fn raw_to_filetime(raw: i64, clock: ClockType, boot_filetime: i64) -> i64 {
    match clock {
        ClockType::Qpc => {
            boot_filetime + (i128::from(raw) * 10_000_000 / i128::from(QPC_FREQUENCY as i64)) as i64
        }
        ClockType::SystemTime => raw,
        ClockType::CpuCycle => {
            boot_filetime + (i128::from(raw) * 10 / i128::from(CPU_SPEED_MHZ as i64)) as i64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_clock_moves_only_when_told() {
        let c = Clock::virtual_clock(10);
        assert_eq!(c.peek(), 0);
        assert_eq!(c.event_now(), 10);
        assert_eq!(c.advance(Duration::from_millis(1)), 10 + 10_000);
        assert_eq!(c.peek(), 10_010);
        for clock in [ClockType::Qpc, ClockType::SystemTime, ClockType::CpuCycle] {
            let raw = c.raw(10_010, clock);
            assert_eq!(
                raw_to_filetime(raw, clock, c.boot_filetime()),
                DETERMINISTIC_BOOT_FILETIME + 10_010
            );
        }
    }
}
