//! A single-threaded kernel (`KernelBuilder::single_threaded`): its engine writes the same
//! files as the shared path, and its contract — the OS thread that built it is the only one
//! that may write or control its sessions — refuses every other thread and changes nothing.
//!
//! The workload below runs on a plain deterministic kernel (the shared, atomic path) and on
//! a single-threaded one (the lane of `data/lane.rs` for what it can take, the shared path
//! for the rest), and the two must give byte-identical log files, statistics and write
//! results. It moves everything a lane keeps under it: simulated threads entered and left,
//! a CPU migration, activity IDs, enables and level changes, provider traits, a second
//! session on a provider, FLUSH, FlushTimers, a stop and a new session, buffer switches,
//! losses, refused sizes, a real-time session whose backlog fills, a private session, and
//! every session clock type.
use crate::common;
use common::*;

use etwsim::system::event_trace_flag as flag;
use etwsim::{
    ActivityControl, ClockType, EnableParams, Error, EventDescriptor, Guid, KERNEL_LOGGER_NAME,
    Kernel, Keyword, Level, LogFileMode, MemorySink, Opcode, ProviderTraits, SessionProperties,
    Win32Error,
};
use std::time::Duration;

/// What the workload leaves: every log file's bytes by name, every write's Win32 code, and
/// the sessions' final statistics.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    files: Vec<(String, Vec<u8>)>,
    codes: Vec<u32>,
    stats: Vec<SessionProperties>,
    sink: Vec<Vec<u8>>,
}

fn code(r: etwsim::Result<()>) -> u32 {
    r.map_or_else(|e| e.win32_code().code(), |()| 0)
}

