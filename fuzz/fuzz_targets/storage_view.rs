//! Fuzzes the checkpoint storage reader, the path of every `.pt` tensor: raw bytes of any dtype
//! viewed with any sizes, strides and offset (full 64-bit values, not only small ones) either fail
//! cleanly or give a view whose every element lies inside the storage. Views of that view
//! (narrow, select, transpose, permute, expand, unsqueeze, slices with steps, unfold, diagonal,
//! as_strided, reshape) must keep that true; each view is read element by element against the
//! storage and written through.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rstorch::serialize::{strided_view, tensor_from_bytes};
use rstorch::tensor::arith::Arg;
use rstorch::{DType, Scalar, Tensor};

/// Views with more elements than this (an expand can make them cheaply) are not read one by one.
const READ_LIMIT: usize = 1 << 14;

/// Input bytes read front to back; running out ends the case.
struct Bytes<'a>(&'a [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> Option<u8> {
        let (&b, rest) = self.0.split_first()?;
        self.0 = rest;
        Some(b)
    }

    fn u64_raw(&mut self) -> Option<u64> {
        let (head, rest) = self.0.split_first_chunk::<8>()?;
        self.0 = rest;
        Some(u64::from_le_bytes(*head))
    }

    /// A size, stride or offset: small mostly, and every 64-bit shape of trouble too (powers of
    /// two and their neighbours, values near u64::MAX and i64::MAX, anything at all).
    fn num(&mut self) -> Option<u64> {
        let tag = self.u8()?;
        let small = u64::from(tag >> 3);
        Some(match tag & 7 {
            0..=3 => small % 9,
            4 => self.u64_raw()?,
            5 => (1u64 << (small % 64)).wrapping_add(u64::from(self.u8()? % 5)).wrapping_sub(2),
            6 => u64::MAX - small,
            _ => (i64::MAX as u64).wrapping_add(small).wrapping_sub(8),
        })
    }

    /// A signed argument (dims, starts, lengths, steps) from the same shapes of values.
    fn int(&mut self) -> Option<i64> {
        let neg = self.u8()? & 1 == 1;
        let v = self.num()? as i64;
        Some(if neg { v.wrapping_neg() } else { v })
    }
}

