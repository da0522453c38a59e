//! Bad input changes nothing and panics nowhere.
//!
//! Part 1 is a table: every kind of bad input the issue lists — empty and over-long names,
//! duplicate names and GUIDs, zero / huge / contradictory buffer settings, invalid mode
//! combinations, unknown control codes, unknown and stale handles, too many or oversize
//! filters, a 9th session on one provider, a 65th logger — each against a fresh kernel with a
//! session, a stopped session and a provider with a callback. Each row checks the documented
//! code, that `k.snapshot()` is unchanged, and that no enable callback ran.
//!
//! Part 2 throws a few thousand deterministic pseudo-random raw values at the `win32` face
//! and at `EventFilter::parse`: nothing may panic, and every failing call must leave the
//! kernel exactly as it was.

use crate::common;
use common::*;
use etwsim::win32::{
    ENABLE_TRACE_PARAMETERS_VERSION_2, EVENT_CONTROL_CODE_CAPTURE_STATE,
    EVENT_CONTROL_CODE_DISABLE_PROVIDER, EVENT_CONTROL_CODE_ENABLE_PROVIDER,
    EVENT_TRACE_CONTROL_CONVERT_TO_REALTIME, EVENT_TRACE_CONTROL_INCREMENT_FILE,
    EVENT_TRACE_CONTROL_QUERY, EVENT_TRACE_CONTROL_UPDATE, EVENT_TRACE_PROPERTIES_SIZE,
    EnableTraceParameters, EventFilterDescriptor, EventTraceProperties, INFINITE,
    WNODE_FLAG_TRACED_GUID, Win32,
};
use etwsim::{
    ControlCode, EnableNotification, EnableParams, EnableProperty, EventFilter, FilterSet,
    FilterType, Guid, Kernel, Keyword, Level, LogFileMode, NameFilter, Process, Provider, Session,
    SessionConfig, SessionUpdate, Target, TraceControl, Win32Error,
};

const INVALID: Win32Error = Win32Error::ERROR_INVALID_PARAMETER;
const BAD_LENGTH: Win32Error = Win32Error::ERROR_BAD_LENGTH;
const BAD_PATHNAME: Win32Error = Win32Error::ERROR_BAD_PATHNAME;
const EXISTS: Win32Error = Win32Error::ERROR_ALREADY_EXISTS;
const NOT_FOUND: Win32Error = Win32Error::ERROR_WMI_INSTANCE_NOT_FOUND;
const NO_RESOURCES: Win32Error = Win32Error::ERROR_NO_SYSTEM_RESOURCES;
const DENIED: Win32Error = Win32Error::ERROR_ACCESS_DENIED;
const S: u32 = EVENT_TRACE_PROPERTIES_SIZE;

// ---------------------------------------------------------------------------------------
// Part 1: the table
// ---------------------------------------------------------------------------------------

/// The world each row runs against: a real-time session "Base" enabling `guid(1)`, a stopped
/// session "Old", a session "Filer" writing "used.etl", and `guid(1)` registered in app.exe
/// with a recording callback.
struct Fx {
    k: Kernel,
    /// The API as the System process.
    w: Win32,
    /// The API as a standard user.
    user: Win32,
    app: Process,
    rec: Recorder,
    _provider: Provider,
    base: Session,
    stale: u64,
}

fn fixture() -> Fx {
    let k = kernel();
    let w = Win32::new(&k.system_process());
    let user = Win32::new(&user_process(&k, "user.exe"));
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let provider = app
        .register_provider_with_callback(guid(1), rec.callback())
        .unwrap();
    let base = k.session("Base").start().unwrap();
    base.enable(guid(1), &EnableParams::new().level(Level::INFORMATION))
        .unwrap();
    let old = k.session("Old").start().unwrap();
    let stale = old.handle().0;
    old.stop().unwrap();
    k.session("Filer").log_file("used.etl").start().unwrap();
    assert_eq!(rec.len(), 1, "the fixture's enable reached the provider");
    Fx {
        k,
        w,
        user,
        app,
        rec,
        _provider: provider,
        base,
        stale,
    }
}

impl Fx {
    fn h(&self) -> u64 {
        self.base.handle().0
    }

    fn handle_of(&self, name: &str) -> u64 {
        self.k
            .sessions()
            .into_iter()
            .find(|s| s.name == name)
            .expect("prepared session")
            .handle
            .0
    }

    /// StartTrace as System with a block that has room for 2,048-unit names, real-time
    /// unless `spoil` says otherwise.
    fn start(&self, name: &str, spoil: impl FnOnce(&mut EventTraceProperties)) -> u32 {
        self.start_as(&self.w, name, spoil)
    }

    fn start_as(
        &self,
        api: &Win32,
        name: &str,
        spoil: impl FnOnce(&mut EventTraceProperties),
    ) -> u32 {
        let mut p = roomy();
        spoil(&mut p);
        let mut h = 0;
        api.start_trace(Some(&mut h), Some(name), Some(&mut p))
    }

    /// ControlTrace as System on `handle` / `name` with a fresh sample block.
    fn control(&self, handle: u64, name: Option<&str>, code: u32) -> u32 {
        let mut p = EventTraceProperties::alloc(None);
        self.w.control_trace(handle, name, Some(&mut p), code)
    }

    /// ControlTrace(UPDATE) on Base's sibling "Filer" naming `file` as the new log file.
    fn update_file(&self, file: &str) -> u32 {
        let mut p = EventTraceProperties::alloc(Some(file));
        self.w
            .control_trace(0, Some("Filer"), Some(&mut p), EVENT_TRACE_CONTROL_UPDATE)
    }

    /// EnableTraceEx2(ENABLE, level 4) of `guid(1)` into `handle`.
    fn enable(&self, handle: u64, params: Option<&EnableTraceParameters>) -> u32 {
        self.enable_code(handle, EVENT_CONTROL_CODE_ENABLE_PROVIDER, params)
    }

    fn enable_code(&self, handle: u64, code: u32, params: Option<&EnableTraceParameters>) -> u32 {
        self.w
            .enable_trace_ex2(handle, Some(&guid(1)), code, 4, 0, 0, INFINITE, params)
    }

