//! Selection by a boolean mask: masked_fill, masked_fill_, masked_select, and nonzero (the
//! positions a mask selects).

use crate::autograd::{is_grad_enabled, record, GradMode, Op, Positions};
use crate::cpu::reduce::element_offsets;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::shape::broadcast_shapes;
use crate::tensor::arith::Arg;
use crate::tensor::{BinaryOp, Scalar, Tensor};

impl Tensor {
    /// `masked_fill(mask, value)`: mask and self broadcast together, so the result may be
    /// larger than self.
    pub fn masked_fill(&self, mask: &Tensor, value: Arg) -> Result<Tensor> {
        check_mask_dtype(mask)?;
        // PyTorch broadcasts the mask against self, naming the mask first on a mismatch.
        broadcast_shapes(mask.shape(), self.shape())?;
        let v = match value {
            Arg::T(t) => {
                if t.ndim() != 0 {
                    return Err(Error::Runtime(format!(
                        "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                        t.ndim()
                    )));
                }
                t.to_dtype(self.dtype())?
            }
            Arg::S(s) => Tensor::scalar_tensor(s.checked_for(self.dtype(), crate::tensor::scalar_check::Spelling::Cpp)?, self.dtype())?,
        };
        let filled = Tensor::where_(mask, Arg::T(&v), Arg::T(self))?;
        // PyTorch's overloads: a scalar value, or a 0-dim tensor one (which gets a gradient).
        Ok(match value {
            Arg::T(t) => crate::autograd::composite("MaskedFillBackward1", &[self, t], vec![filled]),
            Arg::S(_) => crate::autograd::composite("MaskedFillBackward0", &[self], vec![filled]),
        }
        .pop()
        .expect("one output in, one out"))
    }

    /// `masked_fill_(mask, value)`: the mask must broadcast to self's shape.
    pub fn masked_fill_(&self, mask: &Tensor, value: Arg) -> Result<()> {
        check_mask_dtype(mask)?;
        // In place, self is named first on a mismatch; a mask that would grow self fails in copy_.
        broadcast_shapes(self.shape(), mask.shape())?;
        let filled = self.masked_fill(mask, value)?;
        self.assign_overlapping_(&filled)
    }

    pub fn masked_select(&self, mask: &Tensor) -> Result<Tensor> {
        let on_device = {
            let _raw = GradMode::disabled();
            self.masked_select_on_device(mask)?
        };
        if let Some((out, positions)) = on_device {
            if is_grad_enabled() && self.requires_grad() {
                record(Op::Take { kind: "MaskedSelectBackward0", offsets: Positions::Device(positions) }, &[self], &[&out], &[], &[]);
            }
            return Ok(out);
        }
        let recorded = is_grad_enabled() && self.requires_grad();
        let (out, positions) = {
            let _raw = GradMode::disabled();
            self.masked_select_raw(mask, recorded)?
        };
        if recorded {
            record(Op::Take { kind: "MaskedSelectBackward0", offsets: Positions::Host(positions) }, &[self], &[&out], &[], &[]);
        }
        Ok(out)
    }

    /// masked_select where the backend keeps indices on the device and the mask broadcasts to
    /// self's shape: the selected positions are the mask's `nonzero`, so only their count comes
    /// back. The gathered values and the positions, which stay on the device; None where the
    /// host path applies.
    fn masked_select_on_device(&self, mask: &Tensor) -> Result<Option<(Tensor, Tensor)>> {
        let on_device = self.backend().indices_stay_on_device() && mask.device() == self.device();
        if !on_device || mask.dtype() != DType::Bool || self.ndim() == 0 {
            return Ok(None);
        }
        if broadcast_shapes(self.shape(), mask.shape())? != self.shape() {
            return Ok(None);
        }
        let n = self.numel() as i64;
        let full = mask.with_layout(mask.layout().broadcast_to(self.shape())).contiguous()?.reshape(&[n])?;
        let positions = full.nonzero()?.reshape(&[-1])?;
        let out = self.take_positions(&positions, &[positions.numel()])?;
        Ok(Some((out, positions)))
    }

    /// The selected values and, when `positions`, their positions in self (row-major element
    /// indices, what MaskedSelectBackward0 scatters to; empty otherwise).
    pub(super) fn masked_select_raw(&self, mask: &Tensor, positions: bool) -> Result<(Tensor, Vec<usize>)> {
        if mask.dtype() != DType::Bool {
            return Err(Error::Runtime("masked_select: expected BoolTensor for mask".into()));
        }
        let shape = broadcast_shapes(self.shape(), mask.shape())?;
        let x = self.with_layout(self.layout().broadcast_to(&shape));
        let m = mask.with_layout(mask.layout().broadcast_to(&shape)).to_vec::<bool>()?;
        let (mut offs, mut keep) = (element_offsets(x.layout())?, m.iter());
        offs.retain(|_| *keep.next().expect("a mask value per element"));
        // The positions are the offsets of a contiguous self broadcast the same way (mapping
        // the storage offsets of a strided self back through a hash map took 140 ms at 1M).
        let mut at = Vec::new();
        if positions {
            at = element_offsets(&Layout::contiguous(self.shape().to_vec())?.broadcast_to(&shape))?;
            let mut keep = m.iter();
            at.retain(|_| *keep.next().expect("a mask value per element"));
        }
        Ok((x.take_offsets(&offs, &[offs.len()])?, at))
    }

