//! Max pooling with PyTorch's output-size rules; the gradient flows through the chosen positions.

use crate::autograd::{is_grad_enabled, record, Op, Positions, Saved};
use crate::error::Result;
use crate::ops::pool_geometry::{PoolGeom, PoolParams};
use crate::tensor::Tensor;

impl Tensor {
    /// `max_pool2d` over the last two dims of a 3-D or 4-D tensor: the maxima and their flat
    /// positions within each input plane.
    pub fn max_pool2d_with_indices(&self, p: &PoolParams) -> Result<(Tensor, Tensor)> {
        let g = PoolGeom::max_pool2d(self.shape(), p)?;
        let nd = self.ndim();
        let mut out_shape = self.shape()[..nd - 2].to_vec();
        out_shape.extend(g.out_size);
        crate::tensor::check_alloc(&out_shape, self.dtype())?;
        let (values, indices) = {
            let _raw = crate::autograd::GradMode::disabled();
            max_pool2d_values(self, &g, &out_shape)?
        };
        let offsets = if is_grad_enabled() && self.requires_grad() {
            Some(if self.backend().indices_stay_on_device() {
                // The positions stay on the device, as the indices within each plane.
                Positions::Pooled { at: Saved::new(&indices), geom: g }
            } else {
                let n = indices.numel();
                Positions::Host(indices.with_slice::<i64, _>("max_pool2d", |s, l| input_offsets(&s[l.offset..][..n], &g))??)
            })
        } else {
            None
        };
        // Read from the row-major results above; a channels-last input gets channels-last ones.
        let cl = crate::result_layout::suggests_channels_last(self.layout());
        let (values, indices) = (values.channels_last_result(cl)?, indices.channels_last_result(cl)?);
        if let Some(offsets) = offsets {
            record(Op::Take { kind: "MaxPool2DWithIndicesBackward0", offsets }, &[self], &[&values], &[], &[]);
        }
        Ok((values, indices))
    }
}

/// The flat input positions of the maxima: each plane's positions `indices` offset by the
/// planes before it.
fn input_offsets(indices: &[i64], g: &PoolGeom) -> Result<Vec<usize>> {
    let (plane, out_plane) = (g.in_size[0] * g.in_size[1], g.out_size[0] * g.out_size[1]);
    let mut offsets = crate::cpu::buffer::with_capacity(indices.len())?;
    for (p, at) in indices.chunks(out_plane.max(1)).enumerate() {
        offsets.extend(at.iter().map(|&i| p * plane + i as usize));
    }
    Ok(offsets)
}

