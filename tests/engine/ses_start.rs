//! StartTrace: limits, names, GUIDs, handles, argument validation, access, and the
//! LogFileMode values with their combination rules (SES-01…SES-16, SES-23…SES-47; SES-17…22
//! are checked through the win32 face in tests/win32/win32_face.rs).

use crate::common;
use common::*;
use etwsim::{
    CKCL_NAME, ClockType, EnableParams, GLOBAL_LOGGER_NAME, Groups, Guid, KERNEL_LOGGER_NAME,
    Kernel, LogFileMode, MAX_NAME_CHARS, MAX_PRIVATE_IN_PROC_SESSIONS, MAX_PRIVATE_SESSIONS,
    MAX_SYSTEM_LOGGERS, Process, Result, Session, SessionBuilder, SessionConfig, Target, Token,
    TraceControl, TraceHandle, UNLIMITED_FILE_RESERVE, Win32Error,
};
use std::collections::HashSet;

const MB: u64 = 1024 * 1024;

/// A deterministic 4-CPU kernel with `max_loggers` running sessions at most.
fn kernel_with_cap(max_loggers: u32) -> Kernel {
    Kernel::builder()
        .cpus(4)
        .deterministic(42)
        .max_loggers(max_loggers)
        .build()
        .expect("kernel")
}

/// A deterministic 4-CPU kernel whose simulated disk has `bytes` free.
fn kernel_with_disk(bytes: u64) -> Kernel {
    Kernel::builder()
        .cpus(4)
        .deterministic(42)
        .disk_free_bytes(bytes)
        .build()
        .expect("kernel")
}

/// StartTrace as the System process with a raw configuration.
fn start(k: &Kernel, cfg: &SessionConfig) -> Result<Session> {
    k.start_trace(&k.system_process(), cfg)
}

/// A raw configuration: `mode`, and `file` as the log file.
fn config(name: &str, mode: LogFileMode, file: Option<&str>) -> SessionConfig {
    let mut c = SessionConfig::new(name);
    c.mode = mode;
    c.log_file = file.map(str::to_owned);
    c
}

/// A private session of `owner` for provider `g`, writing `<name>.etl`.
fn private_session(k: &Kernel, owner: &Process, name: &str, g: Guid) -> SessionBuilder {
    k.session(name)
        .guid(g)
        .mode(LogFileMode::PRIVATE_LOGGER)
        .log_file(&format!("{name}.etl"))
        .caller(owner)
}

/// A PRIVATE_IN_PROC session of `owner` with a generated session GUID, in BUFFERING mode.
fn in_proc_session(k: &Kernel, owner: &Process, name: &str) -> SessionBuilder {
    k.session(name)
        .mode(LogFileMode::PRIVATE_LOGGER | LogFileMode::PRIVATE_IN_PROC | LogFileMode::BUFFERING)
        .caller(owner)
}

/// A system logger (EVENT_TRACE_SYSTEM_LOGGER_MODE) named `name`.
fn system_logger(k: &Kernel, name: &str) -> SessionBuilder {
    k.session(name)
        .mode(LogFileMode::SYSTEM_LOGGER | LogFileMode::REAL_TIME)
}

fn query_by_name(k: &Kernel, name: &str) -> Result<etwsim::SessionProperties> {
    k.control_trace(
        &k.system_process(),
        Target::Name(name),
        TraceControl::Query,
        None,
    )
}

// ---------------------------------------------------------------------------------------
// 1.1 Limits
// ---------------------------------------------------------------------------------------

#[test]
fn sixty_fifth_session_is_refused_and_changes_nothing() {
    // rule: SES-01
    // rule: SES-02
    let k = kernel();
    assert_eq!(k.config().max_loggers, 64, "EtwMaxLoggers defaults to 64");
    let sessions: Vec<Session> = (0..64)
        .map(|i| k.session(&format!("cap-{i}")).start().unwrap())
        .collect();
    assert_eq!(k.sessions().len(), 64);
    assert_rejected(&k, Win32Error::ERROR_NO_SYSTEM_RESOURCES, || {
        k.session("cap-64").start()
    });
    assert_eq!(
        query_by_name(&k, "cap-64").unwrap_err().win32_code(),
        Win32Error::ERROR_WMI_INSTANCE_NOT_FOUND,
        "no session was created"
    );
    // Stopping one frees exactly one place.
    sessions[17].stop().unwrap();
    k.session("cap-64").start().unwrap();
    assert_rejected(&k, Win32Error::ERROR_NO_SYSTEM_RESOURCES, || {
        k.session("cap-65").start()
    });
}

#[test]
fn cap_follows_etw_max_loggers_32() {
    // rule: SES-01
    // rule: SES-02
    let k = kernel_with_cap(32);
    for i in 0..32 {
        k.session(&format!("s{i}")).start().unwrap();
    }
    assert_eq!(k.sessions().len(), 32);
    assert_rejected(&k, Win32Error::ERROR_NO_SYSTEM_RESOURCES, || {
        k.session("s32").start()
    });
}

#[test]
fn cap_follows_etw_max_loggers_256() {
    // rule: SES-01
    // rule: SES-02
    let k = kernel_with_cap(256);
    for i in 0..256 {
        k.session(&format!("s{i}")).start().unwrap();
    }
    assert_eq!(k.sessions().len(), 256);
    assert_rejected(&k, Win32Error::ERROR_NO_SYSTEM_RESOURCES, || {
        k.session("s256").start()
    });
}

#[test]
fn etw_max_loggers_outside_32_to_256_is_refused_at_boot() {
    // rule: SES-01
    for bad in [0, 31, 257, u32::MAX] {
        let err = Kernel::builder().max_loggers(bad).build().unwrap_err();
        assert_eq!(
            err.win32_code(),
            Win32Error::ERROR_INVALID_PARAMETER,
            "{bad}"
        );
    }
    for good in [32, 64, 200, 256] {
        let k = Kernel::builder().max_loggers(good).build().unwrap();
        assert_eq!(k.config().max_loggers, good);
    }
}

#[test]
fn special_sessions_count_against_the_one_cap_and_reserve_nothing() {
    // rule: SES-03
    let k = kernel_with_cap(32);
    // Without the NT Kernel Logger or the Global Logger running, all 32 places are usable.
    let plain: Vec<Session> = (0..32)
        .map(|i| k.session(&format!("p{i}")).start().unwrap())
        .collect();
    assert_rejected(&k, Win32Error::ERROR_NO_SYSTEM_RESOURCES, || {
        k.session(KERNEL_LOGGER_NAME).start()
    });
    for s in &plain {
        s.stop().unwrap();
    }
    // The special sessions take places of the same 32.
    k.session(KERNEL_LOGGER_NAME).start().unwrap();
    k.session(GLOBAL_LOGGER_NAME).start().unwrap();
    for i in 0..30 {
        k.session(&format!("q{i}")).start().unwrap();
    }
    assert_eq!(k.sessions().len(), 32);
    assert_rejected(&k, Win32Error::ERROR_NO_SYSTEM_RESOURCES, || {
        k.session("q30").start()
    });
}

#[test]
fn private_sessions_do_not_count_against_the_cap() {
    // rule: SES-04
    let k = kernel_with_cap(32);
    for i in 0..32 {
        k.session(&format!("s{i}")).start().unwrap();
    }
    let app = user_process(&k, "app.exe");
    let p = private_session(&k, &app, "mine", guid(1)).start().unwrap();
    assert!(p.query().unwrap().is_private);
    let q = in_proc_session(&k, &app, "mine-inproc").start().unwrap();
    assert!(q.query().unwrap().is_private);
    assert_eq!(
        k.sessions().len(),
        32,
        "private sessions are not system-wide loggers"
    );
    assert_rejected(&k, Win32Error::ERROR_NO_SYSTEM_RESOURCES, || {
        k.session("s32").start()
    });
}

