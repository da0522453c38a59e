//! Behaviour tests of providers (rules PRV-01 … PRV-36): registration, the enable callback,
//! EnableTraceEx2 on the controller side, enabled checks, TraceLogging traits and
//! EventSetInformation, and the refusal of provider groups.

use crate::common;
use common::*;
use etwsim::win32::{
    ENABLE_TRACE_PARAMETERS_VERSION_2, EVENT_CONTROL_CODE_CAPTURE_STATE,
    EVENT_CONTROL_CODE_DISABLE_PROVIDER, EVENT_CONTROL_CODE_ENABLE_PROVIDER, EnableTraceParameters,
    EventFilterDescriptor, INFINITE, Win32,
};
use etwsim::{
    ClassicNotification, ControlCode, ENABLE_SLOTS, EnableNotification, EnableParams,
    EnableProperty, EventDescriptor, EventFilter, EventInfoClass, EventView, FilterType, Groups,
    Guid, KERNEL_LOGGER_NAME, Kernel, Keyword, Level, MAX_REGISTRATIONS_PER_PROCESS,
    ProviderTraits, Session, TRACE_PROVIDER_FLAG_LEGACY, TRACE_PROVIDER_FLAG_PRE_ENABLE,
    TRAIT_TYPE_DECODE_GUID, TRAIT_TYPE_GROUP, Target, Token, TraceHandle, WMI_CAPTURE_STATE,
    WMI_DISABLE_EVENTS, WMI_ENABLE_EVENTS, Win32Error,
};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// Records what a classic provider's control callback receives.
#[derive(Clone, Default)]
struct ClassicRecorder(Arc<Mutex<Vec<ClassicNotification>>>);

impl ClassicRecorder {
    fn callback(&self) -> impl Fn(&ClassicNotification) + Send + Sync + 'static {
        let log = self.0.clone();
        move |n: &ClassicNotification| log.lock().unwrap().push(n.clone())
    }
    fn take(&self) -> Vec<ClassicNotification> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

/// One call of a raw `PENABLECALLBACK` given to the win32 face:
/// (context, SourceId, IsEnabled, Level, MatchAny, MatchAll, FilterData (Size, Type)).
type RawCall = (usize, Guid, u32, u8, u64, u64, Option<(u32, u32)>);

static RAW_CALLS: Mutex<Vec<RawCall>> = Mutex::new(Vec::new());

fn raw_callback(
    source_id: &Guid,
    is_enabled: u32,
    level: u8,
    any: u64,
    all: u64,
    filter: Option<&EventFilterDescriptor>,
    context: usize,
) {
    RAW_CALLS.lock().unwrap().push((
        context,
        *source_id,
        is_enabled,
        level,
        any,
        all,
        filter.map(|f| (f.size, f.filter_type)),
    ));
}

/// The raw callbacks delivered with `context` (each test uses its own context value).
fn raw_calls(context: usize) -> Vec<RawCall> {
    RAW_CALLS
        .lock()
        .unwrap()
        .iter()
        .filter(|c| c.0 == context)
        .cloned()
        .collect()
}

/// A schematized filter: an `EVENT_FILTER_HEADER` {Id, Version 1, Reserved, InstanceId 0,
/// Size, NextOffset 0} followed by `payload`.
fn schematized(id: u16, payload: &[u8]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend_from_slice(&id.to_le_bytes());
    b.push(1);
    b.extend_from_slice(&[0; 5]);
    b.extend_from_slice(&0u64.to_le_bytes());
    b.extend_from_slice(&((24 + payload.len()) as u32).to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(payload);
    b
}

fn desc(level: u8, keyword: u64) -> EventDescriptor {
    EventDescriptor::new(1, Level(level), Keyword(keyword))
}

fn start(k: &Kernel, name: &str) -> Session {
    k.session(name).start().expect("start session")
}

fn slot_of(k: &Kernel, g: Guid, s: &Session) -> usize {
    k.enable_slots(g)
        .iter()
        .position(|e| e.is_some_and(|(h, _)| h == s.handle()))
        .expect("the session holds a slot")
}

fn used_slots(k: &Kernel, g: Guid) -> usize {
    k.enable_slots(g).iter().flatten().count()
}

// ---------------------------------------------------------------------------------------------
// 2.1 Registration
// ---------------------------------------------------------------------------------------------

// rule: PRV-01
#[test]
fn registration_gives_a_process_local_nonzero_handle_for_its_guid() {
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let other = user_process(&k, "other.exe");
    let a = app.register_provider(guid(1)).unwrap();
    let b = app.register_provider(guid(2)).unwrap();
    let c = other.register_provider(guid(1)).unwrap();
    let handles = [a.reg_handle(), b.reg_handle(), c.reg_handle()];
    assert!(handles.iter().all(|&h| h != 0));
    assert!(handles[0] != handles[1] && handles[1] != handles[2] && handles[0] != handles[2]);
    assert_eq!((a.guid(), a.pid()), (guid(1), app.pid()));
    assert_eq!((b.guid(), b.pid()), (guid(2), app.pid()));
    assert_eq!((c.guid(), c.pid()), (guid(1), other.pid()));
    assert!(a.is_registered() && b.is_registered() && c.is_registered());
    // No manifest is needed: any GUID registers and shows up in enumeration.
    let pids: Vec<u32> = k
        .trace_guid_info(guid(1))
        .unwrap()
        .instances
        .iter()
        .map(|i| i.pid)
        .collect();
    assert_eq!(pids, vec![app.pid(), other.pid()]);
    assert!(k.provider_guids().contains(&guid(2)));

    // The win32 face: the REGHANDLE is an entry of the registering process's table only.
    let w = Win32::new(&app);
    let mut h = 0;
    assert_eq!(w.event_register(Some(&guid(3)), None, 0, Some(&mut h)), 0);
    assert_ne!(h, 0);
    assert_eq!(
        w.with_provider(h, |p| (p.guid(), p.pid())),
        Some((guid(3), app.pid()))
    );
    let w_other = Win32::new(&other);
    assert_eq!(w_other.with_provider(h, |p| p.guid()), None);
    assert_rejected_code(&k, Win32Error::ERROR_INVALID_HANDLE, || {
        w_other.event_unregister(h)
    });
}

// rule: PRV-02
#[test]
fn register_with_null_provider_id_or_null_handle_pointer_is_invalid_parameter() {
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let w = Win32::new(&app);
    let mut h = 0x1234;
    assert_rejected_code(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        w.event_register(None, None, 0, Some(&mut h))
    });
    assert_rejected_code(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        w.event_register(Some(&guid(1)), None, 0, None)
    });
    assert_rejected_code(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        w.event_register(Some(&guid(1)), Some(raw_callback), 7, None)
    });
    assert_rejected_code(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        w.event_register(Some(&Guid::NULL), None, 0, Some(&mut h))
    });
    let rec = Recorder::new();
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        app.register_provider(Guid::NULL)
    });
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        app.register_provider_with_callback(Guid::NULL, rec.callback())
    });
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        app.register_trace_guids(Guid::NULL, |_: &ClassicNotification| {})
    });
    assert!(k.trace_guid_info(Guid::NULL).is_none());
    assert_eq!(rec.len(), 0);
}

// rule: PRV-03
#[test]
fn a_failed_register_zeroes_the_handle_and_handle_zero_is_harmless() {
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let w = Win32::new(&app);
    let mut h = 0xdead_beef;
    assert_rejected_code(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        w.event_register(None, None, 0, Some(&mut h))
    });
    assert_eq!(h, 0, "EventRegister sets RegHandle to 0 on failure");
    let mut h = 0xdead_beef;
    assert_rejected_code(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        w.event_register(Some(&Guid::NULL), None, 0, Some(&mut h))
    });
    assert_eq!(h, 0);

    // A session takes everything from guid(1); handle 0 still says "not enabled".
    let s = start(&k, "s");
    s.enable(guid(1), &EnableParams::new()).unwrap();
    let mut good = 0;
    assert_eq!(
        w.event_register(Some(&guid(1)), None, 0, Some(&mut good)),
        0
    );
    assert!(w.event_enabled(good, &desc(4, 0x1)));
    assert!(!w.event_enabled(0, &desc(4, 0x1)));
    assert!(!w.event_provider_enabled(0, 4, 0x1));
    assert_rejected_code(&k, Win32Error::ERROR_INVALID_HANDLE, || {
        w.event_unregister(0)
    });

    // An unregistered handle behaves like 0.
    assert_eq!(w.event_unregister(good), 0);
    assert_rejected_code(&k, Win32Error::ERROR_INVALID_HANDLE, || {
        w.event_unregister(good)
    });
    assert!(!w.event_enabled(good, &desc(4, 0x1)));

    // The Rust face: a registration that the process's exit already undid.
    let p = app.register_provider(guid(2)).unwrap();
    app.exit();
    assert!(!p.is_registered());
    assert_rejected(&k, Win32Error::ERROR_INVALID_HANDLE, || p.unregister());
}

// rule: PRV-04
// rule: PRV-03
#[test]
fn registration_1025_in_one_process_is_refused_and_changes_nothing() {
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let mut modern = Vec::new();
    let mut classic = Vec::new();
    for i in 0..1000 {
        modern.push(app.register_provider(guid(1 + i % 3)).unwrap());
    }
    for i in 0..24 {
        classic.push(
            app.register_trace_guids(guid(100 + i), |_: &ClassicNotification| {})
                .unwrap(),
        );
    }
    assert_eq!(
        modern.len() + classic.len(),
        MAX_REGISTRATIONS_PER_PROCESS as usize
    );
    assert_eq!(MAX_REGISTRATIONS_PER_PROCESS, 1024);
    let no_resources = Win32Error::ERROR_NO_SYSTEM_RESOURCES;
    assert_rejected(&k, no_resources, || app.register_provider(guid(1)));
    assert_rejected(&k, no_resources, || app.register_provider(guid(999)));
    assert_rejected(&k, no_resources, || {
        app.register_trace_guids(guid(998), |_: &ClassicNotification| {})
    });
    assert!(k.trace_guid_info(guid(999)).is_none());
    assert!(k.trace_guid_info(guid(998)).is_none());
    let w = Win32::new(&app);
    let mut h = 7;
    assert_rejected_code(&k, no_resources, || {
        w.event_register(Some(&guid(1)), None, 0, Some(&mut h))
    });
    assert_eq!(h, 0, "a refused EventRegister zeroes RegHandle (PRV-03)");

    // The limit is per process.
    let other = user_process(&k, "other.exe");
    let o = other.register_provider(guid(1)).unwrap();
    assert_eq!(o.pid(), other.pid());

    // Giving one back makes room for exactly one.
    modern.pop().unwrap().unregister().unwrap();
    let again = app.register_provider(guid(1)).unwrap();
    assert!(again.is_registered());
    assert_rejected(&k, no_resources, || app.register_provider(guid(2)));
}

