//! `dump --manifest` with a manifest the loader could read only in part: what it left out is
//! said on stderr (line, element, why), the rest decodes, and an event whose template was
//! left out is named and says why its payload is shown in hex.

use crate::common;

use common::*;

#[test]
fn a_partly_usable_manifest_decodes_what_it_can_and_says_what_it_left_out() {
    // rule: DEC-16
    // rule: DEC-17
    let (dir, _) = demo("manifest_partial");
    let text = std::fs::read_to_string(dir.join("demo.man")).unwrap();
    let bad = "<data name=\"What\" inType=\"win:Int99\"/>";
    // Only the first provider's template (Contoso-Shop) is broken.
    let broken = text.replacen("<data name=\"What\" inType=\"win:AnsiString\"/>", bad, 1);
    let line = 1 + broken.lines().position(|l| l.contains(bad)).unwrap();
    std::fs::write(dir.join("partial.man"), &broken).unwrap();

    let o = etwsim(&dir, &["dump", "demo.etl", "--manifest", "partial.man"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.starts_with(&format!(
            "etwsim: warning: partial.man:{line}: <data>: unknown inType \"win:Int99\": \
             template \"What\" is left out"
        )),
        "{err}"
    );
    let out = stdout(&o);
    // Contoso-Shop's events are named, their payload is not decoded, and the reason says so.
    assert!(
        out.contains(&format!(
            "    Contoso-Shop/OrderPlaced  not decoded: template \"What\" was left out of the \
             manifest ({line}: <data>: unknown inType \"win:Int99\""
        )),
        "{out}"
    );
    // Contoso-Updater's template is whole: its events decode.
    assert!(
        out.contains("    Contoso-Updater/DownloadFailed  What=\"download failed\"\n"),
        "{out}"
    );
}

#[test]
fn many_diagnostics_are_counted_after_the_first_fifty() {
    // rule: DEC-21
    let (dir, _) = demo("manifest_many_warnings");
    let text = std::fs::read_to_string(dir.join("demo.man")).unwrap();
    let extra: String = (0..60)
        .map(|i| format!("<event value=\"{}\" level=\"win:Nope\"/>\n", 100 + i))
        .collect();
    let noisy = text.replacen("</events>", &format!("{extra}</events>"), 1);
    std::fs::write(dir.join("noisy.man"), noisy).unwrap();
    let o = etwsim(&dir, &["dump", "demo.etl", "-m", "noisy.man"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 51, "{err}");
    assert_eq!(
        lines[50],
        "etwsim: warning: noisy.man: 10 more diagnostics not shown"
    );
}
