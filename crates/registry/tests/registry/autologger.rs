//! The AutoLogger and Global Logger views: defaults, values in force and diagnostics.

use etwsim_registry::autologger::{AUTOLOGGER_PATH, GLOBAL_LOGGER_PATH};
use etwsim_registry::{
    DiagnosticKind, Registry, Value, ValueType, autologger_session_named, autologger_sessions,
    expand_environment, global_logger,
};
use etwsim_types::{ClockType, EnableProperty, Guid, Keyword, Level, LogFileMode};

const PROVIDER: &str = "{0d9a6a3c-1111-4222-8333-444455556666}";

fn reg(text: &str) -> Registry {
    let (reg, report) = Registry::from_reg(text.as_bytes()).unwrap();
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    reg
}

/// The rules a session's diagnostics cite, with the value each concerns.
fn notes(d: &[etwsim_registry::Diagnostic]) -> Vec<(Option<&str>, &str)> {
    d.iter().map(|d| (d.value.as_deref(), d.rule)).collect()
}

#[test]
fn a_session_key_with_only_start_and_guid_gets_every_default() {
    // rule: ALG-01
    // rule: ALG-02
    // rule: ALG-03
    // rule: REG-19
    let r = reg(
        "REGEDIT4\n[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\WMI\\Autologger\\Contoso-Boot]\n\"Start\"=dword:1\n\"Guid\"=\"{6f3e2a10-0000-4000-8000-000000000001}\"\n",
    );
    let sessions = autologger_sessions(&r);
    assert_eq!(sessions.len(), 1);
    let s = &sessions[0];
    assert_eq!(s.name, "Contoso-Boot");
    assert_eq!(s.path, format!(r"{AUTOLOGGER_PATH}\Contoso-Boot"));
    assert!(s.will_start());
    assert!(s.diagnostics.is_empty(), "{:?}", s.diagnostics);
    assert_eq!(
        s.guid.in_force,
        Some("6f3e2a10-0000-4000-8000-000000000001".parse().unwrap())
    );
    let st = &s.settings;
    assert_eq!(st.start.written, Some(Value::dword(1)));
    assert_eq!(st.buffer_size.written, None);
    assert_eq!(st.buffer_size.in_force, 0, "computed by ETW");
    assert_eq!(st.clock_type.in_force, ClockType::Qpc);
    assert_eq!(st.file_counter.in_force, 0);
    assert_eq!(st.file_max.in_force, 0);
    assert_eq!(
        st.file_name.in_force.as_deref(),
        Some(r"%SystemRoot%\System32\LogFiles\WMI\Contoso-Boot.etl")
    );
    assert_eq!(st.flush_timer.in_force, 0);
    assert_eq!(st.log_file_mode.in_force, LogFileMode::SEQUENTIAL);
    assert_eq!(st.max_file_size.in_force, 100);
    assert_eq!(
        (st.minimum_buffers.in_force, st.maximum_buffers.in_force),
        (0, 0)
    );
    assert_eq!(st.status.in_force, None);
    assert_eq!(s.boot.in_force, 0);
    assert_eq!(s.disable_realtime_persistence.in_force, 0);
    assert!(s.providers.is_empty());
    assert_eq!(
        autologger_session_named(&r, "contoso-BOOT").as_ref(),
        Some(s)
    );
}

