//! The `[[expect.…]]` tables: what each expectation checks after the run (sessions'
//! counters, totals, callbacks, files, journal entries, kernel events, boots).

use super::sessions::mode_names;
use super::{ErrorMatch, Loader, MAX_EXPECTATIONS, Names, R};
use crate::file::{
    ExpectBoot, ExpectCallbacks, ExpectFile, ExpectJournal, ExpectKernel, ExpectSession,
    ExpectTotal, ScenarioFile,
};
use crate::values::{FlagsValue, resolve_flags};
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileField {
    Exists,
    Records,
    EventsLost,
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
}

#[derive(Debug)]
pub(crate) enum Check {
    Session {
        session: usize,
        field: SessionField,
        expected: u64,
    },
    Total {
        field: TotalField,
        expected: u64,
    },
    CallbackCount {
        provider: usize,
        reg: usize,
        expected: u64,
    },
    CallbackValue {
        provider: usize,
        reg: usize,
        index: Option<u64>,
        field: CallbackField,
        expected: u128,
    },
    File {
        path: String,
        field: FileField,
        expected: u64,
    },
    Journal {
        matcher: JournalMatch,
        bound: Bound,
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
    pub(super) fn expectations(&self, f: &ScenarioFile, ctx: &Names<'_>) -> R<Vec<Expectation>> {
        let mut out = Vec::new();
        for (i, e) in f.expect.session.iter().enumerate() {
            self.expect_session(i, e, ctx, &mut out)?;
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
            self.expect_journal(i, e, ctx, &mut out)?;
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

    fn expect_session(
        &self,
        i: usize,
        e: &Spanned<ExpectSession>,
        ctx: &Names<'_>,
        out: &mut Vec<Expectation>,
    ) -> R<()> {
        let key = format!("expect.session[{}]", i + 1);
        let d = e.get_ref();
        let session = ctx.session(self, &d.name, &format!("{key}.name"))?;
        let name = &ctx.sessions[session].name;
        let line = self.source.line(&e.span());
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
                "events delivered to its consumer",
            ),
        ];
        let before = out.len();
        for (field, value, what) in fields {
            if let Some(expected) = value {
                out.push(Expectation {
                    line,
                    what: format!("session {name}: {what}"),
                    check: Check::Session {
                        session,
                        field,
                        expected,
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
                    check: Check::Total { field, expected },
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
                    expected,
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
        if out.len() == before {
            return Err(self.err(&e.span(), key, "an expectation with nothing to check: give count, is_enabled, level, any, all or source_id"));
        }
        Ok(())
    }

    fn expect_file(&self, i: usize, e: &Spanned<ExpectFile>, out: &mut Vec<Expectation>) -> R<()> {
        let d = e.get_ref();
        let path = d.path.get_ref().clone();
        let line = self.source.line(&e.span());
        let before = out.len();
        for (field, value, what) in [
            (FileField::Exists, d.exists.map(u64::from), "exists"),
            (FileField::Records, d.records, "records"),
            (
                FileField::EventsLost,
                d.events_lost,
                "EventsLost in its header",
            ),
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
        if out.len() == before {
            return Err(self.err(
                &e.span(),
                format!("expect.file[{}]", i + 1),
                "an expectation with nothing to check: give exists, records or events_lost",
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
                self.error_match(Some(v)).unwrap_or(ErrorMatch::Code(0)),
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
        out: &mut Vec<Expectation>,
    ) -> R<()> {
        let key = format!("expect.journal[{}]", i + 1);
        let d = e.get_ref();
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
        let mut what = format!("journal: {kind} entries");
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
            check: Check::Journal { matcher, bound },
        });
        Ok(())
    }
}
