//! Joint walks of several strided operands over one shape: dims are coalesced where memory allows
//! so the innermost loop is as long as possible.

use std::ops::Range;

pub struct Walk<const N: usize> {
    /// Coalesced shape; always at least one dim.
    shape: Vec<usize>,
    strides: [Vec<usize>; N],
    offsets: [usize; N],
}

impl<const N: usize> Walk<N> {
    /// `operands` are (strides, offset) of layouts that all have `shape`.
    pub fn new(shape: &[usize], operands: [(&[usize], usize); N]) -> Walk<N> {
        let mut dims: Vec<usize> = (0..shape.len()).filter(|&d| shape[d] != 1).collect();
        if dims.is_empty() {
            return Walk { shape: vec![1], strides: [(); N].map(|_| vec![0]), offsets: operands.map(|o| o.1) };
        }
        let mut out_shape = vec![shape[dims[0]]];
        let mut out_strides: [Vec<usize>; N] = std::array::from_fn(|k| vec![operands[k].0[dims[0]]]);
        for &d in &dims[1..] {
            let last = out_shape.len() - 1;
            let mergeable = (0..N).all(|k| out_strides[k][last] == operands[k].0[d] * shape[d]);
            if mergeable {
                out_shape[last] *= shape[d];
                for k in 0..N {
                    out_strides[k][last] = operands[k].0[d];
                }
            } else {
                out_shape.push(shape[d]);
                for k in 0..N {
                    out_strides[k].push(operands[k].0[d]);
                }
            }
        }
        dims.clear();
        Walk { shape: out_shape, strides: out_strides, offsets: operands.map(|o| o.1) }
    }

    /// The coalesced shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The coalesced strides of operand `k`.
    pub fn strides(&self, k: usize) -> &[usize] {
        &self.strides[k]
    }

    /// The starting offset of operand `k`.
    pub fn offset(&self, k: usize) -> usize {
        self.offsets[k]
    }

    pub fn inner_len(&self) -> usize {
        *self.shape.last().unwrap()
    }

    pub fn inner_strides(&self) -> [usize; N] {
        std::array::from_fn(|k| *self.strides[k].last().unwrap())
    }

    /// Number of innermost rows.
    pub fn rows(&self) -> usize {
        self.shape[..self.shape.len() - 1].iter().product()
    }

    /// Calls `f` with the starting offsets of each row in `rows`, in row-major order.
    pub fn for_each_row(&self, rows: Range<usize>, f: impl FnMut([usize; N])) {
        self.for_each_row_inlined(rows, f)
    }

    /// `for_each_row` inlined into its caller, so that `f`'s loops compile for the instruction
    /// set of a SIMD dispatch around the call.
    #[inline(always)]
    pub fn for_each_row_inlined(&self, rows: Range<usize>, mut f: impl FnMut([usize; N])) {
        let outer = self.shape.len() - 1;
        if rows.is_empty() {
            return;
        }
        let mut index = vec![0usize; outer];
        let mut rem = rows.start;
        for d in (0..outer).rev() {
            index[d] = rem % self.shape[d];
            rem /= self.shape[d];
        }
        let mut offs: [usize; N] =
            std::array::from_fn(|k| self.offsets[k] + (0..outer).map(|d| index[d] * self.strides[k][d]).sum::<usize>());
        for _ in rows {
            f(offs);
            for d in (0..outer).rev() {
                index[d] += 1;
                for (off, strides) in offs.iter_mut().zip(&self.strides) {
                    *off += strides[d];
                }
                if index[d] < self.shape[d] {
                    break;
                }
                for (off, strides) in offs.iter_mut().zip(&self.strides) {
                    *off -= strides[d] * self.shape[d];
                }
                index[d] = 0;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coalesces_contiguous_dims() {
        let w = Walk::new(&[2, 3, 4], [(&[12, 4, 1], 0), (&[0, 0, 1], 5)]);
        assert_eq!(w.rows(), 6);
        let w = Walk::new(&[2, 3, 4], [(&[12, 4, 1], 0), (&[12, 4, 1], 0)]);
        assert_eq!((w.rows(), w.inner_len()), (1, 24));
    }

    #[test]
    fn rows_start_anywhere() {
        let w = Walk::new(&[2, 3, 4], [(&[1, 8, 3], 1)]);
        let mut seen = vec![];
        w.for_each_row(2..5, |[o]| seen.push(o));
        assert_eq!(seen, vec![17, 2, 10]);
    }
}