#[test]
fn without_start_1_and_a_guid_the_session_does_not_start() {
    // rule: ALG-02
    // rule: REG-16
    let base = AUTOLOGGER_PATH;
    let mut r = Registry::new();
    r.set_value(&format!(r"{base}\NoGuid"), "Start", Value::dword(1))
        .unwrap();
    r.set_value(&format!(r"{base}\Off"), "Start", Value::dword(0))
        .unwrap();
    r.set_value(
        &format!(r"{base}\Off"),
        "Guid",
        Value::sz("{6f3e2a10-0000-4000-8000-000000000001}"),
    )
    .unwrap();
    r.set_value(&format!(r"{base}\Bare"), "Start", Value::dword(1))
        .unwrap();
    r.set_value(
        &format!(r"{base}\Bare"),
        "Guid",
        Value::sz("6F3E2A10-0000-4000-8000-000000000002"),
    )
    .unwrap();
    r.set_value(&format!(r"{base}\BadGuid"), "Start", Value::dword(1))
        .unwrap();
    r.set_value(
        &format!(r"{base}\BadGuid"),
        "Guid",
        Value::sz("{not-a-guid}"),
    )
    .unwrap();
    let by_name = |n: &str| autologger_session_named(&r, n).unwrap();
    let no_guid = by_name("NoGuid");
    assert!(!no_guid.will_start());
    assert_eq!(notes(&no_guid.diagnostics), [(Some("Guid"), "ALG-02")]);
    assert_eq!(no_guid.diagnostics[0].kind, DiagnosticKind::MissingRequired);
    assert!(!by_name("Off").will_start());
    // Without braces is accepted for the session Guid.
    let bare = by_name("Bare");
    assert!(bare.will_start());
    assert!(bare.diagnostics.is_empty());
    let bad = by_name("BadGuid");
    assert!(!bad.will_start());
    assert_eq!(
        notes(&bad.diagnostics),
        [(Some("Guid"), "REG-16"), (Some("Guid"), "ALG-02")]
    );
}

#[test]
fn values_etw_cannot_support_are_overridden_with_a_diagnostic() {
    // rule: ALG-02
    // rule: ALG-03
    let r = reg(&format!(
        "REGEDIT4\n[{AUTOLOGGER_PATH}\\S]\n\"Start\"=dword:1\n\"Guid\"=\"{PROVIDER}\"\n\
         \"ClockType\"=dword:7\n\"FileMax\"=dword:20\n\"FileCounter\"=dword:0\n\
         \"LogFileMode\"=dword:00000009\n\"FileName\"=\"C:\\\\t\\\\s.etl\"\n\"MaxFileSize\"=dword:5\n"
    ));
    let s = autologger_session_named(&r, "S").unwrap();
    let st = &s.settings;
    assert_eq!(st.clock_type.written, Some(Value::dword(7)));
    assert_eq!(st.clock_type.in_force, ClockType::Qpc);
    assert_eq!(st.file_max.in_force, 16);
    assert_eq!(
        st.file_counter.in_force, 1,
        "an invalid FileCounter is treated as 1"
    );
    assert_eq!(
        st.log_file_mode.in_force,
        LogFileMode::SEQUENTIAL,
        "NEWFILE removed"
    );
    assert_eq!(st.file_name.in_force.as_deref(), Some(r"C:\t\s.etl"));
    assert_eq!(st.max_file_size.in_force, 5);
    assert_eq!(
        notes(&s.diagnostics),
        [
            (Some("ClockType"), "ALG-03"),
            (Some("FileMax"), "ALG-03"),
            (Some("FileCounter"), "ALG-03"),
            (Some("LogFileMode"), "ALG-03"),
        ]
    );
    assert!(
        s.diagnostics
            .iter()
            .all(|d| matches!(d.kind, DiagnosticKind::Overridden { .. }))
    );
    assert!(s.diagnostics[0].to_string().contains("overridden"));
    // A counter within 1..=FileMax is kept.
    let r = reg(&format!(
        "REGEDIT4\n[{AUTOLOGGER_PATH}\\S]\n\"FileMax\"=dword:3\n\"FileCounter\"=dword:3\n"
    ));
    assert_eq!(
        autologger_session_named(&r, "S")
            .unwrap()
            .settings
            .file_counter
            .in_force,
        3
    );
}