// rule: PRV-05
#[test]
fn every_registration_of_a_guid_is_an_instance_with_its_own_callbacks() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let other = user_process(&k, "other.exe");
    let (r1, r2, r3) = (Recorder::new(), Recorder::new(), Recorder::new());
    let p1 = app
        .register_provider_with_callback(g, r1.callback())
        .unwrap();
    let p2 = app
        .register_provider_with_callback(g, r2.callback())
        .unwrap();
    let p3 = other
        .register_provider_with_callback(g, r3.callback())
        .unwrap();
    assert_ne!(p1.reg_handle(), p2.reg_handle());
    let pids: Vec<u32> = k
        .trace_guid_info(g)
        .unwrap()
        .instances
        .iter()
        .map(|i| i.pid)
        .collect();
    assert_eq!(pids, vec![app.pid(), app.pid(), other.pid()]);

    let s = start(&k, "s");
    s.enable(g, &EnableParams::new().level(Level::WARNING).any(0x4))
        .unwrap();
    for r in [&r1, &r2, &r3] {
        assert_eq!(r.len(), 1);
        assert_eq!(r.last().is_enabled, ControlCode::EnableProvider);
        assert_eq!(r.last().level, Level::WARNING);
    }
    for p in [&p1, &p2, &p3] {
        assert!(p.is_enabled_for(Level::WARNING, Keyword(0x4)));
    }
    for inst in k.trace_guid_info(g).unwrap().instances {
        assert_eq!(inst.enable_info.len(), 1);
        assert_eq!(inst.enable_info[0].logger_id, s.logger_id());
    }

    // One instance goes away; the others keep their state and their callbacks.
    p2.unregister().unwrap();
    assert!(p1.is_enabled() && p3.is_enabled());
    s.enable(g, &EnableParams::new().level(Level::ERROR))
        .unwrap();
    assert_eq!((r1.len(), r2.len(), r3.len()), (2, 1, 2));
    assert_eq!(r1.last().level, Level::ERROR);
    assert_eq!(k.trace_guid_info(g).unwrap().instances.len(), 2);
}

// rule: PRV-06
// rule: PRV-14
#[test]
fn pre_enable_is_recorded_and_delivered_at_registration_with_null_source_id() {
    let k = kernel();
    let g = guid(1);
    let s = start(&k, "pre");
    assert!(k.trace_guid_info(g).is_none());
    s.enable(
        g,
        &EnableParams::new()
            .level(Level::INFORMATION)
            .any(0x30)
            .all(0x10)
            .source_id(guid(77)),
    )
    .unwrap();
    let info = k.trace_guid_info(g).unwrap();
    assert_eq!(info.instances.len(), 1);
    let inst = &info.instances[0];
    assert_eq!(inst.flags, TRACE_PROVIDER_FLAG_PRE_ENABLE);
    assert_eq!(inst.flags, 0x2);
    assert_eq!(inst.pid, 0);
    assert_eq!(inst.enable_info.len(), 1);
    let ei = inst.enable_info[0];
    assert!(ei.is_enabled);
    assert_eq!(ei.logger_id, s.logger_id());
    assert_eq!(
        (ei.level, ei.match_any_keyword, ei.match_all_keyword),
        (Level::INFORMATION, Keyword(0x30), Keyword(0x10))
    );

    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    let calls = rec.all();
    assert_eq!(calls.len(), 1, "one callback, at registration");
    let n = &calls[0];
    assert_eq!(n.is_enabled, ControlCode::EnableProvider);
    assert_eq!(
        n.source_id,
        Guid::NULL,
        "a pre-enable is reported with GUID_NULL"
    );
    assert_eq!(
        (n.level, n.match_any_keyword, n.match_all_keyword),
        (Level::INFORMATION, Keyword(0x30), Keyword(0x10))
    );
    assert!(p.is_enabled_for(Level::INFORMATION, Keyword(0x30)));
    assert!(!p.is_enabled_for(Level::INFORMATION, Keyword(0x20)));

    // Once registered the GUID is an ordinary instance, no longer PRE_ENABLE.
    let info = k.trace_guid_info(g).unwrap();
    assert_eq!(info.instances.len(), 1);
    assert_eq!(
        (info.instances[0].pid, info.instances[0].flags),
        (app.pid(), 0)
    );
    assert_eq!(info.instances[0].enable_info.len(), 1);
}

// rule: PRV-06
#[test]
fn enumeration_flags_pre_enabled_guids_and_legacy_registrations() {
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let s = start(&k, "s");
    let _modern = app.register_provider(guid(1)).unwrap();
    let _classic = app
        .register_trace_guids(guid(2), |_: &ClassicNotification| {})
        .unwrap();
    s.enable(guid(3), &EnableParams::new()).unwrap();
    assert_eq!(TRACE_PROVIDER_FLAG_LEGACY, 0x1);
    let flags = |g| {
        k.trace_guid_info(g)
            .unwrap()
            .instances
            .iter()
            .map(|i| i.flags)
            .collect::<Vec<_>>()
    };
    assert_eq!(flags(guid(1)), vec![0]);
    assert_eq!(flags(guid(2)), vec![TRACE_PROVIDER_FLAG_LEGACY]);
    assert_eq!(flags(guid(3)), vec![TRACE_PROVIDER_FLAG_PRE_ENABLE]);
    // The pre-enable record lives as long as the enablement does.
    s.disable(guid(3)).unwrap();
    assert!(k.trace_guid_info(guid(3)).is_none());
    assert!(!k.provider_guids().contains(&guid(3)));
}

// rule: PRV-07
#[test]
fn a_pending_callback_runs_inside_register_before_it_returns() {
    let k = kernel();
    let g = guid(1);
    let s = start(&k, "s");
    s.enable(g, &EnableParams::new().level(Level::ERROR))
        .unwrap();
    let app = user_process(&k, "app.exe");
    let returned = Arc::new(AtomicBool::new(false));
    let seen: Arc<Mutex<Vec<(bool, usize)>>> = Arc::default();
    let (r, log, k2) = (returned.clone(), seen.clone(), k.clone());
    let p = app
        .register_provider_with_callback(g, move |_: &EnableNotification| {
            // Record whether register had returned, and whether the registration already
            // exists in the kernel's tables while the callback runs.
            let instances = k2
                .trace_guid_info(g)
                .map_or(0, |i| i.instances.iter().filter(|i| i.pid != 0).count());
            log.lock()
                .unwrap()
                .push((r.load(Ordering::SeqCst), instances));
        })
        .unwrap();
    returned.store(true, Ordering::SeqCst);
    assert_eq!(*seen.lock().unwrap(), vec![(false, 1)]);
    assert!(p.is_enabled());

    // Nothing enables guid(2): no callback during its registration.
    let rec = Recorder::new();
    let _q = app
        .register_provider_with_callback(guid(2), rec.callback())
        .unwrap();
    assert_eq!(rec.len(), 0);
}

// rule: PRV-08
#[test]
fn unregister_delivers_no_callback_and_later_changes_reach_nobody() {
    let k = kernel();
    let g = guid(1);
    let s = start(&k, "s");
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    assert_eq!(rec.len(), 1);
    p.unregister().unwrap();
    assert_eq!(rec.len(), 1, "no DISABLE on unregister");
    // The session still enables the GUID: it is a pre-enable again.
    assert_eq!(
        k.trace_guid_info(g).unwrap().instances[0].flags,
        TRACE_PROVIDER_FLAG_PRE_ENABLE
    );

    // Dropping the handle unregisters the same way.
    let rec2 = Recorder::new();
    let p2 = app
        .register_provider_with_callback(g, rec2.callback())
        .unwrap();
    assert_eq!(rec2.len(), 1);
    drop(p2);

    // So does the process's exit.
    let app3 = user_process(&k, "app3.exe");
    let rec3 = Recorder::new();
    let p3 = app3
        .register_provider_with_callback(g, rec3.callback())
        .unwrap();
    app3.exit();
    assert!(!p3.is_registered() && !p3.is_enabled());

    s.enable(g, &EnableParams::new().level(Level::ERROR))
        .unwrap();
    s.disable(g).unwrap();
    s.enable(g, &EnableParams::new()).unwrap();
    s.stop().unwrap();
    assert_eq!((rec.len(), rec2.len(), rec3.len()), (1, 1, 1));
}

// rule: PRV-08
#[test]
fn a_callback_cancelled_by_unregister_during_delivery_does_not_run() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let held: Arc<Mutex<Option<etwsim::Provider>>> = Arc::default();
    let (ra, rb) = (Recorder::new(), Recorder::new());
    let (h, log_a) = (held.clone(), ra.clone());
    let _a = app
        .register_provider_with_callback(g, move |n: &EnableNotification| {
            log_a.0.lock().unwrap().push(n.clone());
            let b = h.lock().unwrap().take();
            drop(b); // EventUnregister of B while B's callback is still queued
        })
        .unwrap();
    let b = app
        .register_provider_with_callback(g, rb.callback())
        .unwrap();
    let b_handle = b.reg_handle();
    *held.lock().unwrap() = Some(b);
    let s = start(&k, "s");
    s.enable(g, &EnableParams::new()).unwrap();
    assert_eq!(ra.len(), 1);
    assert_eq!(rb.len(), 0, "B's queued callback was cancelled");
    let regs: Vec<u64> = k
        .snapshot()
        .guids
        .iter()
        .find(|e| e.guid == g)
        .unwrap()
        .regs
        .iter()
        .map(|r| r.0)
        .collect();
    assert!(!regs.contains(&b_handle));
    assert_eq!(regs.len(), 1);
}

// ---------------------------------------------------------------------------------------------
// 2.2 The enable callback
// ---------------------------------------------------------------------------------------------

// rule: PRV-09
// rule: PRV-17
#[test]
fn is_enabled_takes_the_three_documented_values() {
    assert_eq!(ControlCode::DisableProvider as u32, 0);
    assert_eq!(ControlCode::EnableProvider as u32, 1);
    assert_eq!(ControlCode::CaptureState as u32, 2);
    assert_eq!(EVENT_CONTROL_CODE_DISABLE_PROVIDER, 0);
    assert_eq!(EVENT_CONTROL_CODE_ENABLE_PROVIDER, 1);
    assert_eq!(EVENT_CONTROL_CODE_CAPTURE_STATE, 2);
    assert_eq!(ControlCode::from_raw(3), None);

    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let _p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    let s = start(&k, "s");
    s.enable(g, &EnableParams::new()).unwrap();
    s.capture_state(g, &EnableParams::new()).unwrap();
    s.disable(g).unwrap();
    let codes: Vec<ControlCode> = rec.all().iter().map(|n| n.is_enabled).collect();
    assert_eq!(
        codes,
        vec![
            ControlCode::EnableProvider,
            ControlCode::CaptureState,
            ControlCode::DisableProvider
        ]
    );
}

