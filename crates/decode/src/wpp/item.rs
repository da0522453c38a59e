//! WPP item types: how one argument of a trace message is laid out in the payload and shown.
//!
//! The names are the `MofType`s of WPP's type definitions (`defaultwpp.ini` in the WDK's
//! `WppConfig\Rev1`: `DEFINE_SIMPLE_TYPE`, `DEFINE_CPLX_TYPE`, `DEFINE_FLAVOR`, `CUSTOM_TYPE`),
//! as a TMF file's argument lines carry them (`i, ItemLong -- 10`). Sizes: `ItemChar` /
//! `ItemUChar` 1 byte, `ItemShort` 2, `ItemLong` 4, `ItemLongLong` (and its `X`, `XX`, `O`
//! flavours) 8, `ItemDouble` 8, `ItemPtr` the writer's pointer size, `ItemGuid` 16; the
//! special formats `ItemNTSTATUS`, `ItemWINERROR`, `ItemHRESULT`, `ItemIPAddr`,
//! `ItemNDIS_STATUS`, `ItemNDIS_OID`, `ItemEnum` 4, `ItemPort` 2 (network byte order),
//! `ItemTimestamp`, `ItemTimeDelta`, `ItemWaitTime` 8; `ItemString` / `ItemWString`
//! NUL-terminated 8-bit / UTF-16 text, `ItemPString` / `ItemPWString` a u16 byte count then
//! the text (counted `ANSI_STRING` / `UNICODE_STRING`), `ItemHexDump` a u16 byte count then
//! the bytes, `ItemSid` a SID (`8 + 4 × count` bytes); `ItemListByte/Short/Long(names…)` an
//! index of 1/2/4 bytes into the names (`Name=value` restarts the numbering, as WPP allows),
//! `ItemSetByte/Short/Long(names…)` a bit set whose first name is bit 0.
//!
//! The brief's `ItemULong`, `ItemUShort`, `ItemULongLong` are the unsigned forms (WPP itself
//! writes `ItemLong` for both `%d` and `%u`: the format specification says how to show it).

use std::fmt;

/// Most names an `ItemList…` / `ItemSet…` item may list (an `ItemSetLong` needs 32; real
/// lists of IRP minor functions have about 30).
pub const MAX_LIST_NAMES: usize = 4096;