#[test]
fn real_time_and_buffering_sessions_need_no_file() {
    // rule: ALG-03
    let r = reg(&format!(
        "REGEDIT4\n[{AUTOLOGGER_PATH}\\Rt]\n\"LogFileMode\"=dword:00000100\n\
         [{AUTOLOGGER_PATH}\\RtFile]\n\"LogFileMode\"=dword:00000100\n\"FileName\"=\"C:\\\\f.etl\"\n\
         [{AUTOLOGGER_PATH}\\Buf]\n\"LogFileMode\"=dword:00000400\n\"FileName\"=\"C:\\\\f.etl\"\n\
         [{AUTOLOGGER_PATH}\\Append]\n\"LogFileMode\"=dword:00000005\n"
    ));
    let get = |n: &str| autologger_session_named(&r, n).unwrap();
    assert_eq!(get("Rt").settings.file_name.in_force, None);
    assert_eq!(
        get("RtFile").settings.file_name.in_force.as_deref(),
        Some(r"C:\f.etl")
    );
    let buf = get("Buf");
    assert_eq!(buf.settings.file_name.in_force, None);
    assert!(matches!(
        buf.diagnostics[0].kind,
        DiagnosticKind::Ignored { .. }
    ));
    let append = get("Append");
    assert!(matches!(
        append.diagnostics[0].kind,
        DiagnosticKind::Invalid { .. }
    ));
    // Too long a file name is kept but flagged.
    let mut r = Registry::new();
    let path = format!(r"{AUTOLOGGER_PATH}\Long");
    r.set_value(&path, "FileName", Value::sz(&"x".repeat(1025)))
        .unwrap();
    let long = autologger_session_named(&r, "Long").unwrap();
    assert!(matches!(
        long.diagnostics[0].kind,
        DiagnosticKind::Invalid { .. }
    ));
}

#[test]
fn provider_subkeys_carry_level_keywords_and_properties() {
    // rule: ALG-05
    // rule: REG-02
    let r = reg(&format!(
        "Windows Registry Editor Version 5.00\n\n[{AUTOLOGGER_PATH}\\S]\n\"Start\"=dword:00000001\n\"Guid\"=\"{PROVIDER}\"\n\
         [{AUTOLOGGER_PATH}\\S\\{PROVIDER}]\n\"Enabled\"=dword:00000001\n\"EnableLevel\"=dword:00000004\n\
         \"MatchAnyKeyword\"=hex(b):ff,ff,00,00,00,00,00,00\n\"MatchAllKeyword\"=hex(b):01,00,00,00,00,00,00,00\n\
         \"EnableProperty\"=dword:00000011\n\
         [{AUTOLOGGER_PATH}\\S\\{{00000000-0000-0000-0000-000000000001}}]\n\
         \"MatchAllKeyword\"=hex(b):01,00,00,00,00,00,00,00\n"
    ));
    let s = autologger_session_named(&r, "S").unwrap();
    assert_eq!(s.providers.len(), 2);
    let p = s
        .providers
        .iter()
        .find(|p| p.guid == PROVIDER.parse::<Guid>().unwrap())
        .unwrap();
    assert!(p.enabled.in_force);
    assert_eq!(p.enable_level.in_force, Level(4));
    assert_eq!(p.match_any_keyword.in_force, Keyword(0xffff));
    assert_eq!(
        p.match_any_keyword.written.as_ref().map(Value::ty),
        Some(ValueType::QWORD)
    );
    assert_eq!(p.match_all_keyword.in_force, Keyword(1));
    assert_eq!(
        p.enable_property.in_force,
        EnableProperty::SID | EnableProperty::IGNORE_KEYWORD_0
    );
    // Defaults: disabled, level 0, no keywords; MatchAll ignored when MatchAny is 0.
    let q = s.providers.iter().find(|p| p.guid != p_guid()).unwrap();
    assert!(!q.enabled.in_force);
    assert_eq!(q.enable_level.in_force, Level(0));
    assert_eq!(q.enable_flags.in_force, 0);
    assert_eq!(q.match_any_keyword.in_force, Keyword(0));
    assert_eq!(q.match_all_keyword.written, Some(Value::qword(1)));
    assert_eq!(q.match_all_keyword.in_force, Keyword(0));
    assert_eq!(notes(&s.diagnostics), [(Some("MatchAllKeyword"), "ALG-05")]);
}

