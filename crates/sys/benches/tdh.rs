//! P23: decoding one manifest event through TDH — `TdhGetEventInformation` plus
//! `TdhGetPropertySize` + `TdhGetProperty` for every property — against etwsim's own decode
//! of the same event (`Provider::decode`), in the same run. Target: ≤ 3×.
//!
//! `cargo bench -p etwsim-sys --bench tdh`
#![allow(missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use etwsim::decode::manifest::load_manifest;
use etwsim_sys::abi::{EVENT_DESCRIPTOR, EVENT_RECORD, GUID};
use etwsim_sys::tdh::*;
use std::hint::black_box;
use std::ptr::null;

const MANIFEST: &str = r#"<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation><events>
  <provider name="Tdh-Bench" guid="{5dd3a0a1-0000-4000-8000-00000000b001}" symbol="TDHBENCH">
   <templates><template tid="T">
     <data name="Size" inType="win:UInt32"/>
     <data name="Name" inType="win:UnicodeString"/>
     <data name="Kind" inType="win:UInt32"/>
     <data name="Id" inType="win:GUID"/>
     <data name="Offset" inType="win:UInt64"/>
     <data name="Count" inType="win:UInt16"/>
     <data name="Items" inType="win:UInt32" count="Count"/>
   </template></templates>
   <events><event value="7" version="1" level="win:Informational" template="T"/></events>
  </provider>
 </events></instrumentation>
</instrumentationManifest>"#;

fn bench(c: &mut Criterion) {
    // SAFETY: the bytes of a manifest.
    let code =
        unsafe { TdhLoadManifestFromMemory(MANIFEST.as_ptr().cast(), MANIFEST.len() as u32) };
    assert_eq!(code, 0);
    let mut data = 4096u32.to_le_bytes().to_vec();
    for u in "C:\\temp\\some file.txt\0".encode_utf16() {
        data.extend_from_slice(&u.to_le_bytes());
    }
    data.extend_from_slice(&2u32.to_le_bytes());
    data.extend_from_slice(&[0x11; 16]);
    data.extend_from_slice(&123_456u64.to_le_bytes());
    data.extend_from_slice(&4u16.to_le_bytes());
    for i in 0..4u32 {
        data.extend_from_slice(&i.to_le_bytes());
    }
    // SAFETY: plain data; all-zero is valid.
    let mut r: EVENT_RECORD = unsafe { std::mem::zeroed() };
    r.EventHeader.ProviderId = GUID::from_u128(0x5dd3a0a1_0000_4000_8000_00000000b001);
    r.EventHeader.EventDescriptor = EVENT_DESCRIPTOR {
        Id: 7,
        Version: 1,
        ..Default::default()
    };
    r.EventHeader.Flags = 0x40;
    r.UserData = data.as_mut_ptr().cast();
    r.UserDataLength = data.len() as u16;
    let names: Vec<Vec<u16>> = ["Size", "Name", "Kind", "Id", "Offset", "Count", "Items"]
        .iter()
        .map(|n| n.encode_utf16().chain([0]).collect())
        .collect();
    let mut info = vec![0u64; 256];
    let mut out = vec![0u8; 256];

    let manifest = load_manifest(MANIFEST.as_bytes()).unwrap();
    let provider = &manifest.providers[0];
    let event = provider.event(7, 1).unwrap();

    let mut g = c.benchmark_group("P23 manifest event");
    g.bench_function(
        "tdh: GetEventInformation + GetPropertySize/GetProperty per property",
        |b| {
            b.iter(|| {
                let mut size = (info.len() * 8) as u32;
                // SAFETY: valid record and buffer of `size` bytes.
                let code = unsafe {
                    TdhGetEventInformation(&r, 0, null(), info.as_mut_ptr().cast(), &mut size)
                };
                assert_eq!(code, 0);
                for n in &names {
                    let d = PROPERTY_DATA_DESCRIPTOR {
                        PropertyName: n.as_ptr() as u64,
                        ArrayIndex: u32::MAX,
                        Reserved: 0,
                    };
                    let mut len = 0u32;
                    // SAFETY: valid pointers.
                    unsafe {
                        assert_eq!(TdhGetPropertySize(&r, 0, null(), 1, &d, &mut len), 0);
                        assert_eq!(
                            TdhGetProperty(&r, 0, null(), 1, &d, len, out.as_mut_ptr()),
                            0
                        );
                    }
                }
                black_box(&out);
            })
        },
    );
    g.bench_function("etwsim: Provider::decode", |b| {
        b.iter(|| black_box(provider.decode(event, black_box(&data), 8).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