/// The type of one WPP argument.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ItemType {
    /// `ItemChar`: a signed byte (`%c`, `%hhd`).
    Char,
    /// `ItemUChar`: an unsigned byte.
    UChar,
    /// `ItemShort`: 16 bits, signed.
    Short,
    /// `ItemUShort`: 16 bits, unsigned.
    UShort,
    /// `ItemLong`: 32 bits, signed (the format says `%u` or `%x` when it is not).
    Long,
    /// `ItemULong`: 32 bits, unsigned.
    ULong,
    /// `ItemLongLong`: 64 bits, signed.
    LongLong,
    /// `ItemULongLong`: 64 bits, unsigned.
    ULongLong,
    /// `ItemLongLongX` / `ItemLongLongXX` / `ItemLongLongO`: 64 bits shown in hex / HEX /
    /// octal by their format.
    LongLongHex,
    /// `ItemDouble`: an IEEE 8-byte float.
    Double,
    /// `ItemPtr`: a pointer, 4 or 8 bytes by the writer.
    Ptr,
    /// `ItemString` / `ItemRString`: NUL-terminated 8-bit text (Windows-1252, DEC-12).
    String,
    /// `ItemWString` / `ItemRWString`: NUL-terminated UTF-16LE text.
    WString,
    /// `ItemPString`: a u16 byte count, then 8-bit text.
    PString,
    /// `ItemPWString`: a u16 byte count, then UTF-16LE text.
    PWString,
    /// `ItemGuid` (and `ItemCLSID`, `ItemIID`, `ItemLIBID`): 16 bytes, Windows byte order.
    Guid,
    /// `ItemSid`: a SID, `8 + 4 × SubAuthorityCount` bytes.
    Sid,
    /// `ItemHexDump`: a u16 byte count, then the bytes (`%!BIN!`).
    HexDump,
    /// `ItemNTSTATUS` (`%!STATUS!`): 32 bits, shown with its name.
    NtStatus,
    /// `ItemWINERROR` (`%!WINERROR!`): 32 bits, shown with its name.
    WinError,
    /// `ItemHRESULT` (`%!HRESULT!`): 32 bits, shown with its name.
    HResult,
    /// `ItemNDIS_STATUS` / `ItemNDIS_OID`: 32 bits, shown in hex.
    Ndis,
    /// `ItemIPAddr` (`%!IPADDR!`): an IPv4 address, 4 bytes in network order.
    IpAddr,
    /// `ItemIPV6Addr`: an IPv6 address, 16 bytes.
    IpV6Addr,
    /// `ItemPort` (`%!PORT!`): a u16 in network byte order.
    Port,
    /// `ItemTimestamp` (`%!TIME!`, `%!TIMESTAMP!`, `%!DATE!`, `%!datetime!`): a FILETIME.
    Timestamp,
    /// `ItemTimeDelta` (`%!delta!`) / `ItemWaitTime` (`%!due!`): a signed count of 100-ns.
    TimeDelta,
    /// `ItemChar4` (`%!cccc!`): four 8-bit characters.
    Char4,
    /// `ItemListByte/Short/Long(names…)`: an index of `size` bytes into `names`.
    List {
        /// 1, 2 or 4.
        size: u8,
        /// (value, name), in the order listed.
        names: Vec<(u32, String)>,
    },
    /// `ItemSetByte/Short/Long(names…)`: a bit set of `size` bytes; `names[i]` is bit `i`.
    Set {
        /// 1, 2 or 4.
        size: u8,
        /// Bit names, bit 0 first.
        names: Vec<String>,
    },
    /// `ItemEnum(Name)` / `ItemFlagsEnum(Name)`: a 32-bit value of a C enum whose names live
    /// in the PDB, not the TMF: shown as its number (`flags`: in hex).
    Enum {
        /// The C enum's name.
        name: String,
        /// `ItemFlagsEnum`.
        flags: bool,
    },
    /// A type this decoder does not know: the message's arguments from here on cannot be
    /// read.
    Unknown(String),
}

