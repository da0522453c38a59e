//! Sessions, part 2: the remaining LogFileMode flags (SES-48…SES-56), the buffer, file-size,
//! flush-timer and clock adjustments QUERY reports (SES-57…SES-65), private / kernel-logger
//! specifics (SES-66…SES-71) and ControlTrace / QueryAllTraces (SES-72…SES-83).

use crate::common;
use common::*;
use etwsim::win32::{
    EVENT_TRACE_CONTROL_CONVERT_TO_REALTIME, EVENT_TRACE_CONTROL_FLUSH,
    EVENT_TRACE_CONTROL_INCREMENT_FILE, EVENT_TRACE_CONTROL_QUERY, EVENT_TRACE_CONTROL_STOP,
    EVENT_TRACE_CONTROL_UPDATE, EVENT_TRACE_PROPERTIES_SIZE, EventTraceProperties,
    WNODE_FLAG_TRACED_GUID, Win32,
};
use etwsim::{
    ClassicNotification, ClockType, ControlCode, EnableNotification, EnableParams, Groups, Guid,
    KERNEL_LOGGER_NAME, Kernel, Keyword, Level, LogFileMode, Process, ProcessSpec, Session,
    SessionConfig, SessionProperties, SessionUpdate, Target, Token, TraceControl, TraceHandle,
    WMI_DISABLE_EVENTS, WMI_ENABLE_EVENTS, Win32Error,
};
use std::sync::{Arc, Mutex};

const INVALID: Win32Error = Win32Error::ERROR_INVALID_PARAMETER;
const NOT_FOUND: Win32Error = Win32Error::ERROR_WMI_INSTANCE_NOT_FOUND;

/// A deterministic kernel with `cpus` processors.
fn kernel_cpus(cpus: u16) -> Kernel {
    Kernel::builder()
        .cpus(cpus)
        .deterministic(7)
        .build()
        .expect("kernel")
}

/// Starts a session as the System process from a raw configuration.
fn start(k: &Kernel, cfg: &SessionConfig) -> etwsim::Result<Session> {
    k.start_trace(&k.system_process(), cfg)
}

/// A configuration: real-time, `mode` added.
fn rt_with(name: &str, mode: LogFileMode) -> SessionConfig {
    let mut c = SessionConfig::new(name);
    c.mode = LogFileMode::REAL_TIME | mode;
    c
}

/// A sequential file session (`file`, unlimited size).
fn file_session(k: &Kernel, name: &str, file: &str) -> Session {
    k.session(name)
        .log_file(file)
        .start()
        .expect("file session")
}

fn props_of(s: &Session) -> SessionProperties {
    s.query().expect("query")
}

// ---------------------------------------------------------------------------------------
// SES-48 … SES-56: LogFileMode flags
// ---------------------------------------------------------------------------------------

/// Starts a real-time session whose LogFileMode is `REAL_TIME | raw` through the Win32 face
/// and returns (code, LogFileMode written back).
fn win32_start_raw_mode(k: &Kernel, name: &str, raw: u32) -> (u32, u32) {
    let api = Win32::new(&k.system_process());
    let mut props = EventTraceProperties::alloc(None);
    props.log_file_mode = 0x100 | raw;
    let mut h = 0u64;
    let rc = api.start_trace(Some(&mut h), Some(name), Some(&mut props));
    (rc, props.log_file_mode)
}

#[test]
fn mode_reserved_heap_tracing_bit_is_accepted_and_kept() {
    // rule: SES-48
    assert_eq!(LogFileMode::MODE_RESERVED.bits(), 0x0010_0000);
    let k = kernel();
    let (rc, mode) = win32_start_raw_mode(&k, "heap", 0x0010_0000);
    assert_eq!(rc, 0);
    assert_eq!(mode, 0x0010_0100);
    let s = start(&k, &rt_with("heap2", LogFileMode::MODE_RESERVED)).unwrap();
    assert_eq!(
        props_of(&s).log_file_mode,
        LogFileMode::REAL_TIME | LogFileMode::MODE_RESERVED
    );
}

#[test]
fn hybrid_shutdown_bits_have_their_values_and_are_kept() {
    // rule: SES-49
    assert_eq!(LogFileMode::STOP_ON_HYBRID_SHUTDOWN.bits(), 0x0040_0000);
    assert_eq!(LogFileMode::PERSIST_ON_HYBRID_SHUTDOWN.bits(), 0x0080_0000);
    let k = kernel();
    let (rc, mode) = win32_start_raw_mode(&k, "stop-hybrid", 0x0040_0000);
    assert_eq!((rc, mode), (0, 0x0040_0100));
    let (rc, mode) = win32_start_raw_mode(&k, "persist-hybrid", 0x0080_0000);
    assert_eq!((rc, mode), (0, 0x0080_0100));
    // Neither: nothing is added on the caller's behalf.
    let s = start(&k, &rt_with("neither", LogFileMode::empty())).unwrap();
    assert!(!props_of(&s).log_file_mode.intersects(
        LogFileMode::STOP_ON_HYBRID_SHUTDOWN | LogFileMode::PERSIST_ON_HYBRID_SHUTDOWN
    ));
}

#[test]
fn paged_memory_is_accepted_for_ordinary_and_private_sessions() {
    // rule: SES-50
    assert_eq!(LogFileMode::USE_PAGED_MEMORY.bits(), 0x0100_0000);
    let k = kernel();
    let s = start(&k, &rt_with("paged", LogFileMode::USE_PAGED_MEMORY)).unwrap();
    assert!(
        props_of(&s)
            .log_file_mode
            .contains(LogFileMode::USE_PAGED_MEMORY)
    );
    // "ignored when PRIVATE_LOGGER_MODE is set": a private session may carry it.
    let app = user_process(&k, "app.exe");
    let p = k
        .session("priv-paged")
        .mode(LogFileMode::PRIVATE_LOGGER | LogFileMode::USE_PAGED_MEMORY)
        .guid(guid(1))
        .log_file("priv-paged.etl")
        .caller(&app)
        .start()
        .unwrap();
    assert!(props_of(&p).is_private);
}

#[test]
fn paged_memory_is_refused_for_the_kernel_logger_and_system_loggers() {
    // rule: SES-50
    // rule: SES-14
    let k = kernel();
    assert_rejected(&k, INVALID, || {
        start(
            &k,
            &rt_with(KERNEL_LOGGER_NAME, LogFileMode::USE_PAGED_MEMORY),
        )
    });
    assert_rejected(&k, INVALID, || {
        start(
            &k,
            &rt_with(
                "sys-paged",
                LogFileMode::SYSTEM_LOGGER | LogFileMode::USE_PAGED_MEMORY,
            ),
        )
    });
    let mut global = rt_with("global-paged", LogFileMode::USE_PAGED_MEMORY);
    global.guid = Guid::GLOBAL_LOGGER;
    assert_rejected(&k, INVALID, || start(&k, &global));
}

#[test]
fn system_logger_mode_makes_a_system_logger_that_keeps_its_enable_flags() {
    // rule: SES-51
    // rule: SES-13
    assert_eq!(LogFileMode::SYSTEM_LOGGER.bits(), 0x0200_0000);
    let k = kernel();
    let mut cfg = rt_with("SysLog", LogFileMode::SYSTEM_LOGGER);
    cfg.enable_flags = 0x0000_0003;
    let s = start(&k, &cfg).unwrap();
    let p = props_of(&s);
    assert!(p.is_system_logger);
    assert_eq!(p.enable_flags, 3);
    let plain = k.session("plain").start().unwrap();
    assert!(!props_of(&plain).is_system_logger);
}

#[test]
fn compressed_mode_bit_is_accepted_and_kept() {
    // rule: SES-52
    assert_eq!(LogFileMode::COMPRESSED.bits(), 0x0400_0000);
    let k = kernel();
    let s = k
        .session("compressed")
        .mode(LogFileMode::COMPRESSED)
        .log_file("compressed.etl")
        .start()
        .unwrap();
    assert_eq!(
        props_of(&s).log_file_mode,
        LogFileMode::COMPRESSED | LogFileMode::SEQUENTIAL
    );
}

#[test]
fn independent_session_mode_is_accepted_but_not_for_private_loggers() {
    // rule: SES-53
    assert_eq!(LogFileMode::INDEPENDENT_SESSION.bits(), 0x0800_0000);
    let k = kernel();
    let s = start(&k, &rt_with("indep", LogFileMode::INDEPENDENT_SESSION)).unwrap();
    assert!(
        props_of(&s)
            .log_file_mode
            .contains(LogFileMode::INDEPENDENT_SESSION)
    );
    let app = user_process(&k, "app.exe");
    assert_rejected(&k, INVALID, || {
        k.session("priv-indep")
            .mode(LogFileMode::PRIVATE_LOGGER | LogFileMode::INDEPENDENT_SESSION)
            .guid(guid(2))
            .log_file("priv-indep.etl")
            .caller(&app)
            .start()
    });
}

#[test]
fn no_per_processor_buffering_lowers_the_minimum_buffer_floor_to_two() {
    // rule: SES-54
    // rule: SES-59
    assert_eq!(LogFileMode::NO_PER_PROCESSOR_BUFFERING.bits(), 0x1000_0000);
    for cpus in [1u16, 4, 16] {
        let k = kernel_cpus(cpus);
        for (i, asked) in [0u32, 1, 2, 3].into_iter().enumerate() {
            let mut cfg = rt_with(
                &format!("shared{i}"),
                LogFileMode::NO_PER_PROCESSOR_BUFFERING,
            );
            cfg.minimum_buffers = asked;
            let p = props_of(&start(&k, &cfg).unwrap());
            assert_eq!(
                p.minimum_buffers,
                asked.max(2),
                "{cpus} CPUs, asked {asked}"
            );
            let mut per_cpu = rt_with(&format!("percpu{i}"), LogFileMode::empty());
            per_cpu.minimum_buffers = asked;
            let q = props_of(&start(&k, &per_cpu).unwrap());
            assert_eq!(q.minimum_buffers, asked.max(2 * u32::from(cpus)));
        }
    }
}

