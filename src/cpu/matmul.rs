//! Matrix products through the `gemm` crate (runtime-dispatched AVX-512/AVX2 kernels, rayon
//! parallel), on strided operands, copied only where gemm packs a layout slowly.

use crate::backend::{Array, Operand};
use crate::cpu::buffer::{filled, written_output};
use crate::cpu::cast::copy_as;
use crate::cpu::parallel::{for_each_exact_chunk, get_num_threads, pool};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::layout::Layout;
use crate::ops::binary::BinaryOp;
use crate::scalar::Scalar;
use gemm::Parallelism;
use std::mem::MaybeUninit;

/// A strided matrix: element `(i, j)` is at `offset + i * rs + j * cs`.
#[derive(Clone, Copy, Debug)]
pub struct MatRef {
    pub offset: usize,
    pub rs: usize,
    pub cs: usize,
}

/// A contiguous-row destination matrix: element `(i, j)` is `data[i * rs + j]`. Its elements
/// may be unwritten (`uninit`) where the product overwrites them: no zero fill first.
pub struct MatMut<'a, T> {
    data: &'a mut [MaybeUninit<T>],
    rs: usize,
}

impl<'a, T> MatMut<'a, T> {
    /// A destination of written elements.
    pub fn new(data: &'a mut [T], rs: usize) -> Self {
        // SAFETY: MaybeUninit<T> has T's layout; the products only ever store written values
        // through this view, so `data` stays initialised.
        let data = unsafe { &mut *(data as *mut [T] as *mut [MaybeUninit<T>]) };
        MatMut { data, rs }
    }

    /// A destination whose elements may be unwritten: only for a product that does not
    /// accumulate into it (see `gemm_into_scaled`).
    pub fn uninit(data: &'a mut [MaybeUninit<T>], rs: usize) -> Self {
        MatMut { data, rs }
    }
}

/// `dst (= or +=) a @ b` for one `m x k` by `k x n` product.
///
/// # Safety
/// As `gemm_into_scaled`.
#[allow(clippy::too_many_arguments)]
pub unsafe fn gemm_into<T: Element>(
    dst: MatMut<'_, T>,
    m: usize,
    n: usize,
    k: usize,
    a: &[T],
    am: MatRef,
    b: &[T],
    bm: MatRef,
    accumulate: bool,
    par: Parallelism,
) {
    gemm_into_scaled(dst, m, n, k, a, am, b, bm, accumulate, T::one(), par)
}

