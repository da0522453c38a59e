//! Reading inputs safely: every input read with a size cap.
//!
//! [`read_capped`] reads a file up to a cap and fails past it, so `/dev/zero` or a runaway
//! file costs at most the cap in time and memory. The caps of the files a scenario reads are
//! [`MAX_SCENARIO_BYTES`](crate::MAX_SCENARIO_BYTES),
//! [`MAX_REGISTRY_BYTES`](crate::MAX_REGISTRY_BYTES) and
//! [`MAX_MANIFEST_BYTES`](crate::MAX_MANIFEST_BYTES).

use std::io::{self, Read};
use std::path::Path;

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