// rule: PRV-09
// rule: PRV-15
// rule: PRV-17
#[test]
fn the_win32_callback_receives_raw_arguments_and_its_context() {
    const CTX: usize = 0x0901;
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let w = Win32::new(&app);
    let mut h = 0;
    assert_eq!(
        w.event_register(Some(&g), Some(raw_callback), CTX, Some(&mut h)),
        0
    );
    let s = start(&k, "s");
    let ctl = Win32::new(&k.system_process());
    let filter = EventFilter::Schematized(schematized(5, b"xyz"));
    let params = EnableTraceParameters {
        source_id: guid(50),
        ..EnableTraceParameters::v2(EnableProperty::empty(), &[filter])
    };
    let hs = s.handle().0;
    assert_eq!(
        ctl.enable_trace_ex2(hs, Some(&g), 1, 3, 0x11, 0x1, 0, Some(&params)),
        0
    );
    assert_eq!(ctl.enable_trace_ex2(hs, Some(&g), 2, 0, 0, 0, 0, None), 0);
    assert_eq!(ctl.enable_trace_ex2(hs, Some(&g), 0, 0, 0, 0, 0, None), 0);
    let calls = raw_calls(CTX);
    assert_eq!(calls.len(), 3);
    assert_eq!(
        (calls[0].1, calls[0].2, calls[0].3, calls[0].4, calls[0].5),
        (guid(50), 1, 3, 0x11, 0x1),
        "SourceId, IsEnabled, Level, MatchAny, MatchAll"
    );
    let (size, filter_type) = calls[0].6.unwrap();
    assert_eq!(filter_type, FilterType::SCHEMATIZED.0);
    assert!(size >= 24 + 3, "FilterData holds the header and the data");
    assert_eq!(calls[1].2, 2, "CAPTURE_STATE");
    assert_eq!((calls[1].3, calls[1].4), (3, 0x11), "with the composite");
    assert_eq!(calls[2].2, 0, "DISABLE_PROVIDER");
    assert_eq!(calls[2].6, None, "no FilterData on disable");
}

// rule: PRV-10
#[test]
fn is_enabled_is_the_aggregate_state_and_disable_comes_only_when_the_last_session_lets_go() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    let a = start(&k, "a");
    let b = start(&k, "b");
    let pa = EnableParams::new().level(Level::VERBOSE).any(0x1);
    let pb = EnableParams::new().level(Level::ERROR).any(0x2).all(0x2);
    a.enable(g, &pa).unwrap();
    b.enable(g, &pb).unwrap();
    rec.take();

    a.disable(g).unwrap();
    let n = rec.take();
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].is_enabled, ControlCode::EnableProvider);
    assert_eq!(
        (n[0].level, n[0].match_any_keyword, n[0].match_all_keyword),
        (Level::ERROR, Keyword(0x2), Keyword(0x2)),
        "the remaining session's values"
    );
    assert_eq!(p.enable_state().mask, 1 << slot_of(&k, g, &b));
    b.disable(g).unwrap();
    assert_eq!(rec.take()[0].is_enabled, ControlCode::DisableProvider);
    assert!(!p.is_enabled());

    // A stop aggregates the same way.
    a.enable(g, &pa).unwrap();
    b.enable(g, &pb).unwrap();
    rec.take();
    a.stop().unwrap();
    let n = rec.take();
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].is_enabled, ControlCode::EnableProvider);
    assert_eq!(n[0].level, Level::ERROR);
    b.stop().unwrap();
    assert_eq!(rec.take()[0].is_enabled, ControlCode::DisableProvider);
}

// rule: PRV-11
#[test]
fn composite_level_is_the_most_verbose_session_level() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    let a = start(&k, "a");
    let b = start(&k, "b");
    a.enable(g, &EnableParams::new().level(Level::WARNING))
        .unwrap();
    assert_eq!(rec.last().level, Level::WARNING);
    b.enable(g, &EnableParams::new().level(Level::CRITICAL))
        .unwrap();
    assert_eq!(rec.last().level, Level::WARNING, "A at 3, B at 1 → 3");
    assert_eq!(p.enable_state().level, Level::WARNING);
    b.enable(g, &EnableParams::new().level(Level::VERBOSE))
        .unwrap();
    assert_eq!(rec.last().level, Level::VERBOSE);
    a.disable(g).unwrap();
    assert_eq!(rec.last().level, Level::VERBOSE);
    b.enable(g, &EnableParams::new().level(Level(200))).unwrap();
    assert_eq!(rec.last().level, Level(200));
    assert!(p.is_enabled_for(Level(200), Keyword(0)));
    assert!(!p.is_enabled_for(Level(201), Keyword(0)));
}

// rule: PRV-11
#[test]
fn a_session_at_level_zero_makes_the_composite_level_255() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    let a = start(&k, "a");
    let b = start(&k, "b");
    a.enable(g, &EnableParams::new().level(Level::WARNING))
        .unwrap();
    b.enable(g, &EnableParams::new().level(Level(0))).unwrap();
    assert_eq!(rec.last().level, Level::MAX);
    assert_eq!(p.enable_state().level, Level(255));
    assert!(p.is_enabled_for(Level(255), Keyword(0x1)));
    b.disable(g).unwrap();
    assert_eq!(rec.last().level, Level::WARNING);
    // A single session at level 0 too.
    a.enable(g, &EnableParams::new().level(Level(0))).unwrap();
    assert_eq!(rec.last().level, Level(255));
    // Enumeration keeps the session's own value (0).
    assert_eq!(
        k.enable_slots(g)[slot_of(&k, g, &a)].unwrap().1.level,
        Level(0)
    );
}

// rule: PRV-12
#[test]
fn composite_match_any_is_the_or_and_match_all_the_and() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    let a = start(&k, "a");
    let b = start(&k, "b");
    a.enable(g, &EnableParams::new().any(0x3).all(0x1)).unwrap();
    b.enable(g, &EnableParams::new().any(0x6).all(0x3)).unwrap();
    let n = rec.last();
    assert_eq!(
        (n.match_any_keyword, n.match_all_keyword),
        (Keyword(0x7), Keyword(0x1))
    );
    let st = p.enable_state();
    assert_eq!((st.match_any, st.match_all), (Keyword(0x7), Keyword(0x1)));
}

// rule: PRV-12
#[test]
fn a_session_with_match_any_zero_makes_any_all_ones_and_all_zero() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let _p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    let a = start(&k, "a");
    let c = start(&k, "c");
    a.enable(g, &EnableParams::new().any(0x3).all(0x1)).unwrap();
    c.enable(g, &EnableParams::new().any(0).all(0xff)).unwrap();
    let n = rec.last();
    assert_eq!(
        (n.match_any_keyword, n.match_all_keyword),
        (Keyword::ALL, Keyword(0))
    );
    a.disable(g).unwrap();
    let n = rec.last();
    assert_eq!(
        (n.match_any_keyword, n.match_all_keyword),
        (Keyword(u64::MAX), Keyword(0)),
        "a lone session with Any 0: MatchAll is not used"
    );
}

// rule: PRV-13
// rule: PRV-27
#[test]
fn capture_state_reports_the_composite_to_registrations_enabled_in_that_session_only() {
    let k = kernel();
    let g = guid(1);
    let x = user_process(&k, "x.exe");
    let y = user_process(&k, "y.exe");
    let (rx, ry) = (Recorder::new(), Recorder::new());
    let _px = x.register_provider_with_callback(g, rx.callback()).unwrap();
    let _py = y.register_provider_with_callback(g, ry.callback()).unwrap();
    let s1 = start(&k, "s1");
    let s2 = start(&k, "s2");
    s1.enable(g, &EnableParams::new().level(Level::ERROR).any(0x1))
        .unwrap();
    s2.enable(
        g,
        &EnableParams::new()
            .level(Level::INFORMATION)
            .any(0x2)
            .filter(EventFilter::ExecutableName("y.exe".into())),
    )
    .unwrap();
    rx.take();
    ry.take();

    let before = k.snapshot();
    s2.capture_state(g, &EnableParams::new().source_id(guid(9)))
        .unwrap();
    assert_eq!(k.snapshot(), before, "CAPTURE_STATE changes no setting");
    assert_eq!(rx.len(), 0, "x.exe is not enabled in s2");
    let n = ry.take();
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].is_enabled, ControlCode::CaptureState);
    assert_eq!(n[0].source_id, guid(9));
    assert_eq!(
        (n[0].level, n[0].match_any_keyword),
        (Level::INFORMATION, Keyword(0x3))
    );

    s1.capture_state(g, &EnableParams::new()).unwrap();
    let (nx, ny) = (rx.take(), ry.take());
    assert_eq!((nx.len(), ny.len()), (1, 1));
    assert_eq!(
        (nx[0].is_enabled, nx[0].level, nx[0].match_any_keyword),
        (ControlCode::CaptureState, Level::ERROR, Keyword(0x1))
    );
    assert_eq!(
        (ny[0].level, ny[0].match_any_keyword),
        (Level::INFORMATION, Keyword(0x3))
    );

    // A session that does not enable the GUID: success, no callback, nothing created.
    let s3 = start(&k, "s3");
    let before = k.snapshot();
    s3.capture_state(g, &EnableParams::new()).unwrap();
    s3.capture_state(guid(2), &EnableParams::new()).unwrap();
    assert_eq!(k.snapshot(), before);
    assert_eq!((rx.len(), ry.len()), (0, 0));
    assert!(k.trace_guid_info(guid(2)).is_none());
}

// rule: PRV-14
#[test]
fn source_id_is_the_controllers_or_guid_null() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let _p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    let a = start(&k, "a");
    let b = start(&k, "b");
    a.enable(g, &EnableParams::new().source_id(guid(10)))
        .unwrap();
    assert_eq!(
        rec.last().source_id,
        guid(10),
        "may differ from the session GUID"
    );
    assert_ne!(rec.last().source_id, a.guid());
    a.enable(g, &EnableParams::new()).unwrap();
    assert_eq!(rec.last().source_id, Guid::NULL, "none given");
    b.enable(g, &EnableParams::new()).unwrap();
    k.enable_trace_ex2(
        &k.system_process(),
        Target::Handle(b.handle()),
        g,
        ControlCode::DisableProvider,
        &EnableParams::new().source_id(guid(11)),
    )
    .unwrap();
    assert_eq!(rec.last().source_id, guid(11));

    // EnableTrace has no SourceId; EnableTraceEx passes its own (NULL → GUID_NULL).
    let w = Win32::new(&k.system_process());
    let ha = a.handle().0;
    assert_eq!(w.enable_trace(1, 0x1, 4, Some(&g), ha), 0);
    assert_eq!(rec.last().source_id, Guid::NULL);
    assert_eq!(
        w.enable_trace_ex(Some(&g), Some(&guid(12)), ha, 1, 4, 0, 0, 0, None),
        0
    );
    assert_eq!(rec.last().source_id, guid(12));
    assert_eq!(
        w.enable_trace_ex(Some(&g), None, ha, 1, 4, 0, 0, 0, None),
        0
    );
    assert_eq!(rec.last().source_id, Guid::NULL);

    // A stopping session disables with GUID_NULL, whatever SourceId enabled it.
    a.enable(g, &EnableParams::new().source_id(guid(13)))
        .unwrap();
    a.stop().unwrap();
    let n = rec.last();
    assert_eq!(
        (n.is_enabled, n.source_id),
        (ControlCode::DisableProvider, Guid::NULL)
    );
}

