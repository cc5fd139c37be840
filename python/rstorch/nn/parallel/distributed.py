"""DistributedDataParallel over rstorch.distributed: every process holds a replica, the replicas
start from rank 0's state, and after each backward every parameter's `.grad` is the average of the
processes' gradients, so one optimizer step keeps the replicas equal.

Gradients are reduced in buckets (about `bucket_cap_mb` each, parameters in reverse registration
order, which is roughly the order backward produces them). A post-accumulate-grad hook on each
parameter runs once its `.grad` holds this backward's gradient (plus what `no_sync()` passes
accumulated); when a bucket is complete its all_reduce starts asynchronously (MPI's Iallreduce)
while backward goes on computing the next buckets' gradients. Buckets start in index order on every
process (MPI needs the same order everywhere). Open MPI moves a non-blocking collective on only
inside MPI calls (it has no progress thread), so each later hook tests the oldest bucket in flight,
which lets the transfer advance between the backward's steps; the last hook waits for the rest and
writes the averaged gradients."""
import contextlib

import rstorch

from ..modules.module import Module

_UNFINISHED = ("Expected to have finished reduction in the prior iteration before starting a new one. This error "
               "indicates that your module has parameters that were not used in producing loss. You can enable "
               "unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
               "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
               "participate in calculating loss.")


_FIRST_BUCKET_BYTES = 1024 * 1024


class _Reducer:
    """One backward's gradient averaging: which parameters have reported, which buckets are in flight."""

    def __init__(self, params, buckets, group, size):
        self.params = params
        self.buckets = buckets          # lists of parameter indices
        self.bucket_of = {i: b for b, bucket in enumerate(buckets) for i in bucket}
        self.group = group
        self.size = size
        self.armed = False
        self.poll = True                # test in-flight buckets from later hooks (benches turn it off to compare)
        self.reset()

    def reset(self):
        self.ready = set()
        self.pending = [len(b) for b in self.buckets]
        self.launched = []               # (bucket index, flat tensor, work)
        self.polled = 0                  # launched buckets known complete

    @property
    def started(self):
        return bool(self.ready)

    def file(self, index):
        """A parameter's `.grad` is final for this backward (or the parameter is unused)."""
        if index in self.ready:
            raise RuntimeError("Expected to mark a variable ready only once. A parameter's gradient was produced "
                               "twice in one backward pass (reentrant backward or a shared parameter).")
        self.ready.add(index)
        self.pending[self.bucket_of[index]] -= 1
        if self.poll:
            self.progress()
        while len(self.launched) < len(self.buckets) and self.pending[len(self.launched)] == 0:
            self.launch(len(self.launched))
        if len(self.launched) == len(self.buckets):
            self.finish()

    def progress(self):
        """Let MPI advance the buckets in flight (one test drives its whole progress engine)."""
        while self.polled < len(self.launched) and self.launched[self.polled][2].is_completed():
            self.polled += 1

    def launch(self, b):
        from ... import distributed as dist
        pieces = []
        for i in self.buckets[b]:
            p = self.params[i]
            grad = p.grad
            pieces.append(rstorch.zeros(p.numel(), dtype=p.dtype) if grad is None else grad.detach().reshape(-1))
        flat = rstorch.cat(pieces) if len(pieces) > 1 else pieces[0].clone()
        # Divide before summing, as PyTorch's default communication hook does.
        flat.div_(self.size)
        self.launched.append((b, flat, dist.all_reduce(flat, group=self.group, async_op=True)))

    def finish(self):
        for b, flat, work in self.launched:
            work.wait()
            offset = 0
            for i in self.buckets[b]:
                p = self.params[i]
                p.grad = flat[offset:offset + p.numel()].view(p.shape)
                offset += p.numel()
        self.armed = False
        self.reset()


class DistributedDataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False, delay_all_reduce_named_params=None,
                 param_to_hook_all_reduce=None, mixed_precision=None, device_mesh=None, skip_all_reduce_unused_params=False):
        super().__init__()
        from ... import distributed as dist
        from ...distributed._state import _resolve
        group = _resolve(process_group)   # PyTorch's ValueError when no group exists
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        params, seen = [], set()
        for p in module.parameters():
            if p.requires_grad and id(p) not in seen:
                seen.add(id(p))
                params.append(p)
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        self.module = module
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.process_group = group
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self._join = None
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        self._rank0 = dist.get_global_rank(group, 0)
        # Every replica starts from rank 0's parameters and buffers.
        with rstorch.no_grad():
            for tensor in module.state_dict().values():
                dist.broadcast(tensor, src=self._rank0, group=group)
        self._reducer = _Reducer(params, self._buckets(params), group, group.size())
        self._param_index = {id(p): i for i, p in enumerate(params)}
        # The hooks run once backward has written each parameter's .grad.
        for i, p in enumerate(params):
            p.register_post_accumulate_grad_hook(self._make_hook(i))

    def _buckets(self, params):
        """Reverse registration order, a new bucket when the cap is reached or the dtype changes. The
        first bucket is capped at 1 MB (PyTorch's `_DEFAULT_FIRST_BUCKET_BYTES`), so that the first
        all_reduce starts early in backward."""
        buckets, current, size, dtype = [], [], 0, None
        for i in reversed(range(len(params))):
            p = params[i]
            nbytes = p.numel() * p.element_size()
            cap = min(_FIRST_BUCKET_BYTES, self.bucket_bytes_cap) if not buckets else self.bucket_bytes_cap
            if current and (size + nbytes > cap or p.dtype != dtype):
                buckets.append(current)
                current, size = [], 0
            current.append(i)
            size += nbytes
            dtype = p.dtype
        buckets.append(current)
        return buckets

    def _make_hook(self, index):
        reducer = self._reducer

        def hook(param):
            if reducer.armed:   # not under no_sync() nor after a forward outside DDP: plain accumulation
                reducer.file(index)
        return hook

    def _unused_parameters(self, outputs):
        """The indices of parameters the outputs' autograd graph does not reach."""
        reached, stack, seen = set(), [], set()
        for out in outputs:
            if isinstance(out, rstorch.Tensor) and out.grad_fn is not None:
                stack.append(out.grad_fn)
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            variable = getattr(node, "variable", None)
            if variable is not None:
                reached.add(id(variable))
            stack.extend(next_node for next_node, _ in getattr(node, "next_functions", ()))
        return [i for i, p in enumerate(self._reducer.params) if id(p) not in reached]

    def forward(self, *inputs, **kwargs):
        from ... import distributed as dist
        reducer = self._reducer
        if reducer.started:
            raise RuntimeError(_UNFINISHED)
        if self._join is not None and rstorch.is_grad_enabled():
            self._join.forward_started()
        if self.broadcast_buffers and self.require_forward_param_sync:
            with rstorch.no_grad():
                for buffer in self.module.buffers():
                    dist.broadcast(buffer, src=self._rank0, group=self.process_group)
        output = self.module(*inputs, **kwargs)
        reducer.armed = rstorch.is_grad_enabled() and self.require_backward_grad_sync
        if reducer.armed and self.find_unused_parameters:
            for i in self._unused_parameters(_tensors_in(output)):
                reducer.file(i)
        return output

    @contextlib.contextmanager
    def join(self, divide_by_initial_world_size=True, enable=True, throw_on_early_termination=False):
        """Train on uneven inputs: see _join.py. With `divide_by_initial_world_size` the gradients
        are divided by the group's size even when fewer processes contribute (PyTorch's default);
        otherwise by the number still training. `throw_on_early_termination`: every process raises
        once one has run out of inputs."""
        if not enable:
            yield
            return
        from ._join import _Join
        self._join = _Join(self, divide_by_initial_world_size, throw_on_early_termination)
        try:
            yield
            self._join.shadow_until_all_joined()
        finally:
            self._join = None
            self._reducer.size = self.process_group.size()

    @contextlib.contextmanager
    def no_sync(self):
        """Backward passes inside accumulate local gradients only; the first synchronised backward
        after averages the accumulated sums."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous


def _tensors_in(value):
    if isinstance(value, rstorch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors_in(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _tensors_in(v)]
    return []
