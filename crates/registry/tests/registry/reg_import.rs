//! The `.reg` grammar of `shared/spec/etw-rules.md` §12.2, line by line.

use etwsim_registry::{
    Encoding, Error, Header, ImportOptions, Outcome, Registry, Utf8Bom, Value, ValueType,
};

const K: &str = r"HKEY_LOCAL_MACHINE\Software\Test";

/// Imports `body` after a 5.00 header (ANSI/UTF-8); panics on a header error (tests only).
fn import(body: &str) -> (Registry, etwsim_registry::ImportReport) {
    let text = format!("Windows Registry Editor Version 5.00\r\n\r\n{body}");
    Registry::from_reg(text.as_bytes()).expect("a registry script")
}

fn utf16(text: &str) -> Vec<u8> {
    let mut out = vec![0xFF, 0xFE];
    out.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    out
}

fn value(reg: &Registry, name: &str) -> Option<Value> {
    reg.value(K, name).cloned()
}

#[test]
fn every_value_type_has_its_reg_spelling() {
    // rule: REG-01
    let (reg, report) = import(
        "[HKEY_LOCAL_MACHINE\\Software\\Test]\n\
         \"none\"=hex(0):01\n\
         \"sz\"=\"text\"\n\
         \"sz1\"=hex(1):41,00\n\
         \"expand\"=hex(2):25,00,41,00,25,00,00,00\n\
         \"bin\"=hex:01,02\n\
         \"dw\"=dword:0000002a\n\
         \"dwbe\"=hex(5):00,00,00,2a\n\
         \"link\"=hex(6):41,00\n\
         \"multi\"=hex(7):61,00,62,00,00\n\
         \"res\"=hex(8):01\n\
         \"full\"=hex(9):02\n\
         \"req\"=hex(a):03\n\
         \"qw\"=hex(b):2a,00,00,00,00,00,00,00\n\
         \"odd\"=hex(1234abcd):ff\n",
    );
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    let types: Vec<(String, u32)> = reg
        .key(K)
        .unwrap()
        .values()
        .map(|(n, v)| (n.to_owned(), v.ty().0))
        .collect();
    let names = [
        "none", "sz", "sz1", "expand", "bin", "dw", "dwbe", "link", "multi", "res", "full", "req",
        "qw", "odd",
    ];
    let expected = [0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0x1234_abcd];
    for ((name, ty), (want_name, want_ty)) in types.iter().zip(names.iter().zip(expected)) {
        assert_eq!((name.as_str(), *ty), (*want_name, want_ty));
    }
    assert_eq!(value(&reg, "sz"), Some(Value::sz("text")));
    assert_eq!(value(&reg, "sz1"), Some(Value::sz("A")));
    assert_eq!(value(&reg, "dw").unwrap().to_dword(), Some(42));
    assert_eq!(value(&reg, "dwbe").unwrap().to_dword_big_endian(), Some(42));
    assert_eq!(value(&reg, "qw").unwrap().to_qword(), Some(42));
    assert_eq!(
        value(&reg, "multi").unwrap().to_multi_sz(),
        Some(vec!["a".to_owned(), "b".to_owned()])
    );
    // There is no qword: form.
    let (reg, report) = import("[HKEY_LOCAL_MACHINE\\Software\\Test]\n\"q\"=qword:1\n");
    assert_eq!(value(&reg, "q"), None);
    assert_eq!(report.issues.len(), 1);
}

