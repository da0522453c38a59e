//! A registry model for etwsim: keys and typed values, `.reg` import and export, the
//! AutoLogger / Global Logger views the boot code reads, and self-relative security
//! descriptors with their access check (`shared/spec/etw-rules.md` §7, §8, §12).
//!
//! # Map
//!
//! | type / function | Windows name | what it is |
//! |---|---|---|
//! | [`Registry`], [`Key`] | `HKEY`, `RegCreateKeyEx`, `RegSetValueEx`, `RegDeleteTree` | the six roots and the key tree; names compare without case and keep theirs |
//! | [`Value`], [`ValueType`] | `REG_SZ`, `REG_DWORD`, … | a value's type and raw bytes (REG-01), with typed readers |
//! | [`Registry::import_reg`], [`ImportOptions`], [`ImportReport`], [`Issue`] | `regedit /s` | a `.reg` file applied to a registry (REG-03 … REG-13, REG-20) |
//! | [`Registry::export_reg`], [`ExportOptions`] | `regedit /e` | a registry as a "Version 5.00" file, UTF-16LE or UTF-8 |
//! | [`autologger_sessions`], [`AutoLoggerSession`], [`AutoLoggerProvider`] | `…\WMI\Autologger\<name>`, `{ProviderGuid}` | each session key as the boot code reads it: value as written, value in force, diagnostics (ALG-01 … ALG-05, REG-14 … REG-25) |
//! | [`global_logger`], [`GlobalLoggerSession`], [`KernelFlags`] | `…\WMI\GlobalLogger`, `EnableKernelFlags` | the Global Logger key (ALG-08, ALG-09, REG-21, REG-22) |
//! | [`Setting`], [`Diagnostic`], [`DiagnosticKind`] | | one value written / in force; what was converted, overridden or ignored, with its rule |
//! | [`SecurityDescriptor`], [`Acl`], [`Ace`], [`Sid`] | `SECURITY_DESCRIPTOR_RELATIVE`, `ACL`, `ACE`, `SID` | the self-relative binary form, both ways |
//! | [`access_check`], [`TokenSids`], [`AccessDecision`] | `AccessCheck` | the DACL evaluation, with the deciding ACE |
//! | [`AccessMask`], [`TraceOperation`] | `WMIGUID_*`, `TRACELOG_*` | the ETW rights (SEC-01) and which operation needs which (SEC-02) |
//! | [`security::stored_descriptor`], [`security::effective_descriptor`] | `…\WMI\Security\<guid>` | descriptors stored in the registry, with the `DefaultTraceSecurityGuid` fallback (SEC-08) |
//! | [`Error`] | | what failed, where (line, value, byte offset), and what was expected |
//!
//! # API themes
//!
//! Nothing here panics on input: bad `.reg` lines are skipped and reported with their line
//! number (or, strictly, returned as [`Error::Syntax`]); bad descriptor bytes are an
//! [`Error::BadSecurityDescriptor`] naming the structure and offset. Readers distinguish
//! *absent* (`Ok(None)`) from *wrong* ([`Error::WrongType`]: "Start is REG_SZ, expected
//! REG_DWORD"). The AutoLogger views never fail: they report instead. The crate depends on
//! `etwsim-types` only (for [`Guid`](etwsim_types::Guid), `LogFileMode`, `Level`…).
//!
//! # Example
//!
//! ```
//! use etwsim_registry::{Registry, Value, autologger_sessions};
//!
//! let text = r#"Windows Registry Editor Version 5.00
//!
//! [HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\WMI\Autologger\Demo]
//! "Start"=dword:00000001
//! "Guid"="{6f3e2a10-0000-4000-8000-000000000001}"
//! "MaximumFileSize"=dword:00000010
//!
//! [HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\WMI\Autologger\Demo\{0d9a6a3c-1111-4222-8333-444455556666}]
//! "Enabled"=dword:00000001
//! "MatchAnyKeyword"=hex(b):ff,00,00,00,00,00,00,00
//! "#;
//! let (mut reg, report) = Registry::from_reg(text.as_bytes())?;
//! assert!(report.issues.is_empty());
//!
//! // Typed reads name the value and both types when the type is wrong.
//! let key = reg.key(r"HKLM\SYSTEM\CurrentControlSet\Control\WMI\Autologger\Demo").unwrap();
//! assert_eq!(key.dword("Start")?, Some(1));
//! assert_eq!(key.qword("Start").unwrap_err().to_string(), "Start is REG_DWORD, expected REG_QWORD");
//!
//! // The boot code's view: defaults, values in force, and what was ignored.
//! let session = &autologger_sessions(&reg)[0];
//! assert!(session.will_start());
//! assert_eq!(session.settings.max_file_size.in_force, 100); // MaximumFileSize is no registry name
//! assert_eq!(session.diagnostics[0].rule, "REG-14");
//! assert_eq!(session.providers[0].match_any_keyword.in_force.0, 0xff);
//!
//! // Export (UTF-16LE with a BOM) and import give back the same registry.
//! reg.set_value(r"HKCU\Software\Demo", "Note", Value::sz("exported"))?;
//! let (again, _) = Registry::from_reg(&reg.export_reg())?;
//! assert_eq!(again, reg);
//! # Ok::<(), etwsim_registry::Error>(())
//! ```
#![forbid(unsafe_code)]

pub mod autologger;
mod error;
mod key;
mod regfile;
pub mod security;
mod value;

pub use autologger::{
    AutoLoggerProvider, AutoLoggerSession, Diagnostic, DiagnosticKind, GlobalLoggerProvider,
    GlobalLoggerSession, KernelFlags, SessionSettings, Setting, autologger_session_named,
    autologger_sessions, expand_environment, global_logger,
};
pub use error::Error;
pub use key::{Key, MAX_DEPTH, MAX_KEY_NAME, MAX_VALUE_NAME, ROOTS, Registry};
pub use regfile::{
    Encoding, ExportEncoding, ExportOptions, Header, ImportOptions, ImportReport, Issue, Outcome,
    Utf8Bom,
};
pub use security::{
    AccessDecision, AccessMask, AccessReason, Ace, AceBody, AceFlags, AceType, Acl, Control,
    SecurityDescriptor, Sid, TokenSids, TraceOperation, access_check,
};
pub use value::{Value, ValueType};
