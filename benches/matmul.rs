//! f32 matrix multiplication at three sizes, reported as FLOP/s (2·n³ per product).

mod common;

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn matmul(c: &mut Criterion) {
    let mut g = c.benchmark_group("matmul_f32");
    g.sample_size(10);
    for n in [256usize, 1024, 2048] {
        let a = common::rand_f32(&[n, n]);
        let b = common::rand_f32(&[n, n]);
        // Criterion's "elements" throughput reads as FLOP/s here.
        g.throughput(Throughput::Elements(2 * (n as u64).pow(3)));
        g.measurement_time(Duration::from_secs(if n >= 2048 { 8 } else { 3 }));
        g.bench_with_input(BenchmarkId::from_parameter(format!("{n}x{n}")), &n, |bench, _| bench.iter(|| a.matmul(&b).unwrap()));
    }
    g.finish();
}

criterion_group!(benches, matmul);
criterion_main!(benches);