    /// EnableTraceEx2 into Base with these typed filters.
    fn enable_filters(&self, filters: &[EventFilter]) -> u32 {
        self.enable(
            self.h(),
            Some(&EnableTraceParameters::v2(EnableProperty::empty(), filters)),
        )
    }
}

/// A sample block with 2,048 units of name space and no log file, real-time.
fn roomy() -> EventTraceProperties {
    let mut p = EventTraceProperties {
        tail: vec![0; 2 * 2048],
        ..EventTraceProperties::default()
    };
    p.wnode.buffer_size = p.allocated_size();
    p.wnode.flags = WNODE_FLAG_TRACED_GUID;
    p.wnode.client_context = 1;
    p.logger_name_offset = S;
    p.log_file_mode = LogFileMode::REAL_TIME.bits();
    p
}

/// Puts `file` after the 2,048-unit name space.
fn with_file(p: &mut EventTraceProperties, file: &str) {
    p.log_file_name_offset = S + 2 * 2048;
    assert!(p.write_string(p.log_file_name_offset, file));
}

fn rc<T>(r: etwsim::Result<T>) -> u32 {
    match r {
        Ok(_) => 0,
        Err(e) => e.win32_code().code(),
    }
}

struct Case {
    what: &'static str,
    code: Win32Error,
    prep: fn(&Fx),
    call: fn(&Fx) -> u32,
}

fn nothing(_: &Fx) {}

/// Runs every row against its own fresh fixture.
fn run(cases: &[Case]) {
    for c in cases {
        let fx = fixture();
        (c.prep)(&fx);
        fx.rec.take();
        eprintln!("case: {}", c.what);
        assert_rejected_code(&fx.k, c.code, || (c.call)(&fx));
        assert_eq!(fx.rec.len(), 0, "{}: an enable callback ran", c.what);
    }
}

fn case(what: &'static str, code: Win32Error, call: fn(&Fx) -> u32) -> Case {
    Case {
        what,
        code,
        prep: nothing,
        call,
    }
}

/// A row whose world needs more than the fixture: `prep` runs first, then `call`.
fn prepped(what: &'static str, code: Win32Error, prep: fn(&Fx), call: fn(&Fx) -> u32) -> Case {
    Case {
        what,
        code,
        prep,
        call,
    }
}

#[test]
fn bad_session_names_and_identities_change_nothing() {
    // rule: SES-08
    // rule: SES-09
    // rule: SES-10
    // rule: SES-11
    // rule: SES-29
    run(&[
        case("empty name", INVALID, |f| f.start("", |_| {})),
        case("1,025-unit name", INVALID, |f| {
            f.start(&"n".repeat(1025), |_| {})
        }),
        case("2,047-unit name", INVALID, |f| {
            f.start(&"n".repeat(2047), |_| {})
        }),
        case("name with a NUL", INVALID, |f| f.start("a\0b", |_| {})),
        case("empty name, Rust face", INVALID, |f| {
            rc(f.k.session("").start())
        }),
        case("1,025-unit name, Rust face", INVALID, |f| {
            rc(f.k.session(&"\u{e9}".repeat(1025)).start())
        }),
        case("duplicate name", EXISTS, |f| f.start("Base", |_| {})),
        case("duplicate name, other case", EXISTS, |f| {
            f.start("bASE", |_| {})
        }),
        case("duplicate name of a file session", EXISTS, |f| {
            f.start("FILER", |p| with_file(p, "other.etl"))
        }),
        case("duplicate GUID", EXISTS, |f| {
            let g = f.base.guid();
            f.start("Other", |p| p.wnode.guid = g)
        }),
        prepped(
            "second NT Kernel Logger",
            EXISTS,
            |f| {
                f.k.session("NT Kernel Logger").start().unwrap();
            },
            |f| f.start("nt kernel logger", |_| {}),
        ),
        case("SystemTraceControlGuid with another name", INVALID, |f| {
            f.start("NotKernel", |p| p.wnode.guid = Guid::SYSTEM_TRACE_CONTROL)
        }),
        case("standard user starts a session", DENIED, |f| {
            f.start_as(&f.user, "Mine", |_| {})
        }),
    ]);
    // The boundary: 1,024 units is a valid name.
    let fx = fixture();
    assert_eq!(fx.start(&"n".repeat(1024), |_| {}), 0);
}

