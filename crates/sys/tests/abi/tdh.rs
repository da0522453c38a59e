//! TDH through the C ABI: layouts against windows-sys, and each function's codes — success,
//! NULL pointers, buffers too small (with the size written back), unknown events and
//! properties, payloads that do not match.
#![allow(non_snake_case)]

use etwsim::decode::tracelogging::EventBuilder;
use etwsim_sys::abi::{EVENT_DESCRIPTOR, EVENT_HEADER_EXTENDED_DATA_ITEM, EVENT_RECORD, GUID};
use etwsim_sys::tdh::*;
use std::mem::{offset_of, size_of, zeroed};
use std::ptr::{null, null_mut};

mod ws {
    pub(crate) use windows_sys::Win32::System::Diagnostics::Etw::*;
}

const MANIFEST: &str = r#"<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation><events>
  <provider name="Tdh-Test" guid="{5dd3a0a1-0000-4000-8000-00000000a001}" symbol="TDHTEST">
   <keywords><keyword name="Read" mask="0x1"/><keyword name="Write" mask="0x2"/></keywords>
   <tasks><task name="Io" value="1"/></tasks>
   <maps><valueMap name="Kinds"><map value="1" message="$(string.One)"/><map value="2" message="$(string.Two)"/></valueMap>
         <bitMap name="Bits"><map value="0x1" message="$(string.A)"/><map value="0x2" message="$(string.B)"/></bitMap></maps>
   <templates><template tid="T">
     <data name="Size" inType="win:UInt32"/>
     <data name="Name" inType="win:UnicodeString"/>
     <data name="Kind" inType="win:UInt32" map="Kinds"/>
     <data name="Flags" inType="win:UInt32" map="Bits"/>
     <data name="Id" inType="win:GUID"/>
     <data name="Count" inType="win:UInt16"/>
     <data name="Items" inType="win:UInt32" count="Count" outType="win:HexInt32"/>
   </template></templates>
   <events><event value="7" version="1" level="win:Informational" task="Io" keywords="Read Write"
           template="T" message="$(string.Msg)"/></events>
  </provider>
 </events></instrumentation>
 <localization><resources culture="en-US"><stringTable>
  <string id="One" value="One"/><string id="Two" value="Two"/><string id="A" value="A"/>
  <string id="B" value="B"/><string id="Msg" value="size %1"/>
 </stringTable></resources></localization>
</instrumentationManifest>"#;

const PROVIDER: GUID = GUID::from_u128(0x5dd3a0a1_0000_4000_8000_00000000a001);
const ID_GUID: u128 = 0x01234567_89ab_cdef_0123_456789abcdef;

fn load() {
    // SAFETY: the bytes of a manifest.
    let code =
        unsafe { TdhLoadManifestFromMemory(MANIFEST.as_ptr().cast(), MANIFEST.len() as u32) };
    assert_eq!(code, 0);
}

fn payload(items: &[u32]) -> Vec<u8> {
    let mut p = 4096u32.to_le_bytes().to_vec();
    for u in "a.txt\0".encode_utf16() {
        p.extend_from_slice(&u.to_le_bytes());
    }
    p.extend_from_slice(&2u32.to_le_bytes());
    p.extend_from_slice(&3u32.to_le_bytes());
    p.extend_from_slice(&etwsim::Guid::from_u128(ID_GUID).to_bytes_le());
    p.extend_from_slice(&(items.len() as u16).to_le_bytes());
    for i in items {
        p.extend_from_slice(&i.to_le_bytes());
    }
    p
}

fn record(provider: GUID, id: u16, data: &mut [u8]) -> EVENT_RECORD {
    // SAFETY: EVENT_RECORD is plain data; all-zero is a valid value.
    let mut r: EVENT_RECORD = unsafe { zeroed() };
    r.EventHeader.ProviderId = provider;
    r.EventHeader.EventDescriptor = EVENT_DESCRIPTOR {
        Id: id,
        Version: 1,
        Level: 4,
        Task: 1,
        Keyword: 3,
        ..Default::default()
    };
    r.EventHeader.Flags = 0x40;
    r.UserData = data.as_mut_ptr().cast();
    r.UserDataLength = data.len() as u16;
    r
}

