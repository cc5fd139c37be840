"""Recurrent layers RNN, LSTM and GRU: per layer and direction one matmul projects the whole input
sequence, then each time step is one matmul of the state and, for LSTM and GRU, one fused
pointwise cell op (`_C._lstm_cell` / `_C._gru_cell`: the gates activated and combined in one pass
forward, one node computing every gate's gradient backward). An LSTM layer over whole-batch steps
without projection runs as one op per direction (`_C._lstm_layer`, one node).

Weights and gate order follow PyTorch so checkpoints load unchanged: LSTM gates are stacked
(input, forget, cell, output), GRU gates (reset, update, new), and the GRU's new gate is
tanh(W_in x + b_in + r * (W_hn h + b_hn)). A PackedSequence input (nn.utils.rnn) runs each step on the
sequences still going and returns a PackedSequence."""
import math
import numbers
import warnings

import rstorch
from ... import _C
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module, _place

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# One step of each recurrence, shared by the sequence layers and the cells. `gx` is the input's
# projection W_ih x + b_ih (the layers compute it for the whole sequence at once).

def _rnn_step(gx, h, w_hh, b_hh, nonlinearity):
    act = rstorch.tanh if nonlinearity == "tanh" else rstorch.relu
    return act(gx + F.linear(h, w_hh, b_hh))


def _lstm_step(gx, h, c, w_hh, b_hh):
    # gates (i, f, g, o) = gx + W_hh h + b_hh; c' = f c + i g; h' = o tanh(c'), in one op.
    return _C._lstm_cell(gx, F.linear(h, w_hh, b_hh), c)


def _gru_step(gx, h, w_hh, b_hh):
    # r, z = sigmoid(gx + W_hh h + b_hh); n = tanh(gx_n + r * (W_hn h + b_hn)) (the reset gate
    # scales the state's projection including its bias, as in PyTorch); h' = n + z (h - n).
    return _C._gru_cell(gx, F.linear(h, w_hh, b_hh), h)


