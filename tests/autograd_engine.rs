//! The autograd engine from Rust alone (no Python): the chain rule, accumulation into leaves,
//! released graphs, higher-order gradients, unused inputs, saved-tensor versions, grad mode and
//! the teardown of deep graphs.

use rstorch::autograd::{self, GradMode};
use rstorch::tensor::arith::Arg;
use rstorch::tensor::{BinaryOp, UnaryOp};
use rstorch::{Scalar, Tensor};

fn leaf(values: &[f64]) -> Tensor {
    let t = Tensor::from_vec(values.to_vec(), &[values.len()]).unwrap();
    t.set_requires_grad(true).unwrap();
    t
}

fn values(t: &Tensor) -> Vec<f64> {
    t.to_vec::<f64>().unwrap()
}

fn mul(a: &Tensor, b: &Tensor) -> Tensor {
    a.binary(BinaryOp::Mul, b).unwrap()
}

fn total(t: &Tensor) -> Tensor {
    t.sum(None, false).unwrap()
}

#[test]
fn chain_rule_reaches_the_leaf() {
    let x = leaf(&[1.0, -2.0, 3.0]);
    let y = total(&mul(&x, &x).unary(UnaryOp::Exp).unwrap());
    autograd::backward(std::slice::from_ref(&y), &[None], false, false, None).unwrap();
    // d/dx exp(x^2) = 2x exp(x^2)
    let expected: Vec<f64> = [1.0f64, -2.0, 3.0].iter().map(|v| 2.0 * v * (v * v).exp()).collect();
    for (g, e) in values(&x.grad().unwrap()).iter().zip(&expected) {
        assert!((g - e).abs() <= 1e-9 * e.abs().max(1.0), "{g} against {e}");
    }
}

#[test]
fn gradients_accumulate_and_a_released_graph_refuses_a_second_pass() {
    let x = leaf(&[2.0]);
    let y = total(&mul(&x, &x));
    autograd::backward(std::slice::from_ref(&y), &[None], true, false, None).unwrap();
    autograd::backward(std::slice::from_ref(&y), &[None], false, false, None).unwrap();
    assert_eq!(values(&x.grad().unwrap()), vec![8.0]);
    let err = autograd::backward(std::slice::from_ref(&y), &[None], false, false, None).unwrap_err();
    assert!(err.to_string().contains("Trying to backward through the graph a second time"), "{err}");
}

#[test]
fn create_graph_gives_second_derivatives() {
    let x = leaf(&[1.5, -0.5]);
    let cube = x.binary_scalar(BinaryOp::Pow, Scalar::Int(3), false).unwrap();
    let first = autograd::grad(&[total(&cube)], &[None], std::slice::from_ref(&x), true, true, false).unwrap();
    let first = first[0].clone().expect("a first derivative");
    assert_eq!(values(&first), vec![3.0 * 1.5 * 1.5, 3.0 * 0.25]);
    let second = autograd::grad(&[total(&first)], &[None], std::slice::from_ref(&x), false, false, false).unwrap();
    assert_eq!(values(&second[0].clone().unwrap()), vec![6.0 * 1.5, 6.0 * -0.5]);
    // grad() leaves .grad alone.
    assert!(x.grad().is_none());
}

#[test]
fn an_unused_input_is_an_error_unless_allowed() {
    let (x, unused) = (leaf(&[1.0]), leaf(&[1.0]));
    let y = total(&mul(&x, &x));
    let inputs = [x.clone(), unused.clone()];
    let err = autograd::grad(std::slice::from_ref(&y), &[None], &inputs, true, false, false).unwrap_err();
    assert!(err.to_string().contains("appears to not have been used in the graph"), "{err}");
    let got = autograd::grad(std::slice::from_ref(&y), &[None], &inputs, false, false, true).unwrap();
    assert_eq!(values(&got[0].clone().unwrap()), vec![2.0]);
    assert!(got[1].is_none());
}

#[test]
fn a_saved_tensor_changed_in_place_is_refused() {
    let x = leaf(&[1.0, 2.0]);
    let h = x.binary_scalar(BinaryOp::Add, Scalar::Float(1.0), false).unwrap();
    let y = total(&mul(&h, &h));
    h.binary_(BinaryOp::Mul, Arg::S(Scalar::Float(2.0))).unwrap();
    let err = autograd::backward(std::slice::from_ref(&y), &[None], false, false, None).unwrap_err();
    assert!(err.to_string().contains("modified by an inplace operation"), "{err}");
}

#[test]
fn nodes_are_named_as_pytorch_names_them_and_grad_mode_off_records_nothing() {
    let x = leaf(&[1.0]);
    let y = mul(&x, &x);
    assert_eq!(y.grad_fn().expect("a node").name(), "MulBackward0");
    let _off = GradMode::disabled();
    let z = mul(&x, &x);
    assert!(z.grad_fn().is_none() && !z.requires_grad());
}

#[test]
fn a_deep_chain_back_propagates_and_frees_without_recursion() {
    // 200,000 nodes on a test thread's 2 MiB stack: a recursive walk or drop would overflow it.
    let x = leaf(&[0.0]);
    let mut y = x.clone();
    for _ in 0..200_000 {
        y = y.binary_scalar(BinaryOp::Add, Scalar::Float(1.0), false).unwrap();
    }
    assert_eq!(values(&y), vec![200_000.0]);
    autograd::backward(std::slice::from_ref(&y), &[None], false, false, None).unwrap();
    assert_eq!(values(&x.grad().unwrap()), vec![1.0]);
    // A second chain dropped without a backward pass: its saved graph is freed iteratively too.
    let mut z = x.clone();
    for _ in 0..200_000 {
        z = z.binary_scalar(BinaryOp::Mul, Scalar::Float(1.0), false).unwrap();
    }
    drop(z);
}