#[test]
fn bad_wnode_and_buffer_settings_change_nothing() {
    // rule: SES-18
    // rule: SES-20
    // rule: SES-22
    // rule: SES-57
    // rule: SES-59
    // rule: SES-60
    // rule: SES-61
    // rule: SES-64
    run(&[
        case("Wnode.BufferSize 0", BAD_LENGTH, |f| {
            f.start("X", |p| p.wnode.buffer_size = 0)
        }),
        case("Wnode.BufferSize u32::MAX", BAD_LENGTH, |f| {
            f.start("X", |p| p.wnode.buffer_size = u32::MAX)
        }),
        case("Wnode.BufferSize inside the structure", BAD_LENGTH, |f| {
            f.start("X", |p| p.wnode.buffer_size = S - 8)
        }),
        case("LoggerNameOffset 1", INVALID, |f| {
            f.start("X", |p| p.logger_name_offset = 1)
        }),
        case("LogFileNameOffset past BufferSize", INVALID, |f| {
            f.start("X", |p| p.log_file_name_offset = u32::MAX - 1)
        }),
        case("no WNODE_FLAG_TRACED_GUID", INVALID, |f| {
            f.start("X", |p| p.wnode.flags = 0)
        }),
        case("BufferSize 16,385 KB", INVALID, |f| {
            f.start("X", |p| p.buffer_size = 16385)
        }),
        case("BufferSize u32::MAX", INVALID, |f| {
            f.start("X", |p| p.buffer_size = u32::MAX)
        }),
        case("CIRCULAR without MaximumFileSize", INVALID, |f| {
            f.start("X", |p| {
                with_file(p, "c.etl");
                p.log_file_mode = LogFileMode::CIRCULAR.bits();
            })
        }),
        case("PREALLOCATE without MaximumFileSize", INVALID, |f| {
            f.start("X", |p| {
                with_file(p, "c.etl");
                p.log_file_mode = (LogFileMode::SEQUENTIAL | LogFileMode::PREALLOCATE).bits();
            })
        }),
        case("NEWFILE without MaximumFileSize", INVALID, |f| {
            f.start("X", |p| {
                with_file(p, "c%d.etl");
                p.log_file_mode = LogFileMode::NEWFILE.bits();
            })
        }),
        case(
            "MaximumFileSize 1 KB below two 64 KB buffers",
            INVALID,
            |f| {
                f.start("X", |p| {
                    with_file(p, "c.etl");
                    p.log_file_mode =
                        (LogFileMode::SEQUENTIAL | LogFileMode::USE_KBYTES_FOR_SIZE).bits();
                    p.maximum_file_size = 1;
                })
            },
        ),
        case(
            "MaximumFileSize 1 MB below two 16 MB buffers",
            INVALID,
            |f| {
                f.start("X", |p| {
                    with_file(p, "c.etl");
                    p.log_file_mode = LogFileMode::CIRCULAR.bits();
                    p.maximum_file_size = 1;
                    p.buffer_size = 16384;
                })
            },
        ),
        case("clock type 4", INVALID, |f| {
            f.start("X", |p| p.wnode.client_context = 4)
        }),
        case("clock type u32::MAX", INVALID, |f| {
            f.start("X", |p| p.wnode.client_context = u32::MAX)
        }),
    ]);
    // The same file settings with a MaximumFileSize start.
    let fx = fixture();
    let mut p = roomy();
    with_file(&mut p, "c.etl");
    p.log_file_mode = LogFileMode::CIRCULAR.bits();
    p.maximum_file_size = 1;
    let mut h = 0;
    assert_eq!(fx.w.start_trace(Some(&mut h), Some("C"), Some(&mut p)), 0);
    // Contradictory buffer counts are adjusted, not rejected: Minimum above Maximum raises
    // Maximum, huge counts hit the internal cap.
    let fx = fixture();
    let mut p = roomy();
    p.minimum_buffers = 40;
    p.maximum_buffers = 3;
    let mut h = 0;
    assert_eq!(fx.w.start_trace(Some(&mut h), Some("Adj"), Some(&mut p)), 0);
    assert_eq!((p.minimum_buffers, p.maximum_buffers), (40, 40));
    let mut p = roomy();
    p.minimum_buffers = u32::MAX;
    p.maximum_buffers = u32::MAX;
    assert_eq!(fx.w.start_trace(Some(&mut h), Some("Cap"), Some(&mut p)), 0);
    assert_eq!((p.minimum_buffers, p.maximum_buffers), (1024, 1024));
}

#[test]
fn invalid_log_file_modes_change_nothing() {
    // rule: SES-23
    // rule: SES-24
    // rule: SES-25
    // rule: SES-28
    // rule: SES-37
    // rule: SES-46
    // rule: SES-47
    // rule: SES-56
    fn mode(f: &Fx, m: LogFileMode) -> u32 {
        f.start("M", |p| {
            with_file(p, "m%d.etl");
            p.log_file_mode = m.bits();
            p.maximum_file_size = 100;
        })
    }
    use LogFileMode as M;
    run(&[
        case("SEQUENTIAL|CIRCULAR", INVALID, |f| {
            mode(f, M::SEQUENTIAL | M::CIRCULAR)
        }),
        case("SEQUENTIAL|NEWFILE", INVALID, |f| {
            mode(f, M::SEQUENTIAL | M::NEWFILE)
        }),
        case("CIRCULAR|NEWFILE", INVALID, |f| {
            mode(f, M::CIRCULAR | M::NEWFILE)
        }),
        case("CIRCULAR|APPEND", INVALID, |f| {
            mode(f, M::CIRCULAR | M::APPEND)
        }),
        case("APPEND|REAL_TIME", INVALID, |f| {
            mode(f, M::SEQUENTIAL | M::APPEND | M::REAL_TIME)
        }),
        case("PREALLOCATE|NEWFILE", INVALID, |f| {
            mode(f, M::NEWFILE | M::PREALLOCATE)
        }),
        case("BUFFERING|SEQUENTIAL", INVALID, |f| {
            mode(f, M::BUFFERING | M::SEQUENTIAL)
        }),
        case("GLOBAL|LOCAL sequence", INVALID, |f| {
            mode(
                f,
                M::SEQUENTIAL | M::USE_GLOBAL_SEQUENCE | M::USE_LOCAL_SEQUENCE,
            )
        }),
        case("PRIVATE_IN_PROC without PRIVATE_LOGGER", INVALID, |f| {
            mode(f, M::SEQUENTIAL | M::PRIVATE_IN_PROC)
        }),
        case("NONSTOPPABLE", INVALID, |f| {
            mode(f, M::SEQUENTIAL | M::NONSTOPPABLE)
        }),
        case("RELOG", INVALID, |f| mode(f, M::SEQUENTIAL | M::RELOG)),
        case("internal USE_MS_FLUSH_TIMER", INVALID, |f| {
            mode(f, M::SEQUENTIAL | M::USE_MS_FLUSH_TIMER)
        }),
        case("internal BLOCKING", INVALID, |f| {
            mode(f, M::SEQUENTIAL | M::BLOCKING)
        }),
        case("undefined bit 0x40000000", INVALID, |f| {
            mode(f, M::SEQUENTIAL | M::from_bits_retain(0x4000_0000))
        }),
        case("every bit", INVALID, |f| {
            mode(f, M::from_bits_retain(u32::MAX))
        }),
        case("mode 0 and no file", BAD_PATHNAME, |f| {
            f.start("M", |p| p.log_file_mode = 0)
        }),
        case("SEQUENTIAL and no file", BAD_PATHNAME, |f| {
            f.start("M", |p| p.log_file_mode = M::SEQUENTIAL.bits())
        }),
        case("a file another session writes", BAD_PATHNAME, |f| {
            f.start("M", |p| {
                with_file(p, "USED.ETL");
                p.log_file_mode = M::SEQUENTIAL.bits();
            })
        }),
        case(
            "a folder that does not exist",
            Win32Error::ERROR_PATH_NOT_FOUND,
            |f| {
                f.start("M", |p| {
                    with_file(p, "no-such-etwsim-dir/x.etl");
                    p.log_file_mode = M::SEQUENTIAL.bits();
                })
            },
        ),
        case("a 1,025-unit file name", BAD_PATHNAME, |f| {
            rc(f.k.session("M").log_file(&"f".repeat(1025)).start())
        }),
    ]);
    // The same helper with a valid mode starts the session.
    let fx = fixture();
    for (i, m) in [
        M::SEQUENTIAL,
        M::CIRCULAR,
        M::NEWFILE,
        M::SEQUENTIAL | M::APPEND,
        M::SEQUENTIAL | M::REAL_TIME | M::USE_GLOBAL_SEQUENCE,
    ]
    .into_iter()
    .enumerate()
    {
        assert_eq!(
            fx.start(&format!("M{i}"), |p| {
                with_file(p, &format!("m{i}_%d.etl"));
                p.log_file_mode = m.bits();
                p.maximum_file_size = 100;
            }),
            0,
            "{m:?}"
        );
    }
}

