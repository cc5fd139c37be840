//! The CPU's optimizer updates (SGD, Adam/AdamW, RMSprop, Adagrad) as one multi-tensor pass:
//! each parameter's `backend::Step` (entry name, `step_flags` bits, hyperparameters in
//! `shaders/optim.wgsl`'s order) is decoded once, every array of every parameter is locked, and
//! one parallel pass runs PyTorch's formulas in PyTorch's order of operations over all of them
//! (small parameters share a task; large ones are split into chunks). Float32 parameters
//! compute with the hyperparameters rounded to float32, as the wgpu kernel does.
//!
//! Every update is elementwise, so neither the split into tasks nor the grouping of parameters
//! can change a bit: the pass gives what one call per parameter gives.

use std::sync::Arc;

use crate::backend::{step_flags as F, Array, Step, StepJob};
use crate::cpu::parallel::{get_num_threads, run_tasks};
use crate::cpu::simd::dispatch;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};

/// Applies every job in one pass. Nothing is written unless every job's dtype, state count and
/// arrays are right. Jobs whose arrays share a storage (tied or overlapping parameters) run one
/// after the other instead, as separate steps would.
pub fn optimizer_steps(jobs: &[StepJob<'_>]) -> Result<()> {
    let updates: Vec<AnyUpdate> = jobs.iter().map(AnyUpdate::decode).collect::<Result<_>>()?;
    let mut storages: Vec<usize> = jobs.iter().flat_map(arrays).map(|a| Arc::as_ptr(a.storage()) as usize).collect();
    storages.sort_unstable();
    let disjoint = storages.windows(2).all(|w| w[0] != w[1]);
    if disjoint {
        return run_locked(jobs, &updates);
    }
    for (job, update) in jobs.iter().zip(&updates) {
        run_locked(std::slice::from_ref(job), std::slice::from_ref(update))?;
    }
    Ok(())
}

/// The parameter, the gradient, then the state arrays of a job.
fn arrays<'a>(job: &'a StepJob<'a>) -> impl Iterator<Item = &'a Array> + 'a {
    [job.param, job.grad].into_iter().chain(job.state.iter().copied())
}

/// A decoded update in the parameter's float type.
enum AnyUpdate {
    F32(Update<f32>),
    F64(Update<f64>),
}

impl AnyUpdate {
    fn decode(job: &StepJob<'_>) -> Result<AnyUpdate> {
        let update = match job.param.dtype() {
            DType::F32 => AnyUpdate::F32(Update::decode(&job.step)?),
            DType::F64 => AnyUpdate::F64(Update::decode(&job.step)?),
            d => return Err(Error::NotImplemented(format!("optimizer step for {} parameters", d.name()))),
        };
        let states = match &update {
            AnyUpdate::F32(u) => u.states(),
            AnyUpdate::F64(u) => u.states(),
        };
        if job.state.len() != states {
            return Err(Error::Runtime(format!(
                "optimizer step: `{}` with flags {:#x} takes {} state arrays, got {}",
                job.step.entry,
                job.step.flags,
                states,
                job.state.len()
            )));
        }
        Ok(update)
    }
}

/// One job ready to run: its update and the raw elements of its arrays.
enum Ready<'u> {
    F32(&'u Update<f32>, Vec<Raw<f32>>, usize),
    F64(&'u Update<f64>, Vec<Raw<f64>>, usize),
}

impl Ready<'_> {
    fn len(&self) -> usize {
        match self {
            Ready::F32(_, _, n) | Ready::F64(_, _, n) => *n,
        }
    }

    /// Runs the update over elements `start..start + len`.
    ///
    /// # Safety
    /// The range lies within the job's arrays and no other task holds an overlapping range.
    unsafe fn run(&self, start: usize, len: usize) {
        match self {
            Ready::F32(u, raw, _) => u.run(raw, start, len),
            Ready::F64(u, raw, _) => u.run(raw, start, len),
        }
    }
}