#[test]
fn triage_dump_bit_is_accepted_and_kept() {
    // rule: SES-55
    assert_eq!(LogFileMode::ADDTO_TRIAGE_DUMP.bits(), 0x8000_0000);
    let k = kernel();
    let (rc, mode) = win32_start_raw_mode(&k, "triage", 0x8000_0000);
    assert_eq!((rc, mode), (0, 0x8000_0100));
}

#[test]
fn internal_and_undefined_mode_bits_are_refused_and_change_nothing() {
    // rule: SES-56
    let k = kernel();
    let internal = [
        (LogFileMode::USE_MS_FLUSH_TIMER, 0x0000_0010),
        (LogFileMode::BUFFER_INTERFACE, 0x0004_0000),
        (LogFileMode::KD_FILTER, 0x0008_0000),
        (LogFileMode::LOST_EVENTS_DEBUG, 0x0020_0000),
        (LogFileMode::BLOCKING, 0x2000_0000),
    ];
    for (flag, value) in internal {
        assert_eq!(flag.bits(), value);
        assert!(LogFileMode::INTERNAL.contains(flag));
        assert_rejected(&k, INVALID, || start(&k, &rt_with("internal", flag)));
        let api = Win32::new(&k.system_process());
        assert_rejected_code(&k, INVALID, || {
            let mut props = EventTraceProperties::alloc(None);
            props.log_file_mode = 0x100 | value;
            let mut h = 0;
            api.start_trace(Some(&mut h), Some("internal"), Some(&mut props))
        });
    }
    // 0x40000000 is no documented bit at all.
    let undefined = LogFileMode::from_bits_retain(0x4000_0000);
    assert_rejected(&k, INVALID, || start(&k, &rt_with("undefined", undefined)));
    assert!(k.sessions().is_empty());
}

// ---------------------------------------------------------------------------------------
// SES-57 … SES-65: buffers, file size, flush timer, clock
// ---------------------------------------------------------------------------------------

fn with_buffer_size(name: &str, kb: u32) -> SessionConfig {
    let mut c = SessionConfig::new(name);
    c.buffer_size_kb = kb;
    c
}

#[test]
fn buffer_size_is_raised_to_4_kb_kept_up_to_16_mb_and_refused_above() {
    // rule: SES-57
    let k = kernel();
    for (asked, effective) in [
        (1, 4),
        (2, 4),
        (3, 4),
        (4, 4),
        (5, 5),
        (1024, 1024),
        (16384, 16384),
    ] {
        let s = start(&k, &with_buffer_size(&format!("b{asked}"), asked)).unwrap();
        assert_eq!(props_of(&s).buffer_size_kb, effective, "asked {asked} KB");
        s.stop().unwrap();
    }
    for asked in [16385, 65536, u32::MAX] {
        assert_rejected(&k, INVALID, || start(&k, &with_buffer_size("big", asked)));
    }
}

#[test]
fn buffer_size_zero_takes_the_kernels_default() {
    // rule: SES-58
    let k = kernel();
    let s = start(&k, &with_buffer_size("default", 0)).unwrap();
    assert_eq!(props_of(&s).buffer_size_kb, 64);
    let k2 = Kernel::builder()
        .deterministic(1)
        .default_buffer_size_kb(256)
        .build()
        .unwrap();
    let s2 = start(&k2, &with_buffer_size("default", 0)).unwrap();
    assert_eq!(props_of(&s2).buffer_size_kb, 256);
    let s3 = start(&k2, &with_buffer_size("explicit", 8)).unwrap();
    assert_eq!(props_of(&s3).buffer_size_kb, 8);
}

#[test]
fn minimum_buffers_is_raised_to_two_per_cpu_on_every_machine_size() {
    // rule: SES-59
    for cpus in [1u16, 2, 3, 8, 64] {
        let k = kernel_cpus(cpus);
        let floor = 2 * u32::from(cpus);
        for (i, asked) in [0, 1, floor - 1, floor, floor + 5].into_iter().enumerate() {
            let mut cfg = SessionConfig::new(&format!("min{i}"));
            cfg.minimum_buffers = asked;
            let p = props_of(&start(&k, &cfg).unwrap());
            assert_eq!(
                p.minimum_buffers,
                asked.max(floor),
                "{cpus} CPUs, asked {asked}"
            );
            // The adjusted minimum is allocated at start, all of it free.
            assert_eq!(p.number_of_buffers, p.minimum_buffers);
            assert_eq!(p.free_buffers, p.minimum_buffers);
        }
    }
}

#[test]
fn minimum_buffers_is_lowered_to_the_internal_cap_but_never_below_the_floor() {
    // rule: SES-59
    let k = kernel();
    let mut cfg = SessionConfig::new("huge-min");
    cfg.minimum_buffers = 5000;
    assert_eq!(props_of(&start(&k, &cfg).unwrap()).minimum_buffers, 1024);

    let capped = Kernel::builder()
        .cpus(4)
        .deterministic(1)
        .max_buffers_cap(40)
        .build()
        .unwrap();
    cfg.minimum_buffers = 100;
    assert_eq!(props_of(&start(&capped, &cfg).unwrap()).minimum_buffers, 40);

    // A cap below 2 x CPUs gives way to the floor.
    let tiny_cap = Kernel::builder()
        .cpus(8)
        .deterministic(1)
        .max_buffers_cap(10)
        .build()
        .unwrap();
    cfg.minimum_buffers = 0;
    let p = props_of(&start(&tiny_cap, &cfg).unwrap());
    assert_eq!((p.minimum_buffers, p.maximum_buffers), (16, 16));
}

fn with_buffers(name: &str, min: u32, max: u32) -> SessionConfig {
    let mut c = SessionConfig::new(name);
    c.minimum_buffers = min;
    c.maximum_buffers = max;
    c
}

#[test]
fn maximum_buffers_defaults_to_min_plus_20_is_raised_to_min_and_capped() {
    // rule: SES-60
    let k = kernel_cpus(8); // floor 16
    let cases = [
        ((0, 0), (16, 36)),
        ((0, 3), (16, 16)),
        ((0, 16), (16, 16)),
        ((0, 50), (16, 50)),
        ((40, 30), (40, 40)),
        ((40, 0), (40, 60)),
        ((0, 5000), (16, 1024)),
        ((1020, 0), (1020, 1024)),
    ];
    for (i, ((min, max), (emin, emax))) in cases.into_iter().enumerate() {
        let p = props_of(&start(&k, &with_buffers(&format!("m{i}"), min, max)).unwrap());
        assert_eq!(
            (p.minimum_buffers, p.maximum_buffers),
            (emin, emax),
            "asked min {min} max {max}"
        );
    }
}

#[test]
fn buffering_mode_ring_is_exactly_minimum_buffers() {
    // rule: SES-60
    // rule: SES-41
    let k = kernel(); // 4 CPUs, floor 8
    for (i, (min, max, expect)) in [(0, 0, 8), (0, 500, 8), (40, 2, 40), (40, 80, 40)]
        .into_iter()
        .enumerate()
    {
        let s = k
            .session(&format!("ring{i}"))
            .buffering()
            .minimum_buffers(min)
            .maximum_buffers(max)
            .start()
            .unwrap();
        let p = props_of(&s);
        assert_eq!((p.minimum_buffers, p.maximum_buffers), (expect, expect));
        // UPDATE cannot grow the ring either.
        let after = s
            .update(&SessionUpdate {
                maximum_buffers: 200,
                ..SessionUpdate::default()
            })
            .unwrap();
        assert_eq!(after.maximum_buffers, expect);
    }
}

#[test]
fn maximum_file_size_is_kept_and_required_for_circular_newfile_and_preallocate() {
    // rule: SES-61
    let k = kernel();
    let s = k
        .session("seq")
        .log_file("seq.etl")
        .maximum_file_size(5)
        .start()
        .unwrap();
    let p = props_of(&s);
    assert_eq!(p.maximum_file_size, 5);
    assert_eq!(p.log_file_mode, LogFileMode::SEQUENTIAL);
    let unlimited = k.session("unl").log_file("unl.etl").start().unwrap();
    assert_eq!(props_of(&unlimited).maximum_file_size, 0);

    for (mode, file) in [
        (LogFileMode::CIRCULAR, "c.etl"),
        (LogFileMode::NEWFILE, "n_%d.etl"),
        (LogFileMode::PREALLOCATE | LogFileMode::SEQUENTIAL, "p.etl"),
        (LogFileMode::PREALLOCATE | LogFileMode::CIRCULAR, "pc.etl"),
    ] {
        assert_rejected(&k, INVALID, || {
            k.session("needs-size")
                .mode(mode)
                .log_file(file)
                .maximum_file_size(0)
                .start()
        });
        let ok = k
            .session("needs-size")
            .mode(mode)
            .log_file(file)
            .maximum_file_size(1)
            .start()
            .unwrap();
        assert_eq!(props_of(&ok).maximum_file_size, 1);
        ok.stop().unwrap();
    }
}

