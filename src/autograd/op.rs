//! The node of every built-in op: which op it was, what it saved, and where gradients go. A
//! composite op (one written in other ops) has the same node, whose backward runs the graph its
//! body recorded (`autograd::composite`).

use std::sync::{Arc, Mutex, Weak};

use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::conv_geometry::ConvGeom;
use crate::ops::pool_geometry::PoolGeom;
use crate::tensor::{BinaryOp, Tensor, UnaryOp};

use super::node::{next_sequence_nr, Edge, NodeHooks, NodeRef};

/// Row-major positions of the input elements an op read or wrote: on the host, or an int64
/// tensor on the GPU that computed them from indices that never left it, or max pooling's
/// `indices` on the GPU (positions within each input plane) with the windows that place them.
#[derive(Clone, Debug)]
pub enum Positions {
    Host(Vec<usize>),
    Device(Tensor),
    /// Max pooling's own output, which the caller may change in place: saved with its version.
    Pooled {
        at: Saved,
        geom: PoolGeom,
    },
}

impl Positions {
    /// The positions as an int64 vector on `device`.
    pub(crate) fn tensor_on(&self, device: Device) -> Result<Tensor> {
        match self {
            Positions::Host(p) => Tensor::from_vec(p.iter().map(|&o| o as i64).collect::<Vec<_>>(), &[p.len()])?.to_device(device),
            Positions::Device(t) => t.reshape(&[-1])?.to_device(device),
            Positions::Pooled { at, geom } => {
                // Each plane's positions offset by the planes before it.
                let at = at.unpack(String::new)?;
                let (plane, out_plane) = (geom.in_size[0] * geom.in_size[1], geom.out_size[0] * geom.out_size[1]);
                let starts: Vec<i64> = (0..geom.planes).map(|p| (p * plane) as i64).collect();
                let starts = Tensor::from_vec(starts, &[geom.planes, 1])?.to_device(at.device())?;
                let _raw = super::grad_mode::GradMode::disabled();
                at.reshape(&[geom.planes as i64, out_plane as i64])?.binary(BinaryOp::Add, &starts)?.reshape(&[-1])?.to_device(device)
            }
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Positions::Host(p) => p.len(),
            Positions::Device(t) => t.numel(),
            Positions::Pooled { at, .. } => at.tensor.numel(),
        }
    }
}

