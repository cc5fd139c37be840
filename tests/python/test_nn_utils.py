"""`rstorch.nn.utils`: gradient clipping, parameters <-> vector, and the packed-sequence helpers
of `nn.utils.rnn` (also fed to RNN/LSTM/GRU), against PyTorch's values, gradients and errors
recorded by tests/record_nn_utils.py (fixtures/nn_utils.json); gradcheck of pack/pad."""
import json
import math
import pathlib

import pytest

import rstorch
import rstorch.nn.utils
from rstorch.autograd import gradcheck
from rstorch.nn.utils import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,
                              get_total_norm, parameters_to_vector, vector_to_parameters)
from rstorch.nn.utils.rnn import (PackedSequence, invert_permutation, pack_padded_sequence, pack_sequence,
                                  pad_packed_sequence, pad_sequence, unpack_sequence, unpad_sequence)

FIXTURE = json.loads((pathlib.Path(__file__).resolve().parent.parent / "fixtures" / "nn_utils.json").read_text())
F64 = rstorch.float64


def t64(values):
    return rstorch.tensor(values, dtype=F64)


def close(got, want, tol=1e-12):
    got = got.detach().tolist() if isinstance(got, rstorch.Tensor) else got
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (got, want)
        for g, w in zip(got, want):
            close(g, w, tol)
    else:
        assert abs(got - want) <= tol * max(1.0, abs(want)), (got, want)


# ---- clipping -------------------------------------------------------------------------------

@pytest.mark.parametrize("case", FIXTURE["clip_norm"], ids=lambda c: f"{c['norm_type']}-{c['max_norm']}")
def test_clip_grad_norm_matches_pytorch(case):
    norm_type = math.inf if case["norm_type"] == "inf" else case["norm_type"]
    params = []
    for g in case["grads"]:
        p = rstorch.zeros(2, dtype=F64, requires_grad=True) if g is None else t64(g).requires_grad_(True)
        p.grad = None if g is None else t64(g)
        params.append(p)
    total = clip_grad_norm_(iter(params), case["max_norm"], norm_type=norm_type)
    assert isinstance(total, rstorch.Tensor) and total.dtype == F64 and total.dim() == 0
    close(total, case["total"])
    for p, want in zip(params, case["clipped"]):
        assert (p.grad is None) == (want is None)
        if want is not None:
            close(p.grad, want)


@pytest.mark.parametrize("case", FIXTURE["clip_value"], ids=lambda c: str(c["value"]))
def test_clip_grad_value_matches_pytorch(case):
    params = [t64(g).requires_grad_(True) for g in case["grads"]]
    for p, g in zip(params, case["grads"]):
        p.grad = t64(g)
    assert clip_grad_value_(params, case["value"]) is None
    for p, want in zip(params, case["clipped"]):
        close(p.grad, want, 0.0)


@pytest.mark.parametrize("case", FIXTURE["total_norm"], ids=lambda c: str(c["norm_type"]))
def test_get_total_norm_matches_pytorch(case):
    close(get_total_norm([t64(t) for t in case["tensors"]], case["norm_type"]), case["total"])


def test_clip_single_tensor_inf_norm_and_empty():
    p = rstorch.ones(2, requires_grad=True)
    p.grad = rstorch.tensor([3.0, -4.0])
    total = clip_grad_norm_(p, 1.0, "inf")
    assert total.item() == 4.0
    assert p.grad.tolist() == pytest.approx([0.75, -1.0], rel=1e-6)
    empty = clip_grad_norm_([], 1.0)
    assert empty.item() == 0.0 and empty.dtype == rstorch.float32
    assert clip_grad_norm_([rstorch.ones(2, requires_grad=True)], 1.0).item() == 0.0
    # Below max_norm nothing changes; the returned norm does not require grad.
    p.grad = rstorch.tensor([0.3, 0.4])
    total = clip_grad_norm_(p, 1.0)
    assert p.grad.tolist() == pytest.approx([0.3, 0.4]) and not total.requires_grad


