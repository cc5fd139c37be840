//! The recorded forward of two-operand pointwise ops fused on the CPU (`cpu::fused_pointwise`):
//! whether a forward may take the fused kernel, and the kernel's result recorded as one
//! `Op::Pointwise2` node. Apart from `ops::grad` (whose `pointwise2_grads` is the backward) so
//! that `tensor::arith` can call it without an import circle.

use crate::cpu::fused_pointwise::Fused2;
use crate::error::Result;
use crate::tensor::Tensor;

/// Whether a forward over `inputs` may take a fused CPU kernel (`cpu::fused_pointwise`): all on
/// the CPU, and no graph to record (grad mode off, or none of them needs a gradient).
pub fn fusable_forward(inputs: &[&Tensor]) -> bool {
    let records = crate::autograd::is_grad_enabled() && inputs.iter().any(|t| t.requires_grad());
    !records && on_cpu(inputs)
}

/// Whether every one of `inputs` is on the CPU.
pub(crate) fn on_cpu(inputs: &[&Tensor]) -> bool {
    inputs.iter().all(|t| t.device() == crate::device::Device::Cpu)
}

/// `kind` of `x` and `y` in one CPU pass (`cpu::fused_pointwise`), recorded as one
/// `Op::Pointwise2` node (named `name` where given) whose backward is one pass too; None where
/// the operands do not allow it (other devices, dtypes, shapes or layouts).
pub fn pointwise2(x: &Tensor, y: &Tensor, kind: Fused2, name: Option<&str>) -> Result<Option<Tensor>> {
    if !on_cpu(&[x, y]) {
        return Ok(None);
    }
    let Some(out) = crate::cpu::fused_pointwise::fused2(x.array(), y.array(), kind)? else {
        return Ok(None);
    };
    let out = Tensor::from_array(out);
    // lerp's gradients are the incoming one scaled: nothing to save.
    let saves: &[usize] = if matches!(kind, Fused2::Lerp { .. }) { &[] } else { &[0, 1] };
    crate::autograd::op::record_named(name, crate::autograd::op::Op::Pointwise2 { kind }, &[x, y], &[&out], saves, &[]);
    Ok(Some(out))
}
