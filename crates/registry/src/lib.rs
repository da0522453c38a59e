//! A registry model for etwsim: keys and typed values, `.reg` import and export, the
//! AutoLogger / Global Logger views the boot code reads, and self-relative security
//! descriptors with their access check.
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
