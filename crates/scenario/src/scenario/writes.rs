//! The `write` step: which registration and thread writes, the event descriptor (from the
//! step, else the provider's manifest), the payload, and the count against the budget.

use super::providers::ProvKind;
use super::steps::Budget;
use super::{Loader, MAX_PAYLOAD, Names, ProcRef, R};
use crate::file::StepDef;
use crate::values::LevelValue;
use etwsim::{Channel, EventDescriptor, Guid, Keyword, Level, Opcode, Task};
use std::ops::Range;
use std::time::Duration;
use toml::Spanned;

#[derive(Debug, Clone, Copy)]
pub(crate) enum ThreadSel {
    Main,
    Cpu(u16),
    Named(usize),
}

#[derive(Debug)]
pub(crate) enum Payload {
    Size(u32),
    Bytes(Vec<u8>),
}

#[derive(Debug)]
pub(crate) struct WriteSpec {
    pub provider: usize,
    pub reg: usize,
    pub process: ProcRef,
    pub thread: ThreadSel,
    pub descriptor: EventDescriptor,
    pub count: u64,
    pub every: Option<Duration>,
    pub payload: Payload,
    pub string: Option<String>,
    pub inprivate: bool,
    pub filter_mask: u64,
    pub activity_id: Option<Guid>,
    pub related_activity_id: Option<Guid>,
    /// A TraceLogging event's name (TraceLoggingWrite).
    pub event_name: Option<String>,
}

