//! Installed instrumentation manifests (`wevtutil im` / `wevtutil um`) and the payload
//! filters built against them (`TdhCreatePayloadFilter`, FLT-18).
//!
//! A payload filter names a manifest event and fields of its template, so building one
//! needs the provider's manifest: on Windows TDH reads the installed publisher's metadata;
//! here [`Kernel::install_manifest`] puts a parsed [`Manifest`]'s providers in the kernel's
//! table and [`Kernel::create_payload_filter`] (or the [`PayloadFilterBuilder`] of
//! [`Kernel::payload_filter`]) looks the event up there. The filter it returns carries the
//! event's template, as Windows's compiled filter carries its payload decoder, so the event
//! path evaluates it without the table: uninstalling a manifest does not change what an
//! enabled session filters.
//!
//! ```
//! use etwsim_decode::manifest::filter::{AggregateFilter, PayloadOperator};
//! use etwsim_decode::manifest::load_manifest;
//! use etwsim_kernel::{EnableParams, EventFilter, Kernel};
//! use etwsim_types::{EventDescriptor, Keyword, Level};
//!
//! let xml = r#"<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
//!  <instrumentation><events>
//!   <provider name="Demo" guid="{3e4f2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b}" symbol="DEMO">
//!    <templates><template tid="T"><data name="Size" inType="win:UInt32"/></template></templates>
//!    <events><event value="1" version="0" level="win:Informational" template="T"/></events>
//!   </provider>
//!  </events></instrumentation>
//! </instrumentationManifest>"#;
//! let k = Kernel::builder().deterministic(1).build()?;
//! k.install_manifest(&load_manifest(xml.as_bytes()).unwrap())?;
//! let guid = "{3e4f2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b}".parse().unwrap();
//! let read = EventDescriptor::new(1, Level::INFORMATION, Keyword(0));
//! let big = k
//!     .payload_filter(guid, &read)
//!     .field("Size", PayloadOperator::Gt, 100)
//!     .build()?;
//! let filter = EventFilter::payload(&AggregateFilter::new(vec![(big, false)]).unwrap());
//! let s = k.session("s").start()?;
//! s.enable(guid, &EnableParams::new().filter(filter))?;
//! # Ok::<(), etwsim_kernel::Error>(())
//! ```

use crate::control::filter::MAX_EVENT_FILTER_PAYLOAD_SIZE;
use crate::machine::kernel::Kernel;
use crate::{Error, Result};
use etwsim_decode::manifest::filter::{AggregateFilter, PayloadFilter, PayloadOperator, Predicate};
use etwsim_decode::manifest::{Manifest, Provider as ManifestProvider};
use etwsim_types::{EventDescriptor, Guid, Win32Error};
use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

/// `ERROR_NOT_FOUND` (1168): TdhCreatePayloadFilter's "the schema information for the
/// provider could not be found".
const ERROR_NOT_FOUND: Win32Error = Win32Error(1168);

/// One kernel's installed providers, by GUID (`KernelInner::manifests`).
pub(crate) type ManifestTable = BTreeMap<Guid, Arc<ManifestProvider>>;

impl Kernel {
    fn manifest_table(&self) -> &RwLock<ManifestTable> {
        &self.inner.manifests
    }

