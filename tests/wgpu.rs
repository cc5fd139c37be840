//! The wgpu backend against the CPU: every kernel on strided and broadcast inputs (dtype casts,
//! int64 arithmetic, comparisons, where, arg-reductions, gathers and scatters included),
//! autograd through device tensors, and the errors for ops and dtypes it does not run yet. Each test
//! passes without running when no adapter exists.
#![cfg(feature = "wgpu")]

use rstorch::tensor::{BinaryOp, ReduceOp, UnaryOp};
use rstorch::{DType, Device, Scalar, Tensor};

const GPU: Device = Device::Wgpu(0);

fn gpu() -> bool {
    let ok = rstorch::dispatch::gpu().is_available();
    if !ok {
        eprintln!("no wgpu adapter: skipped");
    }
    ok
}

/// Deterministic values in [-2, 2) without a RNG dependency.
fn values(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2654435761).wrapping_add(1);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s % 4000) as f32 / 1000.0 - 2.0
        })
        .collect()
}

fn cpu_tensor(shape: &[usize], seed: u32) -> Tensor {
    Tensor::from_vec(values(shape.iter().product(), seed), shape).unwrap()
}

fn assert_close(got: &Tensor, want: &Tensor, tol: f32) {
    assert_close_for(got, want, tol, "");
}

fn assert_close_for(got: &Tensor, want: &Tensor, tol: f32, what: &str) {
    assert_eq!(got.shape(), want.shape(), "{what}");
    assert_eq!(got.device(), GPU, "{what}: result left the device");
    let (g, w) = (got.to_vec::<f32>().unwrap(), want.to_vec::<f32>().unwrap());
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let ok = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= tol * (1.0 + b.abs());
        assert!(ok, "{what} element {i}: wgpu {a} vs cpu {b}");
    }
}

#[test]
fn round_trip_keeps_bits_of_every_dtype() {
    if !gpu() {
        return;
    }
    let base = Tensor::from_vec((0..10i64).map(|v| v * 1_000_000_007 - 3).collect(), &[2, 5]).unwrap();
    for d in DType::ALL {
        let t = base.to_dtype(d).unwrap();
        let g = t.to_device(GPU).unwrap();
        assert_eq!(g.device(), GPU);
        let back = g.to_device(Device::Cpu).unwrap();
        assert_eq!(back.to_vec::<f64>().unwrap(), t.to_vec::<f64>().unwrap(), "{}", d.name());
        // A transposed view reads back through its strides.
        let tt = g.transpose(0, 1).unwrap();
        assert_eq!(tt.to_vec::<f64>().unwrap(), t.transpose(0, 1).unwrap().to_vec::<f64>().unwrap(), "{}", d.name());
    }
}

#[test]
fn strided_copies_of_four_and_eight_byte_dtypes() {
    if !gpu() {
        return;
    }
    for d in [DType::F32, DType::I32, DType::I64, DType::F64] {
        let t = cpu_tensor(&[3, 4, 5], 1).to_dtype(d).unwrap();
        let view = t.permute(&[2, 0, 1]).unwrap().narrow(1, 1, 2).unwrap();
        let g = t.to_device(GPU).unwrap().permute(&[2, 0, 1]).unwrap().narrow(1, 1, 2).unwrap();
        let c = g.contiguous().unwrap();
        assert!(c.is_contiguous());
        assert_eq!(c.to_vec::<f64>().unwrap(), view.to_vec::<f64>().unwrap());
    }
}

#[test]
fn unary_ops_match_the_cpu() {
    if !gpu() {
        return;
    }
    let x = cpu_tensor(&[7, 9], 2);
    // Strided input: the transpose.
    let xs = x.transpose(0, 1).unwrap();
    let gx = x.to_device(GPU).unwrap().transpose(0, 1).unwrap();
    use UnaryOp::*;
    let ops = [
        Neg,
        Abs,
        Sign,
        Relu,
        Floor,
        Ceil,
        Round,
        Trunc,
        Exp,
        Exp2,
        Log,
        Log2,
        Log10,
        Log1p,
        Expm1,
        Sqrt,
        Rsqrt,
        Sin,
        Cos,
        Tan,
        Asin,
        Acos,
        Atan,
        Sinh,
        Cosh,
        Tanh,
        Sigmoid,
        Gelu,
        GeluTanh,
        Silu,
        Erf,
        Reciprocal,
        Softplus { beta: 2.0, threshold: 3.0 },
        LeakyRelu { slope: 0.1 },
        Elu { alpha: 1.5 },
        PowScalar(2.0),
        PowScalar(3.0),
        PowScalar(0.5),
        PowScalar(-1.5),
        PowScalar(0.0),
    ];
    for op in ops {
        let want = xs.unary(op).unwrap();
        let got = gx.unary(op).unwrap();
        // Drivers differ in how closely their builtins round; 1e-4 is far inside the parity floor.
        assert_close_for(&got, &want, 1e-4, &format!("{op:?}"));
    }
}

