//! Tensors to and from bytes: the safetensors format and raw storages read from checkpoints.
//!
//! Every reader here takes untrusted bytes: sizes are checked before anything is allocated, and
//! no allocation exceeds the length of the input it came from.

use std::collections::HashMap;

use safetensors::tensor::{Dtype as StDtype, SafeTensors, TensorView};

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::{CpuStorage, Storage};
use crate::tensor::Tensor;

// The byte images below are the in-memory images of the elements; both formats are little-endian.
#[cfg(target_endian = "big")]
compile_error!("rstorch's serialization assumes a little-endian host");

fn corrupt(msg: impl std::fmt::Display) -> Error {
    Error::Deserialize(msg.to_string())
}

/// The safetensors name of a dtype (every rstorch dtype has one).
pub fn safetensors_dtype(dtype: DType) -> StDtype {
    match dtype {
        DType::Bool => StDtype::BOOL,
        DType::U8 => StDtype::U8,
        DType::I8 => StDtype::I8,
        DType::I16 => StDtype::I16,
        DType::I32 => StDtype::I32,
        DType::I64 => StDtype::I64,
        DType::F16 => StDtype::F16,
        DType::BF16 => StDtype::BF16,
        DType::F32 => StDtype::F32,
        DType::F64 => StDtype::F64,
    }
}

fn dtype_of_safetensors(dtype: StDtype) -> Result<DType> {
    Ok(match dtype {
        StDtype::BOOL => DType::Bool,
        StDtype::U8 => DType::U8,
        StDtype::I8 => DType::I8,
        StDtype::I16 => DType::I16,
        StDtype::I32 => DType::I32,
        StDtype::I64 => DType::I64,
        StDtype::F16 => DType::F16,
        StDtype::BF16 => DType::BF16,
        StDtype::F32 => DType::F32,
        StDtype::F64 => DType::F64,
        other => return Err(corrupt(format!("safetensors dtype {other:?} has no rstorch equivalent"))),
    })
}

/// The elements of `t` in row-major order as bytes (views are gathered into fresh contiguous data).
pub fn tensor_bytes(t: &Tensor) -> Result<Vec<u8>> {
    if t.numel() == 0 {
        return Ok(Vec::new());
    }
    // Saving reads a device tensor back first.
    let c = t.detach().to_device(crate::Device::Cpu)?.contiguous()?;
    let size = c.element_size();
    crate::with_dtype!(c.dtype(), T => c.with_slice::<T, _>("save", |s, l| {
        let elems = &s[l.offset..l.offset + l.numel()];
        // SAFETY: every element type is plain old data (bool is one byte, 0 or 1), so its
        // in-memory image is `len * size` initialised bytes.
        crate::cpu::buffer::copied(unsafe { std::slice::from_raw_parts(elems.as_ptr().cast::<u8>(), elems.len() * size) })
    })?)
}

/// A 1-D tensor whose elements are the bytes `data` read as `dtype`. The length must be a whole
/// number of elements; bool bytes other than 0 and 1 read as true (a Rust `bool` may hold no other
/// value, so they are never copied as they are).
pub fn tensor_from_bytes(data: &[u8], dtype: DType) -> Result<Tensor> {
    let size = dtype.size_in_bytes();
    if !data.len().is_multiple_of(size) {
        return Err(corrupt(format!("{} bytes are not a whole number of {} elements ({size} bytes each)", data.len(), dtype.name())));
    }
    let n = data.len() / size;
    let storage = if dtype == DType::Bool {
        CpuStorage::from_vec(crate::cpu::buffer::collect_n(n, data.iter().map(|&b| b != 0))?)
    } else {
        crate::with_dtype!(dtype, T => {
            let mut v: Vec<T> = crate::cpu::buffer::with_capacity(n)?;
            // SAFETY: `v` has room for `n` elements, i.e. `data.len()` bytes, and every bit
            // pattern is a valid value of the non-bool element types.
            unsafe {
                std::ptr::copy_nonoverlapping(data.as_ptr(), v.as_mut_ptr().cast::<u8>(), data.len());
                v.set_len(n);
            }
            CpuStorage::from_vec(v)
        })
    };
    Ok(Tensor::from_storage(Storage::Cpu(storage), Layout::contiguous(vec![n])?))
}

