//! What a run does with each kind of key: sessions' outputs and how events are counted,
//! steps, filters, threads and CPUs, callbacks, and the journal's matching.

use etwsim_scenario::{Outcome, Scenario, output};
use std::path::Path;

fn run(text: &str) -> Outcome {
    let sc = Scenario::parse(text, "t.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    let o = sc.run();
    assert!(o.passed(), "{}", output::outcome_text(&o));
    o
}

const MACHINE: &str = "[machine]\ncpus = 2\n";

/// A file session S that enables P.
const S: &str = r#"[[session]]
name = "S"
log_file = "s.etl"
[[enable]]
session = "S"
provider = "P""#;

const APP: &str = r#"
[[process]]
name = "app"
threads = [{ name = "w", cpu = 1 }]

[[process]]
name = "other"

[[provider]]
name = "P"
processes = ["app", "other"]
"#;

#[test]
fn every_output_counts_its_events() {
    // A file session, a BUFFERING session with its memory sink (flushed explicitly, SES-41),
    // and a real-time session read by a consumer.
    let o = run(&format!(
        r#"{MACHINE}{APP}
[[session]]
name = "File"
log_file = "f.etl"

[[session]]
name = "Ring"
buffering = true
buffer_size_kb = 4

[[session]]
name = "Live"
real_time = true

[[enable]]
session = "File"
provider = "P"
[[enable]]
session = "Ring"
provider = "P"
[[enable]]
session = "Live"
provider = "P"

[[step]]
consume = "Live"
[[step]]
write = "P"
process = "app"
count = 5
[[step]]
flush = "Ring"

[[expect.session]]
name = "File"
events = 5
[[expect.session]]
name = "Ring"
events = 5
[[expect.session]]
name = "Live"
events = 5
delivered = 5
[[expect.total]]
events = 15
writes = 5
"#
    ));
    assert_eq!(o.files.len(), 1);
}

#[test]
fn events_are_counted_across_every_file_a_session_wrote() {
    // rule: SES-77 — UPDATE to a new log file: the events before and after are in two files.
    run(&format!(
        r#"{MACHINE}{APP}
[[session]]
name = "S"
log_file = "one.etl"

[[enable]]
session = "S"
provider = "P"

[[step]]
write = "P"
process = "app"
count = 3
[[step]]
update = "S"
log_file = "two.etl"
[[step]]
write = "P"
process = "app"
count = 4

[[expect.session]]
name = "S"
events = 7
[[expect.file]]
path = "one.etl"
records = 3
[[expect.file]]
path = "two.etl"
records = 4
"#
    ));
}

#[test]
fn writes_land_on_the_chosen_cpu_and_thread() {
    let o = run(&format!(
        r#"{MACHINE}{APP}
{S}
[[step]]
write = "P"
process = "app"
[[step]]
write = "P"
process = "app"
cpu = 1
[[step]]
write = "P"
process = "app"
thread = "w"
[[step]]
write = "P"
process = "other"
"#
    ));
    let cpus: Vec<u16> = o.writes.iter().map(|w| w.cpu).collect();
    assert_eq!(cpus, [0, 1, 1, 0]);
    assert_ne!(
        o.writes[1].tid, o.writes[2].tid,
        "a CPU's thread is not the named one"
    );
    assert_ne!(o.writes[0].pid, o.writes[3].pid, "two processes");
    // The file's records carry the same CPUs (ETW_BUFFER_CONTEXT.ProcessorIndex).
    let mut f = etwsim::etl::LogFile::from_bytes("s.etl", o.files[0].bytes.clone()).unwrap();
    let mut seen = Vec::new();
    f.for_each_record(|r| seen.push(r.buffer_context().processor_index))
        .unwrap();
    seen.sort_unstable();
    assert_eq!(seen, [0, 0, 1, 1]);
}

#[test]
fn a_pid_filter_names_processes_and_scopes_the_enable() {
    // rule: FLT-16 — enabled only in "app": the other process's writes are not recorded.
    run(&format!(
        r#"{MACHINE}{APP}
{S}
filter = {{ pids = ["app"] }}
[[step]]
write = "P"
process = "app"
count = 2
[[step]]
write = "P"
process = "other"
count = 3
[[expect.session]]
name = "S"
events = 2
[[expect.callbacks]]
provider = "P"
process = "other"
count = 0
[[expect.callbacks]]
provider = "P"
process = "app"
index = 1
is_enabled = 1
"#
    ));
}

#[test]
fn event_id_filters_and_paced_loops_and_the_drain_bandwidth() {
    // rule: FLT-19 — id 9 excluded; a paced loop with the logger draining as it goes loses
    // nothing where the same burst at once would (BUF-04, BUF-19).
    run(&format!(
        r#"[machine]
cpus = 2
drain_bandwidth = 8192000
{APP}
[[session]]
name = "S"
log_file = "s.etl"
buffer_size_kb = 4
minimum_buffers = 2
maximum_buffers = 4
[[enable]]
session = "S"
provider = "P"
filter = {{ exclude_event_ids = [9] }}
[[step]]
write = "P"
process = "app"
id = 9
count = 10
[[step]]
write = "P"
process = "app"
id = 1
count = 200
payload_size = 120
every = "50us"
[[expect.session]]
name = "S"
events = 200
events_lost = 0
[[expect.journal]]
kind = "Write"
session = "S"
recorded = false
rule = "FLT-19"
count = 10
"#
    ));
}

#[test]
fn expect_error_turns_a_refusal_into_the_step_s_success() {
    // rule: SES-23 — BUFFERING with a log file is refused at StartTrace.
    run(&format!(
        r#"{MACHINE}{APP}
[[session]]
name = "Bad"
autostart = false
buffering = true
log_file = "bad.etl"
[[step]]
start = "Bad"
expect_error = "ERROR_INVALID_PARAMETER"
[[expect.journal]]
kind = "Control"
call = "StartTrace"
result = "ERROR_INVALID_PARAMETER"
count = 1
[[expect.file]]
path = "bad.etl"
exists = false
"#
    ));
}

#[test]
fn a_session_left_running_keeps_its_last_statistics() {
    let o = run(&format!(
        r#"[scenario]
stop_at_end = false
{MACHINE}{APP}[[session]]
name = "S"
real_time = true
[[enable]]
session = "S"
provider = "P"
[[step]]
write = "P"
process = "app"
count = 2
[[expect.session]]
name = "S"
events_lost = 0
[[expect.journal]]
kind = "Control"
call = "ControlTrace(STOP)"
count = 0
"#
    ));
    assert!(o.slots.line.is_some(), "the slots were seen while S ran");
    assert_eq!(o.slots.providers[0].len(), 1);
}

#[test]
fn exit_drops_the_registrations() {
    run(&format!(
        r#"{MACHINE}{APP}
{S}
[[step]]
exit = "other"
[[step]]
write = "P"
process = "other"
count = 4
[[step]]
write = "P"
process = "app"
[[expect.session]]
name = "S"
events = 1
"#
    ));
}

#[test]
fn eventwritestring_and_inprivate_writes() {
    // rule: EVT-13 (a string-only event), FLT-11 (EXCLUDE_INPRIVATE drops InPrivate writes).
    run(&format!(
        r#"{MACHINE}{APP}
{S}
properties = ["EXCLUDE_INPRIVATE"]
[[step]]
write = "P"
process = "app"
string = "hello"
[[step]]
write = "P"
process = "app"
id = 2
inprivate = true
[[expect.session]]
name = "S"
events = 1
[[expect.journal]]
kind = "Write"
recorded = false
rule = "FLT-11"
count = 1
"#
    ));
}

#[test]
fn a_full_disk_loses_buffers() {
    // rule: BUF-19 — the log file takes no more once the virtual disk is full: LogBuffersLost.
    let o = run(&format!(
        r#"[machine]
cpus = 2
disk_capacity = 12288
{APP}
[[session]]
name = "S"
log_file = "s.etl"
buffer_size_kb = 4
[[enable]]
session = "S"
provider = "P"
[[step]]
write = "P"
process = "app"
count = 100
payload_size = 120
[[step]]
run_logger = true
[[expect.journal]]
kind = "Loss"
session = "S"
counter = "LogBuffersLost"
rule = "BUF-19"
at_least = 1
"#
    ));
    let lost = o.sessions[0].stats.as_ref().unwrap().log_buffers_lost;
    assert!(lost >= 1, "LogBuffersLost {lost}");
}

#[test]
fn a_session_that_stopped_itself_reports_its_final_statistics() {
    // rule: SES-62
    // rule: BUF-07
    // rule: SES-76
    // A SEQUENTIAL file of 12 KB holds the header buffer and two 4 KB buffers: the third
    // buffer fills it, the session stops itself, and the rest is lost.
    let o = run(&format!(
        r#"{MACHINE}{APP}
[[session]]
name = "Small"
log_file = "small.etl"
buffer_size_kb = 4
minimum_buffers = 4
maximum_buffers = 4
mode = ["SEQUENTIAL", "USE_KBYTES_FOR_SIZE"]
maximum_file_size = 12

[[enable]]
session = "Small"
provider = "P"

[[step]]
write = "P"
process = "app"
count = 200
payload_size = 200
"#
    ));
    let s = &o.sessions[0];
    let stats = s.stats.as_ref().expect("statistics");
    assert!(stats.buffers_written >= 2, "{stats:?}");
    assert!(stats.log_buffers_lost >= 1, "{stats:?}");
    // What the run reports is what the kernel's last word on the session says.
    let stop = o
        .journal
        .iter()
        .rev()
        .find_map(|e| match &e.event {
            etwsim::JournalEvent::Control { call, target, .. }
                if call == "ControlTrace(STOP)" && target.contains("Small") =>
            {
                Some(e.seq)
            }
            _ => None,
        })
        .expect("the session was stopped");
    assert!(stop > 0);
}

#[test]
fn a_session_whose_controller_exited_is_stopped_by_name() {
    // rule: SES-16
    let o = run(&format!(
        r#"{MACHINE}{APP}
[[process]]
name = "ctl"
token = "admin"

[[session]]
name = "Orphan"
log_file = "orphan.etl"
caller = "ctl"

[[enable]]
session = "Orphan"
provider = "P"

[[step]]
write = "P"
process = "app"
count = 3
[[step]]
exit = "ctl"
[[step]]
stop = "Orphan"

[[expect.session]]
name = "Orphan"
events = 3
"#
    ));
    let stats = o.sessions[0].stats.as_ref().expect("statistics");
    assert_eq!(stats.events_lost, 0);
    assert!(stats.buffers_written >= 1, "{stats:?}");
}

#[test]
fn session_selects_control_entries_of_every_call_on_it() {
    let o = run(&format!(
        r#"{MACHINE}{APP}{S}

[[session]]
name = "Other"
log_file = "other.etl"
[[enable]]
session = "Other"
provider = "P"

[[step]]
flush = "S"

[[expect.journal]]
kind = "Control"
call = "EnableTraceEx2"
session = "S"
count = 1

[[expect.journal]]
kind = "Control"
session = "S"
result = "ok"
count = 4

[[expect.journal]]
kind = "Control"
call = "StartTrace"
session = "other"
count = 1
"#
    ));
    assert!(o.passed());
}

#[test]
fn real_time_loss_markers_are_kernel_events_a_scenario_can_count() {
    // rule: BUF-14
    // A consumer whose queue holds 2 buffers misses 2 of 4; delivery then resumes, and the
    // RTLostBuffer marker comes before the next buffer's events. A loss just before the
    // final STOP is told at the end.
    let o = run(&format!(
        r#"[machine]
cpus = 2
consumer_queue_buffers = 2
{APP}
[[session]]
name = "Live"
real_time = true
buffer_size_kb = 4

[[enable]]
session = "Live"
provider = "P"

[[step]]
consume = "Live"
[[step]]
write = "P"
process = "app"
count = 16
payload_size = 1000
[[step]]
flush = "Live"
[[step]]
consume = "Live"
[[step]]
write = "P"
process = "app"
count = 1
payload_size = 1000
[[step]]
flush = "Live"
[[step]]
consume = "Live"

[[expect.kernel]]
session = "Live"
event = "Lost_Event/RTLostBuffer"
count = 1

[[expect.kernel]]
session = "Live"
event = "Lost_Event"
count = 1
"#
    ));
    let text = output::outcome_text(&o);
    assert!(text.contains("(loss markers 1)"), "{text}");
    let live = &o.sessions[0];
    assert!(live.stats.as_ref().unwrap().real_time_buffers_lost >= 1);
}