/// `dst (= or +=) scale * (a @ b)` for one `m x k` by `k x n` product; the single place that
/// calls `gemm`.
///
/// # Safety
/// Every element `(i, p)` of `am` (`i < m`, `p < k`) must lie inside `a`, every `(p, j)` of `bm`
/// inside `b`; `dst.data` must hold `(m - 1) * dst.rs + n` elements. When `accumulate`, the
/// destination's elements must be written (`MatMut::new`); otherwise every one of the `m x n`
/// elements is written, never read.
#[allow(clippy::too_many_arguments)]
pub unsafe fn gemm_into_scaled<T: Element>(
    dst: MatMut<'_, T>,
    m: usize,
    n: usize,
    k: usize,
    a: &[T],
    am: MatRef,
    b: &[T],
    bm: MatRef,
    accumulate: bool,
    scale: T,
    par: Parallelism,
) {
    if m == 0 || n == 0 {
        return;
    }
    assert!(dst.data.len() >= (m - 1) * dst.rs + n, "gemm destination too small");
    if k == 0 {
        if !accumulate {
            for i in 0..m {
                dst.data[i * dst.rs..i * dst.rs + n].fill(MaybeUninit::new(T::zero()));
            }
        }
        return;
    }
    // Two layouts gemm runs slowly as given, both computed as `c^T = b^T a^T` into a row-major
    // scratch matrix (gemm's own transposition of that problem is then `c = a b` again, packed
    // from contiguous rows) and `c^T` stored back in place:
    // - A row-major `a` with few rows by a column-major `b` (`x @ w.t()`, as `linear` runs it):
    //   gemm, computing into a row-major destination as `c^T = b^T a^T`, would pack `b^T`'s
    //   n x k elements by a transposing gather that costs about as much as the product here.
    //   64x512 by a transposed 512x512: 555 -> 235 us.
    // - A column-major `a` of many rows by a row-major `b` of few columns (the weight gradient
    //   `g.t() @ x` of a wide layer, as a language model's decoder has): gemm would pack `a^T`,
    //   the large operand, from rows `m` elements apart. 700x10000 (transposed) by 700x200, one
    //   thread: 26.1 -> 22.3 ms (PyTorch 20.7).
    let few_rows_by_column_major = bm.rs == 1 && bm.cs != 1 && am.cs == 1 && am.rs != 1 && transposed_product_pays(m, n, k);
    let tall_column_major_by_row_major = am.rs == 1 && am.cs != 1 && bm.cs == 1 && bm.rs != 1 && tall_left_product_pays(m, n, k);
    if few_rows_by_column_major || tall_column_major_by_row_major {
        let bt = MatRef { offset: bm.offset, rs: bm.cs, cs: bm.rs };
        let at = MatRef { offset: am.offset, rs: am.cs, cs: am.rs };
        // The scratch is overwritten whole (no accumulation): no zero fill. If it cannot be
        // allocated, the product runs as given below.
        if let Ok(ct) = written_output(n * m, |ct| gemm_into_scaled(MatMut::uninit(ct, m), n, m, k, b, bt, a, at, false, scale, par)) {
            store_transposed(&ct, n, m, dst, accumulate);
            return;
        }
    }
    let aliasing_stride = (bm.cs * std::mem::size_of::<T>()).is_multiple_of(ALIASING_STRIDE_BYTES);
    if bm.rs == 1 && bm.cs != 1 && aliasing_stride && m.min(n).min(k) >= REPACK_MIN_SIDE {
        // A column-major right operand (a weight used as `w.t()`, as `linear` does) whose
        // columns lie a multiple of 2 KiB apart packs slowly in gemm (the columns it reads
        // together fall into the same cache sets): 256x512 by a transposed 512x512 took 1.2 ms
        // against 0.68 ms row-major on two threads. Copied row-major first (0.14 ms), it took
        // 0.84-0.94 ms. At other strides the copy cost more than it saved (784: 1.07 -> 1.35 ms).
        let layout = Layout { shape: vec![k, n], strides: vec![bm.rs, bm.cs], offset: bm.offset };
        // Without room for the copy, the product reads the operand where it lies.
        if let Ok(rows) = crate::cpu::elementwise::dense_copy(b, &layout) {
            let bm = MatRef { offset: 0, rs: n, cs: 1 };
            return gemm_into_scaled(dst, m, n, k, a, am, &rows, bm, accumulate, scale, par);
        }
    }
    if let Parallelism::Rayon(threads) = par {
        let band = m.div_ceil(threads).next_multiple_of(ROW_BLOCK_ALIGN);
        if threads > 1 && m >= 2 * ROW_BLOCK_ALIGN && m * n * k < SPLIT_ROWS_BELOW && same_k_blocking(m, band, n, k) {
            // Bands of rows, one product each on one thread: with the same k-blocking as the
            // whole product, every element comes out bit for bit as from one call.
            let rs = dst.rs;
            for_each_exact_chunk(&mut dst.data[..(m - 1) * rs + n], band * rs, |i, rows| {
                let r0 = i * band;
                let am = MatRef { offset: am.offset + r0 * am.rs, ..am };
                let rows_here = band.min(m - r0);
                gemm_into_scaled(MatMut { data: rows, rs }, rows_here, n, k, a, am, b, bm, accumulate, scale, Parallelism::None)
            });
            return;
        }
    }
    // gemm reads the destination only when `accumulate` (its `read_dst`): otherwise it may be
    // unwritten.
    let dst_ptr = SendPtr(dst.data.as_mut_ptr() as *mut T);
    let call = move || {
        // Use the whole wrapper (closures capture single fields otherwise, and the bare pointer
        // is not Send).
        let dst_ptr = dst_ptr;
        gemm::gemm(
            m,
            n,
            k,
            dst_ptr.0,
            1,
            dst.rs as isize,
            accumulate,
            a.as_ptr().add(am.offset),
            am.cs as isize,
            am.rs as isize,
            b.as_ptr().add(bm.offset),
            bm.cs as isize,
            bm.rs as isize,
            T::one(),
            scale,
            false,
            false,
            false,
            par,
        )
    };
    // gemm's threads come from the current rayon pool: make that the kernel pool, so
    // set_num_threads governs gemm too (outside `install` it would be rayon's global pool).
    match par {
        Parallelism::Rayon(_) => pool().install(call),
        _ => call(),
    }
}