#[test]
fn special_values_follow_ieee() {
    if !gpu() {
        return;
    }
    let x = Tensor::from_vec(vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 0.0, -0.0, -1.0, 1e-30, 100.0], &[8]).unwrap();
    let gx = x.to_device(GPU).unwrap();
    use UnaryOp::*;
    for op in [Exp, Log, Log1p, Expm1, Sqrt, Tanh, Sigmoid, Relu, Sign, Erf, Asin, PowScalar(0.0), PowScalar(0.5), PowScalar(3.0)] {
        assert_close_for(&gx.unary(op).unwrap(), &x.unary(op).unwrap(), 1e-5, &format!("{op:?}"));
    }
}

#[test]
fn binary_ops_broadcast_like_the_cpu() {
    if !gpu() {
        return;
    }
    let a = cpu_tensor(&[4, 1, 6], 3);
    let b = cpu_tensor(&[5, 6], 4).unary(UnaryOp::Abs).unwrap().binary_scalar(BinaryOp::Add, Scalar::Float(0.5), false).unwrap();
    let (ga, gb) = (a.to_device(GPU).unwrap(), b.to_device(GPU).unwrap());
    use BinaryOp::*;
    for op in [Add, Sub, Mul, Div, FloorDiv, Rem, Pow, Maximum, Minimum, Atan2, ReluGrad] {
        assert_close_for(&ga.binary(op, &gb).unwrap(), &a.binary(op, &b).unwrap(), 1e-5, &format!("{op:?}"));
        // Python numbers and zero-dim CPU tensors ride along as scalars, on either side.
        assert_close(
            &ga.binary_scalar(op, Scalar::Float(1.5), false).unwrap(),
            &a.binary_scalar(op, Scalar::Float(1.5), false).unwrap(),
            1e-5,
        );
        assert_close(&gb.binary_scalar(op, Scalar::Int(2), true).unwrap(), &b.binary_scalar(op, Scalar::Int(2), true).unwrap(), 1e-5);
        let s = Tensor::scalar_tensor(Scalar::Float(-0.75), DType::F32).unwrap();
        assert_close(&ga.binary(op, &s).unwrap(), &a.binary(op, &s).unwrap(), 1e-5);
    }
}

#[test]
fn in_place_updates_write_through_views() {
    if !gpu() {
        return;
    }
    let x = cpu_tensor(&[4, 6], 5);
    let g = x.to_device(GPU).unwrap();
    let col = g.narrow(1, 2, 3).unwrap();
    col.binary_(BinaryOp::Mul, rstorch::tensor::arith::Arg::S(Scalar::Float(10.0))).unwrap();
    let want = x.copy_as(DType::F32).unwrap();
    want.narrow(1, 2, 3).unwrap().binary_(BinaryOp::Mul, rstorch::tensor::arith::Arg::S(Scalar::Float(10.0))).unwrap();
    assert_close(&g, &want, 0.0);
    // copy_ across devices, both ways.
    let host = Tensor::zeros(&[4, 6], DType::F32).unwrap();
    host.copy_(&g).unwrap();
    assert_eq!(host.to_vec::<f32>().unwrap(), want.to_vec::<f32>().unwrap());
    g.copy_(&Tensor::ones(&[6], DType::F32).unwrap()).unwrap();
    assert_eq!(g.to_vec::<f32>().unwrap(), vec![1.0; 24]);
}

