//! Filtering behaviour: the level and keyword rules, EnableProperty, every filter descriptor
//! type with its wire layout and limits, scope filters, per-session routing and the
//! conservativeness of `is_enabled_for` (rules FLT-01…FLT-27 and Appendix A).

use crate::common;
use common::*;
use etwsim::filter::{
    EVENT_FILTER_HEADER_SIZE, MAX_EVENT_FILTER_DATA_SIZE, MAX_EVENT_FILTER_EVENT_ID_COUNT,
    MAX_EVENT_FILTER_EVENT_NAME_SIZE, MAX_EVENT_FILTER_PAYLOAD_SIZE, MAX_EVENT_FILTER_PID_COUNT,
    MAX_EVENT_FILTERS_COUNT, wants_stack,
};
use etwsim::win32::{
    ENABLE_TRACE_PARAMETERS_VERSION, ENABLE_TRACE_PARAMETERS_VERSION_2, ERROR_SUCCESS,
    EVENT_CONTROL_CODE_CAPTURE_STATE, EVENT_CONTROL_CODE_ENABLE_PROVIDER, EnableTraceParameters,
    EventFilterDescriptor, INFINITE, Win32,
};
use etwsim::{
    ClassicNotification, ControlCode, EnableParams, EnableProperty, EventDescriptor, EventFilter,
    EventView, FilterSet, FilterType, Guid, Kernel, Keyword, Level, LogFileMode, NameFilter,
    ProcessSpec, Provider, Session, SlotFilter, Target, Token, TraceHandle, Win32Error,
};
use std::sync::{Arc, Mutex};

const INVALID: Win32Error = Win32Error::ERROR_INVALID_PARAMETER;

// ---------------------------------------------------------------------------------------------
// helpers

fn desc(id: u16, level: u8, keyword: u64) -> EventDescriptor {
    EventDescriptor::new(id, Level(level), Keyword(keyword))
}

/// The sessions that would record a manifest-style event.
fn targets(p: &Provider, d: &EventDescriptor) -> Vec<TraceHandle> {
    p.targets(&EventView::new(d))
}

/// The sessions that would record a TraceLogging event called `name`.
fn tl_targets(p: &Provider, d: &EventDescriptor, name: &str) -> Vec<TraceHandle> {
    p.targets(&EventView {
        name: Some(name),
        ..EventView::new(d)
    })
}

fn accepts(p: &Provider, s: &Session, d: &EventDescriptor) -> bool {
    targets(p, d).contains(&s.handle())
}

fn tl_accepts(p: &Provider, s: &Session, d: &EventDescriptor, name: &str) -> bool {
    tl_targets(p, d, name).contains(&s.handle())
}

/// The enable slot the session holds in the GUID entry.
fn slot_of(k: &Kernel, g: Guid, s: &Session) -> u8 {
    k.enable_slots(g)
        .iter()
        .position(|e| e.as_ref().is_some_and(|(h, _)| *h == s.handle()))
        .expect("the session enables the GUID") as u8
}

fn slot_filter(property: EnableProperty, filters: &[EventFilter]) -> SlotFilter {
    SlotFilter {
        level: Level(0),
        match_any: Keyword(0),
        match_all: Keyword(0),
        enable_property: property,
        filters: FilterSet::new(filters).expect("valid filters"),
    }
}

fn win32(k: &Kernel) -> Win32 {
    Win32::new(&k.system_process())
}

fn raw_desc(ty: FilterType, data: Vec<u8>) -> EventFilterDescriptor {
    EventFilterDescriptor {
        size: data.len() as u32,
        ptr: Some(data),
        filter_type: ty.0,
    }
}

fn raw_params(descs: Vec<EventFilterDescriptor>) -> EnableTraceParameters {
    EnableTraceParameters {
        version: ENABLE_TRACE_PARAMETERS_VERSION_2,
        enable_property: 0,
        control_flags: 0,
        source_id: Guid::NULL,
        filter_desc_count: descs.len() as u32,
        enable_filter_desc: (!descs.is_empty()).then_some(descs),
    }
}

/// EnableTraceEx2(ENABLE_PROVIDER, level 0, any 0, all 0) with raw parameters.
fn raw_enable(w: &Win32, s: &Session, g: Guid, params: &EnableTraceParameters) -> u32 {
    w.enable_trace_ex2(
        s.handle().0,
        Some(&g),
        EVENT_CONTROL_CODE_ENABLE_PROVIDER,
        0,
        0,
        0,
        INFINITE,
        Some(params),
    )
}

fn utf16z(s: &str) -> Vec<u8> {
    s.encode_utf16()
        .chain(std::iter::once(0))
        .flat_map(u16::to_le_bytes)
        .collect()
}

fn names(match_any: u64, match_all: u64, level: u8, filter_in: bool, n: &[&str]) -> NameFilter {
    NameFilter {
        match_any: Keyword(match_any),
        match_all: Keyword(match_all),
        level: Level(level),
        filter_in,
        names: n.iter().map(|s| s.to_string()).collect(),
    }
}

fn ids(filter_in: bool, ids: &[u16]) -> EventFilter {
    EventFilter::EventId {
        filter_in,
        ids: ids.to_vec(),
    }
}

#[allow(clippy::too_many_arguments)]
/// Appendix A's `session_accepts` written out independently of the engine (modern provider,
/// FLT-06 choice: MatchAll unused when MatchAny is 0).
fn oracle(
    ev_level: u8,
    ev_kw: u64,
    mask: u64,
    inprivate: bool,
    slot: u8,
    level: u8,
    any: u64,
    all: u64,
    prop: EnableProperty,
) -> bool {
    let eff_level = if level == 0 { 255 } else { level };
    if ev_level != 0 && ev_level > eff_level {
        return false;
    }
    if ev_kw == 0 {
        if prop.contains(EnableProperty::IGNORE_KEYWORD_0) {
            return false;
        }
    } else {
        let eff_any = if any == 0 { u64::MAX } else { any };
        if ev_kw & eff_any == 0 {
            return false;
        }
        if any != 0 && ev_kw & all != all {
            return false;
        }
    }
    if mask & (1 << slot) != 0 {
        return false;
    }
    if inprivate && prop.contains(EnableProperty::EXCLUDE_INPRIVATE) {
        return false;
    }
    true
}

// ---------------------------------------------------------------------------------------------
// 3.1 level and keyword

#[test]
fn event_level_passes_at_or_below_the_session_level_and_level_zero_always_passes() {
    // rule: FLT-01
    let k = kernel();
    let g = guid(1);
    let s = k.session("lvl").start().unwrap();
    s.enable(g, &EnableParams::new().level(Level::WARNING))
        .unwrap();
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    for (level, want) in [
        (0, true),
        (1, true),
        (2, true),
        (3, true),
        (4, false),
        (5, false),
        (16, false),
        (255, false),
    ] {
        assert_eq!(
            accepts(&p, &s, &desc(1, level, 0)),
            want,
            "event level {level}"
        );
        assert_eq!(
            p.is_enabled_for(Level(level), Keyword(0)),
            want,
            "is_enabled_for level {level}"
        );
    }
}

#[test]
fn session_level_zero_disables_level_filtering_like_255() {
    // rule: FLT-02
    let k = kernel();
    let g = guid(2);
    let zero = k.session("zero").start().unwrap();
    let max = k.session("max").start().unwrap();
    let verbose = k.session("verbose").start().unwrap();
    zero.enable(g, &EnableParams::new().level(Level(0)))
        .unwrap();
    max.enable(g, &EnableParams::new().level(Level::MAX))
        .unwrap();
    verbose
        .enable(g, &EnableParams::new().level(Level::VERBOSE))
        .unwrap();
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    for level in 0..=255u8 {
        let t = targets(&p, &desc(1, level, 0));
        assert_eq!(
            t.contains(&zero.handle()),
            t.contains(&max.handle()),
            "level {level}"
        );
        assert!(t.contains(&zero.handle()), "level {level}");
        assert_eq!(t.contains(&verbose.handle()), level <= 5, "level {level}");
    }
    // The stored value stays 0 (TRACE_ENABLE_INFO reports what the controller asked for),
    // the registration's effective composite is 255.
    let slot = slot_of(&k, g, &zero) as usize;
    assert_eq!(k.enable_slots(g)[slot].as_ref().unwrap().1.level, Level(0));
    verbose.disable(g).unwrap();
    max.disable(g).unwrap();
    assert_eq!(p.enable_state().level, Level::MAX);
    assert!(p.is_enabled_for(Level(255), Keyword(0)));
}

#[test]
fn level_values_and_provider_defined_levels_filter_numerically() {
    // rule: FLT-03
    assert_eq!(
        [
            Level::LOG_ALWAYS,
            Level::CRITICAL,
            Level::ERROR,
            Level::WARNING,
            Level::INFORMATION,
            Level::VERBOSE,
            Level::MIN,
            Level::MAX
        ]
        .map(|l| l.0),
        [0, 1, 2, 3, 4, 5, 0, 255]
    );
    assert_eq!(Level(0).name(), Some("LogAlways"));
    assert_eq!(Level(4).name(), Some("Informational"));
    assert!((6..=15).all(|l| Level(l).is_reserved() && !Level(l).is_provider_defined()));
    assert!((16..=255).all(|l| Level(l).is_provider_defined() && !Level(l).is_reserved()));
    assert!(!Level(5).is_reserved() && !Level(5).is_provider_defined());

    // Provider-defined and reserved levels are ordinary numbers for the level rule.
    let k = kernel();
    let g = guid(3);
    let custom = k.session("custom").start().unwrap();
    let verbose = k.session("verbose").start().unwrap();
    custom
        .enable(g, &EnableParams::new().level(Level(200)))
        .unwrap();
    verbose
        .enable(g, &EnableParams::new().level(Level::VERBOSE))
        .unwrap();
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    assert!(accepts(&p, &custom, &desc(1, 16, 0)));
    assert!(accepts(&p, &custom, &desc(1, 200, 0)));
    assert!(!accepts(&p, &custom, &desc(1, 201, 0)));
    assert!(!accepts(&p, &verbose, &desc(1, 6, 0)));
    assert!(!accepts(&p, &verbose, &desc(1, 16, 0)));
}

#[test]
fn keyword_rule_needs_one_any_bit_and_every_all_bit_and_keyword_zero_bypasses() {
    // rule: FLT-04
    let k = kernel();
    let g = guid(4);
    let s = k.session("kw").start().unwrap();
    s.enable(
        g,
        &EnableParams::new().level(Level::ERROR).any(0x0C).all(0x03),
    )
    .unwrap();
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    for (kw, want) in [
        (0x00, true),  // uncategorised: bypasses the keyword rule
        (0x03, false), // every All bit, but no Any bit
        (0x0C, false), // Any bits, but not the All bits
        (0x07, true),  // Any bit 0x4 and All 0x3
        (0x0F, true),
        (0x0B, true),  // Any bit 0x8 and All 0x3
        (0x05, false), // Any bit 0x4, only half of All
        (0x30, false),
    ] {
        assert_eq!(accepts(&p, &s, &desc(1, 2, kw)), want, "keyword {kw:#x}");
    }
    // Both rules must pass: the right keywords at a too-verbose level are dropped.
    assert!(!accepts(&p, &s, &desc(1, 3, 0x07)));
    assert!(!accepts(&p, &s, &desc(1, 3, 0)));
    assert!(accepts(&p, &s, &desc(1, 0, 0x07)));
}

