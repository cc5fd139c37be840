//! The size check of a requested spatial output: PyTorch's overflow error for an output whose
//! bytes do not fit a signed 64-bit size, raised before any work sized by that output.

use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Fails as PyTorch does when a new output whose last dims are `sizes` (its others `input`'s)
/// cannot exist: its bytes past a signed 64-bit size. Ops that build their result in several
/// steps call it before any work whose size follows the output's, so a huge request fails at
/// once instead of after per-axis work or with a later step's error. (Sizes that fit but cannot
/// be had fail where the memory is asked for, with the allocator's error; negative sizes are
/// the callers' own errors.)
pub(crate) fn check_output_size(input: &Tensor, sizes: &[i64]) -> Result<()> {
    let lead = &input.shape()[..input.ndim().saturating_sub(sizes.len())];
    if sizes.iter().any(|&s| s <= 0) || lead.contains(&0) {
        return Ok(());
    }
    let shape: Vec<usize> = lead.iter().copied().chain(sizes.iter().map(|&s| s as usize)).collect();
    let bytes = shape.iter().try_fold(input.element_size() as u128, |acc, &s| acc.checked_mul(s as u128));
    if bytes.is_none_or(|b| b > i64::MAX as u128) {
        return Err(Error::StorageSizeOverflow(shape));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_outputs_past_a_signed_64_bit_byte_count() -> Result<()> {
        let x = Tensor::zeros(&[1, 1, 2, 2], crate::dtype::DType::F32)?;
        assert!(check_output_size(&x, &[1 << 20, 1 << 20]).is_ok());
        let err = check_output_size(&x, &[2_000_000_000, 2_000_000_000]).expect_err("too many bytes");
        assert_eq!(err.to_string(), "Storage size calculation overflowed with sizes=[1, 1, 2000000000, 2000000000]");
        assert!(check_output_size(&x, &[-1, 1 << 62]).is_ok(), "a negative size is the caller's error");
        Ok(())
    }
}
