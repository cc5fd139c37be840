//! Fuzzes the safetensors reader: any bytes give a clean error or tensors that fit in the input.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok((tensors, _meta)) = rstorch::serialize::safetensors_load(data) {
        let mut total = 0usize;
        for (_, t) in &tensors {
            let bytes = rstorch::serialize::tensor_bytes(t).expect("a loaded tensor reads back");
            assert_eq!(bytes.len(), t.numel() * t.element_size());
            total += bytes.len();
        }
        // The tensors tile the data section, so together they never exceed the input.
        assert!(total <= data.len());
    }
});