#[test]
fn match_any_zero_means_every_keyword_for_modern_providers() {
    // rule: FLT-05
    let k = kernel();
    let g = guid(5);
    let zero = k.session("zero").start().unwrap();
    let one = k.session("one").start().unwrap();
    zero.enable(g, &EnableParams::new().any(0)).unwrap();
    one.enable(g, &EnableParams::new().any(0x1)).unwrap();
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    for kw in [
        0x1u64,
        0x2,
        0x8000_0000,
        0x1_0000_0000,
        0x0000_8000_0000_0000,
        0x0001_0000_0000_0000,
        0x8000_0000_0000_0000,
        u64::MAX,
    ] {
        assert!(accepts(&p, &zero, &desc(1, 4, kw)), "keyword {kw:#x}");
        assert_eq!(accepts(&p, &one, &desc(1, 4, kw)), kw & 1 != 0);
    }
    one.disable(g).unwrap();
    assert_eq!(p.enable_state().match_any, Keyword::ALL);
    assert!(p.is_enabled_for(Level(4), Keyword(0x8000_0000_0000_0000)));
}

/// Records a classic provider's control callbacks.
fn classic_recorder() -> (
    Arc<Mutex<Vec<ClassicNotification>>>,
    impl Fn(&ClassicNotification) + Send + Sync + 'static,
) {
    let log = Arc::new(Mutex::new(Vec::new()));
    let l = log.clone();
    (log, move |n: &ClassicNotification| {
        l.lock().unwrap().push(n.clone())
    })
}

#[test]
fn classic_providers_get_level_and_low_32_bits_of_any_and_zero_stays_zero() {
    // rule: FLT-05
    // rule: FLT-27
    let k = kernel();
    let g = guid(6);
    let app = user_process(&k, "legacy.exe");
    let (log, cb) = classic_recorder();
    let classic = app.register_trace_guids(g, cb).unwrap();
    let a = k.session("a").start().unwrap();
    a.enable(g, &EnableParams::new().level(Level::INFORMATION).any(0))
        .unwrap();
    {
        let last = log.lock().unwrap().last().cloned().unwrap();
        assert_eq!(last.request_code, etwsim::WMI_ENABLE_EVENTS);
        assert_eq!(last.enable_level, Level::INFORMATION);
        assert_eq!(
            last.enable_flags, 0,
            "Any 0 is not widened for a classic provider"
        );
    }
    assert_eq!(classic.enable_flags(), 0);
    a.enable(
        g,
        &EnableParams::new()
            .level(Level::ERROR)
            .any(0xFFFF_FFFF_0000_00F0),
    )
    .unwrap();
    let last = log.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        last.enable_flags, 0xF0,
        "only the low 32 bits reach the provider"
    );
    assert_eq!(last.enable_level, Level::ERROR);
    assert_eq!(classic.enable_flags(), 0xF0);
    assert_eq!(classic.enable_level(), Level::ERROR);
    assert_eq!(classic.logger_handle(), Some(a.handle()));

    // No multi-session routing: a second session takes the provider over.
    let b = k.session("b").start().unwrap();
    b.enable(g, &EnableParams::new().level(Level::VERBOSE).any(0x3))
        .unwrap();
    assert_eq!(classic.logger_handle(), Some(b.handle()));
    assert_eq!(classic.enable_flags(), 0x3);
    assert_eq!(classic.enable_level(), Level::VERBOSE);
    let last = log.lock().unwrap().last().cloned().unwrap();
    assert_eq!(last.logger_handle, b.handle());
    assert_eq!(last.enable_flags, 0x3);
}

#[test]
fn match_all_is_ignored_when_match_any_is_zero_a_choice() {
    // rule: FLT-06
    let k = kernel();
    let g = guid(7);
    let zero_any = k.session("zero-any").start().unwrap();
    let all_ones = k.session("all-ones").start().unwrap();
    zero_any
        .enable(g, &EnableParams::new().any(0).all(0x3))
        .unwrap();
    all_ones
        .enable(g, &EnableParams::new().any(u64::MAX).all(0x3))
        .unwrap();
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    // Choice (AutoLogger page): MatchAll is not used when MatchAny is 0.
    assert!(accepts(&p, &zero_any, &desc(1, 4, 0x1)));
    assert!(accepts(&p, &zero_any, &desc(1, 4, 0x40)));
    // Any widened explicitly to all-ones keeps MatchAll in force.
    assert!(!accepts(&p, &all_ones, &desc(1, 4, 0x1)));
    assert!(accepts(&p, &all_ones, &desc(1, 4, 0x3)));
    all_ones.disable(g).unwrap();
    assert_eq!(p.enable_state().match_all, Keyword(0));
    assert!(p.is_enabled_for(Level(4), Keyword(0x40)));
}

#[test]
fn ignore_keyword_0_drops_uncategorised_events_for_that_session_only() {
    // rule: FLT-07
    let k = kernel();
    let g = guid(8);
    let ignoring = k.session("ignoring").start().unwrap();
    let plain = k.session("plain").start().unwrap();
    ignoring
        .enable(
            g,
            &EnableParams::new().property(EnableProperty::IGNORE_KEYWORD_0),
        )
        .unwrap();
    plain.enable(g, &EnableParams::new()).unwrap();
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    assert_eq!(targets(&p, &desc(1, 4, 0)), vec![plain.handle()]);
    assert_eq!(targets(&p, &desc(1, 0, 0)), vec![plain.handle()]);
    assert_eq!(
        targets(&p, &desc(1, 4, 0x1)),
        vec![ignoring.handle(), plain.handle()]
    );
    assert!(p.enable_state().keyword_zero);
    plain.disable(g).unwrap();
    assert!(!p.enable_state().keyword_zero);
    assert!(!p.is_enabled_for(Level(0), Keyword(0)));
    assert!(p.is_enabled_for(Level(0), Keyword(1)));
    assert!(targets(&p, &desc(1, 0, 0)).is_empty());
    assert_eq!(targets(&p, &desc(1, 0, 0x1)), vec![ignoring.handle()]);
}

#[test]
fn microsoft_keyword_bits_are_ordinary_bits_in_filtering() {
    // rule: FLT-08
    assert_eq!(Keyword::PROVIDER_MASK.0, 0x0000_FFFF_FFFF_FFFF);
    assert_eq!(Keyword::RESERVED_MASK.0, 0xFFFF_0000_0000_0000);
    assert_eq!(
        [
            Keyword::RESPONSE_TIME,
            Keyword::WDI_DIAG,
            Keyword::SQM,
            Keyword::AUDIT_FAILURE,
            Keyword::AUDIT_SUCCESS,
            Keyword::CORRELATION_HINT,
            Keyword::EVENTLOG_CLASSIC,
        ]
        .map(|k| k.0),
        [
            0x0001_0000_0000_0000,
            0x0004_0000_0000_0000,
            0x0008_0000_0000_0000,
            0x0010_0000_0000_0000,
            0x0020_0000_0000_0000,
            0x0040_0000_0000_0000,
            0x0080_0000_0000_0000,
        ]
    );
    let k = kernel();
    let g = guid(9);
    let ms = k.session("ms").start().unwrap();
    let provider_bits = k.session("provider-bits").start().unwrap();
    ms.enable(
        g,
        &EnableParams::new()
            .any((Keyword::RESPONSE_TIME | Keyword::AUDIT_SUCCESS).0)
            .all(Keyword::AUDIT_SUCCESS.0),
    )
    .unwrap();
    provider_bits
        .enable(g, &EnableParams::new().any(Keyword::PROVIDER_MASK.0))
        .unwrap();
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    let kw = |k: Keyword| desc(1, 4, k.0);
    assert!(accepts(&p, &ms, &kw(Keyword::AUDIT_SUCCESS)));
    assert!(!accepts(&p, &ms, &kw(Keyword::RESPONSE_TIME)));
    assert!(accepts(
        &p,
        &ms,
        &kw(Keyword::RESPONSE_TIME | Keyword::AUDIT_SUCCESS)
    ));
    assert!(!accepts(
        &p,
        &ms,
        &kw(Keyword(0x1) | Keyword::AUDIT_FAILURE)
    ));
    assert!(!accepts(&p, &provider_bits, &kw(Keyword::EVENTLOG_CLASSIC)));
    assert!(!accepts(&p, &provider_bits, &kw(Keyword(1 << 63))));
    assert!(accepts(
        &p,
        &provider_bits,
        &kw(Keyword(0x1) | Keyword::EVENTLOG_CLASSIC)
    ));
}

#[test]
fn any_64_bit_keyword_is_accepted_at_run_time() {
    // rule: FLT-09
    // Multi-bit keywords and bits 48–63 (which a manifest cannot define) are not checked at
    // run time: they are filtered like any other bits.
    let k = kernel();
    let g = guid(10);
    let reserved = k.session("reserved").start().unwrap();
    reserved
        .enable(g, &EnableParams::new().any(0xFF00_0000_0000_0000))
        .unwrap();
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    for kw in [0xFF00_0000_0000_0001u64, 0x0200_0000_0000_0000, u64::MAX] {
        assert!(accepts(&p, &reserved, &desc(1, 4, kw)), "{kw:#x}");
        assert!(p.is_enabled_for(Level(4), Keyword(kw)));
    }
    assert!(!accepts(&p, &reserved, &desc(1, 4, 0x0000_FFFF_FFFF_FFFF)));
}

// ---------------------------------------------------------------------------------------------
// 3.2 EnableProperty

#[test]
fn enable_property_values_match_the_headers() {
    // rule: FLT-10
    let expected = [
        (EnableProperty::SID, 0x001),
        (EnableProperty::TS_ID, 0x002),
        (EnableProperty::STACK_TRACE, 0x004),
        (EnableProperty::PSM_KEY, 0x008),
        (EnableProperty::IGNORE_KEYWORD_0, 0x010),
        (EnableProperty::PROVIDER_GROUP, 0x020),
        (EnableProperty::ENABLE_KEYWORD_0, 0x040),
        (EnableProperty::PROCESS_START_KEY, 0x080),
        (EnableProperty::EVENT_KEY, 0x100),
        (EnableProperty::EXCLUDE_INPRIVATE, 0x200),
        (EnableProperty::ENABLE_SILOS, 0x400),
        (EnableProperty::SOURCE_CONTAINER_TRACKING, 0x800),
    ];
    for (flag, bits) in expected {
        assert_eq!(flag.bits(), bits, "{flag:?}");
    }
    assert_eq!(EnableProperty::all().bits(), 0xFFF);
}

