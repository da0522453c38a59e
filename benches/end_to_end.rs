//! P9: end to end — a writer thread → the session's per-CPU buffers → the logger thread →
//! an `.etl` file on the real disk (a threaded kernel, in a temp folder), against a plain
//! program writing the same bytes to the same folder with a `BufWriter`, in the same run.
//!
//! One iteration writes `EVENTS` events of 96 bytes each (the 80-byte `EVENT_HEADER` and a
//! 16-byte payload) from start to finish: StartTrace (the file is created), the writes,
//! ControlTrace(STOP) (the last buffers flushed, the file finished). The peer creates a file,
//! writes the same 96 bytes per event through a `BufWriter`, flushes and closes it.
//!
//! Configurations:
//!
//! * `etl_advised` — buffers as the EVENT_TRACE_PROPERTIES documentation advises: BufferSize
//!   64 KB, MinimumBuffers 0 (ETW raises it to 2 per CPU) and MaximumBuffers 0, which
//!   etwsim makes MinimumBuffers + 20 — the documentation's "typically". Expected: no loss.
//! * `etl_max_256` — the same with MaximumBuffers 256 (16 MB): room for the logger to fall
//!   25 ms behind a writer going flat out.
//! * `etl_small_buffers` — deliberately too small: BufferSize 4 KB and MaximumBuffers =
//!   MinimumBuffers = 4, so the writer outruns the logger and events are lost.
//! * `bufwriter_8k` / `bufwriter_64k` — the peer with `BufWriter::new` (8 KiB) and with a
//!   64 KiB buffer (the faster of the two is P9's denominator).
//!
//! Every iteration is checked outside the timed part, whatever the mode (criterion's
//! `--test` included): the file is read back, and events in the file + EventsLost = events
//! written, and EventsLost = the writes that failed — loss is counted exactly. No timing is
//! asserted. A summary with MB/s and the loss per configuration is printed at the end.
//!
//! Where loss comes from on a loaded machine, measured (Linux, `/proc/.../schedstat`; skipped
//! elsewhere): for each `.etl` configuration the summary also gives the logger thread's time
//! waiting for a CPU while the writer ran (per scheduling of the thread, and the worst run's
//! mean), against how long the session's MaximumBuffers last at the writer's measured rate —
//! if the logger waits for a CPU longer than the buffers last, a flat-out writer loses events
//! whatever the logger does once it runs. It also splits that wait between the runs that lost
//! events and those that did not, and gives the longest of any one run.
//! Commands and results: docs/PERFORMANCE.md.

use criterion::{Criterion, Throughput};
use etwsim::etl::{LogFile, Record};
use etwsim::{
    EnableParams, EventDescriptor, Guid, Kernel, Keyword, Level, Process, Provider, Token,
};
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Events per iteration.
const EVENTS: u64 = 100_000;
/// Payload bytes per event; with the 80-byte header one record is 96 bytes.
const PAYLOAD: usize = 16;
const RECORD: usize = 80 + PAYLOAD;
const PROVIDER: Guid = Guid::from_u128(0xe2e0_0000_0000_4000_8000_0000_0000_0009);

/// A session's buffer settings.
#[derive(Copy, Clone)]
struct Buffers {
    name: &'static str,
    buffer_size_kb: u32,
    minimum: u32,
    maximum: u32,
}

/// What the iterations of one configuration added up to.
#[derive(Default)]
struct Tally {
    runs: u64,
    time: Duration,
    written: u64,
    lost: u64,
    /// Runs that lost at least one event.
    lossy_runs: u64,
    in_file: u64,
    file_bytes: u64,
    /// The logger thread while the writer wrote: time run, time waiting for a CPU, times
    /// scheduled (from schedstat; zero where unavailable).
    logger: Sched,
    /// The worst run's mean wait per scheduling of the logger, in ns.
    worst_wait_ns: u64,
    /// The logger's time waiting for a CPU, summed over the runs that lost events and over
    /// those that did not; and the longest of any one run (ns).
    wait_lossy_ns: u64,
    wait_clean_ns: u64,
    longest_wait_ns: u64,
    /// Time in the write loop, and MaximumBuffers × buffer size of the session.
    write_time: Duration,
    max_bytes: u64,
}

/// A thread's `/proc/.../schedstat`: ns on a CPU, ns waiting for one, times scheduled.
#[derive(Copy, Clone, Default)]
struct Sched {
    run_ns: u64,
    wait_ns: u64,
    slices: u64,
}

impl Sched {
    fn minus(self, before: Sched) -> Sched {
        Sched {
            run_ns: self.run_ns.saturating_sub(before.run_ns),
            wait_ns: self.wait_ns.saturating_sub(before.wait_ns),
            slices: self.slices.saturating_sub(before.slices),
        }
    }

    fn add(&mut self, other: Sched) {
        self.run_ns += other.run_ns;
        self.wait_ns += other.wait_ns;
        self.slices += other.slices;
    }