#[test]
fn ninth_private_session_of_a_process_is_refused() {
    // rule: SES-05
    let k = kernel();
    assert_eq!(MAX_PRIVATE_SESSIONS, 8);
    let a = user_process(&k, "a.exe");
    let b = user_process(&k, "b.exe");
    let mine: Vec<Session> = (0..8)
        .map(|i| {
            private_session(&k, &a, &format!("a{i}"), guid(i))
                .start()
                .unwrap()
        })
        .collect();
    assert_rejected(&k, Win32Error::ERROR_NO_SYSTEM_RESOURCES, || {
        private_session(&k, &a, "a8", guid(8)).start()
    });
    // The limit is per process: another process still has its 8.
    for i in 0..8 {
        private_session(&k, &b, &format!("b{i}"), guid(i))
            .start()
            .unwrap();
    }
    assert_rejected(&k, Win32Error::ERROR_NO_SYSTEM_RESOURCES, || {
        private_session(&k, &b, "b8", guid(8)).start()
    });
    // Stopping one gives the place back.
    mine[3].stop().unwrap();
    private_session(&k, &a, "a8", guid(8)).start().unwrap();
}

#[test]
fn fourth_private_in_proc_session_of_a_process_is_refused() {
    // rule: SES-05
    let k = kernel();
    assert_eq!(MAX_PRIVATE_IN_PROC_SESSIONS, 3);
    let a = user_process(&k, "a.exe");
    let b = user_process(&k, "b.exe");
    let mine: Vec<Session> = (0..3)
        .map(|i| in_proc_session(&k, &a, &format!("a{i}")).start().unwrap())
        .collect();
    assert_rejected(&k, Win32Error::ERROR_NO_SYSTEM_RESOURCES, || {
        in_proc_session(&k, &a, "a3").start()
    });
    for i in 0..3 {
        in_proc_session(&k, &b, &format!("b{i}")).start().unwrap();
    }
    assert_rejected(&k, Win32Error::ERROR_NO_SYSTEM_RESOURCES, || {
        in_proc_session(&k, &b, "b3").start()
    });
    mine[0].stop().unwrap();
    in_proc_session(&k, &a, "a3").start().unwrap();
}

#[test]
fn ninth_system_logger_is_refused_and_changes_nothing() {
    // rule: SES-06
    assert_eq!(MAX_SYSTEM_LOGGERS, 8);
    let k = kernel();
    k.session(KERNEL_LOGGER_NAME).start().unwrap();
    system_logger(&k, CKCL_NAME).start().unwrap();
    for i in 0..6 {
        system_logger(&k, &format!("sys{i}")).start().unwrap();
    }
    assert_eq!(
        k.sessions().iter().filter(|p| p.is_system_logger).count(),
        8
    );
    assert_rejected(&k, Win32Error::ERROR_NO_SYSTEM_RESOURCES, || {
        system_logger(&k, "sys6").start()
    });
    // Only system loggers are limited: an ordinary session still starts.
    k.session("ordinary").start().unwrap();
    // A session that is a system logger by its GUID takes a system-logger place too (SES-13).
    assert_rejected(&k, Win32Error::ERROR_NO_SYSTEM_RESOURCES, || {
        k.session("global-guid").guid(Guid::GLOBAL_LOGGER).start()
    });
    // Stopping one frees its place.
    query_by_name(&k, "sys2").unwrap();
    k.control_trace(
        &k.system_process(),
        Target::Name("sys2"),
        TraceControl::Stop,
        None,
    )
    .unwrap();
    system_logger(&k, "sys6").start().unwrap();
}

#[test]
fn first_two_system_logger_places_are_kept_for_the_kernel_logger_and_ckcl() {
    // rule: SES-07
    // rule: SES-06
    let k = kernel();
    for i in 0..6 {
        system_logger(&k, &format!("sys{i}")).start().unwrap();
    }
    // Choice: the 7th ordinary system logger is refused although only 6 of 8 places are used,
    assert_rejected(&k, Win32Error::ERROR_NO_SYSTEM_RESOURCES, || {
        system_logger(&k, "sys6").start()
    });
    // because places 0 and 1 belong to the NT Kernel Logger and the CKCL, which still start.
    k.session(KERNEL_LOGGER_NAME).start().unwrap();
    system_logger(&k, CKCL_NAME).start().unwrap();
    assert_eq!(
        k.sessions().iter().filter(|p| p.is_system_logger).count(),
        8
    );
}

// ---------------------------------------------------------------------------------------
// 1.2 Names, GUIDs, handles
// ---------------------------------------------------------------------------------------

#[test]
fn empty_session_name_is_refused() {
    // rule: SES-08
    let k = kernel();
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("").start()
    });
}

#[test]
fn session_names_are_limited_to_1024_utf16_units() {
    // rule: SES-08
    assert_eq!(MAX_NAME_CHARS, 1024);
    let k = kernel();
    let longest = "n".repeat(1024);
    let s = k.session(&longest).start().unwrap();
    assert_eq!(s.query().unwrap().name, longest);
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session(&"n".repeat(1025)).start()
    });
    // The limit counts UTF-16 units, not bytes and not chars.
    k.session(&"é".repeat(1024)).start().unwrap(); // 1024 units, 2048 UTF-8 bytes
    k.session(&"𝄞".repeat(512)).start().unwrap(); // 512 surrogate pairs = 1024 units
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session(&format!("{}x", "𝄞".repeat(512))).start() // 1025 units
    });
}

#[test]
fn session_name_with_a_nul_is_refused() {
    // rule: SES-08
    let k = kernel();
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("bad\0name").start()
    });
}

#[test]
fn duplicate_session_name_is_refused_case_insensitively() {
    // rule: SES-08
    let k = kernel();
    let first = k.session("MySession").start().unwrap();
    for dup in ["MySession", "MYSESSION", "mysession", "mYsEsSiOn"] {
        assert_rejected(&k, Win32Error::ERROR_ALREADY_EXISTS, || {
            k.session(dup).start()
        });
    }
    // Non-ASCII letters fold too.
    k.session("Ärger").start().unwrap();
    assert_rejected(&k, Win32Error::ERROR_ALREADY_EXISTS, || {
        k.session("äRGER").start()
    });
    // A stopped session's name is free again; the new one keeps its own spelling.
    first.stop().unwrap();
    let again = k.session("MYSESSION").start().unwrap();
    assert_eq!(again.query().unwrap().name, "MYSESSION");
}

#[test]
fn name_folding_is_one_character_to_one_as_on_windows() {
    // rule: SES-08
    // Windows upcases names one UTF-16 unit at a time: "ß" has no one-character upper case,
    // so "straße" and "STRASSE" are two different names.
    let k = kernel();
    k.session("straße").start().unwrap();
    let other = k.session("STRASSE").start().unwrap();
    assert_eq!(other.query().unwrap().name, "STRASSE");
    assert_eq!(k.sessions().len(), 2);
}

#[test]
fn null_session_guid_is_replaced_by_a_unique_generated_guid() {
    // rule: SES-09
    let k = kernel();
    let mut seen = HashSet::new();
    for i in 0..64 {
        let s = k.session(&format!("g{i}")).start().unwrap();
        let g = s.guid();
        assert!(!g.is_null(), "ETW generates a GUID for GUID_NULL");
        assert_eq!(s.query().unwrap().guid, g);
        assert!(seen.insert(g), "generated GUID {g} repeated");
    }
}

