//! The eight anchor tests of issue 34, written as a downstream crate would write them: a
//! module `app` stands for the code under test (it registers its providers, starts its own
//! sessions, builds its own payloads); each test is what its author would have to type.

use etwsim::decode::manifest::Manifest;
use etwsim::testing::{Capture, Match, PayloadProbe, first_difference};
use etwsim::{EnableParams, EventFilter, Guid, Kernel, Level};

const TL: Guid = Guid::from_u128(0x5eed_3401_2026_4e75_8000_616e_6368_6f72);
const PAY: Guid = Guid::from_u128(0x5eed_3402_2026_4e75_8000_616e_6368_6f72);

const PAY_MANIFEST: &str = r#"<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Shop-Payments" guid="{5eed3402-2026-4e75-8000-616e63686f72}"
        symbol="P" resourceFileName="p.dll" messageFileName="p.dll">
      <maps><valueMap name="CurrencyMap"><map value="0" message="EUR"/><map value="1" message="USD"/></valueMap></maps>
      <events>
        <event value="7" version="0" level="win:Error" template="T" symbol="PaymentFailed"
            message="Payment in %1 failed with %2"/>
      </events>
      <templates>
        <template tid="T">
          <data name="Currency" inType="win:UInt32" map="CurrencyMap"/>
          <data name="Status" inType="win:UInt32" outType="win:HexInt32"/>
          <struct name="Client"><data name="Pid" inType="win:UInt32"/><data name="Name" inType="win:UnicodeString"/></struct>
        </template>
      </templates>
    </provider>
  </events></instrumentation>
</instrumentationManifest>"#;

/// The code under test.
mod app {
    use super::*;
    use etwsim::decode::tracelogging::EventBuilder;
    use etwsim::win32::*;
    use etwsim::{EventDescriptor, Keyword, Process, Provider, Token, WriteOptions};

    pub(crate) fn login(p: &Process, user: &str, pid: u32) {
        let provider = p.register_provider(TL).unwrap();
        let ev = EventBuilder::new("Login")
            .level(Level::INFORMATION)
            .str16("User", user)
            .begin_struct("Client")
            .value("Pid", pid)
            .end_struct()
            .build()
            .unwrap();
        let opts = WriteOptions {
            tracelogging_metadata: Some(&ev.metadata),
            ..WriteOptions::default()
        };
        provider
            .write_with_options(&ev.descriptor, &opts, &[&ev.payload])
            .unwrap();
    }

    pub(crate) fn payment_failed(p: &Process, currency: u32, status: u32, pid: u32, name: &str) {
        let mut payload = [currency, status, pid].map(u32::to_le_bytes).concat();
        payload.extend(name.encode_utf16().chain([0]).flat_map(u16::to_le_bytes));
        let d = EventDescriptor::new(7, Level::ERROR, Keyword(0));
        p.register_provider(PAY)
            .unwrap()
            .write(&d, &[&payload])
            .unwrap();
    }

    /// Logs at Verbose with an expensive payload, built only when a session wants it.
    pub(crate) fn trace_details(provider: &Provider, build: impl FnOnce() -> Vec<u8>) {
        let d = EventDescriptor::new(9, Level::VERBOSE, Keyword(0x2));
        provider.write_with(&d, build).unwrap();
    }

    /// A controller: starts "AppTrace" to a file, drops the chatty event 3 by an EVENT_ID filter.
    pub(crate) fn start_tracing(k: &Kernel) -> etwsim::Session {
        let s = k.session("AppTrace").log_file("app.etl").start().unwrap();
        let no_chatter = EventFilter::EventId {
            filter_in: false,
            ids: vec![3],
        };
        s.enable(TL, &EnableParams::new().filter(no_chatter))
            .unwrap();
        s
    }

    pub(crate) fn write_ids(k: &Kernel, ids: std::ops::RangeInclusive<u16>) {
        let p = k
            .spawn("app.exe", Token::user("u"))
            .unwrap()
            .register_provider(TL)
            .unwrap();
        for id in ids {
            let _ = p.write(
                &EventDescriptor::new(id, Level::ERROR, Keyword(0)),
                &[&[0u8; 100]],
            );
        }
    }

    /// A Win32-style port: StartTrace real-time, EnableTraceEx, EventRegister, EventWrite.
    pub(crate) fn win32_port(k: &Kernel) -> u32 {
        let api = Win32::new(&k.spawn("port.exe", Token::administrator("a")).unwrap());
        let mut props = EventTraceProperties::alloc(None);
        props.log_file_mode = EVENT_TRACE_REAL_TIME_MODE;
        let mut h = 0;
        let rc = api.start_trace(Some(&mut h), Some("PortTrace"), Some(&mut props));
        if rc != ERROR_SUCCESS {
            return rc;
        }
        let enable = EVENT_CONTROL_CODE_ENABLE_PROVIDER;
        let rc = api.enable_trace_ex(
            Some(&TL),
            None,
            h,
            enable,
            TRACE_LEVEL_WARNING,
            0,
            0,
            0,
            None,
        );
        if rc != ERROR_SUCCESS {
            return rc;
        }
        let mut reg = 0;
        api.event_register(Some(&TL), None, 0, Some(&mut reg));
        for (id, level) in [(1, TRACE_LEVEL_ERROR), (2, TRACE_LEVEL_VERBOSE)] {
            let d = EventDescriptor::new(id, Level(level), Keyword(0));
            api.event_write(reg, Some(&d), 1, Some(&[EventDataDescriptor::new(b"x")]));
        }
        ERROR_SUCCESS
    }
}