#[test]
fn maximum_file_size_is_in_mb_or_kb_and_must_hold_two_buffers() {
    // rule: SES-61
    // rule: SES-44
    let k = kernel(); // 64 KB buffers by default
    let kb = LogFileMode::SEQUENTIAL | LogFileMode::USE_KBYTES_FOR_SIZE;
    assert_rejected(&k, INVALID, || {
        k.session("kb")
            .mode(kb)
            .log_file("kb.etl")
            .maximum_file_size(127)
            .start()
    });
    let s = k
        .session("kb")
        .mode(kb)
        .log_file("kb.etl")
        .maximum_file_size(128)
        .start()
        .unwrap();
    assert_eq!(props_of(&s).maximum_file_size, 128);
    // 1 MB cannot hold two 1024 KB buffers; 2 MB can.
    assert_rejected(&k, INVALID, || {
        k.session("mb")
            .log_file("mb.etl")
            .buffer_size_kb(1024)
            .maximum_file_size(1)
            .start()
    });
    k.session("mb")
        .log_file("mb.etl")
        .buffer_size_kb(1024)
        .maximum_file_size(2)
        .start()
        .unwrap();
    // The unit is what the disk check reserves too: 1 MB free holds 1024 KB but not 1025 KB
    // nor 2 MB.
    let small_disk = Kernel::builder()
        .deterministic(1)
        .disk_free_bytes(1024 * 1024)
        .build()
        .unwrap();
    small_disk
        .session("fits")
        .mode(kb)
        .log_file("fits.etl")
        .maximum_file_size(1024)
        .start()
        .unwrap();
    assert_rejected(&small_disk, Win32Error::ERROR_DISK_FULL, || {
        small_disk
            .session("too-big-kb")
            .mode(kb)
            .log_file("big-kb.etl")
            .maximum_file_size(1025)
            .start()
    });
    assert_rejected(&small_disk, Win32Error::ERROR_DISK_FULL, || {
        small_disk
            .session("too-big-mb")
            .log_file("big-mb.etl")
            .maximum_file_size(2)
            .start()
    });
}

#[test]
fn a_session_that_is_no_longer_running_refuses_enable_with_instance_not_found() {
    // rule: SES-62
    // rule: SES-79
    let k = kernel();
    let s = k
        .session("full")
        .log_file("full.etl")
        .maximum_file_size(1)
        .start()
        .unwrap();
    assert_eq!(props_of(&s).log_file_mode, LogFileMode::SEQUENTIAL);
    s.stop().unwrap();
    assert_rejected(&k, NOT_FOUND, || {
        s.enable(guid(3), &EnableParams::new().level(Level::VERBOSE))
    });
    assert_rejected(&k, NOT_FOUND, || {
        k.enable_trace_ex2(
            &k.system_process(),
            Target::Handle(s.handle()),
            guid(3),
            ControlCode::EnableProvider,
            &EnableParams::new(),
        )
    });
}

#[test]
fn flush_timer_zero_means_one_second_for_real_time_and_none_for_files() {
    // rule: SES-63
    let k = kernel();
    let cases = [
        ("rt", k.session("rt").start().unwrap(), 0, 1),
        (
            "rt-file",
            k.session("rt-file")
                .log_file("rt-file.etl")
                .real_time()
                .start()
                .unwrap(),
            0,
            1,
        ),
        ("file", file_session(&k, "file", "file.etl"), 0, 0),
        (
            "file-3",
            k.session("file-3")
                .log_file("file-3.etl")
                .flush_timer(3)
                .start()
                .unwrap(),
            3,
            3,
        ),
        (
            "rt-5",
            k.session("rt-5").flush_timer(5).start().unwrap(),
            5,
            5,
        ),
        (
            "ring",
            k.session("ring")
                .buffering()
                .flush_timer(5)
                .start()
                .unwrap(),
            5,
            0,
        ),
    ];
    for (name, session, set, effective) in cases {
        let p = props_of(&session);
        assert_eq!(
            (p.flush_timer, p.effective_flush_timer),
            (set, effective),
            "{name}"
        );
    }
}

#[test]
fn effective_flush_timer_follows_real_time_being_turned_on_and_off() {
    // rule: SES-63
    // rule: SES-77
    // rule: SES-81
    let k = kernel();
    let s = k
        .session("toggle")
        .log_file("toggle.etl")
        .real_time()
        .start()
        .unwrap();
    assert_eq!(props_of(&s).effective_flush_timer, 1);
    let off = s
        .update(&SessionUpdate {
            real_time: Some(false),
            ..SessionUpdate::default()
        })
        .unwrap();
    assert!(!off.log_file_mode.contains(LogFileMode::REAL_TIME));
    assert_eq!(off.effective_flush_timer, 0);
    let converted = s.convert_to_realtime().unwrap();
    assert_eq!(converted.effective_flush_timer, 1);
}

#[test]
fn clock_type_zero_is_qpc_one_to_three_are_kept_and_others_refused() {
    // rule: SES-64
    let k = kernel();
    for (raw, clock) in [
        (0, ClockType::Qpc),
        (1, ClockType::Qpc),
        (2, ClockType::SystemTime),
        (3, ClockType::CpuCycle),
    ] {
        let mut cfg = SessionConfig::new(&format!("clock{raw}"));
        cfg.clock = raw;
        let p = props_of(&start(&k, &cfg).unwrap());
        assert_eq!(p.clock, clock);
        assert_eq!(p.clock.raw(), raw.max(1));
    }
    for raw in [4, 0xFFFF_FFFF] {
        let mut cfg = SessionConfig::new("bad-clock");
        cfg.clock = raw;
        assert_rejected(&k, INVALID, || start(&k, &cfg));
    }
    // The Win32 face writes the clock in use back into Wnode.ClientContext.
    let api = Win32::new(&k.system_process());
    let mut props = EventTraceProperties::alloc(None);
    props.log_file_mode = 0x100;
    props.wnode.client_context = 0;
    let mut h = 0;
    assert_eq!(
        api.start_trace(Some(&mut h), Some("w32-clock"), Some(&mut props)),
        0
    );
    assert_eq!(props.wnode.client_context, 1);
    assert_rejected_code(&k, INVALID, || {
        let mut p = EventTraceProperties::alloc(None);
        p.log_file_mode = 0x100;
        p.wnode.client_context = 4;
        api.start_trace(Some(&mut h), Some("w32-bad-clock"), Some(&mut p))
    });
}

// ---------------------------------------------------------------------------------------
// SES-66 … SES-71: private sessions, the kernel logger
// ---------------------------------------------------------------------------------------

fn private_session(k: &Kernel, owner: &Process, name: &str, g: Guid, file: &str) -> Session {
    k.session(name)
        .mode(LogFileMode::PRIVATE_LOGGER)
        .guid(g)
        .log_file(file)
        .caller(owner)
        .start()
        .expect("private session")
}

#[test]
fn a_private_session_needs_the_provider_guid_unless_in_proc() {
    // rule: SES-66
    let k = kernel();
    let app = user_process(&k, "app.exe");
    assert_rejected(&k, INVALID, || {
        k.session("priv")
            .mode(LogFileMode::PRIVATE_LOGGER)
            .log_file("priv.etl")
            .caller(&app)
            .start()
    });
    let s = private_session(&k, &app, "priv", guid(4), "priv.etl");
    assert_eq!(s.guid(), guid(4));
    // With PRIVATE_IN_PROC the session GUID is free: GUID_NULL gets a generated one.
    let inproc = k
        .session("inproc")
        .mode(LogFileMode::PRIVATE_LOGGER | LogFileMode::PRIVATE_IN_PROC)
        .log_file("inproc.etl")
        .caller(&app)
        .start()
        .unwrap();
    assert!(!inproc.guid().is_null());
    assert_ne!(inproc.guid(), guid(4));
}

#[test]
fn a_private_session_may_be_started_before_its_provider_registers() {
    // rule: SES-66
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let g = guid(5);
    let s = private_session(&k, &app, "pre", g, "pre.etl");
    s.enable(g, &EnableParams::new().level(Level::WARNING).any(0x8))
        .unwrap();
    let rec = Recorder::new();
    let p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    assert_eq!(rec.len(), 1);
    assert_eq!(rec.last().is_enabled, ControlCode::EnableProvider);
    assert_eq!(rec.last().source_id, Guid::NULL);
    assert!(p.is_enabled_for(Level::WARNING, Keyword(0x8)));
    assert!(!p.is_enabled_for(Level::INFORMATION, Keyword(0x8)));
}

#[test]
fn a_standard_user_may_run_private_sessions_that_see_only_its_own_process() {
    // rule: SES-67
    // rule: SES-42
    let k = kernel();
    let g = guid(6);
    let mine = user_process(&k, "mine.exe");
    let other = user_process(&k, "other.exe");
    // The same user may not start an ordinary session.
    assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
        k.session("not-private").caller(&mine).start()
    });
    let s = private_session(&k, &mine, "mine", g, "mine.etl");
    let in_proc = k
        .session("mine-inproc")
        .mode(LogFileMode::PRIVATE_LOGGER | LogFileMode::PRIVATE_IN_PROC)
        .log_file("mine-inproc.etl")
        .caller(&mine)
        .start()
        .unwrap();
    assert!(props_of(&in_proc).is_private);
    s.enable(g, &EnableParams::new()).unwrap();
    let p_mine = mine.register_provider(g).unwrap();
    let p_other = other.register_provider(g).unwrap();
    assert!(p_mine.is_enabled());
    assert!(!p_other.is_enabled());
    assert_eq!(p_mine.enable_state().mask.count_ones(), 1);
    // The owner controls it like any session.
    s.flush().unwrap();
    s.update(&SessionUpdate {
        flush_timer: 2,
        ..SessionUpdate::default()
    })
    .unwrap();
    s.stop().unwrap();
    assert!(!p_mine.is_enabled());
}

#[test]
fn the_kernel_logger_keeps_its_enable_flags_and_refuses_enable_trace() {
    // rule: SES-70
    // rule: SES-13
    let k = kernel();
    let mut cfg = SessionConfig::new(KERNEL_LOGGER_NAME);
    cfg.enable_flags = 0x0000_0001 | 0x0000_0002 | 0x0000_0004; // process, thread, image load
    let s = start(&k, &cfg).unwrap();
    let p = props_of(&s);
    assert_eq!(p.enable_flags, 0x7);
    assert!(p.is_system_logger);
    assert_eq!(p.guid, Guid::SYSTEM_TRACE_CONTROL);
    // Kernel groups are chosen by EnableFlags, not by EnableTrace*.
    assert_rejected(&k, INVALID, || {
        s.enable(Guid::SYSTEM_TRACE_CONTROL, &EnableParams::new().any(0x10))
    });
    let api = Win32::new(&k.system_process());
    assert_rejected_code(&k, INVALID, || {
        api.enable_trace(1, 0x10, 4, Some(&Guid::SYSTEM_TRACE_CONTROL), s.handle().0)
    });
}

