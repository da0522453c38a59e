//! The interoperability samples (`examples/interop`), read back with this crate's reader:
//! the same files `scripts/interop.sh` hands to etl-parser and dissect.etl, with the same
//! expected counts.

#[path = "../../examples/interop/samples.rs"]
mod samples;

use etwsim_etl::{LogFile, ReadOptions, Reader, Record};
use etwsim_types::record::ext_type;
use std::path::PathBuf;

#[test]
fn every_sample_reads_back_with_its_expected_count() {
    // rule: SES-31, SES-32, SES-33, SES-34, SES-35, SES-36, SES-52, SES-62, SES-81, CON-03, CON-04
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("interop_samples");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let list = samples::write_all(&dir).unwrap();
    assert_eq!(list.iter().filter(|s| s.third_party).count(), 12);
    for s in &list {
        let name = s.path.file_name().unwrap().to_string_lossy().into_owned();
        let mut f = LogFile::open(&s.path).unwrap();
        assert!(f.damage().is_none(), "{name}: {:?}", f.damage());
        let len = std::fs::metadata(&s.path).unwrap().len();
        let h = f.header().clone();
        if name == "compressed.etl" {
            // Buffers of different lengths: BuffersWritten counts what the reader found.
            assert_eq!(h.buffers_written as usize, f.buffer_count(), "{name}");
            assert!(f.compressed_buffer_count() > 0, "{name}");
        } else {
            assert_eq!(
                u64::from(h.buffers_written) * u64::from(h.buffer_size),
                len,
                "{name}: BuffersWritten = buffers in the file"
            );
        }
        let in_file: Vec<Record> = f.records().collect::<Result<_, _>>().unwrap();
        assert_eq!(in_file.len(), s.records, "{name}");
        let merged: Vec<i64> = Reader::open_with(
            [&s.path],
            ReadOptions {
                raw_timestamps: true,
                ..ReadOptions::default()
            },
        )
        .unwrap()
        .map(|r| r.unwrap().timestamp().unwrap())
        .collect();
        assert_eq!(merged.len(), s.records, "{name}");
        assert!(
            merged.windows(2).all(|w| w[0] <= w[1]),
            "{name}: oldest first"
        );
        if name == "ext-15-18.etl" {
            let types: Vec<u16> = in_file[0]
                .as_event()
                .unwrap()
                .extended_data
                .iter()
                .map(|i| i.ext_type)
                .collect();
            assert_eq!(
                types,
                [
                    ext_type::QPC_DELTA,
                    ext_type::CONTAINER_ID,
                    ext_type::STACK_KEY32,
                    ext_type::STACK_KEY64
                ]
            );
        }
    }
    // The compressed file holds its twin's records, compressed buffers and all (SES-52).
    let find = |n: &str| list.iter().find(|s| s.path.ends_with(n)).unwrap();
    let (c, twin) = (find("compressed.etl"), find("compressed-twin.etl"));
    assert!(!c.third_party && twin.third_party);
    let read = |p: &PathBuf| -> Vec<Record> {
        LogFile::open(p)
            .unwrap()
            .records()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    assert_eq!(read(&c.path), read(&twin.path));
    let mut twin_file = LogFile::open(&twin.path).unwrap();
    assert_eq!(twin_file.compressed_buffer_count(), 0);
    assert!(twin_file.records().count() > 600);
    // The NEWFILE set reads as one trace, and the circular file lost its oldest records.
    let set: Vec<&PathBuf> = list
        .iter()
        .filter(|s| s.path.to_string_lossy().contains("newfile-"))
        .map(|s| &s.path)
        .collect();
    assert_eq!(set.len(), 4);
    let total: usize = list
        .iter()
        .filter(|s| s.path.to_string_lossy().contains("newfile-"))
        .map(|s| s.records)
        .sum();
    assert_eq!(Reader::open(set).unwrap().count(), total);
    assert_eq!(total, 520);
    let circular = list
        .iter()
        .find(|s| s.path.ends_with("circular.etl"))
        .unwrap();
    assert!(circular.records < 1201);
}
