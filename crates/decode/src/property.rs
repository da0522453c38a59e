//! `PROPERTY_FLAGS` (DEC-29): what a TDH-like API reports about each property of an event's
//! schema — a struct, a count or length taken from another property or fixed, field tags, a
//! custom schema — for TraceLogging field definitions and manifest template items alike.

use crate::manifest::{DataDef, Item, Param};
use crate::tracelogging::{Arity, FieldDef, InType};
use std::fmt;
use std::ops::BitOr;

/// `PROPERTY_FLAGS` of `EVENT_PROPERTY_INFO.Flags`.
#[doc(alias = "PROPERTY_FLAGS")]
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct PropertyFlags(pub u32);

impl PropertyFlags {
    /// No flag.
    pub const NONE: PropertyFlags = PropertyFlags(0);
    /// `PropertyStruct` (0x1): the property is a struct of the properties that follow.
    pub const STRUCT: PropertyFlags = PropertyFlags(0x1);
    /// `PropertyParamLength` (0x2): its length is the value of another property.
    pub const PARAM_LENGTH: PropertyFlags = PropertyFlags(0x2);
    /// `PropertyParamCount` (0x4): its element count is the value of another property (or,
    /// for a TraceLogging variable-count array, the count in the payload).
    pub const PARAM_COUNT: PropertyFlags = PropertyFlags(0x4);
    /// `PropertyWBEMXmlFragment` (0x8): a WBEM XML fragment (MOF only; never set here).
    pub const WBEM_XML_FRAGMENT: PropertyFlags = PropertyFlags(0x8);
    /// `PropertyParamFixedLength` (0x10): its length is a fixed number.
    pub const PARAM_FIXED_LENGTH: PropertyFlags = PropertyFlags(0x10);
    /// `PropertyParamFixedCount` (0x20): its element count is a fixed number.
    pub const PARAM_FIXED_COUNT: PropertyFlags = PropertyFlags(0x20);
    /// `PropertyHasTags` (0x40): a TraceLogging field tag is present.
    pub const HAS_TAGS: PropertyFlags = PropertyFlags(0x40);
    /// `PropertyHasCustomSchema` (0x80): a TraceLogging CUSTOM field.
    pub const HAS_CUSTOM_SCHEMA: PropertyFlags = PropertyFlags(0x80);

    /// Whether every flag of `other` is set.
    pub const fn contains(self, other: PropertyFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl BitOr for PropertyFlags {
    type Output = PropertyFlags;
    fn bitor(self, rhs: PropertyFlags) -> PropertyFlags {
        PropertyFlags(self.0 | rhs.0)
    }
}

impl fmt::Debug for PropertyFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: [(PropertyFlags, &str); 8] = [
            (PropertyFlags::STRUCT, "PropertyStruct"),
            (PropertyFlags::PARAM_LENGTH, "PropertyParamLength"),
            (PropertyFlags::PARAM_COUNT, "PropertyParamCount"),
            (PropertyFlags::WBEM_XML_FRAGMENT, "PropertyWBEMXmlFragment"),
            (
                PropertyFlags::PARAM_FIXED_LENGTH,
                "PropertyParamFixedLength",
            ),
            (PropertyFlags::PARAM_FIXED_COUNT, "PropertyParamFixedCount"),
            (PropertyFlags::HAS_TAGS, "PropertyHasTags"),
            (PropertyFlags::HAS_CUSTOM_SCHEMA, "PropertyHasCustomSchema"),
        ];
        let mut first = true;
        for (flag, name) in NAMES {
            if self.contains(flag) {
                f.write_str(if first { "" } else { " | " })?;
                f.write_str(name)?;
                first = false;
            }
        }
        let rest = self.0 & !0xFF;
        if rest != 0 || first {
            f.write_str(if first { "" } else { " | " })?;
            write!(f, "{rest:#x}")?;
        }
        Ok(())
    }
}

impl FieldDef {
    /// The `PROPERTY_FLAGS` of this TraceLogging field (DEC-29): STRUCT for a struct, HAS_TAGS
    /// with a field tag, HAS_CUSTOM_SCHEMA for a CUSTOM field, PARAM_FIXED_COUNT for a
    /// constant-count array, PARAM_COUNT for a variable-count one (the count is in the
    /// payload), PARAM_LENGTH for BINARY (its length is the synthesised `<Name>.Length`
    /// property, DEC-14). The last two are the project's reading: TDH's flags for TraceLogging
    /// arrays are not documented.
    pub fn property_flags(&self) -> PropertyFlags {
        let mut f = PropertyFlags::NONE;
        if self.is_struct() {
            f = f | PropertyFlags::STRUCT;
        }
        if self.tag != 0 {
            f = f | PropertyFlags::HAS_TAGS;
        }
        f = f | match self.arity {
            Arity::Scalar => PropertyFlags::NONE,
            Arity::Fixed(_) => PropertyFlags::PARAM_FIXED_COUNT,
            Arity::Variable => PropertyFlags::PARAM_COUNT,
            Arity::Custom(_) => PropertyFlags::HAS_CUSTOM_SCHEMA,
        };
        if self.in_type == InType::BINARY {
            f = f | PropertyFlags::PARAM_LENGTH;
        }
        f
    }
}

/// The flags of a `count` / `length` attribute: a number or an earlier field (DEC-17).
fn param_flags(p: Option<&Param>, fixed: PropertyFlags, field: PropertyFlags) -> PropertyFlags {
    match p {
        None => PropertyFlags::NONE,
        Some(Param::Fixed(_)) => fixed,
        Some(Param::Field(_)) => field,
    }
}

impl DataDef {
    /// The `PROPERTY_FLAGS` of this manifest `data` element (DEC-29): PARAM_FIXED_COUNT /
    /// PARAM_COUNT for a numeric / field-named `count`, PARAM_FIXED_LENGTH / PARAM_LENGTH for
    /// `length` (DEC-17).
    pub fn property_flags(&self) -> PropertyFlags {
        param_flags(
            self.count.as_ref(),
            PropertyFlags::PARAM_FIXED_COUNT,
            PropertyFlags::PARAM_COUNT,
        ) | param_flags(
            self.length.as_ref(),
            PropertyFlags::PARAM_FIXED_LENGTH,
            PropertyFlags::PARAM_LENGTH,
        )
    }
}

impl Item {
    /// The `PROPERTY_FLAGS` of this template item (DEC-29): a `data` element's
    /// ([`DataDef::property_flags`]), or STRUCT with the flags of the struct's `count`.
    pub fn property_flags(&self) -> PropertyFlags {
        match self {
            Item::Data(d) => d.property_flags(),
            Item::Struct(s) => {
                PropertyFlags::STRUCT
                    | param_flags(
                        s.count.as_ref(),
                        PropertyFlags::PARAM_FIXED_COUNT,
                        PropertyFlags::PARAM_COUNT,
                    )
            }
        }
    }
}