// rule: PRV-15
#[test]
fn filter_data_chains_one_schematized_filter_per_session_with_instance_id_the_slot() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    let s0 = start(&k, "s0");
    let s1 = start(&k, "s1");
    let s2 = start(&k, "s2");
    let f0 = schematized(10, b"alpha");
    let f2 = schematized(20, b"beta!!!!");
    s0.enable(
        g,
        &EnableParams::new().filter(EventFilter::Schematized(f0.clone())),
    )
    .unwrap();
    s1.enable(g, &EnableParams::new()).unwrap();
    s2.enable(
        g,
        &EnableParams::new().filter(EventFilter::Schematized(f2.clone())),
    )
    .unwrap();
    let slots = [
        slot_of(&k, g, &s0),
        slot_of(&k, g, &s1),
        slot_of(&k, g, &s2),
    ];
    assert_eq!(slots, [0, 1, 2]);

    let n = rec.last();
    let chain = n.schematized_filters();
    assert_eq!(chain.len(), 2, "one per session that gave one");
    assert_eq!(chain[0].0, 0);
    assert_eq!(chain[1].0, 2);
    assert_eq!(&chain[0].1[24..], b"alpha");
    assert_eq!(&chain[1].1[24..], b"beta!!!!");
    assert_eq!(&chain[0].1[..2], &10u16.to_le_bytes());
    assert_eq!(&chain[1].1[..2], &20u16.to_le_bytes());
    // Raw layout: header 1 says Size 29 and links to the next header at an 8-aligned offset.
    let raw = n.filter_data.as_ref().unwrap();
    assert_eq!(u32::from_le_bytes(raw[16..20].try_into().unwrap()), 29);
    let next = u32::from_le_bytes(raw[20..24].try_into().unwrap()) as usize;
    assert_eq!(next, 32);
    assert_eq!(
        u64::from_le_bytes(raw[next + 8..next + 16].try_into().unwrap()),
        2
    );
    assert_eq!(
        u32::from_le_bytes(raw[next + 20..next + 24].try_into().unwrap()),
        0,
        "the last header ends the chain"
    );

    // The provider uses InstanceId as the EventWriteEx Filter bit to leave out session s2.
    let d = desc(4, 0x1);
    let mut view = EventView::new(&d);
    assert_eq!(
        p.targets(&view),
        vec![s0.handle(), s1.handle(), s2.handle()]
    );
    view.filter_mask = 1 << chain[1].0;
    assert_eq!(p.targets(&view), vec![s0.handle(), s1.handle()]);

    // s0 lets go: s2's filter keeps InstanceId 2 (its slot, not its position).
    s0.disable(g).unwrap();
    let n = rec.last();
    let chain = n.schematized_filters();
    assert_eq!(chain.len(), 1);
    assert_eq!(chain[0].0, 2);
    assert_eq!(
        u32::from_le_bytes(n.filter_data.as_ref().unwrap()[20..24].try_into().unwrap()),
        0
    );
    s2.disable(g).unwrap();
    assert_eq!(rec.last().filter_data, None, "no session has a filter");
    s1.disable(g).unwrap();
    assert_eq!(rec.last().is_enabled, ControlCode::DisableProvider);
    assert_eq!(rec.last().filter_data, None);
}

// rule: PRV-15
#[test]
fn a_session_gives_at_most_one_schematized_filter() {
    let k = kernel();
    let g = guid(1);
    let s = start(&k, "s");
    let two = EnableParams::new()
        .filter(EventFilter::Schematized(schematized(1, b"a")))
        .filter(EventFilter::Schematized(schematized(2, b"b")));
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        s.enable(g, &two)
    });
    let short = EnableParams::new().filter(EventFilter::Schematized(vec![0; 23]));
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        s.enable(g, &short)
    });
}

// rule: PRV-16
#[test]
fn every_configuration_change_calls_back_and_a_pre_enable_only_at_registration() {
    let k = kernel();
    let g = guid(1);
    let a = start(&k, "a");
    let b = start(&k, "b");
    for l in 1..=3 {
        a.enable(g, &EnableParams::new().level(Level(l))).unwrap();
    }
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let _p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    assert_eq!(rec.take().len(), 1, "three pre-enables, one callback");

    for l in 4..=6 {
        a.enable(g, &EnableParams::new().level(Level(l))).unwrap();
    }
    assert_eq!(rec.take().len(), 3, "one per EnableTraceEx2");
    b.enable(g, &EnableParams::new()).unwrap();
    b.disable(g).unwrap();
    assert_eq!(rec.take().len(), 2);

    // A DISABLE for a session that does not enable the GUID changes nothing.
    let before = k.snapshot();
    b.disable(g).unwrap();
    assert_eq!(k.snapshot(), before);
    assert_eq!(rec.len(), 0);

    // A stop calls back without any EnableTraceEx2 call.
    a.stop().unwrap();
    let n = rec.take();
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].is_enabled, ControlCode::DisableProvider);
}

// ---------------------------------------------------------------------------------------------
// 2.3 EnableTraceEx2
// ---------------------------------------------------------------------------------------------

// rule: PRV-17
#[test]
fn enable_trace_ex2_takes_control_codes_0_1_2_and_refuses_others() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    let s = start(&k, "s");
    let w = Win32::new(&k.system_process());
    let h = s.handle().0;
    assert_eq!(w.enable_trace_ex2(h, Some(&g), 1, 4, 0x1, 0, 0, None), 0);
    assert!(p.is_enabled_for(Level::INFORMATION, Keyword(0x1)));
    assert_eq!(w.enable_trace_ex2(h, Some(&g), 2, 0, 0, 0, 0, None), 0);
    assert_eq!(rec.last().is_enabled, ControlCode::CaptureState);
    for code in [3, 4, 0x100, u32::MAX] {
        assert_rejected_code(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
            w.enable_trace_ex2(h, Some(&g), code, 4, 0x1, 0, 0, None)
        });
    }
    assert_eq!(rec.len(), 2);
    assert_eq!(w.enable_trace_ex2(h, Some(&g), 0, 0, 0, 0, 0, None), 0);
    assert!(!p.is_enabled());
}

// rule: PRV-18
#[test]
fn callbacks_have_run_when_enable_trace_ex2_returns_whatever_the_timeout() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let _p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    let s = start(&k, "s");
    let w = Win32::new(&k.system_process());
    for (i, timeout) in [0, 1, 5_000, INFINITE].into_iter().enumerate() {
        let level = 1 + i as u8;
        let rc = w.enable_trace_ex2(s.handle().0, Some(&g), 1, level, 0, 0, timeout, None);
        assert_eq!(rc, 0, "never ERROR_TIMEOUT");
        assert_eq!(rec.len(), i + 1, "timeout {timeout}: callback already ran");
        assert_eq!(rec.last().level, Level(level));
    }

    // A callback may itself call EnableTraceEx2; the nested call's callbacks also run first.
    let g2 = guid(2);
    let rec2 = Recorder::new();
    let _p2 = app
        .register_provider_with_callback(g2, rec2.callback())
        .unwrap();
    let s2 = s.clone();
    let _p3 = app
        .register_provider_with_callback(guid(3), move |n: &EnableNotification| {
            if n.is_enabled == ControlCode::EnableProvider {
                s2.enable(g2, &EnableParams::new().level(Level::ERROR))
                    .unwrap();
            }
        })
        .unwrap();
    assert_eq!(
        w.enable_trace_ex2(s.handle().0, Some(&guid(3)), 1, 4, 0, 0, 0, None),
        0
    );
    assert_eq!(rec2.len(), 1);
    assert_eq!(rec2.last().level, Level::ERROR);
}

// rule: PRV-19
#[test]
fn enable_trace_ex2_with_null_guid_or_zero_handle_is_invalid_parameter() {
    let k = kernel();
    let s = start(&k, "s");
    let w = Win32::new(&k.system_process());
    let h = s.handle().0;
    let invalid = Win32Error::ERROR_INVALID_PARAMETER;
    assert_rejected_code(&k, invalid, || {
        w.enable_trace_ex2(h, None, 1, 4, 0, 0, 0, None)
    });
    assert_rejected_code(&k, invalid, || {
        w.enable_trace_ex2(h, Some(&Guid::NULL), 1, 4, 0, 0, 0, None)
    });
    assert_rejected_code(&k, invalid, || {
        w.enable_trace_ex2(0, Some(&guid(1)), 1, 4, 0, 0, 0, None)
    });
    assert_rejected(&k, invalid, || s.enable(Guid::NULL, &EnableParams::new()));
    assert_rejected(&k, invalid, || {
        k.enable_trace_ex2(
            &k.system_process(),
            Target::Handle(TraceHandle(0)),
            guid(1),
            ControlCode::EnableProvider,
            &EnableParams::new(),
        )
    });
}

// rule: PRV-19
#[test]
fn a_standard_user_may_not_enable_providers_into_a_session() {
    let k = kernel();
    let g = guid(1);
    let s = start(&k, "s");
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let denied = Win32Error::ERROR_ACCESS_DENIED;
    for token in [Token::user("bob"), Token::administrator("eve").unelevated()] {
        let ctl = k.spawn("ctl.exe", token).unwrap();
        for code in [
            ControlCode::EnableProvider,
            ControlCode::DisableProvider,
            ControlCode::CaptureState,
        ] {
            assert_rejected(&k, denied, || {
                k.enable_trace_ex2(
                    &ctl,
                    Target::Handle(s.handle()),
                    g,
                    code,
                    &EnableParams::new(),
                )
            });
        }
        let w = Win32::new(&ctl);
        assert_rejected_code(&k, denied, || {
            w.enable_trace_ex2(s.handle().0, Some(&g), 1, 4, 0, 0, 0, None)
        });
    }
    assert!(!p.is_enabled());

    // Those the default policy allows.
    for token in [
        Token::user("carol").with_groups(Groups::PERFORMANCE_LOG_USERS),
        Token::administrator("admin"),
    ] {
        let ctl = k.spawn("ctl.exe", token).unwrap();
        k.enable_trace_ex2(
            &ctl,
            Target::Handle(s.handle()),
            g,
            ControlCode::EnableProvider,
            &EnableParams::new(),
        )
        .unwrap();
        assert!(p.is_enabled());
        s.disable(g).unwrap();
    }
}

// rule: PRV-19
#[test]
fn enabling_an_unregistered_modern_provider_never_fails_with_invalid_function() {
    let k = kernel();
    let g = guid(1);
    let s = start(&k, "s");
    let w = Win32::new(&k.system_process());
    assert_eq!(
        w.enable_trace_ex2(s.handle().0, Some(&g), 1, 3, 0x1, 0, 0, None),
        0
    );
    // Updating the level of a provider nobody registered is accepted too.
    assert_eq!(
        w.enable_trace_ex2(s.handle().0, Some(&g), 1, 5, 0x1, 0, 0, None),
        0
    );
    let info = k.trace_guid_info(g).unwrap();
    assert_eq!(info.instances[0].flags, TRACE_PROVIDER_FLAG_PRE_ENABLE);
    assert_eq!(info.instances[0].enable_info[0].level, Level::VERBOSE);
}

// rule: PRV-20
#[test]
fn enable_trace_ex2_on_a_stopped_session_is_instance_not_found() {
    let k = kernel();
    let g = guid(1);
    let s = start(&k, "s");
    let h = s.handle();
    s.enable(g, &EnableParams::new()).unwrap();
    s.stop().unwrap();
    let not_found = Win32Error::ERROR_WMI_INSTANCE_NOT_FOUND;
    assert_rejected(&k, not_found, || s.enable(g, &EnableParams::new()));
    assert_rejected(&k, not_found, || s.disable(g));
    assert_rejected(&k, not_found, || s.capture_state(g, &EnableParams::new()));
    let sys = k.system_process();
    assert_rejected(&k, not_found, || {
        k.enable_trace_ex2(
            &sys,
            Target::Name("s"),
            g,
            ControlCode::EnableProvider,
            &EnableParams::new(),
        )
    });
    let w = Win32::new(&sys);
    assert_rejected_code(&k, not_found, || {
        w.enable_trace_ex2(h.0, Some(&g), 1, 4, 0, 0, 0, None)
    });

    // A new session with the same name (and maybe the same logger id) is not reached through
    // the old handle.
    let s2 = start(&k, "s");
    assert_rejected(&k, not_found, || {
        k.enable_trace_ex2(
            &sys,
            Target::Handle(h),
            g,
            ControlCode::EnableProvider,
            &EnableParams::new(),
        )
    });
    assert!(k.trace_guid_info(g).is_none());
    // A value never issued as a handle is a parameter error (SES-74's choice).
    let never = TraceHandle(s2.handle().0 + (1000 << 16));
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        k.enable_trace_ex2(
            &sys,
            Target::Handle(never),
            g,
            ControlCode::EnableProvider,
            &EnableParams::new(),
        )
    });
}

