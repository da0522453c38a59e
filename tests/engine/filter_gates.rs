//! The write path's early id and name gates (P12) never change what a session records: for
//! mixes of filter-in, filter-out and absent EVENT_ID lists, and of EVENT_NAME lists, every
//! session records exactly the events FLT-19 / FLT-22 say it takes — ids on both sides of 256
//! included, where the deny gate stops being exact and hands over to the per-session check.

use crate::common;
use common::*;
use etwsim::testing::{Capture, Match};
use etwsim::{
    EnableParams, EventDescriptor, EventFilter, Keyword, Level, NameFilter, WriteOptions,
};

/// A session's EVENT_ID list: (filter_in, ids), or none.
type IdList = Option<(bool, &'static [u16])>;

fn takes_id(list: IdList, id: u16) -> bool {
    match list {
        None => true,
        Some((filter_in, ids)) => ids.contains(&id) == filter_in,
    }
}

/// Ids to write: the listed ones, their neighbours, and ids ≡ them mod 256 above 256.
const IDS: &[u16] = &[
    0, 1, 3, 4, 7, 8, 40, 41, 99, 100, 200, 255, 256, 259, 263, 300, 355, 511, 519, 1000, 65535,
];

fn check_ids(lists: &[IdList]) {
    let mut cap = Capture::new();
    for (i, l) in lists.iter().enumerate() {
        let mut params = EnableParams::new();
        if let Some((filter_in, ids)) = l {
            params = params.filter(EventFilter::EventId {
                filter_in: *filter_in,
                ids: ids.to_vec(),
            });
        }
        cap = cap.enable(&format!("s{i}"), guid(1), &params).unwrap();
    }
    let p = cap.process().register_provider(guid(1)).unwrap();
    for &id in IDS {
        p.write(&EventDescriptor::new(id, Level::ERROR, Keyword(1)), &[])
            .unwrap();
    }
    let r = cap.records();
    for (i, l) in lists.iter().enumerate() {
        for &id in IDS {
            let n = usize::from(takes_id(*l, id));
            let got = r.expect(Match::event(id).session(&format!("s{i}"))).count();
            assert_eq!(got, n, "lists {lists:?}: session s{i}, id {id}");
        }
    }
}

#[test]
fn id_gates_record_exactly_what_the_sessions_take() {
    // rule: FLT-19
    let cases: &[&[IdList]] = &[
        // Filter-out lists everywhere: only ids every list names are dropped everywhere.
        &[
            Some((false, &[3, 7, 40])),
            Some((false, &[4, 7, 41])),
            Some((false, &[7, 263])),
        ],
        // Filter-in lists everywhere (the allow gate).
        &[Some((true, &[99, 200])), Some((true, &[100, 300]))],
        // Mixed: one takes only 99, one takes all but 7 and 263.
        &[Some((true, &[99])), Some((false, &[7, 263]))],
        // A filter-in list that names the id another drops.
        &[Some((true, &[7])), Some((false, &[7, 8]))],
        // A session without a list: no gate.
        &[Some((false, &[7])), None],
        // Ids above 255 only.
        &[Some((false, &[256, 511])), Some((false, &[511, 1000]))],
        // One session.
        &[Some((false, &[0, 255, 65535]))],
    ];
    for lists in cases {
        check_ids(lists);
    }
}

#[test]
fn name_gates_record_exactly_what_the_sessions_take() {
    // rule: FLT-22
    let name_filter = |level: u8, any: u64, names: &[&str]| {
        EventFilter::EventName(NameFilter {
            match_any: Keyword(any),
            match_all: Keyword(0),
            level: Level(level),
            filter_in: true,
            names: names.iter().map(|n| n.to_string()).collect(),
        })
    };
    // (session filters, names written, expected per session)
    let cap = Capture::new()
        .enable(
            "a",
            guid(2),
            &EnableParams::new().filter(name_filter(0, 0, &["Keep", "Also"])),
        )
        .unwrap()
        .enable(
            "b",
            guid(2),
            &EnableParams::new().filter(name_filter(0, 0, &["Other"])),
        )
        .unwrap()
        // Its list applies to level ≤ 2 only: a level-4 event passes whatever its name.
        .enable(
            "c",
            guid(3),
            &EnableParams::new().filter(name_filter(2, 0, &["Keep"])),
        )
        .unwrap();
    let p2 = cap.process().register_provider(guid(2)).unwrap();
    let p3 = cap.process().register_provider(guid(3)).unwrap();
    let write = |p: &etwsim::Provider, name: &str, level: Level| {
        let opts = WriteOptions {
            event_name: Some(name),
            ..WriteOptions::default()
        };
        p.write_with_options(&EventDescriptor::new(0, level, Keyword(1)), &opts, &[])
            .unwrap();
    };
    for name in ["Keep", "Also", "Other", "Skip", "keep", ""] {
        write(&p2, name, Level::ERROR);
        write(&p3, name, Level::ERROR);
        write(&p3, name, Level::INFORMATION);
    }
    let r = cap.records();
    let count = |s: &str, level: Level| r.expect(Match::any().session(s).level(level)).count();
    assert_eq!(
        count("a", Level::ERROR),
        2,
        "Keep and Also (names are case-sensitive)"
    );
    assert_eq!(count("b", Level::ERROR), 1, "Other");
    assert_eq!(count("c", Level::ERROR), 1, "Keep");
    assert_eq!(
        count("c", Level::INFORMATION),
        6,
        "the list does not apply above level 2"
    );
}