/// The storage offset of every element of `t`, computed independently of the library in u128
/// (so nothing here can wrap), in row-major order.
fn element_offsets(t: &Tensor) -> Vec<u128> {
    let l = t.layout();
    let mut out = Vec::with_capacity(t.numel());
    let mut index = vec![0usize; l.shape.len()];
    for _ in 0..t.numel() {
        let mut o = l.offset as u128;
        for (i, s) in index.iter().zip(&l.strides) {
            o += *i as u128 * *s as u128;
        }
        out.push(o);
        for d in (0..index.len()).rev() {
            index[d] += 1;
            if index[d] < l.shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    out
}

/// Checks that every element of `view` lies inside its storage, that reading gives the stored
/// values, and that writing through the view reaches them. (`reshape` may copy: a view's storage
/// is whichever it has.)
fn exercise(view: &Tensor) {
    if view.numel() == 0 || view.numel() > READ_LIMIT {
        return;
    }
    let len = view.storage_cell().read().len();
    let stored = strided_view(view, &[len], &[1], 0).expect("a storage views itself").to_vec::<f64>().expect("a storage reads back");
    let offsets = element_offsets(view);
    for &o in &offsets {
        assert!(o < len as u128, "element at {o} outside a storage of {len}: {:?}", view.layout());
    }
    let values = view.to_vec::<f64>().expect("a checked view reads back");
    for (v, &o) in values.iter().zip(&offsets) {
        let s = stored[o as usize];
        assert!(v.to_bits() == s.to_bits() || (v.is_nan() && s.is_nan()), "read {v}, stored {s}");
    }
    // Writes may be refused (an expanded view), never misplaced.
    if view.fill_(Arg::S(Scalar::Int(1))).is_ok() {
        let after = view.to_vec::<f64>().expect("a written view reads back");
        assert!(after.iter().all(|&v| v == 1.0), "{after:?}");
    }
}

/// One view op of `t`, its arguments read from the input; None when the input ran out.
fn view_of(t: &Tensor, bytes: &mut Bytes<'_>) -> Option<rstorch::Result<Tensor>> {
    let op = bytes.u8()?;
    let nd = t.ndim().max(1) as i64;
    let dim = |b: &mut Bytes<'_>| b.u8().map(|d| i64::from(d) % (nd + 1) - 1);
    Some(match op % 12 {
        0 => t.narrow(dim(bytes)?, bytes.int()?, bytes.int()?),
        1 => t.select(dim(bytes)?, bytes.int()?),
        2 => t.transpose(dim(bytes)?, dim(bytes)?),
        3 => {
            let mut sizes = Vec::new();
            for _ in 0..(t.ndim() + usize::from(bytes.u8()? % 2)) {
                sizes.push(bytes.int()?);
            }
            t.expand(&sizes)
        }
        4 => t.unsqueeze(dim(bytes)?),
        5 => {
            if t.ndim() == 0 {
                return Some(Ok(t.clone()));
            }
            let d = usize::from(bytes.u8()?) % t.ndim();
            let (start, end) = (bytes.int()?, bytes.int()?);
            t.slice(d, Some(start), Some(end), bytes.int()?)
        }
        6 => t.unfold(dim(bytes)?, bytes.int()?, bytes.int()?),
        7 => t.diagonal(bytes.int()?, dim(bytes)?, dim(bytes)?),
        8 => {
            let n = usize::from(bytes.u8()? % 4);
            let (mut size, mut stride) = (Vec::new(), Vec::new());
            for _ in 0..n {
                size.push(bytes.int()?);
                stride.push(bytes.int()?);
            }
            let offset = if bytes.u8()? % 2 == 0 { None } else { Some(bytes.int()?) };
            t.as_strided(&size, &stride, offset)
        }
        9 => {
            let mut dims: Vec<i64> = (0..t.ndim() as i64).collect();
            if let Some(r) = bytes.u8() {
                let n = dims.len().max(1);
                dims.rotate_left(usize::from(r) % n);
            }
            t.permute(&dims)
        }
        10 => t.reshape(&[bytes.int()?, -1]),
        _ => t.squeeze(),
    })
}

fuzz_target!(|input: &[u8]| {
    let mut bytes = Bytes(input);
    let (Some(dt), Some(ndim)) = (bytes.u8(), bytes.u8()) else {
        return;
    };
    let dtype = DType::ALL[usize::from(dt) % DType::ALL.len()];
    let (mut shape, mut strides) = (Vec::new(), Vec::new());
    for _ in 0..ndim % 6 {
        let (Some(size), Some(stride)) = (bytes.num(), bytes.num()) else {
            return;
        };
        shape.push(size as usize);
        strides.push(stride as usize);
    }
    let (Some(offset), Some(n_views)) = (bytes.num(), bytes.u8()) else {
        return;
    };
    // The views' arguments come next; what follows them is the storage.
    let Some(split) = bytes.u8() else { return };
    let cut = (usize::from(split) * 2).min(bytes.0.len());
    let (mut args, data) = (Bytes(&bytes.0[..cut]), &bytes.0[cut..]);
    let Ok(flat) = tensor_from_bytes(data, dtype) else {
        return;
    };
    let Ok(mut view) = strided_view(&flat, &shape, &strides, offset as usize) else {
        return;
    };
    assert!(view.numel() <= flat.numel(), "a checkpoint view never has more elements than its storage");
    exercise(&view);
    for _ in 0..n_views % 6 {
        let Some(next) = view_of(&view, &mut args) else {
            break;
        };
        if let Ok(v) = next {
            exercise(&v);
            view = v;
        }
    }
});
