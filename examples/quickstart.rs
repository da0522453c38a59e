//! A first walk through ETW's kernel side: start sessions, register providers, enable them
//! with different levels and keywords, and look at what the kernel holds — the session table
//! (what `xperf -Loggers` shows), a GUID entry's 8 enable slots, each registration's cached
//! enable word, and the values the providers' enable callbacks receive.
//!
//! Run it with `cargo run --example quickstart`.

use etwsim::{
    EnableNotification, EnableParams, EnableProperty, EventDescriptor, EventFilter, EventView,
    Guid, Kernel, Keyword, Level, ProcessSpec, Token,
};
use std::sync::{Arc, Mutex};

fn main() -> Result<(), etwsim::Error> {
    // A simulated 4-CPU machine, reproducible run after run.
    let kernel = Kernel::builder().cpus(4).deterministic(2026).build()?;
    let web = kernel.spawn_process(ProcessSpec::new("web.exe", Token::user("alice")))?;
    let worker = kernel.spawn_process(ProcessSpec::new("worker.exe", Token::user("bob")))?;

    // "MyProvider", with the GUID TraceLogging derives from that name.
    let guid: Guid = "{b3864c38-4273-58c5-545b-8b3608343471}"
        .parse()
        .expect("a GUID literal");
    let log = Arc::new(Mutex::new(Vec::new()));

    // A session enables the provider before anyone registers it (a "pre-enable").
    let audit = kernel.session("Audit").log_file("audit.etl").start()?;
    audit.enable(guid, &EnableParams::new().level(Level::WARNING).any(0x1))?;

    println!(
        "== registering MyProvider in web.exe (pid {}) and worker.exe (pid {})",
        web.pid(),
        worker.pid()
    );
    let callback = |who: &'static str, log: Arc<Mutex<Vec<String>>>| {
        move |n: &EnableNotification| {
            let line = format!(
                "  callback[{who}]: IsEnabled={:?} Level={} MatchAny={:#x} MatchAll={:#x} SourceId={}",
                n.is_enabled, n.level.0, n.match_any_keyword.0, n.match_all_keyword.0, n.source_id
            );
            println!("{line}");
            log.lock().expect("log lock").push(line);
        }
    };
    let p_web = web.register_provider_with_callback(guid, callback("web", log.clone()))?;
    let p_worker = worker.register_provider_with_callback(guid, callback("worker", log.clone()))?;

    println!("\n== a real-time session enables it too, verbose, all keywords, only in worker.exe");
    let live = kernel.session("LiveView").real_time().start()?;
    let source: Guid = "{11111111-2222-3333-4444-555555555555}"
        .parse()
        .expect("a GUID literal");
    live.enable(
        guid,
        &EnableParams::new()
            .level(Level::VERBOSE)
            .source_id(source)
            .property(EnableProperty::IGNORE_KEYWORD_0)
            .filter(EventFilter::ExecutableName("worker.exe".into())),
    )?;

    println!("\n== the session table (QueryAllTraces, like `xperf -Loggers`)");
    println!(
        "  {:<4} {:<10} {:<6} {:>7} {:>5} {:>5} {:>6} {:>5}  file",
        "id", "name", "mode", "bufKB", "min", "max", "events", "lost"
    );
    for s in kernel.sessions() {
        println!(
            "  {:<4} {:<10} {:<6} {:>7} {:>5} {:>5} {:>6} {:>5}  {}",
            s.logger_id,
            s.name,
            format!("{:#x}", s.log_file_mode.bits()),
            s.buffer_size_kb,
            s.minimum_buffers,
            s.maximum_buffers,
            s.buffers_written,
            s.events_lost,
            s.log_file.as_deref().unwrap_or("-")
        );
    }

    println!("\n== the GUID entry of MyProvider: 8 enable slots");
    for (i, slot) in kernel.enable_slots(guid).iter().enumerate() {
        match slot {
            Some((handle, info)) => println!(
                "  slot {i}: session {handle} level {} any {:#x} all {:#x} property {:?}",
                info.level.0,
                info.match_any_keyword.0,
                info.match_all_keyword.0,
                info.enable_property
            ),
            None => println!("  slot {i}: free"),
        }
    }

    println!("\n== each registration's cached enable word (what EventEnabled reads)");
    for (name, p) in [("web", &p_web), ("worker", &p_worker)] {
        let st = p.enable_state();
        println!(
            "  {name:<6} mask {:08b} level {:>3} any {:#018x} all {:#x} keyword-0 {}",
            st.mask, st.level.0, st.match_any.0, st.match_all.0, st.keyword_zero
        );
    }

    println!("\n== which sessions would record which event (routing, FLT-20)");
    let events = [
        (
            "warning, keyword 0x1",
            EventDescriptor::new(1, Level::WARNING, Keyword(0x1)),
        ),
        (
            "verbose, keyword 0x1",
            EventDescriptor::new(2, Level::VERBOSE, Keyword(0x1)),
        ),
        (
            "error, keyword 0",
            EventDescriptor::new(3, Level::ERROR, Keyword(0)),
        ),
    ];
    for (what, desc) in &events {
        let name_of = |h: etwsim::TraceHandle| {
            kernel
                .sessions()
                .into_iter()
                .find(|s| s.handle == h)
                .map(|s| s.name)
                .unwrap_or_default()
        };
        let view = EventView::new(desc);
        let web_t: Vec<_> = p_web.targets(&view).into_iter().map(name_of).collect();
        let wrk_t: Vec<_> = p_worker.targets(&view).into_iter().map(name_of).collect();
        println!("  {what:<22} from web.exe -> {web_t:?}, from worker.exe -> {wrk_t:?}");
    }

    println!("\n== stopping LiveView disables the provider for it (callbacks with SourceId NULL)");
    let stats = live.stop()?;
    println!(
        "  LiveView final: buffers written {} events lost {}",
        stats.buffers_written, stats.events_lost
    );
    audit.stop()?;
    println!(
        "\n{} callbacks in all.",
        log.lock().expect("log lock").len()
    );
    Ok(())
}