#[test]
fn reductions_match_and_repeat_bitwise() {
    if !gpu() {
        return;
    }
    for shape in [vec![3, 5, 7], vec![2, 70_000], vec![300, 3], vec![1], vec![0, 4]] {
        let x = cpu_tensor(&shape, 6);
        let g = x.to_device(GPU).unwrap();
        let nd = shape.len() as i64;
        let dim_sets: Vec<Option<Vec<i64>>> = vec![None, Some(vec![nd - 1]), Some(vec![0]), Some((0..nd).collect())];
        for dims in dim_sets {
            for keep in [false, true] {
                let d = dims.as_deref();
                assert_close(&g.sum(d, keep).unwrap(), &x.sum(d, keep).unwrap(), 1e-4);
                if x.numel() > 0 {
                    assert_close(&g.mean(d, keep).unwrap(), &x.mean(d, keep).unwrap(), 1e-4);
                    for op in [ReduceOp::Max, ReduceOp::Min] {
                        assert_close(&g.reduce(op, d, keep).unwrap(), &x.reduce(op, d, keep).unwrap(), 0.0);
                    }
                }
            }
        }
        // Strided input, and the same sum twice gives the same bits.
        if shape.len() > 1 && x.numel() > 0 {
            let t = g.transpose(0, 1).unwrap();
            let (s1, s2) = (t.sum(Some(&[1]), false).unwrap(), t.sum(Some(&[1]), false).unwrap());
            assert_eq!(s1.to_vec::<f32>().unwrap(), s2.to_vec::<f32>().unwrap());
            assert_close(&s1, &x.transpose(0, 1).unwrap().sum(Some(&[1]), false).unwrap(), 1e-4);
        }
    }
    // A long sum splits into chunks and still matches.
    let x = cpu_tensor(&[1 << 20], 7);
    let total = x.to_device(GPU).unwrap().sum(None, false).unwrap();
    assert_close(&total, &x.to_dtype(DType::F64).unwrap().sum(None, false).unwrap().to_dtype(DType::F32).unwrap(), 1e-4);
}

#[test]
fn matmul_matches_on_transposed_and_batched_operands() {
    if !gpu() {
        return;
    }
    for (m, k, n) in [(1, 1, 1), (3, 5, 2), (64, 64, 64), (65, 17, 130), (100, 3, 1)] {
        let a = cpu_tensor(&[m, k], 8);
        let b = cpu_tensor(&[k, n], 9);
        let (ga, gb) = (a.to_device(GPU).unwrap(), b.to_device(GPU).unwrap());
        assert_close(&ga.matmul(&gb).unwrap(), &a.matmul(&b).unwrap(), 1e-4);
        // Transposed operands.
        let (at, bt) = (a.transpose(0, 1).unwrap().contiguous().unwrap(), b.transpose(0, 1).unwrap().contiguous().unwrap());
        let (gat, gbt) = (at.to_device(GPU).unwrap().transpose(0, 1).unwrap(), bt.to_device(GPU).unwrap().transpose(0, 1).unwrap());
        assert_close(&gat.matmul(&gbt).unwrap(), &a.matmul(&b).unwrap(), 1e-4);
    }
    // Broadcast batches ([2, 1, m, k] @ [3, k, n]) and matrix-vector products.
    let a = cpu_tensor(&[2, 1, 4, 6], 10);
    let b = cpu_tensor(&[3, 6, 5], 11);
    let v = cpu_tensor(&[6], 12);
    let (ga, gb, gv) = (a.to_device(GPU).unwrap(), b.to_device(GPU).unwrap(), v.to_device(GPU).unwrap());
    assert_close(&ga.matmul(&gb).unwrap(), &a.matmul(&b).unwrap(), 1e-4);
    assert_close(&ga.matmul(&gv).unwrap(), &a.matmul(&v).unwrap(), 1e-4);
    assert_close(&gv.matmul(&gv).unwrap(), &v.matmul(&v).unwrap(), 1e-4);
}

