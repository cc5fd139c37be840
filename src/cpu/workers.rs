//! The threads that run a kernel's tasks beside its caller: they keep watching for the next job
//! for a moment after each one before they sleep, so back-to-back ops do not each pay a wake-up.
//!
//! Why not rayon's pool for this: a rayon job started from a thread outside the pool (Python's)
//! ends with the caller asleep on a condition variable until the last worker finishes, and the
//! workers themselves fall asleep within microseconds of going idle. On a virtual machine each
//! of those wake-ups costs 10-20 us: two tasks of 4.7 us each took 20 us through rayon against
//! 9.3 us on one thread. Here the caller never sleeps (it claims tasks itself and waits only
//! for tasks already started), and a worker spins for `SPIN` before it sleeps: the same pair of
//! tasks takes 5.1 us. gemm keeps rayon's pool (it can use no other); `rest` sends these
//! workers to sleep before a product, so their spinning does not take its cores.

use std::any::Any;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// How long an idle worker watches for the next job before it sleeps. Ops of a training step
/// follow each other within tens of microseconds; a worker that has gone to sleep costs the
/// next job's caller a notify (a system call) and joins that job 10-20 us late.
const SPIN: Duration = Duration::from_micros(200);

/// The high bit of `Shared::entered`: set once the job's caller has stopped admitting workers.
const CLOSED: usize = 1 << (usize::BITS - 1);

/// One parallel call: `tasks` calls of `task`, each index claimed once by whichever thread
/// takes it first.
struct Job<'a> {
    task: &'a (dyn Fn(usize) + Sync),
    tasks: usize,
    next: AtomicUsize,
    /// A worker's task that panicked, re-raised on the caller.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl Job<'_> {
    fn claim_all(&self) {
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.tasks {
                return;
            }
            (self.task)(i);
        }
    }
}

struct Shared {
    /// Held by the caller whose job the workers serve; any other caller (another Python
    /// thread, or a task that itself splits work) runs its tasks alone meanwhile.
    busy: AtomicBool,
    /// The current job: valid while `entered` is not `CLOSED` or counts a worker inside.
    job: AtomicPtr<Job<'static>>,
    /// Workers inside the current job, plus `CLOSED` once no more may enter.
    entered: AtomicUsize,
    /// Bumped once per job, and to stop the workers.
    epoch: AtomicU64,
    /// Bumped to send spinning workers to sleep at once.
    nap: AtomicU64,
    stop: AtomicBool,
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
}

/// `count` worker threads and the job they share.
pub struct Workers {
    shared: Arc<Shared>,
    count: usize,
}

impl Workers {
    /// Starts `count` workers (none: every job runs on its caller alone).
    pub fn start(count: usize) -> std::io::Result<Workers> {
        let shared = Arc::new(Shared {
            busy: AtomicBool::new(false),
            job: AtomicPtr::new(std::ptr::null_mut()),
            entered: AtomicUsize::new(CLOSED),
            epoch: AtomicU64::new(0),
            nap: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        });
        let mut workers = Workers { shared, count: 0 };
        for i in 0..count {
            let shared = workers.shared.clone();
            std::thread::Builder::new().name(format!("rstorch-worker-{i}")).spawn(move || work(&shared))?;
            workers.count += 1;
        }
        Ok(workers)
    }

    /// Runs `task(i)` for every `i` in `0..tasks` on the calling thread and the workers, and
    /// returns once all have run. Which thread runs a task never changes what it computes.
    pub fn run(&self, tasks: usize, task: &(dyn Fn(usize) + Sync)) {
        let shared = &*self.shared;
        if self.count == 0 || tasks < 2 || shared.busy.swap(true, Ordering::Acquire) {
            return (0..tasks).for_each(task);
        }
        let job = Job { task, tasks, next: AtomicUsize::new(0), panic: Mutex::new(None) };
        // SAFETY (of the lifetime erased here): `Admission::drop` below waits until no worker
        // is inside the job before `job` goes out of scope, also when a task panics.
        shared.job.store(&job as *const Job as *mut Job<'static>, Ordering::Relaxed);
        // Open the job. A worker still leaving the previous job may be counted in `entered`:
        // clearing only the flag keeps its count, which it takes back itself.
        shared.entered.fetch_and(!CLOSED, Ordering::Release);
        let admission = Admission(shared);
        shared.epoch.fetch_add(1, Ordering::SeqCst);
        if shared.sleepers.load(Ordering::SeqCst) > 0 {
            let _guard = shared.lock.lock().unwrap_or_else(|e| e.into_inner());
            shared.wake.notify_all();
        }
        job.claim_all();
        drop(admission);
        let panicked = job.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(p) = panicked {
            resume_unwind(p);
        }
    }

    /// Sends spinning workers to sleep now: before work on another pool (gemm's), whose
    /// threads they would otherwise compete with for the cores while they spin.
    pub fn rest(&self) {
        self.shared.nap.fetch_add(1, Ordering::Relaxed);
    }
}

/// Closes the current job when dropped: no worker enters after that, and the drop returns
/// once the workers inside have left it.
struct Admission<'a>(&'a Shared);

