//! A first end-to-end check of the event path: provider → buffers → logger → sink.
use crate::common;
use common::*;
use etwsim::{EnableParams, EventDescriptor, Keyword, Level, MemorySink};

#[test]
fn events_reach_the_sink_in_order() {
    let k = kernel();
    let g = guid(1);
    let sink = MemorySink::new();
    let s = k
        .session("s")
        .sink(sink.clone())
        .log_file("x.etl")
        .buffer_size_kb(4)
        .start()
        .unwrap();
    s.enable(g, &EnableParams::new()).unwrap();
    let app = user_process(&k, "app.exe");
    let p = app.register_provider(g).unwrap();
    for i in 0..100u32 {
        p.write(
            &EventDescriptor::new(i as u16, Level::INFORMATION, Keyword(1)),
            &[&i.to_le_bytes()],
        )
        .unwrap();
    }
    k.run_pending();
    let st = s.stop().unwrap();
    let recs = sink.records();
    assert_eq!(recs.len(), 100, "{st:?}");
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r.header.descriptor.id as usize, i);
        assert_eq!(r.user_data, (i as u32).to_le_bytes());
        assert_eq!(r.header.process_id, app.pid());
    }
    assert_eq!(st.events_lost, 0);
    assert!(st.buffers_written >= 3);
}

#[test]
fn a_file_session_writes_a_log_file_the_reader_reads_back() {
    // rule: BUF-17
    let k = kernel();
    let g = guid(1);
    let s = k
        .session("file")
        .log_file("trace.etl")
        .buffer_size_kb(8)
        .start()
        .unwrap();
    s.enable(g, &EnableParams::new()).unwrap();
    let p = user_process(&k, "app.exe").register_provider(g).unwrap();
    for i in 0..500u32 {
        p.write(
            &EventDescriptor::new(i as u16, Level::INFORMATION, Keyword(1)),
            &[&i.to_le_bytes()],
        )
        .unwrap();
    }
    let st = s.stop().unwrap();
    let file = k.disk().open_log_file("trace.etl").unwrap();
    assert_eq!(
        file.header().buffers_written,
        st.buffers_written + 1,
        "data buffers + the header buffer"
    );
    let reader = etwsim::etl::Reader::new(vec![file], Default::default()).unwrap();
    let ids: Vec<u16> = reader
        .filter_map(|r| match r.unwrap() {
            etwsim::etl::Record::Event(e) => Some(e.header.descriptor.id),
            _ => None,
        })
        .collect();
    assert_eq!(ids, (0..500u16).collect::<Vec<_>>());
}