#[test]
fn every_documented_enable_property_is_accepted_and_stored_and_unknown_bits_are_refused() {
    // rule: FLT-10
    // rule: FLT-13
    let k = kernel();
    let g = guid(11);
    let s = k.session("props").start().unwrap();
    let w = win32(&k);
    let modelled = EnableProperty::all().difference(EnableProperty::PROVIDER_GROUP);
    for flag in modelled.iter().chain([modelled]) {
        let mut params = raw_params(Vec::new());
        params.enable_property = flag.bits();
        assert_eq!(raw_enable(&w, &s, g, &params), ERROR_SUCCESS, "{flag:?}");
        let info = k.enable_slots(g)[0].unwrap().1;
        assert_eq!(info.enable_property, flag);
    }
    // PROVIDER_GROUP names a group instead (PRV-36): g's own slots stay as they were.
    let mut params = raw_params(Vec::new());
    params.enable_property = EnableProperty::PROVIDER_GROUP.bits();
    let before = k.enable_slots(g);
    assert_eq!(raw_enable(&w, &s, g, &params), ERROR_SUCCESS);
    assert_eq!(k.enable_slots(g), before);
    for unknown in [0x1000u32, 0x8000_0000, 0x1001] {
        let mut params = raw_params(Vec::new());
        params.enable_property = unknown;
        assert_rejected_code(&k, INVALID, || raw_enable(&w, &s, g, &params));
        // The Rust API refuses the same bits.
        let p = EnableParams::new().property(EnableProperty::from_bits_retain(unknown));
        assert_rejected(&k, INVALID, || s.enable(g, &p));
    }
}

#[test]
fn exclude_inprivate_drops_inprivate_events_for_that_session_only() {
    // rule: FLT-11
    let k = kernel();
    let g = guid(12);
    let excluding = k.session("excluding").start().unwrap();
    let plain = k.session("plain").start().unwrap();
    excluding
        .enable(
            g,
            &EnableParams::new().property(EnableProperty::EXCLUDE_INPRIVATE),
        )
        .unwrap();
    plain.enable(g, &EnableParams::new()).unwrap();
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    let d = desc(1, 4, 0x1);
    let flagged = EventView {
        inprivate: true,
        ..EventView::new(&d)
    };
    assert_eq!(targets(&p, &d), vec![excluding.handle(), plain.handle()]);
    assert_eq!(p.targets(&flagged), vec![plain.handle()]);
}

#[test]
fn exclude_inprivate_drops_every_event_of_an_inprivate_process() {
    // rule: FLT-11
    let k = kernel();
    let g = guid(13);
    let excluding = k.session("excluding").start().unwrap();
    let plain = k.session("plain").start().unwrap();
    excluding
        .enable(
            g,
            &EnableParams::new().property(EnableProperty::EXCLUDE_INPRIVATE),
        )
        .unwrap();
    plain.enable(g, &EnableParams::new()).unwrap();
    let private_app = k
        .spawn_process(ProcessSpec::new("browser.exe", Token::user("alice")).inprivate())
        .unwrap();
    let normal_app = user_process(&k, "browser.exe");
    assert!(private_app.is_inprivate());
    assert!(!normal_app.is_inprivate());
    let private_p = private_app.register_provider(g).unwrap();
    let normal_p = normal_app.register_provider(g).unwrap();
    let d = desc(1, 4, 0x1);
    // The writer's process is InPrivate: no EVENT_WRITE_FLAG_INPRIVATE needed.
    assert_eq!(targets(&private_p, &d), vec![plain.handle()]);
    assert_eq!(
        targets(&normal_p, &d),
        vec![excluding.handle(), plain.handle()]
    );
}

#[test]
fn extended_item_properties_are_stored_per_session_and_start_keys_outlive_pid_reuse() {
    // rule: FLT-11
    let k = kernel();
    let g = guid(14);
    let a = k.session("a").start().unwrap();
    let b = k.session("b").start().unwrap();
    let extras = EnableProperty::SID
        | EnableProperty::TS_ID
        | EnableProperty::PROCESS_START_KEY
        | EnableProperty::EVENT_KEY;
    a.enable(g, &EnableParams::new().property(extras)).unwrap();
    b.enable(g, &EnableParams::new()).unwrap();
    let app = k
        .spawn_process(ProcessSpec::new("app.exe", Token::user("alice")).pid(1000))
        .unwrap();
    let _p = app.register_provider(g).unwrap();
    let info = k.trace_guid_info(g).unwrap();
    let inst = info.instances.iter().find(|i| i.pid == 1000).unwrap();
    let props: Vec<(u16, EnableProperty)> = inst
        .enable_info
        .iter()
        .map(|e| (e.logger_id, e.enable_property))
        .collect();
    assert_eq!(
        props,
        vec![
            (a.logger_id(), extras),
            (b.logger_id(), EnableProperty::empty())
        ]
    );
    // PROCESS_START_KEY: unique in the boot session, unlike a PID.
    let first_key = app.start_key();
    app.exit();
    let again = k
        .spawn_process(ProcessSpec::new("app.exe", Token::user("alice")).pid(1000))
        .unwrap();
    assert_eq!(again.pid(), 1000);
    assert_ne!(again.start_key(), first_key);
}

#[test]
fn stack_trace_property_is_what_makes_an_accepted_event_get_a_stack() {
    // rule: FLT-12
    let d = desc(7, 4, 0x1);
    let manifest = EventView::new(&d);
    let tl = EventView {
        name: Some("Start"),
        ..EventView::new(&d)
    };
    let with = slot_filter(EnableProperty::STACK_TRACE, &[]);
    let without = slot_filter(EnableProperty::SID | EnableProperty::EVENT_KEY, &[]);
    assert!(wants_stack(&manifest, &with));
    assert!(wants_stack(&tl, &with));
    assert!(!wants_stack(&manifest, &without));
    assert!(!wants_stack(&tl, &without));

    // The property is stored per session.
    let k = kernel();
    let g = guid(15);
    let s = k.session("stacks").start().unwrap();
    s.enable(
        g,
        &EnableParams::new().property(EnableProperty::STACK_TRACE),
    )
    .unwrap();
    assert_eq!(
        k.enable_slots(g)[0].as_ref().unwrap().1.enable_property,
        EnableProperty::STACK_TRACE
    );
}

// ---------------------------------------------------------------------------------------------
// 3.3 filter descriptors: ENABLE_TRACE_PARAMETERS

#[test]
fn enable_trace_parameters_versions_1_and_2_are_accepted_others_refused() {
    // rule: FLT-13
    let k = kernel();
    let g = guid(16);
    let s = k.session("ver").start().unwrap();
    let w = win32(&k);
    for version in [
        ENABLE_TRACE_PARAMETERS_VERSION,
        ENABLE_TRACE_PARAMETERS_VERSION_2,
    ] {
        let mut params = raw_params(Vec::new());
        params.version = version;
        assert_eq!(raw_enable(&w, &s, g, &params), ERROR_SUCCESS);
    }
    let s2 = k.session("ver2").start().unwrap();
    for version in [0u32, 3, 0xFFFF_FFFF] {
        let mut params = raw_params(Vec::new());
        params.version = version;
        assert_rejected_code(&k, INVALID, || raw_enable(&w, &s2, g, &params));
    }
    let mut params = raw_params(Vec::new());
    params.control_flags = 1;
    assert_rejected_code(&k, INVALID, || raw_enable(&w, &s2, g, &params));
    assert!(
        k.enable_slots(g)
            .iter()
            .flatten()
            .all(|(h, _)| *h != s2.handle())
    );
}

#[test]
fn version_1_parameters_carry_only_their_first_filter() {
    // rule: FLT-13
    let k = kernel();
    let g = guid(17);
    let s = k.session("v1").start().unwrap();
    let w = win32(&k);
    let mut params = raw_params(vec![
        EventFilterDescriptor::from_filter(&EventFilter::ExecutableName("app.exe".into())),
        EventFilterDescriptor::from_filter(&ids(true, &[5])),
    ]);
    params.version = ENABLE_TRACE_PARAMETERS_VERSION;
    assert_eq!(raw_enable(&w, &s, g, &params), ERROR_SUCCESS);
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    let other = user_process(&k, "other.exe").register_provider(g).unwrap();
    assert!(p.is_enabled());
    assert!(!other.is_enabled(), "the first filter applies");
    assert!(
        accepts(&p, &s, &desc(6, 4, 0)),
        "the second filter is not read"
    );
}

#[test]
fn each_filter_type_may_appear_only_once_per_call() {
    // rule: FLT-13
    // rule: FLT-25
    let k = kernel();
    let g = guid(18);
    let s = k.session("dup").start().unwrap();
    let twice = EnableParams::new()
        .filter(EventFilter::Pid(vec![4]))
        .filter(EventFilter::Pid(vec![8]));
    assert_rejected(&k, INVALID, || s.enable(g, &twice));
    let twice = EnableParams::new()
        .filter(ids(true, &[1]))
        .filter(EventFilter::ExecutableName("a.exe".into()))
        .filter(ids(false, &[2]));
    assert_rejected(&k, INVALID, || s.enable(g, &twice));
    let w = win32(&k);
    let params = raw_params(vec![
        raw_desc(FilterType::EXECUTABLE_NAME, utf16z("a.exe")),
        raw_desc(FilterType::EXECUTABLE_NAME, utf16z("b.exe")),
    ]);
    assert_rejected_code(&k, INVALID, || raw_enable(&w, &s, g, &params));
    let err = FilterSet::new(&[EventFilter::Pid(vec![4]), EventFilter::Pid(vec![4])]).unwrap_err();
    assert!(err.to_string().contains("twice"), "{err}");
}

/// One filter of every type usable with EnableTraceEx2 (12; SYSTEM_FLAGS is internal).
fn one_of_each(trace_handle: TraceHandle, provider: Guid) -> Vec<EventFilter> {
    let mut schematized = vec![0u8; EVENT_FILTER_HEADER_SIZE];
    schematized[0] = 1;
    vec![
        EventFilter::Schematized(schematized),
        EventFilter::Pid(vec![4]),
        EventFilter::ExecutableName("app.exe".into()),
        EventFilter::PackageId("Contoso.App_1.0.0.0_x64__8wekyb3d8bbwe".into()),
        EventFilter::PackageAppId("App".into()),
        payload_filter_of_size(provider, 0),
        ids(true, &[1]),
        EventFilter::EventName(names(0, 0, 0, true, &["Start"])),
        EventFilter::Stackwalk {
            filter_in: true,
            ids: vec![1],
        },
        EventFilter::StackwalkName(names(0, 0, 0, true, &["Start"])),
        EventFilter::StackwalkLevelKw {
            match_any: Keyword(1),
            match_all: Keyword(0),
            level: Level(4),
            filter_in: true,
        },
        EventFilter::TraceHandle(trace_handle.0),
    ]
}