// rule: PRV-21
#[test]
fn ninth_session_enabling_a_modern_provider_is_refused_and_changes_nothing() {
    assert_eq!(ENABLE_SLOTS, 8);
    let k = kernel();
    let g = guid(1);
    let pre = guid(2);
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let sessions: Vec<Session> = (0..9).map(|i| start(&k, &format!("s{i}"))).collect();
    for s in &sessions[..8] {
        s.enable(g, &EnableParams::new()).unwrap();
        s.enable(pre, &EnableParams::new()).unwrap();
    }
    assert_eq!(p.enable_state().mask, 0xff);
    let no_resources = Win32Error::ERROR_NO_SYSTEM_RESOURCES;
    assert_rejected(&k, no_resources, || {
        sessions[8].enable(g, &EnableParams::new())
    });
    assert_rejected(&k, no_resources, || {
        sessions[8].enable(pre, &EnableParams::new())
    });
    let w = Win32::new(&k.system_process());
    assert_rejected_code(&k, no_resources, || {
        w.enable_trace_ex2(sessions[8].handle().0, Some(&g), 1, 4, 0, 0, 0, None)
    });
    // The eight may still update their own slots; the ninth may enable another GUID.
    sessions[0]
        .enable(g, &EnableParams::new().level(Level::ERROR))
        .unwrap();
    sessions[8].enable(guid(3), &EnableParams::new()).unwrap();

    // A freed slot is taken by the ninth session.
    sessions[3].disable(g).unwrap();
    assert_eq!(used_slots(&k, g), 7);
    sessions[8].enable(g, &EnableParams::new()).unwrap();
    assert_eq!(slot_of(&k, g, &sessions[8]), 3);
    assert_eq!(p.enable_state().mask, 0xff);
}

// rule: PRV-22
#[test]
fn a_classic_provider_logs_to_one_session_and_the_last_enabler_wins() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let rec = ClassicRecorder::default();
    let cp = app.register_trace_guids(g, rec.callback()).unwrap();
    assert_eq!(cp.logger_handle(), None);
    let a = start(&k, "a");
    let b = start(&k, "b");
    a.enable(g, &EnableParams::new().level(Level::INFORMATION).any(0x1))
        .unwrap();
    let n = rec.take();
    assert_eq!(n.len(), 1);
    assert_eq!(
        (n[0].request_code, n[0].logger_handle),
        (WMI_ENABLE_EVENTS, a.handle())
    );
    assert_eq!(cp.logger_handle(), Some(a.handle()));

    b.enable(g, &EnableParams::new().level(Level::ERROR).any(0x2))
        .unwrap();
    let n = rec.take();
    assert_eq!(n.len(), 1);
    assert_eq!(
        (n[0].request_code, n[0].logger_handle, n[0].enable_level),
        (WMI_ENABLE_EVENTS, b.handle(), Level::ERROR)
    );
    assert_eq!(cp.logger_handle(), Some(b.handle()));
    assert_eq!(used_slots(&k, g), 1, "A lost the provider");
    let info = k.trace_guid_info(g).unwrap();
    assert_eq!(info.instances[0].enable_info.len(), 1);
    assert_eq!(info.instances[0].enable_info[0].logger_id, b.logger_id());
    // A no longer enables it: its DISABLE changes nothing.
    a.disable(g).unwrap();
    assert!(rec.take().is_empty());
    assert_eq!(cp.logger_handle(), Some(b.handle()));

    // One slot only, so more than eight sessions may take turns.
    let many: Vec<Session> = (0..9).map(|i| start(&k, &format!("m{i}"))).collect();
    for s in &many {
        s.enable(g, &EnableParams::new()).unwrap();
        assert_eq!(cp.logger_handle(), Some(s.handle()));
    }
    assert_eq!(used_slots(&k, g), 1);
    rec.take();
    many[8].disable(g).unwrap();
    let n = rec.take();
    assert_eq!(n.len(), 1);
    assert_eq!(n[0].request_code, WMI_DISABLE_EVENTS);
    assert_eq!(cp.logger_handle(), None);
}

// rule: PRV-22
#[test]
fn a_classic_provider_pre_enabled_by_two_sessions_goes_to_the_later_one() {
    let k = kernel();
    let g = guid(1);
    let a = start(&k, "a");
    let b = start(&k, "b");
    a.enable(g, &EnableParams::new().level(Level::ERROR))
        .unwrap();
    b.enable(g, &EnableParams::new().level(Level::VERBOSE))
        .unwrap();
    let app = user_process(&k, "app.exe");
    let rec = ClassicRecorder::default();
    let cp = app.register_trace_guids(g, rec.callback()).unwrap();
    let n = rec.take();
    assert_eq!(n.len(), 1);
    assert_eq!(
        (n[0].request_code, n[0].logger_handle, n[0].enable_level),
        (WMI_ENABLE_EVENTS, b.handle(), Level::VERBOSE)
    );
    assert_eq!(cp.logger_handle(), Some(b.handle()));
    assert_eq!(
        k.trace_guid_info(g).unwrap().instances[0].enable_info.len(),
        1
    );
}

// rule: PRV-23
#[test]
fn a_classic_provider_gets_the_level_and_the_low_32_bits_of_match_any_as_flags() {
    assert_eq!(
        (WMI_ENABLE_EVENTS, WMI_DISABLE_EVENTS, WMI_CAPTURE_STATE),
        (4, 5, 10)
    );
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let rec = ClassicRecorder::default();
    let cp = app.register_trace_guids(g, rec.callback()).unwrap();
    let s = start(&k, "s");
    s.enable(
        g,
        &EnableParams::new()
            .level(Level::VERBOSE)
            .any(0xABCD_0000_1234_5678)
            .all(0xff),
    )
    .unwrap();
    let n = rec.take();
    assert_eq!(
        n,
        vec![ClassicNotification {
            request_code: WMI_ENABLE_EVENTS,
            logger_handle: s.handle(),
            enable_level: Level::VERBOSE,
            enable_flags: 0x1234_5678,
        }]
    );
    assert_eq!(cp.enable_level(), Level::VERBOSE);
    assert_eq!(cp.enable_flags(), 0x1234_5678);
    s.capture_state(g, &EnableParams::new()).unwrap();
    let n = rec.take();
    assert_eq!(n.len(), 1);
    assert_eq!(
        (n[0].request_code, n[0].enable_flags),
        (WMI_CAPTURE_STATE, 0x1234_5678)
    );
    s.disable(g).unwrap();
    assert_eq!(rec.take()[0].request_code, WMI_DISABLE_EVENTS);
    assert_eq!((cp.enable_level(), cp.enable_flags()), (Level(0), 0));
}

// rule: PRV-24
#[test]
fn re_enabling_updates_the_slot_in_place() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    let other = start(&k, "other");
    other
        .enable(g, &EnableParams::new().level(Level::CRITICAL).any(0x100))
        .unwrap();
    let s = start(&k, "s");
    s.enable(
        g,
        &EnableParams::new()
            .level(Level::ERROR)
            .any(0x1)
            .property(EnableProperty::SID),
    )
    .unwrap();
    let slot = slot_of(&k, g, &s);
    s.enable(
        g,
        &EnableParams::new()
            .level(Level::VERBOSE)
            .any(0xf0)
            .all(0x10)
            .property(EnableProperty::TS_ID),
    )
    .unwrap();
    assert_eq!(slot_of(&k, g, &s), slot);
    assert_eq!(used_slots(&k, g), 2);
    let ei = k.enable_slots(g)[slot].unwrap().1;
    assert_eq!(
        (
            ei.level,
            ei.match_any_keyword,
            ei.match_all_keyword,
            ei.enable_property
        ),
        (
            Level::VERBOSE,
            Keyword(0xf0),
            Keyword(0x10),
            EnableProperty::TS_ID
        )
    );
    let n = rec.last();
    assert_eq!(
        (n.level, n.match_any_keyword, n.match_all_keyword),
        (Level::VERBOSE, Keyword(0x1f0), Keyword(0))
    );
    assert!(p.is_enabled_for(Level::VERBOSE, Keyword(0x10)));
    assert!(!p.is_enabled_for(Level::VERBOSE, Keyword(0x1)));
}

// rule: PRV-24
#[test]
fn re_enabling_replaces_the_filter_set_as_a_whole() {
    let k = kernel();
    let g = guid(1);
    let x = user_process(&k, "x.exe");
    let y = user_process(&k, "y.exe");
    let (rx, ry) = (Recorder::new(), Recorder::new());
    let px = x.register_provider_with_callback(g, rx.callback()).unwrap();
    let py = y.register_provider_with_callback(g, ry.callback()).unwrap();
    let s = start(&k, "s");
    let fa = schematized(1, b"first");
    let fb = schematized(2, b"second");
    s.enable(
        g,
        &EnableParams::new()
            .filter(EventFilter::ExecutableName("x.exe".into()))
            .filter(EventFilter::Schematized(fa)),
    )
    .unwrap();
    assert!(px.is_enabled() && !py.is_enabled());
    assert_eq!(&rx.last().schematized_filters()[0].1[24..], b"first");

    s.enable(g, &EnableParams::new().filter(EventFilter::Schematized(fb)))
        .unwrap();
    assert!(
        px.is_enabled() && py.is_enabled(),
        "the executable filter is gone"
    );
    for r in [&rx, &ry] {
        let chain = r.last().schematized_filters().len();
        assert_eq!(chain, 1);
        assert_eq!(&r.last().schematized_filters()[0].1[24..], b"second");
    }

    s.enable(g, &EnableParams::new()).unwrap();
    assert_eq!(rx.last().filter_data, None);
    assert_eq!(ry.last().filter_data, None);
    assert!(px.is_enabled() && py.is_enabled());

    // A new scope filter takes the provider away from x.exe: its instance hears DISABLE.
    s.enable(
        g,
        &EnableParams::new().filter(EventFilter::ExecutableName("y.exe".into())),
    )
    .unwrap();
    assert_eq!(rx.last().is_enabled, ControlCode::DisableProvider);
    assert_eq!(ry.last().is_enabled, ControlCode::EnableProvider);
    assert!(!px.is_enabled() && py.is_enabled());
}

