//! The report in a real browser: headless Chromium renders each page, the screenshot must not
//! be blank, and the DOM after the page's script ran must have every part (the script builds
//! the event-detail table and marks the page ready).
//!
//! Chromium is Debian's `chromium` package (`/usr/bin/chromium`; `ETWSIM_CHROMIUM` names
//! another binary; naming one that does not exist is "no browser"). Without it the test says
//! it skipped — unless `ETWSIM_REQUIRE_CHROMIUM=1`
//! (CI sets it), which makes a missing browser a failure.

use etwsim_scenario::{Scenario, report};
use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("ETWSIM_CHROMIUM") {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file())
}

fn required() -> bool {
    std::env::var("ETWSIM_REQUIRE_CHROMIUM").is_ok_and(|v| v == "1")
}

/// Runs Chromium headless on `page` with `args`, bounded by coreutils' `timeout` so a hung
/// browser fails the test instead of blocking it. Returns its standard output.
fn run_chromium(browser: &Path, profile: &Path, page: &Path, args: &[&str]) -> String {
    let url = format!("file://{}", page.display());
    let out = Command::new("timeout")
        .arg("120")
        .arg(browser)
        .args([
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(&url)
        .output()
        .expect("run chromium under timeout");
    assert!(
        out.status.success(),
        "chromium failed on {url}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Decodes the PNG and checks it is not blank: several colours, and enough pixels that are
/// not the white background.
fn assert_not_blank(png_path: &Path, width: u32, height: u32) {
    let file = std::fs::File::open(png_path).expect("the screenshot exists");
    let decoder = png::Decoder::new(std::io::BufReader::new(file));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    assert_eq!(
        (info.width, info.height),
        (width, height),
        "the window size"
    );
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    let bytes = &buf[..info.buffer_size()];
    let mut colours = std::collections::HashSet::new();
    let mut ink = 0usize;
    let pixels = bytes.len() / channels;
    for px in bytes.chunks_exact(channels) {
        let rgb = (px[0], px[1], px[2]);
        colours.insert(rgb);
        if rgb != (255, 255, 255) {
            ink += 1;
        }
    }
    assert!(
        colours.len() > 16,
        "{} colours: a blank page",
        colours.len()
    );
    assert!(
        ink * 100 > pixels * 3,
        "only {ink} of {pixels} pixels are not background"
    );
    // The event marks' blue (#2f6fde) is on the page.
    assert!(
        colours
            .iter()
            .any(|&(r, g, b)| r < 80 && (90..130).contains(&g) && b > 200),
        "no event mark is visible"
    );
}

#[test]
fn reports_render_in_headless_chromium() {
    let Some(browser) = chromium() else {
        assert!(
            !required(),
            "ETWSIM_REQUIRE_CHROMIUM=1 but no chromium: install Debian's `chromium` package"
        );
        eprintln!("skipped: no chromium (install Debian's `chromium`, or set ETWSIM_CHROMIUM)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("etwsim-report-browser-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/scenarios");

    let mut pages = Vec::new();
    for name in ["two_levels", "burst_loss"] {
        let sc = Scenario::load(examples.join(format!("{name}.toml"))).unwrap();
        let outcome = sc.run();
        let page = dir.join(format!("{name}.html"));
        std::fs::write(&page, report::scenario_html(&sc, &outcome)).unwrap();
        pages.push(page);
        if name == "burst_loss" {
            // The .etl page of the file the scenario wrote.
            let etl = dir.join("burst.etl");
            std::fs::write(&etl, &outcome.files[0].bytes).unwrap();
            let page = dir.join("burst_etl.html");
            report::write_report(&etl, &page, &[]).unwrap();
            pages.push(page);
        }
    }

    for page in &pages {
        let profile = dir.join("profile");
        let shot = page.with_extension("png");
        run_chromium(
            &browser,
            &profile,
            page,
            &[
                &format!("--screenshot={}", shot.display()),
                "--window-size=1200,900",
            ],
        );
        assert_not_blank(&shot, 1200, 900);

        let dom = run_chromium(&browser, &profile, page, &["--dump-dom"]);
        for id in [
            "timeline",
            "detail",
            "counters",
            "slots",
            "zoom",
            // Made by the page's script: it ran.
            "detail-table",
            "report-ready",
        ] {
            assert!(
                dom.contains(&format!("id=\"{id}\"")),
                "{}: no #{id} in the DOM after scripts ran",
                page.display()
            );
        }
        assert!(
            dom.contains("event 1 of"),
            "the script showed the first event"
        );
        // The script redrew the axis for the zoom (five ticks, labels in ms or s).
        let axis = dom.split("id=\"axis\"").nth(1).unwrap_or_default();
        assert!(
            axis.contains(" ms<") || axis.contains(" s<"),
            "the axis was drawn"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