#[test]
fn autograd_runs_unchanged_over_device_tensors() {
    if !gpu() {
        return;
    }
    let leaf = |t: &Tensor| {
        let t = t.detach();
        t.set_requires_grad(true).unwrap();
        t
    };
    let (a, b, c) = (cpu_tensor(&[3, 4], 13), cpu_tensor(&[3, 4], 14), cpu_tensor(&[4], 15));
    let w = cpu_tensor(&[4, 2], 16);
    let run = |dev: Device| {
        let ts: Vec<Tensor> = [&a, &b, &c, &w].iter().map(|t| leaf(&t.to_device(dev).unwrap())).collect();
        let y = ts[0].binary(BinaryOp::Mul, &ts[1]).unwrap().binary(BinaryOp::Add, &ts[2]).unwrap();
        let z = y.unary(UnaryOp::Tanh).unwrap().matmul(&ts[3]).unwrap().mean(None, false).unwrap();
        rstorch::autograd::backward(std::slice::from_ref(&z), &[None], false, false, None).unwrap();
        (z, ts.iter().map(|t| t.grad().unwrap()).collect::<Vec<_>>())
    };
    let (zc, gc) = run(Device::Cpu);
    let (zg, gg) = run(GPU);
    assert_close(&zg, &zc, 1e-5);
    for (g, c) in gg.iter().zip(&gc) {
        assert_close(g, c, 1e-5);
    }
    // The gradient of a transfer goes back to the device the input came from.
    let x = leaf(&a);
    let y = x.to_device(GPU).unwrap().sum(None, false).unwrap();
    rstorch::autograd::backward(&[y], &[None], false, false, None).unwrap();
    assert_eq!(x.grad().unwrap().device(), Device::Cpu);
    assert_eq!(x.grad().unwrap().to_vec::<f32>().unwrap(), vec![1.0; 12]);
}

#[test]
fn missing_kernels_and_mixed_devices_are_clear_errors() {
    if !gpu() {
        return;
    }
    let x = cpu_tensor(&[2, 3], 17);
    let g = x.to_device(GPU).unwrap();
    let err = g.binary(BinaryOp::Add, &x).unwrap_err().to_string();
    assert!(err.starts_with("Expected all tensors to be on the same device, but found at least two devices, wgpu:0 and cpu!"), "{err}");
    let err = x.matmul(&g.transpose(0, 1).unwrap()).unwrap_err().to_string();
    assert!(err.contains("Expected all tensors to be on the same device"), "{err}");
    // Integer products are exact on the device.
    let xl = x.to_dtype(DType::I64).unwrap();
    let gl = xl.to_device(GPU).unwrap();
    assert_same(&gl.matmul(&gl.transpose(0, 1).unwrap()).unwrap(), &xl.matmul(&xl.transpose(0, 1).unwrap()).unwrap(), "int64 matmul");
    // Half products compute in float32 and round once, as on the CPU.
    for dt in [DType::F16, DType::BF16] {
        let xh = x.to_dtype(dt).unwrap();
        let gh = xh.to_device(GPU).unwrap();
        let got = gh.matmul(&gh.transpose(0, 1).unwrap()).unwrap();
        assert_eq!(got.dtype(), dt);
        let want = xh.matmul(&xh.transpose(0, 1).unwrap()).unwrap();
        assert_close_for(&got.to_dtype(DType::F32).unwrap(), &want.to_dtype(DType::F32).unwrap(), 1e-2, "half matmul");
    }
    // An op without a wgpu kernel for a dtype names itself, the dtype and the backend.
    let gh = x.to_dtype(DType::F16).unwrap().to_device(GPU).unwrap();
    let sgd = rstorch::optim::Sgd { lr: 0.1, momentum: 0.0, dampening: 0.0, weight_decay: 0.0, nesterov: false, maximize: false };
    let err = rstorch::optim::sgd_step(std::slice::from_ref(&gh), std::slice::from_ref(&gh), vec![None], &sgd).unwrap_err();
    assert_eq!(err.kind(), rstorch::error::ErrorKind::NotImplemented);
    assert!(
        err.to_string().contains("'optimizer step'") && err.to_string().contains("float16") && err.to_string().contains("'wgpu'"),
        "{err}"
    );
    // Float64 computes where the adapter has float64 shaders, and says what it lacks elsewhere.
    let gd = x.to_dtype(DType::F64).unwrap().to_device(GPU).unwrap();
    if rstorch::dispatch::gpu().supports_f64(0).unwrap() {
        let sum = gd.binary(BinaryOp::Add, &gd).unwrap();
        assert_same(&sum, &x.to_dtype(DType::F64).unwrap().binary(BinaryOp::Add, &x.to_dtype(DType::F64).unwrap()).unwrap(), "f64 add");
        assert_same(&gd.to_dtype(DType::F32).unwrap(), &x, "f64 to f32");
    } else {
        let err = gd.binary(BinaryOp::Add, &gd).unwrap_err().to_string();
        assert!(err.contains("float64") && err.contains("SHADER_F64"), "{err}");
        let err = gd.to_dtype(DType::F32).unwrap_err().to_string();
        assert!(err.contains("to(float32)") && err.contains("SHADER_F64"), "{err}");
    }
    // Integer pow is exact on the device.
    let xi = x.to_dtype(DType::I64).unwrap().unary(UnaryOp::Abs).unwrap();
    let gi = gl.unary(UnaryOp::Abs).unwrap();
    assert_same(&gi.binary(BinaryOp::Pow, &gi).unwrap(), &xi.binary(BinaryOp::Pow, &xi).unwrap(), "int pow");
    // A device that does not exist.
    let err = x.to_device(Device::Wgpu(99)).unwrap_err().to_string();
    assert!(err.contains("wgpu:99"), "{err}");
}

