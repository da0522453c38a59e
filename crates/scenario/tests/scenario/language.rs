//! Issue 34, "the scenario language, for what users could not say": each key the issue added
//! is run here, and a wrong value of each is a loader error at its key.

use etwsim::etl::{LogFile, RecordView};
use etwsim_scenario::{Outcome, Scenario, output};
use std::path::Path;

fn load(text: &str) -> Scenario {
    Scenario::parse(text, "t.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `text`, which must pass.
fn run(text: &str) -> Outcome {
    let o = load(text).run();
    assert!(o.passed(), "{}", output::outcome_text(&o));
    o
}

/// The loader's error for `text`: (line, key, message).
fn error(text: &str) -> (usize, String, String) {
    let e = Scenario::parse(text, "t.toml", Path::new(".")).expect_err("an error");
    let l = e.location().expect("a located error");
    (l.line, l.key.clone().unwrap_or_default(), l.message.clone())
}

/// One process `app` with provider `P`, a file session `S` (4 KB buffers) that enables it.
const BASE: &str = r#"[machine]
cpus = 1

[[process]]
name = "app"

[[process]]
name = "user"
token = "user"

[[provider]]
name = "P"
process = "app"

[[session]]
name = "S"
log_file = "s.etl"
buffer_size_kb = 4

[[enable]]
session = "S"
provider = "P"
"#;

fn with(text: &str) -> String {
    format!("{BASE}{text}")
}

/// Asserts that `text` (after BASE) fails to load at `line` (counted from BASE's end), at
/// `key`, with a message containing `message`.
fn refused(text: &str, line: usize, key: &str, message: &str) {
    let (l, k, m) = error(&with(text));
    let base = BASE.lines().count();
    assert_eq!(
        (l.saturating_sub(base), k.as_str()),
        (line, key),
        "{text:?} gave line {l}, key {k:?}: {m}"
    );
    assert!(m.contains(message), "{text:?}: {m:?} lacks {message:?}");
}

// rule: PRV-20 (a STOP of a stopped session fails)
#[test]
fn expect_error_any_and_ok_or_any() {
    // "any": the second STOP fails, with whatever error; "ok_or_any": a FLUSH of a running
    // session succeeds and one of a stopped session fails, and both are the step's success.
    let o = run(&with(
        r#"
[[step]]
flush = "S"
expect_error = "ok_or_any"
[[step]]
stop = "S"
[[step]]
stop = "S"
expect_error = "any"
[[step]]
flush = "S"
expect_error = "ok_or_any"
[[step]]
write = "P"
"#,
    ));
    assert!(o.aborted.is_none());
    // "any" on a call that succeeds is a failed step.
    let o = load(&with("[[step]]\nflush = \"S\"\nexpect_error = \"any\"\n")).run();
    let f = o.aborted.expect("the step failed");
    assert!(f.message.contains("but it succeeded"), "{f}");
    // An error name etwsim does not know is a mistake in the file.
    refused(
        "[[step]]\nstop = \"S\"\nexpect_error = \"ERROR_NOT_A_THING\"\n",
        3,
        "step[1].expect_error",
        "unknown error",
    );
    refused(
        "[[step]]\nstop = \"S\"\nexpect_error = \"anything\"\n",
        3,
        "step[1].expect_error",
        "\"ok_or_any\"",
    );
}

#[test]
fn every_count_takes_at_least_and_at_most() {
    let o = run(&with(
        r#"
[[step]]
write = "P"
count = 5

[[expect.session]]
name = "S"
events = { at_least = 3 }
events_lost = { at_most = 0 }
buffers_written = { at_least = 1, at_most = 4 }

[[expect.total]]
writes = { at_least = 5, at_most = 5 }
writes_failed = { at_most = 0 }
events = { at_least = 1 }

[[expect.callbacks]]
provider = "P"
count = { at_least = 1 }

[[expect.file]]
path = "s.etl"
records = { at_least = 5 }
events_lost = 0
"#,
    ));
    let e = o
        .expectations
        .iter()
        .find(|e| e.what.contains("events recorded") && e.what.starts_with("session"))
        .expect("the session's events");
    assert_eq!(
        (e.expected.as_str(), e.actual.as_str()),
        ("at least 3", "5")
    );
    // A bound that does not hold fails, saying the bound.
    let o = load(&with(
        "[[step]]\nwrite = \"P\"\ncount = 5\n[[expect.session]]\nname = \"S\"\nevents = { at_most = 4 }\n",
    ))
    .run();
    let f = o.failures().next().expect("a failure");
    assert_eq!((f.expected.as_str(), f.actual.as_str()), ("at most 4", "5"));
    refused(
        "[[expect.session]]\nname = \"S\"\nevents = { at_least = 5, at_most = 1 }\n",
        3,
        "expect.session[1].events",
        "no count passes",
    );
    refused(
        "[[expect.total]]\nwrites = { exactly = 1 }\n",
        2,
        "expect.total[1].writes",
        "unknown key `exactly`",
    );
    refused(
        "[[expect.file]]\npath = \"s.etl\"\nrecords = {}\n",
        3,
        "expect.file[1].records",
        "an empty count",
    );
}

// rule: SES-76 (ControlTrace QUERY returns the session's statistics)
#[test]
fn a_named_query_step_is_a_checkpoint() {
    // 4 KB buffers hold 50 records of 8 bytes' payload (88-byte records: 4024 / 88 = 45);
    // 2 buffers at most: the burst of 200 loses some. The QUERY after it sees the loss; the
    // journal up to it holds one QUERY, the 200 writes and nothing later.
    let o = run(&format!(
        "{}{}",
        BASE.replace(
            "buffer_size_kb = 4\n",
            "buffer_size_kb = 4\nmaximum_buffers = 2\nminimum_buffers = 2\n"
        ),
        r#"
[[step]]
write = "P"
count = 10
payload_size = 8
[[step]]
name = "ten"
query = "S"
[[step]]
write = "P"
count = 200
payload_size = 8
[[step]]
name = "burst"
query = "S"
[[step]]
advance = "1s"
[[step]]
write = "P"
count = 3

[[expect.session]]
after = "ten"
name = "S"
events = 10
events_lost = 0

[[expect.session]]
after = "burst"
name = "S"
events_lost = { at_least = 1 }

[[expect.journal]]
after = "ten"
kind = "Write"
count = 10

[[expect.journal]]
after = "burst"
kind = "Control"
call = "ControlTrace(QUERY)"
count = 2

[[expect.journal]]
kind = "Write"
count = 213
"#
    ));
    let ten = &o.checkpoints[0];
    assert_eq!(ten.name, "ten");
    let lost_then = o.checkpoints[1].stats[0].as_ref().unwrap().events_lost;
    let lost_at_end = o.sessions[0].stats.as_ref().unwrap().events_lost;
    assert!(lost_then >= 1 && lost_at_end >= lost_then);
    refused(
        "[[step]]\nquery = \"S\"\nname = \"q\"\n[[expect.session]]\nafter = \"p\"\nname = \"S\"\nevents = 1\n",
        5,
        "expect.session[1].after",
        "no step named \"p\"",
    );
    refused(
        "[[step]]\nquery = \"S\"\nname = \"q\"\n[[step]]\nflush = \"S\"\nname = \"q\"\n",
        6,
        "step[2].name",
        "a second step named",
    );
    refused(
        "[[step]]\nquery = \"S\"\nlevel = 1\n",
        3,
        "step[1].level",
        "does not apply to a `query` step",
    );
}

#[test]
fn an_after_expectation_on_a_step_the_run_never_reached_fails() {
    let o = load(&with(
        r#"
[[step]]
stop = "S"
[[step]]
stop = "S"
[[step]]
name = "never"
query = "S"
[[expect.journal]]
after = "never"
kind = "Control"
"#,
    ))
    .run();
    assert!(o.aborted.is_some());
    let e = &o.expectations[0];
    assert!(!e.passed && e.actual.contains("did not reach"), "{e:?}");
}

// rule: SEC-03, SES-16
#[test]
fn as_makes_the_call_as_another_process() {
    // The System process started S; a user-token process may not stop or query it, an
    // elevated administrator may.
    run(&with(
        r#"
[[process]]
name = "admin"
token = "admin"

[[step]]
query = "S"
as = "user"
expect_error = "ERROR_ACCESS_DENIED"
[[step]]
stop = "S"
as = "user"
expect_error = "ERROR_ACCESS_DENIED"
[[step]]
query = "S"
as = "admin"
[[step]]
stop = "S"
as = "admin"

[[expect.journal]]
kind = "Control"
call = "ControlTrace"
result = "ERROR_ACCESS_DENIED"
count = 2
"#,
    ));
    refused(
        "[[step]]\nstop = \"S\"\nas = \"ghost\"\n",
        3,
        "step[1].as",
        "no process named",
    );
    refused(
        "[[step]]\nwrite = \"P\"\nas = \"user\"\n",
        3,
        "step[1].as",
        "does not apply to a `write` step",
    );
}

/// The EVENT_HEADER records of `o`'s file `path`: (id, ActivityId, extended item types).
fn records(o: &Outcome, path: &str) -> Vec<(u16, etwsim::Guid, Vec<u16>)> {
    let f = o.files.iter().find(|f| f.path == path).expect("the file");
    let mut file = LogFile::from_bytes(path, f.bytes.clone()).expect("a log file");
    let mut out = Vec::new();
    file.for_each_record(|r| {
        if let RecordView::Event(e) = r {
            out.push((
                e.header.descriptor.id,
                e.header.activity_id,
                e.extended_data().map(|i| i.ext_type).collect(),
            ));
        }
    })
    .expect("readable");
    out
}

// rule: EVT-14, EVT-17
#[test]
fn writes_carry_the_activity_ids_they_are_given() {
    let a = "{aaaaaaaa-0000-0000-0000-000000000001}";
    let r = "{bbbbbbbb-0000-0000-0000-000000000002}";
    let o = run(&with(&format!(
        r#"
[[step]]
write = "P"
id = 1
activity_id = "{a}"
related_activity_id = "{r}"
[[step]]
write = "P"
id = 2
activity_id = "{a}"
[[step]]
write = "P"
id = 3
"#
    )));
    let recs = records(&o, "s.etl");
    let a: etwsim::Guid = a.parse().unwrap();
    assert_eq!(recs.len(), 3);
    assert_eq!((recs[0].0, recs[0].1), (1, a));
    // EVENT_HEADER_EXT_TYPE_RELATED_ACTIVITYID is 1.
    assert!(recs[0].2.contains(&1), "{:?}", recs[0]);
    assert_eq!((recs[1].0, recs[1].1), (2, a));
    assert!(!recs[1].2.contains(&1));
    assert_ne!(recs[2].1, a);
    refused(
        "[[step]]\nwrite = \"P\"\nactivity_id = \"not-a-guid\"\n",
        3,
        "step[1].activity_id",
        "",
    );
    refused(
        "[[step]]\nwrite = \"P\"\nstring = \"x\"\nactivity_id = \"{aaaaaaaa-0000-0000-0000-000000000001}\"\n",
        2,
        "step[1]",
        "no activity ID",
    );
}

const TL: &str = r#"[machine]
cpus = 1

[[process]]
name = "app"

[[provider]]
name = "Contoso-Tl"
kind = "tracelogging"
process = "app"

[[session]]
name = "S"
log_file = "s.etl"
"#;

// rule: FLT-22
#[test]
fn tracelogging_writes_have_names_that_event_name_filters_see() {
    let o = run(&format!(
        r#"{TL}
[[enable]]
session = "S"
provider = "Contoso-Tl"
filter = {{ event_names = {{ names = ["Opened"] }} }}

[[step]]
write = "Contoso-Tl"
event_name = "Opened"
count = 3
payload_text = "abc"
[[step]]
write = "Contoso-Tl"
event_name = "Closed"
count = 2

[[expect.session]]
name = "S"
events = 3

[[expect.journal]]
kind = "Write"
session = "S"
recorded = false
rule = "FLT-22"
count = 2
"#
    ));
    // The records are TraceLogging events: each has its EVENT_SCHEMA_TL item (11).
    assert!(records(&o, "s.etl").iter().all(|r| r.2.contains(&11)));
    let (l, k, m) = error(&format!(
        "{}[[step]]\nwrite = \"P\"\nevent_name = \"Opened\"\n",
        TL.replace("kind = \"tracelogging\"\n", "")
            .replace("Contoso-Tl", "P")
    ));
    assert_eq!((l, k.as_str()), (16, "step[1].event_name"), "{m}");
    assert!(m.contains("needs `kind = \"tracelogging\"`"), "{m}");
    let (_, k, m) = error(&TL.replace("\"tracelogging\"", "\"etw\""));
    assert_eq!(k, "provider[1].kind", "{m}");
    assert!(m.contains("unknown kind"), "{m}");
}

// rule: PRV-22
#[test]
fn a_classic_provider_writes_to_the_last_session_that_enabled_it() {
    run(r#"[machine]
cpus = 1

[[process]]
name = "legacy"

[[provider]]
name = "Contoso-Mof"
kind = "classic"
process = "legacy"

[[session]]
name = "A"
log_file = "a.etl"

[[session]]
name = "B"
log_file = "b.etl"

[[step]]
write = "Contoso-Mof"
[[step]]
enable = "A"
provider = "Contoso-Mof"
level = 4
any = 0x10
[[step]]
write = "Contoso-Mof"
count = 2
[[step]]
enable = "B"
provider = "Contoso-Mof"
level = 5
[[step]]
write = "Contoso-Mof"
count = 3

[[expect.session]]
name = "A"
events = 2

[[expect.session]]
name = "B"
events = 3

[[expect.total]]
writes = 5

[[expect.callbacks]]
provider = "Contoso-Mof"
index = 1
is_enabled = 1
level = 4
any = 0x10

[[expect.callbacks]]
provider = "Contoso-Mof"
index = 2
is_enabled = 1
level = 5
"#);
    refused(
        "[[provider]]\nname = \"C\"\nkind = \"classic\"\nprocess = \"app\"\n[[step]]\nwrite = \"C\"\ninprivate = true\n",
        7,
        "step[1].inprivate",
        "is classic",
    );
}

// rule: PRV-36
#[test]
fn a_provider_group_is_enabled_by_its_guid() {
    let g = "{99990000-1111-2222-3333-444455556666}";
    run(&format!(
        r#"[machine]
cpus = 1

[[process]]
name = "app"

[[provider]]
name = "Member-One"
group = "{g}"
process = "app"

[[provider]]
name = "Member-Two"
kind = "tracelogging"
group = "{g}"
process = "app"

[[provider]]
name = "Outsider"
process = "app"

[[session]]
name = "S"
log_file = "s.etl"

[[enable]]
session = "S"
group = "{g}"
properties = ["PROVIDER_GROUP"]
level = "warning"

[[step]]
write = "Member-One"
level = "error"
count = 2
[[step]]
write = "Member-Two"
level = "warning"
[[step]]
write = "Member-Two"
level = "verbose"
[[step]]
write = "Outsider"
level = "error"

[[expect.session]]
name = "S"
events = 3

[[expect.callbacks]]
provider = "Member-One"
index = 1
is_enabled = 1
level = "warning"
"#
    ));
    refused(
        &format!("[[enable]]\nsession = \"S\"\ngroup = \"{g}\"\n"),
        3,
        "enable[2].group",
        "PROVIDER_GROUP",
    );
    refused(
        &format!(
            "[[enable]]\nsession = \"S\"\nprovider = \"P\"\ngroup = \"{g}\"\nproperties = [\"PROVIDER_GROUP\"]\n"
        ),
        3,
        "enable[2].provider",
        "not both",
    );
}

// rule: PRV-27, PRV-15
#[test]
fn capture_state_and_filter_data_reach_the_callback() {
    // A schematized filter: an EVENT_FILTER_HEADER (Id 1, Version 0, InstanceId 0, Size 24,
    // NextOffset 0) and no more; ETW sets InstanceId to the session's slot.
    let header = "01 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  18 00 00 00 00 00 00 00";
    run(&with(&format!(
        r#"
[[step]]
enable = "S"
provider = "P"
level = 4
filter = {{ schematized = "{header}" }}
[[step]]
enable = "S"
provider = "P"
code = "capture_state"

[[expect.callbacks]]
provider = "P"
index = 2
is_enabled = 1
filter_data_size = 24
filter_data = "{header}"

[[expect.callbacks]]
provider = "P"
index = 3
is_enabled = 2

[[expect.callbacks]]
provider = "P"
index = 1
filter_data_size = 0
"#
    )));
    refused(
        "[[step]]\nenable = \"S\"\nprovider = \"P\"\ncode = \"rundown\"\n",
        4,
        "step[1].code",
        "unknown code",
    );
}

// rule: BUF-07 (each real-time consumer has its own queue)
#[test]
fn two_consumers_on_one_session_each_receive_every_event() {
    let o = run(r#"[machine]
cpus = 1

[[process]]
name = "app"

[[provider]]
name = "P"
process = "app"

[[session]]
name = "Live"
real_time = true

[[enable]]
session = "Live"
provider = "P"

[[step]]
consume = "Live"
consumer = "first"
[[step]]
write = "P"
count = 2
[[step]]
flush = "Live"
[[step]]
name = "two"
consume = "Live"
consumer = "first"
[[step]]
consume = "Live"
consumer = "second"
[[step]]
write = "P"
count = 3
[[step]]
flush = "Live"
[[step]]
name = "both"
consume = "Live"
consumer = "first"

[[expect.session]]
name = "Live"
consumer = "first"
delivered = 5

[[expect.session]]
name = "Live"
consumer = "second"
delivered = 3

[[expect.session]]
after = "two"
name = "Live"
consumer = "first"
delivered = 2

[[expect.session]]
after = "both"
name = "Live"
consumer = "first"
delivered = 5

[[expect.session]]
after = "both"
name = "Live"
consumer = "second"
delivered = 0
"#);
    let text = output::outcome_text(&o);
    assert!(
        text.contains("consumer \"first\" 5  consumer \"second\" 3"),
        "{text}"
    );
    let json = output::outcome_json_lines(&o);
    assert!(
        json.contains(
            r#""consumers":[{"name":"first","delivered":5},{"name":"second","delivered":3}]"#
        ),
        "{json}"
    );
    refused(
        "[[expect.session]]\nname = \"S\"\nconsumer = \"x\"\nevents = 1\n",
        3,
        "expect.session[1].consumer",
        "give `delivered`",
    );
}

#[test]
fn a_file_s_ids_and_size_are_checked() {
    let o = run(&with(
        r#"
[[step]]
write = "P"
id = 7
[[step]]
write = "P"
id = 9
count = 2

[[expect.file]]
path = "s.etl"
ids = [7, 9, 9]
size = { at_least = 8192 }
"#,
    ));
    // Per record: CPUs, extended items, header flags.
    run(&with(
        r#"
[[step]]
write = "P"
id = 7
related_activity_id = "{bbbbbbbb-0000-0000-0000-000000000002}"
[[step]]
write = "P"
string = "hello"
[[step]]
write = "P"
id = 9

[[expect.file]]
path = "s.etl"
cpus = [0, 0, 0]
extended_items = { RELATED_ACTIVITYID = 1, EVENT_HEADER_EXT_TYPE_SID = 0, "11" = 0 }
header_flags = { EXTENDED_INFO = 1, STRING_ONLY = { at_least = 1, at_most = 1 } }
"#,
    ));
    refused(
        "[[expect.file]]\npath = \"s.etl\"\nheader_flags = { SHINY = 1 }\n",
        3,
        "expect.file[1].header_flags",
        "unknown header flag \"SHINY\"",
    );
    refused(
        "[[expect.file]]\npath = \"s.etl\"\nextended_items = { SID = -1 }\n",
        3,
        "expect.file[1].extended_items.SID",
        "cannot be negative",
    );
    let size = o.files[0].bytes.len() as u64;
    let o = load(&with(&format!(
        "[[step]]\nwrite = \"P\"\nid = 7\n[[expect.file]]\npath = \"s.etl\"\nids = [9]\nsize = {}\n",
        size + 1
    )))
    .run();
    assert_eq!(o.failures().count(), 2, "{}", output::outcome_text(&o));
}

// rule: ALG-01, ALG-04 (AutoLogger sessions at boot)
#[test]
fn expect_session_names_boot_sessions_too() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenarios");
    let text = std::fs::read_to_string(dir.join("autologger_boot.toml")).unwrap();
    // Every boot's Contoso-Boot file holds one event; the fourth overwrote the first's.
    let text = text.replacen(
        "[[step]]\nreboot = true",
        "[[step]]\nname = \"first boot\"\nrun_logger = true\n\n[[step]]\nreboot = true",
        1,
    ) + r#"
[[expect.session]]
name = "Contoso-Boot"
events = 3
events_lost = 0
buffers_written = { at_least = 1 }

[[expect.session]]
name = "Contoso-Boot"
after = "first boot"
events = 1
events_lost = 0
"#;
    let sc = Scenario::parse(&text, "boot.toml", &dir).unwrap_or_else(|e| panic!("{e}"));
    let o = sc.run();
    assert!(o.passed(), "{}", output::outcome_text(&o));
    // Without a registry, an undeclared name is still a mistake.
    let (_, k, m) = error(&with(
        "[[expect.session]]\nname = \"Contoso-Boot\"\nevents = 1\n",
    ));
    assert_eq!(k, "expect.session[1].name", "{m}");
    // A boot session has no consumer.
    let text = text + "[[expect.session]]\nname = \"Contoso-Boot\"\ndelivered = 1\n";
    let e = Scenario::parse(&text, "boot.toml", &dir).expect_err("no delivered");
    let key = e.location().and_then(|l| l.key.clone()).unwrap_or_default();
    assert!(
        key.starts_with("expect.session[") && key.ends_with("].delivered"),
        "{key}: {e}"
    );
}
