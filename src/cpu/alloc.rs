//! rstorch's global allocator: the system's, plus a shelf of a few large freed blocks for reuse.
//!
//! A large block fresh from the OS costs a page fault and a page clear per 4 KiB on first write,
//! more than a cheap kernel spends on the data itself: `a.exp()` over 64 MiB spent over half its
//! time faulting in its output. Loops (training steps, benchmarks) free and allocate blocks of the
//! same sizes over and over, so keeping the last few freed large blocks turns those faults into
//! reuse of pages already mapped. The shelf is bounded in bytes and forgets blocks idle for a
//! second, so memory a program no longer needs goes back to the system.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Blocks smaller than this go straight to the system allocator, whose free lists serve them.
/// It is below glibc's initial mmap threshold (128 KiB): blocks above that are mapped and
/// unmapped per allocation, or carved from a heap top that glibc trims back, faulting either way.
const MIN_SHELVED: usize = 64 << 10;
/// One MNIST training step (batch 64) frees a few dozen blocks of distinct sizes above 64 KiB; an
/// LSTM language-model step (35 time steps, a 10000-word decoder) frees more, 28 MB ones among
/// them. With 64 slots and 256 MiB those were evicted before the next step asked for them
/// again: two fresh 28 MB mappings per step, and 5% of the step clearing pages in the kernel.
const SLOTS: usize = 256;
/// At most this many bytes sit on the shelf; a larger block is never shelved. Idle blocks still
/// go back to the system after `MAX_IDLE`, so the budget bounds a burst, not a steady cost.
const MAX_SHELVED_BYTES: usize = 1 << 30;
/// A shelved block not reused within this long goes back to the system at the next large
/// allocation or free.
const MAX_IDLE: Duration = Duration::from_secs(1);

pub struct RecyclingAllocator;

#[derive(Clone, Copy)]
struct Shelved {
    ptr: *mut u8,
    layout: Layout,
    since: Instant,
}

struct Shelf {
    slots: [Option<Shelved>; SLOTS],
    bytes: usize,
}

// SAFETY: the pointers are unaliased blocks owned by the shelf alone; the Mutex serialises access.
unsafe impl Send for Shelf {}

static SHELF: Mutex<Shelf> = Mutex::new(Shelf { slots: [None; SLOTS], bytes: 0 });

/// Blocks taken off the shelf, to hand back to the system after the lock is released.
type Evicted = [Option<Shelved>; SLOTS];

fn shelf() -> MutexGuard<'static, Shelf> {
    // Nothing panics while the lock is held, and a poisoned shelf is still consistent.
    SHELF.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shelf {
    fn remove(&mut self, i: usize) -> Option<Shelved> {
        let block = self.slots[i].take()?;
        self.bytes -= block.layout.size();
        Some(block)
    }

    /// Moves blocks idle for longer than `MAX_IDLE` into `evicted`.
    fn evict_idle(&mut self, now: Instant, evicted: &mut Evicted) {
        for (i, out) in evicted.iter_mut().enumerate() {
            if self.slots[i].is_some_and(|b| now.duration_since(b.since) > MAX_IDLE) {
                *out = self.remove(i);
            }
        }
    }

    fn take(&mut self, layout: Layout) -> Option<*mut u8> {
        let i = self.slots.iter().position(|s| s.is_some_and(|b| b.layout == layout))?;
        self.remove(i).map(|b| b.ptr)
    }

    /// Shelves `block`, evicting the oldest blocks while there is no room.
    fn put(&mut self, block: Shelved, evicted: &mut Evicted) {
        loop {
            let free = self.slots.iter().position(Option::is_none);
            if let Some(i) = free.filter(|_| self.bytes + block.layout.size() <= MAX_SHELVED_BYTES) {
                self.bytes += block.layout.size();
                self.slots[i] = Some(block);
                return;
            }
            let oldest = (0..SLOTS)
                .filter_map(|i| self.slots[i].map(|b| (b.since, i)))
                .min()
                .map(|(_, i)| i)
                .expect("a full or over-budget shelf holds a block");
            // Each block leaves the shelf at most once, so `evicted` (one entry per slot) has room.
            let j = evicted.iter().position(Option::is_none).expect("an entry per shelved block");
            evicted[j] = self.remove(oldest);
        }
    }
}

