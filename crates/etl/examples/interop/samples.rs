//! Sample files for the interoperability proof: one or more files per log-file mode, each
//! with the number of records a reader must find outside buffer 0. Shared by the `interop`
//! example (which `scripts/interop.sh` runs before checking every file with both
//! third-party parsers) and by the crate's `interop_samples` test (which checks them with
//! this crate's reader).

use etwsim_etl::{
    BufferBuilder, CloseStats, Error, Record, TraceRecord, WriteOutcome, Writer, WriterOptions,
};
use etwsim_types::record::{ext_type, header_type};
use etwsim_types::{
    Channel, ClockType, EventDescriptor, EventHeader, EventRecord, ExtendedItem, Guid, Keyword,
    Level, LogFileMode, Opcode, Task,
};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

/// One written file and the records a reader must find in its data buffers.
#[derive(Clone, Debug)]
pub(crate) struct Sample {
    /// The file.
    pub(crate) path: PathBuf,
    /// Records outside buffer 0.
    pub(crate) records: usize,
    /// Whether both third-party parsers can agree on it: false for the file with the
    /// extended item types dissect.etl 3.14 does not know (15–18, which it reports as 0),
    /// and for the compressed file (etl-parser cannot read compressed buffers).
    pub(crate) third_party: bool,
}

/// FILETIME of 2026-01-01T00:00:00Z, the sessions' start.
const START: i64 = 134_116_992_000_000_000;
const PROVIDER_A: Guid = Guid::from_str_const("5a1e0001-1111-4222-8333-444455556666");
const PROVIDER_B: Guid = Guid::from_str_const("5a1e0002-7777-4888-9999-aaaabbbbcccc");
/// A TraceLogging provider id (any GUID works for the parsers; real ones hash the name).
const PROVIDER_TL: Guid = Guid::from_str_const("5a1e0003-2b2b-5c5c-8d8d-9e9eafaf1010");

/// A session model: per-CPU buffers, a clock, and what each file should end up holding.
struct Session {
    writer: Writer,
    cpus: Vec<BufferBuilder>,
    pending: Vec<usize>,
    sequence: i64,
    clock: i64,
    serial: u32,
    /// Per file: records of each data buffer, oldest first.
    files: Vec<(PathBuf, VecDeque<usize>)>,
    full: bool,
}

impl Session {
    fn start(options: WriterOptions, buffer_size: u32, cpus: u16) -> Result<Session, Error> {
        let writer = Writer::create(
            options
                .buffer_size(buffer_size)
                .processors(u32::from(cpus))
                .logger_name("EtwsimInterop")
                .logger_id(0x20)
                .writer_ids(4242, 4343),
        )?;
        let path = writer
            .current_path()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        Ok(Session {
            writer,
            cpus: (0..cpus)
                .map(|c| BufferBuilder::new(buffer_size, c).map(|b| b.with_logger_id(0x20)))
                .collect::<Result<_, _>>()?,
            pending: vec![0; usize::from(cpus)],
            sequence: 0,
            clock: 5_000_000_000,
            serial: 0,
            files: vec![(path, VecDeque::new())],
            full: false,
        })
    }

    /// Stamps `record` with the next clock tick and adds it to `cpu`'s buffer, flushing
    /// that buffer first when it is full.
    fn emit(&mut self, cpu: usize, mut record: Record) -> Result<(), Error> {
        self.clock += 10;
        self.serial += 1;
        match &mut record {
            Record::Event(e) => e.header.timestamp = self.clock,
            Record::Trace(t) => t.timestamp = Some(self.clock),
        }
        if !self.cpus[cpu].push(&record)? {
            self.flush(cpu)?;
            assert!(
                self.cpus[cpu].push(&record)?,
                "a record fits an empty buffer"
            );
        }
        self.pending[cpu] += 1;
        Ok(())
    }

