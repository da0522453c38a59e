//! What one OS thread keeps for the event path: the simulated threads entered on it, the
//! route tables and system-logger snapshots it wrote through recently ([`WriterLocal`]), and
//! which simulated thread a write runs on ([`with_current`]).

use crate::data::cache::VersionCache;
use crate::data::cache::with_versioned;
use crate::data::route::RegEntry;
use crate::data::route::RouteCache;
use crate::data::route::Routes;
use crate::data::sys::Loggers;
use crate::data::sys::Snapshot;
use crate::data::sys::SysLogger;
use crate::machine::thread::ThreadState;
use etwsim_types::Guid;
use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// What one OS thread keeps for the event path, in one thread-local so that a write finds
/// its route table and its simulated thread with one lookup.
pub(crate) struct WriterLocal {
    /// Simulated threads entered on this OS thread, innermost last.
    pub(crate) entered: RefCell<Vec<Arc<ThreadState>>>,
    /// Implicit simulated threads of this OS thread (threaded mode), per kernel and process.
    pub(in crate::data) implicit: RefCell<Vec<Arc<ThreadState>>>,
    /// The route tables this thread wrote through recently (`RegEntry::with_routes_in`).
    pub(in crate::data) routes: RefCell<RouteCache>,
    /// The system loggers' snapshot this thread's OS operations used last
    /// (`Loggers::with`).
    pub(in crate::data) sys: RefCell<VersionCache<Snapshot, 1>>,
}

thread_local! {
    pub(crate) static WRITER_LOCAL: WriterLocal = const {
        WriterLocal {
            entered: RefCell::new(Vec::new()),
            implicit: RefCell::new(Vec::new()),
            routes: RefCell::new(RouteCache::new()),
            sys: RefCell::new(VersionCache::new()),
        }
    };
}

/// Runs `f` with this OS thread's [`WriterLocal`]; `None` while the thread's locals are being
/// destroyed (a write from a thread-local destructor: nothing is cached then).
#[inline(always)]
pub(in crate::data) fn with_writer_local<R>(f: impl FnOnce(Option<&WriterLocal>) -> R) -> R {
    let mut f = Some(f);
    match WRITER_LOCAL.try_with(|l| (f.take().expect("called once"))(Some(l))) {
        Ok(r) => r,
        Err(_) => (f.take().expect("not called yet"))(None),
    }
}

/// Where the simulated threads of writes come from: the kernel (`api`) implements it.
pub(crate) trait ThreadSource {
    /// The kernel's identity (a thread entered in one kernel is never current in another).
    fn id(&self) -> u64;
    /// Deterministic mode: implicit threads are the processes' main threads, not cached per
    /// OS thread.
    fn is_deterministic(&self) -> bool;
    /// The implicit simulated thread of process `process_key` on this OS thread.
    fn implicit_thread(&self, process_key: u64) -> Arc<ThreadState>;
}

/// A locally unique activity id (EVT-16): a counter with the RFC 4122 variant bits set to the
/// reserved `111` and version 0, so it can never equal a valid GUID.
pub(crate) fn local_activity_id(counter: u64, kernel_id: u64) -> Guid {
    let v = (u128::from(kernel_id & 0xFFFF_FFFF) << 96) | u128::from(counter);
    let v = v & !(0xF << 76); // version 0: not a valid RFC 4122 version
    let v = (v & !(0x7 << 61)) | (0x7 << 61); // variant 111: reserved for the future
    Guid::from_u128(v)
}

/// Runs `f` with the simulated thread a write of process `process_key` runs on. `f` runs
/// inside a shared borrow of the thread-local list it found the thread in (no reference-count
/// traffic per write); it must not enter or leave simulated threads.
#[inline(always)]
pub(crate) fn with_current<R>(
    kernel: &(impl ThreadSource + ?Sized),
    process_key: u64,
    f: impl FnOnce(&ThreadState) -> R,
) -> R {
    with_writer_local(|local| current_in(local, kernel, process_key, f))
}

