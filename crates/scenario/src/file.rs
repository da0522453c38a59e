//! The scenario file as written: one serde structure per table, every one with
//! `deny_unknown_fields` (a misspelt key is an error naming its line), spans kept where a
//! later check needs to point at a line. `docs/scenarios.md` documents every key.
//!
//! Every array of tables is read through [`Capped`]: past its limit ([`MAX_STEPS`] and the
//! others) deserializing stops with an error, so a file cannot make the loader build more
//! tables than the limits allow, whatever its size.

use crate::scenario::{
    MAX_ENABLES, MAX_EXPECTATIONS, MAX_PROCESSES, MAX_PROVIDERS, MAX_SESSIONS, MAX_STEPS,
    MAX_THREADS,
};
use crate::values::{
    CountValue, DurationValue, FlagsValue, GuidValue, KeywordValue, LevelValue, NameOrNumber,
    Number, PidValue,
};
use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use std::fmt;
use std::marker::PhantomData;
use toml::Spanned;

/// `n` with thousands separated: `100,000`.
pub(crate) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A list of at most `max` elements: past it, an error naming the limit, before the
/// element after the first one too many is read.
struct Capped<T> {
    max: usize,
    /// What the elements are, in the error: "`[[step]]` tables".
    what: &'static str,
    element: PhantomData<T>,
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for Capped<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a list of at most {} {}", thousands(self.max), self.what)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(self.max));
        while let Some(x) = seq.next_element()? {
            if out.len() == self.max {
                return Err(de::Error::custom(format!(
                    "at most {} {} in a scenario (docs/scenarios.md, Limits)",
                    thousands(self.max),
                    self.what
                )));
            }
            out.push(x);
        }
        Ok(out)
    }
}

fn capped<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
    max: usize,
    what: &'static str,
) -> Result<Vec<T>, D::Error> {
    d.deserialize_seq(Capped {
        max,
        what,
        element: PhantomData,
    })
}

/// One deserializer per capped list (serde's `deserialize_with` names a function).
macro_rules! capped_lists {
    ($($name:ident: $t:ty, $max:expr, $what:literal;)*) => {$(
        fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Spanned<$t>>, D::Error> {
            capped(d, $max, $what)
        }
    )*};
}

capped_lists! {
    processes: ProcessDef, MAX_PROCESSES, "`[[process]]` tables";
    providers: ProviderDef, MAX_PROVIDERS, "`[[provider]]` tables";
    sessions: SessionDef, MAX_SESSIONS, "`[[session]]` tables";
    enables: EnableDef, MAX_ENABLES, "`[[enable]]` tables";
    steps: StepDef, MAX_STEPS, "`[[step]]` tables";
    threads: ThreadDef, MAX_THREADS, "threads per process";
    expect_session: ExpectSession, MAX_EXPECTATIONS, "`[[expect.…]]` tables";
    expect_total: ExpectTotal, MAX_EXPECTATIONS, "`[[expect.…]]` tables";
    expect_callbacks: ExpectCallbacks, MAX_EXPECTATIONS, "`[[expect.…]]` tables";
    expect_file: ExpectFile, MAX_EXPECTATIONS, "`[[expect.…]]` tables";
    expect_journal: ExpectJournal, MAX_EXPECTATIONS, "`[[expect.…]]` tables";
    expect_kernel: ExpectKernel, MAX_EXPECTATIONS, "`[[expect.…]]` tables";
    expect_boot: ExpectBoot, MAX_EXPECTATIONS, "`[[expect.…]]` tables";
}

/// The whole file.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScenarioFile {
    #[serde(default)]
    pub scenario: Meta,
    #[serde(default)]
    pub machine: Machine,
    #[serde(default, deserialize_with = "processes")]
    pub process: Vec<Spanned<ProcessDef>>,
    #[serde(default, deserialize_with = "providers")]
    pub provider: Vec<Spanned<ProviderDef>>,
    #[serde(default, deserialize_with = "sessions")]
    pub session: Vec<Spanned<SessionDef>>,
    #[serde(default, deserialize_with = "enables")]
    pub enable: Vec<Spanned<EnableDef>>,
    #[serde(default, deserialize_with = "steps")]
    pub step: Vec<Spanned<StepDef>>,
    #[serde(default)]
    pub expect: Expectations,
}