/// A view of `base`'s storage with the given sizes, strides and offset (in elements), checked to
/// stay inside the storage: the layout a checkpoint declares for a tensor is untrusted. The
/// checks are `as_strided`'s (`Layout::from_user`), and a little stricter, as a file allows.
pub fn strided_view(base: &Tensor, shape: &[usize], strides: &[usize], offset: usize) -> Result<Tensor> {
    if shape.len() != strides.len() {
        return Err(corrupt(format!("tensor has {} sizes but {} strides", shape.len(), strides.len())));
    }
    // PyTorch's sizes, strides and offsets are int64s: a file with larger ones is not PyTorch's.
    let int64s = |v: &[usize]| v.iter().map(|&x| i64::try_from(x)).collect::<std::result::Result<Vec<i64>, _>>();
    let (Ok(sizes), Ok(steps), Ok(start)) = (int64s(shape), int64s(strides), i64::try_from(offset)) else {
        return Err(corrupt(format!("tensor of size {shape:?}, stride {strides:?} and storage offset {offset} does not fit int64s")));
    };
    let storage_len = base.storage_cell().read().len();
    let layout = Layout::from_user(&sizes, &steps, start, base.element_size(), storage_len).map_err(corrupt)?;
    if layout.numel() == 0 && offset > storage_len {
        return Err(corrupt(format!(
            "empty tensor of size {shape:?} has storage offset {offset} past its storage of {storage_len} elements"
        )));
    }
    // Overlapping strides could make a few stored bytes stand for an enormous tensor that any
    // later copy would have to allocate; a checkpoint never needs more elements than it stores.
    if layout.numel() > storage_len {
        return Err(corrupt(format!("tensor of size {shape:?} has {} elements but its storage holds only {storage_len}", layout.numel())));
    }
    Ok(base.with_layout(layout))
}

/// The named tensors of a safetensors file, in the order of their data, and its metadata map.
pub type SafetensorsContents = (Vec<(String, Tensor)>, HashMap<String, String>);