#[test]
fn up_to_thirteen_descriptors_are_read_and_fourteen_are_refused() {
    // rule: FLT-13
    // rule: FLT-25
    let k = kernel();
    let g = guid(19);
    let s = k.session("many").start().unwrap();
    let all = one_of_each(s.handle(), g);
    assert_eq!(all.len(), 12);
    // Every usable type at once: 12 on CAPTURE_STATE for SystemTraceControlGuid (the only
    // place TRACEHANDLE goes), 11 on ENABLE_PROVIDER.
    let w = win32(&k);
    let params = raw_params(all.iter().map(EventFilterDescriptor::from_filter).collect());
    assert_eq!(
        w.enable_trace_ex2(
            s.handle().0,
            Some(&Guid::SYSTEM_TRACE_CONTROL),
            EVENT_CONTROL_CODE_CAPTURE_STATE,
            0,
            0,
            0,
            0,
            Some(&params)
        ),
        ERROR_SUCCESS
    );
    let eleven = EnableParams {
        filters: all[..11].to_vec(),
        ..EnableParams::new()
    };
    s.enable(g, &eleven).unwrap();
    assert!(k.enable_slots(g)[0].is_some());

    // With only 12 usable types, 13 descriptors always repeat one: refused as a duplicate,
    // 14 are refused by the count limit before anything else is looked at.
    assert_eq!(MAX_EVENT_FILTERS_COUNT, 13);
    let mut thirteen = all.clone();
    thirteen.push(EventFilter::Pid(vec![8]));
    let err = FilterSet::new(&thirteen).unwrap_err();
    assert!(err.to_string().contains("twice"), "{err}");
    let mut fourteen = thirteen.clone();
    fourteen.push(EventFilter::Pid(vec![12]));
    let err = FilterSet::new(&fourteen).unwrap_err();
    assert!(err.to_string().contains("at most 13"), "{err}");
    let s2 = k.session("many2").start().unwrap();
    let params = raw_params(
        fourteen
            .iter()
            .map(EventFilterDescriptor::from_filter)
            .collect(),
    );
    assert_rejected_code(&k, INVALID, || raw_enable(&w, &s2, g, &params));
    let p = EnableParams {
        filters: fourteen,
        ..EnableParams::new()
    };
    assert_rejected(&k, INVALID, || s2.enable(g, &p));
}

#[test]
fn malformed_filter_descriptor_arrays_are_refused() {
    // rule: FLT-13
    // rule: FLT-25
    let k = kernel();
    let g = guid(20);
    let s = k.session("raw").start().unwrap();
    let w = win32(&k);
    let one = vec![raw_desc(FilterType::PID, 4u32.to_le_bytes().to_vec())];
    // FilterDescCount larger than the array.
    let mut params = raw_params(one.clone());
    params.filter_desc_count = 2;
    assert_rejected_code(&k, INVALID, || raw_enable(&w, &s, g, &params));
    // NULL EnableFilterDesc with a count.
    let mut params = raw_params(Vec::new());
    params.filter_desc_count = 1;
    assert_rejected_code(&k, INVALID, || raw_enable(&w, &s, g, &params));
    // NULL Ptr with a Size.
    let params = raw_params(vec![EventFilterDescriptor {
        ptr: None,
        size: 4,
        filter_type: FilterType::PID.0,
    }]);
    assert_rejected_code(&k, INVALID, || raw_enable(&w, &s, g, &params));
    // Size larger than what Ptr points at.
    let params = raw_params(vec![EventFilterDescriptor {
        ptr: Some(vec![4, 0, 0, 0]),
        size: 8,
        filter_type: FilterType::PID.0,
    }]);
    assert_rejected_code(&k, INVALID, || raw_enable(&w, &s, g, &params));
    // FilterDescCount 0: the array is not read.
    let mut params = raw_params(one);
    params.filter_desc_count = 0;
    assert_eq!(raw_enable(&w, &s, g, &params), ERROR_SUCCESS);
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    assert!(p.is_enabled(), "no PID filter was applied");
}

#[test]
fn filter_type_values_match_the_headers() {
    // rule: FLT-14
    let expected = [
        (FilterType::NONE, 0x0000_0000u32),
        (FilterType::SCHEMATIZED, 0x8000_0000),
        (FilterType::SYSTEM_FLAGS, 0x8000_0001),
        (FilterType::TRACEHANDLE, 0x8000_0002),
        (FilterType::PID, 0x8000_0004),
        (FilterType::EXECUTABLE_NAME, 0x8000_0008),
        (FilterType::PACKAGE_ID, 0x8000_0010),
        (FilterType::PACKAGE_APP_ID, 0x8000_0020),
        (FilterType::PAYLOAD, 0x8000_0100),
        (FilterType::EVENT_ID, 0x8000_0200),
        (FilterType::EVENT_NAME, 0x8000_0400),
        (FilterType::STACKWALK, 0x8000_1000),
        (FilterType::STACKWALK_NAME, 0x8000_2000),
        (FilterType::STACKWALK_LEVEL_KW, 0x8000_4000),
    ];
    for (ty, value) in expected {
        assert_eq!(ty.0, value);
    }
    // Each typed filter reports its documented Type.
    let types: Vec<u32> = one_of_each(TraceHandle(1), guid(1))
        .iter()
        .map(|f| f.filter_type().0)
        .collect();
    assert_eq!(
        types,
        vec![
            0x8000_0000,
            0x8000_0004,
            0x8000_0008,
            0x8000_0010,
            0x8000_0020,
            0x8000_0100,
            0x8000_0200,
            0x8000_0400,
            0x8000_1000,
            0x8000_2000,
            0x8000_4000,
            0x8000_0002
        ]
    );
}

#[test]
fn none_system_flags_and_unknown_filter_types_are_refused() {
    // rule: FLT-14
    // rule: FLT-24
    // rule: FLT-25
    let k = kernel();
    let g = guid(21);
    let s = k.session("types").start().unwrap();
    let w = win32(&k);
    for ty in [
        FilterType::NONE,
        FilterType::SYSTEM_FLAGS,
        FilterType(0x8000_0040),
        FilterType(0x8000_8000),
        FilterType(0x1),
    ] {
        assert!(EventFilter::parse(ty, &[0; 8]).is_err());
        let params = raw_params(vec![raw_desc(ty, vec![0; 8])]);
        assert_rejected_code(&k, INVALID, || raw_enable(&w, &s, g, &params));
    }
}

// ---------------------------------------------------------------------------------------------
// SCHEMATIZED and the EventWriteEx filter mask

#[test]
fn schematized_filter_reaches_the_callback_with_etw_owned_header_fields() {
    // rule: FLT-15
    let k = kernel();
    let g = guid(22);
    let other = k.session("other").start().unwrap();
    other.enable(g, &EnableParams::new()).unwrap();
    let s = k.session("schema").start().unwrap();
    let mut data = vec![0u8; 40];
    data[0..2].copy_from_slice(&7u16.to_le_bytes()); // Id
    data[2] = 1; // Version
    data[8..16].copy_from_slice(&0xDEAD_BEEFu64.to_le_bytes()); // InstanceId: ETW's
    data[16..20].copy_from_slice(&999u32.to_le_bytes()); // Size
    data[20..24].copy_from_slice(&77u32.to_le_bytes()); // NextOffset: ETW's
    data[24..].fill(0xAB);
    s.enable(
        g,
        &EnableParams::new().filter(EventFilter::Schematized(data.clone())),
    )
    .unwrap();
    let rec = Recorder::new();
    let _p = user_process(&k, "app.exe")
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    let n = rec.last();
    let blocks = n.schematized_filters();
    assert_eq!(blocks.len(), 1, "only the session that gave one");
    let (instance, block) = blocks[0];
    assert_eq!(instance, u64::from(slot_of(&k, g, &s)));
    assert_eq!(instance, 1);
    assert_eq!(block.len(), 40);
    assert_eq!(&block[0..3], &data[0..3]);
    assert_eq!(u32::from_le_bytes(block[16..20].try_into().unwrap()), 40);
    assert_eq!(u32::from_le_bytes(block[20..24].try_into().unwrap()), 0);
    assert_eq!(&block[24..], &data[24..]);
}

#[test]
fn schematized_filter_size_limits() {
    // rule: FLT-15
    // rule: FLT-25
    let k = kernel();
    let g = guid(23);
    let s = k.session("schema").start().unwrap();
    for len in [EVENT_FILTER_HEADER_SIZE, MAX_EVENT_FILTER_DATA_SIZE] {
        s.enable(
            g,
            &EnableParams::new().filter(EventFilter::Schematized(vec![0; len])),
        )
        .unwrap();
    }
    assert_eq!(MAX_EVENT_FILTER_DATA_SIZE, 1024);
    for len in [
        0,
        EVENT_FILTER_HEADER_SIZE - 1,
        MAX_EVENT_FILTER_DATA_SIZE + 1,
    ] {
        let p = EnableParams::new().filter(EventFilter::Schematized(vec![0; len]));
        assert_rejected(&k, INVALID, || s.enable(g, &p));
    }
    let w = win32(&k);
    let params = raw_params(vec![raw_desc(FilterType::SCHEMATIZED, vec![0; 1025])]);
    assert_rejected_code(&k, INVALID, || raw_enable(&w, &s, g, &params));
    let params = raw_params(vec![raw_desc(FilterType::SCHEMATIZED, vec![0; 1024])]);
    assert_eq!(raw_enable(&w, &s, g, &params), ERROR_SUCCESS);
}

#[test]
fn eventwriteex_filter_mask_bit_excludes_the_session_in_that_slot() {
    // rule: FLT-15
    // rule: FLT-20
    // rule: EVT-04
    let k = kernel();
    let g = guid(24);
    let sessions: Vec<Session> = (0..3)
        .map(|i| k.session(&format!("s{i}")).start().unwrap())
        .collect();
    for s in &sessions {
        s.enable(g, &EnableParams::new()).unwrap();
    }
    // Free slot 0 so the remaining sessions sit in slots 1 and 2.
    sessions[0].disable(g).unwrap();
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    let d = desc(1, 4, 0x1);
    let view = |mask: u64| EventView {
        filter_mask: mask,
        ..EventView::new(&d)
    };
    let live = [&sessions[1], &sessions[2]];
    let all: Vec<TraceHandle> = live.iter().map(|s| s.handle()).collect();
    assert_eq!(p.targets(&view(0)), all);
    for s in live {
        let slot = slot_of(&k, g, s);
        let t = p.targets(&view(1 << slot));
        assert!(!t.contains(&s.handle()), "slot {slot}");
        assert_eq!(t.len(), 1);
    }
    assert_eq!(slot_of(&k, g, &sessions[1]), 1);
    // Bits of unused slots change nothing; all bits exclude everyone.
    assert_eq!(p.targets(&view(1 << 0)), all);
    assert_eq!(p.targets(&view(0xF8)), all);
    assert!(p.targets(&view(u64::MAX)).is_empty());
    assert!(
        p.is_enabled_for(Level(4), Keyword(1)),
        "the mask is per event"
    );
}

// ---------------------------------------------------------------------------------------------
// scope filters: PID, EXECUTABLE_NAME, PACKAGE_ID, PACKAGE_APP_ID

#[test]
fn pid_filter_enables_only_the_listed_processes() {
    // rule: FLT-16
    let k = kernel();
    let g = guid(25);
    let a = user_process(&k, "a.exe");
    let b = user_process(&k, "b.exe");
    let c = user_process(&k, "c.exe");
    let s = k.session("pids").start().unwrap();
    s.enable(
        g,
        &EnableParams::new().filter(EventFilter::Pid(vec![a.pid(), c.pid()])),
    )
    .unwrap();
    // Registration after the enable, in processes that existed at enable time.
    let pa = a.register_provider(g).unwrap();
    let pb = b.register_provider(g).unwrap();
    let pc = c.register_provider(g).unwrap();
    assert!(pa.is_enabled() && pc.is_enabled());
    assert!(!pb.is_enabled());
    assert_eq!(targets(&pa, &desc(1, 4, 1)), vec![s.handle()]);
    assert!(targets(&pb, &desc(1, 4, 1)).is_empty());
}