/// A recorded op and the non-tensor arguments its backward formula needs.
#[derive(Clone, Debug)]
pub enum Op {
    Binary(BinaryOp),
    Unary(UnaryOp),
    Where,
    /// `full`: called without dims (PyTorch names that node SumBackward0, else SumBackward1).
    Sum {
        dims: Vec<usize>,
        keepdim: bool,
        full: bool,
    },
    /// `full`: called without a dim (PyTorch names that node ProdBackward0, else ProdBackward1).
    Prod {
        dims: Vec<usize>,
        keepdim: bool,
        full: bool,
    },
    /// amax/amin and max()/min()/median() over all elements: the gradient splits between
    /// ties. `nan_ties`: a NaN result counts the input's NaNs as its ties (max(), min() and
    /// median() share the gradient between them); otherwise (amax, amin) no element equals a
    /// NaN result and the gradient is NaN, as PyTorch gives it.
    Extremum {
        dims: Vec<usize>,
        keepdim: bool,
        max: bool,
        nan_ties: bool,
    },
    /// clamp with number bounds (None: absent), float inputs; the node is named by the call
    /// (ClampBackward1, ClampMinBackward0, ClampMaxBackward0). Its input is saved.
    Clamp {
        min: Option<f64>,
        max: Option<f64>,
    },
    /// max / min along `dim` with their indices (MaxBackward0 / MinBackward0): the gradient
    /// goes to the indices found, saved as output 1.
    IndexedExtremum {
        dim: usize,
        keepdim: bool,
        max: bool,
    },
    /// logsumexp over `dims` (one dim) through the fused kernel; input and output saved.
    Logsumexp {
        dims: Vec<usize>,
        keepdim: bool,
    },
    /// A two-operand pointwise formula of one kernel (`cpu::fused_pointwise`): an unreduced
    /// loss (inputs saved) or lerp with a scalar weight (nothing saved).
    Pointwise2 {
        kind: crate::cpu::fused_pointwise::Fused2,
    },
    Cumsum {
        dim: usize,
    },
    Cumprod {
        dim: usize,
    },
    /// Same elements, new shape (view, reshape, squeeze, unsqueeze, flatten, clone); `kind` is
    /// the node's name.
    View {
        kind: &'static str,
    },
    Permute {
        dims: Vec<usize>,
        kind: &'static str,
    },
    Expand,
    /// `flip` of `dims`: its gradient is the gradient flipped back.
    Flip {
        dims: Vec<usize>,
    },
    Copy {
        from: DType,
    },
    /// `to(device)`: the gradient goes back to the device the input was on.
    ToDevice {
        from: Device,
    },
    Cat {
        dim: usize,
        sizes: Vec<usize>,
    },
    /// The pieces of split, chunk (`sizes` along `dim`) and unbind (`squeezed`: each piece lost
    /// the dim): one node with one output per piece; `kind` is the node's name.
    Split {
        dim: usize,
        sizes: Vec<usize>,
        squeezed: bool,
        kind: &'static str,
    },
    /// `fill_` / `zero_` of a tensor with history: no gradient reaches the overwritten values; a
    /// tensor value (second input) gets the sum of the gradient. `kind` is the node's name.
    Fill {
        kind: &'static str,
    },
    /// `addmm(input, m1, m2, beta, alpha)` as one kernel (`linear` too).
    /// `transposed`: whether each matrix operand was stored transposed, which its gradient's
    /// layout follows (the operand itself is saved only when the other one needs a gradient).
    Addmm {
        beta: f64,
        alpha: f64,
        transposed: [bool; 2],
    },
    /// An op PyTorch has no derivative for (`floor_divide`, `remainder(number, tensor)`): the
    /// node exists, its backward fails naming the op.
    NotImplemented {
        forward: &'static str,
    },
    IndexSelect {
        dim: usize,
    },
    Gather {
        dim: usize,
    },
    Scatter {
        dim: usize,
        add: bool,
    },
    IndexAdd {
        dim: usize,
        alpha: f64,
    },
    /// Elements read at row-major positions of the input: advanced indexing, masked_select, and
    /// strided views (narrow, slices, select, unfold); `kind` is the node's name.
    Take {
        kind: &'static str,
        offsets: Positions,
    },
    /// A view of distinct elements (narrow, slices, select): `window` lays them out over a
    /// contiguous tensor of the input's shape, so the gradient is one strided write into zeros.
    Window {
        kind: &'static str,
        window: crate::layout::Layout,
    },
    /// var (std when `std`) over `dims` with `correction`; saves its input and output.
    Var {
        dims: Vec<usize>,
        correction: f64,
        keepdim: bool,
        std: bool,
    },
    /// `roll`: the gradient is rolled by `shifts` (the forward's shifts undone) along `dims`
    /// (none: over the flattened tensor).
    Roll {
        shifts: Vec<i64>,
        dims: Vec<i64>,
    },
    /// `as_strided`: the input's and the output's layouts over their shared storage.
    AsStrided {
        input: crate::layout::Layout,
        output: crate::layout::Layout,
    },
    /// `x[idx] = v` out of place: positions written, relative to a contiguous input.
    Put {
        name: &'static str,
        offsets: Positions,
        value_shape: Vec<usize>,
    },
    Matmul,
    /// conv2d, its transpose and its weight gradient: each one's backward uses the others.
    Conv {
        geom: ConvGeom,
    },
    ConvTranspose {
        geom: ConvGeom,
    },
    ConvWeight {
        geom: ConvGeom,
    },
    /// softmax (log_softmax when `log`) along `dim`; its output is saved.
    Softmax {
        dim: usize,
        log: bool,
    },
    /// layer norm over rows of `cols`; inputs (x, weight, bias), a missing one an empty tensor.
    /// The row statistics are kept as buffers (mean, rstd).
    LayerNorm {
        cols: usize,
        eps: f64,
    },
    /// batch norm; inputs and buffers as for LayerNorm (per channel). Without `training` the
    /// statistics were the running estimates, constants for the gradient.
    BatchNorm {
        training: bool,
        eps: f64,
    },
    /// nll_loss of (N, C) or (C,) scores; inputs (scores, targets). Buffers: each row's slope
    /// (d loss / d x[t]) and its target's column.
    NllLoss,
    /// The pointwise step of an LSTM (`lstm`) or GRU cell (`ops::nn::rnn_cell`); inputs (gx, gh,
    /// state), the gate activations kept as a buffer.
    RnnCell {
        lstm: bool,
    },
    /// A whole LSTM layer over a sequence (`ops::nn::rnn_layer`); inputs (gx, h0, c0, w_hh and
    /// b_hh when given), all saved with the output; buffers each step's cell activations, then
    /// the cell state entering each step, in the order the steps ran.
    LstmLayer {
        reverse: bool,
    },
    /// `scaled_dot_product_attention`'s fused kernel; inputs (q, k, v, and a float mask that
    /// requires grad), its output saved, buffers each row's logsumexp and the additive mask.
    Attention {
        dims: crate::ops::attention_dims::AttnDims,
    },
    /// An op written in other ops: its gradient is that of the graph its body recorded (kept
    /// in the node's `body`), see `autograd::composite`. Always recorded under its own name.
    Composite,
}