// 1. TraceLogging fields: a string and a typed struct member, and nothing else.
#[test]
fn anchor_1_tracelogging_fields() {
    let cap = Capture::new()
        .enable("S", TL, &EnableParams::new())
        .unwrap();
    app::login(cap.process(), "alice", 4242);
    let m = Match::named("Login")
        .field("User", "alice")
        .field("Client.Pid", 4242u32);
    cap.records().expect(m).only().once();
}

// 2. A manifest provider: a value map, an out-type, a struct member, the message.
#[test]
fn anchor_2_manifest_value_map_and_struct_member() {
    let manifest = Manifest::parse(PAY_MANIFEST).unwrap();
    let cap = Capture::new()
        .manifest(manifest)
        .enable("S", PAY, &EnableParams::new())
        .unwrap();
    app::payment_failed(cap.process(), 0, 0x8007_0005, 4242, "till-3");
    let m = Match::named("PaymentFailed")
        .rendered("Currency", "EUR")
        .rendered("Status", "0x80070005");
    let m = m
        .field("Client.Pid", 4242u32)
        .message("Payment in EUR failed with 0x80070005");
    cap.records().expect(m).once();
}

// 3. A payload that must not be built: no session wants Verbose.
#[test]
fn anchor_3_payload_never_built() {
    // rule: EVT-02
    let cap = Capture::new()
        .enable("S", TL, &EnableParams::new().level(Level::INFORMATION))
        .unwrap();
    let probe = PayloadProbe::new();
    app::trace_details(
        &cap.process().register_provider(TL).unwrap(),
        probe.build(|| vec![0; 4096]),
    );
    probe.assert_never_built();
    cap.records().expect(Match::any()).never();
}

// 4. A controller with filters, and the reason an event is missing.
#[test]
fn anchor_4_controller_filter_and_reason() {
    // rule: FLT-19
    let kernel = Capture::builder().journal(100).build().unwrap();
    let _session = app::start_tracing(&kernel);
    app::write_ids(&kernel, 1..=4);
    let records = Capture::attach(&kernel, "AppTrace").unwrap().records();
    records.expect(Match::event(3)).never();
    records
        .dropped()
        .expect(Match::event(3).session("AppTrace"))
        .because("FLT-19");
}

// 5. A burst into a sized session: exactly the events beyond two 4 KB buffers are lost.
#[test]
fn anchor_5_burst_with_sized_session_and_exact_loss() {
    // rule: BUF-04
    let cap = Capture::with(Capture::builder().cpus(1)).unwrap();
    let cap = cap
        .with_session("Burst", |s| {
            s.buffer_size_kb(4).minimum_buffers(2).maximum_buffers(2)
        })
        .unwrap();
    let cap = cap.enable("Burst", TL, &EnableParams::new()).unwrap();
    let kept = etwsim::capacity::records_before_loss(2, 4096, 100, &[]); // 2 × 21
    app::write_ids(cap.kernel(), 1..=100);
    assert_eq!(cap.events_lost("Burst") as usize, 100 - kept);
    cap.records().expect(Match::any()).times(kept);
}

// 6. A real-time consumer of the code's own session.
#[test]
fn anchor_6_realtime_consumer() {
    // rule: CON-01
    let kernel = Capture::builder().build().unwrap();
    let s = kernel.session("Live").real_time().start().unwrap();
    s.enable(TL, &EnableParams::new()).unwrap();
    let cap = Capture::attach(&kernel, "Live").unwrap();
    app::write_ids(&kernel, 1..=3);
    cap.records()
        .expect(Match::any().provider(TL).session("Live"))
        .times(3);
}

// 7. A Win32-style port: numeric returns, constants from etwsim::win32.
#[test]
fn anchor_7_win32_port() {
    // rule: FLT-01
    let kernel = Capture::builder().build().unwrap();
    let cap = Capture::attach(&kernel, "PortTrace");
    assert!(cap.is_err(), "nothing runs before the port starts it");
    assert_eq!(app::win32_port(&kernel), etwsim::win32::ERROR_SUCCESS);
    let records = Capture::attach(&kernel, "PortTrace").unwrap().records();
    records
        .expect(Match::event(1).level(Level::ERROR))
        .only()
        .once();
}

// 8. A reproducible .etl: two runs, byte-identical.
#[test]
fn anchor_8_reproducible_etl() {
    let run = || {
        let kernel = Capture::builder().build().unwrap();
        let session = app::start_tracing(&kernel);
        app::write_ids(&kernel, 1..=50);
        session.stop().unwrap();
        kernel.disk().read("app.etl").unwrap()
    };
    let (a, b) = (run(), run());
    assert_eq!(first_difference(&a, &b), None);
}