#[test]
fn unknown_control_codes_and_handles_change_nothing() {
    // rule: SES-72
    // rule: SES-73
    // rule: SES-74
    // rule: SES-75
    // rule: SES-77
    // rule: SES-81
    run(&[
        case("ControlTrace code 6", INVALID, |f| {
            f.control(f.h(), None, 6)
        }),
        case("ControlTrace code 99", INVALID, |f| {
            f.control(f.h(), None, 99)
        }),
        case("ControlTrace code u32::MAX", INVALID, |f| {
            f.control(f.h(), None, u32::MAX)
        }),
        case("ControlTrace code 6 by name", INVALID, |f| {
            f.control(0, Some("Base"), 6)
        }),
        case("handle 0, no name", INVALID, |f| {
            f.control(0, None, EVENT_TRACE_CONTROL_QUERY)
        }),
        case("a handle never issued", INVALID, |f| {
            f.control(0xffff_ffff_0000_0002, None, EVENT_TRACE_CONTROL_QUERY)
        }),
        case("u64::MAX handle", INVALID, |f| {
            f.control(u64::MAX, None, EVENT_TRACE_CONTROL_QUERY)
        }),
        case("stale handle QUERY", NOT_FOUND, |f| {
            f.control(f.stale, None, EVENT_TRACE_CONTROL_QUERY)
        }),
        case("stale handle STOP", NOT_FOUND, |f| {
            f.control(f.stale, None, 1)
        }),
        case("name not running", NOT_FOUND, |f| {
            f.control(f.h(), Some("Nope"), EVENT_TRACE_CONTROL_QUERY)
        }),
        case("stopped session's name", NOT_FOUND, |f| {
            f.control(0, Some("Old"), 1)
        }),
        case("empty name", NOT_FOUND, |f| {
            f.control(0, Some(""), EVENT_TRACE_CONTROL_QUERY)
        }),
        case("NULL properties", INVALID, |f| {
            f.w.control_trace(f.h(), None, None, 1)
        }),
        case("UPDATE to the current file", INVALID, |f| {
            f.update_file("used.etl")
        }),
        case("UPDATE with SEQUENTIAL|CIRCULAR", INVALID, |f| {
            let mut p = EventTraceProperties::alloc(None);
            p.log_file_mode = (LogFileMode::SEQUENTIAL | LogFileMode::CIRCULAR).bits();
            f.w.control_trace(f.h(), None, Some(&mut p), EVENT_TRACE_CONTROL_UPDATE)
        }),
        prepped(
            "UPDATE to another session's file",
            BAD_PATHNAME,
            |f| {
                f.k.session("Second")
                    .log_file("second.etl")
                    .start()
                    .unwrap();
            },
            |f| f.update_file("Second.etl"),
        ),
        case("INCREMENT_FILE on a non-NEWFILE session", INVALID, |f| {
            f.control(0, Some("Filer"), EVENT_TRACE_CONTROL_INCREMENT_FILE)
        }),
        case("CONVERT_TO_REALTIME on a real-time session", INVALID, |f| {
            f.control(f.h(), None, EVENT_TRACE_CONTROL_CONVERT_TO_REALTIME)
        }),
        case("standard user stops a session", DENIED, |f| {
            let mut p = EventTraceProperties::alloc(None);
            f.user.control_trace(f.h(), None, Some(&mut p), 1)
        }),
    ]);
}

#[test]
fn bad_enable_calls_change_nothing() {
    // rule: PRV-17
    // rule: PRV-19
    // rule: PRV-20
    // rule: PRV-28
    // rule: PRV-36
    // rule: FLT-10
    // rule: FLT-13
    run(&[
        case("EnableTraceEx2 code 3", INVALID, |f| {
            f.enable_code(f.h(), 3, None)
        }),
        case("EnableTraceEx2 code 99", INVALID, |f| {
            f.enable_code(f.h(), 99, None)
        }),
        case("EnableTraceEx2 code u32::MAX", INVALID, |f| {
            f.enable_code(f.h(), u32::MAX, None)
        }),
        case("handle 0", INVALID, |f| f.enable(0, None)),
        case("handle 0 DISABLE", INVALID, |f| {
            f.enable_code(0, EVENT_CONTROL_CODE_DISABLE_PROVIDER, None)
        }),
        case("a handle never issued", INVALID, |f| {
            f.enable(0x1234_5678_0000, None)
        }),
        case("stale handle", NOT_FOUND, |f| f.enable(f.stale, None)),
        case("stale handle CAPTURE_STATE", NOT_FOUND, |f| {
            f.enable_code(f.stale, EVENT_CONTROL_CODE_CAPTURE_STATE, None)
        }),
        case("NULL ProviderId", INVALID, |f| {
            f.w.enable_trace_ex2(f.h(), None, 1, 4, 0, 0, 0, None)
        }),
        case("GUID_NULL ProviderId", INVALID, |f| {
            f.w.enable_trace_ex2(f.h(), Some(&Guid::NULL), 1, 4, 0, 0, 0, None)
        }),
        case("SystemTraceControlGuid ENABLE", INVALID, |f| {
            f.w.enable_trace_ex2(
                f.h(),
                Some(&Guid::SYSTEM_TRACE_CONTROL),
                1,
                4,
                0,
                0,
                0,
                None,
            )
        }),
        case("version 0 parameters", INVALID, |f| {
            let mut p = EnableTraceParameters::v2(EnableProperty::empty(), &[]);
            p.version = 0;
            f.enable(f.h(), Some(&p))
        }),
        case("ControlFlags 1", INVALID, |f| {
            let mut p = EnableTraceParameters::v2(EnableProperty::empty(), &[]);
            p.control_flags = 1;
            f.enable(f.h(), Some(&p))
        }),
        case("undefined EnableProperty bit", INVALID, |f| {
            let mut p = EnableTraceParameters::v2(EnableProperty::empty(), &[]);
            p.enable_property = 0x0001_0000;
            f.enable(f.h(), Some(&p))
        }),
        case("PROVIDER_GROUP with an event-ID filter", INVALID, |f| {
            let ids = EventFilter::EventId {
                filter_in: true,
                ids: vec![1],
            };
            let p = EnableTraceParameters::v2(EnableProperty::PROVIDER_GROUP, &[ids]);
            f.enable(f.h(), Some(&p))
        }),
        case("standard user enables", DENIED, |f| {
            f.user
                .enable_trace_ex2(f.h(), Some(&guid(1)), 1, 4, 0, 0, 0, None)
        }),
    ]);
}

