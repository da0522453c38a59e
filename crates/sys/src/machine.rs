//! The process-wide simulated machine behind the C functions.
//!
//! The first call of any exported function boots one [`Kernel`] (threaded unless
//! [`etwsim_set_deterministic`] was called first) and spawns one simulated [`Process`] for
//! the calling OS process, with the token and image name the `etwsim_set_*` functions chose
//! (an elevated administrator running the executable's file name by default). Every C call
//! runs as that process through its [`Win32`] face; the kernel maps each OS thread to a
//! simulated thread of the process. Log files go to the host's file system, in either mode.
//!
//! The configuration functions work only before that first use: afterwards they return
//! `ERROR_ALREADY_INITIALIZED` and change nothing.

use crate::abi::{PCSTR, WIN32_ERROR};
use crate::strings;
use etwsim::win32::Win32;
use etwsim::{Disk, Groups, Kernel, Process, ProcessSpec, Token, Win32Error};
use parking_lot::Mutex;
use std::cell::Cell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// `ERROR_ALREADY_INITIALIZED` (winerror.h): a configuration call after the machine booted.
pub const ERROR_ALREADY_INITIALIZED: u32 = 1247;

/// [`etwsim_set_process_token`]: an elevated member of Administrators (the default).
pub const ETWSIM_TOKEN_ADMINISTRATOR: u32 = 0;
/// A standard user, member of no special group: may write events, not control sessions.
pub const ETWSIM_TOKEN_USER: u32 = 1;
/// `NT AUTHORITY\SYSTEM`.
pub const ETWSIM_TOKEN_LOCAL_SYSTEM: u32 = 2;
/// `NT AUTHORITY\LOCAL SERVICE`.
pub const ETWSIM_TOKEN_LOCAL_SERVICE: u32 = 3;
/// `NT AUTHORITY\NETWORK SERVICE`.
pub const ETWSIM_TOKEN_NETWORK_SERVICE: u32 = 4;
/// A standard user in the Performance Log Users group.
pub const ETWSIM_TOKEN_PERFORMANCE_LOG_USER: u32 = 5;
/// An administrator's filtered (not elevated) token under UAC.
pub const ETWSIM_TOKEN_UNELEVATED_ADMINISTRATOR: u32 = 6;

/// What the machine boots with.
struct Config {
    seed: Option<u64>,
    cpus: Option<u16>,
    token: u32,
    image_name: Option<String>,
}

static CONFIG: Mutex<Config> = Mutex::new(Config {
    seed: None,
    cpus: None,
    token: ETWSIM_TOKEN_ADMINISTRATOR,
    image_name: None,
});
/// Set (under the `CONFIG` lock) once the machine is being built: configuration is closed.
static BOOTED: AtomicBool = AtomicBool::new(false);
static MACHINE: OnceLock<Result<Machine, u32>> = OnceLock::new();

thread_local! {
    /// What `GetLastError` returns on this thread.
    static LAST_ERROR: Cell<u32> = const { Cell::new(0) };
}

/// The simulated machine and the calling process's view of it.
pub(crate) struct Machine {
    pub(crate) kernel: Kernel,
    pub(crate) process: Process,
    pub(crate) win32: Win32,
    /// State the C functions keep beside the face (callback contexts, classic providers,
    /// strings lent to callers).
    pub(crate) extra: crate::state::Extra,
}

fn token(kind: u32) -> Token {
    match kind {
        ETWSIM_TOKEN_USER => Token::user("user"),
        ETWSIM_TOKEN_LOCAL_SYSTEM => Token::local_system(),
        ETWSIM_TOKEN_LOCAL_SERVICE => Token::local_service(),
        ETWSIM_TOKEN_NETWORK_SERVICE => Token::network_service(),
        ETWSIM_TOKEN_PERFORMANCE_LOG_USER => {
            Token::user("user").with_groups(Groups::PERFORMANCE_LOG_USERS)
        }
        ETWSIM_TOKEN_UNELEVATED_ADMINISTRATOR => Token::administrator("admin").unelevated(),
        _ => Token::administrator("admin"),
    }
}

