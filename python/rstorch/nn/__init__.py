"""Neural-network building blocks."""
from . import functional
