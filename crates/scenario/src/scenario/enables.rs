//! The `[[enable]]` tables (and `enable` steps): level, keywords (by number or by the
//! manifest's names), EnableProperty, and the event filters that go with them.

use super::{Loader, Names, ProcRef, ProvSpec, R};
use crate::file::{EnableDef, FilterDef, NameFilterDef};
use crate::values::{KeywordPart, KeywordValue, PidValue, resolve_flags};
use etwsim::{ControlCode, EnableProperty, EventFilter, Guid, Keyword, Level, NameFilter};
use std::ops::Range;
use toml::Spanned;

#[derive(Debug)]
pub(crate) struct EnableSpec {
    pub session: usize,
    /// The provider, or `None` for a provider group (`group`, PRV-36).
    pub provider: Option<usize>,
    /// EnableTraceEx2's ProviderId: the provider's GUID or the group's.
    pub guid: Guid,
    /// EnableTraceEx2's ControlCode: ENABLE_PROVIDER, or CAPTURE_STATE (PRV-27).
    pub code: ControlCode,
    pub level: u8,
    pub any: u64,
    pub all: u64,
    pub properties: EnableProperty,
    pub source_id: Guid,
    pub filters: Vec<FilterSpec>,
}

#[derive(Debug)]
pub(crate) enum FilterSpec {
    Ready(EventFilter),
    /// A PID filter naming processes: their PIDs are known once they run.
    Pids(Vec<PidRef>),
}

#[derive(Debug)]
pub(crate) enum PidRef {
    Pid(u32),
    Process(ProcRef),
}

fn property_names() -> Vec<(&'static str, u32)> {
    EnableProperty::all()
        .iter_names()
        .map(|(n, f)| (n, f.bits()))
        .collect()
}

impl Loader {
    pub(super) fn keyword(
        &self,
        kv: &KeywordValue,
        span: &Range<usize>,
        key: &str,
        provider: Option<&ProvSpec>,
    ) -> R<u64> {
        let mut mask = 0u64;
        for part in &kv.0 {
            match part {
                KeywordPart::Mask(m) => mask |= m,
                KeywordPart::Name(n) => {
                    let Some(provider) = provider else {
                        return Err(self.err(
                            span,
                            key,
                            format!("keyword name {n:?}: a provider group has no manifest (give a number)"),
                        ));
                    };
                    let Some(m) = &provider.manifest else {
                        return Err(self.err(
                            span,
                            key,
                            format!(
                                "keyword name {n:?}: names come from a manifest, and provider {:?} has none (give a number)",
                                provider.name
                            ),
                        ));
                    };
                    mask |= m.keyword(n).ok_or_else(|| {
                        let known: Vec<&str> = m.keywords.iter().map(|k| k.name.as_str()).collect();
                        self.err(
                            span,
                            key,
                            format!(
                                "the manifest of {:?} has no keyword {n:?} (it has: {})",
                                provider.name,
                                known.join(", ")
                            ),
                        )
                    })?;
                }
            }
        }
        Ok(mask)
    }

    pub(super) fn enable(&self, key: &str, e: &EnableDef, ctx: &Names<'_>) -> R<EnableSpec> {
        let session = ctx.session(self, &e.session, &format!("{key}.session"))?;
        let (provider, guid) = match (&e.provider, &e.group) {
            (Some(p), None) => {
                let i = ctx.provider(self, p, &format!("{key}.provider"))?;
                (Some(i), ctx.providers[i].guid)
            }
            (None, Some(g)) => (None, g.get_ref().0),
            (Some(p), Some(_)) => {
                return Err(self.err(
                    &p.span(),
                    format!("{key}.provider"),
                    "give `provider` or `group`, not both",
                ));
            }
            (None, None) => {
                return Err(self.err(
                    &e.session.span(),
                    format!("{key}.provider"),
                    "an enable needs `provider` (or `group`, a provider group's GUID)",
                ));
            }
        };
        let p = provider.map(|i| &ctx.providers[i]);
        let any = match &e.any {
            Some(a) => self.keyword(a.get_ref(), &a.span(), &format!("{key}.any"), p)?,
            None => 0,
        };
        let all = match &e.all {
            Some(a) => self.keyword(a.get_ref(), &a.span(), &format!("{key}.all"), p)?,
            None => 0,
        };
        let properties = match &e.properties {
            Some(f) => EnableProperty::from_bits_retain(
                resolve_flags(
                    f.get_ref(),
                    &property_names(),
                    &["EVENT_ENABLE_PROPERTY_"],
                    &[],
                )
                .map_err(|m| self.err(&f.span(), format!("{key}.properties"), m))?,
            ),
            None => EnableProperty::empty(),
        };
        if let Some(g) = &e.group {
            if !properties.contains(EnableProperty::PROVIDER_GROUP) {
                return Err(self.err(
                    &g.span(),
                    format!("{key}.group"),
                    "a group is enabled with `properties = [\"PROVIDER_GROUP\"]` (PRV-36): give it",
                ));
            }
        }
        let filters = match &e.filter {
            Some(f) => self.filters(f.get_ref(), &f.span(), &format!("{key}.filter"), p, ctx)?,
            None => Vec::new(),
        };
        Ok(EnableSpec {
            session,
            provider,
            guid,
            code: ControlCode::EnableProvider,
            level: e.level.map_or(0, |l| l.0),
            any,
            all,
            properties,
            source_id: e.source_id.map_or(Guid::NULL, |g| g.0),
            filters,
        })
    }