#[test]
fn duplicate_session_guid_is_refused() {
    // rule: SES-09
    let k = kernel();
    let first = k.session("one").guid(guid(42)).start().unwrap();
    assert_eq!(first.guid(), guid(42), "an explicit GUID is kept");
    assert_rejected(&k, Win32Error::ERROR_ALREADY_EXISTS, || {
        k.session("two").guid(guid(42)).start()
    });
    // A generated GUID is protected as well.
    let generated = k.session("three").start().unwrap().guid();
    assert_rejected(&k, Win32Error::ERROR_ALREADY_EXISTS, || {
        k.session("four").guid(generated).start()
    });
    // Once the owner stops, the GUID is free.
    first.stop().unwrap();
    assert_eq!(
        k.session("two").guid(guid(42)).start().unwrap().guid(),
        guid(42)
    );
}

#[test]
fn second_nt_kernel_logger_is_refused() {
    // rule: SES-10
    let k = kernel();
    let kl = k.session(KERNEL_LOGGER_NAME).start().unwrap();
    for name in [KERNEL_LOGGER_NAME, "nt kernel logger", "NT KERNEL LOGGER"] {
        assert_rejected(&k, Win32Error::ERROR_ALREADY_EXISTS, || {
            k.session(name).start()
        });
    }
    assert_rejected(&k, Win32Error::ERROR_ALREADY_EXISTS, || {
        k.session(KERNEL_LOGGER_NAME).guid(guid(3)).start()
    });
    kl.stop().unwrap();
    k.session("nt kernel logger").start().unwrap();
}

#[test]
fn system_trace_control_guid_with_another_name_is_refused() {
    // rule: SES-11
    let k = kernel();
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("MyKernelSession")
            .guid(Guid::SYSTEM_TRACE_CONTROL)
            .start()
    });
    let s = k
        .session(KERNEL_LOGGER_NAME)
        .guid(Guid::SYSTEM_TRACE_CONTROL)
        .start()
        .unwrap();
    assert_eq!(s.guid(), Guid::SYSTEM_TRACE_CONTROL);
}

#[test]
fn nt_kernel_logger_name_forces_system_trace_control_guid() {
    // rule: SES-12
    let k = kernel();
    let s = k.session(KERNEL_LOGGER_NAME).guid(guid(7)).start().unwrap();
    assert_eq!(s.guid(), Guid::SYSTEM_TRACE_CONTROL);
    let q = s.query().unwrap();
    assert_eq!(q.guid, Guid::SYSTEM_TRACE_CONTROL);
    assert!(q.is_system_logger);
    // The GUID the caller passed was dropped, not reserved.
    assert_eq!(
        k.session("other").guid(guid(7)).start().unwrap().guid(),
        guid(7)
    );
}

#[test]
fn system_loggers_are_recognised_by_mode_guid_or_name() {
    // rule: SES-13
    let k = kernel();
    let by_mode = system_logger(&k, "by-mode").start().unwrap();
    let by_global_guid = k
        .session("by-global-guid")
        .guid(Guid::GLOBAL_LOGGER)
        .start()
        .unwrap();
    let by_name = k.session("nT kErNeL lOgGeR").start().unwrap();
    assert!(by_name.query().unwrap().is_system_logger);
    let by_stc_guid = {
        by_name.stop().unwrap();
        k.session(KERNEL_LOGGER_NAME)
            .guid(Guid::SYSTEM_TRACE_CONTROL)
            .start()
            .unwrap()
    };
    let ordinary = k.session("ordinary").guid(guid(1)).start().unwrap();
    for s in [&by_mode, &by_global_guid, &by_stc_guid] {
        assert!(s.query().unwrap().is_system_logger, "{}", s.name());
    }
    assert!(!ordinary.query().unwrap().is_system_logger);
}

#[test]
fn system_loggers_keep_their_enable_flags() {
    // rule: SES-13
    let k = kernel();
    let kl = k
        .session(KERNEL_LOGGER_NAME)
        .enable_flags(0x0000_0001 | 0x0000_0002)
        .start()
        .unwrap();
    assert_eq!(kl.query().unwrap().enable_flags, 0x3);
    let sl = system_logger(&k, "sys").enable_flags(0x10).start().unwrap();
    assert_eq!(sl.query().unwrap().enable_flags, 0x10);
}

#[test]
fn system_loggers_cannot_use_paged_memory() {
    // rule: SES-14
    let k = kernel();
    let paged = LogFileMode::USE_PAGED_MEMORY | LogFileMode::REAL_TIME;
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("sys")
            .mode(paged | LogFileMode::SYSTEM_LOGGER)
            .start()
    });
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session(KERNEL_LOGGER_NAME).mode(paged).start()
    });
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("gl")
            .guid(Guid::GLOBAL_LOGGER)
            .mode(paged)
            .start()
    });
    // An ordinary session may.
    let s = k.session("ordinary").mode(paged).start().unwrap();
    assert!(
        s.query()
            .unwrap()
            .log_file_mode
            .contains(LogFileMode::USE_PAGED_MEMORY)
    );
}

#[test]
fn system_loggers_may_use_all_three_clocks_at_once() {
    // rule: SES-14
    let k = kernel();
    let clocks = [ClockType::Qpc, ClockType::SystemTime, ClockType::CpuCycle];
    for (i, c) in clocks.into_iter().enumerate() {
        let s = system_logger(&k, &format!("sys{i}"))
            .clock(c)
            .start()
            .unwrap();
        assert_eq!(s.query().unwrap().clock, c);
    }
}

#[test]
fn session_handle_is_nonzero_reported_and_valid_until_stop() {
    // rule: SES-15
    let k = kernel();
    let a = k.session("a").start().unwrap();
    let b = k.session("b").start().unwrap();
    let (ha, hb) = (a.handle(), b.handle());
    assert_ne!(ha.0, 0);
    assert_ne!(hb.0, 0);
    assert_ne!(ha, hb);
    let q = a.query().unwrap();
    assert_eq!(q.handle, ha, "Wnode.HistoricalContext carries the handle");
    assert_eq!(q.logger_id, ha.logger_id());
    let all = k.query_all_traces(&k.system_process());
    assert!(all.iter().any(|p| p.name == "a" && p.handle == ha));
    assert!(all.iter().any(|p| p.name == "b" && p.handle == hb));
    // The handle stays usable (nothing to close) until the session stops…
    for _ in 0..3 {
        k.control_trace(
            &k.system_process(),
            Target::Handle(ha),
            TraceControl::Query,
            None,
        )
        .unwrap();
    }
    a.stop().unwrap();
    // …and then names nothing, even when a new session reuses the logger slot.
    let c = k.session("c").start().unwrap();
    assert_ne!(c.handle(), ha);
    assert_rejected(&k, Win32Error::ERROR_WMI_INSTANCE_NOT_FOUND, || {
        k.control_trace(
            &k.system_process(),
            Target::Handle(ha),
            TraceControl::Query,
            None,
        )
    });
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.control_trace(
            &k.system_process(),
            Target::Handle(TraceHandle(0)),
            TraceControl::Query,
            None,
        )
    });
}

#[test]
fn session_outlives_its_controller_and_providers_stay_enabled() {
    // rule: SES-16
    let k = kernel();
    let ctl = admin_process(&k, "controller.exe");
    let s = k.session("persist").caller(&ctl).start().unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(guid(1)).unwrap();
    s.enable(guid(1), &EnableParams::new()).unwrap();
    assert!(p.is_enabled());
    let h = s.handle();
    drop(s); // dropping the controller's handle stops nothing
    ctl.exit();
    assert!(ctl.has_exited());
    let q = k
        .control_trace(
            &k.system_process(),
            Target::Handle(h),
            TraceControl::Query,
            None,
        )
        .unwrap();
    assert_eq!(q.name, "persist");
    assert!(p.is_enabled(), "providers it enabled stay enabled");
    // Another controller can still stop it.
    k.control_trace(
        &k.system_process(),
        Target::Name("persist"),
        TraceControl::Stop,
        None,
    )
    .unwrap();
    assert!(!p.is_enabled());
}

