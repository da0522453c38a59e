//! Small formatting helpers: times, names of wire values, text safe for a terminal.

use etwsim::record::ext_type;
use std::io;

pub(crate) use etwsim::record::filetime_utc;

/// An I/O error as a short phrase, without the "(os error N)" tail people do not need.
pub(crate) fn io_reason(e: &io::Error) -> String {
    match e.kind() {
        io::ErrorKind::NotFound => "no such file or folder".into(),
        io::ErrorKind::PermissionDenied => "permission denied".into(),
        io::ErrorKind::IsADirectory => "it is a folder, not a file".into(),
        io::ErrorKind::NotADirectory => "a part of the path is not a folder".into(),
        io::ErrorKind::StorageFull => "the disk is full".into(),
        io::ErrorKind::ReadOnlyFilesystem => "the file system is read-only".into(),
        _ => {
            let text = e.to_string();
            match text.rfind(" (os error ") {
                Some(at) => text[..at].to_string(),
                None => text,
            }
        }
    }
}

/// Reads the whole of `path`, `what` it is ("a .reg file"), refusing past `cap` bytes
/// before it has read more than that: a device such as `/dev/zero` or a huge file costs at
/// most `cap` + 1 bytes and gets a clear error.
pub(crate) fn read_capped(
    path: &std::path::Path,
    cap: u64,
    what: &str,
) -> Result<Vec<u8>, crate::Failure> {
    use std::io::Read;
    let name = path.display();
    let fail =
        |e: &io::Error| crate::Failure::failed(format!("cannot read {name}: {}", io_reason(e)));
    let file = std::fs::File::open(path).map_err(|e| fail(&e))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(crate::Failure::failed(format!(
            "cannot read {name}: it is a folder, not {what}"
        )));
    }
    let mut bytes = Vec::new();
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| fail(&e))?;
    if bytes.len() as u64 > cap {
        return Err(crate::Failure::failed(format!(
            "cannot read {name}: it is larger than the {} MiB {what} may be",
            cap / (1024 * 1024)
        )));
    }
    Ok(bytes)
}

/// The Windows name of an extended data item type (`EVENT_HEADER_EXT_TYPE_*`).
pub(crate) fn ext_name(t: u16) -> String {
    let name = match t {
        ext_type::RELATED_ACTIVITYID => "RELATED_ACTIVITYID",
        ext_type::SID => "SID",
        ext_type::TS_ID => "TS_ID",
        ext_type::INSTANCE_INFO => "INSTANCE_INFO",
        ext_type::STACK_TRACE32 => "STACK_TRACE32",
        ext_type::STACK_TRACE64 => "STACK_TRACE64",
        ext_type::PEBS_INDEX => "PEBS_INDEX",
        ext_type::PMC_COUNTERS => "PMC_COUNTERS",
        ext_type::PSM_KEY => "PSM_KEY",
        ext_type::EVENT_KEY => "EVENT_KEY",
        ext_type::EVENT_SCHEMA_TL => "EVENT_SCHEMA_TL",
        ext_type::PROV_TRAITS => "PROV_TRAITS",
        ext_type::PROCESS_START_KEY => "PROCESS_START_KEY",
        ext_type::CONTROL_GUID => "CONTROL_GUID",
        ext_type::QPC_DELTA => "QPC_DELTA",
        ext_type::CONTAINER_ID => "CONTAINER_ID",
        ext_type::STACK_KEY32 => "STACK_KEY32",
        ext_type::STACK_KEY64 => "STACK_KEY64",
        other => return format!("EXT_{other:#06x}"),
    };
    name.to_string()
}

/// Text from a file, safe to print on a terminal: control characters shown escaped.
pub(crate) fn printable(s: &str) -> String {
    if s.chars().any(char::is_control) {
        s.escape_debug().to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filetimes_become_utc_dates() {
        assert_eq!(
            filetime_utc(134_116_992_000_000_000),
            "2026-01-01T00:00:00.0000000Z"
        );
        assert_eq!(
            filetime_utc(134_116_992_000_000_010),
            "2026-01-01T00:00:00.0000010Z"
        );
        assert_eq!(filetime_utc(0), "1601-01-01T00:00:00.0000000Z");
        assert_eq!(
            filetime_utc(116_444_736_000_000_000),
            "1970-01-01T00:00:00.0000000Z"
        );
        // 2024-02-29T12:34:56.5Z, a leap day.
        assert_eq!(
            filetime_utc(133_536_836_965_000_000),
            "2024-02-29T12:34:56.5000000Z"
        );
        // Nonsense values never panic.
        let _ = filetime_utc(i64::MIN);
        let _ = filetime_utc(i64::MAX);
    }

    #[test]
    fn io_errors_lose_the_os_error_tail() {
        let e = io::Error::from_raw_os_error(5);
        assert!(!io_reason(&e).contains("os error"), "{}", io_reason(&e));
    }
}
