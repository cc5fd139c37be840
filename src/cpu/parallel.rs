//! The thread pool kernels run on, and the rule for when work is worth splitting across it.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use crate::error::{Error, Result};

/// Elements below which a kernel stays on the calling thread. Waking a sleeping worker costs
/// tens of microseconds on a virtual machine, about what a cheap op on 100K elements takes:
/// at 32K, the ops of a small convnet ran slower on two threads than on one.
pub const GRAIN: usize = 1 << 17;

/// The pool and the process it was started in: a forked child has none of its parent's
/// threads, so it starts a pool of its own instead of waiting on workers that do not exist.
static POOL: RwLock<Option<(u32, Arc<rayon::ThreadPool>)>> = RwLock::new(None);

fn build_pool(n: usize) -> Result<Arc<rayon::ThreadPool>> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(|i| format!("rstorch-{i}"))
        .build()
        .map(Arc::new)
        .map_err(|e| Error::Runtime(format!("could not start {n} kernel threads: {e}")))
}

pub fn pool() -> Arc<rayon::ThreadPool> {
    let pid = std::process::id();
    if let Some((owner, p)) = POOL.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
        if *owner == pid {
            return p.clone();
        }
    }
    let mut slot = POOL.write().unwrap_or_else(|e| e.into_inner());
    match slot.take() {
        Some((owner, p)) if owner == pid => {
            *slot = Some((owner, p.clone()));
            return p;
        }
        // The parent's pool: its threads did not survive the fork, and dropping it would wait
        // on them, so it is leaked; the child keeps the parent's thread count.
        Some((_, inherited)) => {
            let n = inherited.current_num_threads();
            std::mem::forget(inherited);
            let p = build_pool(n).or_else(|_| build_pool(1)).expect("the OS refused to start a kernel thread");
            *slot = Some((pid, p.clone()));
            p
        }
        None => {
            let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
            // A process that cannot start even one thread cannot run anything else either.
            let p = build_pool(n).or_else(|_| build_pool(1)).expect("the OS refused to start a kernel thread");
            *slot = Some((pid, p.clone()));
            p
        }
    }
}

/// `torch.set_num_threads`: later kernels run on a pool of `n` threads.
pub fn set_num_threads(n: usize) -> Result<()> {
    let pool = build_pool(n.max(1))?;
    let pid = std::process::id();
    let mut slot = POOL.write().unwrap_or_else(|e| e.into_inner());
    if let Some((owner, inherited)) = slot.replace((pid, pool)) {
        if owner != pid {
            std::mem::forget(inherited); // a parent's pool: see `pool`
        }
    }
    Ok(())
}

pub fn get_num_threads() -> usize {
    pool().current_num_threads()
}

/// Whether `work` elements of work should be split across threads.
pub fn worth_splitting(work: usize) -> bool {
    work > GRAIN && get_num_threads() > 1
}

/// Calls `f(start, chunk)` over disjoint chunks of `out` that together cover it, in parallel when
/// the work is large. `unit` groups elements that must stay in one chunk (a row).
pub fn for_each_chunk_mut<T: Send>(out: &mut [T], unit: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    for_each_chunk_weighted(out, unit, 1, f)
}

/// `for_each_chunk_mut` where each output element stands for `weight` elements of work.
pub fn for_each_chunk_weighted<T: Send>(
    out: &mut [T],
    unit: usize,
    weight: usize,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    let unit = unit.max(1);
    let weight = weight.max(1);
    if !worth_splitting(out.len().saturating_mul(weight)) || out.len() <= unit {
        f(0, out);
        return;
    }
    let threads = get_num_threads();
    let units = out.len().div_ceil(unit);
    let min_units = GRAIN.div_ceil(unit.saturating_mul(weight)).max(1);
    let per_chunk = units.div_ceil(threads * 4).max(min_units) * unit;
    for_each_exact_chunk(out, per_chunk, |i, c| f(i * per_chunk, c));
}

