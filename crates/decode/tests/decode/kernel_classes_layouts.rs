//! The kernel class table's layouts beyond FileIo/Process/Thread/Image/DiskIo v2–v3
//! (issue 30): their offsets and sizes at both pointer sizes as the sources give them
//! (TraceEvent's `HostOffset(x, n)` = `x + n × (pointer size − 4)`, Learn's MOF classes,
//! ntwmi's records), hand-built payloads that decode to the values written and encode back
//! to the same bytes, and every (class, event, version) at both pointer sizes through the
//! encoder and back.

use etwsim_decode::fields::{TokenUser, Value};
use etwsim_decode::mof::{
    self, ALPC, DISK_IO, EVENT_TRACE, FILE_IO, IMAGE, IMAGE_ID, Layout, MofClass, MofType,
    PAGE_FAULT, PERF_INFO, PROCESS, REGISTRY, SPLIT_IO, STACK_WALK, SYS_CONFIG, SYSTEM_CONFIG,
    TCP_IP, THREAD, UDP_IP,
};

/// TraceEvent's `HostOffset(x, n)`: `x` with `n` pointers widened from 4 to `ps` bytes.
fn host(x: usize, n: usize, ps: u8) -> usize {
    x + n * (usize::from(ps) - 4)
}

fn layout(class: &'static MofClass, event: &str, version: u8) -> &'static Layout {
    class
        .schema(event, version)
        .unwrap_or_else(|| panic!("{} {event} v{version}", class.name))
        .layout
}

/// Offset of `field` in `class`/`event` v`version` for pointer size `ps`.
fn off(class: &'static MofClass, event: &str, version: u8, field: &str, ps: u8) -> usize {
    layout(class, event, version)
        .fixed_offset(field, ps)
        .unwrap_or_else(|| panic!("{} {event} v{version}: {field}", class.name))
}

/// Size of a fixed layout (with its optional fields) for pointer size `ps`.
fn len(class: &'static MofClass, event: &str, version: u8, ps: u8) -> usize {
    layout(class, event, version)
        .fixed_len(ps, true)
        .unwrap_or_else(|| panic!("{} {event} v{version} is not fixed", class.name))
}

#[test]
fn fixed_sizes_match_the_sources_at_both_pointer_sizes() {
    // rule: KRN-14
    // (class, event, version, TraceEvent's size as (x, n) of HostOffset)
    let cases: &[(&'static MofClass, &str, u8, usize, usize)] = &[
        (&EVENT_TRACE, "Extension", 2, 36, 0),
        (&EVENT_TRACE, "EndExtension", 1, 32, 0),
        (&PROCESS, "PerfCtr", 2, 60, 11),
        (&PROCESS, "PerfCtrRundown", 2, 60, 11),
        (&THREAD, "Start", 0, 8, 0),
        (&THREAD, "End", 1, 8, 0),
        (&THREAD, "DCStart", 2, 40, 7),
        (&THREAD, "CSwitch", 2, 24, 0),
        (&THREAD, "CSwitch", 1, 20, 0),
        (&THREAD, "ReadyThread", 2, 8, 0),
        (&DISK_IO, "Read", 2, 40, 2),
        (&DISK_IO, "ReadInit", 2, 4, 1),
        (&DISK_IO, "Flush", 2, 20, 1),
        (&DISK_IO, "DriverMajorFunctionCall", 2, 24, 3),
        (&DISK_IO, "DriverMajorFunctionReturn", 2, 8, 1),
        (&DISK_IO, "DriverCompletionRoutine", 2, 12, 2),
        (&DISK_IO, "DriverCompleteRequest", 2, 12, 2),
        (&DISK_IO, "DriverCompleteRequestReturn", 2, 8, 1),
        (&SPLIT_IO, "VolMgr", 2, 8, 2),
        (&FILE_IO, "OperationEnd", 2, 12, 2),
        (&FILE_IO, "MapFile", 2, 24, 3),
        (&TCP_IP, "SendIPV4", 2, 36, 1),
        (&TCP_IP, "RecvIPV4", 2, 28, 1),
        (&TCP_IP, "ConnectIPV4", 2, 44, 1),
        (&TCP_IP, "Fail", 2, 4, 0),
        (&TCP_IP, "SendIPV6", 2, 60, 1),
        (&TCP_IP, "RecvIPV6", 2, 52, 1),
        (&TCP_IP, "AcceptIPV6", 2, 68, 1),
        (&TCP_IP, "SendIPV4", 0, 20, 0),
        (&UDP_IP, "SendIPV4", 0, 20, 1),
        (&UDP_IP, "RecvIPV4", 1, 20, 0),
        (&UDP_IP, "RecvIPV4", 2, 28, 1),
        (&UDP_IP, "SendIPV6", 2, 52, 1),
        (&UDP_IP, "Fail", 2, 4, 0),
        (&PAGE_FAULT, "TransitionFault", 2, 8, 2),
        (&PAGE_FAULT, "HardFault", 2, 32, 2),
        (&PAGE_FAULT, "VirtualAlloc", 2, 16, 2),
        (&PAGE_FAULT, "HRRundown", 2, 16, 1),
        (&PAGE_FAULT, "HRCreate", 2, 12, 2),
        (&PAGE_FAULT, "HRReserve", 2, 12, 3),
        (&PAGE_FAULT, "HRDestroy", 2, 4, 1),
        (&PAGE_FAULT, "ImageLoadBacked", 2, 12, 1),
        (&PERF_INFO, "SampleProf", 2, 12, 1),
        (&PERF_INFO, "PmcCounterProf", 2, 12, 1),
        (&PERF_INFO, "SetInterval", 2, 12, 0),
        (&PERF_INFO, "SysClEnter", 2, 4, 1),
        (&PERF_INFO, "SysClExit", 2, 4, 0),
        (&PERF_INFO, "ISR", 2, 16, 1),
        (&PERF_INFO, "ISR", 1, 16, 1),
        (&PERF_INFO, "DPC", 2, 12, 1),
        (&PERF_INFO, "TimerDPC", 1, 12, 1),
        (&PERF_INFO, "ThreadedDPC", 2, 12, 1),
        (&STACK_WALK, "StackKeyUser", 2, 20, 1),
        (&ALPC, "ALPC-Send-Message", 2, 4, 0),
        (&ALPC, "ALPC-Unwait", 2, 4, 0),
        (&SYSTEM_CONFIG, "CPU", 1, 800, 1),
        (&SYSTEM_CONFIG, "CPU", 2, 804, 1),
        (&SYSTEM_CONFIG, "PhyDisk", 2, 568, 0),
        (&SYSTEM_CONFIG, "LogDisk", 1, 108, 0),
        (&SYSTEM_CONFIG, "LogDisk", 2, 112, 0),
        (&SYSTEM_CONFIG, "NIC", 0, 584, 0),
        (&SYSTEM_CONFIG, "Video", 2, 2584, 0),
        (&SYSTEM_CONFIG, "Services", 1, 652, 0),
        (&SYSTEM_CONFIG, "Power", 2, 8, 0),
        (&SYSTEM_CONFIG, "Network", 2, 16, 0),
        (&SYSTEM_CONFIG, "DPI", 2, 8, 0),
        (&IMAGE_ID, "DbgPPDB", 2, 16, 1),
        (&IMAGE_ID, "DbgDeterm", 2, 8, 1),
        (&IMAGE_ID, "DbgID_None", 2, 8, 1),
    ];
    for &(class, event, version, x, n) in cases {
        for ps in [4, 8] {
            assert_eq!(
                len(class, event, version, ps),
                host(x, n, ps),
                "{} {event} v{version} with {ps}-byte pointers",
                class.name
            );
        }
    }
    // CPU v3 (ntwmi CPU_CONFIG_RECORD): 828 bytes on 64-bit, as the Windows 8 trace carries.
    assert_eq!(len(&SYSTEM_CONFIG, "CPU", 3, 8), 828);
    assert_eq!(len(&SYSTEM_CONFIG, "CPU", 3, 4), 820);
}

#[test]
fn variable_parts_start_where_the_sources_say() {
    // rule: KRN-14
    // rule: KRN-29
    // (class, event, version, field, x, n)
    let cases: &[(&'static MofClass, &str, u8, &str, usize, usize)] = &[
        (&IMAGE, "Load", 0, "ImageFileName", 8, 1),
        (&IMAGE, "DCStart", 1, "FileName", 12, 2),
        (&IMAGE, "Unload", 2, "FileName", 44, 3),
        (&IMAGE, "Load", 2, "DefaultBase", 24, 2),
        (&IMAGE, "Load", 3, "FileName", 44, 3),
        (&REGISTRY, "Open", 0, "KeyName", 16, 2),
        (&REGISTRY, "Open", 1, "KeyName", 20, 2),
        (&REGISTRY, "Open", 2, "KeyName", 20, 1),
        (&REGISTRY, "Open", 2, "KeyHandle", 16, 0),
        (&PROCESS, "Start", 1, "UserSID", 20, 1),
        (&PROCESS, "Start", 2, "UserSID", 20, 1),
        (&PROCESS, "Defunct", 5, "UserSID", 28, 2),
        (&THREAD, "SetName", 2, "ThreadName", 8, 0),
        (&THREAD, "KernelQueueDequeue", 2, "Entries", 8, 0),
        (&STACK_WALK, "Stack", 2, "Stack", 16, 0),
        (&STACK_WALK, "KeyRundown", 2, "Stack", 4, 1),
        (&STACK_WALK, "StackKeyKernel", 2, "StackKey", 16, 0),
        (&PERF_INFO, "ISR-MSI", 2, "MessageNumber", 16, 1),
        (&PERF_INFO, "CollectionStart", 3, "SourceName", 12, 0),
        (&FILE_IO, "MapFileDCStart", 3, "ByteOffset", 20, 3),
        (&FILE_IO, "MapFile", 3, "ProcessId", 28, 3),
        (&SYSTEM_CONFIG, "NIC", 2, "NICDescription", 20, 0),
        (&SYSTEM_CONFIG, "Services", 2, "ServiceName", 12, 0),
        (&SYSTEM_CONFIG, "IRQ", 2, "DeviceDescription", 16, 0),
        (&SYSTEM_CONFIG, "IRQ", 3, "DeviceDescription", 20, 0),
        (&SYSTEM_CONFIG, "PnP", 3, "DeviceID", 12, 0),
        (&SYSTEM_CONFIG, "PnP", 4, "DeviceID", 24, 0),
        (&SYSTEM_CONFIG, "PnP", 5, "DeviceID", 32, 0),
        (
            &SYSTEM_CONFIG,
            "IDEChannel",
            2,
            "LocationInformation",
            16,
            0,
        ),
        (&SYSTEM_CONFIG, "CPU", 2, "DomainName", 532, 0),
        (&SYSTEM_CONFIG, "CPU", 2, "HyperThreadingFlag", 800, 0),
        (&SYSTEM_CONFIG, "CPU", 0, "HyperThreadingFlag", 796, 0),
        (&SYSTEM_CONFIG, "PhyDisk", 2, "PartitionCount", 552, 0),
        (&SYSTEM_CONFIG, "PhyDisk", 2, "BootDriveLetter", 558, 0),
        (&SYSTEM_CONFIG, "LogDisk", 2, "FileSystem", 72, 0),
        (&SYSTEM_CONFIG, "Video", 2, "StateFlags", 2580, 0),
        (&SYSTEM_CONFIG, "OpticalMedia", 2, "DriveLetter", 64, 0),
        (&IMAGE_ID, "ImageID", 2, "OriginalFileName", 16, 2),
        (&IMAGE_ID, "DbgID_RSDS", 2, "GuidSig", 8, 1),
        (&IMAGE_ID, "DbgID_ILRSDS", 2, "PdbFileName", 28, 1),
        (&IMAGE_ID, "FileVersion", 0, "OrigFileName", 8, 0),
        (&SYS_CONFIG, "BuildInfo", 0, "BuildLab", 8, 0),
        (&TCP_IP, "RecvIPV6", 2, "seqnum", 44, 0),
        (&TCP_IP, "RecvIPV6", 2, "connid", 48, 0),
        (&TCP_IP, "ConnectIPV4", 1, "connid", 36, 0),
        (&TCP_IP, "SendIPV4", 1, "seqnum", 32, 1),
    ];
    for &(class, event, version, field, x, n) in cases {
        for ps in [4, 8] {
            assert_eq!(
                off(class, event, version, field, ps),
                host(x, n, ps),
                "{} {event} v{version} {field} with {ps}-byte pointers",
                class.name
            );
        }
    }
}

#[test]
fn each_version_carries_its_own_names() {
    // rule: KRN-14
    // rule: KRN-29
    // Windows 7 (v2) Image: one Reserved0 u32; Windows 8+ (v3): signature level and type.
    let v2 = layout(&IMAGE, "Load", 2);
    let v3 = layout(&IMAGE, "Load", 3);
    assert_eq!(v2.field("Reserved0").unwrap().ty, MofType::U32);
    assert!(v2.field("SignatureLevel").is_none());
    assert_eq!(v3.field("Reserved0").unwrap().ty, MofType::U16);
    assert_eq!(v3.field("SignatureLevel").unwrap().ty, MofType::U8);
    // Thread: StartAddr (v2) became Affinity (v3); v1 Start/DCStart carry a wait mode.
    assert!(layout(&THREAD, "Start", 2).field("StartAddr").is_some());
    assert!(layout(&THREAD, "Start", 3).field("Affinity").is_some());
    assert!(layout(&THREAD, "DCStart", 1).field("WaitMode").is_some());
    assert!(layout(&THREAD, "DCEnd", 1).field("WaitMode").is_none());
    // CSwitch: quantums (v1), C-state (v2+).
    assert!(
        layout(&THREAD, "CSwitch", 1)
            .field("NewThreadQuantum")
            .is_some()
    );
    assert!(
        layout(&THREAD, "CSwitch", 2)
            .field("PreviousCState")
            .is_some()
    );
    // Process: PageDirectoryBase (v1), UniqueProcessKey (v2+), Flags (v4+), ExitTime (v5).
    assert!(
        layout(&PROCESS, "Start", 1)
            .field("PageDirectoryBase")
            .is_some()
    );
    assert!(
        layout(&PROCESS, "Start", 2)
            .field("DirectoryTableBase")
            .is_none()
    );
    assert!(layout(&PROCESS, "Defunct", 5).field("ExitTime").is_some());
    // TcpIp: v1 puts connid before seqnum, v2 after.
    let (t1, t2) = (
        layout(&TCP_IP, "RecvIPV4", 1),
        layout(&TCP_IP, "RecvIPV4", 2),
    );
    assert!(t1.fixed_offset("connid", 8) < t1.fixed_offset("seqnum", 8));
    assert!(t2.fixed_offset("connid", 8) > t2.fixed_offset("seqnum", 8));
    // Registry: v0/v1 Status and KeyHandle pointers first; v2 InitialTime first.
    assert_eq!(layout(&REGISTRY, "Query", 0).fields[0].name, "Status");
    assert_eq!(layout(&REGISTRY, "Query", 2).fields[0].name, "InitialTime");
    // SystemConfig: fixed arrays up to v1, strings from v2.
    assert_eq!(
        layout(&SYSTEM_CONFIG, "Services", 0)
            .field("ServiceName")
            .unwrap()
            .ty,
        MofType::Utf16Chars(34)
    );
    assert_eq!(
        layout(&SYSTEM_CONFIG, "Services", 2)
            .field("ServiceName")
            .unwrap()
            .ty,
        MofType::Utf16z
    );
    // Versions no source describes are not guessed.
    for (class, event, v) in [
        (&PERF_INFO, "SampleProf", 3),
        (&TCP_IP, "RecvIPV4", 3),
        (&IMAGE, "Load", 4),
        (&SYSTEM_CONFIG, "PnP", 6),
    ] {
        assert!(
            class.schema(event, v).is_none(),
            "{} {event} v{v}",
            class.name
        );
    }
}

/// `[hook u16][version][pointer size]` + payload → decoded values, then the encoder gives
/// the same bytes back.
fn decode_and_back(hook: u16, version: u8, ps: u8, payload: &[u8]) -> mof::MofEvent {
    let ev = mof::decode_system(hook, u16::from(version), ps, payload)
        .unwrap_or_else(|e| panic!("{hook:#06x} v{version} ps {ps}: {e}"));
    assert_eq!(ev.trailing, 0, "{}", ev.schema.layout.name);
    let values: Vec<Value> = ev.fields.iter().map(|f| f.value.clone()).collect();
    assert_eq!(
        ev.schema.encode(&values, ps).unwrap(),
        payload,
        "{} v{version} ps {ps}",
        ev.schema.layout.name
    );
    ev
}

fn le32(v: u32) -> [u8; 4] {
    v.to_le_bytes()
}

fn ptr(v: u64, ps: u8) -> Vec<u8> {
    v.to_le_bytes()[..usize::from(ps)].to_vec()
}

fn utf16z(s: &str) -> Vec<u8> {
    s.encode_utf16()
        .chain([0])
        .flat_map(u16::to_le_bytes)
        .collect()
}

#[test]
fn perf_info_payloads_built_by_hand() {
    // rule: KRN-15
    for ps in [4u8, 8] {
        // SampleProf: InstructionPointer, ThreadId, Count u16, Flags, Rank.
        let mut p = ptr(0x8123_4560, ps);
        p.extend(le32(4242));
        p.extend([1, 0, 0x0A, 0]);
        let ev = decode_and_back(0x0F2E, 2, ps, &p);
        assert_eq!(ev.schema.event.name, "SampleProf");
        assert_eq!(
            ev.get("InstructionPointer"),
            Some(&Value::Pointer(0x8123_4560))
        );
        assert_eq!(ev.get("ThreadId"), Some(&Value::U32(4242)));
        assert_eq!(ev.get("Count"), Some(&Value::U16(1)));
        assert_eq!(ev.get("Flags"), Some(&Value::U8(0x0A)));

        // ISR: InitialTime, Routine, ReturnValue, Vector, Reserved.
        let mut p = 0x1122_3344_5566u64.to_le_bytes().to_vec();
        p.extend(ptr(0x8080_1000, ps));
        p.extend([1, 0xB1, 0, 0]);
        let ev = decode_and_back(0x0F43, 2, ps, &p);
        assert_eq!(ev.get("Vector"), Some(&Value::U8(0xB1)));
        assert_eq!(ev.get("Routine"), Some(&Value::Pointer(0x8080_1000)));

        // DPC and the system-call pair.
        let mut p = 7u64.to_le_bytes().to_vec();
        p.extend(ptr(0x8A00_1000, ps));
        assert_eq!(decode_and_back(0x0F44, 2, ps, &p).schema.event.name, "DPC");
        let ev = decode_and_back(0x0F33, 2, ps, &ptr(0x8200_0040, ps));
        assert_eq!(ev.get("SysCallAddress"), Some(&Value::Pointer(0x8200_0040)));
        let ev = decode_and_back(0x0F34, 2, ps, &le32(0xC000_0022));
        assert_eq!(ev.get("SysCallNtStatus"), Some(&Value::U32(0xC000_0022)));

        // CollectionStart v3: the interval and the source's name.
        let mut p = [le32(0), le32(10_000), le32(10_000)].concat();
        p.extend(utf16z("Timer"));
        let ev = decode_and_back(0x0F49, 3, ps, &p);
        assert_eq!(ev.get("SourceName"), Some(&Value::String("Timer".into())));
    }
}

#[test]
fn stack_walk_payloads_built_by_hand() {
    // rule: KRN-14
    for ps in [4u8, 8] {
        let mut p = 99u64.to_le_bytes().to_vec();
        p.extend(le32(4));
        p.extend(le32(8));
        for frame in [0x8000_1000u64, 0x8000_2000, 0x7700_3000] {
            p.extend(ptr(frame, ps));
        }
        let ev = decode_and_back(0x1820, 2, ps, &p);
        assert_eq!(
            ev.get("Stack"),
            Some(&Value::Array(vec![
                Value::Pointer(0x8000_1000),
                Value::Pointer(0x8000_2000),
                Value::Pointer(0x7700_3000),
            ]))
        );
        // A partial frame at the end is left as trailing bytes, never read past.
        let mut short = p.clone();
        short.extend([0xAA; 3]);
        let ev = mof::decode_system(0x1820, 2, ps, &short).unwrap();
        assert_eq!(ev.trailing, 3);

        // StackKeyUser: the event's stack by key; KeyRundown: the key's frames.
        let mut p = 99u64.to_le_bytes().to_vec();
        p.extend(le32(4));
        p.extend(le32(8));
        p.extend(ptr(0x8888_0000, ps));
        let ev = decode_and_back(0x1826, 2, ps, &p);
        assert_eq!(ev.get("StackKey"), Some(&Value::Pointer(0x8888_0000)));
        let mut p = ptr(0x8888_0000, ps);
        p.extend(ptr(0x7000_0010, ps));
        let ev = decode_and_back(0x1824, 2, ps, &p);
        assert_eq!(
            ev.get("Stack"),
            Some(&Value::Array(vec![Value::Pointer(0x7000_0010)]))
        );
    }
}

#[test]
fn tcp_and_udp_payloads_built_by_hand() {
    // rule: KRN-14
    for ps in [4u8, 8] {
        // RecvIPV4 v2: PID, size, daddr, saddr, dport, sport (network order), seqnum, connid.
        let mut p = [le32(4), le32(1460)].concat();
        p.extend([192, 0, 2, 1, 198, 51, 100, 7]);
        p.extend([0x01, 0xBD, 0xC3, 0x50]); // 445, 50000
        p.extend(le32(77));
        p.extend(ptr(0x8765_4320, ps));
        let ev = decode_and_back(0x060B, 2, ps, &p);
        assert_eq!(ev.schema.event.name, "RecvIPV4");
        assert_eq!(ev.get("daddr"), Some(&Value::String("192.0.2.1".into())));
        assert_eq!(ev.get("saddr"), Some(&Value::String("198.51.100.7".into())));
        assert_eq!(ev.get("dport"), Some(&Value::U16(445)));
        assert_eq!(ev.get("sport"), Some(&Value::U16(50000)));
        assert_eq!(ev.get("connid"), Some(&Value::Pointer(0x8765_4320)));

        // ConnectIPV6 v2: the addresses as text, the TCP options.
        let mut p = [le32(4), le32(0)].concat();
        p.extend([0x20, 0x01, 0x0D, 0xB8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
        p.extend([0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
        p.extend([0, 80, 0x12, 0x34]);
        p.extend([0xB4, 0x05, 1, 0, 0, 0, 1, 0]); // mss 1460, sackopt 1, tsopt 0, wsopt 1
        p.extend(le32(65535));
        p.extend([8, 0, 0xFF, 0xFF]); // rcvwinscale 8, sndwinscale -1
        p.extend(le32(0));
        p.extend(ptr(0, ps));
        let ev = decode_and_back(0x061C, 2, ps, &p);
        assert_eq!(ev.get("daddr"), Some(&Value::String("2001:db8::1".into())));
        assert_eq!(ev.get("saddr"), Some(&Value::String("fe80::2".into())));
        assert_eq!(ev.get("dport"), Some(&Value::U16(80)));
        assert_eq!(ev.get("mss"), Some(&Value::U16(1460)));
        assert_eq!(ev.get("sndwinscale"), Some(&Value::I16(-1)));

        // UdpIp v0: context pointer, then saddr, sport, a 16-bit size.
        let mut p = ptr(0x8000_0000, ps);
        p.extend([10, 0, 0, 1, 0, 53, 40, 0]);
        p.extend([10, 0, 0, 2, 0xC3, 0x50, 40, 0]);
        let ev = decode_and_back(0x080A, 0, ps, &p);
        assert_eq!(ev.get("sport"), Some(&Value::U16(53)));
        assert_eq!(ev.get("size"), Some(&Value::U16(40)));
    }
}

#[test]
fn thread_process_and_memory_payloads_built_by_hand() {
    // rule: KRN-27
    // rule: KRN-28
    for ps in [4u8, 8] {
        // CSwitch v2 (Learn): 24 bytes whatever the pointer size.
        let p = [
            le32(100).as_slice(),
            &le32(200),
            &[9, 8, 1, 0, 5, 1, 2, 3],
            &le32(77),
            &le32(0),
        ]
        .concat();
        let ev = decode_and_back(0x0524, 2, ps, &p);
        assert_eq!(ev.get("OldThreadWaitReason"), Some(&Value::I8(5)));
        assert_eq!(ev.get("NewThreadWaitTime"), Some(&Value::U32(77)));

        // ReadyThread.
        let ev = decode_and_back(
            0x0532,
            2,
            ps,
            &[le32(4242).as_slice(), &[1, 0xFE, 0, 0]].concat(),
        );
        assert_eq!(ev.get("AdjustIncrement"), Some(&Value::I8(-2)));

        // Thread v0 (TThreadId first) and v1 End (ProcessId first).
        let ev = decode_and_back(0x0501, 0, ps, &[le32(8), le32(4)].concat());
        assert_eq!(ev.get("TThreadId"), Some(&Value::U32(8)));
        let ev = decode_and_back(0x0502, 1, ps, &[le32(4), le32(8)].concat());
        assert_eq!(ev.get("ProcessId"), Some(&Value::U32(4)));

        // Process v1: PageDirectoryBase, ids, no SID, the 8-bit image name.
        let mut p = ptr(0x1AA000, ps);
        p.extend([le32(1234), le32(4), le32(1), le32(259), le32(0)].concat());
        p.extend(b"cmd.exe\0");
        let ev = decode_and_back(0x0301, 1, ps, &p);
        assert_eq!(ev.get("UserSID"), Some(&Value::Null));
        assert_eq!(
            ev.get("ImageFileName"),
            Some(&Value::Ansi(b"cmd.exe".to_vec()))
        );

        // PerfCtr: 4 u32 then 11 pointer-sized counters.
        let mut p = [le32(1234), le32(10), le32(20), le32(0)].concat();
        for i in 0..11u64 {
            p.extend(ptr(i * 4096, ps));
        }
        let ev = decode_and_back(0x0320, 2, ps, &p);
        assert_eq!(ev.get("PrivatePageCount"), Some(&Value::Pointer(40960)));

        // HardFault: InitialTime, ReadOffset, VirtualAddress, FileObject, TThreadId, ByteCount.
        let mut p = [5u64.to_le_bytes(), 4096u64.to_le_bytes()].concat();
        p.extend(ptr(0x7700_0000, ps));
        p.extend(ptr(0x8500_0000, ps));
        p.extend([le32(2784), le32(20480)].concat());
        let ev = decode_and_back(0x0220, 2, ps, &p);
        assert_eq!(ev.get("ByteCount"), Some(&Value::U32(20480)));

        // VirtualAlloc.
        let mut p = ptr(0x1000_0000, ps);
        p.extend(ptr(0x10000, ps));
        p.extend([le32(4242), le32(0x3000)].concat());
        let ev = decode_and_back(0x0262, 2, ps, &p);
        assert_eq!(ev.schema.event.name, "VirtualAlloc");
        assert_eq!(ev.get("Flags"), Some(&Value::U32(0x3000)));
    }
}

#[test]
fn registry_image_and_config_payloads_built_by_hand() {
    // rule: KRN-29
    for ps in [4u8, 8] {
        // Registry v2 and v0.
        let mut p = [1234i64.to_le_bytes().as_slice(), &le32(0), &le32(3)].concat();
        p.extend(ptr(0x8123_0000, ps));
        p.extend(utf16z(r"\REGISTRY\MACHINE"));
        let ev = decode_and_back(0x090B, 2, ps, &p);
        assert_eq!(ev.schema.event.name, "Open");
        assert_eq!(
            ev.get("KeyName"),
            Some(&Value::String(r"\REGISTRY\MACHINE".into()))
        );
        let mut p = ptr(0, ps);
        p.extend(ptr(0x8000_0010, ps));
        p.extend(55i64.to_le_bytes());
        p.extend(utf16z("Value"));
        let ev = decode_and_back(0x0910, 0, ps, &p);
        assert_eq!(ev.get("ElapsedTime"), Some(&Value::I64(55)));

        // Image v0 and v2 (Reserved0 one u32).
        let mut p = ptr(0x40_0000, ps);
        p.extend(le32(0x2_0000));
        p.extend(utf16z(r"C:\a.exe"));
        let ev = decode_and_back(0x140A, 0, ps, &p);
        assert_eq!(ev.get("ModuleSize"), Some(&Value::U32(0x2_0000)));
        let mut p = ptr(0x40_0000, ps);
        p.extend(ptr(0x2_0000, ps));
        p.extend([le32(4), le32(0xABCD), le32(0x5010_AE7A), le32(0x0C01)].concat());
        p.extend(ptr(0x40_0000, ps));
        p.extend([0u8; 16]);
        p.extend(utf16z(r"\Windows\System32\ntdll.dll"));
        let ev = decode_and_back(0x1403, 2, ps, &p);
        assert_eq!(ev.get("Reserved0"), Some(&Value::U32(0x0C01)));

        // SystemConfig PnP v5: class GUID, counts, status, problem, strings.
        let mut p = [0x11u8; 16].to_vec();
        p.extend([le32(0), le32(0), le32(0x0180_200A), le32(0)].concat());
        for s in [
            r"ACPI\PNP0C01\1",
            "System board",
            "",
            r"\Device\00000018",
            "",
        ] {
            p.extend(utf16z(s));
        }
        let ev = decode_and_back(0x0B16, 5, ps, &p);
        assert_eq!(
            ev.get("PdoName"),
            Some(&Value::String(r"\Device\00000018".into()))
        );

        // SystemConfig Services v0: fixed char16 arrays.
        let mut p = Vec::new();
        for (s, n) in [("Dnscache", 34), ("DNS Client", 256), ("svchost.exe", 34)] {
            let mut units: Vec<u8> = s.encode_utf16().flat_map(u16::to_le_bytes).collect();
            units.resize(n * 2, 0);
            p.extend(units);
        }
        p.extend(le32(1234));
        let ev = decode_and_back(0x0B0F, 0, ps, &p);
        assert_eq!(
            ev.get("DisplayName"),
            Some(&Value::String("DNS Client".into()))
        );
        assert_eq!(ev.get("ProcessId"), Some(&Value::U32(1234)));
    }
}

#[test]
fn merged_classes_decode_by_guid_at_both_pointer_sizes() {
    // rule: KRN-13
    for ps in [4u8, 8] {
        // ImageID: ImageBase, ImageSize, ProcessId, TimeDateStamp, OriginalFileName.
        let mut p = ptr(0x7700_0000, ps);
        p.extend(ptr(0x15_7000, ps));
        p.extend([le32(4), le32(0x5010_AE7A)].concat());
        p.extend(utf16z("ntdll.dll"));
        let ev = mof::decode_mof(IMAGE_ID.guid, 0, 2, ps, &p).unwrap();
        assert_eq!(
            ev.get("OriginalFileName"),
            Some(&Value::String("ntdll.dll".into()))
        );
        assert_eq!(
            ev.schema
                .encode(
                    &ev.fields
                        .iter()
                        .map(|f| f.value.clone())
                        .collect::<Vec<_>>(),
                    ps
                )
                .unwrap(),
            p
        );

        // DbgID_RSDS: ImageBase, ProcessId, GuidSig, Age, the 8-bit PDB name.
        let mut p = ptr(0x7700_0000, ps);
        p.extend(le32(4));
        p.extend([0x5A; 16]);
        p.extend(le32(2));
        p.extend(b"wntdll.pdb\0");
        let ev = mof::decode_mof(IMAGE_ID.guid, 0x24, 2, ps, &p).unwrap();
        assert_eq!(ev.get("Age"), Some(&Value::U32(2)));
        assert_eq!(
            ev.get("PdbFileName"),
            Some(&Value::Ansi(b"wntdll.pdb".to_vec()))
        );
        assert_eq!(ev.trailing, 0);
    }
    // SysConfig's VolumeMapping: two strings, no pointers.
    let p = [utf16z(r"\Device\HarddiskVolume1"), utf16z(r"C:")].concat();
    let ev = mof::decode_mof(SYS_CONFIG.guid, 35, 0, 8, &p).unwrap();
    assert_eq!(ev.get("DosPath"), Some(&Value::String("C:".into())));
    // No HookId reaches them.
    assert!(IMAGE_ID.group.is_none() && SYS_CONFIG.group.is_none());
}

/// Every layout of the table, both pointer sizes, required fields only and all fields: the
/// encoder's bytes have the layout's fixed size when it has one, and decode to the values.
#[test]
fn every_layout_round_trips_at_both_pointer_sizes() {
    // rule: KRN-14
    let mut checked = 0;
    for class in mof::classes() {
        for event in class.events {
            for layout in event.layouts {
                for &version in layout.versions {
                    let schema = mof::schema(class.guid, event.opcode, version).unwrap();
                    for ps in [4u8, 8] {
                        for all in [false, true] {
                            let n = if all {
                                layout.fields.len()
                            } else {
                                layout.required_fields()
                            };
                            let values: Vec<Value> = layout.fields[..n]
                                .iter()
                                .map(|f| sample(f.ty, ps))
                                .collect();
                            let bytes = schema.encode(&values, ps).unwrap_or_else(|e| {
                                panic!("{} {} v{version}: {e}", class.name, event.name)
                            });
                            if let Some(fixed) = layout.fixed_len(ps, all) {
                                assert_eq!(bytes.len(), fixed, "{}", layout.name);
                            }
                            let back = schema.decode(&bytes, ps).unwrap();
                            let got: Vec<Value> =
                                back.fields.into_iter().map(|f| f.value).collect();
                            assert_eq!(
                                got, values,
                                "{} {} v{version} ps {ps}",
                                class.name, event.name
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 600, "{checked}");
}

/// A non-zero value of each wire type.
fn sample(ty: MofType, ps: u8) -> Value {
    match ty {
        MofType::U8 => Value::U8(0x7A),
        MofType::U16 => Value::U16(0x7A7B),
        MofType::U32 => Value::U32(0x7A7B_7C7D),
        MofType::U64 => Value::U64(0x7A7B_7C7D_7E7F_8081),
        MofType::I8 => Value::I8(-3),
        MofType::I16 => Value::I16(-300),
        MofType::I32 => Value::I32(-70_000),
        MofType::I64 => Value::I64(-7_000_000_000),
        MofType::FileTime => Value::FileTime(132_273_837_474_125_905),
        MofType::Pointer => Value::Pointer(if ps == 4 {
            0x8123_4567
        } else {
            0xFFFF_F801_2345_6789
        }),
        MofType::PointerArray => Value::Array(vec![sample(MofType::Pointer, ps); 3]),
        MofType::Guid => Value::Guid("{b3e675d7-2554-4f18-830b-2762732560de}".parse().unwrap()),
        MofType::Binary(n) => Value::Binary((0..n).map(|i| i as u8).collect()),
        MofType::Utf16z => Value::String("ntdll.dll".into()),
        MofType::Utf16Chars(n) => Value::String("BRIANROB-W8".chars().take(n).collect()),
        MofType::Ansiz => Value::Ansi(b"cmd.exe".to_vec()),
        MofType::IpV4 => Value::String("192.0.2.1".into()),
        MofType::IpV6 => Value::String("2001:db8::1".into()),
        MofType::Port => Value::U16(445),
        MofType::TokenUserSid => Value::TokenUser(TokenUser {
            sid_pointer: 0x8123_4568,
            attributes: 0,
            sid: "S-1-5-18".parse().unwrap(),
        }),
        other => panic!("no sample for {other:?}"),
    }
}
