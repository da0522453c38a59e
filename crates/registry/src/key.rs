//! The key tree: [`Registry`] (the six predefined roots) and [`Key`] (a name, values, subkeys).
//!
//! Names compare case-insensitively and keep the case they were created with, as in the Windows
//! registry: `Start`, `START` and `start` are one value; a key created as `Autologger` is found
//! as `AutoLogger` and still prints as `Autologger`. Subkeys are kept in the order of their
//! upper-cased names (the order `RegEnumKeyEx` reports); values in the order they were first set
//! (overwriting keeps the place and the first spelling). The empty value name is the key's
//! default value, printed `@`.
//!
//! Limits enforced on every path (Microsoft's "Registry element size limits"): a key name is 1 to
//! 255 characters without `\`, a tree is at most 512 levels deep, a value name at most 16,383
//! characters; neither may contain NUL, and key names no CR or LF either (a `.reg` file could
//! not carry them; value names can, as the escapes `\r` and `\n`).

use std::collections::BTreeMap;

use crate::error::{Error, quote};
use crate::value::{Value, ValueType};

/// Longest key name, in characters.
pub const MAX_KEY_NAME: usize = 255;
/// Deepest key path below a root.
pub const MAX_DEPTH: usize = 512;
/// Longest value name, in characters.
pub const MAX_VALUE_NAME: usize = 16_383;

/// The six predefined roots, by their full names: the only roots a `.reg` file may name
/// (REG-06).
pub const ROOTS: [&str; 6] = [
    "HKEY_LOCAL_MACHINE",
    "HKEY_USERS",
    "HKEY_CLASSES_ROOT",
    "HKEY_CURRENT_CONFIG",
    "HKEY_CURRENT_USER",
    "HKEY_DYN_DATA",
];

/// The usual abbreviations, accepted by the API but not by the `.reg` grammar (REG-06).
const ABBREVIATIONS: [&str; 5] = ["HKLM", "HKU", "HKCR", "HKCC", "HKCU"];

/// `name` upper-cased one character at a time, as the registry compares names.
pub(crate) fn fold(name: &str) -> String {
    name.chars()
        .map(|c| {
            let mut up = c.to_uppercase();
            match (up.next(), up.next()) {
                (Some(u), None) => u,
                _ => c,
            }
        })
        .collect()
}

/// The index in [`ROOTS`] of a root name, full (any case) or, with `abbreviations`, short.
pub(crate) fn root_index(name: &str, abbreviations: bool) -> Option<usize> {
    let folded = fold(name);
    ROOTS.iter().position(|r| *r == folded).or_else(|| {
        abbreviations
            .then(|| ABBREVIATIONS.iter().position(|r| *r == folded))
            .flatten()
    })
}

/// A key path split into its root and the names below it.
pub(crate) struct KeyPath<'a> {
    pub(crate) root: usize,
    pub(crate) names: Vec<&'a str>,
}

/// Splits and checks a path `ROOT\a\b` (one trailing `\` is allowed).
pub(crate) fn parse_path(path: &str, abbreviations: bool) -> Result<KeyPath<'_>, Error> {
    let bad = |expected| Error::BadKeyPath {
        path: quote(path),
        expected,
    };
    let trimmed = path.strip_suffix('\\').unwrap_or(path);
    let mut parts = trimmed.split('\\');
    let root_name = parts.next().unwrap_or_default();
    let root = root_index(root_name, abbreviations).ok_or_else(|| {
        bad("a root: HKEY_LOCAL_MACHINE, HKEY_USERS, HKEY_CLASSES_ROOT, HKEY_CURRENT_CONFIG, HKEY_CURRENT_USER or HKEY_DYN_DATA")
    })?;
    let mut names = Vec::new();
    for name in parts {
        check_key_name(name).map_err(bad)?;
        names.push(name);
        if names.len() > MAX_DEPTH {
            return Err(bad("at most 512 levels below the root"));
        }
    }
    Ok(KeyPath { root, names })
}

fn check_key_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        Err("a key name between each two `\\` (not an empty one)")
    } else if name.chars().count() > MAX_KEY_NAME {
        Err("key names of at most 255 characters")
    } else if name.contains(['\0', '\r', '\n']) {
        Err("key names without NUL, CR or LF")
    } else {
        Ok(())
    }
}

