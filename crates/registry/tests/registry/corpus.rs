//! The committed `.reg` corpus (valid files in both encodings and headers, and broken ones)
//! through the `read_reg` fuzz target's body, plus deterministic mutations of each file.

use crate::common;

use common::read_reg::read_reg;
use etwsim_registry::{Encoding, Error, Header, Registry, autologger_sessions, global_logger};
use std::path::Path;

fn corpus() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(&dir)
        .expect("the corpus folder")
        .map(|e| {
            let path = e.expect("an entry").path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).expect("readable"))
        })
        .collect();
    files.sort();
    files
}

fn file(name: &str) -> Vec<u8> {
    corpus()
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("{name} is in the corpus"))
        .1
}

#[test]
fn every_corpus_file_and_its_mutations_go_through_the_fuzz_body() {
    let files = corpus();
    assert!(files.len() >= 8, "{} files", files.len());
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for (_, bytes) in &files {
        read_reg(bytes);
        for cut in (0..bytes.len()).step_by(7) {
            read_reg(&bytes[..cut]);
        }
        for _ in 0..200 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut m = bytes.clone();
            if m.is_empty() {
                break;
            }
            let at = (state % m.len() as u64) as usize;
            m[at] = (state >> 32) as u8;
            read_reg(&m);
        }
    }
}

#[test]
fn the_valid_files_import_without_issues_and_agree() {
    // rule: REG-03
    // rule: REG-04
    let (v5_16, r1) = Registry::from_reg(&file("valid_v5_utf16.reg")).unwrap();
    assert_eq!(
        (r1.encoding, r1.header),
        (Encoding::Utf16Le, Header::Version5)
    );
    let (v5_8, r2) = Registry::from_reg(&file("valid_v5_utf8.reg")).unwrap();
    assert_eq!((r2.encoding, r2.header), (Encoding::Utf8, Header::Version5));
    let (v5_bom, r3) = Registry::from_reg(&file("valid_v5_utf8_bom.reg")).unwrap();
    assert_eq!(r3.encoding, Encoding::Utf8);
    let (v4, r4) = Registry::from_reg(&file("valid_regedit4_ansi.reg")).unwrap();
    assert_eq!(
        (r4.encoding, r4.header),
        (Encoding::Windows1252, Header::Regedit4)
    );
    for r in [&r1, &r2, &r3, &r4] {
        assert!(r.issues.is_empty(), "{:?}", r.issues);
    }
    assert_eq!(v5_16, v5_8);
    assert_eq!(v5_16, v5_bom);
    assert_eq!(v5_16, v4);
    let sessions = autologger_sessions(&v5_16);
    assert_eq!(sessions.len(), 1);
    assert!(sessions[0].will_start());
    assert_eq!(sessions[0].providers.len(), 1);
    assert!(global_logger(&v5_16).unwrap().will_start());
}

#[test]
fn the_broken_files_fail_or_report_their_lines() {
    assert!(matches!(
        Registry::from_reg(&file("broken_no_header.reg")),
        Err(Error::NotARegistryScript { .. })
    ));
    assert_eq!(
        Registry::from_reg(&file("broken_win31.reg")),
        Err(Error::Windows31Format)
    );
    let (_, report) = Registry::from_reg(&file("broken_lines.reg")).unwrap();
    assert!(report.issues.len() >= 8, "{:?}", report.issues);
    let (reg, report) = Registry::from_reg(&file("broken_truncated_utf16.reg")).unwrap();
    assert_eq!(report.encoding, Encoding::Utf16Le);
    // Cut inside a continuation: what was read is stored.
    let key = r"HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\WMI\GlobalLogger";
    assert_eq!(
        reg.value(key, "EnableKernelFlags")
            .map(|v| v.data().to_vec()),
        Some(vec![0x07, 0x00, 0x00, 0x00])
    );
    assert!(Registry::from_reg(&file("broken_binary.bin")).is_err());
}
