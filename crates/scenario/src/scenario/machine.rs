//! The `[machine]` table: the kernel's builder (CPUs, seed, limits, disk, journal) and the
//! registry a machine boots from.

use super::{
    DEFAULT_JOURNAL_CAPACITY, Loader, MAX_JOURNAL_CAPACITY, MAX_MACHINE_BUFFER_BYTES,
    MAX_REGISTRY_BYTES, MAX_SESSION_BUFFER_BYTES, R, span_of,
};
use crate::file::ScenarioFile;
use crate::files::{read_capped, size_text};
use etwsim::KernelBuilder;
use etwsim::registry::{ImportOptions, Registry};

impl Loader {
    /// `[machine] registry` (a `.reg` file beside the scenario) or `registry_text`, imported
    /// strictly: any line not imported as written is an error.
    pub(super) fn registry(&self, f: &ScenarioFile) -> R<Option<Registry>> {
        let m = &f.machine;
        let (bytes, span, key, shown) = match (&m.registry, &m.registry_text) {
            (None, None) => return Ok(None),
            (Some(_), Some(t)) => {
                return Err(self.err(
                    &t.span(),
                    "machine.registry_text",
                    "give `registry` (a .reg file) or `registry_text`, not both",
                ));
            }
            (Some(path), None) => {
                let full = self.base_dir.join(path.get_ref());
                let bytes = read_capped(&full, MAX_REGISTRY_BYTES).map_err(|e| {
                    self.err(
                        &path.span(),
                        "machine.registry",
                        format!("cannot read registry file {}: {e}", full.display()),
                    )
                })?;
                (
                    bytes,
                    path.span(),
                    "machine.registry",
                    full.display().to_string(),
                )
            }
            (None, Some(t)) => (
                t.get_ref().as_bytes().to_vec(),
                t.span(),
                "machine.registry_text",
                "registry_text".to_string(),
            ),
        };
        let mut registry = Registry::new();
        match registry.import_reg_with(&bytes, &ImportOptions::strict()) {
            Ok(report) if !report.imported() => Err(self.err(
                &span,
                key,
                format!("{shown}: its header says nothing is to be imported (REG-04)"),
            )),
            Ok(_) => Ok(Some(registry)),
            Err(e) => Err(self.err(&span, key, format!("{shown}: {e}"))),
        }
    }

    pub(super) fn machine(&self, f: &ScenarioFile) -> R<(KernelBuilder, u16)> {
        let m = &f.machine;
        let seed = m.seed.map_or(1, |n| n.0);
        let cpus = m.cpus.as_ref().map_or(4, |c| *c.get_ref());
        let mut b = etwsim::Kernel::builder().deterministic(seed).cpus(cpus);
        if let Some(n) = m.max_loggers {
            b = b.max_loggers(n);
        }
        if let Some(n) = m.default_buffer_size_kb {
            b = b.default_buffer_size_kb(n);
        }
        if let Some(n) = m.max_buffers_cap {
            b = b.max_buffers_cap(n);
        }
        if let Some(n) = m.disk_free_bytes {
            b = b.disk_free_bytes(n.0);
        }
        if let Some(n) = m.max_session_buffer_bytes {
            if n.0 > MAX_SESSION_BUFFER_BYTES {
                let at = self.section_span("machine").unwrap_or(0..0);
                return Err(self.err(
                    &at,
                    "machine.max_session_buffer_bytes",
                    format!("at most {MAX_SESSION_BUFFER_BYTES} bytes (1 GiB) in a scenario"),
                ));
            }
            b = b.max_session_buffer_bytes(n.0);
        }
        let machine_bytes = m
            .max_machine_buffer_bytes
            .map_or(MAX_MACHINE_BUFFER_BYTES, |n| n.0);
        if machine_bytes > MAX_MACHINE_BUFFER_BYTES {
            let at = self.section_span("machine").unwrap_or(0..0);
            return Err(self.err(
                &at,
                "machine.max_machine_buffer_bytes",
                format!(
                    "at most {MAX_MACHINE_BUFFER_BYTES} bytes ({}) in a scenario",
                    size_text(MAX_MACHINE_BUFFER_BYTES)
                ),
            ));
        }
        b = b.max_machine_buffer_bytes(machine_bytes);
        if let Some(d) = m.event_tick {
            b = b.event_tick((d.0.as_nanos() / 100) as u64);
        }
        if let Some(n) = m.realtime_backlog_buffers {
            b = b.realtime_backlog_buffers(n);
        }
        if let Some(n) = m.consumer_queue_buffers {
            b = b.consumer_queue_buffers(n);
        }
        if let Some(n) = m.drain_bandwidth {
            b = b.drain_bandwidth(n.0);
        }
        if let Some(n) = m.disk_capacity {
            b = b.disk(etwsim::Disk::Virtual(etwsim::VirtualDisk::with_capacity(
                n.0,
            )));
        }
        let cap = m.journal_capacity.unwrap_or(DEFAULT_JOURNAL_CAPACITY);
        if cap > MAX_JOURNAL_CAPACITY {
            let at = self.section_span("machine").unwrap_or(0..0);
            return Err(self.err(
                &at,
                "machine.journal_capacity",
                format!("at most {MAX_JOURNAL_CAPACITY} entries"),
            ));
        }
        b = b.journal(cap as usize);
        // KernelBuilder::build is the one judge of the machine's values.
        if let Err(e) = b.clone().build() {
            let span = m.cpus.as_ref().map_or(0..0, span_of);
            let at = self.section_span("machine").unwrap_or(span);
            return Err(self.err(
                &at,
                "machine",
                format!("the kernel refuses this machine: {e}"),
            ));
        }
        Ok((b, cpus))
    }
}