fn p_guid() -> Guid {
    PROVIDER.parse().unwrap()
}

#[test]
fn cim_property_names_are_not_registry_names() {
    // rule: REG-14
    let r = reg(&format!(
        "REGEDIT4\n[{AUTOLOGGER_PATH}\\S]\n\"MaximumFileSize\"=dword:5\n\"LocalFilePath\"=\"C:\\\\x.etl\"\n\"InitStatus\"=dword:0\n\
         [{AUTOLOGGER_PATH}\\S\\{PROVIDER}]\n\"Level\"=dword:5\n\"Property\"=dword:1\n"
    ));
    let s = autologger_session_named(&r, "S").unwrap();
    assert_eq!(
        s.settings.max_file_size.in_force, 100,
        "MaximumFileSize ignored"
    );
    assert!(
        s.settings
            .file_name
            .in_force
            .unwrap()
            .ends_with(r"WMI\S.etl")
    );
    assert_eq!(s.providers[0].enable_level.in_force, Level(0));
    assert_eq!(
        s.providers[0].enable_property.in_force,
        EnableProperty::empty()
    );
    let names: Vec<&'static str> = s
        .diagnostics
        .iter()
        .map(|d| match d.kind {
            DiagnosticKind::NotARegistryName { registry_name } => registry_name,
            _ => "other",
        })
        .collect();
    assert_eq!(
        names,
        [
            "MaxFileSize",
            "FileName",
            "Status",
            "EnableLevel",
            "EnableProperty"
        ]
    );
    assert!(s.diagnostics.iter().all(|d| d.rule == "REG-14"));
    assert!(
        s.diagnostics[0]
            .to_string()
            .contains("the registry value is MaxFileSize")
    );
}

#[test]
fn wrong_types_are_converted_or_treated_as_absent() {
    // rule: REG-15
    let path = format!(r"{AUTOLOGGER_PATH}\S");
    let ppath = format!(r"{path}\{PROVIDER}");
    let mut r = Registry::new();
    r.set_value(&path, "Start", Value::sz("1")).unwrap();
    r.set_value(&path, "BufferSize", Value::qword(0x1_0000_0040))
        .unwrap();
    r.set_value(&path, "FlushTimer", Value::new(ValueType::DWORD, [1, 0]))
        .unwrap();
    r.set_value(&path, "Age", Value::dword(5)).unwrap();
    r.set_value(&ppath, "MatchAnyKeyword", Value::dword(0xf0))
        .unwrap();
    r.set_value(&ppath, "EnableLevel", Value::binary(vec![4]))
        .unwrap();
    let s = autologger_session_named(&r, "S").unwrap();
    assert_eq!(s.settings.start.in_force, 0, "REG_SZ Start is absent");
    assert_eq!(s.settings.buffer_size.in_force, 0x40, "QWORD truncated");
    assert_eq!(s.settings.flush_timer.in_force, 0, "2-byte DWORD is absent");
    let p = &s.providers[0];
    assert_eq!(
        p.match_any_keyword.in_force,
        Keyword(0xf0),
        "DWORD zero-extended"
    );
    assert_eq!(p.enable_level.in_force, Level(0));
    let kinds: Vec<(&str, &DiagnosticKind)> = s
        .diagnostics
        .iter()
        .map(|d| (d.value.as_deref().unwrap(), &d.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            (
                "Start",
                &DiagnosticKind::WrongType {
                    found: ValueType::SZ,
                    expected: ValueType::DWORD
                }
            ),
            (
                "BufferSize",
                &DiagnosticKind::Converted {
                    found: ValueType::QWORD,
                    expected: ValueType::DWORD
                }
            ),
            (
                "FlushTimer",
                &DiagnosticKind::BadData {
                    expected: "4 bytes, as every REG_DWORD"
                }
            ),
            ("Age", &DiagnosticKind::UnknownValue),
            (
                "EnableLevel",
                &DiagnosticKind::WrongType {
                    found: ValueType::BINARY,
                    expected: ValueType::DWORD
                }
            ),
            (
                "MatchAnyKeyword",
                &DiagnosticKind::Converted {
                    found: ValueType::DWORD,
                    expected: ValueType::QWORD
                }
            ),
        ]
    );
    assert!(s.diagnostics.iter().all(|d| d.rule == "REG-15"));
    assert_eq!(
        s.diagnostics[0].to_string(),
        format!(r"{path} Start: is REG_SZ, expected REG_DWORD; treated as absent (REG-15)")
    );
}

