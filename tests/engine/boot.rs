//! Booting a machine from its registry: AutoLoggers, the Global Logger, FileMax rotation,
//! Status write-back, real-time persistence across reboots (ALG-01 … ALG-10, REG-18 … REG-24).
use crate::common;
use common::*;
use etwsim::registry::{Registry, Value};
use etwsim::{
    BootOptions, ConsumerOptions, EnableProperty, EventDescriptor, Keyword, Level, LogFileMode,
    Machine, Token, WMI_GLOBAL_LOGGER_ID, Win32Error,
};
use std::path::PathBuf;

const AL: &str = r"HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\WMI\Autologger";
const GL: &str = r"HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\WMI\GlobalLogger";
const SESSION_GUID: &str = "{6f3e2a10-0000-4000-8000-000000000001}";

/// A fresh host folder for one test's machine.
fn root(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("etwsim-boot-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn reg(text: &str) -> Registry {
    let full = format!("Windows Registry Editor Version 5.00\r\n\r\n{text}");
    let (reg, report) = Registry::from_reg(full.as_bytes()).expect("a valid .reg text");
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    reg
}

fn boot(test: &str, registry: Registry) -> Machine {
    let builder = etwsim::Kernel::builder().cpus(2).deterministic(7);
    Machine::boot(builder, registry, BootOptions::new(root(test))).expect("boot")
}

fn session_key(name: &str, values: &str) -> String {
    format!("[{AL}\\{name}]\r\n\"Guid\"=\"{SESSION_GUID}\"\r\n{values}\r\n")
}

fn dword(path: &Registry, key: &str, name: &str) -> Option<u32> {
    path.value(key, name).and_then(Value::to_dword)
}

/// The `Status` ETW wrote back for AutoLogger `name` (REG-18).
fn status(m: &Machine, name: &str) -> Option<u32> {
    dword(m.registry(), &format!(r"{AL}\{name}"), "Status")
}

// rule: ALG-01
// rule: ALG-02
// rule: ALG-03
// rule: REG-19
// rule: REG-23
#[test]
fn an_autologger_with_start_1_starts_with_the_documented_defaults() {
    let m = boot(
        "defaults",
        reg(&session_key("Contoso", "\"Start\"=dword:00000001")),
    );
    let r = &m.report().sessions[0];
    assert!(r.started(), "{}", m.report());
    assert_eq!(
        r.log_file.as_deref(),
        Some(r"C:\Windows\System32\LogFiles\WMI\Contoso.etl")
    );
    let p = r.in_force.as_ref().unwrap();
    assert_eq!(p.maximum_file_size, 100, "MaxFileSize defaults to 100 MB");
    assert_eq!(p.clock.raw(), 1, "ClockType defaults to QPC");
    assert_eq!(p.log_file_mode, LogFileMode::SEQUENTIAL);
    assert_eq!(p.guid.to_string(), SESSION_GUID);
    // The session runs under its key's name, with the host path mapped under the root.
    let s = m.session("Contoso").unwrap();
    assert!(s.is_running());
    let host = r.host_file.as_ref().unwrap();
    assert!(host.ends_with("C/Windows/System32/LogFiles/WMI/Contoso.etl"));
    assert_eq!(p.log_file.as_deref(), Some(host.to_str().unwrap()));
}

// rule: ALG-02
#[test]
fn start_0_or_absent_does_not_start_and_writes_no_status() {
    let text = session_key("Off", "\"Start\"=dword:00000000") + &session_key("Absent", "");
    let m = boot("start0", reg(&text));
    for r in &m.report().sessions {
        assert!(!r.attempted && !r.started());
        assert_eq!(r.status, None);
        assert_eq!(
            dword(m.registry(), &format!(r"{AL}\{}", r.key_name), "Status"),
            None
        );
    }
    assert!(m.kernel().sessions().is_empty());
}

// rule: ALG-02
// rule: REG-18
#[test]
fn a_missing_guid_refuses_the_start_and_status_says_why() {
    let text = format!("[{AL}\\NoGuid]\r\n\"Start\"=dword:00000001\r\n");
    let m = boot("noguid", reg(&text));
    let r = &m.report().sessions[0];
    assert!(r.attempted && !r.started());
    assert_eq!(r.status, Some(Win32Error::ERROR_INVALID_PARAMETER));
    assert_eq!(status(&m, "NoGuid"), Some(87));
}

// rule: REG-18
#[test]
fn status_is_the_win32_code_of_the_start() {
    // Two AutoLoggers with the same session GUID: the second start fails as StartTrace would.
    let text = session_key("A1", "\"Start\"=dword:00000001")
        + &session_key("B2", "\"Start\"=dword:00000001");
    let m = boot("status", reg(&text));
    assert_eq!(status(&m, "A1"), Some(0));
    let code = Win32Error::ERROR_ALREADY_EXISTS.code();
    assert_eq!(status(&m, "B2"), Some(code));
    let b = &m.report().sessions[1];
    assert_eq!(b.status, Some(Win32Error::ERROR_ALREADY_EXISTS));
    assert!(b.why.as_deref().unwrap().contains("GUID"), "{:?}", b.why);
}

// rule: ALG-03
// rule: REG-18
#[test]
fn a_file_name_in_a_missing_folder_gives_path_not_found() {
    let text = session_key(
        "Lost",
        "\"Start\"=dword:00000001\r\n\"FileName\"=\"D:\\\\nowhere\\\\lost.etl\"",
    );
    let m = boot("missingfolder", reg(&text));
    let r = &m.report().sessions[0];
    assert_eq!(r.status, Some(Win32Error::ERROR_PATH_NOT_FOUND));
    assert_eq!(status(&m, "Lost"), Some(3));
}

// rule: ALG-04
// rule: REG-18
#[test]
fn file_max_rotates_the_file_suffix_across_boots_and_keeps_file_counter() {
    let text = session_key(
        "Rot",
        "\"Start\"=dword:00000001\r\n\"FileMax\"=dword:00000003",
    );
    let mut m = boot("rotation", reg(&text));
    let key = format!(r"{AL}\Rot");
    let mut seen = Vec::new();
    for boot in 1..=4u32 {
        if boot > 1 {
            m.reboot().unwrap();
        }
        let r = &m.report().sessions[0];
        assert!(r.started(), "{}", m.report());
        seen.push(r.log_file.clone().unwrap());
        assert_eq!(dword(m.registry(), &key, "FileCounter"), r.file_counter);
    }
    let suffixes: Vec<&str> = seen.iter().map(|f| &f[f.len() - 5..]).collect();
    assert_eq!(suffixes, [".0001", ".0002", ".0003", ".0001"]);
    // The disk kept the three generations.
    m.shutdown();
    let disk = m.kernel().virtual_disk().unwrap();
    let files: Vec<String> = disk
        .paths()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files, ["Rot.etl.0001", "Rot.etl.0002", "Rot.etl.0003"]);
}