/// `[scenario]`.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Meta {
    pub name: Option<String>,
    pub description: Option<String>,
    pub stop_at_end: Option<bool>,
}

/// `[machine]`: the KernelBuilder's knobs.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Machine {
    pub cpus: Option<Spanned<u16>>,
    pub seed: Option<Number>,
    pub max_loggers: Option<u32>,
    pub default_buffer_size_kb: Option<u32>,
    pub max_buffers_cap: Option<u32>,
    pub disk_free_bytes: Option<Number>,
    pub max_session_buffer_bytes: Option<Number>,
    pub max_machine_buffer_bytes: Option<Number>,
    pub event_tick: Option<DurationValue>,
    pub realtime_backlog_buffers: Option<u32>,
    pub consumer_queue_buffers: Option<u32>,
    pub drain_bandwidth: Option<Number>,
    pub disk_capacity: Option<Number>,
    pub journal_capacity: Option<u32>,
    pub registry: Option<Spanned<String>>,
    pub registry_text: Option<Spanned<String>>,
}

/// `[[process]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProcessDef {
    pub name: Spanned<String>,
    pub image: Option<String>,
    pub token: Option<Spanned<String>>,
    pub account: Option<String>,
    pub elevated: Option<bool>,
    pub pid: Option<u32>,
    pub package_id: Option<String>,
    pub package_app_id: Option<String>,
    #[serde(default)]
    pub inprivate: bool,
    #[serde(default, deserialize_with = "threads")]
    pub threads: Vec<Spanned<ThreadDef>>,
    pub command_line: Option<String>,
    pub parent: Option<Spanned<String>>,
    pub autostart: Option<bool>,
}

/// One entry of a process's `threads`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ThreadDef {
    pub name: String,
    pub cpu: Spanned<u16>,
}

/// `[[provider]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ProviderDef {
    pub name: Spanned<String>,
    pub guid: Option<GuidValue>,
    pub manifest: Option<Spanned<String>>,
    pub manifest_provider: Option<Spanned<String>>,
    pub process: Option<Spanned<String>>,
    pub processes: Option<Spanned<Vec<String>>>,
    pub kind: Option<Spanned<String>>,
    pub group: Option<GuidValue>,
}

/// `[[session]]`: the fields of EVENT_TRACE_PROPERTIES, and how the scenario uses it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct SessionDef {
    pub name: Spanned<String>,
    pub guid: Option<GuidValue>,
    pub log_file: Option<Spanned<String>>,
    pub mode: Option<Spanned<FlagsValue>>,
    #[serde(default)]
    pub real_time: bool,
    #[serde(default)]
    pub buffering: bool,
    pub buffer_size_kb: Option<u32>,
    pub minimum_buffers: Option<u32>,
    pub maximum_buffers: Option<u32>,
    pub maximum_file_size: Option<u32>,
    pub flush_timer: Option<u32>,
    pub clock: Option<Spanned<NameOrNumber>>,
    pub enable_flags: Option<Spanned<FlagsValue>>,
    pub caller: Option<Spanned<String>>,
    pub memory_sink: Option<bool>,
    pub autostart: Option<bool>,
}

/// `[[enable]]` and the keys of an `enable` step.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EnableDef {
    pub session: Spanned<String>,
    pub provider: Option<Spanned<String>>,
    pub group: Option<Spanned<GuidValue>>,
    pub level: Option<LevelValue>,
    pub any: Option<Spanned<KeywordValue>>,
    pub all: Option<Spanned<KeywordValue>>,
    pub properties: Option<Spanned<FlagsValue>>,
    pub source_id: Option<GuidValue>,
    pub filter: Option<Spanned<Box<FilterDef>>>,
    pub expect_error: Option<Spanned<NameOrNumber>>,
}

/// `filter = { … }` of an enable: the EVENT_FILTER_DESCRIPTORs, as the kernel models them.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct FilterDef {
    pub pids: Option<Vec<PidValue>>,
    pub executable: Option<String>,
    pub package_id: Option<String>,
    pub package_app_id: Option<String>,
    pub event_ids: Option<Vec<u16>>,
    pub exclude_event_ids: Option<Vec<u16>>,
    pub event_names: Option<NameFilterDef>,
    pub stackwalk_ids: Option<Vec<u16>>,
    pub exclude_stackwalk_ids: Option<Vec<u16>>,
    pub stackwalk_names: Option<NameFilterDef>,
    pub stackwalk_level_kw: Option<LevelKwDef>,
    pub payload: Option<String>,
    pub schematized: Option<String>,
    pub trace_handle: Option<Number>,
}