/// The maxima and their positions in each plane, from the backend's kernel where it has one
/// for x's dtype. Else half types pool in float32, and integer and bool inputs in int64
/// (exact), from strided views and the reduce kernels:
/// the windows are a view of a copy padded with the int64 minimum (planes, oh, ow, kh, kw),
/// copied contiguous; the maxima are their amax and the positions come from their argmax (the
/// first maximum in window order, as on the CPU), turned into flat positions in the input
/// plane with int64 arithmetic. Where a maximum equals the padding value the position is the
/// window's first tap inside the input, as on the CPU, where padding never wins.
fn max_pool2d_values(x: &Tensor, g: &PoolGeom, out_shape: &[usize]) -> Result<(Tensor, Tensor)> {
    use crate::dtype::DType;
    use crate::tensor::arith::Arg;
    use crate::tensor::{BinaryOp, ReduceOp, Scalar};
    let dt = x.dtype();
    if let Some((values, positions)) = x.backend().max_pool2d(x.array(), g, out_shape)? {
        return Ok((Tensor::from_array(values), Tensor::from_array(positions)));
    }
    if dt.is_half() {
        let (v, i) = max_pool2d_values(&x.to_dtype(DType::F32)?, g, out_shape)?;
        return Ok((v.to_dtype(dt)?, i));
    }
    if !dt.is_floating_point() && dt != DType::I64 {
        let (v, i) = max_pool2d_values(&x.to_dtype(DType::I64)?, g, out_shape)?;
        return Ok((v.to_dtype(dt)?, i));
    }
    if dt != DType::I64 {
        return Err(crate::storage::dtype_not_on_device("max_pool2d", dt, x.device()));
    }
    let pad = Scalar::Int(i64::MIN);
    let dims = |v: &[usize]| v.iter().map(|&x| x as i64).collect::<Vec<i64>>();
    let ([h, w], [oh, ow], [kh, kw]) = (g.in_size, g.out_size, g.kernel);
    // Padded on the left by `padding` and on the right far enough for every window.
    let reach = |a: usize| (g.out_size[a] - 1) * g.stride[a] + (g.kernel[a] - 1) * g.dilation[a] + 1;
    let (hp, wp) = ((h + g.padding[0]).max(reach(0)), (w + g.padding[1]).max(reach(1)));
    let image = Tensor::full(&[], pad, dt)?.to_device(x.device())?.expand(&dims(&[g.planes, hp, wp]))?.contiguous()?;
    let inner = image.narrow(1, g.padding[0] as i64, h as i64)?.narrow(2, g.padding[1] as i64, w as i64)?;
    inner.backend().copy(x.reshape(&dims(&[g.planes, h, w]))?.array(), inner.array())?;
    let windows = image
        .with_layout(crate::layout::Layout {
            shape: vec![g.planes, oh, ow, kh, kw],
            strides: vec![hp * wp, g.stride[0] * wp, g.stride[1], g.dilation[0] * wp, g.dilation[1]],
            offset: 0,
        })
        .contiguous()?
        .reshape(&dims(&[g.planes, oh, ow, kh * kw]))?;
    let values = windows.reduce(ReduceOp::Max, Some(&[3]), false)?.reshape(&dims(out_shape))?;
    let k = Tensor::from_array(windows.backend().arg_reduce(windows.array(), 3, true)?);
    // Input row = oy * stride - padding + ky * dilation, and likewise for columns.
    let base = |a: usize, n: usize, shape: &[usize]| -> Result<Tensor> {
        let v: Vec<i64> = (0..n).map(|o| (o * g.stride[a]) as i64 - g.padding[a] as i64).collect();
        Tensor::from_vec(v, shape)?.to_device(x.device())
    };
    let ky = k.binary_scalar(BinaryOp::FloorDiv, Scalar::Int(kw as i64), false)?;
    let kx = k.binary_scalar(BinaryOp::Rem, Scalar::Int(kw as i64), false)?;
    let row = ky.binary_scalar(BinaryOp::Mul, Scalar::Int(g.dilation[0] as i64), false)?.binary(BinaryOp::Add, &base(0, oh, &[oh, 1])?)?;
    let col = kx.binary_scalar(BinaryOp::Mul, Scalar::Int(g.dilation[1] as i64), false)?.binary(BinaryOp::Add, &base(1, ow, &[ow])?)?;
    let at = row.binary_scalar(BinaryOp::Mul, Scalar::Int(w as i64), false)?.binary(BinaryOp::Add, &col)?;
    let at = at.reshape(&dims(out_shape))?;
    // Only windows reaching into the padding can have found their maximum there.
    if g.padding == [0, 0] && reach(0) <= h && reach(1) <= w {
        return Ok((values, at));
    }
    let first = |a: usize, n: usize| (0..n).map(|o| g.first_tap(a, o).unwrap_or(0)).collect::<Vec<usize>>();
    let (rows, cols) = (first(0, oh), first(1, ow));
    let firsts: Vec<i64> = rows.iter().flat_map(|&r| cols.iter().map(move |&c| (r * w + c) as i64)).collect();
    let firsts = Tensor::from_vec(firsts, &[oh, ow])?.to_device(x.device())?;
    let padded = values.binary_scalar(BinaryOp::Eq, pad, false)?;
    let at = Tensor::where_(&padded, Arg::T(&firsts), Arg::T(&at))?;
    Ok((values, at))
}