/// [`with_current`] with this OS thread's writer state already at hand.
#[inline(always)]
pub(in crate::data) fn current_in<R>(
    local: Option<&WriterLocal>,
    kernel: &(impl ThreadSource + ?Sized),
    process_key: u64,
    f: impl FnOnce(&ThreadState) -> R,
) -> R {
    let kid = kernel.id();
    let mine = |t: &&Arc<ThreadState>| t.kernel_id == kid && t.process_key == process_key;
    if let Some(l) = local {
        if let Ok(list) = l.entered.try_borrow() {
            if let Some(t) = list.iter().rev().find(mine) {
                return f(t);
            }
        }
        if let Ok(list) = l.implicit.try_borrow() {
            if let Some(t) = list.iter().find(mine) {
                return f(t);
            }
        }
    }
    let t = kernel.implicit_thread(process_key);
    if !kernel.is_deterministic() {
        if let Some(mut v) = local.and_then(|l| l.implicit.try_borrow_mut().ok()) {
            if v.len() >= 64 {
                v.remove(0); // a bounded cache: an evicted entry just gets a new thread
            }
            v.push(t.clone());
        }
    }
    f(&t)
}

impl RegEntry {
    /// Runs `f` with the registration's current route table, from this OS thread's
    /// [`RouteCache`] (a [`VersionCache`]: `rebuild` stores the version after the table, so
    /// a hit is the current table, used with no reference count and no `ArcSwap` debt slot,
    /// P5). A replaced table can stay cached until this thread writes again (at most four per
    /// thread); a session it names that has stopped is not written to (`is_running`).
    #[inline(always)]
    pub(crate) fn with_routes<R>(&self, f: impl FnOnce(&Routes) -> R) -> R {
        with_writer_local(|local| self.with_routes_in(local, f))
    }

    /// [`RegEntry::with_routes`] with this OS thread's writer state already at hand (`None`
    /// while the thread's locals are being destroyed: no cache then).
    #[inline(always)]
    pub(in crate::data) fn with_routes_in<R>(
        &self,
        local: Option<&WriterLocal>,
        f: impl FnOnce(&Routes) -> R,
    ) -> R {
        with_versioned(
            local.map(|l| &l.routes),
            self.routes_version.load(Ordering::Acquire),
            || self.routes.load_full(),
            f,
        )
    }
}

impl Loggers {
    /// Runs `f` with the current system loggers, for one operation's events, from this OS
    /// thread's one-snapshot [`VersionCache`](crate::data::cache::VersionCache) (`publish`
    /// stores the version after the snapshot), as a provider write finds its route table
    /// ([`RegEntry::with_routes`]). A hit takes no reference count and no `ArcSwap` debt
    /// slot: no locked instruction (P15: the `ArcSwap` load was ≈ 88 instructions an event).
    /// A replaced snapshot is never used again, but the cache keeps it, and its loggers'
    /// contexts, alive until this thread's next OS operation of any kernel.
    #[inline(always)]
    pub(crate) fn with(&self, f: impl FnOnce(&[Arc<SysLogger>])) {
        // One call site of `f` on the common path, so that it is inlined here (through
        // `with_writer_local`, whose closure has two, the operation's events were an
        // outlined call). `f` is left only while this thread's locals are being destroyed.
        let mut f = Some(f);
        let _ = WRITER_LOCAL.try_with(|local| {
            if let Some(f) = f.take() {
                self.with_in(Some(local), f);
            }
        });
        if let Some(f) = f {
            self.with_no_locals(f);
        }
    }

    /// [`Loggers::with`] with no thread-local cache.
    #[cold]
    #[inline(never)]
    fn with_no_locals(&self, f: impl FnOnce(&[Arc<SysLogger>])) {
        self.with_in(None, f);
    }

    /// [`Loggers::with`] with this OS thread's writer state, if any.
    #[inline(always)]
    fn with_in(&self, local: Option<&WriterLocal>, f: impl FnOnce(&[Arc<SysLogger>])) {
        with_versioned(
            local.map(|l| &l.sys),
            self.version.load(Ordering::Acquire),
            || self.snapshot.load_full(),
            |s| f(&s.list),
        );
    }
}