#[test]
fn only_braced_guid_subkeys_are_provider_keys() {
    // rule: REG-16
    let base = format!(r"{AUTOLOGGER_PATH}\S");
    let mut r = Registry::new();
    r.create_key(&format!(r"{base}\{PROVIDER}")).unwrap();
    r.create_key(&format!(r"{base}\0d9a6a3c-1111-4222-8333-444455556667"))
        .unwrap();
    r.create_key(&format!(r"{base}\Notes")).unwrap();
    let s = autologger_session_named(&r, "S").unwrap();
    assert_eq!(s.providers.len(), 1);
    assert_eq!(s.providers[0].guid, p_guid());
    assert_eq!(
        s.diagnostics
            .iter()
            .map(|d| (d.rule, &d.kind))
            .collect::<Vec<_>>(),
        [
            ("REG-16", &DiagnosticKind::NotAProviderKey),
            ("REG-16", &DiagnosticKind::NotAProviderKey)
        ]
    );
}

#[test]
fn match_any_keyword_wins_over_enable_flags() {
    // rule: REG-17
    let base = format!(r"{AUTOLOGGER_PATH}\S\{PROVIDER}");
    let mut r = Registry::new();
    r.set_value(&base, "EnableFlags", Value::dword(0x8000_0001))
        .unwrap();
    let flags_only = autologger_session_named(&r, "S").unwrap();
    assert_eq!(
        flags_only.providers[0].match_any_keyword.in_force,
        Keyword(0x8000_0001),
        "EnableFlags zero-extended"
    );
    assert_eq!(flags_only.providers[0].match_any_keyword.written, None);
    r.set_value(&base, "MatchAnyKeyword", Value::qword(0x10))
        .unwrap();
    let both = autologger_session_named(&r, "S").unwrap();
    assert_eq!(both.providers[0].match_any_keyword.in_force, Keyword(0x10));
    assert_eq!(both.providers[0].enable_flags.in_force, 0x8000_0001);
}

#[test]
fn status_is_read_back_as_etw_wrote_it() {
    // rule: REG-18
    let mut r = Registry::new();
    let path = format!(r"{AUTOLOGGER_PATH}\S");
    r.set_value(&path, "Status", Value::dword(87)).unwrap();
    assert_eq!(
        autologger_session_named(&r, "S")
            .unwrap()
            .settings
            .status
            .in_force,
        Some(87)
    );
    r.set_value(GLOBAL_LOGGER_PATH, "Status", Value::dword(0))
        .unwrap();
    assert_eq!(global_logger(&r).unwrap().settings.status.in_force, Some(0));
}

#[test]
fn file_names_expand_environment_references() {
    // rule: REG-19
    let mut r = Registry::new();
    let path = format!(r"{AUTOLOGGER_PATH}\S");
    r.set_value(&path, "FileName", Value::expand_sz(r"%TEMP%\s.etl"))
        .unwrap();
    let s = autologger_session_named(&r, "S").unwrap();
    let name = s.settings.file_name.in_force.unwrap();
    let env = |n: &str| match n.to_ascii_uppercase().as_str() {
        "TEMP" => Some(r"C:\Temp".to_owned()),
        "SYSTEMROOT" => Some(r"C:\Windows".to_owned()),
        _ => None,
    };
    assert_eq!(expand_environment(&name, env), r"C:\Temp\s.etl");
    // The defaults differ: 100 MB and <session>.etl vs no maximum and GlobalLogger.etl.
    r.create_key(GLOBAL_LOGGER_PATH).unwrap();
    let g = global_logger(&r).unwrap();
    assert_eq!(g.settings.max_file_size.in_force, 0);
    let gname = g.settings.file_name.in_force.unwrap();
    assert_eq!(
        expand_environment(&gname, env),
        r"C:\Windows\System32\LogFiles\WMI\GlobalLogger.etl"
    );
}