impl Op {
    /// PyTorch's name for the backward node.
    pub fn node_name(&self) -> String {
        let base = match self {
            Op::Binary(b) => return b.node_name().into(),
            Op::Unary(u) => u.node_base(),
            Op::Where => "Where",
            Op::Sum { full, .. } => return if *full { "SumBackward0".into() } else { "SumBackward1".into() },
            Op::Prod { full, .. } => return if *full { "ProdBackward0".into() } else { "ProdBackward1".into() },
            Op::Extremum { max, .. } => {
                if *max {
                    "Amax"
                } else {
                    "Amin"
                }
            }
            Op::Clamp { .. } => return "ClampBackward1".into(),
            Op::IndexedExtremum { max, .. } => {
                if *max {
                    "Max"
                } else {
                    "Min"
                }
            }
            Op::Logsumexp { .. } => "Logsumexp",
            Op::Pointwise2 { kind } => match kind {
                crate::cpu::fused_pointwise::Fused2::Mse => "MseLoss",
                crate::cpu::fused_pointwise::Fused2::SmoothL1 { .. } => "SmoothL1Loss",
                crate::cpu::fused_pointwise::Fused2::Huber { .. } => "HuberLoss",
                crate::cpu::fused_pointwise::Fused2::BceWithLogits => "BinaryCrossEntropyWithLogits",
                crate::cpu::fused_pointwise::Fused2::Lerp { .. } => "Lerp",
            },
            Op::Cumsum { .. } => "Cumsum",
            Op::Cumprod { .. } => "Cumprod",
            Op::View { kind } | Op::Permute { kind, .. } | Op::Take { kind, .. } | Op::Window { kind, .. } | Op::Put { name: kind, .. } => {
                return kind.to_string()
            }
            Op::Expand => "Expand",
            Op::Flip { .. } => "Flip",
            Op::Roll { .. } => "Roll",
            Op::Var { std, .. } => {
                if *std {
                    "Std"
                } else {
                    "Var"
                }
            }
            Op::AsStrided { .. } => "AsStrided",
            Op::Copy { .. } | Op::ToDevice { .. } => "ToCopy",
            Op::Cat { .. } => "Cat",
            Op::Split { kind, .. } | Op::Fill { kind } => return kind.to_string(),
            Op::Addmm { .. } => "Addmm",
            Op::NotImplemented { .. } => return "torch::autograd::NotImplemented".into(),
            Op::IndexSelect { .. } => "IndexSelect",
            Op::Gather { .. } => "Gather",
            Op::Scatter { add, .. } => {
                if *add {
                    "ScatterAdd"
                } else {
                    "Scatter"
                }
            }
            Op::IndexAdd { .. } => "IndexAdd",
            Op::Matmul => "Mm",
            Op::Conv { .. } | Op::ConvTranspose { .. } => "Convolution",
            Op::ConvWeight { .. } => "ConvolutionBackward",
            Op::Softmax { log, .. } => {
                if *log {
                    "LogSoftmax"
                } else {
                    "Softmax"
                }
            }
            Op::LayerNorm { .. } => "NativeLayerNorm",
            Op::BatchNorm { .. } => "NativeBatchNorm",
            Op::NllLoss => "NllLoss",
            Op::RnnCell { lstm } => {
                if *lstm {
                    "ThnnFusedLstmCell"
                } else {
                    "ThnnFusedGruCell"
                }
            }
            Op::LstmLayer { .. } => "MkldnnRnnLayer",
            Op::Attention { .. } => "ScaledDotProductFlashAttentionForCpu",
            Op::Composite => "Composite",
        };
        format!("{base}Backward0")
    }
}

