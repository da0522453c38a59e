//! The OS steps (files, processes, threads, images), kernel sessions with named
//! `enable_flags`, a machine booted from a registry with `reboot`, and the `[[expect.kernel]]`
//! / `[[expect.boot]]` expectations: their mistakes name line and key, and the two stories
//! (`fileio_names.toml`, `autologger_boot.toml`) run green and fail when changed.

use etwsim_scenario::{Error, Scenario, output};
use std::path::{Path, PathBuf};

fn examples_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenarios")
}

fn parse(text: &str) -> Result<Scenario, Error> {
    Scenario::parse(text, "t.toml", &examples_dir())
}

/// The error's (line, key, message).
fn error(text: &str) -> (usize, String, String) {
    match parse(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => {
            let l = e.location().unwrap_or_else(|| panic!("no location: {e}"));
            (l.line, l.key.clone().unwrap_or_default(), l.message.clone())
        }
    }
}

const REG: &str = r#"Windows Registry Editor Version 5.00

[HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\WMI\Autologger\Boot-Test]
"Start"=dword:00000001
"Guid"="{6f3e2a10-0000-4000-8000-0000000000aa}"
"FileName"="%SystemRoot%\\System32\\LogFiles\\WMI\\Boot-Test.etl"
"FileMax"=dword:00000002

[HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\WMI\Autologger\Boot-Test\{5eed0001-1234-4567-89ab-cdef000000aa}]
"Enabled"=dword:00000001
"EnableLevel"=dword:00000003
"MatchAnyKeyword"=hex(b):0f,00,00,00,00,00,00,00
"#;

fn with_registry(rest: &str) -> String {
    format!("[machine]\nregistry_text = '''\n{REG}'''\n{rest}")
}

