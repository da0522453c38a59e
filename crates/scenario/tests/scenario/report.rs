//! The HTML report without a browser: self-contained, escaped, built from a scenario run or
//! an `.etl` file (etwsim's and Windows'), and never a panic on a damaged file.

use etwsim_scenario::{Scenario, report};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/scenarios")
        .join(name)
}

fn scenario_page(name: &str) -> String {
    let sc = Scenario::load(example(name)).unwrap_or_else(|e| panic!("{e}"));
    let outcome = sc.run();
    report::scenario_html(&sc, &outcome)
}

/// No resource the page would fetch: no element with a `src` or `href`, no `<link>`, no
/// `@import`, `@font-face` or remote `url(` in its style (the SVG namespace attribute is a
/// name, never fetched). Text is not markup: an escaped `&lt;img src=…&gt;` fetches nothing.
fn assert_self_contained(html: &str) {
    let lower = html.to_ascii_lowercase();
    for part in lower.split('<').skip(1) {
        let Some(tag) = part.split('>').next() else {
            continue;
        };
        if !tag.starts_with(|c: char| c.is_ascii_alphabetic()) {
            continue;
        }
        for attr in [" src=", " href=", " srcset=", " poster=", " data="] {
            assert!(!tag.contains(attr), "a tag fetches something: <{tag}>");
        }
        assert!(
            !tag.starts_with("link") && !tag.starts_with("iframe") && !tag.starts_with("img"),
            "<{tag}>"
        );
        if let Some(ns) = tag.split(" xmlns=").nth(1) {
            assert!(ns.starts_with("\"http://www.w3.org/2000/svg\""), "<{tag}>");
        }
    }
    let style_start = lower.find("<style>").expect("a style element");
    let style =
        &lower[style_start..style_start + lower[style_start..].find("</style>").expect("its end")];
    for needle in ["@import", "@font-face", "url(http", "url(//"] {
        assert!(!style.contains(needle), "the style has {needle:?}");
    }
}

#[test]
fn scenario_pages_are_self_contained_and_show_every_part() {
    for name in [
        "burst_loss.toml",
        "keywords.toml",
        "two_levels.toml",
        "realtime_backlog.toml",
    ] {
        let html = scenario_page(name);
        assert_self_contained(&html);
        for id in [
            "id=\"timeline\"",
            "id=\"detail\"",
            "id=\"counters\"",
            "id=\"slots\"",
            "id=\"event-data\"",
            "id=\"expectations\"",
        ] {
            assert!(html.contains(id), "{name}: no {id}");
        }
        assert!(html.contains("class=\"ev\""), "{name}: no event marks");
    }
}

#[test]
fn the_burst_page_marks_losses_and_the_slot_table_shows_the_last_running_moment() {
    let html = scenario_page("burst_loss.toml");
    // 120 stored, 180 lost events; 6 buffers written at the logger's run and at stop.
    assert_eq!(html.matches("class=\"ev\"").count(), 120);
    assert_eq!(html.matches("class=\"lost\"").count(), 180);
    assert!(html.contains("class=\"fl\""), "flushes are drawn");
    assert!(html.contains("class=\"sw\""), "buffer switches are drawn");
    // rule: BUF-04 — the counters row.
    assert!(html.contains(
        "<td>Burst</td><td class=\"n\">120</td><td class=\"n\">180</td><td class=\"n\">6</td>"
    ));
    // The slot table: Burst holds slot 0 at level 5 (its stop emptied it, the table is from
    // before).
    assert!(
        html.contains("<tr><td class=\"n\">0</td><td>Burst</td>"),
        "slot 0 is Burst's"
    );
}