/// `f` on the device and on the CPU give the same values, dtype and shape.
fn assert_same(got: &Tensor, want: &Tensor, what: &str) {
    assert_eq!(got.device(), GPU, "{what}: result left the device");
    assert_eq!((got.dtype(), got.shape()), (want.dtype(), want.shape()), "{what}");
    let (g, w) = (got.to_vec::<f64>().unwrap(), want.to_vec::<f64>().unwrap());
    assert!(g.iter().zip(&w).all(|(a, b)| a == b || (a.is_nan() && b.is_nan())), "{what}: {g:?} vs {w:?}");
}

#[test]
fn casts_between_dtypes_match_the_cpu() {
    if !gpu() {
        return;
    }
    let x = Tensor::from_vec(vec![-3.7f32, -1.0, -0.5, 0.0, 0.5, 2.5, 126.9, -129.0, 255.0, 70000.0, 3e9, f32::NAN], &[3, 4]).unwrap();
    let kinds = [DType::Bool, DType::U8, DType::I8, DType::I16, DType::I32, DType::I64, DType::F16, DType::BF16, DType::F32];
    for src in kinds {
        let t = x.to_dtype(src).unwrap();
        let g = t.to_device(GPU).unwrap();
        for dst in kinds {
            let what = format!("{} -> {}", src.name(), dst.name());
            // NaN only survives float targets; compare through the bits' values elsewhere.
            let (got, want) = (g.transpose(0, 1).unwrap().to_dtype(dst).unwrap(), t.transpose(0, 1).unwrap().to_dtype(dst).unwrap());
            let (gv, wv) = (got.to_vec::<f64>().unwrap(), want.to_vec::<f64>().unwrap());
            assert_eq!(got.dtype(), dst, "{what}");
            for (a, b) in gv.iter().zip(&wv) {
                assert!(a == b || (a.is_nan() && b.is_nan()), "{what}: {gv:?} vs {wv:?}");
            }
        }
    }
}

#[test]
fn int64_arithmetic_and_comparisons_are_exact() {
    if !gpu() {
        return;
    }
    let a = Tensor::from_vec(vec![-7i64, -1, 0, 1, 7, (1 << 40) + 3, -(1 << 50), 1 << 62, 123456789012, -5], &[10]).unwrap();
    let b = Tensor::from_vec(vec![2i64, 3, -5, 4, -3, 7, -13, 3, -1000003, 1 << 33], &[10]).unwrap();
    let (ga, gb) = (a.to_device(GPU).unwrap(), b.to_device(GPU).unwrap());
    use BinaryOp::*;
    for op in [Add, Sub, Mul, FloorDiv, Rem, Maximum, Minimum, BitAnd, BitOr, BitXor, Eq, Ne, Lt, Le, Gt, Ge, LogicalAnd, LogicalXor] {
        assert_same(&ga.binary(op, &gb).unwrap(), &a.binary(op, &b).unwrap(), op.name());
        assert_same(
            &ga.binary_scalar(op, Scalar::Int(-3), false).unwrap(),
            &a.binary_scalar(op, Scalar::Int(-3), false).unwrap(),
            op.name(),
        );
    }
    for op in [UnaryOp::Neg, UnaryOp::Abs, UnaryOp::Sign, UnaryOp::BitwiseNot, UnaryOp::LogicalNot] {
        assert_same(&ga.unary(op).unwrap(), &a.unary(op).unwrap(), op.name());
    }
    let zero = Tensor::from_vec(vec![0i64; 10], &[10]).unwrap().to_device(GPU).unwrap();
    assert!(ga.binary(FloorDiv, &zero).unwrap_err().to_string().contains("ZeroDivisionError"));
}

