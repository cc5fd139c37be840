//! The thread pool kernels run on, and the rule for when work is worth splitting across it.

use std::ops::Range;
use std::sync::{Arc, Mutex, RwLock};

use crate::cpu::workers::Workers;
use crate::error::{Error, Result};

/// Elements below which a kernel stays on the calling thread. Chosen when a parallel op paid
/// tens of microseconds for waking threads (at 32K the ops of a small convnet then ran slower
/// on two threads than on one); with the spinning workers of `workers` an op pays about a
/// microsecond, and 16K, 32K and 128K gave the same training steps within the noise.
pub const GRAIN: usize = 1 << 17;

/// The kernel threads, and the process they were started in: a forked child has none of its
/// parent's threads, so it starts its own instead of waiting on workers that do not exist.
struct Pools {
    pid: u32,
    /// gemm's threads (gemm runs on a rayon pool and no other).
    rayon: Arc<rayon::ThreadPool>,
    /// Every other kernel's: see `workers`.
    workers: Arc<Workers>,
}

static POOLS: RwLock<Option<Pools>> = RwLock::new(None);

fn start_pools(n: usize) -> Result<Pools> {
    let refused = |e: &dyn std::fmt::Display| Error::Runtime(format!("could not start {n} kernel threads: {e}"));
    let rayon = rayon::ThreadPoolBuilder::new().num_threads(n).thread_name(|i| format!("rstorch-{i}")).build().map_err(|e| refused(&e))?;
    // The caller is the n-th thread of every job.
    let workers = Workers::start(n - 1).map_err(|e| refused(&e))?;
    Ok(Pools { pid: std::process::id(), rayon: Arc::new(rayon), workers: Arc::new(workers) })
}

/// The parent's pools in a forked child: their threads did not survive the fork, and dropping
/// them would wait on or signal those threads, so they are leaked.
fn forget_inherited(pools: Pools) {
    std::mem::forget(pools);
}

fn with_pools<R>(f: impl FnOnce(&Pools) -> R) -> R {
    let pid = std::process::id();
    {
        let slot = POOLS.read().unwrap_or_else(|e| e.into_inner());
        if let Some(p) = slot.as_ref().filter(|p| p.pid == pid) {
            return f(p);
        }
    }
    let mut slot = POOLS.write().unwrap_or_else(|e| e.into_inner());
    let n = match slot.take() {
        Some(p) if p.pid == pid => {
            *slot = Some(p);
            return f(slot.as_ref().expect("just put back"));
        }
        // A child keeps its parent's thread count.
        Some(inherited) => {
            let n = inherited.rayon.current_num_threads();
            forget_inherited(inherited);
            n
        }
        None => std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
    };
    // A process that cannot start even one thread cannot run anything else either.
    let pools = start_pools(n).or_else(|_| start_pools(1)).expect("the OS refused to start a kernel thread");
    f(slot.insert(pools))
}

/// gemm's rayon pool. The workers are sent to rest first: the caller is about to run a
/// product on it.
pub fn pool() -> Arc<rayon::ThreadPool> {
    with_pools(|p| {
        p.workers.rest();
        p.rayon.clone()
    })
}

fn workers() -> Arc<Workers> {
    with_pools(|p| p.workers.clone())
}

/// `torch.set_num_threads`: later kernels run on `n` threads.
pub fn set_num_threads(n: usize) -> Result<()> {
    let pools = start_pools(n.max(1))?;
    let mut slot = POOLS.write().unwrap_or_else(|e| e.into_inner());
    if let Some(old) = slot.replace(pools) {
        if old.pid != std::process::id() {
            forget_inherited(old);
        }
    }
    Ok(())
}

pub fn get_num_threads() -> usize {
    with_pools(|p| p.rayon.current_num_threads())
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
pub fn for_each_chunk_weighted<T: Send>(out: &mut [T], unit: usize, weight: usize, f: impl Fn(usize, &mut [T]) + Sync) {
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

/// Runs `task(i)` for every `i` in `0..tasks`, on the calling thread and the other kernel
/// threads (see `workers`), each claiming the next task as it becomes free. Which thread runs a
/// task never changes what it computes.
pub fn run_tasks(tasks: usize, task: impl Fn(usize) + Sync) {
    workers().run(tasks, &task)
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
    results.into_iter().map(|r| r.into_inner().unwrap_or_else(|e| e.into_inner()).expect("run_tasks runs every task")).collect()
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
///
/// Each task takes a run of neighbouring blocks (a few tasks per thread, enough to even out a
/// thread that starts late): one task per block cost a contended counter and a lock for every
/// 64 KiB of a long sum, and split each thread's stream of reads into scattered pieces.
pub fn map_blocks<R: Send>(len: usize, block: usize, f: impl Fn(Range<usize>) -> R + Sync) -> Vec<R> {
    let blocks = len.div_ceil(block.max(1));
    let range = |i: usize| i * block..((i + 1) * block).min(len);
    if !worth_splitting(len) {
        return (0..blocks).map(|i| f(range(i))).collect();
    }
    let per_task = blocks.div_ceil(get_num_threads() * TASKS_PER_THREAD).max(1);
    let mut results: Vec<Option<R>> = (0..blocks).map(|_| None).collect();
    for_each_exact_chunk(&mut results, per_task, |t, slots| {
        for (k, slot) in slots.iter_mut().enumerate() {
            *slot = Some(f(range(t * per_task + k)));
        }
    });
    results.into_iter().map(|r| r.expect("every block is mapped")).collect()
}

/// Tasks per thread when a long run of equal blocks is split: more than one, so a thread that
/// is descheduled for a while leaves its later tasks to the others.
const TASKS_PER_THREAD: usize = 2;