#[test]
fn mistakes_in_the_new_keys_name_their_line_and_key() {
    let app = "[[process]]\nname = \"app\"\nthreads = [{ name = \"w\", cpu = 0 }]\n";
    let cases: Vec<(String, usize, &str, &str)> = vec![
        (
            "[[session]]\nname = \"K\"\nmode = \"SYSTEM_LOGGER\"\nenable_flags = [\"FILE_IO\", \"FILE_IOO\"]\n".into(),
            4,
            "session[1].enable_flags",
            "FILE_IOO",
        ),
        (
            "[machine]\nregistry = \"no-such-file.reg\"\n".into(),
            2,
            "machine.registry",
            "cannot read registry file",
        ),
        (
            // rule: REG-04 (a file that is no registry script)
            "[machine]\nregistry_text = \"not a registry\"\n".into(),
            2,
            "machine.registry_text",
            "expected the header",
        ),
        (
            // rule: REG-13 (a strict import refuses a line not imported as written)
            "[machine]\nregistry_text = '''\nWindows Registry Editor Version 5.00\n\n[HKEY_LOCAL_MACHINE\\X]\n\"a\"=dwrd:1\n'''\n".into(),
            2,
            "machine.registry_text",
            "line 4",
        ),
        (
            "[machine]\nregistry = \"../autologger/two_autologgers.reg\"\nregistry_text = \"x\"\n".into(),
            3,
            "machine.registry_text",
            "not both",
        ),
        (
            "[[step]]\nadvance = \"1ms\"\n\n[[step]]\nreboot = true\n".into(),
            5,
            "step[2].reboot",
            "needs a machine booted from a registry",
        ),
        (
            format!("{app}[[step]]\nopen_file = 'C:\\a.txt'\nprocess = \"app\"\n"),
            4,
            "step[1].handle",
            "handle =",
        ),
        (
            format!(
                "{app}[[step]]\nopen_file = 'C:\\a.txt'\nprocess = \"app\"\nhandle = \"a\"\n\n[[step]]\nclose = \"a\"\n\n[[step]]\nfile_read = \"a\"\n"
            ),
            13,
            "step[3].file_read",
            "closed at line 9",
        ),
        (
            format!(
                "{app}[[step]]\nopen_file = 'C:\\a.txt'\nprocess = \"app\"\nhandle = \"a\"\n\n[[step]]\npaging_write = \"a\"\n"
            ),
            10,
            "step[2].paging_write",
            "after `cleanup`",
        ),
        (
            format!("{app}[[step]]\nfile_write = \"nope\"\n"),
            5,
            "step[1].file_write",
            "no file handle named",
        ),
        (
            format!(
                "{app}[[step]]\ncreate_file = 'C:\\a.txt'\nprocess = \"app\"\nhandle = \"a\"\ndisposition = \"sometimes\"\n"
            ),
            8,
            "step[1].disposition",
            "unknown disposition",
        ),
        (
            format!("{app}[[step]]\nopen_file = 'C:\\a.txt'\nprocess = \"app\"\nthread = \"x\"\nhandle = \"a\"\n"),
            7,
            "step[1].thread",
            "no thread named",
        ),
        (
            format!("{app}[[step]]\nspawn = \"app\"\n"),
            5,
            "step[1].spawn",
            "autostart = false",
        ),
        (
            format!("{app}[[step]]\nthread_exit = \"w\"\n"),
            4,
            "step[1].process",
            "needs `process`",
        ),
        (
            "[[process]]\nname = \"child\"\nparent = \"later\"\n\n[[process]]\nname = \"later\"\n"
                .into(),
            3,
            "process[1].parent",
            "no earlier process",
        ),
        (
            format!("{app}[[step]]\nunload_image = \"dll\"\n"),
            5,
            "step[1].unload_image",
            "no image named",
        ),
        (
            "[[session]]\nname = \"K\"\n\n[[expect.kernel]]\nsession = \"K\"\nevent = \"FileIoo/Read\"\n".into(),
            6,
            "expect.kernel[1].event",
            "no kernel class",
        ),
        (
            "[[session]]\nname = \"K\"\n\n[[expect.kernel]]\nsession = \"K\"\nevent = \"FileIo/Reed\"\n".into(),
            6,
            "expect.kernel[1].event",
            "no event",
        ),
        (
            "[[session]]\nname = \"K\"\n\n[[expect.kernel]]\nsession = \"K\"\nevent = \"FileIo\"\nnames = \"never\"\n".into(),
            7,
            "expect.kernel[1].names",
            "unknown name policy",
        ),
        (
            "[[expect.boot]]\nsession = \"X\"\nstarted = true\n".into(),
            1,
            "expect.boot[1]",
            "needs a machine booted from a registry",
        ),
        (
            with_registry("\n[[expect.boot]]\nsession = \"Boot-Test\"\nprovider_level = 3\n"),
            17,
            "expect.boot[1].provider",
            "need `provider`",
        ),
    ];
    let mut wrong = Vec::new();
    for (text, line, key, message) in &cases {
        let (l, k, m) = error(text);
        if (l, k.as_str()) != (*line, *key) || !m.contains(message) {
            wrong.push(format!(
                "{text:?} gave line {l}, key {k:?}: {m:?}; wanted line {line}, key {key:?}, {message:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_handle_does_not_survive_a_reboot() {
    let text = with_registry(
        "\n[[process]]\nname = \"app\"\n\n[[step]]\nopen_file = 'C:\\a.txt'\nprocess = \"app\"\nhandle = \"a\"\n\n[[step]]\nreboot = true\n\n[[step]]\nfile_read = \"a\"\n",
    );
    let (line, key, message) = error(&text);
    assert_eq!((line, key.as_str()), (29, "step[3].file_read"), "{message}");
    assert!(message.contains("lost at the reboot"), "{message}");
}

fn run_example(name: &str) -> etwsim_scenario::Outcome {
    let s = Scenario::load(examples_dir().join(name)).unwrap_or_else(|e| panic!("{e}"));
    s.run()
}

// rule: KRN-37, KRN-38, KRN-39, KRN-40, KRN-32
#[test]
fn the_fileio_names_story_runs_green() {
    let o = run_example("fileio_names.toml");
    assert!(o.passed(), "{}", output::outcome_text(&o));
    let rt = o.sessions.iter().find(|s| s.name == "FileIo RT").unwrap();
    assert!(
        !rt.kernel_events.is_empty(),
        "the consumer's kernel events are kept"
    );
}

// rule: ALG-03, ALG-04, ALG-05, ALG-06
#[test]
fn the_autologger_boot_story_runs_green() {
    let o = run_example("autologger_boot.toml");
    assert!(o.passed(), "{}", output::outcome_text(&o));
    assert_eq!(o.boots.len(), 4, "one boot and three reboots");
    // The boot sessions follow the scenario's (none here): Contoso-Boot's events are the
    // records of its three generations (.0001 rewritten by the fourth boot: 1 + 1 + 1).
    let names: Vec<&str> = o.sessions.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["GlobalLogger", "Contoso-Boot", "Fabrikam-Live"]);
    assert_eq!(o.sessions[1].events, Some(3));
    assert!(
        !o.files
            .iter()
            .any(|f| f.path.contains("etwsim-scenario-machine")),
        "files are named by their Windows paths: {:?}",
        o.files.iter().map(|f| &f.path).collect::<Vec<_>>()
    );
}

/// Changes one expectation of an example and checks the run fails naming it.
fn fails_when_changed(name: &str, from: &str, to: &str, line_text: &str) {
    let path = examples_dir().join(name);
    let text = std::fs::read_to_string(&path).expect("the example");
    assert!(text.contains(from), "{name} has {from:?}");
    let changed = text.replacen(from, to, 1);
    let s = Scenario::parse(&changed, name, &examples_dir()).unwrap_or_else(|e| panic!("{e}"));
    let o = s.run();
    let failed: Vec<_> = o.failures().collect();
    assert_eq!(failed.len(), 1, "{}", output::outcome_text(&o));
    assert!(failed[0].what.contains(line_text), "{:?}", failed[0]);
}

// rule: KRN-39
#[test]
fn the_fileio_expectations_fail_when_the_story_changes() {
    // Real time with names forgotten at Cleanup: the Close after Cleanup is empty.
    fails_when_changed(
        "fileio_names.toml",
        "event = \"FileIo/Close\"\nnames = \"cleanup\"\nfile_name = \"\"\ncount = 1",
        "event = \"FileIo/Close\"\nnames = \"cleanup\"\nfile_name = \"\"\ncount = 0",
        "FileIo/Close in FileIo RT",
    );
}

// rule: ALG-04
#[test]
fn the_boot_expectations_fail_when_the_story_changes() {
    fails_when_changed(
        "autologger_boot.toml",
        "boot = 4\nsession = \"Contoso-Boot\"\nlog_file = 'C:\\Windows\\System32\\LogFiles\\WMI\\Contoso-Boot.etl.0001'",
        "boot = 4\nsession = \"Contoso-Boot\"\nlog_file = 'C:\\Windows\\System32\\LogFiles\\WMI\\Contoso-Boot.etl.0004'",
        "boot 4: Contoso-Boot: log file",
    );
}

// rule: ALG-02, ALG-06
#[test]
fn after_a_reboot_the_processes_come_again_and_scenario_sessions_are_stopped() {
    let text = with_registry(
        r#"
[[process]]
name = "app"

[[provider]]
name = "P"
guid = "{5eed0001-1234-4567-89ab-cdef000000aa}"
process = "app"

[[session]]
name = "Mine"
log_file = "mine.etl"

[[enable]]
session = "Mine"
provider = "P"

[[step]]
write = "P"
level = "error"

[[step]]
reboot = true

[[step]]
write = "P"
level = "error"

[[step]]
write = "P"
level = "verbose"

[[step]]
start = "Mine"

[[step]]
stop = "Mine"

# The restart after the reboot wrote mine.etl again, from empty: the write before the
# reboot is gone with the old file, and the one after it came before the restart.
[[expect.session]]
name = "Mine"
events = 0

# Callbacks: the boot session's enable (1), Mine's enable (2), Mine's stop at the reboot (3),
# the boot session's stop at shutdown (4, a disable), then the new kernel's registration,
# pre-enabled by the boot session (5), and its stop at the last shutdown (6).
[[expect.callbacks]]
provider = "P"
count = 6

[[expect.callbacks]]
provider = "P"
index = 4
is_enabled = 0

[[expect.callbacks]]
provider = "P"
index = 5
is_enabled = 1
level = 3
any = 0xf

[[expect.boot]]
boot = 2
session = "Boot-Test"
log_file = 'C:\Windows\System32\LogFiles\WMI\Boot-Test.etl.0002'

[[expect.file]]
path = 'C:\Windows\System32\LogFiles\WMI\Boot-Test.etl.0001'
records = 1

[[expect.file]]
path = 'C:\Windows\System32\LogFiles\WMI\Boot-Test.etl.0002'
records = 1

[[expect.journal]]
kind = "Control"
contains = 'ControlTrace(STOP) "Mine" -> ok'
count = 2
"#,
    );
    let s = Scenario::parse(&text, "reboot.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    let o = s.run();
    assert!(o.passed(), "{}", output::outcome_text(&o));
}

#[test]
fn the_report_draws_kernel_events_and_lists_the_boots() {
    let load = |name: &str| Scenario::load(examples_dir().join(name)).unwrap();
    let fileio = load("fileio_names.toml");
    let html = etwsim_scenario::report::scenario_html(&fileio, &fileio.run());
    assert!(html.contains("<h2>Kernel events</h2>"));
    assert!(
        html.contains("FileIo/FileRundown"),
        "in the table and the details"
    );
    assert!(
        html.contains("class=\"ev\""),
        "kernel events are marks on the timeline"
    );
    let boot = load("autologger_boot.toml");
    let html = etwsim_scenario::report::scenario_html(&boot, &boot.run());
    assert!(html.contains("<h2>Boots</h2>"));
    assert!(html.contains("boot 4"));
    assert!(
        html.contains("booted 4 times"),
        "the note about the boots' clocks"
    );
}

#[test]
fn an_os_step_of_a_process_that_is_not_running_aborts_at_its_line() {
    let text = "[[process]]\nname = \"app\"\n\n[[process]]\nname = \"late\"\nautostart = false\n\n[[step]]\nexit = \"app\"\nexit_code = 3\n\n[[step]]\nopen_file = 'C:\\a.txt'\nprocess = \"app\"\nhandle = \"a\"\n\n[[step]]\nload_image = 'C:\\b.dll'\nprocess = \"late\"\nhandle = \"b\"\n\n[[expect.total]]\nwrites = 0\n";
    let o = parse(text).unwrap_or_else(|e| panic!("{e}")).run();
    let a = o.aborted.as_ref().expect("the open_file step fails");
    assert_eq!((a.line, a.key.as_str()), (12, "step[2].open_file"), "{a}");
    assert!(a.message.contains("not running"), "{a}");
}
