"""Neural-network building blocks: `Module`, `Parameter`, layers, containers, `functional`, `utils`,
`init` and `parallel`."""
from .modules import *  # noqa: F401,F403
from .parameter import Parameter
from . import functional, init, modules, parameter
from . import parallel, utils
from .parallel import DataParallel
from .parameter import Buffer, UninitializedBuffer, UninitializedParameter
from ._factory import factory_kwargs