/// One safetensors file as bytes. `tensors` are stored under their names in the given order
/// of preference (the format itself sorts them); `metadata` becomes the `__metadata__` map.
pub fn safetensors_save(tensors: &[(String, Tensor)], metadata: HashMap<String, String>) -> Result<Vec<u8>> {
    let mut data = Vec::with_capacity(tensors.len());
    let mut seen = std::collections::HashSet::new();
    for (name, t) in tensors {
        if !seen.insert(name.as_str()) {
            return Err(Error::Value(format!("two tensors are named {name:?}")));
        }
        data.push((name.clone(), (t.dtype(), t.shape().to_vec(), tensor_bytes(t)?)));
    }
    let views = data
        .iter()
        .map(|(name, (dtype, shape, bytes))| {
            TensorView::new(safetensors_dtype(*dtype), shape.clone(), bytes)
                .map(|v| (name.clone(), v))
                .map_err(|e| Error::Runtime(format!("cannot save tensor {name:?}: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    let meta = if metadata.is_empty() { None } else { Some(metadata) };
    safetensors::tensor::serialize(views, meta).map_err(|e| Error::Runtime(format!("cannot save: {e}")))
}

/// Every tensor of a safetensors file, in the order of their data, with the `__metadata__` map.
/// The format checks that the tensors tile the data exactly, so what is allocated is at most the
/// length of `bytes`.
pub fn safetensors_load(bytes: &[u8]) -> Result<SafetensorsContents> {
    let bad = |e: safetensors::SafeTensorError| corrupt(format!("invalid safetensors data: {e}"));
    // `read_metadata` bounds the header by the input before parsing it and checks that the
    // tensors' offsets tile the data section exactly and match their dtypes and shapes.
    let (header_len, header) = SafeTensors::read_metadata(bytes).map_err(bad)?;
    let data = &bytes[8 + header_len..];
    let mut out = Vec::with_capacity(header.tensors().len());
    for name in header.offset_keys() {
        let info = header.info(&name).ok_or_else(|| corrupt(format!("tensor {name:?} vanished")))?;
        let (start, end) = info.data_offsets;
        let raw = data.get(start..end).ok_or_else(|| corrupt(format!("tensor {name:?} lies outside the file")))?;
        let dtype = dtype_of_safetensors(info.dtype)?;
        let flat = tensor_from_bytes(raw, dtype)?;
        let t = strided_view(&flat, &info.shape, &crate::shape::contiguous_strides(&info.shape)?, 0)?;
        out.push((name, t));
    }
    Ok((out, header.metadata().clone().unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_every_dtype() {
        for d in DType::ALL {
            let t = Tensor::from_vec((0..6i64).collect(), &[6]).unwrap().to_dtype(d).unwrap();
            let t = strided_view(&t, &[2, 3], &[3, 1], 0).unwrap();
            let bytes = safetensors_save(&[("x".into(), t.clone())], HashMap::new()).unwrap();
            let (back, meta) = safetensors_load(&bytes).unwrap();
            assert!(meta.is_empty());
            assert_eq!(back[0].0, "x");
            assert_eq!(back[0].1.dtype(), d);
            assert_eq!(back[0].1.shape(), &[2, 3]);
            assert_eq!(back[0].1.to_vec::<f64>().unwrap(), t.to_vec::<f64>().unwrap());
        }
    }

    #[test]
    fn views_are_saved_as_their_own_data() {
        let t = Tensor::from_vec((0..6).map(|v| v as f32).collect(), &[2, 3]).unwrap();
        let tt = strided_view(&t, &[3, 2], &[1, 3], 0).unwrap();
        let bytes = safetensors_save(&[("t".into(), tt)], HashMap::new()).unwrap();
        let (back, _) = safetensors_load(&bytes).unwrap();
        assert_eq!(back[0].1.to_vec::<f32>().unwrap(), vec![0., 3., 1., 4., 2., 5.]);
    }

    #[test]
    fn strided_view_refuses_to_leave_its_storage() {
        let t = tensor_from_bytes(&[0u8; 16], DType::F32).unwrap();
        assert!(strided_view(&t, &[2, 2], &[2, 1], 0).is_ok());
        assert!(strided_view(&t, &[2, 2], &[2, 1], 1).is_err());
        assert!(strided_view(&t, &[3], &[usize::MAX], 0).is_err());
        assert!(strided_view(&t, &[usize::MAX, 2], &[1, 1], 0).is_err());
        assert!(strided_view(&t, &[0], &[1], 5).is_err());
        assert!(strided_view(&t, &[2], &[1, 1], 0).is_err());
        // A stride of 2**64 - 1 over two elements once wrapped the extent to 0.
        assert!(strided_view(&t, &[2], &[usize::MAX], 0).is_err());
        assert!(strided_view(&t, &[2], &[1], usize::MAX).is_err());
        assert!(strided_view(&t, &[1], &[usize::MAX], 0).is_err());
        assert!(strided_view(&t, &[2, 2], &[1 << 62, 1], 0).is_err());
        // Size-1 dims may have any int64 stride, as in PyTorch.
        assert!(strided_view(&t, &[1, 4], &[i64::MAX as usize, 1], 0).is_ok());
    }

    #[test]
    fn odd_byte_counts_and_bool_bytes() {
        assert!(tensor_from_bytes(&[0u8; 7], DType::F32).is_err());
        let b = tensor_from_bytes(&[0, 1, 7], DType::Bool).unwrap();
        assert_eq!(b.to_vec::<bool>().unwrap(), vec![false, true, true]);
    }

    #[test]
    fn corrupt_headers_are_errors() {
        let mut huge = u64::MAX.to_le_bytes().to_vec();
        huge.extend_from_slice(b"{}");
        assert!(safetensors_load(&huge).is_err());
        assert!(safetensors_load(&[1, 2, 3]).is_err());
        let mut bad_dtype = Vec::new();
        let h = br#"{"x":{"dtype":"Q7","shape":[1],"data_offsets":[0,4]}}"#;
        bad_dtype.extend_from_slice(&(h.len() as u64).to_le_bytes());
        bad_dtype.extend_from_slice(h);
        bad_dtype.extend_from_slice(&[0; 4]);
        assert!(safetensors_load(&bad_dtype).is_err());
    }
}
