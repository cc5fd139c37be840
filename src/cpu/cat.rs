//! The host's cat: each part's rows copied straight into their place in a new array, every
//! element written once (no zero fill first, no view and copy per part).

use crate::backend::Array;
use crate::cpu::buffer::try_written_output;
use crate::error::Result;
use crate::layout::Layout;

/// Where each of a part's rows along `dim` (its elements at one index of the dims before `dim`)
/// is one contiguous run of storage: the runs' starts, in row-major order of those dims.
/// A contiguous part qualifies, and so does a narrow of one along `dim` (`roll` is made of
/// such), whose rows lie apart.
fn row_starts(l: &Layout, dim: usize) -> Option<Vec<usize>> {
    let mut run = 1usize;
    for k in (dim..l.shape.len()).rev() {
        if l.shape[k] != 1 && l.strides[k] != run {
            return None;
        }
        run = run.checked_mul(l.shape[k])?;
    }
    let mut starts = vec![l.offset];
    for k in 0..dim {
        let stride = l.strides[k];
        starts = starts
            .iter()
            .flat_map(|&s| (0..l.shape[k]).map(move |i| i.checked_mul(stride).and_then(|v| v.checked_add(s))))
            .collect::<Option<Vec<_>>>()?;
    }
    Some(starts)
}

/// `parts` (each of `shape` but along `dim`) joined along `dim` into a new contiguous array of
/// `shape`. None unless every part has the first one's dtype and rows of one run each
/// (`row_starts`): the tensor layer then copies part by part.
pub fn cat(parts: &[&Array], dim: usize, shape: &[usize]) -> Result<Option<Array>> {
    let Some(first) = parts.first() else {
        return Ok(None);
    };
    let dtype = first.dtype();
    if parts.iter().any(|p| p.dtype() != dtype) {
        return Ok(None);
    }
    let Some(starts) = parts.iter().map(|p| row_starts(p.layout(), dim)).collect::<Option<Vec<_>>>() else {
        return Ok(None);
    };
    // The output's size was checked by the caller; its pieces are no larger.
    let n = Layout::contiguous(shape.to_vec())?.numel();
    let outer: usize = shape[..dim].iter().product();
    let inner: usize = shape[dim + 1..].iter().product();
    let row = shape[dim] * inner;
    crate::with_dtype!(dtype, T => {
        let data = try_written_output::<T>(n, |out| {
            let mut at = 0;
            for (p, starts) in parts.iter().zip(&starts) {
                // Each outer row of the part: `len` contiguous elements, `at` into the output row.
                let len = p.shape()[dim] * inner;
                if len == 0 {
                    continue;
                }
                p.with_slice::<T, _>("cat", |s, _| {
                    for (o, &start) in starts.iter().enumerate().take(outer) {
                        crate::cpu::runs::copy_run(&s[start..][..len], &mut out[o * row + at..][..len]);
                    }
                })?;
                at += len;
            }
            Ok(())
        })?;
        Array::from_vec(data, shape).map(Some)
    })
}
