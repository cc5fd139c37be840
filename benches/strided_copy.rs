//! `contiguous()` of a transposed 2048x2048 f32 matrix: the strided gather kernel.

mod common;

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn strided_copy(c: &mut Criterion) {
    let mut g = c.benchmark_group("strided_copy_f32");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    let n = 2048usize;
    let t = common::rand_f32(&[n, n]).t().unwrap();
    assert!(!t.is_contiguous(), "a transpose must be a strided view, or this measures nothing");
    g.throughput(Throughput::Bytes((n * n * 4) as u64));
    g.bench_function("transpose_2048x2048", |bench| bench.iter(|| t.contiguous().unwrap()));
    g.finish();
}

criterion_group!(benches, strided_copy);
criterion_main!(benches);