// ---------------------------------------------------------------------------------------
// 1.3 Argument validation
// ---------------------------------------------------------------------------------------

/// A configuration that starts with `mode` alone: a NEWFILE-capable file name and a size
/// limit when a file layout needs one, no file for pure BUFFERING, and a provider GUID so
/// private modes are valid.
fn combo_config(mode: LogFileMode) -> SessionConfig {
    let needs_file =
        !mode.contains(LogFileMode::BUFFERING) || mode.intersects(LogFileMode::FILE_LAYOUT);
    let mut c = config("combo", mode, needs_file.then_some("combo_%d.etl"));
    c.guid = guid(1);
    c.maximum_file_size = 16;
    c
}

#[test]
fn documented_do_not_combine_pairs_are_refused() {
    // rule: SES-23
    use LogFileMode as M;
    let pairs = [
        (M::SEQUENTIAL, M::CIRCULAR),
        (M::SEQUENTIAL, M::NEWFILE),
        (M::CIRCULAR, M::APPEND),
        (M::CIRCULAR, M::NEWFILE),
        (M::APPEND, M::NEWFILE),
        (M::APPEND, M::REAL_TIME),
        (M::APPEND, M::PRIVATE_LOGGER),
        (M::REAL_TIME, M::PRIVATE_LOGGER),
        (M::PREALLOCATE, M::PRIVATE_LOGGER),
        (M::PREALLOCATE, M::NEWFILE),
        (M::PREALLOCATE, M::APPEND),
        (M::BUFFERING, M::SEQUENTIAL),
        (M::BUFFERING, M::CIRCULAR),
        (M::BUFFERING, M::APPEND),
        (M::BUFFERING, M::NEWFILE),
        (M::BUFFERING, M::REAL_TIME),
        (M::USE_GLOBAL_SEQUENCE, M::USE_LOCAL_SEQUENCE),
        (M::INDEPENDENT_SESSION, M::PRIVATE_LOGGER),
    ];
    let k = kernel();
    for (a, b) in pairs {
        // Each flag alone is fine…
        for single in [a, b] {
            let s = start(&k, &combo_config(single))
                .unwrap_or_else(|e| panic!("{single:?} alone: {e}"));
            s.stop().unwrap();
        }
        // …together they are refused.
        assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
            start(&k, &combo_config(a | b))
        });
    }
}

#[test]
fn undefined_and_internal_mode_bits_are_refused() {
    // rule: SES-23
    // rule: SES-56
    let k = kernel();
    let undefined = LogFileMode::from_bits_retain(0x4000_0000) | LogFileMode::REAL_TIME;
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        start(&k, &config("u", undefined, None))
    });
    for internal in LogFileMode::INTERNAL.iter() {
        assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
            start(&k, &config("i", internal | LogFileMode::REAL_TIME, None))
        });
    }
}

#[test]
fn a_session_with_nowhere_to_send_events_is_a_bad_pathname() {
    // rule: SES-24
    let k = kernel();
    assert_rejected(&k, Win32Error::ERROR_BAD_PATHNAME, || {
        start(&k, &config("nowhere", LogFileMode::FILE_MODE_NONE, None))
    });
    // An empty file name is no file name.
    assert_rejected(&k, Win32Error::ERROR_BAD_PATHNAME, || {
        start(&k, &config("empty", LogFileMode::FILE_MODE_NONE, Some("")))
    });
    // Flags that do not deliver anywhere do not help…
    assert_rejected(&k, Win32Error::ERROR_BAD_PATHNAME, || {
        start(&k, &config("secure", LogFileMode::SECURE, None))
    });
    // …nor does a file layout without a file.
    assert_rejected(&k, Win32Error::ERROR_BAD_PATHNAME, || {
        start(&k, &config("seq", LogFileMode::SEQUENTIAL, None))
    });
    // Real-time or an in-memory ring is somewhere.
    start(&k, &config("rt", LogFileMode::REAL_TIME, None)).unwrap();
    start(&k, &config("ring", LogFileMode::BUFFERING, None)).unwrap();
}

#[test]
fn a_log_file_in_use_by_another_session_is_a_bad_pathname() {
    // rule: SES-25
    let k = kernel();
    let first = k.session("first").log_file("shared.etl").start().unwrap();
    assert_rejected(&k, Win32Error::ERROR_BAD_PATHNAME, || {
        k.session("second").log_file("shared.etl").start()
    });
    assert_rejected(&k, Win32Error::ERROR_BAD_PATHNAME, || {
        k.session("second").log_file("SHARED.ETL").start()
    });
    // A different file is fine.
    k.session("third").log_file("other.etl").start().unwrap();
    first.stop().unwrap();
    let second = k.session("second").log_file("shared.etl").start().unwrap();
    assert_eq!(
        second.query().unwrap().log_file.as_deref(),
        Some("shared.etl")
    );
}

#[test]
fn file_mode_none_with_a_file_is_an_unlimited_sequential_file() {
    // rule: SES-26
    // rule: SES-31
    assert_eq!(LogFileMode::FILE_MODE_NONE.bits(), 0x0000_0000);
    let k = kernel();
    let s = start(
        &k,
        &config("plain", LogFileMode::FILE_MODE_NONE, Some("plain.etl")),
    )
    .unwrap();
    let q = s.query().unwrap();
    assert_eq!(q.log_file.as_deref(), Some("plain.etl"));
    assert_eq!(q.log_file_mode, LogFileMode::FILE_MODE_NONE);
    assert_eq!(q.maximum_file_size, 0, "no size limit");
    assert_eq!(
        q.effective_flush_timer, 0,
        "a file session has no timed flush"
    );
    // Unlimited: it needs the 200 MB an unlimited file needs (SES-27).
    let small = kernel_with_disk(UNLIMITED_FILE_RESERVE - 1);
    assert_rejected(&small, Win32Error::ERROR_DISK_FULL, || {
        start(
            &small,
            &config("plain", LogFileMode::FILE_MODE_NONE, Some("plain.etl")),
        )
    });
}

#[test]
fn real_time_with_a_file_delivers_to_both() {
    // rule: SES-26
    // rule: SES-39
    let k = kernel();
    let s = start(
        &k,
        &config("both", LogFileMode::REAL_TIME, Some("both.etl")),
    )
    .unwrap();
    let q = s.query().unwrap();
    assert_eq!(q.log_file.as_deref(), Some("both.etl"));
    assert!(q.log_file_mode.contains(LogFileMode::REAL_TIME));
    assert_eq!(
        q.effective_flush_timer, 1,
        "real-time with a file flushes every second"
    );
    // Real-time only: no file at all.
    let rt = start(&k, &config("rt", LogFileMode::REAL_TIME, None)).unwrap();
    assert_eq!(rt.query().unwrap().log_file, None);
}

