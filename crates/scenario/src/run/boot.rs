//! A booted machine's host folder: the scratch folder that stands for its drives, and
//! taking that folder out of what a run shows (boot reports, file names and headers), so
//! runs read the same every time.

use etwsim::BootReport;
use std::path::Path;

/// Makes the host folder that stands for a booted machine's drives (`BootOptions::root`):
/// boot creates `C\Windows\System32\LogFiles\WMI` in it (a log file's folder must exist on
/// the host, SES-28); the files themselves stay on the virtual disk. A new folder for every
/// run, in `parent` (else the system's temporary folder), so runs at the same time never
/// share one; it is removed when the run ends.
pub(super) fn make_scratch(parent: Option<&Path>) -> std::io::Result<tempfile::TempDir> {
    let mut b = tempfile::Builder::new();
    b.prefix("etwsim-scenario-");
    match parent {
        Some(p) => {
            std::fs::create_dir_all(p)?;
            b.tempdir_in(p)
        }
        None => b.tempdir(),
    }
}

/// A boot's report with the run's scratch folder taken out of it, so it reads the same in
/// every run: host files relative to the machine's root (the folder is gone once the run
/// ends: the files are on the virtual disk), and the folder's name in messages replaced by
/// `<machine root>`.
pub(super) fn portable_report(report: &mut BootReport, root: &Path) {
    let shown = root.display().to_string();
    let text = |t: &mut String| {
        if t.contains(&shown) {
            *t = t.replace(&shown, "<machine root>");
        }
    };
    report.notes.iter_mut().for_each(text);
    for s in &mut report.sessions {
        if let Some(h) = &mut s.host_file {
            if let Ok(rel) = h.strip_prefix(root) {
                *h = rel.to_path_buf();
            }
        }
        if let Some(why) = &mut s.why {
            text(why);
        }
        s.overrides.iter_mut().for_each(text);
        if let Some(f) = s.in_force.as_mut().and_then(|p| p.log_file.as_mut()) {
            text(f);
        }
    }
}

/// A booted session's file as Windows writes it: its header's LogFileName is the Windows
/// path (`C:\Windows\…`), not the host folder that stood for the drive — which is a new
/// folder for every run, so the bytes would otherwise differ from run to run. Only a header
/// that decodes and encodes back to the very same bytes is rewritten.
pub(super) fn windows_header(bytes: &mut [u8], windows_name: &str) {
    let Ok(header) = etwsim::etl::LogfileHeader::decode_buffer(bytes, 0) else {
        return;
    };
    let size = header.buffer_size as usize;
    if header.log_file_name == windows_name || bytes.len() < size {
        return;
    }
    if header.encode_buffer().ok().as_deref() != Some(&bytes[..size]) {
        return;
    }
    let mut renamed = header;
    renamed.log_file_name = windows_name.to_string();
    if let Ok(buf0) = renamed.encode_buffer() {
        if buf0.len() == size {
            bytes[..size].copy_from_slice(&buf0);
        }
    }
}

/// A virtual-disk path under the boot root as the Windows path it stands for
/// (`<root>/C/Windows/x.etl` → `C:\Windows\x.etl`); other paths as they are.
pub(super) fn windows_path(root: Option<&Path>, path: &Path) -> String {
    let Some(rel) = root.and_then(|r| path.strip_prefix(r).ok()) else {
        return path.to_string_lossy().into_owned();
    };
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match parts.split_first() {
        Some((first, rest)) if first == "UNC" => format!(r"\\{}", rest.join("\\")),
        Some((first, rest)) if first.len() == 1 => format!(r"{first}:\{}", rest.join("\\")),
        _ => parts.join("\\"),
    }
}
