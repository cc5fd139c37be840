//! `einsum`: operands are contracted left to right, each pair as one batched matrix product.

use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::tensor::Tensor;

/// A tensor whose dims carry labels (one char each; `...` dims get private labels).
struct Labelled {
    t: Tensor,
    labels: Vec<char>,
}

fn bad(msg: impl Into<String>) -> Error {
    Error::Runtime(format!("einsum(): {}", msg.into()))
}

/// Labels for the dims that `...` stands for: private-use chars, aligned from the right.
fn ellipsis_labels(n: usize, max: usize) -> Vec<char> {
    (max - n..max).map(|i| char::from_u32(0xE000 + i as u32).unwrap()).collect()
}

fn parse_operand(spec: &str, t: &Tensor, max_ellipsis: &mut usize, k: usize) -> Result<(Vec<char>, Option<usize>)> {
    let spec = spec.trim();
    let explicit: Vec<char> = spec.replace("...", "").chars().collect();
    if let Some(c) = explicit.iter().find(|c| !c.is_ascii_alphabetic()) {
        return Err(bad(format!("invalid subscript given at index {k} in the equation string, subscripts must be in [a-zA-Z] (got '{c}')")));
    }
    let has_ellipsis = spec.contains("...");
    let n_ell = if has_ellipsis {
        t.ndim().checked_sub(explicit.len()).ok_or_else(|| bad(format!("the number of subscripts in the equation ({}) is more than the number of dimensions ({}) for operand {k}", explicit.len(), t.ndim())))?
    } else {
        if explicit.len() != t.ndim() {
            return Err(bad(format!(
                "the number of subscripts in the equation ({}) does not match the number of dimensions ({}) for operand {k} and no ellipsis was given",
                explicit.len(),
                t.ndim()
            )));
        }
        0
    };
    *max_ellipsis = (*max_ellipsis).max(n_ell);
    Ok((explicit, has_ellipsis.then_some(n_ell)))
}

/// Merges repeated labels of one operand into a diagonal view.
fn diagonalize(t: &Tensor, labels: &[char]) -> Result<Labelled> {
    let l = t.layout();
    let mut out_labels: Vec<char> = vec![];
    let mut shape = vec![];
    let mut strides = vec![];
    for (i, &c) in labels.iter().enumerate() {
        match out_labels.iter().position(|&o| o == c) {
            Some(j) => {
                if shape[j] != l.shape[i] {
                    return Err(bad(format!("subscript {c} is repeated for operand but the sizes don't match, {} != {}", shape[j], l.shape[i])));
                }
                strides[j] += l.strides[i];
            }
            None => {
                out_labels.push(c);
                shape.push(l.shape[i]);
                strides.push(l.strides[i]);
            }
        }
    }
    let diagonal = Layout { shape, strides, offset: l.offset };
    Ok(Labelled { t: t.view_op(diagonal, super::view::ViewKind::Take("DiagonalBackward0")), labels: out_labels })
}

impl Labelled {
    fn size(&self, c: char) -> usize {
        self.labels.iter().position(|&l| l == c).map_or(1, |i| self.t.shape()[i])
    }

    /// Sums out every label not in `keep`.
    fn sum_out(self, keep: &[char]) -> Result<Labelled> {
        let dims: Vec<i64> = (0..self.labels.len()).filter(|&i| !keep.contains(&self.labels[i])).map(|i| i as i64).collect();
        if dims.is_empty() {
            return Ok(self);
        }
        let labels = self.labels.iter().copied().filter(|c| keep.contains(c)).collect();
        Ok(Labelled { t: self.t.sum(Some(&dims), false)?, labels })
    }

    /// Permutes to `order` (a permutation of the labels), broadcasting size-1 dims to `sizes`.
    fn arrange(&self, order: &[char], sizes: &[usize]) -> Result<Tensor> {
        let perm: Vec<i64> = order.iter().map(|c| self.labels.iter().position(|l| l == c).unwrap() as i64).collect();
        let t = self.t.permute(&perm)?;
        t.expand(&sizes.iter().map(|&s| s as i64).collect::<Vec<_>>())
    }
}