fn check_value_name(name: &str) -> Result<(), Error> {
    let expected = if name.contains('\0') {
        "a name without NUL"
    } else if name.chars().count() > MAX_VALUE_NAME {
        "a name of at most 16,383 characters"
    } else {
        return Ok(());
    };
    Err(Error::BadValueName {
        name: quote(name),
        expected,
    })
}

/// How a value name prints in messages: `@` for the default value.
pub(crate) fn display_name(name: &str) -> &str {
    if name.is_empty() { "@" } else { name }
}

/// A registry key: its name, its values and its subkeys.
#[doc(alias = "HKEY")]
#[derive(Clone, Debug, Default)]
pub struct Key {
    name: String,
    /// The values by a sequence number that only grows: iteration is first-set order, and a
    /// deletion costs no shifting.
    values: BTreeMap<u64, (String, Value)>,
    /// Upper-cased value name → sequence number in `values`.
    index: BTreeMap<String, u64>,
    next: u64,
    subkeys: BTreeMap<String, Key>,
}

/// Keys are equal when their names, their values (names, data and order) and their subkeys
/// are; the sequence numbers are bookkeeping.
impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.name == other.name
            && self.values.len() == other.values.len()
            && self.values().eq(other.values())
            && self.subkeys == other.subkeys
    }
}

impl Eq for Key {}

impl Key {
    fn named(name: &str) -> Key {
        Key {
            name: name.to_owned(),
            ..Key::default()
        }
    }

    /// The key's own name, in the case it was created with.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The subkey with this name (any case).
    pub fn subkey(&self, name: &str) -> Option<&Key> {
        self.subkeys.get(&fold(name))
    }

    /// The subkey with this name (any case), mutable.
    pub fn subkey_mut(&mut self, name: &str) -> Option<&mut Key> {
        self.subkeys.get_mut(&fold(name))
    }

    /// The subkeys, in upper-cased name order.
    pub fn subkeys(&self) -> impl Iterator<Item = &Key> {
        self.subkeys.values()
    }

    /// The subkey with this name, created if missing (`RegCreateKeyEx`).
    ///
    /// # Errors
    /// [`Error::BadKeyPath`] for an empty name, one containing `\` or NUL, or one longer than
    /// 255 characters.
    pub fn create_subkey(&mut self, name: &str) -> Result<&mut Key, Error> {
        let bad = |expected| Error::BadKeyPath {
            path: quote(name),
            expected,
        };
        check_key_name(name).map_err(bad)?;
        if name.contains('\\') {
            return Err(bad("one key name, without `\\`"));
        }
        Ok(self
            .subkeys
            .entry(fold(name))
            .or_insert_with(|| Key::named(name)))
    }

    /// Deletes the subkey with this name and everything below it; `false` if there was none.
    pub fn delete_subkey(&mut self, name: &str) -> bool {
        self.subkeys.remove(&fold(name)).is_some()
    }

    /// The value with this name (any case; `""` is the default value).
    pub fn value(&self, name: &str) -> Option<&Value> {
        let seq = self.position(name)?;
        self.values.get(&seq).map(|(_, v)| v)
    }

    /// The values with their names as stored, in the order they were first set.
    pub fn values(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.values.values().map(|(n, v)| (n.as_str(), v))
    }

    /// Sets a value (`RegSetValueEx`): an existing value of this name, in any case, is replaced
    /// in place and keeps its spelling.
    ///
    /// # Errors
    /// [`Error::BadValueName`] for a name containing NUL or longer than 16,383 characters.
    pub fn set_value(&mut self, name: &str, value: Value) -> Result<(), Error> {
        check_value_name(name)?;
        match self
            .position(name)
            .and_then(|seq| self.values.get_mut(&seq))
        {
            Some(slot) => slot.1 = value,
            None => {
                let seq = self.next;
                self.next += 1;
                self.index.insert(fold(name), seq);
                self.values.insert(seq, (name.to_owned(), value));
            }
        }
        Ok(())
    }

    /// Deletes a value; `false` if there was none.
    pub fn delete_value(&mut self, name: &str) -> bool {
        match self.index.remove(&fold(name)) {
            Some(seq) => self.values.remove(&seq).is_some(),
            None => false,
        }
    }