#[test]
fn the_global_logger_key_and_its_kernel_flags() {
    // rule: ALG-08
    // rule: ALG-09
    // rule: REG-21
    let r = reg(&format!(
        "REGEDIT4\n[{GLOBAL_LOGGER_PATH}]\n\"Start\"=dword:1\n\"EnableKernelFlags\"=hex:07,00,00,00\n\
         \"LogFileMode\"=dword:00000101\n\"FileMax\"=dword:2\n\"FileCounter\"=dword:5\n\"MinimumBuffers\"=dword:3\n"
    ));
    let g = global_logger(&r).unwrap();
    assert!(g.will_start());
    let flags = g.enable_kernel_flags.in_force.as_ref().unwrap();
    assert_eq!(flags.enable_flags(), 7);
    assert_eq!(flags.words(), [7]);
    assert_eq!(g.session_name(), "NT Kernel Logger");
    assert_eq!(
        g.settings.log_file_mode.in_force,
        LogFileMode::SEQUENTIAL,
        "always a file"
    );
    assert_eq!(
        g.settings.file_counter.in_force, 0,
        "above FileMax: reset to 0"
    );
    assert_eq!(g.settings.minimum_buffers.in_force, 3);
    assert!(g.settings.file_name.in_force.is_some());
    assert_eq!(
        notes(&g.diagnostics),
        [
            (Some("FileCounter"), "ALG-09"),
            (Some("LogFileMode"), "REG-21")
        ]
    );
    // Group-mask words, zero flags, bad lengths and types.
    let mut r = Registry::new();
    let set = |r: &mut Registry, v: Value| {
        r.set_value(GLOBAL_LOGGER_PATH, "EnableKernelFlags", v)
            .unwrap();
        global_logger(r).unwrap()
    };
    let mut eight = vec![0u8; 32];
    eight[28] = 1;
    let g = set(&mut r, Value::binary(eight));
    assert_eq!(g.enable_kernel_flags.in_force.unwrap().words()[7], 1);
    let g = set(&mut r, Value::binary(vec![0; 4]));
    assert_eq!(g.session_name(), "GlobalLogger");
    assert_eq!(g.enable_kernel_flags.in_force, None);
    for bad in [vec![1, 0, 0], vec![1; 36], vec![1; 6]] {
        let g = set(&mut r, Value::binary(bad));
        assert_eq!(g.enable_kernel_flags.in_force, None);
        assert!(matches!(
            g.diagnostics[0].kind,
            DiagnosticKind::BadData { .. }
        ));
    }
    let g = set(&mut r, Value::dword(7));
    assert_eq!(g.enable_kernel_flags.in_force, None);
    assert!(matches!(
        g.diagnostics[0].kind,
        DiagnosticKind::WrongType { .. }
    ));
    assert!(global_logger(&Registry::new()).is_none());
}

#[test]
fn global_logger_provider_keys_carry_flags_and_level_for_the_provider() {
    // rule: REG-22
    let r = reg(&format!(
        "REGEDIT4\n[{GLOBAL_LOGGER_PATH}\\{PROVIDER}]\n\"Flags\"=dword:0000ffff\n\"Level\"=dword:5\n\"Custom\"=dword:1\n\
         [{GLOBAL_LOGGER_PATH}\\{{00000000-0000-0000-0000-000000000001}}]\n"
    ));
    let g = global_logger(&r).unwrap();
    assert_eq!(g.providers.len(), 2);
    let p = g.providers.iter().find(|p| p.guid == p_guid()).unwrap();
    assert_eq!(
        (p.flags.in_force, p.level.in_force),
        (Some(0xffff), Some(5))
    );
    let q = g.providers.iter().find(|p| p.guid != p_guid()).unwrap();
    assert_eq!((q.flags.in_force, q.level.in_force), (None, None));
    // Provider-defined values are the provider's business: no diagnostic.
    assert!(g.diagnostics.is_empty(), "{:?}", g.diagnostics);
}

