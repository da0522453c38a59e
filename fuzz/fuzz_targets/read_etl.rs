//! Arbitrary bytes as an `.etl` file: opening it, its header records, every record in file
//! order (owned and as borrowed views), and the merging reader must never panic, hang or
//! allocate beyond the input — only return records and then an error.
#![no_main]

use etwsim_etl::{LogFile, ReadOptions, Reader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // File order, exactly as stored: every record, then the damage if any.
    if let Ok(mut file) = LogFile::from_bytes("fuzz.etl", data.to_vec()) {
        let _ = file.header();
        let _ = file.header_records();
        for record in file.records() {
            if record.is_err() {
                break;
            }
        }
    }
    // The borrowing views, touching every borrowed part: they must agree with the owned
    // records above, which `crates/etl/tests/etl/views.rs` checks; here, only that nothing
    // panics.
    if let Ok(mut file) = LogFile::from_bytes("fuzz.etl", data.to_vec()) {
        let _ = file.for_each_record(|view| {
            let record = view.to_record();
            std::hint::black_box(record);
        });
    }
    // The merging reader (ProcessTrace's order), with FILETIME conversion and with raw
    // timestamps plus the header records.
    for options in [
        ReadOptions::default(),
        ReadOptions {
            raw_timestamps: true,
            header_records: true,
        },
    ] {
        let Ok(file) = LogFile::from_bytes("fuzz.etl", data.to_vec()) else {
            return;
        };
        let Ok(reader) = Reader::new(vec![file], options) else {
            continue;
        };
        for record in reader {
            if record.is_err() {
                break;
            }
        }
    }
});