/// Whether an m x k by column-major k x n product runs faster transposed (see
/// `gemm_into_scaled`): gemm's transposing gather then reads the m x k operand instead of the
/// k x n one, and the m x n result is written twice (scratch, then its transpose).
fn transposed_product_pays(m: usize, n: usize, k: usize) -> bool {
    2 * m * (k + n) < n * k
}

/// Whether a column-major m x k by row-major k x n product runs faster transposed (see
/// `gemm_into_scaled`): many more rows than columns, and enough work that writing the m x n
/// result twice costs little beside it.
fn tall_left_product_pays(m: usize, n: usize, k: usize) -> bool {
    m >= TALL_LEFT_RATIO * n && m * n * k >= TALL_LEFT_MIN_WORK
}

/// See `tall_left_product_pays`.
const TALL_LEFT_RATIO: usize = 8;
const TALL_LEFT_MIN_WORK: usize = 1 << 24;

/// `dst (= or +=) ct^T` for the row-major `rows x cols` matrix `ct`: each destination row is
/// written contiguously from a column of `ct`, in bands of `BAND` of them so that the band's
/// lines of `ct` stay in L1 across the destination rows.
fn store_transposed<T: Element>(ct: &[T], rows: usize, cols: usize, dst: MatMut<'_, T>, accumulate: bool) {
    const BAND: usize = 64;
    let rs = dst.rs;
    crate::cpu::simd::vectorized(
        #[inline(always)]
        || {
            for j0 in (0..rows).step_by(BAND) {
                let j1 = (j0 + BAND).min(rows);
                for i in 0..cols {
                    let out = &mut dst.data[i * rs + j0..i * rs + j1];
                    // Plain indexing: iterator adapters here (step_by) cost a call per element
                    // wherever they were not inlined.
                    if accumulate {
                        // Exact for every float type gemm takes: one rounding of the float64 sum.
                        for (jj, o) in out.iter_mut().enumerate() {
                            // SAFETY: an accumulating destination is written (`gemm_into_scaled`).
                            let old = unsafe { o.assume_init() };
                            *o = MaybeUninit::new(T::from_f64(old.to_f64() + ct[(j0 + jj) * cols + i].to_f64()));
                        }
                    } else {
                        for (jj, o) in out.iter_mut().enumerate() {
                            *o = MaybeUninit::new(ct[(j0 + jj) * cols + i]);
                        }
                    }
                }
            }
        },
    )
}

/// Products of fewer multiply-adds than this split across threads by bands of output rows,
/// each band one single-threaded product started from `run_tasks` (the calling thread takes a
/// band): gemm's own threading sends the whole product to the pool and, on these medium shapes,
/// gained little or lost (512x256 by 256x784 ran slower on two threads than on one).
const SPLIT_ROWS_BELOW: usize = 1 << 28;

/// Whether bands of `band` rows (the last one shorter) of an m x n x k product block k as the
/// whole product does.
/// gemm sums k in blocks that depend on k alone, except for products of at most
/// GEMM_SMALL_SIDE rows and columns, which take blocks of GEMM_SMALL_KC: a 48-row band of a
/// 70 x 64 x 1000 product would sum 512 + 488 where the whole sums 500 + 500.
fn same_k_blocking(m: usize, band: usize, n: usize, k: usize) -> bool {
    let small = |rows: usize| rows <= GEMM_SMALL_SIDE && n <= GEMM_SMALL_SIDE;
    let last_band = m - (m.div_ceil(band) - 1) * band;
    k <= GEMM_SMALL_KC || (small(band) == small(m) && small(last_band) == small(m))
}

/// gemm's small-product regime (`gemm-common`'s `gemm_basic_generic`): sides up to this...
const GEMM_SMALL_SIDE: usize = 64;
/// ...take k in blocks of this many.
const GEMM_SMALL_KC: usize = 512;

/// Products whose sides are all at least this long copy a column-major right operand with an
/// aliasing stride row-major
/// before multiplying (see `gemm_into_scaled`); smaller ones (the convolutions' narrow weight
/// gradients among them) multiply it in place.
const REPACK_MIN_SIDE: usize = 64;

/// Column strides that are multiples of this many bytes alias in the caches (see above).
const ALIASING_STRIDE_BYTES: usize = 2048;

/// Row bands start at multiples of this: whole register tiles of gemm's kernels.
const ROW_BLOCK_ALIGN: usize = 16;

