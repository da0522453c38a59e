//! Simulated threads: TID, CPU, the thread-local activity ID (EVT-14…EVT-16), simulated stack
//! frames, and which simulated thread an event write runs on.
//!
//! A write runs on the *current* simulated thread: the one [`Thread::enter`] bound to this OS
//! thread, if it belongs to the writing provider's process. Otherwise an implicit thread of
//! that process is used: in deterministic mode the process's main thread (CPU 0), so the
//! result never depends on the OS; in threaded mode one simulated thread per OS thread and
//! process, on CPUs assigned round-robin, stable for the OS thread's life.

use crate::machine::process::Process;
use crate::{Error, Result};
use etwsim_types::Guid;
use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// `EVENT_ACTIVITY_CTRL_*` codes of EventActivityIdControl (EVT-15).
#[doc(alias = "EVENT_ACTIVITY_CTRL_GET_ID")]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum ActivityControl {
    /// 1, `EVENT_ACTIVITY_CTRL_GET_ID`: out ← the thread's id.
    GetId = 1,
    /// 2, `EVENT_ACTIVITY_CTRL_SET_ID`: the thread's id ← in.
    SetId = 2,
    /// 3, `EVENT_ACTIVITY_CTRL_CREATE_ID`: out ← a new locally unique id.
    CreateId = 3,
    /// 4, `EVENT_ACTIVITY_CTRL_GET_SET_ID`: swap the thread's id and the argument.
    GetSetId = 4,
    /// 5, `EVENT_ACTIVITY_CTRL_CREATE_SET_ID`: out ← the thread's id, the thread's id ← new.
    CreateSetId = 5,
}

impl ActivityControl {
    /// From the raw code; `None` for others (rejected with `ERROR_INVALID_PARAMETER`, the
    /// project's choice for EVT-15's open case).
    pub fn from_raw(v: u32) -> Option<ActivityControl> {
        Some(match v {
            1 => ActivityControl::GetId,
            2 => ActivityControl::SetId,
            3 => ActivityControl::CreateId,
            4 => ActivityControl::GetSetId,
            5 => ActivityControl::CreateSetId,
            _ => return None,
        })
    }
}

/// The shared state of one simulated thread.
#[derive(Debug)]
pub(crate) struct ThreadState {
    pub(crate) tid: u32,
    pub(crate) process_key: u64,
    /// Kernel identity, so a binding never leaks across kernels on one OS thread.
    pub(crate) kernel_id: u64,
    /// The simulated CPU. Written by `migrate`, read by writes (`Relaxed`: a migration races
    /// with a write on another OS thread only in tests that ask for it).
    pub(crate) cpu: AtomicU32,
    /// The thread-local activity ID, as the two words a record's header holds
    /// (`guid_words`). Only code running as this thread changes it, so a torn read cannot
    /// happen in a well-formed program.
    activity: [AtomicU64; 2],
    /// Simulated return addresses for stack-trace items (FLT-12); empty = synthesise.
    pub(crate) stack: parking_lot::Mutex<Arc<[u64]>>,
}

impl ThreadState {
    pub(crate) fn new(kernel_id: u64, process_key: u64, tid: u32, cpu: u16) -> ThreadState {
        ThreadState {
            tid,
            process_key,
            kernel_id,
            cpu: AtomicU32::new(u32::from(cpu)),
            activity: [AtomicU64::new(0), AtomicU64::new(0)],
            stack: parking_lot::Mutex::new(Arc::from(Vec::new())),
        }
    }

    pub(crate) fn activity_id(&self) -> Guid {
        crate::data::write::guid_from_words(self.activity_words())
    }

    /// The activity ID as a record's header holds it ([`crate::data::write::guid_words`]):
    /// the form the write path copies.
    #[inline(always)]
    pub(crate) fn activity_words(&self) -> [u64; 2] {
        [
            self.activity[0].load(Ordering::Relaxed),
            self.activity[1].load(Ordering::Relaxed),
        ]
    }

    pub(crate) fn set_activity_id(&self, g: Guid) {
        let [a, b] = crate::data::write::guid_words(&g);
        self.activity[0].store(a, Ordering::Relaxed);
        self.activity[1].store(b, Ordering::Relaxed);
        invalidate_lanes();
    }
}