#[test]
fn later_processes_private_log_files_get_a_pid_suffix() {
    // rule: SES-71
    let k = kernel();
    let g = guid(7);
    let p1 = user_process(&k, "a.exe");
    let p2 = user_process(&k, "a.exe");
    let p3 = user_process(&k, "a.exe");
    let s1 = private_session(&k, &p1, "priv", g, "myprivatelog.etl");
    let s2 = private_session(&k, &p2, "priv", g, "myprivatelog.etl");
    assert_eq!(props_of(&s1).log_file.as_deref(), Some("myprivatelog.etl"));
    assert_eq!(
        props_of(&s2).log_file,
        Some(format!("myprivatelog.etl_{}", p2.pid()))
    );
    // Through the Win32 face the suffixed name is written back at LogFileNameOffset.
    let api = Win32::new(&p3);
    let mut props = EventTraceProperties::alloc(Some("myprivatelog.etl"));
    props.wnode.guid = g;
    props.log_file_mode = LogFileMode::PRIVATE_LOGGER.bits();
    let mut h = 0;
    assert_eq!(
        api.start_trace(Some(&mut h), Some("priv"), Some(&mut props)),
        0
    );
    assert_eq!(
        props.log_file_name(),
        Some(format!("myprivatelog.etl_{}", p3.pid()))
    );
    // Once the first process's session is gone, the plain name is free again.
    s1.stop().unwrap();
    let p4 = user_process(&k, "a.exe");
    let s4 = private_session(&k, &p4, "priv", g, "myprivatelog.etl");
    assert_eq!(props_of(&s4).log_file.as_deref(), Some("myprivatelog.etl"));
}

// ---------------------------------------------------------------------------------------
// SES-72 … SES-83: ControlTrace and QueryAllTraces
// ---------------------------------------------------------------------------------------

#[test]
fn control_codes_have_their_documented_values() {
    // rule: SES-72
    let expected = [
        (EVENT_TRACE_CONTROL_QUERY, 0, TraceControl::Query),
        (EVENT_TRACE_CONTROL_STOP, 1, TraceControl::Stop),
        (EVENT_TRACE_CONTROL_UPDATE, 2, TraceControl::Update),
        (EVENT_TRACE_CONTROL_FLUSH, 3, TraceControl::Flush),
        (
            EVENT_TRACE_CONTROL_INCREMENT_FILE,
            4,
            TraceControl::IncrementFile,
        ),
        (
            EVENT_TRACE_CONTROL_CONVERT_TO_REALTIME,
            5,
            TraceControl::ConvertToRealtime,
        ),
    ];
    for (constant, value, code) in expected {
        assert_eq!(constant, value);
        assert_eq!(code as u32, value);
        assert_eq!(TraceControl::from_raw(value), Some(code));
    }
    assert_eq!(TraceControl::from_raw(6), None);
}

#[test]
fn every_documented_control_code_runs_through_the_win32_face() {
    // rule: SES-72
    let k = kernel();
    let api = Win32::new(&k.system_process());
    let nf = k
        .session("nf")
        .mode(LogFileMode::NEWFILE)
        .log_file("nf_%d.etl")
        .maximum_file_size(1)
        .start()
        .unwrap();
    let mut props = EventTraceProperties::alloc(None);
    for code in [
        EVENT_TRACE_CONTROL_QUERY,
        EVENT_TRACE_CONTROL_FLUSH,
        EVENT_TRACE_CONTROL_UPDATE,
        EVENT_TRACE_CONTROL_INCREMENT_FILE,
    ] {
        assert_eq!(
            api.control_trace(nf.handle().0, None, Some(&mut props), code),
            0,
            "code {code}"
        );
    }
    assert_eq!(props_of(&nf).file_counter, 2);
    let seq = file_session(&k, "seq", "seq.etl");
    assert_eq!(
        api.control_trace(
            seq.handle().0,
            None,
            Some(&mut props),
            EVENT_TRACE_CONTROL_CONVERT_TO_REALTIME
        ),
        0
    );
    assert!(
        props_of(&seq)
            .log_file_mode
            .contains(LogFileMode::REAL_TIME)
    );
    assert_eq!(
        api.control_trace(
            nf.handle().0,
            None,
            Some(&mut props),
            EVENT_TRACE_CONTROL_STOP
        ),
        0
    );
    assert!(!nf.is_running());
}

#[test]
fn an_unknown_control_code_is_refused_and_changes_nothing() {
    // rule: SES-72
    let k = kernel();
    let s = k.session("s").start().unwrap();
    let api = Win32::new(&k.system_process());
    for code in [6, 7, 0x100, u32::MAX] {
        assert_rejected_code(&k, INVALID, || {
            let mut props = EventTraceProperties::alloc(None);
            api.control_trace(s.handle().0, None, Some(&mut props), code)
        });
        assert_rejected_code(&k, INVALID, || {
            let mut props = EventTraceProperties::alloc(None);
            api.control_trace(0, Some("s"), Some(&mut props), code)
        });
    }
}

#[test]
fn a_session_is_found_by_name_case_insensitively_and_the_handle_is_then_ignored() {
    // rule: SES-73
    let k = kernel();
    let a = k.session("Alpha Session").start().unwrap();
    let b = k.session("Beta").start().unwrap();
    let sys = k.system_process();
    for name in [
        "Alpha Session",
        "alpha session",
        "ALPHA SESSION",
        "aLpHa SeSsIoN",
    ] {
        let p = k
            .control_trace(&sys, Target::Name(name), TraceControl::Query, None)
            .unwrap();
        assert_eq!(p.handle, a.handle());
        assert_eq!(p.name, "Alpha Session");
    }
    let api = Win32::new(&sys);
    let mut props = EventTraceProperties::alloc(None);
    // A handle that is no session at all, and one of another session: the name wins.
    for handle in [0xdead_beef_u64, 0, a.handle().0] {
        assert_eq!(
            api.control_trace(
                handle,
                Some("BETA"),
                Some(&mut props),
                EVENT_TRACE_CONTROL_QUERY
            ),
            0
        );
        assert_eq!(props.wnode.historical_context, b.handle().0);
        assert_eq!(props.logger_name().as_deref(), Some("Beta"));
    }
    // FLUSH, UPDATE and STOP by name too.
    k.control_trace(&sys, Target::Name("beta"), TraceControl::Flush, None)
        .unwrap();
    k.control_trace(
        &sys,
        Target::Name("BETA"),
        TraceControl::Update,
        Some(&SessionUpdate {
            flush_timer: 9,
            ..SessionUpdate::default()
        }),
    )
    .unwrap();
    assert_eq!(props_of(&b).flush_timer, 9);
    k.control_trace(&sys, Target::Name("bEtA"), TraceControl::Stop, None)
        .unwrap();
    assert!(!b.is_running());
    assert!(a.is_running());
}

#[test]
fn control_trace_argument_errors_are_invalid_parameter() {
    // rule: SES-73
    let k = kernel();
    let s = k.session("s").start().unwrap();
    let sys = k.system_process();
    let api = Win32::new(&sys);
    // No name and a zero handle.
    assert_rejected(&k, INVALID, || {
        k.control_trace(
            &sys,
            Target::Handle(TraceHandle(0)),
            TraceControl::Query,
            None,
        )
    });
    assert_rejected(&k, INVALID, || {
        k.control_trace(
            &sys,
            Target::Handle(TraceHandle(0)),
            TraceControl::Stop,
            None,
        )
    });
    assert_rejected_code(&k, INVALID, || {
        let mut props = EventTraceProperties::alloc(None);
        api.control_trace(0, None, Some(&mut props), EVENT_TRACE_CONTROL_STOP)
    });
    // Properties NULL.
    assert_rejected_code(&k, INVALID, || {
        api.control_trace(s.handle().0, None, None, EVENT_TRACE_CONTROL_QUERY)
    });
    // SystemTraceControlGuid with a name other than the kernel logger's.
    assert_rejected_code(&k, INVALID, || {
        let mut props = EventTraceProperties::alloc(None);
        props.wnode.guid = Guid::SYSTEM_TRACE_CONTROL;
        api.control_trace(0, Some("s"), Some(&mut props), EVENT_TRACE_CONTROL_STOP)
    });
    // A bad offset (inside the fixed structure).
    assert_rejected_code(&k, INVALID, || {
        let mut props = EventTraceProperties::alloc(None);
        props.logger_name_offset = 1;
        api.control_trace(
            s.handle().0,
            None,
            Some(&mut props),
            EVENT_TRACE_CONTROL_STOP,
        )
    });
    // An invalid LogFileMode combination in the block, whatever the control code.
    for (mode, code) in [
        (0x1 | 0x2, EVENT_TRACE_CONTROL_QUERY),
        (0x2 | 0x8, EVENT_TRACE_CONTROL_STOP),
        (0x100 | 0x800, EVENT_TRACE_CONTROL_UPDATE),
        (0x400 | 0x100, EVENT_TRACE_CONTROL_FLUSH),
        (0x0002_0000, EVENT_TRACE_CONTROL_QUERY),
    ] {
        assert_rejected_code(&k, INVALID, || {
            let mut props = EventTraceProperties::alloc(None);
            props.log_file_mode = mode;
            api.control_trace(s.handle().0, None, Some(&mut props), code)
        });
        assert_eq!(
            SessionConfig::check_mode_combination(LogFileMode::from_bits_retain(mode))
                .unwrap_err()
                .win32_code(),
            INVALID
        );
    }
    assert!(
        SessionConfig::check_mode_combination(LogFileMode::SEQUENTIAL | LogFileMode::REAL_TIME)
            .is_ok()
    );
    // The kernel logger is fine with its own GUID, whatever the case of its name.
    let kl = start(&k, &SessionConfig::new(KERNEL_LOGGER_NAME)).unwrap();
    let mut props = EventTraceProperties::alloc(None);
    props.wnode.guid = Guid::SYSTEM_TRACE_CONTROL;
    assert_eq!(
        api.control_trace(
            0,
            Some("nt kernel logger"),
            Some(&mut props),
            EVENT_TRACE_CONTROL_QUERY
        ),
        0
    );
    assert_eq!(props.wnode.historical_context, kl.handle().0);
}