fn release(evicted: Evicted) {
    for b in evicted.into_iter().flatten() {
        // SAFETY: every shelved block came from `System` with its recorded layout.
        unsafe { System.dealloc(b.ptr, b.layout) };
    }
}

/// Takes a shelved block of exactly `layout` (evicting idle ones on the way), if there is one.
fn take_shelved(layout: Layout) -> Option<*mut u8> {
    let mut evicted: Evicted = [None; SLOTS];
    let block = {
        let mut shelf = shelf();
        shelf.evict_idle(Instant::now(), &mut evicted);
        shelf.take(layout)
    };
    release(evicted);
    block
}

fn is_shelvable(layout: Layout) -> bool {
    (MIN_SHELVED..=MAX_SHELVED_BYTES).contains(&layout.size())
}

/// Large blocks start on a cache line: a tensor's 64-byte vector loads then never straddle two
/// lines (glibc's large blocks start 16 bytes into a page, so every AVX-512 load did).
const LARGE_ALIGN: usize = 64;

/// Blocks of a huge page or more start on one and ask the kernel for huge pages (Linux's
/// transparent huge pages, which it applies by default only where asked). First writes then
/// fault once per 2 MiB instead of once per 4 KiB (a fresh 64 MiB block was written in 3 ms
/// instead of 26), and a stream over the block misses the TLB 512 times less often.
const HUGE_PAGE: usize = 2 << 20;

/// The layout a block of `layout` is asked of the system with. A size so close to `isize::MAX`
/// that it cannot be rounded up to the raised alignment keeps its own: the system refuses it
/// anyway, and the caller (a `try_reserve`) gets the allocator's error.
fn system_layout(layout: Layout) -> Layout {
    let align = match layout.size() {
        s if s >= HUGE_PAGE => HUGE_PAGE,
        s if s >= MIN_SHELVED => LARGE_ALIGN,
        _ => return layout,
    };
    if layout.align() >= align {
        return layout;
    }
    Layout::from_size_align(layout.size(), align).unwrap_or(layout)
}

/// A block fresh from the system, with huge pages asked for where it spans one.
unsafe fn from_system(layout: Layout, zeroed: bool) -> *mut u8 {
    if layout.size() < HUGE_PAGE {
        return if zeroed { System.alloc_zeroed(layout) } else { System.alloc(layout) };
    }
    // The advice must come before the first write, so the block is zeroed here, not by the system.
    let ptr = System.alloc(layout);
    if ptr.is_null() {
        return ptr;
    }
    #[cfg(target_os = "linux")]
    // Advice only: a kernel without transparent huge pages refuses it, and 4 KiB pages serve.
    libc::madvise(ptr.cast(), layout.size(), libc::MADV_HUGEPAGE);
    if zeroed {
        ptr.write_bytes(0, layout.size());
    }
    ptr
}