// rule: ALG-03
// rule: ALG-04
#[test]
fn file_counter_outside_file_max_starts_again_at_1() {
    let text = session_key(
        "Odd",
        "\"Start\"=dword:00000001\r\n\"FileMax\"=dword:00000002\r\n\"FileCounter\"=dword:00000009",
    );
    let m = boot("counter", reg(&text));
    assert_eq!(m.report().sessions[0].file_counter, Some(1));
}

// rule: ALG-03
// rule: ALG-02
#[test]
fn newfile_and_oversized_values_are_overridden_not_rejected() {
    let text = session_key(
        "Fix",
        "\"Start\"=dword:00000001\r\n\"LogFileMode\"=dword:00000009\r\n\"BufferSize\"=dword:00000800\r\n\"MinimumBuffers\"=dword:00000010\r\n\"MaximumBuffers\"=dword:00000004",
    );
    let m = boot("overrides", reg(&text));
    let r = &m.report().sessions[0];
    assert!(r.started(), "{}", m.report());
    let p = r.in_force.as_ref().unwrap();
    assert!(!p.log_file_mode.contains(LogFileMode::NEWFILE));
    assert_eq!(p.buffer_size_kb, 1024);
    assert_eq!(p.maximum_buffers, p.minimum_buffers);
    let notes = r.overrides.join("\n");
    assert!(notes.contains("NEWFILE"), "{notes}");
    assert!(notes.contains("BufferSize"), "{notes}");
    assert!(notes.contains("MaximumBuffers"), "{notes}");
}

