//! The value types a scenario file uses beyond TOML's own: numbers that may be written as
//! strings (a 64-bit keyword does not fit TOML's signed integers), levels by name, keyword
//! masks by name, durations with units, GUIDs, and lists of flag names.
//!
//! Each has its own serde visitor, so a wrong value gets a message saying what the key takes
//! (toml adds the line and column).

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use std::fmt;
use std::time::Duration;

/// Parses an unsigned number: decimal, `0x` hexadecimal or `0b` binary, `_` separators
/// allowed.
pub(crate) fn parse_u64(text: &str) -> Option<u64> {
    let t = text.trim().replace('_', "");
    let (digits, radix) = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (h, 16)
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        (b, 2)
    } else {
        (t.as_str(), 10)
    };
    if digits.is_empty() || digits.starts_with(['+', '-']) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// An unsigned number written as a TOML integer (`0x` literals included) or a string
/// (`"0xffffffffffffffff"`, for values above `i64::MAX`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Number(pub u64);

impl<'de> Deserialize<'de> for Number {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Number, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Number;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a non-negative integer, or a string holding one (\"0xff\")")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Number, E> {
                u64::try_from(v).map(Number).map_err(|_| {
                    E::custom(format!("{v} is negative; a non-negative integer is needed"))
                })
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Number, E> {
                Ok(Number(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Number, E> {
                parse_u64(v).map(Number).ok_or_else(|| {
                    E::custom(format!(
                        "{v:?} is not a number (decimal, 0x… or 0b…, at most 64 bits)"
                    ))
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// An event or session level: 0–255, or a winmeta name (`"Verbose"`, `"win:Error"`,
/// `"information"`…), case-insensitive.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LevelValue(pub u8);

/// The level a name stands for.
pub(crate) fn level_by_name(name: &str) -> Option<u8> {
    let n = name.trim().to_ascii_lowercase();
    let n = n.strip_prefix("win:").unwrap_or(&n);
    let n = n.strip_prefix("trace_level_").unwrap_or(n);
    Some(match n {
        "logalways" | "log_always" | "none" => 0,
        "critical" | "fatal" => 1,
        "error" => 2,
        "warning" => 3,
        "informational" | "information" | "info" => 4,
        "verbose" => 5,
        _ => return None,
    })
}

impl<'de> Deserialize<'de> for LevelValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<LevelValue, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = LevelValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a level: 0 to 255, or a name (LogAlways, Critical, Error, Warning, Informational, Verbose)")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<LevelValue, E> {
                u8::try_from(v)
                    .map(LevelValue)
                    .map_err(|_| E::custom(format!("level {v} is outside 0..=255")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<LevelValue, E> {
                u8::try_from(v)
                    .map(LevelValue)
                    .map_err(|_| E::custom(format!("level {v} is outside 0..=255")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LevelValue, E> {
                if let Some(n) = parse_u64(v) {
                    return self.visit_u64(n);
                }
                level_by_name(v).map(LevelValue).ok_or_else(|| {
                    E::custom(format!(
                        "unknown level {v:?}: use 0-255 or LogAlways, Critical, Error, Warning, Informational, Verbose"
                    ))
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// One part of a keyword mask: a number, or a keyword name the provider's manifest defines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeywordPart {
    /// A mask.
    Mask(u64),
    /// A keyword name, resolved against the provider's manifest.
    Name(String),
}

/// A keyword mask: a number (`0x3`, `"0x8000000000000000"`), a keyword name, or a list of
/// numbers and names OR-ed together (`["Read", "Local"]`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct KeywordValue(pub Vec<KeywordPart>);

fn keyword_part<E: de::Error>(s: &str) -> Result<KeywordPart, E> {
    if let Some(n) = parse_u64(s) {
        return Ok(KeywordPart::Mask(n));
    }
    let t = s.trim();
    if t.is_empty() {
        return Err(E::custom("an empty keyword name"));
    }
    // A number that parse_u64 refused is no name: say why (issue 33), not "unknown keyword".
    if t.starts_with(|c: char| c.is_ascii_digit())
        && t.chars()
            .all(|c| c.is_ascii_hexdigit() || "xXbB_".contains(c))
    {
        return Err(E::custom(format!(
            "the keyword number {t} does not fit in 64 bits (at most 0xffffffffffffffff)"
        )));
    }
    Ok(KeywordPart::Name(t.to_string()))
}

impl<'de> Deserialize<'de> for KeywordValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<KeywordValue, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeywordValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a keyword mask: a number, a keyword name, or a list of them")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<KeywordValue, E> {
                Number::deserialize(de::value::I64Deserializer::<E>::new(v))
                    .map(|n| KeywordValue(vec![KeywordPart::Mask(n.0)]))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<KeywordValue, E> {
                Ok(KeywordValue(vec![KeywordPart::Mask(v)]))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<KeywordValue, E> {
                Ok(KeywordValue(vec![keyword_part(v)?]))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<KeywordValue, A::Error> {
                let mut parts = Vec::new();
                while let Some(one) = seq.next_element::<KeywordValue>()? {
                    parts.extend(one.0);
                }
                Ok(KeywordValue(parts))
            }
        }
        d.deserialize_any(V)
    }
}

/// The longest single duration a scenario may name: one year of virtual time.
pub(crate) const MAX_DURATION: Duration = Duration::from_secs(366 * 24 * 3600);

/// A duration of virtual time with its unit: `"50us"`, `"15ms"`, `"1s"`, `"2min"`, `"100ns"`
/// (the kernel's clock counts 100 ns; a remainder below that is dropped by the clock).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct DurationValue(pub Duration);

/// Parses `"<integer><unit>"` (`ns`, `us`, `µs`, `ms`, `s`, `min`, `h`).
pub(crate) fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '_'))
        .ok_or_else(|| format!("{text:?} has no unit: write \"{t}us\", \"{t}ms\" or \"{t}s\""))?;
    let (num, unit) = t.split_at(split);
    let n = parse_u64(num).ok_or_else(|| format!("{text:?} does not start with a whole number"))?;
    let per: u64 = match unit.trim() {
        "ns" => 1,
        "us" | "µs" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "min" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        other => {
            return Err(format!(
                "unknown unit {other:?} in {text:?}: use ns, us, ms, s, min or h"
            ));
        }
    };
    let nanos = n
        .checked_mul(per)
        .map(Duration::from_nanos)
        .filter(|d| *d <= MAX_DURATION)
        .ok_or_else(|| format!("{text:?} is longer than a year of virtual time"))?;
    Ok(nanos)
}

impl<'de> Deserialize<'de> for DurationValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<DurationValue, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = DurationValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a duration with its unit, as a string: \"50us\", \"15ms\", \"1s\"")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<DurationValue, E> {
                Err(E::custom(format!(
                    "a duration needs a unit: write \"{v}us\", \"{v}ms\" or \"{v}s\""
                )))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DurationValue, E> {
                parse_duration(v).map(DurationValue).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

/// A GUID string, with or without braces: `"{5eed0001-1234-4567-89ab-cdef00000001}"`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GuidValue(pub etwsim::Guid);

impl<'de> Deserialize<'de> for GuidValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<GuidValue, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = GuidValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a GUID string such as \"{5eed0001-1234-4567-89ab-cdef00000001}\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<GuidValue, E> {
                v.trim().parse().map(GuidValue).map_err(|_| {
                    E::custom(format!(
                        "{v:?} is not a GUID: write 8-4-4-4-12 hex digits, braces optional"
                    ))
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// Flag bits by name or number: `["SEQUENTIAL", "REAL_TIME"]`, `"IGNORE_KEYWORD_0"`, `0x100`.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct FlagsValue(pub Vec<FlagPart>);

/// One part of a [`FlagsValue`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlagPart {
    /// Raw bits.
    Bits(u32),
    /// A name, resolved against the flag type's names.
    Name(String),
}

impl<'de> Deserialize<'de> for FlagsValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<FlagsValue, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = FlagsValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("flag names (a string or a list of strings) or a number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<FlagsValue, E> {
                u32::try_from(v)
                    .map(|b| FlagsValue(vec![FlagPart::Bits(b)]))
                    .map_err(|_| E::custom(format!("{v} does not fit 32 bits")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<FlagsValue, E> {
                if let Some(n) = parse_u64(v) {
                    return self.visit_i64(i64::try_from(n).unwrap_or(-1));
                }
                Ok(FlagsValue(
                    v.split(['|', ','])
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(|s| FlagPart::Name(s.to_string()))
                        .collect(),
                ))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<FlagsValue, A::Error> {
                let mut parts = Vec::new();
                while let Some(one) = seq.next_element::<FlagsValue>()? {
                    parts.extend(one.0);
                }
                Ok(FlagsValue(parts))
            }
        }
        d.deserialize_any(V)
    }
}

/// Resolves flag names against a bitflags type's names: the constant name as written in
/// etwsim (`REAL_TIME`), case-insensitive, with the Windows prefixes accepted
/// (`EVENT_TRACE_REAL_TIME_MODE`, `EVENT_TRACE_FILE_MODE_SEQUENTIAL`,
/// `EVENT_ENABLE_PROPERTY_SID`).
pub(crate) fn resolve_flags(
    value: &FlagsValue,
    names: &[(&'static str, u32)],
    prefixes: &[&str],
    suffixes: &[&str],
) -> Result<u32, String> {
    let mut bits = 0u32;
    for part in &value.0 {
        match part {
            FlagPart::Bits(b) => bits |= b,
            FlagPart::Name(n) => {
                let mut key = n.trim().to_ascii_uppercase().replace(['-', ' '], "_");
                for p in prefixes {
                    if let Some(rest) = key.strip_prefix(p) {
                        key = rest.to_string();
                    }
                }
                for s in suffixes {
                    if let Some(rest) = key.strip_suffix(s) {
                        key = rest.to_string();
                    }
                }
                let found = names.iter().find(|(name, _)| *name == key).ok_or_else(|| {
                    let all: Vec<&str> = names.iter().map(|(n, _)| *n).collect();
                    format!("unknown flag {n:?}; known: {}", all.join(", "))
                })?;
                bits |= found.1;
            }
        }
    }
    Ok(bits)
}

/// A name or a number: a clock type (`"qpc"` or 1), a Win32 error
/// (`"ERROR_INVALID_PARAMETER"` or 87).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NameOrNumber {
    /// A number.
    Number(u64),
    /// A name.
    Name(String),
}

impl<'de> Deserialize<'de> for NameOrNumber {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<NameOrNumber, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = NameOrNumber;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a name or a non-negative number")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<NameOrNumber, E> {
                Number::deserialize(de::value::I64Deserializer::<E>::new(v))
                    .map(|n| NameOrNumber::Number(n.0))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<NameOrNumber, E> {
                Ok(match parse_u64(v) {
                    Some(n) => NameOrNumber::Number(n),
                    None => NameOrNumber::Name(v.trim().to_string()),
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// A process in a PID filter: its scenario name, or a PID.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PidValue {
    /// A PID as a number.
    Pid(u32),
    /// The scenario name of a process; its PID when the enable runs.
    Process(String),
}

impl<'de> Deserialize<'de> for PidValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PidValue, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = PidValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a PID or the name of a process of the scenario")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<PidValue, E> {
                u32::try_from(v)
                    .map(PidValue::Pid)
                    .map_err(|_| E::custom(format!("PID {v} does not fit 32 bits")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<PidValue, E> {
                Ok(PidValue::Process(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_parse_in_three_radixes() {
        assert_eq!(parse_u64("0x10"), Some(16));
        assert_eq!(parse_u64("0b101"), Some(5));
        assert_eq!(parse_u64("1_000"), Some(1000));
        assert_eq!(parse_u64("0xffffffffffffffff"), Some(u64::MAX));
        assert_eq!(parse_u64("-1"), None);
        assert_eq!(parse_u64("0x"), None);
        assert_eq!(parse_u64("abc"), None);
    }

    #[test]
    fn durations_need_units_and_stay_bounded() {
        assert_eq!(parse_duration("50us"), Ok(Duration::from_micros(50)));
        assert_eq!(parse_duration("1s"), Ok(Duration::from_secs(1)));
        assert_eq!(parse_duration("2min"), Ok(Duration::from_secs(120)));
        assert!(parse_duration("50").is_err());
        assert!(parse_duration("5 fortnights").is_err());
        assert!(parse_duration("99999999999999999999h").is_err());
        assert!(parse_duration("400000h").is_err());
    }

    #[test]
    fn levels_by_name() {
        assert_eq!(level_by_name("win:Verbose"), Some(5));
        assert_eq!(level_by_name("WARNING"), Some(3));
        assert_eq!(level_by_name("nope"), None);
    }
}

/// A count an expectation checks: an integer — exactly that many — or a table with
/// `at_least` and/or `at_most` (`{ at_least = 170 }`, `{ at_least = 1, at_most = 9 }`).
/// An exact count `n` is `at_least = at_most = n`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct CountValue {
    /// The smallest count that passes.
    pub at_least: Option<u64>,
    /// The largest count that passes.
    pub at_most: Option<u64>,
}

impl<'de> Deserialize<'de> for CountValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CountValue, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CountValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a count (a non-negative integer) or `{ at_least = n, at_most = m }`")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<CountValue, E> {
                let n = u64::try_from(v).map_err(|_| E::custom("a count cannot be negative"))?;
                Ok(CountValue {
                    at_least: Some(n),
                    at_most: Some(n),
                })
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<CountValue, E> {
                Ok(CountValue {
                    at_least: Some(v),
                    at_most: Some(v),
                })
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<CountValue, A::Error> {
                let mut out = CountValue {
                    at_least: None,
                    at_most: None,
                };
                while let Some(key) = map.next_key::<String>()? {
                    let slot = match key.as_str() {
                        "at_least" => &mut out.at_least,
                        "at_most" => &mut out.at_most,
                        other => {
                            return Err(de::Error::custom(format!(
                                "unknown key `{other}` in a count: use at_least and at_most"
                            )));
                        }
                    };
                    if slot.is_some() {
                        return Err(de::Error::custom(format!("`{key}` is given twice")));
                    }
                    let v: i64 = map.next_value()?;
                    *slot = Some(
                        u64::try_from(v)
                            .map_err(|_| de::Error::custom("a count cannot be negative"))?,
                    );
                }
                match (out.at_least, out.at_most) {
                    (None, None) => Err(de::Error::custom(
                        "an empty count: give at_least, at_most or both",
                    )),
                    (Some(lo), Some(hi)) if lo > hi => Err(de::Error::custom(format!(
                        "at_least {lo} is more than at_most {hi}: no count passes"
                    ))),
                    _ => Ok(out),
                }
            }
        }
        d.deserialize_any(V)
    }
}