#[test]
fn disk_must_hold_maximum_file_size_or_200_mb() {
    // rule: SES-27
    let k = kernel_with_disk(10 * MB);
    let s = k
        .session("fits")
        .log_file("fits.etl")
        .maximum_file_size(10)
        .start()
        .unwrap();
    assert_eq!(s.query().unwrap().maximum_file_size, 10);
    s.stop().unwrap();
    assert_rejected(&k, Win32Error::ERROR_DISK_FULL, || {
        k.session("big")
            .log_file("big.etl")
            .maximum_file_size(11)
            .start()
    });
    assert_rejected(&k, Win32Error::ERROR_DISK_FULL, || {
        k.session("unlimited").log_file("unlimited.etl").start()
    });
    // A session without a file needs no disk.
    let none = kernel_with_disk(0);
    none.session("rt").start().unwrap();
    none.session("ring").buffering().start().unwrap();
    // Exactly 200 MB free is enough for an unlimited file.
    let k200 = kernel_with_disk(UNLIMITED_FILE_RESERVE);
    assert_eq!(UNLIMITED_FILE_RESERVE, 200 * MB);
    k200.session("unlimited")
        .log_file("unlimited.etl")
        .start()
        .unwrap();
}

#[test]
fn log_file_folder_must_exist_and_is_not_created() {
    // rule: SES-28
    let k = kernel();
    let folder = std::env::temp_dir().join("etwsim-ses28-no-such-folder");
    assert!(!folder.exists());
    let missing = folder.join("trace.etl");
    assert_rejected(&k, Win32Error::ERROR_PATH_NOT_FOUND, || {
        k.session("m").log_file(missing.to_str().unwrap()).start()
    });
    assert!(!folder.exists(), "ETW does not create folders");
    assert_rejected(&k, Win32Error::ERROR_PATH_NOT_FOUND, || {
        k.session("m")
            .log_file("etwsim-no-such-relative-folder/trace.etl")
            .start()
    });
    // Environment variables are not expanded: "%TEMP%" is taken as a folder name.
    assert_rejected(&k, Win32Error::ERROR_PATH_NOT_FOUND, || {
        k.session("m").log_file("%TEMP%/trace.etl").start()
    });
    // Absolute and relative paths in existing folders are fine.
    let absolute = std::env::temp_dir().join("etwsim-ses28.etl");
    k.session("abs")
        .log_file(absolute.to_str().unwrap())
        .start()
        .unwrap();
    k.session("rel")
        .log_file("etwsim-ses28.etl")
        .start()
        .unwrap();
}

#[test]
fn log_file_names_are_limited_to_1024_characters() {
    // rule: SES-28
    let k = kernel();
    let longest = format!("{}.etl", "f".repeat(1020));
    assert_eq!(longest.len(), 1024);
    let s = k.session("long").log_file(&longest).start().unwrap();
    assert_eq!(s.query().unwrap().log_file.as_deref(), Some(&*longest));
    assert_rejected(&k, Win32Error::ERROR_BAD_PATHNAME, || {
        k.session("longer")
            .log_file(&format!("{}.etl", "f".repeat(1021)))
            .start()
    });
    assert_rejected(&k, Win32Error::ERROR_BAD_PATHNAME, || {
        k.session("nul").log_file("a\0b.etl").start()
    });
}

#[test]
fn only_admins_performance_log_users_and_service_accounts_may_start_sessions() {
    // rule: SES-29
    let k = kernel();
    let refused = [
        k.spawn("user.exe", Token::user("bob")).unwrap(),
        k.spawn("filtered.exe", Token::administrator("ann").unelevated())
            .unwrap(),
    ];
    for (i, p) in refused.iter().enumerate() {
        assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
            k.session(&format!("denied{i}")).caller(p).start()
        });
    }
    let allowed = [
        k.spawn("admin.exe", Token::administrator("ann")).unwrap(),
        k.spawn(
            "plu.exe",
            Token::user("carl").with_groups(Groups::PERFORMANCE_LOG_USERS),
        )
        .unwrap(),
        k.spawn(
            "plu-admin.exe",
            Token::administrator("dora")
                .unelevated()
                .with_groups(Groups::PERFORMANCE_LOG_USERS),
        )
        .unwrap(),
        k.spawn("system.exe", Token::local_system()).unwrap(),
        k.spawn("ls.exe", Token::local_service()).unwrap(),
        k.spawn("ns.exe", Token::network_service()).unwrap(),
    ];
    for (i, p) in allowed.iter().enumerate() {
        let s = k.session(&format!("ok{i}")).caller(p).start().unwrap();
        assert!(s.is_running());
    }
}

#[test]
fn only_admins_and_local_system_may_start_the_nt_kernel_logger() {
    // rule: SES-29
    let k = kernel();
    let refused = [
        k.spawn(
            "plu.exe",
            Token::user("carl").with_groups(Groups::PERFORMANCE_LOG_USERS),
        )
        .unwrap(),
        k.spawn("ls.exe", Token::local_service()).unwrap(),
        k.spawn("ns.exe", Token::network_service()).unwrap(),
        k.spawn("user.exe", Token::user("bob")).unwrap(),
    ];
    for p in &refused {
        assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
            k.session(KERNEL_LOGGER_NAME).caller(p).start()
        });
    }
    let admin = admin_process(&k, "admin.exe");
    k.session(KERNEL_LOGGER_NAME)
        .caller(&admin)
        .start()
        .unwrap()
        .stop()
        .unwrap();
    let system = k.spawn("svc.exe", Token::local_system()).unwrap();
    k.session(KERNEL_LOGGER_NAME)
        .caller(&system)
        .start()
        .unwrap();
}

#[test]
fn query_returns_the_adjusted_buffer_settings() {
    // rule: SES-30
    let k = kernel(); // 4 CPUs
    let zero = k.session("zero").start().unwrap().query().unwrap();
    assert_eq!(zero.buffer_size_kb, 64, "BufferSize 0 → the 64 KB default");
    assert_eq!(zero.minimum_buffers, 8, "MinimumBuffers 0 → 2 per CPU");
    assert_eq!(zero.maximum_buffers, 28, "MaximumBuffers 0 → minimum + 20");
    let adj = k
        .session("adjusted")
        .buffer_size_kb(2)
        .minimum_buffers(3)
        .maximum_buffers(5)
        .start()
        .unwrap()
        .query()
        .unwrap();
    assert_eq!(adj.buffer_size_kb, 4, "raised to the 4 KB minimum");
    assert_eq!(adj.minimum_buffers, 8, "raised to 2 per CPU");
    assert_eq!(adj.maximum_buffers, 8, "raised to the minimum");
    let kept = k
        .session("kept")
        .buffer_size_kb(128)
        .minimum_buffers(16)
        .maximum_buffers(40)
        .start()
        .unwrap()
        .query()
        .unwrap();
    assert_eq!(
        (
            kept.buffer_size_kb,
            kept.minimum_buffers,
            kept.maximum_buffers
        ),
        (128, 16, 40)
    );
}

#[test]
fn huge_zero_and_contradictory_buffer_settings() {
    // rule: SES-57
    // rule: SES-59
    // rule: SES-60
    // rule: SES-61
    let k = kernel();
    // Huge: above 16 MB per buffer is refused; 16 MB itself is fine.
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("huge").buffer_size_kb(16 * 1024 + 1).start()
    });
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("huge").buffer_size_kb(u32::MAX).start()
    });
    let big = k.session("big").buffer_size_kb(16 * 1024).start().unwrap();
    assert_eq!(big.query().unwrap().buffer_size_kb, 16 * 1024);
    // Huge buffer counts are capped, never refused.
    let many = k
        .session("many")
        .minimum_buffers(u32::MAX)
        .maximum_buffers(u32::MAX)
        .start()
        .unwrap()
        .query()
        .unwrap();
    assert_eq!((many.minimum_buffers, many.maximum_buffers), (1024, 1024));
    // Contradictory: a file limit that cannot hold two buffers.
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("tiny")
            .log_file("tiny.etl")
            .buffer_size_kb(1024)
            .maximum_file_size(1)
            .start()
    });
    // Contradictory: maximum below minimum is raised, not refused.
    let raised = k
        .session("raised")
        .minimum_buffers(20)
        .maximum_buffers(10)
        .start()
        .unwrap()
        .query()
        .unwrap();
    assert_eq!(raised.maximum_buffers, 20);
}

