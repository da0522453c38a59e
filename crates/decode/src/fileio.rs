//! File names for FileIo and DiskIo events, resolved as analysis tools resolve them
//! (KRN-38…KRN-40).
//!
//! A classic kernel FileIo event names its file only in a few event types: the name events
//! (FileIo_Name: Name 0, FileCreate 32, FileDelete 35, FileRundown 36) carry FileKey → name,
//! and Create (64) carries FileObject → OpenPath. Every other event (Read, Write, Cleanup,
//! Close, SetInfo…, and DiskIo's Read/Write, whose `FileObject` field holds the FileKey) has
//! only the two addresses, so a consumer keeps maps and looks the name up: by **FileKey
//! first, then by FileObject**; if neither is known, the name is empty (KRN-38).
//!
//! | [`Policy`] | who does this | what it forgets, and when |
//! |---|---|---|
//! | [`Policy::File`] | TraceEvent reading a log file | nothing; each key has a history of (name, valid from); a FileDelete or FileRundown of a key seen for the first time is valid from time 0, so events *before* the stop rundown resolve once the whole file was observed (KRN-38) |
//! | [`Policy::EvictAtCleanup`] | TraceEvent in real time | FileDelete (35) and FileRundown (36) forget the FileKey, **Cleanup (65)** forgets the FileObject — a Close or a lazy-writer Write after Cleanup resolves to "" (KRN-39) |
//! | [`Policy::EvictAtClose`] | wtrace's fix (the seed article) | FileDelete (35) forgets the FileKey, **Close (66)** forgets the FileObject |
//!
//! Names of files opened before a real-time session started arrive only in the stop rundown
//! (KRN-32, KRN-40); [`NameResolver::harvest`] takes the FileRundown events of a short second
//! session (KRN-37) to fill that gap.
//!
//! ```
//! use etwsim_decode::fields::Value;
//! use etwsim_decode::fileio::{NameResolver, Policy};
//! use etwsim_decode::mof::FILE_IO;
//!
//! # fn main() -> Result<(), etwsim_decode::Error> {
//! let create = FILE_IO.schema("Create", 3).unwrap().decode(
//!     &FILE_IO.schema("Create", 3).unwrap().encode(&[
//!         Value::Pointer(0x10), Value::Pointer(0xF0), Value::U32(8),
//!         Value::U32(0), Value::U32(0x80), Value::U32(7),
//!         Value::String(r"\Device\HarddiskVolume3\a.txt".into()),
//!     ], 8)?, 8)?;
//! let cleanup_schema = FILE_IO.schema("Cleanup", 3).unwrap();
//! let op = |name: &str| -> Result<_, etwsim_decode::Error> {
//!     let s = FILE_IO.schema(name, 3).unwrap();
//!     s.decode(&s.encode(&[Value::Pointer(0x20), Value::Pointer(0xF0),
//!         Value::Pointer(0xAB), Value::U32(8)], 8)?, 8)
//! };
//! let (cleanup, close) = (op("Cleanup")?, op("Close")?);
//! assert_eq!(cleanup.schema, cleanup_schema);
//!
//! let mut real_time = NameResolver::new(Policy::EvictAtCleanup);
//! let mut own_map = NameResolver::new(Policy::EvictAtClose);
//! let (mut seen, mut kept) = (Vec::new(), Vec::new());
//! for (t, e) in [(1, &create), (2, &cleanup), (3, &close)] {
//!     seen.push(real_time.resolve(e, t));
//!     kept.push(own_map.resolve(e, t));
//! }
//! let path = r"\Device\HarddiskVolume3\a.txt";
//! assert_eq!(seen, [path, path, ""]); // Cleanup forgot the FileObject
//! assert_eq!(kept, [path, path, path]);
//! # Ok(()) }
//! ```

use crate::fields::Value;
use crate::mof::{DISK_IO, FILE_IO, MofEvent};
use std::collections::HashMap;