    /// `true` when the key has neither values nor subkeys.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty() && self.subkeys.is_empty()
    }

    fn position(&self, name: &str) -> Option<u64> {
        self.index.get(&fold(name)).copied()
    }

    /// A value that must have type `expected`; `Ok(None)` when absent.
    fn typed(&self, name: &str, expected: ValueType) -> Result<Option<&Value>, Error> {
        match self.value(name) {
            None => Ok(None),
            Some(v) if v.ty() == expected => Ok(Some(v)),
            Some(v) => Err(Error::WrongType {
                value: display_name(name).to_owned(),
                found: v.ty(),
                expected,
            }),
        }
    }

    fn bad_data(name: &str, v: &Value, expected: &'static str) -> Error {
        Error::BadValueData {
            value: display_name(name).to_owned(),
            ty: v.ty(),
            len: v.data().len(),
            expected,
        }
    }

    /// A `REG_DWORD` value; `Ok(None)` when absent.
    ///
    /// # Errors
    /// [`Error::WrongType`] ("Start is REG_SZ, expected REG_DWORD") or
    /// [`Error::BadValueData`] when the data is not 4 bytes.
    pub fn dword(&self, name: &str) -> Result<Option<u32>, Error> {
        let Some(v) = self.typed(name, ValueType::DWORD)? else {
            return Ok(None);
        };
        v.to_dword()
            .map(Some)
            .ok_or_else(|| Key::bad_data(name, v, "4 bytes"))
    }

    /// A `REG_QWORD` value; `Ok(None)` when absent.
    ///
    /// # Errors
    /// [`Error::WrongType`], or [`Error::BadValueData`] when the data is not 8 bytes.
    pub fn qword(&self, name: &str) -> Result<Option<u64>, Error> {
        let Some(v) = self.typed(name, ValueType::QWORD)? else {
            return Ok(None);
        };
        v.to_qword()
            .map(Some)
            .ok_or_else(|| Key::bad_data(name, v, "8 bytes"))
    }

    /// A `REG_SZ` or `REG_EXPAND_SZ` value's text (unexpanded); `Ok(None)` when absent.
    ///
    /// # Errors
    /// [`Error::WrongType`] for any other type (reported against REG_SZ), or
    /// [`Error::BadValueData`] for an odd byte length.
    pub fn string(&self, name: &str) -> Result<Option<String>, Error> {
        let Some(v) = self.value(name) else {
            return Ok(None);
        };
        if v.ty() != ValueType::SZ && v.ty() != ValueType::EXPAND_SZ {
            return Err(Error::WrongType {
                value: display_name(name).to_owned(),
                found: v.ty(),
                expected: ValueType::SZ,
            });
        }
        v.to_string_lossy()
            .map(Some)
            .ok_or_else(|| Key::bad_data(name, v, "UTF-16 text (an even number of bytes)"))
    }

    /// A `REG_MULTI_SZ` value's strings; `Ok(None)` when absent.
    ///
    /// # Errors
    /// [`Error::WrongType`], or [`Error::BadValueData`] for an odd byte length.
    pub fn multi_sz(&self, name: &str) -> Result<Option<Vec<String>>, Error> {
        let Some(v) = self.typed(name, ValueType::MULTI_SZ)? else {
            return Ok(None);
        };
        v.to_multi_sz()
            .map(Some)
            .ok_or_else(|| Key::bad_data(name, v, "UTF-16 text (an even number of bytes)"))
    }

    /// A `REG_BINARY` value's bytes; `Ok(None)` when absent.
    ///
    /// # Errors
    /// [`Error::WrongType`].
    pub fn binary(&self, name: &str) -> Result<Option<&[u8]>, Error> {
        Ok(self.typed(name, ValueType::BINARY)?.map(Value::data))
    }
}

/// A registry: the six predefined root keys and everything below them.
///
/// Paths name a root and the keys below it, separated by `\`:
/// `HKEY_LOCAL_MACHINE\SYSTEM\CurrentControlSet\Control\WMI\Autologger`. The API also accepts
/// the abbreviations `HKLM`, `HKU`, `HKCR`, `HKCC` and `HKCU`; a `.reg` file does not (REG-06).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registry {
    roots: [Key; 6],
}

impl Default for Registry {
    fn default() -> Registry {
        Registry::new()
    }
}

