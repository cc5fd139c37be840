//! `torch.nn.functional.interpolate` (and `upsample`): nearest, nearest-exact, area and the linear
//! modes, with PyTorch's argument checks and its `align_corners` / `scale_factor` /
//! `recompute_scale_factor` semantics. The nearest and linear modes are written in tensor ops
//! under PyTorch's node (`Upsample{Mode}{N}DBackward0`), so their gradient, to any order, is the
//! recorded body's; area is adaptive average pooling, as in PyTorch.

use crate::autograd::named;
use crate::cpu::buffer::collect_n;
use crate::error::{Error, Result};
use crate::tensor::float_class::FloatClass;
use crate::tensor::{BinaryOp, ReduceOp, Scalar, Tensor};

use super::avg_pool::{adaptive_avg_pool1d, adaptive_avg_pool2d, check_pool_input};
use super::output_size::check_output_size;

/// How `interpolate` computes an output value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Nearest,
    NearestExact,
    Area,
    /// Linear interpolation over this many spatial dims (linear, bilinear, trilinear).
    Linear(usize),
}

impl Mode {
    /// The mode of PyTorch's name; None for a mode rstorch does not have.
    fn parse(mode: &str) -> Option<Mode> {
        Some(match mode {
            "nearest" => Mode::Nearest,
            "nearest-exact" => Mode::NearestExact,
            "area" => Mode::Area,
            "linear" => Mode::Linear(1),
            "bilinear" => Mode::Linear(2),
            "trilinear" => Mode::Linear(3),
            _ => return None,
        })
    }
}

/// `F.interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor,
/// antialias)` over the dims after (N, C): `size` or `scale_factor` holds one value per spatial
/// dim (exactly one of them is given).
pub fn interpolate(
    input: &Tensor,
    size: Option<&[i64]>,
    scale_factor: Option<&[f64]>,
    mode: &str,
    align_corners: Option<bool>,
    recompute_scale_factor: Option<bool>,
    antialias: bool,
) -> Result<Tensor> {
    if input.ndim() < 3 {
        return Err(Error::Value(format!("Input Error: Only 3D, 4D and 5D input Tensors supported (got {}D)", input.ndim())));
    }
    let spatial = input.ndim() - 2;
    let parsed = Mode::parse(mode);
    if matches!(parsed, Some(Mode::Nearest | Mode::NearestExact | Mode::Area)) && align_corners.is_some() {
        return Err(Error::Value(
            "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear".into(),
        ));
    }
    if antialias {
        return Err(Error::NotImplemented("interpolate: antialias=True is not supported".into()));
    }
    let in_sizes = &input.shape()[2..];
    let (sizes, mut factors) = output_sizes(in_sizes, size, scale_factor)?;
    check_output_size(input, &sizes)?;
    if recompute_scale_factor == Some(true) {
        factors = None;
    }
    let factor = |a: usize| factors.as_ref().map(|f| f[a]);
    if parsed != Some(Mode::Area) {
        check_sizes(in_sizes, &sizes)?;
    }
    let Some(parsed) = parsed else {
        return Err(Error::NotImplemented(format!("Input Error: interpolation mode '{mode}' is not supported")));
    };
    // PyTorch's node: Upsample{Kind}{N}DBackward0.
    let node = |kind: &str| format!("Upsample{kind}{spatial}DBackward0");
    match parsed {
        Mode::Nearest | Mode::NearestExact => {
            let exact = parsed == Mode::NearestExact;
            named(&node(if exact { "NearestExact" } else { "Nearest" }), &[input], || {
                let mut out = input.clone();
                for (a, &n) in in_sizes.iter().enumerate() {
                    let index = nearest_index(n, sizes[a] as usize, factor(a), exact)?;
                    out = out.index_select(2 + a as i64, &index.to_device(input.device())?)?;
                }
                Ok(out)
            })
        }
        // Adaptive average pooling, whose node is its own.
        Mode::Area => match sizes[..] {
            [o] => adaptive_avg_pool1d(input, Some(o)),
            [oh, ow] => adaptive_avg_pool2d(input, [Some(oh), Some(ow)]),
            _ => {
                // No 3-d adaptive pooling: the 2-d op refuses the input, as it did when called.
                check_pool_input("adaptive_avg_pool2d", input, 2)?;
                unreachable!("an input of 5 or more dims has 3 or more spatial dims")
            }
        },
        Mode::Linear(dims) if dims != spatial => {
            Err(Error::NotImplemented(format!("Got {}D input, but {mode} mode needs {}D input", input.ndim(), dims + 2)))
        }
        Mode::Linear(dims) => named(&node(["Linear", "Bilinear", "Trilinear"][dims - 1]), &[input], || {
            let mut out = input.clone();
            for (a, &n) in in_sizes.iter().enumerate() {
                let sources = LinearSources::new(n, sizes[a] as usize, factor(a), align_corners.unwrap_or(false))?;
                out = linear_along(&out, 2 + a, &sources)?;
            }
            Ok(out)
        }),
    }
}

