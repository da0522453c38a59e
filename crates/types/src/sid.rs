//! [`Sid`]: the one security identifier type of the workspace — a token's user, an ACE's
//! trustee, a SID extended item, a decoded `win:SID` field, a kernel `TOKEN_USER` block.
//!
//! Binary form (`SID`, `GetLengthSid` = `8 + 4 × count` bytes): `Revision` u8 (always
//! `SID_REVISION` 1), `SubAuthorityCount` u8 (at most 15), the 48-bit `IdentifierAuthority`
//! as six big-endian bytes, then each sub-authority as a little-endian u32. Text form
//! (`ConvertSidToStringSid`): `S-1-<authority>-<sub>…`, the authority in decimal below 2³²
//! and as `0x` plus 12 hex digits above.
//!
//! A SID whose revision is not 1 is not valid (`IsValidSid` rejects it), so [`Sid::read`]
//! refuses it instead of carrying a revision byte no other SID has.

use std::fmt;
use std::str::FromStr;

/// A security identifier (`SID`): a 48-bit identifier authority and up to 15 sub-authorities
/// (the last one is the relative id, RID).
///
/// ```
/// use etwsim_types::Sid;
///
/// let admins: Sid = "S-1-5-32-544".parse().unwrap();
/// assert_eq!(admins, Sid::builtin_administrators());
/// assert_eq!(admins.to_bytes(), [1, 2, 0, 0, 0, 0, 0, 5, 32, 0, 0, 0, 0x20, 2, 0, 0]);
/// assert_eq!(Sid::read(&admins.to_bytes()).unwrap(), (admins, 16));
/// assert!("S-1-x".parse::<Sid>().is_err());
/// ```
#[doc(alias = "SID")]
#[doc(alias = "PSID")]
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sid {
    authority: u64,
    sub_authorities: Vec<u32>,
}

/// A SID that cannot be made, read or parsed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SidError {
    /// Text that is not a SID in `S-1-…` form.
    #[error("not a SID: {input:?} ({problem})")]
    Text {
        /// The text as given (at most 48 characters of it, then `…`).
        input: String,
        /// What is wrong.
        problem: &'static str,
    },
    /// An authority above 2⁴⁸ − 1 or more than 15 sub-authorities.
    #[error("not a SID: authority {authority}, {count} sub-authorities ({problem})")]
    Parts {
        /// The identifier authority given.
        authority: u64,
        /// How many sub-authorities were given.
        count: usize,
        /// What is wrong.
        problem: &'static str,
    },
    /// Bytes that are not a binary SID.
    #[error("SID at byte {offset}: {problem}")]
    Binary {
        /// Where the problem is, from the start of the SID: 0 for its fixed part, 8 for
        /// its sub-authorities.
        offset: usize,
        /// What is wrong.
        problem: String,
    },
}

/// At most this many characters of offending text are quoted in an error.
const QUOTE_MAX: usize = 48;

fn quote(text: &str) -> String {
    if text.chars().count() <= QUOTE_MAX {
        text.to_owned()
    } else {
        let mut s: String = text.chars().take(QUOTE_MAX).collect();
        s.push('…');
        s
    }
}

impl Sid {
    /// `SID_MAX_SUB_AUTHORITIES`.
    pub const MAX_SUB_AUTHORITIES: usize = 15;

    /// `SID_REVISION`: the revision byte of every valid SID.
    pub const REVISION: u8 = 1;

    /// A SID from its identifier authority (48 bits) and sub-authorities.
    ///
    /// # Errors
    /// [`SidError::Parts`] for an authority above 2⁴⁸ − 1 or more than 15 sub-authorities.
    pub fn new(authority: u64, sub_authorities: &[u32]) -> Result<Sid, SidError> {
        let problem = if authority >= 1 << 48 {
            "the identifier authority is 48 bits"
        } else if sub_authorities.len() > Sid::MAX_SUB_AUTHORITIES {
            "at most 15 sub-authorities"
        } else {
            return Ok(Sid {
                authority,
                sub_authorities: sub_authorities.to_vec(),
            });
        };
        Err(SidError::Parts {
            authority,
            count: sub_authorities.len(),
            problem,
        })
    }

    fn nt(subs: &[u32]) -> Sid {
        Sid {
            authority: 5,
            sub_authorities: subs.to_vec(),
        }
    }