#[test]
fn the_keyword_page_decodes_manifest_fields_and_shows_both_slots() {
    let html = scenario_page("keywords.toml");
    assert!(html.contains("field Bytes"), "manifest fields are decoded");
    assert!(html.contains(r#"C:\\a.txt"#), "the UTF-16 path is decoded");
    assert!(html.contains("<td>AllReads</td>") && html.contains("<td>LocalReads</td>"));
    assert!(
        html.contains("<td>0x1</td><td>0x3</td>"),
        "LocalReads' MatchAny and MatchAll"
    );
}

#[test]
fn every_text_is_escaped() {
    let evil = r#"</script><script>alert(1)</script><img src=x onerror=alert(2)>&\"'"#;
    let text = format!(
        r#"
[scenario]
name = "{evil}"
description = "{evil}"

[[process]]
name = "app"
image = "{0}"

[[provider]]
name = "{evil}"
process = "app"

[[session]]
name = "S&amp;<b>"
log_file = "s.etl"

[[enable]]
session = "S&amp;<b>"
provider = "{evil}"

[[step]]
write = "{evil}"
payload_text = "{evil}"

[[expect.session]]
name = "S&amp;<b>"
events = 1
"#,
        "app<b>.exe"
    );
    let sc = Scenario::parse(&text, "evil.toml", Path::new(".")).unwrap_or_else(|e| panic!("{e}"));
    let outcome = sc.run();
    assert!(outcome.passed(), "{:?}", outcome.aborted);
    let html = report::scenario_html(&sc, &outcome);
    assert_self_contained(&html);
    assert!(!html.contains("<script>alert"), "a script was injected");
    assert!(!html.contains("<img"), "an element was injected");
    assert!(
        !html.contains("S&amp;<b>"),
        "the session name is not escaped"
    );
    assert!(
        html.contains("S&amp;amp;&lt;b&gt;"),
        "the session name is shown escaped"
    );
    assert_eq!(
        html.matches("</script>").count(),
        2,
        "only the page's two scripts end"
    );
}

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/etl");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "etl"))
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn etl_pages_of_etwsim_files_count_what_the_scenario_wrote() {
    let sc = Scenario::load(example("burst_loss.toml")).unwrap();
    let outcome = sc.run();
    let file = &outcome.files[0];
    let html = report::etl_bytes_html(Path::new("burst.etl"), file.bytes.clone(), &[]).unwrap();
    assert_self_contained(&html);
    assert_eq!(html.matches("class=\"ev\"").count(), 120);
    // BUF-15: the first buffer written after the loss carries EVENTS_LOST.
    assert!(html.contains("EVENTS_LOST flag"));
    assert!(html.contains("<td>Burst</td><td class=\"n\">120</td><td class=\"n\">180</td>"));
    assert!(html.contains("does not record which sessions enabled"));
}

#[test]
fn etl_pages_of_windows_files_decode_tracelogging() {
    let files = fixtures();
    if files.is_empty() {
        eprintln!("skipped: ../shared/fixtures/etl is absent");
        return;
    }
    for f in files {
        let html = report::etl_html(&f, &[]).unwrap_or_else(|e| panic!("{e}"));
        assert_self_contained(&html);
        assert!(html.contains("class=\"ev\""), "{}: no events", f.display());
        if f.ends_with("AMSITrace.etl") {
            assert!(
                html.contains("AmsiScript"),
                "the TraceLogging event name is decoded"
            );
        }
    }
}

#[test]
fn a_file_that_is_not_etl_is_an_error() {
    let e = report::etl_bytes_html(Path::new("x.etl"), b"not an etl file".to_vec(), &[]);
    assert!(e.is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn damaged_etl_files_never_panic(
        at in any::<prop::sample::Index>(),
        bytes in proptest::collection::vec(any::<u8>(), 1..64),
        cut in any::<prop::sample::Index>(),
    ) {
        let sc = Scenario::load(example("two_levels.toml")).unwrap();
        let outcome = sc.run();
        let mut file = outcome.files[0].bytes.clone();
        let i = at.index(file.len());
        for (k, b) in bytes.iter().enumerate() {
            if let Some(x) = file.get_mut(i + k) {
                *x = *b;
            }
        }
        let _ = report::etl_bytes_html(Path::new("damaged.etl"), file.clone(), &[]);
        file.truncate(cut.index(file.len()));
        let _ = report::etl_bytes_html(Path::new("cut.etl"), file, &[]);
    }
}

/// An EventWriteString event is shown as its text on the page, not as hex (EVT-13).
#[test]
fn etl_pages_show_an_event_write_string_event_as_its_text() {
    // rule: EVT-13
    let k = etwsim::Kernel::builder().deterministic(1).build().unwrap();
    let s = k.session("S").log_file("s.etl").start().unwrap();
    let app = k
        .spawn("app.exe", etwsim::Token::administrator("admin"))
        .unwrap();
    let guid = etwsim::Guid::from_provider_name("Test-StringOnly");
    let p = app.register_provider(guid).unwrap();
    s.enable(guid, &etwsim::EnableParams::new()).unwrap();
    p.write_string(
        etwsim::Level::INFORMATION,
        etwsim::Keyword(0),
        "hello, page",
    )
    .unwrap();
    s.stop().unwrap();
    let bytes = k.disk().read("s.etl").unwrap();
    let html = report::etl_bytes_html(Path::new("s.etl"), bytes, &[]).unwrap();
    assert!(html.contains("hello, page"), "the text is on the page");
}