/// Checks and write-locks every array of `jobs`, runs the pass, unlocks, then bumps every
/// version counter.
fn run_locked(jobs: &[StepJob<'_>], updates: &[AnyUpdate]) -> Result<()> {
    let mut guards = Vec::new();
    let mut ready = Vec::with_capacity(jobs.len());
    for (job, update) in jobs.iter().zip(updates) {
        ready.push(match update {
            AnyUpdate::F32(u) => Ready::F32(u, lock::<f32>(job, &mut guards)?, job.param.numel()),
            AnyUpdate::F64(u) => Ready::F64(u, lock::<f64>(job, &mut guards)?, job.param.numel()),
        });
    }
    run_pass(&ready);
    drop(guards);
    for a in jobs.iter().flat_map(arrays) {
        a.storage().bump_version();
    }
    Ok(())
}

/// Write-locks the storages of one job's arrays (into `guards`) and returns their elements.
fn lock<'g, T: Element>(
    job: &StepJob<'g>,
    guards: &mut Vec<std::sync::RwLockWriteGuard<'g, crate::storage::Storage>>,
) -> Result<Vec<Raw<T>>> {
    let n = job.param.numel();
    let all: Vec<&'g Array> = [job.param, job.grad].into_iter().chain(job.state.iter().copied()).collect();
    for (i, a) in all.iter().enumerate() {
        if !a.is_contiguous() || a.dtype() != T::DTYPE || a.numel() != n {
            return Err(Error::Runtime("optimizer: parameters and their state must be contiguous and of one shape and dtype".into()));
        }
        // A second write lock on one storage would never be granted.
        if all[..i].iter().any(|o| Arc::ptr_eq(o.storage(), a.storage())) {
            return Err(Error::Runtime("optimizer: a gradient or state tensor shares memory with its parameter".into()));
        }
    }
    let mut raws = Vec::with_capacity(all.len());
    for a in all {
        let mut g = a.storage().write();
        let start = a.storage_offset();
        let elements = g
            .cpu_mut("optimizer step")?
            .as_mut_slice::<T>()
            .get_mut(start..start + n)
            .ok_or_else(|| Error::Runtime("optimizer: an array lies past the end of its storage".into()))?;
        raws.push(Raw(elements.as_mut_ptr()));
        guards.push(g);
    }
    Ok(raws)
}

/// Elements per task of the parallel pass.
const CHUNK: usize = 1 << 14;