#[test]
fn utf16_with_bom_and_ansi_files_both_import_with_any_line_ends() {
    // rule: REG-03
    let body = "Windows Registry Editor Version 5.00\r\n\r\n[HKEY_LOCAL_MACHINE\\Software\\Test]\r\"a\"=\"é\"\n\"b\"=dword:1\r\n";
    let (reg16, report16) = Registry::from_reg(&utf16(body)).unwrap();
    assert_eq!(report16.encoding, Encoding::Utf16Le);
    let (reg8, report8) = Registry::from_reg(body.as_bytes()).unwrap();
    assert_eq!(report8.encoding, Encoding::Utf8);
    assert_eq!(reg16, reg8);
    assert_eq!(value(&reg8, "a"), Some(Value::sz("é")));
    assert_eq!(value(&reg8, "b"), Some(Value::dword(1)));
    // Bytes that are not UTF-8 are the Windows-1252 code page.
    let mut latin = b"REGEDIT4\n[HKEY_LOCAL_MACHINE\\Software\\Test]\n\"a\"=\"".to_vec();
    latin.extend([0xE9, 0x80, b'"', b'\n']);
    let (reg, report) = Registry::from_reg(&latin).unwrap();
    assert_eq!(report.encoding, Encoding::Windows1252);
    assert_eq!(report.header, Header::Regedit4);
    assert_eq!(value(&reg, "a"), Some(Value::sz("é€")));
    // UTF-16 without its BOM is not recognised: the header does not match.
    let no_bom = &utf16(body)[2..];
    assert!(matches!(
        Registry::from_reg(no_bom),
        Err(Error::NotARegistryScript { .. })
    ));
}

#[test]
fn the_header_must_be_the_first_line_exactly() {
    // rule: REG-04
    for ok in [
        "Windows Registry Editor Version 5.00\n[HKEY_CURRENT_USER\\A]\n",
        "  \tREGEDIT4\n[HKEY_CURRENT_USER\\A]\n",
    ] {
        let (reg, report) = Registry::from_reg(ok.as_bytes()).unwrap();
        assert!(report.imported());
        assert!(reg.key(r"HKEY_CURRENT_USER\A").is_some(), "{ok:?}");
    }
    for not_a_script in [
        "",
        "\nREGEDIT4\n[HKEY_CURRENT_USER\\A]\n",
        "windows registry editor version 5.00\n",
        "Windows Registry Editor Version 5.0\n",
        "[HKEY_CURRENT_USER\\A]\n",
    ] {
        let e = Registry::from_reg(not_a_script.as_bytes()).unwrap_err();
        assert!(
            matches!(e, Error::NotARegistryScript { .. }),
            "{not_a_script:?}: {e}"
        );
        assert!(e.to_string().starts_with("line 1: expected the header"));
    }
    assert_eq!(
        Registry::from_reg(b"REGEDIT\n[HKEY_CURRENT_USER\\A]\n").unwrap_err(),
        Error::Windows31Format
    );
    // Any other REGEDIT… header is accepted, but nothing is imported.
    let (reg, report) = Registry::from_reg(b"REGEDIT 4\n[HKEY_CURRENT_USER\\A]\n").unwrap();
    assert_eq!(report.header, Header::Unsupported);
    assert!(!report.imported());
    assert_eq!(reg, Registry::new());
    // A UTF-8 BOM: skipped by default, refused as Wine does on request.
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend_from_slice(b"REGEDIT4\n[HKEY_CURRENT_USER\\A]\n");
    let (reg, _) = Registry::from_reg(&bom).unwrap();
    assert!(reg.key(r"HKCU\A").is_some());
    let wine = ImportOptions::default().with_utf8_bom(Utf8Bom::Refuse);
    assert_eq!(
        Registry::new().import_reg_with(&bom, &wine),
        Err(Error::Utf8BomRefused)
    );
}

#[test]
fn lines_are_classified_by_their_first_character() {
    // rule: REG-05
    let (reg, report) = import(
        "; a comment\n\
         \n\
         \t  [HKEY_LOCAL_MACHINE\\Software\\Test]\n\
         \t@=\"default\"\n\
         \x20\"named\"=dword:1\n\
         ; \"commented\"=dword:2\n\
         garbage=dword:3\n\
         #hash\n",
    );
    let key = reg.key(K).unwrap();
    assert_eq!(key.values().count(), 2);
    assert_eq!(key.value(""), Some(&Value::sz("default")));
    assert_eq!(key.value("named"), Some(&Value::dword(1)));
    // The two unrecognised lines are reported (and ignored); comments and blanks are not.
    let lines: Vec<usize> = report.issues.iter().map(|i| i.line).collect();
    assert_eq!(lines, [9, 10]);
    assert!(report.issues.iter().all(|i| i.outcome == Outcome::Skipped));
}

