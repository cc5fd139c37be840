"""Recurrent cells, the Transformer decoder, EmbeddingBag and nn.utils (weight/spectral norm,
parametrize, functional_call, fusion) run the same way on either framework: one list of cases
over a framework module `torch` (tests/record_nnrec.py runs it on PyTorch and writes
fixtures/nnrec.json, tests/python/test_nnrec.py runs it on rstorch and compares).

Every parameter and buffer is set from a seeded NumPy generator, inputs are float64, and a
case's result holds its outputs, the gradients of sum(out * w) (w recorded random) for inputs
and parameters, and state_dict keys; an error is recorded as [type name, message]."""
import warnings
import zlib

import numpy as np


def encode(x):
    """A JSON-able form of tensors (their values), tuples and dicts of them."""
    if hasattr(x, "tolist") and hasattr(x, "requires_grad"):
        return {"shape": list(x.shape), "values": x.detach().tolist()}
    if isinstance(x, (list, tuple)):
        return [encode(v) for v in x]
    if isinstance(x, dict):
        return {k: encode(v) for k, v in x.items()}
    return x


def capture(fn):
    """fn()'s encoded result, or its error as [type name, message]; warnings are dropped."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return {"ok": encode(fn())}
        except Exception as e:  # noqa: BLE001 (what either framework raises is the record)
            return {"error": [type(e).__name__, str(e)]}


class Cases:
    def __init__(self, torch):
        self.torch = torch
        self.nn = torch.nn
        self.F = torch.nn.functional
        self.rng = np.random.default_rng(0)

    # ---- helpers ----------------------------------------------------------------------------

    def t(self, *shape, grad=False):
        x = self.torch.from_numpy(self.rng.standard_normal(shape))
        return x.requires_grad_(True) if grad else x

    def ids(self, values):
        return self.torch.tensor(values, dtype=self.torch.int64)

    def fill(self, module):
        """Sets every parameter and floating buffer of `module` (double) from the generator."""
        module.double()
        with self.torch.no_grad():
            for _, p in list(module.named_parameters()) + list(module.named_buffers()):
                if p.is_floating_point():
                    p.copy_(self.torch.from_numpy(np.asarray(self.rng.standard_normal(tuple(p.shape)) * 0.5)))
        return module

    def backward(self, outs, module=None, inputs=()):
        """Gradients of sum(out * w) over the tensors in `outs`, for `inputs` and parameters."""
        torch = self.torch
        flat = [o for o in (outs if isinstance(outs, (list, tuple)) else [outs]) if o is not None]
        loss = sum((o * torch.from_numpy(self.rng.standard_normal(tuple(o.shape)))).sum() for o in flat)
        loss.backward()
        grads = {f"input{i}": x.grad for i, x in enumerate(inputs)}
        if module is not None:
            grads.update({name: p.grad for name, p in module.named_parameters()})
        return grads

    def keys(self, module):
        return {"keys": list(module.state_dict().keys()),
                "shapes": [list(v.shape) for v in module.state_dict().values()]}

    # ---- recurrent cells --------------------------------------------------------------------

    def cell(self, kind, bias=True, nonlinearity=None, batched=True, with_hx=True):
        nn = self.nn
        kwargs = {"bias": bias}
        if nonlinearity is not None:
            kwargs["nonlinearity"] = nonlinearity
        cell = self.fill(getattr(nn, kind)(3, 4, **kwargs))
        lead = (2,) if batched else ()
        x = self.t(*lead, 3, grad=True)
        inputs = [x]
        if with_hx:
            hx = [self.t(*lead, 4, grad=True) for _ in range(2 if kind == "LSTMCell" else 1)]
            inputs += hx
            out = cell(x, tuple(hx) if kind == "LSTMCell" else hx[0])
        else:
            out = cell(x)
        return {"out": out, "grads": self.backward(out, cell, inputs), **self.keys(cell)}

    def cell_error(self, kind, x_shape, h_shape=None):
        cell = getattr(self.nn, kind)(3, 4).double()
        x = self.t(*x_shape)
        if h_shape is None:
            return cell(x)
        if kind == "LSTMCell":
            return cell(x, (self.t(*h_shape), self.t(*h_shape)))
        return cell(x, self.t(*h_shape))

    # ---- transformer ------------------------------------------------------------------------

    def decoder_layer(self, norm_first=False, batch_first=False, activation="relu", masks=False, batched=True):
        nn, torch = self.nn, self.torch
        if activation == "callable":
            activation = self.F.silu
        layer = self.fill(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, activation=activation,
                                                     batch_first=batch_first, norm_first=norm_first))
        shape = (lambda s, b: (b, s, 8) if batch_first else (s, b, 8)) if batched else (lambda s, b: (s, 8))
        tgt, memory = self.t(*shape(4, 3), grad=True), self.t(*shape(5, 3), grad=True)
        kwargs = {}
        if masks:
            kwargs["tgt_mask"] = nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
            kwargs["tgt_is_causal"] = True
            kwargs["memory_mask"] = self.t(4, 5)
            if batched:
                kwargs["tgt_key_padding_mask"] = torch.tensor([[False, False, True, False]] * 2 + [[False] * 4])
                kwargs["memory_key_padding_mask"] = torch.tensor([[False, True, False, False, True]] * 3)
        out = layer(tgt, memory, **kwargs)
        return {"out": out, "grads": self.backward(out, layer, [tgt, memory]), **self.keys(layer)}

    def decoder_stack(self, norm=True, detect_causal=True):
        nn, torch = self.nn, self.torch
        layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0)
        dec = self.fill(nn.TransformerDecoder(layer, 2, norm=nn.LayerNorm(8) if norm else None))
        tgt, memory = self.t(4, 2, 8, grad=True), self.t(3, 2, 8, grad=True)
        mask = nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
        out = dec(tgt, memory, tgt_mask=mask, tgt_is_causal=None if detect_causal else False)
        return {"out": out, "grads": self.backward(out, dec, [tgt, memory]), **self.keys(dec)}

    def transformer(self, batch_first=False, norm_first=False, activation="relu"):
        nn, torch = self.nn, self.torch
        model = self.fill(nn.Transformer(8, 2, 2, 1, 16, dropout=0.0, batch_first=batch_first, norm_first=norm_first,
                                         activation=activation))
        src = self.t(*((2, 5, 8) if batch_first else (5, 2, 8)), grad=True)
        tgt = self.t(*((2, 4, 8) if batch_first else (4, 2, 8)), grad=True)
        out = model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(4, dtype=torch.float64),
                    src_key_padding_mask=torch.tensor([[False] * 5, [False, False, False, True, True]]),
                    memory_key_padding_mask=torch.tensor([[False] * 5, [False, False, False, True, True]]))
        return {"out": out, "grads": self.backward(out, model, [src, tgt]), **self.keys(model)}

    def encoder_warnings(self):
        """The warnings of constructing encoders (PyTorch names why it skips nested tensors)."""
        nn = self.nn
        layers = [nn.TransformerEncoderLayer(8, 2, 16), nn.TransformerEncoderLayer(8, 2, 16, batch_first=True),
                  nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, norm_first=True),
                  nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, bias=False),
                  nn.TransformerEncoderLayer(8, 1, 16, batch_first=True),
                  nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, activation=self.F.silu)]
        out = []
        for layer in layers:
            for enable in [True, False]:
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    nn.TransformerEncoder(layer, 1, enable_nested_tensor=enable)
                out.append([str(w.message) for w in caught])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            nn.Transformer(8, 2, 1, 1, 16)
        out.append([str(w.message) for w in caught])
        return out

    def transformer_error(self, src_shape, tgt_shape):
        model = self.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0).double()
        return model(self.t(*src_shape), self.t(*tgt_shape))

    # ---- embedding bag ----------------------------------------------------------------------

    def embedding_bag(self, mode, ids, offsets=None, psw=False, padding_idx=None, include_last_offset=False,
                      max_norm=None):
        weight = self.t(6, 3, grad=True)
        x = self.ids(ids)
        kwargs = {"mode": mode, "padding_idx": padding_idx, "include_last_offset": include_last_offset,
                  "max_norm": max_norm}
        inputs = [weight]
        if psw:
            per_sample = self.t(*x.shape, grad=True)
            kwargs["per_sample_weights"] = per_sample
            inputs.append(per_sample)
        if max_norm is not None:  # max_norm renormalises rows in place: a leaf under no_grad
            weight = weight.detach().requires_grad_(True)
            inputs[0] = weight
        out = self.F.embedding_bag(x, weight, None if offsets is None else self.ids(offsets), **kwargs)
        grads = self.backward(out, None, inputs)
        return {"out": out, "grads": grads, "weight_after": weight}

    def embedding_bag_module(self):
        bag = self.fill(self.nn.EmbeddingBag(6, 3, mode="sum", padding_idx=1))
        out = bag(self.ids([0, 1, 2, 5, 4]), self.ids([0, 2]))
        return {"out": out, "grads": self.backward(out, bag), "repr": repr(bag), **self.keys(bag)}

    def embedding_bag_error(self, ids, offsets=None, dtype=None, **kwargs):
        weight = self.t(6, 3) if dtype is None else self.t(6, 3).to(dtype)
        return self.F.embedding_bag(self.ids(ids) if isinstance(ids, list) else ids, weight,
                                    None if offsets is None else self.ids(offsets), **kwargs)

    # ---- weight and spectral norm ---------------------------------------------------------------

    def module(self, kind):
        nn = self.nn
        return {"linear": lambda: nn.Linear(3, 4), "conv": lambda: nn.Conv2d(2, 3, 2),
                "convt": lambda: nn.ConvTranspose2d(2, 3, 2)}[kind]().double()

    def input_for(self, kind):
        return self.t(2, 3, grad=True) if kind == "linear" else self.t(1, 2, 4, 4, grad=True)

    def weight_norm_hook(self, kind, dim=0):
        nn = self.nn
        m = self.fill(nn.utils.weight_norm(self.module(kind), dim=dim))
        keys = self.keys(m)
        x = self.input_for(kind)
        out = m(x)
        grads = self.backward(out, m, [x])
        nn.utils.remove_weight_norm(m)
        return {"out": out, "grads": grads, "after_remove": m.weight, "removed_keys": list(m.state_dict()), **keys}

    def spectral_norm_hook(self, kind):
        nn = self.nn
        m = nn.utils.spectral_norm(self.module(kind))
        keys = self.keys(m)
        self.fill(m)
        x = self.input_for(kind)
        outs = [m(x), m(x)]
        grads = self.backward(outs, m, [x])
        m.eval()
        outs.append(m(x))
        state = {k: v for k, v in m.state_dict().items()}
        nn.utils.remove_spectral_norm(m)
        return {"outs": outs, "grads": grads, "state": state, "after_remove": m.weight, **keys}

    def parametrized_weight_norm(self, kind, dim=0):
        nn = self.nn
        m = self.fill(self.module(kind))
        nn.utils.parametrizations.weight_norm(m, dim=dim)
        originals = [m.parametrizations.weight.original0, m.parametrizations.weight.original1]
        x = self.input_for(kind)
        out = m(x)
        return {"out": out, "originals": originals, "grads": self.backward(out, m, [x]), "cls": type(m).__name__,
                **self.keys(m)}

    def parametrized_spectral_norm(self, kind):
        nn = self.nn
        m = nn.utils.parametrizations.spectral_norm(self.module(kind))
        keys = self.keys(m)
        self.fill(m)
        with self.torch.no_grad():
            sn = m.parametrizations.weight[0]
            sn._u.copy_(self.F.normalize(sn._u, dim=0))
            sn._v.copy_(self.F.normalize(sn._v, dim=0))
        x = self.input_for(kind)
        outs = [m(x), m(x)]
        grads = self.backward(outs, m, [x])
        m.eval()
        outs.append(m(x))
        return {"outs": outs, "grads": grads, "u": sn._u, "v": sn._v, **keys}

    def orthogonal(self, shape, orthogonal_map=None, trivialization=True, conv=False):
        nn, torch = self.nn, self.torch
        m = self.fill(nn.Conv2d(2, 3, 2) if conv else nn.Linear(shape[1], shape[0]))
        nn.utils.parametrizations.orthogonal(m, orthogonal_map=orthogonal_map, use_trivialization=trivialization)
        first = m.weight
        result = {"weight": first, **self.keys(m)}
        if shape[0] != shape[1] and trivialization:
            return result  # the base has random extra columns: only the first weight is determined
        x = self.t(*((1, 2, 3, 3) if conv else (2, shape[1])), grad=True)
        with torch.no_grad():  # a point away from the identity of the map
            original = m.parametrizations.weight.original
            original.copy_(original + self.torch.from_numpy(self.rng.standard_normal(tuple(original.shape)) * 0.3))
        out = m(x)
        result.update({"original": m.parametrizations.weight.original, "out": out, "moved": m.weight,
                       "grads": self.backward(out, m, [x])})
        return result

    def orthogonal_error(self, which):
        nn = self.nn
        m = self.fill(nn.Linear(3, 3))
        if which == "vector":
            return nn.utils.parametrizations.orthogonal(m, "bias")
        if which == "map":
            return nn.utils.parametrizations.orthogonal(m, orthogonal_map="qr")
        nn.utils.parametrizations.orthogonal(m, orthogonal_map="matrix_exp", use_trivialization=False)
        m.weight = self.t(3, 3)
        return m.weight

    # ---- parametrize ------------------------------------------------------------------------

    def symmetric(self):
        nn = self.nn

        class Symmetric(nn.Module):
            def forward(self, x):
                return x.triu() + x.triu(1).transpose(-1, -2)

            def right_inverse(self, a):
                return a.triu()

        return Symmetric()

    def scale(self, factor):
        nn = self.nn

        class Scale(nn.Module):
            def forward(self, x):
                return x * factor

        return Scale()

    def parametrize_flow(self):
        nn, P = self.nn, self.nn.utils.parametrize
        m = self.fill(nn.Linear(3, 3))
        P.register_parametrization(m, "weight", self.symmetric())
        first = {"weight": m.weight, "is": [P.is_parametrized(m), P.is_parametrized(m, "weight"),
                                            P.is_parametrized(m, "bias")],
                 "cls": type(m).__name__, "before": P.type_before_parametrizations(m).__name__, **self.keys(m)}
        x = self.t(2, 3, grad=True)
        out = m(x)
        first["grads"] = self.backward(out, m, [x])
        first["out"] = out
        m.weight = self.t(3, 3)
        first["after_assign"] = [m.weight, m.parametrizations.weight.original]
        P.register_parametrization(m, "weight", self.scale(2.0))
        first["chained"] = m.weight
        first["chained_keys"] = self.keys(m)
        P.register_parametrization(m, "bias", self.scale(3.0))
        kept = P.remove_parametrizations(m, "weight", leave_parametrized=True)
        first["removed_weight"] = [kept.weight, type(kept).__name__, self.keys(kept)]
        P.remove_parametrizations(m, "bias", leave_parametrized=False)
        first["removed_bias"] = [m.bias, type(m).__name__, P.is_parametrized(m), hasattr(m, "parametrizations")]
        return first

    def parametrize_error(self, which):
        nn, P = self.nn, self.nn.utils.parametrize
        m = self.fill(nn.Linear(3, 3))
        torch = self.torch

        class Sum(nn.Module):
            def forward(self, x):
                return x.sum()

        class ToFloat(nn.Module):
            def forward(self, x):
                return x.to(torch.float32)

        if which == "shape":
            return P.register_parametrization(m, "weight", Sum())
        if which == "dtype":
            return P.register_parametrization(m, "weight", ToFloat())
        if which == "missing":
            return P.register_parametrization(m, "nothing", Sum())
        if which == "no_right_inverse":
            P.register_parametrization(m, "weight", self.scale(2.0))
            m.weight = self.t(3, 3)
        if which == "not_parametrized":
            return P.remove_parametrizations(m, "weight")
        if which == "unsafe_shape":
            P.register_parametrization(m, "weight", Sum(), unsafe=True)
            return m.weight
        if which == "leave_unparametrized_sequence":
            nn.utils.parametrizations.weight_norm(m)
            return P.remove_parametrizations(m, "weight", leave_parametrized=False)
        return None

    # ---- functional_call and fusion -----------------------------------------------------------

    def functional_call(self, tie_weights=True, strict=False, which="plain"):
        nn, torch = self.nn, self.torch
        if which in ("tied", "conflict"):
            # Two layers sharing one weight Parameter (biases separate).
            model = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 3))
            model[2].weight = model[0].weight
        else:
            model = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3), nn.Linear(3, 4))
        self.fill(model).eval()
        with torch.no_grad():
            for b in model.buffers():
                if b.is_floating_point():
                    b.abs_()
        x = self.t(2, 3)
        before = model(x)
        replacement = {"0.weight": self.t(3, 3, grad=True), "0.bias": self.t(3)}
        if which == "buffer":
            replacement = {"1.running_mean": self.t(3)}
        if which == "conflict":
            replacement["2.weight"] = self.t(3, 3)
        if which == "strict":
            replacement["extra"] = self.t(1)
        out = torch.func.functional_call(model, replacement, (x,), tie_weights=tie_weights, strict=strict)
        grads = self.backward(out, None, [replacement["0.weight"]] if "0.weight" in replacement else [])
        return {"before": before, "out": out, "after": model(x), "grads": grads,
                "still": [name for name, _ in model.named_parameters()]}

    def fuse_conv(self, transpose=False):
        nn = self.nn
        conv = self.fill(nn.ConvTranspose2d(2, 3, 2) if transpose else nn.Conv2d(2, 3, 2)).eval()
        bn = self.fill(nn.BatchNorm2d(3)).eval()
        with self.torch.no_grad():
            bn.running_var.abs_()
        fused = nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
        x = self.t(1, 2, 4, 4)
        return {"weight": fused.weight, "bias": fused.bias, "out": fused(x), "ref": bn(conv(x)),
                "requires_grad": [fused.weight.requires_grad, fused.bias.requires_grad]}

    def fuse_linear(self):
        nn = self.nn
        linear = self.fill(nn.Linear(3, 4)).eval()
        bn = self.fill(nn.BatchNorm1d(4)).eval()
        with self.torch.no_grad():
            bn.running_var.abs_()
        fused = nn.utils.fuse_linear_bn_eval(linear, bn)
        x = self.t(2, 3)
        return {"weight": fused.weight, "bias": fused.bias, "out": fused(x), "ref": bn(linear(x))}


def cases(torch):
    """The cases by name, each a zero-argument function, for the framework module `torch`."""
    c = Cases(torch)
    out = {}
    for kind in ["RNNCell", "LSTMCell", "GRUCell"]:
        for bias in [True, False]:
            out[f"{kind}-bias{bias}"] = lambda k=kind, b=bias: c.cell(k, bias=b)
        out[f"{kind}-unbatched"] = lambda k=kind: c.cell(k, batched=False)
        out[f"{kind}-nohx"] = lambda k=kind: c.cell(k, with_hx=False)
        out[f"{kind}-unbatched-nohx"] = lambda k=kind: c.cell(k, batched=False, with_hx=False)
        out[f"{kind}-err-rank"] = lambda k=kind: c.cell_error(k, (2, 2, 3))
        out[f"{kind}-err-hrank"] = lambda k=kind: c.cell_error(k, (2, 3), (1, 2, 4))
        out[f"{kind}-err-size"] = lambda k=kind: c.cell_error(k, (2, 5))
        out[f"{kind}-err-batch"] = lambda k=kind: c.cell_error(k, (2, 3), (3, 4))
        out[f"{kind}-err-hidden"] = lambda k=kind: c.cell_error(k, (2, 3), (2, 5))
        out[f"{kind}-err-unbatched-hx"] = lambda k=kind: c.cell_error(k, (3,), (2, 4))
    out["RNNCell-relu"] = lambda: c.cell("RNNCell", nonlinearity="relu")
    for norm_first in [False, True]:
        for batch_first in [False, True]:
            out[f"decoder_layer-nf{norm_first}-bf{batch_first}"] = \
                lambda n=norm_first, b=batch_first: c.decoder_layer(n, b, masks=True)
    out["decoder_layer-gelu"] = lambda: c.decoder_layer(activation="gelu")
    out["decoder_layer-callable"] = lambda: c.decoder_layer(activation="callable")
    out["decoder_layer-unbatched"] = lambda: c.decoder_layer(masks=True, batched=False)
    out["decoder-norm"] = lambda: c.decoder_stack(norm=True)
    out["decoder-nonorm-explicit"] = lambda: c.decoder_stack(norm=False, detect_causal=False)
    out["transformer"] = lambda: c.transformer()
    out["transformer-bf-nf-gelu"] = lambda: c.transformer(batch_first=True, norm_first=True, activation="gelu")
    out["transformer-encoder-warnings"] = c.encoder_warnings
    out["transformer-mask"] = lambda: torch.nn.Transformer.generate_square_subsequent_mask(3)
    out["transformer-err-batch"] = lambda: c.transformer_error((5, 2, 8), (4, 3, 8))
    out["transformer-err-feature"] = lambda: c.transformer_error((5, 2, 8), (4, 2, 6))
    bag = c.embedding_bag
    for mode in ["sum", "mean", "max"]:
        out[f"bag-{mode}"] = lambda m=mode: bag(m, [0, 2, 4, 1, 3, 5, 2], [0, 3, 3, 5])
        out[f"bag-{mode}-2d"] = lambda m=mode: bag(m, [[0, 2, 4], [5, 1, 1]])
        out[f"bag-{mode}-padding"] = lambda m=mode: bag(m, [0, 2, 2, 1, 2], [0, 2, 3], padding_idx=2)
        out[f"bag-{mode}-last-offset"] = lambda m=mode: bag(m, [0, 2, 4, 1, 3], [0, 1, 4, 5], include_last_offset=True)
    out["bag-sum-psw"] = lambda: bag("sum", [0, 2, 4, 1, 3], [0, 2], psw=True)
    out["bag-sum-psw-2d"] = lambda: bag("sum", [[0, 2], [4, 1]], psw=True)
    out["bag-mean-max-norm"] = lambda: bag("mean", [0, 2, 4, 2], [0, 2], max_norm=0.7)
    out["bag-module"] = c.embedding_bag_module
    err = c.embedding_bag_error
    out["bag-err-offset0"] = lambda: err([1, 2], [1])
    out["bag-err-offset-last"] = lambda: err([1, 2], [0, 3])
    out["bag-err-no-offsets"] = lambda: err([1, 2])
    out["bag-err-2d-offsets"] = lambda: err([[1, 2]], [0])
    out["bag-err-3d"] = lambda: err(torch.zeros(1, 1, 1, dtype=torch.int64), [0])
    out["bag-err-range"] = lambda: err([1, 7], [0])
    out["bag-err-range-negative-max"] = lambda: err([1, -1], [0], mode="max")
    out["bag-err-range-float32"] = lambda: err([1, 7], [0], dtype=torch.float32)
    out["bag-err-mode"] = lambda: err([1, 2], [0], mode="median")
    out["bag-err-psw-mode"] = lambda: err([1, 2], [0], per_sample_weights=torch.ones(2, dtype=torch.float64))
    out["bag-err-psw-shape"] = lambda: err([1, 2], [0], mode="sum", per_sample_weights=torch.ones(3))
    out["bag-err-padding"] = lambda: err([1, 2], [0], padding_idx=9)
    for kind in ["linear", "conv"]:
        out[f"weight_norm-{kind}"] = lambda k=kind: c.weight_norm_hook(k)
        out[f"weight_norm-{kind}-dimNone"] = lambda k=kind: c.weight_norm_hook(k, dim=None)
        out[f"weight_norm-{kind}-dim1"] = lambda k=kind: c.weight_norm_hook(k, dim=1)
        out[f"p-weight_norm-{kind}"] = lambda k=kind: c.parametrized_weight_norm(k)
        out[f"p-weight_norm-{kind}-dimNone"] = lambda k=kind: c.parametrized_weight_norm(k, dim=None)
    for kind in ["linear", "conv", "convt"]:
        out[f"spectral_norm-{kind}"] = lambda k=kind: c.spectral_norm_hook(k)
        out[f"p-spectral_norm-{kind}"] = lambda k=kind: c.parametrized_spectral_norm(k)
    out["spectral_norm-err-iters"] = lambda: torch.nn.utils.spectral_norm(torch.nn.Linear(2, 2), n_power_iterations=0)
    out["weight_norm-err-twice"] = lambda: torch.nn.utils.weight_norm(torch.nn.utils.weight_norm(torch.nn.Linear(2, 2)))
    out["weight_norm-err-remove"] = lambda: torch.nn.utils.remove_weight_norm(torch.nn.Linear(2, 2))
    out["spectral_norm-err-remove"] = lambda: torch.nn.utils.remove_spectral_norm(torch.nn.Linear(2, 2))
    for shape, orth_map, triv in [((4, 4), None, True), ((4, 4), "cayley", True), ((4, 4), "householder", True),
                                  ((5, 3), None, True), ((3, 5), "matrix_exp", True), ((5, 3), "householder", False),
                                  ((3, 5), "householder", False), ((4, 4), "matrix_exp", False),
                                  ((4, 4), "cayley", False)]:
        out[f"orthogonal-{shape[0]}x{shape[1]}-{orth_map}-triv{triv}"] = \
            lambda s=shape, m=orth_map, t=triv: c.orthogonal(s, m, t)
    out["orthogonal-conv"] = lambda: c.orthogonal((2, 2), conv=True)
    for which in ["vector", "map", "assign"]:
        out[f"orthogonal-err-{which}"] = lambda w=which: c.orthogonal_error(w)
    out["parametrize-flow"] = c.parametrize_flow
    for which in ["shape", "dtype", "missing", "no_right_inverse", "not_parametrized", "unsafe_shape",
                  "leave_unparametrized_sequence"]:
        out[f"parametrize-err-{which}"] = lambda w=which: c.parametrize_error(w)
    out["functional_call"] = lambda: c.functional_call()
    out["functional_call-buffer"] = lambda: c.functional_call(which="buffer")
    out["functional_call-tied"] = lambda: c.functional_call(which="tied")
    out["functional_call-untied"] = lambda: c.functional_call(which="tied", tie_weights=False)
    out["functional_call-conflict"] = lambda: c.functional_call(which="conflict")
    out["functional_call-strict"] = lambda: c.functional_call(which="strict", strict=True)
    out["fuse-conv"] = lambda: c.fuse_conv()
    out["fuse-convt"] = lambda: c.fuse_conv(transpose=True)
    out["fuse-linear"] = c.fuse_linear
    return {name: _seeded(c, name, fn) for name, fn in out.items()}


def _seeded(c, name, fn):
    """fn with the generator reseeded from the case's name, so that a case draws the same numbers
    whichever cases ran before it."""
    def run():
        c.rng = np.random.default_rng(zlib.crc32(name.encode()))
        return fn()
    return run