#[test]
fn pid_filter_is_not_kept_for_restarted_or_later_processes() {
    // rule: FLT-16
    let k = kernel();
    let g = guid(26);
    let spec = |pid: u32| ProcessSpec::new("svc.exe", Token::user("alice")).pid(pid);
    let first = k.spawn_process(spec(1000)).unwrap();
    let s = k.session("pids").start().unwrap();
    let params = EnableParams::new().filter(EventFilter::Pid(vec![1000, 2000]));
    s.enable(g, &params).unwrap();
    let p1 = first.register_provider(g).unwrap();
    assert!(p1.is_enabled());
    first.exit();
    assert!(!p1.is_registered());
    // Same PID, new process: not re-enabled.
    let restarted = k.spawn_process(spec(1000)).unwrap();
    assert_eq!(restarted.pid(), 1000);
    let p2 = restarted.register_provider(g).unwrap();
    assert!(!p2.is_enabled());
    // A listed PID that did not exist at enable time: not enabled either.
    let later = k.spawn_process(spec(2000)).unwrap();
    let p3 = later.register_provider(g).unwrap();
    assert!(!p3.is_enabled());
    assert_eq!(p3.enable_state().mask, 0);
    // Enabling again takes a new look at the processes that exist now.
    s.enable(g, &params).unwrap();
    assert!(p2.is_enabled());
    assert!(p3.is_enabled());
}

#[test]
fn pid_filter_limits() {
    // rule: FLT-16
    // rule: FLT-25
    let k = kernel();
    let g = guid(27);
    let s = k.session("pids").start().unwrap();
    assert_eq!(MAX_EVENT_FILTER_PID_COUNT, 8);
    let eight: Vec<u32> = (1..=8).map(|i| i * 4).collect();
    s.enable(
        g,
        &EnableParams::new().filter(EventFilter::Pid(eight.clone())),
    )
    .unwrap();
    let mut nine = eight.clone();
    nine.push(36);
    for bad in [nine.clone(), Vec::new()] {
        let p = EnableParams::new().filter(EventFilter::Pid(bad));
        assert_rejected(&k, INVALID, || s.enable(g, &p));
    }
    // Wire layout: an array of 4-byte PIDs.
    let w = win32(&k);
    let bytes = |pids: &[u32]| -> Vec<u8> { pids.iter().flat_map(|p| p.to_le_bytes()).collect() };
    assert_eq!(EventFilter::Pid(eight.clone()).to_bytes(), bytes(&eight));
    assert_eq!(
        EventFilter::parse(FilterType::PID, &bytes(&eight)).unwrap(),
        EventFilter::Pid(eight.clone())
    );
    let params = raw_params(vec![raw_desc(FilterType::PID, bytes(&eight))]);
    assert_eq!(raw_enable(&w, &s, g, &params), ERROR_SUCCESS);
    for data in [bytes(&nine), vec![4, 0, 0], vec![4, 0, 0, 0, 8], Vec::new()] {
        let params = raw_params(vec![raw_desc(FilterType::PID, data)]);
        assert_rejected_code(&k, INVALID, || raw_enable(&w, &s, g, &params));
    }
}

#[test]
fn pid_filter_from_raw_descriptor_scopes_by_pid() {
    // rule: FLT-16
    let k = kernel();
    let g = guid(28);
    let inside = k
        .spawn_process(ProcessSpec::new("in.exe", Token::user("alice")).pid(1000))
        .unwrap();
    let outside = k
        .spawn_process(ProcessSpec::new("out.exe", Token::user("alice")).pid(1004))
        .unwrap();
    let s = k.session("raw-pid").start().unwrap();
    let w = win32(&k);
    // 1000 = 0x3E8, little-endian.
    let params = raw_params(vec![raw_desc(FilterType::PID, vec![0xE8, 0x03, 0, 0])]);
    assert_eq!(raw_enable(&w, &s, g, &params), ERROR_SUCCESS);
    assert!(inside.register_provider(g).unwrap().is_enabled());
    assert!(!outside.register_provider(g).unwrap().is_enabled());
}

#[test]
fn executable_name_filter_matches_file_names_case_insensitively() {
    // rule: FLT-17
    let k = kernel();
    let g = guid(29);
    let s = k.session("exe").start().unwrap();
    s.enable(
        g,
        &EnableParams::new().filter(EventFilter::ExecutableName("a.exe; B.EXE".into())),
    )
    .unwrap();
    for (image, want) in [
        ("a.exe", true),
        ("A.EXE", true),
        ("C:\\Tools\\b.exe", true),
        ("c:/tools/B.Exe", true),
        ("c.exe", false),
        ("xa.exe", false),
        ("a.exe.bak", false),
    ] {
        let p = user_process(&k, image).register_provider(g).unwrap();
        assert_eq!(p.is_enabled(), want, "{image}");
        assert_eq!(targets(&p, &desc(1, 4, 1)).len(), usize::from(want));
    }
}

#[test]
fn executable_name_wire_form_is_utf16_with_a_1024_byte_limit() {
    // rule: FLT-17
    // rule: FLT-25
    let k = kernel();
    let g = guid(30);
    let s = k.session("exe").start().unwrap();
    let w = win32(&k);
    let filter = EventFilter::ExecutableName("app.exe;ünï.exe".into());
    assert_eq!(filter.to_bytes(), utf16z("app.exe;ünï.exe"));
    let params = raw_params(vec![raw_desc(
        FilterType::EXECUTABLE_NAME,
        utf16z("ünï.exe"),
    )]);
    assert_eq!(raw_enable(&w, &s, g, &params), ERROR_SUCCESS);
    assert!(
        user_process(&k, "ÜNÏ.EXE")
            .register_provider(g)
            .unwrap()
            .is_enabled()
    );
    assert!(
        !user_process(&k, "app.exe")
            .register_provider(g)
            .unwrap()
            .is_enabled()
    );

    // 511 characters + NUL = 1024 bytes: accepted; 512 + NUL = 1026: refused.
    let name = |n: usize| format!("{}.exe", "x".repeat(n - 4));
    let ok = EnableParams::new().filter(EventFilter::ExecutableName(name(511)));
    s.enable(g, &ok).unwrap();
    let over = EnableParams::new().filter(EventFilter::ExecutableName(name(512)));
    assert_rejected(&k, INVALID, || s.enable(g, &over));
    let params = raw_params(vec![raw_desc(
        FilterType::EXECUTABLE_NAME,
        utf16z(&name(511)),
    )]);
    assert_eq!(raw_enable(&w, &s, g, &params), ERROR_SUCCESS);
    let params = raw_params(vec![raw_desc(
        FilterType::EXECUTABLE_NAME,
        utf16z(&name(512)),
    )]);
    assert_rejected_code(&k, INVALID, || raw_enable(&w, &s, g, &params));
    // The Size the controller gives is what counts, even if the string ends early.
    let mut padded = utf16z("a.exe");
    padded.resize(1026, 0);
    let params = raw_params(vec![raw_desc(FilterType::EXECUTABLE_NAME, padded)]);
    assert_rejected_code(&k, INVALID, || raw_enable(&w, &s, g, &params));
    // Odd byte counts are not UTF-16; empty name lists are refused.
    let params = raw_params(vec![raw_desc(
        FilterType::EXECUTABLE_NAME,
        vec![b'a', 0, b'b'],
    )]);
    assert_rejected_code(&k, INVALID, || raw_enable(&w, &s, g, &params));
    for empty in ["", ";", " ; "] {
        let p = EnableParams::new().filter(EventFilter::ExecutableName(empty.into()));
        assert_rejected(&k, INVALID, || s.enable(g, &p));
    }
}

#[test]
fn executable_name_scope_follows_processes_started_after_the_enable() {
    // rule: FLT-17
    let k = kernel();
    let g = guid(31);
    let s = k.session("exe").start().unwrap();
    s.enable(
        g,
        &EnableParams::new().filter(EventFilter::ExecutableName("late.exe".into())),
    )
    .unwrap();
    let late = user_process(&k, "late.exe");
    assert!(late.register_provider(g).unwrap().is_enabled());
}

#[test]
fn package_filters_scope_by_package_identity() {
    // rule: FLT-17
    let k = kernel();
    let g = guid(32);
    let h = guid(33);
    let pkg = "Contoso.Notes_1.0.0.0_x64__8wekyb3d8bbwe";
    let store = k
        .spawn_process(ProcessSpec::new("notes.exe", Token::user("alice")).package(pkg, "App"))
        .unwrap();
    let other_pkg = k
        .spawn_process(
            ProcessSpec::new("notes.exe", Token::user("alice"))
                .package("Fabrikam.Notes_2.0.0.0_x64__abc", "Worker"),
        )
        .unwrap();
    let desktop = user_process(&k, "notes.exe");
    let s = k.session("pkg").start().unwrap();
    s.enable(
        g,
        &EnableParams::new().filter(EventFilter::PackageId(format!("Other_1;{pkg}"))),
    )
    .unwrap();
    s.enable(
        h,
        &EnableParams::new().filter(EventFilter::PackageAppId("App;Viewer".into())),
    )
    .unwrap();
    assert!(store.register_provider(g).unwrap().is_enabled());
    assert!(!other_pkg.register_provider(g).unwrap().is_enabled());
    assert!(!desktop.register_provider(g).unwrap().is_enabled());
    assert!(store.register_provider(h).unwrap().is_enabled());
    assert!(!other_pkg.register_provider(h).unwrap().is_enabled());
    assert!(!desktop.register_provider(h).unwrap().is_enabled());
}

#[test]
fn package_filter_limits() {
    // rule: FLT-17
    // rule: FLT-25
    let k = kernel();
    let g = guid(34);
    let s = k.session("pkg").start().unwrap();
    let w = win32(&k);
    let long = |n: usize| "p".repeat(n);
    for make in [EventFilter::PackageId, EventFilter::PackageAppId] {
        s.enable(g, &EnableParams::new().filter(make(long(511))))
            .unwrap();
        let over = EnableParams::new().filter(make(long(512)));
        assert_rejected(&k, INVALID, || s.enable(g, &over));
        let empty = EnableParams::new().filter(make(String::new()));
        assert_rejected(&k, INVALID, || s.enable(g, &empty));
        let ty = make(String::new()).filter_type();
        let params = raw_params(vec![raw_desc(ty, utf16z("Contoso.App_1"))]);
        assert_eq!(raw_enable(&w, &s, g, &params), ERROR_SUCCESS);
        let params = raw_params(vec![raw_desc(ty, utf16z(&long(512)))]);
        assert_rejected_code(&k, INVALID, || raw_enable(&w, &s, g, &params));
    }
}

// ---------------------------------------------------------------------------------------------
// PAYLOAD, EVENT_ID, EVENT_NAME, STACKWALK*