#[test]
fn key_lines_create_delete_and_select_the_current_key() {
    // rule: REG-06
    let (reg, report) = import(
        "[hkey_local_machine\\Software\\Test]\n\
         \"a\"=dword:1\n\
         [ HKEY_LOCAL_MACHINE\\Software\\Other]\n\
         \"b\"=dword:2\n\
         [HKEY_LOCAL_MACHINE\\Software\\Unclosed\n\
         \"c\"=dword:3\n\
         [HKLM\\Software\\Abbreviated]\n\
         \"d\"=dword:4\n\
         [HKEY_LOCAL_MACHINE\\Software\\Br]ack]et] trailing\n\
         \"e\"=dword:5\n",
    );
    // `[ ` and a line without `]` leave the current key unchanged.
    let key = reg.key(K).unwrap();
    assert_eq!(key.value("a"), Some(&Value::dword(1)));
    assert_eq!(key.value("b"), Some(&Value::dword(2)));
    assert_eq!(key.value("c"), Some(&Value::dword(3)));
    assert!(reg.key(r"HKLM\Software\Other").is_none());
    // An unknown root (abbreviations included) leaves no current key: `d` is dropped.
    assert!(reg.key(r"HKLM\Software\Abbreviated").is_none());
    assert!(key.value("d").is_none());
    assert!(
        report
            .issues
            .iter()
            .any(|i| i.line == 9 && i.outcome == Outcome::NoCurrentKey)
    );
    assert!(
        report
            .issues
            .iter()
            .any(|i| i.line == 10 && i.outcome == Outcome::Skipped)
    );
    // The path runs to the last `]`.
    assert_eq!(
        reg.value(r"HKLM\Software\Br]ack]et", "e"),
        Some(&Value::dword(5))
    );

    // `[-…]` deletes the subtree and leaves no current key.
    let mut reg = reg;
    reg.import_reg(
        b"REGEDIT4\n[-HKEY_LOCAL_MACHINE\\Software]\n\"orphan\"=dword:1\n[-HKEY_LOCAL_MACHINE\\Nowhere]\n",
    )
    .unwrap();
    assert!(reg.key(r"HKLM\Software").is_none());
    assert!(reg.key("HKLM").unwrap().is_empty());
}

#[test]
fn value_lines_take_spaces_around_the_equals_and_delete_with_a_dash() {
    // rule: REG-07
    let (mut reg, report) = import(
        "[HKEY_LOCAL_MACHINE\\Software\\Test]\n\
         \"a\" \t= \t\"x\" \t\n\
         @ = dword:7\n\
         \"b\"=dword:1\n\
         \"c\"=dword:2\n\
         \"with \\\"quote\\\"\"=dword:3\n",
    );
    assert!(report.issues.is_empty(), "{:?}", report.issues);
    assert_eq!(value(&reg, "a"), Some(Value::sz("x")));
    assert_eq!(value(&reg, ""), Some(Value::dword(7)));
    assert_eq!(value(&reg, "with \"quote\""), Some(Value::dword(3)));
    let report = reg
        .import_reg(
            b"REGEDIT4\n[HKEY_LOCAL_MACHINE\\Software\\Test]\n\"b\"=-\n\"C\" = -  ; gone\n@=-\n\"missing\"=-\n\"a\"=-x\n",
        )
        .unwrap();
    assert_eq!(value(&reg, "b"), None);
    assert_eq!(value(&reg, "c"), None);
    assert_eq!(value(&reg, ""), None);
    // `=-` followed by anything but a comment is not a deletion.
    assert_eq!(value(&reg, "a"), Some(Value::sz("x")));
    assert_eq!(report.issues.len(), 1);
    assert_eq!(report.issues[0].line, 7);
}