// ---------------------------------------------------------------------------------------
// 1.4 LogFileMode values and combination rules
// ---------------------------------------------------------------------------------------

#[test]
fn sequential_mode_value_and_rules() {
    // rule: SES-32
    assert_eq!(LogFileMode::SEQUENTIAL.bits(), 0x0000_0001);
    let k = kernel();
    let s = k
        .session("seq")
        .mode(LogFileMode::SEQUENTIAL)
        .log_file("seq.etl")
        .maximum_file_size(16)
        .start()
        .unwrap();
    let q = s.query().unwrap();
    assert_eq!(q.log_file_mode, LogFileMode::SEQUENTIAL);
    assert_eq!(q.maximum_file_size, 16);
    s.stop().unwrap();
    // Unlike CIRCULAR and NEWFILE, no size limit is needed.
    k.session("seq0").log_file("seq0.etl").start().unwrap();
    for other in [LogFileMode::CIRCULAR, LogFileMode::NEWFILE] {
        assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
            k.session("seq")
                .mode(LogFileMode::SEQUENTIAL | other)
                .log_file("seq_%d.etl")
                .maximum_file_size(16)
                .start()
        });
    }
}

#[test]
fn circular_mode_value_and_rules() {
    // rule: SES-33
    assert_eq!(LogFileMode::CIRCULAR.bits(), 0x0000_0002);
    let k = kernel();
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("circ")
            .mode(LogFileMode::CIRCULAR)
            .log_file("circ.etl")
            .start()
    });
    let s = k
        .session("circ")
        .mode(LogFileMode::CIRCULAR)
        .log_file("circ.etl")
        .maximum_file_size(8)
        .start()
        .unwrap();
    assert_eq!(s.query().unwrap().log_file_mode, LogFileMode::CIRCULAR);
    for other in [
        LogFileMode::APPEND,
        LogFileMode::NEWFILE,
        LogFileMode::SEQUENTIAL,
    ] {
        assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
            k.session("circ2")
                .mode(LogFileMode::CIRCULAR | other)
                .log_file("circ2_%d.etl")
                .maximum_file_size(8)
                .start()
        });
    }
}

#[test]
fn append_mode_value_and_rules() {
    // rule: SES-34
    assert_eq!(LogFileMode::APPEND.bits(), 0x0000_0004);
    let k = kernel();
    let s = k
        .session("app")
        .mode(LogFileMode::SEQUENTIAL | LogFileMode::APPEND)
        .log_file("app.etl")
        .clock(ClockType::SystemTime)
        .buffer_size_kb(64)
        .start()
        .unwrap();
    let q = s.query().unwrap();
    assert!(q.log_file_mode.contains(LogFileMode::APPEND));
    assert_eq!(q.clock, ClockType::SystemTime);
    for other in [
        LogFileMode::REAL_TIME,
        LogFileMode::CIRCULAR,
        LogFileMode::NEWFILE,
    ] {
        assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
            k.session("app2")
                .mode(LogFileMode::APPEND | other)
                .log_file("app2_%d.etl")
                .maximum_file_size(8)
                .start()
        });
    }
    let owner = user_process(&k, "app.exe");
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("app3")
            .guid(guid(1))
            .mode(LogFileMode::APPEND | LogFileMode::PRIVATE_LOGGER)
            .log_file("app3.etl")
            .caller(&owner)
            .start()
    });
    // APPEND names a file layout: it needs a file.
    assert_rejected(&k, Win32Error::ERROR_BAD_PATHNAME, || {
        start(&k, &config("app4", LogFileMode::APPEND, None))
    });
}

#[test]
fn newfile_mode_value_and_rules() {
    // rule: SES-35
    assert_eq!(LogFileMode::NEWFILE.bits(), 0x0000_0008);
    let k = kernel();
    let newfile = |name: &str, file: &str, max: u32| {
        k.session(name)
            .mode(LogFileMode::NEWFILE)
            .log_file(file)
            .maximum_file_size(max)
    };
    // MaximumFileSize must be set.
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        newfile("nf", "nf_%d.etl", 0).start()
    });
    // The file name must contain a counter; "%%d" is a literal "%d", not a counter.
    for no_counter in ["nf.etl", "nf_%%d.etl", "nf_%s.etl", "nf_%"] {
        assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
            newfile("nf", no_counter, 4).start()
        });
    }
    let s = newfile("nf", "nf_%d.etl", 4).start().unwrap();
    let q = s.query().unwrap();
    assert_eq!(q.log_file_mode, LogFileMode::NEWFILE);
    assert_eq!(q.file_counter, 1, "choice: the counter starts at 1");
    newfile("nf-width", "nf_%03d.etl", 4).start().unwrap();
    newfile("nf-pct", "100%%_%d.etl", 4).start().unwrap();
    for other in [
        LogFileMode::CIRCULAR,
        LogFileMode::APPEND,
        LogFileMode::SEQUENTIAL,
    ] {
        assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
            k.session("nf2")
                .mode(LogFileMode::NEWFILE | other)
                .log_file("nf2_%d.etl")
                .maximum_file_size(4)
                .start()
        });
    }
    // Choice: allowed for private sessions (Windows 7+).
    let owner = user_process(&k, "app.exe");
    let p = k
        .session("nf-private")
        .guid(guid(1))
        .mode(LogFileMode::PRIVATE_LOGGER | LogFileMode::NEWFILE)
        .log_file("private_%d.etl")
        .maximum_file_size(4)
        .caller(&owner)
        .start()
        .unwrap();
    assert_eq!(p.query().unwrap().file_counter, 1);
}

#[test]
fn preallocate_mode_value_and_rules() {
    // rule: SES-36
    assert_eq!(LogFileMode::PREALLOCATE.bits(), 0x0000_0020);
    let k = kernel_with_disk(10 * MB);
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("pre")
            .mode(LogFileMode::SEQUENTIAL | LogFileMode::PREALLOCATE)
            .log_file("pre.etl")
            .start()
    });
    for layout in [LogFileMode::SEQUENTIAL, LogFileMode::CIRCULAR] {
        let s = k
            .session("pre")
            .mode(layout | LogFileMode::PREALLOCATE)
            .log_file("pre.etl")
            .maximum_file_size(10)
            .start()
            .unwrap();
        assert!(
            s.query()
                .unwrap()
                .log_file_mode
                .contains(LogFileMode::PREALLOCATE)
        );
        s.stop().unwrap();
    }
    // The whole file is reserved up front: it must fit on the disk.
    assert_rejected(&k, Win32Error::ERROR_DISK_FULL, || {
        k.session("pre")
            .mode(LogFileMode::SEQUENTIAL | LogFileMode::PREALLOCATE)
            .log_file("pre.etl")
            .maximum_file_size(11)
            .start()
    });
    // No file, no preallocation.
    assert_rejected(&k, Win32Error::ERROR_BAD_PATHNAME, || {
        let mut c = config(
            "pre",
            LogFileMode::PREALLOCATE | LogFileMode::REAL_TIME,
            None,
        );
        c.maximum_file_size = 4;
        start(&k, &c)
    });
    // Not for private sessions.
    let owner = user_process(&k, "app.exe");
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("pre-private")
            .guid(guid(1))
            .mode(LogFileMode::PRIVATE_LOGGER | LogFileMode::PREALLOCATE)
            .log_file("pre-private.etl")
            .maximum_file_size(4)
            .caller(&owner)
            .start()
    });
}