/// A raw destination pointer moved into the pool's closure; the caller's `&mut` borrow keeps
/// it exclusive for the duration of the call.
#[derive(Clone, Copy)]
struct SendPtr<T>(*mut T);
unsafe impl<T> Send for SendPtr<T> {}
unsafe impl<T> Sync for SendPtr<T> {}

/// Products of this many multiply-adds or more use every thread: about 25 us of one core,
/// below which waking the other threads costs more than it saves (a 64x320 by 320x50
/// product ran 2.5x slower split in two).
const PARALLEL_WORK: usize = 1 << 22;

/// `out[b] = a[b] @ b[b]` for each batch; `out` is contiguous `[batch, m, n]`.
pub fn batched_gemm<T: Element>(a: &[T], a_mats: &[MatRef], b: &[T], b_mats: &[MatRef], m: usize, k: usize, n: usize) -> Result<Vec<T>> {
    let work = m * n * k.max(1);
    let threads = get_num_threads();
    let per_product = if work >= PARALLEL_WORK && threads > 1 { Parallelism::Rayon(threads) } else { Parallelism::None };
    let run = |out: &mut [MaybeUninit<T>], am: MatRef, bm: MatRef, par: Parallelism| {
        // Not accumulating, gemm writes every element of the product: no zero fill first.
        let dst = MatMut::uninit(out, n);
        // SAFETY: `MatRef`s were built from layouts whose every element lies inside `a` and `b`
        // (checked by the caller).
        unsafe { gemm_into(dst, m, n, k, a, am, b, bm, false, par) }
    };
    // Each of the `a_mats.len()` products writes its own m x n block (none when m * n is 0,
    // and then the output is empty).
    written_output(a_mats.len() * m * n, |out| {
        if a_mats.len() > 1 && matches!(per_product, Parallelism::None) && a_mats.len() * work >= PARALLEL_WORK && threads > 1 {
            // Many small products: one per task.
            for_each_exact_chunk(out, m * n, |i, o| run(o, a_mats[i], b_mats[i], Parallelism::None));
        } else if matches!(per_product, Parallelism::Rayon(_)) {
            pool().install(|| {
                for (i, o) in out.chunks_mut(m * n).enumerate() {
                    run(o, a_mats[i], b_mats[i], per_product);
                }
            });
        } else {
            for (i, o) in out.chunks_mut(m * n).enumerate() {
                run(o, a_mats[i], b_mats[i], Parallelism::None);
            }
        }
    })
}

/// `bias + alpha * (a @ b)` for one `m x k` by `k x n` product, `bias` being the destination
/// already holding the (broadcast) bias, row-major `[m, n]`; None starts from zeros. gemm adds
/// the product into it: no separate pass over the output for the bias.
#[allow(clippy::too_many_arguments)]
pub fn addmm_gemm<T: Element>(
    bias: Option<Vec<T>>,
    a: &[T],
    am: MatRef,
    b: &[T],
    bm: MatRef,
    m: usize,
    k: usize,
    n: usize,
    alpha: T,
) -> Result<Vec<T>> {
    let threads = get_num_threads();
    let par = if m * n * k.max(1) >= PARALLEL_WORK && threads > 1 { Parallelism::Rayon(threads) } else { Parallelism::None };
    // SAFETY (both calls): the caller built `am` / `bm` from layouts whose every element lies
    // inside `a` / `b`.
    match bias {
        Some(mut out) => {
            assert_eq!(out.len(), m * n, "addmm bias buffer has the output's size");
            unsafe { gemm_into_scaled(MatMut::new(&mut out, n), m, n, k, a, am, b, bm, true, alpha, par) };
            Ok(out)
        }
        // Without a bias gemm overwrites every element: no zero fill first.
        None => written_output(m * n, |out| unsafe { gemm_into_scaled(MatMut::uninit(out, n), m, n, k, a, am, b, bm, false, alpha, par) }),
    }
}