/// The executable's file name, as the simulated process's image name.
fn default_image_name() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "app.exe".to_owned())
}

fn boot(config: &Config) -> Result<Machine, u32> {
    let mut builder = Kernel::builder().disk(Disk::Real);
    if let Some(seed) = config.seed {
        builder = builder.deterministic(seed);
    }
    if let Some(cpus) = config.cpus {
        builder = builder.cpus(cpus);
    }
    let code = |e: etwsim::Error| e.win32_code().code();
    let kernel = builder.build().map_err(code)?;
    let image = config.image_name.clone().unwrap_or_else(default_image_name);
    let process = kernel
        .spawn_process(ProcessSpec::new(&image, token(config.token)))
        .map_err(code)?;
    Ok(Machine::new(kernel, process))
}

impl Machine {
    /// `process` on `kernel`, with nothing registered in the C layer yet: the booted machine,
    /// and the fuzz target's, one per input.
    pub(crate) fn new(kernel: Kernel, process: Process) -> Machine {
        let win32 = Win32::new(&process);
        Machine {
            kernel,
            process,
            win32,
            extra: crate::state::Extra::default(),
        }
    }
}

/// The machine, booted on first use; `Err` holds the code every call then returns.
pub(crate) fn machine() -> Result<&'static Machine, u32> {
    MACHINE
        .get_or_init(|| {
            let config = CONFIG.lock();
            BOOTED.store(true, Ordering::SeqCst);
            boot(&config)
        })
        .as_ref()
        .map_err(|&e| e)
}

/// The simulated machine's kernel, for inspection from Rust (sessions, snapshots, the
/// process table). Boots the machine if no C function has yet.
///
/// # Errors
/// The Win32 code of the boot failure (the configuration was refused by the engine).
pub fn try_kernel() -> Result<&'static Kernel, u32> {
    machine().map(|m| &m.kernel)
}

/// The simulated process the calling OS process is.
///
/// # Errors
/// As [`try_kernel`].
pub fn try_process() -> Result<&'static Process, u32> {
    machine().map(|m| &m.process)
}

/// The simulated machine's kernel, for inspection from Rust.
///
/// # Panics
/// If the machine could not boot, which the `etwsim_set_*` functions' own checks rule out
/// (they refuse every value the engine would); [`try_kernel`] returns the code instead.
pub fn kernel() -> &'static Kernel {
    match try_kernel() {
        Ok(k) => k,
        Err(code) => panic!("the simulated machine did not boot: Win32 error {code}"),
    }
}

/// Runs `f` on the configuration if the machine has not booted yet.
fn configure(f: impl FnOnce(&mut Config) -> u32) -> u32 {
    let mut config = CONFIG.lock();
    if BOOTED.load(Ordering::SeqCst) {
        return ERROR_ALREADY_INITIALIZED;
    }
    f(&mut config)
}

/// `etwsim_set_deterministic(Seed)`: boot the machine in deterministic mode (virtual clock,
/// no logger threads, GUIDs from `seed`). Logger work then happens only in ControlTrace
/// (FLUSH, STOP), [`etwsim_run_pending`] and [`etwsim_advance_ms`].
///
/// Returns `ERROR_SUCCESS`, or `ERROR_ALREADY_INITIALIZED` after the first ETW call.
#[unsafe(no_mangle)]
pub extern "C" fn etwsim_set_deterministic(seed: u64) -> WIN32_ERROR {
    crate::ffi_guard(Win32Error::ERROR_INVALID_FUNCTION.code(), || {
        configure(|c| {
            c.seed = Some(seed);
            0
        })
    })
}

/// `etwsim_set_cpu_count(Count)`: the number of simulated logical processors (1…256,
/// default 4). `ERROR_INVALID_PARAMETER` outside that range, `ERROR_ALREADY_INITIALIZED`
/// after the first ETW call.
#[unsafe(no_mangle)]
pub extern "C" fn etwsim_set_cpu_count(count: u32) -> WIN32_ERROR {
    crate::ffi_guard(Win32Error::ERROR_INVALID_FUNCTION.code(), || {
        configure(|c| match u16::try_from(count) {
            Ok(n) if (1..=256).contains(&n) => {
                c.cpus = Some(n);
                0
            }
            _ => Win32Error::ERROR_INVALID_PARAMETER.code(),
        })
    })
}

