//! The command's scratch folder: private, per process, removed when the command ends — also
//! when it is stopped by SIGINT or SIGTERM (issue 33).
//!
//! `boot` without `--out` and scenarios that boot from a registry need folders that stand for
//! the machine's drives. They live under one folder made for this process by
//! [`tempfile`] (mode 0700, a name no other run shares), created on first use. [`cleanup`]
//! removes it at the end of `main`; a signal handler removes it and exits with the shell's
//! status for the signal (130) when the command is interrupted.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

/// Set by the signal handler before it removes the folder: the command's own loops stop
/// making files and wait for the handler to end the process ([`stop_point`]).
static STOPPING: AtomicBool = AtomicBool::new(false);

/// Called by a long command between two steps (a boot loop, between boots): once a signal
/// is being handled, the command makes nothing more and waits here for the handler to remove
/// the folder and end the process with the signal's status.
pub(crate) fn stop_point() {
    if STOPPING.load(Ordering::Acquire) {
        loop {
            std::thread::park();
        }
    }
}

/// The folder's life: not made yet, made, or removed for good by [`cleanup`] (after which no
/// new one is made: a command being stopped by a signal must not leave a fresh folder behind
/// when its own thread asks for one while the handler removes the first).
enum Scratch {
    Unmade,
    Made(tempfile::TempDir),
    Closed,
}

/// This process's scratch folder.
static SCRATCH: OnceLock<Mutex<Scratch>> = OnceLock::new();

/// This process's scratch folder, made (and the signal handler installed) on first use.
///
/// # Errors
/// When the folder cannot be made under the system's temporary folder.
pub(crate) fn dir() -> std::io::Result<PathBuf> {
    let cell = SCRATCH.get_or_init(|| Mutex::new(Scratch::Unmade));
    let mut guard = cell.lock().unwrap_or_else(|e| e.into_inner());
    match &*guard {
        Scratch::Made(d) => return Ok(d.path().to_path_buf()),
        Scratch::Closed => {
            return Err(std::io::Error::other(
                "the command is ending: its scratch folder was removed",
            ));
        }
        Scratch::Unmade => {}
    }
    // The handler first, then the folder: a signal can never find a folder and no handler.
    // (A second handler cannot be installed; the first one serves every later folder too.)
    let _ = ctrlc::set_handler(|| {
        // The command's own thread can still be making files in the folder (until its next
        // `stop_point`), so a removal can find the folder not empty: try again until it is
        // gone, a bounded number of times.
        STOPPING.store(true, Ordering::Release);
        let path = cleanup();
        for _ in 0..1_000_000 {
            match &path {
                Some(p) if p.exists() => {
                    let _ = std::fs::remove_dir_all(p);
                    std::thread::yield_now();
                }
                _ => break,
            }
        }
        std::process::exit(130);
    });
    let made = tempfile::Builder::new().prefix("etwsim-").tempdir()?;
    let path = made.path().to_path_buf();
    *guard = Scratch::Made(made);
    drop(guard);
    Ok(path)
}

/// Removes the scratch folder, if one was made, and makes sure no other is made; returns its
/// path.
pub(crate) fn cleanup() -> Option<PathBuf> {
    let cell = SCRATCH.get_or_init(|| Mutex::new(Scratch::Unmade));
    let mut guard = cell.lock().unwrap_or_else(|e| e.into_inner());
    match std::mem::replace(&mut *guard, Scratch::Closed) {
        Scratch::Made(taken) => {
            let path = taken.path().to_path_buf();
            drop(taken);
            Some(path)
        }
        Scratch::Unmade | Scratch::Closed => None,
    }
}

/// A folder named `name` inside this process's scratch folder, created.
///
/// # Errors
/// As [`dir`], or when the folder cannot be created.
pub(crate) fn folder(name: &str) -> std::io::Result<PathBuf> {
    let path = dir()?.join(name);
    std::fs::create_dir_all(&path)?;
    Ok(path)
}
