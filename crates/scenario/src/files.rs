//! Reading inputs and writing outputs safely: every input read with a size cap, no output
//! that names an input, and every output written whole or not at all.
//!
//! * [`read_capped`] reads a file up to a cap and fails past it, so `/dev/zero` or a
//!   runaway file costs at most the cap in time and memory. The caps of the files a scenario
//!   reads are [`MAX_SCENARIO_BYTES`](crate::MAX_SCENARIO_BYTES),
//!   [`MAX_REGISTRY_BYTES`](crate::MAX_REGISTRY_BYTES) and
//!   [`MAX_MANIFEST_BYTES`](crate::MAX_MANIFEST_BYTES).
//! * [`refuse_overwrite`] refuses an output path that names one of the inputs — the same
//!   path, another spelling of it, a symbolic link to it, or (on Unix) a hard link to it —
//!   before anything is written, so `report F.etl -o F.etl` cannot replace its own input.
//! * [`AtomicFile`] writes into a temporary file in the destination's folder and renames it
//!   into place on [`commit`](AtomicFile::commit); dropped before that, it removes the
//!   temporary file. A command that fails half-way leaves the destination as it was.
//!
//! `etwsim report`, `etwsim run --out` ([`Outcome::write_files`](crate::Outcome::write_files))
//! and `etwsim export` use them.
//!
//! ```
//! use etwsim_scenario::files::{AtomicFile, refuse_overwrite};
//! use std::io::Write;
//!
//! let dir = tempfile::tempdir()?;
//! let input = dir.path().join("in.etl");
//! std::fs::write(&input, b"input")?;
//! // The input itself, however it is spelt, is refused as an output.
//! assert!(refuse_overwrite(&dir.path().join("./in.etl"), &[&input]).is_err());
//!
//! let page = dir.path().join("page.html");
//! refuse_overwrite(&page, &[&input])?;
//! let mut out = AtomicFile::create(&page)?;
//! out.write_all(b"<!DOCTYPE html>")?;
//! assert!(!page.exists(), "nothing is there until the commit");
//! out.commit()?;
//! assert_eq!(std::fs::read(&page)?, b"<!DOCTYPE html>");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::Error;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// A size for people: `16 MiB`, `1.5 KiB`, `300 bytes`.
pub(crate) fn size_text(bytes: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (unit, name) in UNITS {
        if bytes >= unit {
            return if bytes % unit == 0 {
                format!("{} {name}", bytes / unit)
            } else {
                format!("{:.1} {name}", bytes as f64 / unit as f64)
            };
        }
    }
    format!("{bytes} bytes")
}

/// Reads the file at `path` whole, as long as it holds at most `cap` bytes: reading stops
/// one byte past the cap, so a file that never ends (`/dev/zero`, a pipe) costs at most the
/// cap in time and memory.
///
/// # Errors
/// The file's I/O error; past the cap, an error of kind
/// [`io::ErrorKind::FileTooLarge`] saying the cap ("larger than 16 MiB, the most …").
pub fn read_capped(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    // A regular file's length is known: refuse it before reading anything.
    let len = file.metadata().map(|m| m.is_file().then_some(m.len()))?;
    if len.is_some_and(|n| n > cap) {
        return Err(too_large(cap));
    }
    let mut bytes = Vec::with_capacity(len.unwrap_or(0).min(cap) as usize);
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(too_large(cap));
    }
    Ok(bytes)
}

fn too_large(cap: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("larger than {}, the most this input may be", size_text(cap)),
    )
}

/// What identifies a file: its canonical path and, on Unix, its device and inode.
#[derive(Debug, PartialEq, Eq)]
struct Identity {
    path: PathBuf,
    #[cfg(unix)]
    inode: Option<(u64, u64)>,
}

impl Identity {
    /// The identity of an existing file, `None` when it does not exist (or cannot be
    /// reached: then it cannot be overwritten through this path either).
    fn of(path: &Path) -> Option<Identity> {
        let canonical = std::fs::canonicalize(path).ok()?;
        Some(Identity {
            #[cfg(unix)]
            inode: std::fs::metadata(&canonical).ok().map(|m| {
                use std::os::unix::fs::MetadataExt;
                (m.dev(), m.ino())
            }),
            path: canonical,
        })
    }

    fn same_file(&self, other: &Identity) -> bool {
        #[cfg(unix)]
        if let (Some(a), Some(b)) = (self.inode, other.inode) {
            return a == b;
        }
        self.path == other.path
    }
}

/// Refuses an `output` that names one of `inputs`: compared by canonical path (so `./x`,
/// `a/../x` and symbolic links are caught) and, on Unix, by device and inode (so hard links
/// are too). An output that does not exist yet names no input. Call it before writing
/// anything.
///
/// # Errors
/// [`Error::OutputIsInput`] naming both paths.
pub fn refuse_overwrite(output: &Path, inputs: &[&Path]) -> Result<(), Error> {
    let Some(out) = Identity::of(output) else {
        return Ok(());
    };
    for input in inputs {
        if Identity::of(input).is_some_and(|i| i.same_file(&out)) {
            return Err(Error::OutputIsInput {
                output: output.to_path_buf(),
                input: input.to_path_buf(),
            });
        }
    }
    Ok(())
}

/// A file written whole or not at all: the bytes go to a temporary file in the
/// destination's folder, which [`commit`](Self::commit) renames over the destination (a
/// rename within one folder, atomic on the file systems etwsim runs on). Dropped without a
/// commit — an error, a panic — it removes the temporary file and leaves the destination as
/// it was. The file is created with the permissions `File::create` gives (`0o666` less the
/// umask on Unix).
#[derive(Debug)]
pub struct AtomicFile {
    temp: tempfile::NamedTempFile,
    path: PathBuf,
}

impl AtomicFile {
    /// Starts writing `path`: creates the temporary file beside it.
    ///
    /// # Errors
    /// When the temporary file cannot be created in `path`'s folder (missing, read-only).
    pub fn create(path: impl AsRef<Path>) -> io::Result<AtomicFile> {
        let path = path.as_ref();
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let name = path
            .file_name()
            .map_or_else(|| "output".into(), |n| n.to_string_lossy());
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        Ok(AtomicFile {
            temp: builder.tempfile_in(dir)?,
            path: path.to_path_buf(),
        })
    }

    /// The destination.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes the bytes and renames the temporary file over the destination.
    ///
    /// # Errors
    /// When the bytes cannot be flushed or the rename fails (the temporary file is then
    /// removed).
    pub fn commit(mut self) -> io::Result<()> {
        self.temp.flush()?;
        self.temp.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.temp.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.temp.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.temp.flush()
    }
}

/// Writes `bytes` to `path` through an [`AtomicFile`].
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = AtomicFile::create(path)?;
    f.write_all(bytes)?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::size_text;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(size_text(16 << 20), "16 MiB");
        assert_eq!(size_text(1536), "1.5 KiB");
        assert_eq!(size_text(300), "300 bytes");
        assert_eq!(size_text(4 << 30), "4 GiB");
    }
}
