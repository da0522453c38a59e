//! The `[[process]]` tables: each process's name, token, image, parent and named threads;
//! and how any table names a process (or the System process).

use super::{Loader, ProcRef, R, SYSTEM_PROCESS, span_of};
use crate::file::ProcessDef;
use etwsim::{ProcessSpec, Token};
use toml::Spanned;

#[derive(Debug)]
pub(crate) struct ProcSpec {
    pub line: usize,
    pub name: String,
    pub spec: ProcessSpec,
    pub threads: Vec<(String, u16)>,
    /// Spawned at the start (and again after each reboot); `false`: by a `spawn` step.
    pub autostart: bool,
    /// The parent process (an earlier `[[process]]`), given to the spawn.
    pub parent: Option<usize>,
}

impl Loader {
    pub(super) fn process(
        &self,
        i: usize,
        p: &Spanned<ProcessDef>,
        cpus: u16,
        before: &[Spanned<ProcessDef>],
    ) -> R<ProcSpec> {
        let key = format!("process[{}]", i + 1);
        let d = p.get_ref();
        let name = d.name.get_ref().trim().to_string();
        if name.is_empty() || name.eq_ignore_ascii_case(SYSTEM_PROCESS) {
            return Err(self.err(
                &d.name.span(),
                format!("{key}.name"),
                format!("a process needs a name other than {SYSTEM_PROCESS:?} (which names the kernel's System process)"),
            ));
        }
        if before
            .iter()
            .any(|b| b.get_ref().name.get_ref().trim() == name)
        {
            return Err(self.err(
                &d.name.span(),
                format!("{key}.name"),
                format!("a second process named {name:?}"),
            ));
        }
        let account = d.account.clone().unwrap_or_else(|| name.clone());
        let token_name = d
            .token
            .as_ref()
            .map_or("user".to_string(), |t| t.get_ref().to_ascii_lowercase());
        let mut token = match token_name.as_str() {
            "user" => Token::user(&account),
            "admin" | "administrator" => Token::administrator(&account),
            "system" | "local_system" => Token::local_system(),
            "local_service" => Token::local_service(),
            "network_service" => Token::network_service(),
            other => {
                let span = d.token.as_ref().map_or(p.span(), span_of);
                return Err(self.err(
                    &span,
                    format!("{key}.token"),
                    format!("unknown token {other:?}: use user, admin, system, local_service or network_service"),
                ));
            }
        };
        if d.elevated == Some(false) {
            token = token.unelevated();
        }
        let image = d.image.clone().unwrap_or_else(|| name.clone());
        let mut spec = ProcessSpec::new(&image, token);
        if let Some(pid) = d.pid {
            spec = spec.pid(pid);
        }
        match (&d.package_id, &d.package_app_id) {
            (None, None) => {}
            (id, app) => {
                spec = spec.package(
                    id.as_deref().unwrap_or_default(),
                    app.as_deref().unwrap_or_default(),
                );
            }
        }
        if d.inprivate {
            spec = spec.inprivate();
        }
        if let Some(cl) = &d.command_line {
            spec = spec.command_line(cl);
        }
        let autostart = d.autostart.unwrap_or(true);
        let parent = match &d.parent {
            None => None,
            Some(p) => {
                let n = p.get_ref().trim();
                let Some(at) = before
                    .iter()
                    .position(|b| b.get_ref().name.get_ref().trim() == n)
                else {
                    return Err(self.err(
                        &p.span(),
                        format!("{key}.parent"),
                        format!("no earlier process named {n:?}: a parent is declared before its children"),
                    ));
                };
                if autostart && before[at].get_ref().autostart == Some(false) {
                    return Err(self.err(
                        &p.span(),
                        format!("{key}.parent"),
                        format!("{n:?} is spawned by a step, so a process spawned at the start cannot be its child: give this one `autostart = false` and a `spawn` step"),
                    ));
                }
                Some(at)
            }
        };
        let mut threads: Vec<(String, u16)> = Vec::new();
        for (j, t) in d.threads.iter().enumerate() {
            let td = t.get_ref();
            let tkey = format!("{key}.threads[{}]", j + 1);
            if *td.cpu.get_ref() >= cpus {
                return Err(self.err(
                    &td.cpu.span(),
                    format!("{tkey}.cpu"),
                    format!(
                        "CPU {} does not exist: the machine has {cpus} (0 to {})",
                        td.cpu.get_ref(),
                        cpus - 1
                    ),
                ));
            }
            if threads.iter().any(|(n, _)| *n == td.name) {
                return Err(self.err(
                    &t.span(),
                    tkey,
                    format!("a second thread named {:?}", td.name),
                ));
            }
            threads.push((td.name.clone(), *td.cpu.get_ref()));
        }
        Ok(ProcSpec {
            line: self.source.line(&p.span()),
            name,
            spec,
            threads,
            autostart,
            parent,
        })
    }

    pub(super) fn proc_ref(
        &self,
        name: &Spanned<String>,
        key: &str,
        processes: &[ProcSpec],
    ) -> R<ProcRef> {
        let n = name.get_ref().trim();
        if n.eq_ignore_ascii_case(SYSTEM_PROCESS) {
            return Ok(None);
        }
        processes
            .iter()
            .position(|p| p.name == n)
            .map(Some)
            .ok_or_else(|| {
                self.err(
                    &name.span(),
                    key,
                    format!("no process named {n:?} (declare it in a [[process]] table, or use {SYSTEM_PROCESS:?})"),
                )
            })
    }
}
