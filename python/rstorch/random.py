"""`torch.random`: the default generator's seed and state, and `fork_rng`."""
import contextlib

from . import _C
from ._C import get_rng_state, set_rng_state, initial_seed, seed

__all__ = ["manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state", "fork_rng"]


def manual_seed(seed):
    """Seeds the default generator and returns it, as PyTorch's does."""
    _C.manual_seed(seed)
    return _C.default_generator


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices", device_type=None):
    """Draws inside the block leave the default generator as it was before it. rstorch's
    devices draw from that one host generator, so `devices` has nothing more to save."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