fn contract(a: Labelled, b: Labelled, keep: &[char]) -> Result<Labelled> {
    let keep_a: Vec<char> = a.labels.iter().copied().filter(|c| keep.contains(c) || b.labels.contains(c)).collect();
    let keep_b: Vec<char> = b.labels.iter().copied().filter(|c| keep.contains(c) || a.labels.contains(c)).collect();
    let (a, b) = (a.sum_out(&keep_a)?, b.sum_out(&keep_b)?);
    let in_both = |c: &char| a.labels.contains(c) && b.labels.contains(c);
    let batch: Vec<char> = a.labels.iter().copied().filter(|c| in_both(c) && keep.contains(c)).collect();
    let summed: Vec<char> = a.labels.iter().copied().filter(|c| in_both(c) && !keep.contains(c)).collect();
    let a_only: Vec<char> = a.labels.iter().copied().filter(|c| !b.labels.contains(c)).collect();
    let b_only: Vec<char> = b.labels.iter().copied().filter(|c| !a.labels.contains(c)).collect();
    let size = |c: &char| {
        let (sa, sb) = (a.size(*c), b.size(*c));
        if sa != sb && sa != 1 && sb != 1 {
            Err(bad(format!("operands do not broadcast with remapped shapes (original->remapped): subscript {c} has sizes {sa} and {sb}")))
        } else {
            Ok(sa.max(sb))
        }
    };
    let sizes = |cs: &[char]| cs.iter().map(size).collect::<Result<Vec<usize>>>();
    let (bs, ks, ms, ns) = (sizes(&batch)?, sizes(&summed)?, sizes(&a_only)?, sizes(&b_only)?);
    let prod = |v: &[usize]| v.iter().product::<usize>() as i64;
    let order_a: Vec<char> = [batch.clone(), a_only.clone(), summed.clone()].concat();
    let order_b: Vec<char> = [batch.clone(), summed.clone(), b_only.clone()].concat();
    let ta = a.arrange(&order_a, &[bs.clone(), ms.clone(), ks.clone()].concat())?.reshape(&[prod(&bs), prod(&ms), prod(&ks)])?;
    let tb = b.arrange(&order_b, &[bs.clone(), ks.clone(), ns.clone()].concat())?.reshape(&[prod(&bs), prod(&ks), prod(&ns)])?;
    let out_shape: Vec<i64> = [bs, ms, ns].concat().iter().map(|&s| s as i64).collect();
    let t = ta.bmm(&tb)?.reshape(&out_shape)?;
    Ok(Labelled { t, labels: [batch, a_only, b_only].concat() })
}

pub fn einsum(equation: &str, operands: &[Tensor]) -> Result<Tensor> {
    let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (eq.clone(), None),
    };
    let specs: Vec<&str> = lhs.split(',').collect();
    if specs.len() != operands.len() {
        return Err(bad(format!("more operands were provided than specified in the equation")));
    }
    if operands.is_empty() {
        return Err(bad("must provide at least one operand"));
    }
    let mut max_ell = 0;
    let parsed = specs
        .iter()
        .zip(operands)
        .enumerate()
        .map(|(k, (s, t))| parse_operand(s, t, &mut max_ell, k).map(|p| (s, p)))
        .collect::<Result<Vec<_>>>()?;
    let mut labelled = Vec::new();
    for ((spec, (_, n_ell)), t) in parsed.iter().zip(operands) {
        let mut labels = vec![];
        let (before, after) = match spec.split_once("...") {
            Some((b, a)) => (b, a),
            None => (&spec[..], ""),
        };
        labels.extend(before.chars());
        if let Some(n) = n_ell {
            labels.extend(ellipsis_labels(*n, max_ell));
        }
        labels.extend(after.chars());
        labelled.push(diagonalize(t, &labels)?);
    }
    let ell_all = ellipsis_labels(max_ell, max_ell);
    let output: Vec<char> = match rhs {
        Some(r) => {
            let (b, a) = r.split_once("...").map_or((r.as_str(), ""), |(b, a)| (b, a));
            let mut out: Vec<char> = b.chars().collect();
            if r.contains("...") {
                out.extend(&ell_all);
            }
            out.extend(a.chars());
            for c in &out {
                if !ell_all.contains(c) && !labelled.iter().any(|l| l.labels.contains(c)) {
                    return Err(bad(format!("output subscript {c} does not appear in the equation for any input operand")));
                }
            }
            out
        }
        None => {
            let mut counts: Vec<(char, usize)> = vec![];
            for s in &specs {
                for c in s.replace("...", "").chars() {
                    match counts.iter_mut().find(|(k, _)| *k == c) {
                        Some(e) => e.1 += 1,
                        None => counts.push((c, 1)),
                    }
                }
            }
            let mut once: Vec<char> = counts.into_iter().filter(|&(_, n)| n == 1).map(|(c, _)| c).collect();
            once.sort_unstable();
            [ell_all.clone(), once].concat()
        }
    };
    let mut iter = labelled.into_iter();
    let mut acc = iter.next().unwrap();
    let rest: Vec<Labelled> = iter.collect();
    for (i, next) in rest.into_iter().enumerate() {
        let _ = i;
        let mut keep = output.clone();
        // Labels still needed by operands not yet contracted stay too.
        keep.extend(specs[i + 2..].iter().flat_map(|s| s.chars()));
        keep.extend(&ell_all);
        acc = contract(acc, next, &keep)?;
    }
    let acc = acc.sum_out(&output)?;
    let sizes: Vec<usize> = output.iter().map(|&c| acc.size(c)).collect();
    let missing: Vec<char> = output.iter().copied().filter(|c| !acc.labels.contains(c)).collect();
    if acc.labels == output && acc.t.shape() == sizes.as_slice() {
        // Already in the output's order (the last contraction's view, as PyTorch ends).
        return acc.t.contiguous();
    }
    let mut t = acc.t.clone();
    let mut labels = acc.labels.clone();
    for c in missing {
        t = t.unsqueeze(-1)?;
        labels.push(c);
    }
    Labelled { t, labels }.arrange(&output, &sizes)?.contiguous()
}