    /// The session logger threads' schedstat, summed (one session runs at a time); `None`
    /// where `/proc` has no schedstat.
    fn loggers() -> Option<Sched> {
        let mut total = Sched::default();
        let mut found = false;
        for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
            let comm = std::fs::read_to_string(task.path().join("comm")).unwrap_or_default();
            if !comm.starts_with("etwsim-logger") {
                continue;
            }
            let text = std::fs::read_to_string(task.path().join("schedstat")).ok()?;
            let v: Vec<u64> = text
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            if let [run_ns, wait_ns, slices, ..] = v[..] {
                total.add(Sched {
                    run_ns,
                    wait_ns,
                    slices,
                });
                found = true;
            }
        }
        found.then_some(total)
    }
}

impl Tally {
    fn add(&mut self, other: &Tally) {
        self.runs += other.runs;
        self.time += other.time;
        self.written += other.written;
        self.lost += other.lost;
        self.lossy_runs += other.lossy_runs;
        self.in_file += other.in_file;
        self.file_bytes += other.file_bytes;
        self.logger.add(other.logger);
        self.worst_wait_ns = self.worst_wait_ns.max(other.worst_wait_ns);
        self.wait_lossy_ns += other.wait_lossy_ns;
        self.wait_clean_ns += other.wait_clean_ns;
        self.longest_wait_ns = self.longest_wait_ns.max(other.longest_wait_ns);
        self.write_time += other.write_time;
        self.max_bytes = self.max_bytes.max(other.max_bytes);
    }

    /// The logger's waits against how long the buffers last, for `.etl` configurations.
    fn sched_line(&self) -> Option<String> {
        if self.logger.slices == 0 || self.max_bytes == 0 {
            return None;
        }
        let rate = (self.written * RECORD as u64) as f64 / self.write_time.as_secs_f64().max(1e-12);
        Some(
            format!(
                "{:<18} logger while the writer ran: on a CPU {:.1} ms, waiting for one {:.1} ms over {} schedulings (mean {:.0} µs, worst run's mean {:.0} µs); MaximumBuffers ({:.2} MB) last {:.0} µs at the writer's {:.0} MB/s",
                "",
                self.logger.run_ns as f64 / 1e6,
                self.logger.wait_ns as f64 / 1e6,
                self.logger.slices,
                self.logger.wait_ns as f64 / self.logger.slices as f64 / 1e3,
                self.worst_wait_ns as f64 / 1e3,
                self.max_bytes as f64 / 1e6,
                self.max_bytes as f64 / rate * 1e6,
                rate / 1e6,
            ) + &format!(
                "\n{:<20} waiting for a CPU per run: {:.0} µs in runs with loss, {:.0} µs in runs without, longest run {:.0} µs",
                "",
                self.wait_lossy_ns as f64 / self.lossy_runs.max(1) as f64 / 1e3,
                self.wait_clean_ns as f64 / (self.runs - self.lossy_runs).max(1) as f64 / 1e3,
                self.longest_wait_ns as f64 / 1e3,
            ),
        )
    }

    fn line(&self, name: &str) -> String {
        let secs = self.time.as_secs_f64().max(1e-12);
        format!(
            "{name:<18} {:>5} runs ({:>3} with loss)  {:>6.2} M events/s  {:>7.1} MB/s written  lost {:>9} of {:>10} ({:.2}%)  in file {:>10}",
            self.runs,
            self.lossy_runs,
            self.written as f64 / secs / 1e6,
            self.file_bytes as f64 / secs / 1e6,
            self.lost,
            self.written,
            100.0 * self.lost as f64 / self.written.max(1) as f64,
            self.in_file,
        )
    }
}

struct Machine {
    kernel: Kernel,
    _app: Process,
    provider: Provider,
    thread: etwsim::Thread,
    dir: PathBuf,
}

impl Machine {
    fn new(dir: &Path) -> Machine {
        let kernel = Kernel::builder()
            .cpus(2)
            .threaded()
            .build()
            .expect("a threaded kernel");
        let app = kernel
            .spawn("bench.exe", Token::user("bench"))
            .expect("a process");
        let provider = app.register_provider(PROVIDER).expect("a provider");
        let thread = app.spawn_thread(0).expect("a thread");
        Machine {
            kernel,
            _app: app,
            provider,
            thread,
            dir: dir.to_path_buf(),
        }
    }