// rule: ALG-05
// rule: ALG-06
// rule: REG-23
#[test]
fn providers_are_enabled_from_their_subkeys_and_later_registrations_are_told() {
    let p1 = guid(1);
    let p2 = guid(2);
    let text = session_key(
        "Prov",
        "\"Start\"=dword:00000001\r\n\"LogFileMode\"=dword:00000100",
    ) + &format!(
        "[{AL}\\Prov\\{p1}]\r\n\"Enabled\"=dword:00000001\r\n\"EnableLevel\"=dword:00000004\r\n\"MatchAnyKeyword\"=hex(b):f0,00,00,00,00,00,00,00\r\n\"MatchAllKeyword\"=hex(b):10,00,00,00,00,00,00,00\r\n\"EnableProperty\"=dword:00000001\r\n"
    ) + &format!("[{AL}\\Prov\\{p2}]\r\n\"Enabled\"=dword:00000000\r\n");
    let m = boot("providers", reg(&text));
    let r = &m.report().sessions[0];
    assert!(r.providers[0].enabled && !r.providers[1].enabled);
    assert_eq!(
        (
            r.providers[0].level,
            r.providers[0].match_any,
            r.providers[0].match_all
        ),
        (4, 0xf0, 0x10)
    );
    // A provider that registers after boot is pre-enabled and gets its enable callback.
    let app = m.kernel().spawn("app.exe", Token::user("alice")).unwrap();
    let rec = Recorder::new();
    let p = app
        .register_provider_with_callback(p1, rec.callback())
        .unwrap();
    assert!(p.is_enabled_for(Level::INFORMATION, Keyword(0x10)));
    assert!(!p.is_enabled_for(Level::VERBOSE, Keyword(0x10)));
    let n = rec.last();
    assert_eq!(n.level, Level(4));
    assert_eq!(n.match_any_keyword, Keyword(0xf0));
    assert_eq!(n.match_all_keyword, Keyword(0x10));
    let info = m.kernel().enable_slots(p1);
    let (_, e) = info.iter().flatten().next().unwrap();
    assert!(e.enable_property.contains(EnableProperty::SID));
    let q = app.register_provider(p2).unwrap();
    assert!(!q.is_enabled(), "Enabled = 0 does not enable");
}

// rule: ALG-08
// rule: ALG-10
// rule: REG-21
// rule: REG-22
#[test]
fn the_global_logger_starts_as_logger_1_and_enables_no_provider() {
    let p1 = guid(3);
    let text = format!(
        "[{GL}]\r\n\"Start\"=dword:00000001\r\n\"LogFileMode\"=dword:00000100\r\n[{GL}\\{p1}]\r\n\"Flags\"=dword:0000000f\r\n\"Level\"=dword:00000005\r\n"
    );
    let m = boot("globallogger", reg(&text));
    let r = &m.report().sessions[0];
    assert!(r.started(), "{}", m.report());
    assert_eq!(r.name, "GlobalLogger");
    let p = r.in_force.as_ref().unwrap();
    assert_eq!(p.logger_id, WMI_GLOBAL_LOGGER_ID);
    assert!(
        !p.log_file_mode.contains(LogFileMode::REAL_TIME),
        "the Global Logger always logs to a file"
    );
    assert!(
        r.log_file
            .as_deref()
            .unwrap()
            .ends_with(r"WMI\GlobalLogger.etl")
    );
    assert!(!r.providers[0].enabled);
    let app = m.kernel().spawn("app.exe", Token::user("alice")).unwrap();
    let rec = Recorder::new();
    let p = app
        .register_provider_with_callback(p1, rec.callback())
        .unwrap();
    assert!(!p.is_enabled());
    assert_eq!(rec.len(), 0, "no enable callback from the Global Logger");
    assert_eq!(dword(m.registry(), GL, "Status"), Some(0));
}

