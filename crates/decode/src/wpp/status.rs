//! Names of common NTSTATUS, HRESULT and Win32 error values, and how TraceFmt shows them.
//!
//! The values are the ones `ntstatus.h` and `winerror.h` define, as published in
//! [MS-ERREF] §2.1 (HRESULT), §2.2 (Win32 error codes) and §2.3 (NTSTATUS values),
//! <https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-erref/>. The tables
//! are small on purpose: the codes drivers return most, not the thousands Windows defines;
//! any other value is shown in hex.
//!
//! How a value is shown follows TraceFmt's formatting library (`traceprt.c`, observed in
//! source; Learn's "Example 9: Creating a TMF file" shows the same form,
//! `Function Return=0x8000000f(STATUS_DEVICE_POWERED_OFF)`):
//!
//! | item | 0 | a known value | any other value |
//! |---|---|---|---|
//! | `ItemNTSTATUS` | `STATUS_SUCCESS` | `0xc0000034(STATUS_OBJECT_NAME_NOT_FOUND)` | `0xc0de0001` |
//! | `ItemHRESULT` | `S_OK` | `0x80070005(E_ACCESSDENIED)` | `0x8badf00d` |
//! | `ItemWINERROR` | `0(ERROR_SUCCESS)` | `5(ERROR_ACCESS_DENIED)` | `12345` |
//!
//! (Simulator choice: the unknown value is shown as plain hex / decimal where TraceFmt's
//! library wrote `NTSTATUS=C0DE0001`; an HRESULT of FACILITY_NT or FACILITY_WIN32 without a
//! name of its own is named after the NTSTATUS or Win32 code inside it, as that library did.)

use etwsim_types::Win32Error;

/// Common NTSTATUS values (`ntstatus.h`, [MS-ERREF] §2.3.1).
const NTSTATUS: &[(u32, &str)] = &[
    (0x0000_0000, "STATUS_SUCCESS"),
    (0x0000_0102, "STATUS_TIMEOUT"),
    (0x0000_0103, "STATUS_PENDING"),
    (0x0000_0104, "STATUS_REPARSE"),
    (0x0000_0105, "STATUS_MORE_ENTRIES"),
    (0x8000_0005, "STATUS_BUFFER_OVERFLOW"),
    (0x8000_0006, "STATUS_NO_MORE_FILES"),
    (0x8000_000F, "STATUS_DEVICE_POWERED_OFF"),
    (0x8000_0011, "STATUS_DEVICE_BUSY"),
    (0x8000_001A, "STATUS_NO_MORE_ENTRIES"),
    (0xC000_0001, "STATUS_UNSUCCESSFUL"),
    (0xC000_0002, "STATUS_NOT_IMPLEMENTED"),
    (0xC000_0003, "STATUS_INVALID_INFO_CLASS"),
    (0xC000_0004, "STATUS_INFO_LENGTH_MISMATCH"),
    (0xC000_0005, "STATUS_ACCESS_VIOLATION"),
    (0xC000_0008, "STATUS_INVALID_HANDLE"),
    (0xC000_000D, "STATUS_INVALID_PARAMETER"),
    (0xC000_000E, "STATUS_NO_SUCH_DEVICE"),
    (0xC000_000F, "STATUS_NO_SUCH_FILE"),
    (0xC000_0010, "STATUS_INVALID_DEVICE_REQUEST"),
    (0xC000_0011, "STATUS_END_OF_FILE"),
    (0xC000_0017, "STATUS_NO_MEMORY"),
    (0xC000_0022, "STATUS_ACCESS_DENIED"),
    (0xC000_0023, "STATUS_BUFFER_TOO_SMALL"),
    (0xC000_0024, "STATUS_OBJECT_TYPE_MISMATCH"),
    (0xC000_0033, "STATUS_OBJECT_NAME_INVALID"),
    (0xC000_0034, "STATUS_OBJECT_NAME_NOT_FOUND"),
    (0xC000_0035, "STATUS_OBJECT_NAME_COLLISION"),
    (0xC000_003A, "STATUS_OBJECT_PATH_NOT_FOUND"),
    (0xC000_0043, "STATUS_SHARING_VIOLATION"),
    (0xC000_0056, "STATUS_DELETE_PENDING"),
    (0xC000_0095, "STATUS_INTEGER_OVERFLOW"),
    (0xC000_009A, "STATUS_INSUFFICIENT_RESOURCES"),
    (0xC000_009D, "STATUS_DEVICE_NOT_CONNECTED"),
    (0xC000_00A3, "STATUS_DEVICE_NOT_READY"),
    (0xC000_00B5, "STATUS_IO_TIMEOUT"),
    (0xC000_00BB, "STATUS_NOT_SUPPORTED"),
    (0xC000_0120, "STATUS_CANCELLED"),
    (0xC000_0184, "STATUS_INVALID_DEVICE_STATE"),
    (0xC000_0206, "STATUS_INVALID_BUFFER_SIZE"),
    (0xC000_0225, "STATUS_NOT_FOUND"),
];