/// Bumped whenever something the single-threaded engine's lanes (`data/lane.rs`) keep may
/// have changed outside a registration's route table: a simulated thread entered or left on
/// some OS thread, moved to another CPU or given another activity ID, or a registration's
/// traits set. A lane is used only while the epoch it was filled in lasts.
static LANE_EPOCH: AtomicU64 = AtomicU64::new(1);

/// The current [`LANE_EPOCH`].
#[inline(always)]
pub(crate) fn lane_epoch() -> u64 {
    LANE_EPOCH.load(Ordering::Acquire)
}

/// Ends the current [`LANE_EPOCH`]: every lane is refilled at its next write.
pub(crate) fn invalidate_lanes() {
    LANE_EPOCH.fetch_add(1, Ordering::AcqRel);
}

/// This OS thread's number (the owner of a single-threaded kernel,
/// `KernelBuilder::single_threaded`): the buffer pool's, which checks it on every path into
/// its buffers.
pub(crate) use etwsim_buffers::os_thread;

/// A simulated thread of a simulated process. Clones share the thread.
#[derive(Clone, Debug)]
pub struct Thread {
    process: Process,
    pub(crate) state: Arc<ThreadState>,
}

/// What one OS thread keeps for the event path, in one thread-local so that a write finds
/// its route table and its simulated thread with one lookup.
pub(crate) struct WriterLocal {
    /// Simulated threads entered on this OS thread, innermost last.
    pub(crate) entered: RefCell<Vec<Arc<ThreadState>>>,
    /// Implicit simulated threads of this OS thread (threaded mode), per kernel and process.
    pub(crate) implicit: RefCell<Vec<Arc<ThreadState>>>,
    /// The route tables this thread wrote through recently (`RegEntry::with_routes_in`).
    pub(crate) routes: RefCell<crate::control::provider::RouteCache>,
    /// The system loggers' snapshot this thread's OS operations used last
    /// (`Loggers::with`).
    pub(crate) sys: RefCell<VersionCache<crate::system::emit::Snapshot, 1>>,
}

/// A value published with a version that no other value of its kind, in any kernel, shares:
/// what a [`VersionCache`] holds.
pub(crate) trait Versioned {
    /// The value's version.
    fn version(&self) -> u64;
}

/// Up to `N` published values this OS thread used recently, the newest replacing the oldest
/// (part of its [`WriterLocal`]).
///
/// The publisher stores a value (an `ArcSwap`), then its version (Release). A reader that
/// loads the version (Acquire) and finds a cached value of that version therefore holds the
/// current value, with no reference count and no `ArcSwap` debt slot taken
/// ([`with_versioned`]). A replaced value stays alive in the cache until a newer one takes its
/// slot. The route tables of provider writes (`RegEntry::with_routes_in`) and
/// the system loggers of OS operations (`Loggers::with`) are read this way.
pub(crate) struct VersionCache<T, const N: usize> {
    slots: [Option<Arc<T>>; N],
    next: usize,
}

impl<T: Versioned, const N: usize> VersionCache<T, N> {
    pub(crate) const fn new() -> Self {
        const { assert!(N > 0, "a version cache holds at least one value") };
        VersionCache {
            slots: [const { None }; N],
            next: 0,
        }
    }

    /// The cached value of version `version`, if any.
    #[inline(always)]
    pub(crate) fn get(&self, version: u64) -> Option<&T> {
        self.slots
            .iter()
            .flatten()
            .find(|t| t.version() == version)
            .map(|t| &**t)
    }

    /// Caches `value` in place of the oldest.
    fn put(&mut self, value: Arc<T>) {
        let slot = self.next;
        self.slots[slot] = Some(value);
        self.next = (slot + 1) % N;
    }
}

/// Runs `f` with the value whose version is `version`: the one in `cache` when it holds it,
/// else `load()`'s, which is then cached in place of the oldest. When `cache` is `None` (this
/// thread's locals are being destroyed), `load()` serves and nothing is cached; while an outer
/// call's `f` holds the cache (it reached the same cache again), a hit is still served and a
/// miss is not cached.
///
/// A hit keeps the cache borrowed while `f` runs; `f` has one call site, so it can be inlined
/// here.
#[inline(always)]
pub(crate) fn with_versioned<T: Versioned, const N: usize, R>(
    cache: Option<&RefCell<VersionCache<T, N>>>,
    version: u64,
    load: impl FnOnce() -> Arc<T>,
    f: impl FnOnce(&T) -> R,
) -> R {
    let hit = cache
        .and_then(|c| c.try_borrow().ok())
        .and_then(|c| std::cell::Ref::filter_map(c, |c| c.get(version)).ok());
    let loaded;
    let value: &T = match &hit {
        Some(t) => t,
        None => {
            let t = load();
            if let Some(mut c) = cache.and_then(|c| c.try_borrow_mut().ok()) {
                c.put(t.clone());
            }
            loaded = t;
            &loaded
        }
    };
    f(value)
}

