//! End-to-end smoke test of the foundation: start, register, enable, callbacks, stop.

use crate::common;
use common::*;
use etwsim::{ControlCode, EnableParams, Keyword, Level};

#[test]
fn enable_register_stop_round_trip() {
    // rule: PRV-06
    // rule: SES-80
    let k = kernel();
    let g = guid(1);
    let s = k.session("smoke").start().unwrap();
    s.enable(g, &EnableParams::new().level(Level::WARNING).any(0x10))
        .unwrap();
    let app = user_process(&k, "app.exe");
    let rec = Recorder::new();
    let p = app
        .register_provider_with_callback(g, rec.callback())
        .unwrap();
    assert_eq!(
        rec.len(),
        1,
        "pre-enabled provider is called back during registration"
    );
    assert_eq!(rec.last().is_enabled, ControlCode::EnableProvider);
    assert!(p.is_enabled_for(Level::WARNING, Keyword(0x10)));
    assert!(!p.is_enabled_for(Level::INFORMATION, Keyword(0x10)));
    assert!(!p.is_enabled_for(Level::WARNING, Keyword(0x20)));
    s.stop().unwrap();
    assert_eq!(rec.last().is_enabled, ControlCode::DisableProvider);
    assert!(!p.is_enabled());
}