impl Drop for Admission<'_> {
    fn drop(&mut self) {
        let shared = self.0;
        let mut entered = shared.entered.fetch_or(CLOSED, Ordering::AcqRel);
        let mut spins = 0u32;
        // Only tasks already started remain: wait for them without sleeping.
        while entered & !CLOSED != 0 {
            if spins < 1 << 12 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
            entered = shared.entered.load(Ordering::Acquire);
        }
        shared.job.store(std::ptr::null_mut(), Ordering::Relaxed);
        shared.busy.store(false, Ordering::Release);
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        let shared = &*self.shared;
        shared.stop.store(true, Ordering::SeqCst);
        shared.epoch.fetch_add(1, Ordering::SeqCst);
        let _guard = shared.lock.lock().unwrap_or_else(|e| e.into_inner());
        shared.wake.notify_all();
    }
}

/// A worker's life: wait for a job, help with it, repeat until stopped.
fn work(shared: &Shared) {
    let mut seen = shared.epoch.load(Ordering::Acquire);
    loop {
        seen = next_epoch(shared, seen);
        if shared.stop.load(Ordering::Acquire) {
            return;
        }
        if shared.entered.fetch_add(1, Ordering::Acquire) & CLOSED == 0 {
            // SAFETY: the job is open and counts this worker, so its caller is still in `run`
            // and keeps the job alive until this worker leaves (the decrement below).
            let job = unsafe { &*shared.job.load(Ordering::Relaxed) };
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| job.claim_all())) {
                *job.panic.lock().unwrap_or_else(|e| e.into_inner()) = Some(p);
            }
        }
        shared.entered.fetch_sub(1, Ordering::Release);
    }
}

/// Waits for `epoch` to move past `seen`, spinning for up to `SPIN` (less when told to rest),
/// then asleep; returns the new epoch.
fn next_epoch(shared: &Shared, seen: u64) -> u64 {
    let start = Instant::now();
    let nap = shared.nap.load(Ordering::Relaxed);
    let mut spins = 0u32;
    loop {
        let epoch = shared.epoch.load(Ordering::Acquire);
        if epoch != seen {
            return epoch;
        }
        spins = spins.wrapping_add(1);
        if spins.is_multiple_of(64) && (shared.nap.load(Ordering::Relaxed) != nap || start.elapsed() > SPIN) {
            break;
        }
        std::hint::spin_loop();
    }
    let mut guard = shared.lock.lock().unwrap_or_else(|e| e.into_inner());
    // Counted before the epoch is read again (both sequentially consistent, as in `run`):
    // either this read sees the new job, or its caller sees a sleeper and notifies.
    shared.sleepers.fetch_add(1, Ordering::SeqCst);
    let epoch = loop {
        let epoch = shared.epoch.load(Ordering::SeqCst);
        if epoch != seen {
            break epoch;
        }
        guard = shared.wake.wait(guard).unwrap_or_else(|e| e.into_inner());
    };
    shared.sleepers.fetch_sub(1, Ordering::SeqCst);
    epoch
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_task_runs_once_across_many_jobs() {
        let workers = Workers::start(3).unwrap();
        for tasks in [0, 1, 2, 7, 64] {
            for round in 0..200 {
                let hits: Vec<AtomicUsize> = (0..tasks).map(|_| AtomicUsize::new(0)).collect();
                workers.run(tasks, &|i| {
                    hits[i].fetch_add(1, Ordering::Relaxed);
                });
                assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1), "tasks {tasks}, round {round}");
                if round % 50 == 0 {
                    // Let the workers fall asleep, then wake them with the next job.
                    std::thread::sleep(SPIN * 3);
                }
            }
        }
    }

    #[test]
    fn a_nested_or_concurrent_job_runs_on_its_caller() {
        let workers = Arc::new(Workers::start(1).unwrap());
        let total = AtomicUsize::new(0);
        workers.run(4, &|_| {
            workers.run(3, &|_| {
                total.fetch_add(1, Ordering::Relaxed);
            });
        });
        assert_eq!(total.load(Ordering::Relaxed), 12);
        let threads: Vec<_> = (0..3)
            .map(|_| {
                let w = workers.clone();
                std::thread::spawn(move || {
                    let n = AtomicUsize::new(0);
                    for _ in 0..100 {
                        w.run(5, &|_| {
                            n.fetch_add(1, Ordering::Relaxed);
                        });
                    }
                    n.load(Ordering::Relaxed)
                })
            })
            .collect();
        assert!(threads.into_iter().all(|t| t.join().unwrap() == 500));
    }

    #[test]
    fn a_panicking_task_reaches_the_caller_and_the_pool_still_works() {
        let workers = Workers::start(1).unwrap();
        let result = catch_unwind(AssertUnwindSafe(|| {
            workers.run(16, &|i| {
                if i == 9 {
                    panic!("task 9");
                }
            })
        }));
        assert!(result.is_err());
        let n = AtomicUsize::new(0);
        workers.run(16, &|_| {
            n.fetch_add(1, Ordering::Relaxed);
        });
        assert_eq!(n.load(Ordering::Relaxed), 16);
    }
}
