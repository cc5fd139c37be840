//! The host's cat: each part's rows copied straight into their place in a new array, every
//! element written once (no zero fill first, no view and copy per part).

use crate::backend::Array;
use crate::cpu::buffer::try_written_output;
use crate::error::Result;
use crate::layout::Layout;

/// `parts` (each of `shape` but along `dim`) joined along `dim` into a new contiguous array of
/// `shape`. None unless every part has the first one's dtype and is contiguous: the tensor
/// layer then copies part by part.
pub fn cat(parts: &[&Array], dim: usize, shape: &[usize]) -> Result<Option<Array>> {
    let Some(first) = parts.first() else {
        return Ok(None);
    };
    let dtype = first.dtype();
    if parts.iter().any(|p| p.dtype() != dtype || !p.layout().is_contiguous()) {
        return Ok(None);
    }
    // The output's size was checked by the caller; its pieces are no larger.
    let n = Layout::contiguous(shape.to_vec())?.numel();
    let outer: usize = shape[..dim].iter().product();
    let inner: usize = shape[dim + 1..].iter().product();
    let row = shape[dim] * inner;
    crate::with_dtype!(dtype, T => {
        let data = try_written_output::<T>(n, |out| {
            let mut at = 0;
            for p in parts {
                // Each outer row of the part: `len` contiguous elements, `at` into the output row.
                let len = p.shape()[dim] * inner;
                if len == 0 {
                    continue;
                }
                p.with_slice::<T, _>("cat", |s, l| {
                    let src = &s[l.offset..][..outer * len];
                    for o in 0..outer {
                        let (from, to) = (&src[o * len..][..len], &mut out[o * row + at..][..len]);
                        // SAFETY: both ranges were bounds checked just above and are `len` long;
                        // a new buffer and a part's storage do not overlap.
                        unsafe { std::ptr::copy_nonoverlapping(from.as_ptr(), to.as_mut_ptr().cast::<T>(), len) };
                    }
                })?;
                at += len;
            }
            Ok(())
        })?;
        Array::from_vec(data, shape).map(Some)
    })
}
