//! `etwsim boot FILE.reg [--boots N] [--out DIR] [--format text|json]`: boots a simulated
//! machine from a `.reg` file N times and prints what ETW did (the report is
//! `etwsim::BootReport`; this file only reads the file, loops and lists the files).
//!
//! Windows paths map under DIR as `etwsim::BootOptions::host_path` says (`C:\x\y.etl` →
//! `DIR/C/x/y.etl`); with DIR the log files are real files there, without it they stay on a
//! virtual disk (and a scratch folder under the system's temporary folder stands for the
//! machine's folders while the command runs).

use std::io::Write;
use std::path::{Path, PathBuf};

use etwsim::registry::Registry;
use etwsim::{BootOptions, Disk, Kernel, Machine};

use crate::{Failure, Format};

pub(crate) fn run(
    file: &Path,
    boots: u32,
    dir: Option<&Path>,
    format: Format,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let bytes = std::fs::read(file).map_err(|e| {
        Failure::failed(format!(
            "cannot read {}: {}",
            file.display(),
            crate::fmt::io_reason(&e)
        ))
    })?;
    let (registry, import) = Registry::from_reg(&bytes)
        .map_err(|e| Failure::failed(format!("{}: {e}", file.display())))?;
    let scratch = dir
        .is_none()
        .then(|| std::env::temp_dir().join(format!("etwsim-boot-{}", std::process::id())));
    let root: PathBuf = dir.map_or_else(|| scratch.clone().unwrap_or_default(), Path::to_path_buf);
    let mut builder = Kernel::builder().deterministic(1);
    builder = match dir {
        Some(_) => builder.disk(Disk::Real),
        None => builder.disk(Disk::virtual_disk()),
    };
    let result = boot_loop(builder, registry, &root, boots, format, &import, out);
    if let Some(s) = scratch {
        let _ = std::fs::remove_dir_all(s);
    }
    result
}

fn boot_loop(
    builder: etwsim::KernelBuilder,
    registry: Registry,
    root: &Path,
    boots: u32,
    format: Format,
    import: &etwsim::registry::ImportReport,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    if format == Format::Text {
        for issue in &import.issues {
            writeln!(out, "import: {issue}")?;
        }
    }
    let mut machine = Machine::boot(builder, registry, BootOptions::new(root))
        .map_err(|e| Failure::failed(format!("boot failed: {e}")))?;
    let mut files: Vec<PathBuf> = Vec::new();
    for n in 1..=boots {
        if n > 1 {
            machine
                .reboot()
                .map_err(|e| Failure::failed(format!("reboot failed: {e}")))?;
        }
        let report = machine.report();
        match format {
            Format::Json => report.write_json_lines(out)?,
            _ => write!(out, "{report}")?,
        }
        for s in report.sessions.iter().filter(|s| s.started()) {
            if let Some(h) = &s.host_file {
                if !files.contains(h) {
                    files.push(h.clone());
                }
            }
        }
    }
    machine.shutdown();
    if format == Format::Text {
        writeln!(out, "files after shutdown")?;
        for f in &files {
            let size = machine
                .kernel()
                .disk()
                .read(f)
                .map(|b| b.len())
                .unwrap_or(0);
            let shown = f.strip_prefix(root).unwrap_or(f);
            writeln!(out, "  {} ({size} bytes)", shown.display())?;
        }
    }
    Ok(())
}