// rule: ALG-09
// rule: REG-21
#[test]
fn the_global_logger_with_kernel_flags_becomes_the_nt_kernel_logger() {
    let text =
        format!("[{GL}]\r\n\"Start\"=dword:00000001\r\n\"EnableKernelFlags\"=hex:03,00,00,00\r\n");
    let m = boot("kernelflags", reg(&text));
    let r = &m.report().sessions[0];
    assert!(r.started(), "{}", m.report());
    assert_eq!(r.name, "NT Kernel Logger");
    assert_eq!(r.in_force.as_ref().unwrap().enable_flags, 3);
    assert!(m.session("NT Kernel Logger").is_some());
}

// rule: REG-23
#[test]
fn boot_1_sessions_start_first_and_all_count_toward_the_session_limit() {
    let mut text = String::new();
    for i in 0..33 {
        let g = format!("{{6f3e2a10-0000-4000-8000-0000000001{i:02}}}");
        text += &format!(
            "[{AL}\\S{i:02}]\r\n\"Guid\"=\"{g}\"\r\n\"Start\"=dword:00000001\r\n\"LogFileMode\"=dword:00000100\r\n"
        );
    }
    text += &format!("[{AL}\\S32]\r\n\"Boot\"=dword:00000001\r\n");
    let builder = etwsim::Kernel::builder()
        .cpus(1)
        .deterministic(7)
        .max_loggers(32);
    let m = Machine::boot(builder, reg(&text), BootOptions::new(root("limit"))).unwrap();
    let names: Vec<&str> = m
        .report()
        .sessions
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert_eq!(names[0], "S32", "Boot = 1 first");
    let last = m.report().sessions.last().unwrap();
    assert_eq!(last.name, "S31");
    assert_eq!(last.status, Some(Win32Error::ERROR_NO_SYSTEM_RESOURCES));
}

fn rt_autologger(name: &str, disable_persistence: u32) -> String {
    session_key(
        name,
        &format!(
            "\"Start\"=dword:00000001\r\n\"LogFileMode\"=dword:00000100\r\n\"BufferSize\"=dword:00000004\r\n\"DisableRealtimePersistence\"=dword:{disable_persistence:08x}\r\n[{AL}\\{name}\\{}]\r\n\"Enabled\"=dword:00000001\r\n",
            guid(5)
        ),
    )
}

fn write_some(m: &Machine, n: u16) {
    let app = m.kernel().spawn("app.exe", Token::user("alice")).unwrap();
    let p = app.register_provider(guid(5)).unwrap();
    for id in 1..=n {
        let d = EventDescriptor::new(id, Level::INFORMATION, Keyword(1));
        p.write(&d, &[&id.to_le_bytes()]).unwrap();
    }
}

// rule: ALG-03
#[test]
fn real_time_persistence_keeps_undelivered_events_for_the_next_consumer() {
    let mut m = boot("persist", reg(&rt_autologger("Rt", 0)));
    write_some(&m, 3);
    m.reboot().unwrap();
    let r = &m.report().sessions[0];
    assert!(r.restored_buffers > 0, "{}", m.report());
    let sys = m.kernel().system_process();
    let mut c = m
        .kernel()
        .open_realtime(&sys, "Rt", ConsumerOptions::default())
        .unwrap();
    let ids: Vec<u16> = c.drain().iter().map(|e| e.header.descriptor.id).collect();
    assert_eq!(ids, [1, 2, 3]);
}

// rule: ALG-03
#[test]
fn without_real_time_persistence_a_reboot_loses_undelivered_events() {
    let mut m = boot("nopersist", reg(&rt_autologger("Rt", 1)));
    write_some(&m, 3);
    m.reboot().unwrap();
    assert_eq!(m.report().sessions[0].restored_buffers, 0);
    let sys = m.kernel().system_process();
    let mut c = m
        .kernel()
        .open_realtime(&sys, "Rt", ConsumerOptions::default())
        .unwrap();
    assert!(c.drain().is_empty());
}