#[test]
fn data_prefixes_are_case_sensitive() {
    // rule: REG-08
    let (reg, report) = import(
        "[HKEY_LOCAL_MACHINE\\Software\\Test]\n\
         \"a\"=DWORD:1\n\
         \"b\"=HEX:01\n\
         \"c\"=hex(0x4):01,00,00,00\n\
         \"d\"=hex(4):01,00,00,00\n\
         \"e\"=hex(B):01,00,00,00,00,00,00,00\n\
         \"f\"=hex():01\n\
         \"g\"=hex(ffffffff):01\n\
         \"h\"=hex(100000000):01\n\
         \"i\"=str:\"x\"\n",
    );
    let key = reg.key(K).unwrap();
    let names: Vec<&str> = key.values().map(|(n, _)| n).collect();
    assert_eq!(names, ["d", "e", "g"]);
    assert_eq!(key.value("d").unwrap().to_dword(), Some(1));
    assert_eq!(key.value("e").unwrap().ty(), ValueType::QWORD);
    assert_eq!(key.value("g").unwrap().ty(), ValueType(u32::MAX));
    let skipped: Vec<usize> = report.issues.iter().map(|i| i.line).collect();
    assert_eq!(skipped, [4, 5, 6, 9, 11, 12]);
}

#[test]
fn quoted_strings_unescape_and_refuse_nul_and_a_final_backslash() {
    // rule: REG-09
    let (reg, report) = import(
        "[HKEY_LOCAL_MACHINE\\Software\\Test]\n\
         \"esc\"=\"a\\\\b\\\"c\\nd\\re\"\n\
         \"kept\"=\"\\q\"\n\
         \"nul\"=\"a\\0b\"\n\
         \"end\"=\"abc\\\n\
         \"after\"=\"x\" ; comment\n\
         \"junk\"=\"x\" y\n\
         \"na\\\\me\"=\"v\"\n",
    );
    assert_eq!(value(&reg, "esc"), Some(Value::sz("a\\b\"c\nd\re")));
    assert_eq!(value(&reg, "kept"), Some(Value::sz("q")));
    assert_eq!(value(&reg, "nul"), None);
    assert_eq!(value(&reg, "end"), None);
    assert_eq!(value(&reg, "after"), Some(Value::sz("x")));
    assert_eq!(value(&reg, "junk"), None);
    assert_eq!(value(&reg, "na\\me"), Some(Value::sz("v")));
    // REG_SZ data is UTF-16 with its terminating NUL.
    assert_eq!(value(&reg, "after").unwrap().data(), &[b'x', 0, 0, 0]);
    let outcomes: Vec<(usize, Outcome)> =
        report.issues.iter().map(|i| (i.line, i.outcome)).collect();
    assert_eq!(
        outcomes,
        [
            (5, Outcome::Kept),
            (6, Outcome::Skipped),
            (7, Outcome::Skipped),
            (9, Outcome::Skipped)
        ]
    );
}

#[test]
fn dword_takes_one_to_eight_hex_digits_and_nothing_else() {
    // rule: REG-10
    let (reg, report) = import(
        "[HKEY_LOCAL_MACHINE\\Software\\Test]\n\
         \"a\"=dword:  FfFf ; comment\n\
         \"b\"=dword:1\n\
         \"c\"=dword:123456789\n\
         \"d\"=dword:\n\
         \"e\"=dword:0x10\n\
         \"f\"=dword:10 z\n\
         \"g\"=dword:ffffffff\n",
    );
    assert_eq!(value(&reg, "a"), Some(Value::dword(0xffff)));
    assert_eq!(value(&reg, "b"), Some(Value::dword(1)));
    assert_eq!(value(&reg, "g"), Some(Value::dword(u32::MAX)));
    for gone in ["c", "d", "e", "f"] {
        assert_eq!(value(&reg, gone), None, "{gone}");
    }
    assert_eq!(report.issues.len(), 4);
    assert!(
        report.issues[0]
            .expected
            .starts_with("1 to 8 hexadecimal digits")
    );
}