#[test]
fn a_name_that_is_not_running_is_instance_not_found() {
    // rule: SES-74
    let k = kernel();
    let sys = k.system_process();
    for code in [
        TraceControl::Query,
        TraceControl::Stop,
        TraceControl::Flush,
        TraceControl::Update,
        TraceControl::IncrementFile,
        TraceControl::ConvertToRealtime,
    ] {
        assert_rejected(&k, NOT_FOUND, || {
            k.control_trace(&sys, Target::Name("never"), code, None)
        });
    }
    let s = k.session("gone").start().unwrap();
    s.stop().unwrap();
    assert_rejected(&k, NOT_FOUND, || {
        k.control_trace(&sys, Target::Name("gone"), TraceControl::Query, None)
    });
    let api = Win32::new(&sys);
    assert_rejected_code(&k, NOT_FOUND, || {
        let mut props = EventTraceProperties::alloc(None);
        api.control_trace(0, Some("GONE"), Some(&mut props), EVENT_TRACE_CONTROL_QUERY)
    });
}

#[test]
fn a_stopped_sessions_handle_is_instance_not_found_for_every_code() {
    // rule: SES-74
    // rule: SES-79
    let k = kernel();
    let s = k
        .session("nf")
        .mode(LogFileMode::NEWFILE)
        .log_file("nf_%d.etl")
        .maximum_file_size(1)
        .start()
        .unwrap();
    s.stop().unwrap();
    assert!(!s.is_running());
    assert_rejected(&k, NOT_FOUND, || s.query());
    assert_rejected(&k, NOT_FOUND, || s.flush());
    assert_rejected(&k, NOT_FOUND, || s.stop());
    assert_rejected(&k, NOT_FOUND, || s.increment_file());
    assert_rejected(&k, NOT_FOUND, || s.convert_to_realtime());
    assert_rejected(&k, NOT_FOUND, || s.update(&SessionUpdate::default()));
    let api = Win32::new(&k.system_process());
    assert_rejected_code(&k, NOT_FOUND, || {
        let mut props = EventTraceProperties::alloc(None);
        api.control_trace(
            s.handle().0,
            None,
            Some(&mut props),
            EVENT_TRACE_CONTROL_QUERY,
        )
    });
}

#[test]
fn a_stale_handle_never_reaches_the_session_that_reuses_its_logger_id() {
    // rule: SES-74
    let k = kernel();
    let old = k.session("old").start().unwrap();
    let id = old.logger_id();
    old.stop().unwrap();
    let new = k.session("new").start().unwrap();
    assert_eq!(new.logger_id(), id, "the logger id is reused");
    assert_ne!(new.handle(), old.handle());
    assert_rejected(&k, NOT_FOUND, || old.query());
    assert_rejected(&k, NOT_FOUND, || old.stop());
    assert!(new.is_running());
    assert_eq!(props_of(&new).name, "new");
}

#[test]
fn a_value_never_issued_as_a_handle_is_invalid_parameter() {
    // rule: SES-74
    let k = kernel();
    let s = k.session("s").start().unwrap();
    let sys = k.system_process();
    let future = TraceHandle(((s.handle().0 >> 16) + 1000) << 16 | 2);
    for h in [
        TraceHandle(2),
        TraceHandle(0xffff),
        future,
        TraceHandle(u64::MAX),
    ] {
        assert_rejected(&k, INVALID, || {
            k.control_trace(&sys, Target::Handle(h), TraceControl::Query, None)
        });
        assert_rejected(&k, INVALID, || {
            k.control_trace(&sys, Target::Handle(h), TraceControl::Stop, None)
        });
    }
    assert!(s.is_running());
}

#[test]
fn a_wrong_properties_size_is_bad_length() {
    // rule: SES-75
    let k = kernel();
    let s = k.session("s").start().unwrap();
    let api = Win32::new(&k.system_process());
    for size in [0, EVENT_TRACE_PROPERTIES_SIZE - 1, 1_000_000] {
        assert_rejected_code(&k, Win32Error::ERROR_BAD_LENGTH, || {
            let mut props = EventTraceProperties::alloc(None);
            props.wnode.buffer_size = size;
            api.control_trace(
                s.handle().0,
                None,
                Some(&mut props),
                EVENT_TRACE_CONTROL_STOP,
            )
        });
    }
    assert!(s.is_running());
}

/// A properties block whose name space holds only 3 characters and a NUL.
fn cramped_props() -> EventTraceProperties {
    let mut p = EventTraceProperties {
        tail: vec![0; 4],
        ..EventTraceProperties::default()
    };
    p.wnode.buffer_size = EVENT_TRACE_PROPERTIES_SIZE + 8;
    p.wnode.flags = WNODE_FLAG_TRACED_GUID;
    p.logger_name_offset = EVENT_TRACE_PROPERTIES_SIZE;
    p
}

#[test]
fn names_that_do_not_fit_give_more_data_after_the_operation_is_done() {
    // rule: SES-75
    let k = kernel();
    let s = k
        .session("LongSessionName")
        .buffer_size_kb(16)
        .start()
        .unwrap();
    let api = Win32::new(&k.system_process());
    let mut props = cramped_props();
    assert_eq!(
        api.control_trace(
            s.handle().0,
            None,
            Some(&mut props),
            EVENT_TRACE_CONTROL_QUERY
        ),
        Win32Error::ERROR_MORE_DATA.code()
    );
    // The fixed fields were filled all the same.
    assert_eq!(props.wnode.historical_context, s.handle().0);
    assert_eq!(props.buffer_size, 16);
    assert!(s.is_running());
    // For STOP the session is stopped anyway.
    let mut props = cramped_props();
    assert_eq!(
        api.control_trace(
            0,
            Some("longsessionname"),
            Some(&mut props),
            EVENT_TRACE_CONTROL_STOP
        ),
        Win32Error::ERROR_MORE_DATA.code()
    );
    assert!(!s.is_running());
    assert_rejected(&k, NOT_FOUND, || s.query());
    assert!(k.sessions().is_empty());
    // A short name fits in the same block.
    let short = k.session("abc").start().unwrap();
    let mut props = cramped_props();
    assert_eq!(
        api.control_trace(
            short.handle().0,
            None,
            Some(&mut props),
            EVENT_TRACE_CONTROL_QUERY
        ),
        0
    );
    assert_eq!(props.logger_name().as_deref(), Some("abc"));
}

#[test]
fn update_to_a_file_another_session_uses_is_bad_pathname() {
    // rule: SES-75
    // rule: SES-77
    let k = kernel();
    let _a = file_session(&k, "a", "shared.etl");
    let b = file_session(&k, "b", "b.etl");
    for name in ["shared.etl", "SHARED.ETL"] {
        assert_rejected(&k, Win32Error::ERROR_BAD_PATHNAME, || {
            b.update(&SessionUpdate {
                log_file: Some(name.into()),
                flush_timer: 4,
                ..SessionUpdate::default()
            })
        });
    }
    let api = Win32::new(&k.system_process());
    assert_rejected_code(&k, Win32Error::ERROR_BAD_PATHNAME, || {
        let mut props = EventTraceProperties::alloc(Some("shared.etl"));
        api.control_trace(
            b.handle().0,
            None,
            Some(&mut props),
            EVENT_TRACE_CONTROL_UPDATE,
        )
    });
    assert_eq!(props_of(&b).log_file.as_deref(), Some("b.etl"));
}

#[test]
fn control_by_a_caller_without_rights_is_access_denied() {
    // rule: SES-75
    // rule: SES-29
    let k = kernel();
    let s = k.session("sys").start().unwrap();
    let kl = start(&k, &SessionConfig::new(KERNEL_LOGGER_NAME)).unwrap();
    let bob = k.spawn("bob.exe", Token::user("bob")).unwrap();
    for code in [
        TraceControl::Query,
        TraceControl::Stop,
        TraceControl::Flush,
        TraceControl::Update,
    ] {
        assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
            k.control_trace(&bob, Target::Handle(s.handle()), code, None)
        });
        assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
            k.control_trace(&bob, Target::Name("sys"), code, None)
        });
    }
    let api = Win32::new(&bob);
    assert_rejected_code(&k, Win32Error::ERROR_ACCESS_DENIED, || {
        let mut props = EventTraceProperties::alloc(None);
        api.control_trace(
            s.handle().0,
            None,
            Some(&mut props),
            EVENT_TRACE_CONTROL_STOP,
        )
    });
    // A Performance Log User controls ordinary sessions, not the NT Kernel Logger.
    let plu = k
        .spawn(
            "perf.exe",
            Token::user("carol").with_groups(Groups::PERFORMANCE_LOG_USERS),
        )
        .unwrap();
    k.control_trace(&plu, Target::Name("sys"), TraceControl::Query, None)
        .unwrap();
    assert_rejected(&k, Win32Error::ERROR_ACCESS_DENIED, || {
        k.control_trace(&plu, Target::Handle(kl.handle()), TraceControl::Stop, None)
    });
    assert!(kl.is_running());
}