    fn flush(&mut self, cpu: usize) -> Result<(), Error> {
        if self.cpus[cpu].is_empty() {
            return Ok(());
        }
        self.sequence += 1;
        let bytes = self.cpus[cpu].finish(self.sequence, self.clock + 1, 0);
        let n = std::mem::take(&mut self.pending[cpu]);
        match self.writer.write_buffer(&bytes)? {
            WriteOutcome::Written => self.last_file().push_back(n),
            WriteOutcome::Overwrote => {
                let f = self.last_file();
                f.pop_front();
                f.push_back(n);
            }
            WriteOutcome::NewFile { .. } => {
                let path = self.current_path();
                self.files.push((path, VecDeque::from([n])));
            }
            WriteOutcome::Full => self.full = true,
            _ => {}
        }
        Ok(())
    }

    fn last_file(&mut self) -> &mut VecDeque<usize> {
        &mut self.files.last_mut().expect("a file").1
    }

    fn current_path(&self) -> PathBuf {
        self.writer
            .current_path()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }

    fn flush_all(&mut self) -> Result<(), Error> {
        for cpu in 0..self.cpus.len() {
            self.flush(cpu)?;
        }
        Ok(())
    }

    fn increment_file(&mut self) -> Result<(), Error> {
        self.flush_all()?;
        self.writer.increment_file()?;
        let path = self.current_path();
        self.files.push((path, VecDeque::new()));
        Ok(())
    }

    fn close(mut self) -> Result<Vec<Sample>, Error> {
        self.flush_all()?;
        self.writer.close(&CloseStats::default())?;
        Ok(self
            .files
            .into_iter()
            .map(|(path, buffers)| Sample {
                path,
                records: buffers.iter().sum(),
                third_party: true,
            })
            .collect())
    }

    /// A plain manifest-style event whose payload starts with an odd u32, so dissect.etl's
    /// extended-item scan never mistakes it for an item (format reference Q3).
    fn plain(&self, provider: Guid, id: u16, cpu_hint: usize) -> Record {
        let mut payload = (self.serial * 2 + 1).to_le_bytes().to_vec();
        payload.extend_from_slice(format!("event {id} from cpu {cpu_hint}").as_bytes());
        event(provider, id, Level::INFORMATION, payload, Vec::new())
    }
}

fn event(
    provider: Guid,
    id: u16,
    level: Level,
    user_data: Vec<u8>,
    items: Vec<ExtendedItem>,
) -> Record {
    Record::Event(EventRecord {
        header: EventHeader {
            thread_id: 4343 + u32::from(id % 3),
            process_id: 4242,
            provider_id: provider,
            descriptor: EventDescriptor {
                id,
                version: (id % 2) as u8,
                channel: Channel(0),
                level,
                opcode: Opcode((id % 4) as u8),
                task: Task(id % 7),
                keyword: Keyword(1 << (id % 64)),
            },
            activity_id: Guid::from_u128(
                0x0123_4567_89ab_4cde_8f01_0000_0000_0000 + u128::from(id),
            ),
            ..EventHeader::default()
        },
        extended_data: items,
        user_data,
        ..EventRecord::default()
    })
}

fn item(ext: u16, data: Vec<u8>) -> ExtendedItem {
    ExtendedItem {
        ext_type: ext,
        data,
    }
}