impl Loader {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn write(
        &self,
        key: &str,
        table: &Range<usize>,
        pname: &Spanned<String>,
        d: &StepDef,
        ctx: &Names<'_>,
        cpus: u16,
        budget: &mut Budget,
    ) -> R<WriteSpec> {
        let provider = ctx.provider(self, pname, &format!("{key}.write"))?;
        let p = &ctx.providers[provider];
        let (reg, process) = match &d.process {
            Some(name) => {
                let r = self.proc_ref(name, &format!("{key}.process"), ctx.processes)?;
                let reg = p.regs.iter().position(|x| *x == r).ok_or_else(|| {
                    self.err(
                        &name.span(),
                        format!("{key}.process"),
                        format!(
                            "provider {:?} is not registered in process {:?}",
                            p.name,
                            name.get_ref()
                        ),
                    )
                })?;
                (reg, r)
            }
            None if p.regs.len() == 1 => (0, p.regs[0]),
            None => {
                return Err(self.err(
                    &pname.span(),
                    format!("{key}.process"),
                    format!("provider {:?} is registered in {} processes: say which writes with `process`", p.name, p.regs.len()),
                ));
            }
        };
        let thread = match (&d.cpu, &d.thread) {
            (Some(c), None) => {
                if *c.get_ref() >= cpus {
                    return Err(self.err(
                        &c.span(),
                        format!("{key}.cpu"),
                        format!(
                            "CPU {} does not exist: the machine has {cpus} (0 to {})",
                            c.get_ref(),
                            cpus - 1
                        ),
                    ));
                }
                ThreadSel::Cpu(*c.get_ref())
            }
            (None, Some(t)) => {
                let threads = process.map_or(&[][..], |i| &ctx.processes[i].threads[..]);
                let idx = threads.iter().position(|(n, _)| n == t.get_ref()).ok_or_else(|| {
                    self.err(
                        &t.span(),
                        format!("{key}.thread"),
                        format!("the writing process has no thread named {:?} (declare it in its `threads`)", t.get_ref()),
                    )
                })?;
                ThreadSel::Named(idx)
            }
            (None, None) => ThreadSel::Main,
            (Some(c), Some(_)) => {
                return Err(self.err(
                    &c.span(),
                    format!("{key}.cpu"),
                    "give `cpu` or `thread`, not both",
                ));
            }
        };
        let id = d.id.unwrap_or(0);
        let version = d.version.unwrap_or(0);
        let from_manifest = p.manifest.as_ref().and_then(|m| m.event(id, version));
        let keyword = match &d.keyword {
            Some(k) => self.keyword(k.get_ref(), &k.span(), &format!("{key}.keyword"), Some(p))?,
            None => from_manifest.map_or(0, |e| e.keywords),
        };
        let descriptor = EventDescriptor {
            id,
            version,
            channel: Channel(d.channel.or(from_manifest.map(|e| e.channel)).unwrap_or(0)),
            level: Level(
                d.level
                    .map(|l: LevelValue| l.0)
                    .or(from_manifest.map(|e| e.level))
                    .unwrap_or(Level::INFORMATION.0),
            ),
            opcode: Opcode(d.opcode.or(from_manifest.map(|e| e.opcode)).unwrap_or(0)),
            task: Task(d.task.or(from_manifest.map(|e| e.task)).unwrap_or(0)),
            keyword: Keyword(keyword),
        };
        let payloads = [
            d.payload_size.is_some(),
            d.payload_text.is_some(),
            d.payload_utf16.is_some(),
            d.payload_hex.is_some(),
            d.string.is_some(),
        ];
        if payloads.iter().filter(|x| **x).count() > 1 {
            return Err(self.err(
                &pname.span(),
                key,
                "give one of payload_size, payload_text, payload_utf16, payload_hex and string",
            ));
        }
        let payload = if let Some(n) = d.payload_size {
            if n > MAX_PAYLOAD {
                return Err(self.err(
                    table,
                    format!("{key}.payload_size"),
                    format!("at most {MAX_PAYLOAD} bytes"),
                ));
            }
            Payload::Size(n)
        } else if let Some(t) = &d.payload_text {
            Payload::Bytes(t.as_bytes().to_vec())
        } else if let Some(t) = &d.payload_utf16 {
            Payload::Bytes(
                t.encode_utf16()
                    .chain(std::iter::once(0))
                    .flat_map(u16::to_le_bytes)
                    .collect(),
            )
        } else if let Some(h) = &d.payload_hex {
            Payload::Bytes(self.hex(h.get_ref(), &h.span(), &format!("{key}.payload_hex"))?)
        } else {
            Payload::Bytes(Vec::new())
        };
        if d.string.is_some()
            && (d.id.is_some() || d.inprivate.is_some() || d.filter_mask.is_some())
        {
            return Err(self.err(
                &pname.span(),
                key,
                "a `string` write is EventWriteString: id 0, and no inprivate or filter_mask",
            ));
        }
        if d.string.is_some() && (d.activity_id.is_some() || d.related_activity_id.is_some()) {
            return Err(self.err(
                &pname.span(),
                key,
                "a `string` write is EventWriteString, which takes no activity ID",
            ));
        }
        if let Some(n) = &d.event_name {
            if p.kind != ProvKind::TraceLogging {
                return Err(self.err(
                    &n.span(),
                    format!("{key}.event_name"),
                    format!("`event_name` writes a TraceLogging event: provider {:?} needs `kind = \"tracelogging\"`", p.name),
                ));
            }
            if n.get_ref().is_empty() || n.get_ref().contains('\0') {
                return Err(self.err(
                    &n.span(),
                    format!("{key}.event_name"),
                    "a TraceLogging event's name is a non-empty string without NUL",
                ));
            }
            if d.string.is_some() || d.inprivate.is_some() || d.filter_mask.is_some() {
                return Err(self.err(
                    &n.span(),
                    format!("{key}.event_name"),
                    "a TraceLogging write takes no `string`, `inprivate` or `filter_mask`",
                ));
            }
        }
        let mut descriptor = descriptor;
        if d.event_name.is_some() && d.channel.is_none() {
            // TraceLogging's channel (EVT-27).
            descriptor.channel = Channel(11);
        }
        if p.kind == ProvKind::Classic {
            let extra = [
                ("string", d.string.is_some()),
                ("inprivate", d.inprivate.is_some()),
                ("filter_mask", d.filter_mask.is_some()),
                ("activity_id", d.activity_id.is_some()),
                ("related_activity_id", d.related_activity_id.is_some()),
            ]
            .into_iter()
            .find(|(_, set)| *set);
            if let Some((k, _)) = extra {
                return Err(self.err(
                    &self.key_span(table, k),
                    format!("{key}.{k}"),
                    format!(
                        "provider {:?} is classic: its writes are TraceEvent, which takes no `{k}`",
                        p.name
                    ),
                ));
            }
        }
        let count = d.count.unwrap_or(1);
        if count == 0 {
            return Err(self.err(table, format!("{key}.count"), "count must be at least 1"));
        }
        budget
            .writes(count)
            .map_err(|m| self.err(table, format!("{key}.count"), m))?;
        let every = d.every.map(|e| e.0);
        if let Some(e) = every {
            budget
                .time(e, count)
                .map_err(|m| self.err(table, format!("{key}.every"), m))?;
        }
        Ok(WriteSpec {
            provider,
            reg,
            process,
            thread,
            descriptor,
            count,
            every,
            payload,
            string: d.string.clone(),
            inprivate: d.inprivate.unwrap_or(false),
            filter_mask: d.filter_mask.map_or(0, |n| n.0),
            activity_id: d.activity_id.map(|g| g.0),
            related_activity_id: d.related_activity_id.map(|g| g.0),
            event_name: d.event_name.as_ref().map(|n| n.get_ref().clone()),
        })
    }
}
