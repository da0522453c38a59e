//! `EventWriteString` events (EVENT_HEADER_FLAG_STRING_ONLY): the payload is a UTF-16LE
//! string with its NUL (EVT-13); decoders show its text, bounded by the payload whatever its
//! bytes.

use etwsim_decode::fields::string_only_text;

fn utf16(s: &str) -> Vec<u8> {
    s.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

#[test]
fn the_payload_is_read_to_its_nul() {
    // rule: EVT-13
    // rule: EVT-19
    let mut payload = utf16("Service started: 🚀 ok");
    payload.extend([0, 0]);
    assert_eq!(string_only_text(&payload), "Service started: 🚀 ok");
    // What follows the NUL is not part of the string.
    payload.extend(utf16("junk"));
    assert_eq!(string_only_text(&payload), "Service started: 🚀 ok");
    assert_eq!(string_only_text(&[0, 0]), "");
    assert_eq!(string_only_text(&[]), "");
}

#[test]
fn unterminated_odd_and_broken_payloads_decode_bounded() {
    // rule: EVT-13
    let text = utf16("abc");
    // No NUL: the end of the payload ends the string.
    assert_eq!(string_only_text(&text), "abc");
    // An odd last byte is ignored.
    let mut odd = text.clone();
    odd.push(0x41);
    assert_eq!(string_only_text(&odd), "abc");
    assert_eq!(string_only_text(&[0x41]), "");
    // An unpaired surrogate is U+FFFD, not an error.
    let broken = [0x00, 0xD8, 0x41, 0x00];
    assert_eq!(string_only_text(&broken), "\u{FFFD}A");
    // Any bytes at all: never a panic, never more characters than code units.
    let mut seed = 0x2545_F491_u32;
    for len in 0..300 {
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                seed as u8
            })
            .collect();
        let s = string_only_text(&bytes);
        assert!(s.chars().count() <= len / 2, "{len}: {s:?}");
    }
}
