//! Writes the interoperability sample files — every log-file mode, several CPUs, every
//! extended item type, a TraceLogging event, an empty-payload event, kernel record kinds —
//! into a folder, and prints one line per file both parsers can read: its path, a tab, and the number of records
//! a reader must find outside buffer 0. `scripts/interop.sh` runs this and then checks
//! every file with both third-party parsers (`etl_check.py --expect N`). The files only one
//! parser can read go to standard error: `ext-15-18.etl` (this crate's tests check it) and
//! `compressed.etl` (compressed buffers, which only dissect.etl reads: compare it with
//! `compressed-twin.etl` using `crates/etl/tests/dissect_same_records.py`).
//!
//! ```sh
//! cargo run -p etwsim-etl --example interop -- target/interop
//! ```

mod samples;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: interop OUTPUT_DIR");
        return ExitCode::from(2);
    };
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("creating {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    match samples::write_all(&dir) {
        Ok(list) => {
            for s in list {
                if s.third_party {
                    println!("{}\t{}", s.path.display(), s.records);
                } else {
                    eprintln!(
                        "{}: not for both third-party parsers (see this example's docs)",
                        s.path.display()
                    );
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("writing the samples: {e}");
            ExitCode::FAILURE
        }
    }
}