// rule: PRV-24
#[test]
fn filter_desc_count_zero_removes_every_filter() {
    let k = kernel();
    let g = guid(1);
    let x = user_process(&k, "x.exe");
    let y = user_process(&k, "y.exe");
    let px = x.register_provider(g).unwrap();
    let py = y.register_provider(g).unwrap();
    let s = start(&k, "s");
    let w = Win32::new(&k.system_process());
    let with_filter = EnableTraceParameters::v2(
        EnableProperty::empty(),
        &[EventFilter::ExecutableName("x.exe".into())],
    );
    assert_eq!(
        w.enable_trace_ex2(s.handle().0, Some(&g), 1, 4, 0, 0, 0, Some(&with_filter)),
        0
    );
    assert!(px.is_enabled() && !py.is_enabled());
    // The descriptor array is still there, but FilterDescCount says 0.
    let count_zero = EnableTraceParameters {
        filter_desc_count: 0,
        ..with_filter.clone()
    };
    assert_eq!(
        w.enable_trace_ex2(s.handle().0, Some(&g), 1, 4, 0, 0, 0, Some(&count_zero)),
        0
    );
    assert!(px.is_enabled() && py.is_enabled());
}

// rule: PRV-25
#[test]
fn providers_stay_enabled_when_the_controller_process_exits() {
    let k = kernel();
    let g = guid(1);
    let ctl = admin_process(&k, "ctl.exe");
    let s = k.session("s").caller(&ctl).start().unwrap();
    s.enable(g, &EnableParams::new().level(Level::WARNING))
        .unwrap();
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    let before = k.snapshot();
    ctl.exit();
    assert!(ctl.has_exited());
    let after = k.snapshot();
    assert_eq!(
        after.guids, before.guids,
        "enable slots and words unchanged"
    );
    assert_eq!(after.sessions, before.sessions);
    assert!(p.is_enabled_for(Level::WARNING, Keyword(0)));
    assert_eq!(rec.len(), 1, "no callback");
    // Another controller may still manage the enablement.
    k.control_trace(
        &k.system_process(),
        Target::Name("s"),
        etwsim::TraceControl::Stop,
        None,
    )
    .unwrap();
    assert!(!p.is_enabled());
    assert_eq!(rec.last().is_enabled, ControlCode::DisableProvider);
}

/// Two identical kernels with a session and a registered provider each, for comparing two
/// ways of making the same call.
fn twin(seed: u64) -> (Kernel, Session, etwsim::Provider, Recorder, Win32) {
    let k = Kernel::builder()
        .cpus(4)
        .deterministic(seed)
        .build()
        .unwrap();
    let s = start(&k, "twin");
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let p = app
        .register_provider_with_callback(guid(1), rec.callback())
        .unwrap();
    let w = Win32::new(&k.system_process());
    (k, s, p, rec, w)
}

// rule: PRV-26
#[test]
fn enable_trace_is_enable_trace_ex2_with_its_flags_as_match_any() {
    let g = guid(1);
    let (k1, s1, p1, r1, w1) = twin(5);
    let (k2, s2, p2, r2, w2) = twin(5);
    assert_eq!(w1.enable_trace(1, 0x30, 4, Some(&g), s1.handle().0), 0);
    assert_eq!(
        w2.enable_trace_ex2(s2.handle().0, Some(&g), 1, 4, 0x30, 0, 0, None),
        0
    );
    assert_eq!(k1.snapshot(), k2.snapshot());
    assert_eq!(r1.all(), r2.all());
    assert_eq!(p1.enable_state(), p2.enable_state());
    assert_eq!(r1.last().match_any_keyword, Keyword(0x30));
    assert_eq!(r1.last().level, Level::INFORMATION);

    assert_eq!(w1.enable_trace(0, 0x30, 4, Some(&g), s1.handle().0), 0);
    assert_eq!(
        w2.enable_trace_ex2(s2.handle().0, Some(&g), 0, 4, 0x30, 0, 0, None),
        0
    );
    assert_eq!(k1.snapshot(), k2.snapshot());
    assert_eq!(r1.all(), r2.all());
    assert!(!p1.is_enabled());
    assert_eq!(r1.last().is_enabled, ControlCode::DisableProvider);

    assert_rejected_code(&k1, Win32Error::ERROR_INVALID_PARAMETER, || {
        w1.enable_trace(1, 0x1, 4, None, s1.handle().0)
    });
    assert_rejected_code(&k1, Win32Error::ERROR_INVALID_PARAMETER, || {
        w1.enable_trace(1, 0x1, 4, Some(&g), 0)
    });
}

// rule: PRV-26
#[test]
fn enable_trace_ex_is_enable_trace_ex2_with_one_filter_and_its_source_id() {
    let g = guid(1);
    let (k1, s1, p1, r1, w1) = twin(6);
    let (k2, s2, p2, r2, w2) = twin(6);
    let filter = EventFilter::ExecutableName("app.exe".into());
    let d = EventFilterDescriptor::from_filter(&filter);
    let property = EnableProperty::SID;
    assert_eq!(
        w1.enable_trace_ex(
            Some(&g),
            Some(&guid(40)),
            s1.handle().0,
            1,
            3,
            0x5,
            0x1,
            property.bits(),
            Some(&d),
        ),
        0
    );
    let params = EnableTraceParameters {
        version: ENABLE_TRACE_PARAMETERS_VERSION_2,
        enable_property: property.bits(),
        control_flags: 0,
        source_id: guid(40),
        enable_filter_desc: Some(vec![d.clone()]),
        filter_desc_count: 1,
    };
    assert_eq!(
        w2.enable_trace_ex2(s2.handle().0, Some(&g), 1, 3, 0x5, 0x1, 0, Some(&params)),
        0
    );
    assert_eq!(k1.snapshot(), k2.snapshot());
    assert_eq!(r1.all(), r2.all());
    assert_eq!(r1.last().source_id, guid(40));
    assert!(p1.is_enabled() && p2.is_enabled());
    let ei = k1.enable_slots(g)[0].unwrap().1;
    assert_eq!(
        (ei.level, ei.match_any_keyword, ei.enable_property),
        (Level::WARNING, Keyword(0x5), EnableProperty::SID)
    );
}

// rule: PRV-26
// rule: PRV-12
#[test]
fn enable_trace_on_an_unregistered_guid_pre_enables_and_its_flags_join_the_composite() {
    let k = kernel();
    let g = guid(1);
    let a = start(&k, "a");
    let b = start(&k, "b");
    let w = Win32::new(&k.system_process());
    // Not ERROR_WMI_GUID_NOT_FOUND: the GUID is recorded as a pre-enable.
    assert_eq!(w.enable_trace(1, 0x100, 5, Some(&g), a.handle().0), 0);
    let info = k.trace_guid_info(g).unwrap();
    assert_eq!(info.instances[0].flags, TRACE_PROVIDER_FLAG_PRE_ENABLE);
    assert_eq!(
        info.instances[0].enable_info[0].match_any_keyword,
        Keyword(0x100)
    );
    b.enable(g, &EnableParams::new().level(Level::ERROR).any(0x1))
        .unwrap();
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let _p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    let n = rec.last();
    assert_eq!(
        (n.level, n.match_any_keyword),
        (Level::VERBOSE, Keyword(0x101)),
        "legacy EnableFlags are ORed into MatchAnyKeyword"
    );
}

// rule: PRV-27
#[test]
fn a_rundown_request_takes_one_trace_handle_filter_on_system_trace_control_guid() {
    let k = kernel();
    let s = start(&k, "s");
    let other = start(&k, "other");
    let sys = k.system_process();
    let rundown = |target: TraceHandle, code: ControlCode, guid: Guid, h: u64| {
        k.enable_trace_ex2(
            &sys,
            Target::Handle(target),
            guid,
            code,
            &EnableParams::new().filter(EventFilter::TraceHandle(h)),
        )
    };
    let before = k.snapshot();
    rundown(
        s.handle(),
        ControlCode::CaptureState,
        Guid::SYSTEM_TRACE_CONTROL,
        other.handle().0,
    )
    .unwrap();
    assert_eq!(k.snapshot(), before);
    let invalid = Win32Error::ERROR_INVALID_PARAMETER;
    assert_rejected(&k, invalid, || {
        rundown(
            s.handle(),
            ControlCode::EnableProvider,
            Guid::SYSTEM_TRACE_CONTROL,
            other.handle().0,
        )
    });
    assert_rejected(&k, invalid, || {
        rundown(
            s.handle(),
            ControlCode::CaptureState,
            guid(1),
            other.handle().0,
        )
    });
    let gone = start(&k, "gone");
    let gone_handle = gone.handle().0;
    gone.stop().unwrap();
    assert_rejected(&k, invalid, || {
        rundown(
            s.handle(),
            ControlCode::CaptureState,
            Guid::SYSTEM_TRACE_CONTROL,
            gone_handle,
        )
    });
}

// rule: PRV-28
#[test]
fn kernel_event_groups_cannot_be_enabled_with_enable_trace_ex2() {
    let k = kernel();
    let s = start(&k, "s");
    let kl = start(&k, KERNEL_LOGGER_NAME);
    let sys_guid = Guid::SYSTEM_TRACE_CONTROL;
    let invalid = Win32Error::ERROR_INVALID_PARAMETER;
    for session in [&s, &kl] {
        assert_rejected(&k, invalid, || {
            session.enable(sys_guid, &EnableParams::new().any(0x1))
        });
        assert_rejected(&k, invalid, || session.disable(sys_guid));
        let w = Win32::new(&k.system_process());
        assert_rejected_code(&k, invalid, || {
            w.enable_trace_ex2(session.handle().0, Some(&sys_guid), 1, 4, 0x1, 0, 0, None)
        });
    }
    assert!(k.trace_guid_info(sys_guid).is_none());
}

// rule: PRV-29
#[test]
fn enumeration_lists_each_instance_with_one_enable_info_per_session() {
    let k = kernel();
    let g = guid(1);
    let x = user_process(&k, "x.exe");
    let y = user_process(&k, "y.exe");
    let _px = x.register_provider(g).unwrap();
    let _py = y.register_provider(g).unwrap();
    let s1 = start(&k, "s1");
    let s2 = start(&k, "s2");
    s1.enable(
        g,
        &EnableParams::new().property(EnableProperty::SID | EnableProperty::TS_ID),
    )
    .unwrap();
    s2.enable(
        g,
        &EnableParams::new()
            .level(Level::INFORMATION)
            .any(0xf0)
            .all(0x10)
            .filter(EventFilter::ExecutableName("y.exe".into())),
    )
    .unwrap();
    let info = k.trace_guid_info(g).unwrap();
    assert_eq!(info.guid, g);
    assert_eq!(info.instances.len(), 2);
    let ix = info.instances.iter().find(|i| i.pid == x.pid()).unwrap();
    let iy = info.instances.iter().find(|i| i.pid == y.pid()).unwrap();
    assert_eq!(
        ix.enable_info.len(),
        1,
        "EnableCount 1: the filter keeps s2 out"
    );
    assert_eq!(iy.enable_info.len(), 2);
    assert!(iy.enable_info.iter().all(|e| e.is_enabled));
    let e1 = ix.enable_info[0];
    assert_eq!(
        (
            e1.logger_id,
            e1.level,
            e1.match_any_keyword,
            e1.match_all_keyword,
            e1.enable_property
        ),
        (
            s1.logger_id(),
            Level(0),
            Keyword(0),
            Keyword(0),
            EnableProperty::SID | EnableProperty::TS_ID
        )
    );
    let e2 = iy
        .enable_info
        .iter()
        .find(|e| e.logger_id == s2.logger_id())
        .unwrap();
    assert_eq!(
        (e2.level, e2.match_any_keyword, e2.match_all_keyword),
        (Level::INFORMATION, Keyword(0xf0), Keyword(0x10))
    );
    assert_eq!(k.provider_guids(), vec![g]);
}