/// Runs every job over all of its elements: in one thread when the whole list is small, else
/// as tasks of about CHUNK elements (a large parameter cut into chunks, small ones grouped).
fn run_pass(ready: &[Ready<'_>]) {
    let total: usize = ready.iter().map(Ready::len).sum();
    if total < 4 * CHUNK || get_num_threads() <= 1 {
        for r in ready {
            // SAFETY: the whole of each job's arrays, checked to hold its element count; one task.
            unsafe { r.run(0, r.len()) };
        }
        return;
    }
    // (job, start, len) pieces, and the pieces each task runs.
    let mut pieces = Vec::new();
    let mut tasks = vec![0usize];
    let mut filled = 0;
    for (j, r) in ready.iter().enumerate() {
        let mut start = 0;
        while start < r.len() {
            let len = (CHUNK - filled).min(r.len() - start);
            pieces.push((j, start, len));
            start += len;
            filled += len;
            if filled == CHUNK {
                tasks.push(pieces.len());
                filled = 0;
            }
        }
    }
    if filled > 0 {
        tasks.push(pieces.len());
    }
    run_tasks(tasks.len() - 1, |t| {
        for &(j, start, len) in &pieces[tasks[t]..tasks[t + 1]] {
            // SAFETY: the pieces cut each job's elements into disjoint ranges within its arrays.
            unsafe { ready[j].run(start, len) };
        }
    });
}

/// The float types parameters can have, with the few operations the updates need.
pub trait OptFloat:
    Element
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::AddAssign
    + std::ops::SubAssign
{
    fn sqrt(self) -> Self;
    fn max(self, o: Self) -> Self;
    fn of(v: f64) -> Self;
}

/// The updates' operations for one float type: its own sqrt, a max that propagates a NaN from
/// either side (amsgrad's running maximum, as `torch.maximum` does), and the conversion of the
/// float64 hyperparameters.
macro_rules! opt_float {
    ($t:ty) => {
        impl OptFloat for $t {
            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn max(self, o: Self) -> Self {
                if self >= o || self.is_nan() {
                    self
                } else {
                    o
                }
            }
            #[inline(always)]
            fn of(v: f64) -> Self {
                v as $t
            }
        }
    };
}

opt_float!(f32);
opt_float!(f64);

/// A raw view of a contiguous array's elements, shareable across the chunk tasks; each task
/// touches a disjoint range.
#[derive(Clone, Copy)]
struct Raw<T>(*mut T);
unsafe impl<T> Send for Raw<T> {}
unsafe impl<T> Sync for Raw<T> {}

impl<T> Raw<T> {
    /// # Safety
    /// `start + len` must be within the array and no other task may hold an overlapping range.
    unsafe fn range<'a>(self, start: usize, len: usize) -> &'a mut [T] {
        std::slice::from_raw_parts_mut(self.0.add(start), len)
    }
}

/// A decoded `Step`: which update, its options and its hyperparameters in `T`.
enum Update<T> {
    Sgd(SgdConsts<T>),
    Adam(AdamConsts<T>),
    RmsProp(RmsPropConsts<T>),
    Adagrad(AdagradConsts<T>),
}

struct SgdConsts<T> {
    lr: T,
    momentum: T,
    /// 1 - dampening.
    damp: T,
    wd: T,
    maximize: bool,
    decay: bool,
    /// The state holds a momentum buffer.
    buffered: bool,
    /// The buffer is new: it takes the direction as it is.
    fresh: bool,
    nesterov: bool,
}

struct RmsPropConsts<T> {
    alpha: T,
    /// 1 - alpha.
    aw: T,
    wd: T,
    eps: T,
    lr: T,
    momentum: T,
    maximize: bool,
    decay: bool,
    /// The state holds a momentum buffer after square_avg.
    buffered: bool,
    /// The state ends with grad_avg.
    centered: bool,
}

struct AdagradConsts<T> {
    wd: T,
    eps: T,
    /// The decayed learning rate.
    clr: T,
    maximize: bool,
    decay: bool,
}

impl<T: OptFloat> Update<T> {
    fn decode(step: &Step) -> Result<Update<T>> {
        let on = |bit: u32| step.flags & bit != 0;
        let h = |i: usize| T::of(step.h[i]);
        Ok(match step.entry {
            "sgd" => Update::Sgd(SgdConsts {
                lr: h(0),
                momentum: h(1),
                damp: h(2),
                wd: h(3),
                maximize: on(F::MAXIMIZE),
                decay: on(F::DECAY),
                buffered: on(F::STATE),
                fresh: on(F::FRESH),
                nesterov: on(F::NESTEROV),
            }),
            "adam" => Update::Adam(AdamConsts {
                b1w: h(0),
                b2: h(1),
                b2w: h(2),
                wd: h(3),
                eps: h(4),
                step_size: h(5),
                bc2s: h(6),
                shrink: h(7),
                maximize: on(F::MAXIMIZE),
                decay: match (on(F::DECAY), on(F::DECOUPLED)) {
                    (false, _) => NO_DECAY,
                    (true, false) => COUPLED_DECAY,
                    (true, true) => DECOUPLED_DECAY,
                },
                amsgrad: on(F::STATE),
            }),
            "rmsprop" => Update::RmsProp(RmsPropConsts {
                alpha: h(0),
                aw: h(1),
                wd: h(2),
                eps: h(3),
                lr: h(4),
                momentum: h(5),
                maximize: on(F::MAXIMIZE),
                decay: on(F::DECAY),
                buffered: on(F::STATE),
                centered: on(F::CENTERED),
            }),
            "adagrad" => Update::Adagrad(AdagradConsts { wd: h(0), eps: h(1), clr: h(2), maximize: on(F::MAXIMIZE), decay: on(F::DECAY) }),
            other => return Err(Error::Runtime(format!("optimizer step: no update named `{other}`"))),
        })
    }

    /// How many state arrays the update reads and writes.
    fn states(&self) -> usize {
        match self {
            Update::Sgd(c) => c.buffered as usize,
            Update::Adam(k) => 2 + k.amsgrad as usize,
            Update::RmsProp(c) => 1 + c.buffered as usize + c.centered as usize,
            Update::Adagrad(_) => 1,
        }
    }

    /// The update over elements `s..s + len` of each of `raw`: parameter, gradient, then the
    /// states.
    ///
    /// # Safety
    /// The range lies within every array of `raw` and no other task holds an overlapping range.
    unsafe fn run(&self, raw: &[Raw<T>], s: usize, len: usize) {
        match self {
            Update::Sgd(c) => sgd(c, raw, s, len),
            Update::Adam(k) => {
                let (p, g, m, v) = unsafe { (raw[0].range(s, len), raw[1].range(s, len), raw[2].range(s, len), raw[3].range(s, len)) };
                let vmax = raw.get(4).map_or(&mut [][..], |b| unsafe { b.range(s, len) });
                dispatch(AdamChunk { p, g, m, v, vmax, k: *k });
            }
            Update::RmsProp(c) => rmsprop(c, raw, s, len),
            Update::Adagrad(c) => adagrad(c, raw, s, len),
        }
    }
}

/// # Safety
/// As `Update::run`.
unsafe fn sgd<T: OptFloat>(c: &SgdConsts<T>, raw: &[Raw<T>], s: usize, len: usize) {
    let (p, g) = unsafe { (raw[0].range(s, len), raw[1].range(s, len)) };
    let mut buf = c.buffered.then(|| unsafe { raw[2].range(s, len) });
    for i in 0..len {
        let mut d = if c.maximize { T::zero() - g[i] } else { g[i] };
        if c.decay {
            d += c.wd * p[i];
        }
        if let Some(b) = buf.as_deref_mut() {
            b[i] = if c.fresh { d } else { b[i] * c.momentum + c.damp * d };
            d = if c.nesterov { d + c.momentum * b[i] } else { b[i] };
        }
        p[i] -= c.lr * d;
    }
}

/// # Safety
/// As `Update::run`.
unsafe fn rmsprop<T: OptFloat>(c: &RmsPropConsts<T>, raw: &[Raw<T>], s: usize, len: usize) {
    let (p, g, sq) = unsafe { (raw[0].range(s, len), raw[1].range(s, len), raw[2].range(s, len)) };
    let mut buf = c.buffered.then(|| unsafe { raw[3].range(s, len) });
    let mut gavg = c.centered.then(|| unsafe { raw[raw.len() - 1].range(s, len) });
    for i in 0..len {
        let mut d = if c.maximize { T::zero() - g[i] } else { g[i] };
        if c.decay {
            d += c.wd * p[i];
        }
        sq[i] = sq[i] * c.alpha + c.aw * d * d;
        let avg = match gavg.as_deref_mut() {
            Some(ga) => {
                ga[i] = ga[i] + c.aw * (d - ga[i]);
                (sq[i] - ga[i] * ga[i]).sqrt() + c.eps
            }
            None => sq[i].sqrt() + c.eps,
        };
        match buf.as_deref_mut() {
            Some(b) => {
                b[i] = b[i] * c.momentum + d / avg;
                p[i] -= c.lr * b[i];
            }
            None => p[i] -= c.lr * (d / avg),
        }
    }
}

/// # Safety
/// As `Update::run`.
unsafe fn adagrad<T: OptFloat>(c: &AdagradConsts<T>, raw: &[Raw<T>], s: usize, len: usize) {
    let (p, g, acc) = unsafe { (raw[0].range(s, len), raw[1].range(s, len), raw[2].range(s, len)) };
    for i in 0..len {
        let mut d = if c.maximize { T::zero() - g[i] } else { g[i] };
        if c.decay {
            d += c.wd * p[i];
        }
        acc[i] += d * d;
        p[i] -= c.clr * (d / (acc[i].sqrt() + c.eps));
    }
}

/// How weight decay enters an Adam update: not at all, added to the gradient (Adam), or
/// shrinking the parameter (AdamW).
const NO_DECAY: u8 = 0;
const COUPLED_DECAY: u8 = 1;
const DECOUPLED_DECAY: u8 = 2;

/// The constants of one Adam update, in the parameter's float type.
#[derive(Clone, Copy)]
struct AdamConsts<T> {
    /// 1 - beta1.
    b1w: T,
    b2: T,
    /// 1 - beta2.
    b2w: T,
    wd: T,
    eps: T,
    /// lr / bias_correction1.
    step_size: T,
    /// sqrt(bias_correction2).
    bc2s: T,
    /// 1 - lr * weight_decay (AdamW).
    shrink: T,
    maximize: bool,
    decay: u8,
    /// The state ends with max_exp_avg_sq.
    amsgrad: bool,
}

/// One chunk of an Adam update (`vmax` empty without amsgrad), run through `dispatch` so the
/// loop compiles for the widest vector instructions, with its options fixed outside the loop.
struct AdamChunk<'a, T> {
    p: &'a mut [T],
    g: &'a [T],
    m: &'a mut [T],
    v: &'a mut [T],
    vmax: &'a mut [T],
    k: AdamConsts<T>,
}

