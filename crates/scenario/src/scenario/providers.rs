//! The `[[provider]]` tables: each provider's name, GUID, the processes that register it,
//! and the instrumentation manifest that describes it.

use super::{Loader, MAX_MANIFEST_BYTES, ProcRef, ProcSpec, R};
use crate::file::ProviderDef;
use crate::files::read_capped;
use etwsim::Guid;
use etwsim_decode::manifest::{self, Manifest};
use toml::Spanned;

#[derive(Debug)]
pub(crate) struct ProvSpec {
    pub line: usize,
    pub name: String,
    pub guid: Guid,
    pub manifest: Option<manifest::Provider>,
    pub regs: Vec<ProcRef>,
    pub kind: ProvKind,
    /// The provider group it joins (its traits' group, PRV-36).
    pub group: Option<Guid>,
}

/// How a provider registers and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProvKind {
    /// EventRegister; EventWrite (manifest-based, or no metadata at all).
    Manifest,
    /// TraceLoggingRegister (EventRegister, then its traits with its name); writes may be
    /// TraceLogging events with a name (`event_name`).
    TraceLogging,
    /// RegisterTraceGuids; TraceEvent into the session that enabled it (PRV-22).
    Classic,
}

impl Loader {
    pub(super) fn provider(
        &self,
        i: usize,
        p: &Spanned<ProviderDef>,
        processes: &[ProcSpec],
        before: &[ProvSpec],
    ) -> R<ProvSpec> {
        let key = format!("provider[{}]", i + 1);
        let d = p.get_ref();
        let name = d.name.get_ref().trim().to_string();
        if name.is_empty() {
            return Err(self.err(
                &d.name.span(),
                format!("{key}.name"),
                "a provider needs a name",
            ));
        }
        if before.iter().any(|b| b.name == name) {
            return Err(self.err(
                &d.name.span(),
                format!("{key}.name"),
                format!("a second provider named {name:?}"),
            ));
        }
        let manifest = match &d.manifest {
            None => {
                if let Some(mp) = &d.manifest_provider {
                    return Err(self.err(
                        &mp.span(),
                        format!("{key}.manifest_provider"),
                        "manifest_provider needs a manifest",
                    ));
                }
                None
            }
            Some(path) => {
                Some(self.manifest_provider(&key, path, d.manifest_provider.as_ref(), &name)?)
            }
        };
        let guid = match (d.guid, &manifest) {
            (Some(g), Some(m)) if g.0 != m.guid => {
                return Err(self.err(
                    &p.span(),
                    format!("{key}.guid"),
                    format!(
                        "guid {} differs from the manifest's {} for {:?}",
                        g.0, m.guid, m.name
                    ),
                ));
            }
            (Some(g), _) => g.0,
            (None, Some(m)) => m.guid,
            (None, None) => Guid::from_provider_name(&name),
        };
        if guid == Guid::NULL {
            return Err(self.err(
                &p.span(),
                format!("{key}.guid"),
                "GUID_NULL cannot be registered",
            ));
        }
        if before.iter().any(|b| b.guid == guid) {
            return Err(self.err(
                &p.span(),
                format!("{key}.guid"),
                format!("provider {name:?} has the GUID {guid} of an earlier provider"),
            ));
        }
        let regs = match (&d.process, &d.processes) {
            (Some(one), None) => vec![self.proc_ref(one, &format!("{key}.process"), processes)?],
            (None, Some(list)) => {
                let mut regs = Vec::new();
                for n in list.get_ref() {
                    let s = Spanned::new(list.span(), n.clone());
                    let r = self.proc_ref(&s, &format!("{key}.processes"), processes)?;
                    if regs.contains(&r) {
                        return Err(self.err(
                            &list.span(),
                            format!("{key}.processes"),
                            format!("process {n:?} is listed twice"),
                        ));
                    }
                    regs.push(r);
                }
                if regs.is_empty() {
                    return Err(self.err(
                        &list.span(),
                        format!("{key}.processes"),
                        "an empty list",
                    ));
                }
                regs
            }
            (Some(one), Some(_)) => {
                return Err(self.err(
                    &one.span(),
                    format!("{key}.process"),
                    "give `process` or `processes`, not both",
                ));
            }
            (None, None) => {
                return Err(self.err(
                    &d.name.span(),
                    key,
                    "a provider needs the process that registers it: `process = \"app\"` (or `processes = [...]`)",
                ));
            }
        };
        let kind = match &d.kind {
            None => ProvKind::Manifest,
            Some(k) => match k.get_ref().trim().to_ascii_lowercase().as_str() {
                "manifest" | "eventregister" => ProvKind::Manifest,
                "tracelogging" => ProvKind::TraceLogging,
                "classic" | "registertraceguids" => ProvKind::Classic,
                other => {
                    return Err(self.err(
                        &k.span(),
                        format!("{key}.kind"),
                        format!("unknown kind {other:?}: use \"manifest\" (the default), \"tracelogging\" or \"classic\""),
                    ));
                }
            },
        };
        let group = d.group.map(|g| g.0);
        if group.is_some() && kind == ProvKind::Classic {
            return Err(self.err(
                &p.span(),
                format!("{key}.group"),
                "a classic provider has no traits, so no group: groups are for EventRegister providers (PRV-36)",
            ));
        }
        if group == Some(Guid::NULL) {
            return Err(self.err(&p.span(), format!("{key}.group"), "GUID_NULL is no group"));
        }
        Ok(ProvSpec {
            line: self.source.line(&p.span()),
            name,
            guid,
            manifest,
            regs,
            kind,
            group,
        })
    }

    fn manifest_provider(
        &self,
        key: &str,
        path: &Spanned<String>,
        which: Option<&Spanned<String>>,
        name: &str,
    ) -> R<manifest::Provider> {
        let full = self.base_dir.join(path.get_ref());
        let bytes = read_capped(&full, MAX_MANIFEST_BYTES).map_err(|e| {
            self.err(
                &path.span(),
                format!("{key}.manifest"),
                format!("cannot read manifest {}: {e}", full.display()),
            )
        })?;
        let m: Manifest = manifest::load_manifest(&bytes).map_err(|e| {
            self.err(
                &path.span(),
                format!("{key}.manifest"),
                format!("manifest {}: {e}", full.display()),
            )
        })?;
        let found = match which {
            Some(w) => {
                let wanted = w.get_ref().trim();
                let by_guid = wanted.parse::<Guid>().ok();
                m.providers
                    .iter()
                    .find(|p| p.name == wanted || Some(p.guid) == by_guid)
                    .ok_or_else(|| {
                        self.err(
                            &w.span(),
                            format!("{key}.manifest_provider"),
                            format!("the manifest has no provider {wanted:?}"),
                        )
                    })?
            }
            None => match m.provider_named(name) {
                Some(p) => p,
                None if m.providers.len() == 1 => &m.providers[0],
                None => {
                    return Err(self.err(
                        &path.span(),
                        format!("{key}.manifest"),
                        format!(
                            "the manifest has {} providers and none named {name:?}: say which with manifest_provider",
                            m.providers.len()
                        ),
                    ));
                }
            },
        };
        Ok(found.clone())
    }
}