/// addmm's `beta * input + alpha * (a @ b)` of float32, float64 or float16 matrices, `input`
/// broadcasting to `[m, n]`: the scaled input is written into the output first and gemm
/// accumulates the scaled product into it. None for other dtypes.
pub fn addmm(input: &Array, a: &Array, b: &Array, beta: f64, alpha: f64) -> Result<Option<Array>> {
    let dt = a.dtype();
    if !matches!(dt, DType::F32 | DType::F64 | DType::F16) {
        return Ok(None);
    }
    let (m, k, n) = (a.shape()[0], a.shape()[1], b.shape()[1]);
    // beta * input is computed on the input's own (small) shape before broadcasting.
    let bias = match beta {
        0.0 => None,
        1.0 => Some(input.broadcast_to(&[m, n])),
        beta => {
            let scaled = Operand::Scalar(Scalar::Float(beta));
            Some(super::arith::binary(BinaryOp::Mul, Operand::Array(input), scaled, input.shape(), dt, dt)?.broadcast_to(&[m, n]))
        }
    };
    let mat = |t: &Array| MatRef { offset: t.storage_offset(), rs: t.strides()[0], cs: t.strides()[1] };
    let (am, bm) = (mat(a), mat(b));
    macro_rules! run {
        ($t:ty) => {{
            let dst =
                bias.map(|d| d.with_slice::<$t, _>("addmm", |s, l| crate::cpu::cast::convert_strided::<$t, $t>(s, l))?).transpose()?;
            let alpha = Scalar::Float(alpha).to_element::<$t>();
            let data = a.with_slice::<$t, _>("addmm", |x, _| {
                b.with_slice::<$t, _>("addmm", |y, _| addmm_gemm(dst, x, am, y, bm, m, k, n, alpha))
            })???;
            Array::from_vec(data, &[m, n]).map(Some)
        }};
    }
    match dt {
        DType::F32 => run!(f32),
        DType::F64 => run!(f64),
        _ => run!(half::f16),
    }
}

/// Integer matrix products (no BLAS kernels exist for them): plain loops, accumulating in `T`
/// with wrap-around as PyTorch does.
pub fn batched_int_matmul<T: crate::cpu::num::Arith>(
    a: &[T],
    a_mats: &[MatRef],
    b: &[T],
    b_mats: &[MatRef],
    m: usize,
    k: usize,
    n: usize,
) -> Result<Vec<T>> {
    let mut out = filled(a_mats.len() * m * n, T::zero())?;
    for (bi, o) in out.chunks_mut((m * n).max(1)).enumerate().take(a_mats.len()) {
        let (am, bm) = (a_mats[bi], b_mats[bi]);
        for i in 0..m {
            for j in 0..n {
                let mut acc = T::zero();
                for p in 0..k {
                    acc = acc.add(a[am.offset + i * am.rs + p * am.cs].mul(b[bm.offset + p * bm.rs + j * bm.cs]));
                }
                o[i * n + j] = acc;
            }
        }
    }
    Ok(out)
}

