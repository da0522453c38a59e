//! Declarative etwsim scenarios. A TOML file says what the machine is, which processes
//! register which providers, which sessions start with which `EVENT_TRACE_PROPERTIES`, who
//! enables what with which filters, what is written and when time moves — and what should
//! come of it. [`Scenario::load`] checks the file (every mistake names its line, column and
//! key), [`Scenario::run`] plays it on a deterministic kernel with the
//! [journal](etwsim::journal) on (booted from a registry when it names one) and checks its
//! expectations, and [`report`] turns a run or
//! an `.etl` file into one self-contained HTML page. `docs/scenarios.md` documents every key;
//! `examples/scenarios/` has worked examples; `etwsim run` and `etwsim report` are the
//! command-line faces.
//!
//! # Map
//!
//! | item | what it is |
//! |---|---|
//! | [`Scenario`] | a loaded, checked scenario: [`load`](Scenario::load), [`parse`](Scenario::parse), [`run`](Scenario::run) |
//! | [`Outcome`] | what a run did: the journal, each expectation's result, the files the sessions wrote, the sessions' counters, the writes, the enable slots |
//! | [`ExpectationResult`] | one expectation: its line, what it checks, expected and actual values, passed |
//! | [`KernelEvent`] | a kernel (MOF) event a session recorded or delivered, decoded ([`SessionSummary::kernel_events`]) |
//! | [`StepFailure`] | a control step that failed and ended the steps early |
//! | [`output`] | the outcome as text, or as JSON Lines (`seq`, `time`, `kind` and fields per journal entry) |
//! | [`report`] | the HTML report (timeline per session and CPU, enable slots, counters, event detail) |
//! | [`Error`], [`Located`] | what is wrong, and where: file, line, column, key |
//! | [`files`] | inputs read with a size cap, outputs that never name an input, written whole or not at all |
//!
//! # Example
//!
//! ```
//! use etwsim_scenario::Scenario;
//!
//! let text = r#"
//! [[process]]
//! name = "app"
//!
//! [[provider]]
//! name = "MyCompany-MyComponent"   # the GUID comes from the name (GID-01)
//! process = "app"
//!
//! [[session]]
//! name = "Errors"
//! log_file = "errors.etl"
//!
//! [[enable]]
//! session = "Errors"
//! provider = "MyCompany-MyComponent"
//! level = "warning"
//!
//! [[step]]
//! write = "MyCompany-MyComponent"
//! level = "error"
//! count = 3
//!
//! [[step]]
//! write = "MyCompany-MyComponent"
//! level = "verbose"                # above the session's level: not recorded (FLT-01)
//!
//! [[expect.session]]
//! name = "Errors"
//! events = 3
//! "#;
//! let scenario = Scenario::parse(text, "doc.toml", std::path::Path::new("."))?;
//! let outcome = scenario.run();
//! assert!(outcome.passed(), "{}", etwsim_scenario::output::outcome_text(&outcome));
//! assert_eq!(outcome.files[0].path, "errors.etl");
//!
//! // A misspelt key is an error naming its line and key.
//! let wrong = Scenario::parse("[[session]]\nname = \"S\"\nbufer_size_kb = 4\n", "t.toml", ".".as_ref());
//! let e = wrong.unwrap_err();
//! assert_eq!(e.location().map(|l| (l.line, l.key.as_deref())), Some((3, Some("session[1].bufer_size_kb"))));
//! # Ok::<(), etwsim_scenario::Error>(())
//! ```
#![forbid(unsafe_code)]

mod error;
mod expect;
mod file;
pub mod files;
pub mod output;
pub mod report;
mod run;
mod scenario;
pub mod values;

pub use error::{Error, Located};
pub use run::{
    CallbackRecord, Checkpoint, ExpectationResult, KEPT_PAYLOAD, KEPT_WRITES, KernelEvent, Outcome,
    OutputFile, ProviderSummary, RunOptions, SessionSummary, SlotSnapshot, StepFailure,
    WriteRecord,
};
pub use scenario::{
    DEFAULT_JOURNAL_CAPACITY, MAX_ENABLES, MAX_EXPECTATIONS, MAX_JOURNAL_CAPACITY,
    MAX_MACHINE_BUFFER_BYTES, MAX_MANIFEST_BYTES, MAX_PAYLOAD, MAX_PROCESSES, MAX_PROVIDERS,
    MAX_REGISTRY_BYTES, MAX_SCENARIO_BYTES, MAX_SESSION_BUFFER_BYTES, MAX_SESSIONS, MAX_STEPS,
    MAX_THREADS, MAX_VIRTUAL_TIME, MAX_WRITES, SYSTEM_PROCESS, Scenario,
};
