//! `Guid::from_provider_name` against Microsoft's `tracelogging` crate (`Guid::from_name`),
//! the oracle GID-07 asks for, over many names — and where the two must differ, because
//! etwsim follows the simple per-UTF-16-unit upper-casing of GID-04 and the crate the full
//! Unicode mapping.

use etwsim_types::Guid;

/// The crate's GUID as ours: its `to_bytes_le` is the Windows byte order.
fn oracle(name: &str) -> Guid {
    Guid::from_bytes_le(tracelogging::Guid::from_name(name).to_bytes_le())
}

#[test]
fn agrees_with_the_tracelogging_crate_where_the_mappings_agree() {
    // rule: GID-01
    // rule: GID-03
    // rule: GID-09
    let mut names: Vec<String> = [
        "MyProvider",
        "MYPROVIDER",
        "myprovider",
        "",
        " ",
        "  padded  ",
        "a",
        "Microsoft-Windows-Kernel-File",
        "System.Net.Http",
        "MyCompany.MyComponent",
        "Microsoft.Windows.Subsystem.LxCore",
        "AMSI",
        "tab\there",
        "new\nline",
        "0123456789",
        "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
        // accented Latin, Greek, Cyrillic, CJK, Hangul, Arabic, Hebrew, symbols (GID-09: all agree)
        "Café.Provider",
        "ÀÉÎÕÜàéîõüçñ",
        "Ελληνικά.Πάροχος",
        "σς",
        "Русский.Провайдер",
        "Ǆǅǆ",
        "日本語プロバイダー",
        "中文提供程序",
        "한국어",
        "مزود",
        "ספק",
        "€‰™",
        "ı", // dotless i upper-cases to I under both mappings
        "ÿ", // ÿ → Ÿ (U+0178), outside Latin-1
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    names.push("x".repeat(700)); // hundreds of characters, hashed whole (GID-07)
    names.push("Long.Provider.".repeat(40));
    for name in &names {
        assert_eq!(Guid::from_provider_name(name), oracle(name), "{name:?}");
    }
}

#[test]
fn differs_from_the_full_mapping_where_gid_04_says_so() {
    // rule: GID-04
    // rule: GID-09
    // (a) longer full upper case, (b) ligatures: the full mapping rewrites them, etwsim keeps
    // them; (c) Deseret (outside the BMP): etwsim maps each surrogate alone, i.e. not at all.
    for (name, kept_as) in [
        ("straße", "STRAßE"),
        ("ﬁle", "ﬁLE"),
        ("\u{10428}", "\u{10428}"),
    ] {
        let ours = Guid::from_provider_name(name);
        assert_ne!(
            ours,
            oracle(name),
            "{name:?}: the crate upper-cases it fully"
        );
        assert_eq!(ours, hash_without_upper_casing(kept_as), "{name:?}");
    }
    // The full mapping makes ß and SS, ﬁ and FI, 𐐨 and 𐐀 collide; ours does not.
    assert_eq!(oracle("straße"), oracle("STRASSE"));
    assert_ne!(
        Guid::from_provider_name("straße"),
        Guid::from_provider_name("STRASSE")
    );
    assert_ne!(
        Guid::from_provider_name("\u{10428}"),
        Guid::from_provider_name("\u{10400}")
    );
}

/// GID-01's steps 2–5 with no upper-casing at all: the GUID of a name that GID-04's simple
/// mapping leaves unchanged.
fn hash_without_upper_casing(name: &str) -> Guid {
    use sha1::{Digest, Sha1};
    let mut hasher = Sha1::new();
    hasher.update([
        0x48, 0x2C, 0x2D, 0xB2, 0xC3, 0x90, 0x47, 0xC8, 0x87, 0xF8, 0x1A, 0x15, 0xBF, 0xC1, 0x30,
        0xFB,
    ]);
    for unit in name.encode_utf16() {
        hasher.update(unit.to_be_bytes());
    }
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&hasher.finalize()[..16]);
    bytes[7] = (bytes[7] & 0x0F) | 0x50;
    Guid::from_bytes_le(bytes)
}
