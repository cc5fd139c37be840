"""DataPipes: composable iterable-style (`iter`) and map-style (`map`) datasets. Importing this
package registers the built-ins' functional forms (`dp.map`, `dp.batch`, ...). PyTorch's
DataFrame pipes (`datapipes.dataframe`) need pandas/TorchArrow and are not provided."""
from . import iter, map  # noqa: A004 - PyTorch's submodule names
from . import datapipe, utils  # noqa: F401

__all__ = ["iter", "map"]