    /// Indices of non-zero elements, shape `[count, ndim]`.
    pub fn nonzero(&self) -> Result<Tensor> {
        if self.backend().indices_stay_on_device() && self.ndim() > 0 && self.numel() > 0 {
            let _raw = GradMode::disabled();
            return self.nonzero_on_device();
        }
        let flags = self.to_vec::<bool>()?;
        let shape = self.shape();
        let count = flags.iter().map(|&f| f as usize).sum::<usize>();
        Tensor::from_vec(nonzero_coordinates(&flags, shape, count)?, &[count, shape.len()])?.to_device(self.device())
    }

    /// `nonzero` where the backend keeps indices on the device: the element's ranks among the
    /// non-zero ones are a running count on the device, and every element's coordinates are
    /// written to its rank's row (the zero ones to a spare row, dropped). Only the count comes
    /// back: it is the result's shape.
    fn nonzero_on_device(&self) -> Result<Tensor> {
        let (shape, n, nd) = (self.shape().to_vec(), self.numel(), self.ndim());
        let dev = self.device();
        let flags = self.to_dtype(DType::Bool)?.reshape(&[n as i64])?;
        let ranks = flags.to_dtype(DType::I64)?.cumulative(0, false)?;
        let count = ranks.select(0, n as i64 - 1)?.item()?.to_i64() as usize;
        // Coordinates of every element, [shape.., nd], from one small range per dim.
        let coords = Tensor::zeros_on(&[shape.clone(), vec![nd]].concat(), DType::I64, dev)?;
        let sizes: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
        for (d, &size) in shape.iter().enumerate() {
            let mut along = vec![1i64; nd];
            along[d] = size as i64;
            let range = Tensor::from_vec((0..size as i64).collect::<Vec<_>>(), &[size])?.to_device(dev)?;
            coords.select(nd as i64, d as i64)?.copy_(&range.reshape(&along)?.expand(&sizes)?)?;
        }
        let rows =
            Tensor::where_(&flags, Arg::T(&ranks.binary_scalar(BinaryOp::Sub, Scalar::Int(1), false)?), Arg::S(Scalar::Int(count as i64)))?;
        // Element (row, d) of the result: position row * nd + d, in range by construction.
        let dims = Tensor::from_vec((0..nd as i64).collect::<Vec<_>>(), &[1, nd])?.to_device(dev)?;
        let targets = rows.binary_scalar(BinaryOp::Mul, Scalar::Int(nd as i64), false)?.unsqueeze(1)?.binary(BinaryOp::Add, &dims)?;
        let out = Tensor::zeros_on(&[count + 1, nd], DType::I64, dev)?;
        out.backend().put_at_positions(out.array(), targets.array(), coords.reshape(&[n as i64, nd as i64])?.contiguous()?.array())?;
        out.narrow(0, 0, count as i64)?.contiguous()
    }
}

/// The coordinates, row after row, of the `count` set flags of a row-major array of `shape`.
/// Branch-free: every element's coordinates are written to the next free row, which only a set
/// flag keeps (a branch per element mispredicted on a random mask: 6.9 ms at 1M, PyTorch 6.0).
fn nonzero_coordinates(flags: &[bool], shape: &[usize], count: usize) -> Result<Vec<i64>> {
    let nd = shape.len();
    if nd == 0 || flags.is_empty() {
        return Ok(Vec::new());
    }
    // One spare row takes the writes of the flags after the last set one.
    let mut out = crate::cpu::buffer::filled((count + 1) * nd, 0i64)?;
    let last = shape[nd - 1];
    let mut outer = vec![0i64; nd - 1];
    let mut row = 0;
    for flags in flags.chunks(last) {
        if nd == 2 {
            // The common case with its one outer coordinate in a register.
            let i = outer[0];
            for (j, &f) in flags.iter().enumerate() {
                out[2 * row] = i;
                out[2 * row + 1] = j as i64;
                row += f as usize;
            }
        } else {
            for (j, &f) in flags.iter().enumerate() {
                let at = &mut out[row * nd..(row + 1) * nd];
                at[..nd - 1].copy_from_slice(&outer);
                at[nd - 1] = j as i64;
                row += f as usize;
            }
        }
        // The next row's outer coordinates, as an odometer.
        for d in (0..nd - 1).rev() {
            outer[d] += 1;
            if (outer[d] as usize) < shape[d] {
                break;
            }
            outer[d] = 0;
        }
    }
    out.truncate(count * nd);
    Ok(out)
}

fn check_mask_dtype(mask: &Tensor) -> Result<()> {
    if mask.dtype() != DType::Bool {
        return Err(Error::Runtime(format!(
            "masked_fill_ only supports boolean masks, but got mask with dtype {}",
            mask.dtype().cpp_name()
        )));
    }
    Ok(())
}