#[test]
fn nonstoppable_mode_is_refused_outside_autologger() {
    // rule: SES-37
    assert_eq!(LogFileMode::NONSTOPPABLE.bits(), 0x0000_0040);
    let k = kernel();
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("ns")
            .mode(LogFileMode::NONSTOPPABLE | LogFileMode::REAL_TIME)
            .start()
    });
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("ns")
            .mode(LogFileMode::NONSTOPPABLE | LogFileMode::SEQUENTIAL)
            .log_file("ns.etl")
            .start()
    });
}

#[test]
fn secure_mode_value_is_accepted_and_kept() {
    // rule: SES-38
    assert_eq!(LogFileMode::SECURE.bits(), 0x0000_0080);
    let k = kernel();
    let s = k
        .session("secure")
        .mode(LogFileMode::SECURE | LogFileMode::REAL_TIME)
        .start()
        .unwrap();
    assert_eq!(
        s.query().unwrap().log_file_mode,
        LogFileMode::SECURE | LogFileMode::REAL_TIME
    );
}

#[test]
fn real_time_mode_value_and_rules() {
    // rule: SES-39
    assert_eq!(LogFileMode::REAL_TIME.bits(), 0x0000_0100);
    let k = kernel();
    let rt = k.session("rt").start().unwrap().query().unwrap();
    assert_eq!(rt.log_file_mode, LogFileMode::REAL_TIME);
    assert_eq!(rt.flush_timer, 0);
    assert_eq!(rt.effective_flush_timer, 1, "flushed every second");
    let timed = k.session("rt5").flush_timer(5).start().unwrap();
    assert_eq!(timed.query().unwrap().effective_flush_timer, 5);
    // Not with PRIVATE_LOGGER.
    let owner = user_process(&k, "app.exe");
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("rt-private")
            .guid(guid(1))
            .mode(LogFileMode::PRIVATE_LOGGER | LogFileMode::REAL_TIME)
            .caller(&owner)
            .start()
    });
}

/// The settings that must be the same for two sessions that differ only by an ignored flag.
fn effective(p: &etwsim::SessionProperties) -> (u32, u32, u32, u32, Option<String>, bool) {
    (
        p.buffer_size_kb,
        p.minimum_buffers,
        p.maximum_buffers,
        p.effective_flush_timer,
        p.log_file.clone(),
        p.is_system_logger,
    )
}

#[test]
fn delay_open_file_mode_is_accepted_and_ignored() {
    // rule: SES-40
    assert_eq!(LogFileMode::DELAY_OPEN_FILE.bits(), 0x0000_0200);
    let k = kernel();
    let with = k
        .session("delay")
        .mode(LogFileMode::SEQUENTIAL | LogFileMode::DELAY_OPEN_FILE)
        .log_file("delay.etl")
        .start()
        .unwrap()
        .query()
        .unwrap();
    let mut without = k
        .session("plain")
        .log_file("plain.etl")
        .start()
        .unwrap()
        .query()
        .unwrap();
    without.log_file = Some("delay.etl".into());
    assert_eq!(effective(&with), effective(&without));
    // Even a real-time session with no file may carry it.
    k.session("delay-rt")
        .mode(LogFileMode::DELAY_OPEN_FILE | LogFileMode::REAL_TIME)
        .start()
        .unwrap();
}

#[test]
fn buffering_mode_value_and_rules() {
    // rule: SES-41
    assert_eq!(LogFileMode::BUFFERING.bits(), 0x0000_0400);
    let k = kernel();
    let s = k
        .session("ring")
        .buffering()
        .minimum_buffers(12)
        .maximum_buffers(100)
        .start()
        .unwrap();
    let q = s.query().unwrap();
    assert_eq!(q.log_file_mode, LogFileMode::BUFFERING);
    assert_eq!(q.log_file, None, "no file");
    assert_eq!(q.minimum_buffers, 12);
    assert_eq!(q.maximum_buffers, 12, "MaximumBuffers is ignored");
    assert_eq!(q.effective_flush_timer, 0, "no automatic flushing");
    for other in [
        LogFileMode::SEQUENTIAL,
        LogFileMode::CIRCULAR,
        LogFileMode::APPEND,
        LogFileMode::NEWFILE,
    ] {
        assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
            k.session("ring2")
                .mode(LogFileMode::BUFFERING | other)
                .log_file("ring2_%d.etl")
                .maximum_file_size(4)
                .start()
        });
    }
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("ring2")
            .mode(LogFileMode::BUFFERING | LogFileMode::REAL_TIME)
            .start()
    });
}

#[test]
fn private_logger_mode_value_and_rules() {
    // rule: SES-42
    assert_eq!(LogFileMode::PRIVATE_LOGGER.bits(), 0x0000_0800);
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let other = user_process(&k, "other.exe");
    let mine = app.register_provider(guid(1)).unwrap();
    let theirs = other.register_provider(guid(1)).unwrap();
    let s = private_session(&k, &app, "private", guid(1))
        .start()
        .unwrap();
    let q = s.query().unwrap();
    assert!(q.is_private);
    assert_eq!(q.guid, guid(1), "Wnode.Guid is the provider's GUID");
    s.enable(guid(1), &EnableParams::new()).unwrap();
    assert!(mine.is_enabled(), "its own process's provider is enabled");
    assert!(
        !theirs.is_enabled(),
        "a private session records only its own process"
    );
    // It is not a system-wide session.
    assert!(k.sessions().iter().all(|p| p.name != "private"));
    assert!(query_by_name(&k, "private").is_err());
    // No real-time delivery.
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("private-rt")
            .guid(guid(2))
            .mode(LogFileMode::PRIVATE_LOGGER | LogFileMode::REAL_TIME)
            .caller(&app)
            .start()
    });
    // Without PRIVATE_IN_PROC the GUID must name a provider.
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        private_session(&k, &app, "private-null", Guid::NULL).start()
    });
}

#[test]
fn a_private_session_cannot_be_a_system_logger() {
    // rule: SES-42
    // rule: SES-13
    // Choice: a user-mode in-process session cannot take a system-logger place, so a user
    // cannot block the NT Kernel Logger with a private session of that name.
    let k = kernel();
    let app = user_process(&k, "app.exe");
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        private_session(&k, &app, KERNEL_LOGGER_NAME, guid(1)).start()
    });
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        private_session(&k, &app, "p", guid(1))
            .mode(LogFileMode::PRIVATE_LOGGER | LogFileMode::SYSTEM_LOGGER)
            .start()
    });
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        private_session(&k, &app, "p", Guid::GLOBAL_LOGGER).start()
    });
    let kl = k.session(KERNEL_LOGGER_NAME).start().unwrap();
    assert!(kl.query().unwrap().is_system_logger);
}

#[test]
fn add_header_mode_is_accepted_and_ignored() {
    // rule: SES-43
    assert_eq!(LogFileMode::ADD_HEADER.bits(), 0x0000_1000);
    let k = kernel();
    let with = k
        .session("hdr")
        .mode(LogFileMode::ADD_HEADER | LogFileMode::REAL_TIME)
        .start()
        .unwrap()
        .query()
        .unwrap();
    let without = k.session("plain").start().unwrap().query().unwrap();
    assert_eq!(effective(&with), effective(&without));
}