/// TdhGetEventInformation's buffer, by the two-call protocol.
fn event_info(r: &EVENT_RECORD) -> Result<Vec<u64>, u32> {
    let mut size = 0u32;
    // SAFETY: a valid record, NULL buffer with size 0.
    let code = unsafe { TdhGetEventInformation(r, 0, null(), null_mut(), &mut size) };
    if code != 122 {
        return Err(code);
    }
    assert!(size as usize >= size_of::<TRACE_EVENT_INFO>());
    let mut buf = vec![0u64; (size as usize).div_ceil(8)];
    let mut small = size - 1;
    // SAFETY: `small` bytes.
    let code = unsafe { TdhGetEventInformation(r, 0, null(), buf.as_mut_ptr().cast(), &mut small) };
    assert_eq!(
        (code, small),
        (122, size),
        "too small: the size is written back"
    );
    // SAFETY: `size` bytes.
    let code = unsafe { TdhGetEventInformation(r, 0, null(), buf.as_mut_ptr().cast(), &mut size) };
    assert_eq!(code, 0);
    Ok(buf)
}

fn info(buf: &[u64]) -> &TRACE_EVENT_INFO {
    // SAFETY: the buffer holds a TRACE_EVENT_INFO, 8-aligned.
    unsafe { &*buf.as_ptr().cast::<TRACE_EVENT_INFO>() }
}

fn prop(buf: &[u64], i: usize) -> EVENT_PROPERTY_INFO {
    // SAFETY: PropertyCount entries follow.
    unsafe { *info(buf).EventPropertyInfoArray.as_ptr().add(i) }
}

fn string_at(buf: &[u64], off: u32) -> String {
    assert_ne!(off, 0);
    let bytes: &[u8] =
        // SAFETY: the buffer's bytes.
        unsafe { std::slice::from_raw_parts(buf.as_ptr().cast(), buf.len() * 8) };
    let units: Vec<u16> = bytes[off as usize..]
        .chunks_exact(2)
        .map(|c| u16::from_ne_bytes([c[0], c[1]]))
        .take_while(|&u| u != 0)
        .collect();
    String::from_utf16(&units).unwrap()
}

fn wide(s: &str) -> Vec<u16> {
    s.encode_utf16().chain([0]).collect()
}

fn get(r: &EVENT_RECORD, path: &[(&str, u32)]) -> Result<Vec<u8>, u32> {
    let names: Vec<Vec<u16>> = path.iter().map(|(n, _)| wide(n)).collect();
    let descs: Vec<PROPERTY_DATA_DESCRIPTOR> = path
        .iter()
        .zip(&names)
        .map(|((_, i), n)| PROPERTY_DATA_DESCRIPTOR {
            PropertyName: n.as_ptr() as u64,
            ArrayIndex: *i,
            Reserved: 0,
        })
        .collect();
    let mut size = 0u32;
    // SAFETY: valid pointers.
    let code =
        unsafe { TdhGetPropertySize(r, 0, null(), descs.len() as u32, descs.as_ptr(), &mut size) };
    if code != 0 {
        return Err(code);
    }
    let mut out = vec![0u8; size as usize];
    if size > 0 {
        // SAFETY: one byte short.
        let code = unsafe {
            TdhGetProperty(
                r,
                0,
                null(),
                descs.len() as u32,
                descs.as_ptr(),
                size - 1,
                out.as_mut_ptr(),
            )
        };
        assert_eq!(code, 122);
    }
    // SAFETY: `size` bytes.
    let code = unsafe {
        TdhGetProperty(
            r,
            0,
            null(),
            descs.len() as u32,
            descs.as_ptr(),
            size,
            out.as_mut_ptr(),
        )
    };
    assert_eq!(code, 0);
    Ok(out)
}