// ---------------------------------------------------------------------------------------------
// 2.4 Enabled checks and frameworks
// ---------------------------------------------------------------------------------------------

// rule: PRV-30
#[test]
fn enabled_checks_are_false_without_a_session_and_follow_level_and_keywords() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    assert!(!p.is_enabled());
    assert!(!p.is_enabled_for(Level(0), Keyword(0)));
    assert!(!p.event_enabled(&desc(1, 0x1)));
    let s = start(&k, "s");
    s.enable(
        g,
        &EnableParams::new().level(Level::WARNING).any(0x6).all(0x2),
    )
    .unwrap();
    assert!(p.is_enabled());
    assert!(p.event_enabled(&desc(3, 0x2)));
    assert!(p.event_enabled(&desc(0, 0x6)), "level 0 passes any level");
    assert!(p.event_enabled(&desc(1, 0)), "keyword 0 passes");
    assert!(!p.event_enabled(&desc(4, 0x2)), "too verbose");
    assert!(!p.event_enabled(&desc(3, 0x1)), "no MatchAny bit");
    assert!(!p.event_enabled(&desc(3, 0x4)), "lacks the MatchAll bit");

    let w = Win32::new(&app);
    let mut h = 0;
    assert_eq!(w.event_register(Some(&g), None, 0, Some(&mut h)), 0);
    assert!(w.event_enabled(h, &desc(3, 0x2)));
    assert!(!w.event_enabled(h, &desc(4, 0x2)));
    assert!(w.event_provider_enabled(h, 3, 0x2));
    assert!(!w.event_provider_enabled(h, 3, 0x1));
    assert!(!w.event_enabled(0, &desc(3, 0x2)), "NULL handle");
    assert!(!w.event_provider_enabled(0, 3, 0x2));
    assert!(!w.event_enabled(h + 1000, &desc(3, 0x2)), "unknown handle");

    // IGNORE_KEYWORD_0 in every session: keyword-0 events are known to be unwanted.
    s.enable(
        g,
        &EnableParams::new()
            .level(Level::WARNING)
            .any(0x6)
            .property(EnableProperty::IGNORE_KEYWORD_0),
    )
    .unwrap();
    assert!(!p.event_enabled(&desc(1, 0)));
    assert!(p.event_enabled(&desc(1, 0x2)));
}

// rule: PRV-30
// rule: PRV-31
#[test]
fn the_enabled_check_is_conservative_but_never_rejects_an_event_a_session_takes() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    let a = start(&k, "a");
    let b = start(&k, "b");
    a.enable(g, &EnableParams::new().level(Level::VERBOSE).any(0x1))
        .unwrap();
    b.enable(g, &EnableParams::new().level(Level::ERROR).any(0x2))
        .unwrap();
    // Verbose event with keyword 0x2: A lacks the keyword, B the level; the quick test still
    // says yes (conservative), the per-session predicate says no.
    let d = desc(5, 0x2);
    assert!(p.event_enabled(&d));
    assert!(p.targets(&EventView::new(&d)).is_empty());

    // Soundness over a grid of configurations and events.
    let configs: Vec<Vec<EnableParams>> = vec![
        vec![],
        vec![EnableParams::new()],
        vec![EnableParams::new().level(Level::WARNING).any(0x3).all(0x1)],
        vec![
            EnableParams::new().level(Level::CRITICAL).any(0x4),
            EnableParams::new().level(Level(0)).any(0x8).all(0x8),
        ],
        vec![
            EnableParams::new()
                .any(0x1)
                .property(EnableProperty::IGNORE_KEYWORD_0),
            EnableParams::new().level(Level::ERROR).any(0),
        ],
        vec![
            EnableParams::new()
                .level(Level::INFORMATION)
                .any(0xf)
                .property(EnableProperty::IGNORE_KEYWORD_0),
        ],
    ];
    let keywords = [0u64, 0x1, 0x2, 0x3, 0x4, 0x8, 0x9, 0xc, 0x10, 1 << 63];
    for (i, cfg) in configs.iter().enumerate() {
        a.disable(g).unwrap();
        b.disable(g).unwrap();
        for (s, params) in [&a, &b].into_iter().zip(cfg) {
            s.enable(g, params).unwrap();
        }
        for level in 0..=6u8 {
            for kw in keywords {
                let d = desc(level, kw);
                let taken = !p.targets(&EventView::new(&d)).is_empty();
                if taken {
                    assert!(
                        p.event_enabled(&d),
                        "config {i}: {d:?} taken but not enabled"
                    );
                }
                if !p.is_enabled() {
                    assert!(!taken);
                }
            }
        }
    }
}

// rule: PRV-32
// rule: PRV-11
// rule: PRV-12
#[test]
fn the_framework_test_on_callback_values_never_rejects_an_event_a_session_takes() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    let sessions: Vec<Session> = (0..3).map(|i| start(&k, &format!("s{i}"))).collect();
    let configs: Vec<Vec<EnableParams>> = vec![
        vec![EnableParams::new().level(Level::WARNING).any(0x3).all(0x1)],
        vec![EnableParams::new()],
        vec![
            EnableParams::new().level(Level::ERROR).any(0x6).all(0x6),
            EnableParams::new().level(Level::VERBOSE).any(0x1),
        ],
        vec![
            EnableParams::new().level(Level(0)).any(0x10),
            EnableParams::new().level(Level::CRITICAL).any(0x1).all(0x1),
        ],
        vec![
            EnableParams::new()
                .level(Level::INFORMATION)
                .any(0)
                .all(0xff),
            EnableParams::new().level(Level::ERROR).any(0x2).all(0x2),
            EnableParams::new().level(Level(20)).any(0x8000).all(0x8000),
        ],
    ];
    let keywords = [
        0u64,
        0x1,
        0x2,
        0x3,
        0x4,
        0x6,
        0x10,
        0x11,
        0x8000,
        0xff,
        u64::MAX,
    ];
    for (i, cfg) in configs.iter().enumerate() {
        for s in &sessions {
            s.disable(g).unwrap();
        }
        for (s, params) in sessions.iter().zip(cfg) {
            s.enable(g, params).unwrap();
        }
        // What a TraceLogging-style provider stores from its last callback.
        let n = rec.last();
        let enabled = n.is_enabled == ControlCode::EnableProvider;
        let (l, any, all) = (n.level.0, n.match_any_keyword.0, n.match_all_keyword.0);
        for level in [0u8, 1, 2, 3, 4, 5, 6, 20, 21, 255] {
            for kw in keywords {
                let framework =
                    enabled && level <= l && (kw == 0 || ((kw & any) != 0 && (kw & all) == all));
                let d = desc(level, kw);
                let taken = !p.targets(&EventView::new(&d)).is_empty();
                assert!(
                    framework || !taken,
                    "config {i}: the framework test drops {d:?}, which a session takes"
                );
                assert_eq!(
                    framework,
                    p.is_enabled_for(Level(level), Keyword(kw)),
                    "config {i}: {d:?}"
                );
            }
        }
    }
}

// rule: PRV-33
#[test]
fn tracelogging_register_is_event_register_then_traits() {
    let k = kernel();
    let g = guid(1);
    let group = guid(50);
    let app = user_process(&k, "app.exe");
    let traits = ProviderTraits::new("MyCompany.MyComponent").with_group(group);
    let p = app.register_tracelogging(g, &traits).unwrap();
    assert!(p.is_registered());
    assert_eq!(p.traits(), Some(traits.clone()));
    assert_eq!(p.traits().unwrap().group(), Some(group));
    assert!(p.uses_descriptor_type());
    let info = k.trace_guid_info(g).unwrap();
    assert_eq!(
        (info.instances[0].pid, info.instances[0].flags),
        (app.pid(), 0)
    );

    // TraceLoggingProviderEnabled(0, 0): "any level", "no specific keyword".
    assert!(!p.is_enabled_for(Level(0), Keyword(0)));
    let s = start(&k, "s");
    s.enable(g, &EnableParams::new().level(Level::CRITICAL).any(0x1))
        .unwrap();
    assert!(p.is_enabled_for(Level(0), Keyword(0)));
    assert!(!p.is_enabled_for(Level::ERROR, Keyword(0)));

    // Unregister and register again: a fresh registration, traits set again.
    p.unregister().unwrap();
    let p2 = app.register_tracelogging(g, &traits).unwrap();
    assert_eq!(p2.traits(), Some(traits));
}

// rule: PRV-33
#[test]
fn a_failing_tracelogging_register_leaves_nothing_registered() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    // A name with an embedded NUL makes a traits blob whose "trait" runs past the end.
    let bad = ProviderTraits::new("bad\0name");
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        app.register_tracelogging(g, &bad)
    });
    assert!(k.trace_guid_info(g).is_none());
    let good = app
        .register_tracelogging(g, &ProviderTraits::new("good"))
        .unwrap();
    assert_eq!(good.traits().unwrap().name, "good");
}

// rule: PRV-34
#[test]
fn the_traits_blob_has_the_documented_layout() {
    assert_eq!((TRAIT_TYPE_GROUP, TRAIT_TYPE_DECODE_GUID), (1, 2));
    let group = guid(50);
    let t = ProviderTraits::new("Ab").with_group(group);
    let b = t.to_bytes().unwrap();
    assert_eq!(b.len(), 2 + 3 + 3 + 16);
    assert_eq!(&b[0..2], &24u16.to_le_bytes(), "TotalSize includes itself");
    assert_eq!(&b[2..5], b"Ab\0");
    assert_eq!(&b[5..7], &19u16.to_le_bytes(), "trait Size includes itself");
    assert_eq!(b[7], TRAIT_TYPE_GROUP);
    assert_eq!(&b[8..24], &group.to_bytes_le());
    assert_eq!(ProviderTraits::parse(&b).unwrap(), t);

    // A decode-GUID trait and a vendor trait (type ≥ 128) parse alongside.
    let decode = guid(51);
    let mut blob = vec![0, 0];
    blob.extend_from_slice(b"P\0");
    blob.extend_from_slice(&19u16.to_le_bytes());
    blob.push(TRAIT_TYPE_DECODE_GUID);
    blob.extend_from_slice(&decode.to_bytes_le());
    blob.extend_from_slice(&5u16.to_le_bytes());
    blob.push(200);
    blob.extend_from_slice(&[7, 8]);
    let total = blob.len() as u16;
    blob[..2].copy_from_slice(&total.to_le_bytes());
    let parsed = ProviderTraits::parse(&blob).unwrap();
    assert_eq!(parsed.name, "P");
    assert_eq!(parsed.decode_guid(), Some(decode));
    assert_eq!(parsed.group(), None);
    assert_eq!(parsed.traits[1], (200, vec![7, 8]));
    assert_eq!(parsed.to_bytes().unwrap(), blob);
}