impl ItemType {
    /// Reads `ItemName` or `ItemName(list)` as a TMF argument line has it.
    ///
    /// # Errors
    /// A list with more than [`MAX_LIST_NAMES`] names, or a `Name=value` whose value is not
    /// a number.
    pub fn parse(text: &str) -> Result<ItemType, String> {
        let text = text.trim();
        let (name, list) = match text.find('(') {
            Some(open) => {
                let inner = text[open + 1..].trim_end();
                let inner = inner.strip_suffix(')').unwrap_or(inner);
                (text[..open].trim(), Some(inner))
            }
            None => (text, None),
        };
        let list_size = |n: &str| match n {
            "ItemListByte" | "ItemSetByte" => Some(1),
            "ItemListShort" | "ItemSetShort" => Some(2),
            "ItemListLong" | "ItemSetLong" => Some(4),
            _ => None,
        };
        if let (Some(size), Some(list)) = (list_size(name), list) {
            let names = split_names(list)?;
            return Ok(if name.starts_with("ItemSet") {
                ItemType::Set {
                    size,
                    names: names.into_iter().map(|(_, n, _)| n).collect(),
                }
            } else {
                let mut next = 0u32;
                let mut out = Vec::with_capacity(names.len());
                for (_, n, value) in names {
                    let v = value.unwrap_or(next);
                    out.push((v, n));
                    next = v.wrapping_add(1);
                }
                ItemType::List { size, names: out }
            });
        }
        Ok(match (name, list) {
            ("ItemEnum" | "ItemFlagsEnum", l) => ItemType::Enum {
                name: l.unwrap_or("").trim().to_string(),
                flags: name == "ItemFlagsEnum",
            },
            ("ItemChar", None) => ItemType::Char,
            ("ItemUChar", None) => ItemType::UChar,
            ("ItemShort", None) => ItemType::Short,
            ("ItemUShort", None) => ItemType::UShort,
            ("ItemLong", None) => ItemType::Long,
            ("ItemULong", None) => ItemType::ULong,
            ("ItemLongLong", None) => ItemType::LongLong,
            ("ItemULongLong", None) => ItemType::ULongLong,
            ("ItemLongLongX" | "ItemLongLongXX" | "ItemLongLongO", None) => ItemType::LongLongHex,
            ("ItemDouble", None) => ItemType::Double,
            ("ItemPtr", None) => ItemType::Ptr,
            ("ItemString" | "ItemRString", None) => ItemType::String,
            ("ItemWString" | "ItemRWString", None) => ItemType::WString,
            ("ItemPString", None) => ItemType::PString,
            ("ItemPWString", None) => ItemType::PWString,
            ("ItemGuid" | "ItemGUID" | "ItemCLSID" | "ItemIID" | "ItemLIBID", None) => {
                ItemType::Guid
            }
            ("ItemSid" | "ItemSID", None) => ItemType::Sid,
            ("ItemHexDump", None) => ItemType::HexDump,
            ("ItemNTSTATUS", None) => ItemType::NtStatus,
            ("ItemWINERROR", None) => ItemType::WinError,
            ("ItemHRESULT", None) => ItemType::HResult,
            ("ItemNDIS_STATUS" | "ItemNDIS_OID", None) => ItemType::Ndis,
            ("ItemIPAddr", None) => ItemType::IpAddr,
            ("ItemIPV6Addr", None) => ItemType::IpV6Addr,
            ("ItemPort", None) => ItemType::Port,
            ("ItemTimestamp", None) => ItemType::Timestamp,
            ("ItemTimeDelta" | "ItemWaitTime", None) => ItemType::TimeDelta,
            ("ItemChar4", None) => ItemType::Char4,
            _ => ItemType::Unknown(text.chars().take(128).collect()),
        })
    }

    /// Bytes the value takes when that does not depend on the value.
    pub fn fixed_size(&self, pointer_size: u8) -> Option<usize> {
        Some(match self {
            ItemType::Char | ItemType::UChar => 1,
            ItemType::Short | ItemType::UShort | ItemType::Port => 2,
            ItemType::Long
            | ItemType::ULong
            | ItemType::NtStatus
            | ItemType::WinError
            | ItemType::HResult
            | ItemType::Ndis
            | ItemType::IpAddr
            | ItemType::Char4
            | ItemType::Enum { .. } => 4,
            ItemType::LongLong
            | ItemType::ULongLong
            | ItemType::LongLongHex
            | ItemType::Double
            | ItemType::Timestamp
            | ItemType::TimeDelta => 8,
            ItemType::Ptr => usize::from(pointer_size),
            ItemType::Guid | ItemType::IpV6Addr => 16,
            ItemType::List { size, .. } | ItemType::Set { size, .. } => usize::from(*size),
            ItemType::String
            | ItemType::WString
            | ItemType::PString
            | ItemType::PWString
            | ItemType::Sid
            | ItemType::HexDump
            | ItemType::Unknown(_) => return None,
        })
    }

    /// Whether the value is an integer a numeric format specification (`%d`, `%x`…) may
    /// show as a number.
    pub(crate) fn is_integer(&self) -> bool {
        matches!(
            self,
            ItemType::Char
                | ItemType::UChar
                | ItemType::Short
                | ItemType::UShort
                | ItemType::Long
                | ItemType::ULong
                | ItemType::LongLong
                | ItemType::ULongLong
                | ItemType::LongLongHex
                | ItemType::Ptr
                | ItemType::NtStatus
                | ItemType::WinError
                | ItemType::HResult
                | ItemType::Ndis
                | ItemType::Port
                | ItemType::List { .. }
                | ItemType::Set { .. }
                | ItemType::Enum { .. }
        )
    }

