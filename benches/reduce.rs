//! Sums over 16M f32: all dims, along the contiguous dim (rows) and across it (columns).

mod common;

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn reduce(c: &mut Criterion) {
    let mut g = c.benchmark_group("sum_f32");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    g.throughput(Throughput::Elements(common::LARGE as u64));

    let flat = common::rand_f32(&[common::LARGE]);
    g.bench_function("all_16M", |bench| bench.iter(|| flat.sum(None, false).unwrap()));

    let m = common::rand_f32(&[4096, 4096]);
    // dim 1 reduces each contiguous row; dim 0 reduces down columns, striding 4096 elements.
    g.bench_function("dim1_4096x4096", |bench| bench.iter(|| m.sum(Some(&[1]), false).unwrap()));
    g.bench_function("dim0_4096x4096", |bench| bench.iter(|| m.sum(Some(&[0]), false).unwrap()));
    g.finish();
}

criterion_group!(benches, reduce);
criterion_main!(benches);