/// `a @ b` of `[.., m, k]` and `[.., k, n]` arrays of one dtype with equal batch shapes, any
/// strides: float32, float64 and float16 through `gemm`, bfloat16 through float32, integers
/// and bool exactly (wrapping).
pub fn matmul(a: &Array, b: &Array) -> Result<Array> {
    let nd = a.ndim();
    let (m, k, n) = (a.shape()[nd - 2], a.shape()[nd - 1], b.shape()[nd - 1]);
    let batch_shape = &a.shape()[..nd - 2];
    let batches: usize = batch_shape.iter().product();
    let mats = |t: &Array| -> Result<Vec<MatRef>> {
        let l = t.layout();
        let bl = Layout { shape: l.shape[..nd - 2].to_vec(), strides: l.strides[..nd - 2].to_vec(), offset: l.offset };
        let offs = if batches == 0 { vec![] } else { crate::cpu::reduce::element_offsets(&bl)? };
        crate::cpu::buffer::collect_n(
            offs.len(),
            offs.into_iter().map(|o| MatRef { offset: o, rs: l.strides[nd - 2], cs: l.strides[nd - 1] }),
        )
    };
    let (am, bm) = (mats(a)?, mats(b)?);
    let mut shape = batch_shape.to_vec();
    shape.extend([m, n]);
    macro_rules! float {
        ($t:ty) => {
            Array::from_vec(
                a.with_slice::<$t, _>("matmul", |x, _| b.with_slice::<$t, _>("matmul", |y, _| batched_gemm(x, &am, y, &bm, m, k, n)))???,
                &shape,
            )
        };
    }
    match a.dtype() {
        DType::F32 => float!(f32),
        DType::F64 => float!(f64),
        DType::F16 => float!(half::f16),
        DType::BF16 => copy_as(&matmul(&copy_as(a, DType::F32)?, &copy_as(b, DType::F32)?)?, DType::BF16),
        dt => crate::with_arith_dtype!(dt, T => Array::from_vec(
            a.with_slice::<T, _>("matmul", |x, _| b.with_slice::<T, _>("matmul", |y, _| batched_int_matmul(x, &am, y, &bm, m, k, n)))???,
            &shape,
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_major_right_operand_with_an_aliasing_stride_multiplies_as_stored() {
        // b is the transpose of a row-major 96 x 512 matrix: columns 2 KiB apart (repacked).
        let (m, k, n) = (70, 512, 96);
        let a: Vec<f32> = (0..m * k).map(|i| ((i * 37 % 101) as f32) / 50.0 - 1.0).collect();
        let b: Vec<f32> = (0..n * k).map(|i| ((i * 53 % 97) as f32) / 40.0 - 1.2).collect();
        let (am, bm) = (MatRef { offset: 0, rs: k, cs: 1 }, MatRef { offset: 0, rs: 1, cs: k });
        let bias: Vec<f32> = (0..m * n).map(|i| i as f32 / 1000.0).collect();
        let out = addmm_gemm(Some(bias.clone()), &a, am, &b, bm, m, k, n, 0.5).unwrap();
        for i in 0..m {
            for j in 0..n {
                let dot: f64 = (0..k).map(|p| a[i * k + p] as f64 * b[j * k + p] as f64).sum();
                let want = bias[i * n + j] as f64 + 0.5 * dot;
                assert!((out[i * n + j] as f64 - want).abs() < 1e-3, "({i}, {j}): {} vs {want}", out[i * n + j]);
            }
        }
    }
    #[test]
    fn a_few_rows_by_a_column_major_right_operand_multiply_transposed() {
        // 20 x 200 by the transpose of a row-major 800 x 200 matrix (an LSTM state product):
        // computed as its transpose and stored back, with and without a destination to add to.
        let (m, k, n) = (20, 200, 800);
        assert!(transposed_product_pays(m, n, k));
        let a: Vec<f64> = (0..m * k).map(|i| ((i * 37 % 101) as f64) / 50.0 - 1.0).collect();
        let b: Vec<f64> = (0..n * k).map(|i| ((i * 53 % 97) as f64) / 40.0 - 1.2).collect();
        let (am, bm) = (MatRef { offset: 0, rs: k, cs: 1 }, MatRef { offset: 0, rs: 1, cs: k });
        let bias: Vec<f64> = (0..m * n).map(|i| i as f64 / 1000.0).collect();
        for with_bias in [false, true] {
            let out = addmm_gemm(with_bias.then(|| bias.clone()), &a, am, &b, bm, m, k, n, 0.5).unwrap();
            for i in 0..m {
                for j in 0..n {
                    let dot: f64 = (0..k).map(|p| a[i * k + p] * b[j * k + p]).sum();
                    let want = if with_bias { bias[i * n + j] } else { 0.0 } + 0.5 * dot;
                    assert!((out[i * n + j] - want).abs() < 1e-9, "({i}, {j}): {} vs {want}", out[i * n + j]);
                }
            }
        }
    }

    #[test]
    fn a_tall_column_major_left_operand_multiplies_transposed() {
        // The transpose of a row-major 300 x 4000 gradient by a row-major 300 x 64 input (a wide
        // layer's weight gradient): computed as its transpose and stored back, with and
        // without a destination to add to.
        let (m, k, n) = (4000, 300, 64);
        assert!(tall_left_product_pays(m, n, k));
        let a: Vec<f64> = (0..k * m).map(|i| ((i * 37 % 101) as f64) / 50.0 - 1.0).collect();
        let b: Vec<f64> = (0..k * n).map(|i| ((i * 53 % 97) as f64) / 40.0 - 1.2).collect();
        let (am, bm) = (MatRef { offset: 0, rs: 1, cs: m }, MatRef { offset: 0, rs: n, cs: 1 });
        let bias: Vec<f64> = (0..m * n).map(|i| i as f64 / 1000.0).collect();
        for with_bias in [false, true] {
            let out = addmm_gemm(with_bias.then(|| bias.clone()), &a, am, &b, bm, m, k, n, 0.5).unwrap();
            for i in (0..m).step_by(7) {
                for j in 0..n {
                    let dot: f64 = (0..k).map(|p| a[p * m + i] * b[p * n + j]).sum();
                    let want = if with_bias { bias[i * n + j] } else { 0.0 } + 0.5 * dot;
                    assert!((out[i * n + j] - want).abs() < 1e-9, "({i}, {j}): {} vs {want}", out[i * n + j]);
                }
            }
        }
    }
}
