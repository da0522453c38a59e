//! Declarative etwsim scenarios.
#![forbid(unsafe_code)]

mod error;
mod expect;
mod file;
pub mod output;
pub mod report;
mod run;
mod scenario;
pub mod values;

pub use error::{Error, Located};
pub use expect::kind_name;
pub use run::{
    CallbackRecord, ExpectationResult, KEPT_PAYLOAD, KEPT_WRITES, Outcome, OutputFile,
    ProviderSummary, SessionSummary, SlotSnapshot, StepFailure, WriteRecord,
};
pub use scenario::{
    DEFAULT_JOURNAL_CAPACITY, MAX_JOURNAL_CAPACITY, MAX_PAYLOAD, MAX_SESSION_BUFFER_BYTES,
    MAX_VIRTUAL_TIME, MAX_WRITES, SYSTEM_PROCESS, Scenario,
};
