//! 3-d convolutions computed by the 2-d kernels: the depth taps of the kernel become input
//! channels of a 2-d convolution over the height and width (one image per output depth), and a
//! transposed 3-d convolution spreads the 2-d transposed convolution of each input depth over
//! the output depths its taps reach. The 2-d kernels (rayon-parallel on the CPU, WGSL on wgpu)
//! do the arithmetic; the views and pads around them are ordinary differentiable ops, so every
//! gradient (and gradient of a gradient) follows.

use crate::error::Result;
use crate::ops::conv_geometry::{conv_output_size, conv_transpose_output_size, ConvArgs};
use crate::ops::nn::pad::constant_pad;
use crate::tensor::conv::check_same_dtype;
use crate::tensor::{Scalar, Tensor};

fn dims(v: &[usize]) -> Vec<i64> {
    v.iter().map(|&x| x as i64).collect()
}

impl Tensor {
    /// `conv3d` of a batched input (N, C, D, H, W) with a weight (O, C / groups, kd, kh, kw),
    /// padded by `pads` (one per axis), checked in PyTorch's order: the bias's dtype, the
    /// shapes, the weight's dtype.
    pub(crate) fn conv3d(&self, weight: &Tensor, bias: Option<&Tensor>, args: &ConvArgs, pads: &[usize]) -> Result<Tensor> {
        if let Some(b) = bias {
            check_same_dtype(self, b)?;
        }
        let out =
            conv_output_size(self.shape(), weight.shape(), bias.map(Tensor::shape), args.stride(), pads, args.dilation(), args.groups())?;
        check_same_dtype(self, weight)?;
        let (x, w) = (self.shape(), weight.shape());
        let (n, c, g, kd) = (x[0], x[1], args.groups(), w[2]);
        let (sd, dd) = (args.stride()[0], args.dilation()[0]);
        let input =
            if pads[0] > 0 { constant_pad(self, &[0, 0, 0, 0, pads[0] as i64, pads[0] as i64], Scalar::Float(0.0))? } else { self.clone() };
        // Windows along the depth: (N, C, Do, H, W, span), every dilation-th element a tap.
        let windows = input.unfold(2, ((kd - 1) * dd + 1) as i64, sd as i64)?.slice(5, None, None, dd as i64)?;
        // Channels of the 2-d input ordered (group, depth tap, channel), as the weight's.
        let images = windows.reshape(&dims(&[n, g, c / g, out[0], x[3], x[4], kd]))?.permute(&[0, 3, 1, 6, 2, 4, 5])?.reshape(&dims(&[
            n * out[0],
            c * kd,
            x[3],
            x[4],
        ]))?;
        let w2 = weight.permute(&[0, 2, 1, 3, 4])?.reshape(&dims(&[w[0], kd * w[1], w[3], w[4]]))?;
        let inner = args.inner_axes();
        let y = images.conv2d(&w2, bias, &inner.params_2d(&pads[1..]))?;
        let (ho, wo) = (y.shape()[2], y.shape()[3]);
        y.reshape(&dims(&[n, out[0], w[0], ho, wo]))?.permute(&[0, 2, 1, 3, 4])?.contiguous()
    }

