//! Fuzzes the checkpoint storage reader: raw bytes of any dtype viewed with any sizes, strides and
//! offset either fail cleanly or give a view whose every element lies inside the storage.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rstorch::serialize::{strided_view, tensor_from_bytes};
use rstorch::DType;

fn take_u32(data: &mut &[u8]) -> Option<u32> {
    let (head, rest) = data.split_first_chunk::<4>()?;
    *data = rest;
    Some(u32::from_le_bytes(*head))
}

fuzz_target!(|input: &[u8]| {
    let mut data = input;
    let Some((&dt, rest)) = data.split_first() else { return };
    let Some((&ndim, rest)) = rest.split_first() else { return };
    data = rest;
    let dtype = DType::ALL[dt as usize % DType::ALL.len()];
    let ndim = (ndim % 6) as usize;
    let mut shape = Vec::new();
    let mut strides = Vec::new();
    for _ in 0..ndim {
        // Small sizes mostly, huge ones sometimes: the high bit picks a full 32-bit value.
        let Some(s) = take_u32(&mut data) else { return };
        let Some(st) = take_u32(&mut data) else { return };
        shape.push(if s & 0x8000_0000 != 0 { (s as usize) << 16 } else { (s % 17) as usize });
        strides.push(if st & 0x8000_0000 != 0 { (st as usize) << 16 } else { (st % 33) as usize });
    }
    let Some(offset) = take_u32(&mut data) else { return };
    let Ok(flat) = tensor_from_bytes(data, dtype) else { return };
    if let Ok(view) = strided_view(&flat, &shape, &strides, offset as usize) {
        // Reading every element would fault (or the slice index panic) if the view left its storage.
        let values = view.to_vec::<f64>().expect("a checked view reads back");
        assert_eq!(values.len(), view.numel());
        assert!(view.numel() <= flat.numel());
    }
});