#[test]
fn query_returns_the_settings_statistics_handle_and_names() {
    // rule: SES-76
    let k = kernel(); // 4 CPUs
    let s = k
        .session("Stats")
        .log_file("stats.etl")
        .real_time()
        .buffer_size_kb(32)
        .flush_timer(2)
        .clock(ClockType::SystemTime)
        .start()
        .unwrap();
    let other = k.session("Other").start().unwrap();
    let api = Win32::new(&k.system_process());
    let mut props = EventTraceProperties::alloc(Some("placeholder.etl"));
    assert_eq!(
        api.control_trace(
            0,
            Some("stats"),
            Some(&mut props),
            EVENT_TRACE_CONTROL_QUERY
        ),
        0
    );
    assert_eq!(props.wnode.historical_context, s.handle().0);
    assert_eq!(props.wnode.guid, s.guid());
    assert_eq!(props.wnode.client_context, 2);
    assert_eq!(props.logger_name().as_deref(), Some("Stats"));
    assert_eq!(props.log_file_name().as_deref(), Some("stats.etl"));
    assert_eq!(props.log_file_mode, 0x101);
    assert_eq!(props.buffer_size, 32);
    assert_eq!(props.minimum_buffers, 8);
    assert_eq!(props.maximum_buffers, 28);
    assert_eq!(props.flush_timer, 2);
    assert_eq!(props.number_of_buffers, 8);
    assert_eq!(props.free_buffers, 8);
    assert_eq!(props.events_lost, 0);
    assert_eq!(props.buffers_written, 0);
    assert_eq!(props.log_buffers_lost, 0);
    assert_eq!(props.real_time_buffers_lost, 0);
    assert_ne!(props.logger_thread_id, 0);
    assert_eq!(props.logger_thread_id % 4, 0);
    let p = props_of(&s);
    assert_eq!(u64::from(p.logger_thread_id), props.logger_thread_id);
    assert_ne!(props_of(&other).logger_thread_id, p.logger_thread_id);
    assert_eq!(p.handle, s.handle());
    assert_eq!(p.logger_id, s.logger_id());
}

#[test]
fn flush_and_update_fill_the_properties_too() {
    // rule: SES-76
    // rule: SES-78
    let k = kernel();
    let s = k.session("filled").start().unwrap();
    let api = Win32::new(&k.system_process());
    for code in [EVENT_TRACE_CONTROL_FLUSH, EVENT_TRACE_CONTROL_UPDATE] {
        let mut props = EventTraceProperties::alloc(None);
        props.log_file_mode = LogFileMode::REAL_TIME.bits();
        assert_eq!(
            api.control_trace(s.handle().0, None, Some(&mut props), code),
            0
        );
        assert_eq!(props.wnode.historical_context, s.handle().0);
        assert_eq!(props.logger_name().as_deref(), Some("filled"));
        assert_eq!(props.minimum_buffers, 8);
        assert_eq!(props.number_of_buffers, 8);
        assert_eq!(props.buffer_size, 64);
    }
}

#[test]
fn update_flush_timer_zero_leaves_it_and_nonzero_sets_it() {
    // rule: SES-77
    let k = kernel();
    let s = k.session("ft").flush_timer(3).start().unwrap();
    let same = s.update(&SessionUpdate::default()).unwrap();
    assert_eq!(same.flush_timer, 3);
    let set = s
        .update(&SessionUpdate {
            flush_timer: 11,
            ..SessionUpdate::default()
        })
        .unwrap();
    assert_eq!(set.flush_timer, 11);
    assert_eq!(props_of(&s), set, "UPDATE returns the new settings");
}

#[test]
fn update_maximum_buffers_zero_leaves_it_others_are_adjusted() {
    // rule: SES-77
    // rule: SES-60
    let k = kernel(); // min 8
    let s = k.session("mb").maximum_buffers(30).start().unwrap();
    let upd = |n: u32| {
        s.update(&SessionUpdate {
            maximum_buffers: n,
            ..SessionUpdate::default()
        })
        .unwrap()
        .maximum_buffers
    };
    assert_eq!(upd(0), 30);
    assert_eq!(upd(64), 64);
    assert_eq!(upd(3), 8, "raised to MinimumBuffers");
    assert_eq!(upd(100_000), 1024, "lowered to the cap");
    assert_eq!(
        props_of(&s).minimum_buffers,
        8,
        "MinimumBuffers is not updatable"
    );
}

#[test]
fn update_switches_the_log_file() {
    // rule: SES-77
    let k = kernel();
    let s = file_session(&k, "sw", "first.etl");
    let p = s
        .update(&SessionUpdate {
            log_file: Some("second.etl".into()),
            ..SessionUpdate::default()
        })
        .unwrap();
    assert_eq!(p.log_file.as_deref(), Some("second.etl"));
    // The old file is free for another session; the new one is not.
    file_session(&k, "taker", "first.etl");
    assert_rejected(&k, Win32Error::ERROR_BAD_PATHNAME, || {
        k.session("clash").log_file("SECOND.etl").start()
    });
    // A real-time session given a file starts writing one, still real-time.
    let rt = k.session("rt").start().unwrap();
    let p = rt
        .update(&SessionUpdate {
            log_file: Some("rt.etl".into()),
            ..SessionUpdate::default()
        })
        .unwrap();
    assert_eq!(p.log_file.as_deref(), Some("rt.etl"));
    assert_eq!(
        p.log_file_mode,
        LogFileMode::REAL_TIME | LogFileMode::SEQUENTIAL
    );
    // A buffering session's ring is written to the new file; the mode stays BUFFERING.
    let ring = k.session("ring").buffering().start().unwrap();
    let p = ring
        .update(&SessionUpdate {
            log_file: Some("snapshot.etl".into()),
            ..SessionUpdate::default()
        })
        .unwrap();
    assert_eq!(p.log_file.as_deref(), Some("snapshot.etl"));
    assert_eq!(p.log_file_mode, LogFileMode::BUFFERING);
}

#[test]
fn update_naming_the_current_file_is_refused() {
    // rule: SES-77
    let k = kernel();
    let s = file_session(&k, "cur", "current.etl");
    for name in ["current.etl", "CURRENT.ETL"] {
        assert_rejected(&k, INVALID, || {
            s.update(&SessionUpdate {
                log_file: Some(name.into()),
                flush_timer: 9,
                ..SessionUpdate::default()
            })
        });
    }
    // Reusing a QUERY block without resetting LogFileNameOffset names the current file.
    let api = Win32::new(&k.system_process());
    let mut props = EventTraceProperties::alloc(Some("x"));
    assert_eq!(
        api.control_trace(
            s.handle().0,
            None,
            Some(&mut props),
            EVENT_TRACE_CONTROL_QUERY
        ),
        0
    );
    props.flush_timer = 9;
    let before = k.snapshot();
    assert_eq!(
        api.control_trace(
            s.handle().0,
            None,
            Some(&mut props),
            EVENT_TRACE_CONTROL_UPDATE
        ),
        INVALID.code()
    );
    assert_eq!(k.snapshot(), before);
    props.log_file_name_offset = 0;
    assert_eq!(
        api.control_trace(
            s.handle().0,
            None,
            Some(&mut props),
            EVENT_TRACE_CONTROL_UPDATE
        ),
        0
    );
    assert_eq!(props_of(&s).flush_timer, 9);
}

#[test]
fn update_to_a_file_in_a_missing_folder_is_path_not_found() {
    // rule: SES-77
    // rule: SES-28
    let k = kernel();
    let s = file_session(&k, "s", "s.etl");
    assert_rejected(&k, Win32Error::ERROR_PATH_NOT_FOUND, || {
        s.update(&SessionUpdate {
            log_file: Some("no-such-folder-etwsim-ses-control/next.etl".into()),
            ..SessionUpdate::default()
        })
    });
    assert_rejected(&k, Win32Error::ERROR_BAD_PATHNAME, || {
        s.update(&SessionUpdate {
            log_file: Some("nul\0inside.etl".into()),
            ..SessionUpdate::default()
        })
    });
}

#[test]
fn update_toggles_real_time_delivery() {
    // rule: SES-77
    let k = kernel();
    let s = file_session(&k, "f", "f.etl");
    let on = s
        .update(&SessionUpdate {
            real_time: Some(true),
            ..SessionUpdate::default()
        })
        .unwrap();
    assert_eq!(
        on.log_file_mode,
        LogFileMode::SEQUENTIAL | LogFileMode::REAL_TIME
    );
    let off = s
        .update(&SessionUpdate {
            real_time: Some(false),
            ..SessionUpdate::default()
        })
        .unwrap();
    assert_eq!(off.log_file_mode, LogFileMode::SEQUENTIAL);
    // Through the Win32 face: LogFileMode 0 turns it off, REAL_TIME turns it on.
    let api = Win32::new(&k.system_process());
    let mut props = EventTraceProperties::alloc(None);
    props.log_file_mode = LogFileMode::REAL_TIME.bits();
    assert_eq!(
        api.control_trace(
            s.handle().0,
            None,
            Some(&mut props),
            EVENT_TRACE_CONTROL_UPDATE
        ),
        0
    );
    assert_eq!(props.log_file_mode, 0x101);
    let mut props = EventTraceProperties::alloc(None);
    props.log_file_mode = 0;
    assert_eq!(
        api.control_trace(
            s.handle().0,
            None,
            Some(&mut props),
            EVENT_TRACE_CONTROL_UPDATE
        ),
        0
    );
    assert_eq!(props.log_file_mode, 0x1);
    // A buffering session cannot become real-time.
    let ring = k.session("ring").buffering().start().unwrap();
    let p = ring
        .update(&SessionUpdate {
            real_time: Some(true),
            ..SessionUpdate::default()
        })
        .unwrap();
    assert_eq!(p.log_file_mode, LogFileMode::BUFFERING);
}