/// An EVENT_FILTER_EVENT_NAME: names and their level/keyword gate.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct NameFilterDef {
    pub names: Vec<String>,
    #[serde(default = "yes")]
    pub filter_in: bool,
    pub level: Option<LevelValue>,
    pub any: Option<KeywordValue>,
    pub all: Option<KeywordValue>,
}

fn yes() -> bool {
    true
}

/// An EVENT_FILTER_TYPE_STACKWALK_LEVEL_KW filter.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct LevelKwDef {
    pub level: Option<LevelValue>,
    pub any: Option<KeywordValue>,
    pub all: Option<KeywordValue>,
    #[serde(default = "yes")]
    pub filter_in: bool,
}

/// `[[step]]`: one action key, and the keys that action takes.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct StepDef {
    // The actions: exactly one per step.
    pub write: Option<Spanned<String>>,
    pub advance: Option<DurationValue>,
    pub run_logger: Option<bool>,
    pub flush: Option<Spanned<String>>,
    pub update: Option<Spanned<String>>,
    pub stop: Option<Spanned<String>>,
    pub start: Option<Spanned<String>>,
    pub enable: Option<Spanned<String>>,
    pub disable: Option<Spanned<String>>,
    pub consume: Option<Spanned<String>>,
    pub exit: Option<Spanned<String>>,
    pub reboot: Option<Spanned<bool>>,
    pub spawn: Option<Spanned<String>>,
    pub thread_exit: Option<Spanned<String>>,
    pub open_file: Option<Spanned<String>>,
    pub create_file: Option<Spanned<String>>,
    pub file_read: Option<Spanned<String>>,
    pub file_write: Option<Spanned<String>>,
    pub cleanup: Option<Spanned<String>>,
    pub paging_write: Option<Spanned<String>>,
    pub close: Option<Spanned<String>>,
    pub load_image: Option<Spanned<String>>,
    pub unload_image: Option<Spanned<String>>,
    pub query: Option<Spanned<String>>,

    // any step: its name, for `after` expectations
    pub name: Option<Spanned<String>>,

    // write
    pub process: Option<Spanned<String>>,
    pub cpu: Option<Spanned<u16>>,
    pub thread: Option<Spanned<String>>,
    pub id: Option<u16>,
    pub version: Option<u8>,
    pub channel: Option<u8>,
    pub level: Option<LevelValue>,
    pub opcode: Option<u8>,
    pub task: Option<u16>,
    pub keyword: Option<Spanned<KeywordValue>>,
    pub count: Option<u64>,
    pub every: Option<DurationValue>,
    pub payload_size: Option<u32>,
    pub payload_text: Option<String>,
    pub payload_utf16: Option<String>,
    pub payload_hex: Option<Spanned<String>>,
    pub string: Option<String>,
    pub inprivate: Option<bool>,
    pub filter_mask: Option<Number>,
    pub activity_id: Option<GuidValue>,
    pub related_activity_id: Option<GuidValue>,
    pub event_name: Option<Spanned<String>>,

    // enable / disable (the session is the action's value)
    pub provider: Option<Spanned<String>>,
    pub any: Option<Spanned<KeywordValue>>,
    pub all: Option<Spanned<KeywordValue>>,
    pub properties: Option<Spanned<FlagsValue>>,
    pub source_id: Option<GuidValue>,
    pub filter: Option<Spanned<Box<FilterDef>>>,
    pub group: Option<Spanned<GuidValue>>,
    pub code: Option<Spanned<String>>,

    // consume
    pub consumer: Option<Spanned<String>>,

    // update
    pub flush_timer: Option<u32>,
    pub maximum_buffers: Option<u32>,
    pub log_file: Option<String>,
    pub real_time: Option<bool>,
    pub enable_flags: Option<Spanned<FlagsValue>>,

    // OS operations
    pub handle: Option<Spanned<String>>,
    pub offset: Option<u64>,
    pub size: Option<u64>,
    pub disposition: Option<Spanned<String>>,
    pub exit_code: Option<i32>,

    // any control step
    pub expect_error: Option<Spanned<NameOrNumber>>,
    #[serde(rename = "as")]
    pub as_process: Option<Spanned<String>>,
}