fn format(p: &EVENT_PROPERTY_INFO, data: &[u8], map: Option<&[u64]>) -> Result<(String, u16), u32> {
    let mut size = 0u32;
    let mut used = 0u16;
    let map = map.map_or(null(), |m| m.as_ptr().cast::<EVENT_MAP_INFO>());
    // SAFETY: valid pointers; NULL buffer.
    let code = unsafe {
        TdhFormatProperty(
            null(),
            map,
            8,
            p.InType,
            p.OutType,
            p.length,
            data.len() as u16,
            data.as_ptr(),
            &mut size,
            null_mut(),
            &mut used,
        )
    };
    if code != 122 {
        return Err(code);
    }
    let mut buf = vec![0u16; size as usize / 2];
    // SAFETY: `size` bytes.
    let code = unsafe {
        TdhFormatProperty(
            null(),
            map,
            8,
            p.InType,
            p.OutType,
            p.length,
            data.len() as u16,
            data.as_ptr(),
            &mut size,
            buf.as_mut_ptr(),
            &mut used,
        )
    };
    assert_eq!(code, 0);
    buf.pop();
    Ok((String::from_utf16(&buf).unwrap(), used))
}

#[test]
fn layouts_match_windows_sys() {
    macro_rules! same {
        ($ours:ty, $theirs:ty, $($a:ident = $b:ident),*) => {
            assert_eq!(size_of::<$ours>(), size_of::<$theirs>(), stringify!($ours));
            $( assert_eq!(offset_of!($ours, $a), offset_of!($theirs, $b), stringify!($a)); )*
        };
    }
    same!(
        TRACE_EVENT_INFO,
        ws::TRACE_EVENT_INFO,
        ProviderGuid = ProviderGuid,
        EventGuid = EventGuid,
        EventDescriptor = EventDescriptor,
        DecodingSource = DecodingSource,
        ProviderNameOffset = ProviderNameOffset,
        KeywordsNameOffset = KeywordsNameOffset,
        BinaryXMLSize = BinaryXMLSize,
        EventNameOffset = Anonymous1,
        EventAttributesOffset = Anonymous2,
        PropertyCount = PropertyCount,
        TopLevelPropertyCount = TopLevelPropertyCount,
        Flags = Anonymous3,
        EventPropertyInfoArray = EventPropertyInfoArray
    );
    same!(
        EVENT_PROPERTY_INFO,
        ws::EVENT_PROPERTY_INFO,
        Flags = Flags,
        NameOffset = NameOffset,
        InType = Anonymous1,
        count = Anonymous2,
        length = Anonymous3,
        Reserved = Anonymous4
    );
    same!(
        EVENT_MAP_INFO,
        ws::EVENT_MAP_INFO,
        NameOffset = NameOffset,
        Flag = Flag,
        EntryCount = EntryCount,
        MapEntryValueType = Anonymous,
        MapEntryArray = MapEntryArray
    );
    same!(
        EVENT_MAP_ENTRY,
        ws::EVENT_MAP_ENTRY,
        OutputOffset = OutputOffset,
        Value = Anonymous
    );
    same!(
        PROPERTY_DATA_DESCRIPTOR,
        ws::PROPERTY_DATA_DESCRIPTOR,
        PropertyName = PropertyName,
        ArrayIndex = ArrayIndex,
        Reserved = Reserved
    );
    same!(
        TDH_CONTEXT,
        ws::TDH_CONTEXT,
        ParameterValue = ParameterValue,
        ParameterType = ParameterType,
        ParameterSize = ParameterSize
    );
    same!(
        PROVIDER_ENUMERATION_INFO,
        ws::PROVIDER_ENUMERATION_INFO,
        NumberOfProviders = NumberOfProviders,
        TraceProviderInfoArray = TraceProviderInfoArray
    );
    same!(
        TRACE_PROVIDER_INFO,
        ws::TRACE_PROVIDER_INFO,
        ProviderGuid = ProviderGuid,
        SchemaSource = SchemaSource,
        ProviderNameOffset = ProviderNameOffset
    );
    same!(
        PROVIDER_FIELD_INFOARRAY,
        ws::PROVIDER_FIELD_INFOARRAY,
        NumberOfElements = NumberOfElements,
        FieldType = FieldType,
        FieldInfoArray = FieldInfoArray
    );
    same!(
        PROVIDER_FIELD_INFO,
        ws::PROVIDER_FIELD_INFO,
        NameOffset = NameOffset,
        DescriptionOffset = DescriptionOffset,
        Value = Value
    );
    same!(
        PROVIDER_EVENT_INFO,
        ws::PROVIDER_EVENT_INFO,
        NumberOfEvents = NumberOfEvents,
        EventDescriptorsArray = EventDescriptorsArray
    );
    same!(
        PAYLOAD_FILTER_PREDICATE,
        ws::PAYLOAD_FILTER_PREDICATE,
        FieldName = FieldName,
        CompareOp = CompareOp,
        Value = Value
    );
    assert_eq!(
        [
            DecodingSourceXMLFile,
            DecodingSourceWbem,
            DecodingSourceWPP,
            DecodingSourceTlg
        ],
        [
            ws::DecodingSourceXMLFile,
            ws::DecodingSourceWbem,
            ws::DecodingSourceWPP,
            ws::DecodingSourceTlg
        ]
    );
    assert_eq!(TDH_CONTEXT_POINTERSIZE, ws::TDH_CONTEXT_POINTERSIZE);
    assert_eq!(EventOpcodeInformation, ws::EventOpcodeInformation);
}