fn workload(single: bool) -> Outcome {
    let b = Kernel::builder()
        .cpus(2)
        .deterministic(0x51_4E_61_E5)
        .realtime_backlog_buffers(2);
    let k = if single { b.single_threaded() } else { b }
        .build()
        .unwrap();
    assert_eq!(k.is_single_threaded(), single);
    let app = admin_process(&k, "app.exe");
    let other = user_process(&k, "other.exe");
    let (g1, g2, g3, g4, g5) = (guid(1), guid(2), guid(3), guid(4), guid(5));
    let p1 = app.register_provider(g1).unwrap();
    let p2 = app.register_provider(g2).unwrap();
    let p3 = other.register_provider(g3).unwrap();
    let p4 = app.register_provider(g4).unwrap();
    let p5 = app.register_provider(g5).unwrap();
    let t0 = app.spawn_thread(0).unwrap();
    let mut t1 = app.spawn_thread(1).unwrap();
    let u0 = other.spawn_thread(0).unwrap();

    // A: QPC, small buffers that fill and lose; B: system time, flushed by its timer;
    // C: CPU cycles, real time with no consumer (its backlog fills, EVT-08); a private
    // session of `app` for g5; the kernel logger recording file I/O of the same threads.
    let a = k
        .session("A")
        .log_file("a.etl")
        .buffer_size_kb(4)
        .minimum_buffers(2)
        .maximum_buffers(4)
        .start()
        .unwrap();
    let b = k
        .session("B")
        .log_file("b.etl")
        .clock(ClockType::SystemTime)
        .buffer_size_kb(8)
        .flush_timer(1)
        .start()
        .unwrap();
    let sink = MemorySink::new();
    let c = k
        .session("C")
        .real_time()
        .clock(ClockType::CpuCycle)
        .buffer_size_kb(4)
        .maximum_buffers(4)
        .sink(sink.clone())
        .start()
        .unwrap();
    let private = k
        .session("Mine")
        .guid(g5)
        .mode(LogFileMode::PRIVATE_LOGGER)
        .log_file("mine.etl")
        .caller(&app)
        .start()
        .unwrap();
    let kernel_logger = k
        .session(KERNEL_LOGGER_NAME)
        .log_file("kernel.etl")
        .enable_flags(flag::FILE_IO | flag::FILE_IO_INIT)
        .start()
        .unwrap();
    a.enable(g1, &EnableParams::new().level(Level::INFORMATION).any(0x3))
        .unwrap();
    b.enable(g2, &EnableParams::new()).unwrap();
    a.enable(g3, &EnableParams::new()).unwrap();
    b.enable(g3, &EnableParams::new().level(Level::WARNING))
        .unwrap();
    c.enable(g4, &EnableParams::new().level(Level::VERBOSE))
        .unwrap();
    private.enable(g5, &EnableParams::new()).unwrap();
    let mut d = None;

    let mut codes = Vec::new();
    // An event A takes whatever its g1 settings are.
    let taken = EventDescriptor::new(9, Level::ERROR, Keyword(1));
    let data: Vec<u8> = (0..=255u8).cycle().take(6000).collect();
    let outer = t0.enter();
    for i in 0..2400u32 {
        let n = i as u16;
        let desc = EventDescriptor {
            version: (i % 3) as u8,
            opcode: Opcode((i % 5) as u8),
            ..EventDescriptor::new(
                n,
                Level([1, 4, 5][(i % 3) as usize]),
                Keyword(u64::from(i % 4)),
            )
        };
        let len = [0, 1, 7, 8, 16, 24, 63, 64, 65, 200, 1000][(i % 11) as usize];
        let payload = &data[..len];
        let r = match i % 10 {
            0..=3 => p1.write(&desc, &[payload]),
            4 | 5 => p2.write(&desc, &[payload]),
            6 => p4.write(&desc, &[payload]),
            9 => p5.write(&desc, &[payload]),
            7 => {
                let _on = u0.enter();
                p3.write(&desc, &[payload])
            }
            _ => p1.write(&desc, &[&payload[..len / 2], &payload[len / 2..]]),
        };
        codes.push(code(r));
        match i {
            300 => {
                let _in = t1.enter(); // nested: the writer changes, then changes back
                codes.push(code(p1.write(&desc, &[b"nested"])));
            }
            500 => t1.migrate(0).unwrap(),
            520 => {
                let _on = t1.enter();
                codes.push(code(p2.write(&desc, &[b"on t1"])));
            }
            700 => t0.set_activity_id(Guid::from_u128(0xA11C_E000 + u128::from(i))),
            900 => {
                let mut id = Guid::NULL;
                t0.activity_id_control(ActivityControl::CreateSetId, &mut id);
            }
            1000 => {
                a.flush().unwrap();
            }
            1100 => a
                .enable(g1, &EnableParams::new().level(Level::VERBOSE).any(0x1))
                .unwrap(),
            1200 => p2.set_traits(&ProviderTraits::new("Two")).unwrap(),
            1300 => {
                let f = app.open_file(r"C:\data\log.txt").unwrap();
                f.write_through(0, 512);
                f.close();
            }
            1400 => codes.push(code(p1.write(&taken, &[&vec![0u8; 70_000]]))), // EVT-05
            1450 => codes.push(code(p1.write(&taken, &[&data[..5000]]))),      // EVT-06
            1500 => {
                b.stop().unwrap();
            }
            1600 => {
                let s = k.session("D").log_file("d.etl").start().unwrap();
                s.enable(g2, &EnableParams::new()).unwrap();
                d = Some(s);
            }
            1700 => t1.migrate(1).unwrap(),
            1800 => a.disable(g3).unwrap(),
            2000 => {
                // A burst with no logger step: A runs out of buffers (EVT-07).
                for _ in 0..40 {
                    codes.push(code(p1.write(&taken, &[&data[..1000]])));
                }
            }
            _ => {}
        }
        if i % 50 == 49 {
            k.run_pending();
        }
        if i % 400 == 399 {
            k.advance(Duration::from_millis(1_100));
        }
    }
    drop(outer);
    let mut stats = vec![
        a.stop().unwrap(),
        c.stop().unwrap(),
        private.stop().unwrap(),
        kernel_logger.stop().unwrap(),
    ];
    stats.push(d.expect("D runs").stop().unwrap());
    let files = ["a.etl", "b.etl", "mine.etl", "kernel.etl", "d.etl"]
        .iter()
        .map(|f| (f.to_string(), k.disk().read(f).unwrap()))
        .collect();
    Outcome {
        files,
        codes,
        stats,
        sink: sink.buffers(),
    }
}

#[test]
fn the_single_threaded_engine_writes_the_files_the_shared_path_writes() {
    // rule: EVT-02
    // rule: EVT-05
    // rule: EVT-06
    // rule: EVT-07
    // rule: EVT-08
    // rule: EVT-14
    // rule: BUF-03
    let shared = workload(false);
    let single = workload(true);
    // The workload does what it is meant to: losses, refusals, buffers, files.
    for code in [
        Win32Error::ERROR_ARITHMETIC_OVERFLOW,
        Win32Error::ERROR_MORE_DATA,
        Win32Error::ERROR_NOT_ENOUGH_MEMORY,
        Win32Error::ERROR_LOG_FILE_FULL,
    ] {
        assert!(
            shared.codes.contains(&code.code()),
            "the workload is meant to meet {code}"
        );
    }
    assert!(shared.codes.iter().filter(|&&c| c == 0).count() > 2000);
    assert!(shared.stats.iter().any(|s| s.events_lost > 0));
    assert!(shared.files.iter().all(|(_, f)| f.len() > 4096));
    for ((name, a), (_, b)) in shared.files.iter().zip(&single.files) {
        assert!(a == b, "{name} differs between the two engines");
    }
    assert_eq!(shared, single);
}

