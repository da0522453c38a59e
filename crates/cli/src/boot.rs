//! `etwsim boot FILE.reg [--boots N] [--out DIR] [--format text|json]`: boots a simulated
//! machine from a `.reg` file N times and prints what ETW did (the report is
//! `etwsim::BootReport`; this file only reads the file, loops and lists the files).
//!
//! Windows paths map under DIR as `etwsim::BootOptions::host_path` says (`C:\x\y.etl` →
//! `DIR/C/x/y.etl`); with DIR the log files are real files there, without it they stay on a
//! virtual disk (and a private scratch folder stands for the machine's folders while the
//! command runs; it is removed when the command ends or is stopped, and the JSON output
//! names no host file). ETW creates no folders (SES-28): with DIR, a log file whose folder
//! does not exist there fails as StartTrace does, unless `--create-folders` makes the folders
//! first. Inputs are bounded: at most [`MAX_BOOTS`] boots, a `.reg` file of at most
//! [`MAX_REG_BYTES`].

use std::io::Write;
use std::path::{Path, PathBuf};

use etwsim::registry::Registry;
use etwsim::{BootOptions, Disk, Kernel, Machine};

use crate::{Failure, Format};

/// The most boots one command may ask for: each boot starts every AutoLogger again and
/// keeps the files FileMax rotates through, so this bounds the command's time and disk.
pub(crate) const MAX_BOOTS: u32 = 10_000;

/// The largest `.reg` file `boot` reads: AutoLogger exports are a few KB; a whole
/// `HKLM\SYSTEM` export is tens of MB.
pub(crate) const MAX_REG_BYTES: u64 = 256 * 1024 * 1024;

/// What `boot` was asked to do.
pub(crate) struct Options<'a> {
    /// How many times to boot.
    pub(crate) boots: u32,
    /// The folder the machine's drives map into; `None`: a virtual disk.
    pub(crate) dir: Option<&'a Path>,
    /// Text or JSON Lines.
    pub(crate) format: Format,
    /// Create the log files' folders under `dir` (`--create-folders`).
    pub(crate) create_folders: bool,
}

pub(crate) fn run(file: &Path, o: &Options<'_>, out: &mut dyn Write) -> Result<(), Failure> {
    let bytes = crate::fmt::read_capped(file, MAX_REG_BYTES, "a .reg file")?;
    let (registry, import) = Registry::from_reg(&bytes)
        .map_err(|e| Failure::failed(format!("{}: {e}", file.display())))?;
    // Without --out the machine's folders stand in this process's private scratch folder,
    // which goes when the command ends (or is stopped).
    let root: PathBuf = match o.dir {
        Some(d) => d.to_path_buf(),
        None => crate::scratch::folder("boot").map_err(|e| {
            Failure::failed(format!(
                "cannot make a scratch folder: {}",
                crate::fmt::io_reason(&e)
            ))
        })?,
    };
    let mut builder = Kernel::builder().deterministic(1);
    builder = match o.dir {
        Some(_) => builder.disk(Disk::Real),
        None => builder.disk(Disk::virtual_disk()),
    };
    let options = BootOptions::new(&root).creating_folders(o.create_folders);
    boot_loop(builder, registry, options, o, &import, out)
}

fn boot_loop(
    builder: etwsim::KernelBuilder,
    registry: Registry,
    options: BootOptions,
    o: &Options<'_>,
    import: &etwsim::registry::ImportReport,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let (boots, format) = (o.boots, o.format);
    let root = options.root.clone();
    let root = root.as_path();
    if format == Format::Text {
        for issue in &import.issues {
            writeln!(out, "import: {issue}")?;
        }
    }
    let mut machine = Machine::boot(builder, registry, options)
        .map_err(|e| Failure::failed(format!("boot failed: {e}")))?;
    let mut files: Vec<PathBuf> = Vec::new();
    for n in 1..=boots {
        crate::scratch::stop_point();
        if n > 1 {
            machine
                .reboot()
                .map_err(|e| Failure::failed(format!("reboot failed: {e}")))?;
        }
        let report = machine.report();
        match format {
            Format::Json => {
                for mut v in report.json_values() {
                    if o.dir.is_none() {
                        // The files are on a virtual disk: there is no host file to name.
                        v["host_file"] = serde_json::Value::Null;
                    }
                    writeln!(out, "{v}")?;
                }
            }
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