#[test]
fn manifest_event_information_properties_and_format() {
    load();
    let mut data = payload(&[0xA, 0xB]);
    let r = record(PROVIDER, 7, &mut data);
    let buf = event_info(&r).unwrap();
    let i = info(&buf);
    assert_eq!(i.DecodingSource, DecodingSourceXMLFile);
    assert_eq!((i.PropertyCount, i.TopLevelPropertyCount), (7, 7));
    assert_eq!(string_at(&buf, i.ProviderNameOffset), "Tdh-Test");
    assert_eq!(string_at(&buf, i.TaskNameOffset), "Io");
    assert_eq!(string_at(&buf, i.EventMessageOffset), "size %1");
    assert_eq!(string_at(&buf, i.KeywordsNameOffset), "Read");
    let names: Vec<String> = (0..7)
        .map(|k| string_at(&buf, prop(&buf, k).NameOffset))
        .collect();
    assert_eq!(
        names,
        ["Size", "Name", "Kind", "Flags", "Id", "Count", "Items"]
    );
    let items = prop(&buf, 6);
    assert_eq!(
        (items.Flags, items.count),
        (0x4, 5),
        "PropertyParamCount, index of Count"
    );
    assert_eq!(string_at(&buf, prop(&buf, 2).MapNameOffset), "Kinds");

    // Every property, whole.
    assert_eq!(
        get(&r, &[("Size", u32::MAX)]).unwrap(),
        4096u32.to_le_bytes()
    );
    assert_eq!(get(&r, &[("Name", u32::MAX)]).unwrap().len(), 12);
    assert_eq!(get(&r, &[("Items", u32::MAX)]).unwrap().len(), 8);
    assert_eq!(get(&r, &[("Items", 1)]).unwrap(), 0xBu32.to_le_bytes());
    // Bad input.
    assert_eq!(
        get(&r, &[("Items", 2)]),
        Err(87),
        "array index out of range"
    );
    assert_eq!(
        get(&r, &[("Nope", u32::MAX)]),
        Err(1168),
        "no such property"
    );
    let mut short = data[..10].to_vec();
    let bad = record(PROVIDER, 7, &mut short);
    assert_eq!(
        get(&bad, &[("Items", u32::MAX)]),
        Err(15005),
        "payload does not match"
    );

    // TdhFormatProperty for each.
    let f = |k: usize, path: (&str, u32), map: Option<&[u64]>| {
        format(&prop(&buf, k), &get(&r, &[path]).unwrap(), map)
            .unwrap()
            .0
    };
    assert_eq!(f(0, ("Size", u32::MAX), None), "4096");
    assert_eq!(f(1, ("Name", u32::MAX), None), "a.txt");
    assert_eq!(
        f(4, ("Id", u32::MAX), None),
        "{01234567-89AB-CDEF-0123-456789ABCDEF}"
    );
    assert_eq!(f(6, ("Items", 0), None), "0xA");
    let map = |name: &str| {
        let n = wide(name);
        let mut size = 0u32;
        // SAFETY: valid pointers, NULL buffer.
        let code = unsafe { TdhGetEventMapInformation(&r, n.as_ptr(), null_mut(), &mut size) };
        assert_eq!(code, 122);
        let mut m = vec![0u64; (size as usize).div_ceil(8)];
        // SAFETY: `size` bytes.
        let code =
            unsafe { TdhGetEventMapInformation(&r, n.as_ptr(), m.as_mut_ptr().cast(), &mut size) };
        assert_eq!(code, 0);
        m
    };
    assert_eq!(f(2, ("Kind", u32::MAX), Some(&map("Kinds"))), "Two");
    assert_eq!(f(3, ("Flags", u32::MAX), Some(&map("Bits"))), "A | B");
    let none = wide("NoSuchMap");
    let mut size = 0u32;
    // SAFETY: valid pointers.
    let code = unsafe { TdhGetEventMapInformation(&r, none.as_ptr(), null_mut(), &mut size) };
    assert_eq!(code, 1168);

    // TdhGetManifestEventInformation: the same schema from the GUID and descriptor.
    let d = r.EventHeader.EventDescriptor;
    let mut size = 0u32;
    // SAFETY: valid pointers.
    let code = unsafe { TdhGetManifestEventInformation(&PROVIDER, &d, null_mut(), &mut size) };
    assert_eq!(code, 122);
    assert!(size as usize >= size_of::<TRACE_EVENT_INFO>());
}