/// What a node keeps of a forward input: its shape, dtype and device (to shape gradients), and
/// the tensor itself when the formula needs its values.
#[derive(Clone)]
pub struct InputMeta {
    pub shape: Vec<usize>,
    pub dtype: DType,
    pub device: Device,
}

/// A tensor saved for backward, with the version it had then.
#[derive(Clone, Debug)]
pub struct Saved {
    tensor: Tensor,
    version: u64,
}

impl Saved {
    pub(crate) fn new(t: &Tensor) -> Saved {
        Saved { tensor: t.clone(), version: t.version() }
    }

    /// The tensor, if no in-place op changed it since; `origin` names it in the error. Custom
    /// Python Functions read their saved tensors through it.
    pub(crate) fn unpack(&self, origin: impl FnOnce() -> String) -> Result<Tensor> {
        check_version(self, origin)
    }
}

/// The tensors a node saved (see `OpNode::saved_values`): per input and per output (None
/// where it kept nothing), then its buffers.
pub struct SavedValues {
    pub inputs: Vec<Option<Tensor>>,
    pub outputs: Vec<Option<Tensor>>,
    pub buffers: Vec<Tensor>,
}

pub struct OpNode {
    pub op: Op,
    pub(super) name: String,
    pub(super) edges: Vec<Option<Edge>>,
    /// The inputs PyTorch's node lists in `next_functions`, in its order, with their edges,
    /// when that differs from all inputs in order: a Python number is a wrapped tensor input
    /// here, which some of PyTorch's overloads list second (`2 + t`) or not at all (`1 - t`).
    pub(super) shown: Option<(Vec<usize>, Vec<Option<Edge>>)>,
    pub inputs: Vec<InputMeta>,
    /// Inputs the formula reads (None where it does not), kept with their history.
    pub(super) saved_inputs: Mutex<Option<Vec<Option<Saved>>>>,
    /// Outputs the formula reads, kept detached: holding them with their `grad_fn` (this node)
    /// would be a reference cycle. Their history is re-attached on unpacking.
    pub(super) saved_outputs: Mutex<Option<Vec<Option<Saved>>>>,
    /// Intermediate results of the forward pass that the formula reuses rather than computing
    /// them again (a convolution's patch matrices); freed with the saved tensors.
    pub(super) buffers: Mutex<Option<Vec<Tensor>>>,
    /// For `Op::Composite`: per output, the edge of the body's graph it came from. Dropped (with
    /// that graph and what it saved) when the node releases what it saved.
    pub(super) body: Mutex<Option<Vec<Option<Edge>>>>,
    pub(super) this: Weak<OpNode>,
    pub(super) seq: u64,
    pub(super) hooks: NodeHooks,
    pub(super) num_outputs: usize,
}

pub(crate) fn freed() -> Error {
    Error::Runtime(
        "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.".into(),
    )
}

/// The op a node records, as PyTorch names it in the message of a modified saved tensor: the
/// node's name less its `Backward<N>` suffix (`MulBackward0` is `Mul`).
fn forward_name(node: &str) -> &str {
    let trimmed = node.trim_end_matches(|c: char| c.is_ascii_digit());
    trimmed.strip_suffix("Backward").unwrap_or(node)
}