/// Common HRESULT values with names of their own (`winerror.h`, [MS-ERREF] §2.1.1).
const HRESULT: &[(u32, &str)] = &[
    (0x0000_0000, "S_OK"),
    (0x0000_0001, "S_FALSE"),
    (0x8000_4001, "E_NOTIMPL"),
    (0x8000_4002, "E_NOINTERFACE"),
    (0x8000_4003, "E_POINTER"),
    (0x8000_4004, "E_ABORT"),
    (0x8000_4005, "E_FAIL"),
    (0x8000_FFFF, "E_UNEXPECTED"),
    (0x8007_0005, "E_ACCESSDENIED"),
    (0x8007_0006, "E_HANDLE"),
    (0x8007_000E, "E_OUTOFMEMORY"),
    (0x8007_0057, "E_INVALIDARG"),
];

/// Win32 error codes the [`Win32Error`] table does not name (`winerror.h`, [MS-ERREF]
/// §2.2).
const WIN32: &[(u32, &str)] = &[
    (4, "ERROR_TOO_MANY_OPEN_FILES"),
    (13, "ERROR_INVALID_DATA"),
    (21, "ERROR_NOT_READY"),
    (38, "ERROR_HANDLE_EOF"),
    (80, "ERROR_FILE_EXISTS"),
    (259, "ERROR_NO_MORE_ITEMS"),
    (995, "ERROR_OPERATION_ABORTED"),
    (997, "ERROR_IO_PENDING"),
];

fn lookup(table: &[(u32, &'static str)], v: u32) -> Option<&'static str> {
    table.iter().find(|(k, _)| *k == v).map(|(_, n)| *n)
}

/// The symbolic name of NTSTATUS `v`, if the table has it.
pub fn ntstatus_name(v: u32) -> Option<&'static str> {
    lookup(NTSTATUS, v)
}

/// The symbolic name of Win32 error `v`, if a table has it.
pub fn win32_name(v: u32) -> Option<&'static str> {
    Win32Error(v).name().or_else(|| lookup(WIN32, v))
}

/// The symbolic name of HRESULT `v`: its own, or that of the NTSTATUS (FACILITY_NT_BIT,
/// 0x10000000) or Win32 code (FACILITY_WIN32, 7) inside it.
pub fn hresult_name(v: u32) -> Option<&'static str> {
    const FACILITY_NT_BIT: u32 = 0x1000_0000;
    lookup(HRESULT, v).or_else(|| {
        if v & FACILITY_NT_BIT != 0 {
            ntstatus_name(v & !FACILITY_NT_BIT)
        } else if (v >> 16) & 0x1FFF == 7 {
            win32_name(v & 0xFFFF)
        } else {
            None
        }
    })
}

/// `%!STATUS!` as TraceFmt shows it (module docs).
pub fn show_ntstatus(v: u32) -> String {
    match (v, ntstatus_name(v)) {
        (0, _) => "STATUS_SUCCESS".into(),
        (_, Some(name)) => format!("{v:#010x}({name})"),
        (_, None) => format!("{v:#010x}"),
    }
}

/// `%!HRESULT!` as TraceFmt shows it (module docs).
pub fn show_hresult(v: u32) -> String {
    match (v, hresult_name(v)) {
        (0, _) => "S_OK".into(),
        (_, Some(name)) => format!("{v:#010x}({name})"),
        (_, None) => format!("{v:#010x}"),
    }
}

/// `%!WINERROR!` as TraceFmt shows it (module docs).
pub fn show_winerror(v: u32) -> String {
    match win32_name(v) {
        Some(name) => format!("{v}({name})"),
        None => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_show_their_names_or_hex() {
        assert_eq!(show_ntstatus(0), "STATUS_SUCCESS");
        assert_eq!(
            show_ntstatus(0x8000_000F),
            "0x8000000f(STATUS_DEVICE_POWERED_OFF)"
        );
        assert_eq!(show_ntstatus(0xC0DE_0001), "0xc0de0001");
        assert_eq!(show_hresult(0x8007_0005), "0x80070005(E_ACCESSDENIED)");
        assert_eq!(
            show_hresult(0x8007_0002),
            "0x80070002(ERROR_FILE_NOT_FOUND)"
        );
        assert_eq!(
            show_hresult(0xD000_0022),
            "0xd0000022(STATUS_ACCESS_DENIED)"
        );
        assert_eq!(show_winerror(5), "5(ERROR_ACCESS_DENIED)");
        assert_eq!(show_winerror(12345), "12345");
    }
}