#[test]
fn null_pointers_and_unknown_events() {
    load();
    let mut data = payload(&[]);
    let r = record(PROVIDER, 7, &mut data);
    let mut size = 0u32;
    // SAFETY: NULL where the functions check.
    unsafe {
        assert_eq!(
            TdhGetEventInformation(null(), 0, null(), null_mut(), &mut size),
            87
        );
        assert_eq!(
            TdhGetEventInformation(&r, 0, null(), null_mut(), null_mut()),
            87
        );
        assert_eq!(
            TdhGetEventInformation(&r, 1, null(), null_mut(), &mut size),
            87
        );
        let ctx = TDH_CONTEXT {
            ParameterValue: 3,
            ParameterType: TDH_CONTEXT_POINTERSIZE,
            ParameterSize: 0,
        };
        assert_eq!(
            TdhGetEventInformation(&r, 1, &ctx, null_mut(), &mut size),
            87,
            "pointer size 3"
        );
        assert_eq!(TdhGetPropertySize(&r, 0, null(), 1, null(), &mut size), 87);
        assert_eq!(TdhGetProperty(&r, 0, null(), 0, null(), 0, null_mut()), 87);
        let mut used = 0u16;
        assert_eq!(
            TdhFormatProperty(
                null(),
                null(),
                8,
                8,
                0,
                0,
                4,
                null(),
                &mut size,
                null_mut(),
                &mut used
            ),
            87
        );
        assert_eq!(
            TdhFormatProperty(
                null(),
                null(),
                5,
                8,
                0,
                0,
                0,
                null(),
                &mut size,
                null_mut(),
                &mut used
            ),
            87
        );
        let two = [0u8; 2];
        assert_eq!(
            TdhFormatProperty(
                null(),
                null(),
                8,
                8,
                0,
                0,
                2,
                two.as_ptr(),
                &mut size,
                null_mut(),
                &mut used
            ),
            15005
        );
        assert_eq!(
            TdhGetEventMapInformation(&r, null(), null_mut(), &mut size),
            87
        );
        assert_eq!(TdhEnumerateProviders(null_mut(), null_mut()), 87);
        assert_eq!(
            TdhEnumerateProviderFieldInformation(&PROVIDER, 9, null_mut(), &mut size),
            87
        );
        assert_eq!(TdhLoadManifest(null()), 87);
        assert_eq!(TdhLoadManifest(wide("/nonexistent/x.man").as_ptr()), 2);
        assert_eq!(TdhLoadManifestFromBinary(wide("x.dll").as_ptr()), 50);
        assert_eq!(TdhUnloadManifest(wide("/never/loaded.man").as_ptr()), 1168);
        assert_eq!(TdhOpenDecodingHandle(null_mut()), 87);
        assert_eq!(TdhCloseDecodingHandle(12345), 87);
        assert_eq!(TdhDeletePayloadFilter(null_mut()), 87);
        assert_eq!(TdhCleanupPayloadEventFilterDescriptor(null_mut()), 87);
        assert_eq!(
            TdhAggregatePayloadFilters(0, null(), null(), null_mut()),
            87
        );
    }
    // An event no source knows.
    let unknown = record(GUID::from_u128(0x1234), 1, &mut data);
    assert_eq!(event_info(&unknown), Err(1168));
    assert_eq!(get(&unknown, &[("Size", u32::MAX)]), Err(1168));
    // A manifest event id the manifest does not define.
    let other = record(PROVIDER, 99, &mut data);
    assert_eq!(event_info(&other), Err(1168));
}