    /// `S-1-1-0`, Everyone.
    pub fn everyone() -> Sid {
        Sid {
            authority: 1,
            sub_authorities: vec![0],
        }
    }
    /// `S-1-3-4`, OWNER RIGHTS.
    pub fn owner_rights() -> Sid {
        Sid {
            authority: 3,
            sub_authorities: vec![4],
        }
    }
    /// `S-1-5-11`, Authenticated Users.
    pub fn authenticated_users() -> Sid {
        Sid::nt(&[11])
    }
    /// `S-1-5-18`, LocalSystem.
    pub fn local_system() -> Sid {
        Sid::nt(&[18])
    }
    /// `S-1-5-19`, LocalService.
    pub fn local_service() -> Sid {
        Sid::nt(&[19])
    }
    /// `S-1-5-20`, NetworkService.
    pub fn network_service() -> Sid {
        Sid::nt(&[20])
    }
    /// `S-1-5-32-544`, BUILTIN\Administrators.
    pub fn builtin_administrators() -> Sid {
        Sid::nt(&[32, 544])
    }
    /// `S-1-5-32-545`, BUILTIN\Users.
    pub fn builtin_users() -> Sid {
        Sid::nt(&[32, 545])
    }
    /// `S-1-5-32-559`, BUILTIN\Performance Log Users.
    pub fn performance_log_users() -> Sid {
        Sid::nt(&[32, 559])
    }

    /// `S-1-5-21-<d1>-<d2>-<d3>-<rid>`: an account of the domain (or machine) whose three
    /// identifier numbers are `domain`.
    pub fn domain_account(domain: [u32; 3], rid: u32) -> Sid {
        Sid::nt(&[21, domain[0], domain[1], domain[2], rid])
    }

    /// The identifier authority.
    pub fn authority(&self) -> u64 {
        self.authority
    }

    /// The sub-authorities; the last one is the RID.
    pub fn sub_authorities(&self) -> &[u32] {
        &self.sub_authorities
    }

    /// The binary size: 8 + 4 × sub-authorities (`GetLengthSid`).
    pub fn binary_len(&self) -> usize {
        8 + 4 * self.sub_authorities.len()
    }

    /// Reads a binary SID at the start of `bytes` (bytes after it are left alone); returns it
    /// and its size. Costs at most `8 + 4 × 15` bytes of reading whatever `bytes` holds.
    ///
    /// # Errors
    /// [`SidError::Binary`] for bytes shorter than the SID, a revision other than 1 or more
    /// than 15 sub-authorities.
    pub fn read(bytes: &[u8]) -> Result<(Sid, usize), SidError> {
        let short = |at: usize, needed: usize| SidError::Binary {
            offset: at,
            problem: format!(
                "needs {needed} bytes, only {} left",
                bytes.len().saturating_sub(at)
            ),
        };
        let head = bytes.get(..8).ok_or_else(|| short(0, 8))?;
        if head[0] != Sid::REVISION {
            return Err(SidError::Binary {
                offset: 0,
                problem: format!("revision {} (expected 1)", head[0]),
            });
        }
        let count = usize::from(head[1]);
        if count > Sid::MAX_SUB_AUTHORITIES {
            return Err(SidError::Binary {
                offset: 0,
                problem: format!("{count} sub-authorities (at most 15)"),
            });
        }
        let len = 8 + 4 * count;
        let subs = bytes.get(8..len).ok_or_else(|| short(8, 4 * count))?;
        let authority = head[2..8]
            .iter()
            .fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
        let sub_authorities = subs
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Ok((
            Sid {
                authority,
                sub_authorities,
            },
            len,
        ))
    }

    /// The binary form.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.binary_len());
        self.write_to(&mut out);
        out
    }

    /// Appends the binary form to `out`.
    pub fn write_to(&self, out: &mut Vec<u8>) {
        out.push(Sid::REVISION);
        // At most 15 by construction.
        out.push(u8::try_from(self.sub_authorities.len()).unwrap_or(15));
        out.extend_from_slice(&self.authority.to_be_bytes()[2..]);
        for s in &self.sub_authorities {
            out.extend_from_slice(&s.to_le_bytes());
        }
    }
}

