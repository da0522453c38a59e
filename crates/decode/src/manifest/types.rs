//! Manifest `inType` / `outType` names and their TDH numbers (DEC-18, DEC-19), and the
//! predefined `win:` names of winmeta (DEC-21, DEC-22).

/// A manifest `inType`: how the payload bytes are read (TDH_INTYPE_* numbers, DEC-09).
///
/// An open newtype: the constants are the types a manifest can name (DEC-18).
#[doc(alias = "TDH_IN_TYPE")]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct InType(pub u16);

/// A manifest `outType`: how a value is shown (TDH_OUTTYPE_* numbers, DEC-10).
#[doc(alias = "TDH_OUT_TYPE")]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OutType(pub u16);

macro_rules! named_numbers {
    ($ty:ident, $doc:literal; $( $konst:ident = $value:literal, $name:literal; )*) => {
        impl $ty {
            $(
                #[doc = concat!("`", $name, "` (", stringify!($value), ").")]
                pub const $konst: $ty = $ty($value);
            )*

            /// Every name the manifest schema gives, with its number.
            const NAMES: &'static [(&'static str, u16)] = &[ $( ($name, $value), )* ];

            #[doc = concat!("The ", $doc, " for a manifest name (`win:UInt32`), or one of the other spellings real manifests use and Microsoft documents (see [`resolve`](Self::resolve)); `None` for an unknown name.")]
            pub fn from_name(name: &str) -> Option<$ty> {
                match name {
                    $( $name => Some($ty($value)), )*
                    _ => Self::SPELLINGS
                        .iter()
                        .find(|(n, _)| *n == name)
                        .map(|(_, v)| $ty(*v)),
                }
            }

            #[doc = concat!("The ", $doc, " for a name as a forgiving loader reads it: [`from_name`](Self::from_name) first, then the name compared without its prefix (`win:`, `xs:` or none) and without regard to case, as some real manifests write it (`UInt32`, `win:Uint32`). The second value is the canonical name when the name was matched that second way (the loader says so in a diagnostic), `None` when it is a name of its own.")]
            pub fn resolve(name: &str) -> Option<($ty, Option<&'static str>)> {
                if let Some(t) = Self::from_name(name) {
                    return Some((t, None));
                }
                let loose = loose_name(name);
                Self::NAMES
                    .iter()
                    .find(|(n, _)| loose_name(n) == loose)
                    .map(|(n, v)| ($ty(*v), Some(*n)))
            }

            /// The manifest name of a known number.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $( $value => Some($name), )*
                    _ => None,
                }
            }
        }
    };
}

named_numbers! { InType, "in-type";
    UNICODE_STRING = 1, "win:UnicodeString";
    ANSI_STRING = 2, "win:AnsiString";
    INT8 = 3, "win:Int8";
    UINT8 = 4, "win:UInt8";
    INT16 = 5, "win:Int16";
    UINT16 = 6, "win:UInt16";
    INT32 = 7, "win:Int32";
    UINT32 = 8, "win:UInt32";
    INT64 = 9, "win:Int64";
    UINT64 = 10, "win:UInt64";
    FLOAT = 11, "win:Float";
    DOUBLE = 12, "win:Double";
    BOOLEAN = 13, "win:Boolean";
    BINARY = 14, "win:Binary";
    GUID = 15, "win:GUID";
    POINTER = 16, "win:Pointer";
    FILETIME = 17, "win:FILETIME";
    SYSTEMTIME = 18, "win:SYSTEMTIME";
    SID = 19, "win:SID";
    HEX_INT32 = 20, "win:HexInt32";
    HEX_INT64 = 21, "win:HexInt64";
    COUNTED_UNICODE_STRING = 22, "win:CountedUnicodeString";
    COUNTED_ANSI_STRING = 23, "win:CountedAnsiString";
    COUNTED_BINARY = 25, "win:CountedBinary";
}

named_numbers! { OutType, "out-type";
    STRING = 1, "xs:string";
    DATE_TIME = 2, "xs:dateTime";
    BYTE = 3, "xs:byte";
    UNSIGNED_BYTE = 4, "xs:unsignedByte";
    SHORT = 5, "xs:short";
    UNSIGNED_SHORT = 6, "xs:unsignedShort";
    INT = 7, "xs:int";
    UNSIGNED_INT = 8, "xs:unsignedInt";
    LONG = 9, "xs:long";
    UNSIGNED_LONG = 10, "xs:unsignedLong";
    FLOAT = 11, "xs:float";
    DOUBLE = 12, "xs:double";
    BOOLEAN = 13, "xs:boolean";
    GUID = 14, "xs:GUID";
    HEX_BINARY = 15, "xs:hexBinary";
    HEX_INT8 = 16, "win:HexInt8";
    HEX_INT16 = 17, "win:HexInt16";
    HEX_INT32 = 18, "win:HexInt32";
    HEX_INT64 = 19, "win:HexInt64";
    PID = 20, "win:PID";
    TID = 21, "win:TID";
    PORT = 22, "win:Port";
    IPV4 = 23, "win:IPv4";
    IPV6 = 24, "win:IPv6";
    SOCKET_ADDRESS = 25, "win:SocketAddress";
    CIM_DATE_TIME = 26, "win:CIMDateTime";
    ETW_TIME = 27, "win:ETWTIME";
    XML = 28, "win:Xml";
    ERROR_CODE = 29, "win:ErrorCode";
    WIN32_ERROR = 30, "win:Win32Error";
    NTSTATUS = 31, "win:NTSTATUS";
    HRESULT = 32, "win:HResult";
    DATE_TIME_CULTURE_INSENSITIVE = 33, "win:DateTimeCultureInsensitive";
    JSON = 34, "win:Json";
    UTF8 = 35, "win:Utf8";
    PKCS7_WITH_TYPE_INFO = 36, "win:Pkcs7WithTypeInfo";
    CODE_POINTER = 37, "win:CodePointer";
    DATE_TIME_UTC = 38, "win:DateTimeUtc";
}