#[test]
fn tracelogging_event() {
    let ev = EventBuilder::new("Opened")
        .str16("Path", "C:\\a")
        .value("Bytes", 42u64)
        .begin_struct("Caller")
        .value("Pid", 7u32)
        .end_struct()
        .build()
        .unwrap();
    let mut data = ev.payload.clone();
    let mut r = record(GUID::from_u128(0xabc), 0, &mut data);
    let mut items = [EVENT_HEADER_EXTENDED_DATA_ITEM {
        Reserved1: 0,
        ExtType: 0x000B,
        Anonymous: Default::default(),
        DataSize: ev.metadata.len() as u16,
        DataPtr: ev.metadata.as_ptr() as u64,
    }];
    r.ExtendedData = items.as_mut_ptr();
    r.ExtendedDataCount = 1;
    let buf = event_info(&r).unwrap();
    let i = info(&buf);
    assert_eq!(i.DecodingSource, DecodingSourceTlg);
    assert_eq!(string_at(&buf, i.EventNameOffset), "Opened");
    assert_eq!((i.PropertyCount, i.TopLevelPropertyCount), (4, 3));
    let caller = prop(&buf, 2);
    assert_eq!(
        (caller.Flags & 1, caller.InType, caller.OutType),
        (1, 3, 1),
        "struct at 3, 1 member"
    );
    assert_eq!(
        get(&r, &[("Bytes", u32::MAX)]).unwrap(),
        42u64.to_le_bytes()
    );
    assert_eq!(
        get(&r, &[("Caller", u32::MAX), ("Pid", u32::MAX)]).unwrap(),
        7u32.to_le_bytes()
    );
    let path = get(&r, &[("Path", u32::MAX)]).unwrap();
    assert_eq!(
        format(&prop(&buf, 0), &path, None).unwrap(),
        ("C:\\a".to_owned(), 10)
    );
}

