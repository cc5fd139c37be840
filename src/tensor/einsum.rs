//! `einsum`: operands aligned to one label order, then contracted left to right, each pair as
//! one batched matrix product (PyTorch's steps, so the graph has PyTorch's nodes).

use std::collections::VecDeque;

use crate::error::{Error, Result};
use crate::tensor::{BinaryOp, Tensor};

fn bad(msg: impl Into<String>) -> Error {
    Error::Runtime(format!("einsum(): {}", msg.into()))
}

/// One subscript of an operand: a letter, or the `...` standing for the dims between.
#[derive(Clone, Copy, PartialEq)]
enum Sub {
    Label(char),
    Ellipsis,
}

fn parse_subscripts(spec: &str, k: usize) -> Result<Vec<Sub>> {
    let mut subs = vec![];
    let mut rest = spec;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("...") {
            if subs.contains(&Sub::Ellipsis) {
                return Err(bad(format!("found more than one ellipsis (\"...\") in subscripts for operand {k}")));
            }
            subs.push(Sub::Ellipsis);
            rest = &rest[3..];
            continue;
        }
        if !c.is_ascii_alphabetic() {
            return Err(bad(format!(
                "invalid subscript given at index {k} in the equation string, subscripts must be in [a-zA-Z] (got '{c}')"
            )));
        }
        subs.push(Sub::Label(c));
        rest = &rest[c.len_utf8()..];
    }
    Ok(subs)
}

fn to_i64(v: &[usize]) -> Vec<i64> {
    v.iter().map(|&x| x as i64).collect()
}

/// The product of two aligned operands (same number of dims, size 1 where a label is absent),
/// summed over `sum_dims` (kept as size-1 dims): mul when nothing is summed, else permuted and
/// reshaped to one bmm, whose result is viewed and permuted back.
fn sumproduct_pair(left: &Tensor, right: &Tensor, sum_dims: &[usize]) -> Result<Tensor> {
    if sum_dims.is_empty() {
        return left.binary(BinaryOp::Mul, right);
    }
    let (mut left, mut right) = (left.clone(), right.clone());
    let (mut lro, mut lo, mut ro) = (vec![], vec![], vec![]);
    let mut sum_size = 1usize;
    let mismatch = || bad("operands do not broadcast: non-broadcast dimensions must match");
    for i in 0..left.ndim() {
        let (sl, sr) = (left.shape()[i] != 1, right.shape()[i] != 1);
        if sum_dims.contains(&i) {
            if sl && sr {
                if left.shape()[i] != right.shape()[i] {
                    return Err(mismatch());
                }
                sum_size *= left.shape()[i];
            } else if sl {
                left = left.sum(Some(&[i as i64]), true)?;
            } else if sr {
                right = right.sum(Some(&[i as i64]), true)?;
            }
        } else if sl && sr {
            if left.shape()[i] != right.shape()[i] {
                return Err(mismatch());
            }
            lro.push(i);
        } else if sl {
            lo.push(i);
        } else {
            ro.push(i);
        }
    }
    // When every dim only the right one has comes before every dim only the left one has,
    // the two swap sides in the product (as PyTorch's pairing does).
    if !lo.is_empty() && !ro.is_empty() && ro.iter().max() < lo.iter().min() {
        std::mem::swap(&mut left, &mut right);
        std::mem::swap(&mut lo, &mut ro);
    }
    let size = |t: &Tensor, dims: &[usize]| dims.iter().map(|&d| t.shape()[d]).product::<usize>() as i64;
    let (lro_size, lo_size, ro_size) = (size(&left, &lro), size(&left, &lo), size(&right, &ro));
    let lperm: Vec<usize> = [&lro[..], &lo, sum_dims, &ro].concat();
    let rperm: Vec<usize> = [&lro[..], sum_dims, &ro, &lo].concat();
    let mut out_size: Vec<usize> = lro.iter().chain(&lo).map(|&d| left.shape()[d]).collect();
    out_size.extend(sum_dims.iter().map(|_| 1));
    out_size.extend(ro.iter().map(|&d| right.shape()[d]));
    let mut operm = vec![0i64; lperm.len()];
    for (i, &d) in lperm.iter().enumerate() {
        operm[d] = i as i64;
    }
    let l = left.permute(&to_i64(&lperm))?.reshape(&[lro_size, lo_size, sum_size as i64])?;
    let r = right.permute(&to_i64(&rperm))?.reshape(&[lro_size, sum_size as i64, ro_size])?;
    l.bmm(&r)?.view(&to_i64(&out_size))?.permute(&operm)
}