    /// `conv_transpose3d` of a batched input (N, C, D, H, W) with a weight
    /// (C, O / groups, kd, kh, kw), without bias, checked in PyTorch's order.
    pub(crate) fn conv_transpose3d(&self, weight: &Tensor, args: &ConvArgs) -> Result<Tensor> {
        let out = conv_transpose_output_size(
            self.shape(),
            weight.shape(),
            args.stride(),
            args.padding(),
            args.output_padding(),
            args.dilation(),
            args.groups(),
        )?;
        check_same_dtype(self, weight)?;
        let (x, w) = (self.shape(), weight.shape());
        let (n, di, g, kd, og) = (x[0], x[2], args.groups(), w[2], w[1]);
        let (sd, pd, dd) = (args.stride()[0], args.padding()[0], args.dilation()[0]);
        // One 2-d transposed convolution per input depth, its output channels ordered (group,
        // depth tap, channel) as the reshaped weight's.
        let images = self.permute(&[0, 2, 1, 3, 4])?.reshape(&dims(&[n * di, x[1], x[3], x[4]]))?;
        let w2 = weight.permute(&[0, 2, 1, 3, 4])?.reshape(&dims(&[w[0], kd * og, w[3], w[4]]))?;
        let inner = args.inner_axes();
        let y = images.conv_transpose2d(&w2, &inner.params_2d(inner.padding()))?;
        let (ho, wo) = (y.shape()[2], y.shape()[3]);
        // (N, G, O / G, Ho, Wo, taps, Di): input depth i at tap k lands on padded depth
        // i * stride + k * dilation.
        let y = y.reshape(&dims(&[n, di, g, kd, og, ho, wo]))?.permute(&[0, 2, 4, 5, 6, 3, 1])?;
        let span = (out[0] + pd).max((kd - 1) * dd + di * sd);
        let mut total: Option<Tensor> = None;
        for k in 0..kd {
            let tap = y.select(5, k as i64)?.unsqueeze(-1)?;
            let spread = constant_pad(&tap, &[0, sd as i64 - 1], Scalar::Float(0.0))?.reshape(&dims(&[n, g, og, ho, wo, di * sd]))?;
            let before = k * dd;
            let placed = constant_pad(&spread, &[before as i64, (span - before - di * sd) as i64], Scalar::Float(0.0))?;
            total = Some(match total {
                Some(t) => t.binary(crate::tensor::BinaryOp::Add, &placed)?,
                None => placed,
            });
        }
        let total = total.expect("a 3-d weight has at least one depth tap");
        total.narrow(-1, pd as i64, out[0] as i64)?.reshape(&dims(&[n, g * og, ho, wo, out[0]]))?.permute(&[0, 1, 4, 2, 3])?.contiguous()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filled(shape: &[usize], seed: f64) -> Tensor {
        let n: usize = shape.iter().product();
        Tensor::from_vec((0..n).map(|i| (1.37 * i as f64 + seed).sin()).collect::<Vec<f64>>(), shape).unwrap()
    }

    /// The 3-d convolution by its definition, one output element at a time.
    fn naive(x: &Tensor, w: &Tensor, args: &ConvArgs) -> (Vec<f64>, Vec<usize>) {
        let (xs, ws) = (x.shape().to_vec(), w.shape().to_vec());
        let (xv, wv) = (x.to_vec::<f64>().unwrap(), w.to_vec::<f64>().unwrap());
        let out = conv_output_size(&xs, &ws, None, args.stride(), args.padding(), args.dilation(), args.groups()).unwrap();
        let (cg, og) = (ws[1], ws[0] / args.groups());
        let mut y = vec![];
        for n in 0..xs[0] {
            for o in 0..ws[0] {
                for z in 0..out[0] {
                    for r in 0..out[1] {
                        for c in 0..out[2] {
                            let mut acc = 0.0;
                            for ci in 0..cg {
                                for kz in 0..ws[2] {
                                    for kr in 0..ws[3] {
                                        for kc in 0..ws[4] {
                                            let pos = [(z, kz), (r, kr), (c, kc)]
                                                .iter()
                                                .enumerate()
                                                .map(|(a, &(o, k))| {
                                                    (o * args.stride()[a] + k * args.dilation()[a]) as i64 - args.padding()[a] as i64
                                                })
                                                .collect::<Vec<i64>>();
                                            if (0..3).any(|a| pos[a] < 0 || pos[a] >= xs[2 + a] as i64) {
                                                continue;
                                            }
                                            let chan = (o / og) * cg + ci;
                                            let xi = (((n * xs[1] + chan) * xs[2] + pos[0] as usize) * xs[3] + pos[1] as usize) * xs[4]
                                                + pos[2] as usize;
                                            let wi = (((o * cg + ci) * ws[2] + kz) * ws[3] + kr) * ws[4] + kc;
                                            acc += xv[xi] * wv[wi];
                                        }
                                    }
                                }
                            }
                            y.push(acc);
                        }
                    }
                }
            }
        }
        (y, vec![xs[0], ws[0], out[0], out[1], out[2]])
    }

    #[test]
    fn conv3d_is_the_definitions_sum() {
        let args = ConvArgs::new(&[2, 1, 2], &[1, 0, 2], &[0; 3], &[1, 2, 1], 2).unwrap();
        let (x, w) = (filled(&[2, 4, 5, 6, 5], 0.3), filled(&[6, 2, 3, 2, 3], 1.1));
        let y = x.conv3d(&w, None, &args, args.padding()).unwrap();
        let (want, shape) = naive(&x, &w, &args);
        assert_eq!(y.shape(), shape.as_slice());
        for (a, b) in y.to_vec::<f64>().unwrap().iter().zip(&want) {
            assert!((a - b).abs() < 1e-12, "{a} {b}");
        }
    }

    /// conv_transpose3d is the adjoint of conv3d: <conv3d(x), y> = <x, conv_transpose3d(y)>.
    #[test]
    fn conv_transpose3d_is_the_adjoint_of_conv3d() {
        let args = ConvArgs::new(&[2, 3, 1], &[1, 0, 1], &[1, 1, 0], &[1, 1, 2], 2).unwrap();
        let (x, w) = (filled(&[2, 4, 8, 9, 6], 0.5), filled(&[6, 2, 3, 2, 2], 0.9));
        let y = x.conv3d(&w, None, &args, args.padding()).unwrap();
        let dy = filled(y.shape(), 2.0);
        let back = dy.conv_transpose3d(&w, &args).unwrap();
        assert_eq!(back.shape(), x.shape());
        let dot =
            |a: &Tensor, b: &Tensor| a.to_vec::<f64>().unwrap().iter().zip(b.to_vec::<f64>().unwrap()).map(|(p, q)| p * q).sum::<f64>();
        assert!((dot(&y, &dy) - dot(&x, &back)).abs() < 1e-9);
    }
}
