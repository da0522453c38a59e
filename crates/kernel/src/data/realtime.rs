//! Real-time delivery (BUF-12…BUF-14): each consumer's bounded queue, the loss markers it
//! receives, and the backing store that holds buffers while no consumer is attached.

use parking_lot::{Condvar, Mutex};
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// One buffer as real-time delivery passes it on.
#[derive(Clone, Debug)]
pub(crate) struct Delivered {
    pub(in crate::data) bytes: Arc<[u8]>,
    /// The session's EventsLost when the buffer was flushed.
    pub(in crate::data) events_lost: u32,
}

/// What a consumer's queue holds.
#[derive(Clone, Debug)]
pub(in crate::data) enum RtItem {
    Buffer(Delivered),
    /// RTLostEvent (32) or RTLostBuffer (33) before the next buffer.
    Lost(u8),
}

/// One attached real-time consumer's queue.
pub(crate) struct ConsumerQueue {
    pub(in crate::data) items: Mutex<VecDeque<RtItem>>,
    capacity: usize,
    /// Buffers this consumer missed since it last received one.
    missed_buffers: AtomicU32,
    /// The session's EventsLost the consumer has been told about.
    seen_events_lost: AtomicU32,
    pub(in crate::data) closed: AtomicBool,
}

impl ConsumerQueue {
    fn offer(&self, d: &Delivered) -> bool {
        let mut q = self.items.lock();
        if q.len() >= self.capacity {
            self.missed_buffers.fetch_add(1, Ordering::Relaxed);
            return false;
        }
        if self.missed_buffers.swap(0, Ordering::Relaxed) > 0 {
            q.push_back(RtItem::Lost(33));
        }
        if d.events_lost > self.seen_events_lost.swap(d.events_lost, Ordering::Relaxed) {
            q.push_back(RtItem::Lost(32));
        }
        q.push_back(RtItem::Buffer(d.clone()));
        true
    }
}

struct RtInner {
    consumers: Vec<Arc<ConsumerQueue>>,
    backlog: VecDeque<Delivered>,
}

/// A session's real-time delivery state.
pub(crate) struct RealTime {
    inner: Mutex<RtInner>,
    /// EVT-08: no consumer and the backing store is full — writes fail.
    pub(in crate::data) full: AtomicBool,
    /// Backing-store size in buffers (BUF-12; a simulator parameter).
    limit: usize,
    /// Signalled on every delivery and at stop, for blocking consumers.
    pub(in crate::data) signal: Condvar,
    pub(in crate::data) signal_lock: Mutex<()>,
}

impl RealTime {
    pub(in crate::data) fn new(limit: usize) -> RealTime {
        RealTime {
            inner: Mutex::new(RtInner {
                consumers: Vec::new(),
                backlog: VecDeque::new(),
            }),
            full: AtomicBool::new(false),
            limit: limit.max(1),
            signal: Condvar::new(),
            signal_lock: Mutex::new(()),
        }
    }

    /// Delivers one buffer. Returns (taken by someone, buffers lost).
    pub(in crate::data) fn deliver(&self, d: Delivered) -> (bool, u32) {
        let mut inner = self.inner.lock();
        inner
            .consumers
            .retain(|c| !c.closed.load(Ordering::Acquire));
        let result = if inner.consumers.is_empty() {
            if inner.backlog.len() < self.limit {
                inner.backlog.push_back(d);
                if inner.backlog.len() >= self.limit {
                    self.full.store(true, Ordering::Release);
                }
                (true, 0)
            } else {
                (false, 1)
            }
        } else {
            let mut any = false;
            let mut lost = 0;
            for c in &inner.consumers {
                if c.offer(&d) {
                    any = true;
                } else {
                    lost += 1;
                }
            }
            (any, lost)
        };
        drop(inner);
        self.notify();
        result
    }

    pub(crate) fn notify(&self) {
        let _g = self.signal_lock.lock();
        self.signal.notify_all();
    }

    /// The session has delivered its last buffer: each consumer that missed buffers, or whose
    /// session lost events, since its last buffer is told so now, at the end of its stream
    /// (BUF-14 says markers come before the buffer they concern; after the last buffer there
    /// is none, and the project's choice is to tell the loss rather than keep it silent).
    pub(in crate::data) fn finish(&self, events_lost: u32) {
        let inner = self.inner.lock();
        for c in &inner.consumers {
            let mut q = c.items.lock();
            if c.missed_buffers.swap(0, Ordering::Relaxed) > 0 {
                q.push_back(RtItem::Lost(33));
            }
            if events_lost > c.seen_events_lost.swap(events_lost, Ordering::Relaxed) {
                q.push_back(RtItem::Lost(32));
            }
        }
        drop(inner);
        self.notify();
    }

    /// Attaches a consumer; the backlog is delivered to it first (BUF-12).
    pub(crate) fn attach(&self, capacity: usize) -> Arc<ConsumerQueue> {
        let q = Arc::new(ConsumerQueue {
            items: Mutex::new(VecDeque::new()),
            capacity: capacity.max(1),
            missed_buffers: AtomicU32::new(0),
            seen_events_lost: AtomicU32::new(0),
            closed: AtomicBool::new(false),
        });
        let mut inner = self.inner.lock();
        {
            let mut items = q.items.lock();
            for d in inner.backlog.drain(..) {
                if d.events_lost > q.seen_events_lost.swap(d.events_lost, Ordering::Relaxed) {
                    items.push_back(RtItem::Lost(32));
                }
                items.push_back(RtItem::Buffer(d));
            }
        }
        self.full.store(false, Ordering::Release);
        inner.consumers.push(q.clone());
        q
    }

    /// Takes the backing store's buffers (a shutdown with real-time persistence, ALG-03).
    pub(crate) fn take_backlog(&self) -> Vec<Delivered> {
        self.inner.lock().backlog.drain(..).collect()
    }

    /// Puts buffers kept from the previous boot into the backing store, as many as fit;
    /// returns how many (ALG-03).
    pub(crate) fn restore_backlog(&self, buffers: Vec<Delivered>) -> usize {
        let mut inner = self.inner.lock();
        let room = self.limit.saturating_sub(inner.backlog.len());
        let n = buffers.len().min(room);
        inner.backlog.extend(buffers.into_iter().take(n));
        if inner.backlog.len() >= self.limit {
            self.full.store(true, Ordering::Release);
        }
        n
    }

    /// Buffers waiting in the backing store.
    pub(crate) fn backlog_len(&self) -> usize {
        self.inner.lock().backlog.len()
    }

    /// Consumers attached.
    pub(crate) fn consumer_count(&self) -> usize {
        let inner = self.inner.lock();
        inner
            .consumers
            .iter()
            .filter(|c| !c.closed.load(Ordering::Acquire))
            .count()
    }
}