fn ids(n: u16) -> Vec<u16> {
    (1..=n).collect()
}

fn names(count: usize, len: usize) -> NameFilter {
    NameFilter {
        match_any: Keyword(0),
        match_all: Keyword(0),
        level: Level(0),
        filter_in: true,
        names: (0..count).map(|i| format!("{i:0len$}")).collect(),
    }
}

fn schematized(len: usize) -> EventFilter {
    EventFilter::Schematized(vec![0; len])
}

#[test]
fn too_many_or_oversize_filters_change_nothing() {
    // rule: FLT-13
    // rule: FLT-15
    // rule: FLT-16
    // rule: FLT-17
    // rule: FLT-18
    // rule: FLT-19
    // rule: FLT-21
    // rule: FLT-22
    // rule: FLT-24
    // rule: FLT-25
    run(&[
        case("14 descriptors", INVALID, |f| {
            let mut p = EnableTraceParameters::v2(EnableProperty::empty(), &[]);
            p.enable_filter_desc = Some(vec![
                EventFilterDescriptor::from_filter(&EventFilter::Pid(
                    vec![4]
                ));
                14
            ]);
            p.filter_desc_count = 14;
            f.enable(f.h(), Some(&p))
        }),
        case("two EXECUTABLE_NAME filters", INVALID, |f| {
            f.enable_filters(&[
                EventFilter::ExecutableName("a.exe".into()),
                EventFilter::ExecutableName("b.exe".into()),
            ])
        }),
        case("9 PIDs", INVALID, |f| {
            f.enable_filters(&[EventFilter::Pid((1..=9).map(|i| i * 4).collect())])
        }),
        case("0 PIDs", INVALID, |f| {
            f.enable_filters(&[EventFilter::Pid(vec![])])
        }),
        case("1,025-byte schematized filter", INVALID, |f| {
            f.enable_filters(&[schematized(1025)])
        }),
        case("schematized filter shorter than its header", INVALID, |f| {
            f.enable_filters(&[schematized(23)])
        }),
        case("executable names over 1,024 bytes", INVALID, |f| {
            f.enable_filters(&[EventFilter::ExecutableName("x".repeat(512))])
        }),
        case("empty executable name list", INVALID, |f| {
            f.enable_filters(&[EventFilter::ExecutableName(" ; ;".into())])
        }),
        case("package ids over 1,024 bytes", INVALID, |f| {
            f.enable_filters(&[EventFilter::PackageId("p".repeat(600))])
        }),
        case("4,097-byte payload filter", INVALID, |f| {
            f.enable_filters(&[EventFilter::Payload(vec![1; 4097])])
        }),
        case("empty payload filter", INVALID, |f| {
            f.enable_filters(&[EventFilter::Payload(vec![])])
        }),
        case("65 event ids", INVALID, |f| {
            f.enable_filters(&[EventFilter::EventId {
                filter_in: true,
                ids: ids(65),
            }])
        }),
        case("0 event ids", INVALID, |f| {
            f.enable_filters(&[EventFilter::EventId {
                filter_in: false,
                ids: vec![],
            }])
        }),
        case("65 stackwalk ids", INVALID, |f| {
            f.enable_filters(&[EventFilter::Stackwalk {
                filter_in: true,
                ids: ids(65),
            }])
        }),
        case("event names over 4,096 bytes", INVALID, |f| {
            f.enable_filters(&[EventFilter::EventName(names(64, 64))])
        }),
        case("event-name filter without names", INVALID, |f| {
            f.enable_filters(&[EventFilter::EventName(names(0, 1))])
        }),
        case("TRACEHANDLE filter with ENABLE", INVALID, |f| {
            f.enable_filters(&[EventFilter::TraceHandle(f.h())])
        }),
        case(
            "event-id descriptor whose Count exceeds its Size",
            INVALID,
            |f| {
                let mut d = EventFilterDescriptor::from_filter(&EventFilter::EventId {
                    filter_in: true,
                    ids: ids(4),
                });
                d.size -= 2;
                let mut p = EnableTraceParameters::v2(EnableProperty::empty(), &[]);
                p.enable_filter_desc = Some(vec![d]);
                p.filter_desc_count = 1;
                f.enable(f.h(), Some(&p))
            },
        ),
        prepped(
            "EVENT_ID filter on a private session",
            INVALID,
            |f| {
                f.k.session("Priv")
                    .mode(LogFileMode::PRIVATE_LOGGER | LogFileMode::BUFFERING)
                    .guid(guid(1))
                    .caller(&f.app)
                    .start()
                    .unwrap();
            },
            |f| {
                rc(f.k.enable_trace_ex2(
                    &f.app,
                    Target::Name("Priv"),
                    guid(1),
                    ControlCode::EnableProvider,
                    &EnableParams::new().filter(EventFilter::EventId {
                        filter_in: true,
                        ids: vec![1],
                    }),
                ))
            },
        ),
    ]);
    // The boundaries are fine: 8 PIDs, 1,024 bytes of schematized data or executable names,
    // 4,096 bytes of payload or event names, 64 event ids, several types together.
    let fx = fixture();
    let ok: Vec<EventFilter> = vec![
        EventFilter::Pid((1..=8).map(|i| i * 4).collect()),
        schematized(1024),
        EventFilter::ExecutableName("x".repeat(511)),
        payload_filter_of_size(guid(1), 4096),
        EventFilter::EventId {
            filter_in: true,
            ids: ids(64),
        },
        EventFilter::EventName(names(62, 64)),
    ];
    for f in &ok {
        assert_eq!(fx.enable_filters(std::slice::from_ref(f)), 0, "{f:?}");
    }
    assert_eq!(fx.enable_filters(&ok), 0);
    assert_eq!(fx.k.enable_slots(guid(1))[0].unwrap().1.level, Level(4));
}