/// The output sizes (and the scale factors, where they were given) from `size` or
/// `scale_factor`, as PyTorch derives and checks them.
fn output_sizes(in_sizes: &[usize], size: Option<&[i64]>, scale_factor: Option<&[f64]>) -> Result<(Vec<i64>, Option<Vec<f64>>)> {
    let spatial = in_sizes.len();
    match (size, scale_factor) {
        (Some(_), Some(_)) => Err(Error::Value("only one of size or scale_factor should be defined".into())),
        (None, None) => Err(Error::Value("either size or scale_factor should be defined".into())),
        (Some(sizes), None) => {
            if sizes.len() != spatial {
                return Err(Error::Value(format!(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of {in_sizes:?} and output size of {sizes:?}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format."
                )));
            }
            Ok((sizes.to_vec(), None))
        }
        (None, Some(factors)) => {
            if factors.len() != spatial {
                return Err(Error::Value(format!(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with spatial dimensions of {in_sizes:?} and scale_factor of shape {factors:?}. Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                )));
            }
            // floor(n * factor) as PyTorch converts it: a value outside int64 (NaN and
            // infinities included) is refused.
            let sizes = in_sizes
                .iter()
                .zip(factors)
                .map(|(&n, &f)| {
                    let v = (n as f64 * f).floor();
                    if v.is_finite() && v >= i64::MIN as f64 && v < i64::MAX as f64 {
                        Ok(v as i64)
                    } else {
                        Err(Error::Runtime("value cannot be converted to type int64_t without overflow".into()))
                    }
                })
                .collect::<Result<_>>()?;
            Ok((sizes, Some(factors.to_vec())))
        }
    }
}

/// PyTorch's error for an empty input or an output size below 1 (a negative or tiny scale).
fn check_sizes(in_sizes: &[usize], out_sizes: &[i64]) -> Result<()> {
    if in_sizes.iter().all(|&n| n > 0) && out_sizes.iter().all(|&n| n > 0) {
        return Ok(());
    }
    // The axes are named from the last: W, then H, then D (PyTorch's `"DHW"[3 - dims:]`, whose
    // negative start counts from the end).
    let names = ["D", "H", "W"];
    let dims = in_sizes.len();
    let skip = if dims <= 3 { 3 - dims } else { 6usize.saturating_sub(dims) };
    let list =
        |sizes: Vec<String>| -> String { names[skip..].iter().zip(sizes).map(|(a, n)| format!("{a}: {n}")).collect::<Vec<_>>().join(", ") };
    let sep = if in_sizes.len() == 1 { " and" } else { "" };
    Err(Error::Runtime(format!(
        "Input and output sizes should be greater than 0, but got input ({}){sep} output ({})",
        list(in_sizes.iter().map(|n| n.to_string()).collect()),
        list(out_sizes.iter().map(|n| n.to_string()).collect())
    )))
}

/// The scale from output to input positions: `1 / factor` where a factor was given (and is not
/// zero), else the sizes' ratio.
fn scale(in_size: usize, out_size: usize, factor: Option<f64>) -> f64 {
    match factor {
        Some(f) if f != 0.0 => 1.0 / f,
        _ => in_size as f64 / out_size as f64,
    }
}

/// For each output position along one axis, the input position it copies (int64). Built on the
/// host in float64 arithmetic (exact below 2**53): a huge size fails at this allocation with the
/// allocator's error.
fn nearest_index(in_size: usize, out_size: usize, factor: Option<f64>, exact: bool) -> Result<Tensor> {
    let scale = scale(in_size, out_size, factor);
    let offset = if exact { 0.5 } else { 0.0 };
    let last = (in_size - 1) as f64;
    let index = collect_n(out_size, (0..out_size).map(|o| ((o as f64 + offset) * scale).floor().min(last) as i64))?;
    Tensor::from_vec(index, &[out_size])
}

/// What linear interpolation reads along one axis: per output position, the two input positions
/// and the weight of the second.
struct LinearSources {
    in_size: usize,
    first: Vec<i64>,
    second: Vec<i64>,
    weight: Vec<f64>,
}

impl LinearSources {
    fn new(in_size: usize, out_size: usize, factor: Option<f64>, align_corners: bool) -> Result<LinearSources> {
        let last = (in_size - 1) as f64;
        let source = |o: usize| {
            let o = o as f64;
            if align_corners {
                if out_size > 1 {
                    o * last / (out_size - 1) as f64
                } else {
                    o * 0.0
                }
            } else {
                ((o + 0.5) * scale(in_size, out_size, factor) - 0.5).max(0.0)
            }
        };
        let src = collect_n(out_size, (0..out_size).map(source))?;
        let first = collect_n(out_size, src.iter().map(|s| s.floor().min(last)))?;
        let second = collect_n(out_size, first.iter().map(|i| (i + 1.0).min(last) as i64))?;
        let weight = collect_n(out_size, src.iter().zip(&first).map(|(s, i)| s - i))?;
        let first = collect_n(out_size, first.into_iter().map(|i| i as i64))?;
        Ok(LinearSources { in_size, first, second, weight })
    }

    fn out_size(&self) -> usize {
        self.first.len()
    }