impl fmt::Display for Sid {
    /// `S-1-<authority>-<sub>…`; the authority in decimal below 2³², else as `0x` and 12
    /// hex digits (`ConvertSidToStringSid`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.authority < 1 << 32 {
            write!(f, "S-1-{}", self.authority)?;
        } else {
            write!(f, "S-1-0x{:012X}", self.authority)?;
        }
        for s in &self.sub_authorities {
            write!(f, "-{s}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Sid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl FromStr for Sid {
    type Err = SidError;

    /// Parses `S-1-5-32-544` (`ConvertStringSidToSid`'s numeric form; the authority may be
    /// `0x` and 1 to 12 hex digits).
    fn from_str(s: &str) -> Result<Sid, SidError> {
        let err = |problem| SidError::Text {
            input: quote(s),
            problem,
        };
        let mut parts = s.split('-');
        if !matches!(parts.next(), Some("S" | "s")) {
            return Err(err("it must start with S-"));
        }
        if parts.next() != Some("1") {
            return Err(err("the revision must be 1"));
        }
        let authority = match parts.next() {
            Some(a) => match a.strip_prefix("0x").or_else(|| a.strip_prefix("0X")) {
                Some(hex) if !hex.is_empty() && hex.len() <= 12 => u64::from_str_radix(hex, 16)
                    .map_err(|_| err("the authority is not a number"))?,
                Some(_) => return Err(err("the authority is 1 to 12 hex digits after 0x")),
                None if !a.is_empty() && a.bytes().all(|b| b.is_ascii_digit()) => a
                    .parse::<u32>()
                    .map(u64::from)
                    .map_err(|_| err("a decimal authority is below 2^32"))?,
                None => return Err(err("the authority is not a number")),
            },
            None => return Err(err("the identifier authority is missing")),
        };
        let mut subs = Vec::new();
        for p in parts {
            if p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) {
                return Err(err("sub-authorities are decimal numbers"));
            }
            subs.push(
                p.parse::<u32>()
                    .map_err(|_| err("a sub-authority is below 2^32"))?,
            );
            if subs.len() > Sid::MAX_SUB_AUTHORITIES {
                return Err(err("at most 15 sub-authorities"));
            }
        }
        Ok(Sid {
            authority,
            sub_authorities: subs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_binary_round_trip() {
        let text = "S-1-5-21-1004336348-1177238915-682003330-512";
        let sid: Sid = text.parse().unwrap();
        assert_eq!(sid.to_string(), text);
        let bytes = sid.to_bytes();
        assert_eq!(bytes.len(), sid.binary_len());
        assert_eq!(Sid::read(&bytes).unwrap(), (sid.clone(), bytes.len()));
        // Trailing bytes are not part of the SID.
        let mut longer = bytes.clone();
        longer.extend_from_slice(&[9, 9]);
        assert_eq!(Sid::read(&longer).unwrap().1, bytes.len());
        assert!(Sid::read(&bytes[..bytes.len() - 1]).is_err());
    }

    #[test]
    fn large_authorities_are_hex() {
        let sid = Sid::new(0x1234_5678_9ABC, &[7]).unwrap();
        assert_eq!(sid.to_string(), "S-1-0x123456789ABC-7");
        assert_eq!("S-1-0x123456789ABC-7".parse::<Sid>().unwrap(), sid);
        assert!(Sid::new(1 << 48, &[]).is_err());
        assert!(Sid::new(5, &[0; 16]).is_err());
    }

    #[test]
    fn bad_bytes_and_text_are_errors() {
        assert!(matches!(
            Sid::read(&[2, 0, 0, 0, 0, 0, 0, 5]),
            Err(SidError::Binary { offset: 0, .. })
        ));
        assert!(matches!(
            Sid::read(&[1, 16, 0, 0, 0, 0, 0, 5]),
            Err(SidError::Binary { offset: 0, .. })
        ));
        assert!(Sid::read(&[1, 1, 0, 0, 0, 0, 0, 5, 1]).is_err());
        for bad in ["", "S-2-5", "S-1", "S-1-x", "S-1-5-", "S-1-0x-1", "x-1-5"] {
            assert!(bad.parse::<Sid>().is_err(), "{bad}");
        }
        let long = format!("S-1-5{}", "-1".repeat(16));
        assert!(long.parse::<Sid>().is_err());
    }
}
