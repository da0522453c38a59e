//! How many manifests of a folder load: an ignored test, run by hand over a set of real
//! manifests kept outside the tree (most cannot be committed: see `tests/manifests/README.md`):
//!
//! ```text
//! ETWSIM_MANIFEST_DIR=/path/to/manifests \
//!   cargo test -p etwsim-decode --test decode manifest_load_rate:: -- --ignored --nocapture
//! ```
//!
//! Every file under the folder (recursively) is loaded with [`load_manifest`] and counted as
//! loaded (no error diagnostic), partially loaded (something left out, each with a
//! [`Severity::Error`] diagnostic) or refused (the load failed). The refusals, and the
//! diagnostics grouped by kind (severity, element and message with its quoted names
//! blanked), are printed most frequent first, with one file that shows each.

use etwsim_decode::manifest::{Severity, load_manifest, read_manifest_file};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// `text` with every `"…"` quoted part replaced by `"…"` and numbers by `N`: the kind of a
/// message.
fn kind(text: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut last_digit = false;
    for c in text.chars() {
        if c == '"' {
            quoted = !quoted;
            if quoted {
                out.push_str("\"…\"");
            }
            continue;
        }
        if quoted {
            continue;
        }
        if c.is_ascii_digit() {
            if !last_digit {
                out.push('N');
            }
            last_digit = true;
            continue;
        }
        last_digit = false;
        out.push(c);
    }
    out
}

#[test]
#[ignore = "needs ETWSIM_MANIFEST_DIR: a folder of real manifests"]
fn load_rate_of_a_folder_of_manifests() {
    let Ok(dir) = std::env::var("ETWSIM_MANIFEST_DIR") else {
        eprintln!("set ETWSIM_MANIFEST_DIR to a folder of manifests");
        return;
    };
    let mut paths = Vec::new();
    files(Path::new(&dir), &mut paths);
    paths.sort();
    let (mut loaded, mut partial, mut refused) = (0usize, 0usize, 0usize);
    let mut refusals: BTreeMap<String, (usize, PathBuf)> = BTreeMap::new();
    let mut kinds: BTreeMap<String, (usize, usize, String)> = BTreeMap::new();
    let (mut events, mut left_out_events, mut undecodable) = (0usize, 0usize, 0usize);
    // Per first-level folder: files, loaded, partially loaded, refused.
    let mut folders: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    for path in &paths {
        let folder = path
            .strip_prefix(&dir)
            .ok()
            .and_then(|r| r.components().next())
            .filter(|_| path.parent() != Some(Path::new(&dir)))
            .map_or_else(
                || ".".to_owned(),
                |c| c.as_os_str().to_string_lossy().into_owned(),
            );
        let tally = folders.entry(folder).or_default();
        tally[0] += 1;
        let result = read_manifest_file(path)
            .map_err(|e| e.to_string())
            .and_then(|b| load_manifest(&b).map_err(|e| e.to_string()));
        match result {
            Err(e) => {
                refused += 1;
                tally[3] += 1;
                let k = kind(&e);
                let entry = refusals.entry(k).or_insert((0, path.clone()));
                entry.0 += 1;
            }
            Ok(m) => {
                events += m.providers.iter().map(|p| p.events.len()).sum::<usize>();
                undecodable += m
                    .providers
                    .iter()
                    .flat_map(|p| p.events.iter().map(move |e| (p, e)))
                    .filter(|(p, e)| e.template.is_some() && p.template_of(e).is_none())
                    .count();
                let errors = m
                    .diagnostics()
                    .iter()
                    .filter(|d| d.severity == Severity::Error)
                    .count();
                if errors == 0 {
                    loaded += 1;
                    tally[1] += 1;
                } else {
                    partial += 1;
                    tally[2] += 1;
                }
                let mut seen = std::collections::HashSet::new();
                for d in m.diagnostics() {
                    if d.severity == Severity::Error && d.element == "event" {
                        left_out_events += 1;
                    }
                    let k = format!("{:?} <{}>: {}", d.severity, d.element, kind(&d.message));
                    let example = format!("{}:{d}", path.display());
                    let entry = kinds.entry(k.clone()).or_insert((0, 0, example));
                    entry.0 += 1;
                    if seen.insert(k) {
                        entry.1 += 1;
                    }
                }
            }
        }
    }
    let total = paths.len().max(1);
    let pct = |n: usize| 100.0 * n as f64 / total as f64;
    println!("{} files under {dir}", paths.len());
    println!(
        "loaded {loaded} ({:.1} %), partially loaded {partial} ({:.1} %), refused {refused} ({:.1} %)",
        pct(loaded),
        pct(partial),
        pct(refused)
    );
    println!(
        "events loaded: {events}, of which {undecodable} name a template that was left out \
         or is not defined; event elements left out: {left_out_events}"
    );
    println!("\nby folder: files, loaded, partially loaded, refused");
    for (f, [n, l, p, r]) in &folders {
        println!("{n:6} {l:6} {p:6} {r:6}  {f}");
    }
    let mut r: Vec<_> = refusals.into_iter().collect();
    r.sort_by_key(|e| std::cmp::Reverse(e.1.0));
    println!("\nrefused, by reason:");
    for (k, (n, example)) in r {
        println!("{n:6}  {k}\n        e.g. {}", example.display());
    }
    let mut k: Vec<_> = kinds.into_iter().collect();
    k.sort_by_key(|e| std::cmp::Reverse(e.1.0));
    println!("\ndiagnostics, by kind (count, files):");
    for (k, (n, files, example)) in k {
        println!("{n:6} {files:5}  {k}\n        e.g. {example}");
    }
}
