//! The host's flip: a copy with some dims reversed, read in the result's memory order.

use crate::backend::Array;
use crate::cpu::buffer::with_capacity;
use crate::error::Result;
use crate::layout::Layout;
use crate::result_layout::preserved_strides;

/// `x` with `dims` reversed, in a new array laid out as PyTorch's flip lays it out (in `x`'s
/// memory order: a transpose stays a transpose). The result is written in its memory order and
/// each element read at the mirrored position, so a reversed run is read backward, not gathered.
pub fn flip(x: &Array, dims: &[usize]) -> Result<Array> {
    let l = x.layout();
    let shape = l.shape.clone();
    let out_strides = preserved_strides(l)?;
    // The result's dims, outermost first; size-1 dims address nothing.
    let mut perm: Vec<usize> = (0..shape.len()).collect();
    perm.sort_by_key(|&d| std::cmp::Reverse(if shape[d] == 1 { usize::MAX } else { out_strides[d] }));
    // A reversed dim starts at its last element and steps back. Every position read lies in
    // the view, which lies in its storage, so the signed offsets below stay in range.
    let mut start = l.offset;
    let mut steps = Vec::with_capacity(perm.len());
    for &d in &perm {
        let s = l.strides[d] as isize;
        if dims.contains(&d) && shape[d] > 1 {
            start += (shape[d] - 1) * l.strides[d];
            steps.push(-s);
        } else {
            steps.push(s);
        }
    }
    let sizes: Vec<usize> = perm.iter().map(|&d| shape[d]).collect();
    let numel = l.numel();
    let data = crate::with_dtype!(x.dtype(), T => {
        let v: Vec<T> = x.with_slice::<T, _>("flip", |s, _| mirrored_copy(s, start, &sizes, &steps, numel))??;
        Array::from_vec(v, &[numel])?
    });
    Ok(data.with_layout(Layout { shape, strides: out_strides, offset: 0 }))
}

/// The `numel` elements of `s` at `start + sum(i_k * steps[k])` over the row-major indices `i`
/// of `sizes`, in that order.
fn mirrored_copy<T: Copy>(s: &[T], start: usize, sizes: &[usize], steps: &[isize], numel: usize) -> Result<Vec<T>> {
    let mut out = with_capacity(numel)?;
    if numel == 0 {
        return Ok(out);
    }
    let (n, step) = match (sizes.last(), steps.last()) {
        (Some(&n), Some(&step)) => (n, step),
        _ => {
            out.push(s[start]);
            return Ok(out);
        }
    };
    let outer = sizes.len() - 1;
    let mut index = vec![0usize; outer];
    let mut at = start as isize;
    for _ in 0..numel / n {
        let o = at as usize;
        match step {
            1 => out.extend_from_slice(&s[o..o + n]),
            -1 => out.extend(s[o + 1 - n..=o].iter().rev()),
            _ => out.extend((0..n).map(|j| s[(at + j as isize * step) as usize])),
        }
        for d in (0..outer).rev() {
            index[d] += 1;
            at += steps[d];
            if index[d] < sizes[d] {
                break;
            }
            at -= steps[d] * sizes[d] as isize;
            index[d] = 0;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flips_rows_columns_and_transposes() {
        let x = Array::from_vec((0..6).map(|v| v as f32).collect::<Vec<_>>(), &[2, 3]).unwrap();
        let read = |a: &Array| a.with_slice::<f32, _>("t", |s, l| (s.to_vec(), l.strides.clone())).unwrap();
        assert_eq!(read(&flip(&x, &[1]).unwrap()), (vec![2.0, 1.0, 0.0, 5.0, 4.0, 3.0], vec![3, 1]));
        assert_eq!(read(&flip(&x, &[0, 1]).unwrap()), (vec![5.0, 4.0, 3.0, 2.0, 1.0, 0.0], vec![3, 1]));
        // The transpose (3, 2) flipped along its dim 0 keeps column-major strides: element
        // (i, j) is x[j][2 - i], stored at i + 3 * j.
        let t = x.with_layout(Layout { shape: vec![3, 2], strides: vec![1, 3], offset: 0 });
        assert_eq!(read(&flip(&t, &[0]).unwrap()), (vec![2.0, 1.0, 0.0, 5.0, 4.0, 3.0], vec![1, 3]));
    }
}