#[test]
fn limits_reached_change_nothing() {
    // rule: SES-02
    // rule: SES-05
    // rule: SES-06
    // rule: SES-07
    // rule: PRV-21
    run(&[
        prepped(
            "9th session on one provider",
            NO_RESOURCES,
            |f| {
                for i in 0..7 {
                    let s = f.k.session(&format!("E{i}")).start().unwrap();
                    s.enable(guid(1), &EnableParams::new()).unwrap();
                }
                f.k.session("Ninth").start().unwrap();
                assert_eq!(f.k.enable_slots(guid(1)).iter().flatten().count(), 8);
            },
            |f| f.enable(f.handle_of("Ninth"), None),
        ),
        prepped(
            "65th logger",
            NO_RESOURCES,
            |f| {
                while f.k.sessions().len() < 64 {
                    let n = f.k.sessions().len();
                    f.k.session(&format!("L{n}")).start().unwrap();
                }
            },
            |f| f.start("Sixty-fifth", |_| {}),
        ),
        prepped(
            "7th system logger besides the two reserved ones",
            NO_RESOURCES,
            |f| {
                for i in 0..6 {
                    f.k.session(&format!("Sys{i}"))
                        .mode(LogFileMode::REAL_TIME | LogFileMode::SYSTEM_LOGGER)
                        .start()
                        .unwrap();
                }
            },
            |f| {
                f.start("Sys6", |p| {
                    p.log_file_mode |= LogFileMode::SYSTEM_LOGGER.bits()
                })
            },
        ),
        prepped(
            "9th private session in one process",
            NO_RESOURCES,
            |f| {
                for i in 0..8 {
                    f.k.session(&format!("P{i}"))
                        .mode(LogFileMode::PRIVATE_LOGGER | LogFileMode::BUFFERING)
                        .guid(guid(100 + i))
                        .caller(&f.app)
                        .start()
                        .unwrap();
                }
            },
            |f| {
                rc(f.k
                    .session("P8")
                    .mode(LogFileMode::PRIVATE_LOGGER | LogFileMode::BUFFERING)
                    .guid(guid(108))
                    .caller(&f.app)
                    .start())
            },
        ),
    ]);
}

// ---------------------------------------------------------------------------------------
// Part 2: deterministic random robustness
// ---------------------------------------------------------------------------------------

/// Random LogFileMode: a few documented bits together, or anything.
fn random_mode(r: &mut Rng) -> u32 {
    match r.below(10) {
        0 => r.next() as u32,
        1 => 0,
        2 | 3 => LogFileMode::REAL_TIME.bits(),
        _ => {
            let mut m = 0u32;
            for _ in 0..r.below(4) {
                m |= 1 << r.below(32);
            }
            m | r.pick(&[0, 0x1, 0x100, 0x400, 0x2])
        }
    }
}

fn random_props(r: &mut Rng) -> EventTraceProperties {
    let tail_len = if r.chance(80) {
        r.below(80)
    } else {
        r.pick(&[0, 1, 2100, 4100])
    };
    let mut p = EventTraceProperties {
        tail: (0..tail_len)
            .map(|_| match r.below(20) {
                0 => r.next() as u16,
                1..=3 => 0,
                4 => u16::from(b'\\'),
                5 => u16::from(b'%'),
                6 => u16::from(b'd'),
                _ => u16::from(r.pick(b"ab.e")),
            })
            .collect(),
        ..EventTraceProperties::default()
    };
    p.wnode.buffer_size = if r.chance(75) {
        p.allocated_size()
    } else {
        r.u32()
    };
    p.wnode.flags = if r.chance(85) {
        WNODE_FLAG_TRACED_GUID
    } else {
        r.u32()
    };
    p.wnode.client_context = if r.chance(60) { 1 } else { r.u32() };
    p.wnode.guid = match r.below(10) {
        0 => Guid::SYSTEM_TRACE_CONTROL,
        1 => Guid::GLOBAL_LOGGER,
        2 => guid(r.below(4) as u32),
        3 => Guid::from_u128(u128::from(r.next()) << 64 | u128::from(r.next())),
        _ => Guid::NULL,
    };
    p.buffer_size = if r.chance(50) { 0 } else { r.u32() };
    p.minimum_buffers = if r.chance(50) { 0 } else { r.u32() };
    p.maximum_buffers = if r.chance(50) { 0 } else { r.u32() };
    p.maximum_file_size = if r.chance(50) { 0 } else { r.u32() };
    p.log_file_mode = random_mode(r);
    p.flush_timer = r.u32();
    p.enable_flags = r.u32();
    p.age_limit = r.next() as i32;
    let space = 2 * tail_len as u32;
    p.logger_name_offset = match r.below(10) {
        0..=5 => S,
        6 => 0,
        7 => S + 2 * r.below(tail_len.max(1)) as u32,
        _ => r.u32(),
    };
    p.log_file_name_offset = match r.below(10) {
        0..=4 => 0,
        5..=7 => (S + space / 2) & !1,
        8 => S + 2 * r.below(tail_len.max(1)) as u32,
        _ => r.u32(),
    };
    p
}