#[test]
fn payload_filter_is_size_checked_and_kept() {
    // rule: FLT-18
    // rule: FLT-25
    let k = kernel();
    let g = guid(35);
    let s = k.session("payload").start().unwrap();
    assert_eq!(MAX_EVENT_FILTER_PAYLOAD_SIZE, 4096);
    let full = payload_filter_of_size(g, 4096);
    s.enable(g, &EnableParams::new().filter(full.clone()))
        .unwrap();
    // Over the size limit, empty, or not a payload filter at all (TdhAggregatePayloadFilters
    // makes them; arbitrary bytes are refused).
    for bad in [vec![0x5A; 4097], Vec::new(), vec![0x5A; 4096]] {
        let p = EnableParams::new().filter(EventFilter::Payload(bad));
        assert_rejected(&k, INVALID, || s.enable(g, &p));
    }
    let w = win32(&k);
    let params = raw_params(vec![raw_desc(FilterType::PAYLOAD, vec![1; 4097])]);
    assert_rejected_code(&k, INVALID, || raw_enable(&w, &s, g, &params));
    let params = raw_params(vec![raw_desc(FilterType::PAYLOAD, full.to_bytes())]);
    assert_eq!(raw_enable(&w, &s, g, &params), ERROR_SUCCESS);
    // Kept byte for byte.
    let set = FilterSet::new(std::slice::from_ref(&full)).unwrap();
    assert_eq!(set.filters(), std::slice::from_ref(&full));
    assert_eq!(full.to_bytes().len(), 4096);
    // Evaluated after the event is built: routing and the enable word do not see it, and an
    // event it is not bound to (only event 1000 is) is not judged by it.
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    assert!(p.is_enabled());
    assert_eq!(targets(&p, &desc(1, 4, 1)), vec![s.handle()]);
}

#[test]
fn event_id_filter_in_records_only_the_listed_ids_and_out_drops_them() {
    // rule: FLT-19
    let k = kernel();
    let g = guid(36);
    let only = k.session("only").start().unwrap();
    let but = k.session("but").start().unwrap();
    only.enable(g, &EnableParams::new().filter(ids(true, &[5, 9])))
        .unwrap();
    but.enable(g, &EnableParams::new().filter(ids(false, &[5, 9])))
        .unwrap();
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    for id in [0u16, 4, 5, 6, 9, 10, 0xFFFF] {
        let listed = id == 5 || id == 9;
        let t = targets(&p, &desc(id, 4, 1));
        assert_eq!(t.contains(&only.handle()), listed, "id {id}");
        assert_eq!(t.contains(&but.handle()), !listed, "id {id}");
    }
    // The id filter does not open what level/keywords closed.
    only.enable(
        g,
        &EnableParams::new()
            .level(Level::ERROR)
            .filter(ids(true, &[5])),
    )
    .unwrap();
    assert!(!accepts(&p, &only, &desc(5, 4, 1)));
    assert!(accepts(&p, &only, &desc(5, 2, 1)));
}

#[test]
fn event_id_filter_is_ignored_for_tracelogging_events() {
    // rule: FLT-19
    let k = kernel();
    let g = guid(37);
    let only = k.session("only").start().unwrap();
    let but = k.session("but").start().unwrap();
    only.enable(g, &EnableParams::new().filter(ids(true, &[5])))
        .unwrap();
    but.enable(g, &EnableParams::new().filter(ids(false, &[0, 6])))
        .unwrap();
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    for id in [0u16, 5, 6] {
        assert_eq!(
            tl_targets(&p, &desc(id, 4, 1), "Anything"),
            vec![only.handle(), but.handle()],
            "id {id}"
        );
    }
    assert!(!accepts(&p, &only, &desc(6, 4, 1)));
}

#[test]
fn event_id_filter_wire_layout_and_limits() {
    // rule: FLT-19
    // rule: FLT-25
    assert_eq!(
        ids(true, &[5, 0x1234]).to_bytes(),
        vec![1, 0, 2, 0, 5, 0, 0x34, 0x12]
    );
    assert_eq!(ids(false, &[7]).to_bytes(), vec![0, 0, 1, 0, 7, 0]);
    assert_eq!(
        EventFilter::parse(FilterType::EVENT_ID, &[1, 0, 2, 0, 5, 0, 7, 0]).unwrap(),
        ids(true, &[5, 7])
    );
    let k = kernel();
    let g = guid(38);
    let s = k.session("ids").start().unwrap();
    assert_eq!(MAX_EVENT_FILTER_EVENT_ID_COUNT, 64);
    let sixty_four: Vec<u16> = (1..=64).collect();
    s.enable(g, &EnableParams::new().filter(ids(true, &sixty_four)))
        .unwrap();
    let sixty_five: Vec<u16> = (1..=65).collect();
    for bad in [sixty_five.clone(), Vec::new()] {
        let p = EnableParams::new().filter(ids(true, &bad));
        assert_rejected(&k, INVALID, || s.enable(g, &p));
    }
    let w = win32(&k);
    let params = raw_params(vec![raw_desc(
        FilterType::EVENT_ID,
        ids(false, &sixty_four).to_bytes(),
    )]);
    assert_eq!(raw_enable(&w, &s, g, &params), ERROR_SUCCESS);
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    assert!(!accepts(&p, &s, &desc(64, 4, 1)));
    assert!(accepts(&p, &s, &desc(65, 4, 1)));
    for data in [
        ids(true, &sixty_five).to_bytes(),
        vec![1, 0, 3, 0, 5, 0, 7, 0], // Count 3, two ids
        vec![1, 0, 1],
    ] {
        let params = raw_params(vec![raw_desc(FilterType::EVENT_ID, data)]);
        assert_rejected_code(&k, INVALID, || raw_enable(&w, &s, g, &params));
    }
}

#[test]
fn event_id_filter_on_a_private_session_is_refused() {
    // rule: FLT-25
    let k = kernel();
    let g = guid(39);
    let app = user_process(&k, "app.exe");
    let s = k
        .session("private")
        .mode(LogFileMode::PRIVATE_LOGGER)
        .guid(g)
        .log_file("private.etl")
        .caller(&app)
        .start()
        .unwrap();
    let p = EnableParams::new().filter(ids(true, &[1]));
    assert_rejected(&k, INVALID, || s.enable(g, &p));
    s.enable(g, &EnableParams::new().level(Level::ERROR))
        .unwrap();
    assert_eq!(k.enable_slots(g)[0].as_ref().unwrap().1.level, Level::ERROR);
}

#[test]
fn event_name_filter_selects_tracelogging_events_by_name() {
    // rule: FLT-22
    let k = kernel();
    let g = guid(40);
    let include = k.session("include").start().unwrap();
    let exclude = k.session("exclude").start().unwrap();
    include
        .enable(
            g,
            &EnableParams::new().filter(EventFilter::EventName(names(
                0,
                0,
                0,
                true,
                &["Start", "Stop"],
            ))),
        )
        .unwrap();
    exclude
        .enable(
            g,
            &EnableParams::new().filter(EventFilter::EventName(names(
                0,
                0,
                0,
                false,
                &["Start", "Stop"],
            ))),
        )
        .unwrap();
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    let d = desc(0, 4, 1);
    for (name, listed) in [
        ("Start", true),
        ("Stop", true),
        ("start", false),
        ("Tick", false),
    ] {
        assert_eq!(tl_accepts(&p, &include, &d, name), listed, "{name}");
        assert_eq!(tl_accepts(&p, &exclude, &d, name), !listed, "{name}");
    }
    // Ignored for events that are not TraceLogging events.
    assert_eq!(targets(&p, &d), vec![include.handle(), exclude.handle()]);
}

#[test]
fn event_name_filter_applies_only_inside_its_own_level_keyword_gate() {
    // rule: FLT-22
    let k = kernel();
    let g = guid(41);
    let s = k.session("gate").start().unwrap();
    // Include only "Start" — but only among errors (or worse) carrying keyword 0x1 and 0x2.
    s.enable(
        g,
        &EnableParams::new()
            .level(Level::INFORMATION)
            .filter(EventFilter::EventName(names(0x3, 0x2, 2, true, &["Start"]))),
    )
    .unwrap();
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    // Inside the gate the list decides.
    assert!(tl_accepts(&p, &s, &desc(0, 2, 0x2), "Start"));
    assert!(!tl_accepts(&p, &s, &desc(0, 2, 0x2), "Tick"));
    assert!(!tl_accepts(&p, &s, &desc(0, 1, 0x3), "Tick"));
    // Outside the gate (too verbose for it, or missing the gate's All bit) the list does not apply.
    assert!(tl_accepts(&p, &s, &desc(0, 4, 0x2), "Tick"));
    assert!(tl_accepts(&p, &s, &desc(0, 2, 0x1), "Tick"));
    // The session's own level/keywords come first: a listed name does not reopen them.
    assert!(!tl_accepts(&p, &s, &desc(0, 5, 0x2), "Start"));
}

#[test]
fn event_name_filter_wire_layout_and_limits() {
    // rule: FLT-22
    // rule: FLT-25
    let f = names(0x0102, 0x04, 3, true, &["Go", "é"]);
    let mut expected = Vec::new();
    expected.extend_from_slice(&0x0102u64.to_le_bytes());
    expected.extend_from_slice(&0x04u64.to_le_bytes());
    expected.extend_from_slice(&[3, 1, 2, 0]);
    expected.extend_from_slice(b"Go\0");
    expected.extend_from_slice("é".as_bytes());
    expected.push(0);
    assert_eq!(EventFilter::EventName(f.clone()).to_bytes(), expected);
    assert_eq!(
        EventFilter::parse(FilterType::EVENT_NAME, &expected).unwrap(),
        EventFilter::EventName(f)
    );
    let k = kernel();
    let g = guid(42);
    let s = k.session("names").start().unwrap();
    assert_eq!(MAX_EVENT_FILTER_EVENT_NAME_SIZE, 4096);
    // 20-byte head + one name of 4075 bytes + NUL = 4096.
    let sized = |len: usize| EventFilter::EventName(names(0, 0, 0, true, &[&"n".repeat(len)]));
    assert_eq!(sized(4075).to_bytes().len(), 4096);
    s.enable(g, &EnableParams::new().filter(sized(4075)))
        .unwrap();
    for bad in [
        sized(4076),
        EventFilter::EventName(names(0, 0, 0, true, &[])),
    ] {
        let p = EnableParams::new().filter(bad);
        assert_rejected(&k, INVALID, || s.enable(g, &p));
    }
    let w = win32(&k);
    let mut unterminated = expected.clone();
    unterminated.pop();
    // A short name list in a descriptor whose Size is over the limit.
    let mut padded = EventFilter::EventName(names(0, 0, 0, true, &["Go"])).to_bytes();
    padded.resize(4097, 0);
    for data in [
        sized(4076).to_bytes(),
        unterminated,
        expected[..19].to_vec(),
        padded,
        {
            let mut count_too_big = expected.clone();
            count_too_big[18] = 3;
            count_too_big
        },
    ] {
        let params = raw_params(vec![raw_desc(FilterType::EVENT_NAME, data)]);
        assert_rejected_code(&k, INVALID, || raw_enable(&w, &s, g, &params));
    }
    let params = raw_params(vec![raw_desc(FilterType::EVENT_NAME, expected)]);
    assert_eq!(raw_enable(&w, &s, g, &params), ERROR_SUCCESS);
}

