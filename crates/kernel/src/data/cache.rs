//! A per-thread cache of published values ([`VersionCache`]): what lets a write find its
//! registration's route table, and an OS operation its system loggers, with no reference count
//! and no lock.

use std::cell::RefCell;
use std::sync::Arc;

/// A value published with a version that no other value of its kind, in any kernel, shares:
/// what a [`VersionCache`] holds.
pub(in crate::data) trait Versioned {
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
pub(in crate::data) struct VersionCache<T, const N: usize> {
    slots: [Option<Arc<T>>; N],
    next: usize,
}

impl<T: Versioned, const N: usize> VersionCache<T, N> {
    pub(in crate::data) const fn new() -> Self {
        const { assert!(N > 0, "a version cache holds at least one value") };
        VersionCache {
            slots: [const { None }; N],
            next: 0,
        }
    }

    /// The cached value of version `version`, if any.
    #[inline(always)]
    pub(in crate::data) fn get(&self, version: u64) -> Option<&T> {
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
pub(in crate::data) fn with_versioned<T: Versioned, const N: usize, R>(
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