// rule: ALG-02
#[test]
fn a_reboot_keeps_the_registry_and_the_disk_and_loses_processes() {
    let mut m = boot(
        "reboot",
        reg(&session_key("Keep", "\"Start\"=dword:00000001")),
    );
    let before = m.kernel().virtual_disk().unwrap().clone();
    let pid = m
        .kernel()
        .spawn("app.exe", Token::user("alice"))
        .unwrap()
        .pid();
    // A change made while running takes effect at the next boot.
    m.registry_mut()
        .set_value(&format!(r"{AL}\Keep"), "FlushTimer", Value::dword(5))
        .unwrap();
    assert_eq!(
        m.report().sessions[0]
            .in_force
            .as_ref()
            .unwrap()
            .flush_timer,
        0
    );
    m.reboot().unwrap();
    assert_eq!(m.report().boot, 2);
    assert_eq!(
        m.report().sessions[0]
            .in_force
            .as_ref()
            .unwrap()
            .flush_timer,
        5
    );
    assert!(
        m.kernel().process(pid).is_none(),
        "processes do not survive a reboot"
    );
    let after = m.kernel().virtual_disk().unwrap();
    assert_eq!(before.paths(), after.paths());
    assert!(
        !after.paths().is_empty(),
        "the first boot's file is still there"
    );
}

#[test]
fn the_report_has_one_json_line_per_session_with_the_values_in_force() {
    let text = session_key(
        "Js",
        "\"Start\"=dword:00000001\r\n\"MinimumBuffers\"=dword:00000001",
    ) + &format!(
        "[{AL}\\Js\\{}]\r\n\"Enabled\"=dword:00000001\r\n\"EnableLevel\"=dword:00000003\r\n",
        guid(6)
    );
    let m = boot("json", reg(&text));
    let mut out = Vec::new();
    m.report().write_json_lines(&mut out).unwrap();
    let text = String::from_utf8(out).unwrap();
    assert_eq!(text.lines().count(), 1);
    let v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(v["boot"], 1);
    assert_eq!(v["name"], "Js");
    assert_eq!(v["status"], 0);
    // MinimumBuffers 1 is raised to 2 per CPU by StartTrace; the request goes alongside.
    assert_eq!(v["minimum_buffers"], 4);
    assert_eq!(v["requested"]["minimum_buffers"], 1);
    assert_eq!(v["providers"][0]["level"], 3);
    for k in [
        "log_file",
        "log_file_mode",
        "buffer_size_kb",
        "maximum_buffers",
        "flush_timer",
        "clock_type",
    ] {
        assert!(v.get(k).is_some(), "{k}");
    }
    assert!(m.report().to_string().contains("AutoLogger Js: started"));
}

// rule: SES-37
#[test]
fn a_nonstoppable_autologger_starts_refuses_stop_and_ends_at_shutdown() {
    // EVENT_TRACE_NONSTOPPABLE_MODE (0x40) with SEQUENTIAL (0x1): AutoLoggers only.
    let mut m = boot(
        "nonstoppable",
        reg(&session_key(
            "Sentinel",
            "\"Start\"=dword:00000001\r\n\"LogFileMode\"=dword:00000041",
        )),
    );
    assert_eq!(status(&m, "Sentinel"), Some(0), "{}", m.report());
    let s = m.session("Sentinel").expect("running");
    assert!(
        s.query()
            .unwrap()
            .log_file_mode
            .contains(LogFileMode::NONSTOPPABLE)
    );
    let before = m.kernel().snapshot();
    let err = s.stop().unwrap_err();
    assert_eq!(err.win32_code(), Win32Error::ERROR_ACCESS_DENIED);
    assert!(s.is_running());
    assert_eq!(
        m.kernel().snapshot(),
        before,
        "the refused stop changed nothing"
    );
    // Anywhere but boot, StartTrace refuses the mode.
    let admin = m
        .kernel()
        .spawn("x.exe", Token::administrator("a"))
        .unwrap();
    let err = m
        .kernel()
        .session("Other")
        .mode(LogFileMode::NONSTOPPABLE | LogFileMode::REAL_TIME)
        .caller(&admin)
        .start()
        .unwrap_err();
    assert_eq!(err.win32_code(), Win32Error::ERROR_INVALID_PARAMETER);
    // Shutdown stops it: the reboot's kernel starts it again.
    m.reboot().expect("reboot");
    assert_eq!(status(&m, "Sentinel"), Some(0));
    assert!(m.session("Sentinel").unwrap().is_running());
}
