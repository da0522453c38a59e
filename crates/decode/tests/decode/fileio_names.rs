//! The consumer-side file-name resolver (`etwsim_decode::fileio`): lookup order, the file
//! policy's retroactive rundown names, and the two real-time eviction policies.

use etwsim_decode::fields::Value;
use etwsim_decode::fileio::{NameResolver, Policy, Source};
use etwsim_decode::mof::{DISK_IO, FILE_IO, MofClass, MofEvent};

const KEY: u64 = 0xFFFF_C001_0000_1000;
const OBJECT: u64 = 0xFFFF_A001_0000_2000;
const PATH: &str = r"\Device\HarddiskVolume3\data\a.txt";

fn event(class: &'static MofClass, name: &str, values: &[Value]) -> MofEvent {
    let schema = class
        .current_schema(name)
        .or_else(|| class.schema(name, 2))
        .expect("schema");
    schema
        .decode(&schema.encode(values, 8).expect("encode"), 8)
        .expect("decode")
}

fn name_event(name: &str, key: u64, path: &str) -> MofEvent {
    event(
        &FILE_IO,
        name,
        &[Value::Pointer(key), Value::String(path.into())],
    )
}

fn create(object: u64, path: &str) -> MofEvent {
    event(
        &FILE_IO,
        "Create",
        &[
            Value::Pointer(0x10),
            Value::Pointer(object),
            Value::U32(8),
            Value::U32(0x0100_0000),
            Value::U32(0x80),
            Value::U32(7),
            Value::String(path.into()),
        ],
    )
}

fn simple(name: &str, object: u64, key: u64) -> MofEvent {
    event(
        &FILE_IO,
        name,
        &[
            Value::Pointer(0x20),
            Value::Pointer(object),
            Value::Pointer(key),
            Value::U32(8),
        ],
    )
}

fn read(object: u64, key: u64) -> MofEvent {
    event(
        &FILE_IO,
        "Read",
        &[
            Value::U64(0),
            Value::Pointer(0x30),
            Value::Pointer(object),
            Value::Pointer(key),
            Value::U32(8),
            Value::U32(512),
            Value::U32(0),
        ],
    )
}

#[test]
fn the_file_key_is_looked_up_first_then_the_file_object() {
    // rule: KRN-38
    let mut r = NameResolver::new(Policy::File);
    r.observe(&create(OBJECT, r"\Device\HarddiskVolume3\via-object"), 1);
    assert_eq!(
        r.lookup(&read(OBJECT, KEY), 2),
        Some((r"\Device\HarddiskVolume3\via-object", Source::FileObject))
    );
    r.observe(&name_event("FileCreate", KEY, PATH), 3);
    assert_eq!(
        r.lookup(&read(OBJECT, KEY), 4),
        Some((PATH, Source::FileKey))
    );
    // Unknown addresses give the empty name.
    assert_eq!(r.name_of(&read(0x1, 0x2), 5), "");
    // DiskIo's FileObject field holds the FileKey (KRN-26).
    let disk = event(
        &DISK_IO,
        "Read",
        &[
            Value::U32(0),
            Value::U32(0),
            Value::U32(4096),
            Value::U32(0),
            Value::I64(0),
            Value::Pointer(KEY),
            Value::Pointer(0x40),
            Value::U64(10),
        ],
    );
    assert_eq!(r.lookup(&disk, 6), Some((PATH, Source::FileKey)));
}

#[test]
fn in_a_file_a_rundown_name_of_a_new_key_holds_from_time_zero() {
    // rule: KRN-38
    let mut r = NameResolver::new(Policy::File);
    let early = read(OBJECT, KEY);
    r.observe(&early, 10);
    r.observe(&name_event("FileRundown", KEY, PATH), 100);
    assert_eq!(
        r.name_of(&early, 10),
        PATH,
        "retroactive for a key first seen at 36"
    );
    // A key already known gets a new entry at the event's time, not retroactively.
    r.observe(
        &name_event("FileRundown", KEY, r"\Device\HarddiskVolume3\renamed"),
        200,
    );
    assert_eq!(r.name_of(&early, 150), PATH);
    assert_eq!(r.name_of(&early, 250), r"\Device\HarddiskVolume3\renamed");
    // A Name (0) event holds from its own time.
    r.observe(&name_event("Name", 0x77, PATH), 300);
    assert_eq!(r.by_key(0x77, 299), None);
    assert_eq!(r.by_key(0x77, 300), Some(PATH));
}

#[test]
fn real_time_forgets_at_cleanup_and_the_fix_keeps_names_until_close() {
    // rule: KRN-39
    // rule: KRN-37
    let events = [
        create(OBJECT, PATH),
        simple("Cleanup", OBJECT, KEY),
        read(OBJECT, KEY), // paging I/O after Cleanup
        simple("Close", OBJECT, KEY),
        read(OBJECT, KEY), // the object is gone
    ];
    let run = |policy| {
        let mut r = NameResolver::new(policy);
        events
            .iter()
            .enumerate()
            .map(|(t, e)| r.resolve(e, t as i64))
            .collect::<Vec<_>>()
    };
    assert_eq!(run(Policy::EvictAtCleanup), [PATH, PATH, "", "", ""]);
    assert_eq!(run(Policy::EvictAtClose), [PATH, PATH, PATH, PATH, ""]);
    assert_eq!(run(Policy::File), [PATH; 5]);
}

#[test]
fn real_time_forgets_a_key_at_file_delete_and_rundown() {
    // rule: KRN-39
    let mut cleanup = NameResolver::new(Policy::EvictAtCleanup);
    let mut close = NameResolver::new(Policy::EvictAtClose);
    for r in [&mut cleanup, &mut close] {
        r.observe(&name_event("FileCreate", KEY, PATH), 1);
        r.observe(&name_event("FileCreate", 0x99, PATH), 1);
    }
    cleanup.observe(&name_event("FileRundown", KEY, PATH), 2);
    close.observe(&name_event("FileRundown", KEY, PATH), 2);
    assert_eq!(
        cleanup.by_key(KEY, 3),
        None,
        "36 evicts in TraceEvent's real time"
    );
    assert_eq!(close.by_key(KEY, 3), Some(PATH));
    for r in [&mut cleanup, &mut close] {
        r.observe(&name_event("FileDelete", 0x99, PATH), 4);
        assert_eq!(r.by_key(0x99, 5), None, "35 evicts the key");
    }
}

#[test]
fn harvested_rundown_names_resolve_files_opened_before_the_session() {
    // rule: KRN-37
    // rule: KRN-40
    let mut r = NameResolver::new(Policy::EvictAtClose);
    let before = read(OBJECT, KEY);
    assert_eq!(r.resolve(&before, 5), "", "opened before tracing: no name");
    r.harvest(&[name_event("FileRundown", KEY, PATH), create(0x5, "ignored")]);
    assert_eq!(r.resolve(&before, 6), PATH);
    assert_eq!(r.known(), (1, 0));
}