#[test]
fn update_changes_enable_flags_only_for_system_loggers() {
    // rule: SES-77
    // rule: SES-70
    let k = kernel();
    let mut cfg = SessionConfig::new(KERNEL_LOGGER_NAME);
    cfg.enable_flags = 0x1;
    let kl = start(&k, &cfg).unwrap();
    let set = |s: &Session, flags: u32| {
        s.update(&SessionUpdate {
            enable_flags: Some(flags),
            ..SessionUpdate::default()
        })
        .unwrap()
        .enable_flags
    };
    assert_eq!(set(&kl, 0x0000_0006), 0x6);
    assert_eq!(set(&kl, 0), 0, "0 disables every kernel group");
    let unchanged = kl.update(&SessionUpdate::default()).unwrap();
    assert_eq!(
        unchanged.enable_flags, 0,
        "None leaves the flags as they are"
    );
    let mut sys_cfg = rt_with("sys", LogFileMode::SYSTEM_LOGGER);
    sys_cfg.enable_flags = 0x10;
    let sys = start(&k, &sys_cfg).unwrap();
    assert_eq!(set(&sys, 0x20), 0x20);
    let plain = k.session("plain").start().unwrap();
    assert_eq!(set(&plain, 0x20), 0, "not a system logger: ignored");
}

#[test]
fn update_of_a_private_session_changes_only_file_and_flush_timer() {
    // rule: SES-77
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let s = private_session(&k, &app, "priv", guid(8), "priv.etl");
    let before = props_of(&s);
    let after = s
        .update(&SessionUpdate {
            flush_timer: 6,
            maximum_buffers: 200,
            log_file: Some("priv2.etl".into()),
            real_time: Some(true),
            enable_flags: Some(0xff),
        })
        .unwrap();
    assert_eq!(after.flush_timer, 6);
    assert_eq!(after.log_file.as_deref(), Some("priv2.etl"));
    assert_eq!(after.maximum_buffers, before.maximum_buffers);
    assert_eq!(after.log_file_mode, before.log_file_mode);
    assert_eq!(after.enable_flags, before.enable_flags);
}

#[test]
fn flush_succeeds_by_handle_and_name_and_changes_no_setting() {
    // rule: SES-78
    let k = kernel();
    let ring = k.session("Ring").buffering().start().unwrap();
    let file = file_session(&k, "File", "file.etl");
    for s in [&ring, &file] {
        let before = k.snapshot();
        let p = s.flush().unwrap();
        assert_eq!(p, props_of(s));
        assert_eq!(k.snapshot(), before);
    }
    let p = k
        .control_trace(
            &k.system_process(),
            Target::Name("ring"),
            TraceControl::Flush,
            None,
        )
        .unwrap();
    assert_eq!(p.handle, ring.handle());
}

#[test]
fn stop_returns_the_final_statistics_and_frees_name_file_and_slot() {
    // rule: SES-79
    let k = kernel();
    let s = k
        .session("final")
        .log_file("final.etl")
        .real_time()
        .start()
        .unwrap();
    let last = props_of(&s);
    let fin = s.stop().unwrap();
    assert_eq!(fin, last);
    assert!(!s.is_running());
    assert!(k.sessions().is_empty());
    assert!(k.snapshot().sessions.is_empty());
    // Name and file are free again; the new session has a new handle.
    let again = k.session("FINAL").log_file("final.etl").start().unwrap();
    assert_ne!(again.handle(), s.handle());
    // Through the Win32 face, STOP fills the block with the final values.
    let api = Win32::new(&k.system_process());
    let mut props = EventTraceProperties::alloc(Some("x"));
    assert_eq!(
        api.control_trace(
            again.handle().0,
            None,
            Some(&mut props),
            EVENT_TRACE_CONTROL_STOP
        ),
        0
    );
    assert_eq!(props.wnode.historical_context, again.handle().0);
    assert_eq!(props.logger_name().as_deref(), Some("FINAL"));
    assert_eq!(props.log_file_name().as_deref(), Some("final.etl"));
    assert_eq!(props.number_of_buffers, 8);
}

/// What the callback saw: IsEnabled, its own STOP's result, its QUERY's result.
type Observed = (
    ControlCode,
    Result<(), Win32Error>,
    Result<bool, Win32Error>,
);

#[test]
fn stop_issued_from_an_enable_callback_during_a_stop_is_active_connections() {
    // rule: SES-79
    // rule: SES-80
    let k = kernel();
    let g = guid(9);
    let s = k.session("stopping").start().unwrap();
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let seen: Arc<Mutex<Vec<Observed>>> = Arc::default();
    let (k2, log) = (k.clone(), seen.clone());
    let _p = app
        .register_provider_with_callback(g, move |n: &EnableNotification| {
            if n.is_enabled != ControlCode::DisableProvider {
                return;
            }
            let sys = k2.system_process();
            let stop = k2
                .control_trace(&sys, Target::Name("stopping"), TraceControl::Stop, None)
                .map(|_| ())
                .map_err(|e| e.win32_code());
            // The session is still there while its providers are being disabled.
            let query = k2
                .control_trace(&sys, Target::Name("stopping"), TraceControl::Query, None)
                .map(|p| p.name == "stopping")
                .map_err(|e| e.win32_code());
            log.lock().unwrap().push((n.is_enabled, stop, query));
        })
        .unwrap();
    let fin = s.stop().unwrap();
    assert_eq!(fin.name, "stopping");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        vec![(
            ControlCode::DisableProvider,
            Err(Win32Error::ERROR_ACTIVE_CONNECTIONS),
            Ok(true)
        )]
    );
    assert!(!s.is_running());
    assert!(k.sessions().is_empty());
}

#[test]
fn stop_disables_the_providers_with_source_id_null() {
    // rule: SES-80
    let k = kernel();
    let g1 = guid(10);
    let g2 = guid(11);
    let source: Guid = "{11111111-2222-3333-4444-555555555555}".parse().unwrap();
    let s = k.session("enabler").start().unwrap();
    let keep = k.session("keeper").start().unwrap();
    s.enable(
        g1,
        &EnableParams::new()
            .level(Level::VERBOSE)
            .any(0xf0)
            .source_id(source),
    )
    .unwrap();
    s.enable(g2, &EnableParams::new().source_id(source))
        .unwrap();
    let a = user_process(&k, "a.exe");
    let b = user_process(&k, "b.exe");
    let (r1, r2, r3) = (Recorder::new(), Recorder::new(), Recorder::new());
    let p1 = a
        .register_provider_with_callback(g1, r1.callback())
        .unwrap();
    let p2 = b
        .register_provider_with_callback(g2, r2.callback())
        .unwrap();
    // A provider the stopping session does not enable hears nothing.
    let g3 = guid(12);
    keep.enable(g3, &EnableParams::new()).unwrap();
    let p3 = b
        .register_provider_with_callback(g3, r3.callback())
        .unwrap();
    r1.take();
    r2.take();
    r3.take();

    s.stop().unwrap();
    for (r, p) in [(&r1, &p1), (&r2, &p2)] {
        let got = r.take();
        assert_eq!(got.len(), 1);
        let n = &got[0];
        assert_eq!(n.is_enabled, ControlCode::DisableProvider);
        assert_eq!(n.source_id, Guid::NULL, "not the controller's SourceId");
        assert_eq!(n.level, Level(0));
        assert_eq!(n.match_any_keyword, Keyword(0));
        assert!(!p.is_enabled());
    }
    assert!(k.enable_slots(g1).iter().all(Option::is_none));
    assert!(r3.all().is_empty());
    assert!(p3.is_enabled());
}

#[test]
fn stop_with_another_session_still_enabling_sends_the_remaining_state() {
    // rule: SES-80
    // rule: PRV-10
    let k = kernel();
    let g = guid(13);
    let a = k.session("a").start().unwrap();
    let b = k.session("b").start().unwrap();
    let source: Guid = "{22222222-2222-3333-4444-555555555555}".parse().unwrap();
    a.enable(
        g,
        &EnableParams::new()
            .level(Level::VERBOSE)
            .any(0x1)
            .source_id(source),
    )
    .unwrap();
    b.enable(
        g,
        &EnableParams::new()
            .level(Level::ERROR)
            .any(0x2)
            .source_id(source),
    )
    .unwrap();
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    rec.take();
    a.stop().unwrap();
    let n = rec.last();
    assert_eq!(rec.len(), 1);
    assert_eq!(n.is_enabled, ControlCode::EnableProvider);
    assert_eq!(n.source_id, Guid::NULL);
    assert_eq!(n.level, Level::ERROR);
    assert_eq!(n.match_any_keyword, Keyword(0x2));
    assert!(p.is_enabled_for(Level::ERROR, Keyword(0x2)));
    assert!(!p.is_enabled_for(Level::VERBOSE, Keyword(0x1)));
}

#[test]
fn stop_disables_a_classic_provider_through_its_control_callback() {
    // rule: SES-80
    let k = kernel();
    let g = guid(14);
    let s = k.session("classic").start().unwrap();
    s.enable(g, &EnableParams::new().level(Level::INFORMATION).any(0x5))
        .unwrap();
    let app = user_process(&k, "legacy.exe");
    let got: Arc<Mutex<Vec<ClassicNotification>>> = Arc::default();
    let log = got.clone();
    let cp = app
        .register_trace_guids(g, move |n: &ClassicNotification| {
            log.lock().unwrap().push(n.clone())
        })
        .unwrap();
    assert_eq!(
        got.lock().unwrap().last().unwrap().request_code,
        WMI_ENABLE_EVENTS
    );
    s.stop().unwrap();
    let last = got.lock().unwrap().last().unwrap().clone();
    assert_eq!(last.request_code, WMI_DISABLE_EVENTS);
    assert_eq!(cp.logger_handle(), None);
}