#[test]
fn sessions_are_listed_in_start_order_boot_first_then_by_name() {
    // rule: REG-23
    let mut r = Registry::new();
    for (name, boot) in [
        ("beta", 0),
        ("Zulu", 1),
        ("alpha", 0),
        ("Echo", 1),
        ("Charlie", 0),
    ] {
        r.set_value(
            &format!(r"{AUTOLOGGER_PATH}\{name}"),
            "Boot",
            Value::dword(boot),
        )
        .unwrap();
    }
    let order: Vec<String> = autologger_sessions(&r)
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(order, ["Echo", "Zulu", "alpha", "beta", "Charlie"]);
}

#[test]
fn filter_values_in_provider_keys_are_ignored() {
    // rule: REG-25
    let mut r = Registry::new();
    let p = format!(r"{AUTOLOGGER_PATH}\S\{PROVIDER}");
    r.set_value(&p, "FilterData", Value::binary(vec![1, 2, 3]))
        .unwrap();
    r.set_value(&p, "Enabled", Value::dword(1)).unwrap();
    let s = autologger_session_named(&r, "S").unwrap();
    assert!(s.providers[0].enabled.in_force);
    assert_eq!(notes(&s.diagnostics), [(Some("FilterData"), "REG-25")]);
}

#[test]
fn a_providers_filters_subkey_is_reported_not_applied() {
    // rule: REG-25
    // rule: ALG-06
    // Real AutoLogger exports carry `{Provider}\Filters` subkeys (event-ID filters and others).
    let mut r = Registry::new();
    let p = format!(r"{AUTOLOGGER_PATH}\S\{PROVIDER}");
    r.set_value(&p, "Enabled", Value::dword(1)).unwrap();
    r.set_value(&format!(r"{p}\Filters"), "EventIdFilterIn", Value::dword(1))
        .unwrap();
    r.set_value(&format!(r"{p}\Other"), "X", Value::dword(1))
        .unwrap();
    let s = autologger_session_named(&r, "S").unwrap();
    assert!(
        s.providers[0].enabled.in_force,
        "the provider is still enabled"
    );
    let notes: Vec<(String, &str)> = s
        .diagnostics
        .iter()
        .map(|d| (d.key.rsplit('\\').next().unwrap().to_owned(), d.rule))
        .collect();
    assert_eq!(
        notes,
        [
            ("Filters".to_owned(), "REG-25"),
            ("Other".to_owned(), "REG-25")
        ]
    );
    let text = s.diagnostics[0].to_string();
    assert!(text.contains("EnableTraceEx"), "{text}");
    assert!(text.contains("not applied"), "{text}");
}

/// Issue 33: a DWORD value written as a REG_QWORD of the wrong length is explained in terms
/// of the type it has and the one it stands for — not "expected 8 bytes" for a DWORD.
#[test]
fn a_wrong_length_qword_for_a_dword_names_both_types() {
    // rule: REG-15
    let path = format!(r"{AUTOLOGGER_PATH}\S");
    let mut r = Registry::new();
    r.set_value(&path, "Start", Value::dword(1)).unwrap();
    r.set_value(
        &path,
        "BufferSize",
        Value::new(ValueType::QWORD, [64, 0, 0]),
    )
    .unwrap();
    let s = autologger_session_named(&r, "S").unwrap();
    assert_eq!(s.settings.buffer_size.in_force, 0, "treated as absent");
    let text = s
        .diagnostics
        .iter()
        .find(|d| d.value.as_deref() == Some("BufferSize"))
        .expect("a diagnostic for BufferSize")
        .to_string();
    assert!(text.contains("8 bytes, as every REG_QWORD"), "{text}");
    assert!(text.contains("REG_DWORD"), "{text}");
}