fn check_version(s: &Saved, origin: impl FnOnce() -> String) -> Result<Tensor> {
    if s.tensor.version() != s.version {
        let origin = origin();
        return Err(Error::Runtime(format!(
            "one of the variables needed for gradient computation has been modified by an inplace operation: [torch.{}Tensor {:?}]{} is at version {}; expected version {} instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).",
            s.tensor.dtype().title_name(),
            s.tensor.shape(),
            origin,
            s.tensor.version(),
            s.version
        )));
    }
    Ok(s.tensor.clone())
}

impl OpNode {
    /// Whether the node kept input `i` (an in-place form may keep its result instead).
    pub fn kept_input(&self, i: usize) -> bool {
        self.saved_inputs.lock().unwrap_or_else(|e| e.into_inner()).as_ref().is_some_and(|v| v.get(i).is_some_and(Option::is_some))
    }

    /// Saved input `i`, checking it was neither freed nor modified in place since.
    pub fn input(&self, i: usize) -> Result<Tensor> {
        let guard = self.saved_inputs.lock().unwrap_or_else(|e| e.into_inner());
        let s = guard.as_ref().ok_or_else(freed)?[i].as_ref().expect("formula reads an input it did not save");
        check_version(s, || match s.tensor.grad_fn() {
            Some(f) => format!(", which is output {} of {},", s.tensor.output_nr(), forward_name(&f.name())),
            None => String::new(),
        })
    }

    /// Saved output `i`; under create_graph it carries this node as its history again.
    pub fn output(&self, i: usize) -> Result<Tensor> {
        let guard = self.saved_outputs.lock().unwrap_or_else(|e| e.into_inner());
        let s = guard.as_ref().ok_or_else(freed)?[i].as_ref().expect("formula reads an output it did not save");
        let t = check_version(s, || format!(", which is output {i} of {},", forward_name(&self.name)))?;
        if super::grad_mode::is_enabled() {
            if let Some(me) = self.this.upgrade() {
                let t = t.detach();
                t.set_grad_fn(me, i);
                return Ok(t);
            }
        }
        Ok(t)
    }

    pub fn num_inputs(&self) -> usize {
        self.inputs.len()
    }

    /// Buffer `i` the forward pass kept for this node (see `keep_buffers`), if it kept any.
    pub fn buffer(&self, i: usize) -> Option<Tensor> {
        self.buffers.lock().unwrap_or_else(|e| e.into_inner()).as_ref()?.get(i).cloned()
    }

    /// What the node saved, as `grad_fn._saved_*` shows it. Fails as backward would once the
    /// tensors were freed or changed in place since.
    pub fn saved_values(&self) -> Result<SavedValues> {
        let kept = |m: &Mutex<Option<Vec<Option<Saved>>>>| -> Result<Vec<bool>> {
            Ok(m.lock().unwrap_or_else(|e| e.into_inner()).as_ref().ok_or_else(freed)?.iter().map(Option::is_some).collect())
        };
        let (kept_in, kept_out) = (kept(&self.saved_inputs)?, kept(&self.saved_outputs)?);
        Ok(SavedValues {
            inputs: kept_in.iter().enumerate().map(|(i, &k)| k.then(|| self.input(i)).transpose()).collect::<Result<_>>()?,
            outputs: kept_out.iter().enumerate().map(|(i, &k)| k.then(|| self.output(i)).transpose()).collect::<Result<_>>()?,
            buffers: self.buffers.lock().unwrap_or_else(|e| e.into_inner()).clone().unwrap_or_default(),
        })
    }

    /// Whether input `i` needs a gradient at all.
    pub fn needs_grad(&self, i: usize) -> bool {
        self.edges[i].is_some()
    }
}

