//! Simulated processes, threads and their security tokens.
//!
//! ETW looks at the writer's process for scope filters (PID, executable name, package —
//! FLT-16, FLT-17), at the caller's token for access checks (SES-29, SEC-03, SEC-04), and at
//! the writer's thread for TID, CPU and activity ID. None of this touches real OS processes:
//! a [`Process`] is a row in the kernel's process table.
//!
//! Process and thread IDs are multiples of 4 drawn from one counter, as Windows' client-ID
//! table does; process start keys (FLT-11) never repeat within a kernel's lifetime, so a
//! process that exits and comes back with the same PID is a different process.

use crate::api::kernel::Kernel;
use crate::machine::process::ProcessSpec;
use crate::machine::process::{ProcessRecord, Token};
use crate::{Error, Result};

impl ProcessSpec {
    /// Started by `parent`.
    pub fn parent(mut self, parent: &Process) -> ProcessSpec {
        self.parent = Some(parent.pid());
        self
    }
}

/// A simulated process: a handle to a row of the kernel's process table.
///
/// Cheap to clone. Acting "as" a process — registering providers, starting sessions — is how
/// tests give a call its caller: PID for scope filters, token for access checks.
#[derive(Clone)]
pub struct Process {
    pub(in crate::api) kernel: Kernel,
    pub(in crate::api) start_key: u64,
    pub(in crate::api) pid: u32,
}

impl std::fmt::Debug for Process {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Process")
            .field("pid", &self.pid)
            .field("start_key", &self.start_key)
            .finish()
    }
}

impl Process {
    /// The process id.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The process start key: unique for the kernel's lifetime, unlike the PID (FLT-11).
    pub fn start_key(&self) -> u64 {
        self.start_key
    }

    /// The kernel this process lives in.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    pub(in crate::api) fn record(&self) -> ProcessRecord {
        self.kernel
            .with_state(|s| s.processes.get(&self.start_key).cloned())
            .expect("a Process handle always names a row of its kernel's table")
    }

    /// The image name it was started with.
    pub fn image_name(&self) -> String {
        self.record().image_name
    }

    /// Its token.
    pub fn token(&self) -> Token {
        self.record().token
    }

    /// Whether the process is marked InPrivate (dropped by EXCLUDE_INPRIVATE sessions, FLT-11).
    pub fn is_inprivate(&self) -> bool {
        self.record().inprivate
    }

    /// `true` once [`Process::exit`] ran.
    pub fn has_exited(&self) -> bool {
        self.record().exited
    }

    /// Ends the process: its provider registrations go away (as EventUnregister would, with
    /// no callback, PRV-08), its private sessions stop; sessions it started stay running and
    /// providers it enabled stay enabled (SES-16, PRV-25).
    pub fn exit(&self) {
        self.exit_with(0);
    }

    /// [`exit`](Self::exit) with an exit status: its open files are closed, its threads end,
    /// its images unload, and Process End carries `exit_status` (KRN-09, KRN-27).
    pub fn exit_with(&self, exit_status: i32) {
        self.kernel.exit_process(self.start_key, exit_status);
    }
}

impl Kernel {
    /// The System process (PID 4, LocalSystem): the default caller of control operations.
    pub fn system_process(&self) -> Process {
        Process {
            kernel: self.clone(),
            start_key: self.inner.system.0,
            pid: self.inner.system.1,
        }
    }

    /// Starts a simulated process.
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` for an empty image name or a PID that is not a free
    /// non-zero multiple of 4.
    pub fn spawn_process(&self, spec: ProcessSpec) -> Result<Process> {
        if spec
            .command_line
            .as_deref()
            .is_some_and(|c| c.contains('\0'))
            || spec.image_name.contains('\0')
        {
            return Err(Error::invalid("an image name or command line holds a NUL"));
        }
        let (start_key, pid) = self.with_state_mut(|s| s.processes.add_process(spec.clone()))?;
        // KRN-09: Process Start, in the OS tables and to the sessions that want it.
        self.os_process_started(start_key, &spec, pid);
        Ok(Process {
            kernel: self.clone(),
            start_key,
            pid,
        })
    }

    /// Shorthand: a process running `image_name` as `token`.
    ///
    /// # Errors
    /// As [`Kernel::spawn_process`].
    pub fn spawn(&self, image_name: &str, token: Token) -> Result<Process> {
        self.spawn_process(ProcessSpec::new(image_name, token))
    }

    /// The live process with this PID, if any.
    pub fn process(&self, pid: u32) -> Option<Process> {
        let key = self.with_state(|s| s.processes.live_key(pid))?;
        Some(Process {
            kernel: self.clone(),
            start_key: key,
            pid,
        })
    }
}