#[test]
fn format_property_table() {
    let p = |in_type: u16, out_type: u16, length: u16| EVENT_PROPERTY_INFO {
        InType: in_type,
        OutType: out_type,
        length,
        ..Default::default()
    };
    let f = |q: EVENT_PROPERTY_INFO, d: &[u8]| format(&q, d, None).unwrap().0;
    assert_eq!(f(p(7, 0, 0), &(-5i32).to_le_bytes()), "-5");
    assert_eq!(f(p(4, 16, 0), &[0x1f]), "0x1F");
    assert_eq!(f(p(13, 0, 0), &1u32.to_le_bytes()), "true");
    assert_eq!(f(p(4, 13, 0), &[0]), "false");
    assert_eq!(f(p(6, 22, 0), &[0x01, 0xBB]), "443");
    assert_eq!(f(p(8, 23, 0), &[192, 0, 2, 1]), "192.0.2.1");
    let mut v6 = [0u8; 16];
    v6[0] = 0xfe;
    v6[1] = 0x80;
    v6[15] = 1;
    assert_eq!(f(p(14, 24, 16), &v6), "fe80::1");
    assert_eq!(f(p(14, 15, 3), &[1, 2, 0xff]), "0x0102FF");
    assert_eq!(f(p(16, 0, 0), &0x7ff6a000u64.to_le_bytes()), "0x7FF6A000");
    // 2024-01-02T03:04:05Z as a FILETIME.
    let ft: u64 = (1_704_164_645 + 11_644_473_600) * 10_000_000;
    assert_eq!(
        f(p(17, 0, 0), &ft.to_le_bytes()),
        "\u{200E}2024\u{200E}-\u{200E}01\u{200E}-\u{200E}02T03:04:05.0000000Z"
    );
    let sid = [1u8, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0];
    assert_eq!(f(p(19, 0, 0), &sid), "S-1-5-18");
    assert_eq!(f(p(2, 0, 0), b"hi\0"), "hi");
    assert_eq!(f(p(22, 0, 0), &[4, 0, b'o', 0, b'k', 0]), "ok");
    assert_eq!(f(p(11, 0, 0), &1.5f32.to_le_bytes()), "1.5");
    assert_eq!(f(p(8, 30, 0), &5u32.to_le_bytes()), "0x5");
    // The buffer protocol.
    let mut size = 4u32;
    let mut used = 0u16;
    let mut small = [0u16; 2];
    let d = 4096u32.to_le_bytes();
    // SAFETY: 4 writable bytes.
    let code = unsafe {
        TdhFormatProperty(
            null(),
            null(),
            8,
            8,
            0,
            0,
            4,
            d.as_ptr(),
            &mut size,
            small.as_mut_ptr(),
            &mut used,
        )
    };
    assert_eq!((code, size), (122, 10), "\"4096\" and its NUL");
}

#[test]
fn enumeration_and_handles() {
    load();
    let mut size = 0u32;
    // SAFETY: valid pointers throughout.
    unsafe {
        assert_eq!(TdhEnumerateProviders(null_mut(), &mut size), 122);
        let mut buf = vec![0u64; (size as usize).div_ceil(8)];
        assert_eq!(TdhEnumerateProviders(buf.as_mut_ptr().cast(), &mut size), 0);
        let e = &*buf.as_ptr().cast::<PROVIDER_ENUMERATION_INFO>();
        let list = std::slice::from_raw_parts(
            e.TraceProviderInfoArray.as_ptr(),
            e.NumberOfProviders as usize,
        );
        let ours = list
            .iter()
            .find(|p| p.ProviderGuid == PROVIDER)
            .expect("the loaded provider");
        assert_eq!(ours.SchemaSource, 0);
        assert_eq!(string_at(&buf, ours.ProviderNameOffset), "Tdh-Test");
        assert!(
            list.iter().any(|p| p.SchemaSource == 1),
            "the kernel MOF classes"
        );

        size = 0;
        assert_eq!(
            TdhEnumerateProviderFieldInformation(
                &PROVIDER,
                EventKeywordInformation,
                null_mut(),
                &mut size
            ),
            122
        );
        let mut buf = vec![0u64; (size as usize).div_ceil(8)];
        assert_eq!(
            TdhEnumerateProviderFieldInformation(
                &PROVIDER,
                EventKeywordInformation,
                buf.as_mut_ptr().cast(),
                &mut size
            ),
            0
        );
        let a = &*buf.as_ptr().cast::<PROVIDER_FIELD_INFOARRAY>();
        assert_eq!(a.NumberOfElements, 2);
        let second = *a.FieldInfoArray.as_ptr().add(1);
        assert_eq!(
            (string_at(&buf, second.NameOffset), second.Value),
            ("Write".to_owned(), 2)
        );
        assert_eq!(
            TdhEnumerateProviderFieldInformation(
                &PROVIDER,
                EventChannelInformation,
                null_mut(),
                &mut size
            ),
            1168
        );
        let nobody = GUID::from_u128(0x999);
        assert_eq!(
            TdhEnumerateProviderFieldInformation(
                &nobody,
                EventKeywordInformation,
                null_mut(),
                &mut size
            ),
            1168
        );

        size = 0;
        assert_eq!(
            TdhEnumerateManifestProviderEvents(&PROVIDER, null_mut(), &mut size),
            122
        );
        let mut buf = vec![0u64; (size as usize).div_ceil(8)];
        assert_eq!(
            TdhEnumerateManifestProviderEvents(&PROVIDER, buf.as_mut_ptr().cast(), &mut size),
            0
        );
        let ev = &*buf.as_ptr().cast::<PROVIDER_EVENT_INFO>();
        assert_eq!(
            (
                ev.NumberOfEvents,
                ev.EventDescriptorsArray[0].Id,
                ev.EventDescriptorsArray[0].Keyword
            ),
            (1, 7, 3)
        );
        assert_eq!(
            TdhEnumerateManifestProviderEvents(&nobody, null_mut(), &mut size),
            1168
        );

        let mut h: TDH_HANDLE = 0;
        assert_eq!(TdhOpenDecodingHandle(&mut h), 0);
        let ctx = TDH_CONTEXT {
            ParameterValue: 1,
            ParameterType: TDH_CONTEXT_WPP_GMT,
            ParameterSize: 0,
        };
        assert_eq!(TdhSetDecodingParameter(h, &ctx), 0);
        let bad = TDH_CONTEXT {
            ParameterType: 77,
            ..ctx
        };
        assert_eq!(TdhSetDecodingParameter(h, &bad), 87);
        let mut back = TDH_CONTEXT {
            ParameterType: TDH_CONTEXT_WPP_GMT,
            ..Default::default()
        };
        assert_eq!(TdhGetDecodingParameter(h, &mut back), 0);
        assert_eq!(back.ParameterValue, 1);
        assert_eq!(TdhCloseDecodingHandle(h), 0);
        assert_eq!(TdhCloseDecodingHandle(h), 87);
    }
}

