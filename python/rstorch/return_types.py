"""Named tuples returned by reductions that give values and indices, as in PyTorch."""
from collections import namedtuple

max = namedtuple("max", ["values", "indices"])
min = namedtuple("min", ["values", "indices"])
sort = namedtuple("sort", ["values", "indices"])
topk = namedtuple("topk", ["values", "indices"])
median = namedtuple("median", ["values", "indices"])
kthvalue = namedtuple("kthvalue", ["values", "indices"])
frexp = namedtuple("frexp", ["mantissa", "exponent"])