    fn name_filter(
        &self,
        n: &NameFilterDef,
        span: &Range<usize>,
        key: &str,
        p: Option<&ProvSpec>,
    ) -> R<NameFilter> {
        Ok(NameFilter {
            match_any: Keyword(match &n.any {
                Some(a) => self.keyword(a, span, &format!("{key}.any"), p)?,
                None => 0,
            }),
            match_all: Keyword(match &n.all {
                Some(a) => self.keyword(a, span, &format!("{key}.all"), p)?,
                None => 0,
            }),
            level: Level(n.level.map_or(0, |l| l.0)),
            filter_in: n.filter_in,
            names: n.names.clone(),
        })
    }

    pub(super) fn hex(&self, text: &str, span: &Range<usize>, key: &str) -> R<Vec<u8>> {
        let digits: String = text
            .chars()
            .filter(|c| !c.is_whitespace() && *c != ':' && *c != '-')
            .collect();
        let digits = digits.strip_prefix("0x").unwrap_or(&digits).to_string();
        if digits.len() % 2 != 0 || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(self.err(
                span,
                key,
                "hex bytes are pairs of hex digits (\"01 02 ff\"), spaces allowed",
            ));
        }
        Ok((0..digits.len())
            .step_by(2)
            .filter_map(|i| u8::from_str_radix(&digits[i..i + 2], 16).ok())
            .collect())
    }

    pub(super) fn filters(
        &self,
        f: &FilterDef,
        span: &Range<usize>,
        key: &str,
        p: Option<&ProvSpec>,
        ctx: &Names<'_>,
    ) -> R<Vec<FilterSpec>> {
        let mut out = Vec::new();
        if let Some(pids) = &f.pids {
            let mut refs = Vec::new();
            for v in pids {
                refs.push(match v {
                    PidValue::Pid(n) => PidRef::Pid(*n),
                    PidValue::Process(name) => PidRef::Process(self.proc_ref(
                        &Spanned::new(span.clone(), name.clone()),
                        &format!("{key}.pids"),
                        ctx.processes,
                    )?),
                });
            }
            out.push(FilterSpec::Pids(refs));
        }
        let ready = |f: EventFilter| FilterSpec::Ready(f);
        if let Some(s) = &f.executable {
            out.push(ready(EventFilter::ExecutableName(s.clone())));
        }
        if let Some(s) = &f.package_id {
            out.push(ready(EventFilter::PackageId(s.clone())));
        }
        if let Some(s) = &f.package_app_id {
            out.push(ready(EventFilter::PackageAppId(s.clone())));
        }
        if let Some(ids) = &f.event_ids {
            out.push(ready(EventFilter::EventId {
                filter_in: true,
                ids: ids.clone(),
            }));
        }
        if let Some(ids) = &f.exclude_event_ids {
            out.push(ready(EventFilter::EventId {
                filter_in: false,
                ids: ids.clone(),
            }));
        }
        if let Some(n) = &f.event_names {
            out.push(ready(EventFilter::EventName(self.name_filter(
                n,
                span,
                &format!("{key}.event_names"),
                p,
            )?)));
        }
        if let Some(ids) = &f.stackwalk_ids {
            out.push(ready(EventFilter::Stackwalk {
                filter_in: true,
                ids: ids.clone(),
            }));
        }
        if let Some(ids) = &f.exclude_stackwalk_ids {
            out.push(ready(EventFilter::Stackwalk {
                filter_in: false,
                ids: ids.clone(),
            }));
        }
        if let Some(n) = &f.stackwalk_names {
            out.push(ready(EventFilter::StackwalkName(self.name_filter(
                n,
                span,
                &format!("{key}.stackwalk_names"),
                p,
            )?)));
        }
        if let Some(l) = &f.stackwalk_level_kw {
            let k = format!("{key}.stackwalk_level_kw");
            out.push(ready(EventFilter::StackwalkLevelKw {
                match_any: Keyword(match &l.any {
                    Some(a) => self.keyword(a, span, &format!("{k}.any"), p)?,
                    None => 0,
                }),
                match_all: Keyword(match &l.all {
                    Some(a) => self.keyword(a, span, &format!("{k}.all"), p)?,
                    None => 0,
                }),
                level: Level(l.level.map_or(0, |v| v.0)),
                filter_in: l.filter_in,
            }));
        }
        if let Some(h) = &f.payload {
            out.push(ready(EventFilter::Payload(self.hex(
                h,
                span,
                &format!("{key}.payload"),
            )?)));
        }
        if let Some(h) = &f.schematized {
            out.push(ready(EventFilter::Schematized(self.hex(
                h,
                span,
                &format!("{key}.schematized"),
            )?)));
        }
        if let Some(h) = f.trace_handle {
            out.push(ready(EventFilter::TraceHandle(h.0)));
        }
        Ok(out)
    }
}
