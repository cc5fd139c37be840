//! Tests of the unary op table's declarations (`ops/unary.rs`): consistency of codes and names,
//! parameters reaching kernel and shader, a declared op running and differentiating.

use super::*;
use crate::error::Result;
use crate::tensor::Tensor;

#[test]
fn declarations_are_consistent() {
    let all: Vec<UnaryOp> = DECLARED.iter().chain(DECLARED_WITH_PARAMS).copied().collect();
    // Every op with a device kernel has a code of its own (`none`: the special functions of
    // `torch.special` the device has no kernel for).
    let with_kernel: Vec<UnaryOp> = all.iter().copied().filter(|op| op.wgpu_kernel().is_some()).collect();
    assert!(all.iter().all(|op| op.wgpu_kernel().is_some() || op.name().starts_with("special_")));
    let mut codes: Vec<u32> = with_kernel.iter().map(|op| op.wgpu_kernel().expect("filtered").0).collect();
    codes.push(36); // pow with a number
    codes.sort_unstable();
    codes.dedup();
    assert_eq!(codes.len(), with_kernel.len() + 1, "two ops share a shader op code");
    let mut names = PY_METHODS.to_vec();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), PY_METHODS.len(), "a Python name is bound twice");
    assert!(PY_IN_PLACE.iter().all(|n| PY_METHODS.contains(n)));
    assert!(all.iter().all(|op| !op.node_base().is_empty() && !op.name().is_empty()));
    assert!(DECLARED.iter().all(|op| !op.inplace_keeps_result()));
}

#[test]
fn parameters_reach_the_kernel_and_the_shader() -> Result<()> {
    let op = UnaryOp::Threshold { threshold: 0.5, value: -2.0 };
    assert_eq!(op.wgpu_kernel(), Some((40, 0.5, -2.0)));
    let x = Tensor::from_vec(vec![f64::NAN, 1.0, 0.2, 0.5], &[4])?;
    let y = x.unary(op)?.to_vec::<f64>()?;
    assert!(y[0].is_nan());
    assert_eq!(&y[1..], &[1.0, -2.0, -2.0]);
    Ok(())
}

#[test]
fn a_declared_op_runs_and_differentiates() -> Result<()> {
    let x = Tensor::from_vec(vec![-0.5f64, 0.0, 0.25], &[3])?;
    x.set_requires_grad(true)?;
    let y = x.unary(UnaryOp::Atanh)?;
    assert_eq!(y.grad_fn().expect("recorded").name(), "AtanhBackward0");
    let want: Vec<f64> = [-0.5f64, 0.0, 0.25].iter().map(|v| v.atanh()).collect();
    for (g, w) in y.to_vec::<f64>()?.iter().zip(&want) {
        assert!((g - w).abs() < 1e-15);
    }
    let g = crate::autograd::grad(&[y.sum(None, false)?], &[None], &[x], false, false, false)?;
    let got = g[0].as_ref().expect("a gradient").to_vec::<f64>()?;
    for (g, v) in got.iter().zip([-0.5f64, 0.0, 0.25]) {
        assert!((g - 1.0 / (1.0 - v * v)).abs() < 1e-15);
    }
    Ok(())
}
