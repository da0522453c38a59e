//! Shared helpers of the behaviour tests: a fresh deterministic kernel, a callback recorder,
//! and the "rejected call changes nothing" check.
#![allow(dead_code, unreachable_pub)]

use etwsim::{EnableNotification, Guid, Kernel, MemorySink, Process, Session, Token, Win32Error};
use std::sync::{Arc, Mutex};

/// A fresh deterministic kernel with 4 CPUs and the default limits.
pub fn kernel() -> Kernel {
    Kernel::builder()
        .cpus(4)
        .deterministic(42)
        .build()
        .expect("default kernel")
}

/// A test provider GUID, distinct per `n`.
pub fn guid(n: u32) -> Guid {
    Guid::from_fields(
        0x5eed_0000 + n,
        0x1234,
        0x4567,
        [0x89, 0xab, 0xcd, 0xef, 0, 0, 0, n as u8],
    )
}

/// A standard user process running `image`.
pub fn user_process(k: &Kernel, image: &str) -> Process {
    k.spawn(image, Token::user("alice")).expect("spawn")
}

/// An elevated administrator process running `image`.
pub fn admin_process(k: &Kernel, image: &str) -> Process {
    k.spawn(image, Token::administrator("admin"))
        .expect("spawn")
}

/// Records every enable notification a provider receives.
#[derive(Clone, Default)]
pub struct Recorder(pub Arc<Mutex<Vec<EnableNotification>>>);

impl Recorder {
    pub fn new() -> Recorder {
        Recorder::default()
    }

    /// A callback that appends to this recorder.
    pub fn callback(&self) -> impl Fn(&EnableNotification) + Send + Sync + 'static {
        let log = self.0.clone();
        move |n: &EnableNotification| log.lock().unwrap().push(n.clone())
    }

    /// Everything received so far.
    pub fn all(&self) -> Vec<EnableNotification> {
        self.0.lock().unwrap().clone()
    }

    /// How many notifications so far.
    pub fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }

    /// The last notification.
    pub fn last(&self) -> EnableNotification {
        self.0
            .lock()
            .unwrap()
            .last()
            .cloned()
            .expect("no callback was received")
    }

    /// Takes and clears what was received.
    pub fn take(&self) -> Vec<EnableNotification> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

/// Runs `call`, which must fail with `code`, and checks the kernel's tables are exactly as
/// before it.
#[track_caller]
pub fn assert_rejected<T: std::fmt::Debug>(
    k: &Kernel,
    code: Win32Error,
    call: impl FnOnce() -> etwsim::Result<T>,
) {
    let before = k.snapshot();
    match call() {
        Ok(v) => panic!("expected {code}, the call succeeded with {v:?}"),
        Err(e) => assert_eq!(e.win32_code(), code, "wrong error: {e}"),
    }
    assert_eq!(
        k.snapshot(),
        before,
        "a rejected call changed the kernel's state"
    );
}

/// As [`assert_rejected`] for a `win32` face call returning a numeric code.
#[track_caller]
pub fn assert_rejected_code(k: &Kernel, code: Win32Error, call: impl FnOnce() -> u32) {
    let before = k.snapshot();
    assert_eq!(Win32Error(call()), code);
    assert_eq!(
        k.snapshot(),
        before,
        "a rejected call changed the kernel's state"
    );
}

/// A seeded random source for the property and robustness tests (xorshift64: tiny,
/// deterministic, good enough to pick raw values).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())]
    }
    /// A u32 that is usually interesting (boundaries, small numbers), sometimes anything.
    pub fn u32(&mut self) -> u32 {
        if self.chance(30) {
            self.next() as u32
        } else {
            self.pick(&[
                0,
                1,
                2,
                3,
                4,
                5,
                6,
                8,
                64,
                99,
                119,
                120,
                121,
                122,
                1024,
                1025,
                16384,
                16385,
                0x7fff_ffff,
                0x8000_0000,
                u32::MAX - 1,
                u32::MAX,
            ])
        }
    }
    pub fn bytes(&mut self) -> Vec<u8> {
        let len = if self.chance(85) {
            self.below(48)
        } else {
            self.pick(&[1023, 1024, 1025, 4096, 4097])
        };
        (0..len)
            .map(|_| {
                if self.chance(50) {
                    self.pick(&[0, 1, 0xff, b'a', b';'])
                } else {
                    self.next() as u8
                }
            })
            .collect()
    }
    /// A string from a small alphabet, so names collide and files resolve.
    pub fn name(&mut self) -> String {
        match self.below(12) {
            0 => String::new(),
            1 => "n".repeat(self.pick(&[1024, 1025, 3000])),
            2 => "a\0b".into(),
            3 => self
                .pick(&[
                    "NT Kernel Logger",
                    "Circular Kernel Context Logger",
                    "GlobalLogger",
                ])
                .into(),
            _ => {
                let len = 1 + self.below(4);
                (0..len).map(|_| self.pick(&['a', 'B', 'c'])).collect()
            }
        }
    }
}

/// A manifest with one provider of GUID `g` ("Test-Payload"): events 1000 versions 0 and 1
/// with the fields `Path` (UnicodeString) and `Size` (UInt32); event 1001 with `Count`
/// (Int64) and `Name` (AnsiString); event 1002 with no template.
pub fn payload_manifest(g: Guid) -> etwsim::decode::manifest::Manifest {
    let xml = format!(
        r#"<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
         <instrumentation><events>
          <provider name="Test-Payload" guid="{g}" symbol="TEST_PAYLOAD">
           <templates>
            <template tid="T">
             <data name="Path" inType="win:UnicodeString"/>
             <data name="Size" inType="win:UInt32"/>
            </template>
            <template tid="T2">
             <data name="Count" inType="win:Int64"/>
             <data name="Name" inType="win:AnsiString"/>
            </template>
           </templates>
           <events>
            <event value="1000" version="0" template="T"/>
            <event value="1000" version="1" template="T"/>
            <event value="1001" version="0" template="T2"/>
            <event value="1002" version="0"/>
           </events>
          </provider>
         </events></instrumentation>
        </instrumentationManifest>"#
    );
    etwsim::decode::manifest::load_manifest(xml.as_bytes()).expect("the test manifest")
}

/// A PAYLOAD filter for provider `g`, bound to event 1000 of [`payload_manifest`], whose
/// wire form is exactly `size` bytes (at least the smallest such filter's): one predicate,
/// `Size IS <padding>`.
pub fn payload_filter_of_size(g: Guid, size: usize) -> etwsim::EventFilter {
    use etwsim::decode::manifest::filter::{
        AggregateFilter, PayloadFilter, PayloadOperator, Predicate,
    };
    let m = payload_manifest(g);
    let p = &m.providers[0];
    let build = |pad: usize| {
        let pred = Predicate::new("Size", PayloadOperator::Is, "x".repeat(pad));
        let f = PayloadFilter::new(p, p.event(1000, 0).unwrap(), false, &[pred]).unwrap();
        etwsim::EventFilter::payload(&AggregateFilter::new(vec![(f, false)]).unwrap())
    };
    let smallest = build(0).to_bytes().len();
    let f = build(size.saturating_sub(smallest));
    assert_eq!(f.to_bytes().len(), size.max(smallest));
    f
}

/// A session named `name` writing to `<name>.etl` through a [`MemorySink`] the test reads.
pub fn sink_session(k: &Kernel, name: &str) -> (Session, MemorySink) {
    let sink = MemorySink::new();
    let s = k
        .session(name)
        .log_file(&format!("{name}.etl"))
        .sink(sink.clone())
        .start()
        .expect("session");
    (s, sink)
}