#[test]
fn stackwalk_filter_picks_which_event_ids_get_a_stack() {
    // rule: FLT-21
    let stack_only = |filter_in| {
        slot_filter(
            EnableProperty::STACK_TRACE,
            &[EventFilter::Stackwalk {
                filter_in,
                ids: vec![1, 2],
            }],
        )
    };
    let (d1, d3) = (desc(1, 4, 1), desc(3, 4, 1));
    assert!(wants_stack(&EventView::new(&d1), &stack_only(true)));
    assert!(!wants_stack(&EventView::new(&d3), &stack_only(true)));
    assert!(!wants_stack(&EventView::new(&d1), &stack_only(false)));
    assert!(wants_stack(&EventView::new(&d3), &stack_only(false)));
    // Needs STACK_TRACE.
    let no_property = slot_filter(
        EnableProperty::empty(),
        &[EventFilter::Stackwalk {
            filter_in: true,
            ids: vec![1],
        }],
    );
    assert!(!wants_stack(&EventView::new(&d1), &no_property));
    // Ignored for TraceLogging events.
    let tl = EventView {
        name: Some("Tick"),
        ..EventView::new(&d3)
    };
    assert!(wants_stack(&tl, &stack_only(true)));
    // Same layout and 64-id limit as EVENT_ID.
    let f = EventFilter::Stackwalk {
        filter_in: true,
        ids: vec![5, 0x1234],
    };
    assert_eq!(f.to_bytes(), ids(true, &[5, 0x1234]).to_bytes());
    assert_eq!(
        EventFilter::parse(FilterType::STACKWALK, &f.to_bytes()).unwrap(),
        f
    );
    let k = kernel();
    let g = guid(43);
    let s = k.session("sw").start().unwrap();
    let sw = |n: u16| EventFilter::Stackwalk {
        filter_in: true,
        ids: (1..=n).collect(),
    };
    s.enable(g, &EnableParams::new().filter(sw(64))).unwrap();
    for bad in [sw(65), sw(0)] {
        let p = EnableParams::new().filter(bad);
        assert_rejected(&k, INVALID, || s.enable(g, &p));
    }
    // It does not filter which events are recorded.
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    assert!(accepts(&p, &s, &desc(100, 4, 1)));
}

#[test]
fn stackwalk_name_and_level_kw_filters_pick_which_events_get_a_stack() {
    // rule: FLT-23
    let by_name = slot_filter(
        EnableProperty::STACK_TRACE,
        &[EventFilter::StackwalkName(names(0, 0, 0, true, &["Start"]))],
    );
    let d = desc(0, 4, 1);
    let tl = |name| EventView {
        name: Some(name),
        ..EventView::new(&d)
    };
    assert!(wants_stack(&tl("Start"), &by_name));
    assert!(!wants_stack(&tl("Stop"), &by_name));
    let by_name_out = slot_filter(
        EnableProperty::STACK_TRACE,
        &[EventFilter::StackwalkName(names(
            0,
            0,
            0,
            false,
            &["Start"],
        ))],
    );
    assert!(!wants_stack(&tl("Start"), &by_name_out));
    assert!(wants_stack(&tl("Stop"), &by_name_out));

    let level_kw = |filter_in| {
        slot_filter(
            EnableProperty::STACK_TRACE,
            &[EventFilter::StackwalkLevelKw {
                match_any: Keyword(0x6),
                match_all: Keyword(0),
                level: Level::ERROR,
                filter_in,
            }],
        )
    };
    let matching = desc(1, 2, 0x4);
    let too_verbose = desc(1, 3, 0x4);
    let wrong_kw = desc(1, 1, 0x1);
    assert!(wants_stack(&EventView::new(&matching), &level_kw(true)));
    assert!(!wants_stack(&EventView::new(&too_verbose), &level_kw(true)));
    assert!(!wants_stack(&EventView::new(&wrong_kw), &level_kw(true)));
    assert!(!wants_stack(&EventView::new(&matching), &level_kw(false)));
    assert!(wants_stack(&EventView::new(&too_verbose), &level_kw(false)));
    // Both need STACK_TRACE.
    for f in [
        EventFilter::StackwalkName(names(0, 0, 0, true, &["Start"])),
        EventFilter::StackwalkLevelKw {
            match_any: Keyword(0),
            match_all: Keyword(0),
            level: Level(0),
            filter_in: true,
        },
    ] {
        assert!(!wants_stack(
            &tl("Start"),
            &slot_filter(EnableProperty::empty(), &[f])
        ));
    }
    // Wire layout of EVENT_FILTER_LEVEL_KW: two ULONGLONGs, Level, FilterIn, padded to 24.
    let lkw = EventFilter::StackwalkLevelKw {
        match_any: Keyword(0x0102),
        match_all: Keyword(0x04),
        level: Level(3),
        filter_in: true,
    };
    let mut expected = Vec::new();
    expected.extend_from_slice(&0x0102u64.to_le_bytes());
    expected.extend_from_slice(&0x04u64.to_le_bytes());
    expected.extend_from_slice(&[3, 1, 0, 0, 0, 0, 0, 0]);
    assert_eq!(lkw.to_bytes(), expected);
    assert_eq!(
        EventFilter::parse(FilterType::STACKWALK_LEVEL_KW, &expected).unwrap(),
        lkw
    );
    let k = kernel();
    let g = guid(44);
    let s = k.session("swn").start().unwrap();
    let w = win32(&k);
    let params = raw_params(vec![raw_desc(
        FilterType::STACKWALK_LEVEL_KW,
        expected[..17].to_vec(),
    )]);
    assert_rejected_code(&k, INVALID, || raw_enable(&w, &s, g, &params));
    let params = raw_params(vec![raw_desc(FilterType::STACKWALK_LEVEL_KW, expected)]);
    assert_eq!(raw_enable(&w, &s, g, &params), ERROR_SUCCESS);
    // STACKWALK_NAME has EVENT_NAME's 4096-byte limit.
    let sized = |len: usize| EventFilter::StackwalkName(names(0, 0, 0, true, &[&"n".repeat(len)]));
    s.enable(g, &EnableParams::new().filter(sized(4075)))
        .unwrap();
    let p = EnableParams::new().filter(sized(4076));
    assert_rejected(&k, INVALID, || s.enable(g, &p));
}

#[test]
fn tracehandle_filter_goes_only_with_capture_state_on_system_trace_control_guid() {
    // rule: FLT-24
    // rule: FLT-25
    let k = kernel();
    let g = guid(45);
    let controller = k.session("controller").start().unwrap();
    let target = k.session("target").start().unwrap();
    let th = EnableParams::new().filter(EventFilter::TraceHandle(target.handle().0));
    k.enable_trace_ex2(
        &k.system_process(),
        Target::Handle(controller.handle()),
        Guid::SYSTEM_TRACE_CONTROL,
        ControlCode::CaptureState,
        &th,
    )
    .unwrap();
    // Anywhere else: refused.
    assert_rejected(&k, INVALID, || controller.enable(g, &th));
    assert_rejected(&k, INVALID, || controller.capture_state(g, &th));
    assert_rejected(&k, INVALID, || {
        controller.enable(Guid::SYSTEM_TRACE_CONTROL, &th)
    });
    // The handle must name a running session.
    let stopped = k.session("stopped").start().unwrap();
    let stale = stopped.handle();
    stopped.stop().unwrap();
    for h in [stale.0, 0, 0xDEAD_0000] {
        let p = EnableParams::new().filter(EventFilter::TraceHandle(h));
        assert_rejected(&k, INVALID, || {
            controller.capture_state(Guid::SYSTEM_TRACE_CONTROL, &p)
        });
    }
    // Wire form: one 8-byte TRACEHANDLE.
    assert_eq!(
        EventFilter::TraceHandle(target.handle().0).to_bytes(),
        target.handle().0.to_le_bytes().to_vec()
    );
    let w = win32(&k);
    for data in [vec![0u8; 4], vec![0u8; 16]] {
        let params = raw_params(vec![raw_desc(FilterType::TRACEHANDLE, data)]);
        assert_rejected_code(&k, INVALID, || {
            w.enable_trace_ex2(
                controller.handle().0,
                Some(&Guid::SYSTEM_TRACE_CONTROL),
                EVENT_CONTROL_CODE_CAPTURE_STATE,
                0,
                0,
                0,
                0,
                Some(&params),
            )
        });
    }
    let params = raw_params(vec![raw_desc(
        FilterType::TRACEHANDLE,
        target.handle().0.to_le_bytes().to_vec(),
    )]);
    assert_eq!(
        w.enable_trace_ex2(
            controller.handle().0,
            Some(&Guid::SYSTEM_TRACE_CONTROL),
            EVENT_CONTROL_CODE_CAPTURE_STATE,
            0,
            0,
            0,
            0,
            Some(&params),
        ),
        ERROR_SUCCESS
    );
    // SYSTEM_FLAGS is internal: never accepted.
    let params = raw_params(vec![raw_desc(FilterType::SYSTEM_FLAGS, vec![0; 8])]);
    assert_rejected_code(&k, INVALID, || {
        w.enable_trace_ex2(
            controller.handle().0,
            Some(&Guid::SYSTEM_TRACE_CONTROL),
            EVENT_CONTROL_CODE_CAPTURE_STATE,
            0,
            0,
            0,
            0,
            Some(&params),
        )
    });
}

#[test]
fn a_refused_re_enable_keeps_the_previous_settings_and_filters() {
    // rule: FLT-25
    let k = kernel();
    let g = guid(46);
    let s = k.session("keep").start().unwrap();
    s.enable(
        g,
        &EnableParams::new()
            .level(Level::WARNING)
            .any(0x1)
            .filter(ids(true, &[5])),
    )
    .unwrap();
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    let bad = EnableParams::new()
        .level(Level::VERBOSE)
        .filter(EventFilter::Pid((1..=9).map(|i| i * 4).collect()));
    assert_rejected(&k, INVALID, || s.enable(g, &bad));
    assert!(accepts(&p, &s, &desc(5, 3, 1)));
    assert!(
        !accepts(&p, &s, &desc(6, 3, 1)),
        "the id filter is still there"
    );
    assert!(
        !accepts(&p, &s, &desc(5, 5, 1)),
        "the level is still WARNING"
    );
}

// ---------------------------------------------------------------------------------------------
// routing and the cost model