impl Drop for OpNode {
    /// What the node owns (the nodes behind it, its saved tensors and their histories, its
    /// hooks) is freed by `teardown::release`, never by recursion into the next node.
    fn drop(&mut self) {
        let parts = (
            std::mem::take(&mut self.edges),
            self.shown.take(),
            self.saved_inputs.get_mut().unwrap_or_else(|e| e.into_inner()).take(),
            self.saved_outputs.get_mut().unwrap_or_else(|e| e.into_inner()).take(),
            self.buffers.get_mut().unwrap_or_else(|e| e.into_inner()).take(),
            self.body.get_mut().unwrap_or_else(|e| e.into_inner()).take(),
            self.hooks.take_all(),
            std::mem::replace(&mut self.op, Op::Matmul),
        );
        super::teardown::release(parts);
    }
}

impl Op {
    /// Ops whose in-place form keeps its result rather than its input, the formula reading the
    /// result instead (declared with the op: `UnaryOp::inplace_keeps_result`).
    fn inplace_keeps_result(&self) -> bool {
        matches!(self, Op::Unary(u) if u.inplace_keeps_result())
    }
}

/// The node of `result` when a built-in op recorded it.
fn op_node_of(result: &Tensor) -> Option<NodeRef> {
    result.grad_fn().filter(|n| n.as_any().is::<OpNode>())
}

/// An in-place op is computed out of place and its `result` then written over `target`: the
/// result's node must not keep `target` as it was, since the write changes it. Called before
/// the write. When the node saved `target` as its input (the tensor the op ran on): ops with a
/// result-based formula drop it (the result is kept instead, see `after_inplace_write`), the
/// others keep a copy of the values `target` had, with its history (PyTorch's `original_self`).
/// Returns whether the result is to be kept. Other saved inputs that are `target` (`x.mul_(x)`)
/// stay as they are, so backward reports them modified, as PyTorch does.
pub(crate) fn before_inplace_write(target: &Tensor, result: &Tensor) -> Result<bool> {
    let Some(node) = op_node_of(result) else { return Ok(false) };
    let op = node.as_any().downcast_ref::<OpNode>().expect("checked to be an OpNode");
    let mut guard = op.saved_inputs.lock().unwrap_or_else(|e| e.into_inner());
    let Some(Some(first)) = guard.as_mut().and_then(|v| v.first_mut()) else { return Ok(false) };
    if !first.tensor.same(target) || first.version != target.version() {
        return Ok(false);
    }
    if op.op.inplace_keeps_result() {
        guard.as_mut().expect("checked above")[0] = None;
        return Ok(true);
    }
    let before = {
        let _raw = super::grad_mode::GradMode::disabled();
        target.copy_as(target.dtype())?
    };
    if let Some(f) = target.grad_fn() {
        before.set_grad_fn(f, target.output_nr());
    }
    *first = Saved::new(&before);
    Ok(false)
}

/// After `result` was written over `target` (see `before_inplace_write`): the output the
/// node saved is now `target` itself, at its new version, so a later in-place change of
/// `target` is reported in backward as PyTorch reports it (and the result's memory is freed).
pub(crate) fn after_inplace_write(target: &Tensor, result: &Tensor, keep_result: bool) {
    let Some(node) = op_node_of(result) else { return };
    let op = node.as_any().downcast_ref::<OpNode>().expect("checked to be an OpNode");
    let mut guard = op.saved_outputs.lock().unwrap_or_else(|e| e.into_inner());
    let Some(slot) = guard.as_mut().and_then(|v| v.first_mut()) else { return };
    if keep_result && slot.is_none() {
        *slot = Some(Saved::new(&result.detach()));
    }
    let same_values = target.shape() == result.shape() && target.dtype() == result.dtype();
    if let Some(s) = slot {
        if same_values && s.tensor.shares_storage(result) {
            *s = Saved::new(&target.detach());
        }
    }
}

/// Records `op` producing `outputs` from `inputs` when grad mode is on and an input requires
/// grad. `save_inputs` / `save_outputs` list the indices the backward formula reads.
pub fn record(op: Op, inputs: &[&Tensor], outputs: &[&Tensor], save_inputs: &[usize], save_outputs: &[usize]) {
    record_named(None, op, inputs, outputs, save_inputs, save_outputs)
}