/// `etwsim_set_process_token(Kind)`: who the calling process runs as, one of the
/// `ETWSIM_TOKEN_*` values. `ERROR_INVALID_PARAMETER` for another value,
/// `ERROR_ALREADY_INITIALIZED` after the first ETW call.
#[unsafe(no_mangle)]
pub extern "C" fn etwsim_set_process_token(kind: u32) -> WIN32_ERROR {
    crate::ffi_guard(Win32Error::ERROR_INVALID_FUNCTION.code(), || {
        configure(|c| {
            if kind > ETWSIM_TOKEN_UNELEVATED_ADMINISTRATOR {
                return Win32Error::ERROR_INVALID_PARAMETER.code();
            }
            c.token = kind;
            0
        })
    })
}

/// `etwsim_set_image_name(Name)`: the image name of the calling process (what
/// EVENT_FILTER_TYPE_EXECUTABLE_NAME filters match), an ANSI string of 1…260 characters.
/// `ERROR_INVALID_PARAMETER` for NULL or an empty or longer name,
/// `ERROR_ALREADY_INITIALIZED` after the first ETW call.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn etwsim_set_image_name(name: PCSTR) -> WIN32_ERROR {
    crate::ffi_guard(Win32Error::ERROR_INVALID_FUNCTION.code(), || {
        // SAFETY: the caller passes NULL or a NUL-terminated string.
        let name = unsafe { strings::name(name.cast(), strings::Encoding::Ansi) };
        configure(|c| match name {
            Some(Ok(n)) if !n.is_empty() && n.chars().count() <= 260 => {
                c.image_name = Some(n);
                0
            }
            _ => Win32Error::ERROR_INVALID_PARAMETER.code(),
        })
    })
}

/// `etwsim_run_pending()`: in deterministic mode, runs the logger work that is due (ready
/// buffers written and delivered). Does nothing in threaded mode.
#[unsafe(no_mangle)]
pub extern "C" fn etwsim_run_pending() -> WIN32_ERROR {
    crate::ffi_guard(
        Win32Error::ERROR_INVALID_FUNCTION.code(),
        || match machine() {
            Ok(m) => {
                if m.kernel.is_deterministic() {
                    m.kernel.run_pending();
                }
                0
            }
            Err(e) => e,
        },
    )
}

/// `etwsim_advance_ms(Milliseconds)`: in deterministic mode, advances the virtual clock
/// (flush timers fire, the logger drains). Does nothing in threaded mode.
#[unsafe(no_mangle)]
pub extern "C" fn etwsim_advance_ms(milliseconds: u64) -> WIN32_ERROR {
    crate::ffi_guard(
        Win32Error::ERROR_INVALID_FUNCTION.code(),
        || match machine() {
            Ok(m) => {
                if m.kernel.is_deterministic() {
                    m.kernel
                        .advance(std::time::Duration::from_millis(milliseconds));
                }
                0
            }
            Err(e) => e,
        },
    )
}

/// `etwsim_process_id()`: the simulated PID of the calling process (what events carry in
/// `EVENT_HEADER.ProcessId`); 0 if the machine could not boot.
#[unsafe(no_mangle)]
pub extern "C" fn etwsim_process_id() -> u32 {
    crate::ffi_guard(0, || machine().map_or(0, |m| m.process.pid()))
}

/// Sets what `GetLastError` returns on this thread.
pub(crate) fn set_last_error(code: u32) {
    LAST_ERROR.with(|c| c.set(code));
}

/// `GetLastError()`: the code the last OpenTrace or GetTraceLoggerHandle (…) failure on this
/// thread left. Exported because Microsoft's consumer samples call it after OpenTrace.
#[unsafe(no_mangle)]
pub extern "system" fn GetLastError() -> u32 {
    LAST_ERROR.with(Cell::get)
}

/// `SetLastError(Code)`.
#[unsafe(no_mangle)]
pub extern "system" fn SetLastError(code: u32) {
    set_last_error(code);
}