class RNNBase(Module):
    """Parameters, argument checks and the layer/direction loop shared by RNN, LSTM and GRU."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        num_directions = 2 if bidirectional else 1

        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")

        gate_size = _GATES[mode] * hidden_size
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = [("weight_ih", (gate_size, layer_input_size)),
                          ("weight_hh", (gate_size, real_hidden_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for stem, shape in shapes:
                    setattr(self, stem + suffix, Parameter(_C.empty(shape, dtype=dtype)))
                    names.append(stem + suffix)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()
        _place(self, device)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self):
        """Kept for API compatibility: weights are used in place, there is no fused buffer."""

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # ---- forward machinery -----------------------------------------------------------------

    def _check_input(self, input, name):
        if input.dim() not in (2, 3):
            # PyTorch's RNN says "4D tensor instead", its LSTM and GRU "4D instead".
            noun = "D tensor" if name == "RNN" else "D"
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}{noun} instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {input.shape[-1]}")

    def _check_hidden(self, hx, expected, what="hidden"):
        if tuple(hx.shape) != expected:
            raise RuntimeError(f"Expected {what} size {expected}, got {list(hx.shape)}")

    def _layer_weights(self, index):
        return [getattr(self, name) for name in self._all_weights[index]]

    def _step(self, gx, state, weights):
        """One time step: gx is the input's projection W_ih x + b_ih; returns the new state
        (its first tensor is the step's output)."""
        raise NotImplementedError

    def _whole_layer(self, gx, state, weights, reverse):
        """One direction of one layer over a whole sequence (every step the whole batch) as one
        op, or None where the steps run one by one."""
        return None

    def _direction(self, steps, state, weights, reverse):
        """Runs one direction of one layer over `steps`, the per-step input projections. When the
        input is packed, step t holds only the first rows (the sequences longer than t): those
        rows advance and the others keep their state, which for the forward direction is their
        final state and for the reverse one the initial state they have not started from yet."""
        outs = [None] * len(steps)
        order = reversed(range(len(steps))) if reverse else range(len(steps))
        if len(steps) and steps[0].shape[0] == state[0].shape[0] and len(set(s.shape[0] for s in steps)) == 1:
            # Every step runs the whole batch (not packed, or packed sequences of one length).
            for t in order:
                state = self._step(steps[t], state, weights)
                outs[t] = state[0]
            return outs, state
        for t in order:
            rows = steps[t].shape[0]
            if rows == state[0].shape[0]:
                state = self._step(steps[t], state, weights)
                outs[t] = state[0]
            else:
                new = self._step(steps[t], [s[:rows] for s in state], weights)
                state = [rstorch.cat([n, s[rows:]], 0) for n, s in zip(new, state)]
                outs[t] = new[0]
        return outs, state

    def _run(self, x, states, batch_sizes=None):
        """x: (T, B, in), or packed data (N, in) with its batch_sizes (a list); states: list (one
        per state tensor) of (L * D, B, *) tensors."""
        num_directions = 2 if self.bidirectional else 1
        finals = [[] for _ in states]
        layer_input = x
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                index = layer * num_directions + direction
                weights = self._layer_weights(index)
                # The input projection does not depend on the state: one matmul for the whole sequence.
                gx = F.linear(layer_input, weights[0], weights[2] if self.bias else None)
                state = [s[index] for s in states]
                whole = self._whole_layer(gx, state, weights, direction == 1) if batch_sizes is None else None
                if whole is not None:
                    output, final = whole
                    outputs.append(output)
                else:
                    steps = gx.unbind(0) if batch_sizes is None else gx.split(batch_sizes, 0)
                    outs, final = self._direction(steps, state, weights, direction == 1)
                    outputs.append(rstorch.stack(outs, 0) if batch_sizes is None else rstorch.cat(outs, 0))
                for i, f in enumerate(final):
                    finals[i].append(f)
            layer_input = outputs[0] if num_directions == 1 else rstorch.cat(outputs, -1)
            # Dropout sits between layers, never after the last one.
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, [rstorch.stack(f, 0) for f in finals]

    def _forward_states(self, input, hx, name, state_sizes):
        """Shared forward: normalises layout and batching, defaults and checks states, runs. A
        PackedSequence input gives a PackedSequence output; its hx is in the original batch
        order, as are the final states."""
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx, state_sizes)
        self._check_input(input, name)
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        if hx is not None:
            hx = list(hx) if isinstance(hx, (tuple, list)) else [hx]
            if not batched:
                hx = [s.unsqueeze(1) for s in hx]
        output, finals = self._run(input, self._initial_states(input, hx, input.shape[1], state_sizes))
        if not batched:
            output = output.squeeze(1)
            finals = [f.squeeze(1) for f in finals]
        elif self.batch_first:
            output = output.transpose(0, 1)
        return output, finals

    def _initial_states(self, input, hx, batch, state_sizes):
        num_directions = 2 if self.bidirectional else 1
        expected = [(self.num_layers * num_directions, batch, size) for size in state_sizes]
        if hx is None:
            return [rstorch.zeros(*shape, dtype=input.dtype, device=input.device) for shape in expected]
        for i, (s, shape) in enumerate(zip(hx, expected)):
            self._check_hidden(s, shape, "hidden" if len(hx) == 1 else f"hidden[{i}]")
        return hx

    def _forward_packed(self, packed, hx, state_sizes):
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        if data.dim() != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.dim()}")
        if data.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got {data.shape[-1]}")
        batch_sizes_list = [int(v) for v in batch_sizes.tolist()]
        if hx is not None:
            hx = list(hx) if isinstance(hx, (tuple, list)) else [hx]
            if sorted_indices is not None:
                hx = [s.index_select(1, sorted_indices) for s in hx]
        states = self._initial_states(data, hx, batch_sizes_list[0], state_sizes)
        output, finals = self._run(data, states, batch_sizes_list)
        if unsorted_indices is not None:
            finals = [f.index_select(1, unsorted_indices) for f in finals]
        return PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices), finals

    def _check_hx_rank(self, input, hx):
        """PyTorch's message when a single state's rank does not match the input's batching."""
        if hx is None:
            return
        if input.dim() == 3 and hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
        if input.dim() == 2 and hx.dim() != 2:
            raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")