def test_clip_nonfinite():
    p = rstorch.ones(2, requires_grad=True)
    for norm_type, shown in [(2.0, "2.0"), ("inf", "inf")]:
        p.grad = rstorch.tensor([math.nan, 1.0])
        with pytest.raises(RuntimeError, match=rf"^The total norm of order {shown} for gradients from `parameters` "
                           r"is non-finite, so it cannot be clipped\. To disable this error and scale the gradients "
                           r"by the non-finite norm anyway, set `error_if_nonfinite=False`$"):
            clip_grad_norm_([p], 1.0, norm_type=norm_type, error_if_nonfinite=True)
    total = clip_grad_norm_([p], 1.0)
    assert math.isnan(total.item())


def test_clip_grads_with_norm_and_deprecated_alias():
    p = rstorch.ones(2, requires_grad=True)
    p.grad = rstorch.tensor([3.0, 4.0])
    total = get_total_norm([p.grad])
    clip_grads_with_norm_([p], 2.5, total)
    assert p.grad.tolist() == pytest.approx([1.5, 2.0], rel=1e-6)
    with pytest.warns(FutureWarning, match="clip_grad_norm_"):
        assert clip_grad_norm(p, 100.0).item() == pytest.approx(2.5)
    with pytest.raises(RuntimeError, match="nested_tensorlist"):
        clip_grad_value_([], 1.0)


def test_parameters_to_vector_round_trip():
    model = rstorch.nn.Linear(2, 3)
    vec = parameters_to_vector(model.parameters())
    assert vec.shape == (9,) and vec.requires_grad
    assert vec.tolist() == model.weight.reshape(-1).tolist() + model.bias.tolist()
    vector_to_parameters(rstorch.arange(9.0), model.parameters())
    assert model.weight.tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    assert model.bias.tolist() == [6.0, 7.0, 8.0]
    assert isinstance(model.weight, rstorch.nn.Parameter) and model.weight.requires_grad
    # Gradient flows from the vector to each parameter.
    (parameters_to_vector(model.parameters()) * rstorch.arange(9.0)).sum().backward()
    assert model.bias.grad.tolist() == [6.0, 7.0, 8.0]


def test_vector_to_parameters_errors():
    p = rstorch.nn.Parameter(rstorch.ones(2))
    with pytest.raises(TypeError, match="^expected torch.Tensor, but got: list$"):
        vector_to_parameters([1.0], [p])
    with pytest.raises(RuntimeError, match=r"^shape '\[2\]' is invalid for input of size 1$"):
        vector_to_parameters(rstorch.ones(1), [p])
    vector_to_parameters(rstorch.zeros(5), [p])  # extra elements are ignored, as in PyTorch
    assert p.tolist() == [0.0, 0.0]
    with pytest.raises(ValueError, match="expected a non-empty list of Tensors"):
        parameters_to_vector([])


def test_import_forms():
    import importlib
    assert importlib.import_module("rstorch.nn.utils") is rstorch.nn.utils
    assert rstorch.nn.utils.rnn.PackedSequence is PackedSequence
    assert rstorch.nn.utils.clip_grad_norm_ is clip_grad_norm_


# ---- rnn helpers ----------------------------------------------------------------------------

@pytest.mark.parametrize("case", FIXTURE["pad"], ids=lambda c: f"{c['batch_first']}-{c['side']}")
def test_pad_sequence_matches_pytorch(case):
    seqs = [t64(s).requires_grad_(True) for s in case["seqs"]]
    y = pad_sequence(seqs, batch_first=case["batch_first"], padding_value=-1.5, padding_side=case["side"])
    close(y, case["y"], 0.0)
    (y * t64(case["w"])).sum().backward()
    for s, want in zip(seqs, case["grads"]):
        close(s.grad, want, 0.0)