impl<T: OptFloat> pulp::WithSimd for AdamChunk<'_, T> {
    type Output = ();
    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _: S) {
        let AdamChunk { p, g, m, v, vmax, k } = self;
        macro_rules! with_decay {
            ($maximize:literal, $ams:literal) => {
                match k.decay {
                    NO_DECAY => adam_elements::<T, $maximize, NO_DECAY, $ams>(p, g, m, v, vmax, &k),
                    COUPLED_DECAY => adam_elements::<T, $maximize, COUPLED_DECAY, $ams>(p, g, m, v, vmax, &k),
                    _ => adam_elements::<T, $maximize, DECOUPLED_DECAY, $ams>(p, g, m, v, vmax, &k),
                }
            };
        }
        match (k.maximize, k.amsgrad) {
            (false, false) => with_decay!(false, false),
            (false, true) => with_decay!(false, true),
            (true, false) => with_decay!(true, false),
            (true, true) => with_decay!(true, true),
        }
    }
}

/// PyTorch's Adam formulas, in its order of operations, over one chunk.
#[inline(always)]
fn adam_elements<T: OptFloat, const MAXIMIZE: bool, const DECAY: u8, const AMSGRAD: bool>(
    p: &mut [T],
    g: &[T],
    m: &mut [T],
    v: &mut [T],
    vmax: &mut [T],
    k: &AdamConsts<T>,
) {
    let n = p.len();
    // Sliced to one length, so the loop needs no bounds checks.
    let (g, m, v) = (&g[..n], &mut m[..n], &mut v[..n]);
    let vmax = if AMSGRAD { &mut vmax[..n] } else { vmax };
    for i in 0..n {
        let mut d = if MAXIMIZE { T::zero() - g[i] } else { g[i] };
        if DECAY == DECOUPLED_DECAY {
            p[i] = p[i] * k.shrink;
        } else if DECAY == COUPLED_DECAY {
            d += k.wd * p[i];
        }
        m[i] = m[i] + k.b1w * (d - m[i]);
        v[i] = v[i] * k.b2 + k.b2w * d * d;
        let second = if AMSGRAD {
            vmax[i] = vmax[i].max(v[i]);
            vmax[i]
        } else {
            v[i]
        };
        let denom = second.sqrt() / k.bc2s + k.eps;
        p[i] -= k.step_size * (m[i] / denom);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn optimizer_step(step: Step, param: &Array, grad: &Array, state: &[&Array]) -> Result<()> {
        optimizer_steps(&[StepJob { step, param, grad, state: state.to_vec() }])
    }

    fn step(entry: &'static str, flags: u32, h: &[f64]) -> Step {
        let mut all = [0f64; 8];
        all[..h.len()].copy_from_slice(h);
        Step { entry, flags, h: all }
    }

    #[test]
    fn a_step_takes_the_state_its_flags_name() {
        let p = Array::from_vec(vec![1f32; 4], &[4]).unwrap();
        let g = Array::from_vec(vec![1f32; 4], &[4]).unwrap();
        // Adam with amsgrad reads three states: two are refused before any element is touched.
        let (m, v) = (Array::from_vec(vec![0f32; 4], &[4]).unwrap(), Array::from_vec(vec![0f32; 4], &[4]).unwrap());
        assert!(optimizer_step(step("adam", F::STATE, &[0.1, 0.999, 0.001, 0.0, 1e-8, 0.01, 1.0, 1.0]), &p, &g, &[&m, &v]).is_err());
        assert!(optimizer_step(step("lbfgs", 0, &[]), &p, &g, &[]).is_err());
        assert!(optimizer_step(step("sgd", 0, &[0.5]), &p, &p, &[]).is_err(), "a gradient sharing the parameter's storage");
        assert_eq!(p.with_slice::<f32, _>("test", |s, _| s.to_vec()).unwrap(), [1.0; 4]);
    }

    #[test]
    fn sgd_with_momentum_over_parallel_chunks_follows_the_formula() {
        let n = 5 * CHUNK + 3;
        let x: Vec<f64> = (0..n).map(|i| (i % 97) as f64 / 10.0 - 4.0).collect();
        let d: Vec<f64> = (0..n).map(|i| (i % 89) as f64 / 20.0 - 2.0).collect();
        let old: Vec<f64> = (0..n).map(|i| (i % 13) as f64 / 7.0).collect();
        let (p, g, b) = (
            Array::from_vec(x.clone(), &[n]).unwrap(),
            Array::from_vec(d.clone(), &[n]).unwrap(),
            Array::from_vec(old.clone(), &[n]).unwrap(),
        );
        let (lr, mom, damp, wd) = (0.1, 0.9, 0.75, 0.01);
        optimizer_step(step("sgd", F::DECAY | F::STATE | F::NESTEROV, &[lr, mom, damp, wd]), &p, &g, &[&b]).unwrap();
        let got = p.with_slice::<f64, _>("test", |s, _| s.to_vec()).unwrap();
        for i in 0..n {
            let dir = d[i] + wd * x[i];
            let buf = old[i] * mom + damp * dir;
            assert_eq!(got[i], x[i] - lr * (dir + mom * buf), "element {i}");
        }
    }

    #[test]
    fn one_pass_over_many_parameters_equals_one_call_per_parameter() {
        let sizes = [3, 5 * CHUNK + 7, 0, CHUNK - 1, 10, 2 * CHUNK];
        let make = |n: usize, k: usize| -> Array {
            Array::from_vec((0..n).map(|i| ((i * 7 + k) % 31) as f64 / 8.0 - 1.5).collect(), &[n]).unwrap()
        };
        let adam = step("adam", F::STATE | F::DECAY | F::DECOUPLED, &[0.1, 0.999, 0.001, 0.01, 1e-8, 0.01, 0.03, 0.9999]);
        let arrays = |offset: usize| -> Vec<[Array; 5]> { sizes.iter().map(|&n| [0, 1, 2, 3, 4].map(|k| make(n, k + offset))).collect() };
        let (together, alone) = (arrays(0), arrays(0));
        let jobs: Vec<StepJob<'_>> =
            together.iter().map(|[p, g, m, v, x]| StepJob { step: adam, param: p, grad: g, state: vec![m, v, x] }).collect();
        optimizer_steps(&jobs).unwrap();
        for [p, g, m, v, x] in &alone {
            optimizer_step(adam, p, g, &[m, v, x]).unwrap();
        }
        for (a, b) in together.iter().zip(&alone) {
            for (x, y) in a.iter().zip(b) {
                let (x, y) = (
                    x.with_slice::<f64, _>("test", |s, _| s.to_vec()).unwrap(),
                    y.with_slice::<f64, _>("test", |s, _| s.to_vec()).unwrap(),
                );
                assert!(x.iter().zip(&y).all(|(a, b)| a.to_bits() == b.to_bits()));
            }
        }
    }
}