/// `record` with the node named `name` rather than by its op (the same formula under another
/// of PyTorch's names, as for an overload taking a Python number).
pub fn record_named(name: Option<&str>, op: Op, inputs: &[&Tensor], outputs: &[&Tensor], save_inputs: &[usize], save_outputs: &[usize]) {
    record_shown(name, op, inputs, outputs, save_inputs, save_outputs, None)
}

/// `record_named` whose node lists only the inputs `shown`, in that order, as its
/// `next_functions` (and takes and gives gradients in that order); the formula still sees all.
pub fn record_shown(
    name: Option<&str>,
    op: Op,
    inputs: &[&Tensor],
    outputs: &[&Tensor],
    save_inputs: &[usize],
    save_outputs: &[usize],
    shown: Option<&[usize]>,
) {
    if !super::grad_mode::is_enabled() || !inputs.iter().any(|t| t.requires_grad()) {
        return;
    }
    if !outputs.iter().any(|o| o.dtype().is_floating_point()) {
        return;
    }
    if save_inputs.iter().any(|&i| inputs.get(i).is_some_and(|t| t.is_inference())) {
        // Recording cannot fail: the op raises this as it returns.
        super::grad_mode::defer_error(crate::error::Error::Runtime(
            "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use it in autograd, or use `no_grad()` instead of `inference_mode()`.".into(),
        ));
    }
    let name = name.map_or_else(|| op.node_name(), str::to_string);
    let edges: Vec<Option<Edge>> = inputs.iter().map(|t| t.gradient_edge()).collect();
    let shown = shown.map(|order| (order.to_vec(), order.iter().map(|&i| edges[i].clone()).collect()));
    let node = Arc::new_cyclic(|this| OpNode {
        op,
        name,
        edges,
        shown,
        inputs: inputs.iter().map(|t| InputMeta { shape: t.shape().to_vec(), dtype: t.dtype(), device: t.device() }).collect(),
        saved_inputs: Mutex::new(Some((0..inputs.len()).map(|i| save_inputs.contains(&i).then(|| Saved::new(inputs[i]))).collect())),
        saved_outputs: Mutex::new(Some(
            (0..outputs.len()).map(|i| save_outputs.contains(&i).then(|| Saved::new(&outputs[i].detach()))).collect(),
        )),
        buffers: Mutex::new(None),
        body: Mutex::new(None),
        this: this.clone(),
        seq: next_sequence_nr(),
        hooks: NodeHooks::default(),
        num_outputs: outputs.len(),
    });
    for (i, o) in outputs.iter().enumerate() {
        if o.dtype().is_floating_point() {
            o.set_grad_fn(node.clone(), i);
        }
    }
}

/// The node of a composite op named `name`: its edges go to the op's inputs (a None edge for an
/// optional input not given), and its backward sends the output gradients through `body`, the
/// edges of the body's graph per output.
pub(super) fn composite_node(name: &str, edges: Vec<Option<Edge>>, body: Vec<Option<Edge>>) -> Arc<OpNode> {
    let num_outputs = body.len();
    Arc::new_cyclic(|this| OpNode {
        op: Op::Composite,
        name: name.to_string(),
        shown: None,
        inputs: vec![],
        saved_inputs: Mutex::new(Some(vec![None; edges.len()])),
        saved_outputs: Mutex::new(Some(vec![None; num_outputs])),
        edges,
        buffers: Mutex::new(None),
        body: Mutex::new(Some(body)),
        this: this.clone(),
        seq: next_sequence_nr(),
        hooks: NodeHooks::default(),
        num_outputs,
    })
}

/// Hands `buffers` to the node that just recorded `output` (when one did: grad mode was on and
/// an input required grad), for its formula to read back with `OpNode::buffer`.
pub fn keep_buffers(output: &Tensor, buffers: Vec<Tensor>) {
    if let Some(node) = output.grad_fn() {
        if let Some(op) = node.as_any().downcast_ref::<OpNode>() {
            *op.buffers.lock().unwrap_or_else(|e| e.into_inner()) = Some(buffers);
        }
    }
}