#[test]
fn hex_lists_continue_after_a_comma_and_a_backslash() {
    // rule: REG-11
    let (reg, report) = import(
        "[HKEY_LOCAL_MACHINE\\Software\\Test]\n\
         \"empty\"=hex:\n\
         \"spaced\"=hex:01, 02,\t03 ; comment\n\
         \"cont\"=hex:01,02,\\ ; continues\n\
         \n\
         ; a comment inside the continuation\n\
         \x20   03,04,\\\n\
         05\n\
         \"big\"=hex:100\n\
         \"dropped\"=hex:01,\\\n\
         \"after\"=dword:1\n\
         \"nocomma\"=hex:01 02\n\
         \"slash\"=hex:01\\\n\
         \"eof\"=hex:0a,\\\n",
    );
    assert_eq!(value(&reg, "empty"), Some(Value::binary(vec![])));
    assert_eq!(value(&reg, "spaced"), Some(Value::binary(vec![1, 2, 3])));
    assert_eq!(
        value(&reg, "cont"),
        Some(Value::binary(vec![1, 2, 3, 4, 5]))
    );
    assert_eq!(value(&reg, "big"), None);
    // A continuation line that does not start with a hex digit drops the value (and is then
    // read as a line of its own).
    assert_eq!(value(&reg, "dropped"), None);
    assert_eq!(value(&reg, "after"), Some(Value::dword(1)));
    assert_eq!(value(&reg, "nocomma"), None);
    assert_eq!(value(&reg, "slash"), None);
    // End of file inside a continuation stores what was read.
    assert_eq!(value(&reg, "eof"), Some(Value::binary(vec![10])));
    let lines: Vec<usize> = report.issues.iter().map(|i| i.line).collect();
    assert_eq!(lines, [11, 13, 14, 15]);
}

#[test]
fn string_typed_hex_is_terminated_and_converted_from_ansi() {
    // rule: REG-12
    let body = "Windows Registry Editor Version 5.00\r\n[HKEY_LOCAL_MACHINE\\Software\\Test]\r\n\
                \"u\"=hex(2):41,00,42,00\r\n\
                \"t\"=hex(2):41,00,00,00\r\n\
                \"m\"=hex(7):61,00,00,00\r\n\
                \"e\"=hex(1):\r\n\
                \"b\"=hex(3):41,42\r\n";
    // UTF-16 file: the bytes are UTF-16LE; a NUL is appended when missing.
    let (reg, _) = Registry::from_reg(&utf16(body)).unwrap();
    assert_eq!(value(&reg, "u").unwrap().data(), &[0x41, 0, 0x42, 0, 0, 0]);
    assert_eq!(value(&reg, "t").unwrap().data(), &[0x41, 0, 0, 0]);
    assert_eq!(value(&reg, "m").unwrap().data(), &[0x61, 0, 0, 0]);
    assert_eq!(value(&reg, "e").unwrap().data(), &[] as &[u8]);
    assert_eq!(value(&reg, "b").unwrap().data(), &[0x41, 0x42]);
    // ANSI file: the bytes are text of the file's code page, converted to UTF-16.
    let ansi = "REGEDIT4\n[HKEY_LOCAL_MACHINE\\Software\\Test]\n\
                \"u\"=hex(2):25,53,25\n\
                \"m\"=hex(7):61,00,c3,a9,00,00\n\
                \"s\"=hex(1):41,00\n\
                \"b\"=hex:41,42\n";
    let (reg, _) = Registry::from_reg(ansi.as_bytes()).unwrap();
    assert_eq!(value(&reg, "u"), Some(Value::expand_sz("%S%")));
    assert_eq!(value(&reg, "m"), Some(Value::multi_sz(&["a", "é"])));
    assert_eq!(value(&reg, "s"), Some(Value::sz("A")));
    assert_eq!(value(&reg, "b"), Some(Value::binary(vec![0x41, 0x42])));
}