#[test]
fn increment_file_advances_the_newfile_counter_and_is_refused_elsewhere() {
    // rule: SES-81
    let k = kernel();
    let nf = k
        .session("nf")
        .mode(LogFileMode::NEWFILE)
        .log_file("nf_%d.etl")
        .maximum_file_size(1)
        .start()
        .unwrap();
    assert_eq!(props_of(&nf).file_counter, 1);
    assert_eq!(nf.increment_file().unwrap().file_counter, 2);
    assert_eq!(nf.increment_file().unwrap().file_counter, 3);
    assert_eq!(props_of(&nf).log_file.as_deref(), Some("nf_%d.etl"));
    let seq = file_session(&k, "seq", "seq.etl");
    let rt = k.session("rt").start().unwrap();
    let ring = k.session("ring").buffering().start().unwrap();
    let circ = k
        .session("circ")
        .mode(LogFileMode::CIRCULAR)
        .log_file("circ.etl")
        .maximum_file_size(1)
        .start()
        .unwrap();
    for s in [&seq, &rt, &ring, &circ] {
        assert_rejected(&k, INVALID, || s.increment_file());
    }
}

#[test]
fn convert_to_realtime_turns_a_file_session_into_a_real_time_one() {
    // rule: SES-81
    let k = kernel();
    for (i, mode) in [
        LogFileMode::SEQUENTIAL,
        LogFileMode::CIRCULAR,
        LogFileMode::NEWFILE,
        LogFileMode::SEQUENTIAL | LogFileMode::PREALLOCATE,
    ]
    .into_iter()
    .enumerate()
    {
        let file = format!("conv{i}_%d.etl");
        let s = k
            .session(&format!("conv{i}"))
            .mode(mode)
            .log_file(&file)
            .maximum_file_size(1)
            .start()
            .unwrap();
        let p = s.convert_to_realtime().unwrap();
        assert_eq!(p.log_file_mode, LogFileMode::REAL_TIME, "{mode:?}");
        assert_eq!(p.log_file, None);
        assert_eq!(props_of(&s), p);
        // ETL writing is off: the file is free for another session.
        file_session(&k, &format!("reuse{i}"), &file);
    }
}

#[test]
fn convert_to_realtime_is_refused_for_sessions_of_the_wrong_kind() {
    // rule: SES-81
    let k = kernel();
    let rt = k.session("rt").start().unwrap();
    let both = k
        .session("both")
        .log_file("both.etl")
        .real_time()
        .start()
        .unwrap();
    let ring = k.session("ring").buffering().start().unwrap();
    let app = user_process(&k, "app.exe");
    let private = private_session(&k, &app, "priv", guid(15), "priv.etl");
    for s in [&rt, &both, &ring, &private] {
        assert_rejected(&k, INVALID, || s.convert_to_realtime());
    }
}

#[test]
fn query_all_traces_lists_running_non_private_sessions_in_logger_id_order() {
    // rule: SES-82
    let k = kernel();
    let a = k.session("a").start().unwrap();
    let b = file_session(&k, "b", "b.etl");
    let c = k.session("c").start().unwrap();
    b.stop().unwrap();
    let d = k.session("d").start().unwrap(); // takes b's logger id
    let app = user_process(&k, "app.exe");
    let _private = private_session(&k, &app, "priv", guid(16), "priv.etl");
    let all = k.query_all_traces(&k.system_process());
    let mut expected = vec![props_of(&a), props_of(&c), props_of(&d)];
    expected.sort_by_key(|p| p.logger_id);
    assert_eq!(all, expected);
    assert!(all.iter().all(|p| !p.is_private));
    // The private session's owner does not see it listed either.
    assert!(k.query_all_traces(&app).is_empty());
    let admin = admin_process(&k, "admin.exe");
    assert_eq!(k.query_all_traces(&admin).len(), 3);
}

#[test]
fn query_all_traces_lists_only_what_the_caller_may_query() {
    // rule: SES-82
    // rule: SES-29
    let k = kernel();
    let _s = k.session("ordinary").start().unwrap();
    let _kl = start(&k, &SessionConfig::new(KERNEL_LOGGER_NAME)).unwrap();
    let names = |p: &Process| -> Vec<String> {
        k.query_all_traces(p).into_iter().map(|s| s.name).collect()
    };
    let user = user_process(&k, "user.exe");
    assert!(names(&user).is_empty(), "a standard user sees none");
    let unelevated = k
        .spawn("uac.exe", Token::administrator("eve").unelevated())
        .unwrap();
    assert!(names(&unelevated).is_empty());
    let plu = k
        .spawn(
            "perf.exe",
            Token::user("carol").with_groups(Groups::PERFORMANCE_LOG_USERS),
        )
        .unwrap();
    assert_eq!(names(&plu), vec!["ordinary".to_string()]);
    let svc = k.spawn("svc.exe", Token::local_service()).unwrap();
    assert_eq!(names(&svc), vec!["ordinary".to_string()]);
    let admin = admin_process(&k, "admin.exe");
    let mut all = names(&admin);
    all.sort();
    assert_eq!(all, vec![KERNEL_LOGGER_NAME.to_string(), "ordinary".into()]);
}

#[test]
fn win32_query_all_traces_checks_the_array_and_reports_more_data() {
    // rule: SES-82
    let k = kernel();
    let handles: Vec<TraceHandle> = (0..3)
        .map(|i| k.session(&format!("s{i}")).start().unwrap().handle())
        .collect();
    let api = Win32::new(&k.system_process());
    let mut count = 0u32;
    // Too small an array: the first entries are filled, LoggerCount says how many there are.
    let mut two = vec![
        EventTraceProperties::alloc(None),
        EventTraceProperties::alloc(None),
    ];
    assert_eq!(
        api.query_all_traces(Some(&mut two), Some(&mut count)),
        Win32Error::ERROR_MORE_DATA.code()
    );
    assert_eq!(count, 3);
    assert_eq!(two[0].wnode.historical_context, handles[0].0);
    assert_eq!(two[1].wnode.historical_context, handles[1].0);
    assert_eq!(two[0].logger_name().as_deref(), Some("s0"));
    assert_eq!(two[1].logger_name().as_deref(), Some("s1"));
    // Enough room.
    let mut four: Vec<_> = (0..4).map(|_| EventTraceProperties::alloc(None)).collect();
    count = 0;
    assert_eq!(api.query_all_traces(Some(&mut four), Some(&mut count)), 0);
    assert_eq!(count, 3);
    assert_eq!(four[2].logger_name().as_deref(), Some("s2"));
    assert_eq!(four[3].wnode.historical_context, 0, "untouched");
    // PropertyArrayCount 0 or above 64, NULL array, NULL count.
    assert_rejected_code(&k, INVALID, || {
        api.query_all_traces(Some(&mut []), Some(&mut count))
    });
    assert_rejected_code(&k, INVALID, || {
        let mut many: Vec<_> = (0..65).map(|_| EventTraceProperties::alloc(None)).collect();
        api.query_all_traces(Some(&mut many), Some(&mut count))
    });
    assert_rejected_code(&k, INVALID, || api.query_all_traces(None, Some(&mut count)));
    assert_rejected_code(&k, INVALID, || {
        let mut one = vec![EventTraceProperties::alloc(None)];
        api.query_all_traces(Some(&mut one), None)
    });
    let mut sixty_four: Vec<_> = (0..64).map(|_| EventTraceProperties::alloc(None)).collect();
    assert_eq!(
        api.query_all_traces(Some(&mut sixty_four), Some(&mut count)),
        0
    );
}

#[test]
fn win32_query_all_traces_accepts_as_many_slots_as_etw_max_loggers() {
    // rule: SES-82
    let k = Kernel::builder()
        .deterministic(3)
        .max_loggers(128)
        .build()
        .unwrap();
    let _s = k.session("only").start().unwrap();
    let api = Win32::new(&k.system_process());
    let mut count = 0;
    let mut full: Vec<_> = (0..128)
        .map(|_| EventTraceProperties::alloc(None))
        .collect();
    assert_eq!(api.query_all_traces(Some(&mut full), Some(&mut count)), 0);
    assert_eq!(count, 1);
    assert_rejected_code(&k, INVALID, || {
        let mut over: Vec<_> = (0..129)
            .map(|_| EventTraceProperties::alloc(None))
            .collect();
        api.query_all_traces(Some(&mut over), Some(&mut count))
    });
    // A standard user gets an empty list, not an error.
    let user = user_process(&k, "user.exe");
    let mut one = vec![EventTraceProperties::alloc(None)];
    count = 99;
    assert_eq!(
        Win32::new(&user).query_all_traces(Some(&mut one), Some(&mut count)),
        0
    );
    assert_eq!(count, 0);
}

#[test]
fn age_limit_is_ignored() {
    // rule: SES-83
    let run = |age: i32| {
        let k = kernel();
        let api = Win32::new(&k.system_process());
        let mut props = EventTraceProperties::alloc(Some("age.etl"));
        props.log_file_mode = 0x1;
        props.age_limit = age;
        let mut h = 0;
        assert_eq!(
            api.start_trace(Some(&mut h), Some("age"), Some(&mut props)),
            0,
            "AgeLimit {age}"
        );
        assert_eq!(props.age_limit, age, "not rewritten");
        props.age_limit = age.wrapping_add(1);
        props.log_file_name_offset = 0;
        assert_eq!(
            api.control_trace(h, None, Some(&mut props), EVENT_TRACE_CONTROL_UPDATE),
            0
        );
        k.snapshot()
    };
    let reference = run(0);
    for age in [15, -1, 1, i32::MAX, i32::MIN] {
        assert_eq!(run(age), reference, "AgeLimit {age} changed something");
    }
}

#[test]
fn a_network_service_caller_finds_a_session_by_name() {
    // rule: SES-73
    let k = kernel();
    let _s = k.session("pid-test").start().unwrap();
    let p = k
        .spawn_process(ProcessSpec::new("svc.exe", Token::network_service()).pid(4000))
        .unwrap();
    let q = k
        .control_trace(&p, Target::Name("PID-TEST"), TraceControl::Query, None)
        .unwrap();
    assert_eq!(q.name, "pid-test");
}