#[test]
fn where_reductions_of_flags_and_arg_reductions() {
    if !gpu() {
        return;
    }
    let x = cpu_tensor(&[5, 7], 40);
    let g = x.to_device(GPU).unwrap();
    let (c, gc) = (
        x.binary_scalar(BinaryOp::Gt, Scalar::Float(0.3), false).unwrap(),
        g.binary_scalar(BinaryOp::Gt, Scalar::Float(0.3), false).unwrap(),
    );
    assert_same(&gc, &c, "gt");
    let y = x.transpose(0, 1).unwrap().contiguous().unwrap().transpose(0, 1).unwrap();
    let gy = y.to_device(GPU).unwrap();
    use rstorch::tensor::arith::Arg;
    assert_same(&Tensor::where_(&gc, Arg::T(&g), Arg::T(&gy)).unwrap(), &Tensor::where_(&c, Arg::T(&x), Arg::T(&y)).unwrap(), "where");
    assert_same(
        &Tensor::where_(&gc, Arg::S(Scalar::Int(2)), Arg::T(&gy)).unwrap(),
        &Tensor::where_(&c, Arg::S(Scalar::Int(2)), Arg::T(&y)).unwrap(),
        "where scalar",
    );
    for op in [ReduceOp::Any, ReduceOp::All, ReduceOp::Sum] {
        for dims in [None, Some(&[0i64][..]), Some(&[1i64][..])] {
            assert_same(&gc.reduce(op, dims, false).unwrap(), &c.reduce(op, dims, false).unwrap(), op.name());
        }
    }
    for max in [true, false] {
        for d in [0, 1] {
            let (gv, gi) = g.max_min_dim(d, false, max).unwrap();
            let (v, i) = x.max_min_dim(d, false, max).unwrap();
            assert_same(&gi, &i, "arg");
            assert_same(&gv, &v, "values");
        }
    }
}

#[test]
fn gathers_and_scatters_match_the_cpu() {
    if !gpu() {
        return;
    }
    let x = cpu_tensor(&[4, 6], 50);
    let g = x.to_device(GPU).unwrap();
    let idx = Tensor::from_vec(vec![3i64, 0, 3, 1, 3], &[5]).unwrap();
    let gidx = idx.to_device(GPU).unwrap();
    assert_same(&g.index_select(0, &gidx).unwrap(), &x.index_select(0, &idx).unwrap(), "index_select");
    let src = cpu_tensor(&[5, 6], 51);
    let gsrc = src.to_device(GPU).unwrap();
    // Repeated indices sum in index order, as on the CPU: the same bits.
    assert_same(
        &g.index_add(0, &gidx, &gsrc, Scalar::Float(0.5)).unwrap(),
        &x.index_add(0, &idx, &src, Scalar::Float(0.5)).unwrap(),
        "index_add",
    );
    let gi2 = Tensor::from_vec(vec![0i64, 5, 5, 1, 1, 0, 2, 2, 2, 5, 4, 4], &[4, 3]).unwrap();
    let ggi2 = gi2.to_device(GPU).unwrap();
    assert_same(&g.gather(1, &ggi2).unwrap(), &x.gather(1, &gi2).unwrap(), "gather");
    let s2 = cpu_tensor(&[4, 3], 52);
    let gs2 = s2.to_device(GPU).unwrap();
    use rstorch::tensor::arith::Arg;
    for add in [true, false] {
        assert_same(&g.scatter(1, &ggi2, Arg::T(&gs2), add).unwrap(), &x.scatter(1, &gi2, Arg::T(&s2), add).unwrap(), "scatter");
    }
}

#[test]
fn scans_and_sorts_match_the_cpu() {
    if !gpu() {
        return;
    }
    let mut v = values(3 * 40, 60);
    v[5] = f32::NAN;
    v[7] = v[9];
    let x = Tensor::from_vec(v, &[3, 40]).unwrap();
    let g = x.to_device(GPU).unwrap();
    for d in [0, 1] {
        assert_close(&g.cumulative(d, false).unwrap(), &x.cumulative(d, false).unwrap(), 1e-5);
        for desc in [false, true] {
            let ((gv, gi), (v, i)) = (g.sort(d, desc).unwrap(), x.sort(d, desc).unwrap());
            assert_same(&gi, &i, "sort indices");
            assert_same(&gv, &v, "sort values");
        }
    }
}

