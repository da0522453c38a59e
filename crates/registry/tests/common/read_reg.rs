//! The body of the `read_reg` fuzz target (`fuzz/fuzz_targets/read_reg.rs` includes this
//! file), also run by `tests/registry/corpus.rs` over the committed corpus: arbitrary bytes
//! as a `.reg` file, then everything that reads the result. Nothing may panic, and a registry
//! that was imported must come back equal through a UTF-16 export.

use etwsim_registry::security::{WMI_SECURITY_PATH, effective_descriptor};
use etwsim_registry::{
    ExportOptions, ImportOptions, Registry, SecurityDescriptor, Utf8Bom, autologger_sessions,
    global_logger,
};
use etwsim_types::Guid;

/// Feeds `data` to every reader; panics only when an invariant breaks.
pub(crate) fn read_reg(data: &[u8]) {
    for options in [
        ImportOptions::default(),
        ImportOptions::strict().with_utf8_bom(Utf8Bom::Refuse),
    ] {
        let mut reg = Registry::new();
        if reg.import_reg_with(data, &options).is_err() {
            continue;
        }
        // Whatever was imported survives a UTF-16 export exactly (strings all end in a NUL).
        let (back, report) = Registry::from_reg(&reg.export_reg()).expect("own export");
        assert!(report.issues.is_empty(), "{:?}", report.issues);
        assert_eq!(back, reg);
        // UTF-8 export must at least import.
        Registry::from_reg(&reg.export_reg_with(&ExportOptions::utf8())).expect("own export");
        for s in autologger_sessions(&reg) {
            for d in &s.diagnostics {
                let _ = d.to_string();
            }
        }
        if let Some(g) = global_logger(&reg) {
            let _ = g.session_name();
        }
        if let Some(key) = reg.key(WMI_SECURITY_PATH) {
            for (name, _) in key.values() {
                if let Ok(guid) = name.parse::<Guid>() {
                    let _ = effective_descriptor(&reg, guid);
                }
            }
        }
    }
    // The same bytes as a security descriptor.
    if let Ok(sd) = SecurityDescriptor::from_bytes(data) {
        if let Ok(bytes) = sd.to_bytes() {
            let again = SecurityDescriptor::from_bytes(&bytes).expect("own bytes");
            assert_eq!(again.owner, sd.owner);
            assert_eq!(again.dacl, sd.dacl);
        }
    }
}