class RNN(RNNBase):
    """Elman RNN: h' = act(W_ih x + b_ih + W_hh h + b_hh), act tanh or relu."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         0, device, dtype)
        self.nonlinearity = nonlinearity

    def _step(self, gx, state, weights):
        return [_rnn_step(gx, state[0], weights[1], weights[3] if self.bias else None, self.nonlinearity)]

    def forward(self, input, hx=None):
        if not isinstance(input, PackedSequence):
            self._check_input(input, "RNN")
            self._check_hx_rank(input, hx)
        output, (h_n,) = self._forward_states(input, hx, "RNN", [self.hidden_size])
        return output, h_n


class LSTM(RNNBase):
    """Long short-term memory; optional projection of h to `proj_size`."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         proj_size, device, dtype)

    def _whole_layer(self, gx, state, weights, reverse):
        # One node per layer and direction (PyTorch's MkldnnRnnLayerBackward0), whose backward
        # forms the recurrent weight's gradient for all steps in one product.
        if self.proj_size > 0 or gx.shape[0] == 0:
            return None
        out, h, c = _C._lstm_layer(gx, state[0], state[1], weights[1], weights[3] if self.bias else None, reverse)
        return out, [h, c]

    def _step(self, gx, state, weights):
        h, c = _lstm_step(gx, state[0], state[1], weights[1], weights[3] if self.bias else None)
        if self.proj_size > 0:
            h = F.linear(h, weights[-1])
        return [h, c]

    def forward(self, input, hx=None):
        packed = isinstance(input, PackedSequence)
        if not packed:
            self._check_input(input, "LSTM")
        if hx is not None:
            if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                raise RuntimeError("LSTM expects hx to be a tuple (h_0, c_0)")
            want = 3 if packed or input.dim() == 3 else 2
            if hx[0].dim() != want or hx[1].dim() != want:
                kind = "batched 3-D" if want == 3 else "unbatched 2-D"
                raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got "
                                   f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        output, (h_n, c_n) = self._forward_states(input, hx, "LSTM", [real_hidden, self.hidden_size])
        return output, (h_n, c_n)


class GRU(RNNBase):
    """Gated recurrent unit."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         0, device, dtype)

    def _step(self, gx, state, weights):
        return [_gru_step(gx, state[0], weights[1], weights[3] if self.bias else None)]

    def forward(self, input, hx=None):
        if not isinstance(input, PackedSequence):
            self._check_input(input, "GRU")
            self._check_hx_rank(input, hx)
        output, (h_n,) = self._forward_states(input, hx, "GRU", [self.hidden_size])
        return output, h_n


# ---- single-step cells ---------------------------------------------------------------------

class RNNCellBase(Module):
    """weight_ih (chunks*hidden, input), weight_hh (chunks*hidden, hidden) and the two biases,
    all uniform(-1/sqrt(hidden), 1/sqrt(hidden)) as in PyTorch."""

    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_C.empty((num_chunks * hidden_size, input_size), dtype=dtype))
        self.weight_hh = Parameter(_C.empty((num_chunks * hidden_size, hidden_size), dtype=dtype))
        if bias:
            self.bias_ih = Parameter(_C.empty((num_chunks * hidden_size,), dtype=dtype))
            self.bias_hh = Parameter(_C.empty((num_chunks * hidden_size,), dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()
        _place(self, device)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += f", bias={self.bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batch(self, name, input, states, labels):
        """Checks ranks, adds the batch dimension to unbatched input and states, and checks
        sizes with PyTorch's messages; returns (batched, input, states)."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if states is not None:
            for label, s in zip(labels, states):
                if s.dim() not in (1, 2):
                    raise ValueError(f"{name}: Expected {label} to be 1D or 2D, got {s.dim()}D instead")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if states is None:
            zeros = rstorch.zeros(input.shape[0], self.hidden_size, dtype=input.dtype, device=input.device)
            states = [zeros] * len(labels)
        elif not batched:
            states = [s.unsqueeze(0) for s in states]
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        for i, s in enumerate(states):
            if s.dim() != 2:
                raise RuntimeError(f"Expected 2D hidden{i} (batch x hidden_size), but got {s.dim()}D tensor")
            if s.shape[0] != input.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{i} batch size {s.shape[0]}")
            if s.shape[1] != self.hidden_size:
                raise RuntimeError(
                    f"hidden{i} has inconsistent hidden_size: got {s.shape[1]}, expected {self.hidden_size}")
        return batched, input, states

    def _gx(self, input):
        return F.linear(input, self.weight_ih, self.bias_ih)


class RNNCell(RNNCellBase):
    """One Elman step: h' = act(W_ih x + b_ih + W_hh h + b_hh), act tanh or relu."""

    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        batched, input, (h,) = self._batch("RNNCell", input, None if hx is None else [hx], ["hidden"])
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        h = _rnn_step(self._gx(input), h, self.weight_hh, self.bias_hh, self.nonlinearity)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step; returns (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        batched, input, (h, c) = self._batch("LSTMCell", input, None if hx is None else list(hx),
                                             ["hx[0]", "hx[1]"])
        h, c = _lstm_step(self._gx(input), h, c, self.weight_hh, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        batched, input, (h,) = self._batch("GRUCell", input, None if hx is None else [hx], ["hidden"])
        h = _gru_step(self._gx(input), h, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
