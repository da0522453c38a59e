//! The session notification provider: what ETW tells a consumer about sessions starting,
//! stopping and changing files (BUF-18; Windows Internals' notes on provider
//! {2a6e185b-90de-4fc5-826c-9f44e608a427}).
//!
//! ETW's internal notification types (ntwmi.h, BUF-18) are MediaChanged 1, SessionTerminated 2,
//! LogfileError 3, RealtimeError 4 and SessionStarted 5. Which of them reach a consumer, and
//! with what payload, is not published; etwsim's choice: when some session has enabled
//! [`SESSION_NOTIFICATION_GUID`], the kernel (as the System process) writes one event per
//! notification, event ID = the type, level 4 (information), keyword 0, version 0:
//!
//! | notification | when |
//! |---|---|
//! | SessionStarted (5) | StartTrace succeeded (non-private sessions) |
//! | SessionTerminated (2) | ControlTrace(STOP) finished; the final statistics are known |
//! | MediaChanged (1) | a new log file: ControlTrace(INCREMENT_FILE), or UPDATE to another file |
//! | LogfileError (3) | a file session's log file took no more and the session is stopped (SES-62); Status ERROR_LOG_FILE_FULL |
//!
//! Payload (little-endian): LoggerId u16, reserved u16 (0), the session GUID (16 bytes, GUID
//! layout), Status u32 (the Win32 code; 0 except for LogfileError), BuffersWritten u32,
//! EventsLost u32, then the log file name and the session name, each UTF-16 with a
//! terminating NUL (an empty name is just the NUL). RealtimeError (4) is not sent.

use etwsim_types::Guid;

use crate::data::properties::SessionProperties;

/// The session notification provider's GUID, {2a6e185b-90de-4fc5-826c-9f44e608a427}.
pub const SESSION_NOTIFICATION_GUID: Guid =
    Guid::from_str_const("2a6e185b-90de-4fc5-826c-9f44e608a427");

/// One of ETW's session notification types (ntwmi.h; the event ID of the notification).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SessionNotification {
    /// MediaChanged (1): the session opened a new log file.
    MediaChanged = 1,
    /// SessionTerminated (2): the session stopped.
    SessionTerminated = 2,
    /// LogfileError (3): a buffer could not be written to the log file.
    LogfileError = 3,
    /// SessionStarted (5): the session started.
    SessionStarted = 5,
}

/// The payload of a notification (see the module docs).
pub fn notification_payload(props: &SessionProperties, status: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(&props.logger_id.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&props.guid.to_bytes_le());
    out.extend_from_slice(&status.to_le_bytes());
    out.extend_from_slice(&props.buffers_written.to_le_bytes());
    out.extend_from_slice(&props.events_lost.to_le_bytes());
    for text in [props.log_file.as_deref().unwrap_or(""), props.name.as_str()] {
        for unit in text.encode_utf16().chain(std::iter::once(0)) {
            out.extend_from_slice(&unit.to_le_bytes());
        }
    }
    out
}