// rule: PRV-34
#[test]
fn traits_can_be_set_only_once_per_registration() {
    let k = kernel();
    let g = guid(1);
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    assert!(!p.uses_descriptor_type());
    let first = ProviderTraits::new("First");
    p.set_traits(&first).unwrap();
    assert!(
        p.uses_descriptor_type(),
        "traits make ETW honour the Type byte"
    );
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        p.set_traits(&ProviderTraits::new("Second"))
    });
    assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
        p.set_information(
            EventInfoClass::SetTraits as u32,
            &ProviderTraits::new("Third").to_bytes().unwrap(),
        )
    });
    assert_eq!(p.traits(), Some(first));
    // Once per registration: another registration of the same GUID sets its own.
    let q = app.register_provider(g).unwrap();
    q.set_traits(&ProviderTraits::new("Other")).unwrap();
    assert_eq!(q.traits().unwrap().name, "Other");
}

// rule: PRV-34
#[test]
fn malformed_traits_blobs_are_refused_and_leave_the_registration_unchanged() {
    let k = kernel();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(guid(1)).unwrap();
    let good = ProviderTraits::new("Name")
        .with_group(guid(2))
        .to_bytes()
        .unwrap();
    let mut wrong_total = good.clone();
    wrong_total[0] += 1;
    let mut no_nul = vec![0, 0];
    no_nul.extend_from_slice(b"Name");
    let n = no_nul.len() as u16;
    no_nul[..2].copy_from_slice(&n.to_le_bytes());
    let mut past_end = good.clone();
    past_end[7] = 0xff; // the group trait's Size (bytes 7..9 after "Name\0") runs past the end
    past_end[8] = 0x00;
    let mut tiny_trait = good[..7].to_vec();
    tiny_trait.extend_from_slice(&[2, 0, 1]); // Size 2 < its own 3-byte header
    let t = tiny_trait.len() as u16;
    tiny_trait[..2].copy_from_slice(&t.to_le_bytes());
    let set_traits = EventInfoClass::SetTraits as u32;
    for blob in [
        wrong_total,
        no_nul,
        past_end,
        tiny_trait,
        vec![],
        vec![3, 0],
    ] {
        assert_rejected(&k, Win32Error::ERROR_INVALID_PARAMETER, || {
            p.set_information(set_traits, &blob)
        });
        assert_eq!(p.traits(), None);
        assert!(!p.uses_descriptor_type());
    }
    p.set_information(set_traits, &good).unwrap();
    assert_eq!(p.traits().unwrap().group(), Some(guid(2)));
}

// rule: PRV-35
#[test]
fn event_set_information_classes_have_their_documented_values() {
    assert_eq!(EventInfoClass::BinaryTrackInfo as u32, 0);
    assert_eq!(EventInfoClass::SetReserved1 as u32, 1);
    assert_eq!(EventInfoClass::SetTraits as u32, 2);
    assert_eq!(EventInfoClass::UseDescriptorType as u32, 3);
    for v in 0..4 {
        assert_eq!(EventInfoClass::from_raw(v).map(|c| c as u32), Some(v));
    }
    assert_eq!(EventInfoClass::from_raw(4), None);

    let k = kernel();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(guid(1)).unwrap();
    p.set_information(3, &[1]).unwrap();
    assert!(p.uses_descriptor_type());
    p.set_information(3, &[0]).unwrap();
    assert!(!p.uses_descriptor_type());
    let invalid = Win32Error::ERROR_INVALID_PARAMETER;
    assert_rejected(&k, invalid, || p.set_information(3, &[]));
    assert_rejected(&k, invalid, || p.set_information(3, &[1, 0]));
    assert!(!p.uses_descriptor_type());
    p.set_information(0, b"binary track info").unwrap();
    p.set_information(1, &[]).unwrap();
    assert_eq!(p.traits(), None);
    assert!(!p.uses_descriptor_type());
    // EventSetInformation documents ERROR_NOT_SUPPORTED for a class it does not recognise.
    for class in [4, 5, u32::MAX] {
        assert_rejected(&k, Win32Error::ERROR_NOT_SUPPORTED, || {
            p.set_information(class, &[1])
        });
    }
    app.exit();
    assert_rejected(&k, Win32Error::ERROR_INVALID_HANDLE, || {
        p.set_information(3, &[1])
    });
}

type Heard = Arc<Mutex<Vec<(ControlCode, u8, u64)>>>;

/// A registration of `g` that logs its callbacks (code, level, MatchAny).
fn listening(app: &etwsim::Process, g: Guid) -> (etwsim::Provider, Heard) {
    let heard: Heard = Arc::default();
    let h = heard.clone();
    let p = app
        .register_provider_with_callback(g, move |n: &EnableNotification| {
            h.lock()
                .unwrap()
                .push((n.is_enabled, n.level.0, n.match_any_keyword.0))
        })
        .unwrap();
    (p, heard)
}

#[test]
fn a_provider_group_enable_reaches_every_member_present_and_future() {
    // rule: PRV-36
    // rule: FLT-10
    let k = kernel();
    let group = guid(50);
    let app = user_process(&k, "app.exe");
    let (early, early_heard) = listening(&app, guid(1));
    early
        .set_traits(&ProviderTraits::new("Early").with_group(group))
        .unwrap();
    let outsider = app
        .register_tracelogging(guid(2), &ProviderTraits::new("Outsider"))
        .unwrap();
    let sink = etwsim::MemorySink::new();
    let s = k
        .session("grp")
        .log_file("grp.etl")
        .sink(sink.clone())
        .start()
        .unwrap();
    let as_group = EnableParams::new()
        .level(Level::WARNING)
        .any(0x10)
        .property(EnableProperty::PROVIDER_GROUP);
    s.enable(group, &as_group).unwrap();
    // The member is enabled with the group's level and keywords; the outsider is not.
    assert!(early.is_enabled_for(Level::WARNING, Keyword(0x10)));
    assert!(!early.is_enabled_for(Level::INFORMATION, Keyword(0x10)));
    assert!(!early.is_enabled_for(Level::WARNING, Keyword(0x20)));
    assert!(!outsider.is_enabled());
    assert_eq!(
        *early_heard.lock().unwrap(),
        [(ControlCode::EnableProvider, 3, 0x10)]
    );
    // A registration that joins later is enabled as it joins, its callback before
    // EventSetInformation returns.
    let (late, late_heard) = listening(&app, guid(3));
    assert!(!late.is_enabled());
    late.set_traits(&ProviderTraits::new("Late").with_group(group))
        .unwrap();
    assert!(late.is_enabled_for(Level::WARNING, Keyword(0x10)));
    assert_eq!(
        *late_heard.lock().unwrap(),
        [(ControlCode::EnableProvider, 3, 0x10)]
    );
    // Both members' events reach the session; one level too verbose does not.
    let d = EventDescriptor::new(7, Level::WARNING, Keyword(0x10));
    early.write(&d, &[b"e"]).unwrap();
    late.write(&d, &[b"l"]).unwrap();
    late.write(&EventDescriptor::new(8, Level::VERBOSE, Keyword(0x10)), &[])
        .unwrap();
    // The same session enabling a member directly as well routes it once, with the
    // member's own settings (the project's choice).
    s.enable(
        guid(3),
        &EnableParams::new().level(Level::VERBOSE).any(0x10),
    )
    .unwrap();
    late.write(&EventDescriptor::new(9, Level::VERBOSE, Keyword(0x10)), &[])
        .unwrap();
    s.flush().unwrap();
    let got: Vec<(Guid, u16)> = sink
        .records()
        .iter()
        .map(|r| (r.header.provider_id, r.header.descriptor.id))
        .collect();
    assert_eq!(got, [(guid(1), 7), (guid(3), 7), (guid(3), 9)]);
    // Disabling the group (DISABLE_PROVIDER with the property) disables its members; the one
    // also enabled directly stays.
    let disable_group = |s: &Session| {
        k.enable_trace_ex2(
            &k.system_process(),
            Target::Handle(s.handle()),
            group,
            ControlCode::DisableProvider,
            &EnableParams::new().property(EnableProperty::PROVIDER_GROUP),
        )
    };
    disable_group(&s).unwrap();
    assert!(!early.is_enabled());
    assert!(late.is_enabled());
    assert_eq!(
        early_heard.lock().unwrap().last(),
        Some(&(ControlCode::DisableProvider, 0, 0))
    );
    // Enabled again, then the session stops: the members are let go.
    s.enable(group, &as_group).unwrap();
    assert!(early.is_enabled());
    s.stop().unwrap();
    assert!(!early.is_enabled() && !late.is_enabled());
    // Unregistering a member leaves the group: a later group enable reaches the remaining
    // member (its callback) and not the unregistered one (no callback), nor the outsider.
    let s2 = start(&k, "again");
    let (early_calls, late_calls) = (
        early_heard.lock().unwrap().len(),
        late_heard.lock().unwrap().len(),
    );
    early.unregister().unwrap();
    s2.enable(group, &as_group).unwrap();
    assert!(late.is_enabled_for(Level::WARNING, Keyword(0x10)));
    assert_eq!(late_heard.lock().unwrap().len(), late_calls + 1);
    assert_eq!(early_heard.lock().unwrap().len(), early_calls);
    assert!(!outsider.is_enabled());
    // Without the property the group GUID is just another provider GUID: no member is enabled.
    let s3 = start(&k, "plain");
    disable_group(&s2).unwrap();
    s3.enable(group, &EnableParams::new()).unwrap();
    assert!(!late.is_enabled());
}

#[test]
fn provider_group_enables_refuse_what_groups_cannot_take() {
    // rule: PRV-36
    let k = kernel();
    let group = guid(50);
    let app = user_process(&k, "app.exe");
    let member = app
        .register_tracelogging(guid(1), &ProviderTraits::new("Member").with_group(group))
        .unwrap();
    assert_eq!(member.traits().unwrap().group(), Some(group));
    let s = start(&k, "s");
    let invalid = Win32Error::ERROR_INVALID_PARAMETER;
    // Event-ID, event-name and payload filters do not apply to groups: refused (the project's
    // choice of code).
    for f in [
        EventFilter::EventId {
            filter_in: true,
            ids: vec![1],
        },
        EventFilter::Payload(vec![0; 8]),
    ] {
        let p = EnableParams::new()
            .property(EnableProperty::PROVIDER_GROUP)
            .filter(f);
        assert_rejected(&k, invalid, || s.enable(group, &p));
    }
    // Private sessions cannot control groups.
    let private = k
        .session("priv")
        .mode(etwsim::LogFileMode::PRIVATE_LOGGER)
        .guid(guid(1))
        .log_file("p.etl")
        .caller(&app)
        .start()
        .unwrap();
    let as_group = EnableParams::new().property(EnableProperty::PROVIDER_GROUP);
    assert_rejected(&k, invalid, || private.enable(group, &as_group));
    assert!(!member.is_enabled());
    // The Win32 face takes the property in ENABLE_TRACE_PARAMETERS.
    let w = Win32::new(&k.system_process());
    let params = EnableTraceParameters::v2(EnableProperty::PROVIDER_GROUP, &[]);
    assert_eq!(
        w.enable_trace_ex2(s.handle().0, Some(&group), 1, 4, 0, 0, 0, Some(&params)),
        0
    );
    assert!(member.is_enabled());
    // A ninth session enabling the group finds no free slot.
    for i in 0..7 {
        start(&k, &format!("g{i}"))
            .enable(group, &as_group)
            .unwrap();
    }
    let ninth = start(&k, "ninth");
    assert_rejected(&k, Win32Error::ERROR_NO_SYSTEM_RESOURCES, || {
        ninth.enable(group, &as_group)
    });
}
