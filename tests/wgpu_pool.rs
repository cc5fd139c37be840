//! The wgpu buffer pool in steady state: a loop that repeats the same shapes allocates no new
//! buffers after its first steps. A file of its own, so that no other test allocates meanwhile
//! (each test file runs in its own process).
#![cfg(feature = "wgpu")]

use rstorch::tensor::{BinaryOp, UnaryOp};
use rstorch::{Device, Tensor};

const GPU: Device = Device::Wgpu(0);

fn cpu_tensor(shape: &[usize], seed: u32) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::from_vec((0..n).map(|i| ((i as u32 * 7 + seed) % 13) as f32 / 6.0 - 1.0).collect(), shape).unwrap()
}

#[test]
fn steady_state_allocates_nothing() {
    if !rstorch::dispatch::gpu().is_available() {
        eprintln!("no wgpu adapter: skipped");
        return;
    }
    let w = cpu_tensor(&[32, 16], 18).to_device(GPU).unwrap();
    let x = cpu_tensor(&[8, 32], 19).to_device(GPU).unwrap();
    let step = || {
        let h = x.matmul(&w).unwrap().unary(UnaryOp::Relu).unwrap();
        h.binary(BinaryOp::Mul, &h).unwrap().sum(None, false).unwrap().item().unwrap()
    };
    step();
    step();
    let before = rstorch::dispatch::gpu().pool_stats(0).unwrap().created;
    for _ in 0..5 {
        step();
    }
    let after = rstorch::dispatch::gpu().pool_stats(0).unwrap();
    assert_eq!(after.created, before);
    assert!(after.reused > 0);
}
