//! What an administrator sets on the machine, as kernel entry points: security descriptors
//! (EventAccessControl, `control::security`), installed manifests (`wevtutil im`,
//! `control::manifests`) and session notifications (`control::notify`).

use crate::Result;
use crate::api::kernel::Kernel;
use crate::api::process::Process;
use crate::control::manifests::ManifestTable;
use crate::control::notify::SESSION_NOTIFICATION_GUID;
use crate::control::notify::SessionNotification;
use crate::control::notify::notification_payload;
use crate::control::security::EventSecurityOperation;
use crate::control::security::SecurityTable;
use crate::control::security::default_descriptor;
use crate::control::state::State;
use crate::data::properties::SessionProperties;
use crate::error::Error;
use crate::filter::MAX_EVENT_FILTER_PAYLOAD_SIZE;
use etwsim_decode::manifest::Manifest;
use etwsim_decode::manifest::Provider as ManifestProvider;
use etwsim_decode::manifest::filter::AggregateFilter;
use etwsim_decode::manifest::filter::PayloadFilter;
use etwsim_decode::manifest::filter::PayloadOperator;
use etwsim_decode::manifest::filter::Predicate;
use etwsim_registry::Ace;
use etwsim_registry::AceBody;
use etwsim_registry::AceType;
use etwsim_registry::Acl;
use etwsim_registry::SecurityDescriptor;
use etwsim_registry::Sid;
use etwsim_registry::security::AccessMask;
use etwsim_types::EventDescriptor;
use etwsim_types::Guid;
use etwsim_types::Keyword;
use etwsim_types::Level;
use etwsim_types::Win32Error;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::RwLock;
impl Kernel {
    /// `EventAccessControl`: edits the descriptor of a session or provider GUID (SEC-07). The
    /// starting point is the GUID's stored descriptor, else the default one
    /// ([`default_descriptor`]). `allow` is ignored for the SACL operations.
    ///
    /// The caller must be an elevated administrator or LocalSystem: the descriptors are kept in
    /// `HKLM\…\WMI\Security` (simulator choice; the page does not name the right).
    ///
    /// # Errors
    /// `ERROR_ACCESS_DENIED` as above; `ERROR_INVALID_PARAMETER` for an exited caller. Nothing
    /// changes on error.
    #[doc(alias = "EventAccessControl")]
    pub fn event_access_control(
        &self,
        caller: &Process,
        guid: Guid,
        operation: EventSecurityOperation,
        sid: &Sid,
        rights: AccessMask,
        allow: bool,
    ) -> Result<()> {
        self.control(|s: &mut State| {
            let token = s.live_process(caller.start_key)?.token.clone();
            s.check_write_dac(&token, guid)?;
            let mut sd = s
                .security
                .get(&guid)
                .cloned()
                .unwrap_or_else(default_descriptor);
            let audit = Ace {
                ace_type: AceType::SYSTEM_AUDIT,
                flags: etwsim_registry::AceFlags::SUCCESSFUL_ACCESS
                    | etwsim_registry::AceFlags::FAILED_ACCESS,
                body: AceBody::MaskAndSid {
                    mask: rights,
                    sid: sid.clone(),
                },
            };
            let dacl_ace = if allow {
                Ace::allow(sid.clone(), rights)
            } else {
                Ace::deny(sid.clone(), rights)
            };
            match operation {
                EventSecurityOperation::SetDacl => sd.dacl = Some(Acl::new(vec![dacl_ace])),
                EventSecurityOperation::SetSacl => sd.sacl = Some(Acl::new(vec![audit])),
                EventSecurityOperation::AddDacl => {
                    let mut aces = sd.dacl.take().map(|a| a.aces).unwrap_or_default();
                    if allow {
                        aces.push(dacl_ace);
                    } else {
                        aces.insert(0, dacl_ace);
                    }
                    sd.dacl = Some(Acl::new(aces));
                }
                EventSecurityOperation::AddSacl => {
                    let mut aces = sd.sacl.take().map(|a| a.aces).unwrap_or_default();
                    aces.push(audit);
                    sd.sacl = Some(Acl::new(aces));
                }
            }
            s.security.insert(guid, sd);
            Ok(((), Vec::new()))
        })
    }

    /// `EventAccessQuery`: the descriptor of `guid` — its own, else DefaultTraceSecurityGuid's,
    /// else the default policy's ([`default_descriptor`]) (SEC-07).
    #[doc(alias = "EventAccessQuery")]
    pub fn event_access_query(&self, guid: Guid) -> SecurityDescriptor {
        self.with_state(|s| s.descriptor_for(guid).cloned())
            .unwrap_or_else(default_descriptor)
    }

    /// `EventAccessRemove`: deletes `guid`'s stored descriptor, so the defaults apply again
    /// (SEC-07). Removing a GUID without one succeeds and changes nothing.
    ///
    /// # Errors
    /// As [`Kernel::event_access_control`].
    #[doc(alias = "EventAccessRemove")]
    pub fn event_access_remove(&self, caller: &Process, guid: Guid) -> Result<()> {
        self.control(|s: &mut State| {
            let token = s.live_process(caller.start_key)?.token.clone();
            s.check_write_dac(&token, guid)?;
            s.security.remove(&guid);
            Ok(((), Vec::new()))
        })
    }

    /// Every stored descriptor, by GUID (what `HKLM\…\WMI\Security` holds).
    pub fn security_descriptors(&self) -> BTreeMap<Guid, SecurityDescriptor> {
        self.with_state(|s| s.security.clone())
    }

    /// Replaces the stored descriptors (boot loads them from the registry, SEC-08).
    pub(crate) fn load_security(&self, table: SecurityTable) {
        self.control(|s: &mut State| {
            s.security = table;
            Ok(((), Vec::new()))
        })
        .unwrap_or(());
    }
}

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
        // TdhCreatePayloadFilter's "the schema information for the provider could not be
        // found".
        let not_found = |what: String| Error::Other {
            code: Win32Error::ERROR_NOT_FOUND,
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

impl Kernel {
    /// Sends `kind` about the session `props` when some session has enabled the session
    /// notification provider; nothing otherwise (and nothing for private sessions).
    pub(in crate::api) fn notify_session(
        &self,
        kind: SessionNotification,
        props: &SessionProperties,
        status: u32,
    ) {
        if props.is_private {
            return;
        }
        let wanted = self.with_state(|s| {
            s.providers
                .get(&SESSION_NOTIFICATION_GUID)
                .is_some_and(|e| e.slots.iter().any(Option::is_some))
        });
        if !wanted {
            return;
        }
        let Ok(provider) = self
            .system_process()
            .register_provider(SESSION_NOTIFICATION_GUID)
        else {
            return;
        };
        let payload = notification_payload(props, status);
        let descriptor = EventDescriptor::new(kind as u16, Level::INFORMATION, Keyword(0));
        let _ = provider.write(&descriptor, &[&payload]);
        let _ = provider.unregister();
    }
}

/// Builds a payload filter predicate by predicate, then creates it as
/// [`Kernel::create_payload_filter`] does (TdhCreatePayloadFilter with
/// `PAYLOAD_FILTER_PREDICATE`s).
#[doc(alias = "PAYLOAD_FILTER_PREDICATE")]
#[derive(Clone, Debug)]
#[must_use = "a builder does nothing until build() is called"]
pub struct PayloadFilterBuilder {
    pub(in crate::api) kernel: Kernel,
    pub(in crate::api) provider: Guid,
    pub(in crate::api) descriptor: EventDescriptor,
    pub(in crate::api) match_any: bool,
    pub(in crate::api) predicates: Vec<Predicate>,
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