// SAFETY: every block handed out comes from `System` with the requested layout's
// `system_layout` (a shelved block is reused only for an identical layout), and a block is on the
// shelf or with its user, never both.
unsafe impl GlobalAlloc for RecyclingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let layout = system_layout(layout);
        if is_shelvable(layout) {
            if let Some(ptr) = take_shelved(layout) {
                return ptr;
            }
        }
        from_system(layout, false)
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let layout = system_layout(layout);
        if is_shelvable(layout) {
            if let Some(ptr) = take_shelved(layout) {
                // Clearing mapped pages is several times cheaper than faulting in zero pages.
                ptr.write_bytes(0, layout.size());
                return ptr;
            }
        }
        from_system(layout, true)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let layout = system_layout(layout);
        if !is_shelvable(layout) {
            return System.dealloc(ptr, layout);
        }
        let mut evicted: Evicted = [None; SLOTS];
        {
            let now = Instant::now();
            let mut shelf = shelf();
            shelf.evict_idle(now, &mut evicted);
            shelf.put(Shelved { ptr, layout, since: now }, &mut evicted);
        }
        release(evicted);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new_layout = Layout::from_size_align_unchecked(new_size, layout.align());
        let (old_system, new_system) = (system_layout(layout), system_layout(new_layout));
        if old_system == layout && new_system == new_layout {
            // Both small-aligned: the system can grow the block in place.
            return System.realloc(ptr, layout, new_size);
        }
        // The block's alignment class changes (or stays raised): move it.
        let new = self.alloc(new_layout);
        if !new.is_null() {
            std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
            self.dealloc(ptr, layout);
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_blocks_start_on_a_cache_line_and_keep_their_bytes_when_grown() {
        let a = RecyclingAllocator;
        unsafe {
            let small = Layout::from_size_align(1000, 4).unwrap();
            let p = a.alloc(small);
            for i in 0..1000 {
                *p.add(i) = i as u8;
            }
            let grown = a.realloc(p, small, MIN_SHELVED * 3 + 4);
            assert_eq!(grown as usize % LARGE_ALIGN, 0);
            assert!((0..1000).all(|i| *grown.add(i) == i as u8));
            let big = Layout::from_size_align(MIN_SHELVED * 3 + 4, 4).unwrap();
            let shrunk = a.realloc(grown, big, 500);
            assert!((0..500).all(|i| *shrunk.add(i) == i as u8));
            a.dealloc(shrunk, Layout::from_size_align(500, 4).unwrap());
            let fresh = a.alloc(big);
            assert_eq!(fresh as usize % LARGE_ALIGN, 0);
            a.dealloc(fresh, big);
        }
    }

    #[test]
    fn a_freed_large_block_is_reused_for_the_same_layout() {
        let layout = Layout::from_size_align(3 << 20, 64).unwrap();
        let a = RecyclingAllocator;
        unsafe {
            let p = a.alloc(layout);
            p.write_bytes(7, layout.size());
            a.dealloc(p, layout);
            let q = a.alloc_zeroed(layout);
            // Another test thread may have taken it first; either way the block must be zeroed.
            assert!(std::slice::from_raw_parts(q, layout.size()).iter().all(|&b| b == 0));
            a.dealloc(q, layout);
        }
    }

    #[test]
    fn a_block_too_large_for_any_system_is_refused_not_aborted() {
        // Rounding this size up to the huge-page alignment would pass isize::MAX.
        let near_max = Layout::from_size_align(isize::MAX as usize - 7, 8).unwrap();
        assert_eq!(system_layout(near_max), near_max);
        let mut v: Vec<u64> = Vec::new();
        assert!(v.try_reserve_exact((isize::MAX as usize - 7) / 8).is_err());
        assert!(v.try_reserve_exact(1 << 50).is_err());
    }

    #[test]
    fn the_shelf_stays_within_its_budget() {
        let layout = Layout::from_size_align(MAX_SHELVED_BYTES / 3, 64).unwrap();
        let a = RecyclingAllocator;
        unsafe {
            let blocks: Vec<_> = (0..5).map(|_| a.alloc(layout)).collect();
            for p in blocks {
                a.dealloc(p, layout);
            }
        }
        let shelf = shelf();
        assert!(shelf.bytes <= MAX_SHELVED_BYTES);
        let counted: usize = shelf.slots.iter().flatten().map(|b| b.layout.size()).sum();
        assert_eq!(counted, shelf.bytes);
    }

    #[test]
    fn blocks_idle_past_the_limit_go_back_to_the_system() {
        let layout = Layout::from_size_align(MIN_SHELVED, 64).unwrap();
        let a = RecyclingAllocator;
        unsafe { a.dealloc(a.alloc(layout), layout) };
        std::thread::sleep(MAX_IDLE + Duration::from_millis(50));
        let other = Layout::from_size_align(MIN_SHELVED + 64, 64).unwrap();
        let before = Instant::now();
        unsafe { a.dealloc(a.alloc(other), other) };
        // The free evicted everything idle past the limit at a moment after `before`; blocks
        // shelved since (by any test) are younger still.
        let shelf = shelf();
        assert!(shelf.slots.iter().flatten().all(|b| before.duration_since(b.since) <= MAX_IDLE));
    }
}