/// How a [`NameResolver`] keeps and forgets names.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Policy {
    /// A log file read whole (TraceEvent's file mode, KRN-38): nothing is forgotten; a
    /// FileDelete or FileRundown of a FileKey seen for the first time names it from time 0.
    /// Observe every event first, then ask for names.
    File,
    /// Real time as TraceEvent does it (KRN-39): Cleanup forgets the FileObject's name,
    /// FileDelete and FileRundown forget the FileKey's.
    EvictAtCleanup,
    /// Real time with one's own map, wtrace's fix (KRN-37): Close (not Cleanup) forgets the
    /// FileObject's name, FileDelete forgets the FileKey's.
    EvictAtClose,
}

/// Which of an event's addresses a name lookup used.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// The FileKey (or a DiskIo event's `FileObject`, which holds the key, KRN-26).
    FileKey,
    /// The FileObject of a Create (64) seen earlier.
    FileObject,
}

/// One name and the time from which it holds.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    from: i64,
    name: String,
}

/// The consumer-side map from FileKey and FileObject to file names (KRN-38, KRN-39).
#[derive(Clone, Debug)]
pub struct NameResolver {
    policy: Policy,
    keys: HashMap<u64, Vec<Entry>>,
    objects: HashMap<u64, Vec<Entry>>,
}

/// FileIo event types (KRN-16).
mod op {
    pub(super) const NAME: u8 = 0;
    pub(super) const FILE_CREATE: u8 = 32;
    pub(super) const FILE_DELETE: u8 = 35;
    pub(super) const FILE_RUNDOWN: u8 = 36;
    pub(super) const CREATE: u8 = 64;
    pub(super) const CLEANUP: u8 = 65;
    pub(super) const CLOSE: u8 = 66;
}

fn pointer(e: &MofEvent, field: &str) -> Option<u64> {
    match e.get(field)? {
        Value::Pointer(p) => Some(*p),
        Value::U64(p) => Some(*p),
        _ => None,
    }
}