impl Registry {
    /// An empty registry: the six roots, with nothing in them.
    pub fn new() -> Registry {
        Registry {
            roots: ROOTS.map(Key::named),
        }
    }

    /// The roots with their full names.
    pub fn roots(&self) -> impl Iterator<Item = &Key> {
        self.roots.iter()
    }

    /// The key at `path`, if it exists (an invalid path names no key).
    pub fn key(&self, path: &str) -> Option<&Key> {
        let p = parse_path(path, true).ok()?;
        let mut key = self.roots.get(p.root)?;
        for name in p.names {
            key = key.subkey(name)?;
        }
        Some(key)
    }

    /// The key at `path`, mutable, if it exists.
    pub fn key_mut(&mut self, path: &str) -> Option<&mut Key> {
        let p = parse_path(path, true).ok()?;
        let mut key = self.roots.get_mut(p.root)?;
        for name in p.names {
            key = key.subkey_mut(name)?;
        }
        Some(key)
    }

    /// The key at `path`, created with every missing parent (`RegCreateKeyEx`).
    ///
    /// # Errors
    /// [`Error::BadKeyPath`] for an unknown root, an empty or over-long name, or a path deeper
    /// than 512 levels.
    pub fn create_key(&mut self, path: &str) -> Result<&mut Key, Error> {
        let p = parse_path(path, true)?;
        self.create_parsed(&p)
    }

    pub(crate) fn create_parsed(&mut self, p: &KeyPath<'_>) -> Result<&mut Key, Error> {
        let Some(mut key) = self.roots.get_mut(p.root) else {
            return Err(Error::KeyNotFound {
                path: String::new(),
            });
        };
        for name in &p.names {
            key = key.create_subkey(name)?;
        }
        Ok(key)
    }

    /// Deletes the key at `path` with its whole subtree (`RegDeleteTree` + `RegDeleteKey`);
    /// `Ok(false)` if it did not exist.
    ///
    /// # Errors
    /// [`Error::BadKeyPath`] for an invalid path or a root (roots cannot be deleted).
    pub fn delete_key(&mut self, path: &str) -> Result<bool, Error> {
        let p = parse_path(path, true)?;
        self.delete_parsed(&p)
            .map_err(|expected| Error::BadKeyPath {
                path: quote(path),
                expected,
            })
    }