/// `[expect]`: the expectations, one array per kind.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub(crate) struct Expectations {
    #[serde(default, deserialize_with = "expect_session")]
    pub session: Vec<Spanned<ExpectSession>>,
    #[serde(default, deserialize_with = "expect_total")]
    pub total: Vec<Spanned<ExpectTotal>>,
    #[serde(default, deserialize_with = "expect_callbacks")]
    pub callbacks: Vec<Spanned<ExpectCallbacks>>,
    #[serde(default, deserialize_with = "expect_file")]
    pub file: Vec<Spanned<ExpectFile>>,
    #[serde(default, deserialize_with = "expect_journal")]
    pub journal: Vec<Spanned<ExpectJournal>>,
    #[serde(default, deserialize_with = "expect_kernel")]
    pub kernel: Vec<Spanned<ExpectKernel>>,
    #[serde(default, deserialize_with = "expect_boot")]
    pub boot: Vec<Spanned<ExpectBoot>>,
}

/// `[[expect.session]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectSession {
    pub name: Spanned<String>,
    pub events: Option<CountValue>,
    pub events_lost: Option<CountValue>,
    pub buffers_written: Option<CountValue>,
    pub log_buffers_lost: Option<CountValue>,
    pub real_time_buffers_lost: Option<CountValue>,
    pub delivered: Option<CountValue>,
    pub consumer: Option<Spanned<String>>,
    pub after: Option<Spanned<String>>,
}

/// `[[expect.total]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectTotal {
    pub events: Option<CountValue>,
    pub events_lost: Option<CountValue>,
    pub writes: Option<CountValue>,
    pub writes_failed: Option<CountValue>,
}

/// `[[expect.callbacks]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectCallbacks {
    pub provider: Spanned<String>,
    pub process: Option<Spanned<String>>,
    pub count: Option<CountValue>,
    pub index: Option<Spanned<u64>>,
    pub is_enabled: Option<u32>,
    pub level: Option<LevelValue>,
    pub any: Option<Number>,
    pub all: Option<Number>,
    pub source_id: Option<GuidValue>,
    pub filter_data_size: Option<u64>,
    pub filter_data: Option<Spanned<String>>,
}

/// `[[expect.file]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectFile {
    pub path: Spanned<String>,
    pub exists: Option<bool>,
    pub records: Option<CountValue>,
    pub events_lost: Option<CountValue>,
    pub size: Option<CountValue>,
    pub ids: Option<Vec<u16>>,
    pub cpus: Option<Vec<u16>>,
    pub extended_items: Option<Spanned<std::collections::BTreeMap<String, CountValue>>>,
    pub header_flags: Option<Spanned<std::collections::BTreeMap<String, CountValue>>>,
}

/// `[[expect.journal]]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectJournal {
    pub kind: Spanned<String>,
    pub session: Option<String>,
    pub provider: Option<Spanned<String>>,
    pub rule: Option<String>,
    pub recorded: Option<bool>,
    pub counter: Option<String>,
    pub call: Option<String>,
    pub result: Option<String>,
    pub contains: Option<String>,
    pub count: Option<u64>,
    pub at_least: Option<u64>,
    pub at_most: Option<u64>,
    pub after: Option<Spanned<String>>,
}

/// `[[expect.kernel]]`: kernel (MOF) events a session recorded or delivered.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectKernel {
    pub session: Spanned<String>,
    pub event: Spanned<String>,
    pub names: Option<Spanned<String>>,
    pub file_name: Option<String>,
    #[serde(default)]
    pub fields: std::collections::BTreeMap<String, String>,
    pub count: Option<u64>,
    pub at_least: Option<u64>,
    pub at_most: Option<u64>,
}

/// `[[expect.boot]]`: what a boot did with one registry session.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExpectBoot {
    pub session: Spanned<String>,
    pub boot: Option<Spanned<u32>>,
    pub started: Option<bool>,
    pub status: Option<Spanned<NameOrNumber>>,
    pub log_file: Option<String>,
    pub file_counter: Option<u32>,
    pub note: Option<String>,
    pub mode_has: Option<Spanned<FlagsValue>>,
    pub mode_lacks: Option<Spanned<FlagsValue>>,
    pub provider: Option<GuidValue>,
    pub provider_enabled: Option<bool>,
    pub provider_level: Option<LevelValue>,
    pub provider_any: Option<Number>,
}