@pytest.mark.parametrize("case", FIXTURE["pack"], ids=lambda c: f"{c['batch_first']}-{c['enforce_sorted']}")
@pytest.mark.parametrize("lengths_as", ["list", "tensor"])
def test_pack_and_pad_packed_match_pytorch(case, lengths_as):
    x = t64(case["x"]).requires_grad_(True)
    lengths = case["lengths"] if lengths_as == "list" else rstorch.tensor(case["lengths"])
    packed = pack_padded_sequence(x, lengths, batch_first=case["batch_first"], enforce_sorted=case["enforce_sorted"])
    assert isinstance(packed, PackedSequence) and isinstance(packed, tuple)
    close(packed.data, case["data"], 0.0)
    assert packed.batch_sizes.tolist() == case["batch_sizes"] and packed.batch_sizes.dtype == rstorch.int64
    for name in ["sorted_indices", "unsorted_indices"]:
        got = getattr(packed, name)
        assert (None if got is None else got.tolist()) == case[name]
    steps = x.shape[1] if case["batch_first"] else x.shape[0]
    padded, lengths_out = pad_packed_sequence(packed, batch_first=case["batch_first"], padding_value=0.25,
                                              total_length=steps + 1)
    close(padded, case["padded"], 0.0)
    assert lengths_out.tolist() == case["out_lengths"] and lengths_out.dtype == rstorch.int64
    ((packed.data * t64(case["w"])).sum() + (padded * t64(case["w2"])).sum()).backward()
    close(x.grad, case["grad"], 0.0)


def test_pack_pad_gradcheck():
    x = rstorch.randn(4, 3, 2, dtype=F64, requires_grad=True)

    def round_trip(x):
        packed = pack_padded_sequence(x, [2, 4, 1], enforce_sorted=False)
        return packed.data, pad_packed_sequence(packed, batch_first=True, padding_value=3.0)[0]
    assert gradcheck(round_trip, (x,))
    seqs = (rstorch.randn(3, 2, dtype=F64, requires_grad=True), rstorch.randn(1, 2, dtype=F64, requires_grad=True))
    assert gradcheck(lambda a, b: pad_sequence([a, b], padding_side="left"), seqs)


def test_pack_sequence_unpack_and_unpad():
    seqs = [rstorch.tensor([1.0, 2.0]), rstorch.tensor([3.0, 4.0, 5.0]), rstorch.tensor([6.0])]
    packed = pack_sequence(seqs, enforce_sorted=False)
    assert packed.data.tolist() == [3.0, 1.0, 6.0, 4.0, 2.0, 5.0]
    assert packed.sorted_indices.tolist() == [1, 0, 2] and packed.unsorted_indices.tolist() == [1, 0, 2]
    assert [s.tolist() for s in unpack_sequence(packed)] == [s.tolist() for s in seqs]
    padded = pad_sequence(seqs)
    assert [s.tolist() for s in unpad_sequence(padded, rstorch.tensor([2, 3, 1]))] == [s.tolist() for s in seqs]
    assert pad_sequence(rstorch.ones(2, 3)).tolist() == [[1.0, 1.0]] * 3  # a tensor is an iterable of rows
    assert invert_permutation(rstorch.tensor([2, 0, 1])).tolist() == [1, 2, 0]
    assert invert_permutation(None) is None
    assert repr(pack_sequence([rstorch.ones(2), rstorch.ones(1)])) == (
        "PackedSequence(data=tensor([1., 1., 1.]), batch_sizes=tensor([2, 1]), sorted_indices=None, "
        "unsorted_indices=None)")
    legacy = PackedSequence((rstorch.ones(3), rstorch.tensor([2, 1])))
    assert legacy.batch_sizes.tolist() == [2, 1] and legacy.sorted_indices is None
    assert packed.double().data.dtype == F64 and packed.to(rstorch.float32) is packed
    assert packed._fields == ("data", "batch_sizes", "sorted_indices", "unsorted_indices")


SORT_MSG = ("^`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
            "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement if you "
            "do not need ONNX exportability.$")
ZERO_MSG = "^Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0$"


