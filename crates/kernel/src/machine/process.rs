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

use crate::machine::kernel::Kernel;
use crate::machine::thread::Thread;
use crate::{Error, Result};
use bitflags::bitflags;

bitflags! {
    /// Well-known groups and accounts of a token that ETW's default security checks.
    #[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
    pub struct Groups: u32 {
        /// BUILTIN\Administrators (effective only in an elevated token).
        const ADMINISTRATORS = 0x01;
        /// BUILTIN\Performance Log Users.
        const PERFORMANCE_LOG_USERS = 0x02;
        /// NT AUTHORITY\SYSTEM (LocalSystem).
        const LOCAL_SYSTEM = 0x04;
        /// NT AUTHORITY\LOCAL SERVICE.
        const LOCAL_SERVICE = 0x08;
        /// NT AUTHORITY\NETWORK SERVICE.
        const NETWORK_SERVICE = 0x10;
    }
}

/// A simulated access token: who a process runs as.
#[doc(alias = "TOKEN")]
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    /// Account name, `DOMAIN\user` style.
    pub user: String,
    /// The user's SID in string form (put in `EVENT_HEADER_EXT_TYPE_SID` items).
    pub sid: String,
    /// Group membership.
    pub groups: Groups,
    /// Whether the token is elevated (Administrators only counts when it is).
    pub elevated: bool,
    /// Terminal-services session id (put in `EVENT_HEADER_EXT_TYPE_TS_ID` items).
    pub terminal_session: u32,
}

impl Token {
    /// `NT AUTHORITY\SYSTEM`, S-1-5-18, session 0.
    pub fn local_system() -> Token {
        Token {
            user: "NT AUTHORITY\\SYSTEM".into(),
            sid: "S-1-5-18".into(),
            groups: Groups::LOCAL_SYSTEM | Groups::ADMINISTRATORS,
            elevated: true,
            terminal_session: 0,
        }
    }

    /// `NT AUTHORITY\LOCAL SERVICE`, S-1-5-19.
    pub fn local_service() -> Token {
        Token {
            user: "NT AUTHORITY\\LOCAL SERVICE".into(),
            sid: "S-1-5-19".into(),
            groups: Groups::LOCAL_SERVICE,
            elevated: false,
            terminal_session: 0,
        }
    }

    /// `NT AUTHORITY\NETWORK SERVICE`, S-1-5-20.
    pub fn network_service() -> Token {
        Token {
            user: "NT AUTHORITY\\NETWORK SERVICE".into(),
            sid: "S-1-5-20".into(),
            groups: Groups::NETWORK_SERVICE,
            elevated: false,
            terminal_session: 0,
        }
    }

    /// An elevated member of Administrators in terminal session 1.
    pub fn administrator(name: &str) -> Token {
        Token {
            user: format!("SIM\\{name}"),
            sid: user_sid(name),
            groups: Groups::ADMINISTRATORS,
            elevated: true,
            terminal_session: 1,
        }
    }

    /// A standard user in terminal session 1, member of no special group.
    pub fn user(name: &str) -> Token {
        Token {
            user: format!("SIM\\{name}"),
            sid: user_sid(name),
            groups: Groups::empty(),
            elevated: false,
            terminal_session: 1,
        }
    }

    /// The same token with `groups` added.
    pub fn with_groups(mut self, groups: Groups) -> Token {
        self.groups |= groups;
        self
    }

    /// The same token, not elevated (an administrator's filtered token under UAC).
    pub fn unelevated(mut self) -> Token {
        self.elevated = false;
        self
    }

    /// An elevated administrator or LocalSystem.
    pub fn is_admin(&self) -> bool {
        self.groups.contains(Groups::LOCAL_SYSTEM)
            || (self.groups.contains(Groups::ADMINISTRATORS) && self.elevated)
    }

    /// May start and control sessions, enable providers and consume in real time under the
    /// default policy: administrators, Performance Log Users and the three service accounts
    /// (SES-29, SEC-03).
    pub fn may_control_sessions(&self) -> bool {
        self.is_admin()
            || self.groups.intersects(
                Groups::PERFORMANCE_LOG_USERS | Groups::LOCAL_SERVICE | Groups::NETWORK_SERVICE,
            )
    }

    /// May start or control the NT Kernel Logger: administrators and LocalSystem only (SES-29).
    pub fn may_control_kernel_logger(&self) -> bool {
        self.is_admin()
    }
}

fn user_sid(name: &str) -> String {
    // A stable, name-derived relative id so the same user always has the same SID.
    let rid = name.bytes().fold(1000u32, |h, b| {
        h.wrapping_mul(31).wrapping_add(u32::from(b))
    }) % 900_000
        + 1000;
    format!("S-1-5-21-1004336348-1177238915-682003330-{rid}")
}