thread_local! {
    pub(crate) static WRITER_LOCAL: WriterLocal = const {
        WriterLocal {
            entered: RefCell::new(Vec::new()),
            implicit: RefCell::new(Vec::new()),
            routes: RefCell::new(crate::control::provider::RouteCache::new()),
            sys: RefCell::new(VersionCache::new()),
        }
    };
}

/// Runs `f` with this OS thread's [`WriterLocal`]; `None` while the thread's locals are being
/// destroyed (a write from a thread-local destructor: nothing is cached then).
#[inline(always)]
pub(crate) fn with_writer_local<R>(f: impl FnOnce(Option<&WriterLocal>) -> R) -> R {
    let mut f = Some(f);
    match WRITER_LOCAL.try_with(|l| (f.take().expect("called once"))(Some(l))) {
        Ok(r) => r,
        Err(_) => (f.take().expect("not called yet"))(None),
    }
}

/// Keeps a simulated thread current on this OS thread until dropped ([`Thread::enter`]).
#[must_use = "the thread stays current only while the guard lives"]
#[derive(Debug)]
pub struct ThreadGuard {
    _not_send: std::marker::PhantomData<*const ()>,
}

impl Drop for ThreadGuard {
    fn drop(&mut self) {
        let _ = WRITER_LOCAL.try_with(|l| {
            l.entered.borrow_mut().pop();
        });
        invalidate_lanes();
    }
}

impl Thread {
    pub(crate) fn new(process: Process, tid: u32, cpu: u16) -> Thread {
        let state = Arc::new(ThreadState::new(
            process.kernel.id(),
            process.start_key,
            tid,
            cpu,
        ));
        Thread { process, state }
    }

    /// The thread id.
    pub fn tid(&self) -> u32 {
        self.state.tid
    }

    /// The CPU the thread runs on.
    pub fn cpu(&self) -> u16 {
        self.state.cpu.load(Ordering::Relaxed) as u16
    }

    /// The owning process.
    pub fn process(&self) -> &Process {
        &self.process
    }

    /// Moves the thread to another simulated CPU (BUF-11 experiments).
    ///
    /// # Errors
    /// `ERROR_INVALID_PARAMETER` if `cpu` does not exist.
    pub fn migrate(&mut self, cpu: u16) -> Result<()> {
        if cpu >= self.process.kernel.cpu_count() {
            return Err(Error::invalid(format!("CPU {cpu} does not exist")));
        }
        self.state.cpu.store(u32::from(cpu), Ordering::Relaxed);
        invalidate_lanes();
        Ok(())
    }

    /// Makes this the current simulated thread of the calling OS thread: writes by providers
    /// of its process run as it (TID, CPU, activity ID) until the guard drops.
    pub fn enter(&self) -> ThreadGuard {
        WRITER_LOCAL.with(|l| l.entered.borrow_mut().push(self.state.clone()));
        invalidate_lanes();
        ThreadGuard {
            _not_send: std::marker::PhantomData,
        }
    }

    /// The thread's activity ID (GUID_NULL when the thread is created, EVT-14).
    pub fn activity_id(&self) -> Guid {
        self.state.activity_id()
    }

    /// Sets the thread's activity ID.
    pub fn set_activity_id(&self, id: Guid) {
        self.state.set_activity_id(id);
    }

    /// The simulated return addresses stack-trace items carry (FLT-12), innermost first;
    /// an empty list makes the kernel synthesise a few frames.
    pub fn set_stack(&self, frames: &[u64]) {
        *self.state.stack.lock() = Arc::from(frames);
    }

    /// The thread ends: Thread End (KRN-09). Entering it afterwards still works for writes
    /// (the thread's ETW identity is kept), but it is no longer in the OS tables.
    pub fn exit(&self) {
        self.process
            .kernel
            .os_thread_exited(self.process.start_key, self.state.tid);
    }

