//! The `[[expect.…]]` tables: what each expectation checks after the run (sessions'
//! counters, totals, callbacks, files, journal entries, kernel events, boots) — or, for
//! `[[expect.session]]` and `[[expect.journal]]` with `after`, right after a named step.
//! Counts are exact or bounded (`Bound`, from a [`CountValue`]).

use super::sessions::mode_names;
use super::{ErrorMatch, Loader, MAX_EXPECTATIONS, Names, R};
use crate::file::{
    ExpectBoot, ExpectCallbacks, ExpectFile, ExpectJournal, ExpectKernel, ExpectSession,
    ExpectTotal, ScenarioFile,
};
use crate::values::{CountValue, FlagsValue, resolve_flags};
use etwsim::Guid;
use etwsim_decode::fileio::Policy;
use etwsim_decode::mof::{self, MofClass};
use std::ops::Range;
use toml::Spanned;

/// One expectation, checked after the run.
#[derive(Debug)]
pub(crate) struct Expectation {
    pub line: usize,
    pub what: String,
    pub check: Check,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SessionField {
    Events,
    EventsLost,
    BuffersWritten,
    LogBuffersLost,
    RealTimeBuffersLost,
    Delivered,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TotalField {
    Events,
    EventsLost,
    Writes,
    WritesFailed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallbackField {
    IsEnabled,
    Level,
    Any,
    All,
    SourceId,
    FilterDataSize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileField {
    Exists,
    Records,
    EventsLost,
    Size,
}

/// Which journal entries an `[[expect.journal]]` counts.
#[derive(Debug, Clone)]
pub(crate) struct JournalMatch {
    pub kind: &'static str,
    pub session: Option<String>,
    pub provider: Option<Guid>,
    pub rule: Option<String>,
    pub recorded: Option<bool>,
    pub counter: Option<String>,
    pub call: Option<String>,
    pub result: Option<String>,
    pub contains: Option<String>,
}

#[derive(Debug, Clone, Copy)]
pub(crate) enum Bound {
    Exactly(u64),
    AtLeast(u64),
    AtMost(u64),
    Between(u64, u64),
}

impl From<CountValue> for Bound {
    fn from(c: CountValue) -> Bound {
        match (c.at_least, c.at_most) {
            (Some(lo), Some(hi)) if lo == hi => Bound::Exactly(lo),
            (Some(lo), Some(hi)) => Bound::Between(lo, hi),
            (Some(lo), None) => Bound::AtLeast(lo),
            (None, Some(hi)) => Bound::AtMost(hi),
            (None, None) => Bound::AtLeast(0),
        }
    }
}

#[derive(Debug)]
pub(crate) enum Check {
    Session {
        /// The declared session, or `None` for a session a boot started, found by `name`.
        session: Option<usize>,
        name: String,
        field: SessionField,
        expected: Bound,
        /// The consumer `delivered` counts (`None`: all of them).
        consumer: Option<String>,
        /// The named step after which it is checked (`None`: at the end).
        after: Option<String>,
    },
    Total {
        field: TotalField,
        expected: Bound,
    },
    CallbackCount {
        provider: usize,
        reg: usize,
        expected: Bound,
    },
    CallbackValue {
        provider: usize,
        reg: usize,
        index: Option<u64>,
        field: CallbackField,
        expected: u128,
    },
    CallbackFilterData {
        provider: usize,
        reg: usize,
        index: Option<u64>,
        expected: Vec<u8>,
    },
    File {
        path: String,
        field: FileField,
        expected: Bound,
    },
    /// The ids (`cpus`: false) or CPUs (`cpus`: true) of a file's EVENT_HEADER records.
    FileRecords {
        path: String,
        cpus: bool,
        expected: Vec<u16>,
    },
    /// How many of a file's EVENT_HEADER records have an extended item of type `ext`
    /// (`flag`: false), or the header flag `ext` (`flag`: true).
    FileRecordsWith {
        path: String,
        flag: bool,
        bits: u16,
        expected: Bound,
    },
    Journal {
        matcher: JournalMatch,
        bound: Bound,
        /// The named step after which it is checked (`None`: at the end).
        after: Option<String>,
    },
    Kernel {
        session: usize,
        matcher: KernelMatch,
        bound: Bound,
    },
    Boot {
        boot: Option<u32>,
        session: String,
        field: BootField,
    },
}

/// Which kernel events an `[[expect.kernel]]` counts.
#[derive(Debug, Clone)]
pub(crate) struct KernelMatch {
    pub class: &'static MofClass,
    pub opcode: Option<u8>,
    pub policy: Option<Policy>,
    pub file_name: Option<String>,
    pub fields: Vec<(String, String)>,
}

impl BootField {
    /// What it checks, in words.
    fn describe(&self) -> String {
        match self {
            BootField::Started(_) => "started".into(),
            BootField::Status(_) => "Status".into(),
            BootField::LogFile(_) => "log file".into(),
            BootField::FileCounter(_) => "FileCounter".into(),
            BootField::Note(n) => format!("a note containing {n:?}"),
            BootField::ModeHas(m) => format!("LogFileMode has {m:#x}"),
            BootField::ModeLacks(m) => format!("LogFileMode lacks {m:#x}"),
            BootField::ProviderEnabled(g, _) => format!("provider {g} enabled"),
            BootField::ProviderLevel(g, _) => format!("provider {g} level"),
            BootField::ProviderAny(g, _) => format!("provider {g} MatchAnyKeyword"),
        }
    }
}

/// One value an `[[expect.boot]]` checks.
#[derive(Debug, Clone)]
pub(crate) enum BootField {
    Started(bool),
    Status(ErrorMatch),
    LogFile(String),
    FileCounter(u32),
    Note(String),
    ModeHas(u32),
    ModeLacks(u32),
    ProviderEnabled(Guid, bool),
    ProviderLevel(Guid, u8),
    ProviderAny(Guid, u64),
}

/// `EVENT_HEADER_EXT_TYPE_*` names, for `[[expect.file]] extended_items`.
const EXT_TYPES: [(&str, u16); 18] = {
    use etwsim::record::ext_type as t;
    [
        ("RELATED_ACTIVITYID", t::RELATED_ACTIVITYID),
        ("SID", t::SID),
        ("TS_ID", t::TS_ID),
        ("INSTANCE_INFO", t::INSTANCE_INFO),
        ("STACK_TRACE32", t::STACK_TRACE32),
        ("STACK_TRACE64", t::STACK_TRACE64),
        ("PEBS_INDEX", t::PEBS_INDEX),
        ("PMC_COUNTERS", t::PMC_COUNTERS),
        ("PSM_KEY", t::PSM_KEY),
        ("EVENT_KEY", t::EVENT_KEY),
        ("EVENT_SCHEMA_TL", t::EVENT_SCHEMA_TL),
        ("PROV_TRAITS", t::PROV_TRAITS),
        ("PROCESS_START_KEY", t::PROCESS_START_KEY),
        ("CONTROL_GUID", t::CONTROL_GUID),
        ("QPC_DELTA", t::QPC_DELTA),
        ("CONTAINER_ID", t::CONTAINER_ID),
        ("STACK_KEY32", t::STACK_KEY32),
        ("STACK_KEY64", t::STACK_KEY64),
    ]
};

/// The `EVENT_HEADER_FLAG_*` a file keeps (the others a consumer derives), for
/// `[[expect.file]] header_flags`.
const HEADER_FLAGS: [(&str, u16); 5] = {
    use etwsim::record::header_flags as f;
    [
        ("EXTENDED_INFO", f::EXTENDED_INFO),
        ("PRIVATE_SESSION", f::PRIVATE_SESSION),
        ("STRING_ONLY", f::STRING_ONLY),
        ("TRACE_MESSAGE", f::TRACE_MESSAGE),
        ("NO_CPUTIME", f::NO_CPUTIME),
    ]
};

/// The journal entry kinds, as `kind` names them.
pub(crate) const JOURNAL_KINDS: [&str; 6] = [
    "Control",
    "Callback",
    "Write",
    "BufferSwitch",
    "Flush",
    "Loss",
];

impl Loader {
    pub(super) fn expectations(
        &self,
        f: &ScenarioFile,
        ctx: &Names<'_>,
        step_names: &[&str],
    ) -> R<Vec<Expectation>> {
        let mut out = Vec::new();
        let registry = f.machine.registry.is_some() || f.machine.registry_text.is_some();
        for (i, e) in f.expect.session.iter().enumerate() {
            self.expect_session(i, e, ctx, step_names, registry, &mut out)?;
        }
        for (i, e) in f.expect.total.iter().enumerate() {
            self.expect_total(i, e, &mut out)?;
        }
        for (i, e) in f.expect.callbacks.iter().enumerate() {
            self.expect_callbacks(i, e, ctx, &mut out)?;
        }
        for (i, e) in f.expect.file.iter().enumerate() {
            self.expect_file(i, e, &mut out)?;
        }
        for (i, e) in f.expect.journal.iter().enumerate() {
            self.expect_journal(i, e, ctx, step_names, &mut out)?;
        }
        for (i, e) in f.expect.kernel.iter().enumerate() {
            self.expect_kernel(i, e, ctx, &mut out)?;
        }
        let e = &f.expect;
        let tables = e.session.len()
            + e.total.len()
            + e.callbacks.len()
            + e.file.len()
            + e.journal.len()
            + e.kernel.len()
            + e.boot.len();
        if tables > MAX_EXPECTATIONS {
            return Err(self.source.error(
                &(0..0),
                "expect",
                format!(
                    "{} [[expect.…]] tables: at most {} in a scenario, all kinds together (docs/scenarios.md, Limits)",
                    crate::file::thousands(tables),
                    crate::file::thousands(MAX_EXPECTATIONS)
                ),
            ));
        }
        for (i, e) in f.expect.boot.iter().enumerate() {
            self.expect_boot(
                i,
                e,
                f.machine.registry.is_some() || f.machine.registry_text.is_some(),
                &mut out,
            )?;
        }
        out.sort_by_key(|e| e.line);
        Ok(out)
    }

    /// `after`: the name of a named step (its `name`).
    fn after(
        &self,
        after: Option<&Spanned<String>>,
        key: &str,
        step_names: &[&str],
    ) -> R<Option<String>> {
        let Some(a) = after else {
            return Ok(None);
        };
        let n = a.get_ref().trim();
        if !step_names.contains(&n) {
            return Err(self.err(
                &a.span(),
                format!("{key}.after"),
                format!(
                    "no step named {n:?} (a step is named with `name = \"…\"`; named: {})",
                    if step_names.is_empty() {
                        "none".to_string()
                    } else {
                        step_names.join(", ")
                    }
                ),
            ));
        }
        Ok(Some(n.to_string()))
    }

    fn expect_session(
        &self,
        i: usize,
        e: &Spanned<ExpectSession>,
        ctx: &Names<'_>,
        step_names: &[&str],
        registry: bool,
        out: &mut Vec<Expectation>,
    ) -> R<()> {
        let key = format!("expect.session[{}]", i + 1);
        let d = e.get_ref();
        // A name no [[session]] declares is a boot session's, on a machine booted from a
        // registry (AutoLoggers, the Global Logger): found by name after the run.
        let declared = ctx
            .sessions
            .iter()
            .any(|s| s.name.eq_ignore_ascii_case(d.name.get_ref().trim()));
        let session = if declared || !registry {
            Some(ctx.session(self, &d.name, &format!("{key}.name"))?)
        } else {
            None
        };
        let name = &session.map_or_else(
            || d.name.get_ref().trim().to_string(),
            |s| ctx.sessions[s].name.clone(),
        );
        if session.is_none() && (d.delivered.is_some() || d.consumer.is_some()) {
            return Err(self.err(
                &d.name.span(),
                format!("{key}.delivered"),
                format!("{name:?} is no [[session]] of the scenario (a boot session's, if any): it has no consumer, so no `delivered`"),
            ));
        }
        let line = self.source.line(&e.span());
        let after = self.after(d.after.as_ref(), &key, step_names)?;
        let consumer = d.consumer.as_ref().map(|c| c.get_ref().trim().to_string());
        if let Some(c) = &d.consumer {
            if d.delivered.is_none() {
                return Err(self.err(
                    &c.span(),
                    format!("{key}.consumer"),
                    "`consumer` says whose `delivered` is checked: give `delivered` too",
                ));
            }
        }
        let prefix = after
            .as_ref()
            .map_or_else(String::new, |a| format!("after step {a:?}: "));
        let delivered_what = match &consumer {
            Some(c) => format!("events delivered to its consumer {c:?}"),
            None => "events delivered to its consumer".to_string(),
        };
        let fields = [
            (SessionField::Events, d.events, "events recorded"),
            (SessionField::EventsLost, d.events_lost, "EventsLost"),
            (
                SessionField::BuffersWritten,
                d.buffers_written,
                "BuffersWritten",
            ),
            (
                SessionField::LogBuffersLost,
                d.log_buffers_lost,
                "LogBuffersLost",
            ),
            (
                SessionField::RealTimeBuffersLost,
                d.real_time_buffers_lost,
                "RealTimeBuffersLost",
            ),
            (
                SessionField::Delivered,
                d.delivered,
                delivered_what.as_str(),
            ),
        ];
        let before = out.len();
        for (field, value, what) in fields {
            if let Some(expected) = value {
                out.push(Expectation {
                    line,
                    what: format!("{prefix}session {name}: {what}"),
                    check: Check::Session {
                        session,
                        name: name.clone(),
                        field,
                        expected: expected.into(),
                        consumer: consumer
                            .clone()
                            .filter(|_| field == SessionField::Delivered),
                        after: after.clone(),
                    },
                });
            }
        }
        if out.len() == before {
            return Err(self.err(&e.span(), key, "an expectation with nothing to check: give events, events_lost, buffers_written, log_buffers_lost, real_time_buffers_lost or delivered"));
        }
        Ok(())
    }

    fn expect_total(
        &self,
        i: usize,
        e: &Spanned<ExpectTotal>,
        out: &mut Vec<Expectation>,
    ) -> R<()> {
        let d = e.get_ref();
        let line = self.source.line(&e.span());
        let before = out.len();
        for (field, value, what) in [
            (
                TotalField::Events,
                d.events,
                "events recorded, all sessions",
            ),
            (
                TotalField::EventsLost,
                d.events_lost,
                "EventsLost, all sessions",
            ),
            (TotalField::Writes, d.writes, "writes"),
            (
                TotalField::WritesFailed,
                d.writes_failed,
                "writes that returned an error",
            ),
        ] {
            if let Some(expected) = value {
                out.push(Expectation {
                    line,
                    what: format!("total: {what}"),
                    check: Check::Total {
                        field,
                        expected: expected.into(),
                    },
                });
            }
        }
        if out.len() == before {
            return Err(self.err(&e.span(), format!("expect.total[{}]", i + 1), "an expectation with nothing to check: give events, events_lost, writes or writes_failed"));
        }
        Ok(())
    }

    fn expect_callbacks(
        &self,
        i: usize,
        e: &Spanned<ExpectCallbacks>,
        ctx: &Names<'_>,
        out: &mut Vec<Expectation>,
    ) -> R<()> {
        let key = format!("expect.callbacks[{}]", i + 1);
        let d = e.get_ref();
        let provider = ctx.provider(self, &d.provider, &format!("{key}.provider"))?;
        let p = &ctx.providers[provider];
        let reg = match &d.process {
            Some(n) => {
                let r = self.proc_ref(n, &format!("{key}.process"), ctx.processes)?;
                p.regs.iter().position(|x| *x == r).ok_or_else(|| {
                    self.err(
                        &n.span(),
                        format!("{key}.process"),
                        format!(
                            "provider {:?} is not registered in {:?}",
                            p.name,
                            n.get_ref()
                        ),
                    )
                })?
            }
            None if p.regs.len() == 1 => 0,
            None => {
                return Err(self.err(&d.provider.span(), format!("{key}.process"), format!("provider {:?} is registered in several processes: say which with `process`", p.name)));
            }
        };
        let line = self.source.line(&e.span());
        let index = d.index.as_ref().map(|x| *x.get_ref());
        if index == Some(0) {
            return Err(self.err(&e.span(), format!("{key}.index"), "index counts from 1"));
        }
        let which = index.map_or_else(
            || "the last callback".to_string(),
            |n| format!("callback #{n}"),
        );
        let before = out.len();
        if let Some(expected) = d.count {
            out.push(Expectation {
                line,
                what: format!("provider {}: enable callbacks", p.name),
                check: Check::CallbackCount {
                    provider,
                    reg,
                    expected: expected.into(),
                },
            });
        }
        for (field, value, what) in [
            (
                CallbackField::IsEnabled,
                d.is_enabled.map(u128::from),
                "IsEnabled",
            ),
            (
                CallbackField::Level,
                d.level.map(|l| u128::from(l.0)),
                "Level",
            ),
            (
                CallbackField::Any,
                d.any.map(|n| u128::from(n.0)),
                "MatchAnyKeyword",
            ),
            (
                CallbackField::All,
                d.all.map(|n| u128::from(n.0)),
                "MatchAllKeyword",
            ),
            (
                CallbackField::SourceId,
                d.source_id.map(|g| g.0.as_u128()),
                "SourceId",
            ),
            (
                CallbackField::FilterDataSize,
                d.filter_data_size.map(u128::from),
                "FilterData size",
            ),
        ] {
            if let Some(expected) = value {
                out.push(Expectation {
                    line,
                    what: format!("provider {}: {which}'s {what}", p.name),
                    check: Check::CallbackValue {
                        provider,
                        reg,
                        index,
                        field,
                        expected,
                    },
                });
            }
        }
        if let Some(h) = &d.filter_data {
            let expected = self.hex(h.get_ref(), &h.span(), &format!("{key}.filter_data"))?;
            out.push(Expectation {
                line,
                what: format!("provider {}: {which}'s FilterData", p.name),
                check: Check::CallbackFilterData {
                    provider,
                    reg,
                    index,
                    expected,
                },
            });
        }
        if out.len() == before {
            return Err(self.err(&e.span(), key, "an expectation with nothing to check: give count, is_enabled, level, any, all, source_id, filter_data_size or filter_data"));
        }
        Ok(())
    }

    fn expect_file(&self, i: usize, e: &Spanned<ExpectFile>, out: &mut Vec<Expectation>) -> R<()> {
        let d = e.get_ref();
        let path = d.path.get_ref().clone();
        let line = self.source.line(&e.span());
        let before = out.len();
        for (field, value, what) in [
            (
                FileField::Exists,
                d.exists.map(|b| Bound::Exactly(u64::from(b))),
                "exists",
            ),
            (FileField::Records, d.records.map(Bound::from), "records"),
            (
                FileField::EventsLost,
                d.events_lost.map(Bound::from),
                "EventsLost in its header",
            ),
            (FileField::Size, d.size.map(Bound::from), "size in bytes"),
        ] {
            if let Some(expected) = value {
                out.push(Expectation {
                    line,
                    what: format!("file {path}: {what}"),
                    check: Check::File {
                        path: path.clone(),
                        field,
                        expected,
                    },
                });
            }
        }
        for (cpus, list, what) in [(false, &d.ids, "event ids"), (true, &d.cpus, "CPUs")] {
            if let Some(expected) = list {
                out.push(Expectation {
                    line,
                    what: format!("file {path}: its events' {what} in order"),
                    check: Check::FileRecords {
                        path: path.clone(),
                        cpus,
                        expected: expected.clone(),
                    },
                });
            }
        }
        let key = format!("expect.file[{}]", i + 1);
        for (flag, table) in [(false, &d.extended_items), (true, &d.header_flags)] {
            let Some(table) = table else { continue };
            let (names, k, prefix, what): (&[(&str, u16)], _, _, _) = if flag {
                (
                    &HEADER_FLAGS,
                    "header_flags",
                    "EVENT_HEADER_FLAG_",
                    "header flag",
                )
            } else {
                (
                    &EXT_TYPES,
                    "extended_items",
                    "EVENT_HEADER_EXT_TYPE_",
                    "extended item",
                )
            };
            for (name, count) in table.get_ref() {
                let n = name.trim().to_ascii_uppercase();
                let n = n.strip_prefix(prefix).unwrap_or(&n);
                let bits = names
                    .iter()
                    .find(|(x, _)| *x == n)
                    .map(|(_, b)| *b)
                    .or_else(|| {
                        crate::values::parse_u64(n)
                            .and_then(|v| u16::try_from(v).ok())
                            .filter(|_| !flag)
                    })
                    .ok_or_else(|| {
                        let known: Vec<&str> = names.iter().map(|(x, _)| *x).collect();
                        self.err(
                            &table.span(),
                            format!("{key}.{k}"),
                            format!("unknown {what} {name:?} (known: {})", known.join(", ")),
                        )
                    })?;
                out.push(Expectation {
                    line,
                    what: format!("file {path}: events with the {what} {n}"),
                    check: Check::FileRecordsWith {
                        path: path.clone(),
                        flag,
                        bits,
                        expected: (*count).into(),
                    },
                });
            }
        }
        if out.len() == before {
            return Err(self.err(
                &e.span(),
                format!("expect.file[{}]", i + 1),
                "an expectation with nothing to check: give exists, records, events_lost, size, ids, cpus, extended_items or header_flags",
            ));
        }
        Ok(())
    }

    /// `count` / `at_least` / `at_most` (one of them; at least 1 when none).
    fn bound(
        &self,
        span: &Range<usize>,
        key: &str,
        count: Option<u64>,
        at_least: Option<u64>,
        at_most: Option<u64>,
    ) -> R<Bound> {
        let given: Vec<Bound> = [
            count.map(Bound::Exactly),
            at_least.map(Bound::AtLeast),
            at_most.map(Bound::AtMost),
        ]
        .into_iter()
        .flatten()
        .collect();
        match given.as_slice() {
            [] => Ok(Bound::AtLeast(1)),
            [b] => Ok(*b),
            _ => Err(self.err(span, key, "give one of count, at_least and at_most")),
        }
    }

    fn expect_kernel(
        &self,
        i: usize,
        e: &Spanned<ExpectKernel>,
        ctx: &Names<'_>,
        out: &mut Vec<Expectation>,
    ) -> R<()> {
        let key = format!("expect.kernel[{}]", i + 1);
        let d = e.get_ref();
        let session = ctx.session(self, &d.session, &format!("{key}.session"))?;
        let text = d.event.get_ref().trim();
        let (class_name, event_name) = match text.split_once('/') {
            Some((c, ev)) => (c.trim(), Some(ev.trim())),
            None => (text, None),
        };
        let bad_event = |msg: String| self.err(&d.event.span(), format!("{key}.event"), msg);
        let class = mof::class_by_name(class_name).ok_or_else(|| {
            let known: Vec<&str> = mof::classes().iter().map(|c| c.name).collect();
            bad_event(format!(
                "no kernel class {class_name:?} (known: {})",
                known.join(", ")
            ))
        })?;
        let opcode = match event_name {
            None => None,
            Some(n) => Some(match n.parse::<u8>() {
                Ok(op) => op,
                Err(_) => {
                    class
                        .event_named(n)
                        .ok_or_else(|| {
                            bad_event(format!("class {} has no event {n:?}", class.name))
                        })?
                        .opcode
                }
            }),
        };
        let policy = match &d.names {
            None => None,
            Some(p) => Some(
                match p
                    .get_ref()
                    .trim()
                    .to_ascii_lowercase()
                    .replace(['-', ' '], "_")
                    .as_str()
                {
                    "file" => Policy::File,
                    "cleanup" | "evict_at_cleanup" | "real_time" => Policy::EvictAtCleanup,
                    "close" | "evict_at_close" => Policy::EvictAtClose,
                    other => {
                        return Err(self.err(
                            &p.span(),
                            format!("{key}.names"),
                            format!("unknown name policy {other:?}: use file, cleanup or close"),
                        ));
                    }
                },
            ),
        };
        let bound = self.bound(&e.span(), &key, d.count, d.at_least, d.at_most)?;
        let mut what = format!(
            "kernel events {} in {}",
            match event_name {
                Some(ev) => format!("{}/{ev}", class.name),
                None => class.name.to_string(),
            },
            ctx.sessions[session].name
        );
        if let Some(n) = &d.file_name {
            what.push_str(&format!(" with file name \"{n}\""));
        }
        match policy {
            Some(Policy::File) => what.push_str(" (names of the whole file)"),
            Some(Policy::EvictAtCleanup) => what.push_str(" (names forgotten at Cleanup)"),
            Some(Policy::EvictAtClose) => what.push_str(" (names forgotten at Close)"),
            _ => {}
        }
        for (k, v) in &d.fields {
            what.push_str(&format!(" {k} = \"{v}\""));
        }
        out.push(Expectation {
            line: self.source.line(&e.span()),
            what,
            check: Check::Kernel {
                session,
                matcher: KernelMatch {
                    class,
                    opcode,
                    policy,
                    file_name: d.file_name.clone(),
                    fields: d
                        .fields
                        .iter()
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                },
                bound,
            },
        });
        Ok(())
    }

    fn expect_boot(
        &self,
        i: usize,
        e: &Spanned<ExpectBoot>,
        booted: bool,
        out: &mut Vec<Expectation>,
    ) -> R<()> {
        let key = format!("expect.boot[{}]", i + 1);
        let d = e.get_ref();
        if !booted {
            return Err(self.err(
                &e.span(),
                key,
                "an `[[expect.boot]]` needs a machine booted from a registry: give `[machine] registry` (or `registry_text`)",
            ));
        }
        let boot = match &d.boot {
            Some(b) if *b.get_ref() == 0 => {
                return Err(self.err(&b.span(), format!("{key}.boot"), "boots count from 1"));
            }
            b => b.as_ref().map(|b| *b.get_ref()),
        };
        let session = d.session.get_ref().trim().to_string();
        let flags = |f: &Spanned<FlagsValue>, k: &str| {
            resolve_flags(
                f.get_ref(),
                &mode_names(),
                &["EVENT_TRACE_FILE_MODE_", "EVENT_TRACE_"],
                &["_MODE"],
            )
            .map_err(|m| self.err(&f.span(), format!("{key}.{k}"), m))
        };
        let provider = d.provider.map(|g| g.0);
        let needs_provider =
            d.provider_enabled.is_some() || d.provider_level.is_some() || d.provider_any.is_some();
        if needs_provider && provider.is_none() {
            return Err(self.err(
                &e.span(),
                format!("{key}.provider"),
                "provider_enabled, provider_level and provider_any need `provider` (the GUID of a provider subkey)",
            ));
        }
        let g = provider.unwrap_or(Guid::NULL);
        let mut fields = Vec::new();
        if let Some(v) = d.started {
            fields.push(BootField::Started(v));
        }
        if let Some(v) = d.status.as_ref() {
            fields.push(BootField::Status(
                self.error_match(Some(v), false, &format!("{key}.status"))?
                    .unwrap_or(ErrorMatch::Code(0)),
            ));
        }
        if let Some(v) = &d.log_file {
            fields.push(BootField::LogFile(v.clone()));
        }
        if let Some(v) = d.file_counter {
            fields.push(BootField::FileCounter(v));
        }
        if let Some(v) = &d.note {
            fields.push(BootField::Note(v.clone()));
        }
        if let Some(f) = &d.mode_has {
            fields.push(BootField::ModeHas(flags(f, "mode_has")?));
        }
        if let Some(f) = &d.mode_lacks {
            fields.push(BootField::ModeLacks(flags(f, "mode_lacks")?));
        }
        if let Some(v) = d.provider_enabled {
            fields.push(BootField::ProviderEnabled(g, v));
        }
        if let Some(v) = d.provider_level {
            fields.push(BootField::ProviderLevel(g, v.0));
        }
        if let Some(v) = d.provider_any {
            fields.push(BootField::ProviderAny(g, v.0));
        }
        if fields.is_empty() {
            return Err(self.err(
                &e.span(),
                key,
                "an expectation with nothing to check: give started, status, log_file, file_counter, note, mode_has, mode_lacks, provider_enabled, provider_level or provider_any",
            ));
        }
        let line = self.source.line(&e.span());
        for field in fields {
            let which = boot.map_or("the last boot".to_string(), |b| format!("boot {b}"));
            let what = format!("{which}: {session}: {}", field.describe());
            out.push(Expectation {
                line,
                what,
                check: Check::Boot {
                    boot,
                    session: session.clone(),
                    field,
                },
            });
        }
        Ok(())
    }

    fn expect_journal(
        &self,
        i: usize,
        e: &Spanned<ExpectJournal>,
        ctx: &Names<'_>,
        step_names: &[&str],
        out: &mut Vec<Expectation>,
    ) -> R<()> {
        let key = format!("expect.journal[{}]", i + 1);
        let d = e.get_ref();
        let after = self.after(d.after.as_ref(), &key, step_names)?;
        let kind = JOURNAL_KINDS
            .iter()
            .find(|k| k.eq_ignore_ascii_case(d.kind.get_ref().trim()))
            .ok_or_else(|| {
                self.err(
                    &d.kind.span(),
                    format!("{key}.kind"),
                    format!(
                        "unknown journal entry kind {:?}: use {}",
                        d.kind.get_ref(),
                        JOURNAL_KINDS.join(", ")
                    ),
                )
            })?;
        let provider = match &d.provider {
            Some(p) => Some(ctx.providers[ctx.provider(self, p, &format!("{key}.provider"))?].guid),
            None => None,
        };
        if d.recorded.is_some() && *kind != "Write" {
            return Err(self.err(
                &e.span(),
                format!("{key}.recorded"),
                "`recorded` selects a Write entry's verdicts: it needs kind = \"Write\"",
            ));
        }
        let bound = self.bound(&e.span(), &key, d.count, d.at_least, d.at_most)?;
        let matcher = JournalMatch {
            kind,
            session: d.session.clone(),
            provider,
            rule: d.rule.clone(),
            recorded: d.recorded,
            counter: d.counter.clone(),
            call: d.call.clone(),
            result: d.result.clone(),
            contains: d.contains.clone(),
        };
        let mut what = match &after {
            Some(a) => format!("after step {a:?}: journal: {kind} entries"),
            None => format!("journal: {kind} entries"),
        };
        for (k, v) in [
            ("session", &d.session),
            (
                "provider",
                &d.provider.as_ref().map(|p| p.get_ref().clone()),
            ),
            ("rule", &d.rule),
            ("recorded", &d.recorded.map(|r| r.to_string())),
            ("counter", &d.counter),
            ("call", &d.call),
            ("result", &d.result),
            ("containing", &d.contains),
        ] {
            if let Some(v) = v {
                what.push_str(&format!(" {k} {v:?}"));
            }
        }
        out.push(Expectation {
            line: self.source.line(&e.span()),
            what,
            check: Check::Journal {
                matcher,
                bound,
                after,
            },
        });
        Ok(())
    }
}