    /// One timed run of a session with `b`; then the exact-loss check.
    fn run(&self, b: Buffers) -> Tally {
        let path = self.dir.join(format!("{}.etl", b.name));
        let path_str = path.to_str().expect("a UTF-8 temp path");
        let desc = EventDescriptor::new(7, Level::INFORMATION, Keyword(1));
        let payload = [0x5au8; PAYLOAD];
        let mut failed = 0u64;
        let start = Instant::now();
        let session = self
            .kernel
            .session(b.name)
            .log_file(path_str)
            .buffer_size_kb(b.buffer_size_kb)
            .minimum_buffers(b.minimum)
            .maximum_buffers(b.maximum)
            .start()
            .expect("the session starts");
        session
            .enable(PROVIDER, &EnableParams::new())
            .expect("enable");
        // The logger's schedstat before and after the writes; reading it is not timed.
        let probe = Instant::now();
        let sched_before = Sched::loggers();
        let mut untimed = probe.elapsed();
        let writes = Instant::now();
        {
            let _on = self.thread.enter();
            for _ in 0..EVENTS {
                if self.provider.write(&desc, &[&payload]).is_err() {
                    failed += 1;
                }
            }
        }
        let write_time = writes.elapsed();
        let probe = Instant::now();
        let logger = match (sched_before, Sched::loggers()) {
            (Some(before), Some(after)) => after.minus(before),
            _ => Sched::default(),
        };
        untimed += probe.elapsed();
        let stats = session.stop().expect("stop");
        let time = start.elapsed().saturating_sub(untimed);

        // Outside the timing: loss is counted exactly.
        let mut file = LogFile::open(&path).expect("the log file");
        let in_file = file
            .records()
            .filter(|r| matches!(r, Ok(Record::Event(_))))
            .count() as u64;
        let lost = u64::from(stats.events_lost);
        assert_eq!(
            in_file + lost,
            EVENTS,
            "{}: {in_file} in the file + {lost} lost != {EVENTS} written",
            b.name
        );
        assert_eq!(lost, failed, "{}: EventsLost = failed writes", b.name);
        Tally {
            runs: 1,
            time,
            written: EVENTS,
            lost,
            lossy_runs: u64::from(lost > 0),
            in_file,
            file_bytes: std::fs::metadata(&path).map_or(0, |m| m.len()),
            logger,
            worst_wait_ns: logger.wait_ns / logger.slices.max(1),
            wait_lossy_ns: if lost > 0 { logger.wait_ns } else { 0 },
            wait_clean_ns: if lost > 0 { 0 } else { logger.wait_ns },
            longest_wait_ns: logger.wait_ns,
            write_time,
            max_bytes: u64::from(stats.maximum_buffers) * u64::from(stats.buffer_size_kb) * 1024,
        }
    }
}

/// The peer: a plain program writing the same bytes with a `BufWriter`.
fn bufwriter(dir: &Path, capacity: usize) -> Tally {
    let path = dir.join(format!("bufwriter-{capacity}.bin"));
    let mut record = [0u8; RECORD];
    for (i, b) in record.iter_mut().enumerate() {
        *b = i as u8;
    }
    let start = Instant::now();
    let file = std::fs::File::create(&path).expect("create");
    let mut w = std::io::BufWriter::with_capacity(capacity, file);
    for i in 0..EVENTS {
        record[8..16].copy_from_slice(&i.to_le_bytes()); // something changes per event
        w.write_all(black_box(&record)).expect("write");
    }
    drop(w.into_inner().expect("flush")); // closed; no fsync, as the .etl writer does none
    let time = start.elapsed();
    Tally {
        runs: 1,
        time,
        written: EVENTS,
        in_file: EVENTS,
        file_bytes: EVENTS * RECORD as u64,
        ..Tally::default()
    }
}

fn bench(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("etwsim-bench-e2e-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp folder");
    let machine = Machine::new(&dir);
    let advised = Buffers {
        name: "etl_advised",
        buffer_size_kb: 64,
        minimum: 0,
        maximum: 0,
    };
    let roomy = Buffers {
        name: "etl_max_256",
        buffer_size_kb: 64,
        minimum: 0,
        maximum: 256,
    };
    let small = Buffers {
        name: "etl_small_buffers",
        buffer_size_kb: 4,
        minimum: 4,
        maximum: 4,
    };
    let mut summary: Vec<(&str, Tally)> = Vec::new();
    let mut g = c.benchmark_group("end_to_end");
    g.throughput(Throughput::Elements(EVENTS));
    for b in [advised, roomy, small] {
        let mut tally = Tally::default();
        g.bench_function(b.name, |bench| {
            bench.iter_custom(|iters| {
                let mut time = Duration::ZERO;
                for _ in 0..iters {
                    let t = machine.run(b);
                    time += t.time;
                    tally.add(&t);
                }
                time
            });
        });
        summary.push((b.name, tally));
    }
    for (name, capacity) in [("bufwriter_8k", 8 * 1024), ("bufwriter_64k", 64 * 1024)] {
        let mut tally = Tally::default();
        g.bench_function(name, |bench| {
            bench.iter_custom(|iters| {
                let mut time = Duration::ZERO;
                for _ in 0..iters {
                    let t = bufwriter(&dir, capacity);
                    time += t.time;
                    tally.add(&t);
                }
                time
            });
        });
        summary.push((name, tally));
    }
    g.finish();
    println!(
        "\nend_to_end summary (all iterations, warm-up included; criterion's estimates above):"
    );
    for (name, t) in &summary {
        println!("  {}", t.line(name));
        if let Some(line) = t.sched_line() {
            println!("  {line}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// What criterion_group!/criterion_main! expand to, without their undocumented `pub fn`.
fn main() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
    c.final_summary();
}