fn random_descriptor(r: &mut Rng) -> EventFilterDescriptor {
    let known = FilterType::ALL;
    let filter_type = if r.chance(90) {
        r.pick(&known).0
    } else {
        r.u32()
    };
    let ptr = if r.chance(90) { Some(r.bytes()) } else { None };
    let len = ptr.as_ref().map_or(0, Vec::len) as u32;
    let size = if r.chance(80) { len } else { r.u32() };
    EventFilterDescriptor {
        ptr,
        size,
        filter_type,
    }
}

fn random_params(r: &mut Rng) -> EnableTraceParameters {
    let descs: Vec<EventFilterDescriptor> = (0..r.pick(&[0, 0, 1, 1, 2, 3, 14]))
        .map(|_| random_descriptor(r))
        .collect();
    EnableTraceParameters {
        version: if r.chance(80) {
            ENABLE_TRACE_PARAMETERS_VERSION_2
        } else {
            r.u32()
        },
        enable_property: match r.below(4) {
            0 => r.u32(),
            1 => 1 << r.below(12),
            _ => 0,
        },
        control_flags: if r.chance(90) { 0 } else { r.u32() },
        source_id: guid(9),
        filter_desc_count: if r.chance(80) {
            descs.len() as u32
        } else {
            r.u32()
        },
        enable_filter_desc: if descs.is_empty() && r.chance(50) {
            None
        } else {
            Some(descs)
        },
    }
}

fn pick_handle(r: &mut Rng, handles: &[u64]) -> u64 {
    match r.below(10) {
        0 => 0,
        1 => r.next(),
        2 => u64::MAX,
        _ if handles.is_empty() => r.next() & 0xffff,
        _ => r.pick(handles),
    }
}

fn pick_guid(r: &mut Rng) -> Guid {
    match r.below(8) {
        0 => Guid::NULL,
        1 => Guid::SYSTEM_TRACE_CONTROL,
        _ => guid(r.below(4) as u32),
    }
}

#[test]
fn random_raw_input_never_panics_and_failures_change_nothing() {
    let k = kernel();
    let system = Win32::new(&k.system_process());
    let user = Win32::new(&user_process(&k, "user.exe"));
    let gone = admin_process(&k, "gone.exe");
    let gone_api = Win32::new(&gone);
    gone.exit();
    let app = admin_process(&k, "app.exe");
    let app_api = Win32::new(&app);
    let rec = Recorder::new();
    let _p1 = app
        .register_provider_with_callback(guid(1), rec.callback())
        .unwrap();
    let _p2 = user_process(&k, "other.exe")
        .register_provider(guid(2))
        .unwrap();
    let mut reg = 0;
    assert_eq!(
        app_api.event_register(Some(&guid(3)), None, 0, Some(&mut reg)),
        0
    );

    let mut r = Rng(0x9e37_79b9_7f4a_7c15);
    let mut handles: Vec<u64> = Vec::new();
    // (calls, successes) per operation, so the test can show it reached both outcomes.
    let mut stats = [(0u32, 0u32); 6];
    for i in 0..6000 {
        let api = match r.below(10) {
            0 => &user,
            1 => &gone_api,
            2 | 3 => &app_api,
            _ => &system,
        };
        let before = k.snapshot();
        let callbacks = rec.len();
        let op = r.below(12);
        let ret = match op {
            0..=2 => {
                let mut p = random_props(&mut r);
                let name = r.name();
                let mut h = 0u64;
                let ret = api.start_trace(
                    (!r.chance(3)).then_some(&mut h),
                    (!r.chance(3)).then_some(name.as_str()),
                    (!r.chance(3)).then_some(&mut p),
                );
                if ret == 0 {
                    assert_ne!(h, 0, "iteration {i}: success without a handle");
                    assert_eq!(p.wnode.historical_context, h);
                    handles.push(h);
                }
                ret
            }
            3..=5 => {
                let mut p = if r.chance(50) {
                    EventTraceProperties::alloc(None)
                } else {
                    random_props(&mut r)
                };
                let name = r.name();
                let code = if r.chance(80) {
                    r.below(6) as u32
                } else {
                    r.u32()
                };
                let h = pick_handle(&mut r, &handles);
                api.control_trace(
                    h,
                    r.chance(30).then_some(name.as_str()),
                    (!r.chance(3)).then_some(&mut p),
                    code,
                )
            }
            6..=8 => {
                let params = r.chance(70).then(|| random_params(&mut r));
                let g = pick_guid(&mut r);
                let code = if r.chance(85) {
                    r.below(3) as u32
                } else {
                    r.u32()
                };
                let h = pick_handle(&mut r, &handles);
                let level = r.next() as u8;
                let (any, all) = (
                    if r.chance(50) { 0 } else { r.next() },
                    if r.chance(70) { 0 } else { r.next() },
                );
                api.enable_trace_ex2(
                    h,
                    (!r.chance(3)).then_some(&g),
                    code,
                    level,
                    any,
                    all,
                    r.u32(),
                    params.as_ref(),
                )
            }
            9 => {
                let d = random_descriptor(&mut r);
                let ty = FilterType(d.filter_type);
                let data = d.ptr.unwrap_or_default();
                // The callback-side walker must cope with any bytes too.
                let n = EnableNotification {
                    source_id: Guid::NULL,
                    is_enabled: ControlCode::EnableProvider,
                    level: Level(0),
                    match_any_keyword: Keyword(0),
                    match_all_keyword: Keyword(0),
                    filter_data: Some(data.clone()),
                };
                let _ = n.schematized_filters();
                match EventFilter::parse(ty, &data) {
                    Ok(f) => {
                        // What parse accepts, to_bytes writes back in a form parse reads
                        // to the same filter.
                        assert_eq!(f.filter_type(), ty);
                        assert_eq!(EventFilter::parse(ty, &f.to_bytes()).as_ref(), Ok(&f));
                        let _ = FilterSet::new(std::slice::from_ref(&f));
                        0
                    }
                    Err(e) => {
                        assert_eq!(e.win32_code(), INVALID, "{ty:?}: {e}");
                        e.win32_code().code()
                    }
                }
            }
            10 => {
                // The Rust face takes what the C shape cannot carry: NULs inside strings.
                let p = random_props(&mut r);
                let config = SessionConfig {
                    name: r.name(),
                    guid: p.wnode.guid,
                    clock: p.wnode.client_context,
                    mode: LogFileMode::from_bits_retain(p.log_file_mode),
                    log_file: r.chance(50).then(|| r.name() + ".etl"),
                    buffer_size_kb: p.buffer_size,
                    minimum_buffers: p.minimum_buffers,
                    maximum_buffers: p.maximum_buffers,
                    maximum_file_size: p.maximum_file_size,
                    flush_timer: p.flush_timer,
                    enable_flags: p.enable_flags,
                };
                match k.start_trace(api.process(), &config) {
                    Ok(s) => {
                        handles.push(s.handle().0);
                        0
                    }
                    Err(e) => e.win32_code().code(),
                }
            }
            _ => {
                let update = SessionUpdate {
                    flush_timer: r.u32(),
                    maximum_buffers: r.u32(),
                    log_file: r.chance(50).then(|| r.name() + ".etl"),
                    real_time: r.pick(&[None, Some(true), Some(false)]),
                    enable_flags: r.chance(50).then(|| r.u32()),
                };
                let h = pick_handle(&mut r, &handles);
                let code = TraceControl::from_raw(r.below(6) as u32).expect("0..=5");
                rc(k.control_trace(
                    api.process(),
                    Target::Handle(etwsim::TraceHandle(h)),
                    code,
                    Some(&update),
                ))
            }
        };
        let slot = match op {
            0..=2 => 0,
            3..=5 => 1,
            6..=8 => 2,
            9 => 3,
            10 => 4,
            _ => 5,
        };
        stats[slot].0 += 1;
        if ret == 0 {
            stats[slot].1 += 1;
        } else if ret != Win32Error::ERROR_MORE_DATA.code() {
            // ERROR_MORE_DATA is informational: the operation (a STOP, say) was done.
            assert_eq!(
                k.snapshot(),
                before,
                "iteration {i}: a call that failed with {} changed the kernel",
                Win32Error(ret)
            );
            assert_eq!(rec.len(), callbacks, "iteration {i}: callback on failure");
        }
    }
    eprintln!("(calls, successes) per operation: {stats:?}");
    let names = [
        "start",
        "control",
        "enable",
        "parse",
        "Rust start",
        "Rust control",
    ];
    for (what, (calls, ok)) in names.iter().zip(stats) {
        assert!(ok >= 10, "{what}: only {ok} of {calls} calls succeeded");
        assert!(calls - ok >= 100, "{what}: only {} failures", calls - ok);
    }
}

