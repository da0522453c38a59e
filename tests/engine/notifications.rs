//! The session notification provider {2a6e185b-90de-4fc5-826c-9f44e608a427}: a consumer that
//! enables it hears sessions start, stop, change files and fill their file (BUF-18; the
//! payload is etwsim's choice, documented in `etwsim_kernel::SessionNotification`).
use crate::common;
use common::*;
use etwsim::{
    ConsumerOptions, EnableParams, EventRecord, Kernel, LogFileMode, SESSION_NOTIFICATION_GUID,
    SessionNotification, SessionUpdate,
};

/// A real-time session "Watch" that enables the notification provider, and its consumer.
fn watcher(k: &Kernel) -> (etwsim::Session, etwsim::Consumer) {
    let w = k.session("Watch").buffer_size_kb(4).start().unwrap();
    w.enable(SESSION_NOTIFICATION_GUID, &EnableParams::new())
        .unwrap();
    let c = k
        .open_realtime(&k.system_process(), "Watch", ConsumerOptions::default())
        .unwrap();
    (w, c)
}

fn drain(w: &etwsim::Session, c: &mut etwsim::Consumer) -> Vec<EventRecord> {
    w.flush().unwrap();
    c.drain()
}

/// (event id, logger id, session name, log file) of a notification.
fn decode(e: &EventRecord) -> (u16, u16, String, String) {
    let d = &e.user_data;
    let logger = u16::from_le_bytes([d[0], d[1]]);
    let units: Vec<u16> = d[32..]
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    let mut parts = units.split(|u| *u == 0);
    let file = String::from_utf16(parts.next().unwrap()).unwrap();
    let name = String::from_utf16(parts.next().unwrap()).unwrap();
    (e.header.descriptor.id, logger, name, file)
}

// rule: BUF-18
#[test]
fn a_consumer_of_the_notification_provider_hears_sessions_start_and_stop() {
    let k = kernel();
    let (w, mut c) = watcher(&k);
    let a = k.session("Alpha").start().unwrap();
    let id = a.logger_id();
    a.stop().unwrap();
    let records = drain(&w, &mut c);
    assert!(
        records
            .iter()
            .all(|e| e.header.provider_id == SESSION_NOTIFICATION_GUID)
    );
    let seen: Vec<_> = records.iter().map(decode).collect();
    let started = SessionNotification::SessionStarted as u16;
    let stopped = SessionNotification::SessionTerminated as u16;
    assert_eq!(
        seen,
        [
            (started, id, "Alpha".to_string(), String::new()),
            (stopped, id, "Alpha".to_string(), String::new())
        ]
    );
}

// rule: BUF-18
#[test]
fn a_new_log_file_is_media_changed() {
    let k = kernel();
    let (w, mut c) = watcher(&k);
    let dir = std::env::temp_dir();
    let first = dir.join(format!("etwsim-notify-{}-a.etl", std::process::id()));
    let second = dir.join(format!("etwsim-notify-{}-b.etl", std::process::id()));
    let s = k
        .session("Files")
        .mode(LogFileMode::SEQUENTIAL)
        .log_file(first.to_str().unwrap())
        .start()
        .unwrap();
    let update = SessionUpdate {
        log_file: Some(second.to_str().unwrap().to_owned()),
        ..SessionUpdate::default()
    };
    s.update(&update).unwrap();
    let seen: Vec<_> = drain(&w, &mut c).iter().map(decode).collect();
    let changed = SessionNotification::MediaChanged as u16;
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[1].0, changed);
    assert_eq!(seen[1].3, second.to_str().unwrap());
}

// rule: BUF-18
#[test]
fn without_a_session_enabling_it_nothing_is_registered_or_written() {
    let k = kernel();
    let before = k.snapshot();
    let s = k.session("Quiet").start().unwrap();
    s.stop().unwrap();
    let after = k.snapshot();
    assert_eq!(after.guids, before.guids);
    assert!(k.trace_guid_info(SESSION_NOTIFICATION_GUID).is_none());
}

// rule: BUF-18
// rule: SES-62
#[test]
fn a_full_log_file_is_a_logfile_error_then_the_session_terminates() {
    use etwsim::{EventDescriptor, Keyword, Level, Token};
    let k = kernel();
    let (w, mut c) = watcher(&k);
    let s = k
        .session("Small")
        .mode(LogFileMode::SEQUENTIAL | LogFileMode::USE_KBYTES_FOR_SIZE)
        .log_file("notify-small.etl")
        .maximum_file_size(12)
        .buffer_size_kb(4)
        .start()
        .unwrap();
    s.enable(guid(1), &EnableParams::new()).unwrap();
    let app = k.spawn("app.exe", Token::user("alice")).unwrap();
    let p = app.register_provider(guid(1)).unwrap();
    let payload = [7u8; 1000];
    for id in 0..40u16 {
        if !s.is_running() {
            break;
        }
        let _ = p.write(
            &EventDescriptor::new(id, Level::INFORMATION, Keyword(1)),
            &[&payload],
        );
        k.run_pending();
    }
    assert!(!s.is_running(), "a 12 KB file holds two 4 KB data buffers");
    let records = drain(&w, &mut c);
    let small: Vec<&EventRecord> = records.iter().filter(|e| decode(e).2 == "Small").collect();
    let kinds: Vec<u16> = small.iter().map(|e| e.header.descriptor.id).collect();
    assert_eq!(kinds, [5, 3, 2], "started, log file error, terminated");
    let status = u32::from_le_bytes(small[1].user_data[20..24].try_into().unwrap());
    assert_eq!(status, etwsim::Win32Error::ERROR_LOG_FILE_FULL.code());
}