    pub(crate) fn delete_parsed(&mut self, p: &KeyPath<'_>) -> Result<bool, &'static str> {
        let Some((last, parents)) = p.names.split_last() else {
            return Err("a key below a root (the predefined roots cannot be deleted)");
        };
        let Some(mut key) = self.roots.get_mut(p.root) else {
            return Ok(false);
        };
        for name in parents {
            match key.subkey_mut(name) {
                Some(k) => key = k,
                None => return Ok(false),
            }
        }
        Ok(key.delete_subkey(last))
    }

    /// The value `name` of the key at `path`, if both exist.
    pub fn value(&self, path: &str, name: &str) -> Option<&Value> {
        self.key(path)?.value(name)
    }

    /// Sets a value, creating the key and its parents if missing.
    ///
    /// # Errors
    /// [`Error::BadKeyPath`] or [`Error::BadValueName`].
    pub fn set_value(&mut self, path: &str, name: &str, value: Value) -> Result<(), Error> {
        self.create_key(path)?.set_value(name, value)
    }

    /// Deletes a value; `false` if the key or the value did not exist.
    pub fn delete_value(&mut self, path: &str, name: &str) -> bool {
        self.key_mut(path).is_some_and(|k| k.delete_value(name))
    }

    /// Every key below the roots with its full path, parents before children, siblings in
    /// name order (roots themselves included).
    pub fn walk(&self) -> Vec<(String, &Key)> {
        let mut out = Vec::new();
        for root in &self.roots {
            let mut stack = vec![(root.name.clone(), root)];
            while let Some((path, key)) = stack.pop() {
                // Push children in reverse so they pop in name order.
                for child in key.subkeys.values().rev() {
                    stack.push((format!("{path}\\{}", child.name), child));
                }
                out.push((path, key));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_compare_without_case_and_keep_theirs() {
        let mut reg = Registry::new();
        reg.set_value(r"HKLM\Software\Contoso", "Start", Value::dword(1))
            .unwrap();
        reg.set_value(
            r"hkey_local_machine\SOFTWARE\contoso",
            "START",
            Value::dword(2),
        )
        .unwrap();
        let key = reg.key(r"HKEY_LOCAL_MACHINE\software\CONTOSO").unwrap();
        assert_eq!(key.name(), "Contoso");
        assert_eq!(key.values().count(), 1);
        assert_eq!(key.values().next().unwrap().0, "Start");
        assert_eq!(key.dword("start"), Ok(Some(2)));
    }

    #[test]
    fn deleting_a_value_keeps_the_others_found_and_in_order() {
        let mut key = Key::named("k");
        for (i, n) in ["a", "B", "c", "D"].iter().enumerate() {
            key.set_value(n, Value::dword(i as u32)).unwrap();
        }
        assert!(key.delete_value("b"));
        assert!(!key.delete_value("b"));
        assert_eq!(key.dword("A"), Ok(Some(0)));
        assert_eq!(key.dword("C"), Ok(Some(2)));
        assert_eq!(key.dword("d"), Ok(Some(3)));
        key.set_value("b", Value::dword(9)).unwrap();
        let names: Vec<&str> = key.values().map(|(n, _)| n).collect();
        assert_eq!(names, ["a", "c", "D", "b"]);
        assert_eq!(key.dword("B"), Ok(Some(9)));
    }

    #[test]
    fn readers_name_the_value_and_both_types() {
        let mut key = Key::named("k");
        key.set_value("Start", Value::sz("1")).unwrap();
        key.set_value("Short", Value::new(ValueType::DWORD, [1]))
            .unwrap();
        let err = key.dword("Start").unwrap_err();
        assert_eq!(err.to_string(), "Start is REG_SZ, expected REG_DWORD");
        assert!(matches!(
            key.dword("Short"),
            Err(Error::BadValueData { len: 1, .. })
        ));
        assert_eq!(key.dword("Missing"), Ok(None));
        key.set_value("", Value::qword(1)).unwrap();
        assert_eq!(
            key.dword("").unwrap_err().to_string(),
            "@ is REG_QWORD, expected REG_DWORD"
        );
    }

    #[test]
    fn bad_paths_and_names_are_errors() {
        let mut reg = Registry::new();
        for bad in [
            "",
            r"HKEY_NOWHERE\a",
            r"HKLM\a\\b",
            r"\HKLM\a",
            "HKLM\\a\\\\",
        ] {
            assert!(
                matches!(reg.create_key(bad), Err(Error::BadKeyPath { .. })),
                "{bad:?}"
            );
        }
        let long = format!(r"HKLM\{}", "k".repeat(256));
        assert!(reg.create_key(&long).is_err());
        let deep = format!(r"HKLM{}", r"\k".repeat(513));
        assert!(reg.create_key(&deep).is_err());
        assert!(
            reg.create_key(&format!(r"HKLM{}", r"\k".repeat(512)))
                .is_ok()
        );
        assert!(reg.create_key(r"HKLM\trailing\").is_ok());
        assert!(reg.key(r"HKLM\trailing").is_some());
        assert!(reg.set_value("HKLM", "a\0b", Value::dword(0)).is_err());
        assert!(reg.delete_key("HKLM").is_err());
    }

    #[test]
    fn delete_removes_the_subtree_and_walk_lists_parents_first() {
        let mut reg = Registry::new();
        reg.create_key(r"HKLM\A\B\C").unwrap();
        reg.create_key(r"HKLM\A\b2").unwrap();
        let paths: Vec<String> = reg.walk().into_iter().map(|(p, _)| p).collect();
        assert_eq!(
            &paths[..5],
            [
                "HKEY_LOCAL_MACHINE",
                r"HKEY_LOCAL_MACHINE\A",
                r"HKEY_LOCAL_MACHINE\A\B",
                r"HKEY_LOCAL_MACHINE\A\B\C",
                r"HKEY_LOCAL_MACHINE\A\b2",
            ]
        );
        assert_eq!(reg.delete_key(r"HKLM\a\b"), Ok(true));
        assert!(reg.key(r"HKLM\A\B\C").is_none());
        assert_eq!(reg.delete_key(r"HKLM\a\b"), Ok(false));
    }
}
