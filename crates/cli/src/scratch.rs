//! The command's scratch folder: private, per process, removed when the command ends — also
//! when it is stopped by SIGINT or SIGTERM (issue 33).
//!
//! `boot` without `--out` and scenarios that boot from a registry need folders that stand for
//! the machine's drives. They live under one folder made for this process by
//! [`tempfile`] (mode 0700, a name no other run shares), created on first use. [`cleanup`]
//! removes it at the end of `main`; a signal handler removes it and exits with the shell's
//! status for the signal (130) when the command is interrupted.

use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// The folder, once made; `None` after [`cleanup`].
static SCRATCH: OnceLock<Mutex<Option<tempfile::TempDir>>> = OnceLock::new();

/// This process's scratch folder, made (and the signal handler installed) on first use.
///
/// # Errors
/// When the folder cannot be made under the system's temporary folder.
pub(crate) fn dir() -> std::io::Result<PathBuf> {
    let cell = SCRATCH.get_or_init(|| Mutex::new(None));
    let mut guard = cell.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(d) = guard.as_ref() {
        return Ok(d.path().to_path_buf());
    }
    let made = tempfile::Builder::new().prefix("etwsim-").tempdir()?;
    let path = made.path().to_path_buf();
    *guard = Some(made);
    drop(guard);
    // A second handler cannot be installed; the first one serves every later folder too.
    let _ = ctrlc::set_handler(|| {
        // The command's own thread goes on making files in the folder while this removes
        // it, so a removal can find the folder not empty: try again until it is gone.
        let path = cleanup();
        for _ in 0..1000 {
            match &path {
                Some(p) if p.exists() => {
                    let _ = std::fs::remove_dir_all(p);
                }
                _ => break,
            }
        }
        std::process::exit(130);
    });
    Ok(path)
}

/// Removes the scratch folder, if one was made; returns its path.
pub(crate) fn cleanup() -> Option<PathBuf> {
    let taken = SCRATCH
        .get()?
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take()?;
    let path = taken.path().to_path_buf();
    drop(taken);
    Some(path)
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