#[test]
fn a_single_threaded_kernel_refuses_other_threads_and_changes_nothing() {
    let k = Kernel::builder()
        .cpus(2)
        .deterministic(3)
        .single_threaded()
        .build()
        .unwrap();
    let app = admin_process(&k, "app.exe");
    let p = app.register_provider(guid(1)).unwrap();
    let sink = MemorySink::new();
    let s = k
        .session("S")
        .log_file("s.etl")
        .sink(sink.clone())
        .flush_timer(1)
        .start()
        .unwrap();
    s.enable(guid(1), &EnableParams::new()).unwrap();
    let kl = k
        .session(KERNEL_LOGGER_NAME)
        .log_file("kernel.etl")
        .enable_flags(flag::FILE_IO | flag::FILE_IO_INIT)
        .start()
        .unwrap();
    let d = EventDescriptor::new(1, Level::INFORMATION, Keyword(1));
    p.write(&d, &[b"before"]).unwrap();
    s.flush().unwrap();
    k.run_pending();
    p.write(&d, &[b"pending"]).unwrap();
    let before = (s.query().unwrap(), kl.query().unwrap(), sink.buffers());
    let clock = k.now();

    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let wrong = Win32Error::ERROR_INVALID_THREAD_ID;
                assert!(!k.on_owner_thread());
                assert_eq!(p.write(&d, &[b"elsewhere"]), Err(Error::WrongThread));
                let e = p
                    .write_with_options(&d, &etwsim::WriteOptions::default(), &[b"x"])
                    .unwrap_err();
                assert_eq!(e.win32_code(), wrong);
                assert_eq!(s.flush().unwrap_err().win32_code(), wrong);
                assert_eq!(s.stop().unwrap_err().win32_code(), wrong);
                let update = etwsim::SessionUpdate {
                    flush_timer: 5,
                    ..Default::default()
                };
                assert_eq!(s.update(&update).unwrap_err().win32_code(), wrong);
                assert_eq!(
                    s.enable(guid(2), &EnableParams::new()).unwrap_err(),
                    Error::WrongThread
                );
                assert_eq!(k.session("T").start().unwrap_err().win32_code(), wrong);
                // Steps of the logger do nothing here.
                k.run_pending();
                k.advance(Duration::from_secs(5));
                // Reading works from anywhere.
                assert_eq!(s.query().unwrap(), before.0);
                // The OS keeps its tables; its kernel events are not recorded, and count as
                // lost in the session that wanted them.
                let f = app.open_file(r"C:\x.txt").unwrap();
                f.close();
            })
            .join()
            .unwrap();
    });

    assert_eq!(k.now(), clock, "the clock did not move");
    assert_eq!(s.query().unwrap(), before.0);
    assert_eq!(sink.buffers(), before.2, "nothing was flushed");
    let kernel_after = kl.query().unwrap();
    assert!(kernel_after.events_lost > before.1.events_lost);
    // The owner thread carries on as if nothing happened.
    p.write(&d, &[b"after"]).unwrap();
    let stats = s.stop().unwrap();
    assert_eq!(stats.events_lost, 0);
    let payloads: Vec<Vec<u8>> = sink.records().iter().map(|r| r.user_data.clone()).collect();
    assert_eq!(
        payloads,
        [b"before".to_vec(), b"pending".to_vec(), b"after".to_vec()]
    );
}

#[test]
fn only_a_deterministic_kernel_can_be_single_threaded() {
    let e = Kernel::builder()
        .threaded()
        .single_threaded()
        .build()
        .unwrap_err();
    assert_eq!(e.win32_code(), Win32Error::ERROR_INVALID_PARAMETER);
    let k = Kernel::builder().deterministic(1).build().unwrap();
    assert!(!k.is_single_threaded());
    assert!(std::thread::scope(|s| s
        .spawn(|| k.on_owner_thread())
        .join()
        .unwrap()));
}
