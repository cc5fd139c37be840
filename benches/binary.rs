//! Elementwise add: memory-bound contiguous, broadcast, and tiny tensors (per-op overhead).

mod common;

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rstorch::tensor::BinaryOp;

fn binary(c: &mut Criterion) {
    let mut g = c.benchmark_group("add_f32");
    g.sample_size(10).measurement_time(Duration::from_secs(3));

    let a = common::rand_f32(&[common::LARGE]);
    let b = common::rand_f32(&[common::LARGE]);
    g.throughput(Throughput::Elements(common::LARGE as u64));
    g.bench_function("contiguous_16M", |bench| bench.iter(|| a.binary(BinaryOp::Add, &b).unwrap()));

    // [4096, 4096] + [4096]: the row vector is re-read with stride 0 along dim 0.
    let m = common::rand_f32(&[4096, 4096]);
    let row = common::rand_f32(&[4096]);
    g.bench_function("broadcast_4096x4096+4096", |bench| bench.iter(|| m.binary(BinaryOp::Add, &row).unwrap()));

    // Four elements: the time is dispatch, promotion and allocation, not arithmetic.
    let x = common::rand_f32(&[4]);
    let y = common::rand_f32(&[4]);
    g.throughput(Throughput::Elements(1)); // report ops/s
    g.sample_size(50);
    g.bench_function("tiny_4", |bench| bench.iter(|| x.binary(BinaryOp::Add, &y).unwrap()));
    g.finish();
}

criterion_group!(benches, binary);
criterion_main!(benches);
