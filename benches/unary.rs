//! Elementwise functions over 16M contiguous f32: a transcendental (exp, sigmoid) and a cheap one (relu).

mod common;

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rstorch::tensor::UnaryOp;

fn unary(c: &mut Criterion) {
    let mut g = c.benchmark_group("unary_f32_16M");
    g.sample_size(10).measurement_time(Duration::from_secs(5)); // 10 x ~50 ms sigmoid needs > 3 s
    g.throughput(Throughput::Elements(common::LARGE as u64));
    let x = common::rand_f32(&[common::LARGE]);
    for (name, op) in [("exp", UnaryOp::Exp), ("relu", UnaryOp::Relu), ("sigmoid", UnaryOp::Sigmoid)] {
        g.bench_function(name, |bench| bench.iter(|| x.unary(op).unwrap()));
    }
    g.finish();
}

criterion_group!(benches, unary);
criterion_main!(benches);