fn text(e: &MofEvent, field: &str) -> Option<String> {
    match e.get(field)? {
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

impl NameResolver {
    /// An empty resolver with `policy`.
    pub fn new(policy: Policy) -> NameResolver {
        NameResolver {
            policy,
            keys: HashMap::new(),
            objects: HashMap::new(),
        }
    }

    /// Its policy.
    pub fn policy(&self) -> Policy {
        self.policy
    }

    /// Takes in one decoded kernel event at `time` (any clock, as long as it is the same for
    /// every call): name events and Create add names, Cleanup / Close / FileDelete /
    /// FileRundown forget them as the policy says. Events of other classes are ignored.
    pub fn observe(&mut self, event: &MofEvent, time: i64) {
        if event.schema.class != &FILE_IO {
            return;
        }
        let opcode = event.schema.event.opcode;
        let real_time = self.policy != Policy::File;
        match opcode {
            op::NAME | op::FILE_CREATE | op::FILE_DELETE | op::FILE_RUNDOWN => {
                // FileIo_Name's first field is Learn's "FileObject": the FileKey (KRN-18).
                let (Some(key), Some(name)) =
                    (pointer(event, "FileObject"), text(event, "FileName"))
                else {
                    return;
                };
                let rundown_like = matches!(opcode, op::FILE_DELETE | op::FILE_RUNDOWN);
                let evict = match self.policy {
                    Policy::File => false,
                    Policy::EvictAtCleanup => rundown_like,
                    Policy::EvictAtClose => opcode == op::FILE_DELETE,
                };
                if evict {
                    self.keys.remove(&key);
                    return;
                }
                let history = self.keys.entry(key).or_default();
                let from = if rundown_like && !real_time && history.is_empty() {
                    0 // KRN-38: a rundown name of a new key holds retroactively
                } else {
                    time
                };
                history.push(Entry { from, name });
            }
            op::CREATE => {
                if let (Some(object), Some(path)) =
                    (pointer(event, "FileObject"), text(event, "OpenPath"))
                {
                    self.objects.entry(object).or_default().push(Entry {
                        from: time,
                        name: path,
                    });
                }
            }
            op::CLEANUP | op::CLOSE => {
                let evict = match self.policy {
                    Policy::File => false,
                    Policy::EvictAtCleanup => opcode == op::CLEANUP,
                    Policy::EvictAtClose => opcode == op::CLOSE,
                };
                if evict {
                    if let Some(object) = pointer(event, "FileObject") {
                        // The event itself is resolved before it is observed (see `name_of`).
                        self.objects.remove(&object);
                    }
                }
            }
            _ => {}
        }
    }

    /// Takes the FileRundown (36) and other name events of another session — the short
    /// second session of KRN-37 — as names known from time 0, whatever the policy.
    pub fn harvest<'a>(&mut self, events: impl IntoIterator<Item = &'a MofEvent>) {
        for e in events {
            if e.schema.class != &FILE_IO
                || !matches!(
                    e.schema.event.opcode,
                    op::NAME | op::FILE_CREATE | op::FILE_RUNDOWN
                )
            {
                continue;
            }
            if let (Some(key), Some(name)) = (pointer(e, "FileObject"), text(e, "FileName")) {
                self.keys.insert(key, vec![Entry { from: 0, name }]);
            }
        }
    }

    /// The name of `key` at `time`, if known.
    pub fn by_key(&self, key: u64, time: i64) -> Option<&str> {
        at(self.keys.get(&key)?, time)
    }

    /// The name of file object `object` at `time`, if known.
    pub fn by_object(&self, object: u64, time: i64) -> Option<&str> {
        at(self.objects.get(&object)?, time)
    }

    /// The name of the file `event` (at `time`) is about, and which address found it: FileKey
    /// first, then FileObject (KRN-38). FileIo_Name events name themselves; Create gives its
    /// OpenPath; DiskIo events look their `FileObject` (the FileKey, KRN-26) up as a key.
    /// Ask before [`observe`](Self::observe)-ing the same event in real-time policies, as a
    /// real-time consumer does (so a Cleanup still resolves its own name).
    pub fn lookup<'a>(&'a self, event: &'a MofEvent, time: i64) -> Option<(&'a str, Source)> {
        let class = event.schema.class;
        if class == &DISK_IO {
            return self
                .by_key(pointer(event, "FileObject")?, time)
                .map(|n| (n, Source::FileKey));
        }
        if class != &FILE_IO {
            return None;
        }
        match event.schema.event.opcode {
            op::NAME | op::FILE_CREATE | op::FILE_DELETE | op::FILE_RUNDOWN => {
                return match event.get("FileName") {
                    Some(Value::String(s)) => Some((s.as_str(), Source::FileKey)),
                    _ => None,
                };
            }
            op::CREATE => {
                return match event.get("OpenPath") {
                    Some(Value::String(s)) => Some((s.as_str(), Source::FileObject)),
                    _ => None,
                };
            }
            _ => {}
        }
        if let Some(n) = pointer(event, "FileKey").and_then(|k| self.by_key(k, time)) {
            return Some((n, Source::FileKey));
        }
        pointer(event, "FileObject")
            .and_then(|o| self.by_object(o, time))
            .map(|n| (n, Source::FileObject))
    }

    /// [`lookup`](Self::lookup)'s name, or `""` when neither address is known — what
    /// TraceEvent shows (KRN-38).
    pub fn name_of(&self, event: &MofEvent, time: i64) -> String {
        self.lookup(event, time)
            .map_or_else(String::new, |(n, _)| n.to_string())
    }

    /// What a real-time consumer does with each event in turn: the event's name
    /// ([`name_of`](Self::name_of)), then [`observe`](Self::observe) it.
    pub fn resolve(&mut self, event: &MofEvent, time: i64) -> String {
        let name = self.name_of(event, time);
        self.observe(event, time);
        name
    }

    /// Names known now (by FileKey, then by FileObject): for tests and summaries.
    pub fn known(&self) -> (usize, usize) {
        (self.keys.len(), self.objects.len())
    }
}

/// The newest entry valid at `time`.
fn at(history: &[Entry], time: i64) -> Option<&str> {
    history
        .iter()
        .rev()
        .find(|e| e.from <= time)
        .map(|e| e.name.as_str())
}