    /// Whether the value is a signed integer (for `%s` and `%d`).
    pub(crate) fn is_signed(&self) -> bool {
        matches!(
            self,
            ItemType::Char
                | ItemType::Short
                | ItemType::Long
                | ItemType::LongLong
                | ItemType::HResult
                | ItemType::TimeDelta
        )
    }
}

impl fmt::Display for ItemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, kind: &str, size: u8, names: &[String]| {
            let width = match size {
                1 => "Byte",
                2 => "Short",
                _ => "Long",
            };
            write!(f, "Item{kind}{width}({})", names.join(","))
        };
        match self {
            ItemType::List { size, names } => {
                let names: Vec<String> = names.iter().map(|(_, n)| n.clone()).collect();
                list(f, "List", *size, &names)
            }
            ItemType::Set { size, names } => list(f, "Set", *size, names),
            ItemType::Enum { name, flags } => {
                let kind = if *flags { "FlagsEnum" } else { "Enum" };
                write!(f, "Item{kind}({name})")
            }
            ItemType::Unknown(name) => f.write_str(name),
            other => f.write_str(match other {
                ItemType::Char => "ItemChar",
                ItemType::UChar => "ItemUChar",
                ItemType::Short => "ItemShort",
                ItemType::UShort => "ItemUShort",
                ItemType::Long => "ItemLong",
                ItemType::ULong => "ItemULong",
                ItemType::LongLong => "ItemLongLong",
                ItemType::ULongLong => "ItemULongLong",
                ItemType::LongLongHex => "ItemLongLongX",
                ItemType::Double => "ItemDouble",
                ItemType::Ptr => "ItemPtr",
                ItemType::String => "ItemString",
                ItemType::WString => "ItemWString",
                ItemType::PString => "ItemPString",
                ItemType::PWString => "ItemPWString",
                ItemType::Guid => "ItemGuid",
                ItemType::Sid => "ItemSid",
                ItemType::HexDump => "ItemHexDump",
                ItemType::NtStatus => "ItemNTSTATUS",
                ItemType::WinError => "ItemWINERROR",
                ItemType::HResult => "ItemHRESULT",
                ItemType::Ndis => "ItemNDIS_STATUS",
                ItemType::IpAddr => "ItemIPAddr",
                ItemType::IpV6Addr => "ItemIPV6Addr",
                ItemType::Port => "ItemPort",
                ItemType::Timestamp => "ItemTimestamp",
                ItemType::TimeDelta => "ItemTimeDelta",
                _ => "ItemChar4",
            }),
        }
    }
}

/// The names of a list: `a, b, c=5, d` → (position, name, explicit value).
fn split_names(list: &str) -> Result<Vec<(usize, String, Option<u32>)>, String> {
    let mut out = Vec::new();
    for (i, part) in list.split(',').enumerate() {
        if i >= MAX_LIST_NAMES {
            return Err(format!("a list of more than {MAX_LIST_NAMES} names"));
        }
        let part = part.trim();
        match part.split_once('=') {
            Some((name, value)) => {
                let value = parse_number(value.trim())
                    .ok_or_else(|| format!("list value {:?} is not a number", value.trim()))?;
                out.push((i, name.trim().to_string(), Some(value)));
            }
            None => out.push((i, part.to_string(), None)),
        }
    }
    Ok(out)
}

/// A decimal or `0x` hexadecimal number; a leading `-` wraps (as a C enum's `-1`).
pub(crate) fn parse_number(text: &str) -> Option<u32> {
    let (neg, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let v = match digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
        None => digits.parse::<u32>().ok()?,
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_number_from_zero_and_restart_at_a_value() {
        let t = ItemType::parse("ItemListLong(Low, Mid=5, High)").unwrap();
        assert_eq!(
            t,
            ItemType::List {
                size: 4,
                names: vec![(0, "Low".into()), (5, "Mid".into()), (6, "High".into())]
            }
        );
        assert_eq!(t.fixed_size(8), Some(4));
        assert!(ItemType::parse("ItemListByte(a=x)").is_err());
        assert_eq!(
            ItemType::parse("ItemFrobnicate"),
            Ok(ItemType::Unknown("ItemFrobnicate".into()))
        );
    }
}