#[test]
fn kbytes_for_size_makes_maximum_file_size_kilobytes() {
    // rule: SES-44
    assert_eq!(LogFileMode::USE_KBYTES_FOR_SIZE.bits(), 0x0000_2000);
    let kb = LogFileMode::SEQUENTIAL | LogFileMode::USE_KBYTES_FOR_SIZE;
    // Disk space: 10,240 KB fit on a 10 MB disk, 10,241 KB do not.
    let k = kernel_with_disk(10 * MB);
    let s = k
        .session("kb")
        .mode(kb)
        .log_file("kb.etl")
        .maximum_file_size(10 * 1024)
        .start()
        .unwrap();
    assert_eq!(s.query().unwrap().maximum_file_size, 10 * 1024);
    s.stop().unwrap();
    assert_rejected(&k, Win32Error::ERROR_DISK_FULL, || {
        k.session("kb")
            .mode(kb)
            .log_file("kb.etl")
            .maximum_file_size(10 * 1024 + 1)
            .start()
    });
    // Without the flag the same number is megabytes.
    assert_rejected(&k, Win32Error::ERROR_DISK_FULL, || {
        k.session("mb")
            .log_file("mb.etl")
            .maximum_file_size(10 * 1024)
            .start()
    });
    // The file must hold two 64 KB buffers: 127 KB is too small, 128 KB is enough.
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("kb")
            .mode(kb)
            .log_file("kb.etl")
            .buffer_size_kb(64)
            .maximum_file_size(127)
            .start()
    });
    k.session("kb")
        .mode(kb)
        .log_file("kb.etl")
        .buffer_size_kb(64)
        .maximum_file_size(128)
        .start()
        .unwrap();
}

#[test]
fn global_and_local_sequence_are_mutually_exclusive() {
    // rule: SES-45
    assert_eq!(LogFileMode::USE_GLOBAL_SEQUENCE.bits(), 0x0000_4000);
    assert_eq!(LogFileMode::USE_LOCAL_SEQUENCE.bits(), 0x0000_8000);
    let k = kernel();
    for seq in [
        LogFileMode::USE_GLOBAL_SEQUENCE,
        LogFileMode::USE_LOCAL_SEQUENCE,
    ] {
        let s = k
            .session("seq")
            .mode(seq | LogFileMode::REAL_TIME)
            .start()
            .unwrap();
        assert!(s.query().unwrap().log_file_mode.contains(seq));
        s.stop().unwrap();
    }
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("seq")
            .mode(
                LogFileMode::USE_GLOBAL_SEQUENCE
                    | LogFileMode::USE_LOCAL_SEQUENCE
                    | LogFileMode::REAL_TIME,
            )
            .start()
    });
}

#[test]
fn relog_mode_is_reserved_and_refused() {
    // rule: SES-46
    assert_eq!(LogFileMode::RELOG.bits(), 0x0001_0000);
    let k = kernel();
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("relog")
            .mode(LogFileMode::RELOG | LogFileMode::REAL_TIME)
            .start()
    });
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("relog")
            .mode(LogFileMode::RELOG | LogFileMode::SEQUENTIAL)
            .log_file("relog.etl")
            .start()
    });
}

#[test]
fn private_in_proc_value_and_rules() {
    // rule: SES-47
    assert_eq!(LogFileMode::PRIVATE_IN_PROC.bits(), 0x0002_0000);
    let k = kernel();
    // Only together with PRIVATE_LOGGER.
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("inproc")
            .mode(LogFileMode::PRIVATE_IN_PROC | LogFileMode::REAL_TIME)
            .start()
    });
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.session("inproc")
            .guid(guid(1))
            .mode(LogFileMode::PRIVATE_IN_PROC | LogFileMode::BUFFERING)
            .start()
    });
    // Any user may create one, and the session GUID need not be the provider's.
    let app = user_process(&k, "app.exe");
    let provider = app.register_provider(guid(1)).unwrap();
    let s = in_proc_session(&k, &app, "inproc").start().unwrap();
    let q = s.query().unwrap();
    assert!(q.is_private);
    assert!(!q.guid.is_null());
    assert_ne!(q.guid, guid(1));
    s.enable(guid(1), &EnableParams::new()).unwrap();
    assert!(provider.is_enabled());
    // With an explicit GUID the process registered itself: fine.
    in_proc_session(&k, &app, "inproc-own")
        .guid(guid(1))
        .start()
        .unwrap();
}

#[test]
fn private_in_proc_guid_registered_by_another_process_is_refused() {
    // rule: SES-47
    // Choice: only the process that registered a provider GUID may start an in-process logger
    // with it; any other process gets ERROR_ACCESS_DENIED.
    let k = kernel();
    let owner = user_process(&k, "owner.exe");
    let intruder = user_process(&k, "intruder.exe");
    let _p = owner.register_provider(guid(5)).unwrap();
    assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
        in_proc_session(&k, &intruder, "steal")
            .guid(guid(5))
            .start()
    });
    // A GUID nobody registered is the caller's own session GUID.
    in_proc_session(&k, &intruder, "own")
        .guid(guid(6))
        .start()
        .unwrap();
    in_proc_session(&k, &owner, "mine")
        .guid(guid(5))
        .start()
        .unwrap();
}

#[test]
fn the_session_builder_is_order_independent() {
    // rule: SES-23
    // rule: SES-26
    // Each setter adds its part; the mode is computed at start(), whatever the order.
    let k = kernel();
    let file_then_rt = k
        .session("a")
        .log_file("a.etl")
        .real_time()
        .start()
        .unwrap();
    let rt_then_file = k
        .session("b")
        .real_time()
        .log_file("b.etl")
        .start()
        .unwrap();
    let both = LogFileMode::REAL_TIME | LogFileMode::SEQUENTIAL;
    assert_eq!(file_then_rt.query().unwrap().log_file_mode, both);
    assert_eq!(rt_then_file.query().unwrap().log_file_mode, both);
    // mode(..) adds its bits, before or after the file, and twice adds both.
    let a = k
        .session("c")
        .mode(LogFileMode::INDEPENDENT_SESSION)
        .log_file("c.etl")
        .mode(LogFileMode::REAL_TIME)
        .start()
        .unwrap();
    let b = k
        .session("d")
        .log_file("d.etl")
        .mode(LogFileMode::REAL_TIME | LogFileMode::INDEPENDENT_SESSION)
        .start()
        .unwrap();
    let want = LogFileMode::INDEPENDENT_SESSION | LogFileMode::REAL_TIME | LogFileMode::SEQUENTIAL;
    assert_eq!(a.query().unwrap().log_file_mode, want);
    assert_eq!(b.query().unwrap().log_file_mode, want);
    // A chosen file layout is kept.
    let circ = k
        .session("e")
        .log_file("e.etl")
        .maximum_file_size(1)
        .mode(LogFileMode::CIRCULAR)
        .start()
        .unwrap();
    assert_eq!(circ.query().unwrap().log_file_mode, LogFileMode::CIRCULAR);
    // Nothing chosen: real time.
    let plain = k.session("f").start().unwrap();
    assert_eq!(plain.query().unwrap().log_file_mode, LogFileMode::REAL_TIME);
    // Conflicts are refused at start() with StartTrace's code, in either order, and change
    // nothing.
    for (name, build) in [
        ("g", k.session("g").buffering().log_file("g.etl")),
        ("h", k.session("h").log_file("h.etl").buffering()),
        ("i", k.session("i").real_time().buffering()),
        ("j", k.session("j").buffering().real_time()),
    ] {
        assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || build.start());
        assert!(
            k.session(name).buffering().start().is_ok(),
            "{name} alone starts"
        );
    }
}

#[test]
fn the_builder_docs_promise_holds_buffer_counts_are_adjusted_and_query_shows_them() {
    // rule: SES-59
    // rule: SES-60
    let k = Kernel::builder().cpus(4).deterministic(3).build().unwrap();
    let s = k.session("adj").maximum_buffers(2).start().unwrap();
    let q = s.query().unwrap();
    assert_eq!((q.minimum_buffers, q.maximum_buffers), (8, 8), "2 × 4 CPUs");
}