#[test]
fn routing_is_decided_per_session_with_each_sessions_own_settings() {
    // rule: FLT-20
    let k = kernel();
    let g = guid(47);
    let a = user_process(&k, "a.exe");
    let b = user_process(&k, "b.exe");
    let errors = k.session("errors").start().unwrap();
    let net = k.session("net").start().unwrap();
    let only_a = k.session("only-a").start().unwrap();
    let names_s = k.session("names").start().unwrap();
    errors
        .enable(g, &EnableParams::new().level(Level::ERROR))
        .unwrap();
    net.enable(
        g,
        &EnableParams::new()
            .level(Level::VERBOSE)
            .any(0x10)
            .property(EnableProperty::IGNORE_KEYWORD_0 | EnableProperty::EXCLUDE_INPRIVATE),
    )
    .unwrap();
    only_a
        .enable(
            g,
            &EnableParams::new()
                .filter(EventFilter::Pid(vec![a.pid()]))
                .filter(ids(false, &[99])),
        )
        .unwrap();
    names_s
        .enable(
            g,
            &EnableParams::new().filter(EventFilter::EventName(names(0, 0, 0, true, &["Go"]))),
        )
        .unwrap();
    let pa = a.register_provider(g).unwrap();
    let pb = b.register_provider(g).unwrap();
    let (e, n, o, m) = (
        errors.handle(),
        net.handle(),
        only_a.handle(),
        names_s.handle(),
    );
    assert_eq!(targets(&pa, &desc(1, 2, 0)), vec![e, o, m]);
    assert_eq!(targets(&pb, &desc(1, 2, 0)), vec![e, m]);
    assert_eq!(targets(&pa, &desc(1, 4, 0x10)), vec![n, o, m]);
    assert_eq!(targets(&pb, &desc(99, 2, 0x10)), vec![e, n, m]);
    assert_eq!(targets(&pa, &desc(99, 2, 0x10)), vec![e, n, m]);
    assert_eq!(tl_targets(&pa, &desc(99, 4, 0x10), "Stop"), vec![n, o]);
    assert_eq!(tl_targets(&pb, &desc(1, 2, 0), "Go"), vec![e, m]);
    let d = desc(1, 2, 0x10);
    let private = EventView {
        inprivate: true,
        filter_mask: 1 << slot_of(&k, g, &errors),
        ..EventView::new(&d)
    };
    assert_eq!(pa.targets(&private), vec![o, m]);
    assert_eq!(pb.enable_state().mask.count_ones(), 3);
    assert_eq!(pa.enable_state().mask.count_ones(), 4);
}

#[test]
fn routing_matches_appendix_a_and_is_enabled_for_is_conservative_over_many_combinations() {
    // rule: FLT-20
    // rule: FLT-01
    // rule: FLT-02
    // rule: FLT-04
    // rule: FLT-05
    // rule: FLT-06
    // rule: FLT-07
    // rule: FLT-11
    let levels = [0u8, 1, 2, 3, 4, 5, 16, 255];
    let anys = [0u64, 0x1, 0x6, 0x8000_0000_0000_0000, 0xFF, u64::MAX];
    let alls = [0u64, 0x2, 0x6, 0x1];
    let props = [
        EnableProperty::empty(),
        EnableProperty::IGNORE_KEYWORD_0,
        EnableProperty::EXCLUDE_INPRIVATE,
        EnableProperty::IGNORE_KEYWORD_0 | EnableProperty::EXCLUDE_INPRIVATE,
    ];
    let ev_levels = [0u8, 1, 2, 3, 4, 5, 6, 16, 200, 255];
    let ev_kws = [
        0u64,
        0x1,
        0x2,
        0x3,
        0x4,
        0x6,
        0x7,
        0x10,
        0x8000_0000_0000_0000,
        0x8000_0000_0000_0002,
        u64::MAX,
    ];
    let mut rng = Rng(0x00F1_7E25);
    let mut accepted_somewhere = 0u32;
    let mut checked = 0u32;
    for round in 0..200 {
        let k = kernel();
        let g = guid(100);
        let count = 1 + (rng.next() % 8) as usize;
        let mut settings = Vec::new();
        for i in 0..count {
            let s = k.session(&format!("r{round}s{i}")).start().unwrap();
            let (level, any, all, prop) = (
                rng.pick(&levels),
                rng.pick(&anys),
                rng.pick(&alls),
                rng.pick(&props),
            );
            s.enable(
                g,
                &EnableParams::new()
                    .level(Level(level))
                    .any(any)
                    .all(all)
                    .property(prop),
            )
            .unwrap();
            settings.push((s, level, any, all, prop));
        }
        // Disable a random one sometimes, so slots are not always dense.
        if count > 1 && rng.next() % 2 == 0 {
            let victim = (rng.next() as usize) % count;
            settings[victim].0.disable(g).unwrap();
            settings.remove(victim);
        }
        let p = user_process(&k, "app.exe").register_provider(g).unwrap();
        let slots: Vec<u8> = settings.iter().map(|s| slot_of(&k, g, &s.0)).collect();
        for &ev_level in &ev_levels {
            for &ev_kw in &ev_kws {
                let mask = if rng.next() % 4 == 0 {
                    rng.next() & 0xFF
                } else {
                    0
                };
                let inprivate = rng.next() % 4 == 0;
                let d = desc(1, ev_level, ev_kw);
                let view = EventView {
                    filter_mask: mask,
                    inprivate,
                    ..EventView::new(&d)
                };
                let mut want: Vec<(u8, TraceHandle)> = settings
                    .iter()
                    .zip(&slots)
                    .filter(|((_, level, any, all, prop), slot)| {
                        oracle(
                            ev_level, ev_kw, mask, inprivate, **slot, *level, *any, *all, *prop,
                        )
                    })
                    .map(|((s, ..), slot)| (*slot, s.handle()))
                    .collect();
                want.sort();
                let want: Vec<TraceHandle> = want.into_iter().map(|(_, h)| h).collect();
                let got = p.targets(&view);
                assert_eq!(
                    got, want,
                    "round {round}: event level {ev_level} kw {ev_kw:#x} mask {mask:#x} inprivate {inprivate}"
                );
                // The plain event (no mask, not InPrivate) is what is_enabled_for must cover.
                let plain = targets(&p, &d);
                if !plain.is_empty() {
                    accepted_somewhere += 1;
                    assert!(
                        p.is_enabled_for(Level(ev_level), Keyword(ev_kw)),
                        "round {round}: a session takes level {ev_level} kw {ev_kw:#x} but is_enabled_for says no"
                    );
                    assert!(p.event_enabled(&d));
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 200 * 10 * 11);
    assert!(
        accepted_somewhere > checked / 4,
        "the combinations exercise acceptance"
    );
    assert!(accepted_somewhere < checked, "and rejection");
}

#[test]
fn is_enabled_for_is_conservative_with_scope_and_name_and_id_filters() {
    // rule: FLT-20
    // rule: FLT-26
    let mut rng = Rng(26);
    for round in 0..60 {
        let k = kernel();
        let g = guid(101);
        let app = user_process(&k, "app.exe");
        let other = user_process(&k, "other.exe");
        for i in 0..(1 + rng.next() % 8) {
            let s = k.session(&format!("c{round}-{i}")).start().unwrap();
            let mut params = EnableParams::new()
                .level(Level(rng.pick(&[0u8, 2, 4, 255])))
                .any(rng.pick(&[0u64, 1, 2, 3]))
                .all(rng.pick(&[0u64, 1, 2]))
                .property(rng.pick(&[EnableProperty::empty(), EnableProperty::IGNORE_KEYWORD_0]));
            match rng.next() % 5 {
                0 => params = params.filter(EventFilter::Pid(vec![other.pid()])),
                1 => params = params.filter(EventFilter::ExecutableName("app.exe".into())),
                2 => params = params.filter(ids(rng.next() % 2 == 0, &[1, 2])),
                3 => {
                    params = params.filter(EventFilter::EventName(names(
                        0,
                        0,
                        0,
                        rng.next() % 2 == 0,
                        &["A"],
                    )))
                }
                _ => {}
            }
            s.enable(g, &params).unwrap();
        }
        let p = app.register_provider(g).unwrap();
        for level in [0u8, 1, 2, 3, 4, 5, 255] {
            for kw in [0u64, 1, 2, 3, 4] {
                for id in [1u16, 3] {
                    let d = desc(id, level, kw);
                    let any_target = !targets(&p, &d).is_empty()
                        || !tl_targets(&p, &d, "A").is_empty()
                        || !tl_targets(&p, &d, "B").is_empty();
                    if any_target {
                        assert!(p.is_enabled(), "round {round}");
                        assert!(
                            p.is_enabled_for(Level(level), Keyword(kw)),
                            "round {round} level {level} kw {kw:#x}"
                        );
                    }
                }
            }
        }
        if !p.is_enabled() {
            assert!(targets(&p, &desc(1, 0, 0)).is_empty());
        }
    }
}

#[test]
fn scope_filters_act_before_the_event_is_built() {
    // rule: FLT-26
    let k = kernel();
    let g = guid(48);
    let s = k.session("scoped").start().unwrap();
    s.enable(
        g,
        &EnableParams::new().filter(EventFilter::ExecutableName("in.exe".into())),
    )
    .unwrap();
    let inside = Win32::new(&user_process(&k, "in.exe"));
    let outside = Win32::new(&user_process(&k, "out.exe"));
    let (mut h_in, mut h_out) = (0u64, 0u64);
    assert_eq!(inside.event_register(Some(&g), None, 0, Some(&mut h_in)), 0);
    assert_eq!(
        outside.event_register(Some(&g), None, 0, Some(&mut h_out)),
        0
    );
    let d = desc(1, 4, 1);
    // Out of scope: the cached enable word is 0, so EventEnabled fails at once.
    assert_eq!(
        outside.with_provider(h_out, |p| p.is_enabled()),
        Some(false)
    );
    assert_eq!(
        outside.with_provider(h_out, |p| p.enable_state().mask),
        Some(0)
    );
    assert!(!outside.event_enabled(h_out, &d));
    assert!(!outside.event_provider_enabled(h_out, 0, 0));
    assert_eq!(inside.with_provider(h_in, |p| p.is_enabled()), Some(true));
    assert!(inside.event_enabled(h_in, &d));
    // Level/keyword also act before the event is built.
    s.enable(
        g,
        &EnableParams::new()
            .level(Level::ERROR)
            .any(0x2)
            .filter(EventFilter::ExecutableName("in.exe".into())),
    )
    .unwrap();
    assert!(!inside.event_enabled(h_in, &desc(1, 4, 0x2)));
    assert!(!inside.event_enabled(h_in, &desc(1, 2, 0x1)));
    assert!(inside.event_enabled(h_in, &desc(1, 2, 0x2)));
    // A payload filter acts after the event is built: it never closes the enable word.
    let pay = k.session("payload").start().unwrap();
    let h = guid(49);
    pay.enable(h, &EnableParams::new().filter(payload_filter_of_size(h, 0)))
        .unwrap();
    let ph = user_process(&k, "any.exe").register_provider(h).unwrap();
    assert!(ph.is_enabled());
}

#[test]
fn arbitrary_descriptor_bytes_are_accepted_or_refused_with_invalid_parameter_never_a_panic() {
    // rule: FLT-25
    let k = kernel();
    let g = guid(50);
    let s = k.session("fuzz").start().unwrap();
    let w = win32(&k);
    let types = FilterType::ALL;
    let mut rng = Rng(0xF022);
    let mut refused = 0;
    for round in 0..3000 {
        let ty = rng.pick(&types);
        let len = match rng.next() % 4 {
            0 => (rng.next() % 8) as usize,
            1 => (rng.next() % 64) as usize,
            2 => 1020 + (rng.next() % 8) as usize,
            _ => 4090 + (rng.next() % 10) as usize,
        };
        let data: Vec<u8> = (0..len)
            .map(|_| match rng.next() % 3 {
                0 => 0,
                1 => b'a',
                _ => rng.next() as u8,
            })
            .collect();
        let params = raw_params(vec![raw_desc(ty, data)]);
        let code = Win32Error(raw_enable(&w, &s, g, &params));
        assert!(
            code == Win32Error::ERROR_SUCCESS || code == INVALID,
            "round {round}: type {:#x} len {len}: {code}",
            ty.0
        );
        if code == INVALID {
            refused += 1;
        }
    }
    assert!(refused > 100, "the generator produces invalid descriptors");
}