fn u64s(values: &[u64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Every extended item type but the TraceLogging pair, split over three events: dissect.etl
/// stops scanning after 13 items, and it reports types 15–18 (newer than its table, which
/// ends at 14) as type 0, so those go in an event of their own.
fn all_items() -> [Vec<ExtendedItem>; 3] {
    let guid = |n: u128| Guid::from_u128(0xfeed_0000_0000_4000_8000_0000_0000_0000 + n);
    let sid = "S-1-5-21-1004336348-1177238915-682003330-512"
        .parse::<etwsim_types::Sid>()
        .expect("a SID")
        .to_bytes();
    let mut instance = Vec::new();
    instance.extend_from_slice(&7u32.to_le_bytes());
    instance.extend_from_slice(&3u32.to_le_bytes());
    instance.extend_from_slice(&guid(4).to_bytes_le());
    let mut stack32 = 0x1111u64.to_le_bytes().to_vec();
    for a in [0x7700_1000u32, 0x7700_2000, 0x7700_3000] {
        stack32.extend_from_slice(&a.to_le_bytes());
    }
    let mut key32 = 0x2222u64.to_le_bytes().to_vec();
    key32.extend_from_slice(&0x33u32.to_le_bytes());
    key32.extend_from_slice(&0u32.to_le_bytes());
    [
        vec![
            ExtendedItem::related_activity_id(guid(1)),
            item(ext_type::SID, sid),
            item(ext_type::TS_ID, 1u32.to_le_bytes().to_vec()),
            item(ext_type::INSTANCE_INFO, instance),
            item(ext_type::STACK_TRACE32, stack32),
            item(
                ext_type::STACK_TRACE64,
                u64s(&[0x1112, 0x7ff6_0000_1000, 0x7ff6_0000_2000]),
            ),
            ExtendedItem::u64_item(ext_type::PEBS_INDEX, 5),
            item(ext_type::PMC_COUNTERS, u64s(&[100, 200])),
            ExtendedItem::u64_item(ext_type::PSM_KEY, 6),
            ExtendedItem::u64_item(ext_type::EVENT_KEY, 0xabcdef),
        ],
        vec![
            ExtendedItem::u64_item(ext_type::PROCESS_START_KEY, 0x0001_0000_0000_0042),
            item(ext_type::CONTROL_GUID, guid(14).to_bytes_le().to_vec()),
        ],
        vec![
            ExtendedItem::u64_item(ext_type::QPC_DELTA, 12),
            item(ext_type::CONTAINER_ID, guid(16).to_bytes_le().to_vec()),
            item(ext_type::STACK_KEY32, key32),
            item(ext_type::STACK_KEY64, u64s(&[0x2223, 0x44])),
        ],
    ]
}

/// A TraceLogging event (format reference §6.3) with only field types etl-parser decodes.
fn tracelogging_event() -> Record {
    let name = "Etwsim.Interop.TraceLogging";
    let mut traits = Vec::new();
    traits.extend_from_slice(&((2 + name.len() + 1) as u16).to_le_bytes());
    traits.extend_from_slice(name.as_bytes());
    traits.push(0);
    // (field name, InType [| CHAIN], OutType)
    let fields: [(&str, u8, Option<u8>); 12] = [
        ("Message", 0x01, None),   // UNICODESTRING
        ("Name", 0x02, None),      // ANSISTRING, ASCII only (Q1)
        ("Count", 0x07, None),     // INT32
        ("Total", 0x0A, None),     // UINT64
        ("Small", 0x04, None),     // UINT8
        ("Ratio", 0x0C, None),     // DOUBLE
        ("Ok", 0x0D, None),        // BOOL32
        ("Id", 0x0F, None),        // GUID
        ("Flags", 0x14, None),     // HEXINT32
        ("Values", 0x48, None),    // UINT32 | VCOUNT
        ("Blob", 0x0E, None),      // BINARY
        ("Pid", 0x88, Some(0x05)), // UINT32 | CHAIN, OutType PID
    ];
    let mut schema = vec![0, 0, 0x00]; // TotalSize (patched), no event tag
    schema.extend_from_slice(b"InteropEvent\0");
    for (field, in_type, out_type) in fields {
        schema.extend_from_slice(field.as_bytes());
        schema.push(0);
        schema.push(in_type);
        schema.extend(out_type);
    }
    let total = schema.len() as u16;
    schema[..2].copy_from_slice(&total.to_le_bytes());
    let mut data = Vec::new();
    for u in "TraceLogging from etwsim".encode_utf16().chain([0]) {
        data.extend_from_slice(&u.to_le_bytes());
    }
    data.extend_from_slice(b"ascii name\0");
    data.extend_from_slice(&(-42i32).to_le_bytes());
    data.extend_from_slice(&u64::MAX.to_le_bytes());
    data.push(200);
    data.extend_from_slice(&0.25f64.to_le_bytes());
    data.extend_from_slice(&1u32.to_le_bytes());
    data.extend_from_slice(&Guid::EVENT_TRACE.to_bytes_le());
    data.extend_from_slice(&0xdead_beefu32.to_le_bytes());
    data.extend_from_slice(&3u16.to_le_bytes());
    for v in [10u32, 20, 30] {
        data.extend_from_slice(&v.to_le_bytes());
    }
    data.extend_from_slice(&4u16.to_le_bytes());
    data.extend_from_slice(&[1, 2, 3, 4]);
    data.extend_from_slice(&4242u32.to_le_bytes());
    let Record::Event(mut e) = event(
        PROVIDER_TL,
        0,
        Level::VERBOSE,
        data,
        vec![
            item(ext_type::PROV_TRAITS, traits),
            item(ext_type::EVENT_SCHEMA_TL, schema),
        ],
    ) else {
        unreachable!("event() makes events")
    };
    e.header.descriptor.channel = Channel(11);
    e.header.descriptor.opcode = Opcode(0);
    e.header.descriptor.task = Task(0);
    e.header.descriptor.version = 0;
    Record::Event(e)
}

/// Kernel-style records of the kinds both parsers read alike: full and compact system
/// headers, perfinfo, classic. Groups and GUIDs no bundled manifest knows.
fn kernel_records() -> Vec<Record> {
    let base = |header_type, hook_id| TraceRecord {
        header_type,
        version: 2,
        hook_id,
        thread_id: Some(88),
        process_id: Some(4),
        payload: 0x0102_0305u32.to_le_bytes().repeat(3),
        ..TraceRecord::default()
    };
    vec![
        Record::Trace(base(header_type::SYSTEM64, 0xEE01)),
        Record::Trace(base(header_type::COMPACT64, 0xEE02)),
        Record::Trace(TraceRecord {
            thread_id: None,
            process_id: None,
            ..base(header_type::PERFINFO64, 0xEE03)
        }),
        Record::Trace(TraceRecord {
            version: 0,
            hook_id: 1,
            level: 4,
            guid: Some(PROVIDER_B),
            ..base(header_type::FULL_HEADER64, 0)
        }),
    ]
}

/// Writes every sample into `dir` and returns them.
///
/// # Errors
/// Any writer error.
pub(crate) fn write_all(dir: &Path) -> Result<Vec<Sample>, Error> {
    let mut out = Vec::new();
    out.extend(sequential(dir)?);
    out.extend(file_mode_none(dir)?);
    out.extend(sequential_until_full(dir)?);
    out.extend(circular(dir)?);
    out.extend(newfile(dir)?);
    out.extend(append(dir)?);
    out.extend(preallocated(dir)?);
    out.extend(kernel_kinds(dir)?);
    out.extend(newer_items(dir)?);
    out.extend(compressed(dir)?);
    Ok(out)
}

/// Three CPUs, 8 KiB buffers, several buffers per CPU; every extended item type, a
/// TraceLogging event, an empty-payload event.
fn sequential(dir: &Path) -> Result<Vec<Sample>, Error> {
    let mut s = Session::start(
        WriterOptions::new(dir.join("sequential.etl")).start(5_000_000_000, START),
        8192,
        3,
    )?;
    let [items_a, items_b, _] = all_items();
    let odd = 0x0003_0001u32.to_le_bytes().to_vec();
    s.emit(
        0,
        event(PROVIDER_A, 100, Level::WARNING, odd.clone(), items_a),
    )?;
    s.emit(1, event(PROVIDER_B, 101, Level::ERROR, odd, items_b))?;
    s.emit(2, tracelogging_event())?;
    s.emit(
        0,
        event(PROVIDER_A, 102, Level::INFORMATION, Vec::new(), Vec::new()),
    )?;
    for i in 0..150u16 {
        let cpu = usize::from(i % 3);
        let provider = if i % 2 == 0 { PROVIDER_A } else { PROVIDER_B };
        let e = s.plain(provider, 200 + i, cpu);
        s.emit(cpu, e)?;
    }
    s.emit(1, tracelogging_event())?;
    s.close()
}

/// EVENT_TRACE_FILE_MODE_NONE: sequential, no limit (SES-31).
fn file_mode_none(dir: &Path) -> Result<Vec<Sample>, Error> {
    let mut s = Session::start(
        WriterOptions::new(dir.join("mode-none.etl")).mode(LogFileMode::FILE_MODE_NONE),
        4096,
        2,
    )?;
    for i in 0..40u16 {
        let e = s.plain(PROVIDER_A, i + 1, usize::from(i % 2));
        s.emit(usize::from(i % 2), e)?;
    }
    s.close()
}

/// SEQUENTIAL with a 40 KB limit: writing stops at the first buffer that would not fit
/// (SES-32, SES-62).
fn sequential_until_full(dir: &Path) -> Result<Vec<Sample>, Error> {
    let mut s = Session::start(
        WriterOptions::new(dir.join("sequential-full.etl"))
            .mode(LogFileMode::SEQUENTIAL | LogFileMode::USE_KBYTES_FOR_SIZE)
            .maximum_file_size(40),
        8192,
        2,
    )?;
    let mut i = 0u16;
    while !s.full {
        let cpu = usize::from(i % 2);
        let e = s.plain(PROVIDER_B, i, cpu);
        s.emit(cpu, e)?;
        i += 1;
    }
    s.close()
}

/// CIRCULAR, 64 KB of 8 KiB buffers (buffer 0 + 7 data buffers), written far past the
/// limit so it wraps twice (SES-33, BUF-10).
fn circular(dir: &Path) -> Result<Vec<Sample>, Error> {
    let mut s = Session::start(
        WriterOptions::new(dir.join("circular.etl"))
            .mode(LogFileMode::CIRCULAR | LogFileMode::USE_KBYTES_FOR_SIZE)
            .maximum_file_size(64),
        8192,
        2,
    )?;
    for i in 0..1200u16 {
        let cpu = usize::from(i % 2);
        let e = s.plain(PROVIDER_A, i, cpu);
        s.emit(cpu, e)?;
    }
    s.emit(0, tracelogging_event())?;
    s.close()
}

/// NEWFILE, 32 KB files of 8 KiB buffers (3 data buffers each), then INCREMENT_FILE
/// (SES-35, SES-81).
fn newfile(dir: &Path) -> Result<Vec<Sample>, Error> {
    let mut s = Session::start(
        WriterOptions::new(dir.join("newfile-%d.etl"))
            .mode(LogFileMode::NEWFILE | LogFileMode::USE_KBYTES_FOR_SIZE)
            .maximum_file_size(32),
        8192,
        2,
    )?;
    for i in 0..500u16 {
        let cpu = usize::from(i % 2);
        let e = s.plain(PROVIDER_B, i, cpu);
        s.emit(cpu, e)?;
    }
    s.increment_file()?;
    for i in 0..20u16 {
        let e = s.plain(PROVIDER_A, 1000 + i, 0);
        s.emit(0, e)?;
    }
    s.close()
}

/// APPEND to a file of the same BufferSize, clock (system time, as SES-34 advises) and CPU
/// count.
fn append(dir: &Path) -> Result<Vec<Sample>, Error> {
    let path = dir.join("append.etl");
    let _ = std::fs::remove_file(&path);
    let opts = || {
        WriterOptions::new(&path)
            .clock(ClockType::SystemTime)
            .start(START, START)
    };
    let mut first = Session::start(opts(), 4096, 2)?;
    first.clock = START;
    for i in 0..30u16 {
        let e = first.plain(PROVIDER_A, i, usize::from(i % 2));
        first.emit(usize::from(i % 2), e)?;
    }
    let before: usize = first.close()?.iter().map(|s| s.records).sum();
    let mut second = Session::start(opts().mode(LogFileMode::APPEND), 4096, 2)?;
    second.clock = START + 10_000_000;
    for i in 0..25u16 {
        let e = second.plain(PROVIDER_B, i, usize::from(i % 2));
        second.emit(usize::from(i % 2), e)?;
    }
    let after: usize = second.close()?.iter().map(|s| s.records).sum();
    Ok(vec![Sample {
        path,
        records: before + after,
        third_party: true,
    }])
}

/// PREALLOCATE: the file is 1 MB while written and trimmed at close (SES-36).
fn preallocated(dir: &Path) -> Result<Vec<Sample>, Error> {
    let mut s = Session::start(
        WriterOptions::new(dir.join("preallocated.etl"))
            .mode(LogFileMode::SEQUENTIAL | LogFileMode::PREALLOCATE)
            .maximum_file_size(1),
        8192,
        2,
    )?;
    for i in 0..60u16 {
        let e = s.plain(PROVIDER_A, i, usize::from(i % 2));
        s.emit(usize::from(i % 2), e)?;
    }
    s.close()
}

/// EVENT_TRACE_COMPRESSED_MODE (SES-52): `compressed.etl` — LZXpress-compressed data
/// buffers, which etl-parser cannot read, so it is for this crate's reader and for
/// dissect.etl (`crates/etl/tests/dissect_same_records.py` compares it with its twin) — and
/// `compressed-twin.etl`, the same records uncompressed, for both parsers. Three CPUs,
/// events with extended items, TraceLogging and kernel records; a few buffers of noise
/// that do not compress.
fn compressed(dir: &Path) -> Result<Vec<Sample>, Error> {
    let mut out = Vec::new();
    for (name, on) in [("compressed.etl", true), ("compressed-twin.etl", false)] {
        let mut s = Session::start(WriterOptions::new(dir.join(name)).compressed(on), 8192, 3)?;
        let [items_a, items_b, _] = all_items();
        let odd = 0x0007_0001u32.to_le_bytes().to_vec();
        s.emit(
            0,
            event(PROVIDER_A, 300, Level::WARNING, odd.clone(), items_a),
        )?;
        s.emit(1, event(PROVIDER_B, 301, Level::ERROR, odd, items_b))?;
        s.emit(2, tracelogging_event())?;
        for (i, r) in kernel_records().into_iter().enumerate() {
            s.emit(i % 3, r)?;
        }
        let mut noise = 0x9E37_79B9u32;
        for i in 0..600u16 {
            let cpu = usize::from(i % 3);
            let e = if (400..430).contains(&i) {
                let mut payload = Vec::with_capacity(1500);
                payload.extend_from_slice(&(u32::from(i) * 2 + 1).to_le_bytes());
                while payload.len() < 1500 {
                    noise ^= noise << 13;
                    noise ^= noise >> 17;
                    noise ^= noise << 5;
                    payload.push(noise as u8);
                }
                event(PROVIDER_B, 400 + i, Level::VERBOSE, payload, Vec::new())
            } else {
                let provider = if i % 2 == 0 { PROVIDER_A } else { PROVIDER_B };
                s.plain(provider, 400 + i, cpu)
            };
            s.emit(cpu, e)?;
        }
        let mut files = s.close()?;
        for f in &mut files {
            f.third_party = !on;
        }
        out.extend(files);
    }
    Ok(out)
}

/// Extended item types 15–18 (QPC_DELTA, CONTAINER_ID, STACK_KEY32/64), which this crate
/// reads but dissect.etl 3.14 reports as type 0: checked by this crate's reader only.
fn newer_items(dir: &Path) -> Result<Vec<Sample>, Error> {
    let mut s = Session::start(WriterOptions::new(dir.join("ext-15-18.etl")), 4096, 1)?;
    let [_, _, items] = all_items();
    let odd = 0x0005_0001u32.to_le_bytes().to_vec();
    s.emit(0, event(PROVIDER_A, 7, Level::WARNING, odd, items))?;
    let mut out = s.close()?;
    for f in &mut out {
        f.third_party = false;
    }
    Ok(out)
}

/// System, compact system, perfinfo and classic records among events.
fn kernel_kinds(dir: &Path) -> Result<Vec<Sample>, Error> {
    let mut s = Session::start(WriterOptions::new(dir.join("kernel-kinds.etl")), 4096, 2)?;
    for (i, r) in kernel_records().into_iter().enumerate() {
        s.emit(i % 2, r)?;
        let e = s.plain(PROVIDER_A, i as u16, i % 2);
        s.emit(i % 2, e)?;
    }
    s.close()
}