/// What to create a process with.
#[derive(Clone, Debug)]
pub struct ProcessSpec {
    /// Image file name, e.g. `app.exe` (matched by EXECUTABLE_NAME filters).
    pub image_name: String,
    /// The token it runs with.
    pub token: Token,
    /// A specific PID (for reuse experiments); `None` draws the next free one.
    pub pid: Option<u32>,
    /// Store-app package full name, for PACKAGE_ID filters.
    pub package_id: Option<String>,
    /// Package-relative app id, for PACKAGE_APP_ID filters.
    pub package_app_id: Option<String>,
    /// Whether the process is marked InPrivate (EXCLUDE_INPRIVATE, FLT-11).
    pub inprivate: bool,
    /// The command line (Process events' CommandLine); `None` = the image name.
    pub command_line: Option<String>,
    /// The parent's PID (Process events' ParentId); `None` = 0.
    pub parent: Option<u32>,
}

impl ProcessSpec {
    /// A process running `image_name` as `token`.
    pub fn new(image_name: &str, token: Token) -> ProcessSpec {
        ProcessSpec {
            image_name: image_name.into(),
            token,
            pid: None,
            package_id: None,
            package_app_id: None,
            inprivate: false,
            command_line: None,
            parent: None,
        }
    }

    /// With a command line.
    pub fn command_line(mut self, command_line: &str) -> ProcessSpec {
        self.command_line = Some(command_line.into());
        self
    }

    /// Started by `parent`.
    pub fn parent(mut self, parent: &Process) -> ProcessSpec {
        self.parent = Some(parent.pid());
        self
    }

    /// With a fixed PID.
    pub fn pid(mut self, pid: u32) -> ProcessSpec {
        self.pid = Some(pid);
        self
    }

    /// With a package identity.
    pub fn package(mut self, package_id: &str, app_id: &str) -> ProcessSpec {
        self.package_id = Some(package_id.into());
        self.package_app_id = Some(app_id.into());
        self
    }

    /// Marked InPrivate.
    pub fn inprivate(mut self) -> ProcessSpec {
        self.inprivate = true;
        self
    }
}

/// The kernel's record of one process (live or exited).
#[derive(Clone, Debug)]
pub(crate) struct ProcessRecord {
    pub(crate) pid: u32,
    pub(crate) start_key: u64,
    pub(crate) image_name: String,
    pub(crate) token: Token,
    pub(crate) package_id: Option<String>,
    pub(crate) package_app_id: Option<String>,
    pub(crate) inprivate: bool,
    pub(crate) exited: bool,
    pub(crate) registrations: u32,
    pub(crate) private_sessions: u32,
    pub(crate) private_in_proc_sessions: u32,
    /// The thread writes run on when no simulated thread is entered (deterministic mode).
    pub(crate) main_thread: Option<std::sync::Arc<crate::machine::thread::ThreadState>>,
}

impl ProcessRecord {
    /// The image's file name without any folder, for EXECUTABLE_NAME matching.
    pub(crate) fn file_name(&self) -> &str {
        self.image_name
            .rsplit(['\\', '/'])
            .next()
            .unwrap_or(&self.image_name)
    }
}

/// A simulated process: a handle to a row of the kernel's process table.
///
/// Cheap to clone. Acting "as" a process — registering providers, starting sessions — is how
/// tests give a call its caller: PID for scope filters, token for access checks.
#[derive(Clone)]
pub struct Process {
    pub(crate) kernel: Kernel,
    pub(crate) start_key: u64,
    pub(crate) pid: u32,
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

    pub(crate) fn record(&self) -> ProcessRecord {
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

    /// Starts a simulated thread of this process on simulated CPU `cpu`.
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` if `cpu` is not below the kernel's CPU count or the process
    /// has exited.
    pub fn spawn_thread(&self, cpu: u16) -> Result<Thread> {
        if cpu >= self.kernel.cpu_count() {
            return Err(Error::invalid(format!(
                "CPU {cpu} does not exist (the kernel has {})",
                self.kernel.cpu_count()
            )));
        }
        let tid = self.kernel.with_state_mut(|s| {
            let rec = s.processes.get(&self.start_key)?;
            if rec.exited {
                return None;
            }
            Some(s.next_client_id())
        });
        let tid = tid.ok_or_else(|| Error::invalid(format!("process {} has exited", self.pid)))?;
        // KRN-09: Thread Start.
        self.kernel.os_thread_started(self.start_key, tid, cpu);
        Ok(Thread::new(self.clone(), tid, cpu))
    }
}