impl InType {
    /// Other spellings of in-types: `win:CountedString`, the name TDH-based manifest dumps
    /// give `TDH_INTYPE_MANIFEST_COUNTEDSTRING` (22; `TDH_INTYPE_COUNTEDSTRING`, 300, has the
    /// same layout: a 16-bit byte count, then UTF-16).
    const SPELLINGS: &'static [(&'static str, u16)] = &[("win:CountedString", 22)];
}

impl OutType {
    /// Other spellings of out-types: `xs:datetime`, as the OutputType page spells
    /// `xs:dateTime`; `xs:HexInt8`…`xs:HexInt64`, which Windows component manifests use for
    /// the `win:HexInt*` types.
    const SPELLINGS: &'static [(&'static str, u16)] = &[
        ("xs:datetime", 2),
        ("xs:HexInt8", 16),
        ("xs:HexInt16", 17),
        ("xs:HexInt32", 18),
        ("xs:HexInt64", 19),
    ];

    /// `TDH_OUTTYPE_NULL` (0): no out type, the in-type's default rendering.
    pub const NULL: OutType = OutType(0);
    /// `TDH_OUTTYPE_REDUCEDSTRING` (300): no manifest name.
    pub const REDUCED_STRING: OutType = OutType(300);
    /// `TDH_OUTTYPE_NOPRINT` (301): not shown; no manifest name.
    pub const NOPRINT: OutType = OutType(301);
}

impl InType {
    /// Whether values of this type are integers (payload filters compare them numerically).
    pub fn is_integer(self) -> bool {
        matches!(self.0, 3..=10 | 13 | 16 | 17 | 20 | 21)
    }

    /// Whether values of this type are text.
    pub fn is_string(self) -> bool {
        matches!(self.0, 1 | 2 | 22 | 23)
    }
}

/// winmeta levels (DEC-21).
pub(crate) const WIN_LEVELS: &[(&str, u8)] = &[
    ("win:LogAlways", 0),
    ("win:Critical", 1),
    ("win:Error", 2),
    ("win:Warning", 3),
    ("win:Informational", 4),
    ("win:Verbose", 5),
];

/// winmeta opcodes (DEC-21).
pub(crate) const WIN_OPCODES: &[(&str, u8)] = &[
    ("win:Info", 0),
    ("win:Start", 1),
    ("win:Stop", 2),
    ("win:DC_Start", 3),
    ("win:DC_Stop", 4),
    ("win:Extension", 5),
    ("win:Reply", 6),
    ("win:Resume", 7),
    ("win:Suspend", 8),
    ("win:Send", 9),
    ("win:Receive", 240),
];

/// winmeta tasks (DEC-21).
pub(crate) const WIN_TASKS: &[(&str, u16)] = &[("win:None", 0)];

/// winmeta channels (DEC-21), by the names `importChannel` and `channel` use.
pub(crate) const WIN_CHANNELS: &[(&str, u8)] = &[
    ("TraceClassic", 0),
    ("System", 8),
    ("Application", 9),
    ("Security", 10),
    ("TraceLogging", 11),
    ("ProviderMetadata", 12),
];

/// winmeta keyword names of the reserved bits 48–55 (DEC-22).
pub(crate) const WIN_KEYWORDS: &[(&str, u64)] = &[
    ("win:ResponseTime", 1 << 48),
    ("win:WDIContext", 1 << 49),
    ("win:WDIDiag", 1 << 50),
    ("win:SQM", 1 << 51),
    ("win:AuditFailure", 1 << 52),
    ("win:AuditSuccess", 1 << 53),
    ("win:CorrelationHint", 1 << 54),
    ("win:EventlogClassic", 1 << 55),
];

/// Names manifest dumps write for winmeta levels (DEC-21): `win:Always` for level 0
/// (`win:LogAlways`), as TraceEvent-style dumps of installed providers spell it.
pub(crate) const WIN_LEVEL_ALIASES: &[(&str, &str)] = &[("win:Always", "win:LogAlways")];

/// The value of `name` in a winmeta table.
pub(crate) fn win_lookup<T: Copy>(table: &[(&str, T)], name: &str) -> Option<T> {
    table.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

/// The value of `name` in a winmeta table as a forgiving loader reads it: exactly, then by
/// one of `aliases` (a name real manifests write, and the winmeta name it stands for), then
/// without its prefix and without regard to case (`Informational`, `win:informational`).
/// The name is the winmeta name when it was matched either of those ways (the loader says
/// so in a diagnostic).
pub(crate) fn win_resolve<T: Copy>(
    table: &[(&'static str, T)],
    aliases: &[(&str, &'static str)],
    name: &str,
) -> Option<(T, Option<&'static str>)> {
    if let Some(v) = win_lookup(table, name) {
        return Some((v, None));
    }
    let canonical = |c: &str| table.iter().find(|(n, _)| *n == c).copied();
    if let Some((n, v)) = aliases
        .iter()
        .find(|(a, _)| *a == name)
        .and_then(|(_, c)| canonical(c))
    {
        return Some((v, Some(n)));
    }
    let loose = loose_name(name);
    table
        .iter()
        .find(|(n, _)| loose_name(n) == loose)
        .map(|(n, v)| (*v, Some(*n)))
}

/// A name without its namespace prefix (`win:`, `xs:`), in lower case: how names that
/// differ only in those are compared.
fn loose_name(name: &str) -> String {
    let local = name.rsplit_once(':').map_or(name, |(_, l)| l);
    local.trim().to_ascii_lowercase()
}