/// Runs `task(i)` for every `i` in `0..tasks`, on the calling thread and up to `threads - 1`
/// pool workers, each claiming the next task from a shared counter.
///
/// The caller takes part instead of handing the whole job to the pool and sleeping until it is
/// done: waking a sleeping thread costs tens of microseconds on a virtual machine, and a
/// training step runs dozens of parallel ops back to back, so the pool-only way paid three
/// wake-ups per op (a worker, a second worker, then the caller) where this pays one, overlapped
/// with the caller's own first task. Which thread runs a task never changes what it computes.
pub fn run_tasks(tasks: usize, task: impl Fn(usize) + Sync) {
    let next = AtomicUsize::new(0);
    let claim = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= tasks {
            return;
        }
        task(i);
    };
    let pool = pool();
    let helpers = pool.current_num_threads().saturating_sub(1).min(tasks.saturating_sub(1));
    if helpers == 0 {
        return claim();
    }
    pool.in_place_scope(|scope| {
        for _ in 0..helpers {
            scope.spawn(|_| claim());
        }
        claim();
    });
}

/// Calls `f(i, chunk)` for the `i`-th chunk of `chunk_len` elements of `out` (the last may be
/// shorter), in parallel.
pub fn for_each_exact_chunk<T: Send>(out: &mut [T], chunk_len: usize, f: impl Fn(usize, &mut [T]) + Sync) {
    // Each chunk is claimed by exactly one task; the locks are never contended.
    let chunks: Vec<Mutex<&mut [T]>> = out.chunks_mut(chunk_len.max(1)).map(Mutex::new).collect();
    run_tasks(chunks.len(), |i| f(i, &mut chunks[i].lock().unwrap_or_else(|e| e.into_inner())));
}

/// `for_each_exact_chunk` over two outputs cut into the same number of chunks: `f(i, a_i, b_i)`
/// with `a_i` the `i`-th chunk of `a_len` elements of `a` and `b_i` that of `b_len` elements
/// of `b`. An empty `b` gives every task an empty chunk (an output the caller does not want).
pub fn for_each_exact_chunk_pair<A: Send, B: Send>(
    a: &mut [A],
    a_len: usize,
    b: &mut [B],
    b_len: usize,
    f: impl Fn(usize, &mut [A], &mut [B]) + Sync,
) {
    debug_assert!(b.is_empty() || a.len().div_ceil(a_len.max(1)) == b.len().div_ceil(b_len.max(1)));
    let a_chunks = a.chunks_mut(a_len.max(1));
    let pairs: Vec<Mutex<(&mut [A], &mut [B])>> = if b.is_empty() {
        a_chunks.map(|c| Mutex::new((c, &mut [][..]))).collect()
    } else {
        a_chunks.zip(b.chunks_mut(b_len.max(1))).map(Mutex::new).collect()
    };
    run_tasks(pairs.len(), |i| {
        let (a, b) = &mut *pairs[i].lock().unwrap_or_else(|e| e.into_inner());
        f(i, a, b)
    });
}

/// `f(i)` for every `i` in `0..tasks`, in parallel, collected in order.
pub fn map_tasks<R: Send>(tasks: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    let results: Vec<Mutex<Option<R>>> = (0..tasks).map(|_| Mutex::new(None)).collect();
    run_tasks(tasks, |i| *results[i].lock().unwrap_or_else(|e| e.into_inner()) = Some(f(i)));
    results
        .into_iter()
        .map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner()).expect("run_tasks runs every task"))
        .collect()
}

/// `map_tasks` when the tasks together do `work` elements of work worth splitting, else the
/// same calls in order on the calling thread.
pub fn map_tasks_of_work<R: Send>(work: usize, tasks: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    if worth_splitting(work) {
        map_tasks(tasks, f)
    } else {
        (0..tasks).map(f).collect()
    }
}

/// Maps `f` over the fixed-size blocks of `0..len`, in order. The blocks do not depend on the
/// thread count, so reductions combining the results are bitwise reproducible.
pub fn map_blocks<R: Send>(len: usize, block: usize, f: impl Fn(Range<usize>) -> R + Sync) -> Vec<R> {
    let blocks = len.div_ceil(block.max(1));
    let range = |i: usize| i * block..((i + 1) * block).min(len);
    if !worth_splitting(len) {
        return (0..blocks).map(|i| f(range(i))).collect();
    }
    map_tasks(blocks, |i| f(range(i)))
}