@pytest.mark.parametrize("call, kind, message", [
    (lambda x: pack_padded_sequence(x, [1, 2]), RuntimeError, SORT_MSG),
    (lambda x: pack_padded_sequence(x, [2, 0]), RuntimeError, ZERO_MSG),
    (lambda x: pack_padded_sequence(x, [2, 0], enforce_sorted=False), RuntimeError, ZERO_MSG),
    (lambda x: pack_padded_sequence(x, [1, 2, 3]), RuntimeError,
     r"^Expected `len\(lengths\)` to be equal to batch_size, but got 3 \(batch_size=2\)$"),
    (lambda x: pack_padded_sequence(x, rstorch.tensor([[2, 1]])), RuntimeError,
     "^'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long tensor$"),
    # PyTorch casts lengths to int64 before the check, so a float tensor is named Long too.
    (lambda x: pack_padded_sequence(x, rstorch.tensor([[2.0, 1.0]])), RuntimeError,
     "^'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long tensor$"),
    (lambda x: pack_padded_sequence(rstorch.zeros(0, 2, 1), [0, 0]), RuntimeError, "^Cannot pack empty tensors.$"),
    (lambda x: pack_sequence([rstorch.ones(2), rstorch.ones(3)]), RuntimeError, SORT_MSG),
    (lambda x: pad_sequence([]), RuntimeError, "^received an empty list of sequences$"),
    (lambda x: pad_sequence(3), RuntimeError,
     "^pad_sequence: Expected iterable for input sequences, but got arg of type: <class 'int'>$"),
    (lambda x: pad_sequence([x], padding_side="up"), RuntimeError,
     "^Expected padding_side to be one of left or right, but got up.$"),
    (lambda x: pad_packed_sequence(pack_sequence([rstorch.ones(3), rstorch.ones(2)]), total_length=2), ValueError,
     r"^Expected total_length to be at least the length of the longest sequence in input, but got total_length=2 "
     "and max sequence length being 3$"),
])
def test_rnn_helper_errors(call, kind, message):
    with pytest.raises(kind, match=message):
        call(rstorch.randn(3, 2, 1))


def test_pack_accepts_float_lengths_and_foreach_flag():
    x = rstorch.randn(3, 2, 1)
    assert pack_padded_sequence(x, [2.0, 1.0]).batch_sizes.tolist() == [2, 1]
    assert pack_padded_sequence(x, rstorch.tensor([2.0, 1.0])).batch_sizes.tolist() == [2, 1]
    # foreach is accepted (PyTorch 2.15 takes foreach=True on CPU tensors too).
    p = rstorch.ones(2, requires_grad=True)
    p.grad = rstorch.ones(2)
    assert clip_grad_norm_(p, 1.0, foreach=True).item() == pytest.approx(math.sqrt(2))
    clip_grad_value_(p, 0.5, foreach=True)
    assert p.grad.tolist() == [0.5, 0.5]


# ---- RNN layers on packed input -------------------------------------------------------------

@pytest.mark.parametrize("case", FIXTURE["rnn"], ids=lambda c: f"{c['kind']}-{'-'.join(c['kwargs'])}")
def test_rnn_layers_accept_packed_sequence(case):
    layer = getattr(rstorch.nn, case["kind"])(3, 4, dtype=F64, **case["kwargs"])
    layer.load_state_dict({k: t64(v) for k, v in case["state"].items()})
    packed = pack_sequence([t64(s) for s in case["seqs"]], enforce_sorted=False)
    data = packed.data.detach().requires_grad_(True)
    packed = PackedSequence(data, packed.batch_sizes, packed.sorted_indices, packed.unsorted_indices)
    hx = [t64(h) for h in case["hx"]]
    output, h_n = layer(packed, tuple(hx) if case["kind"] == "LSTM" else hx[0])
    assert isinstance(output, PackedSequence)
    assert output.batch_sizes.tolist() == case["batch_sizes"]
    assert output.sorted_indices.tolist() == case["sorted_indices"]
    close(output.data, case["output"])
    states = list(h_n) if case["kind"] == "LSTM" else [h_n]
    for got, want in zip(states, case["states"]):
        close(got, want)
    loss = (output.data * t64(case["w"])).sum()
    for s, w in zip(states, case["ws"]):
        loss = loss + (s * t64(w)).sum()
    loss.backward()
    close(data.grad, case["grad"], 1e-10)
    for name, p in layer.named_parameters():
        close(p.grad, case["param_grads"][name], 1e-10)


def test_packed_rnn_equals_per_sequence_runs():
    rstorch.manual_seed(0)
    gru = rstorch.nn.GRU(2, 3, bidirectional=True, dtype=F64)
    seqs = [rstorch.randn(n, 2, dtype=F64) for n in (3, 5, 2)]
    output, h_n = gru(pack_sequence(seqs, enforce_sorted=False))
    padded, lengths = pad_packed_sequence(output)
    assert lengths.tolist() == [3, 5, 2]
    for b, s in enumerate(seqs):
        out_b, h_b = gru(s.unsqueeze(1))
        close(padded[:len(s), b], out_b[:, 0].tolist())
        close(h_n[:, b], h_b[:, 0].tolist())