pub fn einsum(equation: &str, operands: &[Tensor]) -> Result<Tensor> {
    let eq: String = equation.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (eq.clone(), None),
    };
    let specs: Vec<&str> = lhs.split(',').collect();
    if operands.is_empty() {
        return Err(bad("must provide at least one operand"));
    }
    if specs.len() > operands.len() {
        return Err(bad("fewer operands were provided than specified in the equation"));
    }
    if specs.len() < operands.len() {
        return Err(bad("more operands were provided than specified in the equation"));
    }
    let subs = specs.iter().enumerate().map(|(k, s)| parse_subscripts(s, k)).collect::<Result<Vec<_>>>()?;
    // Dims `...` stands for, per operand and at most.
    let mut ell_num_dim = 0;
    for (k, (s, t)) in subs.iter().zip(operands).enumerate() {
        let labels = s.iter().filter(|x| **x != Sub::Ellipsis).count();
        if s.contains(&Sub::Ellipsis) {
            let n = t.ndim().checked_sub(labels).ok_or_else(|| {
                bad(format!(
                    "the number of subscripts in the equation ({labels}) is more than the number of dimensions ({}) for operand {k}",
                    t.ndim()
                ))
            })?;
            ell_num_dim = ell_num_dim.max(n);
        } else if labels != t.ndim() {
            return Err(bad(format!(
                "the number of subscripts in the equation ({labels}) does not match the number of dimensions ({}) for operand {k} and no ellipsis was given",
                t.ndim()
            )));
        }
    }
    let mut count: std::collections::BTreeMap<char, usize> = Default::default();
    for s in &subs {
        for x in s {
            if let Sub::Label(c) = x {
                *count.entry(*c).or_default() += 1;
            }
        }
    }
    // Positions in the aligned order: the output's dims first, then the contracted labels (and
    // `...` when the output leaves it out) in label order.
    let mut perm_of: std::collections::HashMap<char, usize> = Default::default();
    let mut perm_index = 0;
    let mut ell_index = None;
    match &rhs {
        Some(r) => {
            for x in parse_subscripts(r, specs.len())? {
                match x {
                    Sub::Ellipsis => {
                        ell_index = Some(perm_index);
                        perm_index += ell_num_dim;
                    }
                    Sub::Label(c) => {
                        if !count.contains_key(&c) {
                            return Err(bad(format!("output subscript {c} does not appear in the equation for any input operand")));
                        }
                        if perm_of.insert(c, perm_index).is_some() {
                            return Err(bad(format!("output subscript {c} appears more than once in the output")));
                        }
                        perm_index += 1;
                    }
                }
            }
        }
        None => {
            if subs.iter().any(|s| s.contains(&Sub::Ellipsis)) {
                ell_index = Some(perm_index);
                perm_index += ell_num_dim;
            }
            for (&c, &n) in &count {
                if n == 1 {
                    perm_of.insert(c, perm_index);
                    perm_index += 1;
                }
            }
        }
    }
    let out_num_dim = perm_index;
    let ell_index = ell_index.unwrap_or_else(|| {
        perm_index += ell_num_dim;
        out_num_dim
    });
    for &c in count.keys() {
        if let std::collections::hash_map::Entry::Vacant(slot) = perm_of.entry(c) {
            slot.insert(perm_index);
            perm_index += 1;
        }
    }

    // Each operand: diagonals for repeated labels, size-1 dims for missing ones, permuted to
    // the aligned order. `dim_counts` counts, per aligned dim, the operands where it is not 1.
    let mut label_size: std::collections::HashMap<char, usize> = Default::default();
    let mut ell_sizes = vec![1usize; ell_num_dim];
    let mut dim_counts = vec![0usize; perm_index];
    let mut ops: VecDeque<Tensor> = VecDeque::new();
    for (k, (s, t)) in subs.iter().zip(operands).enumerate() {
        let mut op = t.clone();
        let mut permutation: Vec<Option<usize>> = vec![None; perm_index];
        let mut dim = 0usize;
        for x in s {
            match *x {
                Sub::Ellipsis => {
                    let n = t.ndim() - (s.len() - 1);
                    for j in ell_num_dim - n..ell_num_dim {
                        let size = op.shape()[dim];
                        if size != 1 {
                            if ell_sizes[j] != 1 && ell_sizes[j] != size {
                                return Err(bad(format!(
                                    "dimension {dim} covered by ellipsis in operand {k}has size {size} which does not broadcast with previously seen ellipsis with size {} for the respective dimension",
                                    ell_sizes[j]
                                )));
                            }
                            ell_sizes[j] = size;
                            dim_counts[ell_index + j] += 1;
                        }
                        permutation[ell_index + j] = Some(dim);
                        dim += 1;
                    }
                }
                Sub::Label(c) => match permutation[perm_of[&c]] {
                    None => {
                        let size = op.shape()[dim];
                        if size != 1 {
                            let seen = label_size.get(&c).copied().unwrap_or(1);
                            if seen != 1 && seen != size {
                                return Err(bad(format!(
                                    "subscript {c} has size {size} for operand {k} which does not broadcast with previously seen size {seen}"
                                )));
                            }
                            label_size.insert(c, size);
                            dim_counts[perm_of[&c]] += 1;
                        }
                        permutation[perm_of[&c]] = Some(dim);
                        dim += 1;
                    }
                    Some(prev) => {
                        let (a, b) = (op.shape()[prev], op.shape()[dim]);
                        if a != b {
                            return Err(bad(format!("subscript {c} is repeated for operand {k} but the sizes don't match, {b} != {a}")));
                        }
                        op = op.diagonal(0, prev as i64, dim as i64)?.movedim(-1, prev as i64)?;
                    }
                },
            }
        }
        let permutation: Vec<i64> = permutation
            .into_iter()
            .map(|p| -> Result<i64> {
                Ok(match p {
                    Some(d) => d as i64,
                    None => {
                        op = op.unsqueeze(dim as i64)?;
                        dim += 1;
                        dim as i64 - 1
                    }
                })
            })
            .collect::<Result<_>>()?;
        ops.push_back(op.permute(&permutation)?);
    }

    let num_ops = ops.len();
    while ops.len() > 1 {
        let (mut a, mut b) = (ops.pop_front().expect("two operands"), ops.pop_front().expect("two operands"));
        let (mut sum_dims, mut a_sum, mut b_sum) = (vec![], vec![], vec![]);
        for (d, count) in dim_counts.iter_mut().enumerate().take(perm_index).skip(out_num_dim) {
            if a.shape()[d] != 1 && b.shape()[d] != 1 {
                *count -= 1;
                if *count == 1 {
                    sum_dims.push(d);
                    *count = 0;
                }
            } else if *count == 1 {
                if a.shape()[d] != 1 {
                    a_sum.push(d as i64);
                    *count = 0;
                } else if b.shape()[d] != 1 {
                    b_sum.push(d as i64);
                    *count = 0;
                }
            }
        }
        if !a_sum.is_empty() {
            a = a.sum(Some(&a_sum), true)?;
        }
        if !b_sum.is_empty() {
            b = b.sum(Some(&b_sum), true)?;
        }
        ops.push_front(sumproduct_pair(&a, &b, &sum_dims)?);
    }
    let out = ops.pop_front().expect("one operand left");
    if perm_index == out_num_dim {
        return Ok(out);
    }
    if num_ops > 1 {
        // The contracted dims are size 1 by now.
        return out.view(&to_i64(&out.shape()[..out_num_dim]));
    }
    let dims: Vec<i64> = (out_num_dim as i64..perm_index as i64).collect();
    out.sum(Some(&dims), false)
}
