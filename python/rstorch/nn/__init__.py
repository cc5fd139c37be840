"""Neural-network building blocks: `Module`, `Parameter`, layers, containers, `functional`, `utils`
and `init`."""
from .modules import *  # noqa: F401,F403
from .parameter import Parameter
from . import functional, init, modules, parameter
from . import utils