    /// EventActivityIdControl on this thread (EVT-15).
    pub fn activity_id_control(&self, code: ActivityControl, id: &mut Guid) {
        activity_control(&self.state, &self.process.kernel, code, id);
    }
}

pub(crate) fn activity_control(
    t: &ThreadState,
    kernel: &crate::Kernel,
    code: ActivityControl,
    id: &mut Guid,
) {
    match code {
        ActivityControl::GetId => *id = t.activity_id(),
        ActivityControl::SetId => t.set_activity_id(*id),
        ActivityControl::CreateId => *id = kernel.new_local_activity_id(),
        ActivityControl::GetSetId => {
            let prev = t.activity_id();
            t.set_activity_id(*id);
            *id = prev;
        }
        ActivityControl::CreateSetId => {
            *id = t.activity_id();
            t.set_activity_id(kernel.new_local_activity_id());
        }
    }
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
    kernel: &crate::Kernel,
    process_key: u64,
    f: impl FnOnce(&ThreadState) -> R,
) -> R {
    with_writer_local(|local| current_in(local, kernel, process_key, f))
}

/// [`with_current`] with this OS thread's writer state already at hand.
#[inline(always)]
pub(crate) fn current_in<R>(
    local: Option<&WriterLocal>,
    kernel: &crate::Kernel,
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

impl Process {
    /// EventActivityIdControl as this process calls it: on the current simulated thread of
    /// this process on the calling OS thread (see the module docs) (EVT-15).
    pub fn activity_id_control(&self, code: ActivityControl, id: &mut Guid) {
        with_current(&self.kernel, self.start_key, |t| {
            activity_control(t, &self.kernel, code, id)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct V(u64);

    impl Versioned for V {
        fn version(&self) -> u64 {
            self.0
        }
    }

    /// What `with_versioned` served for `version`, and whether it had to load it.
    fn serve<const N: usize>(cache: Option<&RefCell<VersionCache<V, N>>>, version: u64) -> bool {
        let mut loaded = false;
        let seen = with_versioned(
            cache,
            version,
            || {
                loaded = true;
                Arc::new(V(version))
            },
            |v| v.0,
        );
        assert_eq!(seen, version);
        loaded
    }

    #[test]
    fn a_version_cache_serves_what_it_holds_and_replaces_the_oldest() {
        let cache = RefCell::new(VersionCache::<V, 2>::new());
        assert!(serve(Some(&cache), 1), "an empty cache loads");
        assert!(!serve(Some(&cache), 1), "then holds");
        assert!(serve(Some(&cache), 2));
        assert!(!serve(Some(&cache), 1) && !serve(Some(&cache), 2));
        assert!(
            serve(Some(&cache), 3),
            "a third version replaces the oldest…"
        );
        assert!(serve(Some(&cache), 1), "…which must be loaded again");
        assert!(!serve(Some(&cache), 3));
    }

    #[test]
    fn a_one_slot_cache_keeps_the_last_version() {
        let cache = RefCell::new(VersionCache::<V, 1>::new());
        assert!(serve(Some(&cache), 7));
        assert!(!serve(Some(&cache), 7));
        assert!(serve(Some(&cache), 8));
        assert!(serve(Some(&cache), 7));
    }

    #[test]
    fn a_cache_an_outer_call_holds_serves_hits_and_caches_nothing() {
        let cache = RefCell::new(VersionCache::<V, 2>::new());
        assert!(serve(Some(&cache), 1));
        {
            let _outer = cache.borrow(); // what an outer call's `f` holds after a hit
            assert!(!serve(Some(&cache), 1), "a hit is served");
            assert!(serve(Some(&cache), 2));
        }
        assert!(serve(Some(&cache), 2), "the miss was not cached");
        assert!(!serve(Some(&cache), 2));
    }

    #[test]
    fn a_busy_or_missing_cache_loads_every_time() {
        assert!(serve::<1>(None, 4) && serve::<1>(None, 4));
        let cache = RefCell::new(VersionCache::<V, 1>::new());
        assert!(serve(Some(&cache), 5));
        let _busy = cache.borrow_mut();
        assert!(
            serve(Some(&cache), 5),
            "a cache borrowed elsewhere is not read"
        );
    }
}