#[test]
fn a_bad_line_is_skipped_and_the_rest_imported_unless_strict() {
    // rule: REG-13
    let text = "REGEDIT4\n[HKEY_LOCAL_MACHINE\\Software\\Test]\n\"a\"=dword:1\n\"a\"=dword:xyz\n\"b\"=hex:01,zz\n\"c\"=dword:3\n";
    let (reg, report) = Registry::from_reg(text.as_bytes()).unwrap();
    // The rejected line writes nothing: `a` keeps its earlier value, `b` is not created.
    assert_eq!(value(&reg, "a"), Some(Value::dword(1)));
    assert_eq!(value(&reg, "b"), None);
    assert_eq!(value(&reg, "c"), Some(Value::dword(3)));
    assert_eq!(report.issues.len(), 2);
    assert_eq!(report.issues[1].line, 5);
    assert_eq!(report.issues[1].found, "zz");
    assert_eq!(
        report.issues[1].to_string(),
        "line 5: expected a hexadecimal byte 00 to ff, found \"zz\" (skipped)"
    );
    // Strict: the first rejected line is an error with its line number, and nothing changes.
    let mut reg = Registry::new();
    reg.set_value(K, "keep", Value::dword(9)).unwrap();
    let before = reg.clone();
    let err = reg
        .import_reg_with(text.as_bytes(), &ImportOptions::strict())
        .unwrap_err();
    assert_eq!(
        err,
        Error::Syntax {
            line: 4,
            expected: "1 to 8 hexadecimal digits after dword:, then only a `;` comment",
            found: "xyz".into(),
        }
    );
    assert_eq!(reg, before);
    // A clean file imports the same under strict as without.
    let clean = "REGEDIT4\n[HKEY_LOCAL_MACHINE\\Software\\Test]\n\"a\"=dword:1\n\"k\"=\"\\q\"\n";
    let report = reg
        .import_reg_with(clean.as_bytes(), &ImportOptions::strict())
        .unwrap();
    assert_eq!(report.issues[0].outcome, Outcome::Kept);
    assert_eq!(value(&reg, "a"), Some(Value::dword(1)));
}

#[test]
fn later_files_override_earlier_ones_value_by_value() {
    // rule: REG-20
    let mut reg = Registry::new();
    reg.import_reg(
        b"REGEDIT4\n[HKEY_LOCAL_MACHINE\\Software\\Test]\n\"a\"=dword:1\n\"b\"=dword:2\n[HKEY_LOCAL_MACHINE\\Software\\Gone]\n\"x\"=dword:1\n",
    )
    .unwrap();
    reg.import_reg(
        b"REGEDIT4\n[HKEY_LOCAL_MACHINE\\Software\\Test]\n\"b\"=dword:3\n\"a\"=-\n\"c\"=dword:4\n[-HKEY_LOCAL_MACHINE\\Software\\Gone]\n",
    )
    .unwrap();
    let key = reg.key(K).unwrap();
    let values: Vec<(&str, &Value)> = key.values().collect();
    assert_eq!(values, [("b", &Value::dword(3)), ("c", &Value::dword(4))]);
    assert!(reg.key(r"HKLM\Software\Gone").is_none());
}

#[test]
fn value_lines_before_any_key_are_dropped_with_their_continuations() {
    let (reg, report) = import("\"a\"=hex:01,\\\n  02\n\"b\"=dword:1\n[HKEY_USERS\\X]\n");
    assert!(reg.key(r"HKEY_USERS\X").unwrap().is_empty());
    let lines: Vec<usize> = report.issues.iter().map(|i| i.line).collect();
    assert_eq!(lines, [3, 5]);
}