#[test]
fn payload_filters_on_an_installed_manifest() {
    let m = etwsim::decode::manifest::load_manifest(MANIFEST.as_bytes()).unwrap();
    etwsim_sys::kernel().install_manifest(&m).unwrap();
    let d = EVENT_DESCRIPTOR {
        Id: 7,
        Version: 1,
        ..Default::default()
    };
    let mut field = wide("Size");
    let mut value = wide("100");
    let pred = PAYLOAD_FILTER_PREDICATE {
        FieldName: field.as_mut_ptr(),
        CompareOp: 3,
        Value: value.as_mut_ptr(),
    };
    let mut f: *mut std::ffi::c_void = null_mut();
    // SAFETY: valid pointers throughout.
    unsafe {
        assert_eq!(
            TdhCreatePayloadFilter(&PROVIDER, &d, false, 1, &pred, &mut f),
            0
        );
        assert!(!f.is_null());
        let bad = PAYLOAD_FILTER_PREDICATE {
            CompareOp: 32,
            ..pred
        };
        let mut g = null_mut();
        assert_eq!(
            TdhCreatePayloadFilter(&PROVIDER, &d, false, 1, &bad, &mut g),
            87
        );
        let other = EVENT_DESCRIPTOR { Id: 8, ..d };
        assert_eq!(
            TdhCreatePayloadFilter(&PROVIDER, &other, false, 1, &pred, &mut g),
            1168
        );
        let mut desc = etwsim_sys::abi::EVENT_FILTER_DESCRIPTOR::default();
        let ptrs = [f.cast_const()];
        assert_eq!(
            TdhAggregatePayloadFilters(1, ptrs.as_ptr(), null(), &mut desc),
            0
        );
        assert!(desc.Ptr != 0 && desc.Size > 0);
        assert_eq!(TdhCleanupPayloadEventFilterDescriptor(&mut desc), 0);
        assert_eq!(desc.Ptr, 0);
        assert_eq!(TdhCleanupPayloadEventFilterDescriptor(&mut desc), 87);
        assert_eq!(TdhDeletePayloadFilter(&mut f), 0);
        assert!(f.is_null());
    }
}