/// Huge MinimumBuffers / MaximumBuffers are lowered to the internal caps — the buffer-count
/// cap and the per-session memory cap — without overflowing "minimum + 20" (found by the random
/// test above, which once panicked in debug builds); a count cap beyond what the per-CPU slots
/// can index is refused when the kernel is built.
#[test]
fn huge_buffer_counts_are_lowered_to_the_internal_caps() {
    // rule: SES-59
    // rule: SES-60
    assert!(Kernel::builder().max_buffers_cap(u32::MAX).build().is_err());
    let k = Kernel::builder()
        .cpus(4)
        .deterministic(42)
        .max_buffers_cap(etwsim::MAX_BUFFERS_CAP)
        .max_session_buffer_bytes(1024 * 1024)
        .build()
        .unwrap();
    let s = k
        .session("Huge")
        .buffer_size_kb(4)
        .minimum_buffers(u32::MAX)
        .start()
        .unwrap();
    let q = s.query().unwrap();
    assert_eq!((q.minimum_buffers, q.maximum_buffers), (256, 256));
    assert_eq!(
        q.number_of_buffers, 256,
        "the adjusted minimum is allocated"
    );
    let s = k
        .session("Big")
        .buffer_size_kb(4)
        .minimum_buffers(u32::MAX - 30)
        .maximum_buffers(u32::MAX)
        .start()
        .unwrap();
    assert_eq!(s.query().unwrap().maximum_buffers, 256);
}

/// A machine-wide limit on buffer memory (issue 33: five sessions of 1024 × 1 MB buffers must
/// not exhaust the host): a new session's MaximumBuffers is lowered to what the running
/// sessions leave, StartTrace fails with ERROR_NO_SYSTEM_RESOURCES when its MinimumBuffers do
/// not fit (and changes nothing), stopping a session gives its memory back, and UPDATE raises
/// MaximumBuffers only as far as what is left.
#[test]
fn the_machine_buffer_memory_limit_bounds_every_session_together() {
    // rule: SES-59
    // rule: SES-60
    const KB64: u64 = 64 * 1024;
    let k = Kernel::builder()
        .cpus(4)
        .deterministic(7)
        .max_machine_buffer_bytes(40 * KB64)
        .build()
        .unwrap();
    // 8 buffers (2 per CPU) at least; the default maximum (8 + 20) is lowered to 28 of the 40.
    let first = k.session("First").buffer_size_kb(64).start().unwrap();
    assert_eq!(first.query().unwrap().maximum_buffers, 28);
    // 12 buffers are left: a second session of 8 fits, and may grow to 12.
    let second = k.session("Second").buffer_size_kb(64).start().unwrap();
    let q = second.query().unwrap();
    assert_eq!((q.minimum_buffers, q.maximum_buffers), (8, 12));
    // Nothing is left: a third is refused, and the table does not change.
    let before = k.sessions().len();
    let err = k.session("Third").buffer_size_kb(64).start().unwrap_err();
    assert_eq!(err.win32_code(), Win32Error::ERROR_NO_SYSTEM_RESOURCES);
    assert!(err.to_string().contains("machine's buffer memory"), "{err}");
    assert_eq!(k.sessions().len(), before);
    // UPDATE cannot take more than is left; once the first stops, it can.
    let grown = second
        .update(&SessionUpdate {
            maximum_buffers: 1000,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(grown.maximum_buffers, 12);
    first.stop().unwrap();
    let grown = second
        .update(&SessionUpdate {
            maximum_buffers: 1000,
            ..Default::default()
        })
        .unwrap();
    assert_eq!(grown.maximum_buffers, 40);
    // The limit is checked when the kernel is built.
    assert!(
        Kernel::builder()
            .max_machine_buffer_bytes(4096)
            .build()
            .is_err()
    );
}