#[test]
fn scatter_through_indices_on_the_device() {
    if !gpu() {
        return;
    }
    use rstorch::tensor::arith::Arg;
    // Repeated targets: the last in index order wins, as on the CPU.
    let x = cpu_tensor(&[3, 4], 31);
    let src = cpu_tensor(&[3, 5], 32);
    let index = Tensor::from_vec(vec![0i64, 3, 3, 1, 0, 2, 2, 2, 2, 1, 1, 0, 3, 0, 1], &[3, 5]).unwrap();
    let want = x.scatter(1, &index, Arg::T(&src), false).unwrap();
    let (gx, gi, gs) = (x.to_device(GPU).unwrap(), index.to_device(GPU).unwrap(), src.to_device(GPU).unwrap());
    assert_same(&gx.scatter(1, &gi, Arg::T(&gs), false).unwrap(), &want, "scatter");
    // The kernel itself: the indices never leave the device, and the flag reports the range.
    let out = x.to_device(GPU).unwrap();
    assert!(rstorch::dispatch::gpu().scatter_index(out.array(), 1, gi.array(), gs.array()).unwrap());
    assert_same(&out, &want, "scatter_index");
    let bad = Tensor::from_vec(vec![0i64, 4, 1], &[1, 3]).unwrap().to_device(GPU).unwrap();
    let out = x.to_device(GPU).unwrap();
    let one = Tensor::from_vec(vec![1f32; 3], &[1, 3]).unwrap().to_device(GPU).unwrap();
    assert!(!rstorch::dispatch::gpu().scatter_index(out.array(), 1, bad.array(), one.array()).unwrap());
    let err = gx.scatter(1, &bad, Arg::T(&one), false).unwrap_err();
    let cpu_err = x.scatter(1, &bad.to_device(Device::Cpu).unwrap(), Arg::T(&one.to_device(Device::Cpu).unwrap()), false).unwrap_err();
    assert_eq!((err.kind(), err.to_string()), (cpu_err.kind(), cpu_err.to_string()));
}

#[test]
fn layer_norm_and_batch_norm_match_the_cpu_forward_and_backward() {
    if !gpu() {
        return;
    }
    let leaf = |t: &Tensor| {
        let t = t.detach();
        t.set_requires_grad(true).unwrap();
        t
    };
    // Rows longer than a workgroup; channels over (batch, plane).
    let inputs = [
        cpu_tensor(&[6, 300], 21),
        cpu_tensor(&[300], 22),
        cpu_tensor(&[300], 23),
        cpu_tensor(&[4, 3, 5, 5], 24),
        cpu_tensor(&[3], 25),
        cpu_tensor(&[3], 26),
    ];
    let run = |dev: Device, training: bool| {
        let ts: Vec<Tensor> = inputs.iter().map(|t| leaf(&t.to_device(dev).unwrap())).collect();
        let y = ts[0].layer_norm(&ts[0].shape()[ts[0].ndim() - 1..], Some(&ts[1]), Some(&ts[2]), 1e-5).unwrap();
        let running =
            (Tensor::zeros_on(&[3], DType::F32, dev).unwrap(), Tensor::full_on(&[3], Scalar::Float(1.5), DType::F32, dev).unwrap());
        let (z, mean, var) =
            ts[3].batch_norm_with_stats(Some(&ts[4]), Some(&ts[5]), Some((&running.0, &running.1)), training, 1e-5).unwrap();
        for (t, name) in [(&y, "NativeLayerNormBackward0"), (&z, "NativeBatchNormBackward0")] {
            assert_eq!(t.grad_fn().unwrap().name(), name);
        }
        let squares = |t: &Tensor| t.binary(BinaryOp::Mul, &t.unary(UnaryOp::Tanh).unwrap()).unwrap().sum(None, false).unwrap();
        let loss = squares(&y).binary(BinaryOp::Add, &squares(&z)).unwrap();
        rstorch::autograd::backward(&[loss], &[None], false, false, None).unwrap();
        let mut out = vec![y, z, mean, var];
        out.extend(ts.iter().map(|t| t.grad().unwrap()));
        out
    };
    for training in [true, false] {
        let (cpu, gpu) = (run(Device::Cpu, training), run(GPU, training));
        let names = ["layer_norm", "batch_norm", "mean", "var", "dx", "dweight", "dbias", "bn dx", "bn dweight", "bn dbias"];
        for ((g, c), what) in gpu.iter().zip(&cpu).zip(names) {
            assert_close_for(g, c, 1e-4, &format!("{what} (training {training})"));
        }
    }
}