    /// The (out, in) matrix of the weights (each row holds `1 - w` at the first position it
    /// reads and `w` at the second), in float64.
    fn matrix(&self) -> Result<Tensor> {
        let (n, m) = (self.out_size(), self.in_size);
        let at = |e: usize| {
            let (o, j) = (e / m, (e % m) as i64);
            let w = self.weight[o];
            (1.0 - w) * f64::from(u8::from(j == self.first[o])) + w * f64::from(u8::from(j == self.second[o]))
        };
        Tensor::from_vec(collect_n(n * m, (0..n * m).map(at))?, &[n, m])
    }
}

/// Linear interpolation of `x` along `axis`. A product with the weight matrix is the fast way,
/// but it multiplies every input by a weight, zero or not, so one inf or NaN would spread over
/// the whole line; inputs that are not all finite take the two reads each output makes instead,
/// which keeps them where PyTorch keeps them. (On a device the reads are always taken: asking
/// whether all are finite would wait for it; `Backend::reads_values_without_waiting`.)
fn linear_along(x: &Tensor, axis: usize, sources: &LinearSources) -> Result<Tensor> {
    let (dtype, device) = (x.dtype(), x.device());
    if x.backend().reads_values_without_waiting() && all_finite(x)? {
        let m = sources.matrix()?.to_dtype(dtype)?;
        return x.movedim(axis as i64, -1)?.matmul(&m.t()?)?.movedim(-1, axis as i64);
    }
    let n = sources.out_size();
    let mut shape = vec![1i64; x.ndim()];
    shape[axis] = n as i64;
    let w = Tensor::from_vec(sources.weight.clone(), &[n])?.to_dtype(dtype)?.to_device(device)?.reshape(&shape)?;
    let read = |positions: &[i64]| -> Result<Tensor> {
        let index = Tensor::from_vec(positions.to_vec(), &[n])?.to_device(device)?;
        x.index_select(axis as i64, &index)
    };
    let first = read(&sources.first)?.binary(BinaryOp::Mul, &w.binary_scalar(BinaryOp::Sub, Scalar::Float(1.0), true)?)?;
    first.binary(BinaryOp::Add, &read(&sources.second)?.binary(BinaryOp::Mul, &w)?)
}

fn all_finite(x: &Tensor) -> Result<bool> {
    Ok(x.classify(FloatClass::Finite)?.reduce(ReduceOp::All, None, false)?.item()? == Scalar::Bool(true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::nn::test_support::{grad_of, leaf};

    #[test]
    fn resizes_with_pytorchs_nodes_and_gradients() -> Result<()> {
        let x = leaf(vec![0.0, 1.0, 2.0, 3.0], &[1, 1, 4])?;
        let near = interpolate(&x, Some(&[6]), None, "nearest", None, None, false)?;
        assert_eq!(near.to_vec::<f64>()?, [0.0, 0.0, 1.0, 2.0, 2.0, 3.0]);
        assert_eq!(near.grad_fn().expect("recorded").name(), "UpsampleNearest1DBackward0");
        assert_eq!(grad_of(&near, &x)?, [2.0, 1.0, 2.0, 1.0]);

        let lin = interpolate(&x, None, Some(&[2.0]), "linear", Some(true), None, false)?;
        assert_eq!(lin.grad_fn().expect("recorded").name(), "UpsampleLinear1DBackward0");
        let want: Vec<f64> = (0..8).map(|o| f64::from(o) * 3.0 / 7.0).collect();
        for (g, w) in lin.to_vec::<f64>()?.iter().zip(&want) {
            assert!((g - w).abs() < 1e-12);
        }
        // Every output's two weights sum to one: the gradient sums to the output count.
        assert!((grad_of(&lin, &x)?.iter().sum::<f64>() - 8.0).abs() < 1e-12);

        let area = interpolate(&x, Some(&[2]), None, "area", None, None, false)?;
        assert_eq!(area.to_vec::<f64>()?, [0.5, 2.5]);
        Ok(())
    }

    #[test]
    fn argument_errors_are_pytorchs() -> Result<()> {
        let x = Tensor::zeros(&[1, 1, 4, 4], crate::dtype::DType::F32)?;
        let err = |r: Result<Tensor>| r.expect_err("refused").to_string();
        assert_eq!(
            err(interpolate(&x, None, Some(&[-1.0, 2.0]), "nearest", None, None, false)),
            "Input and output sizes should be greater than 0, but got input (H: 4, W: 4) output (H: -4, W: 8)"
        );
        assert_eq!(
            err(interpolate(&x, None, Some(&[f64::NAN, 1.0]), "nearest", None, None, false)),
            "value cannot be converted to type int64_t without overflow"
        );
        assert_eq!(
            err(interpolate(&x, Some(&[2, 2]), None, "bicubic", None, None, false)),
            "Input Error: interpolation mode 'bicubic' is not supported"
        );
        assert_eq!(err(interpolate(&x, Some(&[2, 2]), None, "linear", None, None, false)), "Got 4D input, but linear mode needs 3D input");
        Ok(())
    }
}
