//! What a manifest's text may cost before anything is decoded: element nesting is bounded
//! before the XML parser sees the text (its recursion would otherwise overflow the stack),
//! and a manifest file is read only up to [`MAX_MANIFEST_BYTES`].

use etwsim_decode::Error;
use etwsim_decode::manifest::{MAX_MANIFEST_BYTES, MAX_XML_DEPTH, Manifest, read_manifest_file};

/// A well-formed manifest with `depth` nested `<x>` elements inside its provider.
fn nested(depth: usize) -> String {
    format!(
        "<instrumentationManifest><instrumentation><events>\n\
         <provider name=\"P\" guid=\"{{3e4f2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b}}\">\n\
         {}{}\n\
         </provider></events></instrumentation></instrumentationManifest>",
        "<x>".repeat(depth),
        "</x>".repeat(depth)
    )
}

/// Runs `f` on a thread with the default 2 MB stack of spawned threads (the main test thread
/// may have more), so that parser recursion this test guards against would crash it.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn a_manifest_nested_20000_deep_is_refused_before_the_parser() {
    // rule: DEC-16
    let text = nested(20_000);
    assert!(text.len() > 140_000);
    let err = on_small_stack(move || Manifest::parse(&text).unwrap_err());
    let Error::Xml { line, message, .. } = &err else {
        panic!("{err}");
    };
    assert_eq!(*line, 3, "{err}");
    assert!(message.contains(&MAX_XML_DEPTH.to_string()), "{err}");
}

#[test]
fn nesting_up_to_the_limit_loads() {
    // rule: DEC-16
    // The provider sits at depth 4; the limit counts the root as 1.
    let text = nested(MAX_XML_DEPTH - 4);
    let m = on_small_stack(move || Manifest::parse(&text));
    assert_eq!(m.unwrap().providers.len(), 1);
    let err = Manifest::parse(&nested(MAX_XML_DEPTH - 3)).unwrap_err();
    assert!(matches!(err, Error::Xml { line: 3, .. }), "{err}");
}

#[test]
fn the_depth_scan_skips_what_is_not_an_element() {
    // rule: DEC-16
    // Comments, CDATA, processing instructions, self-closing elements and attribute values
    // holding `>` or `/` open nothing; each holds far more `<x>` than the limit.
    let many = "<x>".repeat(2 * MAX_XML_DEPTH);
    let inner = format!(
        "<!-- {many} -->\n<?pi {many} ?>\n<templates><template tid=\"T\">\
         <data name=\"a\" inType=\"win:UInt8\"/>{}</template></templates>\n\
         <events><event value=\"1\" template=\"T\" message=\"a/> b> c\"/></events>\n\
         <maps><valueMap name=\"M\"><map value=\"1\" message=\"'/>&quot;\"/></valueMap></maps>\n\
         <z><![CDATA[{many}]]></z>",
        "<data name=\"b\" inType=\"win:UInt8\" />".repeat(2 * MAX_XML_DEPTH),
    );
    let text = format!(
        "<?xml version=\"1.0\"?>\n<instrumentationManifest><instrumentation><events>\n\
         <provider name=\"P\" guid=\"{{3e4f2c1a-5b6d-4e7f-8a9b-0c1d2e3f4a5b}}\">{inner}\
         </provider></events></instrumentation></instrumentationManifest>"
    );
    let m = Manifest::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        m.providers[0].templates[0].items.len(),
        1 + 2 * MAX_XML_DEPTH
    );
}

#[cfg(unix)]
#[test]
fn an_endless_manifest_file_is_refused_at_the_cap() {
    // rule: DEC-16
    let err = read_manifest_file(std::path::Path::new("/dev/zero")).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::FileTooLarge);
    assert_eq!(
        err.to_string(),
        "/dev/zero is larger than the 64 MiB a manifest may be"
    );
    assert_eq!(MAX_MANIFEST_BYTES, 64 << 20);
}

#[test]
fn a_manifest_file_within_the_cap_is_read_whole() {
    // rule: DEC-16
    let dir = std::env::temp_dir().join(format!("etwsim-decode-cap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("small.man");
    std::fs::write(&path, b"<instrumentationManifest/>").unwrap();
    assert_eq!(
        read_manifest_file(&path).unwrap(),
        b"<instrumentationManifest/>"
    );
    let err = read_manifest_file(&dir.join("absent.man")).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    std::fs::remove_dir_all(&dir).unwrap();
}
