//! A whole scenario's buffers are bounded (issue 33): each session is held to
//! `max_session_buffer_bytes` and all of them together to `max_machine_buffer_bytes`
//! (default and most: 4 GiB), so sessions whose MinimumBuffers do not fit get StartTrace's
//! `ERROR_NO_SYSTEM_RESOURCES` instead of the run asking for ever more memory.
// rule: SES-59 — the adjusted MinimumBuffers is allocated when the session starts.
// rule: SES-60 — MaximumBuffers is lowered to an internal cap.

use etwsim_scenario::{MAX_MACHINE_BUFFER_BYTES, Scenario, output};
use std::path::Path;

/// `[machine]` with `machine` in it, then five sessions of 1024 × 1 MB buffers started by
/// steps, the last `failing` of which expect ERROR_NO_SYSTEM_RESOURCES.
fn five_sessions(machine: &str, failing: usize) -> String {
    let mut s = format!("[machine]\ncpus = 2\n{machine}\n");
    for i in 1..=5 {
        s.push_str(&format!(
            "[[session]]\nname = \"S{i}\"\nbuffering = true\nbuffer_size_kb = 1024\n\
             minimum_buffers = 1024\nmaximum_buffers = 1024\nautostart = false\n"
        ));
    }
    for i in 1..=5 {
        s.push_str(&format!("[[step]]\nstart = \"S{i}\"\n"));
        if i > 5 - failing {
            s.push_str("expect_error = \"ERROR_NO_SYSTEM_RESOURCES\"\n");
        }
    }
    s
}

fn run(text: &str) -> etwsim_scenario::Outcome {
    let sc = Scenario::parse(text, "t.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    sc.run()
}

#[test]
fn sessions_whose_buffers_do_not_fit_the_machine_get_starttraces_error() {
    // Each session is held to 256 MiB (the kernel's default per session); a 512 MiB machine
    // holds two of them, and the next three get 1450, not memory.
    let o = run(&five_sessions("max_machine_buffer_bytes = 536870912", 3));
    assert!(o.passed(), "{}", output::outcome_text(&o));
    let started: Vec<bool> = o.sessions.iter().map(|s| s.stats.is_some()).collect();
    assert_eq!(started, [true, true, false, false, false]);
    // Without expect_error, the first that does not fit stops the run, naming StartTrace's
    // error — the run ends, the process does not.
    let o = run(&five_sessions("max_machine_buffer_bytes = 536870912", 0));
    let a = o.aborted.as_ref().expect("the third start fails");
    assert_eq!(a.key, "step[3].start", "{a}");
    assert!(
        a.message.contains("ERROR_NO_SYSTEM_RESOURCES (1450)"),
        "{a}"
    );
}

#[test]
fn the_machine_limit_has_a_default_and_a_maximum() {
    assert_eq!(MAX_MACHINE_BUFFER_BYTES, 4 << 30);
    let e = Scenario::parse(
        &five_sessions("max_machine_buffer_bytes = 4294967297", 0),
        "t.toml",
        Path::new("."),
    )
    .expect_err("refused");
    let l = e.location().unwrap();
    assert_eq!(l.key.as_deref(), Some("machine.max_machine_buffer_bytes"));
    assert!(l.message.contains("4 GiB"), "{e}");
}
