//! Who a process is: its security token and the kernel's record of it (the process table's
//! rows). The [`Process`](crate::Process) handle callers hold is an entry point (`api`).

use crate::{Error, Result};
use bitflags::bitflags;
use etwsim_types::Sid;
use std::collections::{BTreeMap, HashMap};

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
    /// The user's SID (put in `EVENT_HEADER_EXT_TYPE_SID` items and the kernel's process
    /// events, checked against security descriptors).
    pub sid: Sid,
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
            sid: Sid::local_system(),
            groups: Groups::LOCAL_SYSTEM | Groups::ADMINISTRATORS,
            elevated: true,
            terminal_session: 0,
        }
    }

    /// `NT AUTHORITY\LOCAL SERVICE`, S-1-5-19.
    pub fn local_service() -> Token {
        Token {
            user: "NT AUTHORITY\\LOCAL SERVICE".into(),
            sid: Sid::local_service(),
            groups: Groups::LOCAL_SERVICE,
            elevated: false,
            terminal_session: 0,
        }
    }

    /// `NT AUTHORITY\NETWORK SERVICE`, S-1-5-20.
    pub fn network_service() -> Token {
        Token {
            user: "NT AUTHORITY\\NETWORK SERVICE".into(),
            sid: Sid::network_service(),
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

fn user_sid(name: &str) -> Sid {
    // A stable, name-derived relative id so the same user always has the same SID.
    let rid = name.bytes().fold(1000u32, |h, b| {
        h.wrapping_mul(31).wrapping_add(u32::from(b))
    }) % 900_000
        + 1000;
    Sid::domain_account([1_004_336_348, 1_177_238_915, 682_003_330], rid)
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

/// The process table (the client-ID table's part ETW reads): every process ever started, by
/// start key, and the live ones by PID.
pub(crate) struct ProcessTable {
    /// Every process ever started, by start key.
    rows: BTreeMap<u64, ProcessRecord>,
    /// PID → start key of the live process with that PID.
    live_pids: HashMap<u32, u64>,
    next_client_id: u32,
    next_start_key: u64,
}

impl Default for ProcessTable {
    fn default() -> ProcessTable {
        ProcessTable {
            rows: BTreeMap::new(),
            live_pids: HashMap::new(),
            next_client_id: 8,
            next_start_key: 1,
        }
    }
}

impl ProcessTable {
    /// The process started with `key`, live or exited.
    pub(crate) fn get(&self, key: &u64) -> Option<&ProcessRecord> {
        self.rows.get(key)
    }

    /// The process started with `key`, to change.
    pub(crate) fn get_mut(&mut self, key: &u64) -> Option<&mut ProcessRecord> {
        self.rows.get_mut(key)
    }

    /// The start key of the live process with this PID.
    pub(crate) fn live_key(&self, pid: u32) -> Option<u64> {
        self.live_pids.get(&pid).copied()
    }

    /// The process `key` has exited: marked so, and its PID is free again. Returns its PID,
    /// or `None` when it had already exited (or never was).
    pub(crate) fn mark_exited(&mut self, key: u64) -> Option<u32> {
        let p = self.rows.get_mut(&key).filter(|p| !p.exited)?;
        p.exited = true;
        let pid = p.pid;
        self.live_pids.remove(&pid);
        Some(pid)
    }

    /// Every process ever started, in start order.
    pub(crate) fn values(&self) -> impl Iterator<Item = &ProcessRecord> {
        self.rows.values()
    }

    /// The id [`State::next_client_id`] will hand out next, without taking it.
    pub(crate) fn peek_client_id(&self) -> u32 {
        let mut id = self.next_client_id;
        while self.live_pids.contains_key(&id) {
            id = id.wrapping_add(4).max(8);
        }
        id
    }

    /// The next free process or thread id (multiples of 4).
    pub(crate) fn next_client_id(&mut self) -> u32 {
        loop {
            let id = self.next_client_id;
            self.next_client_id = self.next_client_id.wrapping_add(4).max(8);
            if !self.live_pids.contains_key(&id) {
                return id;
            }
        }
    }

    pub(crate) fn add_process(&mut self, spec: ProcessSpec) -> Result<(u64, u32)> {
        if spec.image_name.is_empty() {
            return Err(Error::invalid("a process needs an image name"));
        }
        let pid = match spec.pid {
            Some(p) if p == 0 || p % 4 != 0 => {
                return Err(Error::invalid(format!(
                    "PID {p}: PIDs are non-zero multiples of 4"
                )));
            }
            Some(p) if self.live_pids.contains_key(&p) => {
                return Err(Error::invalid(format!("PID {p} belongs to a live process")));
            }
            Some(p) => p,
            None => self.next_client_id(),
        };
        let key = self.next_start_key;
        self.next_start_key += 1;
        self.rows.insert(
            key,
            ProcessRecord {
                pid,
                start_key: key,
                image_name: spec.image_name,
                token: spec.token,
                package_id: spec.package_id,
                package_app_id: spec.package_app_id,
                inprivate: spec.inprivate,
                exited: false,
                registrations: 0,
                private_sessions: 0,
                private_in_proc_sessions: 0,
                main_thread: None,
            },
        );
        self.live_pids.insert(pid, key);
        Ok((key, pid))
    }
}