    /// `wevtutil im`: installs the providers of `manifest`, replacing an earlier install of
    /// the same provider GUID.
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` for a manifest without providers or with two providers of
    /// one GUID (nothing is installed then).
    pub fn install_manifest(&self, manifest: &Manifest) -> Result<()> {
        if manifest.providers.is_empty() {
            return Err(Error::invalid("the manifest defines no provider"));
        }
        for (i, p) in manifest.providers.iter().enumerate() {
            if manifest.providers[..i].iter().any(|q| q.guid == p.guid) {
                return Err(Error::invalid(format!(
                    "the manifest defines provider {} twice",
                    p.guid
                )));
            }
        }
        let table = self.manifest_table();
        let mut t = table.write().unwrap_or_else(|e| e.into_inner());
        for p in &manifest.providers {
            t.insert(p.guid, Arc::new(p.clone()));
        }
        Ok(())
    }

    /// `wevtutil um`: removes the providers of `manifest`; returns how many were installed.
    pub fn uninstall_manifest(&self, manifest: &Manifest) -> usize {
        let table = self.manifest_table();
        let mut t = table.write().unwrap_or_else(|e| e.into_inner());
        manifest
            .providers
            .iter()
            .filter(|p| t.remove(&p.guid).is_some())
            .count()
    }

    /// The installed manifest provider with GUID `guid`.
    pub fn installed_provider(&self, guid: Guid) -> Option<Arc<ManifestProvider>> {
        let table = self.manifest_table();
        let t = table.read().unwrap_or_else(|e| e.into_inner());
        t.get(&guid).cloned()
    }

    /// The GUIDs of every installed manifest provider, in order.
    pub fn installed_providers(&self) -> Vec<Guid> {
        let table = self.manifest_table();
        let t = table.read().unwrap_or_else(|e| e.into_inner());
        t.keys().copied().collect()
    }

    /// `TdhCreatePayloadFilter(ProviderGuid, EventDescriptor, EventMatchANY,
    /// PayloadPredicateCount, PayloadPredicates, &PayloadFilter)`: a filter on the payload of
    /// one manifest event of an installed provider (FLT-18). The event is found by the
    /// descriptor's Id and Version (DEC-17).
    ///
    /// # Errors
    /// `ERROR_NOT_FOUND` when no installed manifest has the provider or the event (the
    /// project's reading of TDH's "schema information … could not be found";
    /// `ERROR_FILE_NOT_FOUND`, the provider's metadata file missing, cannot happen here);
    /// `ERROR_INVALID_PARAMETER` for 0 or more than 8 predicates, a field that is not a
    /// top-level field of the template, an operator that does not suit the field's type or a
    /// value that does not suit the operator; `ERROR_INSUFFICIENT_BUFFER` when the filter
    /// would not fit in `MAX_EVENT_FILTER_PAYLOAD_SIZE` (4,096 bytes).
    pub fn create_payload_filter(
        &self,
        provider: Guid,
        descriptor: &EventDescriptor,
        match_any: bool,
        predicates: &[Predicate],
    ) -> Result<PayloadFilter> {
        let not_found = |what: String| Error::Other {
            code: ERROR_NOT_FOUND,
            context: what,
        };
        let p = self
            .installed_provider(provider)
            .ok_or_else(|| not_found(format!("no installed manifest has provider {provider}")))?;
        let event = p.event(descriptor.id, descriptor.version).ok_or_else(|| {
            not_found(format!(
                "the manifest of {} has no event {} version {}",
                p.name, descriptor.id, descriptor.version
            ))
        })?;
        let filter = PayloadFilter::new(&p, event, match_any, predicates)
            .map_err(|e| Error::invalid(e.to_string()))?;
        let size = AggregateFilter::new(vec![(filter.clone(), false)])
            .map_err(|e| Error::invalid(e.to_string()))?
            .to_bytes()
            .len();
        if size > MAX_EVENT_FILTER_PAYLOAD_SIZE {
            return Err(Error::Other {
                code: Win32Error::ERROR_INSUFFICIENT_BUFFER,
                context: format!(
                    "the payload filter takes {size} bytes, more than \
                     MAX_EVENT_FILTER_PAYLOAD_SIZE ({MAX_EVENT_FILTER_PAYLOAD_SIZE})"
                ),
            });
        }
        Ok(filter)
    }

    /// A [`PayloadFilterBuilder`] for event `descriptor` (its Id and Version) of `provider`.
    pub fn payload_filter(
        &self,
        provider: Guid,
        descriptor: &EventDescriptor,
    ) -> PayloadFilterBuilder {
        PayloadFilterBuilder {
            kernel: self.clone(),
            provider,
            descriptor: *descriptor,
            match_any: false,
            predicates: Vec::new(),
        }
    }
}

/// Builds a payload filter predicate by predicate, then creates it as
/// [`Kernel::create_payload_filter`] does (TdhCreatePayloadFilter with
/// `PAYLOAD_FILTER_PREDICATE`s).
#[doc(alias = "PAYLOAD_FILTER_PREDICATE")]
#[derive(Clone, Debug)]
#[must_use = "a builder does nothing until build() is called"]
pub struct PayloadFilterBuilder {
    kernel: Kernel,
    provider: Guid,
    descriptor: EventDescriptor,
    match_any: bool,
    predicates: Vec<Predicate>,
}

impl PayloadFilterBuilder {
    /// Adds a predicate: `FieldName`, `CompareOp` and `Value` (the value's text: one number,
    /// `"low,high"` for BETWEEN / NOTBETWEEN, or a string).
    pub fn field(mut self, name: &str, op: PayloadOperator, value: impl ToString) -> Self {
        self.predicates
            .push(Predicate::new(name, op, value.to_string()));
        self
    }

    /// `EventMatchANY = TRUE`: the event passes when any predicate holds (by default all
    /// must).
    pub fn match_any(mut self) -> Self {
        self.match_any = true;
        self
    }

    /// Creates the filter.
    ///
    /// # Errors
    /// As [`Kernel::create_payload_filter`].
    pub fn build(self) -> Result<PayloadFilter> {
        self.kernel.create_payload_filter(
            self.provider,
            &self.descriptor,
            self.match_any,
            &self.predicates,
        )
    }
}
